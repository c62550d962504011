"""``mtgkb refresh`` at full scale: the first run, one twelve hours later (new prices only), one after a real change.

    .venv/bin/python -m bench.refresh_scale --scale 1 --workdir /tmp/refresh-scale

The local test site (``tests/sitekit.py``) serves every recorded source as the tests see it, and
its Scryfall bulk listing names generated bulk files of ``--scale`` × (1M rulings, 500k printings
in 11 languages; ``bench.corpus``, with prices as Scryfall prints them). Three refreshes, each in a
fresh interpreter with the real polite client (its own peak memory, VmHWM):

1. ``first``: everything fetched and built;
2. ``prices changed``: oracle_cards and all_cards come back under new dated names with every
   printing's prices and rank changed: fetched, each read once for what a build keeps of it
   (``kb.build.kept_content``), and not rebuilt;
3. ``a printed name changed``: the next all_cards differs in one German printed name: rebuilt.

Scenarios 2 and 3 fetch the same bytes (two bulk files) and differ in what follows: the ratio of
their times is what reading the kept content instead of rebuilding saves. Each run's peak memory
is held to the import's bound (``bench.full_scale.TARGETS``): the job runs where the site is
served. Figures go to ``bench/results/refresh_scale-<scale>.json``.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.corpus import card_object, write_cards, write_corpus, write_jsonl_gz
from bench.full_scale import FULL, TARGETS, measured

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
# sitekit, and the refresh tests' helpers for serving later days upstream.
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "refresh")]

from test_refresh_defaults import serve_all_printings  # noqa: E402

from sitekit import TestSite  # noqa: E402

SITE = ROOT / "tests" / "fixtures" / "site"
LISTING = "/scryfall/bulk-data"
# The recorded 2023 listing's file names, replaced by the generated files' (kind, old stamp).
KINDS = {"rulings": "20230404210031", "oracle-cards": "20230404210321", "all-cards": "20230404212042"}


def serve_bulk(site: TestSite, files: dict[str, tuple[str, Path]]) -> None:
    """The listing names ``files`` (kind -> its stamp YYYYMMDDhhmmss and gzipped JSON Lines)."""
    data = json.loads((SITE / "scryfall" / "bulk-data-2023-04-04.json").read_text(encoding="utf-8"))
    for entry in data["data"]:
        kind = entry["type"].replace("_", "-")
        if kind in files:
            stamp, path = files[kind]
            name = f"{kind}-{stamp}.jsonl.gz"
            entry["download_uri"] = entry["download_uri"].replace(f"{kind}-{KINDS[kind]}.json", name)
            entry["updated_at"] = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[8:10]}:{stamp[10:12]}:{stamp[12:14]}.000000Z"
            entry["content_type"], entry["content_encoding"] = "application/jsonl", "gzip"
            site.replace(f"/scryfall-data/{kind}/{name}", path, "application/gzip")
    site.replace(LISTING, json.dumps(data).encode("utf-8"), "application/json")


def one_refresh(raw: str, db: str, base_urls: str, out: str) -> None:
    """One refresh in this interpreter (the site holds Korean chapter 100 only)."""
    from kb.refresh.job import refresh

    result = refresh(Path(raw), Path(db), base_urls=json.loads(base_urls),
                     fetch_options={"cr_ko_chapters": ["100"]}, progress=False)
    Path(out).write_text(json.dumps({"exit_code": result.exit_code, "status": result.status,
                                     "published": result.published, "message": result.message,
                                     "bodies removed": result.changes.get("removed_superseded_bodies", 0),
                                     # What a rebuild kept from the file it replaced.
                                     "CR documents carried": result.changes.get("cr_documents_carried", 0),
                                     "rulings' citations carried": result.changes.get("ruling_links_carried", 0)}))


def measured_refresh(work: Path, site: TestSite, name: str) -> dict[str, Any]:
    out = work / f"{name}.json"
    figures = measured("bench.refresh_scale", "--one", str(work / "raw"), str(work / "kb.db"),
                       json.dumps(site.base_urls()), str(out))
    # What the raw store holds on disk after the run: superseded bulk bodies are removed after a
    # clean run (kb.refresh.inputs.prune_superseded), so it should not grow by every download.
    raw_bytes = sum(path.stat().st_size for path in (work / "raw").rglob("*") if path.is_file())
    return {"scenario": name, **figures, **json.loads(out.read_text()), "raw store MB": round(raw_bytes / 1e6, 1)}


def renamed_printing(corpus: Path, cards: int, printings: int) -> Path:
    """all_cards of day 1 with one German printed name corrected (the next download's real change)."""
    path = corpus / "all_cards-day1-renamed.jsonl.gz"

    def objects():
        corrected = False
        for printing in range(printings):
            obj = card_object(printing, cards, day=1)
            if not corrected and obj["lang"] == "de":
                obj["printed_name"] += " (korrigiert)"
                corrected = True
            yield obj

    write_jsonl_gz(path, objects())
    return path


def run(scale: float, work: Path) -> dict[str, Any]:
    rulings, cards, printings = (max(1, int(FULL[kind] * scale)) for kind in ("rulings", "cards", "printings"))
    corpus = work / "corpus"
    if not (corpus / "all_cards-day1-renamed.jsonl.gz").exists():
        write_corpus(corpus, rulings, cards, printings)
        write_cards(corpus, cards, printings, day=1)
        renamed_printing(corpus, cards, printings)
    shutil.rmtree(work / "raw", ignore_errors=True)
    (work / "kb.db").unlink(missing_ok=True)
    site = TestSite().start()
    try:
        serve_all_printings(site)
        served = {"rulings": ("20260901090000", corpus / "rulings.jsonl.gz"),
                  "oracle-cards": ("20260901090000", corpus / "oracle_cards.jsonl.gz"),
                  "all-cards": ("20260901090000", corpus / "all_cards.jsonl.gz")}
        serve_bulk(site, served)
        scenarios = [measured_refresh(work, site, "first")]
        served["oracle-cards"] = ("20260901210000", corpus / "oracle_cards-day1.jsonl.gz")
        served["all-cards"] = ("20260901210000", corpus / "all_cards-day1.jsonl.gz")
        serve_bulk(site, served)
        scenarios.append(measured_refresh(work, site, "prices changed"))
        # The same two kinds again, so that both runs fetch and read as much: one printed name differs.
        served["oracle-cards"] = ("20260902090000", corpus / "oracle_cards.jsonl.gz")
        served["all-cards"] = ("20260902090000", corpus / "all_cards-day1-renamed.jsonl.gz")
        serve_bulk(site, served)
        scenarios.append(measured_refresh(work, site, "a printed name changed"))
    finally:
        site.stop()
    skipped, rebuilt = scenarios[1], scenarios[2]
    return {
        "scale": scale, "rulings": rulings, "printings": printings, "scenarios": scenarios,
        "prices-only refresh time / rebuilding refresh": round(skipped["seconds"] / rebuilt["seconds"], 3),
        "database MB": round((work / "kb.db").stat().st_size / 1e6, 1),
        # The import's bound holds for the whole job too: a refresh runs on the machine that serves.
        "peak memory, MB (largest scenario)": max(scenario["peak_rss_mb"] for scenario in scenarios),
        "peak memory target, MB": TARGETS["peak_rss_mb"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="share of the real size (1 = 1M rulings)")
    parser.add_argument("--workdir", type=Path, help="keep the corpus here (the refreshes start afresh each run)")
    parser.add_argument("--one", nargs=4, metavar=("RAW", "DB", "BASE_URLS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one_refresh(*args.one)
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="mtgkb-refresh-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        figures = run(args.scale, work)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"refresh_scale-{args.scale:g}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"{'scenario':26} {'seconds':>8} {'CPU s':>7} {'peak MB':>8}  status")
    for scenario in figures["scenarios"]:
        print(f"{scenario['scenario']:26} {scenario['seconds']:>8} {scenario['cpu_seconds']:>7}"
              f" {scenario['peak_rss_mb']:>8}  {scenario['status']}: {scenario['message']}")
    print(f"prices-only refresh / rebuilding refresh: {figures['prices-only refresh time / rebuilding refresh']}")
    peak, bound = figures["peak memory, MB (largest scenario)"], figures["peak memory target, MB"]
    print(f"peak memory: {peak} MB ({'within' if peak <= bound else 'OVER'} the {bound} MB target)")


if __name__ == "__main__":
    main()
