"""Derived English rulings and their sightings, buffered and written to the database in large batches.

``kb.store.derive_rulings`` groups a card's records into rulings; this module holds what it
groups them into (``DerivedRuling``, ``Sighting``) and writes them (``RulingWriter``): staged in
temporary tables, then copied in key order, each record pointed at the ruling whose text it printed
or given its own text back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlite_utils

from kb.records import QualityIssue
from kb.store.bulk_indexes import holds_at_most, indexes_made_after
from kb.store.save import identity_hash, save_quality_issue
from kb.store.schema import INDEXES, next_ruling_rowid, stable_id

if TYPE_CHECKING:
    from kb.store.import_changes import ImportChanges

FLUSH_ROWS = 20_000


@dataclass(slots=True)
class Sighting:
    record_id: int
    document_id: int
    position: int
    raw_date: str | None
    source: str | None
    text: str
    fetched_at: str | None
    source_id: str


@dataclass(slots=True)
class DerivedRuling:
    card_key: str
    oracle_id: str | None
    card_name: str | None
    card_name_lang: str | None
    published_at: str | None
    identity: str
    sightings: list[Sighting] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    issues: list[QualityIssue] = field(default_factory=list)
    # Made once, when the ruling is: functools.cached_property takes a lock on every read.
    id: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.id = ruling_id(self.card_key, self.published_at, self.identity)


def ruling_id(card_key: str, published_at: str | None, identity: str) -> int:
    """A ruling's stable id: its card, date and typography-blind text. A ruling printed without
    its card and found among no card's rulings (card key ``document:<id>``) is known by its date
    and text alone: keyed on its page, it took another id whenever the page's bytes changed (a
    new capture, a newline added), and a copy of the page under another name doubled it."""
    return stable_id("ruling", CARDLESS if card_key.startswith("document:") else card_key, published_at, identity)


CARDLESS = "cardless"


def best_text(texts: list[str], quality_score) -> str:
    if len(texts) == 1 or len(set(texts)) == 1:
        return texts[0]
    return max(texts, key=quality_score)


class RulingWriter:
    """Buffers derived rows and writes them in large batches."""

    def __init__(self, db: sqlite_utils.Database, whole: bool = True, changes: ImportChanges | None = None) -> None:
        """``whole``: every ruling is derived again; otherwise those of ``temp.replaced_rulings``
        (``kb.store.derive_rulings``) only, and every other ruling stands. ``changes``: the
        import's record of what it writes (its full-text index of the rulings kept in step)."""
        self.db = db
        self.whole = whole
        self.changes = changes
        self.rulings: list[tuple] = []
        self.sightings: list[tuple] = []
        self.issues: list[tuple[QualityIssue, int | None, int | None]] = []
        # (record id, the ruling whose text it printed or None, its own text or None)
        self.records: list[tuple[int, int | None, str | None]] = []
        # Records read after the old rulings are gone (cardless ones) keep their own text.
        self.records_point_at_rulings = True

    def add(self, ruling: DerivedRuling, position: int, quality_score) -> str:
        """Buffer one ruling and its sightings; returns the text it is stored with."""
        source, inferred = canonical_source(ruling)
        sightings = ruling.sightings
        if len(sightings) == 1:  # most rulings (a bulk file's): nothing to sort or choose
            first_seen = last_seen = sightings[0].fetched_at or None
            text = ruling.texts[0]
        else:
            seen = sorted(s.fetched_at for s in sightings if s.fetched_at)
            first_seen, last_seen = (seen[0], seen[-1]) if seen else (None, None)
            text = best_text(ruling.texts, quality_score)
        self.rulings.append(
            (
                ruling.id, ruling.oracle_id, ruling.card_name, ruling.card_name_lang, source,
                inferred, ruling.published_at, text, position, first_seen, last_seen,
                identity_hash(ruling.identity),
            )
        )
        for sighting in ruling.sightings:
            same = sighting.text == text
            # The text as seen is kept only where it differs from the ruling's text (null:
            # the same), or a bulk import stores every ruling a third time.
            self.sightings.append(
                (ruling.id, sighting.document_id, sighting.position, sighting.raw_date,
                 sighting.source, None if same else sighting.text)
            )
            if self.records_point_at_rulings:
                self.records.append(
                    (sighting.record_id, ruling.id, None) if same else (sighting.record_id, None, sighting.text)
                )
        for issue in ruling.issues:
            self.issues.append((issue, ruling.sightings[0].document_id, ruling.id))
        if len(self.rulings) >= FLUSH_ROWS:
            self.flush()
        return text

    def flush(self) -> None:
        """Buffered rows into staging tables, in the order they come (appends, no seeks)."""
        conn = self.db.conn
        conn.execute(f"create temp table if not exists staged_rulings ({', '.join(RULING_COLUMNS)})")
        conn.execute(f"create temp table if not exists staged_sightings ({', '.join(SIGHTING_COLUMNS)})")
        conn.execute("create temp table if not exists staged_records (id integer primary key, ruling_id, text)")
        conn.executemany(f"insert into staged_rulings values ({', '.join('?' * len(RULING_COLUMNS))})", self.rulings)
        conn.executemany(
            f"insert into staged_sightings values ({', '.join('?' * len(SIGHTING_COLUMNS))})", self.sightings
        )
        conn.executemany("insert or replace into temp.staged_records values (?, ?, ?)", self.records)
        for issue, document_id, ruling_id in self.issues:
            save_quality_issue(self.db, issue, document_id, ruling_id=ruling_id)
        self.rulings, self.sightings, self.issues, self.records = [], [], [], []

    def keep_texts(self, rows: Iterable[dict]) -> None:
        """These records keep their own text (read before the old rulings go)."""
        self.records.extend((row["id"], None, row["text"]) for row in rows)

    def replace_rulings(self) -> None:
        """The old rulings by the derived ones: every record first points at its new ruling
        or gets its own text back, so no text is lost with the rulings it was read from."""
        self.flush()
        conn = self.db.conn
        # Not read by this derive (a record no longer English, say): its text back from the
        # old ruling before that goes.
        replaced = "" if self.whole else " and ruling_id in (select id from temp.replaced_rulings)"
        conn.execute(
            "update ruling_records set text = (select text from rulings where rulings.id = ruling_records.ruling_id),"
            f" ruling_id = null where ruling_id is not null{replaced} and id not in (select id from temp.staged_records)"
        )
        # Only records whose state changes are written, deleted and inserted again rather than
        # updated: a row that loses its text in place leaves its page two-thirds empty (SQLite
        # merges pages only below a third), while deleted rows free whole pages that the rulings,
        # written next, take; the records come back packed, in key order.
        columns = [row[1] for row in conn.execute("pragma table_info(ruling_records)")]
        chosen = ", ".join(
            f"staged.{name} as {name}" if name in ("ruling_id", "text") else f"records.{name}" for name in columns
        )
        conn.execute(
            f"create temp table changed_records as select {chosen} from ruling_records as records"
            " join temp.staged_records as staged on staged.id = records.id"
            " where records.ruling_id is not staged.ruling_id or records.text is not staged.text"
        )
        changed = conn.execute("select count(*) from temp.changed_records").fetchone()[0]
        # Most records changed (a fresh import: the table holds fewer than twice as many): their
        # indexes are made again afterwards, by one sort each, rather than updated a row at a
        # time at random places.
        record_indexes = [indexed for table, indexed, _unique in INDEXES if table == "ruling_records"]
        listed = ", ".join(columns)
        with indexes_made_after(self.db, "ruling_records", *record_indexes, up_to_rows=changed * 2 - 1):
            if changed * 2 > conn.execute("select count(*) from ruling_records").fetchone()[0]:
                # Most records are written again (a bulk file): the few others join them, and the
                # table is emptied at once (SQLite frees its pages without reading its rows back
                # by key, 1.8 s at 1M). Written back in key order, every page is filled: the
                # changed rows alone, inserted between other documents' keys, split pages as they
                # went (a tenth of a million records' table left free).
                conn.execute(
                    f"insert into temp.changed_records ({listed}) select {listed} from ruling_records"
                    " where id not in (select id from temp.changed_records)"
                )
                conn.execute("delete from ruling_records")
            else:
                conn.execute("delete from ruling_records where id in (select id from temp.changed_records)")
            conn.execute(f"insert into ruling_records ({listed}) select {listed} from temp.changed_records order by id")
        conn.execute("drop table temp.changed_records")
        conn.execute("drop table temp.staged_records")
        if self.whole:
            conn.execute("delete from ruling_sightings")
            conn.execute("delete from rulings")
        else:
            conn.execute("delete from ruling_sightings where ruling_id in (select id from temp.replaced_rulings)")
            # Records printed without their card were seen as copies of other cards' rulings:
            # every sighting of their documents is found again (each record of them is read
            # again, those of cards too: kb.store.derive_rulings), a record gone since included.
            conn.execute(
                "delete from ruling_sightings where document_id in (select document_id from temp.cardless_documents)"
            )
            conn.execute("delete from rulings where id in (select id from temp.replaced_rulings)")
        self.records_point_at_rulings = False
        self.finish()

    def finish(self) -> None:
        """Staged rows into ``rulings`` and ``ruling_sightings`` in key order.

        Ruling ids are hashes (they are in published URLs): inserted as derived, every row went
        to a random page of a table of a million rows, and pages were left two-thirds full.
        One sort by key makes every insert an append."""
        self.flush()
        conn = self.db.conn
        columns = ", ".join(RULING_COLUMNS)
        # As many rulings as the table holds, or more (a whole derive, a bulk file into a small
        # database): its unordered indexes are made again after, at most twice the new rows' sort,
        # and an import makes its search index once at the end instead of keeping it in step a
        # row at a time.
        staged = conn.execute("select count(*) from temp.staged_rulings").fetchone()[0]
        if self.changes is not None and holds_at_most(self.db, "rulings", staged):
            self.changes.make_index_again("rulings")
        with indexes_made_after(
            self.db, "rulings", ["oracle_id", "published_at", "position"], ["published_at"], up_to_rows=staged
        ):
            # rowid (the search index's key) numbered on in id order: dense, and ascending with
            # the table's own order, so the full-text index is built from sorted keys.
            conn.execute(
                f"insert or replace into rulings ({columns}, removed_upstream, rowid)"
                f" select {columns}, 0, ? + row_number() over (order by id) - 1 from temp.staged_rulings order by id",
                [next_ruling_rowid(conn)],
            )
        columns = ", ".join(SIGHTING_COLUMNS)
        conn.execute(
            f"insert or replace into ruling_sightings ({columns})"
            f" select {columns} from temp.staged_sightings order by ruling_id, document_id, position"
        )
        conn.execute("drop table temp.staged_rulings")
        conn.execute("drop table temp.staged_sightings")
        conn.execute("drop table if exists temp.staged_records")


RULING_COLUMNS = (
    "id", "oracle_id", "card_name", "card_name_lang", "source", "source_inferred", "published_at",
    "text", "position", "first_seen", "last_seen", "identity",
)


SIGHTING_COLUMNS = ("ruling_id", "document_id", "position", "raw_date", "source_as_seen", "text_as_seen")


def canonical_source(ruling: DerivedRuling) -> tuple[str, int]:
    """Scryfall says who wrote a ruling; Gatherer and MTGJSON rulings are Wizards' unless
    Scryfall says otherwise (MTGJSON drops the source, so Scryfall's word wins)."""
    from_scryfall = [s.source for s in ruling.sightings if s.source_id == "scryfall" and s.source]
    if from_scryfall:
        return from_scryfall[0], 0
    explicit = [s.source for s in ruling.sightings if s.source in ("wotc", "scryfall")]
    if explicit:
        return explicit[0], 0
    return "wotc", 1
