"""The site's own pages as Datasette route views: each asks a page module for its data (on our
page threads, under a time limit, through the page cache) and answers HTML or JSON.

Routes are registered by ``kb.site.plugin.register_routes``; the page data comes from the page
modules (``card_page``, ``rule_page``, ...) and ``search``, plain functions over a sqlite3 connection.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode

import orjson
from datasette.utils import tilde_decode
from datasette.utils.asgi import Request, Response

from kb.normalise.dates import iso_day
from kb.site import (
    card_language,
    card_lookup,
    card_page,
    contents_page,
    diff_page,
    feed,
    glossary_page,
    home_page,
    limits,
    page_cache,
    rule_page,
    rule_translations,
    version_asked,
    version_page,
)
from kb.site.base_path import SITE_PATHS_HEADER
from kb.site.labels import LANGUAGE_NAMES, language_name, version_name
from kb.site.rule_rulings import RULINGS_COUNTED, RULINGS_PER_PAGE
from kb.site.search import GROUP_TITLES, PER_KIND, SearchResults, search
from kb.site.search_cjk import in_other_chinese_script
from kb.site.search_db import newest_versions, one_request, rules_text_languages
from kb.site.search_fulltext import spelling_blind_key, todays_obsolete_term_keys, todays_term_keys
from kb.site.search_hit import Hit
from kb.site.search_names import page_of
from kb.site.search_rules import RULE_NUMBER_QUERY, rule_number_asked
from kb.site.search_text import clean_query, is_obsolete_term, umlauts_as_vowels
from kb.site.time_limit import time_limit

# Our pages run several small queries; the whole page shares this budget.
PAGE_TIME_LIMIT_MS = 3000


# -- helpers ------------------------------------------------------------------------------------


def database(datasette):
    return datasette.get_database()


async def run(datasette, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(conn, *args)`` under a time limit on our pages' own threads and connections, so that
    public SQL queries filling Datasette's threads never queue the site's pages; answered from
    the page cache (``kb.site.page_cache``) when this served file already answered it."""
    served = database(datasette)
    slot = page_cache.slot_for(served, fn, args)
    if slot is not None:
        cached = slot.get()
        if cached is not page_cache.MISSING:
            return cached

    def limited(conn: sqlite3.Connection) -> Any:
        with time_limit(conn, PAGE_TIME_LIMIT_MS), one_request(conn):
            return fn(conn, *args)

    value = await limits.PAGES.run(datasette, served, limited)
    if slot is not None:
        slot.put(value)
    return value


# Past any list a page shows; SQLite's integers end at 2**63 - 1 (a larger offset answered 500).
MAX_OFFSET = 10**9


def page_offset(raw: str | None) -> int:
    """``?offset=`` as a whole number of rows; 0 for anything else ("²" is a digit that int() does
    not read: it answered 500)."""
    raw = (raw or "0").lstrip("0") or "0"
    if not raw.isdecimal():
        return 0
    # A number longer than the largest offset is past it: int() of 4,301 digits raised (a review's fuzz).
    return MAX_OFFSET if len(raw) > len(str(MAX_OFFSET)) else min(int(raw), MAX_OFFSET)


def wants_json(request, json_suffix: str | None) -> bool:
    return bool(json_suffix) or request.args.get("_format") == "json"


def json_response(data: Any, status: int = 200) -> Response:
    # orjson, not Datasette's ``Response.json`` (the standard library's encoder): a common word's
    # search answer (17 KB) in 19 µs instead of 286, the text as UTF-8 rather than escaped.
    # ``default=str``: dates and the like as text, as ``as_json`` does.
    body = orjson.dumps(data, default=str, option=orjson.OPT_NON_STR_KEYS)
    response = Response(body, status=status, content_type="application/json; charset=utf-8")
    response.headers["Access-Control-Allow-Origin"] = "*"
    return site_paths(response)


def site_paths(response: Response) -> Response:
    """A response whose paths are written from the root: under Datasette's ``base_url`` they
    are given its prefix as they leave (``kb.site.base_path``)."""
    response.headers[SITE_PATHS_HEADER.decode()] = "root"
    return response


def site_redirect(path: str) -> Response:
    return site_paths(Response.redirect(path))


