"""Which Comprehensive Rules a ruling relies on: rule numbers it cites, keywords and rules it names.

Pure: texts and a ``KeywordIndex`` (``kb.link.keyword_vocabulary``: the keywords of every English
version, with ``STOP_WORDS``, ``AMBIGUOUS`` and ``VERB_ABILITIES``) in, ``RuleCitation``s out.

Two methods:

- ``cited``: rule numbers printed in the ruling ("see rule 702.19b"), through ``kb.normalise.refs``.
- ``keyword``: keyword abilities (702.x) and keyword actions (701.x) named in the ruling, looked
  up in the English version in force on the ruling's date, because the numbers move: "connive"
  is 701.47 in a ruling of 2025 and 701.50 in one of 2026-01-16 or later.
- ``term``: rules the glossary of that version names ("Legend Rule … See rule 704.5j",
  "State-Based Actions … See rule 704"), named in the ruling: ``keyword_vocabulary.NAMED_RULE_TERM``.

Keyword matching is deliberately conservative, because rulings are ordinary English:

- Whole words only, and never glued to a hyphen ("double-faced" is not the action "double").
- A capitalised keyword in mid-sentence, or one followed by a capitalised word, is part of a
  name ("Flying Men", "Jeskai Infiltrator"), not the keyword; the ruling's own card names can
  also be passed in and are masked first.
- ``STOP_WORDS``: keyword actions so generic that a link carries no information ("cast",
  "counter", "destroy", "exile", "play", …) are never linked.
- ``AMBIGUOUS``: keywords that are also everyday words ("protection", "flash", "fight",
  "vote", "support", "learn", "persist", …) are linked only in a keyword context: "has flash",
  "with flashback", "its echo cost", "discover 3", a quoted “vote” … and with lower confidence.
- Keyword actions are verbs and are matched inflected ("connives", "conniving", "scried");
  keyword abilities only where ``VERB_ABILITIES`` says the ability is used as a verb
  ("convoked", "unearthed"), since "enchanted" and "equipped" are not the keywords.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from kb.link.keyword_vocabulary import CRKeyword, KeywordIndex, VersionKeywords, base_form, words_of
from kb.normalise.losses import CASE_TWINS
from kb.normalise.refs import SUBRULE_LETTERS, extract_refs

# Words before a keyword that make it one: "has flying", "with flashback", "loses trample".
ABILITY_VERBS = frozenset(
    {"has", "have", "had", "having", "gain", "gains", "gained", "lose", "loses", "lost", "with", "without"}
)
# Words after it: "its echo cost", "the mentor ability", "discover 3", "ward {2}".
FOLLOWING_CONTEXT = re.compile(r"\s*(?:(?:abilit(?:y|ies)|costs?|triggers?|\d+|X|N)\b|\[|—|\{)", re.IGNORECASE)
# "protection from red" is the keyword; "protection" alone is as likely plain English.
PROTECTION_FROM = re.compile(r"\s+from\b", re.IGNORECASE)
# Phrases where a keyword's word means something else: "converted mana cost" (not "convert").
NOT_A_KEYWORD_AFTER = re.compile(r"\s+mana\s+(?:cost|value)\b", re.IGNORECASE)
# A word of a kind of card's name (the CR's "transforming double-faced card", 712.2): a ruling on
# such a card's mana value does not rely on the action that turns it over.
CARD_KIND_WORDS = {"transforming": re.compile(r"\s+double-faced\b", re.IGNORECASE)}
# "Double" is the keyword action where what is doubled is what 701.10 doubles: "doubling its power",
# "if a creature's power is less than 0 when it's doubled" (a 2018 ruling paraphrasing 701.9c, unlinked).
DOUBLED_WHAT = re.compile(
    r"\s+(?:(?:that|its|their|the|a|each|this)\s+)?(?:creature['’]s\s+|player['’]s\s+)?"
    r"(?:power|toughness|life total|damage|number of (?:[\w+/-]+ )?counters)\b", re.IGNORECASE)
DOUBLED_ALONE = re.compile(r"(?:\bit['’]s|\bis|\bare|\bwas|\bwere|\bbe|\bbeen)\s+$", re.IGNORECASE)
OPENING_QUOTES = "“\"‘'"
T = TypeVar("T")
CONTEXT_WORDS_BEFORE = 3

CITED_CONFIDENCE = 1.0
KEYWORD_CONFIDENCE = 0.9
KEYWORD_IN_CONTEXT_CONFIDENCE = 0.7
NAMED_RULE_CONFIDENCE = 0.9
# The version in force has no such keyword yet (a ruling's text was updated later).
LATER_VERSION_FACTOR = 0.8


@dataclass
class RuleCitation:
    """One rule a ruling relies on. ``version_id`` is the CR version whose numbering is meant."""

    number: str
    method: str  # "cited", "keyword" or "term" (a rule the glossary names: "the legend rule")
    confidence: float
    matched_text: str
    version_id: str | None = None
    # The version in force on the ruling's date; differs from ``version_id`` when a keyword the
    # ruling names did not exist yet then (its wording was updated later) and was found later.
    in_force_version_id: str | None = None


def link_ruling(
    text: str,
    published_at: str | None,
    keyword_index: KeywordIndex,
    card_names: Sequence[str] = (),
) -> list[RuleCitation]:
    """The rules ``text`` relies on, cited numbers first, then keywords in order of appearance."""
    version = keyword_index.in_force(published_at)
    citations = [
        RuleCitation(number=number, method="cited", confidence=CITED_CONFIDENCE, matched_text=number,
                     version_id=version.version_id if version else None,
                     in_force_version_id=version.version_id if version else None)
        # English: the words for "rule" in the CR's translations are not looked for (two
        # thirds of reading a ruling's cited numbers).
        for number in extract_refs(text, lang="en")
    ]
    seen = {(c.number, c.method) for c in citations}
    masked = _mask_names(text, card_names)
    words = WordRuns(masked)
    for citation in [*_keyword_citations(masked, keyword_index, version, words), *_named_citations(words, keyword_index, version),
                     *_symbol_citations(text, keyword_index, version)]:
        if (citation.number, citation.method) not in seen:
            seen.add((citation.number, citation.method))
            citations.append(citation)
    return citations


def numbers_read_ahead(
    citations: list[RuleCitation], position: dict[str, int], lineage_at: Callable[[int, str], str | None]
) -> list[RuleCitation]:
    """Cited numbers read in the next edition held where the one in force cannot be what the ruling
    meant (``lineage_at(position, number)``: the rule's identity in that edition, None where it
    has no such number). Release notes come out before the rules they are written for, and the
    editions between two held ones are not held:

    - a number the edition in force lacks and the next one has (a ruling of 2014-11-24 citing
      701.31a, Manifest, first in the rules of 2015-01-23) is read there, as a keyword the edition
      in force lacks is (``LATER_VERSION_FACTOR``);
    - a number the next edition gives to the rule a keyword or term of the same ruling names,
      where the edition in force gives it to a rule the ruling does not name (a ruling of
      2014-09-20 citing 702.36a about morph: 702.36a is Amplify in 2013, Morph in 2014-09-25) is
      read there: it was linked to Amplify (a review with constructed rulings). A number the
      edition in force gives to a rule the ruling names stays (a morph ruling citing 702.36b, Morph's
      in force, which the next edition gives to Megamorph: a code review).
    Only the next edition held: a number is a label in one version, and further on it may be
    anything. ``position``: each version id's place, oldest first."""
    if not any(citation.method == "cited" for citation in citations):
        return citations
    named = {lineage_at(position[c.version_id], c.number)
             for c in citations if c.method != "cited" and c.version_id in position} - {None}
    later = {at: version_id for version_id, at in position.items()}
    read: list[RuleCitation] = []
    for citation in citations:
        at = position.get(citation.version_id or "")
        if citation.method == "cited" and at is not None and at + 1 in later:
            here, ahead = lineage_at(at, citation.number), lineage_at(at + 1, citation.number)
            # A keyword names its rule (702.36), a citation may be of its subrule (702.36a).
            rule = citation.number.rstrip(SUBRULE_LETTERS)
            read_ahead = ahead is not None and ahead != here and (
                here is None or (lineage_at(at + 1, rule) in named and lineage_at(at, rule) not in named))
            if read_ahead:
                citation = replace(citation, version_id=later[at + 1], confidence=citation.confidence * LATER_VERSION_FACTOR)
        read.append(citation)
    return read


