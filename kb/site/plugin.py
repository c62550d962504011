"""Datasette plugin of mtg-rules-kb (registered through the ``datasette`` entry point).

Adds our pages beside Datasette's own: the home page with one search box, ``/search``,
``/card/<oracle_id>`` and ``/card?name=``, ``/rule/<number>``, ``/changes.atom``, and JSON for
each (``.json`` suffix or ``?_format=json``). The page data comes from the page modules
(``card_page``, ``rule_page``, ...) and ``search`` (plain functions over a sqlite3 connection);
this module only routes and renders. Everything a plain ``datasette kb.db`` needs comes through
hooks: the package's ``templates/`` and ``static/`` (Datasette finds them because the entry point
is the ``kb.site`` package), the metadata through ``get_metadata``.
"""
from __future__ import annotations

import html
import json
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2.meta
from datasette import hookimpl
from datasette.utils.asgi import Response
from markupsafe import Markup

from kb.normalise.dates import parse_date
from kb.site import (
    card_page,
    contents_page,
    diff_page,
    feed,
    glossary_page,
    home_page,
    labels,
    limits,
    markup,
    page_cache,
    rule_page,
    version_page,
)
from kb.site.metadata import build_metadata
from kb.site.search import GROUP_TITLES, PER_KIND, register_functions, search
from kb.site.search_names import display_name

# Patches of Datasette internals that do not load Datasette's plugins (the error handler's is
# applied lazily, in handle_exception below).
limits.coarser_time_checks()
limits.cache_schema_lookups()

# Our pages run several small queries; the whole page shares this budget.
PAGE_TIME_LIMIT_MS = 3000
LANGUAGE_NAMES = {
    "en": "English", "es": "Español", "fr": "Français", "de": "Deutsch", "it": "Italiano",
    "pt": "Português", "ja": "日本語", "ko": "한국어", "ru": "Русский", "zhs": "简体中文",
    "zht": "繁體中文", "ph": "Phyrexian",
}


# The distribution name: Datasette serves the package's static/ under /-/static-plugins/<it>/.
PLUGIN_NAME = "mtg-rules-kb"


@hookimpl
def extra_css_urls(datasette):
    return [datasette.urls.static_plugins(PLUGIN_NAME, name) for name in ("mana.css", "kb.css")]


@hookimpl
def get_metadata(datasette, key, database, table):
    """Titles, licence, column descriptions and canned queries for every knowledge-base database."""
    names = [name for name in datasette.databases if not name.startswith("_")]
    return merged_metadata(tuple(names))


@lru_cache(maxsize=8)
def merged_metadata(database_names: tuple[str, ...]) -> dict[str, Any]:
    metadata: dict[str, Any] = build_metadata(database_names[0] if database_names else "kb")
    for name in database_names[1:]:
        metadata["databases"].update(build_metadata(name)["databases"])
    return metadata


# Datasette's own forms leave a few controls without a name a screen reader can say.
LABEL_DATASETTE_CONTROLS = """
const kbLabelControls = () => { for (const [selector, label] of [
  ['select[name^="_filter_column"]', 'Column'], ['select[name^="_filter_op"]', 'Condition'],
  ['input[name^="_filter_value"]', 'Value'], ['textarea[name="sql"]', 'SQL query'],
  ['select[name="_sort"]', 'Sort by'], ['textarea', 'SQL query'],
]) {
  document.querySelectorAll(selector).forEach(el => { if (!el.labels || !el.labels.length) el.setAttribute('aria-label', label); });
} };
kbLabelControls();
window.addEventListener('load', kbLabelControls);
"""


@hookimpl
def extra_body_script():
    return LABEL_DATASETTE_CONTROLS


@hookimpl
def prepare_connection(conn):
    register_functions(conn)
    limits.limit_connection(conn)
    limits.lower_sql_thread_priority()


@hookimpl
def startup(datasette):
    limits.refresh_schemas_once(type(datasette))

    async def warm() -> None:
        await limits.warm_schema_cache(datasette)
        warm_templates(datasette)

    return warm


def warm_templates(datasette) -> None:
    """Compile the site's templates before the first visitor: compiling one took the event loop
    up to a second on a busy machine, and every request waited behind it."""
    env = datasette.jinja_env
    pending = [path.name for path in sorted((Path(__file__).parent / "templates").glob("*.html"))]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        env.get_template(name)
        # ...and what it extends or includes (Datasette's base.html and its partials).
        source = env.loader.get_source(env, name)[0]
        pending.extend(found for found in jinja2.meta.find_referenced_templates(env.parse(source)) if found)


@hookimpl
def asgi_wrapper(datasette):
    return lambda app: limits.security_headers(limits.public_sql_gate(app))


