"""What a card page shows: names, rulings with their sightings and translations, cited rules, issues.
(Which card a name asks for is ``kb.site.card_lookup``.)"""
from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from typing import Any

from kb.normalise.refs import extract_refs
from kb.site.card_documents import oracle_as_shown, oracle_source, pages_listing_none, rulings_checked_in
from kb.site.card_lookup import recorded_names
from kb.site.card_printings import faces_in_order, printed_by_language, set_and_day, with_faces
from kb.site.search import (
    newest_english_version,
    rows,
    table_has_rows,
)
from kb.site.search_db import columns_of
from kb.store import derive_lineage

CARD_PAGE_RULINGS_LIMIT = 500


def card_page(conn: sqlite3.Connection, oracle_id: str | None = None, name: str | None = None) -> dict[str, Any] | None:
    """Everything about one card: names, rulings with translations and sightings, rules, issues.

    With ``name`` instead of an Oracle id: the rulings a localized page printed for a card that is
    not in the card data yet (``linked`` is False).
    """
    if oracle_id:
        card = rows(conn, "select * from cards where oracle_id = ?", (oracle_id,))
        rulings = rows(
            conn,
            "select * from rulings where oracle_id = ? order by published_at, position limit ?",
            (oracle_id, CARD_PAGE_RULINGS_LIMIT),
        )
        if not card and not rulings:
            return None
        names = faces_in_order(rows(
            conn,
            "select lang, name, source from card_names where oracle_id = ? order by lang = 'en' desc, lang, name",
            (oracle_id,),
        ))
        named = bool(card and card[0]["name"])
        page = {
            # A card row without a name is a placeholder for rulings whose card data is missing.
            "linked": named,
            "oracle_id": oracle_id,
            "card": with_faces(card[0]) if named else None,
            "title": card[0]["name"] if named else (names[0]["name"] if names else oracle_id),
            "names": names,
            "named_from_rulings": not named and bool(names) and names[0]["source"] == "rulings",
        }
        page["oracle_source"] = oracle_source(conn, card[0].get("oracle_document_id")) if named else None
        page["rulings_checked_in"] = [] if rulings else rulings_checked_in(conn, oracle_id)
        printed, page["printed_capped"] = printed_by_language(conn, oracle_id)
        page["printed"] = printed
        page["printings_shown"] = sum(len(wording["printings"]) for language in printed for wording in language["wordings"])
    elif name:
        rulings = rows(
            conn,
            "select * from rulings where oracle_id is null and card_name = ? order by published_at, position limit ?",
            (name, CARD_PAGE_RULINGS_LIMIT),
        )
        recorded = recorded_names(conn, name)
        if not rulings and not recorded:
            return None
        lang = rulings[0]["card_name_lang"] if rulings else recorded[0]["lang"]
        names = [{"lang": lang, "name": name, "source": "page"}] if rulings else [
            {"lang": row["lang"], "name": row["name"], "source": row["source_id"]}
            for row in {(r["lang"], r["name"]): r for r in recorded}.values()
        ]
        # This card's printings of those documents: a release-notes document prints a set's every
        # card (the first Korean card's page listed all 170). A page in Gatherer's Oracle view
        # prints no name of its own: its printing is the card's.
        set_columns, set_join, _day = set_and_day(conn)
        printings = rows(
            conn,
            f"""select lang, coalesce(printed_name, printings.name) as printed_name, mana_cost, printed_type_line, printed_text,
            set_code, collector_number, multiverse_id, note, type_line, oracle_text, power, toughness, loyalty, defense,
            printings.document_id, {set_columns} from printings {set_join}
            where ({" or ".join("(printings.document_id = ? and coalesce(printed_name, printings.name) = ?)" for _ in recorded)})
            order by lang, multiverse_id""",
            [value for row in recorded for value in (row["document_id"], row["name"])],
        ) if recorded else []
        page = {
            "linked": False,
            "oracle_id": None,
            "card": None,
            "title": recorded[0]["name"] if recorded and not rulings else name,
            "names": names,
            "printings": printings,
            "oracle_as_shown": oracle_as_shown(conn, printings),
            # The pages that printed it list its rulings too: "Rulings 0" alone read as "no
            # rulings exist" for Birds of Paradise, whose three Gatherer pages list none (a
            # player's review).
            "rulings_checked_in": [] if rulings else pages_listing_none(conn, [p["document_id"] for p in printings]),
        }
    else:
        return None
    page["title_lang"] = "en" if page["linked"] else title_language(str(page["title"]), page["names"])  # type: ignore[arg-type]
    detailed = rulings_with_details(conn, rulings)
    page_names: list[dict[str, Any]] = page["names"]  # type: ignore[assignment]
    page["rulings"] = detailed
    page["unlinked_translations"] = unlinked_translations(conn, [n["name"] for n in page_names])
    page["rules"] = rules_mentioned(conn, detailed)
    page["issues"] = card_issues(conn, detailed, str(page["title"]))
    page["documents"] = documents_of(detailed)
    return page


