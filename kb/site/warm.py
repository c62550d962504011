"""What the site keeps per served file, read before the first visitor asks: at start-up and for a new file before it is swapped in.

The search sorts full-text matches by CR version through a map of every rule's head, suggests
keywords from every term held, and the rule pages mark glossary terms with the current
version's compiled patterns and read each version's symbols as it defines them (all kept per
file: ``kb.site.search_db.per_file``). Read on demand, the first search after a start or a swap
on a file holding the whole CR archive (238k rules) took 1.5-3.7 s, under the pages' 3 s time
limit, and the first rule page ~0.2 s.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import sqlite3
from typing import Any

from kb.site.diff_page import kept_version
from kb.site.rule_page import glossary_patterns
from kb.site.search_cjk_relax import cjk_rows_by_lang, translated_glossary_terms
from kb.site.search_db import (
    close_noted,
    connect_noting_file,
    file_key,
    newest_english_version,
    one_request,
    rule_heads,
    rules_titled,
    table_exists,
)
from kb.site.search_fulltext import current_entries, current_terms, terms_named
from kb.site.search_keywords import english_keywords_termed, suggestion_candidates
from kb.site.search_relax import index_spans
from kb.site.search_rules import rule_groups, rules_as_words, section_titles
from kb.site.search_spelling import vocabulary
from kb.site.search_titles import titles_and_rules
from kb.site.symbol_readings import symbol_readings

log = logging.getLogger("kb.site.warm")


def read_file_maps(conn: sqlite3.Connection) -> None:
    """Fill the per-file maps of the file ``conn`` reads (nothing for a file without rules)."""
    with one_request(conn):
        if not table_exists(conn, "rules"):
            return
        current = newest_english_version(conn)
        rule_heads(conn)
        rule_groups(conn)
        rules_titled(conn, current, "")
        suggestion_candidates(conn)
        english_keywords_termed(conn)
        if current is not None and table_exists(conn, "glossary"):
            glossary_patterns(conn, current)
        symbol_readings(conn)
        # What a search that found nothing as typed reads (kb.site.search_relax): counting a
        # million rulings' index rows cold took the first such search 100 ms.
        vocabulary(conn)
        index_spans(conn)
        cjk_rows_by_lang(conn)  # and a CJK one (kb.site.search_cjk_relax)
        translated_glossary_terms(conn)
        # The rules' words (the words-together order) and the glossary's terms by what names them.
        rules_as_words(conn)
        # The rules' titles, as the rules' order and the rules under a title read them.
        section_titles(conn)
        titles_and_rules(conn)
        if table_exists(conn, "glossary"):
            terms_named(conn)
            current_terms(conn)
            current_entries(conn)
        # What a diff of any version with the newest reads of the newest (kb.site.diff_page).
        if current is not None and table_exists(conn, "rule_comparisons"):
            kept_version(file_key(conn), conn, current)


async def warm_file_maps(database: Any) -> None:
    """``read_file_maps`` for a Datasette ``Database`` on a connection of its own, off the event
    loop. Only a head start: whatever goes wrong is logged and left to the first visitor's request
    to report, never holding up a start or a swap."""
    def read() -> None:
        conn = connect_noting_file(database.connect, database.path)
        try:
            read_file_maps(conn)
        finally:
            close_noted(conn)

    try:
        await asyncio.to_thread(read)
    except Exception:  # noqa: BLE001 (see above)
        log.exception("could not read the maps kept for %s", getattr(database, "path", database))


def keep_out_of_collections(after_swap: bool = False) -> None:
    """What the process holds now (Datasette's own state and the maps just read, kept as long as
    their file is served) moved out of the reach of Python's collector: a collection of the old
    generation walked all of it, a pause of 46-68 ms for every request in flight, eight times in
    a minute of the full-scale search benchmark (after it: 16 of 2-8 ms, 53 ms in all, against
    410). Garbage found first (one such pause, here). Maps of a file no longer served are freed
    when dropped, by their reference counts (7.8 MB read for the 1M database). Garbage in
    reference cycles that was frozen while alive would stay: a swap (``after_swap``) gives
    everything back to the collector for one whole collection before freezing again, so a server
    that swaps every day cannot grow by it (six swaps of the snapshot's maps in one process held
    7.9 MB without this, 7.3 MB with it; no growth either way). Nothing is left to the collector
    to close: the swapped-out file's connections are closed after their grace period
    (``kb.site.reload``)."""
    if after_swap:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
