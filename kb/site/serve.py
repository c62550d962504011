"""Serve the knowledge base with Datasette: immutable, read-only, with the settings we publish with.

The pages, templates, static files and metadata come from the plugin itself (``kb.site``), so plain
``datasette kb.db`` serves the same site, with the limits in ``SETTINGS`` (``apply_settings``, at the
plugin's start-up); this module adds what a command line must: the inspect file (so immutable
serving never counts rows at start).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from kb.site.inspect import inspect_data

SQL_TIME_LIMIT_MS = 1500
# What a worker process of ``serve(workers=…)`` reads its database and inspect file from.
DB_PATH_ENV = "MTGKB_DB_PATH"
INSPECT_PATH_ENV = "MTGKB_INSPECT_PATH"


# Datasette settings we serve and publish with (``--setting name value``).
SETTINGS: dict[str, int | bool] = {
    "sql_time_limit_ms": SQL_TIME_LIMIT_MS,
    "default_page_size": 50,
    "facet_time_limit_ms": 400,
    # Suggesting facets tries every column of a table on every page view (580 of the 600 ms of a
    # filtered rules page): the useful facets are configured in the metadata.
    "suggest_facets": False,
}


def apply_settings(datasette: Any) -> None:
    """Give a plain ``datasette serve`` the settings ``mtgkb serve`` passes: the docs promise the
    same pages either way, and without them a table page of a full-size database took seconds.

    A setting the instance was given another value than Datasette's default keeps it (one given
    Datasette's own default cannot be told from none); ``{"plugins": {"mtgkb": {"settings":
    false}}}`` in the metadata keeps Datasette's. Datasette has no hook for settings: its instance
    holds them in ``_settings``, read at each use (tests/site/test_plain_datasette.py pins it)."""
    # Imported here: Datasette's app module loads the plugins, this one among them.
    from datasette.app import DEFAULT_SETTINGS

    if not (datasette.plugin_config("mtgkb") or {}).get("settings", True):
        return
    for name, value in SETTINGS.items():
        if datasette._settings.get(name) == DEFAULT_SETTINGS.get(name):
            datasette._settings[name] = value


def setting_args() -> list[str]:
    def shown(value: int | bool) -> str:
        return ("on" if value else "off") if isinstance(value, bool) else str(value)

    return [arg for name, value in SETTINGS.items() for arg in ("--setting", name, shown(value))]


def prepare(db_path: Path) -> Path:
    """Write the inspect file Datasette reads next to the database; returns its path."""
    inspect_path = db_path.with_name(db_path.stem + ".inspect.json")
    write_inspect_file(db_path, inspect_path)
    return inspect_path


def write_inspect_file(db_path: Path, inspect_path: Path) -> None:
    """What `datasette inspect` writes: table counts, so immutable serving never counts at start."""
    inspect_path.write_text(json.dumps(inspect_data(db_path), indent=2), encoding="utf-8")


def datasette_args(db_path: Path, host: str, port: int) -> list[str]:
    inspect_path = prepare(db_path)
    return [
        "serve",
        "-i",
        str(db_path),
        "--inspect-file",
        str(inspect_path),
        *setting_args(),
        "--host",
        host,
        "--port",
        str(port),
    ]


def serve(db_path: Path, host: str, port: int, workers: int = 1) -> None:
    """Replace this process with Datasette, so signals and exit codes are Datasette's own.

    ``workers`` > 1: uvicorn with that many worker processes, each serving the same Datasette
    (``create_app``). One process runs the site's Python (search, pages) on one core at a time,
    whatever the machine has; the database is immutable, so processes share nothing else."""
    os.environ[DB_PATH_ENV] = str(db_path.resolve())
    if workers <= 1:
        # Datasette would start, log, fail to bind and exit 3 with uvicorn's lines: one line instead.
        bound_socket(host, port).close()
        os.execv(sys.executable, [sys.executable, "-m", "datasette", *datasette_args(db_path, host, port)])
    os.environ[INSPECT_PATH_ENV] = str(prepare(db_path).resolve())
    serve_workers(host, port, workers)


def bound_socket(host: str, port: int):
    """A TCP socket bound to ``host:port`` (as uvicorn binds it), or exit 1 with one line saying
    why not: the port in use, an address not this machine's, a host name that does not resolve."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        print(f"Error: cannot serve on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        raise SystemExit(1) from error
    return sock


def serve_workers(host: str, port: int, workers: int) -> None:
    """``uvicorn --workers``, but on a socket asyncio sets TCP_NODELAY on: uvicorn makes its
    shared socket without naming the protocol, asyncio then leaves Nagle's algorithm on for
    every connection it accepts, and each keep-alive response waited ~40 ms for a delayed ACK
    (Datasette's own version page: 9 ms with one process, 50 ms with two)."""
    from uvicorn import Config
    from uvicorn.supervisors import Multiprocess

    config = Config(f"{__name__}:create_app", factory=True, host=host, port=port, workers=workers, access_log=False)
    sock = bound_socket(host, port)
    sock.set_inheritable(True)
    print(f"Serving on http://{host}:{port} with {workers} worker processes", file=sys.stderr, flush=True)
    Multiprocess(config, sockets=[sock]).run()


def create_app():
    """The ASGI app ``datasette serve -i $MTGKB_DB_PATH --inspect-file $MTGKB_INSPECT_PATH`` with
    ``SETTINGS`` runs, for a worker process of ``serve(workers=…)``: the plugin (``kb.site``) is
    loaded from its entry point and started on the first request, as under ``datasette serve``."""
    from datasette.app import Datasette

    inspect_path = Path(os.environ[INSPECT_PATH_ENV])
    ds = Datasette(
        immutables=[os.environ[DB_PATH_ENV]],
        inspect_data=json.loads(inspect_path.read_text(encoding="utf-8")),
        settings=dict(SETTINGS),
    )
    return ds.app()
