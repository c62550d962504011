"""Plain records that parsers return and the store saves.

Parsers are pure: bytes in, these records out. Nothing here touches the network or a database.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
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


@dataclass
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


@dataclass
class QualityIssue:
    kind: str
    detail: str


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
    collector_number: str | None = None
    layout: str | None = None


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
