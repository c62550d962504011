"""Which Comprehensive Rules a ruling relies on: rule numbers it cites and keywords it names.

Pure: texts and parsed CR versions in, ``RuleCitation``s out.

Two methods:

- ``cited``: rule numbers printed in the ruling ("see rule 702.19b"), through ``kb.normalise.refs``.
- ``keyword``: keyword abilities (702.x) and keyword actions (701.x) named in the ruling, looked
  up in the English version in force on the ruling's date, because the numbers move: "connive"
  is 701.47 in a ruling of 2025 and 701.50 in one of 2026-01-16 or later.

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kb.link.cr_trace import version_id_of
from kb.normalise.refs import extract_refs
from kb.records import CRDocument

KEYWORD_SECTIONS = {"701": "Keyword Actions", "702": "Keyword Abilities"}

# Keyword actions whose link would say nothing: every other ruling casts, counters, destroys.
STOP_WORDS = frozenset(
    {
        "activate", "attach", "cast", "counter", "create", "destroy", "discard", "exchange",
        "exile", "play", "reveal", "sacrifice", "search", "shuffle", "tap and untap",
    }
)

# Keywords that are also ordinary words in rulings: linked only in a keyword context.
AMBIGUOUS = frozenset(
    {
        "abandon", "absorb", "adapt", "assemble", "assist", "backup", "boast", "champion",
        "companion", "convert", "craft", "dash", "devour", "discover", "double", "echo",
        "endure", "enchant", "epic", "equip", "escape", "evolve", "exploit", "fear", "fight",
        "flash", "forecast", "gift", "graft", "haunt", "learn", "mentor", "offspring", "partner",
        "persist", "plot", "protection", "reach", "recover", "retrace", "ripple", "shadow",
        "squad", "station", "storm", "support", "suspect", "training", "visit", "vote", "warp",
        "frenzy", "melee", "spree", "disguise", "cloak", "harness", "blight", "behold", "triple",
    }
)

# Keyword abilities used as verbs in rulings ("if you convoked it"): inflected like actions.
VERB_ABILITIES = frozenset(
    {
        "convoke", "evoke", "entwine", "splice", "dredge", "unearth", "embalm", "eternalize",
        "bestow", "mutate", "blitz", "prototype", "saddle", "disguise", "foretell", "emerge",
        "improvise", "delve", "cascade", "discover", "plot", "escape", "ninjutsu",
    }
)
IRREGULAR_FORMS = {"kicked": "kicker", "foretold": "foretell", "fought": "fight", "cycled": "cycling"}

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
OPENING_QUOTES = "“\"‘'"
CLOSING_QUOTES = "”\"’'"
CONTEXT_WORDS_BEFORE = 3

CITED_CONFIDENCE = 1.0
KEYWORD_CONFIDENCE = 0.9
KEYWORD_IN_CONTEXT_CONFIDENCE = 0.7
# The version in force has no such keyword yet (a ruling's text was updated later).
LATER_VERSION_FACTOR = 0.8
MAX_KEYWORD_TITLE = 40


@dataclass
class RuleCitation:
    """One rule a ruling relies on. ``version_id`` is the CR version whose numbering is meant."""

    number: str
    method: str  # "cited" or "keyword"
    confidence: float
    matched_text: str
    version_id: str | None = None
    # The version in force on the ruling's date; differs from ``version_id`` when a keyword the
    # ruling names did not exist yet then (its wording was updated later) and was found later.
    in_force_version_id: str | None = None


@dataclass
class _Keyword:
    title: str
    number: str
    ambiguous: bool


@dataclass
class _VersionKeywords:
    version_id: str
    effective_date: str
    by_surface: dict[str, _Keyword]
    pattern: re.Pattern[str] | None
    numbers: set[str] = field(default_factory=set)
    first_words: frozenset[str] | None = None


@dataclass
class KeywordIndex:
    """Keyword titles (701.x, 702.x) of every English version, ready to match in rulings."""

    versions: list[_VersionKeywords]
    _added_later: dict[str, list[_VersionKeywords]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_versions(cls, versions: Iterable[CRDocument]) -> KeywordIndex:
        built = [
            _version_keywords(doc)
            for doc in sorted(versions, key=lambda d: d.effective_date or "")
            if doc.effective_date and doc.lang == "en"
        ]
        return cls(versions=built)

    def added_later(self, version: _VersionKeywords) -> list[_VersionKeywords]:
        """Per later version, oldest first, the keyword surfaces it adds to ``version`` and the
        versions between them (versions adding none left out); computed once per version."""
        cached = self._added_later.get(version.version_id)
        if cached is not None:
            return cached
        seen = set(version.by_surface)
        added = []
        for later in self.versions:
            if later.effective_date <= version.effective_date:
                continue
            new = {surface: k for surface, k in later.by_surface.items() if surface not in seen}
            if new:
                seen.update(new)
                added.append(_VersionKeywords(later.version_id, later.effective_date, new, _alternation(new)))
        self._added_later[version.version_id] = added
        return added

    def in_force(self, date: str | None) -> _VersionKeywords | None:
        """The version in force on ``date``; the newest without a date; the oldest before all."""
        if not self.versions:
            return None
        if not date:
            return self.versions[-1]
        dated = [v for v in self.versions if v.effective_date <= date]
        return dated[-1] if dated else self.versions[0]


def _keyword_title(rule) -> str | None:
    """The keyword a 701.x/702.x rule is about: its title, or a short heading printed as text
    ("For Mirrodin!")."""
    if rule.title:
        return rule.title
    text = (rule.text or "").strip()
    if text and len(text) <= MAX_KEYWORD_TITLE and "\n" not in text and ". " not in text and not text.endswith("."):
        return text
    return None


def _version_keywords(doc: CRDocument) -> _VersionKeywords:
    sections = {r.number for r in doc.rules if r.kind == "section" and KEYWORD_SECTIONS.get(r.number) == r.title}
    by_surface: dict[str, _Keyword] = {}
    for rule in doc.rules:
        if rule.kind != "rule" or rule.section not in sections:
            continue
        title = _keyword_title(rule)
        if not title:
            continue
        base = _base_form(title)
        if base in STOP_WORDS:
            continue
        keyword = _Keyword(title=title, number=rule.number, ambiguous=base in AMBIGUOUS)
        inflect = rule.section == "701" or base in VERB_ABILITIES
        for surface in _surface_forms(base, inflect):
            by_surface.setdefault(surface, keyword)
    for surface, base in IRREGULAR_FORMS.items():
        target = next((k for s, k in by_surface.items() if s == base), None)
        if target is not None:
            by_surface.setdefault(surface, target)
    return _VersionKeywords(
        version_id=version_id_of(doc),
        effective_date=doc.effective_date or "",
        by_surface=by_surface,
        pattern=_alternation(by_surface),
        numbers={rule.number for rule in doc.rules},
    )


def _base_form(title: str) -> str:
    """"Venture into the Dungeon" → "venture into the dungeon"; "∞ (Infinity)" → "∞"."""
    title = re.sub(r"\s*\(.*?\)\s*", " ", title).strip()
    return " ".join(title.lower().split())


def _surface_forms(base: str, inflect: bool) -> list[str]:
    """The base form, and for verbs its -s / -ed / -ing forms (on the first word)."""
    if not inflect:
        return [base]
    first, _, rest = base.partition(" ")
    tail = f" {rest}" if rest else ""
    return [f"{form}{tail}" for form in dict.fromkeys([first, *_inflections(first)])]


def _inflections(verb: str) -> list[str]:
    if not verb.isalpha():
        return []
    if verb.endswith("e"):
        return [verb + "s", verb + "d", verb[:-1] + "ing"]
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return [verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"]
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return [verb + "es", verb + "ed", verb + "ing"]
    forms = [verb + "s", verb + "ed", verb + "ing"]
    if re.search(r"[^aeiou][aeiou][bdgklmnprt]$", verb) and len(verb) <= 4:
        forms += [verb + verb[-1] + "ed", verb + verb[-1] + "ing"]  # plot → plotted
    return forms


def _alternation(by_surface: dict[str, _Keyword]) -> re.Pattern[str] | None:
    if not by_surface:
        return None
    # The longest surface wins, so "double strike" wins over "double" and "manifest dread"
    # over "manifest": a trie tries longer continuations before ending a word. (A flat
    # alternation of every surface does the same, trying each of hundreds at every position:
    # that was three quarters of the time of linking a ruling.)
    return re.compile(rf"(?<![\w\-]){_trie_pattern(by_surface)}(?![\w\-])", re.IGNORECASE)


def _trie_pattern(surfaces: Iterable[str]) -> str:
    trie: dict = {}
    for surface in surfaces:
        node = trie
        for char in surface:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_node(trie)


def _trie_node(node: dict) -> str:
    branches = [
        (r"\s+" if char == " " else re.escape(char)) + _trie_node(child)
        for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    if "" in node:
        branches.append("")  # a surface ends here: tried after every longer one
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


# --------------------------------------------------------------------------------------------
# Linking one ruling


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
        for number in extract_refs(text)
    ]
    seen = {(c.number, c.method) for c in citations}
    for citation in _keyword_citations(_mask_names(text, card_names), keyword_index, version):
        if (citation.number, citation.method) not in seen:
            seen.add((citation.number, citation.method))
            citations.append(citation)
    return citations


def _mask_names(text: str, card_names: Sequence[str]) -> str:
    """Card names blanked out (same length, so offsets stay) before keywords are looked for."""
    for name in sorted({n for n in card_names if n}, key=len, reverse=True):
        for part in [name, *name.split(" // ")]:
            text = text.replace(part, " " * len(part))
    return text


def _keyword_citations(
    text: str, index: KeywordIndex, version: _VersionKeywords | None
) -> Iterable[RuleCitation]:
    if version is None:
        return
    words = set(_WORD_RUN.findall(text.lower()))
    matches = _matches(text, version, words)
    # Keywords the version in force lacks (the ruling's wording was updated later) are looked
    # up in the later versions, with lower confidence: only the surfaces each later version
    # adds, since one the ruling's own version has was matched already.
    for candidate in index.added_later(version):
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
            confidence = round(confidence * LATER_VERSION_FACTOR, 2)
        yield RuleCitation(
            number=keyword.number, method="keyword", confidence=confidence,
            matched_text=match.group(0), version_id=found_in.version_id,
            in_force_version_id=version.version_id,
        )


def _matches(
    text: str, version: _VersionKeywords, words: set[str]
) -> list[tuple[re.Match[str], _Keyword, _VersionKeywords]]:
    if version.pattern is None:
        return []
    # A match starts with its surface's first run of letters as a whole word of the text: when
    # no surface's first run is among the text's words, the scan would find nothing.
    if version.first_words is None:
        version.first_words = _first_words(version.by_surface)
    if version.first_words and version.first_words.isdisjoint(words):
        return []
    found = []
    for match in version.pattern.finditer(text):
        keyword = version.by_surface[" ".join(match.group(0).lower().split())]
        found.append((match, keyword, version))
    return found


_WORD_RUN = re.compile(r"\w+")


def _first_words(surfaces: Iterable[str]) -> frozenset[str]:
    """Each surface's leading run of word characters; empty (no filter) when one has none."""
    firsts = [_WORD_RUN.match(surface) for surface in surfaces]
    if not all(firsts):
        return frozenset()
    return frozenset(first.group(0) for first in firsts if first)


def _confidence(text: str, match: re.Match[str], keyword: _Keyword) -> float | None:
    """How sure a match is the keyword; None when it is not (a name, or an ordinary word)."""
    if _looks_like_name(text, match, keyword) or NOT_A_KEYWORD_AFTER.match(text, match.end()):
        return None
    if not keyword.ambiguous:
        return KEYWORD_CONFIDENCE
    return KEYWORD_IN_CONTEXT_CONFIDENCE if _in_keyword_context(text, match) else None


def _at_sentence_start(text: str, position: int) -> bool:
    before = text[:position].rstrip(OPENING_QUOTES + " (")
    return not before or before.endswith((".", "!", "?", ":", "\n"))


def _looks_like_name(text: str, match: re.Match[str], keyword: _Keyword) -> bool:
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
    return bool(FOLLOWING_CONTEXT.match(after))


def link_rulings(
    rulings: Iterable[tuple[str, str | None]], keyword_index: KeywordIndex
) -> list[list[RuleCitation]]:
    """``link_ruling`` over (text, published_at) pairs."""
    return [link_ruling(text, published_at, keyword_index) for text, published_at in rulings]
