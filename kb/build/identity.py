"""A CR version's identity: its date, and also its source and content.

``en-2022-04-29`` names the official text of that date. Another document carrying the same date
(a local file, an edited copy) with the same text is the same version (a re-encoded copy adds
nothing); with a different text for any rule they share, or without a rule, an example or a
glossary entry the stored version holds (a damaged copy would have replaced the official text,
its example lost), it is a different document: it gets a version id of its own
(``en-2022-04-29-local``) and a quality issue, and never replaces the official rules.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import sqlite_utils

from kb.records import CRDocument, first_few
from kb.store.save_cr import version_id_for

NUMBER = re.compile(r"\d+(?:\.\d+[a-z]?)?")


def _text_key(text: str | None) -> str:
    return " ".join((text or "").split())


@dataclass
class StoredVersion:
    document_id: int | None
    texts: dict[str, str]  # rule number -> its text, spacing aside
    examples: Counter[str]  # rule number -> how many examples it prints
    terms: set[str]  # glossary terms


def _existing(db: sqlite_utils.Database, version_id: str) -> StoredVersion | None:
    row = db.execute("select document_id from cr_versions where id = ?", [version_id]).fetchone()
    if row is None:
        return None
    texts: dict[str, str] = {}
    for number, text in db.execute("select number, text from rules where version_id = ? order by position", [version_id]):
        texts.setdefault(number, _text_key(text))
    examples = Counter(number for (number,) in db.execute(
        "select rules.number from rule_examples join rules on rules.id = rule_examples.rule_id where rules.version_id = ?",
        [version_id]))
    terms = {term for (term,) in db.execute("select term from glossary where version_id = ?", [version_id])}
    return StoredVersion(row[0], texts, examples, terms)


def _differing(stored: StoredVersion, cr: CRDocument) -> list[str]:
    """The rules the two texts print differently, then what ``cr`` lacks of the stored version:
    rules, examples, glossary entries (it may hold more: a fuller copy is the same version, but not
    a number printed twice: the same edition with 702.19a doubled replaced its text, a code review)."""
    seen: set[str] = set()
    differing = []
    examples: Counter[str] = Counter()
    for rule in cr.rules:
        examples[rule.number] += len(rule.examples)
        if rule.number in seen and rule.number in stored.texts:
            differing.append(f"{rule.number} (printed twice)")
        if rule.number in seen or rule.number not in stored.texts:
            continue
        seen.add(rule.number)
        if stored.texts[rule.number] != _text_key(rule.text):
            differing.append(rule.number)
    differing += [f"{number} (not in the file)" for number in stored.texts if number not in seen]
    differing += [
        f"{number} (without {count - examples[number]} of its examples)"
        for number, count in stored.examples.items() if number in seen and examples[number] < count
    ]
    terms = {entry.term for entry in cr.glossary}
    differing += [f"glossary entry {term!r} (not in the file)" for term in sorted(stored.terms - terms)]
    return differing


def _copy_ids(version_id: str, source_id: str) -> list[str]:
    """The ids a copy of ``version_id`` from ``source_id`` may be kept under, in turn:
    "<id>-<source>", "<id>-<source>-2", …"""
    slug = re.sub(r"[^a-z0-9]+", "-", source_id.lower()).strip("-") or "local"
    return [f"{version_id}-{slug}"] + [f"{version_id}-{slug}-{n}" for n in range(2, 100)]


def cr_copy_id(db: sqlite_utils.Database, version_id: str, source_id: str) -> str:
    """The id a conflicting copy of ``version_id`` from ``source_id`` is kept under: the first of
    ``_copy_ids`` not held (as ``cr_version_id`` names one)."""
    for candidate in _copy_ids(version_id, source_id):
        if _existing(db, candidate) is None:
            return candidate
    raise ValueError(f"more than 99 copies of {version_id} from {source_id}")


def rules_not_in(db: sqlite_utils.Database, version_id: str, cr: CRDocument) -> list[str]:
    """The numbered rules ``cr`` holds that the stored version lacks, in its order."""
    held = {row[0] for row in db.execute("select number from rules where version_id = ?", [version_id])}
    return [rule.number for rule in cr.rules if rule.number not in held]


def rules_one_lacks(db: sqlite_utils.Database, version_id: str, other_id: str) -> list[str]:
    """The numbered rules the stored ``other_id`` holds and the stored ``version_id`` lacks."""
    return [row[0] for row in db.execute(
        "select number from rules where version_id = ? and number not in (select number from rules where version_id = ?)"
        " order by position", [other_id, version_id])]


def version_source_kind(db: sqlite_utils.Database, version_id: str) -> str:
    """The kind of the source of the document a stored version was read from."""
    found = db.execute("select sources.kind from cr_versions join documents on documents.id = cr_versions.document_id"
                       " join sources on sources.id = documents.source_id where cr_versions.id = ?", [version_id]).fetchone()
    return found[0] if found else ""


def cr_version_id(db: sqlite_utils.Database, cr: CRDocument, source_id: str, document_id: int | None = None) -> tuple[str, str | None]:
    """The version id to save ``cr`` under, and a one-line note when it had to differ from the date's."""
    base = version_id_for(db, cr, source_id)
    if not cr.effective_date:
        return base, None
    candidates = [base, *_copy_ids(base, source_id)]
    first_conflict: list[str] = []
    for candidate in candidates:
        existing = _existing(db, candidate)
        if existing is not None and existing.document_id != document_id:
            differing = _differing(existing, cr)
            if differing:
                first_conflict = first_conflict or differing
                continue
        if candidate == base:
            return candidate, None
        sample = first_few(first_conflict, 5)
        # Rules printed otherwise, or rules, examples and glossary entries the file lacks.
        unit = "rule" if all(NUMBER.fullmatch(place) for place in first_conflict) else "place"
        return candidate, (
            f"{cr.lang} CR dated {cr.effective_date} from source {source_id!r} differs from version {base} in"
            f" {len(first_conflict)} {unit}{'' if len(first_conflict) == 1 else 's'} ({sample});"
            f" kept as version {candidate}, {base} unchanged"
        )
    raise ValueError(f"more than {len(candidates)} different texts dated {cr.effective_date}")
