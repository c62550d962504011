"""One search over everything: rule numbers, card names, keywords, rules, glossary, rulings.

``search(conn, query)`` takes a plain ``sqlite3.Connection`` (Datasette hands one to
``execute_fn``; tests open the file themselves) and returns a ``SearchResults``: hits grouped by
kind, each with a link and an HTML-safe snippet, plus ``best``, the one page a query lands on when
it names it exactly (a rule number, a card name in any language, a keyword).

Every query here is bounded: full-text subqueries carry a LIMIT, CJK text goes through the trigram
table (or LIKE with a LIMIT for 1–2 characters), exact lookups use indexed columns. User input
never reaches FTS5 syntax: queries are rebuilt from word tokens, each one quoted.
"""
from __future__ import annotations

import html
import re
import sqlite3
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import quote

from kb.normalise.names import name_key
from kb.normalise.text import identity_key

PER_KIND = 10
# FTS rows read before de-duplicating versions: the same rule text exists in every CR version.
FTS_WINDOW = 300
SNIPPET_TOKENS = 24
CJK_LANGS = ("zhs", "zht", "ja", "ko")

# Private-use sentinels mark hits inside snippet(): they survive html.escape, user text never
# contains them (they are stripped from queries), and they become <mark> after escaping.
HIT_START = "\ue000"
HIT_END = "\ue001"

WORD = re.compile(r"\w+", re.UNICODE)
CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# "702.78a", "702.78", "702", "7", optionally after the word "rule" in a few languages.
RULE_NUMBER_QUERY = re.compile(
    r"^\s*(?:(?:rules?|cr|regla|règle|regel|regola|regra|правило|规则|規則|규칙)\s*)?"
    r"(?P<number>[1-9]\d{0,2}(?:\.\d+[a-z]?)?)\.?\s*$",
    re.IGNORECASE,
)
RULE_NUMBER_IN_QUERY = re.compile(r"(?<![\w.])([1-9]\d{2}\.\d+[a-z]?)(?![\w])")

GROUP_TITLES = {
    "cards": "Cards",
    "keywords": "Keywords",
    "rules": "Rules",
    "glossary": "Glossary",
    "rulings": "Rulings",
    "translations": "Ruling translations",
}


@dataclass
class Hit:
    kind: str
    title: str
    url: str
    snippet: str = ""  # HTML: escaped text with <mark> around the matched words
    lang: str | None = None
    detail: str = ""


@dataclass
class SearchResults:
    query: str
    groups: dict[str, list[Hit]] = field(default_factory=dict)
    best: Hit | None = None

    @property
    def total(self) -> int:
        return sum(len(hits) for hits in self.groups.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "best": asdict(self.best) if self.best else None,
            "groups": [
                {"kind": kind, "title": GROUP_TITLES[kind], "hits": [asdict(hit) for hit in hits]}
                for kind, hits in self.groups.items()
                if hits
            ],
        }


# -- text helpers -------------------------------------------------------------------------------


def fold(text: str | None) -> str:
    """Case- and accent-insensitive key: 'Paradiesvögel' and 'paradiesvogel' fold alike."""
    return name_key(text) or ""


def clean_query(raw: str | None) -> str:
    """The query as typed, NFC, sentinels and control characters removed, length bounded."""
    text = unicodedata.normalize("NFC", raw or "")
    text = "".join(char for char in text if char.isprintable() and char not in (HIT_START, HIT_END))
    return " ".join(text.split())[:200]


def fts_query(query: str, prefix_last: bool = True) -> str | None:
    """An FTS5 MATCH expression from the words of ``query``: every token quoted, all required.

    Quotes, parentheses, '-', '*', ':' and keywords like NEAR or OR can never be FTS syntax here
    because only ``\\w+`` runs are kept and each is wrapped in double quotes.
    """
    tokens = WORD.findall(query)[:12]
    if not tokens:
        return None
    parts = [f'"{token}"' for token in tokens]
    if prefix_last and len(tokens[-1]) >= 3 and not has_cjk(tokens[-1]):
        parts[-1] += "*"
    return " ".join(parts)


def has_cjk(text: str) -> bool:
    return bool(CJK_CHAR.search(text))


def marked_to_html(text: str | None) -> str:
    """Escape text that carries hit sentinels, then turn the sentinels into <mark>."""
    escaped = html.escape(text or "")
    return escaped.replace(HIT_START, "<mark>").replace(HIT_END, "</mark>")


