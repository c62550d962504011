"""What the glossary pages show: the index of terms, and one term with its rules, translations and history."""
from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection
from typing import Any

from kb.link.cr_compare import collapse
from kb.link.glossary_lineage import split_parts
from kb.site.absent_citations import absent_citations
from kb.site.search_db import newest_english_version, rows, table_has_rows
from kb.site.search_fulltext import terms_named
from kb.site.search_text import bare_term, fold, rule_number_key, title_key
from kb.site.stale_citations import renumbered_citations
from kb.site.symbol_readings import symbol_readings
from kb.site.translated_citations import translated_text_citations


def glossary_index(conn: sqlite3.Connection, lang: str = "en") -> dict[str, Any]:
    """Every term of the newest glossary of ``lang``, by first letter."""
    version = newest_version(conn, lang)
    letters: dict[str, list[dict[str, Any]]] = {}
    # A term two entries share (the Chinese glossary's 平原行者: Plainscycling and Plainswalk) is
    # listed once for each, told apart by the English term each translates.
    for row in rows(conn, """select glossary.term, english.term as en from glossary
            left join glossary_links on glossary_links.glossary_id = glossary.id
            left join glossary as english on english.id = glossary_links.en_glossary_id
            where glossary.version_id = ? order by glossary.term collate nocase, glossary.position limit 5000""",
                    (version,)):
        letters.setdefault((row["term"][:1] or "?").upper(), []).append(row)
    for terms in letters.values():
        shared = {row["term"] for row in terms if sum(other["term"] == row["term"] for other in terms) > 1}
        for row in terms:
            row["en"] = row["en"] if row["term"] in shared and lang != "en" else None
    return {"lang": lang, "version": version, "letters": letters, "languages": glossary_languages(conn)}


