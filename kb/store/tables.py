"""Every table of the database, declared once: columns, primary keys, foreign keys, not-null columns.

Read by ``kb.store.schema`` (which creates and migrates them), the column descriptions in
``kb.store.columns``, the build's validation and the refresh's shrink check.
"""
from __future__ import annotations

from typing import Any

# table -> (columns, primary key, foreign keys, not-null columns; without_rowid: stored by its key)
TABLES: dict[str, dict[str, Any]] = {
    "sources": {
        "columns": {"id": str, "name": str, "kind": str, "url": str, "licence": str},
        "pk": "id",
    },
    "documents": {
        "columns": {
            "id": int,
            "source_id": str,
            "url": str,
            "path": str,
            "lang": str,
            "fetched_at": str,
            "sha256": str,
            "size": int,
            "format": str,
            "status": str,
            "error": str,
            "made_on": str,
        },
        "pk": "id",
        "foreign_keys": [("source_id", "sources", "id")],
    },
    "cr_versions": {
        "columns": {
            "id": str,
            "lang": str,
            "effective_date": str,
            "raw_date": str,
            "title": str,
            "translates_version_id": str,
            "translation_match": str,
            "translation_note": str,
            "method": str,
            "document_id": int,
            "encoding": str,
            "intro": str,
            "credits": str,
            "rule_count": int,
            "glossary_count": int,
            "extra": str,
            # The set whose release the edition came with ("Odyssey"), where an archive names it.
            "set_name": str,
            # "complete", or what is missing ("truncated in its glossary") for an edition kept
            # only with --keep-going.
            "status": str,
        },
        "pk": "id",
        "foreign_keys": [
            ("translates_version_id", "cr_versions", "id"),
            ("document_id", "documents", "id"),
        ],
    },
    "rules": {
        "columns": {
            "id": int,
            "version_id": str,
            "number": str,
            "kind": str,
            "title": str,
            "text": str,
            "parent_number": str,
            "section": str,
            "position": int,
            "number_confidence": float,
            "english_title": str,
            "lineage_id": str,
        },
        "pk": "id",
        "foreign_keys": [("version_id", "cr_versions", "id")],
    },
    "rule_examples": {
        "columns": {"id": int, "rule_id": int, "position": int, "text": str},
        "pk": "id",
        "foreign_keys": [("rule_id", "rules", "id")],
    },
    "glossary": {
        "columns": {
            "id": int,
            "version_id": str,
            "term": str,
            "text": str,
            "position": int,
            "lineage_id": str,
        },
        "pk": "id",
        "foreign_keys": [("version_id", "cr_versions", "id")],
    },
    "rule_refs": {
        "columns": {"rule_id": int, "target_number": str, "target_rule_id": int},
        "pk": ("rule_id", "target_number"),
        "foreign_keys": [("rule_id", "rules", "id"), ("target_rule_id", "rules", "id")],
    },
    "glossary_refs": {
        "columns": {"glossary_id": int, "target_number": str, "target_rule_id": int},
        "pk": ("glossary_id", "target_number"),
        "foreign_keys": [("glossary_id", "glossary", "id"), ("target_rule_id", "rules", "id")],
    },
    "rule_links": {
        "columns": {
            "rule_id": int,
            "en_rule_id": int,
            "status": str,
            "confidence": float,
            "reasons": str,
        },
        "pk": "rule_id",
        "foreign_keys": [("rule_id", "rules", "id"), ("en_rule_id", "rules", "id")],
    },
    "glossary_links": {
        "columns": {"glossary_id": int, "en_glossary_id": int, "confidence": float},
        "pk": "glossary_id",
        "foreign_keys": [
            ("glossary_id", "glossary", "id"),
            ("en_glossary_id", "glossary", "id"),
        ],
    },
    "keywords": {
        "columns": {
            "id": int,
            "lang": str,
            "term": str,
            "en_term": str,
            "rule_number": str,
            "version_id": str,
            "source": str,
        },
        "pk": "id",
        "foreign_keys": [("version_id", "cr_versions", "id")],
    },
    # Keywords in every language, mined from printed texts and translated CRs
    # (kb.store.derive_keywords): where each entry came from and how many printings agree.
    "keyword_dictionary": {
        "columns": {
            "id": int,
            "lang": str,
            "term": str,
            "term_key": str,
            "en_term": str,
            "rule_number": str,
            "sources": str,
            "printings": int,
            "dissent": int,
            "status": str,
        },
        "pk": "id",
    },
    "cards": {
        "columns": {
            "oracle_id": str,
            "name": str,
            "faces": str,
            "layout": str,
            "type_line": str,
            "mana_cost": str,
            "oracle_text": str,
            "card_faces": str,
            "power": str,
            "toughness": str,
            "loyalty": str,
            "defense": str,
            "oracle_document_id": int,
        },
        "pk": "oracle_id",
    },
    "card_names": {
        "columns": {"oracle_id": str, "lang": str, "name": str, "source": str, "name_key": str},
        "pk": ("oracle_id", "lang", "name"),
        "foreign_keys": [("oracle_id", "cards", "oracle_id")],
    },
    "printings": {
        "columns": {
            "id": str,
            "oracle_id": str,
            "lang": str,
            "name": str,
            "printed_name": str,
            "printed_type_line": str,
            "printed_text": str,
            "set_code": str,
            "collector_number": str,
            "multiverse_id": int,
            "document_id": int,
            "mana_cost": str,
            "note": str,
            "type_line": str,
            "oracle_text": str,
            "power": str,
            "toughness": str,
            "loyalty": str,
            "defense": str,
            "released_at": str,
            "set_name": str,
        },
        "pk": "id",
        "foreign_keys": [("oracle_id", "cards", "oracle_id"), ("document_id", "documents", "id")],
    },
    # The sets printings name by code, with the name and release day their sources give: one row a
    # set, not a name beside each of half a million printings.
    "sets": {
        "columns": {
            "code": str,
            "name": str,
            "released_at": str,
            "document_id": int,
        },
        "pk": "code",
        "foreign_keys": [("document_id", "documents", "id")],
    },
    # Every ruling exactly as one document printed it; ``rulings`` and the tables after it are
    # derived from these by the linking step, so a page whose card is not known yet can be
    # linked by a later import without reading the page again.
    "ruling_records": {
        "columns": {
            "id": int,
            "document_id": int,
            "position": int,
            "oracle_id": str,
            "card_name": str,
            "card_name_lang": str,
            "raw_date": str,
            "published_at": str,
            "source": str,
            "text": str,
            "declared_lang": str,
            "detected_lang": str,
            "method": str,
            # Keys the linking step works with, computed once when the record is saved.
            "name_key": str,
            "text_key": str,
            "dropped": str,
            "resolved_oracle_id": str,
            "card_key": str,
            # The ruling whose text this record printed: ``text`` is then null (stored once,
            # in ``rulings.text``), set by each derive (kb.store.derive_rulings).
            "ruling_id": int,
        },
        "pk": "id",
        "foreign_keys": [("document_id", "documents", "id")],
    },
    # Card names as a document gives them, before the card is known: resolved into
    # ``card_names`` by the linking step (by oracle id, or by English name).
    "card_name_records": {
        "columns": {
            "id": int,
            "document_id": int,
            "oracle_id": str,
            "english_name": str,
            "lang": str,
            "name": str,
            "name_key": str,
            "english_key": str,
        },
        "pk": "id",
        "foreign_keys": [("document_id", "documents", "id")],
    },
    # The names documents printed that no card name matches (derived, kb.store.derive_cards):
    # the second half of the view ``all_card_names``, kept as rows so that counting the view
    # (Datasette does at every view of its page) is not a search of every name record.
    "unresolved_card_names": {
        "columns": {"lang": str, "name": str, "name_key": str, "source": str},
        "pk": ("lang", "name"),
    },
    "rulings": {
        "columns": {
            "id": int,
            "oracle_id": str,
            "card_name": str,
            "card_name_lang": str,
            "source": str,
            "published_at": str,
            "text": str,
            "position": int,
            "first_seen": str,
            "last_seen": str,
            "source_inferred": int,
            "removed_upstream": int,
            "identity": str,
            "reworded_as": int,
            # The full-text index's key (``rulings_fts.rowid``): dense 1..n, so the index stores
            # small rowid deltas (hash ids made it 2.6× larger). Named ``rowid`` so every
            # ``rulings.rowid = rulings_fts.rowid`` join (and Datasette's table search) reads it;
            # ``id`` stays the ruling's public key. Not stable across builds.
            "rowid": int,
        },
        "pk": "id",
        "foreign_keys": [("oracle_id", "cards", "oracle_id")],
    },
    "ruling_sightings": {
        "columns": {
            "ruling_id": int,
            "document_id": int,
            "position": int,
            "raw_date": str,
            "source_as_seen": str,
            "text_as_seen": str,
        },
        "pk": ("ruling_id", "document_id", "position"),
        # Stored by its key alone: with a rowid, the key's own index copied every key (34 MB of
        # 81 at a million sightings), and each sighting was written into two trees (m021).
        "without_rowid": True,
        "foreign_keys": [("ruling_id", "rulings", "id"), ("document_id", "documents", "id")],
    },
    "ruling_translations": {
        "columns": {
            "id": int,
            "ruling_id": int,
            "lang": str,
            "text": str,
            "method": str,
            "status": str,
            "confidence": float,
            "match_method": str,
            "document_id": int,
            "raw_date": str,
            "card_name": str,
            # The printed date read (an unlinked translation has no English ruling to date it).
            "published_at": str,
        },
        "pk": "id",
        "foreign_keys": [("ruling_id", "rulings", "id"), ("document_id", "documents", "id")],
    },
    "quality_issues": {
        "columns": {
            "id": int,
            "kind": str,
            "detail": str,
            "document_id": int,
            "ruling_id": int,
            "rule_id": int,
            "record_id": int,
        },
        "pk": "id",
        "foreign_keys": [("document_id", "documents", "id")],
    },
    "refresh_runs": {
        "columns": {
            "id": int,
            "started_at": str,
            "finished_at": str,
            "status": str,
            "exit_code": int,
            "sources": str,
            "changes": str,
            "message": str,
        },
        "pk": "id",
    },
    # CR history (kb.store.derive_history): consecutive English versions' differences, and the rules each
    # English ruling relies on. For glossary kinds old_number/new_number hold the term.
    "cr_changes": {
        "columns": {
            "id": int,
            "old_version_id": str,
            "new_version_id": str,
            "kind": str,
            "entry_kind": str,
            "old_number": str,
            "new_number": str,
            "old_rule_id": int,
            "new_rule_id": int,
            "similarity": float,
            "aspects": str,
            "word_diff": str,
            "old_text": str,
            "new_text": str,
            "position": int,
            "paired_by_number": int,
        },
        "pk": "id",
        "foreign_keys": [
            ("old_version_id", "cr_versions", "id"),
            ("new_version_id", "cr_versions", "id"),
            ("old_rule_id", "rules", "id"),
            ("new_rule_id", "rules", "id"),
        ],
    },
    # What a link says that does not depend on the ruling's date: the rule as numbered in a version,
    # how it was found, and the same rule today. The id is a hash of these, so the same target
    # has the same id in every build, however its links came in (linked, or carried: kb.store.carry_links).
    "ruling_rule_targets": {
        "columns": {
            "id": int,
            "rule_number": str,
            "version_id": str,
            "rule_id": int,
            "method": str,
            "confidence": float,
            "matched_text": str,
            "current_number": str,
            "current_rule_id": int,
            "status": str,
            "lineage_id": str,
            "in_force_version_id": str,
            "paired_by_number": int,
        },
        "pk": "id",
        "foreign_keys": [
            ("version_id", "cr_versions", "id"),
            ("rule_id", "rules", "id"),
            ("current_rule_id", "rules", "id"),
        ],
    },
    # A ruling's links to rules: the ruling, its date and the rule's lineage (what rule pages
    # read, newest first) beside the link's target, which holds the rest (ruling_rule_targets).
    # Read as one through the ruling_rules view. One row of every column per link was 273 bytes
    # with its indexes, 382 MB at a million rulings (2.2× the raw database): a million rulings
    # link to a few thousand targets (m032).
    "ruling_rule_links": {
        "columns": {"ruling_id": int, "target_id": int, "lineage_id": str, "published_at": str, "number_uncertain": int},
        "pk": ("ruling_id", "target_id"),
        "without_rowid": True,
        "foreign_keys": [("ruling_id", "rulings", "id"), ("target_id", "ruling_rule_targets", "id")],
    },
}

