"""The keyword dictionary: each translated keyword with its English name (pure).

Keyword actions (701) and keyword abilities (702) are rules whose text is only their name
("702.78. 协力", "702.78. Conspire"). Once a translated rule is linked to its English rule, the
two titles are a translation pair. Glossary links add the pairs whose English term is such a
keyword title.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kb.link.cr_glossary_links import GlossaryLink
from kb.link.cr_translations import RuleLink
from kb.normalise.text import face_pairs, restored_lines
from kb.records import FACE_TEXT_SEPARATOR, CRDocument

KEYWORD_SECTIONS = ("701", "702")
LINKED_STATUSES = ("same", "stale", "renumbered")
TRANSLATOR_NOTE = re.compile(r"[（(]\s*译(?:者)?注[:：].*?[)）]")
# A glossary heading's tag of what kind of word it is: "蛮化（动作）", "循环（异能）".
TRAILING_TAG = re.compile(r"\s*[（(][^（）()]*[)）]\s*$")


@dataclass
class Keyword:
    lang: str
    term: str
    en_term: str
    rule_number: str
    source: str  # rule-title | glossary | rule-title+glossary | rule-list


def build_keyword_dictionary(
    translated: CRDocument,
    english: CRDocument,
    links: list[RuleLink],
    glossary_links: list[GlossaryLink] | None = None,
) -> list[Keyword]:
    """One Keyword per (term, English term) pair, in rule order; glossary pairs after them."""
    english_rules = {rule.number: rule for rule in english.rules}
    translated_rules = {rule.number: rule for rule in translated.rules}
    keywords: dict[tuple[str, str], Keyword] = {}
    for link in links:
        if link.status not in LINKED_STATUSES or not link.en_number:
            continue
        rule, en_rule = translated_rules.get(link.number), english_rules.get(link.en_number)
        if rule is None or en_rule is None or not _is_keyword_rule(rule.number, rule.kind):
            continue
        if not rule.title or not en_rule.title:
            continue
        term = _clean(rule.title)
        keywords.setdefault(
            (term, en_rule.title), Keyword(translated.lang, term, en_rule.title, en_rule.number, "rule-title")
        )
    keyword_titles = {
        rule.title.casefold(): rule
        for rule in english.rules
        if rule.title and _is_keyword_rule(rule.number, rule.kind)
    }
    for glossary_link in glossary_links or []:
        en_rule = keyword_titles.get(glossary_link.en_term.casefold())
        if en_rule is None or en_rule.title is None:
            continue
        term = _clean(glossary_link.term)
        key = (term, en_rule.title)
        if key in keywords:
            keywords[key].source = "rule-title+glossary"
        else:
            keywords[key] = Keyword(translated.lang, term, en_rule.title, en_rule.number, "glossary")
    return list(keywords.values())


def _is_keyword_rule(number: str, kind: str) -> bool:
    return kind == "rule" and number.split(".")[0] in KEYWORD_SECTIONS


def _clean(term: str) -> str:
    return TRANSLATOR_NOTE.sub("", term).strip()


def glossary_keyword_term(term: str) -> str | None:
    """A translated glossary heading as a keyword's term: its translator's note and its tag of
    what kind of word it is left out; None for a heading of two words ("反击/指示物", counter a
    spell and a counter; "使用/场上", play and in play), which of the two is the keyword's the
    heading does not say (searching "场上" led to Play)."""
    cleaned = TRAILING_TAG.sub("", _clean(term)).strip() or _clean(term)
    return None if "/" in cleaned or not cleaned else cleaned


# -- keywords mined from localized printings ----------------------------------------------------
#
# A localized printing's printed text starts with the same keyword line as the English Oracle
# text: "Flying, trample" is printed "Vol, piétinement", "飛行、トランプル". Pairing the items of
# the two lines gives the keyword in that language. Only printings whose text has the same
# shape as the Oracle text (same faces, a line for each leading keyword line, the same number
# of items on it) are read. An MTGJSON text that lost its line breaks ("InitiativeMue {4}{R}…") is
# read as its lines only where each break is plain and they are as many as the Oracle text's
# (``restored_lines``), and only when every keyword line of it then reads as its keywords: a
# text read any other way gives nothing.

ITEM_SEPARATORS = re.compile(r"\s*[,;，、；]\s*")
REMINDER = re.compile(r"\s*[（(][^()（）]*[)）]\s*")
TRAILING = re.compile(r"[\s.。．]+$")
# A keyword with a parameter ("Ward {2}", "Protection from red", "Bushido 1") is not a bare term.
NOT_A_TERM = re.compile(r"[{}\d—–:：]")
MAX_TERM_CHARS = 40
# A keyword and a cost in words after a dash ("Morph—Reveal a white card in your hand"): the printed
# term is what comes before the printed dash ("Mue — Révélez…", "Metamorfosis—Muestra…").
# Chinese printings set a cost in words off with a wave dash ("变身～从你手上展示一张白色牌").
DASHES = "—–―～"
WITH_DASH_COST = re.compile(rf"^(?P<keyword>[^{DASHES}]*?\S)\s*[{DASHES}]\s*\S")
DASH_COST = "—"  # the parameter english_keywords gives a keyword with a cost in words


@dataclass(frozen=True)
class PrintedKeyword:
    """One observation: this printing prints ``term`` where the Oracle text has ``en_term``."""

    lang: str
    term: str
    en_term: str
    rule_number: str
    printing_id: str
    source: str  # the source of the printing: scryfall, mtgjson, gatherer


@dataclass
class KeywordEntry:
    """A dictionary entry with the evidence behind it."""

    lang: str
    term: str
    en_term: str
    rule_number: str
    sources: list[str]
    printings: int  # printings that print this term for this keyword
    dissent: int  # printings of the same language that print another term for it
    status: str  # "agreed" (2+ printings or a CR translation), "single printing"


def keyword_items(line: str) -> list[str]:
    """The items of a keyword line, reminder text and final stops removed. A keyword with a cost
    in words after a dash is the line's one item, commas of its cost and all ("Оборотень —
    Покажите белую карту, находящуюся в вашей руке")."""
    line = REMINDER.sub(" ", line).strip()
    if (dashed := WITH_DASH_COST.match(line)) and not ITEM_SEPARATORS.search(dashed["keyword"]):
        return [TRAILING.sub("", line).strip()]
    return [TRAILING.sub("", item).strip() for item in ITEM_SEPARATORS.split(line) if item.strip()]


