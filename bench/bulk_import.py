"""Import a generated Scryfall-shaped rulings bulk file and measure time and peak memory.

The file is generated, not real: Scryfall's full rulings bulk file is not stored anywhere we
can reach offline. Its shape follows the real bulk records (object, oracle_id, source,
published_at, comment), about ten rulings per card like the real file, in either the legacy JSON
array or the current gzipped JSON Lines form.

    python -m bench.bulk_import --megabytes 200 [--jsonl-gz]

prints the figures and writes them to bench/results/bulk_import.json.
"""
from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
WORDS = (
    "creature spell ability target player controls counter battlefield graveyard library "
    "permanent token mana cost damage combat attacking blocking turn step phase trigger "
    "resolves copy exile return hand owner opponent choose color colorless artifact "
    "enchantment land instant sorcery planeswalker loyalty tapped untapped"
).split()


def ruling_objects(target_bytes: int):
    """Deterministic ruling objects until about ``target_bytes`` of JSON have been produced."""
    produced = 0
    index = 0
    while produced < target_bytes:
        card = index // 10
        oracle_id = str(uuid.UUID(int=card * 7919 + 1))
        words = [WORDS[(index * 31 + k * 17 + card) % len(WORDS)] for k in range(28)]
        comment = f"Ruling {index} of card {card}: if a " + " ".join(words) + ", it still works."
        obj = {
            "object": "ruling",
            "oracle_id": oracle_id,
            "source": "wotc" if index % 13 else "scryfall",
            "published_at": f"20{10 + card % 16:02d}-{1 + index % 12:02d}-{1 + index % 28:02d}",
            "comment": comment,
        }
        line = json.dumps(obj, ensure_ascii=False)
        produced += len(line) + 2
        index += 1
        yield line


def write_bulk_file(path: Path, megabytes: int, jsonl_gz: bool) -> int:
    count = 0
    target = megabytes * 1_000_000
    if jsonl_gz:
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as handle:
            for line in ruling_objects(target):
                handle.write(line + "\n")
                count += 1
    else:
        with path.open("w", encoding="utf-8") as handle:
            handle.write("[")
            for number, line in enumerate(ruling_objects(target)):
                handle.write((",\n" if number else "\n") + line)
                count += 1
            handle.write("\n]\n")
    return count


# VmHWM, not getrusage's ru_maxrss: Linux carries the forking parent's high-water mark into
# ru_maxrss across exec, so a child of a large process (a test run) would report the parent.
MEASURED_IMPORT = """
import sys
from kb.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    print("peak_rss_kib", peak, file=sys.stderr)
"""


def measure_import(bulk: Path, db_path: Path) -> dict:
    """Run ``mtgkb import`` in a fresh interpreter that reports its own peak resident memory."""
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, "-c", MEASURED_IMPORT, "import", "--db", str(db_path), "--source", "scryfall", str(bulk)],
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    if completed.returncode != 0:
        raise RuntimeError(f"import failed: {completed.stderr.strip()}")
    peak_kib = int(completed.stderr.rsplit("peak_rss_kib", 1)[1].split()[0])
    return {
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(peak_kib / 1024, 1),
        "output": completed.stdout.strip(),
    }


def run(megabytes: int, jsonl_gz: bool, workdir: Path) -> dict:
    bulk = workdir / ("rulings.jsonl.gz" if jsonl_gz else "rulings.json")
    started = time.monotonic()
    count = write_bulk_file(bulk, megabytes, jsonl_gz)
    generated = time.monotonic() - started
    figures = measure_import(bulk, workdir / "kb.db")
    figures.update(
        {
            "file": bulk.name,
            "file_mb": round(bulk.stat().st_size / 1_000_000, 1),
            "rulings_in_file": count,
            "generate_seconds": round(generated, 1),
            "rulings_per_second": round(count / figures["seconds"]),
        }
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--jsonl-gz", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = run(args.megabytes, args.jsonl_gz, Path(tmp))
    RESULTS.mkdir(exist_ok=True)
    name = "bulk_import_jsonl_gz.json" if args.jsonl_gz else "bulk_import.json"
    (RESULTS / name).write_text(json.dumps(figures, indent=2) + "\n")
    for key, value in figures.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
