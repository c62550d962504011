"""Every derived table from what is stored, in dependency order.

Card names, CR lineages and history, CR translation links, rulings and their translations,
ruling citations. A build recomputes them all; an import that added or changed no CR version
(``kb.store.import_changes`` saw no CR row written) keeps the CR-derived tables
(lineages, ``cr_changes``, translation links, keywords) as they are, only reads them back, derives
again only the rulings of the cards its files touched (``kb.store.import_changes``), and links to
rules only the rulings that are new or changed, or whose card's name changed.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from kb.store.bulk_indexes import indexes_made_after
from kb.store.derive_cards import resolve_card_names, save_unresolved_card_names
from kb.store.derive_cr_links import link_cr_translations
from kb.store.derive_history import (
    CITATIONS_TO_CHECK_VIEW,
    History,
    save_cr_history,
    save_ruling_links,
)
from kb.store.derive_rulings import RULING_LINK_INPUTS, derive_rulings
from kb.store.import_changes import ImportChanges
from kb.store.linking_history import link_rulings_where
from kb.store.ruling_links import LINK_INDEXES, LINKS, delete_links


def link_all(
    db: sqlite_utils.Database,
    progress: Callable[[str], None] | None = None,
    changes: ImportChanges | None = None,
    carry_from: Path | None = None,
    cr_carried: bool = False,
) -> list[str]:
    """Recompute the derived tables; ``changes``: what an import into a built database changed,
    which wrote no CR row (the CR-derived tables are current): only the cards it touched are
    derived again. ``carry_from``: the file a whole build replaces, made by the same linking
    code (``kb.store.carry_links``: how many rulings it carried is ``links_carried(db)``). Returns
    the steps that ran. ``cr_carried``: the CR tables were copied from ``carry_from``
    (``kb.store.carry_cr``): its history and translation links are read back, not derived."""
    ran: list[str] = []

    def stage(name: str, message: str) -> None:
        ran.append(name)
        if progress:
            progress(message)

    if changes is None or changes.changed("card names"):
        stage("card names", "linking card names")
        resolve_card_names(db)
    # An import that added or changed no CR version (``changes``): diffs, lineages and
    # translation links stand, and the history is read back only if some ruling is linked again.
    history: History | None = None
    if changes is None and cr_carried:
        stage("cr carried", "the CR tables carried over: their history is read back if a ruling needs it")
    elif changes is None:
        # English lineages first: translations link to the English rule of the same identity.
        stage("cr history", "comparing CR versions: rule lineages and history")
        history = save_cr_history(db)
        # Translated rules and glossaries next: their term pairs sharpen ruling-translation matching.
        stage("cr translations", "linking CR translations to their English rules")
        versions, documents, _lineages = history
        link_cr_translations(db, {version_id: doc for (version_id, _date), doc in zip(versions, documents, strict=True)})
    stage("rulings", "deriving cards and rulings, linking translations and cited rules")
    derive_rulings(db, changes)
    # After every write to card_names: resolve_card_names's and the names rulings give cards.
    if changes is None or changes.changed("card names") or changes.changed("card name rows"):
        save_unresolved_card_names(db)
    if changes is not None:
        # The same CR and the same ruling give the same citations: only rulings that are new
        # or whose text, date or card name changed are linked again (a card file that renames
        # no card: none, and the CR history, 14 versions or the whole archive, is not read).
        stage("new ruling links", "linking new rulings to the rules they cite")
        _relink_rederived_rulings(db, changes)
    else:
        stage("ruling links", "linking rulings to the rules they cite")
        # Carried CR tables: their history is the served file's, read only if a ruling needs it.
        save_ruling_links(db, history, carry_from)
    return ran


def _relink_rederived_rulings(db: sqlite_utils.Database, changes: ImportChanges) -> None:
    """After a derive of some cards: their rulings whose inputs changed (``temp.replaced_rulings``
    holds what they were), and the rulings of cards whose name changed; every other ruling and
    its links stand. The CR history is read only when a ruling is to be linked, and only what
    its citations need (``kb.store.linking_history``)."""
    db.execute("drop table if exists temp.relinked_rulings")
    db.execute(
        f"create temp table relinked_rulings as select now.id from ({RULING_LINK_INPUTS}) as now"
        " left join temp.replaced_rulings as was on was.id = now.id"
        " where (now.oracle_id in (select card_key from temp.rederived_cards) or now.oracle_id is null)"
        " and (was.id is null or was.text is not now.text or was.published_at is not now.published_at"
        " or was.card is not now.card)"
        f" union select rulings.id from rulings where rulings.oracle_id in ({changes.renamed_cards()})"
    )
    delete_links(
        db,
        "ruling_id in (select id from temp.relinked_rulings)"
        " or ruling_id in (select id from temp.replaced_rulings where id not in (select id from rulings))",
    )
    relinked = db.execute("select count(*) from temp.relinked_rulings").fetchone()[0]
    if relinked:
        # A bulk file's links into a table of fewer: its indexes made once, sorted, after them (kept
        # up link by link, 1.4M links into the built snapshot left their pages part-filled: 57 MB
        # of the full-scale database a VACUUM took back).
        with indexes_made_after(db, LINKS, *LINK_INDEXES, up_to_rows=relinked):
            link_rulings_where(db, "rulings.id in (select id from temp.relinked_rulings)")
    db.create_view("citations_to_check", CITATIONS_TO_CHECK_VIEW, replace=True)
    db.execute("drop table temp.relinked_rulings")
