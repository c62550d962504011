"""The raw store on real fixture files: verification, content addressing, manifest, runs."""
from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from scraper.rawstore import RawStore
from scraper.verify import (
    VerifyError,
    decode_text,
    sha256_verifier,
    text_verifier,
    verify_gzip,
    verify_json,
    verify_json_or_jsonl_gz,
)

SITE = Path(__file__).parent.parent / "fixtures" / "site"
CR_0218 = SITE / "wizards-media" / "MagicCompRules-2022-02-18.txt"
CR_0218_SHA = "bdbea16a244c0705b5a3456e8433115af059845336e60e5788d06a5dad216ab4"
CR_0429 = SITE / "spare" / "MagicCompRules-2022-04-29.txt"
CR_0429_SHA = "602a62e817a609706a6b11e4fd263cad46ab6dda7a46affb7d3ba827cebc13bb"
RULINGS_JSON = SITE / "scryfall-data" / "constructed" / "rulings-20230404210031.json"
RULINGS_JSONL_GZ = SITE / "scryfall-data" / "constructed" / "rulings-20260728210037.jsonl.gz"
CR_URL = "https://media.wizards.com/2024/downloads/MagicCompRules%2020240607.txt"


@pytest.fixture
def store(tmp_path: Path) -> RawStore:
    return RawStore(tmp_path / "raw")


def staged(store: RawStore, source: Path, keep: int | None = None) -> Path:
    """A copy of ``source`` in the store's tmp folder, optionally cut to ``keep`` bytes."""
    tmp = store.temp_path()
    data = source.read_bytes()
    tmp.write_bytes(data if keep is None else data[:keep])
    return tmp


def test_commit_stores_content_addressed_object_and_manifest_row(store: RawStore) -> None:
    entry = store.commit(
        staged(store, CR_0218), url=CR_URL, source="wizards-cr", lang="en",
        etag='"abc"', last_modified="Tue, 20 Jan 2026 16:40:12 GMT",
        content_type="text/plain", content_length=815801, verify=text_verifier("100.1"),
    )
    assert (entry.status, entry.sha256, entry.size, entry.http_status) == ("fetched", CR_0218_SHA, 815801, 200)
    assert (entry.etag, entry.last_modified, entry.content_type, entry.error) == (
        '"abc"', "Tue, 20 Jan 2026 16:40:12 GMT", "text/plain", None)
    path = store.path_for(CR_0218_SHA)
    assert path == store.root / "objects" / "bd" / CR_0218_SHA
    assert path.read_bytes() == CR_0218.read_bytes()
    assert list((store.root / "tmp").iterdir()) == []
    assert store.validators_for(CR_URL).etag == '"abc"'
    assert [e.url for e in store.latest_documents("wizards-cr")] == [CR_URL]
    assert store.latest_documents("scryfall") == []


def test_truncated_body_is_rejected_and_earlier_good_entry_stays(store: RawStore) -> None:
    good = store.commit(staged(store, CR_0218), url=CR_URL, source="wizards-cr",
                        content_length=815801, verify=text_verifier("100.1"))
    with pytest.raises(VerifyError, match="truncated: got 400000 bytes of 823137 announced"):
        store.commit(staged(store, CR_0429, keep=400000), url=CR_URL, source="wizards-cr",
                     content_length=823137, verify=text_verifier("100.1"))
    history = store.history(CR_URL)
    assert [e.status for e in history] == ["fetched", "failed"]
    assert history[1].error == "truncated: got 400000 bytes of 823137 announced"
    assert store.latest_good(CR_URL) == good
    assert [e.sha256 for e in store.latest_documents()] == [CR_0218_SHA]
    # The rejected body is kept aside for diagnosis, never among the objects.
    assert len(list((store.root / "rejected").iterdir())) == 1
    assert sorted(p.name for p in (store.root / "objects").rglob("*") if p.is_file()) == [CR_0218_SHA]


def test_new_version_becomes_latest_and_old_object_is_kept(store: RawStore) -> None:
    store.commit(staged(store, CR_0218), url=CR_URL, source="wizards-cr")
    newer = store.commit(staged(store, CR_0429), url=CR_URL, source="wizards-cr")
    assert [e.sha256 for e in store.latest_documents()] == [CR_0429_SHA]
    assert store.latest_good(CR_URL) == newer
    assert store.path_for(CR_0218_SHA).exists() and store.path_for(CR_0429_SHA).exists()


def test_not_modified_row_carries_the_good_body(store: RawStore) -> None:
    store.commit(staged(store, CR_0218), url=CR_URL, source="wizards-cr", etag='"v1"')
    row = store.record_not_modified(CR_URL, source="wizards-cr", lang="en")
    assert (row.status, row.http_status, row.sha256, row.size, row.etag) == (
        "not-modified", 304, CR_0218_SHA, 815801, '"v1"')
    assert store.latest_documents() == [row]


def test_failure_without_any_good_body_gives_no_document(store: RawStore) -> None:
    store.record_failure(CR_URL, source="wizards-cr", error="HTTP 503 (gave up after 5 attempts)",
                         http_status=503)
    assert store.latest_documents() == []
    assert store.validators_for(CR_URL).etag is None


def test_validators_forgotten_when_object_file_is_missing(store: RawStore) -> None:
    store.commit(staged(store, CR_0218), url=CR_URL, source="wizards-cr", etag='"v1"',
                 last_modified="Tue, 20 Jan 2026 16:40:12 GMT")
    store.path_for(CR_0218_SHA).unlink()
    # Without the body a 304 would leave us with nothing: ask unconditionally.
    validators = store.validators_for(CR_URL)
    assert (validators.etag, validators.last_modified) == (None, None)


