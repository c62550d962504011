"""What every localized release-notes document shares, whatever its container (HTML, DOCX).

Not a format itself (no FORMAT_NAME): ``release_notes_ko`` (HTML) and ``release_notes_zhs``
(DOCX) turn their container into a flat list of blocks, and ``build_rulings_document`` reads
the shape common to all Wizards release notes: a title, a header with the "last modified"
date, a general-notes section, then the card-specific notes, where each card's full text (name
on the first line, then mana cost, type line, rules text) is followed by its rulings as bullets.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from kb.normalise.dates import parse_date
from kb.normalise.lang import detect_lang
from kb.normalise.localized_symbols import localized_symbols_to_braces
from kb.normalise.text import clean_text
from kb.records import (
    CardName,
    CardRecord,
    CardStats,
    ParseError,
    QualityIssue,
    RulingRecord,
    RulingsDocument,
)

# The heading of the card-specific section in Wizards' release notes, by language.
CARD_SECTION_HEADING = re.compile(
    r"card[- ]specific notes|카드별 설명|카드별 노트|单卡解惑|單卡解惑|カード個別(?:評価|解説)"
    r"|notes? sur les cartes|anmerkungen zu (?:bestimmten|einzelnen) karten|notas (?:sobre|de) (?:las )?cartas"
    r"|note (?:specifiche )?sulle carte|notas espec[ií]ficas|notas sobre cartas|пояснения к (?:отдельным )?картам",
    re.IGNORECASE,
)
_DATE_IN_TEXT = re.compile(
    r"\d{4}\s*[年년]\s*\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일](?:\s*[(（]?\s*(?:[월화수목금토일]요일|星期.|[月火水木金土日]曜日)\s*[)）]?)?"
    r"|[^\W\d_]{3,}\.?\s+\d{1,2},\s+\d{4}"
    r"|\d{1,2}\.?\s+(?:de\s+)?[^\W\d_]{3,}\.?\s+(?:de\s+)?\d{4}"
)
# A parenthesis closing a card-name line: an English name ("(Act of Treason)") or a note such
# as "(플레인즈워커 덱 전용)" / "（「买一盒」赠卡）".
_TRAILING_PARENTHESIS = re.compile(r"\s*[(（]([^()（）]+)[)）]\s*$")
_LATIN_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9 ,.'’:!?&/-]*$")
_MANA_COST = re.compile(r"^(?:\{[^{}]+\})+$")


@dataclass
class Block:
    """One piece of a release-notes document, container-independent.

    ``kind`` is ``heading``, ``card`` (a card's full text, lines separated by "\\n"), ``point``
    (one bullet) or ``paragraph``. ``line`` is where the container put it (paragraph index).
    """

    kind: str
    text: str
    line: int
    # A point's run of lists: where the lists it is one of, each right after the other, begin
    # (HTML: a card's notes are one run, a sub-list inside it included); None where not known.
    run: int | None = None


def clean_lines(text: str) -> str:
    """``clean_text`` with ideographic spaces collapsed too and blank lines dropped: a release
    note's paragraph is one element, so its blank lines are layout, not paragraph breaks."""
    return "\n".join(line for line in clean_text(text.replace("\u3000", " ")).split("\n") if line)


def split_card_name(line: str) -> tuple[str, str | None, str | None]:
    """(localized name, English name or None, printed note or None) of a card block's first line."""
    match = _TRAILING_PARENTHESIS.search(line)
    if not match:
        return line.strip(), None, None
    inside = match.group(1).strip()
    name = line[: match.start()].strip()
    if _LATIN_NAME.match(inside):
        return name, inside, None
    return name, None, inside


def find_document_date(header: list[Block], lang: str) -> tuple[str | None, str | None]:
    """(raw, ISO) of the first date the header paragraphs print ("last modified")."""
    for block in header:
        for match in _DATE_IN_TEXT.finditer(block.text):
            iso = parse_date(match.group(0), lang)
            if iso:
                return match.group(0), iso
    return None, None


def _card_section_start(blocks: list[Block]) -> int | None:
    for index, block in enumerate(blocks):
        if block.kind == "heading" and CARD_SECTION_HEADING.search(block.text):
            return index + 1
    return None


def _header_blocks(blocks: list[Block]) -> list[Block]:
    """The blocks between the title and the first section heading."""
    header: list[Block] = []
    seen_title = False
    for block in blocks:
        if block.kind == "heading":
            if seen_title:
                break
            seen_title = True
            continue
        header.append(block)
    return header


def _document_lang(blocks: list[Block]) -> str:
    sample = " ".join(block.text for block in blocks if block.kind in ("point", "paragraph"))[:4000]
    lang, _confidence = detect_lang(sample)
    if lang == "und":
        raise ParseError("no text to tell the language from")
    return lang


def _symbols(text: str, lang: str, where: str, issues: list[QualityIssue]) -> str:
    converted, warnings = localized_symbols_to_braces(text, lang)
    issues.extend(QualityIssue("unknown-symbol", f"{where}: {warning}") for warning in warnings)
    return converted


_STATS_LINE = re.compile(r"[\dX*+−-]+/[\dX*+−-]+|\d+|X")


# A single number under a type line is a planeswalker's loyalty or a battle's defense: told by the
# type line's word in the notes' languages (the notes we hold print planeswalkers, no battle yet).
PLANESWALKER_WORDS = ("플레인즈워커", "鹏洛客", "鵬洛客", "プレインズウォーカー", "Planeswalker")
BATTLE_WORDS = ("전투", "战役", "戰役", "バトル", "Battle")


def _stats(line: str, type_line: str) -> CardStats:
    power, slash, toughness = line.partition("/")
    if slash:
        return CardStats(power=power.strip(), toughness=toughness.strip())
    if any(word in type_line for word in PLANESWALKER_WORDS):
        return CardStats(loyalty=line.strip())
    if any(word in type_line for word in BATTLE_WORDS):
        return CardStats(defense=line.strip())
    return CardStats()


def _card_record(lines: list[str], name: str, english_name: str | None, lang: str, place: int) -> CardRecord:
    """The card as the notes print it: its localized name, cost, type line and text (a printing
    with no id of its source: kept by its place in the document). The notes print a creature's
    power and toughness ("2/3") or a planeswalker's loyalty ("5") between the type line and the
    text: not its text (Scryfall's printed texts hold neither), kept as its numbers."""
    mana_cost = lines[1] if len(lines) > 1 and _MANA_COST.match(lines[1]) else None
    type_index = 2 if mana_cost else 1
    stats = CardStats()
    if len(lines) > type_index + 1 and _STATS_LINE.fullmatch(lines[type_index + 1].strip()):
        stats = _stats(lines[type_index + 1], lines[type_index])
        if stats:  # a lone number under a type line that has none is text, kept as printed
            lines = [*lines[: type_index + 1], *lines[type_index + 2 :]]
    return CardRecord(
        name=english_name or name,
        place=place,
        lang=lang,
        printed_name=name,
        mana_cost=mana_cost,
        printed_type_line=lines[type_index] if len(lines) > type_index else None,
        printed_text="\n".join(lines[type_index + 1:]) or None,
        **stats,
    )


def build_rulings_document(blocks: list[Block], format_name: str, name: str,
                           lang: str | None = None) -> RulingsDocument:
    """The cards and per-card rulings of a release-notes document given as blocks."""
    if not blocks:
        raise ParseError(f"{name}: empty document")
    try:
        lang = lang or _document_lang(blocks)
    except ParseError as error:
        raise ParseError(f"{name}: {error}") from None
    issues: list[QualityIssue] = []
    title = next((block.text for block in blocks if block.kind == "heading"), None)
    raw_date, published = find_document_date(_header_blocks(blocks), lang)
    if published is None:
        issues.append(QualityIssue("undated-document", f"{name}: no readable 'last modified' date in the header"))
    start = _card_section_start(blocks)
    if start is None:
        raise ParseError(f"{name}: no card-specific notes heading found")
    general = sum(1 for block in blocks[:start] if block.kind == "point")
    if general:
        issues.append(QualityIssue(
            "general-notes",
            f"{name}: {general} notes of the general section, before the card-specific notes, are about no one card:"
            " not kept as rulings",
        ))

    cards: list[CardRecord] = []
    card_names: list[CardName] = []
    rulings: list[RulingRecord] = []
    current: tuple[str, str | None] | None = None  # (localized name, English name)
    card_count = 0
    card_notes: dict[str, str] = {}
    for block in blocks[start:]:
        where = f"{name}: block {block.line}"
        if block.kind == "heading":
            current = None  # colour headings: the next card starts afresh
        elif block.kind == "card":
            lines = _symbols(block.text, lang, where, issues).split("\n")
            if "{" in lines[0].strip("{")[1:]:
                # The line break after the name lost ("에테르 돌풍{1}{U}"): no card's name holds a
                # mana symbol, and the name would be one no card has.
                name_end = lines[0].index("{", 1)
                issues.append(QualityIssue(
                    "joined-lines",
                    f"{where}: the card's name runs into its mana cost ({lines[0][:60]!r}): read as two lines",
                ))
                lines[0:1] = [lines[0][:name_end].strip(), lines[0][name_end:]]
            card_name, english_name, note = split_card_name(lines[0])
            current = (card_name, english_name)
            if note:
                card_notes[card_name] = note
            card_count += 1
            card_names.append(CardName(lang=lang, name=card_name, english_name=english_name))
            # Every card's printed text is kept (before: only with an English name, which neither real
            # file prints, and even then never stored: its printing had no id; a release-notes review).
            cards.append(replace(_card_record(lines, card_name, english_name, lang, card_count), note=note))
        elif block.kind == "point":
            if current is None:
                issues.append(QualityIssue("ruling-without-card", f"{where}: {block.text[:60]!r}"))
                continue
            rulings.append(RulingRecord(
                text=_symbols(block.text, lang, where, issues),
                raw_date=raw_date,
                position=len(rulings) + 1,
                published_at=published,
                source="wotc",
                card_name=current[0],
                card_name_lang=lang,
                lang=lang,
                method="official",
            ))
    if not rulings:
        raise ParseError(f"{name}: the card-specific section holds no rulings")
    return RulingsDocument(
        format=format_name,
        lang=lang,
        cards=cards,
        card_names=card_names,
        rulings=rulings,
        issues=issues,
        extra={"title": title, "raw_date": raw_date, "date": published, "card_blocks": card_count,
               "card_notes": card_notes},
    )