# A keyword and its number ("Graft 2", "Bloodthirst 1"): the same number follows the printed term,
# spaced or not, in any digits ("移植２").
NUMBERED = re.compile(r"^(?P<keyword>.*?\S)\s+(?P<number>\d+)$")
PRINTED_NUMBERED = re.compile(r"^(?P<keyword>.*?\D)\s*(?P<number>\d+)$")
# A keyword and its mana cost ("Morph {4}{R}", "Equip {3}"): the same cost follows the printed term
# ("Mue {4}{R}", "Equipar {3}", "装備{3}").
WITH_COST = re.compile(r"^(?P<keyword>.*?\S)\s*(?P<cost>(?:\{[^{}]+\})+)$")


def english_keywords(line: str, titles: dict[str, tuple[str, str]]) -> list[tuple[str, ...]] | None:
    """(title, rule number, its parameter or "") per item when every item of ``line`` is a
    keyword, bare or with a number ("Graft 2": "2"), a mana cost ("Morph {4}{R}": "{4}{R}") or a
    cost in words after a dash ("Morph—Reveal…": DASH_COST), else None."""
    items = keyword_items(line)
    found: list[tuple[str, ...]] = []
    for item in items:
        meaning, parameter = titles.get(item.casefold()), ""
        for form, group in ((NUMBERED, "number"), (WITH_COST, "cost"), (WITH_DASH_COST, None)):
            if meaning is None and (match := form.match(item)):
                meaning, parameter = titles.get(match["keyword"].casefold()), match[group] if group else DASH_COST
        if meaning is None:
            return None
        found.append((*meaning, parameter))
    return found or None


