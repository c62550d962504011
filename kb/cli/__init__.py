"""The ``mtgkb`` command line: click commands over every stage.

The top of the flow: may import ``scraper`` (fetch), ``kb.build``, ``kb.refresh``, ``kb.store`` and
``kb.site.serve``; nothing imports it. Commands print one line per failure and exit 1, or 2 for a
partial publish.
"""
from __future__ import annotations

import importlib
import os
import signal
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from kb.cli.paths import DEFAULT_DB, DEFAULT_SNAPSHOT
from kb.parse.bounds import shown

# Exit 2 means "partial publish" (README): click's usage errors exit 1 like every other failure.
EXIT_FAILED = 1
TRACEBACK_ENV = "MTGKB_TRACEBACK"


def os_error_line(error: OSError) -> str:
    """An OSError as one line naming the file and the reason in words."""
    from kb.build.files import os_reason  # the words the build uses (imported on failure only)

    where = shown(error.filename) if error.filename else None
    why = os_reason(error) or type(error).__name__
    return f"{where}: {why}" if where else why


def error_line(error: BaseException) -> str:
    """Any failure as one line; Python's own wording ("0", "'int' object is not subscriptable")
    is always prefixed by what kind of failure it was."""
    from scraper.rawstore import RawStoreError

    if isinstance(error, RawStoreError):
        return str(error)
    if isinstance(error, OSError):
        return os_error_line(error)
    if isinstance(error, MemoryError):
        return "out of memory"
    if isinstance(error, sqlite3.Error):
        from kb.build.files import sqlite_write_problem

        text = str(error)
        problem = sqlite_write_problem(text)
        if problem == "full":
            return f"disk full while writing the database ({text})"
        if problem == "read-only":
            return f"the database or its folder is read-only ({text})"
        return f"database error: {text}"
    text = " ".join(str(error).split())
    return f"internal error: {type(error).__name__}: {text or 'no detail'} (please report)"


# Commands that live beside the modules they drive, imported when run: `mtgkb serve` or `mtgkb
# rule-at` never loads the scraper, the build or the refresh job (every command imported all of
# them: 1.1 s before any work).
LAZY_COMMANDS = {
    "fetch": "scraper.cli:fetch",
    "refresh": "kb.cli.refresh:refresh",
    "runs": "kb.cli.refresh:runs",
    "cr-diff": "kb.cli.history:cr_diff",
    "rule-at": "kb.cli.history:rule_at",
    "rule-trace": "kb.cli.history:rule_trace",
    "citations-to-check": "kb.cli.history:citations_to_check",
}


