"""Schema migrations: the declared tables made in a new file, and an older file brought to today's shape.

``m001_initial`` makes every table ``kb.store.tables`` declares; each later migration gives a file
made before a change what the declaration has since (a table, a column, a renamed status, an
index dropped for a better one). ``kb.store.schema.ensure_db_shape`` applies them, in order, by
name (sqlite-utils records the applied ones in the file): never rename or reorder one.
"""
from __future__ import annotations

from pathlib import Path

import sqlite_utils
from sqlite_utils import Migrations

from kb.store.tables import LEGACY_TABLES, LINEAGE_COLUMNS, RULING_RULES_COLUMNS, TABLES

migrations = Migrations("mtg-rules-kb")


def not_applied(db_path: Path) -> list[str]:
    """The migrations a file made by this project has not had (none for a file it did not make,
    or one that cannot be read as a database): what `mtgkb serve` warns of, and what a page that
    fails on a missing table or column blames (kb.site.limits)."""
    import sqlite3

    from kb.store.files import read_only_uri

    try:
        conn = sqlite3.connect(read_only_uri(db_path), uri=True)
        try:
            db = sqlite_utils.Database(conn)
            if not db["_sqlite_migrations"].exists():
                return []
            return [migration.name for migration in migrations.pending(db)]
        finally:
            conn.close()
    except sqlite3.Error:
        return []


def create_declared_table(db: sqlite_utils.Database, name: str) -> None:
    """Table ``name`` as ``TABLES`` declares it, unless the database has it: what m001 makes on a
    new database and later migrations give databases made before the table was declared."""
    spec = TABLES[name] if name in TABLES else LEGACY_TABLES[name]
    if not spec.get("without_rowid"):
        db.table(name).create(spec["columns"], pk=spec["pk"], foreign_keys=spec.get("foreign_keys"), if_not_exists=True)
        return
    if db[name].exists():
        return
    # sqlite-utils writes no WITHOUT ROWID clause: its statement, with the clause added.
    sql = db.create_table_sql(name, spec["columns"], pk=spec["pk"], foreign_keys=spec.get("foreign_keys"))
    db.execute(sql.rstrip().rstrip(";") + " WITHOUT ROWID")


def is_without_rowid(db: sqlite_utils.Database, table: str) -> bool:
    return "without rowid" in " ".join((db[table].schema or "").lower().split())


def add_missing_column(db: sqlite_utils.Database, table: str, column: str, kind: type) -> bool:
    """Add ``column`` to ``table`` where the table exists without it (a file made before it was
    declared); True when it was added."""
    if not db[table].exists() or column in {c.name for c in db[table].columns}:
        return False
    db.table(table).add_column(column, kind)
    return True


@migrations()
def m001_initial(db: sqlite_utils.Database) -> None:
    for name in TABLES:
        create_declared_table(db, name)


@migrations()
def m002_history(db: sqlite_utils.Database) -> None:
    """CR history tables (databases made before them get them here; m001 makes them on new ones)."""
    for name in ("cr_changes", "ruling_rules"):
        create_declared_table(db, name)


@migrations()
def m003_cr_version_set_and_status(db: sqlite_utils.Database) -> None:
    """cr_versions.set_name and cr_versions.status (databases made before them get them here);
    rules(version_id, number) no longer unique, so a duplicated number keeps both rules."""
    db.execute("drop index if exists idx_rules_version_id_number")
    for column in ("set_name", "status"):
        add_missing_column(db, "cr_versions", column, str)


@migrations()
def m004_keyword_dictionary(db: sqlite_utils.Database) -> None:
    """The keyword dictionary mined from printed texts (databases made before it get it here)."""
    create_declared_table(db, "keyword_dictionary")


@migrations()
def m005_rule_lineages(db: sqlite_utils.Database) -> None:
    """rule_lineages, rules.lineage_id, ruling_rules.lineage_id/in_force_version_id on older databases."""
    create_declared_table(db, "rule_lineages")
    add_lineage_columns(db)


def add_lineage_columns(db: sqlite_utils.Database) -> None:
    for table, names in LINEAGE_COLUMNS.items():
        for name in names:
            add_missing_column(db, table, name, str)


@migrations()
def m006_rulings_search_rowid(db: sqlite_utils.Database) -> None:
    """rulings.rowid, the full-text index's dense key (older databases keyed it by the hash ids)."""
    if not add_missing_column(db, "rulings", "rowid", int):
        return
    # Numbered through a keyed temporary table: an UPDATE … FROM a window CTE scans the CTE
    # once per ruling.
    db.execute("create temp table numbered_rulings (id integer primary key, n integer)")
    db.execute("insert into numbered_rulings select id, row_number() over (order by id) from rulings")
    db.execute("update rulings set rowid = (select n from temp.numbered_rulings where numbered_rulings.id = rulings.id)")
    db.execute("drop table temp.numbered_rulings")
    # The index reads a ruling by this key: without it every lookup is a table scan.
    db.execute("create unique index if not exists idx_rulings_rowid on rulings (rowid)")
    if db["rulings_fts"].exists():
        # Its rowids were the hash ids: re-read through the new key.
        db.execute("insert into rulings_fts (rulings_fts) values ('rebuild')")


