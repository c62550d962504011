"""The linking step: derive cards' names, rulings, sightings and translations from raw records.

Everything here is recomputed from ``card_name_records`` and ``ruling_records`` on every build
or import, so a page whose card was unknown when it was imported is linked as soon as the card
data arrives, without reading the page again.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

import sqlite_utils

from .db import stable_id
from .normalise.dates import parse_date
from .records import QualityIssue
from .save import save_quality_issue

# Issues this step finds; they are recomputed with the rulings on every build or import.
DERIVED_ISSUES = (
    "unparseable-date", "unknown-card", "dropped-symbols", "unlinked-translation",
    "untranslated", "empty-ruling", "card-data-missing",
)
SOURCE_PRIORITY = {"scryfall": 0, "mtgjson": 1, "gatherer": 2}


def link_all(db: sqlite_utils.Database) -> None:
    resolve_card_names(db)
    derive_rulings(db)
    from .link_cr import link_cr_translations

    link_cr_translations(db)


def _casefold_name(name: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).strip()


def resolve_card_names(db: sqlite_utils.Database) -> None:
    """card_names = every name record whose card is known, by oracle id or by English name."""
    db.execute("delete from card_names")
    known = {row["oracle_id"] for row in db.query("select oracle_id from cards")}
    by_english: dict[str, set[str]] = defaultdict(set)
    for row in db.query("select oracle_id, name, faces from cards"):
        by_english[_casefold_name(row["name"])].add(row["oracle_id"])
        for face in json.loads(row["faces"] or "[]"):
            by_english[_casefold_name(face)].add(row["oracle_id"])
    rows = set()
    for row in db.query(
        "select card_name_records.*, documents.source_id from card_name_records"
        " join documents on documents.id = card_name_records.document_id"
    ):
        oracle_id = row["oracle_id"]
        if not oracle_id and row["english_name"]:
            candidates = by_english.get(_casefold_name(row["english_name"]), set())
            oracle_id = next(iter(candidates)) if len(candidates) == 1 else None
        if oracle_id in known:
            rows.add((oracle_id, row["lang"], row["name"], row["source_id"]))
    for row in db.query("select oracle_id, name from cards"):
        rows.add((row["oracle_id"], "en", row["name"], "oracle"))
    # One row per (card, language, name): the first source in sorted order names it.
    unique: dict[tuple[str, str, str], str] = {}
    for oracle_id, lang, name, source in sorted(rows):
        unique.setdefault((oracle_id, lang, name), source)
    db.conn.executemany(
        "insert into card_names (oracle_id, lang, name, source) values (?,?,?,?)",
        [(*key, source) for key, source in unique.items()],
    )


@dataclass
class _Sighting:
    record_id: int
    document_id: int
    position: int
    raw_date: str | None
    source: str | None
    text: str
    fetched_at: str | None
    source_id: str


@dataclass
class _Ruling:
    card_key: str
    oracle_id: str | None
    card_name: str | None
    card_name_lang: str | None
    published_at: str | None
    identity: str
    sightings: list[_Sighting] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    issues: list[QualityIssue] = field(default_factory=list)


def derive_rulings(db: sqlite_utils.Database) -> None:
    from .normalise.losses import detect_dropped_symbols, restore_from_reference
    from .normalise.text import clean_text, identity_key, quality_score

    for table in ("ruling_sightings", "ruling_translations", "rulings"):
        db.execute(f"delete from {table}")
    db.execute(f"delete from quality_issues where kind in ({', '.join(repr(k) for k in DERIVED_ISSUES)})")
    db.execute("delete from cards where name is null")

    names: dict[str, set[str]] = defaultdict(set)
    for row in db.query("select oracle_id, name from card_names"):
        names[_casefold_name(row["name"])].add(row["oracle_id"])

    rulings: dict[tuple[str, str | None, str], _Ruling] = {}
    damaged: list[tuple[dict, _Sighting, str, list[str]]] = []
    foreign: list[dict] = []
    unknown_card_english: list[tuple[dict, _Sighting, str]] = []
    issues: list[tuple[QualityIssue, int | None]] = []
    untranslated: list[tuple[dict, _Sighting]] = []

    records = db.query(
        "select ruling_records.*, documents.fetched_at, documents.source_id"
        " from ruling_records join documents on documents.id = ruling_records.document_id"
        " order by ruling_records.document_id, ruling_records.position"
    )
    for row in records:
        text = clean_text(row["text"] or "")
        if not text:
            issues.append((QualityIssue("empty-ruling", f"ruling {row['position']} has no text"), row["document_id"]))
            continue
        published = row["published_at"] or parse_date(row["raw_date"], row["declared_lang"] or "en")
        if published is None:
            issues.append(
                (
                    QualityIssue("unparseable-date", f"date {row['raw_date']!r} of ruling {row['position']} could not be read"),
                    row["document_id"],
                )
            )
        oracle_id = row["oracle_id"]
        if not oracle_id and row["card_name"]:
            candidates = names.get(_casefold_name(row["card_name"]), set())
            oracle_id = next(iter(candidates)) if len(candidates) == 1 else None
        row = dict(row, published_at=published, oracle_id=oracle_id, text=text)
        if row["detected_lang"] != "en":
            foreign.append(row)
            continue
        sighting = _Sighting(
            row["id"], row["document_id"], row["position"], row["raw_date"], row["source"],
            text, row["fetched_at"], row["source_id"],
        )
        if row["declared_lang"] and row["declared_lang"] != "en":
            untranslated.append((row, sighting))
            issues.append(
                (
                    QualityIssue(
                        "untranslated",
                        f"ruling {row['position']} is announced as {row['declared_lang']}"
                        f" ({row['method'] or 'translation'}) but its text is English",
                    ),
                    row["document_id"],
                )
            )
        if not oracle_id and not row["card_name"]:
            unknown_card_english.append((row, sighting, text))
            continue
        missing = detect_dropped_symbols(text)
        if missing:
            damaged.append((row, sighting, text, missing))
            continue
        _add_sighting(rulings, row, sighting, text, identity_key(text))

    # Texts that lost symbols join the ruling they are a damaged copy of, when one is known.
    by_card_and_date: dict[tuple[str, str | None], list[_Ruling]] = defaultdict(list)
    for ruling in rulings.values():
        by_card_and_date[(ruling.card_key, ruling.published_at)].append(ruling)
    for row, sighting, text, evidence in damaged:
        target = None
        for ruling in by_card_and_date.get((_card_key(row), row["published_at"]), []):
            reference = max(ruling.texts, key=quality_score)
            restored = restore_from_reference(text, reference)
            if restored:
                target = (ruling, restored[1])
                break
        if target:
            ruling, missing_symbols = target
            ruling.sightings.append(sighting)
            ruling.issues.append(
                QualityIssue(
                    "dropped-symbols",
                    f"document {row['document_id']} ruling {row['position']} lost {' '.join(missing_symbols)};"
                    " restored from the other sources of this ruling",
                )
            )
        else:
            ruling = _add_sighting(rulings, row, sighting, text, identity_key(text))
            ruling.issues.append(
                QualityIssue(
                    "dropped-symbols",
                    f"symbols evidently missing ({'; '.join(evidence)}); no other source of this ruling to restore them from",
                )
            )

    # English rulings printed without their card: find them among the known rulings by content.
    by_identity: dict[tuple[str | None, str], list[_Ruling]] = defaultdict(list)
    for ruling in rulings.values():
        if ruling.oracle_id:
            by_identity[(ruling.published_at, ruling.identity)].append(ruling)
    for row, sighting, text in unknown_card_english:
        matches = by_identity.get((row["published_at"], identity_key(text)), [])
        if len(matches) == 1:
            matches[0].sightings.append(sighting)
            matches[0].texts.append(text)
        else:
            ruling = _add_sighting(rulings, row, sighting, text, identity_key(text))
            ruling.issues.append(
                QualityIssue("unknown-card", "the page names no card and no known ruling has this text")
            )

    ruling_rows, sighting_rows, positions = _ruling_rows(rulings, quality_score)
    _ensure_cards_exist(db, {ruling.oracle_id for ruling in rulings.values() if ruling.oracle_id})
    db.conn.executemany(
        "insert into rulings (id, oracle_id, card_name, card_name_lang, source, source_inferred,"
        " published_at, text, position, first_seen, last_seen, removed_upstream)"
        " values (?,?,?,?,?,?,?,?,?,?,?,0)",
        ruling_rows,
    )
    db.conn.executemany(
        "insert or replace into ruling_sightings (ruling_id, document_id, position, raw_date,"
        " source_as_seen, text_as_seen) values (?,?,?,?,?,?)",
        sighting_rows,
    )
    unknown_cards: dict[tuple[str, str | None], set[int]] = defaultdict(set)
    for ruling in rulings.values():
        ruling_id = _ruling_id(ruling)
        if not ruling.oracle_id and ruling.card_name:
            unknown_cards[(ruling.card_name, ruling.card_name_lang)].update(s.document_id for s in ruling.sightings)
        for issue in ruling.issues:
            save_quality_issue(db, issue, ruling.sightings[0].document_id, ruling_id=ruling_id)
    for (card_name, lang), document_ids in sorted(unknown_cards.items()):
        for document_id in sorted(document_ids):
            save_quality_issue(
                db,
                QualityIssue("unknown-card", f"card {card_name!r} ({lang}) is not in the card data yet; its rulings wait to be linked"),
                document_id,
            )
    for issue, document_id in issues:
        save_quality_issue(db, issue, document_id)

    link_translations(db, foreign, rulings)
    record_untranslated(db, untranslated, rulings)


def record_untranslated(db: sqlite_utils.Database, untranslated: list, rulings: dict) -> None:
    """A page's "translation" that is really the English text: the English ruling's sighting,
    and a translation row saying that language has no real translation from this page."""
    ruling_of_record = {
        sighting.record_id: _ruling_id(ruling) for ruling in rulings.values() for sighting in ruling.sightings
    }
    db.conn.executemany(
        "insert or replace into ruling_translations (id, ruling_id, lang, text, method, status,"
        " confidence, match_method, document_id, raw_date, card_name) values (?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                stable_id("translation", row["document_id"], row["position"]),
                ruling_of_record.get(sighting.record_id),
                row["declared_lang"],
                row["text"],
                row["method"] or "machine",
                "untranslated",
                1.0,
                "same-text",
                row["document_id"],
                row["raw_date"],
                row["card_name"],
            )
            for row, sighting in untranslated
        ],
    )


def _ensure_cards_exist(db: sqlite_utils.Database, oracle_ids: set[str]) -> None:
    """A ruling may name an Oracle id whose card data we have not imported: keep the ruling,
    give the card a row without a name, and say so."""
    known = {row[0] for row in db.execute("select oracle_id from cards")}
    for oracle_id in sorted(oracle_ids - known):
        db.execute("insert into cards (oracle_id) values (?)", [oracle_id])
        save_quality_issue(
            db,
            QualityIssue("card-data-missing", f"rulings name Oracle id {oracle_id} but no card data for it was imported"),
        )


def _card_key(row: dict) -> str:
    if row["oracle_id"]:
        return row["oracle_id"]
    if row["card_name"]:
        return f"name:{row['card_name_lang'] or ''}:{_casefold_name(row['card_name'])}"
    return f"document:{row['document_id']}"


def _add_sighting(rulings: dict, row: dict, sighting: _Sighting, text: str, identity: str) -> _Ruling:
    key = (_card_key(row), row["published_at"], identity)
    ruling = rulings.get(key)
    if ruling is None:
        ruling = rulings[key] = _Ruling(
            card_key=key[0],
            oracle_id=row["oracle_id"],
            card_name=None if row["oracle_id"] else row["card_name"],
            card_name_lang=None if row["oracle_id"] else row["card_name_lang"],
            published_at=row["published_at"],
            identity=identity,
        )
    ruling.sightings.append(sighting)
    ruling.texts.append(text)
    return ruling


def _ruling_id(ruling: _Ruling) -> int:
    return stable_id("ruling", ruling.card_key, ruling.published_at, ruling.identity)


def _canonical_source(ruling: _Ruling) -> tuple[str, int]:
    """Scryfall says who wrote a ruling; Gatherer and MTGJSON rulings are Wizards' unless
    Scryfall says otherwise (MTGJSON drops the source, so Scryfall's word wins)."""
    explicit = [s.source for s in ruling.sightings if s.source in ("wotc", "scryfall")]
    from_scryfall = [s.source for s in ruling.sightings if s.source_id == "scryfall" and s.source]
    if from_scryfall:
        return from_scryfall[0], 0
    if explicit:
        return explicit[0], 0
    return "wotc", 1


def _ruling_rows(rulings: dict, quality_score) -> tuple[list[tuple], list[tuple], dict]:
    per_card: dict[str, list[_Ruling]] = defaultdict(list)
    for ruling in rulings.values():
        per_card[ruling.card_key].append(ruling)
    ruling_rows = []
    sighting_rows = []
    positions = {}
    for card_key, card_rulings in per_card.items():
        # Rulings keep their order per card: by date, then as the most authoritative source
        # printed them.
        def order(ruling: _Ruling) -> tuple:
            best = min(
                ruling.sightings,
                key=lambda s: (SOURCE_PRIORITY.get(s.source_id, 9), s.document_id, s.position),
            )
            return (ruling.published_at or "9999", SOURCE_PRIORITY.get(best.source_id, 9), best.document_id, best.position)

        for position, ruling in enumerate(sorted(card_rulings, key=order)):
            ruling_id = _ruling_id(ruling)
            positions[ruling_id] = position
            source, inferred = _canonical_source(ruling)
            seen = sorted(s.fetched_at for s in ruling.sightings if s.fetched_at)
            ruling_rows.append(
                (
                    ruling_id,
                    ruling.oracle_id,
                    ruling.card_name,
                    ruling.card_name_lang,
                    source,
                    inferred,
                    ruling.published_at,
                    max(ruling.texts, key=quality_score),
                    position,
                    seen[0] if seen else None,
                    seen[-1] if seen else None,
                )
            )
            for sighting in ruling.sightings:
                sighting_rows.append(
                    (ruling_id, sighting.document_id, sighting.position, sighting.raw_date,
                     sighting.source, sighting.text)
                )
    return ruling_rows, sighting_rows, positions


def link_translations(db: sqlite_utils.Database, foreign: list[dict], rulings: dict) -> None:
    """Rulings in other languages go beside the English ruling they translate."""
    if not foreign:
        return
    from .link_rulings import EnglishRuling, match_translations
    from .records import RulingRecord

    english_by_card: dict[str | None, list[EnglishRuling]] = defaultdict(list)
    all_english: list[EnglishRuling] = []
    for ruling in rulings.values():
        english = EnglishRuling(
            ruling_id=_ruling_id(ruling),
            oracle_id=ruling.oracle_id,
            published_at=ruling.published_at,
            position=min(s.position for s in ruling.sightings),
            text=ruling.texts[0],
        )
        english_by_card[ruling.oracle_id].append(english)
        all_english.append(english)

    by_document: dict[int, list[dict]] = defaultdict(list)
    for row in foreign:
        by_document[row["document_id"]].append(row)
    rows = []
    for document_id, records in sorted(by_document.items()):
        candidates = [
            RulingRecord(
                text=r["text"], raw_date=r["raw_date"], position=r["position"],
                published_at=r["published_at"], source=r["source"], oracle_id=r["oracle_id"],
                card_name=r["card_name"], card_name_lang=r["card_name_lang"],
                lang=r["detected_lang"], method=r["method"],
            )
            for r in records
        ]
        oracle_ids = {r["oracle_id"] for r in records if r["oracle_id"]}
        english = (
            [e for oracle_id in sorted(oracle_ids) for e in english_by_card[oracle_id]]
            if oracle_ids
            else all_english
        )
        matches = {m.candidate_index: m for m in match_translations(candidates, english)}
        for index, record in enumerate(records):
            match = matches.get(index)
            ruling_id = match.ruling_id if match else None
            rows.append(
                (
                    stable_id("translation", document_id, record["position"]),
                    ruling_id,
                    record["detected_lang"],
                    record["text"],
                    record["method"] or "official",
                    "linked" if ruling_id else "unlinked",
                    match.confidence if match else 0.0,
                    match.method if match else None,
                    document_id,
                    record["raw_date"],
                    record["card_name"],
                )
            )
    unlinked: dict[int, int] = defaultdict(int)
    for row in rows:
        if row[1] is None:
            unlinked[row[8]] += 1
    for document_id, count in sorted(unlinked.items()):
        save_quality_issue(
            db,
            QualityIssue(
                "unlinked-translation",
                f"{count} translated rulings of this document have no English original in the database yet",
            ),
            document_id,
        )
    db.conn.executemany(
        "insert or replace into ruling_translations (id, ruling_id, lang, text, method, status,"
        " confidence, match_method, document_id, raw_date, card_name) values (?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