def read_back_by_identity(
    citations: list[RuleCitation], position: dict[str, int],
    lineage_at: Callable[[int, str], str | None], number_of: Callable[[int, str], str | None],
) -> list[RuleCitation]:
    """A keyword or term found only in a later edition, read in the edition in force where that
    edition holds the same rule (its lineage) under whatever number: a ruling of 2014 Scryfall
    reworded to say "mana value" relies on 2014's 202.3, which the glossary then called converted
    mana cost, not on 2021's at a lower confidence marked "not in the version then in force" (a
    judge's review). A rule the edition in force lacks (Manifest in 2014) stays where it was found.
    ``number_of(position, lineage)``: the rule's number in that edition, None where it has none."""
    read: list[RuleCitation] = []
    for citation in citations:
        if (citation.method != "cited" and citation.version_id != citation.in_force_version_id
                and citation.version_id in position and citation.in_force_version_id in position):
            lineage = lineage_at(position[citation.version_id], citation.number)
            then = number_of(position[citation.in_force_version_id], lineage) if lineage else None
            if then is not None:
                citation = replace(citation, number=then, version_id=citation.in_force_version_id,
                                   confidence=round(citation.confidence / LATER_VERSION_FACTOR, 6))
        read.append(citation)
    return read


def _named_citations(words: WordRuns, index: KeywordIndex, version: VersionKeywords | None) -> list[RuleCitation]:
    """Rules the ruling names as the glossary of the version in force names them, in the order it
    names them: "the legend rule" is 704.5j, "a state-based action" 704 (a judge asking which
    rulings rely on 704.5j found none: rulings cite no numbers, and these are no keywords).
    Then, where the version in force has no such name yet (a ruling's wording updated later, or
    written for rules to come: "double-faced card" in a ruling of 2011, with the rules of 2009 in
    force), as a later version's glossary first names them, numbered as that version numbers them
    and at ``LATER_VERSION_FACTOR`` of the confidence; not words the version in force names (its
    "summoning sickness" is 2009's "summoning sickness rule")."""
    if version is None:
        return []
    in_force = (_named_in(words, version.named_rules_by_first, _set_aside)
                if version.named_rules_first_words & words.words else [])
    citations = [RuleCitation(number=number, method="term", confidence=NAMED_RULE_CONFIDENCE, matched_text=matched,
                              version_id=version.version_id, in_force_version_id=version.version_id)
                 for _, _, matched, number in in_force]
    later = index.named_later(version)
    if later.keys().isdisjoint(words.words):
        return citations
    said = [(start, end) for start, end, _, _ in in_force]
    for start, end, matched, (number, version_id) in _named_in(words, later, _exiled_so):
        if not any(start < other_end and other_start < end for other_start, other_end in said):
            # A rule the version in force titles so is its own ("main phase": 305 of 2006).
            factor = 1.0 if version_id == version.version_id else LATER_VERSION_FACTOR
            citations.append(RuleCitation(
                number=number, method="term", confidence=NAMED_RULE_CONFIDENCE * factor,
                matched_text=matched, version_id=version_id, in_force_version_id=version.version_id))
    return citations


