"""One Comprehensive Rules rule as a per-rule web page shows it, captured as text.

Sites that publish the CR one rule per page (the Spanish capture ``702.78. Conspirar`` is one)
print the rule's heading, a "Subrules" header, the subrules' paragraphs *without their letters*,
examples ("Ejemplo: …"), and then a navigation list "Other rules in this section" with lines
"- 702.1", "- 702.2", … which is not rule text. The letters are recovered by position (a, b, c, …
skipping l and o, as the CR numbers them) with ``number_confidence`` below 1; the listed numbers
are kept in ``extra["listed_numbers"]``. The page's language comes from its own header words,
else from the text; these pages carry no effective date.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kb.normalise.decode import decode_text
from kb.parse.cr.zh import finish_rules, make_rule, nfc, rule_kind, subrule_letter
from kb.records import CRDocument, ParseError, Rule

FORMAT_NAME = "cr-rule-page"
DESCRIPTION = "One Comprehensive Rules rule as a per-rule web page shows it (text capture)"

# A letter recovered from its position is right only if the page dropped no paragraph and added
# none; we cannot check that on the page itself, so such numbers are marked as inferred.
POSITIONAL_CONFIDENCE = 0.8

HEADING = re.compile(r"^(?P<number>[1-9]\d{2}\.\d+[a-z]?|[1-9]\d{2})\.?\s+(?P<text>\S.*)$")
PRINTED_SUBRULE = re.compile(r"^(?P<number>[1-9]\d{2}\.\d+[a-z])\.?\s+(?P<text>\S.*)$")
LISTED_NUMBER = re.compile(r"^\s*[-–•*]\s*(?P<number>[1-9]\d{2}(?:\.\d+[a-z]?)?)\.?\s*$")

# The header each language prints before the subrules, and its word for "Example".
SUBRULES_HEADERS = {
    "en": ("subrules", "sub-rules"),
    "es": ("subreglas", "sub-reglas"),
    "fr": ("sous-règles", "sous-regles", "sous règles"),
    "de": ("unterregeln", "unter-regeln"),
    "it": ("sottoregole", "sotto-regole"),
    "pt": ("subregras", "sub-regras"),
}
EXAMPLE_START = re.compile(
    r"^\s*(?:Examples?|Ejemplos?|Exemples?|Beispiele?|Esempi[oi]|Exemplos?)\s*:", re.IGNORECASE
)
# "Otras reglas de este apartado", "Other rules in this section", "Autres règles de cette
# section", "Weitere Regeln in diesem Abschnitt", "Altre regole in questa sezione", "Outras
# regras desta seção": the navigation list's header, however each site words it.
NAVIGATION_HEADER = re.compile(
    r"^\s*(?P<other>other|otras|otros|autres|andere|weitere|altre|outras)\b.*\b"
    r"(?:rules?|reglas?|règles?|regeln?|regol[ae]|regras?)\b",
    re.IGNORECASE,
)
NAVIGATION_LANG = {
    "other": "en",
    "otras": "es",
    "otros": "es",
    "autres": "fr",
    "andere": "de",
    "weitere": "de",
    "altre": "it",
    "outras": "pt",
}
SUPPORTED_LANGS = tuple(SUBRULES_HEADERS)


def sniff(data: bytes, name: str = "") -> bool:
    try:
        text = data[:8192].decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or not HEADING.match(lines[0]):
        return False  # a full CR starts with its title, never with a rule
    return any(_subrules_header_lang(line) or NAVIGATION_HEADER.match(line) for line in lines[1:40])


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    text, encoding = decode_text(data, name)
    lines = [line.strip() for line in text.split("\n")]
    numbered = [(index, line) for index, line in enumerate(lines) if line]
    if not numbered:
        raise ParseError(f"{name}: empty page")
    heading_index, heading_line = numbered[0]
    heading = HEADING.match(heading_line)
    if not heading:
        raise ParseError(f"{name}: line {heading_index + 1}: page does not start with a rule number: {heading_line[:40]!r}")
    body, navigation, header_lang = _split_page(lines, heading_index + 1)
    listed = _listed_numbers(navigation, name)
    rules = _rules_of(heading["number"], nfc(heading["text"]), body, name)
    detected = header_lang or _detect_language(" ".join(rule.text for rule in rules))
    warnings = []
    if lang and detected and lang != detected:
        warnings.append(f"{name}: page text looks {detected}, read as {lang} as asked")
    return CRDocument(
        lang=lang or detected or "und",
        effective_date=None,
        raw_date=None,
        title=None,
        intro="",
        rules=rules,
        encoding=encoding,
        warnings=warnings,
        extra={"listed_numbers": listed, "page_rule": heading["number"], "detected_lang": detected},
    )


def _split_page(lines: list[str], start: int) -> tuple[list[tuple[int, str, bool]], list[tuple[int, str]], str | None]:
    """The rule's paragraphs (each flagged when after the Subrules header), the navigation lines."""
    body: list[tuple[int, str, bool]] = []
    navigation: list[tuple[int, str]] = []
    header_lang: str | None = None
    in_subrules = False
    in_navigation = False
    for index in range(start, len(lines)):
        line = lines[index]
        if not line:
            continue
        if in_navigation:
            navigation.append((index, line))
            continue
        nav = NAVIGATION_HEADER.match(line)
        if nav and len(line) <= 80:
            in_navigation = True
            header_lang = header_lang or NAVIGATION_LANG.get(nav["other"].lower())
            continue
        sub_lang = _subrules_header_lang(line)
        if sub_lang:
            in_subrules = True
            header_lang = sub_lang
            continue
        body.append((index, line, in_subrules))
    return body, navigation, header_lang


