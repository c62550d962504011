"""Checks on parsed records before they are saved: rulings without text or card, impossible dates, empty documents.

A parser that reads a page faithfully can still hand over what no real source holds: a ruling
with no text, no card to belong to, a date of 9999-12-31 (which would sit at the top of every
"newest" list forever). Such rulings are dropped or kept without the date, each with a
quality issue the user can see; a document whose every ruling is dropped (a bulk file that
yields nothing, a page whose rulings all lost their text) is refused.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import date, timedelta

from kb.normalise.text import clean_text
from kb.records import CardRecord, CRDocument, ParseError, QualityIssue, RulingRecord

# Magic was first printed in 1993; a ruling dated before it, or more than a year ahead, is a misprint.
EARLIEST_RULING = "1993-01-01"
# The Comprehensive Rules were first published in 1999 (Classic Sixth Edition).
EARLIEST_CR = "1999-01-01"
# How many issues of one kind one document records in detail; the rest are counted.
DETAILED_ISSUES = 20


def latest_plausible_date(today: date | None = None) -> str:
    return ((today or date.today()) + timedelta(days=366)).isoformat()


class RulingChecks:
    """Filters one document's rulings, collecting quality issues (the first few in detail)."""

    def __init__(self, name: str, today: date | None = None) -> None:
        self.name = name
        self.latest = latest_plausible_date(today)
        self.issues: list[QualityIssue] = []
        self.counts: dict[str, int] = {}
        self.kept = 0

    def _flag(self, kind: str, detail: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.counts[kind] <= DETAILED_ISSUES:
            self.issues.append(QualityIssue(kind, f"{self.name}: {detail}"))

    def filter(self, rulings: Iterable[RulingRecord]) -> Iterator[RulingRecord]:
        for ruling in rulings:
            checked = self.check(ruling)
            if checked is not None:
                self.kept += 1
                yield checked

    def check(self, ruling: RulingRecord) -> RulingRecord | None:
        where = f"ruling {ruling.position + 1}"
        if not _has_text(ruling.text):
            self._flag("empty-ruling", f"{where} has no text; dropped")
            return None
        if not (ruling.oracle_id or ruling.card_name or ruling.scryfall_id or ruling.multiverse_id):
            self._flag("ruling-without-card", f"{where} names no card; kept, but no card page shows it")
        if ruling.published_at and not EARLIEST_RULING <= ruling.published_at <= self.latest:
            self._flag(
                "implausible-date",
                f"{where} is dated {ruling.published_at}; kept without a date (raw date {ruling.raw_date!r})",
            )
            return replace(ruling, published_at=None)
        if ruling.published_at is None and not (ruling.raw_date or "").strip():
            self._flag("undated-ruling", f"{where} has no date")
        return ruling

    def summary_issues(self) -> list[QualityIssue]:
        """The detailed issues plus one line per kind with more than the detailed few."""
        extra = [
            QualityIssue(kind, f"{self.name}: {count} rulings in all with this issue")
            for kind, count in sorted(self.counts.items())
            if count > DETAILED_ISSUES
        ]
        return self.issues + extra


def _has_text(text: str | None) -> bool:
    """Whether anything is left of ``text`` once it is stored (cleaning also takes out zero-width
    characters: a text of nothing else was stored empty, and reported only by the derive)."""
    if not text or not text.strip():
        return False
    return text.isascii() or bool(clean_text(text))


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


class UnnamedPrintings:
    """Counts the printings in a language other than English that give no printed name. Every
    real one gives it; a renamed field would have dropped every card's foreign names quietly."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0
        self.example: str | None = None

    def see(self, cards: Iterable[CardRecord]) -> None:
        for card in cards:
            if card.lang != "en" and not card.printed_name:
                self.count += 1
                self.example = self.example or f"{card.name} ({card.lang})"

    def issue(self) -> QualityIssue | None:
        if not self.count:
            return None
        return QualityIssue(
            "unnamed-printing",
            f"{self.name}: {self.count} printings in a language other than English give no printed name"
            f" (first: {self.example}): their names in that language are missing",
        )

