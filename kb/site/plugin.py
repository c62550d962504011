"""Datasette plugin of mtg-rules-kb (registered through the ``datasette`` entry point).

Adds our pages beside Datasette's own: the home page with one search box, ``/search``,
``/card/<oracle_id>`` and ``/card?name=``, ``/rule/<number>``, ``/changes.atom``, and JSON for
each (``.json`` suffix or ``?_format=json``). The page data comes from the page modules
(``card_page``, ``rule_page``, ...) and ``search`` (plain functions over a sqlite3 connection);
``kb.site.views`` answers each route; this module holds the Datasette hooks. Everything a plain ``datasette kb.db`` needs comes through
hooks: the package's ``templates/`` and ``static/`` (Datasette finds them because the entry point
is the ``kb.site`` package), the metadata through ``get_metadata``.
"""
from __future__ import annotations

import html
import re
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2.meta
from datasette import hookimpl
from datasette.utils import tilde_decode, tilde_encode
from markupsafe import Markup

from kb.normalise.dates import parse_date
from kb.site import (
    base_path,
    contents_page,
    feed,
    labels,
    limits,
    markup,
    ruling_list,
    schema_cache,
    table_paging,
    time_limit,
    views,
)
from kb.site.glossary_linker import GlossaryLinker
from kb.site.metadata import copied_where_merged, count_tables, large_tables, merged_metadata, table_settings
from kb.site.search import register_functions
from kb.site.search_names import display_name
from kb.site.search_text import linked_as_a_noun, linked_as_written, links_in_text
from kb.site.serve import apply_settings
from kb.site.warm import keep_out_of_collections, warm_file_maps

# Patches of Datasette internals that do not load Datasette's plugins (the error handler's is
# applied lazily, in handle_exception below).
time_limit.coarser_time_checks()
schema_cache.cache_schema_lookups()

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
    names = tuple(name for name in datasette.databases if not name.startswith("_"))
    # Asked for "tables" (who may see a table, its facet size), Datasette deep-copies what the
    # hook returns, once per table a page lists: 71 copies of the whole metadata were two thirds
    # of the database page's time. A table's other settings are asked for by table, not so.
    merged = table_settings(names) if key == "tables" else merged_metadata(names, large_tables(datasette, names))
    # Datasette merges an instance's own metadata into the dicts a hook returns, in place: with
    # its own (a refresh's smoke check turning read_ahead off, ``datasette -m``), the shared dict
    # would carry that into every later instance of the process. Datasette asks for the metadata
    # at each permission check (~550 times for a database page of 71 tables): a deep copy per
    # call was 0.3 s of that page, so only the dicts the merge will write into are copied.
    own = getattr(datasette, "_metadata_local", None)
    return copied_where_merged(merged, own) if own else merged


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
def extra_template_vars(datasette):
    """The served database's name for the header's "Tables" link on Datasette's own pages (our
    pages set ``database_name``): a file served as ``snap.db`` is ``/snap``, not ``/kb``."""
    names = [name for name in datasette.databases if not name.startswith("_")]
    return {"kb_database": names[0] if names else "kb"}


def serves_with(datasette, setting: str) -> bool:
    """Whether this instance uses ``setting`` (``memory_map``, ``read_ahead``), which serve only
    visitors: one that answers none (a refresh's smoke check) turns it off in its metadata,
    ``{"plugins": {"mtgkb": {setting: false}}}``."""
    return bool((datasette.plugin_config("mtgkb") or {}).get(setting, True))


@hookimpl
def prepare_connection(conn, database, datasette):
    register_functions(conn)
    limits.limit_connection(conn)
    limits.lower_sql_thread_priority()
    served = datasette.databases.get(database)
    # A Datasette that answers no visitor (a refresh's smoke check of its new file) gains nothing
    # from a map, and every page its checks touch would count as its process's memory (the table
    # counts of a database page read most of the file).
    if served is not None and not served.is_mutable and serves_with(datasette, "memory_map"):
        limits.read_through_memory_map(conn)


