"""The one table of places we fetch from: base URL, politeness limits, what each wants to be sent.

Facts come from docs/sources.md: Scryfall documents its limits (10 requests/s in
general, 2/s for search/named/random/collection, a 429 locks you out for 30 s, no limit on
*.scryfall.io file origins). Wizards, Gatherer and the community sites publish no limits
(NOT ESTABLISHED), so we hold ourselves to one request per second there.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

# Scryfall's "Do not allow HTTP libraries to choose the header for you": every request names us.
USER_AGENT = "mtg-rules-kb/0.1 (+https://github.com/mtg-rules-kb/mtg-rules-kb)"
# The token robots.txt rules are matched against (the product part of the User-Agent).
ROBOTS_AGENT = "mtg-rules-kb"

ACCEPT_JSON = "application/json;q=0.9,*/*;q=0.8"
ACCEPT_HTML = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
ACCEPT_TEXT = "text/plain,text/*;q=0.9,*/*;q=0.8"

ONE_PER_SECOND = 1.0


@dataclass(frozen=True)
class Source:
    """One source: where it lives and how politely we must ask it."""

    name: str
    base_url: str
    host: str
    # Seconds between two requests to one host (the inverse of the allowed rate).
    min_interval: float
    accept: str
    lang: str | None
    description: str
    # Paths (regex searched in the URL path) with a stricter interval of their own.
    slow_paths: tuple[tuple[str, float], ...] = ()
    # Seconds a 429 locks the whole host out (Scryfall: "access limited for 30 seconds").
    lockout_on_429: float = 0.0


# Hosts whose limits are known regardless of which source asks (bulk files are linked from
# the Scryfall API but live on data.scryfall.io, which has no limit: we stay modest anyway).
HOST_INTERVALS: dict[str, float] = {
    "api.scryfall.com": 0.1,
    "data.scryfall.io": 0.05,
    "magic.wizards.com": ONE_PER_SECOND,
    "media.wizards.com": ONE_PER_SECOND,
    "gatherer.wizards.com": ONE_PER_SECOND,
}

SCRYFALL_SLOW_PATHS = (r"/cards/(search|named|random|collection)(/|$)", 0.5)

SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source(
            name="wizards-cr",
            base_url="https://magic.wizards.com/en/rules",
            host="magic.wizards.com",
            min_interval=ONE_PER_SECOND,
            accept=ACCEPT_HTML,
            lang="en",
            description="Official English Comprehensive Rules (rules page, then the TXT it links)",
        ),
        Source(
            name="cr-archive",
            base_url="https://raw.githubusercontent.com/xremming/rulesraker/main/archive",
            host="raw.githubusercontent.com",
            min_interval=ONE_PER_SECOND,
            accept=ACCEPT_TEXT,
            lang="en",
            description="Every official English CR text file since 2003 (xremming/rulesraker archive)",
        ),
        Source(
            name="scryfall",
            base_url="https://api.scryfall.com",
            host="api.scryfall.com",
            min_interval=0.1,
            accept=ACCEPT_JSON,
            lang=None,
            description="Scryfall bulk rulings/oracle cards, per-card rulings, all printings of a card",
            slow_paths=(SCRYFALL_SLOW_PATHS,),
            lockout_on_429=30.0,
        ),
        Source(
            name="gatherer",
            base_url="https://gatherer.wizards.com",
            host="gatherer.wizards.com",
            min_interval=ONE_PER_SECOND,
            accept=ACCEPT_HTML,
            lang=None,
            description="Gatherer card pages (old Details.aspx or new /SET/locale/number/slug)",
        ),
        Source(
            name="mtgjson",
            base_url="https://mtgjson.com/api/v5",
            host="mtgjson.com",
            min_interval=ONE_PER_SECOND,
            accept="application/json,*/*;q=0.8",
            lang=None,
            description="MTGJSON v5 set files, checked against their .sha256 first",
        ),
        Source(
            name="cr-zh",
            base_url="https://raw.githubusercontent.com/HeliumOctahelide/magic-comp-rules-zh-cn/master",
            host="raw.githubusercontent.com",
            min_interval=ONE_PER_SECOND,
            accept=ACCEPT_TEXT,
            lang="zhs",
            description="Simplified Chinese CR: Zh/En plain text and the aligned JSON per version",
        ),
        Source(
            name="cr-ko",
            base_url="https://youbeebee.net",
            host="youbeebee.net",
            min_interval=ONE_PER_SECOND,
            accept=ACCEPT_HTML,
            lang="ko",
            description="Korean CR chapter pages /100 … /900 and the index",
        ),
        Source(
            name="cr-page",
            base_url="",
            host="",
            min_interval=ONE_PER_SECOND,
            accept=ACCEPT_HTML,
            lang=None,
            description="Any per-rule or per-card pages given by URL",
        ),
    )
}


# What a refresh fetches when given no sources: the whole knowledge base. Each needs nothing but
# its base URL: the English CR and every archived edition, Scryfall's rulings, Oracle cards and
# every printing in every language, the Chinese and Korean translations of the CR, and MTGJSON's
# AllPrintings as a second source of foreign names and texts. Conditional requests keep a
# refresh with nothing new to a few 304s.
DEFAULT_SOURCES = ("wizards-cr", "cr-archive", "scryfall", "cr-zh", "cr-ko", "mtgjson")


def get_source(name: str) -> Source:
    """The source called ``name``; a clear error for a name we do not know."""
    try:
        return SOURCES[name]
    except KeyError:
        known = ", ".join(sorted(SOURCES))
        raise KeyError(f"unknown source {name!r} (known: {known})") from None


def host_of(url: str) -> str:
    """``host[:port]`` as rate limits and robots.txt are kept (per origin host)."""
    return urlsplit(url).netloc.lower()


def intervals_for(url: str, source: Source) -> list[tuple[str, float]]:
    """(limiter key, seconds) pairs a request to ``url`` must respect, host-wide first.

    A known host keeps its own limit whoever asks; an unknown host (a per-rule page, the
    test site) gets the source's limit. Slow paths add a second, stricter key.
    """
    host = host_of(url)
    bare_host = urlsplit(url).hostname or ""
    seconds = HOST_INTERVALS.get(bare_host, source.min_interval)
    pairs = [(host, seconds)]
    path = urlsplit(url).path
    for pattern, slow_seconds in source.slow_paths:
        if re.search(pattern, path):
            pairs.append((f"{host} {pattern}", slow_seconds))
    return pairs