def title_language(title: str, names: list[dict[str, Any]]) -> str | None:
    """The language of the name a card not linked yet is titled by (None: not known, as an Oracle
    id standing for a name)."""
    return next((name["lang"] for name in names if name["name"] == title), None)


def rulings_with_details(conn: sqlite3.Connection, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = [ruling["id"] for ruling in rulings]
    sightings = grouped(
        conn,
        """select ruling_sightings.*, documents.source_id, documents.url, documents.path,
            documents.lang as document_lang, documents.format, documents.fetched_at
        from ruling_sightings join documents on documents.id = ruling_sightings.document_id
        where ruling_sightings.ruling_id in ({marks}) order by documents.source_id, documents.id""",
        ids,
    )
    translations = grouped(
        conn,
        """select ruling_translations.*, documents.url as document_url, documents.path as document_path
        from ruling_translations left join documents on documents.id = ruling_translations.document_id
        where ruling_translations.ruling_id in ({marks}) order by ruling_translations.lang""",
        ids,
    )
    cited_in = cited_versions(conn, ids)
    for ruling in rulings:
        ruling["sightings"] = sightings.get(ruling["id"], [])
        ruling["translations"] = translations.get(ruling["id"], [])
        ruling["cited_rules"] = extract_refs(ruling["text"] or "", lang="en")  # as kb.link.ruling_citations reads them
        # The numbers a ruling cites are those of the CR it was written against: its text links
        # them there (a 2015 ruling's "rule 107.14" is the moon symbol, not today's 107.14).
        ruling["cites_version"] = cited_in.get(ruling["id"])
    return rulings


def cited_versions(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """Ruling id → the one older English version whose rules its cited numbers name
    (``ruling_rules``, method "cited"); rulings citing by today's numbers, or several versions, have none."""
    if not ids or not table_has_rows(conn, "ruling_rules"):
        return {}
    versions: dict[int, set[str]] = defaultdict(set)
    for rows_of in grouped(
        conn, "select ruling_id, version_id from ruling_rules where method = 'cited' and ruling_id in ({marks})", ids
    ).values():
        for row in rows_of:
            versions[row["ruling_id"]].add(row["version_id"])
    newest = newest_english_version(conn)
    return {ruling_id: next(iter(found)) for ruling_id, found in versions.items() if len(found) == 1 and newest not in found}


def grouped(conn: sqlite3.Connection, sql: str, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Rows keyed by ``ruling_id`` for a list of ids (in chunks below SQLite's variable limit)."""
    result: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for row in rows(conn, sql.format(marks=",".join("?" * len(chunk))), chunk):
            result[row["ruling_id"]].append(row)
    return result


def unlinked_translations(conn: sqlite3.Connection, names: list[str]) -> list[dict[str, Any]]:
    """Translated rulings printed under one of the card's names but not matched to a ruling, in
    the order their page printed them (by id, a hash, the Korean release notes' second note on
    에테르 돌풍 came first: a Japanese and Korean judge's review)."""
    if not names:
        return []
    marks = ",".join("?" * len(names))
    return rows(
        conn,
        f"""select * from ruling_translations
        where ruling_id is null and card_name in ({marks})
        order by lang, document_id, (select min(records.position) from ruling_records as records
            where records.document_id = ruling_translations.document_id and records.text = ruling_translations.text), id
        limit 200""",
        names,
    )


def rules_mentioned(conn: sqlite3.Connection, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The CR rules the rulings rely on, one per rule identity (lineage): each under its number and
    title in the newest version, with the number it had on the rulings' dates (``ruling_rules``).

    Without ``ruling_rules`` the numbers printed in the rulings are listed as printed, unresolved:
    looking them up in the newest version would name whatever rule has that number today.
    """
    for ruling in rulings:
        ruling["relies_on"] = []
    if not (table_has_rows(conn, "ruling_rules") and rulings and _has_column(conn, "ruling_rules", "lineage_id")):
        printed = dict.fromkeys(number for ruling in rulings for number in ruling["cited_rules"])
        return [{"number": number, "title": None, "text": None, "then": [], "unresolved": True} for number in printed]
    marks = ",".join("?" * len(rulings))
    uncertain = "ruling_rules.number_uncertain" if _has_column(conn, "ruling_rules", "number_uncertain") else "null"
    cited = rows(
        conn,
        f"""select distinct ruling_rules.ruling_id, ruling_rules.lineage_id, ruling_rules.rule_number, ruling_rules.version_id,
            ruling_rules.in_force_version_id, ruling_rules.current_number, ruling_rules.status, ruling_rules.method,
            {uncertain} as number_uncertain, ruling_rules.published_at
        from ruling_rules where ruling_id in ({marks}) order by ruling_rules.version_id, ruling_rules.rule_number""",
        [ruling["id"] for ruling in rulings],
    )
    relied_on: dict[int, list[dict[str, Any]]] = {}
    newest = newest_english_version(conn)
    found: dict[str, dict[str, Any]] = {}
    crossed = derive_lineage.crossed_by_number(conn, [row["lineage_id"] for row in cited])
    for row in cited:
        key = row["lineage_id"] or f"{row['version_id']}/{row['rule_number']}"
        entry = found.get(key)
        if entry is None:
            entry = found[key] = _cited_rule(conn, row, newest)
        shown = entry.get("version_id") or (entry.get("removed_after") or {}).get("version_id")
        then = {"number": row["rule_number"], "version_id": row["version_id"],
                "not_in_force": bool(row["in_force_version_id"]) and row["in_force_version_id"] != row["version_id"],
                "in_force_version_id": row["in_force_version_id"], "method": row["method"],
                # The rule cited then was joined to the one shown by a number alone on the way.
                "paired_by_number": crossed(row["lineage_id"], row["version_id"], shown),
                "number_uncertain": _why_uncertain(conn, row) if row["number_uncertain"] else None,
                # Reworded since (in it or its subrules): the rule shown is today's.
                "reworded": row["status"] == "changed"}
        if then not in entry["then"]:
            entry["then"].append(then)
        # Each ruling's own rules, beside it: the list below names them for all the rulings at
        # once, and a judge could not tell which ruling relies on which (a player's review).
        shown_rule = entry.get("removed_after") or entry
        own = {"number": shown_rule.get("number"), "title": entry.get("title"), "version_id": shown,
               "removed": bool(entry.get("removed_after")), "then_number": row["rule_number"],
               "then_version_id": row["version_id"],
               # The list's caveats too: the rule shown may not be the one cited (a code review).
               "paired_by_number": then["paired_by_number"], "number_uncertain": bool(then["number_uncertain"]),
               "not_in_force": then["not_in_force"]}
        if own not in relied_on.setdefault(row["ruling_id"], []):
            relied_on[row["ruling_id"]].append(own)
    for ruling in rulings:
        ruling["relies_on"] = relied_on.get(ruling["id"], [])
    return sorted(found.values(), key=lambda e: (e["number"] is None, _number_key(e["number"] or e["then"][0]["number"])))


def _why_uncertain(conn: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
    """``_next_held``, or for a ruling older than every version held (linked to the oldest, which
    is no version "before the ruling's date"), no version."""
    if row.get("published_at") and row["published_at"] < version_date(row["version_id"]):
        return {"version_id": None, "number": None}
    return _next_held(conn, row)


def version_date(version_id: str) -> str:
    """The effective date a version's id gives ("en-2013-05-01"; "" for another form)."""
    found = re.match(r"[a-z]+-(\d{4}-\d{2}-\d{2})", version_id or "")
    return found[1] if found else ""


def _next_held(conn: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
    """Why the number a ruling is linked under may not be the one of its date: the next English
    version held after it and the rule's number there (none: removed by then; no version: the
    ruling is older than every version held)."""
    found = rows(
        conn,
        """select cr_versions.id as version_id, rules.number from cr_versions
        left join rules on rules.version_id = cr_versions.id and rules.lineage_id = ?
        where cr_versions.lang = 'en'
        and cr_versions.effective_date > (select effective_date from cr_versions where id = ?)
        order by cr_versions.effective_date limit 1""",
        (row["lineage_id"], row["version_id"]),
    )
    return found[0] if found else {"version_id": None, "number": None}


def _cited_rule(conn: sqlite3.Connection, row: dict[str, Any], newest: str | None) -> dict[str, Any]:
    """The lineage's rule in the newest version, or (removed since) its last version."""
    if row["lineage_id"] is None:
        return {"number": None, "title": None, "text": None, "then": [], "status": row["status"], "unknown": True}
    current = rows(conn, "select number, title, text from rules where lineage_id = ? and version_id = ?", (row["lineage_id"], newest))
    if current:
        return {**current[0], "then": [], "status": row["status"], "version_id": newest}
    last = rows(
        conn,
        """select rules.number, rules.title, rules.text, rules.version_id from rules
        join cr_versions on cr_versions.id = rules.version_id
        where rules.lineage_id = ? order by cr_versions.effective_date desc limit 1""",
        (row["lineage_id"],),
    )
    return {"number": None, "title": last[0]["title"] if last else None, "text": last[0]["text"] if last else None,
            "removed_after": last[0] if last else None, "then": [], "status": "removed"}


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return column in columns_of(conn, table)


def _number_key(number: str) -> tuple:
    head, _, tail = number.partition(".")
    digits = "".join(ch for ch in tail if ch.isdigit())
    return (int(head) if head.isdigit() else 0, int(digits) if digits else -1, tail.lstrip("0123456789"))


def card_issues(conn: sqlite3.Connection, rulings: list[dict[str, Any]], title: str) -> list[dict[str, Any]]:
    ids = [ruling["id"] for ruling in rulings]
    issues = []
    if ids:
        marks = ",".join("?" * len(ids))
        issues += rows(conn, f"select kind, detail, document_id, ruling_id from quality_issues where ruling_id in ({marks})", ids)
    # Problems a document reported about the whole card (an unknown card, dropped symbols…). One
    # the load's checks found in one ruling of the document (before the ruling had an id) names
    # its record: it is this card's only where that record is one of this card's rulings (a bulk
    # file's issues were shown on the page of every card it holds).
    documents = sorted({s["document_id"] for r in rulings for s in r["sightings"]})
    if documents:
        columns = "quality_issues.kind, quality_issues.detail, quality_issues.document_id, quality_issues.ruling_id"
        # Not the printed texts' lost line breaks: about printings, each marked where it is shown
        # (as a document's issue, every card with a ruling in an MTGJSON set file showed it).
        in_documents = (f"quality_issues.ruling_id is null and quality_issues.kind != 'joined-printed-lines'"
                        f" and quality_issues.document_id in ({','.join('?' * len(documents))})")
        if _has_column(conn, "quality_issues", "record_id"):
            issues += rows(
                conn,
                f"""select {columns} from quality_issues
                left join ruling_records on ruling_records.id = quality_issues.record_id
                where {in_documents} and (quality_issues.record_id is null
                    or ruling_records.ruling_id in ({",".join("?" * len(ids))})) limit 100""",
                [*documents, *ids],
            )
        else:  # a file made before issues named their record (kb.store.migrations m018)
            issues += rows(conn, f"select {columns} from quality_issues where {in_documents} limit 100", documents)
    seen, unique = set(), []
    for issue in issues:
        key = (issue["kind"], issue["detail"])
        if key not in seen:
            seen.add(key)
            unique.append(issue)
    return unique


def documents_of(rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    documents: dict[int, dict[str, Any]] = {}
    for ruling in rulings:
        for sighting in ruling["sightings"]:
            documents.setdefault(sighting["document_id"], {
                "id": sighting["document_id"], "source_id": sighting["source_id"],
                "url": sighting["url"], "path": sighting["path"], "format": sighting["format"],
                "lang": sighting["document_lang"], "rulings": 0,
            })["rulings"] += 1
    return list(documents.values())