@hookimpl
def startup(datasette):
    # A public_url that is no address stops the start, naming the setting, not the first feed.
    feed.public_url(datasette.plugin_config("mtgkb"))
    table_paging.install()
    apply_settings(datasette)
    schema_cache.refresh_schemas_once(type(datasette))

    async def warm() -> None:
        await schema_cache.warm_schema_cache(datasette)
        warm_templates(datasette)
        if serves_with(datasette, "read_ahead"):
            for name, served in list(datasette.databases.items()):
                if name != "_internal":
                    await warm_file_maps(served)
                    await count_tables(served)
            keep_out_of_collections()

    return warm


# Compiled templates and the templates each one references, by source: shared by every
# Datasette this process makes (a refresh's smoke check, the tests' instances), which would
# otherwise compile the same sixteen templates again (most of a second each time).
_COMPILED: dict[tuple, bytes] = {}
_REFERENCED: dict[tuple[str, str], list[str]] = {}


class SharedBytecodeCache(jinja2.BytecodeCache):
    """Jinja's bytecode cache kept in this process, per environment flavour (async, escaping)."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.flavour = (env.is_async, repr(env.autoescape), tuple(sorted(env.extensions)))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = _COMPILED.get((self.flavour, bucket.key))
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        _COMPILED[(self.flavour, bucket.key)] = bucket.bytecode_to_string()


def warm_templates(datasette) -> None:
    """Compile the site's templates before the first visitor: compiling one took the event loop
    up to a second on a busy machine, and every request waited behind it."""
    env = datasette.jinja_env
    if env.bytecode_cache is None:
        env.bytecode_cache = SharedBytecodeCache(env)
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
        if (name, source) not in _REFERENCED:
            _REFERENCED[(name, source)] = [
                found for found in jinja2.meta.find_referenced_templates(env.parse(source)) if found]
        pending.extend(_REFERENCED[(name, source)])


@hookimpl
def asgi_wrapper(datasette):
    base_url = datasette.setting("base_url")
    return lambda app: limits.read_only(limits.security_headers(
        base_path.prefixed_site_paths(limits.public_sql_gate(app), base_url)))


@hookimpl(tryfirst=True)
def handle_exception(datasette, request, exception):
    # Done here, not at import: importing datasette.handle_exception while this package is being
    # imported would load Datasette's plugins (this one among them) half-initialised.
    limits.quiet_default_error_handler()
    replaced = limits.as_client_error(exception, request.path) or limits.as_older_file_error(
        exception, getattr(datasette.get_database(), "path", None))
    if replaced is not None:
        from datasette.handle_exception import handle_exception as render_error

        return render_error(datasette, request, replaced)
    if _no_such_page(exception, request.path):
        # "/history", "/rules/702.19": Datasette read the first segment as a database's name and
        # said "Database not found" (a judge's review); the site's not-found page offers a search.
        # Datasette sends a path of other characters on to its "~" spelling ("/历史": /~E5~8E~86…).
        # The path as the site names it: under Datasette's base_url, without it (its "kb" was
        # searched for as a word: a deployment's review).
        base = base_path.root(datasette.setting("base_url"))
        asked = request.path[len(base):] if base and request.path.startswith(base + "/") else request.path
        path = "/".join(_as_typed(segment) for segment in asked.split("/"))
        words = " ".join(path.removesuffix(".json").replace("/", " ").replace("-", " ").split())

        async def site_not_found():
            return await views.not_found(datasette, request, f"We have no page {path}.",
                                         path.endswith(".json"), words or None)

        return site_not_found
    return None  # Datasette's own handler renders it


# Datasette's "~" spelling of a character: "~" and two hex digits (``tilde_decode`` read any "~"
# so: "/a~zz" was "We have no page /a%zz").
TILDE_ESCAPES = re.compile(r"(?:~[0-9A-Fa-f]{2})+")


def _as_typed(segment: str) -> str:
    """A path segment as its reader typed it: Datasette's "~" escapes and percent escapes read."""
    return TILDE_ESCAPES.sub(lambda found: tilde_decode(found.group(0)), unquote(segment))


