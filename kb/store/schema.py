"""The database's shape, declared once: tables, keys, indexes, full-text search and views.

``ensure_db_shape(db)`` is idempotent: it applies pending schema migrations, then (re)creates
full-text indexes and views. Every build and import ends with it.

The tables themselves are declared in ``kb.store.tables`` and made, or brought to today's shape
in an older file, by ``kb.store.migrations``; this module applies those, then the indexes,
full-text indexes and views.
"""
from __future__ import annotations

import hashlib
import sqlite3
from functools import cache

import sqlite_utils

from kb.store.cjk_search import ensure_cjk_search
from kb.store.migrations import migrations
from kb.store.search_terms import add_terms_of_rows, make_terms
from kb.store.tables import RULING_RULES_COLUMNS, TABLES

INDEXES: list[tuple[str, list[str], bool]] = [
    ("rules", ["lineage_id"], False),
    ("glossary", ["lineage_id"], False),
    # A rule page's newest rulings, read in date order from the index (a keyword's rule can be
    # cited by tens of thousands of rulings; they are never all read and sorted). Any lookup by
    # lineage alone reads it too. (The table's key, ruling_id and target_id, is in every index
    # of a table without rowids: the ruling ids are read from the index alone.)
    ("ruling_rule_links", ["lineage_id", "published_at"], False),
    # The links to a target (the citations_to_check view reads the cited targets' links).
    ("ruling_rule_links", ["target_id"], False),
    ("rule_lineage_links", ["old_lineage_id"], False),
    ("rule_lineage_links", ["new_lineage_id"], False),
    # Not unique: a number an edition prints twice (a misprint) keeps both rules, flagged.
    ("rules", ["version_id", "number"], False),
    ("rules", ["number"], False),
    ("rules", ["version_id", "parent_number"], False),
    # What the site's table pages filter, sort and facet on (rules?version_id=…, sorted by position).
    ("rules", ["version_id", "position"], False),
    ("rules", ["version_id", "kind"], False),
    ("rules", ["position"], False),
    ("glossary", ["version_id", "position"], False),
    ("rule_examples", ["rule_id"], False),
    ("glossary", ["version_id", "term"], False),
    ("rule_refs", ["target_number"], False),
    ("documents", ["sha256"], False),
    ("cr_versions", ["lang", "effective_date"], False),
    ("card_names", ["name"], False),
    # Datasette's default sort of these tables' pages (kb.site.metadata): read in order from the
    # index, not sorted at each view (the cards page 31 ms at 100k cards without it). Glossary
    # entries and CR changes grow with the CR archive.
    ("cards", ["name"], False),
    ("glossary", ["position"], False),
    ("cr_changes", ["position"], False),
    ("card_names", ["name_key"], False),
    ("ruling_records", ["card_key"], False),
    ("card_names", ["lang"], False),
    # A name asked for that no identified card has (``/card?name=``: a typo, a card only a
    # printed page names) is looked up among the names documents printed: without it, a scan of
    # every record (40 ms at a million rulings' card data).
    ("card_name_records", ["name_key"], False),
    # A card known only by a name a page printed shows that page's printings and the names its
    # documents printed (kb.site.card_page), and a document's row page counts its rows: without
    # these, scans of every printing (~90 ms each, three a page, at 500k printings).
    ("printings", ["document_id"], False),
    ("card_name_records", ["document_id"], False),
    ("printings", ["oracle_id"], False),
    # Names printed on pages of cards not identified yet resolve through the same printing
    # (multiverse id, or set and collector number) in another document (derive_cards, card pages).
    ("printings", ["multiverse_id"], False),
    ("printings", ["collector_number"], False),
    ("ruling_records", ["document_id"], False),
    ("rulings", ["oracle_id", "published_at", "position"], False),
    # Translations look their English candidates up by date; the rulings table page sorts by it.
    ("rulings", ["published_at"], False),
    # The full-text index reads a ruling by this key (snippets, external content).
    ("rulings", ["rowid"], True),
    ("ruling_sightings", ["document_id"], False),
    ("ruling_translations", ["ruling_id"], False),
    ("quality_issues", ["kind"], False),
    ("keywords", ["term"], False),
    ("keyword_dictionary", ["term_key"], False),
    ("rule_links", ["en_rule_id"], False),
    ("cr_changes", ["old_version_id", "new_version_id", "position"], False),
    ("cr_changes", ["old_number"], False),
    ("cr_changes", ["new_number"], False),
    # A rule's trace reads the changes of its lineage's members (not a scan of every change).
    ("cr_changes", ["new_rule_id"], False),
    # The site's version page (changes of one version, counted by kind), rule page (a lineage's
    # changes) and card page (a ruling's quality issues).
    ("cr_changes", ["new_version_id", "kind"], False),
    ("cr_changes", ["new_rule_id"], False),
    ("quality_issues", ["ruling_id"], False),
]

