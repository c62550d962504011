"""The Datasette plugin package: routes, page data, search, rendering, the feed, metadata, templates, static files.

Reads the built database only (never writes). May import ``kb.records``, ``kb.normalise`` and
``kb.store`` for the declared shape, column descriptions and history queries (never its writers);
works under plain ``datasette`` as well as ``mtgkb serve``.
"""

# The ``datasette`` entry point names this package, so that Datasette serves its templates/ and
# static/ folders; pluggy finds the hooks as attributes of the package.
from kb.site.plugin import (  # noqa: E402
    extra_css_urls,
    get_metadata,
    prepare_connection,
    prepare_jinja2_environment,
    register_routes,
)

__all__ = ["extra_css_urls", "get_metadata", "prepare_connection", "prepare_jinja2_environment", "register_routes"]
