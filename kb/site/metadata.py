"""Datasette metadata: table descriptions (from kb.store.columns), how tables are shown, canned queries, licence notes; what the plugin's get_metadata hook answers."""
from __future__ import annotations

import weakref
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from kb.store.carry_cr import READ_ORDER_TABLE
from kb.store.columns import COLUMN_DESCRIPTIONS, TABLE_DESCRIPTIONS, column_description
from kb.store.derive_history import HISTORY_QUERIES
from kb.store.schema import ruling_card_name
from kb.store.search_terms import TERMS_TABLE
from kb.store.tables import RULING_RULES_COLUMNS, TABLES

LICENCE_NOTE = (
    "Magic: The Gathering rules text, card names and rulings are © Wizards of the Coast LLC, "
    "used under the Wizards of the Coast Fan Content Policy. This site is unofficial Fan Content "
    "permitted under the Fan Content Policy; it is not approved or endorsed by Wizards. Card "
    "data via Scryfall and MTGJSON; community translations belong to their translators."
)

# How Datasette shows each table (labels, sort order, facets); what the tables and columns mean
# is declared beside the schema, in kb.store.columns.
TABLE_PRESENTATION: dict[str, dict[str, Any]] = {
    "sources": {"label_column": "name"},
    "documents": {"label_column": "path", "sort_desc": "fetched_at", "facets": ["source_id", "format", "lang", "status"]},
    "cr_versions": {"label_column": "id", "sort_desc": "effective_date", "facets": ["lang", "method", "translation_match"]},
    "rules": {"label_column": "number", "sort": "position", "facets": ["version_id", "kind"]},
    "rule_lineages": {"label_column": "id", "facets": ["kind", "first_version_id"]},
    "rule_lineage_links": {"facets": ["kind", "new_version_id"], "sort": "new_version_id"},
    # Read by the diff page (kb.store.identity_diff), digests no one reads: not browsed.
    "rule_comparisons": {"hidden": True},
    "glossary_comparisons": {"hidden": True},
    "rule_examples": {},
    "glossary": {"label_column": "term", "sort": "position", "facets": ["version_id"]},
    "rule_refs": {},
    "glossary_refs": {},
    "rule_links": {"facets": ["status"]},
    "glossary_links": {},
    "keywords": {"label_column": "term", "facets": ["lang", "source"]},
    "keyword_dictionary": {"label_column": "term", "facets": ["lang", "status", "en_term"]},
    "cards": {"label_column": "name", "sort": "name"},
    "card_names": {"label_column": "name", "facets": ["lang", "source"]},
    "card_name_records": {},
    "printings": {"label_column": "printed_name", "facets": ["lang", "set_code"]},
    "sets": {"label_column": "name", "sort_desc": "released_at"},
    "ruling_records": {"facets": ["declared_lang", "detected_lang", "source"]},
    "rulings": {"label_column": "text", "sort_desc": "published_at", "facets": ["source", "published_at", "removed_upstream"]},
    "ruling_sightings": {},
    "ruling_translations": {"facets": ["lang", "method", "status"]},
    "quality_issues": {"facets": ["kind"]},
    "refresh_runs": {"sort_desc": "started_at", "facets": ["status"]},
    "cr_changes": {"facets": ["new_version_id", "kind", "entry_kind"], "sort": "position"},
    "ruling_rules": {"facets": ["method", "status", "version_id"]},
    # A link's target shown by its rule's number (in its version_id) where the links name it.
    "ruling_rule_targets": {"label_column": "rule_number", "facets": ["method", "status", "version_id"]},
}


# The full-text queries rank the first matches the index gives, this many, never every match:
# a common word matches a million rulings, and bm25 over all of them took seconds (the site's
# own search reads bounded windows the same way: kb.site.search_fulltext).
CANNED_SEARCH_WINDOW = 200



def _fts_words(parameter: str) -> str:
    """The parameter as an FTS5 expression of its words, each quoted by escape_fts. While the box
    is still empty it matches ``kbnothingyet`` (a token no text holds), so the form opens with an
    empty result instead of an FTS5 syntax error; double quotes are dropped first: a lone '"' left
    escape_fts nothing to quote (a 400 with SQLite's "fts5: syntax error")."""
    return f"""escape_fts(coalesce(nullif(trim(replace(:{parameter}, '"', ' ')), ''), 'kbnothingyet'))"""


