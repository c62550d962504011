"""The key a card name is looked up by: case, accents and spacing ignored ("paradiesvogel"
finds "Paradiesvögel"); CJK names are unchanged but for width and spacing."""
from __future__ import annotations

import unicodedata


def name_key(name: str | None) -> str | None:
    if not name:
        return None
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFC", stripped).replace("’", "'").split())
