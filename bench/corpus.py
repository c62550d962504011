"""Generate Scryfall-shaped bulk files (rulings, oracle_cards, all_cards) at any size, deterministically.

The files are generated, not real: Scryfall's full bulk files are not stored anywhere we can
reach offline. Their shape follows the real bulk records: the rulings file's ``object``,
``oracle_id``, ``source``, ``published_at``, ``comment``; card objects with ``lang``,
``printed_name``, ``printed_type_line``, ``printed_text``, and the ``prices`` and ``edhrec_rank``
Scryfall rewrites every 12 hours (``day`` moves them, as a later download of the same cards
would). Every generated card has one face (no ``card_faces``): the real multi-faced objects are
read from tests/fixtures by the tests.
Texts are assembled from real material so that the work per record is the real work: ruling
sentences taken from the real Scryfall rulings in tests/fixtures (curly apostrophes, quotes,
keywords, rule numbers as Scryfall prints them), and printed texts and type lines in each
language from the real multilingual printings there, plus a few constructed sentences (marked
below) that name keywords and cite rules as rulings do. Every record is distinct (a card name and
a counter are woven in), so nothing collapses by deduplication.

    python -m bench.corpus --rulings 100000 --out /tmp/corpus

Never commit what it writes: a million rulings is ~50 MB gzipped.
"""
from __future__ import annotations

import argparse
import gzip
import json
import uuid
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
LANGS = ("en", "de", "fr", "es", "it", "pt", "ja", "ko", "ru", "zhs", "zht")
# Roughly how Scryfall's all_cards divides among languages: English about half, the rest shared.
LANG_WEIGHTS = (10, 2, 2, 2, 2, 1, 2, 1, 1, 1, 1)
SYLLABLES = "ka ra mo li un ter vo sha en dor ix al be gri tha nor pel vu zan qui".split()
# Constructed, not real: sentences in the style of real rulings, naming keywords and rule numbers.
EXTRA_SENTENCES = (
    "If a creature with deathtouch deals damage to {name}, it’s destroyed.",
    "{name}’s ability triggers only once each turn, even if it has flying and first strike.",
    "If {name} leaves the battlefield before its ability resolves, use its last known information (see rule 608.2h).",
    "You can cast {name} by paying its flashback cost; it’s exiled as it resolves.",
    "Convoke and delve can’t be used to pay the “additional cost” of {name}.",
    "The “until end of turn” effect of {name} doesn’t end if it leaves the battlefield.",
    "If you control two copies of {name}, each one’s ability triggers separately (see rule 603.2).",
    "Players can respond to the trigger of {name}, but not to the scry itself.",
)


