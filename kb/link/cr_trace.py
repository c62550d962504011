"""A rule through many CR versions: number maps of consecutive versions, traces, versions in force.

Pure functions over parsed ``CRDocument``s; the pairing of two versions is ``kb.link.cr_pairing``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from kb.link.cr_compare import aspects, entry
from kb.link.cr_lineage import build_lineages
from kb.link.cr_pairing import pair_rules
from kb.records import CRDocument, Rule


@dataclass
class TraceEntry:
    """A rule as one version has it (``number`` is None where the version lacks the rule)."""

    version_id: str
    effective_date: str | None
    number: str | None
    title: str | None
    text: str | None
    examples: list[str]
    status: str  # same / changed / moved / moved-changed / added / absent / first / removed




def version_id_of(doc: CRDocument) -> str:
    """The database's id of a parsed version (``kb.store.save.version_id_for`` for dated documents)."""
    return f"{doc.lang}-{doc.effective_date}"


def version_in_force(versions: Sequence[tuple[str, str | None]], date: str) -> str | None:
    """The version id whose effective date is the latest on or before ``date`` (ISO dates)."""
    dated = [(effective, version_id) for version_id, effective in versions if effective and effective <= date]
    return max(dated)[1] if dated else None


def number_maps(versions: Sequence[CRDocument]) -> list[dict[str, str | None]]:
    """For each consecutive pair of ``versions``, old number → new number (None: removed)."""
    return [pair_rules(old, new) for old, new in pairwise(versions)]


def trace_rule(
    versions: Sequence[CRDocument],
    number: str,
    at_version: str | None = None,
    maps: Sequence[dict[str, str | None]] | None = None,
) -> list[TraceEntry]:
    """The rule numbered ``number`` in version ``at_version`` (default: the newest) through every
    version, following its lineage; ``maps`` from ``number_maps`` saves recomputing the diffs.
    (The database keeps the same lineages: ``kb.store.derive_lineage.trace`` reads them.)"""
    ids = [version_id_of(doc) for doc in versions]
    start = ids.index(at_version) if at_version is not None else len(versions) - 1
    if at_version is not None and at_version not in ids:
        raise ValueError(f"unknown version {at_version!r}")
    maps = list(maps) if maps is not None else number_maps(versions)
    # The rule's lineage, as the build derives it (kb.link.cr_lineage): one tracing implementation.
    by_version, lineages = build_lineages(ids, versions, maps)
    numbers: list[str | None] = [None] * len(versions)
    lineage = by_version[start].get(number)
    if lineage is not None:
        for index, member in lineages[lineage].members:
            numbers[index] = member
    rules = [{rule.number: rule for rule in doc.rules} for doc in versions]
    entries = []
    for i, doc in enumerate(versions):
        number_here, number_before = numbers[i], numbers[i - 1] if i else None
        rule = rules[i].get(number_here) if number_here else None
        previous = rules[i - 1].get(number_before) if number_before else None
        entries.append(
            TraceEntry(
                version_id=ids[i],
                effective_date=doc.effective_date,
                number=rule.number if rule else None,
                title=rule.title if rule else None,
                text=rule.text if rule else None,
                examples=list(rule.examples) if rule else [],
                status=_trace_status(i, rule, previous),
            )
        )
    return entries


def _trace_status(index: int, rule: Rule | None, previous: Rule | None) -> str:
    if rule is None:
        return "removed" if previous is not None else "absent"
    if index == 0:
        return "first"
    if previous is None:
        return "added"
    if previous.number == rule.number and entry(previous).parts == entry(rule).parts:
        return "same"
    found = aspects(entry(previous), entry(rule))
    if previous.number == rule.number:
        return "changed" if found else "same"
    return "moved" if not found or "numbers-only" in found else "moved-changed"
