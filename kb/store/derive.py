"""Every derived table from what is stored, in dependency order.

Card names, CR lineages and history, CR translation links, rulings and their translations,
ruling citations. A build recomputes them all; an import that added or changed no CR version
(``cr_content_key`` the same before and after it read its inputs) keeps the CR-derived tables
(lineages, ``cr_changes``, translation links, keywords) as they are, only reads them back, and
links to rules only the rulings that are new or changed.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable

import sqlite_utils

from kb.store.derive_cards import resolve_card_names
from kb.store.derive_cr_links import link_cr_translations, load_cr_document
from kb.store.derive_history import (
    CITATIONS_TO_CHECK_VIEW,
    History,
    english_versions,
    save_cr_history,
    save_ruling_links,
    save_ruling_rules,
)
from kb.store.derive_rulings import derive_rulings

# What a CR version is made of, as saved from its documents (derived columns such as
# rules.lineage_id or cr_versions.translates_version_id left out: the derive step writes them).
CR_CONTENT = {
    "cr_versions": "id, lang, effective_date, raw_date, title, document_id, rule_count, glossary_count, status",
    "rules": "id, version_id, number, kind, title, text, parent_number, position",
    "rule_examples": "id, rule_id, position, text",
    "glossary": "id, version_id, term, text, position",
}


def cr_content_key(db: sqlite_utils.Database) -> str:
    """A digest of every stored CR version's content: equal keys, the same CR inputs."""
    digest = hashlib.sha256()
    for table, columns in CR_CONTENT.items():
        digest.update(f"\x1e{table}\x1e".encode())
        for row in db.execute(f"select {columns} from {table} order by id"):
            digest.update(repr(row).encode("utf-8"))
    return digest.hexdigest()


def link_all(
    db: sqlite_utils.Database,
    progress: Callable[[str], None] | None = None,
    cr_unchanged: bool = False,
) -> list[str]:
    """Recompute the derived tables; ``cr_unchanged``: the CR-derived ones are current (the
    caller compared ``cr_content_key`` before and after loading). Returns the steps that ran."""
    ran: list[str] = []

    def stage(name: str, message: str) -> None:
        ran.append(name)
        if progress:
            progress(message)

    stage("card names", "linking card names")
    resolve_card_names(db)
    if cr_unchanged:
        # No CR version was added or changed: diffs, lineages and translation links stand.
        history = stored_cr_history(db)
    else:
        # English lineages first: translations link to the English rule of the same identity.
        stage("cr history", "comparing CR versions: rule lineages and history")
        history = save_cr_history(db)
        # Translated rules and glossaries next: their term pairs sharpen ruling-translation matching.
        stage("cr translations", "linking CR translations to their English rules")
        link_cr_translations(db)
    if cr_unchanged:
        _remember_ruling_inputs(db)
    stage("rulings", "deriving cards and rulings, linking translations and cited rules")
    derive_rulings(db)
    if cr_unchanged:
        # The same CR and the same ruling give the same citations: only rulings that are new
        # or whose text, date or card name changed are linked again.
        stage("new ruling links", "linking new rulings to the rules they cite")
        _relink_changed_rulings(db, history)
    else:
        stage("ruling links", "linking rulings to the rules they cite")
        save_ruling_links(db, history)
    return ran


# What linking a ruling to rules reads (kb.store.derive_history.save_ruling_rules).
_RULING_INPUTS = (
    "select rulings.id, rulings.text, rulings.published_at, cards.name as card"
    " from rulings left join cards on cards.oracle_id = rulings.oracle_id"
)


def _remember_ruling_inputs(db: sqlite_utils.Database) -> None:
    db.execute("drop table if exists temp.linked_rulings")
    db.execute(f"create temp table linked_rulings as {_RULING_INPUTS}")
    db.execute("create unique index temp.linked_rulings_id on linked_rulings (id)")


def _relink_changed_rulings(db: sqlite_utils.Database, history: History) -> None:
    db.execute("drop table if exists temp.relinked_rulings")
    db.execute(
        f"create temp table relinked_rulings as select now.id from ({_RULING_INPUTS}) as now"
        " left join temp.linked_rulings as was on was.id = now.id"
        " where was.id is null or was.text is not now.text or was.published_at is not now.published_at"
        " or was.card is not now.card"
    )
    db.execute(
        "delete from ruling_rules where ruling_id not in (select id from rulings)"
        " or ruling_id in (select id from temp.relinked_rulings)"
    )
    save_ruling_rules(db, *history, where="rulings.id in (select id from temp.relinked_rulings)")
    db.create_view("citations_to_check", CITATIONS_TO_CHECK_VIEW, replace=True)
    db.execute("drop table temp.linked_rulings")
    db.execute("drop table temp.relinked_rulings")


def stored_cr_history(db: sqlite_utils.Database) -> History:
    """What ``save_cr_history`` returns, read back from the stored versions and lineages."""
    versions = english_versions(db)
    documents = [load_cr_document(db, version_id) for version_id, _date in versions]
    lineages: list[dict[str, str]] = []
    for version_id, _date in versions:
        lineages.append({
            row[0]: row[1]
            for row in db.execute(
                "select number, lineage_id from rules where version_id = ? and lineage_id is not null"
                " order by position", [version_id],
            )
        })
    return versions, documents, lineages