async def render(datasette, request, template: str, context: dict[str, Any], status: int = 200) -> Response:
    served = database(datasette)
    # Without cookies or credentials (no actor, no flash messages) Datasette renders a page from its
    # URL alone, and our pages' data depends on the URL and the served file only. The CSRF token a
    # browser keeps after any Datasette form page is used only in a logged-in actor's menu.
    personal = request.headers.get("authorization") or any(
        name != "csrftoken" for name in request.cookies
    )
    slot = None if personal else page_cache.slot_for_key(
        served, ("html", template, request.path, request.query_string, status))
    if slot is not None:
        cached = slot.get()
        if cached is not page_cache.MISSING:
            return site_paths(Response.html(cached, status=status))
    # The site's pages write paths from the root; base.html's own links too (kb.site.base_path).
    context = {"database_name": served.name, "kb_site_page": True, **context}
    html = await datasette.render_template(template, context, request=request)
    if slot is not None:
        slot.put(html)
    return site_paths(Response.html(html, status=status))


async def not_found(
    datasette, request, message: str, as_json: bool, query: str | None = None, found: list[Any] | None = None
) -> Response:
    """404: ``message``; with ``query``, a search for it offered, and ``found``: hits of it (cards
    whose name holds the query, names it resembles) listed."""
    hits = [hit.to_dict() for hit in found or []]
    if as_json:
        return json_response({"ok": False, "error": message, **({"found": hits} if query else {})}, status=404)
    return await render(datasette, request, "kb_not_found.html",
                        {"message": message, "query": query, "found": hits}, status=404)


async def bad_request(datasette, request, message: str, as_json: bool) -> Response:
    """400: ``message``, a parameter no page reads (said, not ignored: a kind mistyped showed
    every group, and a client paging it never reached the end of the one it meant)."""
    if as_json:
        return json_response({"ok": False, "error": message}, status=400)
    return await render(datasette, request, "kb_not_found.html",
                        {"message": message, "heading": "Bad request"}, status=400)


async def what_it_may_mean(datasette, query: str, kind: str) -> list[Any]:
    """For a page not found: the search's hits of ``kind`` for ``query`` and the names it resembles."""
    results = await run(datasette, search, query, PER_KIND, None, 0)
    # Once per page: a card the search found was offered again as the name it resembles (a player's review).
    hits = [*results.groups.get(kind, []), *results.suggestions]
    return [hit for index, hit in enumerate(hits) if hit.url not in {earlier.url for earlier in hits[:index]}]


# -- views --------------------------------------------------------------------------------------


async def home(datasette, request):
    stats = await run(datasette, home_page.home_stats)
    return await render(datasette, request, "kb_home.html", {"stats": stats, "q": ""})


async def search_page(datasette, request):
    json = request.url_vars.get("json")
    query = request.args.get("q", "")
    kind = request.args.get("kind") or None
    if kind is not None and kind not in GROUP_TITLES:
        return await bad_request(datasette, request, f"No group of results is called “{kind}”: kind is one of "
                                 + ", ".join(GROUP_TITLES) + ".", wants_json(request, json))
    offset = page_offset(request.args.get("offset"))
    results = await run(datasette, search, query, PER_KIND, kind, offset)
    if wants_json(request, json):
        return json_response(results.to_dict())
    # An exact rule number or card name lands on its page (the query kept for the header box);
    # "&all=1" shows the list instead.
    # Not when the results are for some of its words only: the page says which were left out.
    if results.best and not kind and not results.relaxed_from and request.args.get("all") != "1" and (
        results.best.detail.startswith(("number", "exact name", "exact unlinked"))
    ):
        # The query rides along instead of the hit's language: a name two languages print alike
        # is then shown in both (kb.site.card_language.read_in).
        url, _, anchor = page_of(results.best.url).partition("#")
        url += ("&" if "?" in url else "?") + "q=" + quote(results.query)
        return site_redirect(url + (f"#{anchor}" if anchor else ""))
    # The box and the links keep a question as typed (its "more" pages leave out the same words);
    # a card's topic ("coin flip" of "Okaun coin flip") is paged as itself.
    typed = results.relaxed_from or results.query
    # Nothing found: which languages the rules' own text can be searched in (a question in
    # German found nothing and the page did not say why: a European readers' review).
    rules_languages, captured_languages = await run(datasette, rules_text_languages) if not results.total else ([], [])
    return await render(datasette, request, "kb_search.html", {
        "results": results, "q": typed, "more_q": results.query if results.card else typed, "titles": GROUP_TITLES,
        "rules_languages": rules_languages, "captured_languages": captured_languages,
        "older_glossary": await older_glossary_entries(datasette, results)})


