"""Numbers a CR file skips: a block lost from the middle of a real file is reported, and so are
the official files' own rare skips (kb.parse.cr.gaps)."""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner

from kb.cli import cli
from kb.parse.cr import ko as cr_ko
from kb.parse.cr import txt as cr_txt
from kb.parse.cr import zh as cr_zh
from kb.parse.cr.gaps import numbering_gaps
from kb.records import ParseError, Rule

FIXTURES = Path(__file__).parent.parent / "fixtures"


def lines_of(relative: str) -> list[bytes]:
    return (FIXTURES / relative).read_bytes().splitlines(keepends=True)


def without(lines: list[bytes], first: int, count: int) -> bytes:
    """The file with ``count`` lines from line ``first`` (1-based) left out, as a damaged copy."""
    return b"".join(lines[: first - 1] + lines[first - 1 + count :])


def gap_warnings(doc) -> list[str]:
    return [warning for warning in doc.warnings if "not in the file" in warning]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("cr/en-raw/2026-01-16.txt", []),
        ("cr/en-raw-batch2/2009-10-01.txt", ["2009-10-01.txt: rule 113.9 follows 113.7: 113.8 is not in the file"]),
        ("cr-zh/2025-02-07-zh.txt", []),
    ],
)
def test_whole_files_report_only_the_official_skips(relative: str, expected: list[str]) -> None:
    parser = cr_zh if relative.startswith("cr-zh") else cr_txt
    assert gap_warnings(parser.parse((FIXTURES / relative).read_bytes(), Path(relative).name)) == expected


def test_a_block_lost_from_the_middle_of_the_english_file_is_named() -> None:
    """462 lines from 702.93 on: 230 rules gone, every section heading still there for the
    contents check, and the parse said nothing before."""
    lines = lines_of("cr/en-raw/2026-01-16.txt")
    assert lines[4652].startswith(b"702.92. Living Weapon")
    whole = cr_txt.parse(b"".join(lines), "2026-01-16.txt")
    cut = without(lines, 4654, 462)
    # The file's own rules and glossary cite the rules it lost ("Storm See rule 702.40"): refused,
    # as a file cut short is (kept, it became the current rules without them: a refresh review).
    with pytest.raises(ParseError, match=r"^cut\.txt: rules lost from the middle of the file: 702\.93–702\.154 are not"
                       r" in it, though its own rules or glossary cite them; refused$"):
        cr_txt.parse(cut, "cut.txt")
    assert len(whole.rules) == 3269


def test_a_block_lost_from_the_chinese_file_is_named() -> None:
    lines = lines_of("cr-zh/2025-02-07-zh.txt")
    whole = cr_zh.parse(b"".join(lines), "2025-02-07-zh.txt")
    cut = cr_zh.parse(without(lines, 4001, 449), "cut.txt")
    assert len(whole.rules) - len(cut.rules) == 219
    # The cut starts inside 702.19 and ends inside 702.72 (its heading and 702.72a gone).
    assert gap_warnings(cut) == [
        "cut.txt: subrule 702.72b is the first of 702.72: 702.72a is not in the file",
        "cut.txt: rule 702.73 follows 702.19: 702.20–702.72 are not in the file",
    ]


def test_the_korean_excerpt_says_what_it_leaves_out() -> None:
    doc = cr_ko.parse((FIXTURES / "cr-ko" / "2021-02-15-700-excerpt.md").read_bytes(), "700.md")
    assert gap_warnings(doc) == [
        "700.md: rule 702.77 is the first of 702: 702.1–702.76 are not in the file",
        "700.md: rule 702.85 follows 702.79: 702.80–702.84 are not in the file",
    ]


def test_sections_subrules_and_order() -> None:
    def rule(number: str, kind: str) -> Rule:
        return Rule(number=number, kind=kind, text="")

    rules = [
        rule("1", "part"), rule("100", "section"), rule("102", "section"),
        rule("102.1", "rule"), rule("102.1a", "subrule"), rule("102.1c", "subrule"),
        rule("102.1k", "subrule"), rule("102.1m", "subrule"),  # l is never used
        rule("102.2", "rule"), rule("102.1b", "subrule"),  # out of order: the parsers' own checks
        rule("2", "part"), rule("201", "section"), rule("201.1", "rule"),
    ]
    assert numbering_gaps(rules, "x") == [
        "x: section 102 follows 100: 101 is not in the file",
        "x: subrule 102.1c follows 102.1a: 102.1b is not in the file",
        "x: subrule 102.1k follows 102.1c: 102.1d–102.1j are not in the file",
        "x: section 201 is the first of part 2: 200 is not in the file",
    ]


def test_the_import_refuses_a_file_citing_what_it_lost_and_keeps_a_skip_it_cites_nowhere(tmp_path: Path) -> None:
    """Rules cut from the middle that the file itself cites: refused, naming the file, nothing
    written. A skip the file cites nowhere (as the official 2009's 113.8) cannot be told from the
    official text's own: kept, and shown as a quality issue."""
    lines = lines_of("cr/en-raw/2026-01-16.txt")
    cut = tmp_path / "2026-01-16.txt"
    cut.write_bytes(without(lines, 4654, 462))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(cut)])
    assert result.exit_code == 1 and f"{cut}: rules lost from the middle of the file: 702.93–702.154" in result.output
    assert not db_path.exists()
    assert lines[200].startswith(b"100.3. Some cards require coins")
    cut.write_bytes(without(lines, 201, 2))
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(cut)])
    assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(db_path)
    assert [row[0] for row in db.execute("select detail from quality_issues where kind = 'cr-format' and detail like '%not in the file'")] == [
        f"{cut}: rule 100.4 follows 100.2: 100.3 is not in the file"
    ]


def test_rules_cut_from_the_end_of_a_section_that_the_file_cites_are_refused() -> None:
    """702.140 to the end of 702 cut out skips no number, but the glossary still cites them: the
    file was published as the current rules (a refresh review). One cited number after a
    section's last rule is what the official text's slips look like (2006's 405.1 cites 402.9):
    kept, as the whole files show."""
    text = (FIXTURES / "cr/en-raw/2022-04-29.txt").read_bytes()
    cut = text.index(b"702.140. ")
    with pytest.raises(ParseError, match=r"^cut\.txt: rules lost from the end of a section: 702\.140–702\.153 are not in it"):
        cr_txt.parse(text[:cut] + text[text.index(b"703. Turn-Based Actions", cut):], "cut.txt")
    assert [rule.number for rule in cr_txt.parse((FIXTURES / "cr/en-raw/2006-02-01.txt").read_bytes(), "x").rules
            if rule.kind == "rule" and rule.number.startswith("402.")][-1] == "402.8"
