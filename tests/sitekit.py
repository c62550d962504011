"""A real local HTTP site serving recorded trees (tests/fixtures/site), with faults on demand.

``routes.tsv`` lists every served document: the request target, the file, its content type
and whether absolute URLs of the real hosts in it are rewritten to point at this server.
Responses carry a strong ETag and a Last-Modified, answer conditional requests with 304,
and every request is logged (method, target, headers, status, body bytes sent).

Faults (``site.fail(path, kind, times=N, **kw)``):
    "429" / "503" / "500"   that status; ``retry_after=`` sets a Retry-After header
    "status"                any status: ``status=404``
    "slow"                  wait ``delay=`` seconds (default 2) before answering
    "reset"                 close the connection with a TCP reset, no response
    "truncate"              announce the full Content-Length, send ``fraction=`` (0.5) of it
    "trickle"               send the body ``size=`` (1) bytes every ``every=`` (0.1) seconds
    "content-type"          answer with ``content_type=`` (default text/html) instead
``path`` matches the path only, or path + query when it contains "?".
"""
from __future__ import annotations

import gzip
import hashlib
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from scraper.http import PoliteClient

SITE_ROOT = Path(__file__).parent / "fixtures" / "site"
# What "unchanged since" means for every recorded file (an arbitrary, fixed date).
RECORDED_LAST_MODIFIED = "Tue, 20 Jan 2026 16:40:12 GMT"

# Real host → path prefix on this site.
HOST_PREFIXES = {
    "https://magic.wizards.com": "/wizards",
    "https://media.wizards.com": "/wizards-media",
    "https://api.scryfall.com": "/scryfall",
    "https://data.scryfall.io": "/scryfall-data",
    "https://gatherer.wizards.com": "/gatherer",
    "https://mtgjson.com": "/mtgjson",
    "https://raw.githubusercontent.com": "/github-raw",
    "https://youbeebee.net": "/cr-ko",
}

# Project source name → its base URL's path on this site.
SOURCE_PATHS = {
    "wizards-cr": "/wizards/en/rules",
    "scryfall": "/scryfall",
    "gatherer": "/gatherer",
    "mtgjson": "/mtgjson/api/v5",
    "cr-zh": "/github-raw/HeliumOctahelide/magic-comp-rules-zh-cn/master",
    "cr-ko": "/cr-ko",
    "cr-page": "/pages",
    "cr-archive": "/github-raw/xremming/rulesraker/main/archive",
}


def route_key(target: str) -> str:
    """A request target in one canonical form: path unquoted, query pairs decoded and sorted."""
    parts = urlsplit(target)
    path = unquote(parts.path)
    if not parts.query:
        return path
    pairs = sorted(parse_qsl(parts.query, keep_blank_values=True))
    return f"{path}?{urlencode(pairs)}"


@dataclass
class Route:
    file: Path | None
    content_type: str
    rewrite: bool
    body: bytes | None = None
    last_modified: str = RECORDED_LAST_MODIFIED


@dataclass
class Fault:
    path: str
    kind: str
    times: int | None
    options: dict[str, Any] = field(default_factory=dict)

    def matches(self, target: str) -> bool:
        key = route_key(target)
        if "?" in self.path:
            return key == route_key(self.path)
        return key.split("?", 1)[0] == route_key(self.path)


