"""The time limit of public SQL and of our pages: a watchdog interrupts the query (no Python runs inside it), charging it CPU time; SQL threads yield the CPU and leave nothing for the event loop to wait on."""
from __future__ import annotations

import os
import sqlite3
import threading
import time
import traceback

import pytest

from kb.site.limits import SQL_THREAD_NICENESS, lower_sql_thread_priority
from kb.site.time_limit import WATCHDOG, time_limit

RUNAWAY = "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n"


def test_a_runaway_query_is_interrupted_and_the_connection_serves_the_next_query() -> None:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    with pytest.raises(sqlite3.OperationalError, match="interrupted"), time_limit(conn, 50):
        conn.execute(RUNAWAY).fetchone()
    with time_limit(conn, 60_000):
        assert conn.execute("select count(*) from (select 1 union all select 2)").fetchone() == (2,)
    assert WATCHDOG._watched == {}


def test_a_query_that_ends_in_time_leaves_nothing_to_interrupt_later() -> None:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    with time_limit(conn, 20):
        conn.execute("select 1").fetchone()
    time.sleep(0.05)  # past the released deadline: nothing may interrupt the next query
    assert conn.execute("with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000) "
                        "select count(*) from n").fetchone() == (200000,)


def test_a_short_limit_is_kept_while_the_watchdog_waits_for_a_later_deadline() -> None:
    """The watchdog is told of a query only when it is due before the watchdog's next look."""
    long_running = sqlite3.connect(":memory:", check_same_thread=False)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    with time_limit(long_running, 60_000):
        time.sleep(0.05)  # the watchdog has looked: its next look is a minute away
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="interrupted"), time_limit(conn, 50):
            conn.execute(RUNAWAY).fetchone()
        assert time.monotonic() - started < 10  # a bound for a loaded machine, far from the minute


def test_short_queries_one_after_another_do_not_wake_the_watchdog_for_each() -> None:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    with time_limit(conn, 1500):
        conn.execute("select 1").fetchone()
    before = WATCHDOG.wakeups
    for _ in range(300):
        with time_limit(conn, 1500):
            conn.execute("select 1").fetchone()
    assert WATCHDOG.wakeups - before < 30
    assert WATCHDOG._watched == {}


def test_time_spent_waiting_for_a_core_is_not_charged_to_the_query() -> None:
    """The limit counts the thread's CPU time: a query that waited (here: slept) past its limit
    in wall-clock time, but within WALL_CLOCK_FACTOR of it, still runs."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    with time_limit(conn, 100):
        time.sleep(0.15)
        assert conn.execute("select 1").fetchone() == (1,)


def test_a_failed_query_leaves_no_open_cursor_for_another_thread_to_reset() -> None:
    """The exception carries the query's frame, and its cursor, to the event loop's thread; an open
    cursor dying there would take the connection's mutex while the SQL thread runs its next query."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)

    def query_as_datasette_runs_it() -> None:
        with time_limit(conn, 50):
            cursor = conn.cursor()
            cursor.execute(RUNAWAY)

    with pytest.raises(sqlite3.OperationalError, match="interrupted") as failure:
        query_as_datasette_runs_it()
    cursors = [
        value for frame, _line in traceback.walk_tb(failure.tb) for value in frame.f_locals.values()
        if isinstance(value, sqlite3.Cursor)
    ]
    assert len(cursors) == 1
    with pytest.raises(sqlite3.ProgrammingError, match="closed cursor"):
        cursors[0].fetchone()
    assert conn.execute("select 1").fetchone() == (1,)


def niceness_in_thread(name: str) -> int:
    seen: list[int] = []

    def lower_and_read() -> None:
        lower_sql_thread_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=lower_and_read, name=name)
    thread.start()
    thread.join()
    return seen[0]


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no per-thread priorities here")
def test_only_datasettes_sql_threads_are_lowered_never_the_event_loops() -> None:
    """Every thread started later inherits the niceness of the thread that starts it: a lowered
    event-loop thread would lower the site's own page threads too."""
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    lower_sql_thread_priority()  # the main thread, as at Datasette's start-up
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
    assert niceness_in_thread("ThreadPoolExecutor-7_0") == max(before, SQL_THREAD_NICENESS)
    assert niceness_in_thread("kb-pages_0") == before


async def test_our_pages_rows_are_built_in_c_with_the_limits_kept(tmp_path) -> None:
    """The result budget is for visitors' SQL: our pages' bounded queries get sqlite3.Row
    (a Python call per row was ~1.8 µs, ~2.7 ms of a common word's search), and keep
    SQLite's limits and the plugin's SQL functions."""
    from kb.site.limits import MAX_VALUE_BYTES, PAGES, budgeted_row
    from site_databases import make_datasette

    db_path = tmp_path / "tiny.db"
    with sqlite3.connect(db_path) as conn:
        conn.execute("create table t (a)")
        conn.execute("insert into t values ('Paradiesvögel')")
    datasette = make_datasette(db_path)
    database = datasette.get_database()

    def seen(conn: sqlite3.Connection) -> tuple:
        row = conn.execute("select a, kb_fold(a) as folded from t").fetchone()
        return (conn.row_factory, row["folded"], conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH))

    assert await PAGES.run(datasette, database, seen) == (sqlite3.Row, "paradiesvogel", MAX_VALUE_BYTES)
    # Visitors' SQL (Datasette's own threads and connections) still goes through the budget.
    assert await database.execute_fn(lambda conn: conn.row_factory) is budgeted_row
