"""Checks on parsed records before they are saved: rulings without text or card, impossible dates, empty documents.

A parser that reads a page faithfully can still hand over what no real source holds: a ruling
with no text, no card to belong to, a date of 9999-12-31 (which would sit at the top of every
"newest" list forever). Such rulings are dropped or kept without the date, each with a
quality issue the user can see; a document whose every ruling is dropped (a bulk file that
yields nothing, a page whose rulings all lost their text) is refused.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import is_dataclass, replace
from datetime import date, timedelta
from typing import TypeVar

from kb.normalise.decode import REFUSED_CONTROL
from kb.normalise.lang import SCRYFALL_LANGS
from kb.normalise.mojibake import DoubleEncoded, double_encoded_runs, might_hold_runs, undo_double_encoding
from kb.normalise.text import clean_text, lost_line_breaks
from kb.records import CardName, CardRecord, CRDocument, ParseError, QualityIssue, RulingRecord, first_few

# Magic was first printed in 1993; a ruling dated before it, or more than a year ahead, is a misprint.
EARLIEST_RULING = "1993-01-01"
# The Comprehensive Rules were first published in 1999 (Classic Sixth Edition).
EARLIEST_CR = "1999-01-01"
# Who a ruling says wrote it: Wizards (official rulings and release notes) or Scryfall (its own
# notes); None where a source does not say (MTGJSON, captured pages).
KNOWN_RULING_SOURCES = frozenset({"wotc", "scryfall", None})
# An HTML tag: no real ruling holds one (none of the rulings we hold in any format does).
MARKUP = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
# The mark a converter leaves where it could not read a character (U+FFFD): the character is lost
# before the text reached us. No real text we hold has one.
REPLACEMENT = "\ufffd"
QUESTIONED_WORD = re.compile(r"\S*[A-Za-z]\?[A-Za-z]\S*")
# A "?" no question ends with in English: after a space or at the start ("? (Infinity)", "∞"
# written in cp1252), or before a digit ("?1", a minus sign). No rule or glossary entry of the real
# English CR files we hold (1999–2026) has one; French sets a space before its "?", so other
# languages are not read for it.
STRAY_QUESTION_MARK = re.compile(r"(?<![\w)\"'\u2019\u201d\]])\?|\?(?=\d)")
# How many issues of one kind one document records in detail; the rest are counted.
DETAILED_ISSUES = 20


def latest_plausible_date(today: date | None = None) -> str:
    return ((today or date.today()) + timedelta(days=366)).isoformat()


class KindCounts:
    """How many issues of each kind a document raised: the first ``DETAILED_ISSUES`` of a kind are
    recorded in detail, the rest only counted (a renamed field raises one for every record of a
    file of a million)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def __contains__(self, kind: str) -> bool:
        return kind in self._counts

    def detailed(self, kind: str) -> bool:
        """Count one issue of ``kind``; whether it is among the few recorded in detail."""
        self._counts[kind] = self._counts.get(kind, 0) + 1
        return self._counts[kind] <= DETAILED_ISSUES

    def summary(self, name: str, unit: str) -> list[QualityIssue]:
        """One issue per kind with more than the detailed few: "<name>: 120 rulings in all …"."""
        return [
            QualityIssue(kind, f"{name}: {count} {unit} in all with this issue")
            for kind, count in sorted(self._counts.items())
            if count > DETAILED_ISSUES
        ]