FTS_Q, FTS_NAME = _fts_words("q"), _fts_words("name")

CANNED_QUERIES: dict[str, dict[str, Any]] = {
    "rule_by_number": {
        "title": "Look up a rule by number",
        "description": "A rule with its subrules and examples, in the newest English version unless a version is given.",
        "sql": """select rules.version_id, rules.number, rules.kind, rules.title, rules.text,
  (select group_concat(text, '\n\n') from rule_examples where rule_examples.rule_id = rules.id) as examples
from rules
where rules.version_id = coalesce(nullif(:version, ''),
    (select id from cr_versions where lang = 'en' order by effective_date desc limit 1))
  and (rules.number = :number or rules.parent_number = :number)
order by rules.position""",
    },
    "search_rules": {
        "title": "Search the rules",
        "description": f"Full-text search over rules of every version (accents ignored): the best 50 by rank"
                       f" of the first {CANNED_SEARCH_WINDOW} matches the index gives, not of every match (for a"
                       " common word, add words or use the site's search).",
        "sql": f"""select rules.version_id, rules.number, rules.title, hits.snippet
from (select rowid, rank, coalesce(nullif(snippet(rules_fts, 2, '[', ']', '…', 20), ''),
    snippet(rules_fts, 1, '[', ']', '…', 20)) as snippet from rules_fts
  where rules_fts match {FTS_Q} limit {CANNED_SEARCH_WINDOW}) as hits
join rules on rules.rowid = hits.rowid
order by hits.rank limit 50""",
    },
    "rulings_of_card": {
        "title": "Rulings of a card, by its name in any language",
        "description": "Case- and accent-insensitive; English, German, Japanese… names all work. Cards with an Oracle id only: a card only a page printed (Tödliches Komplott) is in rulings_by_any_name.",
        "sql": f"""select coalesce(cards.name, (select min(name) from card_names
    where card_names.oracle_id = cards.oracle_id and card_names.lang = 'en')) as card,
  rulings.published_at, rulings.source, rulings.text
from rulings join cards on cards.oracle_id = rulings.oracle_id
where rulings.oracle_id in (
  select oracle_id from card_names where card_names.rowid in (
    select rowid from card_names_fts where card_names_fts match {FTS_NAME})
  union select oracle_id from card_names where name = :name)
order by card, rulings.position""",
    },
    "search_rulings": {
        "title": "Search ruling text",
        "description": f"The best 50 by rank of the first {CANNED_SEARCH_WINDOW} matches the index gives, not of"
                       " every match (a common word matches a million rulings: add words, or use the site's search).",
        "sql": f"""select rulings.published_at, {ruling_card_name()} as card,
  hits.snippet, rulings.id
from (select rowid, rank, snippet(rulings_fts, 0, '[', ']', '…', 24) as snippet from rulings_fts
  where rulings_fts match {FTS_Q} limit {CANNED_SEARCH_WINDOW}) as hits
join rulings on rulings.rowid = hits.rowid
left join cards on cards.oracle_id = rulings.oracle_id
order by hits.rank limit 50""",
    },
    "rule_with_translations": {
        "title": "A rule with all its translations",
        "description": "The rule numbered so in the newest English version that has the number (or in the"
                       " version given: an English one, or a translation's, where it is the English rule its"
                       " rule of that number is linked to; none if that version has no rule of the number),"
                       " in every English version under whatever number it had there, with the translations"
                       " of each.",
        # By identity: 702.78 is Conspire today, Persist in 2019 and Wither in 2013, three rules.
        # A version without the number is no rule: every English rule ever numbered so was listed,
        # Connive and Convert for 701.50 of 2009 (an SQL user's review). A translation's rule is
        # the English rule it is linked to: read by its number in the edition it is shown beside,
        # the Korean 116.2h (foretell) was 2020-11-20's planar die rule (a review of the change).
        # Only a database built before lineages (a rule found, none) falls back to the number.
        "sql": """with wanted as (
  select english.lineage_id from rules as translated
    join rule_links on rule_links.rule_id = translated.id and rule_links.status != 'mismatch'
    join rules as english on english.id = rule_links.en_rule_id
  where translated.version_id = :version and translated.number = :number
    and (select lang from cr_versions where id = :version) != 'en'
  union all
  select * from (select rules.lineage_id from rules join cr_versions on cr_versions.id = rules.version_id
    where rules.number = :number and cr_versions.lang = 'en'
      and (nullif(:version, '') is null or rules.version_id = :version)
    order by cr_versions.effective_date desc limit 1)
  limit 1)
select en.version_id as english_version, en.number, en.title, en.text as english,
  tr.version_id as translation_version, tr.number as translated_number, tr.title as translated_title,
  tr.text as translation, rule_links.status, rule_links.confidence
from rules as en
left join rule_links on rule_links.en_rule_id = en.id
left join rules as tr on tr.id = rule_links.rule_id
where en.version_id in (select id from cr_versions where lang = 'en')
  and (en.lineage_id in (select lineage_id from wanted)
    or (en.number = :number and exists (select 1 from wanted where lineage_id is null)))
order by en.version_id desc, tr.version_id""",
    },
    "stale_translations": {
        "title": "Translated rules not the same as today's English rule: renumbered, stale or mismatched",
        "description": "Every translated rule whose link to English (rule_links.status) is not same:"
                       " renumbered (same text as today's English rule, under another number: the"
                       " translation is still current), stale (the English text changed since, the rule"
                       " was removed, or the versions around the translation's date differ) or mismatch"
                       " (no counterpart found, or titles and structure disagree). Only the stale and"
                       " mismatch rows need a new translation.",
        "sql": """select tr.version_id, tr.number, rule_links.status, rule_links.reasons, en.version_id as english_version
from rule_links join rules as tr on tr.id = rule_links.rule_id join rules as en on en.id = rule_links.en_rule_id
where rule_links.status != 'same' order by tr.version_id, tr.position""",
    },
    "rulings_by_any_name": {
        "title": "Rulings of a card by any-language name, including cards not yet linked",
        "description": "Like 'rulings of a card', but also finds rulings a localized page printed for a card that is not in the card data yet (e.g. Tödliches Komplott), and the card's translated rulings after its English ones (lang; source is the translation's method, published_at its English ruling's date or, where it is linked to none, its own date read, linked whether it is linked to one), those of cards only a translated page names too (e.g. 고블린 밀수꾼, 灵魂牧者).",
        "sql": f"""with found as (
  select rulings.id, {ruling_card_name()} as card, rulings.oracle_id is not null as linked,
    rulings.published_at, rulings.source, rulings.text, rulings.position
  from rulings left join cards on cards.oracle_id = rulings.oracle_id
  where rulings.oracle_id in (
      select oracle_id from card_names where card_names.rowid in (
        select rowid from card_names_fts where card_names_fts match {FTS_NAME} limit 200)
      union select oracle_id from card_names where name = :name)
    or (rulings.oracle_id is null and rulings.rowid in (
      select rowid from rulings_fts where rulings_fts match 'card_name : (' || {FTS_NAME} || ')' limit 500))
  order by card, rulings.published_at, rulings.position
  limit 500)
select card, linked, lang, published_at, source, text from (
  select card, linked, 'en' as lang, published_at, source, text, 0 as translated, position from found
  union all
  select coalesce(found.card, ruling_translations.card_name), ruling_translations.ruling_id is not null,
    ruling_translations.lang, coalesce(found.published_at, ruling_translations.published_at), ruling_translations.method,
    ruling_translations.text, 1, found.position
  from ruling_translations left join found on found.id = ruling_translations.ruling_id
  where ruling_translations.ruling_id in (select id from found) or ruling_translations.card_name = :name)
order by card, translated, lang, published_at, position
limit 1000""",
    },
    "stale_ruling_translations": {
        "title": "Ruling translations that are not (yet) linked to an English ruling",
        "description": "Not the English rulings a page announced in another language (status untranslated): each is linked to its ruling.",
        "sql": """select lang, method, status, raw_date, card_name, text, document_id
from ruling_translations where ruling_id is null or status not in ('linked', 'untranslated')
order by lang, document_id limit 1000""",
    },
    "new_rulings": {
        "title": "Newest rulings",
        "description": "By first_seen (when our sources first showed them), else by publication date. Also as a feed: /changes.atom",
        # The rulings by date and those first seen after it, each read newest first from an index
        # (idx_rulings_published_at; idx_rulings_first_seen, of the few that have first_seen),
        # then merged: a hundred and a hundred at most, never every ruling sorted.
        "sql": f"""select seen, published_at, card, source, text from (
  select * from (select rulings.published_at as seen, rulings.published_at,
      {ruling_card_name()} as card, rulings.source, rulings.text
    from rulings left join cards on cards.oracle_id = rulings.oracle_id
    where rulings.first_seen is null order by rulings.published_at desc limit 100)
  union all
  select * from (select rulings.first_seen as seen, rulings.published_at,
      {ruling_card_name()} as card, rulings.source, rulings.text
    from rulings left join cards on cards.oracle_id = rulings.oracle_id
    where rulings.first_seen is not null order by rulings.first_seen desc limit 100)
)
order by seen desc limit 100""",
    },
    "last_refresh": {
        "title": "What changed in the last refresh",
        "sql": """select started_at, finished_at, status, message, sources, changes
from refresh_runs order by started_at desc limit 1""",
    },
}


