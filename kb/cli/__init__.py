"""The ``mtgkb`` command line: click commands over every stage.

The top of the flow: may import ``scraper`` (fetch), ``kb.build``, ``kb.refresh``, ``kb.store`` and
``kb.site.serve``; nothing imports it. Commands print one line per failure and exit 1, or 2 for a
partial publish.
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from kb.build.inputs import BuildError, path_inputs, snapshot_inputs
from kb.build.publish import build_database
from kb.cli.paths import DEFAULT_DB, DEFAULT_SNAPSHOT


@click.group()
@click.version_option(package_name="mtg-rules-kb")
def cli() -> None:
    """A multilingual knowledge base of the Magic: The Gathering Comprehensive Rules and rulings."""


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


@cli.command()
@click.option("--snapshot", type=click.Path(path_type=Path), default=DEFAULT_SNAPSHOT, show_default=True, help="Raw snapshot folder to build from")
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True, help="Database file to write")
@click.option("--raw", "raw_dir", type=click.Path(file_okay=False, path_type=Path), help="Also include what `mtgkb fetch` stored in this raw store")
@click.option("--keep-going", is_flag=True, help="Record unreadable inputs as failed documents instead of stopping")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary, not each input and stage as it goes")
def build(snapshot: Path, db_path: Path, raw_dir: Path | None, keep_going: bool, quiet: bool) -> None:
    """Build the whole knowledge base from a snapshot folder into a new file, swapped in atomically."""
    try:
        inputs = snapshot_inputs(snapshot)
        if raw_dir is not None:
            inputs += raw_store_inputs(raw_dir)
        report = build_database(
            inputs, db_path, keep_going=keep_going,
            progress=None if quiet else (lambda message: click.echo(message, err=True)),
        )
    except BuildError as error:
        _fail(str(error))
    _summarise(report)


def raw_store_inputs(raw_dir: Path) -> list:
    """The latest good documents of a raw store, as the refresh job would build them."""
    from kb.refresh.inputs import select_inputs
    from scraper.rawstore import RawStore

    if not (raw_dir / "manifest.db").exists():
        raise BuildError(f"{raw_dir}: not a raw store (no manifest.db); run `mtgkb fetch --raw {raw_dir}` first")
    with RawStore(raw_dir) as store:
        inputs, _left_out = select_inputs(store)
    return inputs


def _summarise(report) -> None:
    counts = report.counts
    click.echo(
        f"{report.db_path}: {report.documents} documents in {report.seconds:.1f}s; "
        f"{counts.get('cr_versions', 0)} CR versions, {counts.get('rules', 0)} rules, "
        f"{counts.get('glossary', 0)} glossary entries, {counts.get('cards', 0)} cards, "
        f"{counts.get('rulings', 0)} rulings, {counts.get('ruling_translations', 0)} translations, "
        f"{counts.get('quality_issues', 0)} quality issues"
    )
    if report.failed:
        click.echo(f"Error: {len(report.failed)} inputs could not be read: {'; '.join(report.failed)}", err=True)
        sys.exit(2)  # the rest was published


def _list_formats(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from kb.parse.formats import all_formats

    for fmt in all_formats():
        click.echo(f"{fmt.name:24} {fmt.description}")
    ctx.exit()


@cli.command(name="import")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", help="Input format (detected from content when absent)")
@click.option("--lang", help="Language of the inputs, when their content does not say")
@click.option("--source", "source_id", default="local", show_default=True, help="Source id to record for these files")
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True)
@click.option("--keep-going", is_flag=True, help="Record unreadable files as failed documents (exit 2) instead of stopping")
@click.option("--list-formats", is_flag=True, expose_value=False, is_eager=True, callback=_list_formats, help="List the formats mtgkb can read")
def import_(paths: tuple[Path, ...], fmt: str | None, lang: str | None, source_id: str, db_path: Path, keep_going: bool) -> None:
    """Add recorded files of any supported format (detected from content) to the database."""
    if not paths:
        _fail("no files given (see `mtgkb import --help`)")
    try:
        inputs = path_inputs(paths, source_id=source_id, lang=lang, fmt=fmt)
        report = build_database(inputs, db_path, base=db_path, keep_going=keep_going)
    except BuildError as error:
        _fail(str(error))
    _summarise(report)


@cli.command()
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True)
@click.option("--port", default=8001, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
def serve(db_path: Path, port: int, host: str) -> None:
    """Serve the database with Datasette, plugins and metadata."""
    from kb.site.serve import serve as run

    if not db_path.exists():
        _fail(f"{db_path}: no database; run `mtgkb build` first")
    run(db_path, host, port)


@cli.command()
@click.argument("target", type=click.Choice(["cloudrun", "heroku", "package"]))
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True)
@click.option("--install", "install_spec", help="pip requirement a deployment installs for the plugin (default: this project's repository)")
@click.option("--name", default="mtg-rules-kb", show_default=True, help="Service, app or image name")
@click.option("--dry-run", is_flag=True, help="Print the datasette command instead of running it")
def publish(target: str, db_path: Path, install_spec: str | None, name: str, dry_run: bool) -> None:
    """Publish the database with Datasette (Cloud Run, Heroku) or package it as a Docker image."""
    import os
    import shlex

    from kb.site.publish import DEFAULT_INSTALL, publish_args

    if not db_path.exists():
        _fail(f"{db_path}: no database; run `mtgkb build` first")
    args = ["datasette", *publish_args(target, db_path, install_spec or DEFAULT_INSTALL, name)]
    if dry_run:
        click.echo(shlex.join(args))
        return
    os.execvp(args[0], args)


def _attach_commands() -> None:
    """Commands that live beside the modules they drive."""
    from kb.cli.history import COMMANDS as history_commands
    from kb.cli.refresh import refresh
    from scraper.cli import fetch

    cli.add_command(fetch)
    cli.add_command(refresh)
    for command in history_commands:
        cli.add_command(command)


_attach_commands()


if __name__ == "__main__":
    cli()