def test_verifiers_on_real_files(tmp_path: Path) -> None:
    verify_json(RULINGS_JSON)
    verify_gzip(RULINGS_JSONL_GZ)
    verify_json_or_jsonl_gz(RULINGS_JSON)
    verify_json_or_jsonl_gz(RULINGS_JSONL_GZ)
    cut_json = tmp_path / "cut.json"
    cut_json.write_bytes(RULINGS_JSON.read_bytes()[:5000])
    with pytest.raises(VerifyError, match="not valid JSON"):
        verify_json(cut_json)
    cut_gz = tmp_path / "cut.jsonl.gz"
    cut_gz.write_bytes(RULINGS_JSONL_GZ.read_bytes()[:2000])
    with pytest.raises(VerifyError, match="gzip stream damaged"):
        verify_json_or_jsonl_gz(cut_gz)
    with pytest.raises(VerifyError, match="expected marker not found"):
        text_verifier("100.1")(SITE / "gatherer" / "vaultskirge.html")
    with pytest.raises(VerifyError, match="does not match the published"):
        sha256_verifier("0" * 64)(CR_0218)
    sha256_verifier(CR_0218_SHA)(CR_0218)
    # The real CR file starts with a byte-order mark: cut inside a character, it is not valid
    # UTF-8 to the end (the fetcher crashed on it, naming the rules page).
    data = CR_0218.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    inside = next(index for index in range(400_000, len(data)) if data[index] >= 0xC0) + 1
    cut_cr = tmp_path / "cut.txt"
    cut_cr.write_bytes(data[:inside])
    with pytest.raises(VerifyError, match=f"not valid utf-8 text at byte {inside - 1} of {inside}"):
        text_verifier("100.1")(cut_cr)


def test_decode_text_handles_utf16_and_bom() -> None:
    text = CR_0218.read_bytes()
    assert decode_text(text).startswith("Magic: The Gathering Comprehensive Rules")
    utf16 = "\ufeff100.1. These Magic rules".encode("utf-16-be")
    assert decode_text(utf16) == "100.1. These Magic rules"


def test_import_file_records_file_uri(store: RawStore) -> None:
    entry = store.import_file(CR_0218, source="wizards-cr", lang="en")
    assert entry.url == CR_0218.resolve().as_uri()
    assert (entry.status, entry.sha256, entry.http_status) == ("fetched", CR_0218_SHA, None)
    again = store.import_file(CR_0218, url="snapshot:cr/2022-02-18.txt", source="wizards-cr")
    assert again.sha256 == CR_0218_SHA
    assert len(store.latest_documents()) == 2
    assert sorted(p.name for p in (store.root / "objects").rglob("*") if p.is_file()) == [CR_0218_SHA]


def test_runs_and_state_round_trip(store: RawStore) -> None:
    run_id = store.start_run()
    store.finish_run(run_id, "partial", {"scryfall": {"fetched": 2, "failed": 1}})
    (run,) = store.runs()
    assert (run["id"], run["status"], run["details"]) == (run_id, "partial", {"scryfall": {"fetched": 2, "failed": 1}})
    assert run["finished_at"] is not None
    store.set_state("scryfall:bulk:rulings", {"updated_at": "2023-04-04T21:00:31.996000Z"})
    store.set_state("scryfall:bulk:rulings", {"updated_at": "2026-07-28T21:00:37.000+00:00"})
    assert store.get_state("scryfall:bulk:rulings") == {"updated_at": "2026-07-28T21:00:37.000+00:00"}
    assert store.get_state("nothing") is None


def test_store_reopens_with_its_manifest(tmp_path: Path) -> None:
    root = tmp_path / "raw"
    with RawStore(root) as store:
        store.commit(staged(store, CR_0218), url=CR_URL, source="wizards-cr")
    with RawStore(root) as reopened:
        assert [e.sha256 for e in reopened.latest_documents()] == [CR_0218_SHA]


def test_gzip_checker_reads_whole_stream(tmp_path: Path) -> None:
    # A gzip whose CRC is wrong decompresses fine until the very end: it must still fail.
    data = bytearray(gzip.compress(b"{}\n" * 1000, mtime=0))
    data[-8] ^= 0xFF
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(bytes(data))
    with pytest.raises(VerifyError, match="gzip stream damaged"):
        verify_gzip(bad)
    shutil.copyfile(RULINGS_JSONL_GZ, tmp_path / "good.gz")
    verify_gzip(tmp_path / "good.gz")


def test_a_manifest_that_is_no_database_is_named_with_what_to_do(tmp_path: Path) -> None:
    """"database error: file is not a database" named neither of the operator's two SQLite files,
    and the docs' advice for a damaged database was for the knowledge base (an operator's review)."""
    from click.testing import CliRunner

    from kb.cli import cli
    from scraper.rawstore import RawStoreError

    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "manifest.db").write_bytes(bytes(range(256)) * 16)
    with pytest.raises(RawStoreError, match=r"raw/manifest.db: the raw store's manifest cannot be read \(file is not a database\)"):
        RawStore(tmp_path / "raw")
    result = CliRunner().invoke(cli, ["runs", "--raw", str(tmp_path / "raw")])
    assert result.exit_code == 1 and "manifest.db: the raw store's manifest cannot be read" in result.output
    assert "restore it from a backup" in result.output
