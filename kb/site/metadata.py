"""Datasette metadata: what every table and column means, canned queries, licence notes."""
from __future__ import annotations

from typing import Any

from kb.store.derive_history import HISTORY_QUERIES

LICENCE_NOTE = (
    "Magic: The Gathering rules text, card names and rulings are © Wizards of the Coast LLC, "
    "used under the Wizards of the Coast Fan Content Policy. This site is unofficial Fan Content "
    "permitted under the Fan Content Policy; it is not approved or endorsed by Wizards. Card "
    "data via Scryfall and MTGJSON; community translations belong to their translators."
)

TABLE_DOCS: dict[str, dict[str, Any]] = {
    "sources": {
        "description": "Where data comes from: official Wizards documents, aggregators, community translations, page captures.",
        "label_column": "name",
        "columns": {
            "id": "Short name of the source (wizards, scryfall, gatherer, mtgjson, cr-zh, cr-ko, …)",
            "name": "Human-readable name",
            "kind": "official, aggregator, community translation, machine translation or page capture",
            "url": "Home of the source",
            "licence": "Terms the data is used under",
        },
    },
    "documents": {
        "description": "Every raw input a row came from, with its checksum and where it was fetched.",
        "label_column": "path",
        "sort_desc": "fetched_at",
        "facets": ["source_id", "format", "lang", "status"],
        "columns": {
            "id": "Stable id (hash of checksum and URL)",
            "source_id": "The source it came from",
            "url": "Where it was fetched from (empty for files imported by hand)",
            "path": "File it was read from",
            "lang": "Language of the document",
            "fetched_at": "When it was fetched (UTC, ISO 8601)",
            "sha256": "SHA-256 of the raw bytes",
            "size": "Size in bytes",
            "format": "Input format it was read as (see `mtgkb import --list-formats`)",
            "status": "parsed or failed",
            "error": "Why it could not be read, when it failed",
        },
    },
    "cr_versions": {
        "description": "One Comprehensive Rules document in one language. A translation points at the English version it translates.",
        "label_column": "id",
        "sort_desc": "effective_date",
        "facets": ["lang", "method", "translation_match"],
        "columns": {
            "id": "Language and effective date, e.g. en-2026-01-16 (undated per-rule pages: <lang>-pages-<source>)",
            "lang": "Language code (en, zhs, ko, es, …)",
            "effective_date": "The date the document says it takes effect (not the file name's date)",
            "raw_date": "The date line as printed",
            "title": "Title line",
            "translates_version_id": "For a translation: the English version it translates",
            "translation_match": "How that English version was chosen: effective-date, structure or nearest",
            "translation_note": "Caveats about that choice",
            "method": "official, community or machine",
            "document_id": "The raw document it was read from",
            "encoding": "How the raw bytes were decoded",
            "intro": "Introduction text",
            "credits": "Credits text",
            "rule_count": "Numbered rules and subrules in this version",
            "glossary_count": "Glossary entries in this version",
            "set_name": "The set the edition was released with, where a source names it",
            "status": "complete, or what is missing (an edition cut off in its glossary, kept with --keep-going)",
            "extra": "Parser facts as JSON (e.g. the rule numbers a per-rule page lists)",
        },
    },
    "rules": {
        "description": "Every numbered part, section, rule and subrule of every version. Count rules with kind in ('rule', 'subrule').",
        "label_column": "number",
        "sort": "position",
        "facets": ["version_id", "kind"],
        "columns": {
            "id": "Stable id (hash of version and number)",
            "version_id": "The CR version",
            "number": "Rule number without trailing period: 7, 702, 702.78, 702.78a",
            "kind": "part, section, rule or subrule",
            "title": "Title of a part, section or keyword rule (702.78 Conspire)",
            "text": "Rule text, without its examples",
            "parent_number": "Number of the enclosing part, section or rule",
            "section": "Section number (702)",
            "position": "Order in the document",
            "number_confidence": "1 when the number was printed; lower when recovered from position",
            "english_title": "For bilingual translations, the English keyword the translator printed",
        },
    },
    "rule_examples": {
        "description": "The 'Example:' paragraphs of rules.",
        "columns": {"rule_id": "The rule", "position": "Order under the rule", "text": "Example text"},
    },
    "glossary": {
        "description": "Glossary entries of every version.",
        "label_column": "term",
        "sort": "position",
        "facets": ["version_id"],
        "columns": {"version_id": "The CR version", "term": "Glossary term", "text": "Definition", "position": "Order in the glossary"},
    },
    "rule_refs": {
        "description": "Cross-references in rule text ('See rule 601.2b'; ranges like 601.2f–h expanded).",
        "columns": {
            "rule_id": "The citing rule",
            "target_number": "The rule number cited",
            "target_rule_id": "The cited rule in the same version, when it exists",
        },
    },
    "glossary_refs": {
        "description": "Rule numbers cited by glossary entries.",
        "columns": {"glossary_id": "The glossary entry", "target_number": "The rule number cited", "target_rule_id": "The cited rule in the same version"},
    },
    "rule_links": {
        "description": "Each translated rule linked to its English original, checked by structure.",
        "facets": ["status"],
        "columns": {
            "rule_id": "The translated rule",
            "en_rule_id": "The English rule it translates",
            "status": "linked, mismatch (structure disagrees) or stale (English text changed in a later version)",
            "confidence": "0–1",
            "reasons": "Why the link is less than certain",
        },
    },
    "glossary_links": {
        "description": "Translated glossary entries linked to English ones.",
        "columns": {"glossary_id": "Translated entry", "en_glossary_id": "English entry", "confidence": "0–1"},
    },
    "keywords": {
        "description": "Keywords and keyword actions across languages (协力 ↔ Conspire), from aligned 701/702 titles and the glossary.",
        "label_column": "term",
        "facets": ["lang", "source"],
        "columns": {
            "lang": "Language of the term",
            "term": "The term in that language",
            "en_term": "The English term",
            "rule_number": "The rule that defines it",
            "version_id": "The translated version it was read from",
            "source": "How it was found",
        },
    },
    "cards": {
        "description": "One card per Oracle identity, named in English.",
        "label_column": "name",
        "sort": "name",
        "columns": {
            "oracle_id": "Scryfall's Oracle id: shared by every printing and language",
            "name": "English Oracle name",
            "faces": "Face names of multi-faced cards (JSON)",
            "layout": "Scryfall layout",
            "type_line": "Oracle type line",
            "mana_cost": "Mana cost in braces",
            "oracle_text": "Oracle text",
        },
    },
    "card_names": {
        "description": "Each card's name in every language, English included.",
        "label_column": "name",
        "facets": ["lang", "source"],
        "columns": {"oracle_id": "The card", "lang": "Language code", "name": "Name in that language", "source": "Where the name was seen"},
    },
    "card_name_records": {
        "description": "Card names as each document printed them, before the card is identified.",
        "columns": {"document_id": "The document", "oracle_id": "Oracle id when the document gives it", "english_name": "English name when given", "lang": "Language", "name": "Name as printed"},
    },
    "printings": {
        "description": "Printings of cards in every language, with printed (localized) name, type and text.",
        "label_column": "printed_name",
        "facets": ["lang", "set_code"],
        "columns": {
            "id": "Scryfall card id (or multiverse:<id> for Gatherer)",
            "oracle_id": "The card",
            "lang": "Language of the printing",
            "name": "English name",
            "printed_name": "Name as printed",
            "printed_type_line": "Type line as printed",
            "printed_text": "Text as printed, symbols in braces",
            "set_code": "Set code",
            "collector_number": "Collector number",
            "multiverse_id": "Gatherer multiverse id",
            "document_id": "The document it was read from",
        },
    },
    "ruling_records": {
        "description": "Every ruling exactly as each document printed it; rulings, sightings and translations are derived from these.",
        "facets": ["declared_lang", "detected_lang", "source"],
        "columns": {
            "document_id": "The document",
            "position": "Order in the document",
            "oracle_id": "Card, when the document identifies it",
            "card_name": "Card name as printed",
            "card_name_lang": "Language of that name",
            "raw_date": "Date as printed",
            "published_at": "Date, ISO 8601",
            "source": "wotc or scryfall when the document says",
            "text": "Text as printed, with spacing normalised (Unicode NFC, runs of spaces collapsed)",
            "declared_lang": "Language the page claims",
            "detected_lang": "Language the text is actually in",
            "method": "official, community or machine, as the page claims",
        },
    },
    "rulings": {
        "description": "One English card ruling, stored once however many sources printed it.",
        "label_column": "text",
        "sort_desc": "published_at",
        "facets": ["source", "published_at", "removed_upstream"],
        "columns": {
            "id": "Stable id: hash of card, date and normalised text (the same in every build and from every source)",
            "oracle_id": "The card (empty while the card is not yet known)",
            "card_name": "For rulings whose card is not yet known: the name the page gave",
            "card_name_lang": "Language of that name",
            "source": "wotc (Wizards) or scryfall (Scryfall's own notes)",
            "source_inferred": "1 when no source said who wrote it (Gatherer, MTGJSON) and wotc was assumed",
            "published_at": "Date, ISO 8601",
            "text": "The best-quality text seen (symbols in braces)",
            "position": "Order among the card's rulings",
            "first_seen": "When a source first showed it",
            "last_seen": "When a source last showed it",
            "removed_upstream": "1 when the sources that had it no longer do (kept, never deleted)",
        },
    },
    "ruling_sightings": {
        "description": "Every place a ruling was seen, with the date and text as printed there.",
        "columns": {
            "ruling_id": "The ruling",
            "document_id": "Where it was seen",
            "position": "Its position in that document",
            "raw_date": "Date as printed there",
            "source_as_seen": "Source as printed there",
            "text_as_seen": "Text as printed there, where it differs from the ruling's text (empty: the same)",
        },
    },
    "ruling_translations": {
        "description": "Rulings in other languages, each linked to the English ruling it translates.",
        "facets": ["lang", "method", "status"],
        "columns": {
            "ruling_id": "The English ruling (empty while unlinked)",
            "lang": "Language of the text",
            "text": "Translated text",
            "method": "official, community or machine",
            "status": "linked or unlinked",
            "confidence": "0–1",
            "match_method": "How it was matched to English",
            "document_id": "The document",
            "raw_date": "Date as printed",
            "card_name": "Card name as printed",
        },
    },
    "quality_issues": {
        "description": "Problems found in the data: lost symbols, unparseable dates, unknown cards, unlinked translations, …",
        "facets": ["kind"],
        "columns": {"kind": "Kind of problem", "detail": "What exactly", "document_id": "Document where it was found", "ruling_id": "Ruling concerned", "rule_id": "Rule concerned"},
    },
    "refresh_runs": {
        "description": "One row per refresh job: when, how it ended, and what changed.",
        "sort_desc": "started_at",
        "facets": ["status"],
        "columns": {"started_at": "Start (UTC)", "finished_at": "End (UTC)", "status": "success, partial, nothing-changed or failed", "exit_code": "Exit status", "sources": "Per-source counts (JSON)", "changes": "What changed (JSON)", "message": "One-line summary"},
    },
}

