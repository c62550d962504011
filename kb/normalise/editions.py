"""The set an English CR edition was released with, by effective date, where a source names it.

The table (``data/cr_editions.json``) comes from Venser's Journal's archive of CR files, which names
each by effective date and set; editions it does not hold have no set name rather than a guess.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def _editions() -> dict[str, dict[str, str]]:
    data = resources.files("kb.normalise").joinpath("data/cr_editions.json").read_text(encoding="utf-8")
    return json.loads(data)["editions"]


def edition_set_name(effective_date: str | None) -> str | None:
    """"Khans of Tarkir (KTK)" for the CR effective 2014-09-25; None where no source names the set."""
    edition = _editions().get(effective_date or "")
    return f"{edition['set_name']} ({edition['set_code']})" if edition else None
