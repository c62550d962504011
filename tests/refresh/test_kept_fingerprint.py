"""The refresh's fingerprint by kept content (``kb.refresh.fingerprints.kept_fingerprint``): bulk bodies by
the digest of their records, read once each; every other document by its bytes."""
from __future__ import annotations

import json
from pathlib import Path

from kb.build.kept_content import kept_digest
from kb.refresh.fingerprints import kept_fingerprint
from kb.refresh.inputs import document_input
from scraper.rawstore import RawStore

SITE = Path(__file__).parent.parent / "fixtures" / "site"
ALL_CARDS = SITE / "scryfall-data" / "constructed" / "all-cards-20230404212042.json"
CR = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2019-01-25.txt"


def test_bulk_bodies_count_by_their_records_and_are_read_once(tmp_path: Path) -> None:
    with RawStore(tmp_path / "raw") as store:
        cards = store.import_file(ALL_CARDS, "https://data.scryfall.io/all-cards/all-cards-20230404212042.json",
                                  source="scryfall")
        cr = store.import_file(CR, "https://media.wizards.com/2019/downloads/MagicCompRules.txt", source="wizards-cr")
        inputs = [document_input(store, cards, "scryfall-bulk-cards"), document_input(store, cr, "cr-txt")]
        digest = kept_digest(str(ALL_CARDS), "scryfall-bulk-cards")
        expected = sorted([[digest, "scryfall-bulk-cards", ""], [cr.sha256, "cr-txt", ""]])
        assert kept_fingerprint(store, inputs) == expected
        # Kept beside the body: a second refresh does not read the body again (here it is gone).
        assert store.get_state(f"kept-digest:{cards.sha256}") == {"format": "scryfall-bulk-cards", "digest": digest, "scheme": 2}
        store.path_for(cards.sha256).write_bytes(b"")
        assert kept_fingerprint(store, inputs) == expected


def test_a_body_the_parser_refuses_counts_by_its_bytes(tmp_path: Path) -> None:
    cut = tmp_path / "all-cards-20230405212042.json"
    cut.write_bytes(json.dumps(json.loads(ALL_CARDS.read_bytes())).encode("utf-8")[:4000])
    with RawStore(tmp_path / "raw") as store:
        entry = store.import_file(cut, "https://data.scryfall.io/all-cards/all-cards-20230405212042.json", source="scryfall")
        inputs = [document_input(store, entry, "scryfall-bulk-cards")]
        assert kept_fingerprint(store, inputs) == [[entry.sha256, "scryfall-bulk-cards", ""]]


def test_a_digest_kept_by_code_that_took_it_another_way_is_taken_again(tmp_path: Path) -> None:
    """Digests kept before ``kb.build.kept_content.SCHEME`` (records by their repr) are not compared
    with today's: the body is read again, once."""
    with RawStore(tmp_path / "raw") as store:
        cards = store.import_file(ALL_CARDS, "https://data.scryfall.io/all-cards/all-cards-20230404212042.json",
                                  source="scryfall")
        store.set_state(f"kept-digest:{cards.sha256}", {"format": "scryfall-bulk-cards", "digest": "kept:" + "0" * 64})
        inputs = [document_input(store, cards, "scryfall-bulk-cards")]
        digest = kept_digest(str(ALL_CARDS), "scryfall-bulk-cards")
        assert kept_fingerprint(store, inputs) == [[digest, "scryfall-bulk-cards", ""]]
        assert store.get_state(f"kept-digest:{cards.sha256}") == {"format": "scryfall-bulk-cards", "digest": digest, "scheme": 2}
