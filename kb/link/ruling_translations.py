"""Which English ruling a ruling seen elsewhere is: the same text, or a translation of it. Pure.

Three ways, tried in this order for each candidate:

- ``same-text``: an English candidate whose identity text (typography erased) equals an English
  ruling's is a sighting of that ruling, not a translation. A capture that lost mana symbols
  ("with  in the cost") still matches when the texts agree once symbols are set aside; the
  symbols are then restored from the English text by ``kb.normalise.losses``.
- ``card-date-order``: a translated candidate whose card (oracle_id) and date are known is
  paired with the English ruling of the same card and date at the same rank, when both sides
  have the same number of rulings for that card and date (release notes keep the order), and no
  candidate's content names another of them than the one at its rank (listed in another order).
- ``content``: otherwise, scored on what survives translation: rule numbers, braced symbols,
  numbers, the length ratio expected for the language, and, when the caller passes a bilingual
  term list (e.g. the CR glossary), the game terms both texts use. Each English ruling is
  given to at most one candidate, best scores first; weak or tied evidence leaves a candidate
  unmatched rather than guessed.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from cydifflib import SequenceMatcher

from kb.normalise.localized_symbols import localized_symbols_to_braces
from kb.normalise.losses import restore_from_reference
from kb.normalise.names import name_key
from kb.normalise.text import identity_key
from kb.records import RulingRecord

SAME_TEXT = "same-text"
CARD_DATE_ORDER = "card-date-order"
CONTENT = "content"

# A content match needs at least this score, and this lead over the next English ruling.
CONTENT_THRESHOLD = 0.45
# Weight of the evidence nobody has: a pair with little to compare cannot score high.
UNKNOWN_WEIGHT = 1.0
MINIMUM_EVIDENCE = 2.0
CONTENT_MARGIN = 0.1
# English candidates that are not the same text: how alike the words must be to be a variant.
ENGLISH_VARIANT_RATIO = 0.85

# Characters of a translation per character of English, roughly (CJK scripts are dense).
EXPECTED_LENGTH_RATIO = {"zhs": 0.3, "zht": 0.3, "ja": 0.45, "ko": 0.5, "ru": 1.1}
DEFAULT_LENGTH_RATIO = 1.15

_RULE_NUMBER = re.compile(r"(?<![\d.])\d{3}\.\d+[a-z]?(?![\d])")
_SYMBOL = re.compile(r"\{[^{}\s]{1,12}\}")
_NUMBER = re.compile(r"(?<![\d.{/])[+-]?\d+(?:/[+-]?\d+)?(?![\d}])")


@dataclass(frozen=True)
class EnglishRuling:
    ruling_id: str | int
    oracle_id: str | None
    published_at: str | None
    position: int
    text: str


@dataclass
class Match:
    """The verdict on one candidate. ``ruling_id`` is None when nothing matched well enough.

    ``status``: ``sighting`` (same English text), ``sighting-symbols-dropped`` (same text but the
    candidate lost symbols; ``restored_text`` has them back when they could be restored),
    ``variant`` (English, nearly the same words), ``translation``, ``ambiguous`` (several English
    rulings fit equally; the first is given) or ``unmatched``.
    """

    candidate_index: int
    ruling_id: str | int | None
    method: str | None
    confidence: float
    status: str
    restored_text: str | None = None
    missing_symbols: list[str] = field(default_factory=list)


def _without_symbols(identity: str) -> str:
    return " ".join(_SYMBOL.sub(" ", identity).split())


# ---------------------------------------------------------------- same text


def _same_text_match(index: int, candidate: RulingRecord, english: list[EnglishRuling],
                     by_identity: dict[str, list[EnglishRuling]],
                     by_symbol_blind: dict[str, list[EnglishRuling]]) -> Match | None:
    identity = identity_key(candidate.text)
    exact = _prefer_card(by_identity.get(identity, []), candidate)
    if exact:
        return _sighting(index, exact, "sighting", 1.0)
    blind = _prefer_card(by_symbol_blind.get(_without_symbols(identity), []), candidate)
    if not blind:
        return None
    match = _sighting(index, blind, "sighting-symbols-dropped", 0.95)
    restored = restore_from_reference(candidate.text, blind[0].text)
    if restored is not None:
        match.restored_text, match.missing_symbols = restored[0], list(restored[1])
    return match


def _prefer_card(rulings: list[EnglishRuling], candidate: RulingRecord) -> list[EnglishRuling]:
    """Of English rulings with the candidate's text, those of its card (when known), in order."""
    if candidate.oracle_id:
        own = [r for r in rulings if r.oracle_id == candidate.oracle_id]
        if own:
            rulings = own
    if candidate.published_at:
        same_date = [r for r in rulings if r.published_at == candidate.published_at]
        if same_date:
            rulings = same_date
    return rulings