def mine_printing(
    printing_id: str,
    lang: str,
    printed_text: str | None,
    oracle_text: str | None,
    titles: dict[str, tuple[str, str]],
    source: str,
) -> list[PrintedKeyword]:
    """The keywords one localized printing prints, paired with the Oracle text's keyword lines."""
    if not printed_text or not oracle_text or lang == "en":
        return []
    found = []
    for printed, oracle in face_pairs(printed_text, oracle_text):
        printed_lines = [line for line in printed.splitlines() if line.strip()]
        oracle_lines = [line for line in oracle.splitlines() if line.strip()]
        restored = restored_lines(printed.strip(), len(oracle_lines), oracle_lines)
        if restored is not None:
            found.extend(_restored_keywords(restored, oracle_lines, titles, lang, printing_id, source))
            continue
        # Same number of lines: every line pairs with its own. Otherwise (a printed text that
        # carries more, like a back face's type line) only the leading keyword lines, and only
        # when the printed face has a line for each and one more if the Oracle text has.
        leading = 0
        while leading < len(oracle_lines) and english_keywords(oracle_lines[leading], titles) is not None:
            leading += 1
        if len(printed_lines) == len(oracle_lines):
            leading = len(oracle_lines)
        elif leading == 0 or len(printed_lines) < leading + (leading < len(oracle_lines)):
            continue
        for printed_line, oracle_line in zip(printed_lines[:leading], oracle_lines[:leading], strict=True):
            keywords = english_keywords(oracle_line, titles)
            if keywords is None:
                continue
            found.extend(_line_keywords(printed_line, keywords, lang, printing_id, source) or [])
    return found


# What ends a sentence or separates items: never inside a keyword term.
NOT_IN_A_TERM = re.compile(r"[.。．!?！？,;，、；()（）]")


def mine_glued_first_line(
    printing_id: str,
    lang: str,
    printed_text: str | None,
    oracle_text: str | None,
    titles: dict[str, tuple[str, str]],
    known: dict[tuple[str, str], str],
    source: str,
) -> list[PrintedKeyword]:
    """A first keyword line glued to the next in a printed face that lost its line breaks, found
    through the next line's keyword whose term in this language is agreed elsewhere (``known``:
    (language, English keyword) -> term): "接死変異 ― あなたの…" of "Deathtouch\nMorph—Reveal a black
    card…", 変異 being agreed as Morph, gives 接死 for Deathtouch. Only where the Oracle face's first
    line is one bare keyword and its second one keyword with a parameter that the printed face
    carries right after the known term (the same cost, number or dash: where the glued line ends
    is then plain); a face that ``restored_lines`` reads as its lines is ``mine_printing``'s. The
    known term is this printing's too: 変異 was said printed on three cards where six print it,
    three of them glued after a first keyword (a foreign players' review)."""
    if not printed_text or not oracle_text or lang == "en":
        return []
    found = []
    for printed, oracle in face_pairs(printed_text, oracle_text):
        printed = printed.strip()
        oracle_lines = [line for line in oracle.splitlines() if line.strip()]
        if "\n" in printed or len(oracle_lines) < 2 or restored_lines(printed, len(oracle_lines), oracle_lines) is not None:
            continue
        first, second = english_keywords(oracle_lines[0], titles), english_keywords(oracle_lines[1], titles)
        if not first or not second or len(first) != 1 or len(second) != 1 or first[0][2] or not second[0][2]:
            continue
        (en_term, rule_number, _none), (next_term, next_number, parameter) = first[0], second[0]
        glued = known.get((lang, next_term))
        at = printed.find(glued) if glued else -1
        if not glued or at <= 0:
            continue
        term, rest = printed[:at].strip(), printed[at + len(glued):].lstrip()
        if parameter == DASH_COST:
            carried = rest[:1] in DASHES
        elif parameter.isdigit():
            number = re.match(r"\d+", rest)  # in any digits ("移植２")
            carried = number is not None and int(number.group()) == int(parameter)
        else:
            carried = rest.startswith(parameter)
        if carried and term and len(term) <= MAX_TERM_CHARS and not NOT_A_TERM.search(term) and not NOT_IN_A_TERM.search(term):
            found.append(PrintedKeyword(lang, term, en_term, rule_number, printing_id, source))
            found.append(PrintedKeyword(lang, glued, next_term, next_number, printing_id, source))
    return found