def _no_such_page(exception: Exception, path: str) -> bool:
    from datasette.utils.asgi import NotFound

    return isinstance(exception, NotFound) and str(exception) == "Database not found" and not path.startswith("/-/")


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["kbtext"] = lambda text, version=None, readings=None, citations=None, absent=None: Markup(
        markup.render_text(text, version, None, readings, citations, absent))
    env.filters["langname"] = lambda code: LANGUAGE_NAMES.get(code or "", code or "")
    # Every "/" too: a glossary term may hold one ("房间/隔间"), and in a path it would end the segment.
    env.filters["quote"] = lambda text: quote(text or "", safe="")
    env.filters["worddiff"] = lambda diff: Markup(markup.render_word_diff(diff))
    env.filters["http_url"] = markup.http_url
    # Site pages (contents, glossary, diff, search): readable names and linked text.
    env.filters["bcp47"] = labels.bcp47
    env.filters["versionname"] = labels.version_name
    env.filters["languagename"] = labels.language_name
    env.filters["aspectwords"] = labels.aspect_words
    env.filters["cardname"] = display_name
    env.filters["isodate"] = lambda raw, lang="en": parse_date(raw, lang or "en") or raw
    env.filters["glossarylinker"] = lambda terms: GlossaryLinker(
        (term["term"], "/glossary/" + quote(term["term"], safe=""), linked_as_written(term["term"], term.get("text")),
         linked_as_a_noun(term["term"]))
        for term in terms or [] if links_in_text(term["term"]))
    env.filters["kblinked"] = lambda text, version=None, linker=None, readings=None, absent=None: Markup(
        markup.render_text(text, version, linker, readings, None, absent))
    env.filters["rulingitems"] = ruling_list.ruling_items_html
    env.filters["contentsrules"] = contents_page.rule_items_html
    env.filters["rulerows"] = partial(rule_rows, synchronous_twin(env))


def synchronous_twin(env: jinja2.Environment) -> jinja2.Environment:
    """An environment over the same templates, filters and globals that renders without async:
    Datasette's renders every expression through an await (a rule page of a section holds ~13k)."""
    twin = jinja2.Environment(loader=env.loader, autoescape=env.autoescape, undefined=env.undefined)
    twin.filters = env.filters
    twin.globals = env.globals
    twin.bytecode_cache = SharedBytecodeCache(twin)
    return twin


def rule_rows(twin: jinja2.Environment, page: dict, version: str | None, linker: object, columns: list) -> Markup:
    """A rule page's rows, the rule and each of its subrules beside their translations."""
    return Markup(twin.get_template("_kb_rule_rows.html").render(page=page, version=version, linker=linker, columns=columns))


@hookimpl
def register_routes():
    return [
        (r"^/$", views.home),
        (r"^/search(?P<json>\.json)?$", views.search_page),
        (r"^/card(?P<json>\.json)?$", views.card_by_name),
        (r"^/card/(?P<oracle_id>[0-9a-fA-F-]{8,40}?)(?P<json>\.json)?$", views.card_by_id),
        (r"^/rule/(?P<number>[0-9][0-9a-z.]*?)(?P<json>\.json)?$", views.rule),
        # A number typed otherwise ("７０２．１９", "第702.19条", "702.19 "), which Datasette first
        # sends to its tilde-encoded path: read as the search reads it.
        (r"^/rule/(?P<typed>[^/]+?)(?P<json>\.json)?$", views.rule_as_typed),
        # Site pages: the CR contents, the glossary, any two versions compared.
        (r"^/contents(?P<json>\.json)?$", views.contents),
        (r"^/glossary(?P<json>\.json)?$", views.glossary_index),
        (r"^/glossary/(?P<term>[^/]+?)(?P<json>\.json)?$", views.glossary_entry),
        # A term with a slash, typed as it is written ("/glossary/Play/Draw (Informal)"): Datasette
        # read it as a table's row and sent it to a tilde path that is no page (a review's fuzz).
        (r"^/glossary/(?P<term>[^/]+/[^/]+?)(?P<json>\.json)?$", views.glossary_entry),
        (r"^/diff(?P<json>\.json)?$", views.diff),
        (r"^/ruling/(?P<ruling_id>\d+)$", views.ruling_row),
        (r"^/translation/(?P<translation_id>\d+)$", views.translation_row),
        (r"^/changes\.atom$", views.changes_feed),
        (r"^/version/(?P<version_id>[a-z]{2,3}-[0-9a-z-]+?)(?P<json>\.json)?$", views.version),
        # Any other id there is none of ours (before: Datasette's "Database not found").
        (r"^/(?P<kind>card|version)/(?P<value>[^/]+?)(?P<json>\.json)?$", views.no_such_page),
    ]


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    """Datasette's table pages: card names, Oracle ids, rule numbers and glossary terms link to
    the site's pages (under Datasette's ``base_url``, as Datasette's own links are)."""
    rendered = _linked_cell(row, value, column, table, database, datasette)
    prefix = base_path.root(datasette.setting("base_url"))
    if rendered is None or not prefix:
        return rendered
    if callable(rendered):
        async def under_prefix() -> Markup:
            return Markup(base_path.prefixed_html(await rendered(), prefix))
        return under_prefix
    return Markup(base_path.prefixed_html(rendered, prefix))


