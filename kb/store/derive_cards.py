"""Cards and their names from the stored card and name records: names resolved to cards, cards that rulings name but no card source has, unknown cards reported."""
from __future__ import annotations

import json
import re
from collections import Counter
from itertools import groupby
from operator import itemgetter

import sqlite_utils

from kb.normalise.names import name_key
from kb.records import QualityIssue, first_few
from kb.store.save import save_quality_issue, write_differences


def resolve_card_names(db: sqlite_utils.Database) -> None:
    """card_names = every name record whose card is known, by oracle id or by English name.

    Worked out in a temporary table, then only the rows that differ are written: an import that
    adds no card data leaves every name (and its search index entry) as it was. Names that
    rulings call a card by (source ``rulings``) are ``ensure_cards_exist``'s; they go here only
    when the card now has card data."""
    db.execute("delete from cards where name is null")
    db.execute("drop table if exists temp.resolved_card_names")
    db.execute(
        "create temp table resolved_card_names (oracle_id text, lang text, name text, source text,"
        " name_key text, primary key (oracle_id, lang, name))"
    )
    english_rows = []
    for row in db.query("select oracle_id, name, faces from cards"):
        names = [row["name"], *json.loads(row["faces"] or "[]")]
        for name in dict.fromkeys(filter(None, names)):
            english_rows.append((row["oracle_id"], "en", name, "oracle", name_key(name)))
    db.conn.executemany(
        "insert or ignore into temp.resolved_card_names (oracle_id, lang, name, source, name_key) values (?,?,?,?,?)",
        english_rows,
    )
    # By Oracle id where the document gives it, else by a unique English name, else through
    # the multiverse id of the one printing the document shows (old Gatherer printed pages
    # name a card only in its own language), else through that printing's set and collector
    # number: the same printing in another language (Gatherer's German Magic 2012 #165 page
    # and Scryfall's English m12 #165 are one card).
    # The printings those pages show, gathered once: looked up by document in the query below,
    # every name without an Oracle id scanned every printing (20 s of an 11-ruling import into a
    # database of 50k printings).
    db.execute("drop table if exists temp.shown_printings")
    db.execute(
        """create temp table shown_printings as
        select document_id, multiverse_id, set_code, collector_number from printings
        where document_id in (select document_id from card_name_records where oracle_id is null)"""
    )
    db.execute("create index temp.shown_printings_document on shown_printings (document_id)")
    db.execute(
        """insert or ignore into temp.resolved_card_names (oracle_id, lang, name, source, name_key)
        select coalesce(records.oracle_id, (
                select min(english.oracle_id) from temp.resolved_card_names as english
                where english.lang = 'en' and english.name_key = records.english_key
                having count(distinct english.oracle_id) = 1), (
                select min(known.oracle_id) from temp.shown_printings as shown
                join printings as known on known.multiverse_id = shown.multiverse_id
                where shown.document_id = records.document_id and known.oracle_id is not null
                having count(distinct known.oracle_id) = 1), (
                select min(known.oracle_id) from temp.shown_printings as shown
                join printings as known on known.collector_number = shown.collector_number
                    and upper(known.set_code) = upper(shown.set_code)
                where shown.document_id = records.document_id and known.oracle_id is not null
                    and shown.set_code != '' and shown.collector_number != ''
                having count(distinct known.oracle_id) = 1)) as resolved,
            records.lang, records.name, documents.source_id, records.name_key
        from card_name_records as records join documents on documents.id = records.document_id
        where resolved in (select oracle_id from cards)
        order by documents.source_id, records.id"""
    )
    db.execute("drop table temp.shown_printings")
    db.execute("delete from card_names where source = 'rulings' and oracle_id in (select oracle_id from cards)")
    write_differences(
        db, "card_names", "resolved_card_names", ("oracle_id", "lang", "name", "source", "name_key"),
        key=("oracle_id", "lang", "name"), kept="source = 'rulings'",
    )
    db.execute("drop table temp.resolved_card_names")


def save_unresolved_card_names(db: sqlite_utils.Database) -> None:
    """``unresolved_card_names``: each (language, name) documents printed whose folded name no
    card name has, with the first source that printed it. Made after every step that writes
    ``card_names`` (names that rulings give cards among them); only differing rows are written."""
    db.execute("drop table if exists temp.staged_unresolved_names")
    db.execute(
        """create temp table staged_unresolved_names as
        select records.lang as lang, records.name as name, min(records.name_key) as name_key,
            min(documents.source_id) as source
        from card_name_records as records join documents on documents.id = records.document_id
        where records.name_key not in (select name_key from card_names where name_key is not null)
        group by records.lang, records.name order by records.lang, records.name"""
    )
    write_differences(db, "unresolved_card_names", "staged_unresolved_names", ("lang", "name", "name_key", "source"),
                      key=("lang", "name"))
    db.execute("drop table temp.staged_unresolved_names")


