"""Rules in the one-box search: by number, and by text with older versions' copies folded under the rule they are now.

Rule matches of every CR version share one full-text index; a query reads its first
``RULES_SCAN`` matches once, sorts them into the current, translated and older versions by a
rowid map kept per served file, and reads texts only for the hits a page shows.
"""
from __future__ import annotations

import html
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Collection, Mapping
from typing import Any

from kb.site.search_db import (
    newest_english_version,
    per_file,
    rowids,
    rows,
    rule_heads,
    rule_url,
    rules_titled,
    table_exists,
    translated_versions,
    version_languages_and_dates,
)
from kb.site.search_fulltext import terms_named, words_first
from kb.site.search_hit import Hit
from kb.site.search_question_words import question_words
from kb.site.search_text import (
    WORD,
    fold,
    rule_number_key,
    rules_over,
    singular,
    stem,
    title_key,
    word_stems_as_prefixes,
)
from kb.store import derive_lineage
from kb.store.save_cr import CONFLICTING_COPY
from kb.store.schema import CURRENT_RULES_INDEX

RULES_WINDOW = 200  # rules of the current version read per query
OTHER_RULES_WINDOW = 100  # of translated versions, and of older English versions
# Index matches read at most per query, before sorting them by version: rules of every
# version share one index, and "the" matches 18k of them.
RULES_SCAN = 1000

# "702.78a", "702.78", "702", "7", optionally after the word "rule" in a few languages, "section"
# or "§" ("section 903", as judges name a part of the rules) and the CR's own "see".
RULE_NUMBER_QUERY = re.compile(
    # The word typed without its accent ("regle") or plural ("reglas") too: "regle 702.19" was read
    # as a word of the rules, and the translated rule was not listed (a foreign players' review).
    r"^\s*(?:see\s+)?(?:(?:rules?|sections?|cr|reglas?|r[eè]gles?|regeln?|regol[ae]|regras?|правил[оа]|规则|規則|규칙|"
    r"総合ルール|ルール|§)\s*)?"
    # "第702.19条" and "702.19条", as a Chinese text cites a rule; "702.19조" in Korean; "702.19b項"
    # and "ルール702.9b" in Japanese.
    # "702,9b" as a German or French keypad types the decimal point.
    # (A comma before three digits or more is a list: "113,602".)
    # "704.5 j", a space before the letter, as some judges type it: 704.5j (704.5 was the answer,
    # its subrules a–i the first page, and the legend rule on none: a judge's review).
    r"(?:第\s*)?(?P<number>[1-9]\d{0,2}(?:\.\d+ ?[a-z]?|,(?:\d{1,2}[a-z]?|\d+[a-z]))?)\.?\s*(?:[条條조항項]\s*)?$",
    re.IGNORECASE,
)
RULE_NUMBER_IN_QUERY = re.compile(r"(?<![\w.])([1-9]\d{2}\.\d+[a-z]?)(?![\w])")


def rule_number_asked(match: re.Match[str]) -> str:
    """The number ``RULE_NUMBER_QUERY`` matched, as the rules print it ("702,9b", "704.5 j")."""
    return match.group("number").replace(",", ".").replace(" ", "")


def rules_by_number(conn: sqlite3.Connection, query: str) -> list[Hit]:
    """Rule numbers answered by number: the newest English version that has the rule."""
    whole = RULE_NUMBER_QUERY.match(query)
    numbers = [rule_number_asked(whole)] if whole else RULE_NUMBER_IN_QUERY.findall(query)
    newest = newest_english_version(conn)
    hits = []
    for number in numbers[:5]:
        for row in rows(
            conn,
            """select rules.number, rules.title, rules.text, rules.version_id, rules.lineage_id
            from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.number = ? and cr_versions.lang = 'en'
            order by cr_versions.effective_date desc limit 1""",
            (number.lower(),),
        ):
            version = None if row["version_id"] == newest else row["version_id"]
            title = f"{row['number']} {row['title'] or ''}".strip()
            hit = Hit("rule", title, rule_url(row["number"], version), html.escape((row["text"] or "")[:240]),
                      "en", "number" + (f" (only in {row['version_id']})" if version else ""))
            if version:  # an older version's rule: the rule it is today, where its identity goes on
                hit.now = numbers_now(conn, [row["lineage_id"]], newest).get(row["lineage_id"] or "", "")
                hit.now_by_number = bool(hit.now) and bool(
                    now_by_number_alone(conn, {row["lineage_id"]: row["version_id"]}, newest))
            hits.append(hit)
    return hits


