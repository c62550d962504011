"""A CR version's identity: its date, and also its source and content.

``en-2022-04-29`` names the official text of that date. Another document carrying the same date
(a local file, an edited copy) with the same text is the same version (a re-encoded copy adds
nothing); with a different text for any rule they share, it is a different document: it gets a
version id of its own (``en-2022-04-29-local``) and a quality issue, and never replaces the
official rules.
"""
from __future__ import annotations

import re

import sqlite_utils

from kb.records import CRDocument, first_few
from kb.store.save_cr import version_id_for


def _text_key(text: str | None) -> str:
    return " ".join((text or "").split())


def _existing(db: sqlite_utils.Database, version_id: str) -> tuple[int | None, dict[str, str]] | None:
    row = db.execute("select document_id from cr_versions where id = ?", [version_id]).fetchone()
    if row is None:
        return None
    texts: dict[str, str] = {}
    for number, text in db.execute("select number, text from rules where version_id = ? order by position", [version_id]):
        texts.setdefault(number, _text_key(text))
    return row[0], texts


def _differing(texts: dict[str, str], cr: CRDocument) -> list[str]:
    seen: set[str] = set()
    differing = []
    for rule in cr.rules:
        if rule.number in seen or rule.number not in texts:
            continue
        seen.add(rule.number)
        if texts[rule.number] != _text_key(rule.text):
            differing.append(rule.number)
    return differing


def cr_version_id(db: sqlite_utils.Database, cr: CRDocument, source_id: str, document_id: int | None = None) -> tuple[str, str | None]:
    """The version id to save ``cr`` under, and a one-line note when it had to differ from the date's."""
    base = version_id_for(db, cr, source_id)
    if not cr.effective_date:
        return base, None
    slug = re.sub(r"[^a-z0-9]+", "-", source_id.lower()).strip("-") or "local"
    candidates = [base, f"{base}-{slug}"] + [f"{base}-{slug}-{n}" for n in range(2, 100)]
    first_conflict: list[str] = []
    for candidate in candidates:
        existing = _existing(db, candidate)
        if existing is not None and existing[0] != document_id:
            differing = _differing(existing[1], cr)
            if differing:
                first_conflict = first_conflict or differing
                continue
        if candidate == base:
            return candidate, None
        sample = first_few(first_conflict, 5)
        return candidate, (
            f"{cr.lang} CR dated {cr.effective_date} from source {source_id!r} differs from version {base} "
            f"in {len(first_conflict)} rules ({sample}); kept as version {candidate}, {base} unchanged"
        )
    raise ValueError(f"more than {len(candidates)} different texts dated {cr.effective_date}")
