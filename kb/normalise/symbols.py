"""Mana and other card symbols, written the way Scryfall writes them: ``{T}``, ``{2/U}``, ``{B/P}``.

Sources spell symbols three other ways: old Gatherer pages as images whose ``alt`` is English
words ("Blue or Red", "Phyrexian Black") and whose ``name=`` is a short code (``UR``, ``BP``,
``tap``); Gatherer's printed text as ``oW``/``ooX``/``o2`` codes (Scryfall's
``gatherer_alternates``); and hand-typed braces in any case and hybrid order (``{u/r}``).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

COLOURS = "WUBRG"
COLOUR_OF_WORD = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
NUMBER_OF_WORD = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
# Alt texts that are not built from colour and number words.
SPECIAL_ALTS = {
    "tap": "T",
    "untap": "Q",
    "snow": "S",
    "colorless": "C",
    "variable colorless": "X",
    "energy": "E",
    "phyrexian": "H",
    "planeswalker": "PW",
    "chaos": "CHAOS",
    "infinite": "∞",
    "infinity": "∞",
    "half": "½",
}
# Gatherer's image ``name=`` codes that are words rather than letters.
SPECIAL_IMAGE_NAMES = {"tap": "T", "untap": "Q", "snow": "S", "chaos": "CHAOS", "infinity": "∞"}
SINGLE_SYMBOL_LETTERS = set("WUBRGCXYZSTQEHP")

SYMBOLOGY_FILE = Path(__file__).resolve().parent / "data" / "symbology.json"
BRACES = re.compile(r"\{([^{}\s]{1,12})\}")
# A run of old Gatherer codes such as "oW", "ooX", "o2", "ocT", "oWoU". Bounded by non-letters on
# the left and by no lower-case letter on the right so ordinary words ("oTher") stay untouched.
OLD_CODE = r"o?o(?:cT|\d+|[WUBRGXYZCSTQE])"
OLD_CODE_RUN = re.compile(rf"(?<![A-Za-z])(?:{OLD_CODE})+(?![a-z])")
ONE_OLD_CODE = re.compile(r"o?o(cT|\d+|[WUBRGXYZCSTQE])")


@lru_cache(maxsize=1)
def symbology() -> dict[str, dict]:
    """Scryfall's card symbols bundled with the package (kb/data/symbology.json), by symbol."""
    # A plain path: the editable install makes ``kb`` look like a namespace package to
    # importlib.resources. Wheels need "data/*.json" in pyproject's package-data.
    raw = (SYMBOLOGY_FILE).read_text(encoding="utf-8")
    return {entry["symbol"]: entry for entry in json.loads(raw)["symbols"]}


@lru_cache(maxsize=1)
def gatherer_alternates() -> dict[str, str]:
    """Gatherer's legacy spellings ("oT", "ocT", "o2") to Scryfall symbols, from the bundle."""
    return {
        alternate: symbol
        for symbol, entry in symbology().items()
        for alternate in entry.get("gatherer_alternates") or []
    }


def _ordered_pair(first: str, second: str) -> tuple[str, str]:
    """Two hybrid halves in Scryfall's order: generic or colourless first, then colour order.

    Scryfall writes colour pairs the way the colour wheel runs: the second colour is one step
    (allied, ``{W/U}``) or two steps (enemy, ``{U/R}``, ``{G/U}``) clockwise from the first.
    """
    if first in COLOURS and second in COLOURS:
        step = (COLOURS.index(second) - COLOURS.index(first)) % 5
        return (first, second) if step in (1, 2) else (second, first)
    if second.isdigit() or second == "C":
        return second, first
    return first, second


def _hybrid(parts: list[str]) -> str:
    """Braced hybrid/Phyrexian symbol from its halves, e.g. ["R", "U"] → "{U/R}"."""
    phyrexian = "P" in parts and len(parts) > 1
    halves = [part for part in parts if part != "P"] if phyrexian else parts
    if len(halves) == 2:
        halves = list(_ordered_pair(halves[0], halves[1]))
    return "{" + "/".join(halves + (["P"] if phyrexian else [])) + "}"