async def older_glossary_entries(datasette, results: SearchResults) -> dict[str, dict[str, Any]]:
    """The glossary hits (by URL) whose entry is of an older version than its language's newest,
    with that ``version``: a term today's glossary no longer defines, whose definition is its last
    one ("fizzle" showed 2006's "See rule 413.2a" as if today's glossary said it: 608.2b today);
    or one it defines as obsolete (``obsolete``: 2006's "Mana Burn", "The player loses 1 life for
    each mana lost", was shown unlabelled beside today's "Mana Burn (Obsolete)": a player's review)."""
    hits = results.groups.get("glossary") or []
    if not hits:
        return {}
    newest = await run(datasette, newest_versions)
    # An older spelling of a term today's glossary defines is defined today: 'Banding, "Bands with
    # Other"' (curly quotes today), '"As though"', "Removed from Combat" (Remove from Combat): code
    # and docs reviews.
    today = await run(datasette, todays_term_keys)
    obsolete = await run(datasette, todays_obsolete_term_keys)
    found: dict[str, dict[str, Any]] = {}
    for hit in hits:
        if not (hit.detail and hit.lang and hit.detail != newest.get(hit.lang)):
            continue
        key = spelling_blind_key(hit.title)
        if key in obsolete.get(hit.lang, frozenset()) and not is_obsolete_term(hit.title):
            found[hit.url] = {"version": hit.detail, "obsolete": True}
        elif key not in today.get(hit.lang, frozenset()):
            found[hit.url] = {"version": hit.detail, "obsolete": False}
    return found


async def card_by_id(datasette, request):
    oracle_id, json = request.url_vars["oracle_id"], request.url_vars.get("json")
    page = await run(datasette, card_page.card_page, oracle_id.lower())
    other_script = card_language.read_in_other_script(page, request.args.get("q")) if page else None
    # A name typed in the other Chinese script is read in the card's name it was taken for: its
    # section was missing under the note (a code review).
    typed = other_script["read"] if other_script else request.args.get("q")
    reading = card_language.read_in(page, typed, request.args.get("lang")) if page else None
    not_held = card_language.language_not_held(page, request.args.get("lang"), set(LANGUAGE_NAMES)) if page else None
    return await page_response(datasette, request, page, json, f"No card with Oracle id {oracle_id}", "kb_card.html",
                               {"reading": reading, "lang_not_held": not_held, "other_script": other_script})


async def card_by_name(datasette, request):
    json = request.url_vars.get("json")
    name = request.args.get("name", "").strip()
    if not name:
        return await not_found(datasette, request, "Give a card name: /card?name=…", wants_json(request, json))
    oracle_id, page = await run(datasette, card_by_name_data, name)
    # To the JSON form however JSON was asked for: "?_format=json" led a client to the HTML page.
    suffix = ".json" if wants_json(request, json) else ""
    # A language asked for (?lang=) rides along to the page, as does a name in another language
    # than English: the card's page shows its printing in that language. JSON has no such reading.
    asked, lang = request.args.get("q") or name, request.args.get("lang")
    if oracle_id:
        local = not suffix and not await run(datasette, card_language.named_in_english, oracle_id, asked)
        return site_redirect(f"/card/{oracle_id}{suffix}" + _query({"q": asked if local else None, "lang": lang}, suffix))
    if page and "redirect" in page:
        return site_redirect(f"/card{suffix}" + _query({"name": page["redirect"], "q": asked, "lang": lang}, suffix))
    if page is None:
        # A part of a name ("Jace") or a misspelt one: the cards the search finds by it, and the
        # names it resembles, rather than a dead end.
        found = await what_it_may_mean(datasette, name, "cards")
        return await not_found(datasette, request, f"No card or rulings named “{name}”", wants_json(request, json),
                               query=name, found=found)
    if not wants_json(request, json):
        page = card_language.in_the_language_read(page, request.args.get("q"), request.args.get("lang"))
    other_script = card_language.read_in_other_script(page, request.args.get("q"))
    return await page_response(datasette, request, page, json, f"No card or rulings named “{name}”", "kb_card.html",
                               {"other_script": other_script})