def ensure_cards_exist(db: sqlite_utils.Database, ruling_names: RulingNames | None = None) -> None:
    """A ruling may name an Oracle id whose card data we have not imported: keep the ruling,
    give the card a row without a name, and say so (``ruling_names``: the names those cards'
    rulings call them by, found as the rulings were derived)."""
    # Without card data: no row, or the row a former import gave it (``resolve_card_names``,
    # which removes those, runs only when card data changed).
    missing = [
        row[0]
        for row in db.execute(
            # Each card looked up once, not once per ruling (1.4–2.1 → 0.5 s at a million rulings).
            "select oracle_id from (select distinct oracle_id from rulings where oracle_id is not null) as ruled"
            " where not exists (select 1 from cards where cards.oracle_id = ruled.oracle_id and cards.name is not null)"
            " order by oracle_id"
        )
    ]
    db.conn.executemany("insert or ignore into cards (oracle_id) values (?)", [(oracle_id,) for oracle_id in missing])
    name_cards_from_rulings(db, missing, None if ruling_names is None else ruling_names.found_for(missing))
    if missing:
        # One issue, not one per card: a rulings bulk file imported alone would flood the table.
        shown = first_few(missing, 5)
        save_quality_issue(
            db,
            QualityIssue(
                "card-data-missing",
                f"rulings name {len(missing)} Oracle ids with no imported card data ({shown});"
                " their cards have no name until card data is imported",
            ),
        )


# A card's own rulings call it by name ("If the target of any of Deathrite Shaman’s three
# abilities…"): two or more capitalised words (joined by "of", "the", …) before a possessive.
_POSSESSIVE_NAME = re.compile(
    r"\b([A-Z][\w-]*(?:,? (?:(?:of|the|from|to|and|in|with|a|an) )*[A-Z][\w-]*)+)[’']s\b"
)
# Words that open a sentence or clause in rulings, not card names.
_NOT_NAME_WORDS = frozenset(
    "If When Whenever The A An As Because Once While Each You Your Unless Although After Before"
    " Since For In On At To This That It Its Any All Other Another Then Otherwise Also".split()
)


def name_in_rulings(texts: list[str], other_names: set[str]) -> str | None:
    """The name a card's rulings call it by, when one phrase alone does: a possessive title-case
    phrase of two or more words, not another card's name, named in at least half the rulings."""
    found: Counter[str] = Counter()
    for text in texts:
        if not _may_name(text):
            continue
        for match in _POSSESSIVE_NAME.finditer(text):
            words = match.group(1).split(" ")
            while words and words[0].rstrip(",") in _NOT_NAME_WORDS:
                words.pop(0)
            phrase = " ".join(words)
            if len(words) >= 2 and phrase not in other_names:
                found[phrase] += 1
    # A card's rulings keep naming the card; another card comes up in one ruling of many.
    mentioned = {phrase: sum(phrase in text for text in texts) for phrase in found}
    ranked = sorted(mentioned.items(), key=lambda item: -item[1])
    if not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    phrase, count = ranked[0]
    return phrase if count * 2 >= len(texts) else None


def _may_name(text: str) -> bool:
    """Whether ``_POSSESSIVE_NAME`` can match: some possessive ends a word that follows a space
    and starts with a capital (its last word). The pattern tried every capital of every ruling:
    most of a fresh import's card naming."""
    for apostrophe in ("\u2019s", "'s"):
        end = text.find(apostrophe)
        while end != -1:
            start = text.rfind(" ", 0, end) + 1
            if start > 0 and "A" <= text[start] <= "Z":
                return True
            end = text.find(apostrophe, end + 1)
    return False