# Symbols a ruling writes for the rule that gives their meaning in a cost, by the glossary term
# that names that rule: Crackleburr's rulings on "an {Q} ability" rely on 107.6, the untap symbol
# (a links review: they linked no rule). Not {T}: rulings quote "{T}:" abilities for what they
# do, and a tapped creature's ability is summoning sickness's (302.6), not the symbol's.
SYMBOL_TERMS = {"{Q}": "untap symbol", "{S}": "snow mana symbol"}


def _symbol_citations(text: str, index: KeywordIndex, version: VersionKeywords | None) -> list[RuleCitation]:
    """The rules of the symbols ``text`` writes (``SYMBOL_TERMS``), as the version in force's
    glossary names them, else as a later version's first does (at ``LATER_VERSION_FACTOR``: the
    untap symbol of 2008 is in none of the editions held before 2009), in the order it writes them."""
    if version is None or "{" not in text:
        return []
    citations = []
    for _, symbol in sorted((at, symbol) for symbol in SYMBOL_TERMS if (at := text.find(symbol)) != -1):
        term = SYMBOL_TERMS[symbol]
        named = version.named_rules.get(term)
        found = (named, version.version_id) if named else next(
            (rule for surface, rule in index.named_later(version).get(term.split()[0], []) if surface == term), None)
        if found:
            factor = 1.0 if found[1] == version.version_id else LATER_VERSION_FACTOR
            citations.append(RuleCitation(number=found[0], method="term", confidence=NAMED_RULE_CONFIDENCE * factor,
                                          matched_text=symbol, version_id=found[1], in_force_version_id=version.version_id))
    return citations


