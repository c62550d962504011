"""The hostile catalogue, inputs: each damaged or hostile file is generated here (bombs at test time,
never committed) and imported into a served database by a measured ``mtgkb import``.

Every case states its exit code and its one ``Error:`` line; every run stays under the import's
memory ceiling and its time bound, and a refused file leaves the database byte-identical.
"""
from __future__ import annotations

import codecs
import gzip
import io
import json
import os
import re
import shutil
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from kit import ROOT, Zygote, assert_bounded, assert_refused, rows, sha256

RULINGS = ROOT / "tests/fixtures/constructed/rulings-lethal-scheme.json"
DOCX = ROOT / "tests/fixtures/release-notes/zhs-mh1.docx"
GATHERER = ROOT / "tests/fixtures/gatherer/old/recall.html"
MTGJSON_META = {"date": "2022-04-25", "version": "5.2.0+20220425"}
RULING = {"object": "ruling", "oracle_id": "00000000-0000-4000-8000-00000000c0de", "source": "wotc",
          "published_at": "2022-04-29", "comment": "A ruling."}


def gzip_members(*parts: bytes, repeat_middle: int = 1) -> bytes:
    """A multi-member gzip: members concatenate on reading, so a bomb costs one compression."""
    head, middle, tail = parts
    block = gzip.compress(middle, compresslevel=9)
    return gzip.compress(head) + block * repeat_middle + gzip.compress(tail)