def rule_windows(
    conn: sqlite3.Connection, match: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], bool]:
    """Rules matching ``match``: up to RULES_WINDOW of the current English version,
    OTHER_RULES_WINDOW of translated and of older English versions, all from the first RULES_SCAN
    index matches (one pass over the index; only the chosen rules' texts are read). The flag: a
    window filled up or the scan stopped short of every match (counts are then lower bounds). The
    rules' heads and groups come from maps kept per served file (``rule_heads``,
    ``rule_groups``), not from the rules table."""
    found = words_first(lambda expression: rowids(
        conn, "select rowid from rules_fts where rules_fts match ? limit ?", (expression, RULES_SCAN + 1)),
        match, RULES_SCAN + 1, conn, "rules_fts")
    now: list[int] = []
    own_index = table_exists(conn, CURRENT_RULES_INDEX)
    if own_index:
        # Today's and the translated rules from their own index, whole windows of them: read among
        # every edition's, those past its first thousand matches were never listed.
        now = words_first(lambda expression: rowids(
            conn, f"select rowid from {CURRENT_RULES_INDEX} where {CURRENT_RULES_INDEX} match ? limit ?",
            (expression, RULES_SCAN + 1)), match, RULES_SCAN + 1, conn, "rules_fts")
    heads = rule_heads(conn)
    version_rows = version_languages_and_dates(conn)
    group_of = rule_groups(conn)
    chosen: dict[str, list[int]] = {"current": [], "translated": [], "older": []}
    sizes = {"current": RULES_WINDOW, "translated": OTHER_RULES_WINDOW, "older": OTHER_RULES_WINDOW}
    from_now = {"current", "translated"} if own_index else set()
    for scanned, groups in ((now[:RULES_SCAN], from_now), (found[:RULES_SCAN], set(sizes) - from_now)):
        room = {group: sizes[group] for group in groups}
        for rowid in scanned:
            group = group_of.get(rowid)
            if group in room:
                chosen[group].append(rowid)
                room[group] -= 1
                if not room[group]:
                    del room[group]
                    if not room:  # every window full: the rest would be passed over
                        break

    def window_row(rowid: int) -> dict[str, Any]:
        # Without its text: a page shows ten of these hundreds (``with_texts`` reads those).
        head = heads[rowid]
        lang, effective_date = version_rows[head.version_id]
        return {"rowid": rowid, "number": head.number, "title": head.title, "version_id": head.version_id,
                "lang": lang, "effective_date": effective_date, "lineage_id": head.lineage_id}

    windows = [[window_row(rowid) for rowid in chosen[group]] for group in sizes]
    capped = (len(found) > RULES_SCAN or len(now) > RULES_SCAN or len(chosen["current"]) >= RULES_WINDOW
              or len(chosen["translated"]) >= OTHER_RULES_WINDOW)
    return windows[0], windows[1], windows[2], capped


_RULE_GROUPS: OrderedDict[tuple, dict[int, str]] = OrderedDict()


def rule_groups(conn: sqlite3.Connection) -> dict[int, str]:
    """``rules.rowid`` → "current" (the newest English version's rules), "translated" or "older",
    kept per served file: a common word's search asked three maps of each of its two thousand
    matches."""
    def read(of: sqlite3.Connection) -> dict[int, str]:
        current, translated = newest_english_version(of), set(translated_versions(of))
        # A conflicting copy of an edition is no older version (kb.store.save_cr.mark_conflicting_copy):
        # it was listed among a rule's older versions, last, undated (a docs review).
        copies = {row[0] for row in of.execute("select id from cr_versions where status like ?", [CONFLICTING_COPY + "%"])}
        group_of = {version: "current" if version == current else "translated" if version in translated else "older"
                    for version in version_languages_and_dates(of) if version not in copies}
        return {rowid: group_of[head.version_id] for rowid, head in rule_heads(of).items() if head.version_id in group_of}

    return per_file(conn, _RULE_GROUPS, read)


