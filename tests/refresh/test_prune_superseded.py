"""A clean refresh removes the raw bodies of bulk snapshots a newer file replaced
(``kb.refresh.inputs.prune_superseded``); a body missing for any other reason is still an error."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.refresh.inputs import prune_superseded, select_inputs
from scraper.rawstore import RawStore

DATA = Path(__file__).parent.parent / "fixtures" / "site" / "scryfall-data" / "constructed"
OLD = "https://data.scryfall.io/rulings/rulings-20230404210031.json"
NEW = "https://data.scryfall.io/rulings/rulings-20260728210037.jsonl.gz"
CR = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2019-01-25.txt"
CR_URL = "https://media.wizards.com/2019/downloads/MagicCompRules.txt"


def stored(tmp_path: Path) -> RawStore:
    store = RawStore(tmp_path / "raw")
    store.import_file(CR, CR_URL, source="wizards-cr")
    store.import_file(DATA / "rulings-20230404210031.json", OLD, source="scryfall")
    store.import_file(DATA / "rulings-20260728210037.jsonl.gz", NEW, source="scryfall")
    return store


def test_the_replaced_bulk_body_goes_and_the_inputs_stay(tmp_path: Path) -> None:
    with stored(tmp_path) as store:
        inputs, left_out = select_inputs(store)
        assert [doc.url for doc in inputs] == [CR_URL, NEW] and left_out == [OLD]
        old_sha = store.latest_good(OLD).sha256  # type: ignore[union-attr]

        assert prune_superseded(store, inputs) == [old_sha]

        assert not store.path_for(old_sha).exists() and store.body_removed(old_sha)
        assert all(store.path_for(doc.sha256).exists() for doc in inputs)
        # Chosen as before, the removed body's URL still listed as superseded; nothing more to remove.
        assert select_inputs(store) == (inputs, [OLD])
        assert prune_superseded(store, inputs) == []


def test_a_body_lost_without_being_removed_is_not_skipped_quietly(tmp_path: Path) -> None:
    with stored(tmp_path) as store:
        store.path_for(store.latest_good(NEW).sha256).unlink()  # type: ignore[union-attr]
        with pytest.raises(FileNotFoundError):
            select_inputs(store)


def test_a_bulk_file_under_one_name_keeps_its_body_before_the_current_one(tmp_path: Path) -> None:
    fixed = "https://mirror.example/scryfall/rulings.json"
    edited = tmp_path / "rulings-edited.json"
    edited.write_bytes((DATA / "rulings-20230404210031.json").read_bytes().replace(b"You can", b"You may", 1))
    with RawStore(tmp_path / "raw") as store:
        bodies = [store.import_file(path, fixed, source="scryfall").sha256 for path in (
            DATA / "rulings-20230404210031.json", DATA / "rulings-20260728210037.jsonl.gz", edited)]
        inputs, _ = select_inputs(store)
        assert [doc.sha256 for doc in inputs] == [bodies[2]]

        # The oldest goes; the one before the current stays for the fall-back.
        assert prune_superseded(store, inputs) == [bodies[0]]
        assert [store.path_for(sha).exists() for sha in bodies] == [False, True, True]
        assert select_inputs(store)[0] == inputs
