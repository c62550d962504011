"""Plain records that parsers return and the store saves.

Parsers are pure: bytes in, these records out. Nothing here touches the network or a database.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict


@dataclass(slots=True)
class Rule:
    """One numbered entry of a Comprehensive Rules document.

    ``kind`` is ``part`` ("7."), ``section`` ("702."), ``rule`` ("702.78.") or
    ``subrule`` ("702.78a"). Numbers are stored without a trailing period.
    """

    number: str
    kind: str
    text: str
    title: str | None = None
    parent: str | None = None
    section: str | None = None
    examples: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    # How sure the parser is of ``number`` (1.0 when printed; lower when recovered by position).
    number_confidence: float = 1.0


@dataclass(slots=True)
class GlossaryEntry:
    term: str
    text: str
    refs: list[str] = field(default_factory=list)


@dataclass
class CRDocument:
    """One CR document in one language (the English original or a translation)."""

    lang: str
    effective_date: str | None
    raw_date: str | None
    title: str | None
    intro: str
    rules: list[Rule]
    glossary: list[GlossaryEntry] = field(default_factory=list)
    credits: str = ""
    encoding: str | None = None
    # official / community / machine, for translations as the publisher describes them
    method: str | None = None
    warnings: list[str] = field(default_factory=list)
    # Parser-specific facts (e.g. the rule numbers a per-rule page lists in its navigation).
    extra: dict[str, Any] = field(default_factory=dict)


# Every kind of problem the code records in ``quality_issues``, with what it means to a reader.
# The metadata and docs show this list; a kind not listed here cannot be recorded.
QUALITY_ISSUE_KINDS: dict[str, str] = {
    "unreadable-document": "an input could not be read at all (kept as a failed document with --keep-going)",
    "truncated-document": "a CR file cut off in its glossary: its rules are kept, the edition is marked incomplete",
    "unnamed-printing": "printings in a language other than English that give no printed name: the card's name in that language is not known from them",
    "unknown-source": "rulings whose source names no publisher Scryfall documents (wotc, scryfall): kept as given",
    "lost-characters": "rulings and printings holding U+FFFD, the mark a converter leaves where it could not read a character: those characters are lost upstream (in a CR file, a cr-format issue)",
    "markup-in-text": "rulings whose text holds an HTML tag, which no real ruling does: kept as printed",
    "missing-between-versions": "rules or glossary entries a CR version lacks while the versions on either side print them word for word: lost from its file, most likely",
    "examples-lost": "a CR version in which more than a tenth of the rules that printed examples in the version before (or, translated, in English) print none (no real update"
    " has taken them from more than 3 rules): its \"Example:\" paragraphs lost from its file, most likely",
    "sections-without-rules": "a translated CR's part that holds rules while sections its contents list hold none (and the English sections they are linked to hold some): a chapter cut short, or sections not translated",
    "translation-cut-short": "a translated CR's part whose last rule translates an English rule that its section follows with rules nothing in the"
    " part translates (in the English edition it translates, or one before): a chapter post cut within its last section",
    "card-header-missing": "release notes in which a card's notes come in two runs of lists, where every card has one: the header of the card the later list is about was lost, and its notes are credited to the card before",
    "rules-not-translated": "rules of the English edition a translated CR translates (its very edition) that nothing in the translation translates"
    " while it translates the rule or section they stand under (the real Chinese CR translates all 3,175 of its edition's): a last subrule lost from its file, most likely",
    "glossary-not-translated": "glossary entries of the English edition a translated CR translates (its very edition) that the translation's"
    " glossary leaves out (the real Chinese glossary translates all 703 of its edition's): lost from its file, or left untranslated",
    "cr-format": "a CR file read with a repair or a doubt (a joined line, a misprinted number, a missing contents entry, a number skipped: rules lost from the middle or an official skip), naming the line or the numbers",
    "undated-document": "a document with no readable date of its own",
    "ambiguous-date": "a date that reads two ways (3/4/2022) on a page whose language does not say which",
    "unparseable-date": "a ruling whose printed date could not be read; it is kept undated",
    "undated-ruling": "a ruling its source prints without any date",
    "implausible-date": "a ruling dated before Magic existed or in the future (9999-12-31); kept without a date",
    "conflicting-version": "a CR document carrying an existing version's date with different text: kept as a version of its own",
    "unofficial-copy": "a CR file from a source that is not official, a copy of a version stored from its official file: the official file stays its text and source, the copy is not read",
    "lacks-what-a-copy-holds": "an official CR file lacking rules that a copy of the same edition from another source holds: it may be damaged;"
    " its text stays the edition's, the copy is kept as a conflicting copy, and a refresh fails the official file's source",
    "missing-text": "card objects without their rules text where the source always gives one (Scryfall's single-faced card"
    " without oracle_text; an MTGJSON card with keywords, printed or translated text but no text): a renamed or emptied field",
    "layout-changed": "a page that shows what such a page always has (a rulings table) but none of it could be read: the site's markup changed;"
    " or a file's records hold a field its format never had (a renamed field), left unread",
    "empty-ruling": "rulings with no text",
    "invalid-utf8": "a page in UTF-8 with a few bytes that are not: each was read alone as Windows-1252, the rest of the page as UTF-8",
    "invalid-cp1252": "a file in Windows-1252 with a few of the five bytes that encoding leaves undefined: each was read as U+FFFD (�), the"
    " rest of the file as Windows-1252",
    "double-encoded": "rulings, card names and card texts whose characters were encoded as UTF-8 twice (\"â€™\" for \"’\"), read as the characters they stand for",
    "unknown-card": "rulings or names for a card no card source identifies",
    "card-without-oracle-id": "card objects without the Oracle id their source always gives (MTGJSON's identifiers.scryfallOracleId): their names,"
    " printings and rulings are joined to a card by name, their Oracle text is not kept",
    "card-data-missing": "a card named by rulings but missing from the card data",
    "ruling-without-card": "release-note text that reads like a ruling but belongs to no card",
    "general-notes": "release notes' general section (a set's mechanics, rules changes): notes about no one card, not kept as rulings"
    " (Gatherer prints some of them as rulings of each card they concern)",
    "joined-lines": "a captured page whose line breaks were lost between rulings (a ruling's bullet and date, or date and source, inside a line): its rulings read apart",
    "joined-printed-lines": "printed card texts whose line breaks were lost upstream (MTGJSON's foreignData: \"InitiativeMue {4}{R}\"), kept as printed;"
    " each such printing is marked on its card's page",
    "non-ruling-fragment": "text on a ruling page that is not a ruling (navigation, headings)",
    "unknown-symbol": "a mana or tap symbol the source draws that we cannot name; kept as a marker",
    "dropped-symbols": "a ruling whose source lost its mana symbols (e.g. 'Add .'); the English original restores them",
    "unknown-language": "a language code or printed language we do not recognise",
    "claimed-language-mismatch": "a page whose declared language differs from the language of its text",
    "untranslated": "a 'translation' whose text is the English text",
    "unlinked-translation": "a translated ruling that matched no English ruling",
}


def first_few(items: Sequence[object], count: int = 8) -> str:
    """``items`` as an issue names them: the first ``count``, then "…" for the rest (the issue
    says how many there are)."""
    return ", ".join(str(item) for item in items[:count]) + (", …" if len(items) > count else "")


@dataclass
class QualityIssue:
    kind: str
    detail: str
    # The ruling it is about, by its place among the ruling records its document saves (the low
    # bits of ``ruling_records.id``): known before the ruling has an id, and the same in files
    # that number rulings card by card.
    record: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in QUALITY_ISSUE_KINDS:
            raise ValueError(f"quality issue kind {self.kind!r} is not in QUALITY_ISSUE_KINDS (kb/records.py)")


# How a multi-faced card's fields are joined into one (Scryfall's whole ``name`` and ``type_line``
# read "A // B"; its texts are joined on a line of their own), by every source's parser alike.
FACE_SEPARATOR = " // "
FACE_TEXT_SEPARATOR = "\n//\n"


@dataclass
class CardFace:
    """One face of a multi-faced card as its Oracle text gives it (a face without a mana cost,
    the back of a transforming card say, has none)."""

    name: str
    mana_cost: str | None = None
    type_line: str | None = None
    oracle_text: str | None = None
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    defense: str | None = None


class CardStats(TypedDict, total=False):
    """A card's or face's numbers as its source prints them (see ``CardRecord.power``)."""

    power: str | None
    toughness: str | None
    loyalty: str | None
    defense: str | None


@dataclass
class CardRecord:
    """One card (oracle identity) or one printing of it, as a source describes it."""

    name: str
    oracle_id: str | None = None
    faces: list[str] = field(default_factory=list)
    lang: str = "en"
    printed_name: str | None = None
    printed_text: str | None = None
    printed_type_line: str | None = None
    oracle_text: str | None = None
    type_line: str | None = None
    mana_cost: str | None = None
    scryfall_id: str | None = None
    multiverse_id: int | None = None
    set_code: str | None = None
    # The set's name in English ("Magic 2012", as Scryfall and Gatherer's pages in every language
    # name it) and the day the printing was released (ISO), where the source gives them.
    set_name: str | None = None
    released_at: str | None = None
    collector_number: str | None = None
    layout: str | None = None
    # Each face whole, where the source gives faces apart (the joined fields above cannot say
    # which face a cost or a text belongs to when a face has none).
    card_faces: list[CardFace] = field(default_factory=list)
    # The source's object gives no rules text where it must hold one (a renamed or emptied field):
    # counted by the load's checks, never stored.
    text_missing: bool = False
    # The card's place among its document's cards, from 1, for a printing its source gives no id
    # (release notes): its printing is stored as ``document:<document id>:<place>``.
    place: int | None = None
    # What the source prints beside the card's name (release notes: "플레인즈워커 덱 전용",
    # Planeswalker Deck only; a promotional card).
    note: str | None = None
    # As the source gives them, strings: "*", "1+*", "X" and "−1" are all printed. A multi-faced
    # card's are its faces' (``card_faces``); a printing's, faces joined like its cost.
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    defense: str | None = None


@dataclass
class CardName:
    """A card's name in one language. ``oracle_id`` may be unknown (resolve by ``english_name``)."""

    lang: str
    name: str
    oracle_id: str | None = None
    english_name: str | None = None


