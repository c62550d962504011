"""What a new build inherits from the served database: rulings' first sightings, vanished rulings, table changes."""
from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlite_utils
from cydifflib import SequenceMatcher

from kb.normalise.names import name_key
from kb.store.schema import FTS_CONFIG, FTS_TOKENIZE, next_ruling_rowid
from kb.store.search_terms import add_terms_of_rows
from kb.store.tables import LEGACY_TABLES, RULING_RULES_COLUMNS, TABLES

# Columns whose change is a re-sighting, not a change of content. The document a card's or
# printing's text was read from changes every day (Scryfall's card files come under a new dated
# URL each day), though the text is the day before's: a change of text is counted by the text.
# MTGJSON's files say the day they were made (made_on), a new day at every rebuild of the same records.
IGNORED_COLUMNS = {
    "rulings": {"first_seen", "last_seen", "position", "rowid"},
    "documents": {"fetched_at", "path", "made_on"},
    "cards": {"oracle_document_id"},
    "printings": {"document_id"},
    "sets": {"document_id"},
}


# Rows a document owns, whose key is made from its document: a bulk file under a new dated URL
# is another document, and its every row was counted removed and added again (a name changed in
# all_cards showed as card_name_records +266 -266: an operator's review). They are counted by
# what they hold, these columns aside, as many times as they are held, where their keys differ
# (a document of the same address keeps its rows' keys: then the keys are compared, a third of
# the time): a row is added or removed, never changed. Not the rows that hold their place in the
# file (ruling records and sightings: a ruling added near the top moves every later one; the
# rulings' own counts say what changed), nor quality issues (their details name the address).
COUNTED_BY_CONTENT = {"card_name_records": {"id", "document_id"}}


# A vanished ruling and a new one of the same card and date this similar are one ruling
# reworded (``changed``), not one removed and one added.
REWORDED_SIMILARITY = 0.6


def _columns(db: sqlite_utils.Database, schema: str, table: str) -> list[str]:
    return [row[1] for row in db.execute(f'pragma {schema}.table_info("{table}")').fetchall()]


def _pk(table: str) -> list[str]:
    pk = TABLES[table]["pk"]
    return [pk] if isinstance(pk, str) else list(pk)


def _links_against_their_table(db: sqlite_utils.Database, after: int) -> dict[str, int]:
    """``table_changes`` of the links, the served file's as the table ruling_rules was (by its key)."""
    before = db.execute("select count(*) from old.ruling_rules").fetchone()[0]
    keys = LEGACY_TABLES["ruling_rules"]["pk"]
    join = " and ".join(f'n."{k}" is o."{k}"' for k in keys)
    compared = [c for c in RULING_RULES_COLUMNS if c not in keys]
    differs = " or ".join(f'n."{c}" is not o."{c}"' for c in compared)
    kept, changed = db.execute(
        f"select count(*), coalesce(sum({differs}), 0) from main.ruling_rules n join old.ruling_rules o on {join}"
    ).fetchone()
    return {"before": before, "after": after, "added": after - kept, "changed": changed, "removed": before - kept}


def table_changes(db: sqlite_utils.Database, tables: list[str]) -> dict[str, dict[str, int]]:
    """Rows added, changed and removed per table, new (``main``) against served (``old``)."""
    old_tables = {row[0] for row in db.execute("select name from old.sqlite_master where type = 'table'")}
    result = {}
    for table in tables:
        after = db.execute(f'select count(*) from main."{table}"').fetchone()[0]
        if table == "ruling_rule_links" and "ruling_rules" in old_tables:
            # A served file made before m032 holds the links as the ruling_rules table: compared
            # with the view of them, or a loss of links passed the shrink guard (a code review).
            result[table] = _links_against_their_table(db, after)
            continue
        if table not in old_tables:
            result[table] = {"before": 0, "after": after, "added": after, "changed": 0, "removed": 0}
            continue
        before = db.execute(f'select count(*) from old."{table}"').fetchone()[0]
        keys = _pk(table)
        join = " and ".join(f'n."{k}" = o."{k}"' for k in keys)
        shared = set(_columns(db, "main", table)) & set(_columns(db, "old", table))
        compared = sorted(shared - set(keys) - IGNORED_COLUMNS.get(table, set()))
        # One join counts the rows both hold and those of them that differ (two joins read a
        # million-row table pair twice: ~5 s of a full-size refresh).
        differs = " or ".join(f'n."{c}" is not o."{c}"' for c in compared) if compared else "0"
        kept, changed = db.execute(
            f'select count(*), coalesce(sum({differs}), 0) from main."{table}" n join old."{table}" o on {join}'
        ).fetchone()
        result[table] = {
            "before": before, "after": after, "added": after - kept, "changed": changed,
            "removed": before - kept,
        }
        if table in COUNTED_BY_CONTENT and (after - kept or before - kept):
            result[table] = _changes_by_content(db, table, before, after)
    return result