def _word_to_code(word: str) -> str | None:
    word = word.strip().lower()
    if word in COLOUR_OF_WORD:
        return COLOUR_OF_WORD[word]
    if word in NUMBER_OF_WORD:
        return NUMBER_OF_WORD[word]
    if word.isdigit():
        return word
    if word == "colorless":
        return "C"
    return None


def _from_alt(alt: str) -> str | None:
    text = " ".join(alt.lower().split())
    if not text:
        return None
    if text in SPECIAL_ALTS:
        return "{" + SPECIAL_ALTS[text] + "}"
    if text.isdigit():
        return "{" + text + "}"
    if text in COLOUR_OF_WORD:
        return "{" + COLOUR_OF_WORD[text] + "}"
    phyrexian = text.startswith("phyrexian ")
    if phyrexian:
        text = text[len("phyrexian "):]
    halves = [_word_to_code(part) for part in text.split(" or ")]
    if not all(halves) or len(halves) > 2:
        return None
    return _hybrid([h for h in halves if h] + (["P"] if phyrexian else []))


def _from_image_name(image_name: str) -> str | None:
    code = image_name.strip()
    if code.lower() in SPECIAL_IMAGE_NAMES:
        return "{" + SPECIAL_IMAGE_NAMES[code.lower()] + "}"
    if code in gatherer_alternates():
        return gatherer_alternates()[code]
    code = code.upper()
    if code.isdigit() or (len(code) == 1 and code in SINGLE_SYMBOL_LETTERS):
        return "{" + code + "}"
    # Hybrid and Phyrexian codes: "UR", "2U", "BP", "WUP" — a number or letters, each a half.
    match = re.fullmatch(r"(\d+|[WUBRGC])([WUBRG])(P?)", code) or re.fullmatch(r"([WUBRG])(P)()", code)
    if match is None:
        return None
    parts = [part for part in match.groups() if part]
    return _hybrid(parts)


def gatherer_alt_to_symbol(alt: str, image_name: str | None = None) -> str | None:
    """The braced symbol an old Gatherer ``<img alt=… src=…name=…>`` shows, or None if unknown.

    The English alt text decides ("Blue or Red" → ``{U/R}``, "Phyrexian Black" → ``{B/P}``,
    "Two or Blue" → ``{2/U}``); when it is not understood, the image's ``name=`` code
    (``UR``, ``2U``, ``tap``) and Scryfall's ``gatherer_alternates`` are tried.
    """
    symbol = _from_alt(alt or "")
    if symbol is None and image_name:
        symbol = _from_image_name(image_name)
    return symbol


def _old_code_symbol(match: re.Match[str]) -> str:
    """One old Gatherer code (``ONE_OLD_CODE``) as the braced symbol it stands for."""
    code = match.group(1)
    return "{T}" if code == "cT" else "{" + code + "}"


def old_gatherer_codes_to_braces(text: str) -> str:
    """Gatherer printed-text codes to braces: "oW" → ``{W}``, "ooX" → ``{X}``, "o2" → ``{2}``."""
    return OLD_CODE_RUN.sub(lambda run: ONE_OLD_CODE.sub(_old_code_symbol, run.group(0)), text)


# The codes braced: "{oW}", "{o3}", "{oT}" (the CR file of 2003-10-01 prints 61 of them).
BRACED_OLD_CODE = re.compile(r"\{" + ONE_OLD_CODE.pattern + r"\}")


def braced_old_codes(text: str) -> str:
    """``{oW}`` → ``{W}``, ``{o3}`` → ``{3}``, ``{oT}`` → ``{T}``, every other brace left as it is."""
    return BRACED_OLD_CODE.sub(_old_code_symbol, text) if "{o" in text else text


def _normalise_inside(match: re.Match[str]) -> str:
    old_code = ONE_OLD_CODE.fullmatch(match.group(1))
    if old_code:  # "{oW}" is {W}; upper-cased as it is, "{OW}" is a symbol no one knows
        return _old_code_symbol(old_code)
    inner = match.group(1).upper()
    if "/" not in inner:
        return "{" + inner + "}"
    return _hybrid(inner.split("/"))