class KBGroup(click.Group):
    """The ``mtgkb`` group: every failure is one ``Error:`` line and exit 1 (2 only for a partial publish)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module_name, attribute = LAZY_COMMANDS[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module_name), attribute))
        return super().get_command(ctx, cmd_name)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("standalone_mode", True):
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        # SIGTERM (systemd, `timeout`, a CI cancelling) as an exception: the half-built file is
        # removed and the lock released on the way out, as on ^C (it left a 60 MB file, no word).
        signal.signal(signal.SIGTERM, _terminate)
        try:
            result = super().main(*args, **kwargs)
        except Terminated:
            click.echo("Error: terminated (SIGTERM); nothing half-done was published", err=True)
            sys.exit(EXIT_TERMINATED)
        except click.exceptions.Abort:
            # ^C: as on SIGTERM, the half-built file is removed on the way out.
            click.echo("Error: interrupted (Ctrl-C); nothing half-done was published", err=True)
            sys.exit(EXIT_FAILED)
        except click.UsageError as error:
            where = f" (see `{error.ctx.command_path} --help`)" if error.ctx else ""
            click.echo(f"Error: {' '.join(error.format_message().split())}{where}", err=True)
            sys.exit(EXIT_FAILED)
        except click.ClickException as error:
            click.echo(f"Error: {' '.join(error.format_message().split())}", err=True)
            sys.exit(EXIT_FAILED)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: B036 - the one place every failure becomes one line
            if os.environ.get(TRACEBACK_ENV):
                raise
            click.echo(f"Error: {error_line(error)}", err=True)
            sys.exit(EXIT_FAILED)
        sys.exit(result if isinstance(result, int) else 0)


# 128 + SIGTERM, what the shell reports for a process the signal ended.
EXIT_TERMINATED = 143


class Terminated(BaseException):
    """SIGTERM, raised where the process is: not an Exception, which a job would record as its
    crash. It carries the exit code the command ends with, for a job to record."""

    exit_code = EXIT_TERMINATED


def _terminate(_signum: int, _frame: Any) -> None:
    raise Terminated


@click.group(cls=KBGroup)
@click.version_option(package_name="mtg-rules-kb")
def cli() -> None:
    """A multilingual knowledge base of the Magic: The Gathering Comprehensive Rules and rulings."""


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"Error: {' '.join(message.split())}", err=True)
    sys.exit(code)


@cli.command()
@click.option("--snapshot", type=click.Path(path_type=Path), default=DEFAULT_SNAPSHOT, show_default=True, help="Raw snapshot folder to build from")
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True, help="Database file to write")
@click.option("--raw", "raw_dir", type=click.Path(file_okay=False, path_type=Path), help="Also include what `mtgkb fetch` stored in this raw store")
@click.option("--keep-going", is_flag=True, help="Record unreadable inputs as failed documents instead of stopping")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary, not each input and stage as it goes")
def build(snapshot: Path, db_path: Path, raw_dir: Path | None, keep_going: bool, quiet: bool) -> None:
    """Build the whole knowledge base from a snapshot folder into a new file, swapped in atomically."""
    from kb.build.inputs import BuildError, documents_left_out, read_once, snapshot_inputs
    from kb.build.publish import build_database

    try:
        inputs = snapshot_inputs(snapshot)
        if raw_dir is not None:
            # A raw store seeded from the snapshot (`mtgkb refresh --snapshot`, as docs/refresh.md
            # has the first refresh do) holds the same bytes: read once (each was two documents,
            # its quality issues recorded twice: a newcomer's review).
            held: dict[str, set[str | None]] = {}
            for document in inputs:
                held.setdefault(document.sha256, set()).add(document.url)
            inputs += [document for document in raw_store_inputs(raw_dir)
                       if document.sha256 not in held or own_document(document, held[document.sha256])]
        # A manifest naming one file's bytes under two addresses: one document, not every row twice.
        inputs, repeated = read_once(inputs)
        for doc, first in repeated:
            if not quiet:
                click.echo(f"{doc.url or shown(Path(doc.path))}: the same bytes as {first.url or shown(Path(first.path))}:"
                           " read once", err=True)
        if not inputs:
            # An empty folder (a mistyped path, a mount not there yet) would swap an empty
            # database in for the one being served (a docs review).
            raise BuildError(f"{shown(snapshot)}: no files to build from; the database is left as it is")
        left_out = documents_left_out(db_path, inputs)
        report = build_database(
            inputs, db_path, keep_going=keep_going,
            progress=None if quiet else (lambda message: click.echo(message, err=True)),
        )
    except BuildError as error:
        _fail(str(error))
    _summarise(report)
    if left_out and not report.unchanged:
        shown_few = ", ".join(left_out[:3]) + (f" and {len(left_out) - 3} more" if len(left_out) > 3 else "")
        one = len(left_out) == 1
        # Those fetched from the web came by a refresh's raw store, which `import` cannot take (an
        # upgrade's review: it advised importing URLs).
        fetched = sum(1 for where in left_out if where.startswith(("http://", "https://")))
        keep = f"`mtgkb import` {'it' if one else 'them'} again to keep {'it' if one else 'them'}."
        if fetched:
            keep = ("To keep them: " if not one else "To keep it: ") + "; ".join(
                ([] if fetched == len(left_out) else ["`mtgkb import` the files imported by hand again"])
                + ["those fetched from the web come back with `mtgkb build --raw DIR` (the raw store that fetched"
                   " them) or the next `mtgkb refresh`."])
        click.echo(
            f"Note: the file this build replaced held {len(left_out)} document{'' if one else 's'}"
            f" it was not given ({shown_few}): the new file does not hold {'it' if one else 'them'}. {keep}",
            err=True,
        )


def own_document(document: Any, urls: set[str | None]) -> bool:
    """Whether a raw store's document with the bytes of snapshot files at ``urls`` is a document of
    its own: a printing's rulings list another printing's equals byte for byte (a code review: the
    raw store's was dropped)."""
    from kb.build.inputs import OWN_BYTES_NOT_OWN_IDENTITY, format_name_of

    if document.url in urls or (document.url or "").startswith("file:"):
        return False  # the snapshot's own, or one a raw store was seeded with from a snapshot folder
    return format_name_of(document) in OWN_BYTES_NOT_OWN_IDENTITY


def raw_store_inputs(raw_dir: Path) -> list:
    """The latest good documents of a raw store, as the refresh job would build them."""
    from kb.build.inputs import BuildError
    from kb.refresh.inputs import select_inputs
    from scraper.rawstore import RawStore

    if not (raw_dir / "manifest.db").exists():
        raise BuildError(f"{raw_dir}: not a raw store (no manifest.db); run `mtgkb fetch --raw {raw_dir}` first")
    with RawStore(raw_dir) as store:
        inputs, _left_out = select_inputs(store)
    return inputs


def _summarise(report) -> None:
    counts = report.counts
    if report.unchanged:
        click.echo(f"{shown(report.db_path)}: nothing changed (every file is already in it as it is); file left untouched")
        return
    click.echo(
        f"{report.db_path}: {report.documents} document{'' if report.documents == 1 else 's'} in {report.seconds:.1f}s; "
        f"{counts.get('cr_versions', 0)} CR versions, {counts.get('rules', 0)} rules, "
        f"{counts.get('glossary', 0)} glossary entries, {counts.get('cards', 0)} cards, "
        f"{counts.get('rulings', 0)} rulings, {counts.get('ruling_translations', 0)} translations, "
        f"{counts.get('quality_issues', 0)} quality issues"
    )
    if report.migrated:
        click.echo(
            f"  made by an older version: migrated ({', '.join(report.migrated)}); what the new columns hold for"
            " documents imported before is filled when the file is made again (`mtgkb build`, then `mtgkb import` of"
            " any file imported by hand; or, where `mtgkb refresh` publishes this file, its next run)"
        )
    if report.issue_kinds:
        kinds = ", ".join(f"{kind} {count}" for kind, count in report.issue_kinds.items())
        click.echo(f"  quality issues of these files: {kinds} (the quality_issues table says what each is)")
    if report.failed:
        # A CR file cut off in its glossary is not read whole, but its rules are kept: said so,
        # not "could not be read" beside a count that left it out (a docs review).
        reasons = " ".join("; ".join(
            f"{reason} (its rules are kept, the edition marked incomplete)" if reason in report.kept_incomplete else reason
            for reason in report.failed).split())
        inputs = "1 input" if len(report.failed) == 1 else f"{len(report.failed)} inputs"
        whole = " whole" if report.kept_incomplete else ""
        click.echo(f"Error: {inputs} could not be read{whole}: {reasons}", err=True)
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
@click.option("--source", "source_id", default=None, help="Source id to record for these files (default: the one recorded for a file the database holds, else local)")
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True)
@click.option("--keep-going", is_flag=True, help="Record unreadable files as failed documents (exit 2) instead of stopping")
@click.option("--list-formats", is_flag=True, expose_value=False, is_eager=True, callback=_list_formats, help="List the formats mtgkb can read")
def import_(paths: tuple[Path, ...], fmt: str | None, lang: str | None, source_id: str | None, db_path: Path, keep_going: bool) -> None:
    """Add recorded files of any supported format (detected from content) to the database."""
    from kb.build.files import file_in_the_way
    from kb.build.inputs import BuildError, held_under_another_name, path_inputs, read_once, with_known_sources
    from kb.build.publish import build_database

    if not paths:
        _fail("no files given (see `mtgkb import --help`)")
    try:
        inputs = path_inputs(paths, source_id=source_id or "local", lang=lang, fmt=fmt)
        # Kept where the file is, not as typed: a refresh run from another folder reads such a file
        # again (kb.refresh.imported), and found "ixidron.json" gone (an operator's review).
        inputs = [replace(doc, path=str(Path(doc.path).absolute())) for doc in inputs]
        if source_id is None:
            inputs = with_known_sources(inputs, db_path)
        held = held_under_another_name(inputs, db_path)
        for path, name in held.items():
            click.echo(f"{shown(Path(path))}: the same bytes as {name}, which {shown(db_path)} holds: not read again", err=True)
        inputs = [doc for doc in inputs if doc.path not in held]
        inputs, repeated = read_once(inputs)
        for doc, first in repeated:
            said = ("given twice" if Path(first.path).resolve() == Path(doc.path).resolve()
                    else f"the same bytes as {shown(Path(first.path))}, given before it")
            click.echo(f"{shown(Path(doc.path))}: {said}: read once", err=True)
        if held and not inputs:
            click.echo(f"{shown(db_path)}: nothing changed (every file is already in it); file left untouched")
            return
        if not db_path.exists() and file_in_the_way(db_path) is None:
            # Said, not silent: a mistyped --db would otherwise send the files into a new file.
            click.echo(f"{shown(db_path)}: no database there yet: a new one is made", err=True)
        report = build_database(inputs, db_path, base=db_path, keep_going=keep_going, writer="import")
    except BuildError as error:
        _fail(str(error))
    _summarise(report)