def _changes_by_content(db: sqlite_utils.Database, table: str, before: int, after: int) -> dict[str, int]:
    shared = set(_columns(db, "main", table)) & set(_columns(db, "old", table))
    columns = ", ".join(f'"{c}"' for c in sorted(shared - COUNTED_BY_CONTENT[table] - IGNORED_COLUMNS.get(table, set())))
    # Each content held as often as before or not: one sort of both tables (a row two documents
    # hold, one of them gone, is one removed; EXCEPT would count none).
    added, removed = db.execute(
        f"""select coalesce(sum(max(held, 0)), 0), coalesce(sum(max(-held, 0)), 0) from (
            select sum(side) as held from (select {columns}, 1 as side from main."{table}"
                union all select {columns}, -1 as side from old."{table}") group by {columns})"""
    ).fetchone()
    return {"before": before, "after": after, "added": added, "changed": 0, "removed": removed}


@dataclass
class RulingChanges:
    added: int = 0
    changed: int = 0
    removed: int = 0
    reappeared: int = 0
    still_removed: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _card_of(row: sqlite3.Row) -> tuple:
    return (row["oracle_id"] or row["card_name"], row["published_at"])


def carry_rulings(db: sqlite_utils.Database) -> RulingChanges:
    """Keep rulings' history across builds: first_seen, reworded rulings, vanished rulings.

    ``main`` is the new build, ``old`` the served database. A ruling keeps the earliest
    first_seen either database knows; a vanished ruling whose card and date match a new one of
    similar text was reworded (``changed``, first_seen kept); any other vanished ruling is
    copied over with its sightings and ``removed_upstream = 1``.
    """
    changes = RulingChanges()
    conn = db.conn
    conn.row_factory = sqlite3.Row
    try:
        old_cols = set(_columns(db, "old", "rulings"))
        removed_flag = "o.removed_upstream" if "removed_upstream" in old_cols else "0"
        vanished = conn.execute(
            f"select o.*, {removed_flag} as was_removed from old.rulings o"
            " where o.id not in (select id from main.rulings)"
        ).fetchall()
        appeared = conn.execute(
            "select * from main.rulings where id not in (select id from old.rulings)"
        ).fetchall()
        changes.reappeared = conn.execute(
            f"select count(*) from main.rulings n join old.rulings o on o.id = n.id where {removed_flag} = 1"
        ).fetchone()[0]
        differs = " or ".join(f"n.{c} is not o.{c}" for c in ("text", "source", "oracle_id", "card_name"))
        same_id_changed = conn.execute(
            f"select count(*) from main.rulings n join old.rulings o on o.id = n.id where {differs}"
        ).fetchone()[0]
    finally:
        conn.row_factory = None
    reworded = _pair_reworded([r for r in vanished if not r["was_removed"]], appeared)
    reworded += _pair_identified(conn, [r for r in vanished if not r["was_removed"]], reworded)
    conn.executemany(
        "update main.rulings set first_seen = ? where id = ? and (first_seen is null or first_seen > ?)",
        [(old["first_seen"], new_id, old["first_seen"]) for old, new_id in reworded if old["first_seen"]],
    )
    conn.execute(
        "update main.rulings set first_seen = o.first_seen from old.rulings o"
        " where o.id = main.rulings.id and o.first_seen is not null"
        " and (main.rulings.first_seen is null or o.first_seen < main.rulings.first_seen)"
    )
    reworded_ids = {old["id"] for old, _ in reworded}
    carried = [r for r in vanished if r["id"] not in reworded_ids]
    # An earlier wording is kept too, pointing at the ruling it became: its id is in published
    # URLs and bookmarks, which answered 404 once the wording changed.
    _copy_vanished(db, [r["id"] for r in carried] + sorted(reworded_ids), old_cols)
    if carried or reworded_ids:
        _link_vanished(db)
    conn.executemany(
        "update main.rulings set reworded_as = ? where id = ?", [(new_id, old["id"]) for old, new_id in reworded]
    )
    changes.changed = same_id_changed + len(reworded)
    # (A card identified since joins rulings that may have stood already: not "added" ones.)
    changes.added = len(appeared) - len({new_id for _, new_id in reworded} & {row["id"] for row in appeared})
    changes.removed = sum(1 for r in carried if not r["was_removed"])
    # Earlier wordings kept (reworded_as) are not rulings removed: their rulings live on.
    changes.still_removed = sum(
        1 for r in carried if r["was_removed"] and not ("reworded_as" in r.keys() and r["reworded_as"]))
    return changes


