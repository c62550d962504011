"""Whether an HTML page arrived whole.

A page cut short still parses: the rulings after the cut are simply missing, and nothing would
say so. Every real page we read (old and new Gatherer, Wizards' release notes and rules pages)
ends with its closing ``</html>`` tag, so a page that opens ``<html`` and does not close it is
refused, as a CR text file without its closing parts is.
"""
from __future__ import annotations

import re

from kb.records import ParseError

OPENING_HTML = re.compile(r"<html[\s>]", re.IGNORECASE)
# Only white space and comments may follow the closing tag.
CLOSING_HTML = re.compile(r"</html\s*>(?:\s|<!--.*?-->)*\Z", re.IGNORECASE | re.DOTALL)
# How far from the end the closing tag is looked for: past any trailing comment.
TAIL_CHARS = 4096


def check_closed_html(page: str, name: str) -> None:
    """ParseError when ``page`` opens an ``<html>`` element and ends before closing it."""
    if OPENING_HTML.search(page, 0, TAIL_CHARS) and not CLOSING_HTML.search(page[-TAIL_CHARS:]):
        raise ParseError(f"{name}: truncated: the page ends before its closing </html> tag")
