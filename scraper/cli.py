"""``mtgkb fetch``: the click command the ``mtgkb`` group attaches with ``add_command``."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from scraper.fetch import DEFAULT_SOURCES, run_fetch
from scraper.fetchers.scryfall import DEFAULT_BULK_TYPES
from scraper.rawstore import RawStore
from scraper.sources import SOURCES

EXIT_OK = 0
EXIT_NOTHING_FETCHED = 1
EXIT_SOME_FAILED = 2


def parse_base_urls(pairs: tuple[str, ...]) -> dict[str, str]:
    """``--base-url SOURCE=URL`` options as {source: url}; a usage error names the bad pair."""
    base_urls = {}
    for pair in pairs:
        name, sep, url = pair.partition("=")
        if not sep or name not in SOURCES or not url:
            raise click.BadParameter(
                f"expected SOURCE=URL with a known source ({', '.join(sorted(SOURCES))}), got {pair!r}",
                param_hint="--base-url",
            )
        base_urls[name] = url
    return base_urls


def _split_sources_and_urls(words: tuple[str, ...]) -> tuple[list[str], dict[str, list[str]]]:
    """``cr-page URL… gatherer URL…``: URLs belong to the source named before them."""
    sources: list[str] = []
    urls: dict[str, list[str]] = {}
    for word in words:
        if word in SOURCES:
            sources.append(word)
        elif word.startswith(("http://", "https://")) and sources:
            urls.setdefault(sources[-1], []).append(word)
        else:
            raise click.BadParameter(
                f"{word!r} is neither a source ({', '.join(sorted(SOURCES))}) nor a URL after one",
                param_hint="SOURCE [URL…]",
            )
    return sources, urls


@click.command("fetch")
@click.argument("words", nargs=-1, metavar="[SOURCE [URL…]]…")
@click.option("--raw", "raw_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("data/raw"), show_default=True, help="Raw store folder.")
@click.option("--base-url", "base_url_pairs", multiple=True, metavar="SOURCE=URL",
              help="Fetch a source from another base URL (a mirror, a test site).")
@click.option("--bulk-type", "bulk_types", multiple=True,
              help=f"Scryfall bulk types (default: {', '.join(DEFAULT_BULK_TYPES)}).")
@click.option("--no-bulk", is_flag=True, help="Skip Scryfall bulk files.")
@click.option("--scryfall-id", "scryfall_ids", multiple=True, help="Scryfall card id: its rulings.")
@click.option("--oracle-id", "oracle_ids", multiple=True,
              help="Oracle id: every printing in every language.")
@click.option("--gatherer-url", "gatherer_urls", multiple=True, help="Gatherer card page URL.")
@click.option("--url", "page_urls", multiple=True, help="Any page URL (source cr-page).")
@click.option("--set", "mtgjson_sets", multiple=True, help="MTGJSON set code.")
@click.option("--cr-zh-version", "cr_zh_versions", multiple=True, help="Chinese CR version YYYYMMDD.")
@click.option("--cr-ko-chapter", "cr_ko_chapters", multiple=True, help="Korean CR chapter (100…900).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True, help="Seconds to wait to connect and for each read of a body; a body slower than 16 KiB a minute is given up as stalled.")
@click.option("-v", "--verbose", is_flag=True, help="Log every request.")
def fetch(
    words: tuple[str, ...],
    raw_dir: Path,
    base_url_pairs: tuple[str, ...],
    bulk_types: tuple[str, ...],
    no_bulk: bool,
    scryfall_ids: tuple[str, ...],
    oracle_ids: tuple[str, ...],
    gatherer_urls: tuple[str, ...],
    page_urls: tuple[str, ...],
    mtgjson_sets: tuple[str, ...],
    cr_zh_versions: tuple[str, ...],
    cr_ko_chapters: tuple[str, ...],
    timeout: float,
    verbose: bool,
) -> None:
    """Fetch raw documents politely into the raw store (default: every source, as a refresh does:
    wizards-cr cr-archive scryfall cr-zh cr-ko mtgjson).

    URLs may follow a source that takes pages: `mtgkb fetch cr-page URL… gatherer URL…`.
    """
    sources, urls_of = _split_sources_and_urls(words)
    page_urls = (*page_urls, *urls_of.get("cr-page", []))
    gatherer_urls = (*gatherer_urls, *urls_of.get("gatherer", []))
    for source in set(urls_of) - {"cr-page", "gatherer"}:
        raise click.BadParameter(f"{source} takes no URLs", param_hint="SOURCE [URL…]")
    # The log (retries, a line per request) is -v's: a failed fetch says why in one line on stderr,
    # as every mtgkb command does, and each source's summary goes to stdout.
    logging.basicConfig(level=logging.DEBUG if verbose else logging.CRITICAL,
                        format="%(levelname)s %(name)s %(message)s")
    options = {
        "bulk_types": [] if no_bulk else (list(bulk_types) or None),
        "scryfall_ids": list(scryfall_ids),
        "oracle_ids": list(oracle_ids),
        "gatherer_urls": list(gatherer_urls),
        "page_urls": list(page_urls),
        "mtgjson_sets": list(mtgjson_sets),
        "cr_zh_versions": list(cr_zh_versions),
        "cr_ko_chapters": list(cr_ko_chapters),
        "timeout": timeout,
    }
    with RawStore(raw_dir) as store:
        reports = run_fetch(list(sources) or list(DEFAULT_SOURCES), store,
                            parse_base_urls(base_url_pairs), options, verbose=verbose)
    for name, report in reports.items():
        click.echo(f"{name}: {report.requests} requests, {report.fetched} fetched, {report.not_modified} not modified,"
                   f" {report.skipped} skipped, {report.failed} failed, {report.bytes:,} bytes")
    # Each source's first failure, and how many more: a host down gave a line of 4 KB, the same
    # reason for each of its URLs (an operator's review). The run's record lists them all.
    failures = [f"{report.failures[0][0]} ({' '.join(report.failures[0][1].split())})"
                for report in reports.values() if report.failures]
    more = sum(len(report.failures) for report in reports.values()) - len(failures)
    got = sum(r.fetched + r.not_modified + r.skipped for r in reports.values())
    if failures:
        others = f"; and {more} more (mtgkb runs --json lists them)" if more else ""
        click.echo(f"Error: failed: {'; '.join(failures)}{others}", err=True)
        sys.exit(EXIT_SOME_FAILED if got else EXIT_NOTHING_FETCHED)
    sys.exit(EXIT_OK)