def _sighting(index: int, rulings: list[EnglishRuling], status: str, confidence: float) -> Match:
    if len({r.ruling_id for r in rulings}) > 1:
        # The same text is a ruling of several cards and the candidate's card is unknown.
        return Match(index, rulings[0].ruling_id, SAME_TEXT, round(confidence / len(rulings), 3), "ambiguous")
    return Match(index, rulings[0].ruling_id, SAME_TEXT, confidence, status)


# ---------------------------------------------------------------- content features


@dataclass(frozen=True)
class _Features:
    rules: Counter
    symbols: Counter
    numbers: Counter
    length: int


def _features(text: str, lang: str) -> _Features:
    text, _warnings = localized_symbols_to_braces(text, lang)
    rules = Counter(_RULE_NUMBER.findall(text))
    symbols = Counter(s.upper() for s in _SYMBOL.findall(text))
    rest = _SYMBOL.sub(" ", _RULE_NUMBER.sub(" ", text))
    numbers = Counter(_NUMBER.findall(rest))
    return _Features(rules, symbols, numbers, len("".join(text.split())))


def _jaccard(a: Counter, b: Counter) -> float:
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 0.0


def _length_plausibility(candidate_length: int, english_length: int, lang: str) -> float:
    if not candidate_length or not english_length:
        return 0.0
    expected = EXPECTED_LENGTH_RATIO.get(lang, DEFAULT_LENGTH_RATIO)
    deviation = abs(math.log((candidate_length / english_length) / expected))
    return max(0.0, 1.0 - deviation / math.log(2.5))


def _term_agreement(candidate_text: str, english_text: str,
                    lexicon: list[tuple[re.Pattern[str], str]]) -> float | None:
    """Jaccard of the glossary entries each text uses (None when neither uses any).

    Both directions count: a term the candidate uses that the English text lacks is evidence
    against the pair just as much as a missing one.
    """
    in_english = {i for i, (pattern, _) in enumerate(lexicon) if pattern.search(english_text)}
    in_candidate = {i for i, (_, localized) in enumerate(lexicon) if localized in candidate_text}
    union = in_english | in_candidate
    return len(in_english & in_candidate) / len(union) if union else None


def content_score(candidate: RulingRecord, english: EnglishRuling,
                  lexicon: list[tuple[re.Pattern[str], str]] | None = None) -> tuple[float, bool]:
    """(score 0..1, whether there was enough to compare beyond length and bare numbers)."""
    lang = candidate.lang
    mine, theirs = _features(candidate.text, lang), _features(english.text, "en")
    # Length says little (most rulings are one to three sentences), so it weighs least.
    parts: list[tuple[float, float]] = [(_length_plausibility(mine.length, theirs.length, lang), 0.5)]
    for own, other, weight in ((mine.rules, theirs.rules, 3.0), (mine.symbols, theirs.symbols, 2.0),
                               (mine.numbers, theirs.numbers, 1.0)):
        if own or other:
            parts.append((_jaccard(own, other), weight))
    if lexicon:
        agreement = _term_agreement(candidate.text, english.text, lexicon)
        if agreement is not None:
            parts.append((agreement, 3.0))
    # Numbers alone ("+1/+1" is in countless rulings) are not enough to pair two texts: a rule
    # number, a symbol or the game terms must be there to compare too.
    evidence = sum(weight for _, weight in parts[1:]) >= MINIMUM_EVIDENCE
    score = sum(value * weight for value, weight in parts) / (sum(weight for _, weight in parts) + UNKNOWN_WEIGHT)
    return round(score, 3), evidence


def _english_variant_score(candidate: RulingRecord, english: EnglishRuling) -> float:
    return SequenceMatcher(None, identity_key(candidate.text).split(), identity_key(english.text).split()).ratio()


class CompiledLexicon(list):
    """A lexicon already compiled by ``compile_lexicon``: callers matching many groups against
    one language compile it once."""


