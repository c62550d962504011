"""``mtgkb refresh`` and ``mtgkb runs``: the click commands the ``mtgkb`` group attaches with ``add_command``."""
from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from kb.build.inputs import BuildError
from kb.cli.paths import DEFAULT_DB, DEFAULT_RAW
from kb.refresh.job import EXIT_NOTHING_PUBLISHED
from kb.refresh.job import refresh as run_refresh
from kb.refresh.lock import RefreshLocked
from kb.refresh.runs import run_row
from scraper.cli import parse_base_urls
from scraper.fetch import DEFAULT_SOURCES
from scraper.rawstore import RawStore
from scraper.sources import SOURCES


@click.command("refresh")
@click.argument("sources", nargs=-1, type=click.Choice(sorted(SOURCES)))
@click.option("--raw", "raw_dir", type=click.Path(file_okay=False, path_type=Path),
              default=DEFAULT_RAW, show_default=True, help="Raw store folder (also holds the lock).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              default=DEFAULT_DB, show_default=True, help="Served database file to replace.")
@click.option("--base-url", "base_url_pairs", multiple=True, metavar="SOURCE=URL",
              help="Fetch a source from another base URL (a mirror, a test site).")
@click.option("--snapshot", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Seed the raw store with an offline snapshot folder first.")
@click.option("--allow-shrink", is_flag=True,
              help="Publish even when a table loses more than 10% of its rows, or the served file a refresh"
                   " published is missing (a new one from the raw store alone).")
@click.option("--bulk-type", "bulk_types", multiple=True, metavar="TYPE",
              help="Scryfall bulk files to fetch (default rulings, oracle_cards, all_cards; repeat for several).")
@click.option("--cr-ko-chapter", "cr_ko_chapters", multiple=True, metavar="N",
              help="Korean CR chapters to fetch (100…900; default all nine), as `mtgkb fetch` takes them: a"
                   " mirror holding some of them.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True, help="Seconds to wait to connect and for each read of a body; a body slower than 16 KiB a minute is given up as stalled.")
@click.option("--keep-superseded", is_flag=True,
              help="Keep the raw bodies of bulk files a newer one replaced (removed by default after a clean run).")
@click.option("--drop-imported", is_flag=True,
              help="Publish without the documents imported by hand (mtgkb import) into the served file whose files"
                   " are gone or changed (by default such a refresh publishes nothing).")
@click.option("-v", "--verbose", is_flag=True, help="Log every request.")
def refresh(
    sources: tuple[str, ...],
    raw_dir: Path,
    db_path: Path,
    base_url_pairs: tuple[str, ...],
    snapshot: Path | None,
    allow_shrink: bool,
    bulk_types: tuple[str, ...],
    cr_ko_chapters: tuple[str, ...],
    timeout: float,
    keep_superseded: bool,
    drop_imported: bool,
    verbose: bool,
) -> None:
    """Fetch every source incrementally, rebuild, validate and atomically publish the database.

    Exit codes: 0 published or nothing changed; 2 some sources failed, the rest was
    published or had not changed, or a document published lost what its source should hold
    (an edition missing rules its neighbours print); 1 nothing could be published (the served file is left
    byte-identical); 143 stopped by SIGTERM (recorded as interrupted).
    """
    # Without -v the last line says it all (CONTRACT.md: one line on stderr): each failed
    # source's WARNING lines came before it.
    logging.basicConfig(level=logging.DEBUG if verbose else logging.CRITICAL,
                        format="%(levelname)s %(name)s %(message)s")
    try:
        result = run_refresh(
            raw_dir, db_path, sources=list(sources) or list(DEFAULT_SOURCES),
            base_urls=parse_base_urls(base_url_pairs),
            fetch_options={"timeout": timeout, **({"bulk_types": list(bulk_types)} if bulk_types else {}),
                           **({"cr_ko_chapters": list(cr_ko_chapters)} if cr_ko_chapters else {})},
            allow_shrink=allow_shrink, snapshot=snapshot, verbose=verbose, keep_superseded=keep_superseded,
            drop_imported=drop_imported,
        )
    except (RefreshLocked, BuildError) as error:
        # Another refresh of this raw store, or another writer of this database (the lock; its
        # folder unwritable): not a run, nothing fetched or written.
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_NOTHING_PUBLISHED)
    # Once: a message about the file may begin with its path already.
    named = "" if result.message.startswith(f"{db_path}:") else f"{db_path}: "
    click.echo(f"{named}{result.message} ({result.seconds:.1f}s)")
    if result.exit_code != 0:
        failed = f"failed sources: {result.failed_with_reasons()}; " if result.failed_sources else ""
        click.echo(f"Error: {failed}{result.message}", err=True)
    sys.exit(result.exit_code)


if __name__ == "__main__":  # ``python -m kb.cli.refresh``: used by the crash test's subprocess
    refresh()


# The columns of a refresh_runs row that hold JSON text.
JSON_COLUMNS = ("sources", "changes")


@click.command("runs")
@click.option("--raw", "raw_dir", type=click.Path(file_okay=False, path_type=Path),
              default=DEFAULT_RAW, show_default=True, help="Raw store folder.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="The newest N runs.")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per line, as refresh_runs rows (their sources and changes as objects, not text).")
def runs(raw_dir: Path, limit: int, as_json: bool) -> None:
    """Every run of the raw store, newest first: refreshes (failed and unchanged ones too, which
    never reach a published file) and plain fetches, as the served file's refresh_runs shows them."""
    if not (raw_dir / "manifest.db").exists():
        raise click.ClickException(
            f"{raw_dir}: no raw store here (no manifest.db): `mtgkb refresh` or `mtgkb fetch` makes one, `--raw DIR` names another")
    with RawStore(raw_dir) as store:
        rows = [run_row(run) for run in sorted(store.runs(), key=lambda run: run["id"], reverse=True)[:limit]]
    for row in rows:
        if as_json:
            # The table keeps these as JSON text; a line of JSON holds them as JSON (a newcomer's
            # review: a reader decoded each twice).
            decoded = {key: json.loads(value) if key in JSON_COLUMNS and isinstance(value, str) else value
                       for key, value in row.items()}
            click.echo(json.dumps(decoded, sort_keys=True, ensure_ascii=False))
        else:
            code = "" if row["exit_code"] is None else f" exit {row['exit_code']}"
            click.echo(f"{row['id']:>5}  {row['started_at']}  {row['status']}{code}  {row['message'] or ''}")