@hookimpl(tryfirst=True)
def handle_exception(datasette, request, exception):
    # Done here, not at import: importing datasette.handle_exception while this package is being
    # imported would load Datasette's plugins (this one among them) half-initialised.
    limits.quiet_default_error_handler()
    limits.as_client_error(exception)
    return None  # Datasette's own handler renders it


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["kbtext"] = lambda text, version=None: Markup(markup.render_text(text, version))
    env.filters["langname"] = lambda code: LANGUAGE_NAMES.get(code or "", code or "")
    env.filters["quote"] = lambda text: quote(text or "")
    env.filters["worddiff"] = lambda diff: Markup(markup.render_word_diff(diff))
    env.filters["http_url"] = markup.http_url
    # Site pages (contents, glossary, diff, search): readable names and linked text.
    env.filters["bcp47"] = labels.bcp47
    env.filters["versionname"] = labels.version_name
    env.filters["languagename"] = labels.language_name
    env.filters["aspectwords"] = labels.aspect_words
    env.filters["cardname"] = display_name
    env.filters["isodate"] = lambda raw, lang="en": parse_date(raw, lang or "en") or raw
    env.filters["glossarylinker"] = lambda terms: markup.GlossaryLinker(
        (term["term"], "/glossary/" + quote(term["term"], safe="")) for term in terms or [])
    env.filters["kblinked"] = lambda text, version=None, linker=None: Markup(markup.render_text(text, version, linker))


@hookimpl
def register_routes():
    return [
        (r"^/$", home),
        (r"^/search(?P<json>\.json)?$", search_page),
        (r"^/card(?P<json>\.json)?$", card_by_name),
        (r"^/card/(?P<oracle_id>[0-9a-fA-F-]{8,40}?)(?P<json>\.json)?$", card_by_id),
        (r"^/rule/(?P<number>[0-9][0-9a-z.]*?)(?P<json>\.json)?$", rule),
        # Site pages: the CR contents, the glossary, any two versions compared.
        (r"^/contents$", contents),
        (r"^/glossary$", glossary_index),
        (r"^/glossary/(?P<term>[^/]+)$", glossary_entry),
        (r"^/diff(?P<json>\.json)?$", diff),
        (r"^/ruling/(?P<ruling_id>\d+)$", ruling_row),
        (r"^/translation/(?P<translation_id>\d+)$", translation_row),
        (r"^/changes\.atom$", changes_feed),
        (r"^/version/(?P<version_id>[a-z]{2,3}-[0-9a-z-]+?)(?P<json>\.json)?$", version),
    ]


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
        with limits.time_limit(conn, PAGE_TIME_LIMIT_MS):
            return fn(conn, *args)

    value = await limits.PAGES.run(datasette, served, limited)
    if slot is not None:
        slot.put(value)
    return value


def wants_json(request, json_suffix: str | None) -> bool:
    return bool(json_suffix) or request.args.get("_format") == "json"


def json_response(data: Any, status: int = 200) -> Response:
    response = Response.json(json.loads(markup.as_json(data)), status=status)
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


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
            return Response.html(cached, status=status)
    context = {"database_name": served.name, **context}
    html = await datasette.render_template(template, context, request=request)
    if slot is not None:
        slot.put(html)
    return Response.html(html, status=status)


async def not_found(datasette, request, message: str, as_json: bool) -> Response:
    if as_json:
        return json_response({"ok": False, "error": message}, status=404)
    return await render(datasette, request, "kb_not_found.html", {"message": message}, status=404)


# -- views --------------------------------------------------------------------------------------


async def home(datasette, request):
    stats = await run(datasette, home_page.home_stats)
    return await render(datasette, request, "kb_home.html", {"stats": stats, "q": ""})


async def search_page(datasette, request):
    json = request.url_vars.get("json")
    query = request.args.get("q", "")
    kind = request.args.get("kind") or None
    offset = int(request.args.get("offset", "0")) if request.args.get("offset", "0").isdigit() else 0
    results = await run(datasette, search, query, PER_KIND, kind, offset)
    if wants_json(request, json):
        return json_response(results.to_dict())
    # An exact rule number or card name lands on its page (the query kept for the header box);
    # "&all=1" shows the list instead.
    if results.best and not kind and request.args.get("all") != "1" and results.best.detail.startswith(
        ("number", "exact name", "exact unlinked")
    ):
        url, _, anchor = results.best.url.partition("#")
        url += ("&" if "?" in url else "?") + "q=" + quote(results.query)
        return Response.redirect(url + (f"#{anchor}" if anchor else ""))
    return await render(datasette, request, "kb_search.html",
                        {"results": results, "q": results.query, "titles": GROUP_TITLES})


async def card_by_id(datasette, request):
    oracle_id, json = request.url_vars["oracle_id"], request.url_vars.get("json")
    page = await run(datasette, card_page.card_page, oracle_id.lower())
    return await card_response(datasette, request, page, json, f"No card with Oracle id {oracle_id}")


async def card_by_name(datasette, request):
    json = request.url_vars.get("json")
    name = request.args.get("name", "").strip()
    if not name:
        return await not_found(datasette, request, "Give a card name: /card?name=…", wants_json(request, json))
    oracle_id, page = await run(datasette, card_by_name_data, name)
    suffix = ".json" if json else ""
    if oracle_id:
        return Response.redirect(f"/card/{oracle_id}{suffix}")
    if page and "redirect" in page:
        return Response.redirect(f"/card{suffix}?name={quote(page['redirect'])}")
    return await card_response(datasette, request, page, json, f"No card or rulings named “{name}”")