def _query(args: dict[str, str | None], json_suffix: str) -> str:
    """A redirect's query string: the ``args`` given, but a card's name alone for JSON."""
    kept = {key: value for key, value in args.items() if value and (key == "name" or not json_suffix)}
    return "?" + urlencode(kept, safe="/", quote_via=quote) if kept else ""


def card_by_name_data(conn: sqlite3.Connection, name: str) -> tuple[str | None, dict[str, Any] | None]:
    """The Oracle id a name leads to, or the page of a card known only by that name."""
    found = card_lookup.find_card(conn, name)
    if found is None and (vowels := umlauts_as_vowels(name)) is not None:
        # German umlauts typed as two letters ("paradiesvoegel"), as the search box reads them.
        found = card_lookup.find_card(conn, vowels)
    # A Chinese name in the other script (寒冬殺機 for the release notes' 寒冬杀机), as the search
    # box reads it: this page answered 404 (a foreign players' review).
    for converted in in_other_chinese_script(name) if found is None else ():
        if (found := card_lookup.find_card(conn, converted)) is not None:
            break
    if found is None:
        return None, None
    if found.get("oracle_id"):
        return found["oracle_id"], None
    if found["name"] != name:  # one page per card: its other names redirect there
        return None, {"redirect": found["name"]}
    return None, card_page.card_page(conn, name=found["name"])


async def page_response(
    datasette, request, page, json_suffix, missing: str, template: str, context: dict[str, Any] | None = None
) -> Response:
    """A page's data as JSON or rendered with ``template``; ``missing`` (404) when there is none."""
    as_json = wants_json(request, json_suffix)
    if page is None:
        return await not_found(datasette, request, missing, as_json)
    if as_json:
        return json_response(page)
    return await render(datasette, request, template, {"page": page, **(context or {})})


async def versions_as_asked(datasette, request, keys: tuple[str, ...], path: str) -> Response | None:
    """A redirect to ``path`` with the versions the arguments ``keys`` name by their ids
    (``version_asked.version_as_asked``), where any was asked otherwise; None where none was."""
    pairs = parse_qsl(request.query_string, keep_blank_values=True)
    named = []
    for key, value in pairs:
        if key in keys and value:
            value = await run(datasette, version_asked.version_as_asked, value) or value
        named.append((key, value))
    return site_redirect(f"{path}?{urlencode(named)}") if named != pairs else None


async def rule(datasette, request):
    number, json = request.url_vars["number"], request.url_vars.get("json")
    if "date" in request.args:
        return await rule_on_date(datasette, request, number, json or "")
    version = request.args.get("version") or None
    # "?version=zhs", "EN", "2015-01-23": the version they name ("No rule 702.19 in EN" was said of
    # a rule English has: a review's fuzz).
    named = await versions_as_asked(datasette, request, ("version", "from"), f"/rule/{quote(number)}{json or ''}")
    if named:
        return named
    from_version = request.args.get("from") or None  # the version drop-down: follow the rule's lineage
    if version and not from_version:
        # A translation's rule is shown beside the English rule it translates, on that rule's page.
        english = await run(datasette, rule_translations.english_rule_translated, number, version)
        if english:
            to_number, to_version = english
            suffix = f"?version={quote(to_version)}" if to_version else ""
            as_json = wants_json(request, json)
            # No anchor: the rule heads its own page, and "#r-702.19" opened a phone's page below
            # the title and the banner that says which version it is (a UX review).
            return site_redirect(f"/rule/{quote(to_number)}{'.json' if as_json else ''}{suffix}")
    page = await run(datasette, rule_page.rule_page, number, version, from_version, rulings_page(request))
    if page is None and from_version and from_version != version:
        reason, its_page = await run(datasette, rule_page.not_followed, number, version, from_version)
        found = [Hit(kind="rule", title=f"{number} in the {version_name(from_version)}", url=its_page)] if its_page else []
        return await not_found(datasette, request, reason, wants_json(request, json), query=number, found=found)
    if page is None:
        # A version of ours by its name; any other as typed ("garbage" was "the garbage rules").
        known = version and await run(datasette, version_asked.version_exists, version)
        if version and not known:
            # "No rule 702.19 in 2015-1-23" was said where the version, not the rule, was missing.
            return await not_found(datasette, request, f"We hold no rules version “{version}”", wants_json(request, json),
                                   query=number)
        where = f" in the {version_name(version)}" if known else ""
        # A mistyped subrule ("702.19z") or rule: the rule or section it would sit under (for a
        # rule a translation does not hold, the English one of the edition it translates). The
        # version said by its name, not its id ("ko-2021-02-15": a UX review).
        found = await run(datasette, rule_page.nearest_heading, number, version)
        return await not_found(datasette, request, f"No rule {number}{where}", wants_json(request, json),
                               query=number, found=found)
    on = request.args.get("on")
    if on and (edition := await run(datasette, version_asked.english_edition_on, on)):
        if edition["id"] != page["version"]["id"]:
            # The page fell back to the newest version holding the number: the rule was not in
            # the edition of the date asked (a code review: the date was dropped in silence).
            return await not_found(datasette, request, f"No rule {number} in the {version_name(edition['id'])},"
                                   f" the edition in force on {edition['date']}", wants_json(request, json), query=number)
        page["on"] = edition
    return await page_response(datasette, request, page, json, f"No rule {number}", "kb_rule.html")


