"""The one polite HTTP client every fetcher uses; the only code that touches the network.

Politeness: a User-Agent naming the project, the Accept header each source asks for, a rate
limit per host (and per slow path), robots.txt fetched once per host and obeyed, Scryfall's
30-second lockout after a 429. Robustness: retries with exponential backoff and jitter on 429,
5xx, timeouts and broken connections, honouring Retry-After, within a budget per request and
per run; past the budget a ``FetchError`` names the URL and the reason, and the caller records
that one document as failed and goes on. Bodies stream to a file (bulk files are GBs).
"""
from __future__ import annotations

import functools
import logging
import random
import ssl
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from scraper.sources import ROBOTS_AGENT, USER_AGENT, Source, get_source, host_of, intervals_for

log = logging.getLogger("scraper.http")

# A body slower than this is given up as stalled (and tried again, within the request's retries):
# each read's timeout is met by a server sending one byte a second, and a refresh held its lock
# for days (an operator's review). 16 KiB a minute is ~270 bytes a second.
STALL_SECONDS = 60.0
STALL_BYTES = 16 * 1024


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The certificate store, read once per process: httpx reads it again for every client it
    makes (~40 ms of CPU here), and every client can share one context."""
    return httpx.create_ssl_context()


class FetchError(Exception):
    """One document could not be fetched. Carries the URL and a one-line reason."""

    def __init__(self, url: str, reason: str, status: int | None = None) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.status = status


class _Retryable(Exception):
    """A failure worth another try (429, 5xx, timeout, broken connection, short body)."""

    def __init__(self, reason: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after


@dataclass
class Counters:
    requests: int = 0
    bytes_downloaded: int = 0
    not_modified: int = 0
    retries: int = 0
    failures: int = 0

    def snapshot(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class HttpResult:
    """One successful exchange: a body (in ``path`` or ``content``) or a 304."""

    url: str
    status: int
    not_modified: bool
    content_type: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    # Only when the body came without Content-Encoding, so it is comparable with the file size.
    content_length: int | None = None
    path: Path | None = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


class RateLimiter:
    """Keeps the minimum spacing between requests per key, and host lockouts after a 429."""

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self.clock = clock
        self.sleep = sleep
        self._next_allowed: dict[str, float] = {}
        self._locked_until: dict[str, float] = {}

    def wait(self, host: str, intervals: Iterable[tuple[str, float]]) -> None:
        pairs = list(intervals)
        ready = max([self._next_allowed.get(key, 0.0) for key, _ in pairs] or [0.0])
        ready = max(ready, self._locked_until.get(host, 0.0))
        now = self.clock()
        if ready > now:
            log.debug("waiting %.2fs for %s", ready - now, host)
            self.sleep(ready - now)
            now = self.clock()
        for key, seconds in pairs:
            self._next_allowed[key] = now + seconds

    def lock(self, host: str, seconds: float) -> None:
        until = self.clock() + seconds
        self._locked_until[host] = max(self._locked_until.get(host, 0.0), until)


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def _type_matches(media_type: str, expected: Iterable[str]) -> bool:
    for wanted in expected:
        wanted = wanted.lower()
        if wanted.endswith("/") and media_type.startswith(wanted):
            return True
        if media_type == wanted:
            return True
    return False


class PoliteClient:
    """httpx with manners: see the module docstring. One instance per refresh run."""

    def __init__(
        self,
        *,
        timeout: float = 30.0,
        max_retries: int = 4,
        run_retry_budget: int = 40,
        backoff_base: float = 1.0,
        backoff_cap: float = 60.0,
        max_retry_after: float = 300.0,
        obey_robots: bool = True,
        user_agent: str = USER_AGENT,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        wallclock: Callable[[], datetime] = lambda: datetime.now(UTC),
        jitter: Callable[[], float] = random.random,
        transport: httpx.BaseTransport | None = None,
        stall_seconds: float = STALL_SECONDS,
        stall_bytes: int = STALL_BYTES,
    ) -> None:
        self.max_retries = max_retries
        self.stall_seconds = stall_seconds
        self.stall_bytes = stall_bytes
        self.retry_budget_left = run_retry_budget
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.max_retry_after = max_retry_after
        self.obey_robots = obey_robots
        self.sleep = sleep
        self.wallclock = wallclock
        self.jitter = jitter
        self.limiter = RateLimiter(clock, sleep)
        self.counters = Counters()
        self._robots: dict[str, RobotFileParser] = {}
        # Why a host's robots.txt could not be read (a refused connection, a 5xx): kept out.
        self._robots_unreachable: dict[str, str] = {}
        self._http = httpx.Client(
            headers={"User-Agent": user_agent, "Accept-Encoding": "gzip"},
            timeout=httpx.Timeout(timeout),
            follow_redirects=True,
            transport=transport,
            verify=tls_context(),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- public -----------------------------------------------------------------------------

    def get(
        self,
        url: str,
        *,
        source: str | Source,
        dest: Path | None = None,
        etag: str | None = None,
        last_modified: str | None = None,
        accept: str | None = None,
        expect_types: Iterable[str] = (),
    ) -> HttpResult:
        """GET ``url`` politely; the body goes to ``dest`` (streamed) or ``result.content``.

        ``etag`` / ``last_modified`` make the request conditional (a 304 gives
        ``not_modified=True`` and no body). ``expect_types`` lists acceptable media types
        (``"text/"`` matches any text type). Raises FetchError for this document only.
        """
        src = get_source(source) if isinstance(source, str) else source
        try:
            if self.obey_robots and not self._robots_allow(url, src):
                unreachable = self._robots_unreachable.get(self._origin(url))
                if unreachable:
                    # Kept out because the site did not answer at all: say that, not "disallowed".
                    raise FetchError(url, f"{self._origin(url)} unreachable ({unreachable}); robots.txt could not be read")
                raise FetchError(url, f"disallowed by {self._origin(url)}/robots.txt")
            headers = {"Accept": accept or src.accept}
            if etag:
                headers["If-None-Match"] = etag
            if last_modified:
                headers["If-Modified-Since"] = last_modified
            return self._get_with_retries(url, src, headers, dest, tuple(expect_types))
        except FetchError as exc:
            self.counters.failures += 1
            log.warning("failed %s", exc)
            raise

    # --- retries ----------------------------------------------------------------------------

    def _get_with_retries(
        self,
        url: str,
        src: Source,
        headers: dict[str, str],
        dest: Path | None,
        expect_types: tuple[str, ...],
    ) -> HttpResult:
        attempt = 0
        while True:
            try:
                return self._attempt(url, src, headers, dest, expect_types)
            except _Retryable as exc:
                delay = self._delay_before_retry(url, src, exc, attempt)
                attempt += 1
                self.retry_budget_left -= 1
                self.counters.retries += 1
                log.info("retry %d for %s in %.1fs: %s", attempt, url, delay, exc.reason)
                self.sleep(delay)

    def _delay_before_retry(self, url: str, src: Source, exc: _Retryable, attempt: int) -> float:
        """Seconds to wait before the next try, or FetchError when the budget is spent."""
        if attempt >= self.max_retries:
            raise FetchError(url, f"{exc.reason} (gave up after {attempt + 1} attempts)", exc.status)
        if self.retry_budget_left <= 0:
            raise FetchError(url, f"{exc.reason} (retry budget of this run spent)", exc.status)
        if exc.retry_after is not None:
            if exc.retry_after > self.max_retry_after:
                raise FetchError(
                    url,
                    f"{exc.reason}; Retry-After {exc.retry_after:.0f}s is longer than we wait",
                    exc.status,
                )
            delay = exc.retry_after
        else:
            backoff = min(self.backoff_cap, self.backoff_base * 2**attempt)
            delay = backoff + self.jitter() * self.backoff_base
        if exc.status == 429 and src.lockout_on_429:
            # Scryfall: a 429 limits the whole host for 30 s; the limiter holds every request.
            self.limiter.lock(host_of(url), max(src.lockout_on_429, delay))
            return 0.0
        return delay

    # --- one exchange -----------------------------------------------------------------------

    def _attempt(
        self,
        url: str,
        src: Source,
        headers: dict[str, str],
        dest: Path | None,
        expect_types: tuple[str, ...],
    ) -> HttpResult:
        self.limiter.wait(host_of(url), intervals_for(url, src))
        self.counters.requests += 1
        started = time.monotonic()
        response: httpx.Response | None = None
        try:
            with self._http.stream("GET", url, headers=headers) as response:
                result = self._read_response(url, response, dest, expect_types)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection failed: {exc or type(exc).__name__}") from None
        finally:
            if response is not None:
                self.counters.bytes_downloaded += response.num_bytes_downloaded
        log.debug(
            "GET %s -> %d (%d bytes, %.2fs)", url, result.status,
            response.num_bytes_downloaded, time.monotonic() - started,
        )
        return result

    def _read_response(
        self,
        url: str,
        response: httpx.Response,
        dest: Path | None,
        expect_types: tuple[str, ...],
    ) -> HttpResult:
        status = response.status_code
        result = HttpResult(
            url=url,
            status=status,
            not_modified=status == 304,
            content_type=response.headers.get("content-type"),
            etag=response.headers.get("etag"),
            last_modified=response.headers.get("last-modified"),
            headers=dict(response.headers),
        )
        if status == 304:
            self.counters.not_modified += 1
            return result
        if status == 429 or status >= 500:
            retry_after = parse_retry_after(response.headers.get("retry-after"), self.wallclock())
            raise _Retryable(f"HTTP {status}", status, retry_after)
        if status != 200:
            raise FetchError(url, f"HTTP {status}", status)
        media_type = _media_type(result.content_type)
        if expect_types and not _type_matches(media_type, expect_types):
            raise FetchError(
                url,
                f"unexpected content type {media_type or '(none)'!r}"
                f" (expected {' or '.join(expect_types)})",
                status,
            )
        received = self._read_body(response, result, dest)
        if "content-encoding" not in response.headers and "content-length" in response.headers:
            announced = int(response.headers["content-length"])
            result.content_length = announced
            if received != announced:
                raise _Retryable(f"truncated body: {received} of {announced} bytes", status)
        return result

    def _read_body(self, response: httpx.Response, result: HttpResult, dest: Path | None) -> int:
        """Stream the (decoded) body to ``dest`` or memory; return the bytes received."""
        received = 0
        if dest is None:
            chunks = []
            for chunk in self._arriving(response):
                chunks.append(chunk)
                received += len(chunk)
            result.content = b"".join(chunks)
        else:
            # "wb" truncates, so a retry never appends to a half-written earlier attempt.
            with dest.open("wb") as handle:
                for chunk in self._arriving(response):
                    handle.write(chunk)
                    received += len(chunk)
            result.path = dest
        return received

    def _arriving(self, response: httpx.Response) -> Iterator[bytes]:
        """The body as it arrives (not held back to fill a chunk: a trickle would never be seen),
        given up as stalled when fewer than ``stall_bytes`` came in ``stall_seconds``."""
        started = window_start = time.monotonic()
        received = in_window = 0
        for chunk in response.iter_bytes():
            received += len(chunk)
            in_window += len(chunk)
            now = time.monotonic()
            if now - window_start >= self.stall_seconds:
                if in_window < self.stall_bytes:
                    raise _Retryable(
                        f"stalled: {in_window} bytes in the last {now - window_start:.0f} s"
                        f" ({received} in {now - started:.0f} s), fewer than {self.stall_bytes}"
                    )
                window_start, in_window = now, 0
            yield chunk

    # --- robots.txt -------------------------------------------------------------------------

    @staticmethod
    def _origin(url: str) -> str:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"

    def _robots_allow(self, url: str, src: Source) -> bool:
        origin = self._origin(url)
        parser = self._robots.get(origin)
        if parser is None:
            parser = self._load_robots(origin, src)
            self._robots[origin] = parser
        return parser.can_fetch(ROBOTS_AGENT, url)

    def _load_robots(self, origin: str, src: Source) -> RobotFileParser:
        """Fetch robots.txt once per host (RFC 9309: 4xx = no rules, unreachable = keep out)."""
        parser = RobotFileParser(f"{origin}/robots.txt")
        try:
            result = self._get_with_retries(
                f"{origin}/robots.txt", src, {"Accept": "text/plain,*/*;q=0.8"}, None, ()
            )
            lines = (result.content or b"").decode("utf-8", errors="replace").splitlines()
            parser.parse(lines)
        except FetchError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                parser.allow_all = True  # type: ignore[attr-defined]  # RobotFileParser reads it; typeshed omits it
            else:
                log.warning("robots.txt unreachable at %s (%s): keeping out", origin, exc.reason)
                parser.disallow_all = True  # type: ignore[attr-defined]
                self._robots_unreachable[origin] = exc.reason
        parser.modified()
        return parser
