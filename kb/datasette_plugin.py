"""Datasette plugin of mtg-rules-kb (registered through the ``datasette`` entry point)."""
from __future__ import annotations

from datasette import hookimpl


@hookimpl
def extra_css_urls(datasette):
    return ["/kb-static/kb.css"]