# Datasette counts a table's configured facets on every view of its page, over every row the
# page's filters leave: at a million rulings the rulings page took 0.9 s and ruling_records 1.1
# (3 ms without), and its JSON is the API's. On a served file's larger tables they are offered,
# not counted (``?_facet=`` asks for them, within the facet time limit); ~1 µs a row each, so
# 50,000 rows ~50 ms.
FACETED_ROWS_AT_MOST = 50_000
# A view with configured facets is as large as the table its rows are (Datasette counts tables only).
VIEW_ROWS_OF = {"ruling_rules": "ruling_rule_links"}
_LARGE: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


def large_tables(datasette: Any, names: Iterable[str]) -> frozenset[tuple[str, str]]:
    """(database, table) of the served immutable files' tables with more than
    FACETED_ROWS_AT_MOST rows, as their counts are known (an inspect file, or once counted; a
    count that ran out of its time is of a large table). A mutable file's counts change under
    it: its facets stay as configured."""
    found: list[tuple[str, str]] = []
    for name in names:
        database = datasette.databases.get(name)
        if database is None or database.is_mutable:
            continue
        large = _LARGE.get(database)
        if large is None:
            counts = database.cached_table_counts
            if counts is None:
                continue  # not counted yet: asked again next time
            large = frozenset(table for table, count in counts.items() if count is None or count > FACETED_ROWS_AT_MOST)
            large |= {view for view, table in VIEW_ROWS_OF.items() if table in large}
            _LARGE[database] = large
        found += [(name, table) for table in large]
    return frozenset(found)


