"""A card's page in the language its reader came in: which language a query or ``?lang=`` asks
for, and the card's name and printings in it (``kb.site.card_page`` gathers the page)."""
from __future__ import annotations

import sqlite3
from typing import Any

from kb.site.search_cjk import in_other_chinese_script
from kb.site.search_db import rows
from kb.site.search_text import compact, fold, one_face_when_alike, umlauts_as_vowels


def read_in(page: dict[str, Any], query: str | None, lang: str | None) -> list[dict[str, Any]]:
    """The languages a reader came to the card in, each with the card's name and printed wordings
    in it, to stand beside the English Oracle text: ``lang`` as asked (``?lang=de``, ``zh-Hans``),
    else the languages of the card's name that was searched (``?q=Gesandter der Sultai``: the
    search's and the name lookup's redirects keep it; a name two languages print alike,
    "Hakka, Corvo Sussurrante", is both). A judge in Berlin who searched a German name otherwise
    met the English card, its German text after every ruling. None (an empty list) for English, or
    a language the card has no name or printing in."""
    names: list[dict[str, Any]] = page["names"]
    printed: list[dict[str, Any]] = page.get("printed") or []
    asked = scryfall_language(lang or "", languages_held(page))
    if asked:
        languages = [asked]
    elif query and not any(_names_card(query, name["name"]) for name in names if name["lang"] == "en"):
        # The language whose name is the query as typed, accents and all, first ("Emissário Sultai"
        # is Portuguese before Italian "Emissario Sultai").
        matching = sorted((name for name in names if _names_card(query, name["name"])),
                          key=lambda name: " ".join(name["name"].casefold().split()) != " ".join(query.casefold().split()))
        languages = list(dict.fromkeys(name["lang"] for name in matching))
    else:
        languages = []
    return [
        {"lang": language, "name": _whole_name([name["name"] for name in names if name["lang"] == language]),
         "wordings": next((found["wordings"] for found in printed if found["lang"] == language), [])}
        for language in languages if language != "en"
    ]


def read_in_other_script(page: dict[str, Any], query: str | None) -> dict[str, str] | None:
    """The card's name ``query`` was read as, where it is that name in the other Chinese script
    (寒冬殺機 for the release notes' 寒冬杀机): the page said nothing of it (a judge's review)."""
    if not query or any(name["name"] == query for name in page["names"]):
        return None
    held = {name["name"] for name in page["names"]} | {page.get("title") or ""}
    read = next((converted for converted in in_other_chinese_script(query) if converted in held), None)
    return {"typed": query, "read": read} if read else None


def language_not_held(page: dict[str, Any], lang: str | None, languages: set[str]) -> str | None:
    """The language ``?lang=`` asks for (one of ``languages``, the site's) when the card has no name
    or printing in it: the page said nothing and looked like the English one (``?lang=ko`` on a
    card printed in six languages; a foreign judges' review)."""
    asked = scryfall_language(lang or "", languages)
    return asked if asked and asked != "en" and asked not in languages_held(page) else None


def languages_held(page: dict[str, Any]) -> set[str]:
    """The languages a card page holds the card's name or a printing in."""
    return {name["lang"] for name in page["names"]} | {language["lang"] for language in page.get("printed") or []}


def named_in_english(conn: sqlite3.Connection, oracle_id: str, name: str) -> bool:
    """Whether ``name`` is the card's English name or one of its faces (spacing and punctuation aside)."""
    english = rows(conn, "select name from card_names where oracle_id = ? and lang = 'en' limit 20", (oracle_id,))
    name = one_face_when_alike(name)  # "Okaun, Eye of Chaos // Okaun, Eye of Chaos", as Scryfall names it
    return any(_names_card(name, row["name"]) for row in english)


# Countries' codes typed for their languages; none of them is a language code of Scryfall's. And
# "zh" alone, the Chinese of no script: Simplified, the script of the Chinese rules.
COUNTRY_CODES = {"jp": "ja", "kr": "ko", "cn": "zhs", "tw": "zht", "hk": "zht", "br": "pt", "zh": "zhs"}


def scryfall_language(tag: str, known: set[str]) -> str | None:
    """``tag`` as one of ``known`` Scryfall language codes, however a reader writes it: "de", "DE",
    "de-DE", or the BCP 47 tags the site's pages carry ("zh-Hans" and "zh-Hans-CN" are zhs,
    "zh-Hant", "zh-TW" and "zh-HK" zht), or the country codes readers mistake for them ("jp",
    "kr", "cn": ignored without a word before, a foreign players' review)."""
    tag = tag.strip().casefold().replace("_", "-")
    tag = COUNTRY_CODES.get(tag, tag)
    if tag.startswith("zh-"):
        region = tag.split("-")[1]
        tag = "zht" if region in ("hant", "tw", "hk", "mo") else "zhs" if region in ("hans", "cn", "sg") else tag
    code = tag if tag in known else tag.split("-")[0]
    return code if code in known else None


def _whole_name(names: list[str]) -> str | None:
    """A language's name of the card: its whole name where it has faces ("A // B"), not each face again."""
    return next((name for name in names if " // " in name), names[0] if names else None)


def in_the_language_read(page: dict[str, Any], query: str | None, lang: str | None) -> dict[str, Any]:
    """A card known only by the names pages printed, titled and its printings listed in the
    language it was searched in (``read_in``): 極楽鳥 led to a page titled "Paradiesvögel", the
    German printing first. A copy: the page's data is kept for every reader."""
    readings = read_in({**page, "printed": [{"lang": p["lang"], "wordings": []} for p in page.get("printings") or []]},
                       query, lang)
    first = next((reading for reading in readings if reading["name"]), None)
    if page["linked"] or first is None:
        return page
    read = [reading["lang"] for reading in readings]
    return {
        **page, "title": first["name"], "title_lang": first["lang"],
        "printings": sorted(page.get("printings") or [], key=lambda printing: printing["lang"] not in read),
    }


def _names_card(query: str, name: str) -> bool:
    """Whether ``query`` is ``name`` or one of its faces, spacing, case and punctuation aside, and
    German umlauts typed as two letters (as ``kb.site.card_lookup`` and the search find a card)."""
    keys = {(fold(typed), compact(typed)) for typed in (query, umlauts_as_vowels(query)) if typed is not None}
    return any(fold(part) == wanted or compact(part) == letters
               for part in (name, *name.split(" // ")) for wanted, letters in keys)
