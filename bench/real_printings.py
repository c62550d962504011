"""Reading real-shaped Scryfall printings and MTGJSON cards: what the parsers and the kept-content digest cost.

The full-scale corpus (``bench.corpus``) generates printings of ~0.6 KB; Scryfall's real all_cards
objects are ~4.8 KB each (prices, image URIs, legalities, related parts, faces), so the work per
byte that is not per record (decompressing, the JSON bounds, parsing) weighs far more in a real
file. This reads the 229 real card objects among the test fixtures (every language; see
tests/fixtures/site/README.md), each repeated with its own id, as gzipped JSON Lines:

- baseline: decompress and ``orjson.loads`` each line, nothing else (what any reader pays);
- ``iter_bulk_card_names``: the bounded stream and the parser the build reads all_cards with;
- ``kept_digest``: what a refresh reads a new card file for before deciding whether to rebuild.

And MTGJSON's AllPrintings (a new body every day), in its shape: the real UGIN set file's 26 cards
(tests/fixtures/mtgjson) under ``--sets`` set codes, gzipped, beside ijson's events alone (the
least any streaming reader pays) and the same two readers.

    python -m bench.real_printings [--printings 100000] [--sets 1000]

Each side by side in one run (best of ``--rounds``, CPU seconds), written to
bench/results/real_printings.json.
"""
from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
REAL_PRINTINGS = ROOT / "tests" / "fixtures" / "site" / "scryfall-data" / "constructed" / "all-cards-20230404212042.json"
REAL_SET = ROOT / "tests" / "fixtures" / "mtgjson" / "UGIN-v5.2-2022-04-25.json"


def write_printings(path: Path, count: int) -> None:
    """``count`` printings: the real objects in turn, each copy with an id of its own."""
    objects = json.loads(REAL_PRINTINGS.read_text(encoding="utf-8"))
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as handle:
        for index in range(count):
            printing = dict(objects[index % len(objects)], id=str(uuid.UUID(int=index)))
            handle.write(json.dumps(printing, ensure_ascii=False) + "\n")


def write_all_printings(path: Path, sets: int) -> int:
    """AllPrintings' shape, ``{"meta", "data": {CODE: set}}``, the real set under ``sets`` codes; its card count."""
    document = json.loads(REAL_SET.read_text(encoding="utf-8"))
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as handle:
        handle.write('{"meta": ' + json.dumps(document["meta"], ensure_ascii=False) + ', "data": {')
        for index in range(sets):
            handle.write(("," if index else "") + json.dumps(f"S{index:04d}") + ": " + json.dumps(document["data"], ensure_ascii=False))
        handle.write("}}")
    return sets * len(document["data"]["cards"])


def mtgjson_events(path: Path) -> int:
    import ijson

    with gzip.open(path, "rb") as handle:
        for _event in ijson.basic_parse(handle, use_float=True):
            pass
    return 0


def mtgjson_parsed(path: Path) -> int:
    from kb.parse.bounds import bounded_json_stream
    from kb.parse.rulings.mtgjson import iter_cards

    with open(path, "rb") as raw:  # bounded as the build reads it (kb.build.load)
        return sum(1 for _entry in iter_cards(bounded_json_stream(raw, str(path)), str(path)))


def mtgjson_digested(path: Path) -> int:
    from kb.build.kept_content import kept_digest

    kept_digest(str(path), "mtgjson")
    return 0


def baseline(path: Path) -> int:
    count = 0
    with gzip.open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            count += 1
    return count


def parsed(path: Path) -> int:
    from kb.parse.bounds import bounded_json_stream
    from kb.parse.rulings.scryfall import iter_bulk_card_names

    count = 0
    with open(path, "rb") as raw:
        for _card in iter_bulk_card_names(bounded_json_stream(raw, str(path), lines_if_object=True), str(path)):
            count += 1
    return count


def digested(path: Path) -> int:
    from kb.build.kept_content import kept_digest

    kept_digest(str(path), "scryfall-bulk-cards")
    return 0


def cpu_seconds(read: Callable[[Path], int], path: Path) -> float:
    started = time.process_time()
    read(path)
    return time.process_time() - started


def measure(path: Path, readers: dict[str, Callable[[Path], int]], rounds: int, records: int) -> dict:
    """Each reader's best round (CPU seconds, interleaved: the machine's noise falls on every
    reader alike) per record, and as a ratio to the first."""
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _round in range(rounds):
        for name, read in readers.items():
            times[name].append(cpu_seconds(read, path))
    best = {name: min(values) for name, values in times.items()}
    base = next(iter(best.values()))
    return {
        "us per record (best round, CPU)": {name: round(value / records * 1e6, 1) for name, value in best.items()},
        "ratio to baseline": {name: round(value / base, 2) for name, value in best.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--printings", type=int, default=100_000)
    parser.add_argument("--sets", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mtgkb-real-printings-") as work:
        path = Path(work) / "all_cards.jsonl.gz"
        write_printings(path, args.printings)
        scryfall = measure(path, {"baseline (gunzip + orjson per line)": baseline, "parse (bounds + parser)": parsed,
                                  "kept-content digest": digested}, args.rounds, args.printings)
        scryfall_size = path.stat().st_size
        path.unlink()
        path = Path(work) / "AllPrintings.json.gz"
        cards = write_all_printings(path, args.sets)
        mtgjson = measure(path, {"baseline (gunzip + ijson events)": mtgjson_events, "parse (bounds + iter_cards)": mtgjson_parsed,
                                 "kept-content digest": mtgjson_digested}, args.rounds, cards)
        mtgjson_size = path.stat().st_size
    figures = {
        "rounds": args.rounds,
        "scryfall all_cards": {"printings": args.printings, "gzipped MB": round(scryfall_size / 1e6, 1), **scryfall},
        "mtgjson AllPrintings": {"cards": cards, "gzipped MB": round(mtgjson_size / 1e6, 1), **mtgjson},
    }
    print(json.dumps(figures, indent=1))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "real_printings.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