def compile_lexicon(pairs: Iterable[tuple[str, str]]) -> list[tuple[re.Pattern[str], str]]:
    """English→localized term pairs (e.g. CR glossary names) as the matcher uses them.

    Longer terms first, so "Mana Ability" counts before "Ability". Localized terms with
    alternatives ("押注（用作动词）/赌注…") keep their first form without the note.
    """
    compiled: list[tuple[re.Pattern[str], str]] = []
    for english_term, localized in sorted(pairs, key=lambda pair: -len(pair[0])):
        localized = re.split(r"[（(/／]", localized)[0].strip()
        english_term = english_term.strip()
        if not english_term or not localized:
            continue
        pattern = re.compile(rf"\b{re.escape(english_term)}(?:s|es|ed|ing)?\b", re.IGNORECASE)
        compiled.append((pattern, localized))
    return compiled


# ---------------------------------------------------------------- matching


def _order_matches(candidates: list[RulingRecord], english: list[EnglishRuling], pending: list[int],
                   lexicon: list[tuple[re.Pattern[str], str]] | None) -> dict[int, Match]:
    """Pair candidates with English rulings of the same card and date by rank, where counts agree."""
    candidate_groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index in pending:
        candidate = candidates[index]
        if candidate.oracle_id and candidate.published_at:
            candidate_groups[(candidate.oracle_id, candidate.published_at)].append(index)
    english_groups: dict[tuple[str | None, str | None], list[EnglishRuling]] = defaultdict(list)
    for ruling in english:
        english_groups[(ruling.oracle_id, ruling.published_at)].append(ruling)
    matches: dict[int, Match] = {}
    for key, indexes in candidate_groups.items():
        rulings = sorted(english_groups.get(key, []), key=lambda r: r.position)
        if len(rulings) != len(indexes):
            continue  # a ruling was added or dropped: rank says nothing, content decides
        ranked = sorted(indexes, key=lambda i: candidates[i].position)
        scores = [[content_score(candidates[index], ruling, lexicon) for ruling in rulings] for index in ranked]
        if any(_content_contradicts_rank(row, rank) for rank, row in enumerate(scores)):
            continue  # listed in another order: content decides
        for rank, (index, ruling) in enumerate(zip(ranked, rulings, strict=True)):
            score, evidence = scores[rank][rank]
            # Rank is strong evidence; content can only raise or lower it a little.
            confidence = 0.75 + 0.2 * score if evidence else 0.75
            matches[index] = Match(index, ruling.ruling_id, CARD_DATE_ORDER, round(confidence, 3), "translation")
    return matches


def _content_contradicts_rank(scores: list[tuple[float, bool]], rank: int) -> bool:
    """Whether a candidate's content names another English ruling of its card and date than the
    one at its rank: that one scores as a content match would (``CONTENT_THRESHOLD``, ahead by
    ``CONTENT_MARGIN``), the one at its rank does not. Two rulings listed in another order were
    paired crosswise by rank, each a translation at confidence ~0.77 (a review: real Chinese
    convoke rulings against their English ones, two swapped)."""
    own, own_evidence = scores[rank]
    own = own if own_evidence else 0.0
    return own < CONTENT_THRESHOLD and any(
        evidence and score >= CONTENT_THRESHOLD and score - own >= CONTENT_MARGIN
        for other, (score, evidence) in enumerate(scores) if other != rank
    )


def _content_matches(candidates: list[RulingRecord], english: list[EnglishRuling], pending: list[int],
                     lexicon: list[tuple[re.Pattern[str], str]] | None) -> dict[int, Match]:
    """Greedy one-to-one assignment by content score, best pairs first."""
    scored: list[tuple[float, int, int]] = []  # (score, candidate index, English index)
    runner_up: dict[int, tuple[float, float]] = {}
    for index in pending:
        candidate = candidates[index]
        pool = [i for i, r in enumerate(english) if not candidate.oracle_id or r.oracle_id == candidate.oracle_id]
        scores = []
        for english_index in pool:
            if candidate.lang == "en":
                score, evidence = _english_variant_score(candidate, english[english_index]), True
                if score < ENGLISH_VARIANT_RATIO:
                    continue
            else:
                score, evidence = content_score(candidate, english[english_index], lexicon)
                if not evidence or score < CONTENT_THRESHOLD:
                    continue
            scores.append((score, index, english_index))
        scores.sort(reverse=True)
        if scores:
            second = next((s for s, _, e in scores[1:] if identity_key(english[e].text) != identity_key(english[scores[0][2]].text)), 0.0)
            runner_up[index] = (scores[0][0], second)
        scored.extend(scores)
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    taken_candidates: set[int] = set()
    taken_english: set[int] = set()
    matches: dict[int, Match] = {}
    for score, index, english_index in scored:
        if index in taken_candidates or english_index in taken_english:
            continue
        best, second = runner_up[index]
        taken_candidates.add(index)
        taken_english.add(english_index)
        english_ruling = english[english_index]
        if candidates[index].lang == "en":
            status = "variant"
        elif best - second < CONTENT_MARGIN:
            status = "ambiguous"
        else:
            status = "translation"
        matches[index] = Match(index, english_ruling.ruling_id, CONTENT, round(score, 3), status)
    return matches


