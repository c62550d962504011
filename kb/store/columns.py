"""What every table and column of the schema means, declared beside it (``schema.TABLES``).

Datasette's metadata (``kb.site.metadata``) and the docs tests read these; a column the schema adds
without a description fails ``tests/test_docs.py``. A column that holds one of a fixed list of
values names the list in ``VALUES``, with each value's meaning; the lists are the constants the code
writes with (quality issue kinds, refresh statuses), and a test checks every value in a built
database is listed, so the descriptions cannot disagree with the data.
"""

from __future__ import annotations

from kb.records import QUALITY_ISSUE_KINDS

# Columns every table has in the same sense.
COMMON_COLUMNS: dict[str, str] = {"id": "Stable id (a hash of what identifies the row: the same in every build)"}

TABLE_DESCRIPTIONS: dict[str, str] = {
    "sources": "Where data comes from: official Wizards documents, aggregators, community translations, page captures.",
    "documents": "Every raw input a row came from, with its checksum and where it was fetched.",
    "cr_versions": "One Comprehensive Rules document in one language. A translation points at the English version it translates.",
    "rules": "Every numbered part, section, rule and subrule of every version. Count rules with kind in ('rule', 'subrule').",
    "rule_examples": "The 'Example:' paragraphs of rules.",
    "glossary": "Glossary entries of every version.",
    "rule_refs": "Cross-references in rule text ('See rule 601.2b'; ranges like 601.2f–h expanded).",
    "glossary_refs": "Rule numbers cited by glossary entries.",
    "rule_links": "Each translated rule linked to its English original, checked by structure.",
    "glossary_links": "Translated glossary entries linked to English ones.",
    "keywords": "Keywords and keyword actions across languages (协力 ↔ Conspire), from aligned 701/702 titles and the glossary.",
    "cards": "One card per Oracle identity, named in English.",
    "card_names": "Each card's name in every language, English included.",
    "card_name_records": "Card names as each document printed them, before the card is identified.",
    "printings": "Printings of cards in every language, with printed (localized) name, type and text.",
    "ruling_records": "Every ruling exactly as each document printed it; rulings, sightings and translations are derived from these.",
    "rulings": "One English card ruling, stored once however many sources printed it.",
    "ruling_sightings": "Every place a ruling was seen, with the date and text as printed there.",
    "ruling_translations": "Rulings in other languages, each linked to the English ruling it translates.",
    "quality_issues": "Problems found in the data: lost symbols, unparseable dates, unknown cards, unlinked translations, …",
    "refresh_runs": "One row per refresh job: when, how it ended, and what changed.",
    "cr_changes": "What changed between consecutive English CR versions: added, removed, changed, moved (renumbered) rules, and glossary changes.",
    "ruling_rules": "The CR rules each English ruling relies on: numbers it cites and keywords it names, in the version in force on its date.",
}