def zip_with(members: dict[str, bytes], stored: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data, compress_type=zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def docx_members() -> dict[str, bytes]:
    with zipfile.ZipFile(DOCX) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


PHELDDAGRIF = ROOT / "tests/fixtures/scryfall/api-2025-11-01/card-d9631cb2-phelddagrif.json"


def phelddagrif(**changes: object) -> bytes:
    """The real Phelddagrif card object with ``changes`` (a value of None removes the field)."""
    card = json.loads(PHELDDAGRIF.read_bytes())
    for key, value in changes.items():
        if value is None:
            card.pop(key, None)
        else:
            card[key] = value
    return json.dumps(card).encode()


def bulk_prefix() -> bytes:
    return b"[" + json.dumps(RULING).encode() + b",\n"


# name -> (make(folder) -> path, extra args, exit code, message pattern)
Maker = Callable[[Path], Path]


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


REFUSED: dict[str, tuple[Maker, list[str], str]] = {
    # 2.2 GB in one string from a few MB: the ratio bound stops it after the first mebibyte.
    "gzip-bomb-one-string": (
        lambda d: _write(d, "rulings.json.gz", gzip_members(
            bulk_prefix() + b'{"object": "ruling", "comment": "', b"A" * (1 << 20), b'"}]',
            repeat_middle=400)),
        [], r"rulings\.json\.gz: gzip inflates more than 100×.*decompression bomb",
    ),
    # One JSON Lines record of 400 MB of small values.
    "gzip-bomb-one-line": (
        lambda d: _write(d, "rulings.jsonl.gz", gzip_members(
            json.dumps(RULING).encode() + b'\n{"object": "ruling", "x": [', b"0," * (1 << 19), b"0]}\n",
            repeat_middle=400)),
        [], r"gzip inflates more than 100×",
    ),
    # Not compressed: one line of 20 MB is more than a record may be.
    "json-lines-record-too-long": (
        lambda d: _write(d, "rulings.jsonl", json.dumps(RULING).encode() + b'\n{"object": "ruling", "x": ['
                         + b"0," * (10 << 20) + b"0]}\n"),
        ["--format", "scryfall-bulk-rulings"], r"a JSON record longer than 16 MiB",
    ),
    "json-string-too-long": (
        lambda d: _write(d, "rulings-bulk.json", bulk_prefix() + b'{"object": "ruling", "comment": "' + b"B" * (20 << 20) + b'"}]'),
        [], r"a JSON string longer than 16 MiB",
    ),
    # 200 KB nested 100,000 deep inside a bulk array: ijson's prefixes would grow with depth².
    "deep-json-in-bulk-array": (
        lambda d: _write(d, "deep-bulk.json", bulk_prefix() + b"[" * 100_000 + b"]" * 100_000 + b"]"),
        [], r"deep-bulk\.json: JSON nested deeper than 64 levels",
    ),
    "deep-json-api-response": (
        lambda d: _write(d, "deep-api.json", b'{"object": "list", "has_more": false, "data": [' + json.dumps(RULING).encode()
                         + b", " + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"]}"),
        ["--format", "scryfall-rulings"], r"JSON nested deeper than 64 levels",
    ),
    "deep-json-mtgjson": (
        lambda d: _write(d, "deep-mtgjson.json", b'{"meta": ' + json.dumps(MTGJSON_META).encode()
                         + b', "data": {"cards": [{"setCode": "X", "a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}]}}"),
        ["--format", "mtgjson"], r"JSON nested deeper than 64 levels",
    ),
    "docx-bomb": (
        lambda d: _write(d, "bomb.docx", zip_with({**docx_members(), "word/document.xml": b"<w:p/>" * (20 << 20)})),
        [], r"bomb\.docx: ZIP member word/document\.xml inflates .*decompression bomb",
    ),
    "fifo": (
        lambda d: (os.mkfifo(d / "input.fifo"), d / "input.fifo")[1],
        [], r"input\.fifo: a FIFO, not a regular file",
    ),
    "dev-zero": (lambda d: Path("/dev/zero"), [], r"/dev/zero: a device, not a regular file"),
    "unreadable": (lambda d: Path("/proc/self/mem"), [], r"/proc/self/mem: cannot read: Input/output error"),
    "missing-file": (lambda d: d / "nowhere.json", [], r"nowhere\.json: no such file"),
    "gzip-bad-crc": (
        lambda d: _write(d, "tiny.json.gz", (lambda z: z[:-8] + bytes([z[-8] ^ 0xFF]) + z[-7:])(
            gzip.compress(json.dumps({"object": "list", "data": [RULING]}).encode()))),
        [], r"tiny\.json\.gz: a gzip file that cannot be read: damaged gzip data .*incorrect data check",
    ),
    "not-a-format": (lambda d: _write(d, "noise.bin", os.urandom(4096)), [], r"noise\.bin: not a format mtgkb can read"),
    "empty-file": (lambda d: _write(d, "empty.txt", b""), [], r"empty\.txt: not a format mtgkb can read"),
    # A text with NULs in it was "not a format mtgkb can read", no more (a review of real files).
    "nuls-in-a-text": (
        lambda d: _write(d, "nuls.txt", (ROOT / "tests/fixtures/cr/en-raw/2026-01-16.txt").read_bytes()[3:].replace(
            b"Example:", b"\x00Example:")),
        [], r"nuls\.txt: not a format mtgkb can read: it holds 276 NUL bytes, damaged most likely",
    ),
    # A CR text read as JSON was "malformed or truncated JSON at line 1, column 1".
    "text-as-json": (
        lambda d: _write(d, "cr.txt", b"Magic: The Gathering Comprehensive Rules\r\n"),
        ["--format", "scryfall-rulings"], r"cr\.txt: not JSON \(it begins 'Magic: The Gathering'\)",
    ),
    # Python's own reasons ("0", "'int' object is not subscriptable") become a sentence.
    "python-internal-reason": (
        lambda d: _write(d, "ints.json", json.dumps({"meta": MTGJSON_META, "data": {"cards": [
            {"setCode": "X", "name": "A", "foreignData": [0]}]}}).encode()),
        [], r"ints\.json: could not be read as mtgjson: unexpected structure \('int' object",
    ),
    # A ruling that is not MTGJSON's {date, text}: its text would have been missing, the ruling dropped.
    "mtgjson-ruling-layout": (
        lambda d: _write(d, "notes.json", json.dumps({"meta": MTGJSON_META, "data": {"cards": [
            {"setCode": "X", "name": "A", "rulings": [{"date": "2020-01-01", "body": "A ruling."}]}]}}).encode()),
        [], r"notes\.json: card 1: ruling 1 of 'A' is not MTGJSON's \{date, text\} object",
    ),
    "mtgjson-zero-cards": (
        lambda d: _write(d, "empty-set.json", json.dumps({"meta": MTGJSON_META, "data": {"cards": []}}).encode()),
        ["--format", "mtgjson"], r"empty-set\.json: no cards found",
    ),
    "empty-rulings-bulk": (
        lambda d: _write(d, "no-rulings.json", b"[]"),
        ["--format", "scryfall-bulk-rulings"], r"no-rulings\.json: the rulings bulk file holds no readable ruling",
    ),
    # An oracle id is a card's identity: one that is not a UUID was a card of its own, unnamed.
    "scryfall-oracle-id-not-a-uuid": (
        lambda d: _write(d, "odd-id.json", json.dumps({"object": "list", "has_more": False, "data": [
            RULING, {**RULING, "oracle_id": "not-a-uuid"}]}).encode()),
        [], r"odd-id\.json: ruling 2: oracle_id 'not-a-uuid' is not a UUID",
    ),
    # "01/02/2020" was read as 2 January, with exit 0: both formats document ISO dates.
    "scryfall-date-not-iso": (
        lambda d: _write(d, "us-date.json", json.dumps({"object": "list", "has_more": False, "data": [
            {**RULING, "published_at": "01/02/2020"}]}).encode()),
        [], r"us-date\.json: ruling 1: published_at '01/02/2020' is not an ISO 8601 date",
    ),
    "mtgjson-date-not-iso": (
        lambda d: _write(d, "us-date-mtgjson.json", json.dumps({"meta": MTGJSON_META, "data": {"cards": [
            {"setCode": "X", "name": "A", "rulings": [{"date": "01/02/2020", "text": "A ruling."}]}]}}).encode()),
        [], r"us-date-mtgjson\.json: card 1: ruling 1 of 'A': date '01/02/2020' is not an ISO 8601 date",
    ),
    # An ISO-shaped date no calendar has was kept undated: a second copy of a ruling held dated.
    "scryfall-date-no-day": (
        lambda d: _write(d, "feb30.json", json.dumps({"object": "list", "has_more": False, "data": [
            {**RULING, "published_at": "2020-02-30"}]}).encode()),
        [], r"feb30\.json: ruling 1: published_at '2020-02-30' is no day of the calendar: the file is damaged",
    ),
    "mtgjson-date-no-day": (
        lambda d: _write(d, "month13-mtgjson.json", json.dumps({"meta": MTGJSON_META, "data": {"cards": [
            {"setCode": "X", "name": "A", "rulings": [{"date": "2020-13-45", "text": "A ruling."}]}]}}).encode()),
        [], r"month13-mtgjson\.json: card 1: ruling 1 of 'A': date '2020-13-45' is no day of the calendar",
    ),
    "mtgjson-oracle-id-not-a-uuid": (
        lambda d: _write(d, "odd-id-mtgjson.json", json.dumps({"meta": MTGJSON_META, "data": {"cards": [
            {"setCode": "X", "name": "A", "identifiers": {"scryfallOracleId": "nope"}}]}}).encode()),
        [], r"odd-id-mtgjson\.json: card 1: identifiers\.scryfallOracleId of 'A' 'nope' is not a UUID",
    ),
    "scryfall-card-without-name": (
        lambda d: _write(d, "nameless.json", phelddagrif(name="")),
        [], r"nameless\.json: card 1 has no name \(''\)",
    ),
    # It was left out with every name of the printing, and the import said nothing.
    "scryfall-card-without-oracle-id": (
        lambda d: _write(d, "no-identity.json", phelddagrif(oracle_id=None)),
        [], r"no-identity\.json: card 1 \(Phelddagrif\) has no oracle_id, nor on its faces",
    ),
    "scryfall-card-faces-renamed": (
        lambda d: _write(d, "faceless.json", (lambda card: json.dumps({**{k: v for k, v in card.items() if k != "card_faces"},
                                                                       "faces": card["card_faces"]}).encode())(
            json.loads((ROOT / "tests/fixtures/scryfall/api-2025-11-01/card-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json").read_bytes()))),
        [], r"faceless\.json: card 1 \(Jace, Vryn's Prodigy // Jace, Telepath Unbound\) is a transform card without its card_faces",
    ),
    "scryfall-bulk-card-oracle-id-not-a-uuid": (
        lambda d: _write(d, "cards.jsonl", phelddagrif() + b"\n" + phelddagrif(oracle_id="D9631CB2") + b"\n"),
        ["--format", "scryfall-bulk-cards"], r"cards\.jsonl: card record 2 \(Phelddagrif\): oracle_id 'D9631CB2' is not a UUID",
    ),
    "unknown-source-id": (lambda d: RULINGS, ["--source", "no-such-source"], r"--source: unknown source id 'no-such-source'"),
    "unknown-format": (lambda d: RULINGS, ["--format", "nope"], r"--format: unknown format 'nope'"),
    "control-characters-in-name": (
        lambda d: _write(d, "bad\nname\x1b[31m.bin", os.urandom(100)),
        [], r"bad\\nname\\x1b\[31m\.bin: not a format",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_with_one_line_and_database_untouched(case: str, zygote: Zygote, served: Path, tmp_path: Path) -> None:
    make, extra, message = REFUSED[case]
    path = make(tmp_path)
    before = sha256(served)
    outcome = zygote.run(["import", "--db", served, *extra, path], cwd=tmp_path, timeout=60)
    assert_refused(outcome, message)
    assert sha256(served) == before
    assert not [p for p in tmp_path.iterdir() if ".building-" in p.name]


def test_a_json_file_saved_with_a_byte_order_mark_is_recognised(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    """Notepad and PowerShell save UTF-8 with a BOM; the parsers read it, but the file was "not a
    format mtgkb can read" unless --format named it (a review of real files)."""
    path = _write(tmp_path, "phelddagrif-bom.json", codecs.BOM_UTF8 + PHELDDAGRIF.read_bytes())
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert rows(served, "select format from documents where path = ?", (str(path),)) == [("scryfall-cards",)]


def test_a_legitimate_docx_over_one_mebibyte_is_recognised(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    members = docx_members()
    members["word/media/image99.png"] = os.urandom(3 << 19)  # 1.5 MB of image, stored as it is
    path = _write(tmp_path, "release-notes.docx", zip_with(members, stored=("word/media/image99.png",)))
    assert path.stat().st_size > 1 << 20
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert_bounded(outcome)
    assert rows(served, "select format from documents where path = ?", (str(path),)) == [("release-notes-docx",)]


def test_rulings_without_text_card_or_a_possible_date_are_dropped_or_flagged(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    data = [
        {**RULING, "comment": "   "},
        {"object": "ruling", "source": "wotc", "published_at": "2022-04-29", "comment": "A ruling about no card."},
        {**RULING, "published_at": "9999-12-31", "comment": "A ruling from the far future."},
        {**RULING, "comment": "A good ruling."},
    ]
    path = _write(tmp_path, "odd-rulings.json", json.dumps({"object": "list", "has_more": False, "data": data}).encode())
    outcome = zygote.run(["import", "--db", served, "--format", "scryfall-rulings", path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    kinds = {kind for (kind,) in rows(served, "select kind from quality_issues join documents on documents.id = document_id where path = ?", (str(path),))}
    # (The Scryfall parser itself skips a ruling without text; the checks catch any parser that does not.)
    assert {"ruling-without-card", "implausible-date"} <= kinds
    records = rows(served, "select text, published_at from ruling_records_as_printed join documents on documents.id = document_id where path = ? order by position", (str(path),))
    assert ("A ruling from the far future.", None) in records
    assert not [text for text, _date in records if not text.strip()]


def test_a_gatherer_page_whose_ruling_rows_changed_markup_says_so(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    page = GATHERER.read_bytes().replace(b"_rulingDate", b"_rulingDay")
    path = _write(tmp_path, "recall-redesigned.html", page)
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    issues = rows(served, "select kind, detail from quality_issues join documents on documents.id = document_id where path = ?", (str(path),))
    assert [kind for kind, _detail in issues] == ["layout-changed"], issues
    assert "no ruling row was recognised" in issues[0][1]


def test_an_import_that_changes_nothing_leaves_the_file_untouched(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    before = (sha256(served), served.stat().st_mtime_ns, served.stat().st_ino)
    outcome = zygote.run(["import", "--db", served, RULINGS], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert "nothing changed" in outcome.stdout
    assert (sha256(served), served.stat().st_mtime_ns, served.stat().st_ino) == before


def test_usage_errors_exit_1_not_the_partial_publish_code(zygote: Zygote, tmp_path: Path) -> None:
    for args in (["import", "--no-such-option"], ["no-such-command"], ["build", "--keep-going=3"]):
        outcome = zygote.run(args, cwd=tmp_path)
        assert_refused(outcome, r"(No such|does not take)")


def test_zlib_is_what_the_bad_crc_case_exercises() -> None:
    # The generated file really is a gzip whose CRC does not match (not merely garbage).
    data = gzip.compress(b"{}")
    bad = data[:-8] + bytes([data[-8] ^ 0xFF]) + data[-7:]
    with pytest.raises(zlib.error, match="incorrect data check"):
        zlib.decompress(bad, 16 + zlib.MAX_WBITS)


def test_the_ruling_checks_drop_a_ruling_without_text_whatever_the_parser() -> None:
    from kb.build.checks import RulingChecks
    from kb.records import RulingRecord

    checks = RulingChecks("x.json")
    kept = list(checks.filter([RulingRecord(text=" ", raw_date="2020-01-01", position=0, card_name="A"),
                               RulingRecord(text="Fine.", raw_date="2020-01-01", position=1, card_name="A",
                                            published_at="2020-01-01")]))
    assert [r.text for r in kept] == ["Fine."]
    assert [i.kind for i in checks.summary_issues()] == ["empty-ruling"]


def test_rulings_encoded_as_utf8_twice_are_read_as_meant_and_flagged(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    real = ROOT / "tests/fixtures/scryfall/api-2025-11-01/rulings-94eea6e3-okaun-eye-of-chaos-okaun-eye-of-chaos.json"
    texts = [ruling["comment"] for ruling in json.loads(real.read_bytes())["data"]]
    assert any("’" in text for text in texts)
    # The list's UTF-8 read as Latin-1 and written as UTF-8 again: valid UTF-8, every "’" now
    # "â\x80\x99" (through Windows-1252 it is "â€™", tests/normalise/test_mojibake.py).
    path = _write(tmp_path, "rulings-double-encoded.json", real.read_bytes().decode("latin-1").encode("utf-8"))
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    stored = rows(served, "select text from ruling_records_as_printed join documents on documents.id = document_id where path = ? order by position", (str(path),))
    assert [text for (text,) in stored] == texts
    issues = rows(served, "select detail from quality_issues join documents on documents.id = document_id where path = ? and kind = 'double-encoded'", (str(path),))
    flagged = [text for text in texts if not text.isascii()]
    assert len(issues) == len(flagged), issues
    assert any("characters were encoded as UTF-8 twice ('â\\x80\\x99' for '’')" in detail for (detail,) in issues), issues


def _double_encoded(data: bytes) -> bytes:
    """UTF-8 read as Windows reads Windows-1252 (its five undefined bytes as U+0081 and the like)
    and written as UTF-8 again. (Read as Latin-1 instead, a character whose UTF-8 holds byte 0x85
    becomes U+0085, a line break to the parsers' cleaning: such characters stay broken, and the
    document's issue says it holds characters encoded twice.)"""
    return data.decode("cp1252", errors="windows-undefined").encode("utf-8")


codecs.register_error("windows-undefined", lambda error: (chr(error.object[error.start]), error.start + 1))


@pytest.mark.parametrize("fixture, damage", [
    ("tests/fixtures/scryfall/api-2025-11-01/search-langany-594f6881-jace-vryn-s-prodigy-jace-telepath-unboun.json", _double_encoded),
    ("tests/fixtures/scryfall/bulk/all-cards-sample.jsonl.gz", lambda data: gzip.compress(_double_encoded(gzip.decompress(data)))),
    ("tests/fixtures/mtgjson/UGIN-v5.2-2022-04-25.json", _double_encoded),
], ids=["search-page", "all-cards-bulk", "mtgjson"])
def test_card_names_encoded_as_utf8_twice_are_read_as_meant_and_flagged(
    fixture: str, damage: Callable[[bytes], bytes], zygote: Zygote, seeded_db: Path, tmp_path: Path
) -> None:
    real = ROOT / fixture
    whole, damaged = tmp_path / "whole.db", tmp_path / "damaged.db"
    shutil.copy2(seeded_db, whole)
    shutil.copy2(seeded_db, damaged)
    path = _write(tmp_path, real.name, damage(real.read_bytes()))
    for db, source in ((whole, real), (damaged, path)):
        outcome = zygote.run(["import", "--db", db, source], cwd=tmp_path)
        assert outcome.code == 0, outcome.describe()
    # A character whose UTF-8 ends in byte 0xA0 ("할", "신", "à") ended in a no-break space, which
    # the parsers' cleaning made one with a space after it: "할 수" and "신동" then read alike, and
    # a space there may be lost. Every character is read as meant.
    names = "select lang, replace(name, ' ', '') from card_names order by lang, name"
    printed = "select id, lang, replace(printed_name, ' ', ''), replace(printed_type_line, ' ', ''), replace(printed_text, ' ', '') from printings order by id"
    assert [lang for lang, _name in rows(whole, names) if lang != "en"], "the fixture holds names in other languages"
    assert rows(damaged, names) == rows(whole, names)
    assert rows(damaged, printed) == rows(whole, printed)
    issues = rows(damaged, "select detail from quality_issues where kind = 'double-encoded' and detail like '%card names and texts%'")
    assert len(issues) == 1 and re.search(r"\d+ characters of card names and texts were encoded as UTF-8 twice", issues[0][0]), issues


def test_rulings_from_no_known_source_with_markup_or_lost_characters_and_odd_printings_are_flagged(
    zygote: Zygote, served: Path, tmp_path: Path
) -> None:
    rulings = _write(tmp_path, "odd-rulings.json", json.dumps({"object": "list", "has_more": False, "data": [
        {**RULING, "source": "judge-xyz", "comment": "A ruling from nobody we know."},
        {**RULING, "comment": "<p>A ruling with a <b>tag</b>.</p>"},
        {**RULING, "comment": "A ruling that says 2 < 3 and 4 > 1."},
        {**RULING, "comment": "A ruling whose converter lost a character: \ufffd."},
    ]}).encode())
    card = _write(tmp_path, "odd-card.json", phelddagrif(lang="xx", printed_name="Phelddagrif \ufffd"))
    for path in (rulings, card):
        outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
        assert outcome.code == 0, outcome.describe()
    issues = rows(served, "select kind, detail from quality_issues join documents on documents.id = document_id where path in (?, ?) order by kind",
                  (str(rulings), str(card)))
    assert [kind for kind, _detail in issues] == [
        "lost-characters", "lost-characters", "markup-in-text", "unknown-language", "unknown-source"], issues
    assert {detail.split(": ", 1)[1] for _kind, detail in issues[:2]} == {
        "ruling 4 holds 1 U+FFFD marks: characters its source could not read are lost",
        "1 printings hold U+FFFD marks in their names or texts (first: Phelddagrif (xx)): characters their source could not read are lost",
    }
    assert "ruling 2 holds markup ('<p>'); kept as printed" in issues[2][1]
    assert "1 printings are in a language Scryfall does not print in (first: Phelddagrif ('xx'))" in issues[3][1]
    assert "ruling 1 names its source 'judge-xyz'" in issues[4][1]
    kept = rows(served, "select source, text from ruling_records_as_printed join documents on documents.id = document_id where path = ? order by position", (str(rulings),))
    assert kept[0] == ("judge-xyz", "A ruling from nobody we know.") and kept[1][1] == "<p>A ruling with a <b>tag</b>.</p>"


def test_an_import_says_which_quality_issues_its_files_raised(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    path = _write(tmp_path, "odd.json", json.dumps({"object": "list", "has_more": False, "data": [
        {**RULING, "published_at": "2099-12-31"}, {**RULING, "source": "judge-xyz", "comment": "Another ruling."}]}).encode())
    outcome = zygote.run(["import", "--db", served, path], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert outcome.stdout.splitlines()[-1] == (
        "  quality issues of these files: implausible-date 1, unknown-source 1 (the quality_issues table says what each is)")