@dataclass
class RulingRecord:
    """One ruling as one document prints it."""

    text: str
    raw_date: str | None
    position: int
    published_at: str | None = None
    source: str | None = None
    oracle_id: str | None = None
    card_name: str | None = None
    card_name_lang: str | None = None
    # The language the page claims for the text; the detected language may differ.
    lang: str = "en"
    # For text in another language: official / community / machine as the page says.
    method: str | None = None
    scryfall_id: str | None = None
    multiverse_id: int | None = None


@dataclass
class RulingsDocument:
    """Everything one rulings-bearing document holds: cards, names, rulings, problems found."""

    format: str
    lang: str | None = None
    cards: list[CardRecord] = field(default_factory=list)
    card_names: list[CardName] = field(default_factory=list)
    rulings: list[RulingRecord] = field(default_factory=list)
    issues: list[QualityIssue] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


class ParseError(ValueError):
    """Input that is not what its format promises. The message names what is wrong."""


class TruncatedCR(ParseError):
    """A CR cut off after its numbered rules: ``partial`` holds the complete rules part."""

    def __init__(self, message: str, partial: CRDocument) -> None:
        super().__init__(message)
        self.partial = partial

    @classmethod
    def in_glossary(cls, message: str, partial: CRDocument, whole_entries: list[GlossaryEntry], where: str) -> TruncatedCR:
        """A file cut off in its glossary: its rules part is whole; the glossary kept is the
        entries before the last one, which may have been cut mid-definition. ``where``: the
        file's last line, as the warning names it."""
        partial.glossary = whole_entries
        partial.warnings.append(
            f"{where}: the file ends inside the glossary (after {len(whole_entries)} whole entries):"
            " rules kept, glossary incomplete, credits missing"
        )
        partial.extra["truncated"] = "glossary"
        return cls(message, partial)
