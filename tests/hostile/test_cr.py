"""The hostile catalogue, Comprehensive Rules: damaged CR files made from a real edition (2003-03-15, ASCII).

A duplicated number keeps both rules, flagged; a missing middle section is refused; a file cut in
its glossary is kept only with --keep-going as a truncated edition (exit 2); UTF-8 with a few bad
bytes is repaired byte by byte and flagged, never read as Mac Roman; a local file carrying an
official edition's date is a version of its own, never a replacement.
"""
from __future__ import annotations

import re
from pathlib import Path

from kit import ROOT, Zygote, assert_bounded, assert_refused, rows, sha256

CR = ROOT / "tests/fixtures/cr/en-raw/2003-03-15.txt"


def cr_text() -> str:
    return CR.read_bytes().decode("ascii")


def test_a_duplicated_rule_number_keeps_both_rules_and_flags_them(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    text = cr_text()
    block = "100.4. There is no maximum deck size.\n"
    assert block in text.replace("\r\n", "\n")
    damaged = text.replace("100.4. There is no maximum deck size.", "100.4. There is no maximum deck size.\r\n\r\n100.4. A pasted second rule 100.4.", 1)
    path = tmp_path / "cr-duplicate.txt"
    path.write_text(damaged, encoding="ascii", newline="")
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert_bounded(outcome)
    texts = [t for (t,) in rows(served, "select text from rules where version_id = 'en-2003-03-15' and number = '100.4' order by position")]
    assert texts == ["There is no maximum deck size.", "A pasted second rule 100.4."]
    issues = rows(served, "select detail from quality_issues where detail like '%duplicate rule number 100.4%'")
    assert len(issues) == 1


def test_a_missing_middle_section_is_refused(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    text = cr_text()
    start = text.index("\r\n3. Turn Structure\r\n") if "\r\n3. Turn Structure\r\n" in text else text.index("\n3. Turn Structure\n")
    end = text.index("4. Spells, Abilities, and Effects", start)
    path = tmp_path / "cr-no-part-3.txt"
    path.write_text(text[:start] + "\n" + text[end:], encoding="ascii", newline="")
    before = sha256(served)
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert_refused(outcome, r"cr-no-part-3\.txt: .*(300|Turn Structure)")
    assert sha256(served) == before


def test_a_cr_cut_in_its_glossary_is_kept_only_with_keep_going_as_truncated(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    text = cr_text()
    glossary = text.index("Glossary", text.index("505. Split Cards", text.index("Contents") + 2000))
    path = tmp_path / "cr-cut.txt"
    path.write_text(text[: glossary + 3000], encoding="ascii", newline="")
    before = sha256(served)
    refused = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert_refused(refused, r"cr-cut\.txt: truncated")
    assert sha256(served) == before
    kept = zygote.run(["import", "--db", served, "--keep-going", path], cwd=tmp_path)
    assert kept.code == 2, kept.describe()
    assert rows(served, "select status from cr_versions where id = 'en-2003-03-15'") == [("truncated in its glossary",)]
    assert rows(served, "select status from documents where path = ?", (str(path),)) == [("failed",)]


def test_utf8_with_a_few_bad_bytes_is_repaired_byte_locally_and_flagged(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    text = cr_text().replace("'", "’")  # a UTF-8 edition: typographic apostrophes throughout
    data = text.encode("utf-8")
    # One Windows-1252 quote pasted into a rule's text (before its number, the line is no rule:
    # 100.4, which the file cites, lost from its middle, and the file refused).
    cut = data.index(b"maximum deck size")
    data = data[:cut] + b"\x93" + data[cut:]
    path = tmp_path / "cr-utf8-damaged.txt"
    path.write_bytes(data)
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert rows(served, "select encoding from cr_versions where id = 'en-2003-03-15'") == [("utf-8 (repaired)",)]
    apostrophes = rows(served, "select count(*) from rules where version_id = 'en-2003-03-15' and text like '%’%'")[0][0]
    assert apostrophes > 50  # not "Õ" as Mac Roman would make them
    assert rows(served, "select count(*) from rules where version_id = 'en-2003-03-15' and text like '%Õ%'") == [(0,)]
    detail = rows(served, "select detail from quality_issues where detail like '%not valid UTF-8%'")
    assert len(detail) == 1 and re.search(r"1 bytes are not valid UTF-8 \(lines \d+\)", detail[0][0]), detail


def test_a_local_file_with_an_official_date_never_replaces_the_official_text(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    official = zygote.run(["import", "--db", served, "--source", "wizards", CR], cwd=tmp_path)
    assert official.code == 0, official.describe()
    edited = cr_text().replace("100.4. There is no maximum deck size.", "100.4. Decks may not exceed 61 cards.")
    path = tmp_path / "my-cr.txt"
    path.write_text(edited, encoding="ascii", newline="")
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert rows(served, "select text from rules where version_id = 'en-2003-03-15' and number = '100.4'") == [("There is no maximum deck size.",)]
    assert rows(served, "select text from rules where version_id = 'en-2003-03-15-local' and number = '100.4'") == [("Decks may not exceed 61 cards.",)]
    conflict = rows(served, "select detail from quality_issues where kind = 'conflicting-version'")
    assert len(conflict) == 1 and "differs from version en-2003-03-15 in 1 rule (100.4)" in conflict[0][0]
    # The same official text again (a copy of the file) is the same version, not a third one.
    copy = tmp_path / "copy.txt"
    copy.write_bytes(CR.read_bytes())
    again = zygote.run(["import", "--db", served, "--source", "wizards", copy], cwd=tmp_path)
    assert again.code == 0, again.describe()
    assert rows(served, "select count(*) from cr_versions where id like 'en-2003-03-15%'") == [(2,)]


def test_a_cr_encoded_as_utf8_twice_is_read_as_meant_and_flagged(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    text = cr_text().replace("'", "’")  # a UTF-8 edition: typographic apostrophes throughout
    # Its UTF-8 read as Windows-1252 and written as UTF-8 again: valid UTF-8, every "’" now "â€™".
    path = tmp_path / "cr-double-encoded.txt"
    path.write_bytes(text.encode("utf-8").decode("cp1252").encode("utf-8"))
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert rows(served, "select encoding from cr_versions where id = 'en-2003-03-15'") == [("utf-8 (double-encoded, repaired)",)]
    assert rows(served, "select count(*) from rules where version_id = 'en-2003-03-15' and text like '%â€%'") == [(0,)]
    assert rows(served, "select text from rules where version_id = 'en-2003-03-15' and number = '101.1'")[0][0].count("’") >= 1
    detail = rows(served, "select detail from quality_issues where detail like '%encoded as UTF-8 twice%'")
    assert len(detail) == 1 and re.search(r"\d+ characters were encoded as UTF-8 twice \(lines \d+", detail[0][0]), detail


def test_a_cr_whose_converter_lost_characters_says_which_rules(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    text = cr_text().replace("There is no maximum deck size.", "There is no maximum deck size\ufffd", 1)
    path = tmp_path / "cr-lost.txt"
    path.write_bytes(text.encode("utf-8"))
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    detail = rows(served, "select detail from quality_issues where detail like '%U+FFFD%'")
    assert len(detail) == 1 and "1 rules, examples or glossary entries hold U+FFFD marks" in detail[0][0] and "(100.4)" in detail[0][0], detail


def test_a_cr_converted_to_ascii_with_question_marks_says_which_words(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    # What a conversion to ASCII that cannot write "’" leaves: "opponent?s deck". Web addresses
    # ("default.asp?x=dci") are not such words; the real file has three of them.
    text = cr_text().replace("his or her opponent's deck", "his or her opponent?s deck", 1)
    path = tmp_path / "cr-ascii.txt"
    path.write_text(text, encoding="ascii", newline="")
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    detail = rows(served, "select detail from quality_issues where detail like '%between two letters%'")
    assert len(detail) == 1 and "1 words hold '?' between two letters (opponent?s in 101.1)" in detail[0][0], detail


def test_a_second_edition_pasted_after_the_first_is_named_not_read_as_credits(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    # Everything after the glossary is the credits: the whole second file was kept there, quietly.
    path = tmp_path / "two-editions.txt"
    path.write_bytes(CR.read_bytes() + b"\r\n" + (ROOT / "tests/fixtures/cr/en-raw-batch2/2003-10-01.txt").read_bytes())
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    detail = rows(served, "select detail from quality_issues where detail like '%text after the credits%'")
    assert len(detail) == 1 and re.search(r"the credits hold \d{3,} lines that read as rules and \d 'effective as of' lines", detail[0][0]), detail