class RulingChecks:
    """Filters one document's rulings, collecting quality issues (the first few in detail)."""

    def __init__(self, name: str, today: date | None = None) -> None:
        self.name = name
        self.latest = latest_plausible_date(today)
        self.issues: list[QualityIssue] = []
        self.counts = KindCounts()
        self.kept = 0
        self.seen = 0

    def _flag(self, kind: str, detail: str, record: int | None = None) -> None:
        if self.counts.detailed(kind):
            self.issues.append(QualityIssue(kind, f"{self.name}: {detail}", record))

    def filter(self, rulings: Iterable[RulingRecord]) -> Iterator[RulingRecord]:
        for ruling in rulings:
            self.seen += 1
            checked = self.check(ruling)
            if checked is not None:
                self.kept += 1
                yield checked

    def check(self, ruling: RulingRecord) -> RulingRecord | None:
        # The ruling's place in the file, from 1, whatever the format numbers from (Scryfall from 0,
        # a page capture or release notes from 1: "ruling 17" of a page of 16), with its card's name.
        where = f"ruling {self.seen}" + (f" of {ruling.card_name!r}" if ruling.card_name else "")
        if not _has_text(ruling.text):
            self._flag("empty-ruling", f"{where} has no text; dropped")
            return None
        # Kept: the ruling's record will be the document's next one (``filter`` counts them).
        record = self.kept
        ruling = self._read_as_meant(ruling, where, record)
        if ruling.source not in KNOWN_RULING_SOURCES:
            self._flag("unknown-source", f"{where} names its source {ruling.source!r}, which no source of ours does; kept as given", record)
        if REPLACEMENT in ruling.text:
            self._flag("lost-characters", f"{where} holds {ruling.text.count(REPLACEMENT)} U+FFFD marks: characters its source could not read are lost", record)
        if "<" in ruling.text and (tag := MARKUP.search(ruling.text)):
            self._flag("markup-in-text", f"{where} holds markup ({tag.group(0)!r}); kept as printed", record)
        if not (ruling.oracle_id or ruling.card_name or ruling.scryfall_id or ruling.multiverse_id):
            self._flag("ruling-without-card", f"{where} names no card; kept, but no card page shows it", record)
        if ruling.published_at and not EARLIEST_RULING <= ruling.published_at <= self.latest:
            self._flag(
                "implausible-date",
                f"{where} is dated {ruling.published_at}; kept without a date (raw date {ruling.raw_date!r})",
                record,
            )
            return replace(ruling, published_at=None)
        if ruling.published_at is None and not (ruling.raw_date or "").strip():
            self._flag("undated-ruling", f"{where} has no date", record)
        return ruling

    def _read_as_meant(self, ruling: RulingRecord, where: str, record: int) -> RulingRecord:
        """A ruling whose characters were encoded as UTF-8 twice ("â€™" for "’"), read as the
        characters they stand for: valid UTF-8, so nothing failed on it (kb.normalise.mojibake)."""
        spaced = "double-encoded" in self.counts
        if not spaced and not might_hold_runs(ruling.text) and not might_hold_runs(ruling.card_name or ""):
            return ruling
        repaired, runs = read_as_meant(ruling, spaced)
        if runs:
            self._flag(
                "double-encoded",
                f"{where}: {len(runs)} characters were encoded as UTF-8 twice ({runs[0].run!r} for {runs[0].meant!r});"
                " read as the characters they stand for",
                record,
            )
        return repaired

    def summary_issues(self) -> list[QualityIssue]:
        """The detailed issues plus one line per kind with more than the detailed few."""
        return self.issues + self.counts.summary(self.name, "rulings")


def _has_text(text: str | None) -> bool:
    """Whether anything is left of ``text`` once it is stored (cleaning also takes out zero-width
    characters: a text of nothing else was stored empty, and reported only by the derive)."""
    if not text or not text.strip():
        return False
    return text.isascii() or bool(clean_text(text))


def cr_lost_characters(document: CRDocument, name: str) -> list[str]:
    """Warnings naming what a converter lost in a CR file: the rules, their examples and the glossary
    entries that hold U+FFFD marks, and words with "?" between two letters ("opponent?s", "Dand?n":
    characters an encoding could not write, replaced), web addresses aside. No real CR file we hold
    has either. (The examples were not read: a file whose examples alone lost their apostrophes was
    published without a word; a review of real files, damaged.)"""
    texts = [(rule.number, f"{rule.title or ''} {rule.text}") for rule in document.rules]
    texts += [(f"{rule.number}'s example", example) for rule in document.rules for example in rule.examples]
    texts += [(entry.term, f"{entry.term} {entry.text}") for entry in document.glossary]
    found = []
    controls = [where for where, text in texts if REFUSED_CONTROL.search(text)]
    if controls:
        # Too few for the file to be refused as binary (kb.normalise.decode), kept in the text.
        shown = first_few(list(dict.fromkeys(controls)))
        found.append(f"{name}: {len(controls)} rules, examples or glossary entries hold control characters (NUL and the like),"
                     f" which no text prints ({shown}): bytes damaged in the file, most likely")
    marked = [where for where, text in texts if REPLACEMENT in text]
    if marked:
        # A rule's examples are named once ("107.1b's example" for its three).
        shown = first_few(list(dict.fromkeys(marked)))
        found.append(f"{name}: {len(marked)} rules, examples or glossary entries hold U+FFFD marks, characters the file's converter could not read or bytes its encoding leaves undefined ({shown})")
    # Most rules hold no "?" at all: the pattern, tried at every character, is kept for those that do.
    replaced = [
        (where, word)
        for where, text in texts if "?" in text
        for word in QUESTIONED_WORD.findall(text) if "/" not in word and "=" not in word
    ]
    if replaced:
        shown = first_few([f"{word} in {where}" for where, word in replaced], 5)
        found.append(f"{name}: {len(replaced)} words hold '?' between two letters ({shown}): characters the file's converter could not write, replaced")
    stray = [
        (where, text[max(0, mark.start() - 8):mark.end() + 8].strip())
        for where, text in texts if "?" in text
        for mark in STRAY_QUESTION_MARK.finditer(text)
    ] if (document.lang or "en") == "en" else []
    if stray:
        shown = first_few([f"{context!r} in {where}" for where, context in stray], 5)
        found.append(
            f"{name}: {len(stray)} '?' marks stand where no question ends ({shown}): characters the file's"
            " converter could not write, replaced")
    return found


