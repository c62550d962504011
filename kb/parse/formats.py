"""Every input format we read, detected from content.

Each parser module exposes ``FORMAT_NAME``, ``DESCRIPTION``, ``sniff(data, name)`` and
``parse(data, name, lang)``; a module that reads several related formats lists them in
``FORMATS``. Detection tries the most specific formats first so that, for example, the Chinese
aligned JSON is never mistaken for a Scryfall list.
"""
from __future__ import annotations

import codecs
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from kb.records import CRDocument, ParseError, RulingsDocument

# Order matters: specific before general.
PARSER_MODULES = [
    "kb.parse.cr.zh_aligned",
    "kb.parse.rulings.scryfall",
    "kb.parse.rulings.mtgjson",
    "kb.parse.rulings.gatherer_new",
    "kb.parse.rulings.gatherer_old",
    "kb.parse.release_notes.ko",
    "kb.parse.release_notes.zhs",
    "kb.parse.release_notes.common",
    "kb.parse.cr.ko",
    "kb.parse.cr.txt_1999",
    "kb.parse.cr.txt",
    "kb.parse.cr.zh",
    "kb.parse.cr.rule_page",
    "kb.parse.rulings.card_page_capture",
]

Parsed = CRDocument | RulingsDocument


@dataclass(frozen=True)
class Format:
    name: str
    description: str
    sniff: Callable[[bytes, str], bool]
    parse: Callable[..., Parsed]
    module: str


def _formats_of(module_name: str) -> list[Format]:
    module = importlib.import_module(module_name)
    formats: list[Format] = []
    for entry in getattr(module, "FORMATS", []):
        name, description, sniff, parse = entry
        formats.append(Format(name, description, sniff, parse, module_name))
    if hasattr(module, "FORMAT_NAME") and module.FORMAT_NAME not in {f.name for f in formats}:
        formats.append(
            Format(module.FORMAT_NAME, module.DESCRIPTION, module.sniff, module.parse, module_name)
        )
    return formats


_REGISTRY: list[Format] | None = None


def all_formats() -> list[Format]:
    global _REGISTRY
    if _REGISTRY is None:
        registry: list[Format] = []
        for module_name in PARSER_MODULES:
            try:
                registry.extend(_formats_of(module_name))
            except ModuleNotFoundError as error:
                # Only a module that does not exist at all is skipped (release notes may be one
                # module or two); a module that fails on import is a bug and must surface.
                if error.name != module_name:
                    raise
        _REGISTRY = registry
    return _REGISTRY


def format_named(name: str) -> Format:
    for fmt in all_formats():
        if fmt.name == name:
            return fmt
    known = ", ".join(f.name for f in all_formats())
    raise ParseError(f"unknown format {name!r} (known: {known})")


def _utf8_but_for_nuls(head: bytes) -> bool:
    text = head.replace(b"\x00", b"")
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start >= len(text) - 3  # the first megabyte may end inside a character
    return True


# Documents the fetchers use that hold no rules or rulings themselves: importing one by hand
# gets an error that says what it is, not just "unknown".
NON_CONTENT_DOCUMENTS: list[tuple[bytes, str]] = [
    (b'"object":"bulk_data"', "a Scryfall /bulk-data listing (it only points at bulk files; `mtgkb fetch scryfall` follows it)"),
    (b'"object": "bulk_data"', "a Scryfall /bulk-data listing (it only points at bulk files; `mtgkb fetch scryfall` follows it)"),
    (b'"object":"card_symbol"', "a Scryfall /symbology page (symbol definitions, used to read Gatherer's symbols)"),
    (b'"object": "card_symbol"', "a Scryfall /symbology page (symbol definitions, used to read Gatherer's symbols)"),
    # Before "MagicCompRules": its addresses name the official files.
    (b'"KnownExistingDates"', "the CR archive's metadata.json (a list of editions and their files;"
                              " `mtgkb fetch cr-archive` fetches each file it lists)"),
    (b"MagicCompRules", "a page linking to the Comprehensive Rules (`mtgkb fetch wizards-cr` follows its TXT link)"),
]


def detect_format(data: bytes, name: str) -> Format:
    # A file saved with a byte-order mark (Notepad, PowerShell's Out-File) is sniffed after it:
    # the parsers read it, and a Scryfall JSON file with one was "not a format mtgkb can read"
    # (a review of real files).
    for probe in (data, data[len(codecs.BOM_UTF8):]) if data.startswith(codecs.BOM_UTF8) else (data,):
        for fmt in all_formats():
            try:
                if fmt.sniff(probe, name):
                    return fmt
            except Exception:  # a sniffer must never decide for another format by crashing
                continue
    head = data[:1 << 20]
    for marker, what in NON_CONTENT_DOCUMENTS:
        if marker in head:
            raise ParseError(f"{name}: {what}; it holds no rules or rulings to import")
    # A few NULs in what is otherwise UTF-8 text (UTF-16 holds one every other byte).
    if 0 < head.count(0) < len(head) // 10 and _utf8_but_for_nuls(head):
        raise ParseError(f"{name}: not a format mtgkb can read: it holds {head.count(0)} NUL bytes, damaged most likely")
    raise ParseError(f"{name}: not a format mtgkb can read (see `mtgkb import --list-formats`)")