# Columns every table has in the same sense, and the derived keys of the linking step.
COMMON_COLUMNS: dict[str, str] = {
    "id": "Stable id (a hash of what identifies the row: the same in every build)",
}
EXTRA_COLUMN_DOCS: dict[str, dict[str, str]] = {
    "card_names": {"name_key": "The name folded for lookup: case, accents and spacing ignored"},
    "card_name_records": {
        "name_key": "The printed name folded for lookup",
        "english_key": "The English name folded for lookup",
    },
    "ruling_records": {
        "name_key": "The card name folded for lookup",
        "text_key": "The text with typography erased: copies of one ruling share it (empty: the text with plain quotes and dashes and no final period)",
        "dropped": "Evidence (JSON) that symbols vanished from this copy, when they did",
        "resolved_oracle_id": "The card this record was linked to (its Oracle id, or the one card its printed name names)",
        "card_key": "What groups the record with its card's other rulings: the Oracle id, or the printed name while the card is unknown",
    },
    "rulings": {"identity": "A digest of the text with typography erased: copies of one ruling share it"},
}
TABLE_DOCS.update(
    {
        "cr_changes": {
            "description": "What changed between consecutive English CR versions: added, removed, changed, moved (renumbered) rules, and glossary changes.",
            "facets": ["new_version_id", "kind", "entry_kind"],
            "sort": "position",
            "columns": {
                "old_version_id": "The earlier version",
                "new_version_id": "The later version",
                "kind": "added, removed, changed, moved, moved-changed, glossary-added, glossary-removed, glossary-changed",
                "entry_kind": "rule or glossary",
                "old_number": "Number (or glossary term) in the earlier version",
                "new_number": "Number (or glossary term) in the later version",
                "old_rule_id": "The rule in the earlier version",
                "new_rule_id": "The rule in the later version",
                "similarity": "Text similarity of old and new (0–1), the evidence for a move",
                "aspects": "What changed: title, text, examples, numbers-only",
                "word_diff": "Word-level difference, [-removed-]{+added+}",
                "old_text": "Earlier text",
                "new_text": "Later text",
                "position": "Order of the change in the later version",
            },
        },
        "ruling_rules": {
            "description": "The CR rules each English ruling relies on: numbers it cites and keywords it names, in the version in force on its date.",
            "facets": ["method", "status", "version_id"],
            "columns": {
                "ruling_id": "The ruling",
                "rule_number": "The rule, numbered as in the version in force on the ruling's date",
                "version_id": "That version",
                "rule_id": "The rule in that version",
                "method": "cited (a rule number in the text) or keyword (a keyword ability or action it names)",
                "confidence": "0–1",
                "matched_text": "The words that matched",
                "current_number": "The same rule's number in the newest version (empty when it was deleted)",
                "current_rule_id": "The rule in the newest version",
                "status": "same, renumbered or deleted since the ruling's date",
            },
        },
    }
)
for _table, _columns in EXTRA_COLUMN_DOCS.items():
    TABLE_DOCS[_table].setdefault("columns", {}).update(_columns)


