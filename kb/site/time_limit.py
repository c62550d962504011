"""The time limit of a query: a watchdog thread interrupts it (``sqlite3_interrupt``), charging it CPU time.

Used for Datasette's public SQL (``coarser_time_checks`` replaces its progress-handler limit) and
for the site's own pages (``kb.site.views``). No Python runs inside the query's loop.
"""
from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType


class Watchdog:
    """One thread that interrupts connections whose time is up (``sqlite3_interrupt``).

    Datasette bounds a query's time with a progress handler: a Python callback every N SQLite
    steps. Each call takes the GIL, so a few runaway public queries took it thousands of times
    a second and every page waited for it (and, with the SQL threads at a lower priority, for
    a low-priority thread to be scheduled to hand it back). Interrupting from a watchdog needs
    no Python in the query's loop at all: a runaway query runs in C, GIL released, until it is
    stopped.

    A query is charged the CPU time of its thread, not the wall-clock time: on a machine busy
    with other work (or with runaway queries) an ordinary table page waiting for a core is not
    "taking too long". ``WALL_CLOCK_FACTOR`` × the limit in wall-clock time stops it anyway.
    """

    WALL_CLOCK_FACTOR = 4
    POLL_SECONDS = 0.02
    # With nothing to watch, the watchdog still wakes this often for a while, so that a query
    # due later than its next wake need not wake it (a database page runs ~150 short queries,
    # and waking the watchdog for each was ~80 µs of each); then it sleeps until told.
    IDLE_POLL_SECONDS = 0.1
    IDLE_SECONDS = 2.0

    def __init__(self) -> None:
        self._watched: dict[int, tuple[float, float, int | None, float, sqlite3.Connection]] = {}
        self._condition = threading.Condition()
        self._next = 0
        self._thread: threading.Thread | None = None
        # When the watchdog will look at its queries next, whether told or not (inf: only when told).
        self._wake_at = math.inf
        self.wakeups = 0

    def watch(self, conn: sqlite3.Connection, seconds: float) -> int:
        """Watch the query about to run on ``conn`` in the calling thread."""
        clock = _thread_cpu_clock()
        with self._condition:
            self._next += 1
            now = time.monotonic()
            soonest = now + seconds
            self._watched[self._next] = (
                _cpu_seconds(clock) + seconds, now + seconds * self.WALL_CLOCK_FACTOR, clock, soonest, conn,
            )
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="kb-sql-watchdog", daemon=True)
                self._thread.start()
            if soonest < self._wake_at:  # else it looks before this query can be due
                self._condition.notify()
            return self._next

    def release(self, token: int) -> None:
        # Under the lock: once this returns, the watchdog can no longer interrupt for ``token``
        # (an interrupt landing after the query ended would stop the connection's next one).
        with self._condition:
            self._watched.pop(token, None)

    def _run(self) -> None:
        idle_since = math.inf
        with self._condition:
            while True:
                self.wakeups += 1
                now = time.monotonic()
                for token, (cpu_deadline, wall_deadline, clock, soonest, conn) in list(self._watched.items()):
                    if now >= wall_deadline or (now >= soonest and _cpu_seconds(clock) >= cpu_deadline):
                        del self._watched[token]
                        conn.interrupt()
                if self._watched:
                    idle_since = math.inf
                    # Nothing can be due before the soonest wall-clock point (CPU time never runs faster).
                    soonest = min(entry[3] for entry in self._watched.values())
                    self._wake_at = now + max(self.POLL_SECONDS, soonest - now)
                else:
                    idle_since = min(idle_since, now)
                    self._wake_at = now + self.IDLE_POLL_SECONDS if now - idle_since < self.IDLE_SECONDS else math.inf
                self._condition.wait(None if self._wake_at == math.inf else self._wake_at - now)


def _thread_cpu_clock() -> int | None:
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None  # no per-thread CPU clock here: wall-clock time only


def _cpu_seconds(clock: int | None) -> float:
    if clock is None:
        return time.monotonic()
    try:
        return time.clock_gettime(clock)
    except OSError:  # the thread is gone
        return float("inf")


WATCHDOG = Watchdog()


@contextmanager
def time_limit(conn: sqlite3.Connection, ms: int) -> Iterator[None]:
    """Datasette's ``sqlite_timelimit``, by interrupting from the watchdog thread: the query
    ends with ``sqlite3.OperationalError: interrupted``, as Datasette's own limit ends it."""
    token = WATCHDOG.watch(conn, ms / 1000)
    try:
        yield
    except BaseException as error:
        close_cursors_of(conn, error.__traceback__)
        raise
    finally:
        WATCHDOG.release(token)


def close_cursors_of(conn: sqlite3.Connection, traceback: TracebackType | None) -> None:
    """Close the cursors on ``conn`` that a failed query's traceback keeps alive, in this thread.

    The exception travels to the event loop's thread with its frames, and the cursor dies
    there; an open cursor resets its statement when it dies, which takes its connection's
    mutex. By then this thread may be running the next (runaway) query on the connection, and
    the event loop waited, holding the GIL, until that query ended: every page stalled for
    seconds behind hostile SQL. A closed cursor has no statement left to reset.
    """
    while traceback is not None:
        for value in list(traceback.tb_frame.f_locals.values()):
            if isinstance(value, sqlite3.Cursor) and value.connection is conn:
                value.close()
        traceback = traceback.tb_next


def coarser_time_checks() -> None:
    """Make Datasette's queries use ``time_limit`` (its own is imported into datasette.database)."""
    import datasette.database

    datasette.database.sqlite_timelimit = time_limit