# What follows a variant's name where it is part of another: "Commander's Sphere", "Commander
# Legends", "Commander 2020", "Archenemy: Nicol Bolas" (a review of the links).
PART_OF_A_NAME = re.compile(r"(?:['’]s\b|:?\s+[A-Z0-9])")


def _set_aside(words: WordRuns, start: int, end: int, matched: str) -> bool:
    """Whether a name the version in force gives a rule, said at ``start``–``end``, means no rule
    of it there: part of another name (``_a_name_holds``), or a permanent exiled face down."""
    return _exiled_so(words, start, end, matched) or _a_name_holds(words, start, end, matched)


def _a_name_holds(words: WordRuns, start: int, end: int, matched: str) -> bool:
    """Whether a one-word name said at ``start``–``end`` is part of a card's or product's name (a
    capitalised one: "your commander's" is the card of the variant), or the ruling is about a
    format named after the variant."""
    if not words.aligned or " " in matched.strip():
        return False
    return (bool(matched[:1].isupper() and PART_OF_A_NAME.match(words.text, end)) or bool(OF_A_NAME.match(words.text, end))
            or _a_format_named(words.text, matched))


# "The plane of Innistrad": a world of the story, not a plane card (311; a code review).
OF_A_NAME = re.compile(r"\s+of\s+[A-Z]")


# "Exile target permanent face down": a card exiled face down is no face-down permanent (406.3,
# not 708: a code review of the surfaces of permanents turned over).
EXILED_BEFORE = re.compile(r"\bexil(?:e|es|ed|ing)\b(?:[^\w.!?]+\w+){0,3}[^\w.!?]*$", re.IGNORECASE)


def _exiled_so(words: WordRuns, start: int, end: int, matched: str) -> bool:
    """Whether a permanent said "face up" or "face down" is one exiled so."""
    return " face " in f" {matched.lower()} " and bool(EXILED_BEFORE.search(words.lowered, max(0, start - 60), start))


def _a_format_named(text: str, name: str) -> bool:
    """Whether ``text`` names a format after ``name``: a capitalised word before it, not a
    sentence's first ("Duel Commander"). Such a ruling speaks of that format wherever it says the
    word: "banned as a commander in Duel Commander format" is no rule of 903 (a links review).
    "In Commander, …" is the variant, after a closing quotation mark too ('… "partner." In
    Commander, …': a code review)."""
    for found in re.finditer(rf"(?<=\s)[A-Z][\w'’-]*\s+{re.escape(name.strip().capitalize())}\b", text):
        if not SENTENCE_ENDED.search(text, 0, found.start()):
            return True
    return False


# What ends a sentence before a word: a full stop, and any closing marks after it, then spaces.
SENTENCE_ENDED = re.compile(r"(?:^|[.!?:;][\"'”’)\]]*)\s*$")


def _named_in(
    words: WordRuns, by_first: dict[str, list[tuple[str, T]]],
    not_there: Callable[[WordRuns, int, int, str], bool] | None = None,
) -> list[tuple[int, int, str, T]]:
    """The surfaces of ``by_first`` (by their first words) the text says, each with where it is
    said (``words.lowered``'s offsets) and what it names, in the order the text says them; the
    first place of each that ``not_there`` (a part of a name) does not set aside."""
    found: list[tuple[int, int, str, T]] = []
    # Only surfaces whose first word the text has (a sixth of linking a ruling, each searched).
    # The words are a set: their order is the hash seed's, and the names are sorted after.
    for first in by_first.keys() & words.words:
        for surface, named in by_first[first]:
            for at in words.starts(first):
                end = _said_at(words.lowered, at, surface)
                if end is not None and (end == len(words.lowered) or not _is_word_char(words.lowered[end])):
                    # The opening mark of one the match closes: '"summoning sickness" rule'.
                    opened = at > 0 and words.lowered[at - 1] in QUOTE_MARKS and any(
                        char in QUOTE_MARKS for char in words.lowered[at:end])
                    matched = words.text[at - opened:end] if words.aligned else surface
                    if not_there is not None and not_there(words, at, end, matched):
                        continue
                    found.append((at, end, matched, named))
                    break
    # The longest of those said at one place first: "combat damage step" (510's title) before
    # "combat damage" (whose entry points to 510 too), the words a rule page quotes; and none said
    # within a longer one: "commander tax" is 903.8, not 903 too; "snow mana symbols" is 107.4h,
    # not 107.4 (a second links review).
    kept: list[tuple[int, int, str, T]] = []
    reach = -1  # where the names kept so far end, the furthest
    for one in sorted(found, key=lambda found: (found[0], -found[1])):
        if one[1] > reach:
            kept.append(one)
            reach = one[1]
    return kept