def _linked_cell(row, value, column, table, database, datasette):
    if (table, column) in VIEW_REFERENCES and value not in (None, ""):
        # A view has no foreign keys for Datasette to link (ruling_rules since m032: its ids
        # were links, its row pages the way to a ruling's rules: an SQL user's review).
        path = f"/{tilde_encode(database)}/{VIEW_REFERENCES[table, column]}/{tilde_encode(str(value))}"
        return Markup(f'<a href="{html.escape(path)}">{html.escape(str(value))}</a>')
    if not isinstance(value, str) or not value:
        return None
    lang = _text_lang(row, table, column)
    marked = f' lang="{labels.bcp47(lang)}"' if lang else ""
    if table in ("cards", "card_names") and column == "name" and (oracle_id := _stored_text(_cell(row, "oracle_id"))):
        return Markup(f'<a href="/card/{quote(oracle_id)}"{marked}>{html.escape(value)}</a>')
    if table == "glossary" and column == "term":
        # Version ids begin with their language ("zhs-2025-02-07"): a Chinese term is in the
        # Chinese glossary.
        where = "" if not lang else f"?lang={quote(lang)}"
        return Markup(f'<a href="/glossary/{quote(value, safe="")}{where}"{marked}>{html.escape(value)}</a>')
    if column == "oracle_id" and len(value) == 36:
        return Markup(f'<a href="/card/{quote(value)}">{html.escape(value)}</a>')
    if lang and not value[:1].isdigit():
        # Text in another language carries it: the browser picks the script's font (Chinese was
        # drawn in the Japanese one) and a screen reader its voice. Cut as Datasette cuts the
        # cells it renders itself (markup returned here is shown whole).
        limit = datasette.setting("truncate_cells_html")
        shown_text = value[:limit] + "\u2026" if limit and len(value) > limit else value
        return Markup(f"<span{marked}>{html.escape(shown_text)}</span>")
    if not value[:1].isdigit():
        return None
    if (table, column) in VERSION_IN_ROW:
        # Without its version (a page that hides that column) the number is shown, not guessed at.
        version = _stored_text(_cell(row, VERSION_IN_ROW[table, column]))
        return _rule_link(value, version) if version else None
    if (table, column) in VERSION_OF_SOURCE:
        source_table, key = VERSION_OF_SOURCE[table, column]
        source_id = _cell(row, key)
        source_id = source_id.get("value") if isinstance(source_id, dict) else source_id
        if source_id is None:
            return None

        async def linked_in_its_version() -> Markup:
            found = await datasette.get_database(database).execute(
                f"select version_id from {source_table} where id = ?", [source_id])
            first = found.first()
            return _rule_link(value, first[0]) if first else Markup(html.escape(value))
        return linked_in_its_version
    if column in ("rule_number", "current_number") or (table == "current_rules" and column == "number"):
        return _rule_link(value, None)  # numbered as in the newest English rules
    return None


