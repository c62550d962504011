"""Docs that cannot drift: every command, table and format is documented."""
from __future__ import annotations

from pathlib import Path

from kb.cli import cli
from kb.parse.formats import all_formats
from kb.site.metadata import build_metadata
from kb.store.schema import TABLES

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_command_is_in_the_readme() -> None:
    for name in cli.commands:
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