def _subrules_header_lang(line: str) -> str | None:
    folded = line.strip().rstrip(":").casefold()
    for lang, words in SUBRULES_HEADERS.items():
        if folded in words:
            return lang
    return None


def _rules_of(number: str, heading_text: str, body: list[tuple[int, str, bool]], name: str) -> list[Rule]:
    """The page's rule and its subrules, numbering unlettered subrule paragraphs by position."""
    rule = make_rule(number, heading_text)
    rules = [rule]
    subrule_position = 0
    for index, line, after_subrules_header in body:
        text = nfc(line)
        if EXAMPLE_START.match(text):
            rules[-1].examples.append(text)
            continue
        printed = PRINTED_SUBRULE.match(text)
        if printed and printed["number"].startswith(number) and rule_kind(number) == "rule":
            rules.append(make_rule(printed["number"], printed["text"]))
            subrule_position += 1
            continue
        if after_subrules_header and rule_kind(number) == "rule":
            letter = subrule_letter(subrule_position)
            rules.append(make_rule(f"{number}{letter}", text, number_confidence=POSITIONAL_CONFIDENCE))
            subrule_position += 1
            continue
        if len(rules) > 1:
            raise ParseError(f"{name}: line {index + 1}: text after the subrules is neither a subrule nor an example")
        # A rule without subrules: its paragraphs are its text; the heading stays its title.
        rule.text = f"{rule.text}\n{text}" if rule.text else text
    return finish_rules(rules)


def _listed_numbers(navigation: list[tuple[int, str]], name: str) -> list[str]:
    listed = []
    for _index, line in navigation:
        match = LISTED_NUMBER.match(line)
        if match:
            listed.append(match["number"])
    if navigation and not listed:
        raise ParseError(f"{name}: line {navigation[0][0] + 1}: navigation list holds no rule numbers")
    return listed


def _detect_language(text: str) -> str | None:
    """The page language among those the site publishes, from the text itself."""
    if not text.strip():
        return None
    lang, _ = _language_identifier().classify(unicodedata.normalize("NFC", text))
    return lang


@lru_cache(maxsize=1)
def _language_identifier():
    """py3langid restricted to the languages these sites publish (its model loads once)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(SUPPORTED_LANGS))
    return identifier
