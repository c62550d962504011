"""Old Gatherer card pages (``Pages/Card/Details.aspx``, ASP.NET, 2008–2024).

A page holds one card block per face (``td.cardComponentContainer``; double-faced, split and
flip cards have two), each with ``div.row`` fields whose ids end in ``nameRow``, ``manaRow``,
``typeRow``, ``textRow``, ``numberRow``, ``setRow``, and the rulings table rows
``…rulingsRepeater_ctlNN_rulingDate`` (M/D/YYYY) / ``…_rulingText``. The rulings container is
often collapsed with ``display:none``; its rows are still the card's rulings.

Symbols are ``<img alt="Tap" src="…Image.ashx?…name=tap…">``; they are written back as braces.
The "Printed" view shows the printed (possibly localized) name, type and text; the site's UI and
the rulings stay English. The page does not say which language a printed card is in, so it is
read from the card's own type line and script (see ``detect_printed_language``).
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from urllib.parse import parse_qs, urlparse

from bs4 import BeautifulSoup, Comment, Tag, XMLParsedAsHTMLWarning

from kb.normalise.dates import parse_us_date
from kb.normalise.decode import decode_text, decoding_issues
from kb.normalise.symbols import gatherer_alt_to_symbol, normalise_symbols
from kb.normalise.text import clean_text
from kb.parse.html_whole import check_closed_html
from kb.parse.rulings.printed_language import detect_printed_language
from kb.records import (
    FACE_SEPARATOR,
    FACE_TEXT_SEPARATOR,
    CardName,
    CardRecord,
    ParseError,
    QualityIssue,
    RulingRecord,
    RulingsDocument,
)

FORMAT_NAME = "gatherer-old"
DESCRIPTION = "Old Gatherer card page (Pages/Card/Details.aspx HTML, 2008-2024)"

UNKNOWN_SYMBOL = "{?}"
RULING_DATE_ID = re.compile(r"rulingsRepeater_ctl(\d+)_rulingDate$")
RULING_TEXT_ID = re.compile(r"rulingsRepeater_ctl(\d+)_rulingText$")
# The fields (``div.row`` ids, after the last "_") a card block shows: those of the real pages we
# hold, and those other readers of the site name (FlavorText, ArtistCredit: ../shared/docs/SOURCES.md).
# A row not among them is a field renamed, or one never seen: it is left unread, and said so.
KNOWN_ROWS = frozenset({
    "nameRow", "manaRow", "cmcRow", "typeRow", "textRow", "flavorRow", "FlavorText", "colorIndicatorRow", "markRow",
    "ptRow", "setRow", "otherSetsRow", "rarityRow", "numberRow", "artistRow", "ArtistCredit", "playerRatingRow",
})

def sniff(data: bytes, name: str = "") -> bool:
    """An old Gatherer Details page: its ASP.NET control ids and card component cells."""
    return (
        b"ctl00_ctl00_ctl00_MainContent" in data
        and b"cardComponentContainer" in data
        and b"self.__next_f" not in data
    )


@dataclass
class _Face:
    """One face's fields as the page prints them."""

    name: str
    mana: str | None
    type: str | None
    text: str | None
    number: str | None
    set: str | None
    set_name: str | None
    rulings: list[tuple[str, str]]
    stats: dict[str, str]
    image_multiverse_id: int | None

def _symbol_of(image: Tag, issues: list[QualityIssue], where: str) -> str:
    query = parse_qs(urlparse(str(image.get("src") or "")).query)
    if "set" in query:
        return ""  # an expansion/rarity icon (setRow), not a card symbol
    image_name = query.get("name", [None])[0]
    alt = str(image.get("alt") or "")
    symbol = gatherer_alt_to_symbol(alt, image_name)
    if symbol is None:
        issues.append(QualityIssue("unknown-symbol", f"{where}: image alt={alt!r} name={image_name!r} kept as {UNKNOWN_SYMBOL}"))
        return UNKNOWN_SYMBOL
    return symbol


def _text_with_symbols(element: Tag, issues: list[QualityIssue], where: str) -> str:
    """The element's text with symbol images as braces and ``<br>`` as line breaks."""
    parts: list[str] = []
    for node in element.descendants:
        if isinstance(node, Tag):
            if node.name == "img":
                parts.append(_symbol_of(node, issues, where))
            elif node.name == "br":
                parts.append("\n")
        elif not isinstance(node, Comment) and node.parent is not None and node.parent.name not in ("script", "style"):
            parts.append(str(node))
    return "".join(parts)


def _field(component: Tag, row: str) -> Tag | None:
    """The ``div.value`` of the component's row whose id ends in ``row``."""
    container = component.find(id=re.compile(re.escape(row) + "$"))
    if container is None:
        return None
    value = container.find("div", class_="value")
    return value if isinstance(value, Tag) else None


