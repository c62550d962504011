"""What an import into a built database changes, recorded as it happens by temporary triggers.

An import copies the database it adds to, whose search indexes are complete (every build ends by
making them). While it loads and derives, temporary triggers (they go with the connection: the
published file has none) note three things:

- the cards whose ruling records were added, removed or re-keyed: only their rulings are derived
  again (``kb.store.derive_rulings``);
- every change to a table with a full-text index, mirrored into that index as it happens, so the
  index is kept instead of made again from every row (and the rows written, whose words join the
  index's word list at the end: ``kb.store.search_terms``), unless the import writes as many rows
  as the table holds, or more (``make_index_again``: one build is then cheaper);
- whether what the CR history, card names, the CJK index and the keyword dictionary are made
  from changed at all: they are made again only then;
- the rows written into tables with foreign keys, and the keys removed from the tables they
  point at: only those can break a reference, so the new file's foreign keys are checked there
  (``foreign_key_violations``) instead of across every row (9 s at a million rulings).
"""
from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from kb.store.cjk_search import CJK_LANGS, cjk_condition
from kb.store.migrations import is_without_rowid
from kb.store.schema import FTS_CONFIG

# What a CR version is made of, as saved from its documents (derived columns such as
# rules.lineage_id or cr_versions.translates_version_id left out: the derive step writes them).
# A row of them written means the CR-derived tables (lineages, history, links) are made again.
CR_CONTENT = {
    "cr_versions": "id, lang, effective_date, raw_date, title, document_id, rule_count, glossary_count, status",
    "rules": "id, version_id, number, kind, title, text, parent_number, position",
    "rule_examples": "id, rule_id, position, text",
    "glossary": "id, version_id, term, text, position",
}

# What card names are resolved from (kb.store.derive_cards.resolve_card_names): card data, name
# records and the printings a name-only page shows. Rows without a name are what a rulings import
# gives a card it names without card data.
CARD_NAME_INPUTS = {
    "cards": ("{row}.name is not null", "name, faces"),
    "card_name_records": ("1", ""),
    "printings": ("1", ""),
}

# The tables the keyword dictionary reads (kb.store.derive_keywords), with the rows that matter:
# card rows without Oracle text are never read (a rulings import adds such rows for cards it names).
KEYWORD_INPUTS = {
    "printings": "1",
    "card_name_records": "1",
    "cards": "{row}.oracle_text is not null",
}


def _cjk_text(row: str, column: str) -> str:
    return cjk_condition(f"{row}.{column}")


# What the CJK index holds (kb.store.cjk_search.ensure_cjk_search), by the rows that can change on an
# import that adds no CR version: names in a CJK language or script (a CJK name's key only ever
# equals another CJK name's), CJK ruling translations, CJK keyword terms.
CJK_INPUTS = {
    "card_names": "{row}.lang in " + CJK_LANGS + " or " + _cjk_text("{row}", "name"),
    "card_name_records": "{row}.lang in " + CJK_LANGS + " or " + _cjk_text("{row}", "name"),
    "ruling_translations": _cjk_text("{row}", "text"),
    "keywords": _cjk_text("{row}", "term"),
}


@dataclass(frozen=True)
class ForeignKey:
    """``table.column`` references ``parent.parent_column`` (``number``: the key's id in
    ``pragma foreign_key_list``, as ``foreign_key_check`` reports it)."""

    table: str
    column: str
    parent: str
    parent_column: str
    number: int

    @property
    def written(self) -> str:
        return written_rows_table(self.table)

    @property
    def removed(self) -> str:
        return removed_keys_table(self.parent, self.parent_column)


def written_rows_table(table: str) -> str:
    """The temporary table of the rowids an import writes into ``table``."""
    return f"fk_written_{table}"


def removed_keys_table(table: str, column: str) -> str:
    """The temporary table of the values an import removes from ``table.column``."""
    return f"fk_removed_{table}_{column}"