class RulingNames:
    """The names that cards without card data are called by in their rulings, found while the
    rulings are derived card by card, with their texts at hand: reading every text back was a
    join over the whole rulings table."""

    def __init__(self, db: sqlite_utils.Database, keep_unseen: bool = False) -> None:
        """``keep_unseen``: the cards not seen keep the names they have (an import that derived
        only some cards and changed no English name: their texts and the names a phrase must not
        be are as before); otherwise they are read from their stored rulings."""
        self.db = db
        self.keep_unseen = keep_unseen
        self.with_card_data = {row[0] for row in db.execute("select oracle_id from cards where name is not null")}
        self.known = english_names(db)
        self.names: dict[str, str] = {}
        self.seen: set[str] = set()

    def see(self, oracle_id: str | None, texts: list[str]) -> None:
        """All the rulings of one card: the texts ``rulings`` will hold for it."""
        if oracle_id is None or oracle_id in self.with_card_data:
            return
        self.seen.add(oracle_id)
        name = name_in_rulings(texts, self.known)
        if name:
            self.names[oracle_id] = name

    def found_for(self, oracle_ids: list[str]) -> dict[str, str]:
        """The names of these cards: as seen, else as they are, else from their rulings."""
        unseen = [oracle_id for oracle_id in oracle_ids if oracle_id not in self.seen]
        found = dict(self.names)
        if unseen and self.keep_unseen:
            found.update(_current_names(self.db, unseen))
        elif unseen:
            found.update(_names_from_stored_rulings(self.db, unseen))
        return found


def english_names(db: sqlite_utils.Database) -> set[str]:
    """The English names a card's rulings may name without meaning the card (card data's names)."""
    return {row[0] for row in db.execute("select name from card_names where lang = 'en' and source != 'rulings'")}


def _current_names(db: sqlite_utils.Database, oracle_ids: list[str]) -> dict[str, str]:
    wanted = set(oracle_ids)
    return {
        oracle_id: name
        for oracle_id, name in db.execute("select oracle_id, name from card_names where source = 'rulings'")
        if oracle_id in wanted
    }


def name_cards_from_rulings(
    db: sqlite_utils.Database, oracle_ids: list[str], found: dict[str, str] | None = None
) -> int:
    """Cards known only by their rulings get the name those rulings call them by (``card_names``
    source ``rulings``), so their page is titled "Deathrite Shaman", not an Oracle id.
    ``found``: those names already found (``RulingNames``), else read from the rulings."""
    names = (_names_from_stored_rulings(db, oracle_ids) if oracle_ids else {}) if found is None else found
    named = {
        (oracle_id, "en", names[oracle_id], "rulings", name_key(names[oracle_id]))
        for oracle_id in oracle_ids if oracle_id in names
    }
    # Only what differs is written: names that stay keep their rows (and search index entries).
    held = set(db.execute("select oracle_id, lang, name, source, name_key from card_names where source = 'rulings'"))
    db.conn.executemany(
        "delete from card_names where oracle_id = ? and lang = ? and name = ? and source = ?",
        [row[:4] for row in sorted(held - named)],
    )
    db.conn.executemany(
        "insert or ignore into card_names (oracle_id, lang, name, source, name_key) values (?,?,?,?,?)",
        sorted(named - held),
    )
    return len(named)


def _names_from_stored_rulings(db: sqlite_utils.Database, oracle_ids: list[str]) -> dict[str, str]:
    known = english_names(db)
    # One query over the cards (a temporary table of them), not one a card: 10k queries were
    # a second and a half of a fresh 100k-ruling import.
    db.execute("create temp table unnamed_cards (oracle_id text primary key)")
    db.conn.executemany("insert or ignore into temp.unnamed_cards values (?)", [(oracle_id,) for oracle_id in oracle_ids])
    rows = db.execute(
        "select rulings.oracle_id, rulings.text from temp.unnamed_cards"
        " join rulings on rulings.oracle_id = unnamed_cards.oracle_id where rulings.text is not null"
        " order by unnamed_cards.oracle_id"
    )
    # Card by card as the cursor gives them: every text of a bulk file is never held at once.
    names = {}
    for oracle_id, card_rows in groupby(rows, key=itemgetter(0)):
        name = name_in_rulings([text for _id, text in card_rows], known)
        if name:
            names[oracle_id] = name
    db.execute("drop table temp.unnamed_cards")
    return names


def report_unknown_cards(db: sqlite_utils.Database) -> None:
    for row in db.query(
        "select distinct rulings.card_name, rulings.card_name_lang, ruling_sightings.document_id"
        " from rulings join ruling_sightings on ruling_sightings.ruling_id = rulings.id"
        " where rulings.oracle_id is null and rulings.card_name is not null"
        " order by 1, 2, 3"
    ):
        save_quality_issue(
            db,
            QualityIssue(
                "unknown-card",
                f"card {row['card_name']!r} ({row['card_name_lang']}) is not in the card data yet; its rulings wait to be linked",
            ),
            row["document_id"],
        )
