"""Rule lineages: one identity for a CR rule through every English version, whatever its number.

Pure. A lineage starts where a rule first appears (an added rule, or every rule of the oldest
version held) and follows the pairing of consecutive versions (``kb.link.cr_pairing``) through
renumberings: "701.47 Connive" of 2022–2025 and "701.50 Connive" of 2026 are one lineage, and
"701.50 Convert" of 2024–2025 (701.28 since 2026) is another. A lineage ends where its rule is
removed; a rule added later under the same number starts a lineage of its own.

A lineage id names the lineage's first member: ``<version id>/<number>`` ("en-2022-04-29/701.47"),
readable in a URL and stable from build to build for the same set of versions. (Holding an older
version that already had the rule makes the lineage start there: ids follow the versions held.)
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kb.records import CRDocument


@dataclass
class Lineage:
    """One rule through the versions: ``members`` are (version index, number), oldest first."""

    id: str
    kind: str
    members: list[tuple[int, str]] = field(default_factory=list)

    @property
    def numbers(self) -> list[str]:
        """The distinct numbers it had, in order."""
        seen: dict[str, None] = {}
        for _index, number in self.members:
            seen.setdefault(number, None)
        return list(seen)


def lineage_id(version_id: str, number: str) -> str:
    """The id of the lineage that starts with rule ``number`` of ``version_id``."""
    return f"{version_id}/{number}"


def build_lineages(
    version_ids: Sequence[str],
    documents: Sequence[CRDocument],
    maps: Sequence[dict[str, str | None]],
) -> tuple[list[dict[str, str]], dict[str, Lineage]]:
    """For each version, rule number → lineage id; and every lineage by id.

    ``documents`` are oldest first and ``maps[i]`` pairs version ``i`` with version ``i + 1``
    (``kb.link.cr_trace.number_maps``).
    """
    if len(version_ids) != len(documents):
        raise ValueError("one version id per document")
    keys = [[(rule.number, rule.kind) for rule in document.rules] for document in documents]
    return chain_lineages(version_ids, keys, maps, lineage_id)


def chain_lineages(
    version_ids: Sequence[str],
    keys: Sequence[Sequence[tuple[str, str]]],
    maps: Sequence[dict[str, str | None]],
    new_id: Callable[[str, str], str],
) -> tuple[list[dict[str, str]], dict[str, Lineage]]:
    """Lineages of any entries (rules, glossary terms) keyed per version: ``keys[i]`` holds
    (key, kind) of version ``i`` in document order, ``maps[i]`` pairs keys of versions ``i`` and
    ``i + 1``; an entry with no predecessor starts a lineage named ``new_id(version, key)``."""
    if len(maps) != max(0, len(keys) - 1) or len(version_ids) != len(keys):
        raise ValueError("one version id per document and one number map per consecutive pair")
    by_version: list[dict[str, str]] = []
    lineages: dict[str, Lineage] = {}
    for index, (version_id, entries) in enumerate(zip(version_ids, keys, strict=True)):
        previous = by_version[-1] if by_version else {}
        inverse = {new: old for old, new in maps[index - 1].items() if new} if index else {}
        current: dict[str, str] = {}
        for key, kind in entries:
            if key in current:  # a misprinted duplicate number: one lineage for both
                continue
            before = inverse.get(key)
            found = previous.get(before) if before is not None else None
            if found is None:
                found = new_id(version_id, key)
                lineages[found] = Lineage(id=found, kind=kind)
            current[key] = found
            lineages[found].members.append((index, key))
            lineages[found].kind = kind
        by_version.append(current)
    return by_version, lineages


def member_in(lineage: Lineage, index: int) -> str | None:
    """The lineage's number in version ``index`` (None where it does not exist)."""
    for member_index, number in lineage.members:
        if member_index == index:
            return number
    return None
