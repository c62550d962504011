"""A ruling's links to rules, written as links and their targets; read as one through the ``ruling_rules`` view.

A link's row held every column until m032: the ruling, the rule as numbered in a version, how it
was found, the same rule today. At a million rulings that was 1.4M rows of 143 bytes and four
indexes, 382 MB (the full-scale database 2.2× its raw one), for what is a few thousand distinct
targets: every ruling naming Commander links to the same 903 of the same version. Now a link is
its ruling, its date, its rule's lineage (what a rule page reads, newest first) and its target.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import sqlite_utils

from kb.store.schema import stable_id
from kb.store.tables import RULING_RULES_COLUMNS, TABLES

LINKS, TARGETS = "ruling_rule_links", "ruling_rule_targets"
TARGET_COLUMNS = tuple(column for column in TABLES[TARGETS]["columns"] if column != "id")
_TARGET_AT = tuple(RULING_RULES_COLUMNS.index(column) for column in TARGET_COLUMNS)
_RULING, _LINEAGE, _DATE, _UNCERTAIN = (
    RULING_RULES_COLUMNS.index(column) for column in ("ruling_id", "lineage_id", "published_at", "number_uncertain")
)
# The links' indexes of keys that come in no order (a rule's lineage, a target), made once
# after a bulk of links (``kb.store.bulk_indexes``).
LINK_INDEXES = (["lineage_id", "published_at"], ["target_id"])


def target_id(target: Sequence[object]) -> int:
    """The same target, the same id in every build, whatever order its links came in."""
    return stable_id("ruling-rule-target", *target)


class LinkWriter:
    """Writes ``ruling_rules`` rows (in its columns' order) as links, and each new target once."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self.ids: dict[tuple, int] = {}
        self.held = {row[0] for row in db.execute(f"select id from {TARGETS}")}

    def write(self, rows: Iterable[Sequence]) -> None:
        new_targets: list[tuple] = []
        links: list[tuple] = []
        for row in rows:
            target = tuple(row[at] for at in _TARGET_AT)
            found = self.ids.get(target)
            if found is None:
                found = self.ids[target] = target_id(target)
                if found not in self.held:
                    self.held.add(found)
                    new_targets.append((found, *target))
            links.append((row[_RULING], found, row[_LINEAGE], row[_DATE], row[_UNCERTAIN]))
        if new_targets:
            self.db.conn.executemany(
                f"insert or ignore into {TARGETS} (id, {', '.join(TARGET_COLUMNS)})"
                f" values ({', '.join('?' * (len(TARGET_COLUMNS) + 1))})",
                new_targets,
            )
        self.db.conn.executemany(
            f"insert or replace into {LINKS} (ruling_id, target_id, lineage_id, published_at, number_uncertain)"
            " values (?, ?, ?, ?, ?)",
            links,
        )


def delete_links(db: sqlite_utils.Database, where: str = "") -> None:
    """The links of the rulings the SQL condition on ``ruling_id`` selects (all without one), and
    the targets no link is left to."""
    if not where:
        db.execute(f"delete from {LINKS}")
        db.execute(f"delete from {TARGETS}")
        return
    db.execute(f"delete from {LINKS} where {where}")
    drop_unlinked_targets(db)


def drop_unlinked_targets(db: sqlite_utils.Database) -> None:
    """A target no link is left to goes (a build from the same inputs holds none)."""
    db.execute(
        f"delete from {TARGETS} where not exists (select 1 from {LINKS} where {LINKS}.target_id = {TARGETS}.id)"
    )