# Quotation marks a ruling puts around a term's words: 'The "summoning sickness" rule'.
QUOTE_MARKS = frozenset('"“”\'‘’')


def _said_at(lowered: str, at: int, surface: str) -> int | None:
    """Where ``surface`` ends if ``lowered`` says it from ``at``, quotation marks around its words
    aside (the "summoning sickness" rule is the summoning sickness rule), else None."""
    if lowered.startswith(surface, at):
        return at + len(surface)
    position, size = at, len(lowered)
    for char in surface:
        while position < size and lowered[position] != char and lowered[position] in QUOTE_MARKS and (
                lowered[position - 1].isspace() or position + 1 == size or lowered[position + 1].isspace()):
            position += 1  # a mark before or after a word, not within it ("player's")
        if position == size or lowered[position] != char:
            return None
        position += 1
    return position


def _mask_names(text: str, card_names: Sequence[str]) -> str:
    """Card names blanked out (same length, so offsets stay) before keywords are looked for."""
    for name in sorted({n for n in card_names if n}, key=len, reverse=True):
        for part in [name, *name.split(" // ")]:
            text = text.replace(part, " " * len(part))
    return text


def _keyword_citations(
    text: str, index: KeywordIndex, version: VersionKeywords | None, words: WordRuns
) -> Iterable[RuleCitation]:
    if version is None:
        return
    matches = _matches(text, version, words)
    # Keywords the version in force lacks (the ruling's wording was updated later) are looked
    # up in the later versions, with lower confidence: only the surfaces each later version
    # adds, since one the ruling's own version has was matched already.
    later = index.later_candidates(version, words.words, words.lowered)
    for candidate in later:
        taken = [(m.start(), m.end()) for m, _k, _v in matches]
        for match, keyword, found_in in _matches(text, candidate, words):
            if not any(start < match.end() and match.start() < end for start, end in taken):
                matches.append((match, keyword, found_in))
                taken.append((match.start(), match.end()))
    for match, keyword, found_in in sorted(matches, key=lambda item: item[0].start()):
        confidence = _confidence(text, match, keyword)
        if confidence is None:
            continue
        if found_in is not version:
            defined = version.defined_elsewhere.get(base_form(keyword.title))
            if defined:
                # Not a keyword yet, but a term its version in force defined: that rule, not the
                # keyword rule written years after the ruling ("indestructible" in a ruling of
                # 2011 relies on 700.4 of 2009, not on 702.12 of 2014).
                yield RuleCitation(
                    number=defined, method="keyword", confidence=confidence, matched_text=match.group(0),
                    version_id=version.version_id, in_force_version_id=version.version_id,
                )
                continue
            confidence = round(confidence * LATER_VERSION_FACTOR, 2)
        yield RuleCitation(
            number=keyword.number, method="keyword", confidence=confidence,
            matched_text=match.group(0), version_id=found_in.version_id,
            in_force_version_id=version.version_id,
        )