def card_by_name_data(conn: sqlite3.Connection, name: str) -> tuple[str | None, dict[str, Any] | None]:
    """The Oracle id a name leads to, or the page of a card known only by that name."""
    found = card_page.find_card(conn, name)
    if found is None:
        return None, None
    if found.get("oracle_id"):
        return found["oracle_id"], None
    if found["name"] != name:  # one page per card: its other names redirect there
        return None, {"redirect": found["name"]}
    return None, card_page.card_page(conn, name=found["name"])


async def card_response(datasette, request, page, json_suffix, missing: str) -> Response:
    as_json = wants_json(request, json_suffix)
    if page is None:
        return await not_found(datasette, request, missing, as_json)
    if as_json:
        return json_response(page)
    return await render(datasette, request, "kb_card.html", {"page": page})


async def rule(datasette, request):
    number, json = request.url_vars["number"], request.url_vars.get("json")
    version = request.args.get("version") or None
    from_version = request.args.get("from") or None  # the version drop-down: follow the rule's lineage
    page = await run(datasette, rule_page.rule_page, number, version, from_version)
    as_json = wants_json(request, json)
    if page is None:
        where = f" in {version}" if version else ""
        return await not_found(datasette, request, f"No rule {number}{where}", as_json)
    if as_json:
        return json_response(page)
    return await render(datasette, request, "kb_rule.html", {"page": page})


async def version(datasette, request):
    version_id, json = request.url_vars["version_id"], request.url_vars.get("json")
    kind = request.args.get("kind") or None
    page = await run(datasette, version_page.version_page, version_id, kind)
    as_json = wants_json(request, json)
    if page is None:
        return await not_found(datasette, request, f"No CR version {version_id}", as_json)
    if as_json:
        return json_response(page)
    return await render(datasette, request, "kb_version.html", {"page": page, "kind": kind})


async def glossary_entry(datasette, request):
    term = unquote(request.url_vars["term"])
    lang = request.args.get("lang", "en")
    page = await run(datasette, glossary_page.glossary_term, term, lang)
    if page is None:
        return await not_found(datasette, request, f"No glossary term “{term}”", False)
    return await render(datasette, request, "kb_glossary_term.html", {"page": page})


async def glossary_index(datasette, request):
    lang = request.args.get("lang", "en")
    page = await run(datasette, glossary_page.glossary_index, lang)
    return await render(datasette, request, "kb_glossary.html", {"page": page})


async def contents(datasette, request):
    version = request.args.get("version") or None
    page = await run(datasette, contents_page.contents_page, version)
    if page is None:
        return await not_found(datasette, request, f"No rules version “{version}”", False)
    return await render(datasette, request, "kb_contents.html", {"page": page})


async def diff(datasette, request):
    args = request.args
    offset = int(args.get("offset", "0")) if args.get("offset", "0").isdigit() else 0
    page = await run(datasette, diff_page.diff_page, args.get("from") or None, args.get("to") or None,
                     args.get("kind") or None, offset)
    if wants_json(request, request.url_vars.get("json")):
        return json_response(page)
    return await render(datasette, request, "kb_diff.html", {"page": page}, status=404 if page["error"] else 200)


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    """Datasette's table pages: card names, Oracle ids, rule numbers and glossary terms link to the site's pages."""
    if not isinstance(value, str) or not value:
        return None
    if table in ("cards", "card_names") and column == "name" and row["oracle_id"]:
        return Markup(f'<a href="/card/{quote(row["oracle_id"])}">{html.escape(value)}</a>')
    if table == "glossary" and column == "term":
        return Markup(f'<a href="/glossary/{quote(value, safe="")}">{html.escape(value)}</a>')
    if column == "oracle_id" and len(value) == 36:
        return Markup(f'<a href="/card/{quote(value)}">{html.escape(value)}</a>')
    if table in ("rules", "current_rules") and column == "number":
        return Markup(f'<a href="/rule/{quote(value)}">{html.escape(value)}</a>')
    if column in ("rule_number", "target_number", "current_number", "old_number", "new_number") and value[:1].isdigit():
        return Markup(f'<a href="/rule/{quote(value)}">{html.escape(value)}</a>')
    return None


async def ruling_row(datasette, request):
    ruling_id = request.url_vars["ruling_id"]
    return Response.redirect(f"/{quote(database(datasette).name)}/rulings/{ruling_id}")


async def translation_row(datasette, request):
    translation_id = request.url_vars["translation_id"]
    return Response.redirect(f"/{quote(database(datasette).name)}/ruling_translations/{translation_id}")


async def changes_feed(datasette, request):
    entries = await run(datasette, feed.recent_changes)
    base = request.url.split("/changes.atom")[0]
    return Response(feed.atom_feed(entries, base), content_type="application/atom+xml; charset=utf-8")