async def rule_on_date(datasette, request, number: str, json: str) -> Response:
    """``/rule/<number>?date=2025-06-01``: this rule (as numbered in ``?from=``, today's where none
    is named) in the English edition in force on that date, by its identity, and the page says which
    edition that is and how sure. A date was answered with today's rule, silently, or a 404 where
    it came as ``?version=`` (a judge's review of the rule pages: ``mtgkb rule-at`` alone said it)."""
    asked = (request.args.get("date") or "").strip()
    as_json = wants_json(request, json)
    if not iso_day(asked):
        # The request, not the rule, is at fault: 400, as a client reading the status expects.
        return await bad_request(datasette, request, f"“{asked}” is not a date written YYYY-MM-DD (e.g. 2025-06-01)",
                                 as_json)
    edition = await run(datasette, version_asked.english_edition_on, asked)
    if edition is None:
        return await not_found(datasette, request, f"We hold no English edition in force on {asked}", as_json, query=number)
    # The rule as numbered in the version the reader was on (the form's ``from``, or ``version``).
    named = request.args.get("from") or request.args.get("version")
    from_version = await run(datasette, version_asked.version_as_asked, named) if named else None
    if named and from_version is None:
        return await not_found(datasette, request, f"We hold no rules version “{named}”", as_json, query=number)
    if from_version and not from_version.startswith("en-"):
        # A translation's rule: the English rule it translates, followed from there.
        english = await run(datasette, rule_translations.english_rule_translated, number, from_version)
        if english is None:
            return await not_found(datasette, request, f"No rule {number} in the {version_name(from_version)} that an English"
                                   " rule is known to be", as_json, query=number)
        number, from_version = english
    from_version = from_version or await run(datasette, version_asked.newest_version_of, "en")
    # Its other arguments kept (``rulings``, ``_format``); the page asked for as it was (JSON or HTML).
    kept = [(key, value) for key, value in parse_qsl(request.query_string, keep_blank_values=True)
            if key not in ("date", "version", "from", "on")]
    query = urlencode([("version", edition["id"]), ("from", from_version), ("on", edition["date"]), *kept])
    return site_redirect(f"/rule/{quote(number)}{'.json' if json else ''}?{query}")


def rulings_page(request) -> int:
    """``?rulings=100``: the rulings a rule page lists after the hundred newest, and so on."""
    asked = request.args.get("rulings") or "0"
    offset = int(asked) if asked.isdecimal() and asked.isascii() and len(asked) <= 6 else 0
    return min(offset - offset % RULINGS_PER_PAGE, RULINGS_COUNTED - RULINGS_PER_PAGE)


