"""How near a fresh rulings import could come to the raw baseline: the contract's tables alone.

    python -m bench.import_floor [--scale 0.1] [--workdir /tmp/floor] [--repeat 2]

Issue 15 asks for a fresh import of a Scryfall rulings bulk file within 3x the raw baseline
(``bench.full_scale``: the file's records ``executemany``-ed as they are, then an FTS5 index).
This measures, side by side in one run and each in a fresh interpreter, three ways of loading the
same generated file (``bench.corpus``):

- ``raw``: the baseline, as ``bench.full_scale`` runs it.
- ``floor``: the least any import that keeps this project's contract could do: the rulings read
  by this project's parser (symbols braced, text cleaned, dates ISO: what CONTRACT.md promises),
  each given its stable id (``kb.store.ruling_writer.ruling_id``: published in URLs) and written
  to the contract's ``rulings`` and ``ruling_sightings`` tables with the indexes the site's
  queries need (``kb.store.schema``), staged and copied in key order as the real writer does
  (memory stays flat), then the rulings' full-text index (``make_search_index``). Nothing
  else: no record of each document's rulings (what an import into a built database and the
  refresh's change report read), no quality checks, no language detection, no card rows, no
  validation, no search vocabulary. It is right only for bulk files whose every ruling names
  its card (Scryfall's do).
- ``import``: ``mtgkb import`` of the file into a new database, as ``bench.full_scale`` runs it.

Prints each run's seconds, CPU seconds and peak memory, and the ratios to ``raw``; writes them
to ``bench/results/import_floor-<scale>.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from bench.corpus import ruling_objects, write_jsonl_gz
from bench.full_scale import FULL, RESULTS, TARGETS, measured

STAGED_ROWS = 20_000


def floor_load(source: Path, db_path: Path) -> None:
    """The contract's two ruling tables and the rulings' search index, and nothing else."""
    import sqlite_utils

    from kb.parse.rulings.scryfall import iter_bulk_rulings
    from kb.store.bulk_indexes import indexes_made_after
    from kb.store.ruling_writer import RULING_COLUMNS, SIGHTING_COLUMNS, ruling_id
    from kb.store.save import identity_hash, plain_text_key, stored_text_key
    from kb.store.schema import ensure_db_shape, make_search_index, stable_id

    db = sqlite_utils.Database(db_path)
    db.execute("pragma journal_mode = off")
    db.execute("pragma synchronous = off")
    ensure_db_shape(db, search=False)
    conn = db.conn
    document_id = stable_id("document", str(source))
    conn.execute(f"create temp table staged_rulings ({', '.join(RULING_COLUMNS)})")
    conn.execute(f"create temp table staged_sightings ({', '.join(SIGHTING_COLUMNS)})")
    rulings: list[tuple] = []
    sightings: list[tuple] = []

    def flush() -> None:
        conn.executemany(f"insert into staged_rulings values ({', '.join('?' * len(RULING_COLUMNS))})", rulings)
        conn.executemany(f"insert into staged_sightings values ({', '.join('?' * len(SIGHTING_COLUMNS))})", sightings)
        rulings.clear()
        sightings.clear()

    with db.atomic(), source.open("rb") as stream:
        for ruling in iter_bulk_rulings(stream, str(source)):
            key = stored_text_key(ruling.text)
            key = plain_text_key(ruling.text) if key is None else key
            row_id = ruling_id(ruling.oracle_id or "", ruling.published_at, key)
            rulings.append((row_id, ruling.oracle_id, None, None, ruling.source, 0, ruling.published_at,
                            ruling.text, ruling.position, None, None, identity_hash(key)))
            sightings.append((row_id, document_id, ruling.position, ruling.raw_date, ruling.source, None))
            if len(rulings) >= STAGED_ROWS:
                flush()
        flush()
        columns = ", ".join(RULING_COLUMNS)
        with indexes_made_after(db, "rulings", ["oracle_id", "published_at", "position"], ["published_at"]):
            conn.execute(
                # Two rulings of a card with one date and text are one ruling (the real derive
                # joins them): the first is kept.
                f"insert or ignore into rulings ({columns}, removed_upstream, rowid)"
                f" select {columns}, 0, row_number() over (order by id) from temp.staged_rulings order by id"
            )
        with indexes_made_after(db, "ruling_sightings", ["document_id"]):
            columns = ", ".join(SIGHTING_COLUMNS)
            conn.execute(
                f"insert into ruling_sightings ({columns})"
                f" select {columns} from temp.staged_sightings order by ruling_id, document_id, position"
            )
        make_search_index(db, "rulings", ["text", "card_name"])
    db.close()


def megabytes(path: Path) -> float:
    return round(path.stat().st_size / 1e6, 1)


def run(scale: float, workdir: Path, repeat: int) -> dict:
    rulings, cards = max(1, int(FULL["rulings"] * scale)), max(1, int(FULL["cards"] * scale))
    source = workdir / "rulings.jsonl.gz"
    write_jsonl_gz(source, ruling_objects(rulings, cards))
    figures: dict = {"scale": scale, "rulings": rulings, "cards": cards, "runs": []}
    for _ in range(repeat):  # interleaved: each round's three loads meet the same minute of the machine
        round_figures = {}
        for name, argv in (
            ("raw", ("bench.full_scale", "--raw", "rulings")),
            ("floor", ("bench.import_floor", "--floor")),
            ("import", ("mtgkb", "import", "--source", "scryfall", "--db")),
        ):
            db_path = workdir / f"{name}.db"
            db_path.unlink(missing_ok=True)
            args = (*argv, str(db_path), str(source)) if name == "import" else (*argv, str(source), str(db_path))
            round_figures[name] = {**measured(*args), "db_mb": megabytes(db_path)}
        raw = round_figures["raw"]
        round_figures["ratios"] = {
            f"{name} / raw": {
                "time": round(round_figures[name]["seconds"] / raw["seconds"], 2),
                "cpu": round(round_figures[name]["cpu_seconds"] / raw["cpu_seconds"], 2),
                "size": round(round_figures[name]["db_mb"] / raw["db_mb"], 2),
            }
            for name in ("floor", "import")
        }
        figures["runs"].append(round_figures)
    figures["target"] = TARGETS["import"]
    figures["load_average_at_end"] = [round(load, 1) for load in os.getloadavg()]
    return figures


def table(figures: dict) -> str:
    lines = [f"{figures['rulings']} rulings on {figures['cards']} cards; target: import <= {figures['target']}x raw",
             f"{'round':6} {'load':7} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} {'db MB':>7} {'time/raw':>9} {'CPU/raw':>8}"]
    for number, round_figures in enumerate(figures["runs"], 1):
        for name in ("raw", "floor", "import"):
            stage = round_figures[name]
            ratio = round_figures["ratios"].get(f"{name} / raw", {"time": 1.0, "cpu": 1.0})
            lines.append(
                f"{number:<6} {name:7} {stage['seconds']:>8} {stage['cpu_seconds']:>7} {stage['peak_rss_mb']:>8}"
                f" {stage['db_mb']:>7} {ratio['time']:>9} {ratio['cpu']:>8}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1, help="share of the real size (1 = 1M rulings)")
    parser.add_argument("--workdir", type=Path, help="keep the file and databases here")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the three loads, interleaved")
    parser.add_argument("--floor", nargs=2, metavar=("SOURCE", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor_load(Path(args.floor[0]), Path(args.floor[1]))
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mtgkb-import-floor-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        figures = run(args.scale, workdir, args.repeat)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    figures["seconds"] = round(time.monotonic() - started, 1)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"import_floor-{args.scale:g}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(table(figures))


if __name__ == "__main__":
    main()