def _field_text(component: Tag, row: str, issues: list[QualityIssue], where: str) -> str | None:
    value = _field(component, row)
    if value is None:
        return None
    text = normalise_symbols(clean_text(_text_with_symbols(value, issues, where)))
    return text or None


def _card_text(component: Tag, issues: list[QualityIssue], where: str) -> str | None:
    value = _field(component, "textRow")
    if value is None:
        return None
    boxes = value.find_all("div", class_="cardtextbox") or [value]
    lines = [clean_text(_text_with_symbols(box, issues, where)) for box in boxes]
    text = "\n".join(line for line in lines if line)
    return normalise_symbols(text) or None


def _set_code(component: Tag) -> str | None:
    value = _field(component, "setRow")
    if value is None:
        return None
    for image in value.find_all("img"):
        code = parse_qs(urlparse(str(image.get("src") or "")).query).get("set")
        if code:
            return code[0]
    return _listed_set_code(component, clean_text(value.get_text()))


def _listed_set_code(component: Tag, set_name: str) -> str | None:
    """A printed page names its set in words only ("Magic 2012"); the same page's list of the
    card's printings shows that set's icon, titled "Magic 2012 (Rare)", whose image carries the code."""
    listed = _field(component, "otherSetsRow")
    if not set_name or listed is None:
        return None
    codes = {
        code
        for image in listed.find_all("img")
        if re.sub(r"\s*\([^()]*\)$", "", str(image.get("title") or image.get("alt") or "")).strip() == set_name
        for code in parse_qs(urlparse(str(image.get("src") or "")).query).get("set", [])
    }
    return codes.pop() if len(codes) == 1 else None


def _rulings(component: Tag, issues: list[QualityIssue], where: str) -> list[tuple[str, str]]:
    """(raw date, text) of each ruling row in the component, in page order."""
    rows: list[tuple[str, str]] = []
    dates = component.find_all(id=RULING_DATE_ID)
    texts = component.find_all(id=RULING_TEXT_ID)
    if dates and len(texts) > len(dates):
        # A row whose date cell is not recognised is left out with its ruling (a page with none
        # recognised is flagged as a whole, below in ``parse``).
        issues.append(QualityIssue(
            "layout-changed",
            f"{where}: {len(texts)} ruling text cells but {len(dates)} date cells: {len(texts) - len(dates)} rulings"
            " whose row was not recognised are left out; the Gatherer markup may have changed",
        ))
    for date_cell in dates:
        text_cell = component.find(id=str(date_cell["id"]).replace("_rulingDate", "_rulingText"))
        if text_cell is None:
            raise ParseError(f"{where}: ruling row {date_cell['id']} has a date but no text cell")
        raw_date = clean_text(date_cell.get_text())
        text = normalise_symbols(clean_text(_text_with_symbols(text_cell, issues, where)))
        if text:
            rows.append((raw_date, text))
        else:
            # Said, as a bulk file's empty ruling is (it was dropped without a word: a review).
            issues.append(QualityIssue("empty-ruling", f"{where}: the ruling of {raw_date or 'no date'} ({date_cell['id']})"
                                                       " has no text; dropped"))
    return rows


def _display_mode(soup: BeautifulSoup) -> str | None:
    """'printed' or 'oracle' as the page's selected Display link says, None if it says neither."""
    for link_id, mode in (("cardTextSwitchLink2", "printed"), ("cardTextSwitchLink1", "oracle")):
        link = soup.find("a", id=link_id)
        if isinstance(link, Tag) and "selected" in (link.get("class") or []):
            return mode
    return None


def _multiverse_id(soup: BeautifulSoup) -> int | None:
    form = soup.find("form", action=True)
    candidates = [str(form["action"])] if isinstance(form, Tag) else []
    image = soup.find("img", id=re.compile(r"cardImage$"))
    if isinstance(image, Tag):
        candidates.append(str(image.get("src") or ""))
    for candidate in candidates:
        match = re.search(r"multiverseid=(\d+)", candidate, re.I)
        if match:
            return int(match.group(1))
    return None


def _image_multiverse_id(component: Tag) -> int | None:
    image = component.find("img", id=re.compile(r"cardImage$"))
    match = re.search(r"multiverseid=(\d+)", str(image.get("src") or ""), re.I) if isinstance(image, Tag) else None
    return int(match.group(1)) if match else None


# "1 / 1", "* / 1+*", Un-sets' "{1/2} / {1/2}": the page spaces the slash between the two.
PT_VALUE = re.compile(r"(\S+)\s+/\s+(\S+)|([^\s/]+)/([^\s/]+)")