def highlight(text: str | None, needle: str, width: int = 80) -> str:
    """A window of ``text`` around the first (case-insensitive) ``needle``, escaped and marked."""
    text = text or ""
    if not needle:
        return html.escape(text[: width * 2])
    lowered, wanted = text.casefold(), needle.casefold()
    first = lowered.find(wanted)
    if first < 0:
        return html.escape(text[: width * 2]) + ("…" if len(text) > width * 2 else "")
    start = max(0, first - width)
    end = min(len(text), first + len(needle) + width)
    window, window_lower = text[start:end], lowered[start:end]
    pieces, cursor = [], 0
    while True:
        found = window_lower.find(wanted, cursor)
        if found < 0:
            break
        pieces.append(html.escape(window[cursor:found]))
        pieces.append("<mark>" + html.escape(window[found : found + len(needle)]) + "</mark>")
        cursor = found + len(needle)
    pieces.append(html.escape(window[cursor:]))
    return ("…" if start else "") + "".join(pieces) + ("…" if end < len(text) else "")


# -- database helpers ---------------------------------------------------------------------------


def rows(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def table_exists(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute(
        "select 1 from sqlite_master where type in ('table', 'view') and name = ?", (name,)
    ).fetchone()
    return found is not None


def table_has_rows(conn: sqlite3.Connection, name: str) -> bool:
    return table_exists(conn, name) and conn.execute(f'select 1 from "{name}" limit 1').fetchone() is not None


def register_functions(conn: sqlite3.Connection) -> None:
    """``kb_fold(text)`` for accent-insensitive comparisons in SQL (cheap to call repeatedly)."""
    conn.create_function("kb_fold", 1, fold, deterministic=True)


def newest_english_version(conn: sqlite3.Connection) -> str | None:
    row = conn.execute(
        "select id from cr_versions where lang = 'en' order by effective_date desc limit 1"
    ).fetchone()
    return row[0] if row else None


def card_url(oracle_id: str | None, name: str | None = None) -> str:
    if oracle_id:
        return f"/card/{oracle_id}"
    return "/card?name=" + quote(name or "")


def rule_url(number: str, version: str | None = None, anchor: str = "") -> str:
    url = f"/rule/{number}"
    if version:
        url += "?version=" + quote(version)
    return url + (f"#{anchor}" if anchor else "")


# -- the search ---------------------------------------------------------------------------------


def search(conn: sqlite3.Connection, raw_query: str, per_kind: int = PER_KIND) -> SearchResults:
    """Everything that matches ``raw_query``, grouped by kind, best answer first."""
    query = clean_query(raw_query)
    results = SearchResults(query=query, groups={kind: [] for kind in GROUP_TITLES})
    if not query:
        return results
    register_functions(conn)
    groups = results.groups
    groups["rules"].extend(rules_by_number(conn, query))
    groups["cards"].extend(cards_by_name(conn, query, per_kind))
    groups["keywords"].extend(keywords_by_term(conn, query, per_kind))
    if has_cjk(query):
        add_cjk_hits(conn, query, groups, per_kind)
    match = fts_query(query)
    if match:
        groups["rules"].extend(rules_by_text(conn, match, per_kind))
        groups["glossary"].extend(glossary_by_text(conn, match, per_kind))
        groups["rulings"].extend(rulings_by_text(conn, match, per_kind))
        groups["translations"].extend(translations_by_text(conn, match, per_kind))
    for keyword in groups["keywords"][:3]:
        groups["rulings"].extend(rulings_about_keyword(conn, keyword, per_kind))
    for kind in groups:
        groups[kind] = unique_hits(groups[kind])[: per_kind * 2 if kind == "rules" else per_kind]
    results.best = best_hit(query, groups)
    return results


def unique_hits(hits: list[Hit]) -> list[Hit]:
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.url not in seen:
            seen.add(hit.url)
            kept.append(hit)
    return kept


def best_hit(query: str, groups: dict[str, list[Hit]]) -> Hit | None:
    """The page an exact query lands on: a rule number, a card name, or a keyword."""
    for hit in groups["rules"]:
        if hit.detail.startswith("number"):
            return hit
    exact_cards = [hit for hit in groups["cards"] if hit.detail.startswith("exact")]
    if len({hit.url for hit in exact_cards}) == 1:
        return exact_cards[0]
    exact_keywords = [hit for hit in groups["keywords"] if hit.detail.startswith("exact")]
    if len({hit.url for hit in exact_keywords}) == 1:
        return exact_keywords[0]
    return None


def rules_by_number(conn: sqlite3.Connection, query: str) -> list[Hit]:
    """Rule numbers answered by number: the newest English version that has the rule."""
    whole = RULE_NUMBER_QUERY.match(query)
    numbers = [whole.group("number")] if whole else RULE_NUMBER_IN_QUERY.findall(query)
    hits = []
    for number in numbers[:5]:
        found = rows(
            conn,
            """select rules.number, rules.title, rules.text, rules.version_id
            from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.number = ? and cr_versions.lang = 'en'
            order by cr_versions.effective_date desc limit 1""",
            (number.lower(),),
        )
        newest = newest_english_version(conn)
        for row in found:
            version = None if row["version_id"] == newest else row["version_id"]
            title = f"{row['number']} {row['title'] or ''}".strip()
            hits.append(
                Hit("rule", title, rule_url(row["number"], version),
                    html.escape((row["text"] or "")[:240]), "en",
                    "number" + (f" (only in {row['version_id']})" if version else ""))
            )
    return hits


def cards_by_name(conn: sqlite3.Connection, query: str, limit: int) -> list[Hit]:
    """Cards whose name in any language matches; exact (folded) matches first."""
    wanted = fold(query)
    found: list[dict[str, Any]] = []
    match = fts_query(query)
    if match:
        found += rows(
            conn,
            """select card_names.oracle_id, card_names.lang, card_names.name, cards.name as english
            from card_names left join cards on cards.oracle_id = card_names.oracle_id
            where card_names.rowid in (
                select rowid from card_names_fts where card_names_fts match ? limit ?)""",
            (match, limit * 5),
        )
    # Exact names straight from the index: CJK names and names FTS would split oddly.
    found += rows(
        conn,
        """select card_names.oracle_id, card_names.lang, card_names.name, cards.name as english
        from card_names left join cards on cards.oracle_id = card_names.oracle_id
        where card_names.name = ? limit ?""",
        (query, limit),
    )
    hits = [card_hit(row, wanted) for row in found]
    hits += unlinked_cards_by_name(conn, query, wanted, limit)
    hits.sort(key=lambda hit: not hit.detail.startswith("exact"))
    return unique_hits(hits)[:limit]


def card_hit(row: dict[str, Any], wanted: str) -> Hit:
    exact = fold(row["name"]) == wanted or any(
        fold(face) == wanted for face in (row["name"] or "").split(" // ")
    )
    english = row["english"] or row["name"]
    snippet = html.escape(row["name"]) if row["name"] == english else (
        f"{html.escape(row['name'])} <span class=\"lang\">{html.escape(row['lang'])}</span>"
    )
    return Hit("card", english, card_url(row["oracle_id"]), snippet, row["lang"],
               ("exact " if exact else "") + "name")


def unlinked_cards_by_name(conn: sqlite3.Connection, query: str, wanted: str, limit: int) -> list[Hit]:
    """Cards known only by the name a localized page printed (no Oracle card yet)."""
    match = fts_query(query, prefix_last=False)
    if not match:
        return []
    found = rows(
        conn,
        """select distinct card_name, card_name_lang from rulings
        where oracle_id is null and card_name is not null and rowid in (
            select rowid from rulings_fts where rulings_fts match ? limit ?)""",
        ("card_name : (" + match + ")", limit * 5),
    )
    if table_exists(conn, "card_name_records_fts"):
        # Names documents printed for cards not identified yet (no ruling needed: a Gatherer
        # printed page, a release-notes card).
        found += rows(
            conn,
            """select distinct name as card_name, lang as card_name_lang from card_name_records
            where rowid in (select rowid from card_name_records_fts where card_name_records_fts match ? limit ?)
            and name_key not in (select name_key from card_names where name_key is not null)""",
            (match, limit * 5),
        )
    hits = []
    for row in found:
        exact = fold(row["card_name"]) == wanted
        hits.append(unlinked_card_hit(row["card_name"], row["card_name_lang"], exact))
    return hits


def unlinked_card_hit(name: str, lang: str | None, exact: bool) -> Hit:
    return Hit("card", name, card_url(None, name),
               html.escape(name) + ' <span class="unlinked">not yet linked to an Oracle card</span>',
               lang, ("exact " if exact else "") + "unlinked name")


def keywords_by_term(conn: sqlite3.Connection, query: str, limit: int) -> list[Hit]:
    """A keyword in any language ('conspirar', '协力', 'Conspire') -> its English rule."""
    if not table_has_rows(conn, "keywords"):
        return []
    wanted = fold(query)
    found = rows(
        conn,
        """select lang, term, en_term, rule_number, version_id from keywords
        where term = ? or kb_fold(term) = ? or kb_fold(en_term) = ?
        limit ?""",
        (query, wanted, wanted, limit),
    )
    if has_cjk(query) and len(query) <= 2:
        found += rows(
            conn,
            "select lang, term, en_term, rule_number, version_id from keywords where term like ? limit ?",
            ("%" + escape_like(query) + "%", limit),
        )
    hits = []
    for row in found:
        title = f"{row['rule_number']} {row['en_term']}"
        if fold(row["term"]) != wanted and fold(row["en_term"]) == wanted:
            # The English term itself: land on the English rule, not on one translation of it.
            hits.append(Hit("keyword", title, rule_url(row["rule_number"]),
                            html.escape(row["en_term"]), "en", "exact keyword"))
            continue
        exact = fold(row["term"]) == wanted
        snippet = (
            f"{html.escape(row['term'])} <span class=\"lang\">{html.escape(row['lang'])}</span>"
            f" → {html.escape(row['en_term'] or '')}"
        )
        anchor = f"lang-{row['lang']}" if row["lang"] != "en" else ""
        hits.append(Hit("keyword", title, rule_url(row["rule_number"], anchor=anchor), snippet,
                        row["lang"], ("exact " if exact else "") + "keyword"))
    hits.sort(key=lambda hit: not hit.detail.startswith("exact"))
    return hits


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def rules_by_text(conn: sqlite3.Connection, match: str, limit: int) -> list[Hit]:
    """Rules of every language; of the many versions holding one rule, only the newest."""
    found = rows(
        conn,
        f"""select rules.number, rules.title, rules.text, rules.version_id, cr_versions.lang,
            cr_versions.effective_date, hits.snip
        from (select rowid, rank,
                snippet(rules_fts, -1, '{HIT_START}', '{HIT_END}', '…', {SNIPPET_TOKENS}) as snip
              from rules_fts where rules_fts match ? order by rank limit ?) as hits
        join rules on rules.rowid = hits.rowid
        join cr_versions on cr_versions.id = rules.version_id
        order by hits.rank""",
        (match, FTS_WINDOW),
    )
    newest = newest_per_rule(found)
    current = newest_english_version(conn)
    # The rules in force first; older versions' rules only fill what is left (their wording
    # may differ, but a reader wants the current rule before its history).
    in_force = {row["version_id"] for row in found if row["lang"] != "en"} | {current}
    ordered = sorted(newest.values(), key=lambda row: row["version_id"] not in in_force)
    hits = []
    for row in ordered:
        english = row["lang"] == "en"
        version = None if row["version_id"] == current or not english else row["version_id"]
        anchor = "" if english else f"lang-{row['lang']}"
        title = f"{row['number']} {row['title'] or ''}".strip()
        hits.append(Hit("rule", title, rule_url(row["number"], version, anchor),
                        marked_to_html(row["snip"]), row["lang"], row["version_id"]))
    return hits[:limit]


def newest_per_rule(found: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """One row per rule and language, from the newest version holding it.

    Rules are renumbered between versions (Convoke was 702.50, now 702.51; its subrules move
    with it): a titled rule is the same rule under its title, and an untitled one under its
    text, whatever its number.
    """
    by_date = sorted(found, key=lambda row: row["effective_date"] or "", reverse=True)
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    for row in by_date:
        key = (row["lang"], row["number"])
        same_rule = (row["lang"], "title:" + fold(row["title"])) if row["title"] else None
        same_text = (row["lang"], "text:" + fold(identity_key(row["text"]))) if row.get("text") else None
        if key in newest or (same_rule and same_rule in seen) or (same_text and same_text in seen):
            continue
        newest[key] = row
        seen.update(filter(None, (same_rule, same_text)))
    # Back to relevance order.
    order = {id(row): index for index, row in enumerate(found)}
    return dict(sorted(newest.items(), key=lambda item: order[id(item[1])]))


def glossary_by_text(conn: sqlite3.Connection, match: str, limit: int) -> list[Hit]:
    found = rows(
        conn,
        f"""select glossary.id, glossary.term, glossary.version_id, cr_versions.lang,
            cr_versions.effective_date, hits.snip
        from (select rowid, rank,
                snippet(glossary_fts, -1, '{HIT_START}', '{HIT_END}', '…', {SNIPPET_TOKENS}) as snip
              from glossary_fts where glossary_fts match ? order by rank limit ?) as hits
        join glossary on glossary.rowid = hits.rowid
        join cr_versions on cr_versions.id = glossary.version_id
        order by hits.rank""",
        (match, FTS_WINDOW),
    )
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for row in found:
        key = (row["lang"], fold(row["term"]))
        if key not in newest or (row["effective_date"] or "") > (newest[key]["effective_date"] or ""):
            newest[key] = row
    return [
        Hit("glossary", row["term"], f"/glossary/{quote(row['term'])}?version={quote(row['version_id'])}",
            marked_to_html(row["snip"]), row["lang"], row["version_id"])
        for row in list(newest.values())[:limit]
    ]


def rulings_by_text(conn: sqlite3.Connection, match: str, limit: int) -> list[Hit]:
    found = rows(
        conn,
        f"""select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at,
            cards.name as english, hits.snip
        from (select rowid, rank,
                snippet(rulings_fts, 0, '{HIT_START}', '{HIT_END}', '…', {SNIPPET_TOKENS}) as snip
              from rulings_fts where rulings_fts match ? order by rank limit ?) as hits
        join rulings on rulings.rowid = hits.rowid
        left join cards on cards.oracle_id = rulings.oracle_id
        order by hits.rank""",
        (match, limit),
    )
    return [ruling_hit(row, marked_to_html(row["snip"])) for row in found]


def ruling_hit(row: dict[str, Any], snippet: str) -> Hit:
    card = row.get("english") or row.get("card_name") or "card not identified"
    url = card_url(row["oracle_id"], row.get("card_name")) + f"#ruling-{row['id']}"
    if not row["oracle_id"] and not row.get("card_name"):
        url = f"/ruling/{row['id']}"
    return Hit("ruling", card, url, snippet, "en", row.get("published_at") or "")


def rulings_about_keyword(conn: sqlite3.Connection, keyword: Hit, limit: int) -> list[Hit]:
    """Rulings citing the keyword's rule (``ruling_rules`` when built) or naming the keyword."""
    number, _, english = keyword.title.partition(" ")
    found: list[dict[str, Any]] = []
    if table_has_rows(conn, "ruling_rules"):
        column = ruling_rules_number_column(conn)
        if column:
            found += rows(
                conn,
                f"""select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at,
                    rulings.text, cards.name as english
                from rulings left join cards on cards.oracle_id = rulings.oracle_id
                where rulings.id in (select ruling_id from ruling_rules where "{column}" = ? limit ?)""",
                (number, limit),
            )
    match = fts_query(english, prefix_last=False)
    if match:
        found += rows(
            conn,
            """select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at,
                rulings.text, cards.name as english
            from rulings left join cards on cards.oracle_id = rulings.oracle_id
            where rulings.rowid in (select rowid from rulings_fts where rulings_fts match ? limit ?)""",
            ("text : (" + match + ")", limit),
        )
    return [ruling_hit(row, highlight(row["text"], english)) for row in found]


def ruling_rules_number_column(conn: sqlite3.Connection) -> str | None:
    """The column of ``ruling_rules`` holding the cited rule number (its shape is not fixed yet)."""
    columns = [row[1] for row in conn.execute("pragma table_info(ruling_rules)")]
    for name in ("rule_number", "target_number", "number"):
        if name in columns:
            return name
    return None


def translations_by_text(conn: sqlite3.Connection, match: str, limit: int) -> list[Hit]:
    found = rows(
        conn,
        f"""select ruling_translations.id, ruling_translations.lang, ruling_translations.card_name,
            ruling_translations.ruling_id, rulings.oracle_id, rulings.card_name as ruling_card,
            cards.name as english, hits.snip
        from (select rowid, rank,
                snippet(ruling_translations_fts, 0, '{HIT_START}', '{HIT_END}', '…', {SNIPPET_TOKENS}) as snip
              from ruling_translations_fts where ruling_translations_fts match ? order by rank limit ?) as hits
        join ruling_translations on ruling_translations.rowid = hits.rowid
        left join rulings on rulings.id = ruling_translations.ruling_id
        left join cards on cards.oracle_id = rulings.oracle_id
        order by hits.rank""",
        (match, limit),
    )
    return [translation_hit(row, marked_to_html(row["snip"])) for row in found]


def translation_hit(row: dict[str, Any], snippet: str) -> Hit:
    card = row.get("english") or row.get("ruling_card") or row.get("card_name") or "card not identified"
    if row.get("oracle_id"):
        url = card_url(row["oracle_id"]) + f"#ruling-{row['ruling_id']}"
    else:
        url = f"/translation/{row['id']}"
    return Hit("translation", card, url, snippet, row["lang"],
               "linked" if row.get("ruling_id") else "not yet linked")


def add_cjk_hits(conn: sqlite3.Connection, query: str, groups: dict[str, list[Hit]], limit: int) -> None:
    """Chinese, Japanese, Korean: trigram FTS for 3+ characters, bounded LIKE below that."""
    if not table_exists(conn, "cjk_search"):
        return
    needle = "".join(query.split())
    if len(needle) >= 3:
        found = rows(
            conn,
            "select kind, key, lang, text from cjk_search where cjk_search match ? limit ?",
            ('"' + needle.replace('"', "") + '"', limit * 6),
        )
    else:
        # Below three characters the trigram index cannot help: scan, but never past the LIMIT.
        found = rows(
            conn,
            "select kind, key, lang, text from cjk_search where text like ? limit ?",
            ("%" + escape_like(needle) + "%", limit * 6),
        )
    for row in found:
        hit = cjk_hit(conn, row, needle)
        if hit is not None:
            groups[hit.kind + "s" if hit.kind != "glossary" else "glossary"].append(hit)


def cjk_hit(conn: sqlite3.Connection, row: dict[str, Any], needle: str) -> Hit | None:
    snippet = highlight(row["text"], needle)
    if row["kind"] == "rule":
        rule = rows(conn, "select number, title, version_id from rules where id = ?", (row["key"],))
        if not rule:
            return None
        title = f"{rule[0]['number']} {rule[0]['title'] or ''}".strip()
        return Hit("rule", title, rule_url(rule[0]["number"], anchor=f"lang-{row['lang']}"),
                   snippet, row["lang"], rule[0]["version_id"])
    if row["kind"] == "glossary":
        entry = rows(conn, "select term, version_id from glossary where id = ?", (row["key"],))
        if not entry:
            return None
        return Hit("glossary", entry[0]["term"],
                   f"/glossary/{quote(entry[0]['term'])}?version={quote(entry[0]['version_id'])}",
                   snippet, row["lang"], entry[0]["version_id"])
    if row["kind"] == "card_name":
        if str(row["key"]).startswith("name:"):
            return unlinked_card_hit(row["text"], row["lang"], fold(row["text"]) == fold(needle))
        card = rows(conn, "select name from cards where oracle_id = ?", (row["key"],))
        english = card[0]["name"] if card else row["text"]
        exact = fold(row["text"]) == fold(needle)
        return Hit("card", english, card_url(row["key"]), snippet, row["lang"],
                   ("exact " if exact else "") + "name")
    if row["kind"] == "keyword":
        keyword = rows(conn, "select term, en_term, rule_number from keywords where id = ?", (row["key"],))
        if not keyword:
            return None
        exact = keyword[0]["term"] == needle
        return Hit("keyword", f"{keyword[0]['rule_number']} {keyword[0]['en_term']}",
                   rule_url(keyword[0]["rule_number"], anchor=f"lang-{row['lang']}"),
                   snippet + f" → {html.escape(keyword[0]['en_term'] or '')}", row["lang"],
                   ("exact " if exact else "") + "keyword")
    if row["kind"] == "ruling_translation":
        found = rows(
            conn,
            """select ruling_translations.id, ruling_translations.lang, ruling_translations.card_name,
                ruling_translations.ruling_id, rulings.oracle_id, rulings.card_name as ruling_card,
                cards.name as english
            from ruling_translations left join rulings on rulings.id = ruling_translations.ruling_id
            left join cards on cards.oracle_id = rulings.oracle_id
            where ruling_translations.id = ?""",
            (row["key"],),
        )
        return translation_hit(found[0], snippet) if found else None
    return None