class ImportChanges:
    """Temporary triggers on a copied database; ``stop()`` drops them (closing the connection
    does too)."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self.triggers: list[str] = []
        # A row that "insert or replace" replaces leaves through the delete triggers only so
        # (sqlite-utils turns it on for its connections; a plain one has it off).
        self.recursive_triggers = db.execute("pragma recursive_triggers").fetchone()[0]
        db.execute("pragma recursive_triggers = on")
        db.execute("create temp table if not exists touched_card_keys (card_key text primary key)")
        db.execute("create temp table if not exists changed_inputs (name text primary key)")
        db.execute("drop table if exists temp.cards_before")
        db.execute("create temp table cards_before as select oracle_id, name from main.cards")
        db.execute("create unique index temp.cards_before_oracle_id on cards_before (oracle_id)")
        self._track_ruling_records()
        self.mirrored = self._mirror_search_indexes()
        for table, condition in KEYWORD_INPUTS.items():
            self._flag(table, "keyword dictionary", condition)
        for table, condition in CJK_INPUTS.items():
            self._flag(table, "cjk search", condition)
        for table, columns in CR_CONTENT.items():
            self._flag(table, "cr", "1", columns)
        for table, (condition, columns) in CARD_NAME_INPUTS.items():
            self._flag(table, "card names", condition, columns)
        # The names a card's rulings may mention without naming it (kb.store.derive_cards.RulingNames).
        self._flag("card_names", "english names", "{row}.lang = 'en' and {row}.source != 'rulings'")
        # What unresolved_card_names is made from (kb.store.derive_cards.save_unresolved_card_names):
        # the name records ("card names" above) and every card name, the ones rulings give included.
        self._flag("card_names", "card name rows", "1", "lang, name, name_key")
        self.row_keys: dict[str, list[str]] = {}
        self.foreign_keys = self._track_foreign_keys()

    def touched_card_keys(self) -> set[str]:
        return {row[0] for row in self.db.execute("select card_key from temp.touched_card_keys")}

    def changed(self, name: str) -> bool:
        return self.db.execute("select 1 from temp.changed_inputs where name = ?", [name]).fetchone() is not None

    def renamed_cards(self) -> str:
        """SQL selecting the Oracle ids whose card name is not what it was before the import."""
        return (
            "select cards.oracle_id from main.cards left join temp.cards_before as before"
            " on before.oracle_id = cards.oracle_id where before.name is not cards.name"
            " union select before.oracle_id from temp.cards_before as before where before.name is not null"
            " and not exists (select 1 from main.cards where cards.oracle_id = before.oracle_id)"
        )

    def foreign_key_violations(self) -> list[tuple[str, int | None, str, int]] | None:
        """What ``pragma foreign_key_check`` reports, (table, rowid, parent, key number), among
        the rows written and the rows pointing at removed keys: the database this import copied
        had none (every build checks its whole file), so no other row can have one. None when
        the keys could not be followed (a key of several columns, a table without rowids)."""
        if self.foreign_keys is None:
            return None
        found: list[tuple[str, int | None, str, int]] = []
        for key in self.foreign_keys:
            missing = (
                f'not exists (select 1 from main."{key.parent}" as parent'
                f' where parent."{key.parent_column}" = child."{key.column}")'
            )
            row_key = self.row_keys[key.table]
            # A table without rowids has none to report (foreign_key_check says null too).
            rowid = "child._rowid_" if row_key == ["_rowid_"] else "null"
            written = ", ".join(f"child.{column}" for column in row_key)
            # Each row once (by its key: two rows without rowids report the same four values).
            found += [
                row[:4] for row in self.db.execute(
                    f'select ?, {rowid}, ?, ?, {written} from main."{key.table}" as child'
                    f" where ({written}) in (select * from temp.{key.written})"
                    f' and child."{key.column}" is not null and {missing}'
                    f' union select ?, {rowid}, ?, ?, {written} from main."{key.table}" as child'
                    f' where child."{key.column}" in (select key from temp.{key.removed}) and {missing}',
                    [key.table, key.parent, key.number] * 2,
                )
            ]
        return sorted(found, key=lambda row: (row[0], row[1] or 0, row[2], row[3]))

    def make_index_again(self, table: str) -> None:
        """``table``'s full-text index is made afresh from every row at the end (``ensure_search``)
        instead of kept in step: for a bulk write of as many rows as the table holds or more, one
        build costs less than mirroring each row (200k rulings into the built snapshot: the
        rulings' insert 3.8 s with the mirror, 1.2 s without, beside a 1.6 s build)."""
        if table not in self.mirrored:
            return
        for event in ("insert", "delete", "update"):
            name = f"changes_fts_{table}_{event}"
            self.db.execute(f"drop trigger if exists temp.{name}")
            self.triggers.remove(name)
        self.db.execute(f"drop table if exists temp.{table}_fts_written")
        self.mirrored.discard(table)

    def stop(self) -> None:
        present = {row[0] for row in self.db.execute("select name from sqlite_temp_master where type = 'trigger'")}
        if any(name.startswith("changes_fk_") and name not in present for name in self.triggers):
            # A table was dropped and made again during the import, its triggers with it: what
            # was written into it went unrecorded, so the whole database is checked instead.
            self.foreign_keys = None
        for name in self.triggers:
            self.db.execute(f"drop trigger if exists temp.{name}")
        self.triggers = []
        self.db.execute(f"pragma recursive_triggers = {int(self.recursive_triggers)}")

    def _trigger(self, name: str, event: str, table: str, when: str, body: str) -> None:
        """``event``: insert, delete, update, or "update of <columns>"."""
        condition = f" when {when}" if when and when != "1" else ""
        self.db.execute(
            f"create temp trigger {name} after {event} on main.{table}{condition} begin {body}; end"
        )
        self.triggers.append(name)

    def _track_ruling_records(self) -> None:
        # No "or ignore" in trigger bodies: the conflict handling of the statement that fires a
        # trigger overrides its body's (loading a card bulk file failed on a repeated flag).
        touch = (
            "insert into touched_card_keys select {row}.card_key"
            " where not exists (select 1 from touched_card_keys where card_key = {row}.card_key)"
        )
        for event, rows in (("insert", ["new"]), ("delete", ["old"]), ("update of card_key", ["old", "new"])):
            for row in rows:
                # A record keyed again to the card it had (every name-keyed record is, on every
                # import) touches nothing.
                changed = " and old.card_key is not new.card_key" if event.startswith("update") else ""
                when = f"{row}.card_key is not null{changed}"
                self._trigger(
                    f"changes_records_{event.split()[0]}_{row}", event, "ruling_records",
                    when, touch.format(row=row),
                )

    def _mirror_search_indexes(self) -> set[str]:
        """Each full-text index the copy has, kept in step with its table (FTS5 external
        content: a row leaves the index with the values it was indexed with)."""
        mirrored = set()
        for table, columns in FTS_CONFIG.items():
            index = self.db[f"{table}_fts"]
            # An index made by other code (other columns) is made again at the end instead.
            if not index.exists() or [column.name for column in index.columns] != columns:
                continue
            listed = ", ".join(columns)
            new = ", ".join(f"new.{column}" for column in columns)
            old = ", ".join(f"old.{column}" for column in columns)
            # Which rows were written, for the index's word list (kb.store.search_terms): a
            # plain list (a unique key would need "or ignore", which a trigger body cannot have).
            self.db.execute(f"drop table if exists temp.{table}_fts_written")
            self.db.execute(f"create temp table {table}_fts_written (row integer)")
            add = (
                f"insert into {table}_fts (rowid, {listed}) values (new.rowid, {new});"
                f" insert into {table}_fts_written (row) values (new.rowid)"
            )
            remove = f"insert into {table}_fts ({table}_fts, rowid, {listed}) values ('delete', old.rowid, {old})"
            self._trigger(f"changes_fts_{table}_insert", "insert", table, "", add)
            self._trigger(f"changes_fts_{table}_delete", "delete", table, "", remove)
            self._trigger(f"changes_fts_{table}_update", "update", table, "", f"{remove}; {add}")
            mirrored.add(table)
        return mirrored

    def _track_foreign_keys(self) -> list[ForeignKey] | None:
        """Temporary tables of the rows written into each table with foreign keys
        (``fk_written_<table>``: their rowids, or primary keys in a table without rowids) and of
        the keys removed from each key they point at (``fk_removed_<table>_<column>``), kept by
        triggers. None (nothing tracked) for keys these cannot follow: a key of several columns,
        a table without rowids or primary key."""
        keys: list[ForeignKey] = []
        for table in self.db.table_names():
            for number, seq, parent, column, parent_column, *_rest in self.db.execute(
                f"pragma main.foreign_key_list('{table}')"
            ).fetchall():
                if seq or (parent_column is None and len(self.db.table(parent).pks) != 1):
                    return None
                if parent_column is None:  # a key naming no column is the parent's primary key
                    parent_column = self.db.table(parent).pks[0]
                keys.append(ForeignKey(table, column, parent, parent_column, number))
        for table in sorted({key.table for key in keys}):
            # _rowid_, not rowid: rulings has a column of that name (its search index's key).
            self.row_keys[table] = list(self.db.table(table).pks) if is_without_rowid(self.db, table) else ["_rowid_"]
            written = written_rows_table(table)
            self.db.execute(f"drop table if exists temp.{written}")
            self.db.execute(f"create temp table {written} ({', '.join(f'k{n}' for n in range(len(self.row_keys[table])))})")
            values = ", ".join(f"new.{column}" for column in self.row_keys[table])
            record = f"insert into {written} values ({values})"
            self._trigger(f"changes_fk_{table}_insert", "insert", table, "", record)
            self._trigger(f"changes_fk_{table}_update", "update", table, "", record)
        for parent, column in sorted({(key.parent, key.parent_column) for key in keys}):
            removed = removed_keys_table(parent, column)
            self.db.execute(f"drop table if exists temp.{removed}")
            self.db.execute(f"create temp table {removed} (key)")
            record = f'insert into {removed} (key) values (old."{column}")'
            self._trigger(f"changes_fk_{parent}_{column}_delete", "delete", parent, "", record)
            self._trigger(f"changes_fk_{parent}_{column}_rekey", f'update of "{column}"', parent,
                          f'old."{column}" is not new."{column}"', record)
        return keys

    def _flag(self, table: str, name: str, condition: str, columns: str = "") -> None:
        """Note ``name`` changed when a row of ``table`` meeting ``condition`` is written
        (``columns``: only updates of those count)."""
        flag = f"insert into changed_inputs select '{name}' where not exists (select 1 from changed_inputs where name = '{name}')"
        slug = name.replace(" ", "_")
        update = f"update of {columns}" if columns else "update"
        for event, rows in (("insert", ["new"]), ("delete", ["old"]), (update, ["old", "new"])):
            when = " or ".join(f"({condition.format(row=row)})" for row in rows)
            self._trigger(f"changes_{slug}_{table}_{event.split()[0]}", event, table, when, flag)