def _restored_keywords(
    lines: list[str], oracle_lines: list[str], titles: dict[str, tuple[str, str]],
    lang: str, printing_id: str, source: str,
) -> list[PrintedKeyword]:
    """The keywords of a text read as its lines (``restored_lines``): each keyword line's, when
    every keyword line reads as its keywords, every item a short term; else none. A line that
    does not (a piece too long to be a keyword line, items that do not match) says the text was
    cut somewhere else than where its lines ended, and then no line of it is trusted."""
    found: list[PrintedKeyword] = []
    for line, oracle_line in zip(lines, oracle_lines, strict=True):
        keywords = english_keywords(oracle_line, titles)
        if keywords is None:
            continue
        line_keywords = _line_keywords(line, keywords, lang, printing_id, source)
        if line_keywords is None or len(line_keywords) != len(keywords):
            return []
        found.extend(line_keywords)
    return found


def _printed_term(item: str, parameter: str) -> str:
    """The term of a printed item whose English keyword has ``parameter`` (``english_keywords``):
    the item without that same number or mana cost, or what precedes its dash; "" when the item
    does not carry it ("Pfropfen 2" of "Graft 2": Pfropfen; "Mue {4}{R}" of "Morph {4}{R}": Mue)."""
    if not parameter:
        return item
    if parameter == DASH_COST:
        match = WITH_DASH_COST.match(item)
        return match["keyword"].strip() if match else ""
    if parameter.isdigit():
        match = PRINTED_NUMBERED.match(item)
        return match["keyword"].strip() if match and int(match["number"]) == int(parameter) else ""
    match = WITH_COST.match(item)
    return match["keyword"].strip() if match and match["cost"] == parameter else ""


def _line_keywords(
    printed_line: str, keywords: list[tuple[str, ...]], lang: str, printing_id: str, source: str
) -> list[PrintedKeyword] | None:
    """The printed line's items read as ``keywords`` in order; None when their counts differ.
    A keyword with a parameter gives its term where the printed item carries the same one
    (``_printed_term``)."""
    items = keyword_items(printed_line)
    if len(items) != len(keywords):
        return None
    found = []
    for item, (en_term, rule_number, *parameter) in zip(items, keywords, strict=True):
        term = _printed_term(item, parameter[0] if parameter else "")
        if term and len(term) <= MAX_TERM_CHARS and not NOT_A_TERM.search(term):
            found.append(PrintedKeyword(lang, term, en_term, rule_number, printing_id, source))
    return found


