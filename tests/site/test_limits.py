"""The time limit of public SQL and of our pages: a watchdog interrupts the query (no Python runs inside it), charging it CPU time."""
from __future__ import annotations

import sqlite3
import time

import pytest

from kb.site.limits import WATCHDOG, time_limit

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


def test_time_spent_waiting_for_a_core_is_not_charged_to_the_query() -> None:
    """The limit counts the thread's CPU time: a query that waited (here: slept) past its limit
    in wall-clock time, but within WALL_CLOCK_FACTOR of it, still runs."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    with time_limit(conn, 100):
        time.sleep(0.15)
        assert conn.execute("select 1").fetchone() == (1,)