async def rule_as_typed(datasette, request):
    """``/rule/<anything else>``: a rule number as a reader types or pastes it lands on the rule;
    any other text is a page not found that offers to search for it."""
    typed = clean_query(unquote(tilde_decode(request.url_vars["typed"])))
    json = request.url_vars.get("json")
    number = RULE_NUMBER_QUERY.match(typed)
    if number:
        suffix = f"?{request.query_string}" if request.query_string else ""
        return site_redirect(f"/rule/{quote(rule_number_asked(number).lower())}{json or ''}{suffix}")
    # A word: the keyword or rule it names, offered ("/rule/trample": 702.19 Trample).
    found = await what_it_may_mean(datasette, typed, "keywords") if typed else []
    return await not_found(datasette, request, f"No rule {typed}", wants_json(request, json), query=typed or None,
                           found=found)


async def version(datasette, request):
    version_id, json = request.url_vars["version_id"], request.url_vars.get("json")
    kind = request.args.get("kind") or None
    # The HTML shows one page of the changes; the JSON all of them.
    offset = None if wants_json(request, json) else page_offset(request.args.get("offset"))
    kind = version_page.known_kind(kind)
    page = await run(datasette, version_page.version_page, version_id, kind, offset)
    return await page_response(datasette, request, page, json, f"No CR version {version_id}", "kb_version.html",
                               {"kind": kind})


async def no_such_page(datasette, request):
    """An Oracle id or a version id of no possible shape (``/card/not-a-uuid``, ``/version/xx``):
    the site's 404 in its own words and shape, not Datasette's "Database not found" (the path
    fell through to its database routes)."""
    kind, value = request.url_vars["kind"], unquote(request.url_vars["value"])
    json = request.url_vars.get("json") or ""
    named = await run(datasette, version_asked.version_as_asked, value) if kind == "version" else None
    if named:  # "/version/2015-01-23", "/version/EN-2026-04-17" (a review's fuzz)
        suffix = f"?{request.query_string}" if request.query_string else ""
        return site_redirect(f"/version/{quote(named)}{json}{suffix}")
    message = f"No card with Oracle id {value}" if kind == "card" else f"No CR version {value}"
    return await not_found(datasette, request, message, wants_json(request, request.url_vars.get("json")))


async def glossary_entry(datasette, request):
    term = unquote(request.url_vars["term"])
    json = request.url_vars.get("json") or ""
    as_json = wants_json(request, json)
    lang = glossary_language(request)
    if lang not in LANGUAGE_NAMES:
        # "No glossary term “Flying”" was said of a term we hold, asked for in no language (a review's fuzz).
        return await not_found(datasette, request, await no_glossary_in(datasette, lang), as_json)
    page = await run(datasette, glossary_page.glossary_term, term, lang, request.args.get("en") or None)
    if page is None and "lang" not in request.args:
        # A translated glossary's term asked for without its language ("/glossary/飞行").
        held_in = await run(datasette, glossary_page.language_holding, term)
        if held_in:
            return site_redirect(f"/glossary/{quote(term, safe='')}{json}?lang={quote(held_in)}")
    if page is None and lang != "en":
        # An English term asked for in a translated glossary ("Flying", lang=zhs): its term there.
        translated = await run(datasette, glossary_page.term_in_language, term, lang)
        if translated:
            found, english = translated
            which = f"&en={quote(english)}" if english else ""
            return site_redirect(f"/glossary/{quote(found, safe='')}{json}?lang={quote(lang)}{which}")
    if page is None and lang in ("en", "zhs", "zht"):
        # A Chinese term in the other script ("飛行", lang=zht: the Chinese CR is Simplified): its
        # entry in the script a glossary holds (a 404 before; a foreign judges' review). So is
        # the term as typed in the script of another language than the one asked ("践踏",
        # lang=zht: "No glossary term 践踏 … Did you mean 践踏", a second such review).
        for converted in [*in_other_chinese_script(term), *([term] if lang != "en" else [])]:
            held_in = await run(datasette, glossary_page.language_holding, converted)
            if held_in:
                return site_redirect(f"/glossary/{quote(converted, safe='')}{json}?lang={quote(held_in)}")
    if page is None and lang in LANGUAGE_NAMES and lang != "en" and await run(datasette, glossary_page.newest_version, lang) is None:
        # A language we hold no glossary in ("Flying", lang=de): the English entry, saying so (its
        # terms as printed in that language are listed on it), not a 404 for a term we have.
        page = await run(datasette, glossary_page.glossary_term, term)
        if page is not None:
            page["no_glossary_in"] = lang
    if page is None:
        # A keyword as another language prints it ("Trampelschaden"): the English entry, in that
        # language (which lists what its cards print).
        keyword = await run(datasette, glossary_page.keyword_named, term, lang)
        if keyword:
            english, keyword_lang = keyword
            return site_redirect(f"/glossary/{quote(english, safe='')}{json}?lang={quote(keyword_lang)}")
    if page is None:
        # A term in another form or language ("Trampel"): what the search finds it resembles.
        found = await what_it_may_mean(datasette, term, "glossary")
        return await not_found(datasette, request, f"No glossary term “{term}”", as_json, query=term, found=found)
    return await page_response(datasette, request, page, json, "", "kb_glossary_term.html")