COLUMN_DESCRIPTIONS: dict[str, dict[str, str]] = {
    "sources": {
        "id": "Short name of the source (wizards, scryfall, gatherer, mtgjson, cr-zh, cr-ko, …)",
        "name": "Human-readable name",
        "kind": "official, aggregator, community translation, machine translation or page capture",
        "url": "Home of the source",
        "licence": "Terms the data is used under",
    },
    "documents": {
        "id": "Stable id (hash of checksum and URL)",
        "source_id": "The source it came from",
        "url": "Where it was fetched from (empty for files imported by hand)",
        "path": "File it was read from",
        "lang": "Language of the document",
        "fetched_at": "When it was fetched (UTC, ISO 8601)",
        "sha256": "SHA-256 of the raw bytes",
        "size": "Size in bytes",
        "format": "Input format it was read as (see `mtgkb import --list-formats`)",
        "status": "Whether the document could be read",
        "error": "Why it could not be read, when it failed",
    },
    "cr_versions": {
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
        "set_name": "The set the edition was released with, where a source names it (Venser's Journal's archive names 21 editions; others are empty, never guessed)",
        "status": "complete, or what is missing (an edition cut off in its glossary, kept with --keep-going)",
        "extra": "Parser facts as JSON (e.g. the rule numbers a per-rule page lists)",
    },
    "rules": {
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
    "rule_examples": {"rule_id": "The rule", "position": "Order under the rule", "text": "Example text"},
    "glossary": {
        "version_id": "The CR version",
        "term": "Glossary term",
        "text": "Definition",
        "position": "Order in the glossary",
    },
    "rule_refs": {
        "rule_id": "The citing rule",
        "target_number": "The rule number cited",
        "target_rule_id": "The cited rule in the same version, when it exists",
    },
    "glossary_refs": {
        "glossary_id": "The glossary entry",
        "target_number": "The rule number cited",
        "target_rule_id": "The cited rule in the same version",
    },
    "rule_links": {
        "rule_id": "The translated rule",
        "en_rule_id": "The English rule it translates",
        "status": "linked, mismatch (structure disagrees) or stale (English text changed in a later version)",
        "confidence": "0–1",
        "reasons": "Why the link is less than certain",
    },
    "glossary_links": {"glossary_id": "Translated entry", "en_glossary_id": "English entry", "confidence": "0–1"},
    "keywords": {
        "lang": "Language of the term",
        "term": "The term in that language",
        "en_term": "The English term",
        "rule_number": "The rule that defines it",
        "version_id": "The translated version it was read from",
        "source": "How it was found",
    },
    "cards": {
        "oracle_id": "Scryfall's Oracle id: shared by every printing and language",
        "name": "English Oracle name",
        "faces": "Face names of multi-faced cards (JSON)",
        "layout": "Scryfall layout",
        "type_line": "Oracle type line",
        "mana_cost": "Mana cost in braces",
        "oracle_text": "Oracle text",
    },
    "card_names": {
        "oracle_id": "The card",
        "lang": "Language code",
        "name": "Name in that language",
        "source": "Where the name was seen",
        "name_key": "The name folded for lookup: case, accents and spacing ignored",
    },
    "card_name_records": {
        "document_id": "The document",
        "oracle_id": "Oracle id when the document gives it",
        "english_name": "English name when given",
        "lang": "Language",
        "name": "Name as printed",
        "name_key": "The printed name folded for lookup",
        "english_key": "The English name folded for lookup",
    },
    "printings": {
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
    "ruling_records": {
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
        "name_key": "The card name folded for lookup",
        "text_key": "The text with typography erased: copies of one ruling share it",
        "dropped": "Evidence (JSON) that symbols vanished from this copy, when they did",
        "resolved_oracle_id": "The card this record was linked to (its Oracle id, or the one card its printed name names)",
        "card_key": "What groups the record with its card's other rulings: the Oracle id, or the printed name while the card is unknown",
    },
    "rulings": {
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
        "identity": "The text with typography erased; part of the ruling's id",
    },
    "ruling_sightings": {
        "ruling_id": "The ruling",
        "document_id": "Where it was seen",
        "position": "Its position in that document",
        "raw_date": "Date as printed there",
        "source_as_seen": "Source as printed there",
        "text_as_seen": "Text as printed there",
    },
    "ruling_translations": {
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
    "quality_issues": {
        "kind": "Kind of problem",
        "detail": "What exactly",
        "document_id": "Document where it was found",
        "ruling_id": "Ruling concerned",
        "rule_id": "Rule concerned",
    },
    "refresh_runs": {
        "started_at": "Start (UTC)",
        "finished_at": "End (UTC)",
        "status": "How the run ended",
        "exit_code": "Exit status",
        "sources": "Per-source counts (JSON)",
        "changes": "What changed (JSON)",
        "message": "One-line summary",
    },
    "cr_changes": {
        "old_version_id": "The earlier version",
        "new_version_id": "The later version",
        "kind": "What happened to the entry",
        "entry_kind": "What the entry is",
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
    "ruling_rules": {
        "ruling_id": "The ruling",
        "rule_number": "The rule, numbered as in the version in force on the ruling's date",
        "version_id": "That version",
        "rule_id": "The rule in that version",
        "method": "How the link was found",
        "confidence": "0–1",
        "matched_text": "The words that matched",
        "current_number": "The same rule's number in the newest version (empty when it was deleted)",
        "current_rule_id": "The rule in the newest version",
        "status": "What became of the rule since the ruling's date",
    },
}

# Every status a refresh_runs row can have; the refresh job writes only these.
REFRESH_STATUSES: dict[str, str] = {
    "published": "a new database was built, validated and swapped in",
    "unchanged": "nothing new was fetched; the served file was left as it was",
    "partial": "published, but some sources failed; they keep their last good data (exit 2)",
    "failed": "nothing was published; the served file is byte-identical (exit 1)",
    "interrupted": "the run never finished (killed or crashed); nothing was published by it",
    "fetched": "a plain `mtgkb fetch` run: documents stored in the raw store, nothing built",
}

CR_CHANGE_KINDS: dict[str, str] = {
    "added": "a rule that is new in the later version",
    "removed": "a rule the later version no longer has",
    "changed": "the same rule under the same number, with different text",
    "moved": "the same rule under a new number, text unchanged",
    "moved-changed": "the same rule under a new number, with different text",
    "glossary-added": "a new glossary entry",
    "glossary-removed": "a glossary entry the later version no longer has",
    "glossary-changed": "a glossary entry whose definition changed",
}

VALUES: dict[tuple[str, str], dict[str, str]] = {
    ("quality_issues", "kind"): QUALITY_ISSUE_KINDS,
    ("refresh_runs", "status"): REFRESH_STATUSES,
    ("documents", "status"): {"parsed": "read completely", "failed": "could not be read (kept with --keep-going)"},
    ("cr_changes", "kind"): CR_CHANGE_KINDS,
    ("cr_changes", "entry_kind"): {
        "part": "a part of the rules (1. Game Concepts)",
        "section": "a section (100. General)",
        "rule": "a numbered rule (100.1)",
        "subrule": "a lettered subrule (100.1a)",
        "glossary": "a glossary entry",
    },
    ("ruling_rules", "method"): {
        "cited": "the ruling cites the rule's number",
        "keyword": "the ruling names a keyword ability or action the rule defines",
    },
    ("ruling_rules", "status"): {
        "same": "the rule has the same number and text today",
        "renumbered": "the rule has another number today",
        "deleted": "the rule is no longer in the Comprehensive Rules",
    },
}


def column_description(table: str, column: str) -> str:
    """The column's description, with its list of values and their meanings where it has one."""
    text = COLUMN_DESCRIPTIONS.get(table, {}).get(column) or COMMON_COLUMNS.get(column, "")
    values = VALUES.get((table, column))
    if values:
        text += ": " + "; ".join(f"{value} ({meaning})" for value, meaning in values.items())
    return text
