"""The database's shape, declared once: tables, keys, indexes, full-text search and views.

``ensure_db_shape(db)`` is idempotent: it applies pending schema migrations, then (re)creates
full-text indexes and views. Every build and import ends with it.

Longer than our ~400-line norm on purpose: ``TABLES`` is one declaration of every table (about
360 lines of column lists), kept in one place so the shape can be read top to bottom; the code
that applies it is short.
"""
from __future__ import annotations

import hashlib
from typing import Any

import sqlite_utils
from sqlite_utils import Migrations

# table -> (columns, primary key, foreign keys, not-null columns)
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
        },
        "pk": "id",
        "foreign_keys": [("oracle_id", "cards", "oracle_id"), ("document_id", "documents", "id")],
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
        },
        "pk": "id",
        "foreign_keys": [
            ("old_version_id", "cr_versions", "id"),
            ("new_version_id", "cr_versions", "id"),
            ("old_rule_id", "rules", "id"),
            ("new_rule_id", "rules", "id"),
        ],
    },
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

# Rule identity across versions (kb.store.derive_lineage; m004 adds it to older databases).
TABLES["rule_lineages"] = {
    "columns": {
        "id": str, "kind": str, "first_version_id": str, "first_number": str, "last_version_id": str,
        "last_number": str, "current_number": str, "title": str, "numbers": str, "versions": int,
    },
    "pk": "id",
}
LINEAGE_COLUMNS = {"rules": ["lineage_id"], "ruling_rules": ["lineage_id", "in_force_version_id"]}

INDEXES: list[tuple[str, list[str], bool]] = [
    ("rules", ["lineage_id"], False),
    ("ruling_rules", ["lineage_id"], False),
    # Not unique: a number an edition prints twice (a misprint) keeps both rules, flagged.
    ("rules", ["version_id", "number"], False),
    ("rules", ["number"], False),
    ("rules", ["version_id", "parent_number"], False),
    # What the site's table pages filter, sort and facet on (rules?version_id=…, sorted by position).
    ("rules", ["version_id", "position"], False),
    ("rules", ["version_id", "kind"], False),
    ("rules", ["position"], False),
    ("glossary", ["version_id", "position"], False),
    ("rule_examples", ["rule_id"], False),
    ("glossary", ["version_id", "term"], False),
    ("rule_refs", ["target_number"], False),
    ("documents", ["sha256"], False),
    ("cr_versions", ["lang", "effective_date"], False),
    ("card_names", ["name"], False),
    ("card_names", ["name_key"], False),
    ("ruling_records", ["card_key"], False),
    ("rulings", ["published_at", "identity"], False),
    ("card_names", ["lang"], False),
    ("printings", ["oracle_id"], False),
    ("ruling_records", ["document_id"], False),
    ("rulings", ["oracle_id", "published_at", "position"], False),
    ("rulings", ["card_name"], False),
    ("ruling_sightings", ["document_id"], False),
    ("ruling_translations", ["ruling_id"], False),
    ("quality_issues", ["kind"], False),
    ("keywords", ["term"], False),
    ("keyword_dictionary", ["term_key"], False),
    ("rule_links", ["en_rule_id"], False),
    ("cr_changes", ["old_version_id", "new_version_id", "position"], False),
    ("cr_changes", ["old_number"], False),
    ("cr_changes", ["new_number"], False),
    ("ruling_rules", ["rule_id"], False),
    ("ruling_rules", ["current_rule_id"], False),
    ("ruling_rules", ["status"], False),
]

# Latin-script text: diacritics folded so "regles" finds "règles".
FTS_CONFIG: dict[str, list[str]] = {
    "rules": ["number", "title", "text"],
    "glossary": ["term", "text"],
    "rulings": ["text", "card_name"],
    "ruling_translations": ["text", "card_name"],
    "card_names": ["name"],
    "card_name_records": ["name"],
}

VIEWS: dict[str, str] = {
    "current_rules": """
        select rules.* from rules
        join cr_versions on cr_versions.id = rules.version_id
        where cr_versions.id = (
            select id from cr_versions where lang = 'en'
            order by effective_date desc limit 1
        )
    """,
    # Every card name we hold, with the names whose card is not identified yet (Oracle id
    # empty): a search by name finds those too.
    "all_card_names": """
        select oracle_id, lang, name, name_key, source from card_names
        union all
        select null, records.lang, records.name, records.name_key, documents.source_id
        from card_name_records as records join documents on documents.id = records.document_id
        where records.name_key not in (select name_key from card_names where name_key is not null)
        group by records.lang, records.name
    """,
    "rulings_with_cards": """
        select rulings.id, rulings.oracle_id, coalesce(cards.name, rulings.card_name) as card,
            rulings.published_at, rulings.source, rulings.text, rulings.position
        from rulings left join cards on cards.oracle_id = rulings.oracle_id
    """,
}

migrations = Migrations("mtg-rules-kb")


@migrations()
def m001_initial(db: sqlite_utils.Database) -> None:
    for name, spec in TABLES.items():
        db.table(name).create(
            spec["columns"],
            pk=spec["pk"],
            foreign_keys=spec.get("foreign_keys"),
            if_not_exists=True,
        )