class TestSite:
    """The served state: routes, faults, request log. Thread-safe; reset between tests."""

    __test__ = False  # not a pytest test class

    def __init__(self, root: Path = SITE_ROOT) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.reset()

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> TestSite:
        handler = type("Handler", (_Handler,), {"site": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.daemon = True
        thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def reset(self) -> None:
        with self._lock:
            self.routes = self._load_routes()
            self.faults: list[Fault] = []
            self._requests: list[dict[str, Any]] = []
            # False: a server that sends no ETag, its bodies told apart by Last-Modified alone.
            self.etags = True

    def _load_routes(self) -> dict[str, Route]:
        routes = {}
        lines = (self.root / "routes.tsv").read_text(encoding="utf-8").splitlines()[1:]
        for line in lines:
            target, file, content_type, flags = line.split("\t")
            routes[route_key(target)] = Route(self.root / file, content_type, "rewrite" in flags)
        return routes

    # --- what tests use -----------------------------------------------------------------------

    @property
    def base(self) -> str:
        assert self._server is not None, "site not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, source: str, path: str = "") -> str:
        """Base URL of a project source on this site (``site.url("scryfall")``), plus ``path``."""
        base = self.base + SOURCE_PATHS.get(source, "/" + source.strip("/"))
        return base + path if path else base

    def at(self, path: str) -> str:
        """Absolute URL of a path on this site."""
        return self.base + path

    def base_urls(self) -> dict[str, str]:
        return {source: self.url(source) for source in SOURCE_PATHS}

    def fail(self, path: str, kind: str, times: int | None = 1, **options: Any) -> None:
        """Make the next ``times`` requests of ``path`` fail as ``kind`` (None: every one)."""
        with self._lock:
            self.faults.append(Fault(path, kind, times, options))

    def replace(self, path: str, file_or_bytes: Path | str | bytes, content_type: str | None = None,
                last_modified: float | None = None) -> None:
        """Serve other content at ``path`` from now on (new ETag, Last-Modified now or ``last_modified``, a time)."""
        body = file_or_bytes if isinstance(file_or_bytes, bytes) else Path(file_or_bytes).read_bytes()
        key = route_key(path)
        with self._lock:
            old = self.routes.get(key)
            self.routes[key] = Route(
                file=None,
                content_type=content_type or (old.content_type if old else "text/plain"),
                rewrite=old.rewrite if old else False,
                body=body,
                last_modified=formatdate(time.time() + 1 if last_modified is None else last_modified, usegmt=True),
            )

    def remove(self, path: str) -> None:
        with self._lock:
            self.routes.pop(route_key(path), None)

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[dict[str, Any]]:
        key = route_key(path)
        return [r for r in self.requests if route_key(r["path"]).split("?", 1)[0] == key.split("?", 1)[0]
                and ("?" not in key or route_key(r["path"]) == key)]

    def paths(self) -> list[str]:
        """Every requested target in order, unquoted (handy for exact assertions)."""
        return [route_key(r["path"]) for r in self.requests]

    # --- serving internals --------------------------------------------------------------------

    def _take_fault(self, target: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(target) and (fault.times is None or fault.times > 0):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    def _route(self, target: str) -> Route | None:
        with self._lock:
            route = self.routes.get(route_key(target))
        if route is not None or not target.split("?", 1)[0].endswith(".sha256"):
            return route
        # "<file>.sha256" for any served file: its digest, as MTGJSON publishes next to each file.
        base = self._route(target.split("?", 1)[0][: -len(".sha256")])
        if base is None:
            return None
        digest = hashlib.sha256(self._body(base)).hexdigest()
        return Route(None, "text/plain", False, body=digest.encode() + b"\n",
                     last_modified=base.last_modified)

    def _body(self, route: Route) -> bytes:
        data = route.body if route.body is not None else route.file.read_bytes()  # type: ignore[union-attr]
        if route.rewrite:
            for real, prefix in HOST_PREFIXES.items():
                data = data.replace(real.encode(), (self.base + prefix).encode())
        return data

    def _log(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._requests.append(entry)


class _Handler(BaseHTTPRequestHandler):
    site: TestSite
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the site keeps its own log
        pass

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass  # the client gave up (timeout test) or we reset the connection ourselves

    def do_GET(self) -> None:
        entry = {"method": "GET", "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()},
                 "status": None, "bytes": 0}
        self.site._log(entry)
        try:
            self._serve(entry)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _serve(self, entry: dict[str, Any]) -> None:
        fault = self.site._take_fault(self.path)
        if fault is not None and fault.kind == "slow":
            time.sleep(float(fault.options.get("delay", 2.0)))
            fault = None
        if fault is not None and fault.kind == "reset":
            entry["status"] = "reset"
            self._reset_connection()
            return
        if fault is not None and (fault.kind.isdigit() or fault.kind == "status"):
            status = int(fault.options.get("status", fault.kind if fault.kind.isdigit() else 500))
            headers = {}
            if "retry_after" in fault.options:
                headers["Retry-After"] = str(fault.options["retry_after"])
            self._send(entry, status, b"fault injected\n", "text/plain", headers)
            return
        route = self.site._route(self.path)
        if route is None:
            self._send(entry, 404, b"not found\n", "text/plain", {})
            return
        body = self.site._body(route)
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        validators = {"ETag": etag, "Last-Modified": route.last_modified} if self.site.etags else {
            "Last-Modified": route.last_modified}
        if self._not_modified(etag if self.site.etags else None, route.last_modified):
            self._send(entry, 304, b"", None, validators)
            return
        content_type = route.content_type
        if fault is not None and fault.kind == "content-type":
            content_type = fault.options.get("content_type", "text/html; charset=utf-8")
        headers = dict(validators)
        # data.scryfall.io's legacy .json bulk files are served gzip-encoded.
        if (self.path.startswith("/scryfall-data/") and self.path.endswith(".json")
                and "gzip" in self.headers.get("Accept-Encoding", "")):
            body = gzip.compress(body, mtime=0)
            headers["Content-Encoding"] = "gzip"
        if fault is not None and fault.kind == "trickle":
            self._trickle(entry, body, content_type, headers, int(fault.options.get("size", 1)),
                          float(fault.options.get("every", 0.1)))
            return
        if fault is not None and fault.kind == "truncate":
            sent = body[: int(len(body) * float(fault.options.get("fraction", 0.5)))]
            # Then the connection closes normally (HTTP/1.0): the client sees a short body.
            self._send(entry, 200, sent, content_type, headers, content_length=len(body))
            return
        self._send(entry, 200, body, content_type, headers)

    def _trickle(self, entry: dict[str, Any], body: bytes, content_type: str | None, headers: dict[str, str],
                 size: int, every: float) -> None:
        entry["status"] = 200
        self.send_response(200)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        sent = 0
        try:
            while sent < len(body):
                self.wfile.write(body[sent:sent + size])
                self.wfile.flush()
                sent += size
                time.sleep(every)
        except OSError:  # the client gave up
            pass
        entry["bytes"] = min(sent, len(body))

    def _not_modified(self, etag: str | None, last_modified: str) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None and etag is not None:  # RFC 9110: If-None-Match wins over If-Modified-Since
            tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
            return etag in tags or "*" in tags
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return parsedate_to_datetime(last_modified) <= parsedate_to_datetime(since)
            except (TypeError, ValueError):
                return False
        return False

    def _send(self, entry: dict[str, Any], status: int, body: bytes, content_type: str | None,
              headers: dict[str, str], content_length: int | None = None) -> None:
        entry["status"] = status
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body) if content_length is None else content_length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        entry["bytes"] = len(body)

    def _reset_connection(self) -> None:
        # SO_LINGER 0 turns close() into a TCP RST: the client sees "connection reset by peer".
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True


class FakeClock:
    """Monotonic time that only moves when someone sleeps: rate limits and backoff cost 0 s."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)

    @property
    def slept(self) -> float:
        return sum(self.sleeps)


def fast_client(clock: FakeClock | None = None, **kwargs: Any) -> PoliteClient:
    """A PoliteClient on a fake clock, no jitter, short timeout: for tests against the site."""
    clock = clock or FakeClock()
    kwargs.setdefault("timeout", 2.0)
    return PoliteClient(clock=clock, sleep=clock.sleep, jitter=lambda: 0.0, **kwargs)


def private_tmpfs_allowed() -> bool:
    """Whether a test may mount a small file system of its own (a tmpfs in a private mount
    namespace, ``unshare -m``: root only), for a full disk or a read-only folder as a fault."""
    import shutil
    import subprocess

    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0
