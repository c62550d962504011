"""Pairing two CR editions years apart, checked against the chain of the real updates between them.

    python -m bench.cr_gap_pairing

The bundled snapshot's English editions are years apart in places (2014-09-25 → 2019-01-25,
2019-01-25 → 2022-02-18), and each lineage step between them is one pairing of the two
(``kb.link.cr_pairing.pairing_of``). We hold the real editions of every update in between: the CR
files of Venser's Journal (tests/fixtures/cr/venser/cr-txt) and 2021-06-09
(tests/fixtures/cr/en-raw-batch2). Paired one update at a time (the steps the pairing is checked
against the editors' own diffs for, tests/link/test_cr_pairing_venser.py) and composed, they give a
reference for the direct pairing of the two ends. For each gap: how many pairs each step of the
pairing made directly and how many of them the chain disagrees with (another new number, or removed
on the way), with the disagreements listed, and the rules the direct pairing calls removed that the
chain keeps. Prints the figures and writes them to bench/results/cr_gap_pairing.json.

The chain is no answer key of its own: each of its steps is the same code. It is the best reference
we hold for a gap, and where it and the direct pairing differ, at least one of them is wrong.
"""
from __future__ import annotations

import gzip
import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import kb.link.cr_pairing as cr_pairing
from kb.parse.cr import txt as cr_txt
from kb.records import CRDocument

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "cr_gap_pairing.json"
VENSER = ROOT / "tests" / "fixtures" / "cr" / "venser" / "cr-txt"
BATCH2 = ROOT / "tests" / "fixtures" / "cr" / "en-raw-batch2"
EN_RAW = ROOT / "tests" / "fixtures" / "cr" / "en-raw"
# Each gap of the snapshot's English editions we hold every update of, oldest first.
GAPS = {
    "2014-09-25 -> 2019-01-25": [
        VENSER / name for name in (
            "cr-2014-09-25-KTK.txt.gz", "cr-2015-01-23-FRF.txt.gz", "cr-2015-03-27-DTK.txt.gz", "cr-2015-07-17-ORI.txt.gz",
            "cr-2015-09-26-BFZ.txt.gz", "cr-2015-11-13-C15.txt.gz", "cr-2016-09-30-KLD.txt.gz", "cr-2016-11-11-C16.txt.gz",
            "cr-2017-08-25-C17.txt.gz", "cr-2017-09-29-XLN.txt.gz", "cr-2018-01-19-RIX.txt.gz", "cr-2018-04-27-DOM.txt.gz",
            "cr-2018-06-08-BBD.txt.gz", "cr-2018-10-05-GRN.txt.gz", "cr-2019-01-25-RNA.txt.gz",
        )
    ],
    "2019-01-25 -> 2022-02-18": [
        *(VENSER / name for name in (
            "cr-2019-01-25-RNA.txt.gz", "cr-2019-07-12-M20.txt.gz", "cr-2019-08-23-C19.txt.gz", "cr-2020-09-25-ZNR.txt.gz",
            "cr-2020-11-20-CMR.txt.gz",
        )),
        BATCH2 / "2021-06-09.txt",
        EN_RAW / "2022-02-18.txt",
    ],
}
# The steps of ``pairing_of``: every ``_pair_…`` function of the module, found there, so that a step
# added later is never counted as the one before it.
STEPS = tuple(sorted(name for name in vars(cr_pairing) if name.startswith("_pair_") and callable(getattr(cr_pairing, name))))


def read(path: Path) -> CRDocument:
    data = path.read_bytes()
    return cr_txt.parse(gzip.decompress(data) if path.suffix == ".gz" else data, str(path))


@contextmanager
def steps_recorded() -> Iterator[dict[tuple[int, str], str]]:
    """(id of the pairing, old number) → the step that paired it, while this is held."""
    made_by: dict[tuple[int, str], str] = {}
    current = {"step": ""}
    original_pair = cr_pairing.Pairing.pair
    originals = {name: getattr(cr_pairing, name) for name in STEPS}

    def recording(name: str, step: Callable[..., None]) -> Callable[..., None]:
        def run(pairing: cr_pairing.Pairing, *args: Any) -> None:
            current["step"] = f"{name}({args[0]})" if args else name
            step(pairing, *args)
        return run

    def pair(self: cr_pairing.Pairing, old_number: str, new_number: str) -> None:
        made_by[(id(self), old_number)] = current["step"]
        original_pair(self, old_number, new_number)

    cr_pairing.Pairing.pair = pair  # type: ignore[method-assign]
    for name, step in originals.items():
        setattr(cr_pairing, name, recording(name, step))
    try:
        yield made_by
    finally:
        cr_pairing.Pairing.pair = original_pair  # type: ignore[method-assign]
        for name, step in originals.items():
            setattr(cr_pairing, name, step)


def compare(files: list[Path]) -> dict[str, Any]:
    documents = [read(path) for path in files]
    chain = {rule.number: rule.number for rule in documents[0].rules}
    for old, new in pairwise(documents):
        step_map = cr_pairing.pair_rules(old, new)
        chain = {first: (step_map.get(number) if number is not None else None) for first, number in chain.items()}
    with steps_recorded() as made_by:
        direct = cr_pairing.pairing_of(documents[0], documents[-1])
    made: Counter[str] = Counter()
    disagreed: dict[str, list[tuple[str, str, str | None]]] = defaultdict(list)
    for old_number, new_number in direct.mapping().items():
        if new_number is None:
            continue
        step = made_by[(id(direct), old_number)]
        made[step] += 1
        if chain.get(old_number) != new_number:
            disagreed[step].append((old_number, new_number, chain.get(old_number)))
    kept_by_chain = sorted(
        (number, chain[number]) for number, new in direct.mapping().items() if new is None and chain.get(number) is not None
    )
    return {
        "editions": [path.name for path in files],
        "steps": {
            step: {"pairs": count, "chain_disagrees": len(disagreed[step]), "disagreements": disagreed[step]}
            for step, count in made.most_common()
        },
        "removed_directly_kept_by_chain": kept_by_chain,
    }


def main() -> None:
    started = time.monotonic()
    figures: dict[str, Any] = {"gaps": {name: compare(files) for name, files in GAPS.items()}}
    figures["seconds"] = round(time.monotonic() - started, 1)
    for name, gap in figures["gaps"].items():
        print(f"{name} ({len(gap['editions']) - 2} updates between):")
        for step, row in gap["steps"].items():
            shown = ", ".join(f"{old} -> {new} (chain: {kept or 'removed'})" for old, new, kept in row["disagreements"][:4])
            print(f"  {row['pairs']:5d} pairs, {row['chain_disagrees']:3d} disagree  {step}{'  e.g. ' + shown if shown else ''}")
        print(f"  removed directly, kept by the chain: {len(gap['removed_directly_kept_by_chain'])}")
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