@migrations()
def m007_no_identity_index(db: sqlite_utils.Database) -> None:
    """rulings indexed by published_at alone (idx_rulings_published_at): only the linking step
    looks rulings up by identity, and it makes an index for the time it needs it."""
    db.execute("drop index if exists idx_rulings_published_at_identity")


@migrations()
def m008_rule_lineage_links(db: sqlite_utils.Database) -> None:
    """rule_lineage_links (merges and splits) on databases made before it."""
    create_declared_table(db, "rule_lineage_links")


@migrations()
def m009_rule_link_status_same(db: sqlite_utils.Database) -> None:
    """rule_links.status "linked" is called "same" (same text, same number as the newest English)."""
    if db["rule_links"].exists():
        db.execute("update rule_links set status = 'same' where status = 'linked'")


@migrations()
def m010_ruling_record_text_once(db: sqlite_utils.Database) -> None:
    """ruling_records.ruling_id on older databases: a record whose text is its ruling's keeps
    it only in ``rulings.text`` (null ``text``). Every text stays where it is until the next
    derive moves it; that derive reads each record's text from either place. The index of
    rulings by card name covers named rulings only."""
    add_missing_column(db, "ruling_records", "ruling_id", int)
    # Remade over named rulings only (PARTIAL_INDEXES).
    db.execute("drop index if exists idx_rulings_card_name")


@migrations()
def m011_glossary_lineages(db: sqlite_utils.Database) -> None:
    """glossary.lineage_id: a glossary entry's identity across versions, whatever its term."""
    add_lineage_columns(db)


@migrations()
def m012_ruling_rules_published_at(db: sqlite_utils.Database) -> None:
    """ruling_rules.published_at on older databases: the ruling's date, copied from rulings. The
    index by lineage alone goes: the (lineage, date, ruling) index serves its lookups."""
    db.execute("drop index if exists idx_ruling_rules_lineage_id")
    if not add_missing_column(db, "ruling_rules", "published_at", str):
        return
    db.execute(
        "update ruling_rules set published_at = (select published_at from rulings where rulings.id = ruling_rules.ruling_id)"
    )


@migrations()
def m013_ruling_rules_status_method(db: sqlite_utils.Database) -> None:
    """The index of ruling_rules by status alone goes: the (status, method) index serves it."""
    db.execute("drop index if exists idx_ruling_rules_status")


@migrations()
def m014_unresolved_card_names(db: sqlite_utils.Database) -> None:
    """unresolved_card_names (databases made before it get it here; the next derive fills it)."""
    create_declared_table(db, "unresolved_card_names")


@migrations()
def m015_cr_changes_paired_by_number(db: sqlite_utils.Database) -> None:
    """cr_changes.paired_by_number on older databases: null (not recorded) until the history is
    derived again."""
    add_missing_column(db, "cr_changes", "paired_by_number", int)


@migrations()
def m016_ruling_rules_paired_by_number(db: sqlite_utils.Database) -> None:
    """ruling_rules.paired_by_number on older databases: null (not recorded) until the rulings are
    linked again."""
    add_missing_column(db, "ruling_rules", "paired_by_number", int)


@migrations()
def m017_card_faces(db: sqlite_utils.Database) -> None:
    """cards.card_faces on older databases: null until card data is imported again."""
    add_missing_column(db, "cards", "card_faces", str)


@migrations()
def m018_quality_issue_records(db: sqlite_utils.Database) -> None:
    """quality_issues.record_id on older databases: null (the issue shows on every card page of
    its document, as before) until the document is imported again."""
    add_missing_column(db, "quality_issues", "record_id", int)


@migrations()
def m019_ruling_rules_number_uncertain(db: sqlite_utils.Database) -> None:
    """ruling_rules.number_uncertain on older databases: null (not recorded) until the rulings are
    linked again."""
    add_missing_column(db, "ruling_rules", "number_uncertain", int)


@migrations()
def m020_rulings_reworded_as(db: sqlite_utils.Database) -> None:
    """rulings.reworded_as on older databases: empty (an earlier wording was not kept before)."""
    add_missing_column(db, "rulings", "reworded_as", int)


@migrations()
def m021_ruling_sightings_without_rowid(db: sqlite_utils.Database) -> None:
    """ruling_sightings stored by its key alone on older databases: the table made again, every
    row kept (its index by document is made again by ``ensure_db_shape``)."""
    if not db["ruling_sightings"].exists() or is_without_rowid(db, "ruling_sightings"):
        return
    db.execute("alter table ruling_sightings rename to ruling_sightings_with_rowid")
    create_declared_table(db, "ruling_sightings")
    kept = [c.name for c in db["ruling_sightings_with_rowid"].columns if c.name in TABLES["ruling_sightings"]["columns"]]
    listed = ", ".join(f'"{name}"' for name in kept)
    db.execute(
        f"insert into ruling_sightings ({listed}) select {listed} from ruling_sightings_with_rowid"
        " order by ruling_id, document_id, position"
    )
    db.execute("drop table ruling_sightings_with_rowid")


