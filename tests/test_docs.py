"""Docs that cannot drift: every command, table and format is documented."""
from __future__ import annotations

from pathlib import Path

import click

from kb.cli import cli
from kb.parse.formats import all_formats
from kb.site.metadata import build_metadata
from kb.store.tables import TABLES

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_command_is_in_the_readme() -> None:
    with click.Context(cli) as context:
        names = cli.list_commands(context)
        for name in names:
            # Each lazily imported command is found under the name it is listed by.
            assert cli.get_command(context, name).name == name
    assert {"build", "import", "serve", "publish", "fetch", "refresh", "rule-at"} <= set(names)
    for name in names:
        assert f"mtgkb {name}" in README, name


def test_every_format_is_in_the_readme() -> None:
    for fmt in all_formats():
        assert f"`{fmt.name}`" in README, fmt.name


def test_readme_gives_the_two_setup_commands() -> None:
    assert "make run" in README and "make test" in README


def test_every_table_and_column_has_a_description() -> None:
    tables = build_metadata()["databases"]["kb"]["tables"]
    for table, spec in TABLES.items():
        assert tables[table]["description"], table
        for column in spec["columns"]:
            assert tables[table]["columns"].get(column), f"{table}.{column}"


def test_every_column_and_view_of_a_built_database_is_described(snapshot_conn) -> None:
    # A column added by a migration alone (glossary.lineage_id) was served without a description.
    tables = build_metadata()["databases"]["kb"]["tables"]
    for table in TABLES:
        for (column,) in snapshot_conn.execute(f'select name from pragma_table_info("{table}")'):
            assert tables[table]["columns"].get(column), f"{table}.{column}"
    for (view,) in snapshot_conn.execute("select name from sqlite_master where type = 'view'"):
        assert tables.get(view, {}).get("description"), view


def test_every_value_in_a_built_database_is_a_documented_value(snapshot_conn) -> None:
    from kb.store.columns import VALUES

    for (table, column), values in VALUES.items():
        found = {row[0] for row in snapshot_conn.execute(f'select distinct "{column}" from "{table}"')} - {None}
        assert found <= set(values), f"{table}.{column}: {found - set(values)} not in kb.store.columns.VALUES"


def test_refresh_docs_name_every_refresh_status() -> None:
    from kb.store.columns import REFRESH_STATUSES

    refresh_docs = (Path(__file__).parent.parent / "docs" / "refresh.md").read_text(encoding="utf-8")
    status_row = next(line for line in refresh_docs.splitlines() if line.startswith("| `status` |"))
    for status in REFRESH_STATUSES:
        assert f"`{status}`" in status_row, status


def test_every_curl_example_is_a_url_curl_sends_as_written() -> None:
    # curl sends a URL's bytes as typed, and the server refuses raw UTF-8 in a request line
    # (HTTP 400): letters beyond ASCII in an example must be percent-encoded.
    import re

    docs = Path(__file__).parent.parent / "docs"
    for path in [Path(__file__).parent.parent / "README.md", *sorted(docs.glob("*.md"))]:
        for url in re.findall(r"curl [^']*'([^']+)'", path.read_text(encoding="utf-8")):
            assert url.isascii(), f"{path.name}: {url}"


def test_the_refresh_docs_publish_step_installs_this_package_with_its_settings() -> None:
    # A Datasette published without this package serves the tables alone: no site pages, no limits.
    import re
    import shlex

    from packaging.requirements import Requirement

    from kb.site.serve import setting_args

    refresh_docs = (Path(__file__).parent.parent / "docs" / "refresh.md").read_text(encoding="utf-8")
    start = refresh_docs.index("datasette publish vercel")
    command = refresh_docs[start:refresh_docs.index("```", start)].replace("\\\n", " ").splitlines()[0]
    # GitHub Actions fills in ${{ … }} before the shell reads the line.
    words = shlex.split(re.sub(r"\$\{\{[^}]*\}\}", "x", command))
    installs = [Requirement(words[i + 1]).name for i, word in enumerate(words) if word == "--install"]
    assert "mtg-rules-kb" in installs
    settings = [words[i:i + 3] for i, word in enumerate(words) if word == "--setting"]
    assert sum(settings, []) == setting_args()