class WordRuns:
    """A text's runs of word characters, lowered, and where a given one starts: a keyword match
    starts where its surface's first run does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lowered = text.lower()
        self.words = words_of(self.lowered)
        # "İ" lowers to two characters: offsets in the lowered text would drift from the text's.
        self.aligned = len(self.lowered) == len(text)
        # No letter that a case-blind pattern equates with an ASCII one ("ſ" with "s"): every
        # match is then a surface, and only surfaces whose every run is here can be tried.
        self.plain = text.isascii() or not any(twin in text for twin in CASE_TWINS)
        self._starts: dict[str, list[int]] = {}

    def starts(self, word: str) -> list[int]:
        """Where ``word`` is a whole run (found with ``str.find``: listing every run with its
        offset made a match object a word)."""
        found = self._starts.get(word)
        if found is None:
            found = []
            lowered, size = self.lowered, len(word)
            at = lowered.find(word)
            while at != -1:
                end = at + size
                if (at == 0 or not _is_word_char(lowered[at - 1])) and (end == len(lowered) or not _is_word_char(lowered[end])):
                    found.append(at)
                at = lowered.find(word, end)
            self._starts[word] = found
        return found


def _is_word_char(char: str) -> bool:
    # What \w matches in a str pattern (the re module's documentation).
    return char.isalnum() or char == "_"


def _matches(
    text: str, version: VersionKeywords, words: WordRuns
) -> list[tuple[re.Match[str], CRKeyword, VersionKeywords]]:
    if not version.by_surface:
        return []
    # A match starts with its surface's first run of letters as a whole word of the text (or,
    # for a surface with none, holds its first chunk): without one the scan would find nothing.
    # Surfaces whose other runs are missing cannot match; but where a letter can make a match
    # that is no surface, such a match may still hold the scan past a later one (as before).
    possible = version.word_filter.first_words_in(words.words)
    odd = any(start in words.lowered for start in version.word_filter.odd_starts)
    if not possible and not odd:
        return []
    present = possible if words.plain else version.word_filter.first_words & words.words
    if odd or not words.aligned:
        candidates = list(version.pattern.finditer(text))
    else:
        # Tried only where such a word starts, as a scan finds them (leftmost first, none
        # overlapping): scanning tried the pattern at every character (a third of linking a
        # ruling to rules).
        candidates = []
        end = 0
        for start in sorted(start for word in present for start in words.starts(word)):
            if start >= end:
                match = version.pattern.match(text, start)
                if match:
                    candidates.append(match)
                    end = match.end()
    found = []
    for match in candidates:
        # A letter the pattern equates with an ASCII one when ignoring case ("ſ" with "s",
        # "ı" with "i") makes a match that is no surface: not the keyword as printed.
        keyword = version.by_surface.get(" ".join(match.group(0).lower().split()))
        if keyword is not None:
            found.append((match, keyword, version))
    return found


def _confidence(text: str, match: re.Match[str], keyword: CRKeyword) -> float | None:
    """How sure a match is the keyword; None when it is not (a name, or an ordinary word)."""
    if _looks_like_name(text, match, keyword) or NOT_A_KEYWORD_AFTER.match(text, match.end()):
        return None
    kind_of_card = CARD_KIND_WORDS.get(match.group(0).lower())
    if kind_of_card is not None and kind_of_card.match(text, match.end()):
        return None
    if not keyword.ambiguous:
        return KEYWORD_CONFIDENCE
    return KEYWORD_IN_CONTEXT_CONFIDENCE if _in_keyword_context(text, match) else None


def _at_sentence_start(text: str, position: int) -> bool:
    before = text[:position].rstrip(OPENING_QUOTES + " (")
    return not before or before.endswith((".", "!", "?", ":", "\n"))


def _looks_like_name(text: str, match: re.Match[str], keyword: CRKeyword) -> bool:
    surface = match.group(0)
    if not surface[0].isupper():
        return False  # lower case is never a name
    if " " in keyword.title and surface == keyword.title and keyword.title != keyword.title.capitalize():
        return False  # the CR's own capitalised phrase: "The Ring Tempts You", "For Mirrodin!"
    if not _at_sentence_start(text, match.start()):
        return True  # "… blocked by Flying Men": capitalised in mid-sentence
    return _next_word_capitalised(text, match.end())  # "Flying Men can't …"


def _next_word_capitalised(text: str, end: int) -> bool:
    following = re.match(r"\s+([A-Za-z][\w’']*)", text[end:])
    return following is not None and following.group(1)[0].isupper()


def _in_keyword_context(text: str, match: re.Match[str]) -> bool:
    before, after = text[: match.start()], text[match.end():]
    if before.endswith(tuple(OPENING_QUOTES)):
        return True  # a quoted keyword or keyword phrase: “vote”, “partner with [name]”
    words = re.findall(r"[\w’']+", before)[-CONTEXT_WORDS_BEFORE:]
    if any(word.lower() in ABILITY_VERBS for word in words):
        return True
    if match.group(0).lower() == "protection" and PROTECTION_FROM.match(after):
        return True
    if match.group(0).lower().startswith("doubl") and (
        DOUBLED_WHAT.match(after) or (match.group(0).lower() == "doubled" and DOUBLED_ALONE.search(before))):
        return True
    return bool(FOLLOWING_CONTEXT.match(after))


def link_rulings(
    rulings: Iterable[tuple[str, str | None]], keyword_index: KeywordIndex
) -> list[list[RuleCitation]]:
    """``link_ruling`` over (text, published_at) pairs."""
    return [link_ruling(text, published_at, keyword_index) for text, published_at in rulings]
