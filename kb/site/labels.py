"""Words a reader understands for the codes the database keeps: languages, BCP 47 tags, CR versions."""
from __future__ import annotations

import re

# Our language codes are Scryfall's; markup needs BCP 47 ("zhs" is not a language tag).
BCP47 = {"zhs": "zh-Hans", "zht": "zh-Hant", "ph": "und"}
LANGUAGE_NAMES = {
    "en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese",
    "ja": "Japanese", "ko": "Korean", "ru": "Russian", "zhs": "Simplified Chinese", "zht": "Traditional Chinese",
    "ph": "Phyrexian",
}
NATIVE_NAMES = {
    "en": "English", "es": "Español", "fr": "Français", "de": "Deutsch", "it": "Italiano",
    "pt": "Português", "ja": "日本語", "ko": "한국어", "ru": "Русский", "zhs": "简体中文",
    "zht": "繁體中文", "ph": "Phyrexian",
}
DATED_VERSION = re.compile(r"^(?P<lang>[a-z]{2,3})-(?P<date>\d{4}-\d{2}-\d{2})$")


def bcp47(code: str | None) -> str:
    return BCP47.get(code or "", code or "und")


def language_name(code: str | None) -> str:
    return LANGUAGE_NAMES.get(code or "", code or "")


COPY_VERSION = re.compile(r"^(?P<edition>[a-z]{2,3}-\d{4}-\d{2}-\d{2})-(?P<source>[a-z0-9][a-z0-9-]*)$")


def version_name(version_id: str | None, effective_date: str | None = None) -> str:
    """ "en-2026-04-17" -> "Comprehensive Rules of 2026-04-17"; "es-pages-cr-page" -> "Spanish rules
    pages (captured from a rules site)"; "zhs-2025-02-07" -> "Simplified Chinese translation of 2025-02-07"."""
    if not version_id:
        return ""
    copy = COPY_VERSION.match(version_id)
    if copy:
        # A second, different text under an edition's date (kb.store.save_cr.mark_conflicting_copy).
        return f"{version_name(copy.group('edition'))}: the copy from {copy.group('source')}"
    dated = DATED_VERSION.match(version_id)
    if dated:
        if dated.group("lang") == "en":
            return f"Comprehensive Rules of {dated.group('date')}"
        return f"{language_name(dated.group('lang'))} translation of {dated.group('date')}"
    lang = version_id.split("-", 1)[0]
    when = f" of {effective_date}" if effective_date else ""
    if "pages" in version_id:
        return f"{language_name(lang)} rules pages{when} (captured from a rules site)"
    return f"{language_name(lang)} rules{when}"


ASPECT_WORDS = {
    "title": "title", "text": "wording", "examples": "examples",
    "numbers-only": "only the rule numbers it mentions", "number": "number",
}


def aspect_words(aspects: str | list[str] | None) -> str:
    """ "text,numbers-only" -> "wording (only the rule numbers it mentions)"-style plain words."""
    if not aspects:
        return ""
    parts = aspects if isinstance(aspects, list) else [part.strip() for part in aspects.strip("[]").replace('"', "").split(",")]
    words = [ASPECT_WORDS.get(part, part.replace("-", " ")) for part in parts if part]
    return "changed: " + ", ".join(words)
