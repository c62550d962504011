"""Localized release notes as HTML (the Korean ones are calibre exports of the official DOCX).

Shape: ``<h1>``/``<h2>`` section headings; a card is a ``<p>`` whose lines are separated by
``<br>`` (name, mana cost, type line, rules text); its rulings are the ``<li>`` of the list(s)
right after it. A list with a different class right after an item ending in ":" holds that
item's sub-points (calibre flattens nested lists into sibling lists).
"""
from __future__ import annotations

import re

from bs4 import BeautifulSoup, NavigableString, Tag

from kb.parse.html_whole import check_closed_html
from kb.parse.release_notes.common import (
    CARD_SECTION_HEADING,
    Block,
    build_rulings_document,
    clean_lines,
)
from kb.records import ParseError, QualityIssue, RulingsDocument

FORMAT_NAME = "release-notes-html"
DESCRIPTION = "Localized official release notes as HTML (e.g. Korean, calibre export): per-card rulings"

_HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_LIST_TAGS = {"ul", "ol"}


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ParseError(f"{name}: not UTF-8 HTML ({error.reason} at byte {error.start})") from None


def _text_with_breaks(element: Tag) -> str:
    for br in element.find_all("br"):
        br.replace_with("\n")
    return clean_lines(element.get_text())


def _top_level_elements(root: Tag):
    """Headings, paragraphs and lists in document order, looking inside wrapper divs only."""
    for child in root.children:
        if isinstance(child, NavigableString) or not isinstance(child, Tag):
            continue
        if child.name in ("div", "section", "article", "body", "main"):
            yield from _top_level_elements(child)
        elif child.name in _HEADING_TAGS or child.name == "p" or child.name in _LIST_TAGS:
            yield child


def _list_class(element: Tag) -> str:
    return " ".join(element.get("class") or [])


def html_blocks(html: str) -> list[Block]:
    soup = BeautifulSoup(html, "html.parser")
    root = soup.body or soup
    blocks: list[Block] = []
    previous_list_class: str | None = None
    # Where the lists right before this element begin. Any other element ends a run, an empty
    # paragraph too: each of the real page's 155 empty paragraphs after a list ends a card's notes
    # (the next card's header follows), and none stands between two lists of one card.
    run: int | None = None
    for index, element in enumerate(_top_level_elements(root)):
        if element.name not in _LIST_TAGS:
            run = None
        elif run is None:
            run = index
        if element.name in _LIST_TAGS:
            list_class = _list_class(element)
            items = [clean_lines(item.get_text()) for item in element.find_all("li")]
            items = [item for item in items if item]
            attaches = (
                previous_list_class is not None
                and list_class != previous_list_class
                and blocks
                and blocks[-1].kind == "point"
                and blocks[-1].text.rstrip().endswith((":", "："))
            )
            if attaches:  # sub-points of the item that announced them
                blocks[-1].text += "".join(f"\n• {item}" for item in items)
                continue
            blocks.extend(Block("point", item, index, run) for item in items)
            previous_list_class = list_class
            continue
        previous_list_class = None if element.name != "p" or element.get_text(strip=True) else previous_list_class
        text = _text_with_breaks(element)
        if not text:
            continue
        if element.name in _HEADING_TAGS:
            blocks.append(Block("heading", text, index))
        elif "\n" in text:
            blocks.append(Block("card", text, index))
        else:
            blocks.append(Block("paragraph", text, index))
    return blocks


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """Cards and rulings of an HTML release-notes document."""
    html = _decode(data, name)
    if not re.search(r"<(?:html|body|p)\b", html[:4096], re.IGNORECASE):
        raise ParseError(f"{name}: not HTML")
    check_closed_html(html, name)
    blocks = html_blocks(html)
    document = build_rulings_document(blocks, FORMAT_NAME, name, lang)
    document.issues.extend(_cards_with_two_lists(blocks, name))
    return document


def _cards_with_two_lists(blocks: list[Block], name: str) -> list[QualityIssue]:
    """A card whose notes come in two runs of lists: every card of the real pages has one (a
    sub-list right inside it), so the header of the card the second run is about was lost, and its
    notes are credited to the card before."""
    issues = []
    card: Block | None = None
    lists: list[int] = []
    for block in [*blocks, Block("heading", "", -1)]:
        if block.kind in ("card", "heading"):
            if card is not None and len(lists) > 1:
                title = card.text.split("\n")[0]
                issues.append(QualityIssue(
                    "card-header-missing",
                    f"{name}: the notes of {title!r} come in {len(lists)} lists (blocks {', '.join(map(str, lists))}), where"
                    " every card has one: the header of the card the later list is about is lost, most likely, and its"
                    f" notes are credited to {title!r}",
                ))
            card, lists = (block if block.kind == "card" else None), []
        elif block.kind == "point" and card is not None and block.run is not None and block.run not in lists:
            lists.append(block.run)
    return issues


def sniff(data: bytes, name: str = "") -> bool:
    """HTML with a card-specific-notes heading and list items."""
    head = data[:4096].lstrip().lower()
    if not (head.startswith(b"<") and (b"<html" in head or b"<body" in head or b"<!doctype html" in head)):
        return False
    try:
        text = data.decode("utf-8-sig", errors="replace")
    except Exception:
        return False
    headings = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", text, re.IGNORECASE | re.DOTALL)
    has_card_section = any(CARD_SECTION_HEADING.search(re.sub(r"<[^>]+>", "", h)) for h in headings)
    return has_card_section and "<li" in text
