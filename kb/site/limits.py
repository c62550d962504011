"""What makes public SQL safe to publish: capped values and results, a separate pool for our pages, security headers.

Anyone may run SQL against the site. One query must not allocate a gigabyte
(``randomblob(900000000)``), return a hundred megabytes, or hold every worker thread so that a
judge's card page waits behind it. So:

- every connection gets SQLite limits (``SQLITE_LIMIT_LENGTH`` caps any one value, statement
  length and nesting are capped) and a row factory that stops a query once its rows add up to
  ``MAX_RESULT_BYTES``; Datasette's ``sql_time_limit_ms`` bounds time, enforced by a watchdog
  thread that interrupts the query (``kb.site.time_limit``; no Python inside the query's loop);
- the site's own pages (card, rule, search, version, feed) run on a small thread pool of their
  own, with their own connections, so runaway SQL in Datasette's pool cannot queue them;
- every response carries ``Content-Security-Policy`` and ``X-Content-Type-Options``;
- Datasette 0.65.5's default error handler prints a ``rich`` traceback with every local variable
  (44 KB for a bad ``_search``, and a 500 instead of a 404 when a local's repr fails): it is
  told ``rich`` is absent, so errors keep their status and the log stays one line.
"""
from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote_to_bytes

from kb.site.search_db import close_noted, connect_noting_file

# The longest value the database holds is a CR edition's introduction or a diff (tens of KB).
MAX_VALUE_BYTES = 4 << 20
MAX_SQL_LENGTH = 100_000
MAX_EXPR_DEPTH = 200
MAX_COMPOUND_SELECT = 50
# One query's rows, added up (Datasette's max_returned_rows caps their number).
MAX_RESULT_BYTES = 16 << 20
PAGE_THREADS = 2
PAGE_THREAD_PREFIX = "kb-pages"

CONTENT_SECURITY_POLICY = (
    # Datasette's own pages use inline scripts and styles; nothing is loaded from elsewhere.
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


class ResultTooLarge(sqlite3.DatabaseError):
    """A query whose rows add up to more than MAX_RESULT_BYTES."""


_spent: weakref.WeakKeyDictionary[sqlite3.Cursor, int] = weakref.WeakKeyDictionary()


def budgeted_row(cursor: sqlite3.Cursor, row: tuple) -> sqlite3.Row:
    """``sqlite3.Row`` (what Datasette uses), counting each cursor's bytes against the cap."""
    size = 16 * len(row)
    for value in row:
        if isinstance(value, (str, bytes)):
            size += len(value)
    spent = _spent.get(cursor, 0) + size
    if spent > MAX_RESULT_BYTES:
        raise ResultTooLarge(
            f"the result is larger than {MAX_RESULT_BYTES >> 20} MB; select fewer rows or columns (add a LIMIT)"
        )
    _spent[cursor] = spent
    return sqlite3.Row(cursor, row)


# Datasette's SQL threads (public queries, table pages) run at a lower CPU priority than the
# site's own page threads: on a busy machine a runaway query yields the CPU to a card page.
SQL_THREAD_NICENESS = 10
# Datasette's executor names its threads so (it gives no prefix of its own). Only those are
# lowered: prepare_connection also runs on the event loop's thread (at start-up), and a thread
# lowered there would slow every request, and every thread started later inherits its niceness.
SQL_THREAD_PREFIX = "ThreadPoolExecutor-"


def lower_sql_thread_priority() -> None:
    """Called from prepare_connection, which runs in the thread that will use the connection."""
    if not is_sql_thread(threading.current_thread()) or not hasattr(os, "setpriority"):
        return
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < SQL_THREAD_NICENESS:
            os.setpriority(os.PRIO_PROCESS, tid, SQL_THREAD_NICENESS)
    except OSError:
        pass  # not permitted here: the limits still hold, only the priority does not


def is_sql_thread(thread: threading.Thread) -> bool:
    return thread is not threading.main_thread() and thread.name.startswith(SQL_THREAD_PREFIX)


def limit_connection(conn: sqlite3.Connection) -> None:
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_LENGTH)
    conn.setlimit(sqlite3.SQLITE_LIMIT_EXPR_DEPTH, MAX_EXPR_DEPTH)
    conn.setlimit(sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, MAX_COMPOUND_SELECT)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.row_factory = budgeted_row