# Indexes over part of a table: (name, table, columns, where).
PARTIAL_INDEXES: list[tuple[str, str, list[str], str]] = [
    # Rulings of a card not identified yet, by the name the page gave (card pages, ?card_name=):
    # every other ruling has no card_name, and a full index listed each of them.
    ("idx_rulings_card_name", "rulings", ["card_name"], "card_name is not null"),
    # The few ruling records every derive looks at again whatever an import added (pages that
    # name no Oracle id, dates that did not parse, English rulings on a page announced in another
    # language): read through these instead of scanning a million records (0.4–1.8 s each).
    ("idx_ruling_records_no_oracle_id", "ruling_records", ["card_key"], "oracle_id is null"),
    ("idx_ruling_records_undated", "ruling_records", ["document_id", "position"], "published_at is null"),
    ("idx_ruling_records_declared_other", "ruling_records", ["card_key", "document_id", "position"],
     "declared_lang != 'en'"),
    # Records with no text of their own or their ruling's (the empty-ruling issue).
    ("idx_ruling_records_empty", "ruling_records", ["document_id"], "trim(coalesce(text, '')) = '' and ruling_id is null"),
    # The few rules paired by their number alone (a diff across versions and the ruling links
    # look for them among every change of the archive).
    ("idx_cr_changes_paired_by_number", "cr_changes", ["new_version_id", "new_rule_id"], "paired_by_number = 1"),
    # The rulings our sources first showed after their date (the "new_rulings" canned query reads
    # them beside the others by date: an index of coalesce(first_seen, published_at) over every
    # ruling served that query alone, 24 MB of the full-scale database).
    ("idx_rulings_first_seen", "rulings", ["first_seen"], "first_seen is not null"),
    # The few links whose number on the ruling's date is in doubt (the citations_to_check view).
    ("idx_ruling_rule_links_number_uncertain", "ruling_rule_links", ["target_id"], "number_uncertain = 1"),
]

def ruling_card_name(card_data_name: str = "cards.name") -> str:
    """A ruling's card by its English name, in SQL: its card data's (``card_data_name``: the
    joined ``cards.name``, or a subquery where a view must not join); else, until card data is
    imported, the name the card's own rulings call it by (card_names, source "rulings":
    "Deathrite Shaman"); else the name a page printed beside a ruling of a card not identified
    yet. Views and queries that read cards.name alone listed such cards without a name."""
    return f"coalesce({card_data_name}, {english_name_known('rulings.oracle_id')}, rulings.card_name)"


def english_name_known(oracle_id: str) -> str:
    """The English name ``card_names`` knows for the card of ``oracle_id`` (an SQL expression),
    in SQL: its card data's, or until card data is imported the one its own rulings call it by."""
    return f"(select min(known.name) from card_names as known where known.oracle_id = {oracle_id} and known.lang = 'en')"


# Latin-script text: diacritics folded so "regles" finds "règles".
FTS_TOKENIZE = "unicode61 remove_diacritics 2"
FTS_CONFIG: dict[str, list[str]] = {
    "rules": ["number", "title", "text"],
    "glossary": ["term", "text"],
    "rulings": ["text", "card_name"],
    "ruling_translations": ["text", "card_name"],
    "card_names": ["name"],
    "card_name_records": ["name"],
}

# The table's columns in its order, each from the link where the link holds it (its lineage
# too, which the rule pages' index is of), else from its target.
RULING_RULES_VIEW = "select " + ", ".join(
    f"{'links' if column in TABLES['ruling_rule_links']['columns'] else 'targets'}.{column} as {column}"
    for column in RULING_RULES_COLUMNS
) + " from ruling_rule_links as links left join ruling_rule_targets as targets on targets.id = links.target_id"

