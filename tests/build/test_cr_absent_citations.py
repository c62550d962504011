"""Rule numbers a whole CR file cites and does not hold (kb.build.checks.cr_absent_citations): rules
cut from the end of a section skip no number, but the file's glossary and other rules cite them."""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner

from kb.build.checks import cr_absent_citations
from kb.cli import cli
from kb.parse.cr import ko as cr_ko
from kb.parse.cr import txt as cr_txt
from kb.parse.cr import zh as cr_zh

FIXTURES = Path(__file__).parent.parent / "fixtures"
SLIP = ": rules lost from the file, or the official text's own slips"


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        # The glossary's Map has said "see rule 110.10" for 111.10 since 2024.
        ("cr/en-raw/2026-01-16.txt", "1 rule number is cited by the file's rules or glossary and is not in it: 110.10 (cited by Map)"),
        ("cr/en-raw/2006-02-01.txt", "1 rule number is cited by the file's rules or glossary and is not in it: 402.9 (cited by 405.1)"),
        ("cr/en-raw/2019-01-25.txt", None),
        ("cr-zh/2025-02-07-zh.txt", None),
    ],
)
def test_whole_files_report_only_the_official_slips(relative: str, expected: str | None) -> None:
    parser = cr_zh if relative.startswith("cr-zh") else cr_txt
    name = Path(relative).name
    warnings = cr_absent_citations(parser.parse((FIXTURES / relative).read_bytes(), name), name)
    assert warnings == ([f"{name}: {expected}{SLIP}"] if expected else [])


def test_a_file_holding_part_of_the_rules_cites_what_it_leaves_out_without_a_warning() -> None:
    doc = cr_ko.parse((FIXTURES / "cr-ko" / "2021-02-15-700-excerpt.md").read_bytes(), "700.md")
    assert any(number not in {rule.number for rule in doc.rules} for rule in doc.rules for number in rule.refs)
    assert cr_absent_citations(doc, "700.md") == []


def test_rules_cut_from_the_end_of_a_section_of_the_newest_edition_are_named(tmp_path: Path) -> None:
    """The last 20 lines of section 702 (three keywords, 702.187–702.189) taken out: every
    number left runs on, no later edition prints them to compare, and the import said nothing.
    A run of them that the file cites is refused (kb.parse.cr.gaps); one, as the official text's
    own slips look, is kept and named."""
    lines = (FIXTURES / "cr" / "en-raw" / "2026-01-16.txt").read_bytes().splitlines(keepends=True)
    heading = max(index for index, line in enumerate(lines) if line.startswith(b"703. "))
    cut = tmp_path / "cut.txt"
    cut.write_bytes(b"".join(lines[: heading - 20] + lines[heading:]))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(cut)])
    assert result.exit_code == 1 and "rules lost from the end of a section: 702.187–702.189" in result.output
    last = max(index for index, line in enumerate(lines) if line.startswith(b"702.189. "))
    cut.write_bytes(b"".join(lines[:last] + lines[heading:]))
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(cut)])
    assert result.exit_code == 0, result.output
    details = [row[0] for row in sqlite_utils.Database(db_path).execute(
        "select detail from quality_issues where kind = 'cr-format' and detail like '%not in it%'")]
    assert details == [
        f"{cut}: 2 rule numbers are cited by the file's rules or glossary and are not in it:"
        f" 702.189 (cited by Firebending); 110.10 (cited by Map){SLIP}"
    ]