def _pair_reworded(vanished: list, appeared: list) -> list[tuple[Any, int]]:
    """(old ruling, new id) pairs: same card and date, texts at least 60 % alike, best first; then
    the same card and text under another date (a date corrected upstream); then, for a ruling of
    a card known only by the name its page printed, the same date and text under a card now
    identified (its rulings took ids keyed on the Oracle card and stood twice)."""
    by_card: dict[tuple, list] = defaultdict(list)
    for row in appeared:
        by_card[_card_of(row)].append(row)
    pairs = []
    for old in vanished:
        candidates = by_card.get(_card_of(old), [])
        scored = [
            (SequenceMatcher(None, old["text"] or "", new["text"] or "").ratio(), index)
            for index, new in enumerate(candidates)
        ]
        if scored:
            score, index = max(scored)
            if score >= REWORDED_SIMILARITY:
                pairs.append((old, candidates.pop(index)["id"]))
    left = [row for rows in by_card.values() for row in rows]
    _pair_by(vanished, left, pairs, lambda row: (_card_of(row)[0], _identity(row)))
    return pairs


def _pair_identified(conn: sqlite3.Connection, vanished: list, pairs: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Rulings of a card known by a printed name only (no Oracle id), now of the one card that
    name names: its ruling of the same date with the same text, or else its only one nearly the
    same (a page that lost symbols, "Add ." for "Add {T}.", now stored with them from another
    source). Only that card's rulings are read: a mechanic's rulings read the same on every card
    with it, and reading every ruling of a date compared thousands of texts each."""
    paired = {old["id"] for old, _ in pairs}
    taken = {new_id for _, new_id in pairs}
    found: list[tuple[Any, int]] = []
    for old in vanished:
        if old["oracle_id"] or not old["card_name"] or old["id"] in paired:
            continue
        cards = conn.execute(
            "select distinct oracle_id from main.card_names where name_key = ? limit 2", [name_key(old["card_name"])]
        ).fetchall()
        if len(cards) != 1:
            continue
        candidates = [
            row for row in conn.execute(
                "select id, text, identity from main.rulings where oracle_id = ? and published_at is ?",
                [cards[0][0], old["published_at"]],
            ) if row[0] not in taken
        ]
        same = [row for row in candidates if row[2] and row[2] == _identity(old)] or [
            row for row in candidates if SequenceMatcher(None, old["text"] or "", row[1] or "").ratio() >= NEARLY_THE_SAME
        ]
        if len(same) == 1:
            found.append((old, same[0][0]))
            taken.add(same[0][0])
    return found


NEARLY_THE_SAME = 0.9


def _pair_by(vanished: list, appeared: list, pairs: list[tuple[Any, int]], key_of: Callable[[Any], tuple]) -> None:
    """Adds to ``pairs`` each vanished ruling not paired yet whose key one appeared ruling not
    taken yet shares, alone."""
    paired = {old["id"] for old, _ in pairs}
    taken = {new_id for _, new_id in pairs}
    by_key: dict[tuple, list] = defaultdict(list)
    for row in appeared:
        if row["id"] not in taken and _identity(row):
            by_key[key_of(row)].append(row)
    for old in vanished:
        same = by_key.get(key_of(old), []) if old["id"] not in paired and _identity(old) else []
        if len(same) == 1:
            pairs.append((old, same.pop()["id"]))


def _identity(row: sqlite3.Row) -> str | None:
    return row["identity"] if "identity" in row.keys() else None


def _link_vanished(db: sqlite_utils.Database) -> None:
    """The rules the copied rulings cite, linked as the build links its own (against this build's
    CR history): kept without them, they were gone from rule pages and citations_to_check, and
    the shrink guard counted their rows as lost (an operator's review)."""
    from kb.store.linking_history import link_rulings_where

    if "ruling_rule_links" not in db.table_names() or not db.execute("select 1 from ruling_rule_links limit 1").fetchone():
        return  # a build without the CR history links no ruling either
    # Reading of the history only what their citations need (0.4 s, not 1.0 s on the snapshot).
    link_rulings_where(db, "rulings.id in (select id from temp.carried)")


def _copy_vanished(db: sqlite_utils.Database, ids: list[int], old_cols: set[str]) -> None:
    """Copy vanished rulings, their sightings and the documents those name, marked removed."""
    conn = db.conn
    conn.execute("create temp table if not exists carried (id integer primary key)")
    conn.execute("delete from carried")
    conn.executemany("insert into carried (id) values (?)", [(i,) for i in ids])
    # rowid (the search index's key) is numbered on from this build's rulings, not copied.
    columns = [c for c in _columns(db, "main", "rulings") if c in old_cols and c not in ("removed_upstream", "rowid")]
    listed = ", ".join(columns)
    picked = ", ".join(f"o.{c}" for c in columns)
    # A card known only through its rulings goes with them (rulings.oracle_id -> cards).
    card_cols = [c for c in _columns(db, "main", "cards") if c in set(_columns(db, "old", "cards"))]
    conn.execute(
        f"insert or ignore into main.cards ({', '.join(card_cols)})"
        f" select {', '.join('c.' + c for c in card_cols)} from old.cards c"
        " where c.oracle_id in (select oracle_id from old.rulings where id in (select id from carried))"
    )
    conn.execute(
        f"insert into main.rulings ({listed}, removed_upstream, rowid)"
        f" select {picked}, 1, ? + row_number() over (order by o.id) - 1 from old.rulings o"
        " where o.id in (select id from carried)",
        [next_ruling_rowid(conn)],
    )
    document_cols = [c for c in _columns(db, "main", "documents") if c in set(_columns(db, "old", "documents"))]
    conn.execute(
        f"insert or ignore into main.documents ({', '.join(document_cols)})"
        f" select {', '.join('d.' + c for c in document_cols)} from old.documents d"
        " where d.id in (select document_id from old.ruling_sightings where ruling_id in (select id from carried))"
        " and d.id not in (select id from main.documents)"
    )
    # Such a document is no longer among the build's inputs: it was superseded upstream.
    conn.execute(
        "update main.documents set status = 'superseded' where id in (select document_id from"
        " old.ruling_sightings where ruling_id in (select id from carried))"
        " and id not in (select document_id from main.ruling_records)"
    )
    sighting_cols = [c for c in _columns(db, "main", "ruling_sightings") if c in set(_columns(db, "old", "ruling_sightings"))]
    conn.execute(
        f"insert or ignore into main.ruling_sightings ({', '.join(sighting_cols)})"
        f" select {', '.join('s.' + c for c in sighting_cols)} from old.ruling_sightings s"
        " where s.ruling_id in (select id from carried)"
    )
    if "rulings_fts" in db.table_names():
        # The search index was built before these rows arrived: add them to it.
        columns = FTS_CONFIG["rulings"]
        listed = ", ".join(f"[{c}]" for c in columns)
        conn.execute(
            f"insert into rulings_fts (rowid, {listed}) select rowid, {listed} from main.rulings"
            " where id in (select id from carried)"
        )
        # And their words to the index's word list (the search asks prefixes through it).
        add_terms_of_rows(
            db, "rulings_fts", "main.rulings", columns,
            "select rowid from main.rulings where id in (select id from carried)", FTS_TOKENIZE,
        )