# Tables no database has any longer, as the migrations that made and changed them declared
# them: ruling_rules, one row of every column per link until m032 split it into
# ruling_rule_links and ruling_rule_targets (the ruling_rules view reads them as it was).
LEGACY_TABLES: dict[str, dict[str, Any]] = {
    "ruling_rules": {
        "columns": {
            "ruling_id": int,
            "rule_number": str,
            "version_id": str,
            "rule_id": int,
            "method": str,
            "confidence": float,
            "matched_text": str,
            "current_number": str,
            "current_rule_id": int,
            "status": str,
            "lineage_id": str,
            "in_force_version_id": str,
            "published_at": str,
            "paired_by_number": int,
            "number_uncertain": int,
        },
        "pk": ("ruling_id", "version_id", "rule_number", "method"),
        "foreign_keys": [
            ("ruling_id", "rulings", "id"),
            ("version_id", "cr_versions", "id"),
            ("rule_id", "rules", "id"),
            ("current_rule_id", "rules", "id"),
        ],
    },
}
# The columns of the ruling_rules view, in the order the table had them.
RULING_RULES_COLUMNS = tuple(LEGACY_TABLES["ruling_rules"]["columns"])

# Rule identity across versions (kb.store.derive_lineage; m005 adds it to older databases).
TABLES["rule_lineages"] = {
    "columns": {
        "id": str, "kind": str, "first_version_id": str, "first_number": str, "last_version_id": str,
        "last_number": str, "current_number": str, "title": str, "numbers": str, "versions": int,
    },
    "pk": "id",
}
# Merges and splits beside the one-to-one lineages (kb.store.derive_lineage; m008 on older databases).
TABLES["rule_lineage_links"] = {
    "columns": {
        "id": int, "kind": str, "old_version_id": str, "new_version_id": str, "old_number": str,
        "new_number": str, "old_lineage_id": str, "new_lineage_id": str, "share": float,
    },
    "pk": "id",
    "foreign_keys": [
        ("old_version_id", "cr_versions", "id"),
        ("new_version_id", "cr_versions", "id"),
        ("old_lineage_id", "rule_lineages", "id"),
        ("new_lineage_id", "rule_lineages", "id"),
    ],
}
# Each English rule as two versions are compared (kb.store.identity_diff; m025 on older databases):
# stored by version and position, a version's rows are read together, without the texts the
# rules table holds (whose rows, keyed by hash ids, lie anywhere in it).
TABLES["rule_comparisons"] = {
    "columns": {"version_id": str, "position": int, "number": str, "kind": str, "lineage_id": str, "digest": bytes},
    "pk": ("version_id", "position"),
    "without_rowid": True,
    "foreign_keys": [("version_id", "cr_versions", "id"), ("lineage_id", "rule_lineages", "id")],
}
# Each English glossary entry as two versions are compared, as rule_comparisons holds the rules
# (m026 on older databases): a version's entries read together, without their texts.
TABLES["glossary_comparisons"] = {
    "columns": {"version_id": str, "position": int, "term": str, "lineage_id": str, "digest": bytes},
    "pk": ("version_id", "position"),
    "without_rowid": True,
    "foreign_keys": [("version_id", "cr_versions", "id"), ("lineage_id", "rule_lineages", "id")],
}
LINEAGE_COLUMNS = {
    "rules": ["lineage_id"], "ruling_rules": ["lineage_id", "in_force_version_id"], "glossary": ["lineage_id"],
}