@migrations()
def m022_printings_mana_cost(db: sqlite_utils.Database) -> None:
    """printings.mana_cost on older databases: empty until the documents are imported again."""
    add_missing_column(db, "printings", "mana_cost", str)


@migrations()
def m023_printings_note(db: sqlite_utils.Database) -> None:
    """printings.note on older databases: empty until the documents are imported again."""
    add_missing_column(db, "printings", "note", str)


@migrations()
def m024_ruling_translations_published_at(db: sqlite_utils.Database) -> None:
    """ruling_translations.published_at on older databases: filled when the rulings are derived again."""
    add_missing_column(db, "ruling_translations", "published_at", str)


@migrations()
def m025_rule_comparisons(db: sqlite_utils.Database) -> None:
    """rule_comparisons on older databases: empty until the CR history is derived again (their
    versions are compared from their texts meanwhile)."""
    create_declared_table(db, "rule_comparisons")


@migrations()
def m026_glossary_comparisons(db: sqlite_utils.Database) -> None:
    """glossary_comparisons on older databases: empty until the CR history is derived again (their
    glossaries are compared from their texts meanwhile)."""
    create_declared_table(db, "glossary_comparisons")


@migrations()
def m027_card_stats_and_shown_oracle_text(db: sqlite_utils.Database) -> None:
    """cards' and printings' power, toughness, loyalty and defense, and printings' type_line and
    oracle_text (a Gatherer page's Oracle view), on older databases: empty until the documents
    are imported again."""
    for column in ("power", "toughness", "loyalty", "defense"):
        add_missing_column(db, "cards", column, str)
        add_missing_column(db, "printings", column, str)
    add_missing_column(db, "printings", "type_line", str)
    add_missing_column(db, "printings", "oracle_text", str)


@migrations()
def m028_cards_oracle_document(db: sqlite_utils.Database) -> None:
    """cards.oracle_document_id on older databases: empty until the documents are imported again."""
    add_missing_column(db, "cards", "oracle_document_id", int)


@migrations()
def m029_sets(db: sqlite_utils.Database) -> None:
    """sets on older databases: empty until the card documents are imported again."""
    create_declared_table(db, "sets")


@migrations()
def m030_printings_released_at(db: sqlite_utils.Database) -> None:
    """printings.released_at on older databases: empty until the card documents are imported again."""
    add_missing_column(db, "printings", "released_at", str)


@migrations()
def m031_ruling_rules_cited_status(db: sqlite_utils.Database) -> None:
    """The index of every link by status and method goes: the cited links' index by status (made
    with the partial indexes) serves the only query that read it, the citations_to_check view,
    made again here in the form that reads it."""
    from kb.store.derive_history import CITATIONS_TO_CHECK_VIEW

    db.execute("drop index if exists idx_ruling_rules_status_method")
    if "citations_to_check" in db.view_names():
        db.create_view("citations_to_check", CITATIONS_TO_CHECK_VIEW, replace=True)


@migrations()
def m032_ruling_rule_links(db: sqlite_utils.Database) -> None:
    """ruling_rules, a row of every column per link, becomes its links (ruling_rule_links) and
    their targets (ruling_rule_targets), read as before through the ruling_rules view: 382 MB of
    a million rulings' links and their indexes, most of it the same few thousand targets again."""
    from kb.store.derive_history import CITATIONS_TO_CHECK_VIEW
    from kb.store.ruling_links import LinkWriter
    from kb.store.schema import RULING_RULES_VIEW

    for name in ("ruling_rule_targets", "ruling_rule_links"):
        create_declared_table(db, name)
    if "ruling_rules" not in db.table_names():
        return
    writer = LinkWriter(db)
    rows = db.execute(f"select {', '.join(RULING_RULES_COLUMNS)} from ruling_rules order by ruling_id")
    while batch := rows.fetchmany(20_000):
        writer.write(batch)
    citations = "citations_to_check" in db.view_names()
    db.execute("drop view if exists citations_to_check")
    db.execute("drop table ruling_rules")
    db.create_view("ruling_rules", RULING_RULES_VIEW)
    if citations:
        db.create_view("citations_to_check", CITATIONS_TO_CHECK_VIEW)


@migrations()
def m033_rulings_first_seen(db: sqlite_utils.Database) -> None:
    """The index of every ruling by coalesce(first_seen, published_at) goes: the "new_rulings"
    query, its only reader, reads the rulings by date and the few first seen later by a partial
    index of those (made with the partial indexes)."""
    db.execute("drop index if exists idx_rulings_seen")


@migrations()
def m034_documents_made_on(db: sqlite_utils.Database) -> None:
    """documents.made_on on older databases: empty until the documents are imported again."""
    add_missing_column(db, "documents", "made_on", str)


@migrations()
def m035_printings_set_name(db: sqlite_utils.Database) -> None:
    """printings.set_name on older databases: empty until the documents are imported again."""
    add_missing_column(db, "printings", "set_name", str)