def glossary_languages(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The languages we hold a glossary in, English first, each with its newest version."""
    return rows(conn, """select lang, max(id) as version_id from cr_versions
        where id in (select distinct version_id from glossary) group by lang order by lang != 'en', lang""")


def newest_version(conn: sqlite3.Connection, lang: str) -> str | None:
    if lang == "en":
        return newest_english_version(conn)
    found = conn.execute(
        """select cr_versions.id from cr_versions where lang = ? and exists (
            select 1 from glossary where glossary.version_id = cr_versions.id)
        order by effective_date desc limit 1""",
        (lang,),
    ).fetchone()
    return found[0] if found else None


def glossary_term(conn: sqlite3.Connection, term: str, lang: str = "en", translating: str | None = None) -> dict[str, Any] | None:
    """One term: its definition, the rules it points to and that use it, translations, history.
    ``translating``: of a translated glossary's entries of that term, the one that translates
    this English term (two Chinese entries are 平原行者)."""
    version = newest_version(conn, lang)
    entry = (translating and entry_translating(conn, version, term, translating)) or find_entry(conn, version, term) \
        or last_entry(conn, lang, term)
    if entry is None:
        return None
    english = entry if lang == "en" else english_entry(conn, entry["id"])
    english_term = english["term"] if english else None
    refs_of = english or entry
    newest_english = newest_english_version(conn)
    page: dict[str, Any] = {
        "lang": lang,
        "entry": entry,
        # A term the newest glossary no longer has: its last definition, from an older version.
        "newest_version": version,
        "dropped": entry["version_id"] != version,
        "split_into": split_into(conn, entry) if lang == "en" and entry["version_id"] != version else [],
        # A term asked for by a name the entry had before ("Mana Burn" is today's "Mana Burn
        # (Obsolete)"): the page says so, or it looked like another term's page.
        "earlier_name": term if fold(term) != fold(entry["term"]) else None,
        "english": english,
        # The numbers a definition cites are numbered as in its own version (a translation's as in
        # the edition it translates): linked there, unless that is the newest English one.
        "cites_version": None if entry["version_id"] == newest_english else entry["version_id"],
        "refs_version": None if refs_of["version_id"] == newest_english else refs_of["version_id"],
        "refs": rows(
            conn,
            """select distinct glossary_refs.target_number as number, rules.title, rules.text
            from glossary_refs left join rules on rules.id = glossary_refs.target_rule_id
            where glossary_refs.glossary_id = ? limit 30""",
            (refs_of["id"],),
        ),
        "used_in": rules_using(conn, english_term) if english_term else [],
        "rules_version": newest_english,
        "renumbered_citations": _renumbered_citations(conn, entry) if lang == "en" else {},
        "translations": translations_of(conn, english) if english else [],
        "printed": printed_keywords(conn, english_term) if english_term else [],
        "in_translated_rules": [],
        "history": history_of(conn, english) if english else [],
        "same_term": same_term_entries(conn, entry),
    }
    # A translation's numbers where its English entry cites another rule in that place (the Chinese
    # 解锁, unlock, cites 709.5g, lock, where English cites 709.5f): as on rule pages
    # (``kb.site.rule_translations``), followed where an English wording cites what it does, else
    # led to the English text's, and said.
    if english_term:
        shown = {row["lang"] for row in page["translations"] + page["printed"]}
        page["in_translated_rules"] = keywords_in_translated_rules(conn, english_term, shown)
    page.update({"citations": None, "english_cites": {}})
    if english and lang != "en":
        translates = rows(conn, "select translates_version_id from cr_versions where id = ?", (entry["version_id"],))
        page.update(translated_text_citations(conn, {
            "version_id": entry["version_id"], "text": entry["text"], "english_version": english["version_id"],
            "english_text": english["text"], "english_lineage": english.get("lineage_id"),
            "translates_version_id": translates[0]["translates_version_id"] if translates else None,
        }))
    # What {P} and the like mean in each version whose text the page shows.
    readings = symbol_readings(conn)
    shown = {entry["version_id"], *(entry_then["since_version_id"] for entry_then in page["history"])}
    page["symbol_readings"] = {version_id: readings[version_id] for version_id in sorted(shown) if version_id in readings}
    # English texts only: a translation's numbers follow the edition it translates.
    page["absent_citations"] = absent_citations(conn, [
        *([(entry["text"], entry["version_id"])] if lang == "en" else []),
        *((entry_then["text"], entry_then["since_version_id"]) for entry_then in page["history"]),
    ])
    return page


def _renumbered_citations(conn: sqlite3.Connection, entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The numbers the entry cites that went to another rule after its text was written (2015's
    "Anchor Word … See rule 614.12b", 614.12c since 2026-01-16: ``kb.site.stale_citations``)."""
    lineage = conn.execute("select lineage_id from glossary where id = ?", (entry["id"],)).fetchone()
    return renumbered_citations(conn, [{**entry, "lineage_id": lineage[0] if lineage else None}], "glossary")


def split_into(conn: sqlite3.Connection, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries the next English glossary we hold defines a dropped entry's thing in, where it
    is two or more (``kb.link.glossary_lineage.split_parts``): 2003's "Source" is "Source of an
    Ability" and "Source of Damage" since; its page said only that the term was gone."""
    following = rows(conn, """select id from cr_versions where lang = 'en'
        and effective_date > (select effective_date from cr_versions where id = ?)
        and exists (select 1 from glossary where glossary.version_id = cr_versions.id and glossary.lineage_id is not null)
        order by effective_date limit 1""", (entry["version_id"],))
    if not following:
        return []
    version_id = following[0]["id"]
    # Entries whose lineage begins there: none of them continues an older entry.
    new = rows(conn, "select term, text from glossary where version_id = ? and lineage_id = version_id || '/glossary:' || term",
               (version_id,))
    parts = split_parts(entry["term"], {row["term"]: row["text"] for row in new})
    return [{"term": term, "version_id": version_id} for term in parts] if len(parts) >= 2 else []


def same_term_entries(conn: sqlite3.Connection, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The version's other entries printed with ``entry``'s term, each with the English term it
    translates: the Chinese glossary prints 平原行者 for Plainscycling and for Plainswalk, and its
    page showed the first only, "see typecycling" (a foreign judges' review)."""
    return rows(conn, """select other.id, other.term, other.text, english.term as english_term
        from glossary as other
        left join glossary_links on glossary_links.glossary_id = other.id
        left join glossary as english on english.id = glossary_links.en_glossary_id
        where other.version_id = ? and other.term = ? and other.id != ? order by other.id limit 10""",
                (entry["version_id"], entry["term"], entry["id"]))


def find_entry(conn: sqlite3.Connection, version: str | None, term: str) -> dict[str, Any] | None:
    found = rows(conn, "select id, term, text, version_id from glossary where version_id = ? and term = ? limit 1",
                 (version, term))
    if not found:
        wanted = fold(term)
        found = [row for row in rows(conn, "select id, term, text, version_id from glossary where version_id = ? limit 5000",
                                     (version,)) if fold(row["term"]) == wanted][:1]
    if not found:
        # A term the glossary no longer uses: the entry it became ("In Play" is "Battlefield").
        found = rows(conn, """select newest.id, newest.term, newest.text, newest.version_id
            from glossary as older join glossary as newest on newest.lineage_id = older.lineage_id
            where older.term = ? and older.lineage_id is not null and newest.version_id = ?
            limit 1""", (term, version))
    if not found:
        # Or by that name without its qualifier: "Summoning Sickness" was 2003's "Summoning
        # Sickness (Obsolete)" and "(Informal)", today's Summoning Sickness Rule (a 404: a review).
        # The entries of that name, from the search's map (a LIKE scanned the glossary: 17 ms);
        # every one, the newest chosen below (a term has one a version, two at most).
        named = terms_named(conn).get(title_key(term), [])[:5000]
        wanted = fold(term)
        found = [row for row in rows(conn, f"""select older.term as older_term, newest.id, newest.term, newest.text,
            newest.version_id from glossary as older join glossary as newest on newest.lineage_id = older.lineage_id
            join cr_versions on cr_versions.id = older.version_id
            where older.id in ({", ".join("?" * len(named))}) and newest.version_id = ?
            order by cr_versions.effective_date desc""", (*named, version))
            if fold(bare_term(row.pop("older_term"))) == wanted][:1]
    return found[0] if found else None


def last_entry(conn: sqlite3.Connection, lang: str, term: str) -> dict[str, Any] | None:
    """The entry of the newest ``lang`` version that still defines ``term``, for a term the glossary
    has dropped and no later entry became ("Comes into Play"): old rule pages link their own
    glossary's terms."""
    found = rows(conn, """select glossary.id, glossary.term, glossary.text, glossary.version_id
        from glossary join cr_versions on cr_versions.id = glossary.version_id
        where glossary.term = ? collate nocase and cr_versions.lang = ?
        order by cr_versions.effective_date desc limit 1""", (term, lang))
    return found[0] if found else None


def language_holding(conn: sqlite3.Connection, term: str) -> str | None:
    """The language of the newest translated glossary defining ``term`` (飞行: zhs), if any."""
    found = conn.execute(
        """select cr_versions.lang from glossary join cr_versions on cr_versions.id = glossary.version_id
        where glossary.term = ? and cr_versions.lang != 'en' order by cr_versions.effective_date desc limit 1""",
        (term,),
    ).fetchone()
    return found[0] if found else None


def keyword_named(conn: sqlite3.Connection, term: str, lang: str) -> tuple[str, str] | None:
    """The English glossary term of a keyword as another language prints it or its translated
    rules name it ("Trampelschaden", "トランプル", "돌진": Trample), and that language (``lang``'s
    first where it has the term): "/glossary/Trampelschaden" answered 404, though the search and
    Trample's page name it (a review in the judges' languages). Only a term that agreeing
    printings or the translated rules give, and one English keyword for it."""
    if not table_has_rows(conn, "keyword_dictionary"):
        return None
    found = rows(conn, """select lang, en_term from keyword_dictionary
        where term_key = ? and lang != 'en' and status != 'dissent'
        order by lang = ? desc, printings desc""", (fold(term), lang))
    if len({row["en_term"].casefold() for row in found}) != 1:
        return None
    english = find_entry(conn, newest_english_version(conn), found[0]["en_term"])
    return (english["term"], found[0]["lang"]) if english else None


def entry_translating(conn: sqlite3.Connection, version: str | None, term: str, english_term: str) -> dict[str, Any] | None:
    found = rows(conn, """select glossary.id, glossary.term, glossary.text, glossary.version_id
        from glossary join glossary_links on glossary_links.glossary_id = glossary.id
        join glossary as english on english.id = glossary_links.en_glossary_id
        where glossary.version_id = ? and glossary.term = ? and english.term = ? collate nocase limit 1""",
                 (version, term, english_term))
    return found[0] if found else None


def term_in_language(conn: sqlite3.Connection, term: str, lang: str) -> tuple[str, str | None] | None:
    """The term of ``lang``'s glossary that translates the English ``term`` ("Flying" in the
    Chinese glossary: 飞行), by the glossary links of its lineage; the newest translation's. With
    the English term it translates where another entry of that glossary has the same term."""
    english = find_entry(conn, newest_english_version(conn), term) or last_entry(conn, "en", term)
    if english is None or lang == "en":
        return None
    found = sorted((row for row in translations_of(conn, english) if row["lang"] == lang),
                   key=lambda row: row["date"] or "", reverse=True)
    if not found:
        return None
    shared = conn.execute("select count(*) from glossary where version_id = ? and term = ?",
                          (found[0]["version_id"], found[0]["term"])).fetchone()[0]
    return found[0]["term"], english["term"] if shared > 1 else None


def english_entry(conn: sqlite3.Connection, glossary_id: int) -> dict[str, Any] | None:
    found = rows(conn, """select english.id, english.term, english.text, english.version_id, english.lineage_id
        from glossary_links join glossary as english on english.id = glossary_links.en_glossary_id
        where glossary_links.glossary_id = ?""", (glossary_id,))
    return found[0] if found else None


def rules_using(conn: sqlite3.Connection, term: str, limit: int = 40) -> list[dict[str, Any]]:
    """Rules of the current version whose text names the term (a bounded phrase search)."""
    words = [word for word in bare_term(term).replace('"', " ").split() if word]
    if not words:
        return []
    phrase = '"' + " ".join(words) + '"'
    found = rows(
        conn,
        """select rules.number, rules.title, rules.text from rules_fts cross join rules on rules.rowid = rules_fts.rowid
        where rules_fts match ? and rules.version_id = ? limit ?""",
        ("{title text} : " + phrase, newest_english_version(conn), limit),
    )
    return sorted(found, key=lambda row: rule_number_key(row["number"]))


def translations_of(conn: sqlite3.Connection, english: dict[str, Any]) -> list[dict[str, Any]]:
    """The term in each translated CR that links its glossary entry to an English entry of this
    lineage (a translation made before a rename links to the old term: Mana Value's Chinese entry
    may translate "Converted Mana Cost"); by the term where there are no glossary lineages."""
    select = """select cr_versions.lang, glossary.term, glossary.text, glossary.version_id, max(cr_versions.effective_date) as date
        from glossary as english
        join glossary_links on glossary_links.en_glossary_id = english.id
        join glossary on glossary.id = glossary_links.glossary_id
        join cr_versions on cr_versions.id = glossary.version_id
        where {which} and english.version_id in (select id from cr_versions where lang = 'en')
        group by cr_versions.lang, glossary.term order by cr_versions.lang limit 50"""
    lineage = conn.execute("select lineage_id from glossary where id = ?", (english["id"],)).fetchone()
    if lineage and lineage[0]:
        return rows(conn, select.format(which="english.lineage_id = ?"), (lineage[0],))
    return rows(conn, select.format(which="english.term = ?"), (english["term"],))


def printed_keywords(conn: sqlite3.Connection, english_term: str) -> list[dict[str, Any]]:
    """The keyword as localized cards print it, with how many printings agree."""
    if not table_has_rows(conn, "keyword_dictionary"):
        return []
    return rows(
        conn,
        """select lang, term, printings, dissent, status, sources from keyword_dictionary
        where en_term = ? collate nocase and printings > 0 order by lang, printings desc limit 60""",
        (bare_term(english_term),),
    )


def keywords_in_translated_rules(
    conn: sqlite3.Connection, english_term: str, shown_langs: Collection[str] = ()
) -> list[dict[str, Any]]:
    """The keyword as a translated CR names it where no card we hold prints it, in the languages
    not in ``shown_langs``, each with the translated rule that says it: the Korean 122.1b lists 돌진
    (Trample), which the search names "in the translated rules" and Trample's pages showed nowhere
    (a Korean judge's review). That rule is one whose English rule says the keyword, so a word
    the term only begins ("신속하게", quickly, for 신속, haste) is not taken for it; and the rule
    titled with the term first, where one is (a passing mention came first: a review of the change)."""
    if not table_has_rows(conn, "keyword_dictionary"):
        return []
    english = bare_term(english_term)
    says_english = re.compile(rf"(?<!\w){re.escape(english)}(?!\w)", re.IGNORECASE)
    named: list[dict[str, Any]] = []
    for row in rows(conn, """select lang, term from keyword_dictionary
            where en_term = ? collate nocase and printings = 0 order by lang limit 20""", (english,)):
        if row["lang"] in shown_langs:
            continue
        candidates = rows(conn, """select translated.number, translated.version_id, cr_versions.effective_date,
                english.title as english_title, english.text as english_text
            from rules as translated
            join cr_versions on cr_versions.id = translated.version_id
            join rule_links on rule_links.rule_id = translated.id and rule_links.status != 'mismatch'
            join rules as english on english.id = rule_links.en_rule_id
            where cr_versions.lang = :lang
                and instr(coalesce(translated.title, '') || ' ' || coalesce(translated.text, ''), :term) > 0
                and (english.title = :english collate nocase or instr(lower(english.text), lower(:english)) > 0)
            order by coalesce(translated.title, '') != :term, cr_versions.effective_date desc, translated.position
            limit 50""",
            {"lang": row["lang"], "term": row["term"], "english": english})
        said = next((candidate for candidate in candidates if (candidate["english_title"] or "").casefold() == english.casefold()
                     or says_english.search(candidate["english_text"] or "")), None)
        if said:
            named.append({**row, "number": said["number"], "version_id": said["version_id"],
                          "effective_date": said["effective_date"]})
    return named


def history_of(conn: sqlite3.Connection, english: dict[str, Any]) -> list[dict[str, Any]]:
    """The English entry through the versions we hold, one row per distinct term and text (newest
    first): its lineage, so a renamed term keeps its history ("Mana Value" was "Converted Mana
    Cost" until 2021); by its term where the database has no glossary lineages."""
    found = rows(
        conn,
        """select glossary.term, glossary.text, cr_versions.id as version_id, cr_versions.effective_date
        from glossary join cr_versions on cr_versions.id = glossary.version_id
        where glossary.lineage_id = (select lineage_id from glossary where id = :id) and cr_versions.lang = 'en'
        order by cr_versions.effective_date desc limit 60""",
        {"id": english["id"]},
    ) or rows(
        conn,
        """select glossary.term, glossary.text, cr_versions.id as version_id, cr_versions.effective_date
        from glossary join cr_versions on cr_versions.id = glossary.version_id
        where glossary.term = ? and cr_versions.lang = 'en' order by cr_versions.effective_date desc limit 60""",
        (english["term"],),
    )
    history: list[dict[str, Any]] = []
    for row in found:
        # Typography folded, as in a rule's history (an edition set in straight quotes).
        if history and collapse(history[-1]["text"] or "") == collapse(row["text"] or "") and history[-1]["term"] == row["term"]:
            history[-1]["since"] = row["effective_date"]
            history[-1]["since_version_id"] = row["version_id"]
            history[-1]["versions"] += 1
        else:
            history.append({"term": row["term"], "text": row["text"], "since": row["effective_date"],
                            "until": row["effective_date"], "version_id": row["version_id"],
                            "since_version_id": row["version_id"], "versions": 1,
                            "renamed": row["term"] != english["term"]})
    return history
