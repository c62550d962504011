"""Localized release notes as Word DOCX (the Chinese ones keep Wizards' template styles).

Paragraph styles name the parts: "Heading 1/2", "FAQ Card" (a card's full text, lines broken
with <w:br/>), "FAQ Point" (one ruling), "FAQ Paragraph". When a document lacks those styles,
a list paragraph (numbering properties) is a ruling and a multi-line paragraph is a card.
Text is read from <w:t> runs only, so Word field codes (HYPERLINK "http://…" in <w:instrText>)
never reach the text; symbols stay as printed here and are converted to {T}, {3}, {W/U} by
the shared builder.
"""
from __future__ import annotations

import io
import re
import zipfile

from kb.parse.release_notes.common import (
    CARD_SECTION_HEADING,
    Block,
    build_rulings_document,
    clean_lines,
)
from kb.records import ParseError, RulingsDocument

FORMAT_NAME = "release-notes-docx"
DESCRIPTION = "Localized official release notes as Word DOCX (e.g. Simplified Chinese): per-card rulings"

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _paragraph_text(paragraph) -> str:  # paragraph: python-docx Paragraph
    """Visible text: <w:t> runs, <w:tab/> and <w:br/>, skipping field instructions."""
    parts: list[str] = []
    for element in paragraph._p.iter():
        if element.tag == f"{_W}t":
            parts.append(element.text or "")
        elif element.tag == f"{_W}tab":
            parts.append("\t")
        elif element.tag in (f"{_W}br", f"{_W}cr"):
            parts.append("\n")
    return "".join(parts)


def _is_list_paragraph(paragraph) -> bool:
    properties = paragraph._p.pPr
    return properties is not None and properties.numPr is not None


def _kind(style: str, paragraph, text: str) -> str:
    lowered = style.lower()
    if lowered.startswith("heading") or lowered == "title":
        return "heading"
    if "card" in lowered:
        return "card"
    if "point" in lowered or "bullet" in lowered or _is_list_paragraph(paragraph):
        return "point"
    if "\n" in text and "paragraph" not in lowered:
        return "card"
    return "paragraph"


def docx_blocks(data: bytes, name: str) -> list[Block]:
    import docx  # python-docx

    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as error:
        raise ParseError(f"{name}: not a readable DOCX ({error})") from None
    blocks: list[Block] = []
    for index, paragraph in enumerate(document.paragraphs):
        text = clean_lines(_paragraph_text(paragraph))
        if not text:
            continue
        style = paragraph.style.name if paragraph.style is not None else ""
        blocks.append(Block(_kind(style, paragraph, text), text, index))
    return blocks


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """Cards and rulings of a DOCX release-notes document."""
    return build_rulings_document(docx_blocks(data, name), FORMAT_NAME, name, lang)


def sniff(data: bytes, name: str = "") -> bool:
    """A DOCX using the release notes' "FAQ" styles or with a card-specific-notes heading."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "word/document.xml" not in archive.namelist():
                return False
            styles = archive.read("word/styles.xml") if "word/styles.xml" in archive.namelist() else b""
            if b'w:styleId="FAQCard"' in styles or b'w:styleId="FAQPoint"' in styles:
                return True
            body = archive.read("word/document.xml").decode("utf-8", errors="replace")
    except (zipfile.BadZipFile, KeyError):
        return False
    # Without the template styles, the card-specific heading still names the document.
    return bool(CARD_SECTION_HEADING.search(re.sub(r"<[^>]+>", "", body)))