@migrations()
def m002_history(db: sqlite_utils.Database) -> None:
    """CR history tables (databases made before them get them here; m001 makes them on new ones)."""
    for name in ("cr_changes", "ruling_rules"):
        spec = TABLES[name]
        db.table(name).create(
            spec["columns"],
            pk=spec["pk"],
            foreign_keys=spec.get("foreign_keys"),
            if_not_exists=True,
        )


def stable_id(*parts: object) -> int:
    """A 60-bit integer from a hash of ``parts``: the same inputs give the same id in every build.

    Integer keys keep Datasette's search and joins fast; 60 bits stays clear of SQLite's signed
    64-bit limit and of collisions at our scale.
    """
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 4


@migrations()
def m003_cr_version_set_and_status(db: sqlite_utils.Database) -> None:
    """cr_versions.set_name and cr_versions.status (databases made before them get them here);
    rules(version_id, number) no longer unique, so a duplicated number keeps both rules."""
    db.execute("drop index if exists idx_rules_version_id_number")
    columns = {column.name for column in db["cr_versions"].columns}
    for column in ("set_name", "status"):
        if column not in columns:
            db.table("cr_versions").add_column(column, str)


@migrations()
def m004_keyword_dictionary(db: sqlite_utils.Database) -> None:
    """The keyword dictionary mined from printed texts (databases made before it get it here)."""
    spec = TABLES["keyword_dictionary"]
    db.table("keyword_dictionary").create(spec["columns"], pk=spec["pk"], if_not_exists=True)


@migrations()
def m005_rule_lineages(db: sqlite_utils.Database) -> None:
    """rule_lineages, rules.lineage_id, ruling_rules.lineage_id/in_force_version_id on older databases."""
    spec = TABLES["rule_lineages"]
    db.table("rule_lineages").create(spec["columns"], pk=spec["pk"], if_not_exists=True)
    for table, names in LINEAGE_COLUMNS.items():
        if db[table].exists():
            present = {column.name for column in db[table].columns}
            for name in names:
                if name not in present:
                    db.table(table).add_column(name, str)


def ensure_db_shape(db: sqlite_utils.Database, search: bool = True) -> None:
    """Bring ``db`` to the current schema and (re)create indexes, full-text search and views
    (``search=False``: not the search indexes, which a build makes once, at its end)."""
    migrations.apply(db)
    for table, columns, unique in INDEXES:
        db.table(table).create_index(columns, unique=unique, if_not_exists=True)
    for name, sql in VIEWS.items():
        db.create_view(name, sql, replace=True)
    if search:
        ensure_search(db)


def ensure_search(db: sqlite_utils.Database) -> None:
    # No triggers: the served database is immutable, and every build or import ends here,
    # so indexing once at the end is both faster and always complete.
    for table, columns in FTS_CONFIG.items():
        # Dropped and made afresh: enable_fts fills a new index, but leaves an existing one
        # with the same configuration as it was (rebuilding after it indexed everything twice).
        db.table(f"{table}_fts").drop(ignore=True)
        db.table(table).enable_fts(columns, tokenize="unicode61 remove_diacritics 2")
    ensure_cjk_search(db)


def ensure_cjk_search(db: sqlite_utils.Database) -> None:
    """A trigram index over CJK text only: unicode61 cannot split words without spaces.

    Trigram indexes cost several times the space of unicode61, so only rows with Chinese,
    Japanese or Korean text go in (queries of three or more characters; shorter ones use LIKE).
    """
    db.execute("drop table if exists cjk_search")
    db.execute(
        "create virtual table cjk_search using fts5("
        "kind unindexed, key unindexed, lang unindexed, text, tokenize='trigram')"
    )
    cjk = "(text glob '*[一-鿿]*' or text glob '*[가-힣]*' or text glob '*[ぁ-ヿ]*')"
    db.execute(
        """insert into cjk_search (kind, key, lang, text)
        select 'rule', rules.id, cr_versions.lang,
            coalesce(rules.title, '') || ' ' || rules.text as text
        from rules join cr_versions on cr_versions.id = rules.version_id
        where cr_versions.lang in ('zhs', 'zht', 'ja', 'ko')"""
    )
    db.execute(
        """insert into cjk_search (kind, key, lang, text)
        select 'glossary', glossary.id, cr_versions.lang, glossary.term || ' ' || glossary.text
        from glossary join cr_versions on cr_versions.id = glossary.version_id
        where cr_versions.lang in ('zhs', 'zht', 'ja', 'ko')"""
    )
    db.execute(
        """insert into cjk_search (kind, key, lang, text)
        select 'card_name', coalesce(oracle_id, 'name:' || name), lang, name as text
        from all_card_names where lang in ('zhs', 'zht', 'ja', 'ko')"""
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text)
        select 'ruling_translation', id, lang, text from ruling_translations where {cjk}"""
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text)
        select 'keyword', id, lang, term as text from keywords where {cjk.replace('text', 'term')}"""
    )


def table_counts(db: sqlite_utils.Database) -> dict[str, int]:
    return {name: db[name].count for name in TABLES}