def with_texts(conn: sqlite3.Connection, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``found`` with each window row's ``text`` read (one query for all of them)."""
    wanted = [row["rowid"] for row in found if "text" not in row]
    if wanted:
        texts = dict(conn.execute(f"select rowid, text from rules where rowid in ({','.join('?' * len(wanted))})", wanted))
        for row in found:
            if "text" not in row:
                row["text"] = texts.get(row["rowid"])
    return found


# The rules a query names that are read, each with its subrules.
NAMED_AT_MOST = 5


def about_rules(conn: sqlite3.Connection, numbers: list[str], version: str | None) -> list[dict[str, Any]]:
    """The rules a query names (a keyword's rule, the rule a glossary term points to) with their subrules."""
    found: list[dict[str, Any]] = []
    for number in numbers[:NAMED_AT_MOST]:
        found += rows(
            conn,
            """select rules.number, rules.title, rules.text, rules.version_id, cr_versions.lang,
                cr_versions.effective_date, rules.lineage_id, null as snip
            from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.id in (select id from rules where version_id = ? and number = ?
                union all select id from rules where version_id = ? and parent_number = ? limit 60)""",
            (version, number, version, number),
        )
    return found


def glossary_rule_numbers(conn: sqlite3.Connection, query: str, version: str | None) -> list[str]:
    """Rules the current glossary's entry for this term points to ("Legend Rule" -> 704.5j; "continuous
    effects" -> the entry "Continuous Effect"): the same ``title_key``."""
    wanted = title_key(query)
    if not wanted:
        return []
    # By the term's words, not as typed: "active player nonactive player order" names "Active
    # Player, Nonactive Player Order" (a LIKE on the term missed the comma; 805.6, which its
    # entry cites second, led the rules).
    named = terms_named(conn).get(wanted, [])
    entries = rows(
        conn, f"select id, term from glossary where version_id = ? and id in ({', '.join('?' * len(named))})",
        (version, *named),
    ) if named else []
    numbers: list[str] = []
    for entry in entries:
        if title_key(entry["term"]) == wanted:
            numbers += [row["target_number"] for row in rows(
                conn, "select target_number from glossary_refs where glossary_id = ? limit 10", (entry["id"],))]
    return numbers


# A title more rules share than this names none of them ("General" heads nine sections).
TITLED_AT_MOST = 2


# "layer 7b": a layer is named where its rule begins ("613.4b Layer 7b: Effects that set power…");
# "layers 7b and 7c", "layer 7b vs 7c which applies first": each of them.
LAYERS = re.compile(
    r"\blayers?\s*(?P<labels>[1-9][a-d]?(?:\s*(?:,|&|/|\band\b|\bor\b|\bvs\b\.?|\bversus\b)\s*(?:layer\s*)?[1-9][a-d]?)*)(?!\w)",
    re.IGNORECASE,
)
LAYER_LABEL = re.compile(r"[1-9][a-d]?", re.IGNORECASE)
LAYERS_AT_MOST = 4


def layer_rule_numbers(conn: sqlite3.Connection, query: str, version: str | None) -> list[str]:
    """The rules of the version that name the layers the query asks for ("layer 7b" -> 613.4b;
    "layer 7b vs 7c which applies first" -> 613.4b, 613.4c: the question found 613 and its first
    rules, 613.4b seventeenth, a judge's review)."""
    asked = LAYERS.search(query)
    if asked is None or version is None:
        return []
    numbers: list[str] = []
    for label in list(dict.fromkeys(label.lower() for label in LAYER_LABEL.findall(asked.group("labels"))))[:LAYERS_AT_MOST]:
        numbers += [row[0] for row in conn.execute(
            "select number from rules where version_id = ? and text like ? limit 2", (version, f"Layer {label}:%"))]
    return numbers


def titled_rule_numbers(conn: sqlite3.Connection, query: str, version: str | None, translated: list[str]) -> list[str]:
    """Rules of the current version titled as the query names them ("day and night" -> 731 Day
    and Night, "the stack" -> 405 Stack, "continuous effect" -> 611 Continuous Effects; "layer 7b"
    -> 613.4b, which the layer's name begins), else the current rules a translated version's
    rules of that title translate ("堆叠", "스택" -> 405)."""
    layer = layer_rule_numbers(conn, query, version)
    if layer:
        return layer
    key = title_key(query)
    if not key:
        return []
    numbers = rules_titled(conn, version, key)
    if numbers:
        return numbers if len(numbers) <= TITLED_AT_MOST else []
    for titled_in in translated:
        numbers = rules_titled(conn, titled_in, key)
        if numbers:
            return current_rules_translated(conn, titled_in, numbers, version) if len(numbers) <= TITLED_AT_MOST else []
    return []


def current_rules_translated(conn: sqlite3.Connection, translated: str, numbers: list[str], current: str | None) -> list[str]:
    """The current English rules that rules of a translated version translate, by identity: the
    English rule each is linked to, then that rule's lineage today. A translation's numbers are its
    own and age (the Korean CR of 2021 has Split Cards at 708, today's 708 is Face-Down Spells and
    Permanents); a link found contradicting its English rule names nothing."""
    found = conn.execute(
        f"""select distinct now.number from rules as tr
        join rule_links on rule_links.rule_id = tr.id and rule_links.status != 'mismatch'
        join rules as en on en.id = rule_links.en_rule_id
        join rules as now on now.lineage_id = en.lineage_id and now.version_id = ?
        where tr.version_id = ? and tr.number in ({", ".join("?" * len(numbers))})""",
        (current, translated, *numbers),
    ).fetchall()
    return sorted((row[0] for row in found), key=rule_number_key)


def named_rules(conn: sqlite3.Connection, query: str) -> tuple[list[str], list[str]]:
    """The current rules the query names by a glossary term ("legend rule" -> 704.5j) and by a
    title ("day and night" -> 731), as two lists of numbers."""
    current = newest_english_version(conn)
    return glossary_rule_numbers(conn, query, current), titled_rule_numbers(conn, query, current, translated_versions(conn))


def _is_or_under(number: str, head: str) -> bool:
    """Whether ``number`` is ``head`` or one of its subrules ("702.37a" of "702.37")."""
    return number == head or (number.startswith(head) and number[len(head):].isalpha())


def is_or_within(number: str, head: str) -> bool:
    """Whether ``number`` is ``head``, one of its subrules, or a rule of the section ``head``
    ("513.1" of "513"): the rules ``about_rules`` lists for it."""
    return _is_or_under(number, head) or number.startswith(head + ".")


def rules_by_text(
    conn: sqlite3.Connection, query: str, match: str | None, about: list[str], cjk_rows: list[dict[str, Any]],
    shown: int = RULES_WINDOW, first: Collection[str] = (), foremost: Collection[str] = (),
    cjk_places: Mapping[str, int] | None = None, cjk_saying_more: Collection[str] = (),
) -> tuple[list[Hit], int, bool]:
    """Rule hits in reading order: the rules the query names first (``about``: by number, keyword,
    glossary term or title, ``named_rules``; those of ``first`` and their subrules before the
    others, and of those, ``foremost``'s first), then the rules mentioning it: CJK rules in
    ``cjk_places``'s order, by number (``search_cjk_rank``), else in reading order; of a CJK
    question's, those of ``cjk_saying_more`` before the rules under a title the term is.

    Current English rules and translated rules lead; copies of a rule in older English versions
    fold under it (``Hit.older``); rules found only in older versions come last.
    Returns the first ``shown`` hits (only those are built: a page shows a few of the hundreds a
    common word finds), how many there are, and whether a window filled up (the count is then
    a lower bound).
    """
    current = newest_english_version(conn)
    in_force = about_rules(conn, about, current) + list(cjk_rows)
    capped = False
    older: list[dict[str, Any]] = []
    if match:
        window, translations, older, capped = rule_windows(conn, match)
        in_force += window + translations
    # Rows, not hits, until the page's share is known: (row, its older copies).
    found: dict[tuple[str, str], tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for row in in_force:
        found.setdefault((row["lang"], row["number"]), (row, []))
    # An older version's copy folds under the rule it is now: the same lineage (a renumbered
    # rule under its new number; an old rule that only shares a number stays apart). Without
    # lineages (a database built before them): the same number, else the same title or text.
    by_lineage = {row["lineage_id"]: (row["lang"], row["number"]) for row in in_force if row.get("lineage_id")}
    by_text: dict[tuple[str, str], tuple[str, str]] = {}
    only_older: dict[tuple[str, str], tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for row in sorted(older, key=lambda row: row["effective_date"] or "", reverse=True):
        if row.get("lineage_id"):
            home: tuple[str, str] | None = by_lineage.get(row["lineage_id"])
            key = ("lineage", row["lineage_id"])
        else:
            if "text" not in row:
                with_texts(conn, in_force + older)
            home = (row["lang"], row["number"])
            if home not in found:
                if not by_text:
                    by_text = {(row["lang"], text_key(row)): (row["lang"], row["number"]) for row in in_force}
                home = by_text.get((row["lang"], text_key(row)), home)
            key = (row["lang"], text_key(row))
        target = (found.get(home) if home else None) or only_older.get(key)
        if target is None:
            only_older[key] = (row, [])
        elif len(target[1]) < 20:
            target[1].append(row)
    # Of the leading rules, those of ``foremost`` and their subrules first (a player's word's:
    # "will my ability fizzle" is 608.2b, then 113 Abilities, which "ability" titles; a code review).
    before_all = {number.lower() for number in foremost}
    named = {number.lower() for number in about}
    leading = {number.lower() for number in first} | before_all
    # The words together, singular or plural: among the rules found by their words, one that says
    # "toughness 0" answers "toughness 0" before rules that hold the two words apart (704.5f came
    # ninth, after every 1xx–7xx rule holding them: an English judge's review). The rules the query
    # names (a section by its title, a glossary entry's rules) keep their reading order: "untap
    # step" is 502 and its rules in order, 502.3 among them (a review of the change). Only for
    # several words, not a rule number ("702.19": 702.19c cites it).
    words = WORD.findall(query.casefold())
    phrase = as_words(query) if len(words) > 1 and not all(word.isdigit() for word in words) else ""
    together: set[str] = set()
    if phrase:
        # By number: a rule and its translations stay side by side (the Korean 704 says "상태 참조
        # 행동", the English one beside it does not).
        said = rules_as_words(conn)
        together = {row["number"] for row, _ in found.values() if phrase in (
            said[row["rowid"]] if row.get("rowid") in said
            else as_words(f"{row.get('title') or ''} {row.get('text') or ''}"))}

    # A rule under a title that says every telling word of the query ("copy of a copy": 707
    # Copying Objects) before those that only mention them (107.3j, 109.1, 111.13 … came first,
    # in number order: an English judge's review), where the title says at most one word more:
    # "attack a player" is not 802 Attack Multiple Players Option, "turn" not 805 Shared Team
    # Turns Option (a review of the change).
    # By number: a rule and its translations stay side by side, whichever language's title says it.
    telling = telling_stems(query)
    titles = section_titles(conn) if telling else {}
    titled = {row["number"] for row, _ in found.values() if telling and titled_by(titles, row["version_id"], row["number"], telling)}

    places = cjk_places or {}

    def order(entry: tuple[dict[str, Any], list[dict[str, Any]]]) -> tuple:
        row = entry[0]
        number = row["number"]
        # (Most queries name no rule: then nothing is named or leads.)
        is_named = bool(named) and any(_is_or_under(number, n) for n in named)
        # A section's rules ("726.1") and a rule's subrules ("702.37a") with it.
        leads = bool(leading) and any(is_or_within(number, n) for n in leading)
        # A section's rules are its own: "untap step" is 502, then 502.1–502.3 (a review).
        in_named = is_named or (bool(named) and any(number.startswith(n + ".") for n in named))
        apart = bool(phrase) and not leads and not in_named and number not in together
        # A rule of a section the query names that says the query's words together, where no
        # title says them: the glossary's "Alternative Cost" names 118 Costs and 601 Casting
        # Spells, and 118.9 ("Some spells have alternative costs") came after 107.3a, 113.2b
        # and 118.1–118.6, none of which it is (a judge's answer key). A titled section's rules
        # ("untap step": 502, then 502.1–502.3) and a named rule's subrules ("face down": 110.5,
        # 110.5a–d) keep their reading order.
        says_it_in_named = in_named and not is_named and number in together and number not in titled
        # (Leading first: 726's own rules 726.1–726.5 before the other meaning's 702.7.)
        # (The rules the query names keep their reading order: "face down" is 110.5 first, its
        # glossary entry's rule, then 708.)
        # After the titled rules: "triggered abilities" is 603 Handling Triggered Abilities's
        # rules, then 113 Abilities's that say it (a review of the change).
        titled_here = not is_named and number in titled
        foremost_here = bool(before_all) and any(is_or_within(number, n) for n in before_all)
        # A CJK question's rule that says more of it with its term: "생명점이 0이 되면" is 104.3b,
        # "생명점이 0 …", before 119.1, which the title 생명점 (Life) heads.
        place = places.get(number, len(places))
        says_more = number in cjk_saying_more
        return (not leads, not foremost_here, not is_named, apart, not says_more, place if says_more else 0,
                not (titled_here or says_it_in_named), not titled_here, place, rule_number_key(number),
                row["lang"] != "en", row["lang"] or "")

    ordered = sorted(found.values(), key=order)
    ordered += sorted(only_older.values(), key=lambda entry: rule_number_key(entry[0]["number"]))
    hits = []
    with_texts(conn, [row for row, _ in ordered[:shown]])
    older_shown = [row for row, _ in ordered[:shown] if row["version_id"] != current and row.get("lineage_id")]
    now = numbers_now(conn, [row["lineage_id"] for row in older_shown], current)
    by_number = now_by_number_alone(
        conn, {row["lineage_id"]: row["version_id"] for row in older_shown if row["lineage_id"] in now}, current)
    in_versions = older_version_counts(conn, [row for row, copies in ordered[:shown] if copies], current)
    for row, copies in ordered[:shown]:
        hit = rule_hit(row, current, query)
        # An older copy shows its version only (the page folds it under the rule).
        hit.older = [rule_hit({**copy, "text": ""}, current, query) for copy in copies]
        hit.older_count = max(len(hit.older), in_versions.get((row.get("lineage_id") or "", row["version_id"]), 0))
        hit.now = now.get(row.get("lineage_id") or "", "") if row["version_id"] != current else ""
        hit.now_by_number = bool(hit.now) and row.get("lineage_id") in by_number
        hits.append(hit)
    return hits, len(ordered), capped


def older_version_counts(
    conn: sqlite3.Connection, found: list[dict[str, Any]], current: str | None
) -> dict[tuple[str, str], int]:
    """(lineage, a hit's version) → the English editions before today's, other than that one,
    holding the rule: the copies a search folds under a hit are those its words matched, twenty
    at most, and "Also in 20 older versions" was said of a rule 28 held (a judge's review)."""
    lineages = sorted({row["lineage_id"] for row in found if row.get("lineage_id")})
    if not lineages or not table_exists(conn, "rule_lineages"):
        return {}
    # A lineage's editions are counted when it is made (rule_lineages.versions: the English
    # editions holding it): one lookup by key a hit, not a read of its rules in every edition.
    held = {row["id"]: row for row in rows(
        conn, f"""select id, versions, current_number from rule_lineages where id in ({", ".join("?" * len(lineages))})""",
        tuple(lineages))}
    counts = {}
    for row in found:
        lineage = held.get(row.get("lineage_id") or "")
        if lineage is not None and lineage["versions"]:
            today = 1 if lineage["current_number"] is not None else 0
            counts[(row["lineage_id"], row["version_id"])] = lineage["versions"] - today - (row["version_id"] != current)
    return counts


def numbers_now(conn: sqlite3.Connection, lineages: list[str | None], current: str | None) -> dict[str, str]:
    """Each English lineage of ``lineages`` that reaches the newest version ``current`` → its
    number there: a rule found by the words of an older version only is the same rule, reworded,
    under that number ("does first strike deal damage twice": 2006's 502.2c, 702.7c today)."""
    wanted = sorted({lineage for lineage in lineages if lineage})
    if not wanted or current is None or not table_exists(conn, "rule_lineages"):
        return {}
    return {
        lineage: number for lineage, number in conn.execute(
            f"select id, current_number from rule_lineages where id in ({', '.join('?' * len(wanted))})"
            " and last_version_id = ? and current_number is not null",
            [*wanted, current],
        )
    }


def now_by_number_alone(conn: sqlite3.Connection, found_in: dict[str, str], current: str | None) -> set[str]:
    """The lineages of ``found_in`` (lineage → the version a rule was found in) that took a step
    paired by a number alone since: its number today may be another rule's. 2006's 100.3 (sealed
    deck) was "100.3 today", the rule of coins and dice; most such steps are the same rule
    reworded (418.5f, 613.7a), so the number is shown, and said to be paired so (code reviews)."""
    if not found_in or current is None:
        return set()
    crossed = derive_lineage.crossed_by_number(conn, list(found_in))
    return {lineage for lineage, version in found_in.items() if crossed(lineage, version, current)}


# Words of a title the query need not say for its rules to lead: "Copying Objects" answers
# "copy", "Timing and Priority" "priority".
TITLE_WORDS_UNSAID = 1


def telling_stems(query: str) -> frozenset[str]:
    """The stems of a query's words that say what it is about: not "of", "the", "when"; a number
    says something no title does ("hand of 7" is 103.5, the starting hand, before 402 Hand)."""
    words = WORD.findall(query.casefold())
    asked = question_words(words)
    return frozenset(stem(word) for word in words if word not in asked)


def titled_by(titles: dict[tuple[str, str], frozenset[str]], version: str, number: str, telling: frozenset[str]) -> bool:
    """Whether a title over ``number`` in ``version`` (its section's, "707"; its rule's, "702.19";
    its own; or its section's with its chapter's, "408" with "4") says every one of ``telling``
    and at most one word more."""
    heads = rules_over(number)
    for head in heads:
        title = titles.get((version, head))
        if title and telling <= title and len(title - telling) <= TITLE_WORDS_UNSAID:
            return True
    # A section's title with its chapter's: "command zone" is 408 Command of 4 Zones (79 rules
    # say both words, and 408.1 came past the tenth: a judge's answer key).
    section = heads[0]
    section_title, chapter_title = titles.get((version, section)), titles.get((version, section[:1]))
    if section_title and chapter_title and telling & section_title and telling & chapter_title:
        both = section_title | chapter_title
        return telling <= both and len(both - telling) <= TITLE_WORDS_UNSAID
    return False


_SECTION_TITLES: OrderedDict[tuple, dict[tuple[str, str], frozenset[str]]] = OrderedDict()


def section_titles(conn: sqlite3.Connection) -> dict[tuple[str, str], frozenset[str]]:
    """(version, number) -> the stems of the telling words of the rule's title ("Timing and
    Priority": timing, priority), for every titled rule (kept per served file)."""
    return per_file(conn, _SECTION_TITLES, lambda conn: {
        (head.version_id, head.number): telling_stems(head.title)
        for head in rule_heads(conn).values() if head.title
    })


def as_words(text: str) -> str:
    """A text as its words, folded, each singular, one space apart: what a phrase is looked for in
    ("mana abilities" is said by "a mana ability")."""
    return " ".join(singular(word) for word in WORD.findall(text.casefold()))


_RULES_AS_WORDS: OrderedDict[tuple, dict[int, str]] = OrderedDict()


def rules_as_words(conn: sqlite3.Connection) -> dict[int, str]:
    """The current English rules' and the translated rules' titles and texts as words
    (``as_words``), by rowid, kept per served file: the words-together order of ``rules_by_text``
    asked for the texts of a few hundred rules a query (a few milliseconds under four clients)."""
    def read(of: sqlite3.Connection) -> dict[int, str]:
        versions = [version for version in (newest_english_version(of), *translated_versions(of)) if version]
        marks = ",".join("?" * len(versions))
        return {rowid: as_words(f"{title or ''} {text or ''}") for rowid, title, text in of.execute(
            f"select rowid, title, text from rules where version_id in ({marks})", versions)} if versions else {}

    return per_file(conn, _RULES_AS_WORDS, read)


def text_key(row: dict[str, Any]) -> str:
    """The same rule under another number: its title, or its text with spacing and case ignored.

    Kept on the row: one search asks for the key of the same row up to three times."""
    key = row.get("_text_key")
    if key is None:
        key = row["_text_key"] = "title:" + fold(row["title"]) if row.get("title") else "text:" + spaced_prefix(row.get("text") or "", 300).casefold()
    return key


def spaced_prefix(text: str, length: int) -> str:
    """``" ".join(text.split())[:length]`` without splitting a whole long text."""
    head = " ".join(text[: length * 2].split())
    return head[:length] if len(head) >= length else " ".join(text.split())[:length]


def rule_hit(row: dict[str, Any], current: str | None, query: str) -> Hit:
    """A rule hit; its snippet is filled by ``mark_words`` once the page's hits are chosen."""
    # A translated rule is numbered as in the edition it translates: its page (by its own version)
    # leads to the English rule it translates, whatever that rule's number today.
    version = None if row["version_id"] == current else row["version_id"]
    title = f"{row['number']} {row['title'] or ''}".strip()
    return Hit("rule", title, rule_url(row["number"], version), row.get("text") or "", row["lang"],
               row["version_id"])


# Fewer of today's rules than this found by the words as typed: those found by the words' stems follow.
FEW_RULES = 3
# A phrase of a few words is read by its stems ("commander exiled", "who controls a triggered
# ability"); a sentence's every word is asked for, stems or not, and finds nothing either way
# (its search was two rules searches more, a third of a long query's time at 1M rulings).
STEMS_AT_MOST_WORDS = 6


def by_stems_where_few(
    conn: sqlite3.Connection, query: str, match: str, about: list[str], shown: int, first: Collection[str],
    typed: tuple[list[Hit], int, bool], foremost: Collection[str] = (),
) -> tuple[list[Hit], int, bool]:
    """``rules_by_text``'s answer (``typed``) where today's rules hold the words as typed; where
    they hold none or few of them, and older editions may ("commander exiled": 2015's 903.8;
    today's 903.9a says "in exile"; "who controls a triggered ability": 603.3a says
    "controlled"), today's rules by the words' stems after those (an English judge's review).
    The rules only: the million rulings are searched as typed."""
    rules, count, capped = typed
    current = newest_english_version(conn)
    typed_today = sum(hit.detail == current for hit in rules)
    if typed_today >= FEW_RULES or len(WORD.findall(query)) > STEMS_AT_MOST_WORDS:
        return typed
    loose = word_stems_as_prefixes(match)
    if not loose:
        return typed
    stemmed = rules_by_text(conn, query, loose, about, [], shown, first, foremost)
    if not typed_today:
        return stemmed if any(hit.detail == current for hit in stemmed[0]) else typed
    rules, added = with_stemmed_rules(rules, stemmed[0], current)
    # Counted within the page's window of the stems' rules: at least this many (the first page
    # said 12 where the next said 26; a review of the change).
    return rules, count + added, capped or stemmed[2] or added > 0


def with_stemmed_rules(typed: list[Hit], stemmed: list[Hit], current: str | None) -> tuple[list[Hit], int]:
    """The rules found by the words as typed, today's first; then today's rules found only by the
    words' stems; then the typed ones of other versions. Also: how many were added."""
    seen = {hit.url for hit in typed}
    added = [hit for hit in stemmed if hit.detail == current and hit.url not in seen]
    today = [hit for hit in typed if hit.detail == current]
    return today + added + [hit for hit in typed if hit.detail != current], len(added)