def agree(
    observations: list[PrintedKeyword],
    translations: list[Keyword] | None = None,
) -> list[KeywordEntry]:
    """Entries the evidence supports, in (language, English term, term) order.

    A printed term is kept when two or more printings print it, when a translated CR gives the
    same pair, or when it is the only term any printing of that language prints for the keyword
    (a "single printing" entry, said so on the page). A term that one printing prints while
    others agree on another is that printing's oddity, not a keyword: it is dropped.
    """
    def key(text: str) -> str:
        return " ".join(text.casefold().split())

    printings: dict[tuple[str, str, str], set[str]] = {}
    sources: dict[tuple[str, str, str], set[str]] = {}
    shown: dict[tuple[str, str, str], tuple[str, str]] = {}
    for seen in observations:
        pair = (seen.lang, seen.en_term, key(seen.term))
        printings.setdefault(pair, set()).add(seen.printing_id)
        sources.setdefault(pair, set()).add(seen.source)
        shown.setdefault(pair, (seen.term, seen.rule_number))
    from_cr: set[tuple[str, str, str]] = set()
    for keyword in translations or []:
        pair = (keyword.lang, keyword.en_term, key(keyword.term))
        from_cr.add(pair)
        for source in keyword.source.split("+"):
            sources.setdefault(pair, set()).add("cr-" + source)
        shown.setdefault(pair, (keyword.term, keyword.rule_number))
    per_keyword: dict[tuple[str, str], int] = {}
    for (lang, en_term, _), ids in printings.items():
        per_keyword[(lang, en_term)] = per_keyword.get((lang, en_term), 0) + len(ids)
    entries = []
    for pair in sorted(shown):
        lang, en_term, _ = pair
        count = len(printings.get(pair, ()))
        dissent = per_keyword.get((lang, en_term), 0) - count
        if pair in from_cr or count >= 2:
            status = "agreed"
        elif count == 1 and dissent == 0:
            status = "single printing"
        else:
            continue
        term, number = shown[pair]
        entries.append(KeywordEntry(lang, term, en_term, number, sorted(sources[pair]), count, dissent, status))
    return entries


def _term_key(text: str) -> str:
    return " ".join(text.casefold().split())


def terms_known(entries: list[KeywordEntry]) -> dict[tuple[str, str], str]:
    """(language, English keyword) -> its one agreed term in that language (a keyword two agreed
    terms print, "Initiative" and "Première frappe", has none here)."""
    terms: dict[tuple[str, str], set[str]] = {}
    for entry in entries:
        if entry.status == "agreed":
            terms.setdefault((entry.lang, entry.en_term), set()).add(entry.term)
    return {key: next(iter(found)) for key, found in terms.items() if len(found) == 1}


def known_terms(entries: list[KeywordEntry]) -> dict[tuple[str, str], tuple[str, str]]:
    """(language, folded term) -> (English keyword, rule number) for agreed entries whose term
    means one keyword only."""
    meanings: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for entry in entries:
        if entry.status == "agreed":
            meanings.setdefault((entry.lang, _term_key(entry.term)), set()).add((entry.en_term, entry.rule_number))
    return {key: next(iter(found)) for key, found in meanings.items() if len(found) == 1}


def mine_siblings(
    printings: list[tuple[str, str, str, str]],
    known: dict[tuple[str, str], tuple[str, str]],
) -> list[PrintedKeyword]:
    """Keywords from one printing of a card in several languages whose Oracle text we lack
    (Gatherer's German, French and Japanese pages of Magic 2012 #165): ``printings`` are
    (printing id, language, printed text, source).

    A printing's leading line reads as keywords when every item is an agreed term of its
    language ("Fliegend" = Flying). Each printing's line is paired with the keywords the *other*
    printings' same line reads as, when they all read it alike: a printing never confirms
    itself, and printings that disagree give nothing.
    """
    lines: dict[str, list[str]] = {}
    decoded: dict[str, list[tuple[tuple[str, str], ...]]] = {}
    for printing_id, lang, text, _source in printings:
        if FACE_TEXT_SEPARATOR in text:
            continue  # faces would have to be paired too; not guessed
        lines[printing_id] = [line for line in text.splitlines() if line.strip()]
        decoded[printing_id] = []
        for line in lines[printing_id]:
            items = keyword_items(line)
            found = [known.get((lang, _term_key(item))) for item in items]
            if not items or any(meaning is None for meaning in found):
                break
            decoded[printing_id].append(tuple(meaning for meaning in found if meaning is not None))
    observed: list[PrintedKeyword] = []
    for printing_id, lang, _text, source in printings:
        for index, line in enumerate(lines.get(printing_id, [])):
            readings = {
                keywords[index] for other, keywords in decoded.items()
                if other != printing_id and len(keywords) > index
            }
            if len(readings) != 1:
                break
            line_keywords = _line_keywords(line, list(readings.pop()), lang, printing_id, source)
            if line_keywords is None:
                break
            observed.extend(line_keywords)
    return observed
