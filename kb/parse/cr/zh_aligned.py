"""The pre-aligned bilingual (English/Chinese) Comprehensive Rules JSON.

HeliumOctahelide/magic-comp-rules-zh-cn ``scripts/YYYYMMDD.json``::

    {version, intro: {contents: [{en, zh}]},
     main: [{chapter: "1.", en, zh, subrules: [{chapter: "100.", …, subrules: [
             {chapter: "100.1.", en, zh, extras: [{en, zh}], subrules: [{chapter: "100.1a", …}]}]}]}],
     glossary: [{enname, zhname, en, zh}], credits: {contents: [{en, zh}]},
     translatedterms: {mainGlossary: [{English, Chinese}], …}}

``extras`` holds the "Example:" paragraphs and the rare unnumbered continuation paragraph of a
rule. We return the Chinese document; the English side and every pair go in
``extra["alignment"]`` (the answer key for linking); ``parse_english`` gives the English
CRDocument the same file describes.
"""
from __future__ import annotations

import json
import re
from typing import Any

from kb.normalise.dates import parse_date
from kb.normalise.localized_symbols import translated_cr_symbols
from kb.normalise.refs import extract_refs
from kb.parse.cr.zh import DATE_LINE, append_paragraph, finish_rules, make_rule, nfc
from kb.records import CRDocument, GlossaryEntry, ParseError, Rule

FORMAT_NAME = "cr-zh-aligned-json"
DESCRIPTION = "English/Chinese aligned Comprehensive Rules JSON (HeliumOctahelide, community)"

CHAPTER = re.compile(r"^(?:[1-9]\d{2}\.\d+[a-z]|[1-9]\d{2}\.\d+\.?|[1-9]\d{2}\.|[1-9]\.)$")
ENGLISH_DATE = re.compile(r"effective as of (?P<raw>[A-Z][a-z]+ \d{1,2}, \d{4})")
EXAMPLE_PREFIX = {"en": re.compile(r"^\s*Example\s*:"), "zh": re.compile(r"^\s*例如\s*[：:，,]")}


def sniff(data: bytes, name: str = "") -> bool:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"{"):
        return False
    return b'"intro"' in head and b'"zh"' in head and b'"en"' in head


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    document = _load(data, name)
    sides = {side: _document_side(document, side, name) for side in ("zh", "en")}
    chinese, english = sides["zh"], sides["en"]
    chinese.lang = lang or "zhs"
    chinese.extra["alignment"] = {
        "rules": {
            zh_rule.number: (en_rule.title or en_rule.text, zh_rule.title or zh_rule.text)
            for zh_rule, en_rule in zip(chinese.rules, english.rules, strict=True)
        },
        "glossary": [
            (entry.get("enname", ""), entry.get("zhname", "")) for entry in document.get("glossary", [])
        ],
    }
    chinese.extra["translated_terms"] = [
        (term.get("English", ""), term.get("Chinese", ""))
        for term in (document.get("translatedterms") or {}).get("mainGlossary", [])
    ]
    chinese.extra["version"] = str(document.get("version", ""))
    translated_cr_symbols(chinese)
    return chinese


def parse_english(data: bytes, name: str = "<bytes>") -> CRDocument:
    """The English CRDocument the aligned file carries (lang "en")."""
    return _document_side(_load(data, name), "en", name)


def _load(data: bytes, name: str) -> dict[str, Any]:
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ParseError(f"{name}: not valid JSON: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("main"), list):
        raise ParseError(f"{name}: no 'main' rule tree; not an aligned CR JSON")
    return document


def _document_side(document: dict[str, Any], side: str, name: str) -> CRDocument:
    intro_lines = [nfc(item.get(side, "")) for item in (document.get("intro") or {}).get("contents", [])]
    title = intro_lines[0] if intro_lines else None
    raw_date, effective_date = _date(intro_lines, side)
    rules: list[Rule] = []
    for node in document["main"]:
        _walk(node, side, rules, name, path="main")
    if not rules:
        raise ParseError(f"{name}: 'main' holds no rules")
    finish_rules(rules)
    for index, entry in enumerate(document.get("glossary", [])):
        _check_fields(entry, GLOSSARY_FIELDS, name, f"glossary[{index}]")
    glossary = [
        GlossaryEntry(
            term=nfc(entry.get(f"{side}name", "")),
            text=nfc(entry.get(side, "")),
            refs=extract_refs(entry.get(side, "")),
        )
        for entry in document.get("glossary", [])
    ]
    credits_lines = [nfc(item.get(side, "")) for item in (document.get("credits") or {}).get("contents", [])]
    if credits_lines and credits_lines[0] in ("Credits", "版权信息"):
        credits_lines = credits_lines[1:]
    return CRDocument(
        lang="en" if side == "en" else "zhs",
        effective_date=effective_date,
        raw_date=raw_date,
        title=title,
        intro="\n".join(intro_lines[3:]) if len(intro_lines) > 3 else "",
        rules=rules,
        glossary=glossary,
        credits="\n".join(credits_lines),
        encoding="utf-8",
        method="official" if side == "en" else "community",
        extra={},
    )


def _date(lines: list[str], side: str) -> tuple[str | None, str | None]:
    pattern = ENGLISH_DATE if side == "en" else DATE_LINE
    for line in lines:
        match = pattern.search(line)
        if match:
            raw = match["raw"] if side == "en" else re.sub(r"\s+", "", match["raw"])
            return raw, parse_date(raw, "en" if side == "en" else "zhs")
    return None, None


# The fields of a rule's node and a glossary entry the real files give. Another is a field renamed
# (the rules under a "children" were left unread, and a version of its chapters alone published).
RULE_FIELDS = frozenset({"chapter", "en", "zh", "subrules", "extras"})
GLOSSARY_FIELDS = frozenset({"enname", "zhname", "en", "zh"})


def _check_fields(item: Any, known: frozenset[str], name: str, where: str) -> None:
    if not isinstance(item, dict):
        raise ParseError(f"{name}: {where}: not an object")
    unknown = sorted(set(item) - known)
    if unknown:
        raise ParseError(f"{name}: {where}: field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}"
                         f" this file's layout never had (it has {', '.join(sorted(known))}): its layout may have changed")


def _walk(node: dict[str, Any], side: str, rules: list[Rule], name: str, path: str) -> None:
    chapter = str(node.get("chapter", "")).strip() if isinstance(node, dict) else ""
    _check_fields(node, RULE_FIELDS, name, f"{path}: rule {chapter or '(no number)'}")
    if not CHAPTER.match(chapter):
        raise ParseError(f"{name}: {path}: {chapter!r} is not a rule number")
    rule = make_rule(chapter.rstrip("."), nfc(node.get(side, "")))
    for extra in node.get("extras", []) or []:
        paragraph = nfc(extra.get(side, ""))
        if EXAMPLE_PREFIX[side].match(paragraph) or EXAMPLE_PREFIX["en"].match(extra.get("en", "")):
            rule.examples.append(paragraph)
        else:
            # An unnumbered paragraph that continues the rule (205.4c, 509.1b).
            append_paragraph(rule, paragraph)
    rules.append(rule)
    for index, child in enumerate(node.get("subrules", []) or []):
        _walk(child, side, rules, name, f"{path}/{chapter}[{index}]")