CANNED_QUERIES: dict[str, dict[str, Any]] = {
    "rule_by_number": {
        "title": "Look up a rule by number",
        "description": "A rule with its subrules and examples, in the newest English version unless a version is given.",
        "sql": """select rules.version_id, rules.number, rules.kind, rules.title, rules.text,
  (select group_concat(text, '\n\n') from rule_examples where rule_examples.rule_id = rules.id) as examples
from rules
where rules.version_id = coalesce(nullif(:version, ''),
    (select id from cr_versions where lang = 'en' order by effective_date desc limit 1))
  and (rules.number = :number or rules.number like :number || '_' or rules.parent_number = :number)
order by rules.position""",
    },
    "search_rules": {
        "title": "Search the rules",
        "description": "Full-text search over rules of every version (accents ignored).",
        "sql": """select rules.version_id, rules.number, rules.title,
  snippet(rules_fts, 2, '[', ']', '…', 20) as snippet
from rules_fts join rules on rules.rowid = rules_fts.rowid
where rules_fts match escape_fts(:q)
order by rank limit 50""",
    },
    "rulings_of_card": {
        "title": "Rulings of a card, by its name in any language",
        "description": "Case- and accent-insensitive; English, German, Japanese… names all work.",
        "sql": """select cards.name as card, rulings.published_at, rulings.source, rulings.text
from rulings join cards on cards.oracle_id = rulings.oracle_id
where rulings.oracle_id in (
  select oracle_id from card_names where card_names.rowid in (
    select rowid from card_names_fts where card_names_fts match escape_fts(:name))
  union select oracle_id from card_names where name = :name)
order by cards.name, rulings.position""",
    },
    "search_rulings": {
        "title": "Search ruling text",
        "sql": """select rulings.published_at, coalesce(cards.name, rulings.card_name) as card,
  snippet(rulings_fts, 0, '[', ']', '…', 24) as snippet, rulings.id
from rulings_fts join rulings on rulings.rowid = rulings_fts.rowid
left join cards on cards.oracle_id = rulings.oracle_id
where rulings_fts match escape_fts(:q)
order by rank limit 50""",
    },
    "rule_with_translations": {
        "title": "A rule with all its translations",
        "sql": """select en.version_id as english_version, en.number, en.title, en.text as english,
  tr.version_id as translation_version, tr.title as translated_title, tr.text as translation,
  rule_links.status, rule_links.confidence
from rules as en
left join rule_links on rule_links.en_rule_id = en.id
left join rules as tr on tr.id = rule_links.rule_id
where en.number = :number and en.version_id in (select id from cr_versions where lang = 'en')
order by en.version_id desc, tr.version_id""",
    },
    "stale_translations": {
        "title": "Translations that are stale or do not match their English original",
        "sql": """select tr.version_id, tr.number, rule_links.status, rule_links.reasons, en.version_id as english_version
from rule_links join rules as tr on tr.id = rule_links.rule_id join rules as en on en.id = rule_links.en_rule_id
where rule_links.status != 'linked' order by tr.version_id, tr.position""",
    },
    "rulings_by_any_name": {
        "title": "Rulings of a card by any-language name, including cards not yet linked",
        "description": "Like 'rulings of a card', but also finds rulings a localized page printed for a card that is not in the card data yet (e.g. Tödliches Komplott).",
        "sql": """select coalesce(cards.name, rulings.card_name) as card, rulings.oracle_id is not null as linked,
  rulings.published_at, rulings.source, rulings.text
from rulings left join cards on cards.oracle_id = rulings.oracle_id
where rulings.oracle_id in (
    select oracle_id from card_names where card_names.rowid in (
      select rowid from card_names_fts where card_names_fts match escape_fts(:name) limit 200)
    union select oracle_id from card_names where name = :name)
  or (rulings.oracle_id is null and rulings.rowid in (
    select rowid from rulings_fts where rulings_fts match 'card_name : (' || escape_fts(:name) || ')' limit 500))
order by card, rulings.published_at, rulings.position
limit 500""",
    },
    "stale_ruling_translations": {
        "title": "Ruling translations that are not (yet) linked to an English ruling",
        "sql": """select lang, method, status, raw_date, card_name, text, document_id
from ruling_translations where status != 'linked' or ruling_id is null
order by lang, document_id limit 1000""",
    },
    "new_rulings": {
        "title": "Newest rulings",
        "description": "By first_seen (when our sources first showed them), else by publication date. Also as a feed: /changes.atom",
        "sql": """select coalesce(rulings.first_seen, rulings.published_at) as seen, rulings.published_at,
  coalesce(cards.name, rulings.card_name) as card, rulings.source, rulings.text
from rulings left join cards on cards.oracle_id = rulings.oracle_id
order by seen desc limit 100""",
    },
    "last_refresh": {
        "title": "What changed in the last refresh",
        "sql": """select started_at, finished_at, status, message, sources, changes
from refresh_runs order by started_at desc limit 1""",
    },
}


def build_metadata(database: str = "kb") -> dict[str, Any]:
    from kb.store.schema import TABLES

    tables = {}
    for name, doc in TABLE_DOCS.items():
        table = {key: value for key, value in doc.items()}
        columns = dict(table.get("columns", {}))
        for column, description in COMMON_COLUMNS.items():
            if column in TABLES.get(name, {}).get("columns", {}):
                columns.setdefault(column, description)
        table["columns"] = columns
        tables[name] = table
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