# The columns of views that hold a table's key: linked to its row as a foreign key would be.
VIEW_REFERENCES = {
    ("ruling_rules", "ruling_id"): "rulings",
    ("ruling_rules", "rule_id"): "rules",
    ("ruling_rules", "current_rule_id"): "rules",
    ("ruling_rules", "version_id"): "cr_versions",
    ("ruling_rules", "in_force_version_id"): "cr_versions",
    ("ruling_rules", "lineage_id"): "rule_lineages",
    ("citations_to_check", "ruling_id"): "rulings",
}


# A rule number is a label in one version: each table's numbers link the rule in the version
# they belong to, never today's rule that has the number now.
VERSION_IN_ROW = {
    ("rules", "number"): "version_id",
    ("keywords", "rule_number"): "version_id",
    ("ruling_rules", "rule_number"): "version_id",
    ("ruling_rule_targets", "rule_number"): "version_id",
    ("citations_to_check", "cited_number"): "cited_version",
    ("cr_changes", "old_number"): "old_version_id",
    ("cr_changes", "new_number"): "new_version_id",
    ("rule_lineage_links", "old_number"): "old_version_id",
    ("rule_lineage_links", "new_number"): "new_version_id",
}
# Citations are numbered as in the version of the rule or glossary entry that cites them.
VERSION_OF_SOURCE = {
    ("rule_refs", "target_number"): ("rules", "rule_id"),
    ("glossary_refs", "target_number"): ("glossary", "glossary_id"),
}


def _rule_link(number: str, version: str | None) -> Markup:
    href = f"/rule/{quote(number)}" + (f"?version={quote(version)}" if version else "")
    return Markup(f'<a href="{html.escape(href)}">{html.escape(number)}</a>')


# The columns of each table that hold text in the row's language (``lang``, or the language its
# version id begins with). Not printings.name: the English Oracle name.
TEXT_IN_ROW_LANGUAGE = {
    "card_names": ("name",),
    "card_name_records": ("name",),
    "printings": ("printed_name", "printed_type_line", "printed_text"),
    "ruling_translations": ("text", "card_name"),
    "keyword_dictionary": ("term",),
    "cr_versions": ("title", "intro", "credits"),
    "rules": ("title", "text"),
    "glossary": ("term", "text"),
}
# Canned queries (no table): rows that name the version of their translated columns. (Not any
# query's "name" or "text" beside a "lang": "select name, lang from printings" is English names.)
TEXT_OF_VERSION = {"translation": "translation_version", "translated_title": "translation_version"}


def _text_lang(row: Any, table: str | None, column: str) -> str | None:
    """The language of a text cell where it is not English (None where English or not known)."""
    if column in TEXT_IN_ROW_LANGUAGE.get(table or "", ()):
        if table == "ruling_translations" and _stored_text(_cell(row, "status")) in (None, "untranslated"):
            # Untranslated: the language its page announced, the text the English ruling's (and
            # with the status column left out, not known).
            return None
        lang = _stored_text(_cell(row, "lang")) or (_stored_text(_cell(row, "version_id")) or "").split("-")[0]
    elif column in TEXT_OF_VERSION and table not in TEXT_IN_ROW_LANGUAGE:
        lang = (_stored_text(_cell(row, TEXT_OF_VERSION[column])) or "").split("-")[0]
    else:
        return None
    return lang if lang and lang != "en" else None


def _cell(row: Any, column: str) -> Any:
    """A column of the row, None when the page leaves it out (``?_col=``, ``?_nocol=``)."""
    return row[column] if column in row.keys() else None


def _stored_text(value: object) -> str | None:
    """A text cell as stored: Datasette hands the cell hook a foreign key to a table with a label
    column as ``{"value": …, "label": …}`` (card_names.oracle_id → cards, labelled by name)."""
    if isinstance(value, dict):
        value = value.get("value")
    return value if isinstance(value, str) else None