@lru_cache(maxsize=1)
def real_ruling_sentences() -> tuple[str, ...]:
    """Ruling texts from the real Scryfall rulings lists among the test fixtures."""
    texts: dict[str, None] = {}
    for path in sorted((FIXTURES / "scryfall").rglob("rulings-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for ruling in data.get("data", []) if isinstance(data, dict) else data:
            if ruling.get("comment"):
                texts[ruling["comment"]] = None
    return tuple(texts)


@lru_cache(maxsize=1)
def real_printings() -> dict[str, list[dict]]:
    """Real printings per language (type lines and printed texts) from the fixtures."""
    by_lang: dict[str, list[dict]] = {lang: [] for lang in LANGS}
    for path in sorted((FIXTURES / "scryfall").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            continue
        cards = data.get("data") if data.get("object") == "list" else [data] if data.get("object") == "card" else []
        for card in cards or []:
            if isinstance(card, dict) and card.get("object") == "card" and card.get("lang") in by_lang:
                text = card.get("printed_text") or card.get("oracle_text")
                if text:
                    by_lang[card["lang"]].append(
                        {"type_line": card.get("printed_type_line") or card.get("type_line"), "text": text}
                    )
    return by_lang


def card_name(card: int) -> str:
    parts = [SYLLABLES[(card * 7 + k * 3) % len(SYLLABLES)] for k in range(2 + card % 3)]
    return f"{''.join(parts).capitalize()} {SYLLABLES[card % len(SYLLABLES)].capitalize()}{card}"


def oracle_id(card: int) -> str:
    return str(uuid.UUID(int=card * 7919 + 1))


def ruling_objects(count: int, cards: int) -> Iterator[dict]:
    sentences = real_ruling_sentences() + EXTRA_SENTENCES
    for index in range(count):
        card = index % cards
        first = sentences[(index * 31 + card) % len(sentences)]
        second = sentences[(index * 17 + 5) % len(sentences)]
        # Real rulings run from one sentence to several: every third one here has two.
        comment = (f"{first} {second}" if index % 3 == 0 else first).replace("{name}", card_name(card))
        yield {
            "object": "ruling",
            "oracle_id": oracle_id(card),
            "source": "wotc" if index % 13 else "scryfall",
            "published_at": f"20{10 + card % 16:02d}-{1 + index % 12:02d}-{1 + index % 28:02d}",
            "comment": f"{comment} ({index})",
        }


def _lang_of(printing: int) -> str:
    total = sum(LANG_WEIGHTS)
    slot = (printing * 7) % total
    for lang, weight in zip(LANGS, LANG_WEIGHTS, strict=True):
        if slot < weight:
            return lang
        slot -= weight
    return "en"


def card_object(printing: int, cards: int, lang: str | None = None, day: int = 0) -> dict:
    card = printing % cards
    lang = lang or _lang_of(printing)
    name = card_name(card)
    english = real_printings()["en"]
    template = english[card % len(english)]
    obj: dict = {
        "object": "card",
        "id": str(uuid.UUID(int=(printing + 1) * 104729)),
        "oracle_id": oracle_id(card),
        "multiverse_ids": [printing + 1] if printing % 3 else [],
        "name": name,
        "lang": lang,
        "layout": "normal",
        "mana_cost": "{2}{G}",
        "type_line": template["type_line"],
        "oracle_text": template["text"],
        "set": f"s{printing % 700:03d}",
        # As Scryfall gives them: the set's English name, and the printing's own day (a set's
        # printings mostly share their set's, some, such as Secret Lair's drops, do not).
        "set_name": f"Generated Set {printing % 700:03d}",
        "released_at": f"{1993 + printing % 700 // 22}-{1 + printing % 12:02d}-{1 + (printing // 700) % 28:02d}",
        "collector_number": str(printing % 350 + 1),
        "prices": _prices(printing, day),
        "edhrec_rank": (card * 37 + day) % 25_000 + 1,
    }
    if lang != "en":
        local = real_printings()[lang] or english
        sample = local[(card + printing) % len(local)]
        obj["printed_name"] = f"{name} {lang.upper()}"
        obj["printed_type_line"] = sample["type_line"]
        obj["printed_text"] = sample["text"]
    return obj


def _prices(printing: int, day: int) -> dict[str, str | None]:
    """Prices as Scryfall prints them (strings in dollars, euros and tix; null where none)."""
    cents = (printing * 7919 + day * 104729) % 5000 + 5
    return {
        "usd": f"{cents / 100:.2f}", "usd_foil": f"{cents * 3 / 100:.2f}" if printing % 4 else None,
        "usd_etched": None, "eur": f"{cents * 0.9 / 100:.2f}", "eur_foil": None, "tix": f"{cents / 1000:.2f}",
    }


def write_jsonl_gz(path: Path, objects: Iterator[dict]) -> int:
    count = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as handle:
        for obj in objects:
            handle.write(json.dumps(obj, ensure_ascii=False) + "\n")
            count += 1
    return count


def write_cards(out: Path, cards: int, printings: int, day: int = 0) -> dict[str, Path]:
    """oracle_cards and all_cards as downloaded ``day`` half-days later: other prices and ranks."""
    out.mkdir(parents=True, exist_ok=True)
    suffix = f"-day{day}" if day else ""
    files = {"oracle_cards": out / f"oracle_cards{suffix}.jsonl.gz", "all_cards": out / f"all_cards{suffix}.jsonl.gz"}
    write_jsonl_gz(files["oracle_cards"], (card_object(card, cards, "en", day) for card in range(cards)))
    write_jsonl_gz(files["all_cards"], (card_object(p, cards, day=day) for p in range(printings)))
    return files


def write_corpus(out: Path, rulings: int, cards: int, printings: int) -> dict[str, Path]:
    """rulings.jsonl.gz, oracle_cards.jsonl.gz and all_cards.jsonl.gz under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "rulings": out / "rulings.jsonl.gz",
        "oracle_cards": out / "oracle_cards.jsonl.gz",
        "all_cards": out / "all_cards.jsonl.gz",
    }
    write_jsonl_gz(files["rulings"], ruling_objects(rulings, cards))
    write_cards(out, cards, printings)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulings", type=int, default=100_000)
    parser.add_argument("--cards", type=int, default=0, help="default: rulings / 10")
    parser.add_argument("--printings", type=int, default=0, help="default: rulings / 2")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    cards = args.cards or max(1, args.rulings // 10)
    files = write_corpus(args.out, args.rulings, cards, args.printings or args.rulings // 2)
    for kind, path in files.items():
        print(f"{kind}: {path} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
