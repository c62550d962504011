"""Run every benchmark; each prints its figures and writes them to bench/results/."""
from __future__ import annotations

import subprocess
import sys

WORKDIR = "/tmp/mtgkb-full-scale"
BENCHMARKS = [
    ["bench.bulk_import", "--megabytes", "200"],
    ["bench.bulk_import", "--megabytes", "50", "--jsonl-gz"],
    ["bench.refresh_scenarios"],
    ["bench.cr_parse"],
    # The snapshot's CR history with the compiled SequenceMatcher beside difflib's.
    ["bench.cr_history"],
    # Two English versions that are not consecutive: along rule lineages, beside a fresh pairing.
    ["bench.cr_diff_pairs"],
    # Two editions years apart paired directly, beside the chain of the real updates between them.
    ["bench.cr_gap_pairing"],
    # Every edition of the CR archive a default refresh fetches (generated between the 13 real ones).
    ["bench.cr_archive"],
    # Real Scryfall printings (~4.8 KB each, the fixtures' 229 repeated): reading and digesting them.
    ["bench.real_printings"],
    # Every page of the bundled snapshot opened and every link on it followed (a long proof).
    ["bench.site_links"],
    ["bench.load_site", "--compare"],
    # Visitors who read a page before the next one (a second apart): the site's figures under
    # load; the run above keeps every client's next request in flight (a saturation test).
    ["bench.load_site", "--think-ms", "1000", "--seconds", "8"],
    # The whole knowledge base at real size (1M rulings, 500k printings): the longest by far;
    # kept in WORKDIR for the site's search and pages measured on it next.
    ["bench.full_scale", "--scale", "1", "--workdir", WORKDIR],
    # How near a fresh import could come to the raw baseline: the contract's ruling tables alone.
    ["bench.import_floor", "--scale", "1", "--repeat", "1"],
    ["bench.search_scale", "--db", f"{WORKDIR}/kb.db"],
    # The same with one server process per core.
    ["bench.search_scale", "--db", f"{WORKDIR}/kb.db", "--workers", "2"],
    ["bench.search_prefix", "--db", f"{WORKDIR}/kb.db"],
    # The periodic job at real size: the first refresh, one with new prices only, one with a change.
    ["bench.refresh_scale", "--scale", "1", "--workdir", "/tmp/mtgkb-refresh-scale"],
]


def main() -> None:
    # The test suite's long proofs first (`make proofs`: a whole real archive, every case of a
    # property): they are proofs, not timings, and a failing one stops the run.
    print("== long proofs (pytest -m long_proof)", flush=True)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadscope", "-m", "long_proof"], check=True)
    for module, *args in BENCHMARKS:
        print(f"== {module} {' '.join(args)}", flush=True)
        subprocess.run([sys.executable, "-m", module, *args], check=True)


if __name__ == "__main__":
    main()