def cr_absent_citations(document: CRDocument, name: str) -> list[str]:
    """A warning naming the rule numbers a whole CR file cites (in its rules and glossary) and
    holds no rule of. Rules cut from the end of a section skip no number, but the glossary and
    other rules cite them ("Trample See rule 702.19"): in the newest edition, with no later one
    to compare, nothing else tells. Official files have a few such slips (2006's 405.1 cites
    402.9; "see rule 110.10" for 111.10 since 2024), reported alike. Files holding part of a CR
    (a chapter post, a rule page: no glossary) cite rules they do not hold by design."""
    if not document.glossary:
        return []
    held = {rule.number for rule in document.rules}
    absent: dict[str, list[str]] = {}
    cited_by = [(rule.number, rule.refs) for rule in document.rules] + [(entry.term, entry.refs) for entry in document.glossary]
    for where, refs in cited_by:
        for number in refs:
            if number not in held:
                absent.setdefault(number, []).append(where)
    if not absent:
        return []
    # Numbers cited by the same rules read as one group: "112.5a, 112.5b, … (cited by 112.3a)".
    groups: dict[tuple[str, ...], list[str]] = {}
    for number, citers in absent.items():
        groups.setdefault(tuple(citers[:2]), []).append(number)
    shown = "; ".join(
        ", ".join(numbers[:4]) + (f", … {numbers[-1]}" if len(numbers) > 4 else "") + f" (cited by {', '.join(citers)})"
        for citers, numbers in list(groups.items())[:6]
    )
    return [
        f"{name}: {len(absent)} rule {'number is' if len(absent) == 1 else 'numbers are'} cited by the file's rules"
        f" or glossary and {'is' if len(absent) == 1 else 'are'} not in it: {shown}"
        + (" …" if len(groups) > 6 else "") + ": rules lost from the file, or the official text's own slips"
    ]


# A line that reads as a numbered rule, and the line every edition's credits open with.
RULE_LINE = re.compile(r"^\d{3}\.\d+[a-z]?\.?\s", re.MULTILINE)
EFFECTIVE_LINE = re.compile(r"(?i)effective as of|rules are current as of")


def cr_rules_in_credits(document: CRDocument, name: str) -> list[str]:
    """A warning when the credits (all a file holds after its glossary) hold lines that read as
    rules, or a second "effective as of" line: a second edition pasted after the first, or rules
    left after the credits, were read as credits and never as rules. Real credits hold neither."""
    rules = RULE_LINE.findall(document.credits)
    dates = EFFECTIVE_LINE.findall(document.credits)
    if not rules and len(dates) <= 1:
        return []
    return [
        f"{name}: the credits hold {len(rules)} lines that read as rules and {len(dates)} 'effective as of' lines:"
        " text after the credits (a second edition?) was not read as rules"
    ]


def check_cr_date(document: CRDocument, name: str, today: date | None = None) -> None:
    """Refuse a CR whose effective date cannot be one: its date is its identity, and a version
    dated in 2062 (a slip of the keys) would have been the current rules on every page."""
    effective = document.effective_date
    if effective is None:
        return
    if effective < EARLIEST_CR:
        raise ParseError(f"{name}: effective date {document.raw_date!r} ({effective}) is before the first Comprehensive Rules (1999)")
    if effective > latest_plausible_date(today):
        raise ParseError(
            f"{name}: effective date {document.raw_date!r} ({effective}) is more than a year ahead: a misprint"
        )


# The languages Scryfall prints (its eleven common ones, then those of special printings:
# Hebrew, Latin, Ancient Greek, Arabic, Sanskrit, Phyrexian, Quenya); MTGJSON's are mapped to them.
KNOWN_PRINTING_LANGS = frozenset(SCRYFALL_LANGS) | {"he", "la", "grc", "ar", "sa", "ph", "qya"}


R = TypeVar("R")


def read_as_meant(value: R, spaced: bool = False) -> tuple[R, list[DoubleEncoded]]:
    """``value`` (a text, or a record with texts in it, lists and records included) with every
    character encoded as UTF-8 twice read as the one it stands for; and the runs found.
    ``spaced``: as ``kb.normalise.mojibake.double_encoded_runs``."""
    if isinstance(value, str):
        runs = double_encoded_runs(value, spaced) if not value.isascii() else []
        return (undo_double_encoding(value, spaced) if runs else value), runs  # type: ignore[return-value]
    if isinstance(value, list):
        items = [read_as_meant(item, spaced) for item in value]
        found = [run for _item, runs in items for run in runs]
        return ([item for item, _runs in items] if found else value), found  # type: ignore[return-value]
    if is_dataclass(value) and not isinstance(value, type):
        changes, found = {}, []
        for name, field_value in vars(value).items():
            repaired, runs = read_as_meant(field_value, spaced)
            if runs:
                changes[name] = repaired
                found.extend(runs)
        return (replace(value, **changes) if changes else value), found
    return value, []