VIEWS: dict[str, str] = {
    # A ruling's links to rules as one row each, the columns of the table it was until m032.
    # A left join (every link has its target): the links are read first, through their indexes
    # (a rule page's by lineage and date), each target by its key.
    "ruling_rules": RULING_RULES_VIEW,
    "current_rules": """
        select rules.* from rules
        join cr_versions on cr_versions.id = rules.version_id
        where cr_versions.id = (
            select id from cr_versions where lang = 'en'
            order by effective_date desc limit 1
        )
    """,
    # Every card name we hold, with the names whose card is not identified yet (Oracle id
    # empty): a search by name finds those too.
    "all_card_names": """
        select oracle_id, lang, name, name_key, source from card_names
        union all
        select null, lang, name, name_key, source from unresolved_card_names
    """,
    # Every ruling record with its text as printed, wherever it is stored (a record whose text
    # is its ruling's keeps it only in rulings.text).
    # The ruling's text and the card's name are read by a subquery of the row (by a key, so one
    # row or none: what a left join gave), not joined: Datasette counts a view's rows at every
    # view of its page, and SQLite counted these through the join (1.7 s and 0.23 s at a million
    # rulings, the first past the public SQL time limit); now ~1 ms from an index.
    "ruling_records_as_printed": """
        select ruling_records.id, ruling_records.document_id, ruling_records.position,
            ruling_records.oracle_id,
            coalesce(ruling_records.resolved_oracle_id, ruling_records.oracle_id) as resolved_oracle_id,
            ruling_records.card_name, ruling_records.raw_date,
            ruling_records.published_at, ruling_records.source,
            coalesce(ruling_records.text,
                (select rulings.text from rulings where rulings.id = ruling_records.ruling_id)) as text,
            ruling_records.declared_lang, ruling_records.detected_lang, ruling_records.method,
            ruling_records.ruling_id
        from ruling_records
    """,
    "rulings_with_cards": f"""
        select rulings.id, rulings.oracle_id,
            {ruling_card_name("(select cards.name from cards where cards.oracle_id = rulings.oracle_id)")} as card,
            rulings.published_at, rulings.source, rulings.text, rulings.position
        from rulings
    """,
}

def stable_id(*parts: object) -> int:
    """A 60-bit integer from a hash of ``parts``: the same inputs give the same id in every build.

    Integer keys keep Datasette's search and joins fast; 60 bits stays clear of SQLite's signed
    64-bit limit and of collisions at our scale.
    """
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 4


def next_ruling_rowid(conn: sqlite3.Connection) -> int:
    """The first unused ``rulings.rowid``: new rulings are numbered on from it."""
    return int(conn.execute("select coalesce(max(rowid), 0) + 1 from rulings").fetchone()[0])


def ensure_db_shape(
    db: sqlite_utils.Database, search: bool = True, kept: frozenset[str] = frozenset(), cjk: bool = True
) -> None:
    """Bring ``db`` to the current schema and (re)create indexes, full-text search and views
    (``search=False``: not the search indexes, which a build makes once, at its end; ``kept``
    and ``cjk``: see ``ensure_search``)."""
    if _is_empty(db) and not db.conn.in_transaction:
        # A new file gets a copy of the shape made once per process: the same migrations, indexes
        # and views, without their thousand-odd statements each parsing the growing schema again.
        _new_file_shape().backup(db.conn)
    else:
        _shape(db)
    if search:
        ensure_search(db, kept, cjk)


def _is_empty(db: sqlite_utils.Database) -> bool:
    return db.execute("select count(*) from sqlite_master").fetchone()[0] == 0