def _stats(component: Tag, issues: list[QualityIssue], where: str) -> dict[str, str]:
    """The face's power and toughness ("P/T:" "1 / 1") or loyalty ("Loyalty:" "3", as the site
    labelled a planeswalker's row: we hold no such page): {} where the face shows neither."""
    row = component.find(id=re.compile(r"ptRow$"))
    value = _field(component, "ptRow")
    if not isinstance(row, Tag) or value is None:
        return {}
    label_cell = row.find("div", class_="label")
    label = clean_text(label_cell.get_text()) if isinstance(label_cell, Tag) else ""
    text = clean_text(value.get_text())
    pair = PT_VALUE.fullmatch(text)
    if label.startswith("P/T") and pair:
        return {"power": pair.group(1) or pair.group(3), "toughness": pair.group(2) or pair.group(4)}
    if label.startswith("Loyalty") and text and " " not in text:
        return {"loyalty": text}
    if label.startswith("Hand/Life"):
        return {}  # a Vanguard's hand and life modifiers: no card's numbers
    if text:
        issues.append(QualityIssue(
            "layout-changed", f"{where}: the power/toughness row reads {label!r} {text!r}, left unread: the Gatherer markup may have changed",
        ))
    return {}


def _joined_stat(faces: list[_Face], key: str) -> str | None:
    """The faces' values joined as their costs are ("3 // 5"), a face without one left empty
    ("13" for Elbrus, the Binding Blade's back face alone is " // 13": read alone, "13" would be
    either face's; and left out, it was lost: a code review); None where no face has one."""
    values = [face.stats.get(key) or "" for face in faces]
    return FACE_SEPARATOR.join(values) if any(values) else None


def _card_number(faces: list[_Face]) -> str | None:
    """The card's collector number: its faces' joined as their costs are ("81a // 81b") where
    each face has its own (the back face's "81b" alone was shown as the whole card's, beside the
    front's cost: a review); the one number the faces share, or the one face's, otherwise."""
    numbers = [face.number or "" for face in faces]
    if len(set(numbers)) > 1 and all(numbers):
        return FACE_SEPARATOR.join(numbers)
    return next((number for number in numbers if number), None)


def _components(soup: BeautifulSoup) -> list[Tag]:
    """Card blocks that hold a card name (empty placeholder cells are skipped)."""
    return [
        cell
        for cell in soup.find_all("td", class_="cardComponentContainer")
        if isinstance(cell, Tag) and cell.find(id=re.compile(r"nameRow$"))
    ]


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """One old Gatherer Details page → its card (faces joined), its name and its rulings.

    ``lang`` overrides the detected language of a printed page. Gatherer rulings are Wizards'
    (source ``wotc``) and English, even on localized pages.
    """
    html, encoding = decode_text(data, name)
    if "Gatherer" not in html or "MainContent" not in html:
        raise ParseError(f"{name}: not a Gatherer card page")
    check_closed_html(html, name)
    with warnings.catch_warnings():
        # The pages open with an XML declaration but are XHTML-ish HTML; parse them as HTML.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "lxml")
    components = _components(soup)
    if not components:
        raise ParseError(f"{name}: no card block (td.cardComponentContainer with a nameRow) found")
    issues: list[QualityIssue] = decoding_issues(data, name, encoding)
    faces: list[_Face] = []
    for index, component in enumerate(components):
        where = f"{name}: face {index + 1}"
        face_name = _field_text(component, "nameRow", issues, where)
        if not face_name:
            raise ParseError(f"{where} has an empty card name")
        _check_rows_known(component, issues, where)
        faces.append(
            _Face(
                name=face_name,
                mana=_field_text(component, "manaRow", issues, where),
                type=_field_text(component, "typeRow", issues, where),
                text=_card_text(component, issues, where),
                number=_field_text(component, "numberRow", issues, where),
                set=_set_code(component),
                set_name=_field_text(component, "setRow", issues, where),
                rulings=_rulings(component, issues, where),
                stats=_stats(component, issues, where),
                image_multiverse_id=_image_multiverse_id(component),
            )
        )
    mode = _display_mode(soup)
    multiverse_id = _multiverse_id(soup)
    # A double-faced card of 2011–2013 has a multiverse id and a number per face (81a, 81b): the
    # page's id is the face asked for; the printing is the whole card's, numbered by both faces.
    asked = next((face for face in faces if multiverse_id and face.image_multiverse_id == multiverse_id), faces[0])
    card_name = FACE_SEPARATOR.join(face.name for face in faces)
    type_line = FACE_SEPARATOR.join(face.type for face in faces if face.type) or None
    text = FACE_TEXT_SEPARATOR.join(face.text for face in faces if face.text) or None
    mana = FACE_SEPARATOR.join(face.mana for face in faces if face.mana) or None
    page_lang = lang or _page_language(mode, type_line or "", text or "", card_name, name, issues)
    printed = mode == "printed"
    card = CardRecord(
        name=card_name,
        faces=[face.name for face in faces] if len(faces) > 1 else [],
        lang=page_lang,
        printed_name=card_name if printed else None,
        printed_text=text if printed else None,
        printed_type_line=type_line if printed else None,
        oracle_text=None if printed else text,
        type_line=None if printed else type_line,
        mana_cost=mana,
        multiverse_id=multiverse_id,
        set_code=asked.set or faces[0].set,
        # In English on the pages of every language ("Magic 2012" on the German page); the
        # face asked for's, as its code is.
        set_name=asked.set_name or faces[0].set_name,
        collector_number=_card_number(faces),
        layout=None,
        power=_joined_stat(faces, "power"),
        toughness=_joined_stat(faces, "toughness"),
        loyalty=_joined_stat(faces, "loyalty"),
    )
    document = RulingsDocument(format=FORMAT_NAME, lang=page_lang, cards=[card], issues=issues)
    document.extra["display"] = mode
    # Printed pages show the set by name only (no symbol image carrying the code).
    document.extra["set_name"] = faces[0].set_name
    document.card_names = _names(card, faces, page_lang)
    document.rulings = _ruling_records(faces, card, page_lang, name, issues)
    _check_rulings_found(soup, document, name)
    return document


