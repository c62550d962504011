"""Parse every English CR file we bundle, beside a bare regex line scan of the same bytes.

The baseline is the floor any CR parser has: decode, split lines, match rule numbers. Both run
in the same process, interleaved, so the ratio holds on a loaded machine where seconds do not.

    python -m bench.cr_parse

prints the figures and writes them to bench/results/cr_parse.json.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from kb.normalise.refs import _english_cr_refs
from kb.parse.cr import txt as cr_txt

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "tests" / "fixtures" / "cr").glob("en-raw*/*.txt"), key=lambda path: path.name)
RESULTS = ROOT / "bench" / "results" / "cr_parse.json"
RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.? ", re.M)
REPEATS = 5


def regex_scan(data: bytes) -> int:
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return len(RULE_LINE.findall(text))


def best_of(action: Callable[[], object]) -> float:
    timings = []
    for _ in range(REPEATS):
        # Each parse reads its file cold: the references found in the texts of one edition are
        # kept for the next (kb.normalise.refs.english_cr_refs), and a repeat would find them all.
        _english_cr_refs.cache_clear()
        start = time.perf_counter()
        action()
        timings.append(time.perf_counter() - start)
    return min(timings)


def main() -> None:
    rows = []
    for path in FILES:
        data = path.read_bytes()
        cr_txt.parse(data, path.name)
        parse_s = best_of(lambda data=data, name=path.name: cr_txt.parse(data, name))
        scan_s = best_of(lambda data=data: regex_scan(data))
        rows.append({"file": path.name, "parse_ms": round(parse_s * 1000, 1),
                     "regex_scan_ms": round(scan_s * 1000, 1), "ratio": round(parse_s / scan_s, 1)})
        print(f"{path.name:24} parse {parse_s * 1000:7.1f} ms   regex scan {scan_s * 1000:6.1f} ms   × {parse_s / scan_s:5.1f}")
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