@cache
def _new_file_shape() -> sqlite3.Connection:
    """An in-memory database brought to today's shape from nothing, as ``_shape`` brings a file.
    Only ever read (``backup`` copies it), so one connection serves every thread."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    _shape(sqlite_utils.Database(conn))
    return conn


def _shape(db: sqlite_utils.Database) -> None:
    """Pending migrations applied; indexes and views made where missing."""
    migrations.apply(db)
    for table, columns, unique in INDEXES:
        db.table(table).create_index(columns, unique=unique, if_not_exists=True)
    for name, table, columns, where in PARTIAL_INDEXES:
        db.execute(f"create index if not exists {name} on {table} ({', '.join(columns)}) where {where}")
    for name, sql in VIEWS.items():
        db.create_view(name, sql, replace=True)


def ensure_search(db: sqlite_utils.Database, kept: frozenset[str] = frozenset(), cjk: bool = True) -> None:
    """Every full-text index made from its table, but those of ``kept`` (an import kept them in
    step: ``kb.store.import_changes``) and, when ``cjk`` is false, the CJK index (its inputs
    did not change)."""
    # No persistent triggers: the served database is immutable, and every build or import
    # ends here, so indexing once at the end is both faster and always complete.
    for table, columns in FTS_CONFIG.items():
        if table in kept:
            # The words of the rows the import wrote (kb.store.import_changes) join the list.
            add_terms_of_rows(db, f"{table}_fts", table, columns, f"select row from temp.{table}_fts_written", FTS_TOKENIZE)
            merge_segments(db, f"{table}_fts", KEPT_SEGMENTS_AT_MOST)
            continue
        make_search_index(db, table, columns)
        make_terms(db, f"{table}_fts")
    if cjk or not db["cjk_search"].exists() or not db["cjk_bigrams"].exists():
        ensure_cjk_search(db)
        for index in ("cjk_search", "cjk_bigrams"):  # made by several inserts: a segment each
            merge_segments(db, index)
    make_current_rules_index(db)


# The rules of the newest English edition and of the translated ones: the search's window of
# today's rules. ``rules_fts`` holds every edition (34 in the snapshot), and a query reads its
# first thousand matches in rowid order, no edition's: "copy of a copy" matches 1,287 rows, and 5
# of today's 78 rules holding the words were never listed ("command zone": 14 of 93).
CURRENT_RULES_INDEX = "rules_now_fts"
CURRENT_RULES_VERSIONS = """select id from (select id from cr_versions where lang = 'en' order by effective_date desc limit 1)
    union select id from cr_versions where lang != 'en'"""


def make_current_rules_index(db: sqlite_utils.Database) -> None:
    """``CURRENT_RULES_INDEX`` made afresh (a few thousand rows: after every build and import,
    which may add an edition)."""
    db.table(CURRENT_RULES_INDEX).drop(ignore=True)
    if "rules" not in db.table_names() or "cr_versions" not in db.table_names():
        return
    columns = FTS_CONFIG["rules"]
    create_search_index(db, CURRENT_RULES_INDEX, "rules", columns)
    listed = ", ".join(f'"{column}"' for column in columns)
    # In rowid order: FTS5 writes what it has gathered as a segment of its own whenever a row's
    # rowid is lower than the last one's. Read through the version index, the rows came in no
    # rowid order (stable hash ids), and an edition of 2,772 rules was written as 20 segments,
    # 80 ms where 18 ms does (a sixth of a one-edition build's time).
    db.execute(
        f'insert into "{CURRENT_RULES_INDEX}" (rowid, {listed}) select rowid, {listed}'
        f" from rules where version_id in ({CURRENT_RULES_VERSIONS}) order by rowid"
    )
    merge_segments(db, CURRENT_RULES_INDEX)


# FTS5 writes the terms it has gathered as a new segment whenever they pass ``hashsize`` bytes
# (1 MiB by default) and merges four segments of a level into one (``automerge``): an index made
# from a million rulings was written ~140 times and merged again and again. Made with 32 MiB at
# a time and merges of eight, it is ~6 segments, never merged: 8.6–13.2 → 5.3–7.0 s (four
# interleaved pairs), no page left free (merging four 25 MB segments at the end freed 26 MB the
# file kept), searches as fast (the same or faster for eight queries), ~56 MB more memory while
# it is built. The defaults are set back after, for the imports that keep the index in step.
FTS_BUILD_CONFIG = {"hashsize": 32 << 20, "automerge": 8}
FTS_DEFAULT_CONFIG = {"hashsize": 1 << 20, "automerge": 4}

# A full-text query looks each of its words up in every segment of an index and merges what they
# hold. Made 32 MiB at a time, or kept in step row by row through imports, an index is many
# segments (the rulings' of the full-scale database: 25). Merged into one (FTS5's "optimize"), the
# search benchmark's fourteen queries took 52 ms of CPU in all instead of 66 on that database, the
# slowest 35 % less ("until end of turn" 8.1 → 5.3 ms); merging took 2.9 s after a fresh 1M-ruling
# import (of ~100 s) and 5.7 MB. An index an import kept in step is merged only once it has more
# segments than this: merging rewrites the whole index, and FTS5's automerge keeps it to a few.
KEPT_SEGMENTS_AT_MOST = 8


def merge_segments(db: sqlite_utils.Database, fts: str, at_most: int = 1) -> None:
    """``fts``'s segments merged into one where it has more than ``at_most``."""
    segments = db.execute(f'select count(distinct segid) from "{fts}_idx"').fetchone()[0]
    if segments > at_most:
        db.execute(f'insert into "{fts}" ("{fts}") values (\'optimize\')')


def create_search_index(db: sqlite_utils.Database, fts: str, table: str, columns: list[str]) -> None:
    """An empty external-content FTS5 index ``fts`` of ``table``'s ``columns``, any older one dropped."""
    db.table(fts).drop(ignore=True)
    listed = ", ".join(f'"{column}"' for column in columns)
    db.execute(
        f'CREATE VIRTUAL TABLE "{fts}" USING FTS5 (\n    {listed},\n    tokenize={db.quote(FTS_TOKENIZE)},\n'
        f'    content="{table}"\n)'
    )


def make_search_index(db: sqlite_utils.Database, table: str, columns: list[str]) -> None:
    """``table``'s full-text index (an external-content FTS5 table) made afresh from every row:
    what ``enable_fts`` makes, written in fewer, larger segments. Dropped first: ``enable_fts``
    leaves an existing index of the same configuration as it was."""
    fts = f"{table}_fts"
    create_search_index(db, fts, table, columns)
    configure = f'insert into "{fts}" ("{fts}", rank) values (?, ?)'
    db.conn.executemany(configure, list(FTS_BUILD_CONFIG.items()))
    db.table(table).populate_fts(columns)
    merge_segments(db, fts)
    db.conn.executemany(configure, list(FTS_DEFAULT_CONFIG.items()))


def table_counts(db: sqlite_utils.Database) -> dict[str, int]:
    return {name: db[name].count for name in TABLES}