# SQLite reads a page it does not hold with one read() system call; each connection holds 2 MB,
# and a search on the full-size file (1.7 GB) touches far more. A file served immutable is
# never written while it is served (a refresh renames a new file over it), so its connections
# read it through a memory map instead: pages are shared with the operating system's cache, not
# copied per connection (a process's RSS counts the pages it touched). SQLite caps the size
# (2 GB in this build; the rest of a larger file is read as before).
MEMORY_MAP_BYTES = 1 << 31


def read_through_memory_map(conn: sqlite3.Connection) -> None:
    conn.execute(f"pragma mmap_size = {MEMORY_MAP_BYTES}").fetchall()


class PagePool:
    """Our pages' own worker threads, each with its own connection per served file generation."""

    def __init__(self, threads: int = PAGE_THREADS) -> None:
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix=PAGE_THREAD_PREFIX)
        self._local = threading.local()

    async def run(self, datasette: Any, database: Any, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        # The reload plugin registers a new Database object when the file is replaced.
        key = (database.name, database.path, getattr(database, "generation", 0), id(database))

        def in_thread() -> Any:
            held: dict[str, tuple[tuple, sqlite3.Connection]] = self._local.__dict__.setdefault("held", {})
            current = held.get(database.name)
            if current is None or current[0] != key:
                if current is not None:
                    close_noted(current[1])
                conn = connect_noting_file(database.connect, database.path)
                datasette._prepare_connection(conn, database.name)
                # Rows built in C: the result budget (``budgeted_row``) is for visitors' SQL, and
                # our pages' queries are bounded by their own LIMITs. A Python call per row cost
                # ~1.8 µs; a common word's search reads ~1,500 rows (~2.7 ms of ~13). Texts
                # decoded in C too: Datasette's decoder (a Python call per text, replacing what
                # is not UTF-8) is for files of any origin, and the builds write what Python
                # encoded.
                conn.row_factory = sqlite3.Row
                conn.text_factory = str
                held[database.name] = current = (key, conn)
            return fn(current[1])

        return await asyncio.get_running_loop().run_in_executor(self._executor, in_thread)


PAGES = PagePool()


# Requests that carry SQL of the visitor's own (``?sql=``, ``_where=``) share Datasette's three
# SQL threads with its table pages: at most this many run at once, so one thread always stays
# free for the table pages while sixteen runaway queries wait their turn.
PUBLIC_SQL_AT_ONCE = 2
PUBLIC_SQL_PARAMETERS = (b"sql", b"_where")


def _carries_sql(query_string: bytes) -> bool:
    """Whether a query string names ``sql`` or ``_where``, as Datasette reads its names: decoded
    ("?%73ql=" ran SQL past the gate: a review's fuzz)."""
    for pair in query_string.split(b"&"):
        name = pair.split(b"=", 1)[0]
        if b"%" in name or b"+" in name:
            name = unquote_to_bytes(name.replace(b"+", b" "))
        if name in PUBLIC_SQL_PARAMETERS:
            return True
    return False


def public_sql_gate(app: Callable) -> Callable:
    """ASGI middleware: requests with their own SQL pass PUBLIC_SQL_AT_ONCE at a time."""
    gate: asyncio.Semaphore | None = None

    async def wrapped(scope: dict, receive: Callable, send: Callable) -> None:
        nonlocal gate
        if scope.get("type") != "http" or not _carries_sql(scope.get("query_string", b"")):
            await app(scope, receive, send)
            return
        if gate is None:
            gate = asyncio.Semaphore(PUBLIC_SQL_AT_ONCE)
        async with gate:
            await app(scope, receive, send)

    return wrapped


# The methods a read-only site answers (OPTIONS: a browser's preflight, which Datasette answers).
READ_METHODS = ("GET", "HEAD", "OPTIONS")


def read_only(app: Callable) -> Callable:
    """ASGI middleware answering 405 to any method but ``READ_METHODS``: the site changes
    nothing, and POST, PUT or DELETE on its pages answered 200 as if done, on Datasette's table
    pages a 500 with a traceback in the log (a review's fuzz; a docs review)."""

    async def wrapped(scope: dict, receive: Callable, send: Callable) -> None:
        if scope.get("type") == "http" and scope.get("method", "GET") not in READ_METHODS:
            body = b"Method not allowed: this site is read only (GET).\n"
            await send({"type": "http.response.start", "status": 405, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"allow", ", ".join(READ_METHODS).encode()),
                (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return wrapped


# What browsers drop from a URL (tabs, line breaks) and read as a slash (a backslash).
_BROWSER_IGNORED = re.compile(rb"[\t\n\r]")


def same_site_location(location: bytes) -> bytes:
    """A redirect's target as a path on this site. Datasette 0.65.5 answers a path ending in "/"
    with a redirect to it without the slash: "/\\evil.example/" to "/\\evil.example", which a
    browser reads as "//evil.example", another site (simonw/datasette#2680; a review's fuzz).
    A path whose start a browser reads as "//" keeps one slash."""
    read = _BROWSER_IGNORED.sub(b"", location).replace(b"\\", b"/")
    if not read.startswith(b"//"):
        return location
    return b"/" + read.lstrip(b"/")


def security_headers(app: Callable) -> Callable:
    """ASGI middleware adding SECURITY_HEADERS to every HTTP response, and keeping its redirects
    on this site (``same_site_location``)."""
    names = {name for name, _value in SECURITY_HEADERS}

    async def wrapped(scope: dict, receive: Callable, send: Callable) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return

        async def sending(message: dict) -> None:
            if message.get("type") == "http.response.start":
                headers = [(k, same_site_location(v) if k.lower() == b"location" else v)
                           for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        await app(scope, receive, sending)

    return wrapped


# What SQLite says when a statement names a table or column the served file lacks.
_SCHEMA_BEHIND = re.compile(r"^no such (?:table|column): (?P<name>\S+)")


def as_older_file_error(exception: BaseException, db_path: str | None) -> BaseException | None:
    """A page reading what this version adds, on a file an older version made: "Error 500 no
    such table: sets" told a visitor nothing and an operator not what to do (an upgrade's review).
    Only where the file has migrations not applied: on a file of this version such an error is a
    fault of the page's own SQL, and said as it is (a code review)."""
    import sqlite3
    from pathlib import Path

    from datasette.views.base import DatasetteError

    from kb.store.migrations import not_applied

    found = _SCHEMA_BEHIND.match(str(exception)) if isinstance(exception, sqlite3.OperationalError) else None
    if found is None or not db_path or not not_applied(Path(db_path)):
        return None
    return DatasetteError(
        f"This page reads {found['name']}, which the database being served does not hold: the file was made by an"
        " older version of mtg-rules-kb. Its operator can make it again: `mtgkb build`, then `mtgkb import` of"
        " any file imported into it by hand (or, where `mtgkb refresh` publishes it, its next run).",
        title="The database is older than this site", status=500,
    )


def as_client_error(exception: BaseException, path: str = "") -> BaseException | None:
    """Datasette raises its own errors about a request's parameters ("Cannot sort table by
    nope") with status 500; they are the client's mistake: 400, so monitoring sees no outage.
    A query missing a parameter is one too: a row of a table keyed by several columns asked by
    fewer values (``/kb/ruling_sightings/1.json``, "You did not supply a value for binding
    parameter :p1", a 500) is not there, 404; any other such query, 400. Returns the error to
    answer with instead, when it is another one."""
    import sqlite3

    from datasette.utils.asgi import BadRequest, NotFound
    from datasette.views.base import DatasetteError

    if isinstance(exception, DatasetteError) and exception.status == 500:
        exception.status = 400
    if isinstance(exception, sqlite3.ProgrammingError) and "did not supply a value for binding" in str(exception):
        return NotFound("Record not found") if _ROW_PATH.match(path) else BadRequest(str(exception))
    return None


# /<database>/<table>/<primary key values>[.json]: a row's page.
_ROW_PATH = re.compile(r"^/[^/]+/[^/]+/[^/]+$")


def quiet_default_error_handler() -> None:
    """Datasette's default handler prints rich tracebacks with locals when rich is importable."""
    import datasette.handle_exception

    datasette.handle_exception.rich = None
