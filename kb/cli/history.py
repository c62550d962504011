"""Command-line views of CR history: ``cr-diff``, ``rule-at``, ``rule-trace``, ``citations-to-check``.

Each is a ``click.Command`` the ``mtgkb`` group attaches. Versions come from the database, or for
``cr-diff`` also straight from CR files.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import sqlite_utils

from kb.cli.paths import DEFAULT_DB
from kb.link.cr_diff import CHANGE_KINDS, Change, count_changes, diff_versions, version_in_force
from kb.link.word_diff import ELIDE_EQUAL_WORDS, diff_pieces
from kb.records import CRDocument, ParseError
from kb.store import derive_lineage, identity_diff

DB_OPTION = click.option(
    "--db", "db_path", type=click.Path(path_type=Path), default=DEFAULT_DB, show_default=True,
    help="Database file to read",
)


def _open_db(db_path: Path) -> sqlite_utils.Database:
    if not db_path.exists():
        raise click.ClickException(f"{db_path}: no such database (run `mtgkb build` first)")
    return sqlite_utils.Database(db_path)


def _english_versions(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    return derive_lineage.english_versions(db)


def _lineage(db: sqlite_utils.Database, number: str, version_id: str) -> str:
    if not derive_lineage.has_lineages(db):
        raise click.ClickException("this database has no rule lineages yet (rebuild it)")
    lineage = derive_lineage.lineage_of(db, version_id, number)
    if lineage is None:
        raise click.ClickException(f"rule {number} does not exist in {version_id}")
    return lineage


def _known_version(db: sqlite_utils.Database, version_id: str) -> str:
    """``version_id`` as the site reads a version asked for (any case, a bare date that is an
    English edition's); else an error naming the editions held nearest its date: the
    snapshot's `2024-02-06.txt` is the edition of 2024-02-02, which its text says it takes effect
    on, and "no CR version 'en-2024-02-06'" told a newcomer nothing more."""
    if not db["cr_versions"].exists():
        raise click.ClickException(f"no CR version {version_id!r} in the database")
    # (Not kb.site.version_asked's: importing the site loads Datasette, a second of every command.)
    asked = version_id.strip().lower()
    for candidate in (version_id, asked, f"en-{asked}"):
        if db.execute("select 1 from cr_versions where id = ?", [candidate]).fetchone():
            return candidate
    message = f"no CR version {version_id!r} in the database"
    dated = re.search(r"\d{4}-\d{2}-\d{2}", version_id)
    if dated:
        lang = version_id[:dated.start()].rstrip("-").lower() or "en"
        near = [row[0] for row in db.execute(
            "select * from (select id from cr_versions where lang = ? and effective_date <= ? order by effective_date desc limit 1)"
            " union all select * from (select id from cr_versions where lang = ? and effective_date > ? order by effective_date limit 1)",
            (lang, dated.group(0), lang, dated.group(0))).fetchall()]
        if near:
            message += f"; the {lang} editions held nearest that date: {', '.join(near)} (an edition is named by the date it takes effect)"
    raise click.ClickException(message)


def _load_version(db: sqlite_utils.Database, version_id: str) -> CRDocument:
    from kb.store.derive_cr_links import load_cr_document

    return load_cr_document(db, _known_version(db, version_id))


def _document(spec: str, db_path: Path) -> CRDocument:
    """A version id in the database, or the path of a CR text file."""
    path = Path(spec)
    if path.is_file():
        from kb.parse.cr import txt as cr_txt

        try:
            return cr_txt.parse(path.read_bytes(), str(path))
        except ParseError as error:
            raise click.ClickException(str(error)) from error
    return _load_version(_open_db(db_path), spec)


def _diff_by_identity(old: str, new: str, db_path: Path) -> tuple[list[Change], Callable[[list[Change]], None]] | None:
    """The changes along lineages, their texts not read yet, and what reads them for those listed."""
    if Path(old).is_file() or Path(new).is_file() or not db_path.exists():
        return None
    db = _open_db(db_path)
    old_id, new_id = _known_version(db, old), _known_version(db, new)
    changes = identity_diff.diff_by_identity(db, old_id, new_id, texts=False)
    if changes is None:
        return None
    return changes, lambda listed: identity_diff.read_texts(db, old_id, new_id, listed)


@click.command(name="cr-diff")
@click.argument("old")
@click.argument("new")
@DB_OPTION
@click.option("--kind", "kinds", multiple=True, type=click.Choice(CHANGE_KINDS), help="Only changes of this kind (repeatable)")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="List at most this many changes")
def cr_diff(old: str, new: str, db_path: Path, kinds: tuple[str, ...], limit: int | None) -> None:
    """Differences between two CR versions (version ids in the database or CR files).

    Two English versions of the database are compared rule by rule along their lineages, as the
    site's diff page does; CR files, and translations, are paired afresh. At a terminal, deleted
    words are red and struck through and inserted ones green and underlined (not where NO_COLOR is
    set or TERM is dumb); piped, they are marked [-…-] and {+…+}, a backslash escaping a mark the
    rules' own text holds ("{N+\\}")."""
    by_identity = _diff_by_identity(old, new, db_path)
    changes = by_identity[0] if by_identity else diff_versions(_document(old, db_path), _document(new, db_path))
    counts = count_changes(changes)
    click.echo(f"{old} -> {new}: " + ", ".join(f"{kind} {count}" for kind, count in counts.items()))
    shown = [change for change in changes if not kinds or change.kind in kinds]
    listed = shown[:limit] if limit is not None else shown
    if by_identity:
        by_identity[1](listed)  # only what is listed reads its texts
    merged_into = _merges(old, new, db_path)
    # Looked up when called, as click.echo does: CliRunner(color=True) replaces it.
    # NO_COLOR (no-color.org) and a dumb terminal as other tools read them: without colours a
    # deleted word reads as an unchanged one (a code review).
    colored = (not click.utils.should_strip_ansi(sys.stdout, click.get_current_context().color)
               and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb")
    for change in listed:
        click.echo(_change_line(change, merged_into, colored))


def _merges(old: str, new: str, db_path: Path) -> dict[str, str]:
    """Rules of ``old`` merged into a rule of ``new``, consecutive versions of the database (the
    merges ``kb.link.cr_merges`` found: shown as removed, the rule that took their text named)."""
    if Path(old).is_file() or Path(new).is_file() or not db_path.exists():
        return {}
    return derive_lineage.merges_between(_open_db(db_path).conn, old, new)


def _change_line(change: Change, merged_into: dict[str, str] | None = None, colored: bool = False) -> str:
    merged = (merged_into or {}).get(change.old_number or "") if change.kind == "removed" else None
    numbers = f"{change.old_number or '-'} -> {change.new_number or (f'- (merged into {merged})' if merged else '-')}"
    aspects = f" [{', '.join(change.aspects)}]" if change.aspects else ""
    by_number = " (paired by its number alone)" if change.paired_by_number else ""
    return f"{change.kind:16} {numbers}{aspects}{by_number}: {_styled_diff(change) if colored else change.compact_diff()}"


DIFF_STYLES: dict[str, dict[str, Any]] = {"delete": {"fg": "red", "strikethrough": True}, "insert": {"fg": "green", "underline": True}}


def _styled_diff(change: Change) -> str:
    """The word diff for a terminal: deleted words red and struck through, inserted ones green,
    the words as the rules write them. The ``[-…-]{+…+}`` markup a pipe gets must escape the
    marks the rules' own text holds, and a reader at a terminal saw station's "{N+}" as "{N+\\}"."""
    return " ".join(
        click.style(words, **DIFF_STYLES[kind]) if kind in DIFF_STYLES else words
        for kind, words in diff_pieces(change.ops, ELIDE_EQUAL_WORDS)
    ).replace("\n", " ⏎ ")


def _iso_date(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """DATE as YYYY-MM-DD: any other text compared with the versions' dates as text would pick
    some version ("June 1 2025" sorts after every ISO date: the newest) and name it in force."""
    from kb.normalise.dates import iso_day

    if iso_day(value):
        return value
    raise click.BadParameter(f"{value!r} is not a date written YYYY-MM-DD (e.g. 2025-06-01)")


def _held_on(versions: list[tuple[str, str]], version_id: str, date: str) -> str:
    """The version relied on for ``date``, and how sure that is: an edition took effect on
    its own date, but between two held editions others may have come that the database lacks
    (2016-01-22 and 2016-04-08 between the 2015-11-13 and 2016-09-30 held: a CR history review
    found 2015-11-13 said to be in force on 2016-05-01)."""
    at = next(i for i, (held, _) in enumerate(versions) if held == version_id)
    effective = versions[at][1]
    if effective == date:
        return f"{version_id} (in force on {date})"
    if at + 1 == len(versions):
        return f"{version_id} (the newest version held on {date}, in force from {effective})"
    return (f"{version_id} (the newest version held on {date}: in force then unless an edition not held"
            f" came between it and {versions[at + 1][0]})")


@click.command(name="rule-at")
@click.argument("number")
@click.argument("date", callback=_iso_date)
@click.option(
    "--today", "as_today", is_flag=True,
    help="NUMBER is the rule's number in the newest version: show that rule (its lineage) as it was on DATE",
)
@DB_OPTION
def rule_at(number: str, date: str, as_today: bool, db_path: Path) -> None:
    """What rule NUMBER said on DATE (YYYY-MM-DD): the English version in force then."""
    db = _open_db(db_path)
    versions = _english_versions(db)
    version_id = version_in_force(versions, date)
    if version_id is None:
        raise click.ClickException(f"no English CR version in the database was in force on {date}")
    asked = number
    if as_today:
        lineage = _lineage(db, number, versions[-1][0])
        found = derive_lineage.number_in(db, lineage, version_id)
        if found is None:
            raise click.ClickException(f"rule {number} (as numbered today) did not exist in {version_id} (in force on {date})")
        number = found
    rows = list(db.query("select * from rules where version_id = ? and number = ?", [version_id, number]))
    if not rows:
        raise click.ClickException(f"rule {number} does not exist in {version_id} (in force on {date})")
    rule = rows[0]
    doubt = _number_in_doubt(db, versions, version_id, number, rule["lineage_id"])
    if doubt:
        click.echo(f"{version_id} (the newest version held before {date})")
        click.echo(f"({doubt}: whether {number} was this rule on {date} is not known)")
    else:
        click.echo(_held_on(versions, version_id, date))
    click.echo(" ".join(part for part in (rule["number"], rule["title"] or "") if part))
    if rule["text"]:
        click.echo(rule["text"])
    for example in db.query("select text from rule_examples where rule_id = ? order by position", [rule["id"]]):
        click.echo(f"  {example['text']}")
    for sub in db.query(
        "select number, text from rules where version_id = ? and parent_number = ? and kind = 'subrule'"
        " order by position",
        [version_id, number],
    ):
        click.echo(f"{sub['number']} {sub['text']}")
    if not as_today and derive_lineage.has_lineages(db) and rule["lineage_id"]:
        today = derive_lineage.number_in(db, rule["lineage_id"], versions[-1][0])
        if today != asked:
            where = f"numbered {today}" if today else "removed"
            click.echo(f"(this rule is {where} in {versions[-1][0]}; use --today for today's numbering)")
    if derive_lineage.crossed_by_number(db, [rule["lineage_id"]])(rule["lineage_id"], version_id, versions[-1][0]):
        click.echo(f"(between {version_id} and {versions[-1][0]} this rule was paired with the rule left at its"
                   " number by that number alone: today's rule may be another one)")


def _number_in_doubt(
    db: sqlite_utils.Database, versions: list[tuple[str, str]], version_id: str, number: str, lineage: str | None
) -> str | None:
    """How the next English version held numbers the rule otherwise, where it does (an edition
    not held may have renumbered it before the date asked about); None where it agrees."""
    at = [held for held, _date in versions].index(version_id)
    if at + 1 >= len(versions) or not lineage or not derive_lineage.has_lineages(db):
        return None
    next_id = versions[at + 1][0]
    there = derive_lineage.number_in(db, lineage, next_id)
    holder = derive_lineage.lineage_of(db, next_id, number)
    if there == number:
        return None
    taken = ""
    if holder:
        title = db.execute("select title from rules where version_id = ? and number = ?", [next_id, number]).fetchone()
        taken = f", and {number} is another rule there{f' ({title[0]})' if title and title[0] else ''}"
    return f"the next held, {next_id}, " + (f"numbers it {there}" if there else "no longer has it") + taken


@click.command(name="rule-trace")
@click.argument("number")
@click.option("--version", "version_id", default=None, help="Version the number belongs to (default: the newest)")
@DB_OPTION
def rule_trace(number: str, version_id: str | None, db_path: Path) -> None:
    """A rule's text in every English version, following its lineage through renumberings."""
    db = _open_db(db_path)
    versions = _english_versions(db)
    if not versions:
        raise click.ClickException("no English CR versions in the database")
    if version_id is not None and version_id not in {vid for vid, _ in versions}:
        raise click.ClickException(f"unknown version {version_id!r}")
    lineage = _lineage(db, number, version_id or versions[-1][0])
    click.echo(f"lineage {lineage}")
    # The merges and splits it took part in, on the row of the version they happened in, as the
    # rule page says them: 2003-10's 502.7b was "[added]", though split off 2003-03's (a review).
    joins: dict[str, list[str]] = {}
    for link in derive_lineage.lineage_links(db.conn, lineage):
        joins.setdefault(link["new_version_id"], []).append(f"{link['label']} {link['number']} of {link['version']}")
    previous: tuple[str, str] | None = None  # the version and number the rule last had
    for member in derive_lineage.trace(db, lineage):
        if member.number is None:
            # Removed by merging into another rule: the rule page says so, and so does the trace.
            into = derive_lineage.merges_between(db.conn, previous[0], member.version_id).get(previous[1]) if (
                member.status == "removed" and previous) else None
            click.echo(f"{member.version_id}: ({member.status}{f': merged into {into}' if into else ''})")
            continue
        previous = (member.version_id, member.number)
        heading = " ".join(part for part in (member.number, member.title or "") if part)
        caution = ""
        if member.paired_by_number:
            alike = f", the texts {round(member.similarity * 100)} % alike" if member.similarity is not None else ""
            caution = f"; paired by its number alone{alike}"
        said = joins.get(member.version_id, [])
        # Not "added" where it was split off another rule: it came from that one.
        status = [] if member.status == "added" and any(one.startswith("split off") for one in said) else [member.status + caution]
        click.echo(f"{member.version_id}: {heading} [{'; '.join([*status, *said])}]")
        if member.text:
            click.echo(f"    {member.text}")


@click.command(name="citations-to-check")
@DB_OPTION
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True, help="List at most this many")
def citations_to_check(db_path: Path, limit: int) -> None:
    """Rulings citing a rule that was later renumbered, removed or reworded, or by a number that
    versions not held may have given to another rule by the ruling's date."""
    db = _open_db(db_path)
    if "citations_to_check" not in db.view_names():
        raise click.ClickException("this database has no CR history yet (rebuild it)")
    rows = list(db.query("select * from citations_to_check order by published_at desc, ruling_id limit ?", [limit]))
    click.echo(f"{len(rows)} citations to check")
    for row in rows:
        now = row["current_number"] or "-"
        if row.get("merged_into") and not row["current_number"]:
            today = f", today {row['merged_into_current']}" if row.get("merged_into_current") else ""
            now = f"-: merged into {row['merged_into']}{today}"
        by_number = " (paired by its number alone since: it may be another rule)" if row.get("paired_by_number") else ""
        in_doubt = (f"; {row['cited_version']} is only the newest version held before the ruling, and the next held"
                    f" numbers the rule otherwise: {row['cited_number']} may have been another rule on its date"
                    ) if row.get("number_uncertain") else ""
        click.echo(
            f"{row['published_at'] or '?'} {row['card'] or '?'}: rule {row['cited_number']}"
            f" ({row['cited_version']}) {row['status']}, now {now}{by_number}{in_doubt}"
        )


COMMANDS = [cr_diff, rule_at, rule_trace, citations_to_check]
