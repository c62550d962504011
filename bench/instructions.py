"""A fresh rulings import counted in instructions, this tree beside another revision: an A/B that noise cannot move.

    .venv/bin/python -m bench.instructions --against 5dcd09c [--rulings 10000]

On a shared machine the same import's time moves by a fifth between runs minutes apart, so a
change worth a few per cent cannot be timed. ``valgrind --tool=callgrind`` counts the instructions
a process executes (Python's and SQLite's alike), the same for the same input however busy the
machine is. Both trees import the same generated rulings files (``bench.corpus``: N and 2N
rulings) into new databases, with ``PYTHONHASHSEED=0`` (a set's order can change which pages
SQLite writes); the difference between the two sizes is what N more rulings cost, start-up and
every fixed cost left out: instructions per ruling. The databases' ``content_digest`` must agree
between the trees. Needs valgrind; ~4 minutes at the default 5k / 10k rulings.
Figures go to bench/results/instructions.json.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.corpus import write_corpus

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "instructions.json"
COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
IMPORT = "from kb.cli import cli; cli()"


def count_instructions(tree: Path, *python_args: str) -> int:
    """Instructions executed by ``python *python_args`` with ``tree`` first on the path."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *python_args],
        cwd=tree, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"},
    )
    found = COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{' '.join(python_args)} in {tree} failed: {done.stderr.strip()[-2000:]}")
    return int(found.group(1))


def content_digest_of(tree: Path, db: Path) -> str:
    script = "import sys, sqlite_utils; from kb.build.publish import content_digest;" \
             " print(content_digest(sqlite_utils.Database(sys.argv[1])))"
    done = subprocess.run([sys.executable, "-c", script, str(db)], cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)}, check=True)
    return done.stdout.strip()


def measure(tree: Path, files: dict[int, Path], work: Path) -> dict:
    """Instructions of a fresh import of each file, and what each ruling of the larger adds."""
    counts, digests = {}, {}
    for rulings, rulings_file in files.items():
        db = work / f"{tree.name}-{rulings}.db"
        db.unlink(missing_ok=True)
        counts[rulings] = count_instructions(
            tree, "-c", IMPORT, "import", "--db", str(db), "--source", "scryfall", str(rulings_file))
        digests[rulings] = content_digest_of(tree, db)
    small, large = sorted(files)
    return {
        "instructions": {str(rulings): count for rulings, count in counts.items()},
        "instructions_per_ruling": round((counts[large] - counts[small]) / (large - small)),
        "content_digests": {str(rulings): digest for rulings, digest in digests.items()},
    }


def revision_tree(revision: str, parent: Path) -> Path:
    """A detached worktree of ``revision`` (removed again by the caller)."""
    tree = parent / f"tree-{revision}"
    subprocess.run(["git", "worktree", "add", "--force", "--detach", str(tree), revision], cwd=ROOT, check=True,
                   capture_output=True)
    return tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the git revision to compare this tree with")
    parser.add_argument("--rulings", type=int, default=5_000, help="N: files of N and 2N rulings are imported")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench.instructions needs valgrind (apt-get install -y valgrind)")
    revision = subprocess.run(["git", "rev-parse", "--short", args.against], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    sizes = (args.rulings, 2 * args.rulings)
    with tempfile.TemporaryDirectory(prefix="mtgkb-instructions-") as folder:
        work = Path(folder)
        files = {rulings: write_corpus(work / f"corpus-{rulings}", rulings, max(1, rulings // 10), 1)["rulings"]
                 for rulings in sizes}
        tree = revision_tree(revision, work)
        try:
            figures = {
                "rulings": list(sizes),
                "this tree is": subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                                               capture_output=True, text=True).stdout.strip(),
                revision: measure(tree, files, work),
                "this tree": measure(ROOT, files, work),
            }
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    before, after = figures[revision], figures["this tree"]
    figures["ratio per ruling (this tree / against)"] = round(
        after["instructions_per_ruling"] / before["instructions_per_ruling"], 4)
    figures["same content"] = before["content_digests"] == after["content_digests"]
    print(f"{'tree':12} " + " ".join(f"{f'{rulings:,} rulings':>16}" for rulings in sizes) + f" {'per ruling':>11}")
    for name in (revision, "this tree"):
        row = figures[name]
        print(f"{name:12} " + " ".join(f"{row['instructions'][str(rulings)]:>16,}" for rulings in sizes)
              + f" {row['instructions_per_ruling']:>11,}")
    print(f"per ruling, this tree / {revision}: {figures['ratio per ruling (this tree / against)']}"
          f"; the same content: {figures['same content']}")
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    if not figures["same content"]:
        sys.exit("the two trees' databases differ")


if __name__ == "__main__":
    main()