def normalise_symbols(text: str) -> str:
    """Braced symbols in Scryfall's spelling: upper case, hybrid halves in Scryfall's order.

    ``{2/u}`` → ``{2/U}``, ``{r/u}`` → ``{U/R}``, ``{p/b}`` → ``{B/P}``; ``{PW}``, ``{CHAOS}``
    and symbols in other scripts (``{横置}``) are kept as they are apart from case.
    """
    return BRACES.sub(_normalise_inside, text)


# MTGJSON's Oracle text ("text") writes a loyalty ability's cost in brackets, "[+2]: …", "[−X]: …";
# Oracle text as Scryfall and the printed card give it (MTGJSON's own "originalText" and foreign
# texts of the same card included) is "+2: …". Only a cost opening a line is one.
_BRACKETED_LOYALTY_COST = re.compile(r"^\[([+−-]?(?:\d+|X))\]:", re.MULTILINE)


def unbracketed_loyalty_costs(text: str) -> str:
    """``[+2]: Ugin deals 3 damage`` → ``+2: Ugin deals 3 damage`` (each line's, MTGJSON's brackets)."""
    return _BRACKETED_LOYALTY_COST.sub(r"\1:", text)


# -- symbols printed as plain letters -------------------------------------------------------------
#
# The English CR files of 2001–2003 print no braces: "The tap symbol (T in these rules)", a cost
# "2, T:", "a mana cost of 3UU", "Add G to your mana pool" (the edition of 2003-10-01 prints the
# same texts "{2}, {T}:", "{3}{U}{U}"). Only where the letters can be nothing but symbols are they
# braced: a quoted ability's cost before its colon, the mana an ability adds, a word of a digit
# and mana letters or of two or more mana letters, a mana letter naming its colour, and the list
# the glossary gives of the symbols; other prose ("Numeral symbols (such as 1)") stays as printed.
_PLAIN_COST = r"(?:\d+[WUBRG]*|X|T|[WUBRG]+)"
_QUOTED_COST = re.compile(r'(?<=")(' + _PLAIN_COST + r"(?:, " + _PLAIN_COST + r")*)(?=:)")
_ADDED_MANA = re.compile(r"(?<=\b[Aa]dd )([WUBRG]+|\d+)(?= to your mana pool)")
_MANA_COST_WORD = re.compile(r"(?<![\w{.\-/'])(\d+[WUBRG]+|[WUBRG]{2,})(?![\w}'])")
_COLOUR_NAMED = re.compile(r"\b([WUBRG])(?= (?:is )?(?:white|blue|black|red|green)\b)")
_SYMBOL_LIST = re.compile(r"(?<=mana symbols are )[^.\n]*")
_LISTED_SYMBOL = re.compile(r"\b([WUBRGXY]|\d+)\b")


def _braced_plain(token: str) -> str:
    """"2, T" → "{2}, {T}"; "3UU" → "{3}{U}{U}"; "X" → "{X}"."""
    parts = []
    for part in token.split(", "):
        if part in ("T", "X"):
            parts.append("{" + part + "}")
            continue
        digits = part.rstrip("WUBRG")
        parts.append(("{" + digits + "}" if digits else "") + "".join("{" + letter + "}" for letter in part[len(digits):]))
    return ", ".join(parts)


def braced_plain_symbols(text: str) -> tuple[str, int]:
    """``text`` of a CR file printing its symbols as plain letters, with those that can only be
    symbols braced (see above), and how many passages were; a text holding any brace is not such a
    file and is returned as it is."""
    if "{" in text:
        return text, 0
    count = 0

    def brace(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return _braced_plain(match.group(0))

    def brace_list(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return _LISTED_SYMBOL.sub(lambda symbol: "{" + symbol.group(1) + "}", match.group(0))

    for pattern in (_QUOTED_COST, _ADDED_MANA, _MANA_COST_WORD, _COLOUR_NAMED):
        text = pattern.sub(brace, text)
    text = _SYMBOL_LIST.sub(brace_list, text)
    return text, count