def match_translations(candidates: list[RulingRecord], english: list[EnglishRuling],
                       lexicon: Iterable[tuple[str, str]] | None = None) -> list[Match]:
    """One Match per candidate, in candidate order (``ruling_id`` None where nothing fits).

    ``lexicon``: optional English→localized term pairs (the CR glossary of that language) that
    make content matching of translations much sharper.
    """
    if lexicon and not isinstance(lexicon, CompiledLexicon):
        lexicon = CompiledLexicon(compile_lexicon(lexicon))
    compiled = list(lexicon) if lexicon else None
    by_identity: dict[str, list[EnglishRuling]] = defaultdict(list)
    by_symbol_blind: dict[str, list[EnglishRuling]] = defaultdict(list)
    for ruling in english:
        identity = identity_key(ruling.text)
        by_identity[identity].append(ruling)
        by_symbol_blind[_without_symbols(identity)].append(ruling)

    matches: dict[int, Match] = {}
    for index, candidate in enumerate(candidates):
        if candidate.lang == "en":
            same = _same_text_match(index, candidate, english, by_identity, by_symbol_blind)
            if same is not None:
                matches[index] = same
    pending = [i for i in range(len(candidates)) if i not in matches and candidates[i].lang != "en"]
    matches.update(_order_matches(candidates, english, pending, compiled))
    taken = {m.ruling_id for m in matches.values() if m.method != SAME_TEXT}
    pending = [i for i in range(len(candidates)) if i not in matches]
    free_english = [r for r in english if r.ruling_id not in taken]
    matches.update(_content_matches(candidates, free_english, pending, compiled))
    return [
        matches.get(index, Match(index, None, None, 0.0, "unmatched"))
        for index in range(len(candidates))
    ]


def confined_to_one_card(matches: list[Match], english: list[EnglishRuling], card_name: str | None,
                         names: dict[str, set[str]]) -> list[Match]:
    """The matches of translations whose card is unknown, kept only where they are of one card.

    Such translations are matched against every card's English rulings of their dates, and the
    rulings of a mechanic read the same on every card that has it (Convoke's, on every convoke
    card of a set): the Chinese notes of 烈士英魂 (Martyr's Soul) matched Lethal Scheme's. The
    card is the one card whose rulings the matches of texts no other card prints lead to, and
    which has no name in the translation's language other than ``card_name`` (``names``: each
    card's names in that language); a match of a shared text goes to that card's ruling of the
    text, or to none. Without such a card no match is kept: whose rulings they are cannot be told."""
    by_id: dict[str | int | None, EnglishRuling] = {ruling.ruling_id: ruling for ruling in english}
    cards_of_text: dict[str, set[str | None]] = defaultdict(set)
    for ruling in english:
        cards_of_text[identity_key(ruling.text)].add(ruling.oracle_id)
    linked = [m for m in matches if m.ruling_id is not None]
    own = [m for m in linked if len(cards_of_text[identity_key(by_id[m.ruling_id].text)]) == 1]
    cards = {by_id[m.ruling_id].oracle_id for m in own}
    kept: dict[int, Match] = {}
    if len(cards) == 1:
        (card,) = cards
        known = {name_key(name) for name in names.get(card or "", set())}
        if not known or name_key(card_name) in known:
            of_card = {identity_key(r.text): r.ruling_id for r in english if r.oracle_id == card}
            for match in linked:
                ruling_id = of_card.get(identity_key(by_id[match.ruling_id].text))
                if ruling_id is not None:
                    kept[match.candidate_index] = replace(match, ruling_id=ruling_id)
    return [kept.get(m.candidate_index, m if m.ruling_id is None else Match(m.candidate_index, None, None, 0.0, "unmatched"))
            for m in matches]