def glossary_language(request: Request) -> str:
    """The language a glossary page is asked in: "EN", "de-DE", "zh-Hans" as a reader writes them,
    none as English; a code of no language stays as typed (a 404 that says so)."""
    asked = request.args.get("lang") or "en"
    return card_language.scryfall_language(asked, set(LANGUAGE_NAMES)) or asked


async def no_glossary_in(datasette, lang: str) -> str:
    languages = await run(datasette, glossary_page.glossary_languages)
    held = ", ".join(f"{language_name(row['lang'])} ({row['lang']})" for row in languages)
    return f"No glossary in “{lang}”: we hold glossaries in {held}."


async def glossary_index(datasette, request):
    json = request.url_vars.get("json")
    lang = glossary_language(request)
    page = await run(datasette, glossary_page.glossary_index, lang)
    if page["version"] is None:
        return await not_found(datasette, request, await no_glossary_in(datasette, lang), wants_json(request, json))
    return await page_response(datasette, request, page, json, "", "kb_glossary.html")


async def contents(datasette, request):
    json = request.url_vars.get("json") or ""
    named = await versions_as_asked(datasette, request, ("version",), f"/contents{json}")
    if named:
        return named
    version = request.args.get("version") or None
    page = await run(datasette, contents_page.contents_page, version)
    return await page_response(datasette, request, page, json, f"No rules version “{version}”", "kb_contents.html")


async def diff(datasette, request):
    named = await versions_as_asked(datasette, request, ("from", "to"), f"/diff{request.url_vars.get('json') or ''}")
    if named:
        return named
    args = request.args
    offset = page_offset(args.get("offset"))
    old, new = args.get("from") or None, args.get("to") or None
    # A kind of no change filters nothing, as on a version's page: "Showing 1–0 of 0" beside a
    # diff of 205 changes (a review).
    kind = version_page.known_kind(args.get("kind") or None)
    if not old and not new:
        # The pair the form offers: answered as an empty form, its JSON read "the newest update
        # changed nothing" (an API user's review), and its page was titled by a comparison it did
        # not show (a player's review). A file of one English version offers none.
        pair = await run(datasette, diff_page.default_pair)
        old, new = pair if all(pair) else (None, None)
    if wants_json(request, request.url_vars.get("json")):
        page = await run(datasette, diff_page.diff_page, old, new, kind, offset, "nothing")
        return json_response(page, status=page["status"])  # an error said with a 200 was read as an answer
    page = await run(datasette, diff_page.diff_page, old, new, kind, offset)
    return await render(datasette, request, "kb_diff.html", {"page": page}, status=page["status"])


async def ruling_row(datasette, request):
    ruling_id = request.url_vars["ruling_id"]
    return site_redirect(f"/{quote(database(datasette).name)}/rulings/{ruling_id}")


async def translation_row(datasette, request):
    translation_id = request.url_vars["translation_id"]
    return site_redirect(f"/{quote(database(datasette).name)}/ruling_translations/{translation_id}")


async def changes_feed(datasette, request):
    entries = await run(datasette, feed.recent_changes)
    # The site's own address where the operator gives it: read from a request's Host header, a
    # shared cache could keep a feed whose every link leads elsewhere (a review of the feed).
    base = feed.public_url(datasette.plugin_config("mtgkb")) or request.url.split("/changes.atom")[0]
    return Response(feed.atom_feed(entries, base), content_type="application/atom+xml; charset=utf-8")