def _joined_texts(record: object) -> str:
    """A record's texts (and its lists' and nested records'), joined: searched once, not field
    by field."""
    parts = []
    for value in vars(record).values():
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    parts.append(item)
                elif hasattr(item, "__dict__"):
                    parts.extend(text for text in vars(item).values() if isinstance(text, str))
    return "\x00".join(parts)


class CardChecks:
    """One document's card records (printings and names) checked before they are saved: texts
    encoded as UTF-8 twice read as meant, and the printings counted that lack what every real one
    has: a printed name in a language other than English (a renamed field dropped every foreign
    name quietly), a language Scryfall prints in, characters their source could read. One quality
    issue per kind and document, its first case named."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.counts: dict[str, int] = {}
        self.examples: dict[str, str] = {}
        self.parser_issues = KindCounts()  # the parser's own issues about single cards

    def _count(self, kind: str, example: str, count: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + count
        self.examples.setdefault(kind, example)

    def cards(self, cards: list[CardRecord]) -> list[CardRecord]:
        """``cards`` read as meant, each counted."""
        checked = self._read_as_meant(cards)
        english = {card.oracle_id: card.oracle_text for card in checked if card.oracle_id and card.oracle_text}
        for card in checked:
            oracle_text = card.oracle_text or english.get(card.oracle_id or "")
            if card.lang != "en" and card.printed_text and oracle_text and lost_line_breaks(card.printed_text, oracle_text):
                self._count("joined-printed-lines", f"{card.name} ({card.lang})")
            if card.lang != "en" and not card.printed_name:
                self._count("unnamed-printing", f"{card.name} ({card.lang})")
            if card.lang not in KNOWN_PRINTING_LANGS:
                self._count("unknown-language", f"{card.name} ({card.lang!r})")
            if any(REPLACEMENT in (text or "") for text in (card.name, card.printed_name, card.printed_text, card.printed_type_line)):
                self._count("lost-characters", f"{card.name} ({card.lang})")
            if card.text_missing:
                self._count("missing-text", f"{card.name} ({card.lang})")
        return checked

    def names(self, names: list[CardName]) -> list[CardName]:
        """``names`` read as meant."""
        return self._read_as_meant(names)

    def _read_as_meant(self, records: list[R]) -> list[R]:
        out = []
        for record in records:
            spaced = "double-encoded" in self.counts
            if not spaced and not might_hold_runs(_joined_texts(record)):
                out.append(record)  # the common case, at a few microseconds a printing
                continue
            # Once the document has shown runs, a space in one may stand for a no-break space
            # its parser cleaned away, in texts with no other run ("Consigner Ã l'existence").
            repaired, runs = read_as_meant(record, spaced)
            if runs:
                self._count("double-encoded", f"{runs[0].run!r} for {runs[0].meant!r}", len(runs))
            out.append(repaired)
        return out

    def issues(self) -> list[QualityIssue]:
        said = {
            "double-encoded": "characters of card names and texts were encoded as UTF-8 twice (first: {example});"
            " read as the characters they stand for",
            "unnamed-printing": "printings in a language other than English give no printed name"
            " (first: {example}): their names in that language are missing",
            "unknown-language": "printings are in a language Scryfall does not print in (first: {example}):"
            " kept under that code",
            "lost-characters": "printings hold U+FFFD marks in their names or texts (first: {example}):"
            " characters their source could not read are lost",
            "missing-text": "card objects give no rules text where their source always gives one (first: {example}):"
            " their text is missing",
            "joined-printed-lines": "printings print their text on one line where the card's English text has several,"
            " each line glued to the next (first: {example}): their source lost the line breaks;"
            " kept as printed, read as lines where each break is plain (for keywords, and on the card page)",
        }
        return [
            QualityIssue(kind, f"{self.name}: {self.counts[kind]} " + text.format(example=self.examples[kind]))
            for kind, text in said.items()
            if self.counts.get(kind)
        ] + self.parser_issues.summary(self.name, "cards")

    def noted(self, issues: list[QualityIssue]) -> list[QualityIssue]:
        """The issues a parser gave for one card, to be saved now: the first few of each kind in
        the document, the rest counted (a renamed field gives one for every card of a file of
        100,000)."""
        return [issue for issue in issues if self.parser_issues.detailed(issue.kind)]