@cli.command()
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(1, 65535))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes (uvicorn workers): one per core serves concurrent visitors on every core")
def serve(db_path: Path, port: int, host: str, workers: int) -> None:
    """Serve the database with Datasette, plugins and metadata."""
    from kb.site.serve import serve as run

    if not db_path.exists():
        _fail(f"{shown(db_path)}: no database; run `mtgkb build` first")
    older = _migrations_not_applied(db_path)
    if older:
        # Served as it is: a page or canned query reading what a later version added fails on it
        # (rulings_by_any_name on a file made before ruling_translations.published_at).
        click.echo(
            f"Warning: {shown(db_path)} was made by an older mtg-rules-kb ({', '.join(older)} not applied):"
            " some pages and queries may fail on it until it is made again (`mtgkb build`, then `mtgkb import` of"
            " any file imported by hand; or, where `mtgkb refresh` publishes this file, its next run)",
            err=True,
        )
    run(db_path, host, port, workers)


def _migrations_not_applied(db_path: Path) -> list[str]:
    from kb.store.migrations import not_applied

    return not_applied(db_path)


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

    from kb.site.publish import DEFAULT_INSTALL, datasette_program, publish_args

    if not db_path.exists():
        _fail(f"{db_path}: no database; run `mtgkb build` first")
    args = ["datasette", *publish_args(target, db_path, install_spec or DEFAULT_INSTALL, name)]
    if dry_run:
        click.echo(shlex.join(args))
        return
    try:
        program = datasette_program()
    except FileNotFoundError as error:
        _fail(str(error))
    try:
        os.execv(program, [program, *args[1:]])
    except OSError as error:
        _fail(f"{program}: {error.strerror}")


if __name__ == "__main__":
    cli()
