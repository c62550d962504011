"""Scraped text into safe HTML: escaped first, then rule numbers become links and symbols tokens; word diffs; JSON."""
from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import quote

# {T}, {2}, {W/U}, {B/P}, {2/W}, {X}, {10}, {½}: at most a few characters inside braces.
SYMBOL = r"\{[^{}\s]{1,6}\}"


# Dotted rule numbers (601.2b, 702.78) and "rule 104"/"section 7"; not "1201.5" or "v.601.2".
RULE_REF = r"(?<![0-9A-Za-z.])[1-9]\d{2}\.\d+[a-z]?(?![A-Za-z0-9]|\.\d)"


SECTION_REF = r"(?<=\b[Rr]ule )[1-9]\d{2}\b(?!\.\d)"


TOKEN = re.compile(f"(?P<symbol>{SYMBOL})|(?P<rule>{RULE_REF})|(?P<section>{SECTION_REF})")


SYMBOL_NAMES = {
    "T": "tap", "Q": "untap", "W": "white", "U": "blue", "B": "black", "R": "red", "G": "green",
    "C": "colorless", "S": "snow", "E": "energy", "X": "X", "Y": "Y", "Z": "Z", "P": "Phyrexian",
    "CHAOS": "chaos", "PW": "planeswalker", "A": "acorn", "H": "half",
}


COLOURS = {"W": "w", "U": "u", "B": "b", "R": "r", "G": "g", "C": "c"}


def render_text(text: str | None, version: str | None = None) -> str:
    """Scraped text as safe HTML: escaped, rule numbers linked, symbols as CSS tokens."""
    if not text:
        return ""
    out: list[str] = []
    cursor = 0
    for match in TOKEN.finditer(text):
        out.append(html.escape(text[cursor : match.start()]))
        token = match.group(0)
        if match.group("symbol"):
            out.append(symbol_html(token))
        else:
            out.append(rule_link_html(token, version))
        cursor = match.end()
    out.append(html.escape(text[cursor:]))
    return "".join(out).replace("\n", "<br>\n")


LINKABLE_SCHEMES = ("http", "https")


def http_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) URL (safe to render as a link), else None: a scraped
    ``javascript:`` or ``data:`` URL is shown as text, never made clickable."""
    if not url:
        return None
    scheme, _sep, rest = url.strip().partition(":")
    if scheme.lower() not in LINKABLE_SCHEMES or not rest.startswith("//") or any(ord(c) < 0x20 for c in url):
        return None
    return url


def rule_link_html(number: str, version: str | None = None) -> str:
    href = f"/rule/{quote(number)}" + (f"?version={quote(version)}" if version else "")
    return f'<a class="rule-ref" href="{html.escape(href)}">{html.escape(number)}</a>'


def symbol_html(token: str) -> str:
    """``{W/U}`` -> a token styled by its colours; the braces stay in the text for copy-paste."""
    inner = token[1:-1].upper()
    parts = inner.split("/")
    colours = [COLOURS[part] for part in parts if part in COLOURS]
    classes = ["sym"]
    if inner == "T":
        classes.append("sym-tap")
    elif inner == "Q":
        classes.append("sym-untap")
    elif colours:
        classes.append("sym-" + "".join(colours[:2]))
    else:
        classes.append("sym-generic")
    if "P" in parts:
        classes.append("sym-phyrexian")
    if len(parts) > 1:
        classes.append("sym-hybrid")
    label = " or ".join(SYMBOL_NAMES.get(part, part) for part in parts)
    shown = {"T": "T", "Q": "Q"}.get(inner, "/".join(parts))
    return (
        f'<span class="{" ".join(classes)}" title="{html.escape(label)}" role="img" '
        f'aria-label="{html.escape(token)}"><span class="sym-brace">{{</span>'
        f"{html.escape(shown)}<span class=\"sym-brace\">}}</span></span>"
    )


def as_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


def render_word_diff(markup: str | None) -> str:
    """``[-old-]{+new+}`` as escaped HTML with <del> and <ins>."""
    escaped = html.escape(markup or "")
    escaped = re.sub(r"\[-(.*?)-\]", r"<del>\1</del>", escaped, flags=re.S)
    return re.sub(r"\{\+(.*?)\+\}", r"<ins>\1</ins>", escaped, flags=re.S)