def _check_rows_known(component: Tag, issues: list[QualityIssue], where: str) -> None:
    """A card block's field rows outside ``KNOWN_ROWS``: a field renamed ("textRow" as anything
    else) took the printed text with it, with nothing else to notice (a vanilla card has no text
    row at all)."""
    unknown = sorted({
        str(row.get("id")).rsplit("_", 1)[-1]
        for row in component.find_all("div", class_="row", id=True)
        if str(row.get("id")).rsplit("_", 1)[-1] not in KNOWN_ROWS
    })
    if unknown:
        issues.append(QualityIssue(
            "layout-changed",
            f"{where} shows {'fields' if len(unknown) > 1 else 'a field'} this page layout never had"
            f" ({', '.join(unknown)}), left unread: the Gatherer markup may have changed",
        ))


def _check_rulings_found(soup: BeautifulSoup, document: RulingsDocument, name: str) -> None:
    """A page that shows a rulings table (its container is rendered only when the card has
    rulings) of which no row was read has changed its markup: say so, never "0 rulings"."""
    container = soup.find(id=re.compile(r"rulingsContainer$"))
    if document.rulings or not isinstance(container, Tag):
        return
    rows = len(container.find_all("tr"))
    document.issues.append(QualityIssue(
        "layout-changed",
        f"{name}: the page shows a rulings table ({rows} rows) but no ruling row was recognised; "
        "the Gatherer markup may have changed",
    ))


def _page_language(mode: str | None, type_line: str, text: str, card_name: str, name: str, issues: list[QualityIssue]) -> str:
    if mode == "oracle":
        return "en"  # Oracle wording is always English
    detected = detect_printed_language(type_line, text, card_name)
    if detected is None:
        issues.append(QualityIssue("unknown-language", f"{name}: printed card language not recognised; assumed en"))
        return "en"
    return detected


def _names(card: CardRecord, faces: list[_Face], lang: str) -> list[CardName]:
    """The page's card name (and face names); English counterparts only when the page is English."""
    english = lang == "en"
    names = [CardName(lang=lang, name=card.name, english_name=card.name if english else None)]
    if len(faces) > 1:
        names += [CardName(lang=lang, name=face.name, english_name=face.name if english else None) for face in faces]
    return names


def _ruling_records(faces: list[_Face], card: CardRecord, lang: str, name: str, issues: list[QualityIssue]) -> list[RulingRecord]:
    """Rulings of every face, once each (multi-face pages may repeat them per face)."""
    records: list[RulingRecord] = []
    seen: set[tuple[str, str]] = set()
    for face in faces:
        for raw_date, text in face.rulings:
            if (raw_date, text) in seen:
                continue
            seen.add((raw_date, text))
            published_at = parse_us_date(raw_date)  # the rulings table is US English: M/D/YYYY
            records.append(
                RulingRecord(
                    text=text,
                    raw_date=raw_date,
                    published_at=published_at,
                    position=len(records),
                    source="wotc",
                    card_name=card.name,
                    card_name_lang=lang,
                    lang="en",
                    multiverse_id=card.multiverse_id,
                )
            )
    return records
