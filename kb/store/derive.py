"""Every derived table from what is stored, in dependency order.

Card names, CR lineages and history, CR translation links, rulings and their translations,
ruling citations: recomputed on every build and import.
"""
from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from kb.store.derive_cards import resolve_card_names
from kb.store.derive_cr_links import link_cr_translations
from kb.store.derive_history import save_cr_history, save_ruling_links
from kb.store.derive_rulings import derive_rulings


def link_all(db: sqlite_utils.Database, progress: Callable[[str], None] | None = None) -> None:
    def stage(message: str) -> None:
        if progress:
            progress(message)

    stage("linking card names")
    resolve_card_names(db)
    # English lineages first: translations link to the English rule of the same identity.
    stage("comparing CR versions: rule lineages and history")
    history = save_cr_history(db)
    # Translated rules and glossaries next: their term pairs sharpen ruling-translation matching.
    stage("linking CR translations to their English rules")
    link_cr_translations(db)
    stage("deriving cards and rulings, linking translations and cited rules")
    derive_rulings(db)
    stage("linking rulings to the rules they cite")
    save_ruling_links(db, history)