# Datasette's own index page gives each count this long (ms); one that runs out is recorded as
# no count, and ``large_tables`` takes it for a large table.
COUNT_MS = 10


async def count_tables(served: Any) -> None:
    """An immutable file served without an inspect file (``datasette -i kb.db``): its tables
    counted now, as Datasette's own index page would, so that ``large_tables`` knows which
    tables keep their facets from the first request."""
    if not served.is_mutable and served.cached_table_counts is None:
        await served.table_counts(limit=COUNT_MS)


def without_facets(metadata: dict[str, Any], tables: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """``metadata`` (built for this call, changed in place) with no configured facets on ``tables``."""
    for database, table in tables:
        settings = metadata["databases"].get(database, {}).get("tables", {}).get(table)
        if settings is not None:
            settings.pop("facets", None)
    return metadata


# The views (kb.store.schema.VIEWS, kb.store.derive_history.CITATIONS_TO_CHECK_VIEW).
VIEW_DESCRIPTIONS = {
    "ruling_rules": TABLE_DESCRIPTIONS["ruling_rules"],
    "current_rules": "The rules of the newest English CR version.",
    "all_card_names": "Every card name held: card_names, and the names documents printed that no card is identified by yet (oracle_id empty).",
    "ruling_records_as_printed": "Every ruling record as its document printed it, its text read from the ruling where the record keeps none of its own.",
    "rulings_with_cards": "Rulings with their card's English name (the card_name printed where no card data names the card).",
    "citations_to_check": "Rulings citing a rule by number (method cited) whose rule was renumbered, removed or reworded since, or is unknown, or whose number on the ruling's date is in doubt (number_uncertain)"
    " (status: renumbered, removed, changed, unknown), beside the rule cited and the rule today.",
}

# Each view's columns: the table column it shows ("table.column", described as there), or its own
# description.
CARD_SHOWN = "The card's English name: its card data's, else what its own rulings call it until card data is imported, else the name printed beside a ruling of a card not identified yet"
VIEW_COLUMNS: dict[str, dict[str, str]] = {
    "ruling_rules": {column: f"ruling_rules.{column}" for column in RULING_RULES_COLUMNS},
    "current_rules": {column: f"rules.{column}" for column in (
        "id", "version_id", "number", "kind", "title", "text", "parent_number", "section", "position",
        "number_confidence", "english_title", "lineage_id")},
    "all_card_names": {
        "oracle_id": "The card (empty: a name a document printed whose card is not identified yet)",
        "lang": "card_names.lang", "name": "card_names.name", "name_key": "card_names.name_key", "source": "card_names.source",
    },
    "ruling_records_as_printed": {
        **{column: f"ruling_records.{column}" for column in (
            "id", "document_id", "position", "oracle_id", "resolved_oracle_id", "card_name", "raw_date", "published_at",
            "source", "declared_lang", "detected_lang", "method", "ruling_id")},
        "text": "The text as the document printed it (read from its ruling where the record keeps none of its own)",
    },
    "rulings_with_cards": {
        **{column: f"rulings.{column}" for column in ("id", "oracle_id", "published_at", "source", "text", "position")},
        "card": CARD_SHOWN,
    },
    "citations_to_check": {
        "ruling_id": "ruling_rules.ruling_id", "published_at": "rulings.published_at", "card_name": "rulings.card_name",
        "card": CARD_SHOWN, "ruling_text": "The ruling's text",
        "cited_number": "ruling_rules.rule_number", "cited_version": "ruling_rules.version_id",
        "status": "ruling_rules.status", "paired_by_number": "ruling_rules.paired_by_number",
        "number_uncertain": "ruling_rules.number_uncertain", "current_number": "ruling_rules.current_number",
        "merged_into": "Where a removed rule's text went: the rule it was merged into, and the version ('903.11 of"
                       " en-2015-07-17'; rule_lineage_links)",
        "merged_into_current": "The number today of the rule a removed rule was merged into (903.9b for 903.12 of 2015), null if it is gone too",
        "cited_title": "The cited rule's title in the version cited", "cited_text": "The cited rule's text in the version cited",
        "current_title": "The same rule's title today", "current_text": "The same rule's text today",
    },
}


def view_column_description(said: str) -> str:
    table, dot, column = said.partition(".")
    described = table in TABLES or table in COLUMN_DESCRIPTIONS
    return column_description(table, column) if dot and described and " " not in said else said


def build_metadata(database: str = "kb") -> dict[str, Any]:
    tables = {
        name: {
            "description": TABLE_DESCRIPTIONS[name],
            **TABLE_PRESENTATION.get(name, {}),
            "columns": {column: column_description(name, column) for column in spec["columns"]},
        }
        for name, spec in TABLES.items()
    }
    # The rules' table search reads every edition's index, not the one of today's editions alone
    # (``kb.store.schema.CURRENT_RULES_INDEX``, also made on ``rules``): Datasette takes the first
    # it finds.
    tables["rules"]["fts_table"] = "rules_fts"
    for view, description in VIEW_DESCRIPTIONS.items():
        tables[view] = {
            "description": description,
            **TABLE_PRESENTATION.get(view, {}),
            "columns": {column: view_column_description(said) for column, said in VIEW_COLUMNS[view].items()},
        }
    # Made by the search indexes (kb.store.search_terms), read by the search: not browsed.
    tables[TERMS_TABLE] = {
        "description": TABLE_DESCRIPTIONS[TERMS_TABLE],
        "hidden": True,
        "columns": {column: column_description(TERMS_TABLE, column) for column in ("index_name", "term")},
    }
    # Made by a whole build, read by the next one (kb.store.carry_cr): not browsed.
    tables[READ_ORDER_TABLE] = {
        "description": TABLE_DESCRIPTIONS[READ_ORDER_TABLE],
        "hidden": True,
        "columns": {column: column_description(READ_ORDER_TABLE, column) for column in ("position", "document_id")},
    }
    # sqlite-utils' record of the migrations applied (kb.store.migrations): shown, described.
    tables["_sqlite_migrations"] = {
        "description": "The schema migrations applied to this file (kb/store/migrations.py), as sqlite-utils records them;"
                       " a build or import reads it to bring an older file to today's shape.",
        "columns": {
            "id": "Order applied",
            "migration_set": "The set of migrations (mtg-rules-kb)",
            "name": "The migration (m001_initial, …)",
            "applied_at": "When the build or import applied it: UTC as sqlite-utils writes it"
                          " (2026-01-16 12:20:14.334713+00:00, not the 2026-01-16T12:20:14Z of documents.fetched_at)",
        },
    }
    return {
        "title": "MTG Rules KB",
        "description": (
            "The Magic: The Gathering Comprehensive Rules in every version and language we hold, "
            "and every card ruling, each linked to its English original."
        ),
        "license": "Wizards of the Coast Fan Content Policy",
        "license_url": "https://company.wizards.com/en/legal/fancontentpolicy",
        "source": "Wizards of the Coast, Scryfall, MTGJSON, Gatherer, community translators",
        "source_url": "https://magic.wizards.com/en/rules",
        "about": "mtg-rules-kb",
        "about_url": "https://github.com/mtg-rules-kb/mtg-rules-kb",
        "databases": {
            database: {
                "description": LICENCE_NOTE,
                "tables": tables,
                "queries": {**CANNED_QUERIES, **HISTORY_QUERIES},
            }
        },
        "plugins": {
            "datasette-block-robots": {
                # Search pages and arbitrary SQL are expensive; card and rule pages are cheap.
                "disallow": [f"/{database}", "/-/search", "/search", "/changes.atom"],
            },
        },
    }


def copied_where_merged(shared: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``shared`` with a fresh dict at every level where Datasette's merge of ``own`` descends
    (a key whose value is a dict on both sides); everything else shared, never written."""
    copied = dict(shared)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(copied.get(key), dict):
            copied[key] = copied_where_merged(copied[key], value)
    return copied


@lru_cache(maxsize=8)
def merged_metadata(
    database_names: tuple[str, ...], large: frozenset[tuple[str, str]] = frozenset()
) -> dict[str, Any]:
    """The metadata of these databases; ``large``: tables whose configured facets are left out
    (``kb.site.metadata.large_tables``)."""
    metadata: dict[str, Any] = build_metadata(database_names[0] if database_names else "kb")
    for name in database_names[1:]:
        metadata["databases"].update(build_metadata(name)["databases"])
    return without_facets(metadata, large)


# The table settings Datasette 0.65.5 reads through ``metadata("tables", database)``: who may
# see a table (``_table_permission_allows``) and its facet size (``Facet.get_facet_size``). The
# rest (descriptions, columns, facets, sort, label column) it reads per table, with no key.
ASKED_AS_TABLES = ("allow", "facet_size")


@lru_cache(maxsize=8)
def table_settings(database_names: tuple[str, ...]) -> dict[str, Any]:
    """The metadata as asked for with the key "tables": the tables that have any of
    ASKED_AS_TABLES, with those settings only."""
    databases: dict[str, Any] = {}
    for name, database in merged_metadata(database_names)["databases"].items():
        tables = {
            table: {key: settings[key] for key in ASKED_AS_TABLES if key in settings}
            for table, settings in database.get("tables", {}).items()
        }
        databases[name] = {"tables": {table: settings for table, settings in tables.items() if settings}}
    return {"databases": databases}
