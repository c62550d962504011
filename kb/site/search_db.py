"""Small SQL helpers the search and the pages share: rows as dicts, table checks, URLs, the current CR."""
from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple
from urllib.parse import quote

import orjson

from kb.site.page_cache import file_identity, file_signature
from kb.site.search_text import fold, rule_number_key, title_key


def rows(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    """The rows of ``sql`` as dicts, in its order.

    Read as one value where that is known to give the same rows (``_packed_statements``): Python's
    sqlite3 gives the GIL up and takes it back at every row, and with another request's thread
    running, each row of a thousand waited its turn (two threads fetching 1,001 rowids each did
    half the work of one; one step per statement, 1.6 times as much)."""
    known = _packed_statements(conn)
    packing = known.get(sql)
    if packing:
        names, packed_sql = packing
        try:
            packed, exact = conn.execute(packed_sql, params).fetchone()
        except sqlite3.OperationalError as error:
            if str(error) == "interrupted":  # the time limit ended the query, not its form
                raise
            exact = False  # a BLOB, or a form SQLite will not take: read as written from now on
        if exact:
            # orjson: twice as fast as the standard library's decoder on these arrays.
            return [dict(zip(names, row, strict=True)) for row in orjson.loads(packed)]
        known[sql] = None
    cursor = conn.execute(sql, params)
    found = cursor.fetchall()
    names = tuple(column[0] for column in cursor.description)
    if packing is None and sql not in known and len(known) < KNOWN_STATEMENTS:
        known[sql] = (names, _packed_sql(sql, names)) if _packs_whole(sql, names, found) else None
    return [dict(zip(names, row, strict=True)) for row in found]


def rowids(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[int]:
    """The integers of ``sql``'s one column, named ``rowid``, read as one value (see ``rows``)."""
    (packed,) = conn.execute(f"select group_concat(rowid) from ({sql}\n)", params).fetchone()
    return list(map(int, packed.split(","))) if packed else []


# Per served file (its columns are its own: a statement of ``*`` names another file's columns
# otherwise), each statement read as one JSON array (its column names and that form), or None:
# read as written. A statement is read so once a plain read showed integers and texts only;
# SQLite writes a REAL in JSON with 15 digits (a column empty in that read is checked at every
# read) and cannot write a BLOB. The site's statements are a few hundred; one built with its
# values in it is read as written past the bound.
KNOWN_STATEMENTS = 2000
REAL = "real"
_PACKED: OrderedDict[tuple, dict[str, tuple[tuple[str, ...], str] | None]] = OrderedDict()


def _packed_statements(conn: sqlite3.Connection) -> dict[str, tuple[tuple[str, ...], str] | None]:
    # An in-memory database has no key: a new, empty map each time, and nothing read as one value.
    return per_file(conn, _PACKED, lambda _: {})


def _packs_whole(sql: str, names: tuple[str, ...], found: list[Any]) -> bool:
    # Names told apart by case only are one column to SQLite's outer query.
    if not sql.lstrip().lower().startswith(("select", "with")) or len({name.casefold() for name in names}) != len(names):
        return False
    return bool(found) and not any(isinstance(value, (float, bytes)) for row in found for value in row)


def _packed_sql(sql: str, names: tuple[str, ...]) -> str:
    # Each column through the subquery's name: a name it lacks is an error, never a string (SQLite
    # reads an unknown double-quoted name as one). An ORDER BY within stays in force: SQLite keeps
    # a subquery's order for any aggregate other than count(), min() and max(). The second value
    # says no REAL came (a column empty in the plain read): those are read as written again.
    quoted = ["packed_rows.\"" + name.replace('"', '""') + '"' for name in names]
    return (f"select json_group_array(json_array({', '.join(quoted)})), "
            f"coalesce(max({' or '.join(f'typeof({name}) = {REAL!r}' for name in quoted)}), 0) = 0 "
            f"from ({sql.strip().rstrip(';')}\n) as packed_rows")


# What requests ask of their file again and again: which tables exist, the newest English CR
# version, the translated ones. Within a request (``one_request``) they are read from a copy kept
# per served file, whose cache key is itself read once a request: a search asked ~18 such
# questions, a quarter of its statements. Outside a request they are asked of the file.
_REQUEST = threading.local()


class FileFacts(NamedTuple):
    tables: frozenset[str]  # tables and views
    newest_english: str | None
    translated: tuple[str, ...]
    versions: dict[str, tuple[str, str | None]]  # id -> (language, effective date)


@contextmanager
def one_request(conn: sqlite3.Connection) -> Iterator[None]:
    """Within, this thread's questions about ``conn``'s tables and CR versions are answered from
    what is kept for its file, and whether a table has rows once (the file does not change under
    a request: served files are replaced, never written)."""
    outer = getattr(_REQUEST, "memo", None)
    if outer is not None and outer[0] is conn:
        yield
        return
    _REQUEST.memo = (conn, {})
    try:
        yield
    finally:
        _REQUEST.memo = outer


def _once(conn: sqlite3.Connection, key: Any, read: Callable[[], Any]) -> Any:
    memo = getattr(_REQUEST, "memo", None)
    if memo is None or memo[0] is not conn:
        return read()
    values = memo[1]
    if key not in values:
        values[key] = read()
    return values[key]


def _in_request(conn: sqlite3.Connection) -> bool:
    memo = getattr(_REQUEST, "memo", None)
    return memo is not None and memo[0] is conn


_FILE_FACTS: OrderedDict[tuple, FileFacts] = OrderedDict()


def _facts(conn: sqlite3.Connection) -> FileFacts:
    return _once(conn, "facts", lambda: per_file(conn, _FILE_FACTS, _read_facts))


def _read_facts(conn: sqlite3.Connection) -> FileFacts:
    tables = frozenset(row[0] for row in conn.execute("select name from sqlite_master where type in ('table', 'view')"))
    if "cr_versions" not in tables:
        return FileFacts(tables, None, (), {})
    return FileFacts(
        tables, _newest_english_version(conn),
        tuple(row[0] for row in conn.execute("select id from cr_versions where lang != 'en' order by id")),
        {row[0]: (row[1], row[2]) for row in conn.execute("select id, lang, effective_date from cr_versions")},
    )


def table_exists(conn: sqlite3.Connection, name: str) -> bool:
    if _in_request(conn):
        return name in _facts(conn).tables
    found = conn.execute(
        "select 1 from sqlite_master where type in ('table', 'view') and name = ?", (name,)
    ).fetchone()
    return found is not None


def columns_of(conn: sqlite3.Connection, table: str) -> set[str]:
    """The columns ``table`` has (a file an older version made lacks later ones)."""
    return _once(conn, ("columns", table), lambda: {row[1] for row in conn.execute(f'pragma table_info("{table}")')})


def table_has_rows(conn: sqlite3.Connection, name: str) -> bool:
    return table_exists(conn, name) and _once(
        conn, ("rows", name), lambda: conn.execute(f'select 1 from "{name}" limit 1').fetchone() is not None
    )


def register_functions(conn: sqlite3.Connection) -> None:
    """``kb_fold(text)`` for accent-insensitive comparisons in visitors' SQL, once per connection
    (``prepare_connection``): registering a function again expires every statement the connection
    has prepared, and a search that did so on each call prepared all its statements again (~9 % of
    its CPU). Our own queries do not use it."""
    conn.create_function("kb_fold", 1, fold, deterministic=True)


def newest_english_version(conn: sqlite3.Connection) -> str | None:
    return _facts(conn).newest_english if _in_request(conn) else _newest_english_version(conn)


def _newest_english_version(conn: sqlite3.Connection) -> str | None:
    row = conn.execute(
        "select id from cr_versions where lang = 'en' order by effective_date desc limit 1"
    ).fetchone()
    return row[0] if row else None


class RuleHead(NamedTuple):
    """What the search reads of every rule it finds, before it knows which it shows."""

    version_id: str
    number: str
    title: str | None
    lineage_id: str | None


# The head of every rule (its version, number, title and lineage), by rowid, per served file: the
# search sorts a common word's thousand full-text matches into the current, translated and older
# versions and keeps a few hundred; reading those from the rules table took 0.7-1.7 ms of a text
# search on the 1M-ruling database (1.65 of "if a creature"'s ~17, 1.3 of "the"'s ~13).
_RULE_HEADS: OrderedDict[tuple, dict[int, RuleHead]] = OrderedDict()
_PER_FILE_LOCK = threading.Lock()


def rule_heads(conn: sqlite3.Connection) -> dict[int, RuleHead]:
    """``rules.rowid`` → its ``RuleHead``, kept while the file is unchanged (a few files at most:
    ~5 MB for the 30k rules of 14 CR versions)."""
    return per_file(conn, _RULE_HEADS, _read_rule_heads)


_RULE_TITLES: OrderedDict[tuple, dict[tuple[str, str], list[str]]] = OrderedDict()


def rules_titled(conn: sqlite3.Connection, version: str | None, key: str) -> list[str]:
    """Numbers of ``version``'s rules whose title has this ``title_key``, in reading order
    (a map of every version's titles, kept per served file like the rules' heads)."""
    return per_file(conn, _RULE_TITLES, _read_rule_titles).get((version or "", key), [])


def _read_rule_titles(conn: sqlite3.Connection) -> dict[tuple[str, str], list[str]]:
    titles: dict[tuple[str, str], list[str]] = {}
    for head in rule_heads(conn).values():
        if head.title:
            titles.setdefault((head.version_id, title_key(head.title)), []).append(head.number)
    for numbers in titles.values():
        numbers.sort(key=rule_number_key)
    return titles


def file_key(conn: sqlite3.Connection) -> tuple | None:
    """The file ``conn`` reads, as a key of what is kept per file: its path and signature (None
    for an in-memory database). Within a request, asked of the file once."""
    path = _once(conn, "path", lambda: conn.execute("pragma database_list").fetchone()[2])
    signature = _once(conn, ("signature", path), lambda: connection_signature(conn, path))
    return None if signature is None else (path, signature)


def per_file(conn: sqlite3.Connection, cache: OrderedDict[tuple, Any], read: Callable[[sqlite3.Connection], Any]) -> Any:
    """``read(conn)``, kept in ``cache`` while the served file is unchanged (the last four files)."""
    key = file_key(conn)
    if key is None:  # an in-memory database: nothing to key a copy on
        return read(conn)
    with _PER_FILE_LOCK:
        found = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
            return found
        reading = _READING.setdefault((id(cache), key), threading.Lock())
    # One thread reads a file's map; others asking for it meanwhile wait for that one (four
    # first searches at once on the CR archive's file read 238k rules' heads four times over).
    try:
        with reading:
            with _PER_FILE_LOCK:
                found = cache.get(key)
            if found is None:
                found = read(conn)
                with _PER_FILE_LOCK:
                    cache[key] = found
                    while len(cache) > 4:
                        cache.popitem(last=False)
    finally:
        with _PER_FILE_LOCK:
            _READING.pop((id(cache), key), None)
    return found


_READING: dict[tuple[int, tuple], threading.Lock] = {}


# The file each of our pages' connections has open (its device and inode when it was opened),
# by the connection's id; the entry holds the connection, so the id is not reused while noted.
# After a refresh renames a new file over the served one, requests still running on the old
# file's connections would otherwise key what they read by the path's new signature, and the new
# file's searches would use the old file's CR versions and rules' heads until the next swap.
_OPENED: dict[int, tuple[sqlite3.Connection, tuple[int, int]]] = {}


def connect_noting_file(connect: Callable[[], sqlite3.Connection], path: str | None) -> sqlite3.Connection:
    """``connect()``, noting which file the connection has open (SQLite opens it on connecting):
    when the path names the same file before and after, that one."""
    before = file_identity(path)
    conn = connect()
    if before is not None and file_identity(path) == before:
        with _PER_FILE_LOCK:
            _OPENED[id(conn)] = (conn, before)
    return conn


def close_noted(conn: sqlite3.Connection) -> None:
    with _PER_FILE_LOCK:
        _OPENED.pop(id(conn), None)
    conn.close()


def connection_signature(conn: sqlite3.Connection, path: str | None) -> tuple | None:
    """The signature of the file ``conn`` reads: the path's, unless the connection was noted
    opening another file than the path names now (then a key of that file alone)."""
    signature = file_signature(path)
    with _PER_FILE_LOCK:
        noted = _OPENED.get(id(conn))
    if noted is None or noted[0] is not conn:
        return signature
    if signature and signature[0] and signature[0][:2] == noted[1]:
        return signature
    return ("replaced", noted[1])


def _read_rule_heads(conn: sqlite3.Connection) -> dict[int, RuleHead]:
    # One string for each distinct value, not one a row: a rule's number, title and lineage
    # repeat in every version that has it (8.5 MB -> 5.3 for 14 versions' 30k rules).
    strings: dict[Any, Any] = {None: None}

    def one(value: Any) -> Any:
        return strings.setdefault(value, value)

    return {
        rowid: RuleHead(one(version_id), one(number), one(title), one(lineage_id))
        for rowid, version_id, number, title, lineage_id in conn.execute(
            "select rowid, version_id, number, title, lineage_id from rules"
        )
    }


def translated_versions(conn: sqlite3.Connection) -> list[str]:
    if _in_request(conn):
        return list(_facts(conn).translated)
    return [row[0] for row in conn.execute("select id from cr_versions where lang != 'en' order by id")]


def rules_text_languages(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """The languages of the CR documents held (English first), and those only pages captured one
    rule at a time are in (the Spanish page of 702.78 is not the rules in Spanish, but it is
    searched: the page said Spanish was not; a foreign judges' review)."""
    found = conn.execute(
        """select cr_versions.lang, min(sources.kind = 'page capture') from cr_versions
        join documents on documents.id = cr_versions.document_id
        join sources on sources.id = documents.source_id
        group by cr_versions.lang order by cr_versions.lang != 'en', cr_versions.lang""").fetchall()
    return [lang for lang, captured in found if not captured], [lang for lang, captured in found if captured]


def newest_versions(conn: sqlite3.Connection) -> dict[str, str]:
    """Each language's newest CR version, by language."""
    newest: dict[str, tuple[str, str]] = {}
    for version_id, (lang, date) in version_languages_and_dates(conn).items():
        if lang not in newest or (date or "", version_id) > newest[lang]:
            newest[lang] = (date or "", version_id)
    return {lang: version_id for lang, (_date, version_id) in newest.items()}


def version_languages_and_dates(conn: sqlite3.Connection) -> dict[str, tuple[str, str | None]]:
    """Every CR version's (language, effective date), by id (within a request: the copy kept for
    the file, not to be changed)."""
    if _in_request(conn):
        return _facts(conn).versions
    return {row[0]: (row[1], row[2]) for row in conn.execute("select id, lang, effective_date from cr_versions")}


def bounded_count(conn: sqlite3.Connection, sql: str, params: Any, cap: int) -> int:
    """``count(*)`` of ``sql``'s rows, reading at most ``cap + 1`` of them."""
    return conn.execute(f"select count(*) from ({sql} limit {int(cap) + 1})", params).fetchone()[0]


def card_url(oracle_id: str | None, name: str | None = None) -> str:
    if oracle_id:
        return f"/card/{oracle_id}"
    return "/card?name=" + quote(name or "")


def rule_url(number: str, version: str | None = None, anchor: str = "") -> str:
    url = f"/rule/{number}"
    if version:
        url += "?version=" + quote(version)
    return url + (f"#{anchor}" if anchor else "")


def newest_ruling_ids(conn: sqlite3.Connection, lineage: str, count: int, skip: int = 0) -> list[int]:
    """The ids of the ``count`` newest rulings relying on ``lineage`` (a date's rulings by id,
    highest first) after the ``skip`` newest, read newest first from the (lineage, date, ruling) index."""
    count += skip
    ids: list[int] = []
    seen: set[int] = set()
    cursor = conn.execute(
        """select ruling_id from ruling_rules where lineage_id = ?
        order by published_at desc, ruling_id desc""",
        (lineage,),
    )
    try:
        for (ruling_id,) in cursor:
            if ruling_id not in seen:
                seen.add(ruling_id)
                ids.append(ruling_id)
                if len(ids) >= count:
                    break
    finally:
        cursor.close()
    return ids[skip:]


def rule_examples(conn: sqlite3.Connection, rule_ids: list[int]) -> dict[int, list[str]]:
    """Each rule's examples, in order (of English and translated rules alike)."""
    found: dict[int, list[str]] = {}
    for start in range(0, len(rule_ids), 500):
        part = rule_ids[start : start + 500]
        marks = ",".join("?" * len(part))
        for row in rows(conn, f"select rule_id, text from rule_examples where rule_id in ({marks}) order by rule_id, position", part):
            found.setdefault(row["rule_id"], []).append(row["text"])
    return found
