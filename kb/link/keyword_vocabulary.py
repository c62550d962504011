"""The keywords a ruling can name, per English CR version: the titles of 701.x (actions) and
702.x (abilities; 502.x before 2009), their surface forms ("connives", "convoked"), and one trie-shaped pattern per
version that finds the longest of them.

Pure: parsed CR versions in, a ``KeywordIndex`` out; ``kb.link.ruling_citations`` matches rulings
against it. ``STOP_WORDS`` are never keywords here; ``AMBIGUOUS`` ones are marked so the matcher
links them only in a keyword context.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from kb.link.cr_trace import version_id_of
from kb.normalise.refs import extract_refs
from kb.normalise.text import CURLY_MARKS
from kb.records import CRDocument, Rule

# The keyword sections by title: 701 and 702 since 2009; before, keyword abilities were 502 (Haste
# was 502.5 of 2006) and there was no section of keyword actions.
KEYWORD_ACTIONS, KEYWORD_ABILITIES = "Keyword Actions", "Keyword Abilities"
KEYWORD_SECTION_TITLES = (KEYWORD_ACTIONS, KEYWORD_ABILITIES)

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

# A keyword printed as a rule's text rather than its title is a short heading ("For Mirrodin!").
MAX_KEYWORD_TITLE = 40


@dataclass
class CRKeyword:
    title: str
    number: str
    ambiguous: bool


WORD_RUN = re.compile(r"\w+")
# An ASCII text's word characters are [A-Za-z0-9_]: every other byte a space, and the text split.
_ASCII_NOT_WORD = bytes(
    byte if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) == "_") else 32 for byte in range(256)
)


def words_of(text: str) -> set[str]:
    """``set(WORD_RUN.findall(text))``; for a text that is ASCII once its curly quotes and dashes
    are spaces (most rulings), by one byte translation and a split, at a third of the regex's
    cost (linking a million rulings to rules read each text's words once per ruling)."""
    if not text.isascii():
        # The typography that keeps most English rulings out of ASCII; none is a word character.
        for mark in CURLY_MARKS:
            if mark in text:
                text = text.replace(mark, " ")
        if not text.isascii():
            return set(WORD_RUN.findall(text))
    return set(text.encode("ascii").translate(_ASCII_NOT_WORD).decode("ascii").split())


@dataclass(frozen=True)
class WordFilter:
    """What a text must hold for a keyword pattern to match in it: the first run of word
    characters of a surface, as a whole word, or (a surface starting with none, such as "∞")
    that surface's first chunk. Testing a text's words against a set is far cheaper than
    scanning it with the pattern."""

    first_words: frozenset[str]
    # The first space-free chunk of each surface that starts with no word character.
    odd_starts: tuple[str, ...]
    # Per first word, every run of word characters of each surface that starts with it: a match
    # is a surface but for case and spacing, so all of its runs are whole runs of the text.
    # "the ring tempts you" starts with "the"; without "ring" in a ruling it cannot be there.
    runs_after: dict[str, tuple[frozenset[str], ...]] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, surfaces: Iterable[str]) -> WordFilter:
        firsts, odd = set(), set()
        runs: dict[str, set[frozenset[str]]] = {}
        for surface in surfaces:
            first = WORD_RUN.match(surface)
            if first:
                firsts.add(first.group(0))
                runs.setdefault(first.group(0), set()).add(frozenset(WORD_RUN.findall(surface)))
            elif surface.split():
                odd.add(surface.split()[0])
        return cls(frozenset(firsts), tuple(sorted(odd)), {word: tuple(found) for word, found in runs.items()})

    def first_words_in(self, words: set[str]) -> set[str]:
        """The first words in ``words`` (a text's lower-cased runs) of surfaces whose every
        run is in ``words`` too."""
        return {word for word in self.first_words & words if any(runs <= words for runs in self.runs_after[word])}


NOTHING = re.compile(r"(?!)")  # a version without keywords: a pattern that never matches


@dataclass
class VersionKeywords:
    version_id: str
    effective_date: str
    by_surface: dict[str, CRKeyword]
    # Terms this version defines in another rule before they were made keywords: the glossary's
    # "Indestructible … See rule 700.4." of 2009 (keyword 702.12 since 2014), by ``base_form``.
    defined_elsewhere: dict[str, str] = field(default_factory=dict)
    # Rules the glossary names ("Legend Rule … See rule 704.5j.", "State-Based Actions … See rule
    # 704"): each of its surfaces, lowered, with the rule.
    named_rules: dict[str, str] = field(default_factory=dict)
    # Its rules outside the keyword sections that bear a title, by the title (lowered, hyphens as
    # spaces): where a later version's glossary names a rule this one titles alike.
    titled: dict[str, str] = field(default_factory=dict)
    # What a text must hold for ``pattern`` to match in it.
    word_filter: WordFilter = field(init=False, repr=False)
    # ``named_rules`` by the first word of each surface ("legend", "state"): (surface, rule).
    named_rules_by_first: dict[str, list[tuple[str, str]]] = field(init=False, repr=False)
    named_rules_first_words: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.word_filter = WordFilter.of(self.by_surface)
        self.named_rules_by_first = {}
        for surface, number in self.named_rules.items():
            self.named_rules_by_first.setdefault(WORD_RUN.findall(surface)[0], []).append((surface, number))
        self.named_rules_first_words = frozenset(self.named_rules_by_first)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Every surface as one pattern, compiled when a text first needs it (~20 ms a version:
        linking a small file's rulings needs the few versions in force on their dates, not all)."""
        return _alternation(self.by_surface)


@dataclass
class KeywordIndex:
    """Keyword titles (701.x, 702.x) of every English version, ready to match in rulings."""

    versions: list[VersionKeywords]
    _added_later: dict[str, list[VersionKeywords]] = field(default_factory=dict, repr=False)
    # Per version, the filter of every surface later versions add, at once (``later_filter``).
    _later_filters: dict[str, WordFilter] = field(default_factory=dict, repr=False)
    # Per version: which of ``added_later``'s versions has each first word, and each odd start.
    _later_by_first: dict[str, tuple[dict[str, tuple[int, ...]], tuple[tuple[str, int], ...]]] = field(
        default_factory=dict, repr=False
    )
    _in_force: dict[str, VersionKeywords] = field(default_factory=dict, repr=False)
    _named_later: dict[str, dict[str, list[tuple[str, tuple[str, str]]]]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_versions(cls, versions: Iterable[CRDocument]) -> KeywordIndex:
        built = [
            _version_keywords(doc)
            for doc in sorted(versions, key=lambda d: d.effective_date or "")
            if doc.effective_date and doc.lang == "en"
        ]
        return cls(versions=built)

    def added_later(self, version: VersionKeywords) -> list[VersionKeywords]:
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
                added.append(VersionKeywords(later.version_id, later.effective_date, new))
        self._added_later[version.version_id] = added
        return added

    def later_filter(self, version: VersionKeywords) -> WordFilter:
        """What a text must hold for any surface a later version adds to match in it."""
        found = self._later_filters.get(version.version_id)
        if found is None:
            found = WordFilter.of([surface for later in self.added_later(version) for surface in later.by_surface])
            self._later_filters[version.version_id] = found
        return found

    def later_candidates(self, version: VersionKeywords, words: set[str], lowered: str) -> list[VersionKeywords]:
        """The versions of ``added_later`` (oldest first) whose own surfaces may match a text of
        these ``words`` (lower-cased runs; ``lowered``: the text lower-cased): those holding a
        first word that ``later_filter`` finds, or an odd start that is in the text. Trying each
        of a dozen versions found nothing in almost every ruling."""
        added = self.added_later(version)
        if not added:
            return []
        found = self._later_by_first.get(version.version_id)
        if found is None:
            by_first: dict[str, list[int]] = {}
            odd: list[tuple[str, int]] = []
            for at, later in enumerate(added):
                for word in later.word_filter.first_words:
                    by_first.setdefault(word, []).append(at)
                odd.extend((start, at) for start in later.word_filter.odd_starts)
            found = ({word: tuple(ats) for word, ats in by_first.items()}, tuple(odd))
            self._later_by_first[version.version_id] = found
        by_first_word, odd_starts = found
        chosen = {at for word in self.later_filter(version).first_words_in(words) for at in by_first_word[word]}
        chosen.update(at for start, at in odd_starts if start in lowered)
        return [added[at] for at in sorted(chosen)]

    def named_later(self, version: VersionKeywords) -> dict[str, list[tuple[str, tuple[str, str]]]]:
        """The rules' names later versions add to ``version``'s glossary, by their first word:
        (surface, (rule, version)). "Double-faced card" is 711 of 2013-04-29; a ruling of 2011 names
        it with the rules of 2009 in force, which did not yet (a review of the rulings' links:
        keywords were looked for later, names were not). Where ``version`` has a rule of that
        title, it is that rule ("main phase" is 305 of 2006, whose glossary named none): the
        rule the ruling read, and its history kept. Not a one-word name: a variant's ("Commander")
        said in a ruling before the variant was in the rules is a word ("the commander of the army")."""
        found = self._named_later.get(version.version_id)
        if found is None:
            found, seen = {}, set(version.named_rules)
            for later in self.versions:
                if later.effective_date <= version.effective_date:
                    continue
                # The rule the later name is of, by its title there: 2009's 707 "Face-Down Spells
                # and Permanents" is 2006's 504 of that title, whatever the words said of it
                # ("a face-down creature": a code review).
                title_of = {number: title for title, number in later.titled.items()}
                for surface, number in later.named_rules.items():
                    if surface in seen or len(WORD_RUN.findall(surface)) < 2:
                        continue
                    seen.add(surface)
                    own = version.titled.get(title_of.get(number, "")) or _titled_alike(version.titled, surface)
                    named = (own, version.version_id) if own else (number, later.version_id)
                    found.setdefault(WORD_RUN.findall(surface)[0], []).append((surface, named))
            self._named_later[version.version_id] = found
        return found

    def in_force(self, date: str | None) -> VersionKeywords | None:
        """The version in force on ``date``; the newest without a date; the oldest before all."""
        if not self.versions:
            return None
        if not date:
            return self.versions[-1]
        # Per date: a million rulings have a few thousand dates between them.
        found = self._in_force.get(date)
        if found is None:
            dated = [v for v in self.versions if v.effective_date <= date]
            found = self._in_force[date] = dated[-1] if dated else self.versions[0]
        return found


def _keyword_title(rule) -> str | None:
    """The keyword a 701.x/702.x rule is about: its title, or a short heading printed as text
    ("For Mirrodin!")."""
    if rule.title:
        return rule.title
    text = (rule.text or "").strip()
    if text and len(text) <= MAX_KEYWORD_TITLE and "\n" not in text and ". " not in text and not text.endswith("."):
        return text
    return None


def _version_keywords(doc: CRDocument) -> VersionKeywords:
    titles = _rule_titles(doc)
    titled: dict[str, str] = {}
    for number, rule_title in titles.items():
        titled.setdefault(_unhyphenated(rule_title), number)
    sections = {r.number: r.title for r in doc.rules if r.kind == "section" and r.title in KEYWORD_SECTION_TITLES}
    by_surface: dict[str, CRKeyword] = {}
    for rule in doc.rules:
        if rule.kind != "rule" or rule.section not in sections:
            continue
        title = _keyword_title(rule)
        if not title:
            continue
        base = base_form(title)
        if base in STOP_WORDS:
            continue
        keyword = CRKeyword(title=title, number=rule.number, ambiguous=base in AMBIGUOUS)
        inflect = sections[rule.section] == KEYWORD_ACTIONS or base in VERB_ABILITIES
        for surface in _surface_forms(base, inflect):
            by_surface.setdefault(surface, keyword)
    for surface, base in IRREGULAR_FORMS.items():
        target = next((k for s, k in by_surface.items() if s == base), None)
        if target is not None:
            by_surface.setdefault(surface, target)
    return VersionKeywords(
        version_id=version_id_of(doc),
        effective_date=doc.effective_date or "",
        by_surface=by_surface,
        defined_elsewhere=_defined_elsewhere(doc, by_surface),
        named_rules=_named_rules(doc, titles),
        titled=titled,
    )


def _rule_titles(doc: CRDocument) -> dict[str, str]:
    """Each titled rule's title (``base_form``) by its number, but the keyword sections' and their
    rules' (a keyword's rule is linked as a keyword)."""
    return {rule.number: base_form(rule.title) for rule in _outside_keyword_sections(doc) if rule.title}


def _outside_keyword_sections(doc: CRDocument) -> list[Rule]:
    """The edition's rules but the keyword sections (701, 702) and theirs: keywords are looked for
    as keywords."""
    keyword_sections = {r.number for r in doc.rules if r.kind == "section" and r.title in KEYWORD_SECTION_TITLES}
    return [rule for rule in doc.rules if rule.section not in keyword_sections and rule.number not in keyword_sections]


def _defined_elsewhere(doc: CRDocument, by_surface: dict[str, CRKeyword]) -> dict[str, str]:
    """Glossary terms of ``doc`` that are no keyword of it, each with the one rule its entry
    points to as its definition ("See rule 700.4."): where a ruling names a keyword a later
    version added, the rule that defined the term when the ruling was written. Not a rule the
    entry only mentions ("… the lethal-damage state-based effect (see rule 420.5c)", in 2006's
    entry, which defines the term itself: a ruling naming it was linked to that rule)."""
    defined = {}
    for entry in doc.glossary:
        base = base_form(entry.term)
        if base in by_surface or base in STOP_WORDS:
            continue
        pointers = pointed_to(entry.text)
        if len(pointers) == 1:
            defined[base] = pointers.pop()
    return defined


# A glossary term that names a rule, or actions a rule defines: "Legend Rule", "World Rule",
# "State-Based Actions", "Special Action". Not "Tournament Rules" (documents of their own), nor
# "Keyword Action" (what a ruling says of a keyword it names: "“vote” is a keyword action").
NAMED_RULE_TERM = re.compile(r"^(?!keyword )[a-z][\w -]* (?:rule|actions?)$")


def _named_rules(doc: CRDocument, titles: dict[str, str]) -> dict[str, str]:
    """The glossary's terms that name a rule, each pointing to one rule: their surfaces (singular
    and plural: "a state-based action"), lowered, with the rule. Not a term whose
    entry names none or several ("Planeswalker Uniqueness Rule (Obsolete)" tells the old rule).
    An informal term names the rule it points to whatever its words: 2006's "Summoning Sickness
    (Informal)" is 212.3d, which a ruling of 2008 relies on as "the “summoning sickness” rule"
    (a review of the rulings' citations: it was linked to Haste alone).
    So does a term of two words or more whose rule bears its name: "Mana Ability" is 605, "Mana
    Abilities"; "Double-Faced Cards" is 712 (a review of the rulings' links: sixty rulings on
    double-faced cards and mana abilities were linked to no rule). Not a keyword's rule (701,
    702: keywords are looked for as keywords), nor a one-word term ("Card", "Spell", "Permanent":
    nearly every ruling says one) but a casual variant's name ("Commander": 903, the section of
    part 9 it titles). An entry pointing to several rules names the one whose title begins with
    its words: "Face Down … See rule 110.5 … See rule 708, “Face-Down Spells and Permanents,”"
    is 708, said "face down" and, as the title writes it, "face-down" (a hundred rulings on
    face-down spells were linked to no rule). ``titles``: ``_rule_titles``."""
    variants = _variant_sections(doc)
    opening = _opening_sentences(doc)
    named: dict[str, str] = {}
    for entry in doc.glossary:
        informal = _is_informal(entry.term, entry.text)
        if "(" in entry.term and not informal:
            continue
        base = base_form(entry.term)
        rule_term = bool(NAMED_RULE_TERM.match(base) or (informal and WORD_RUN.search(base)))
        pointers = pointed_to(entry.text)
        if rule_term and len(pointers) == 1:
            number = pointers.pop()
            named.setdefault(base, number)
            named.setdefault(_number_twin(base), number)
            continue
        words = len(WORD_RUN.findall(base))
        if len(pointers) == 1:
            number = pointers.pop()
            title = titles.get(number)
            forms = (_unhyphenated(base), _unhyphenated(_number_twin(base)))
            bears_it = title is not None and _unhyphenated(title) in forms and (
                words >= 2 or number in variants or bool(NONTRADITIONAL_TYPE.search(entry.text)))
            says_it = words >= 2 and base.split()[0] not in PHRASE_OPENERS and (
                _says_it(title, forms) if title is not None else _says_it(opening.get(number), forms, OPENING_WORDS))
            if bears_it or says_it:
                for surface in (base, _number_twin(base)):
                    named.setdefault(surface, number)
        elif words >= 2:
            begun = [number for number in pointers if _unhyphenated(titles.get(number) or "").startswith(_unhyphenated(base) + " ")]
            if len(begun) == 1:
                for surface in _title_surfaces(titles[begun[0]], len(base)):
                    named.setdefault(surface, begun[0])
                continue
            # Else the one rule whose title says the term: "Triggered Ability … See rule 113,
            # “Abilities,” and rule 603, “Handling Triggered Abilities”" is 603 (a links review:
            # ten rulings said "triggered ability" and none linked 603).
            forms = (_unhyphenated(base), _unhyphenated(_number_twin(base)))
            saying = [number for number in pointers if titles.get(number) is not None and _says_it(titles[number], forms)]
            if len(saying) == 1:
                for surface in (base, _number_twin(base)):
                    named.setdefault(surface, saying[0])
    for surface, number in _said_as_verbs(named).items():
        named.setdefault(surface, number)
    return named


# A name made of a verb's "-ing" and what it is done to: "Flipping a Coin" (705), "Controlling
# Another Player's Turn" (2003's 507).
GERUND_NAME = re.compile(r"^(?P<verb>[a-z]+)ing (?P<rest>(?:a|an|another) .+)$")


def _said_as_verbs(named: dict[str, str]) -> dict[str, str]:
    """The surfaces of a rule named by a gerund said as its verb: "flip a coin", "flips a coin",
    "flipped a coin" are 705, Flipping a Coin, which rulings say so (a links review: the rulings
    on coin flips linked to no rule). Every verb the gerund may be of ("flipping": "flipp",
    "flip", "flippe"; "rolling": "roll", "rol", "rolle"), each with its forms: those that are no
    English word are said by no ruling. Read from the name alone, as an import's outline of a
    stored edition holds it (``kb.store.linking_history.version_outline``)."""
    said: dict[str, str] = {}
    for surface, number in named.items():
        match = GERUND_NAME.match(surface)
        if match is None:
            continue
        stem, rest = match["verb"], match["rest"]
        for verb in dict.fromkeys([stem, stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem, stem + "e"]):
            for form in (verb, *_inflections(verb)):
                if not form.endswith("ing"):
                    said.setdefault(f"{form} {rest}", number)
    return said


def _opening_sentences(doc: CRDocument) -> dict[str, str]:
    """Each untitled rule's first sentence, lowered, outside the keyword sections."""
    return {rule.number: base_form(FIRST_SENTENCE.match(rule.text)[0])  # type: ignore[index]
            for rule in _outside_keyword_sections(doc) if rule.text and not rule.title}


# A rule's first sentence: up to its first full stop before a space or its end.
FIRST_SENTENCE = re.compile(r"(?s).*?(?:\.(?=\s|$)|$)")


def _says_it(words: str | None, forms: tuple[str, ...], within: int | None = None) -> bool:
    """Whether a rule's title, or the first ``within`` words of its first sentence, use the term
    (in either number) as whole words: the rule a glossary entry points to where it does not bear
    its name ("Mana Value … See rule 202.3": "The mana value of an object is …"; "Color Identity …
    See rule 903.4": "The Commander variant uses color identity …"; "Combat Damage … See rule
    510", "Combat Damage Step"). A links review found rulings on mana value and color identity
    linked to no rule. A rule that says the term further on is about something else: 120.4a is
    damage an effect redirects, "… states that excess damage …" (a second links review: rulings
    on creatures dealt excess damage rely on 120.10)."""
    if not words:
        return False
    said = _unhyphenated(words)
    if within is not None:
        said = " ".join(said.split()[:within + max(len(form.split()) for form in forms) - 1])
    return any(re.search(rf"(?<!\w){re.escape(form)}(?!\w)", said) for form in forms)


# A card type of nontraditional cards, one word its rulings alone say: "Conspiracy … A card type used
# in Limited formats … A conspiracy card is not a permanent. See rule 313, “Conspiracies.”" (a links
# review: ten rulings on conspiracies linked to no rule). Dungeon, Plane, Phenomenon, Scheme too;
# not Instant, "A card type. An instant is not a permanent.", which most rulings say.
NONTRADITIONAL_TYPE = re.compile(r"\bA card type\b[^.]*\b(?:nontraditional|Limited formats)\b")

# How far into a rule's first sentence the term it is pointed to for must begin.
OPENING_WORDS = 8
# A term that begins as a phrase of the rulings' own words does ("in response to", 117.7; "as
# though", 609.4): rulings say them in their own sense far more often than they rely on the rule
# that defines the phrase (a second links review: "sacrificed in response to the ability").
PHRASE_OPENERS = frozenset({"in", "as", "at", "on", "to", "of", "for", "with", "by", "from", "into", "under", "until"})


def _title_surfaces(title: str, term_length: int) -> list[str]:
    """The term with each thing the title names it of, as the title writes it: "face-down spells
    and permanents" is said "a face-down spell", "face-down permanents"… Not the term alone: a
    card lies "face down" in exile, in a pile, in the command zone, and no rule of face-down
    spells and permanents is meant (a review of the links: hideaway, foretell, conspiracies)."""
    term, things = title[:term_length], title[term_length:].strip()
    surfaces = []
    for thing in re.split(r",? and |, ", things):
        # A face-down permanent is a 2/2 creature (708.2): rulings say "a face-down creature".
        for kind in (thing, "creatures") if thing == "permanents" else (thing,):
            surfaces += [f"{term} {kind}", f"{term} {_number_twin(kind)}"]
        if thing == "permanents":
            surfaces += TURNED.get(term, [])
    return surfaces


# A permanent turned over is one of the face-down permanents 708 is of, before or after: "A
# permanent that turns face up or face down changes characteristics …", "turning a permanent face
# up doesn't cause any enters-the-battlefield abilities to trigger", "The permanent remains on the
# battlefield face down" (a links review: 56 rulings on them linked to no rule). A card turned over
# elsewhere is not (a conspiracy in the command zone, a card exiled face down), nor one put onto
# the battlefield face up ("you must put them onto the battlefield face up": not face down at all).
TURNED = {"face-down": [
    f"{permanent} {turns}face {side}" for permanent in ("permanent", "permanents")
    for turns in ("", "turns ", "that turns ") for side in ("up", "down")] + ["battlefield face down"]}


def _titled_alike(titled: dict[str, str], surface: str) -> str | None:
    """The rule ``titled`` names ``surface`` by: a title it is, but for number, or begins
    ("face-down spells" of 2006's 504 "Face-Down Spells and Permanents")."""
    forms = (_unhyphenated(surface), _number_twin(_unhyphenated(surface)))
    for form in forms:
        if form in titled:
            return titled[form]
    begun = {number for title, number in titled.items() if title.startswith((forms[0] + " ", forms[1] + " "))}
    return begun.pop() if len(begun) == 1 else None


def _unhyphenated(words: str) -> str:
    return words.replace("-", " ")


def _variant_sections(doc: CRDocument) -> set[str]:
    """The sections of the part titled "Casual Variants" (part 9 since 2009: 903 Commander)."""
    parts = {rule.number for rule in doc.rules if rule.kind == "part" and base_form(rule.title or "") == "casual variants"}
    return {rule.number for rule in doc.rules if rule.kind == "section" and rule.parent in parts}


def _number_twin(base: str) -> str:
    """The term's other number, on its last word: "mana ability" ↔ "mana abilities",
    "double-faced cards" ↔ "double-faced card"."""
    if base.endswith("ies"):
        return base[:-3] + "y"
    if base.endswith("y") and not base.endswith(("ay", "ey", "oy", "uy")):
        return base[:-1] + "ies"
    if base.endswith(("x", "ch", "sh")):
        return base + "es"
    if base.endswith(("xes", "ches", "shes")):
        return base[:-2]
    if base.endswith("ss"):  # "summoning sickness": no other number
        return base
    return base[:-1] if base.endswith("s") else base + "s"


# An informal term's entry: "Fizzle (Informal)", or "Commander Tax: Informal term for …".
INFORMAL_TERM = re.compile(r"\(informal\)\s*$", re.IGNORECASE)
INFORMAL_DEFINITION = re.compile(r"^(?:informal term\b|the term \S+(?: \S+)? is an informal term\b)", re.IGNORECASE)


def _is_informal(term: str, definition: str) -> bool:
    return bool(INFORMAL_TERM.search(term) or INFORMAL_DEFINITION.match(definition.strip()))


def pointed_to(definition: str) -> set[str]:
    """The rules a glossary entry's "See rule …" sentences point to: each rule they name, the
    rules after a title too ("See rule 113, “Abilities,” and rule 603, “Handling Triggered
    Abilities.”": 603 was missed, a links review). A section of three digits only: "and section 3,
    “Card Types.”" names a whole part, which ``GLOSSARY_POINTER`` does not read."""
    return {number for pointer in GLOSSARY_POINTER.findall(definition) for number in extract_refs(pointer, lang="en")}


# A glossary entry's pointer to the rule that defines its term: a sentence of its own, after one
# that may end in a quotation ("Untap Symbol … means “Untap this permanent.” See rule 107.6.":
# twenty entries' pointers were missed, Priority's and Creature Type's among them).
_RULE_NUMBER = r"\d{3}(?:\.\d+[a-z]*)?"
GLOSSARY_POINTER = re.compile(
    rf"(?:^|(?<=[.!?]\s)|(?<=[.!?][”\"]\s)|(?<=[.!?]\][”\"]\s))See rules? {_RULE_NUMBER}(?:(?:,| and|,? or|–|-) ?{_RULE_NUMBER})*"
    # and what the sentence names after a rule's title: ', “Abilities,” and rule 603'
    rf"(?:,? [“\"][^”\"]*[”\"](?:,? (?:and|or) (?:rules? |section )?{_RULE_NUMBER}(?:(?:,| and|,? or|–|-) ?{_RULE_NUMBER})*)?)*")


def base_form(title: str) -> str:
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


def _alternation(by_surface: dict[str, CRKeyword]) -> re.Pattern[str]:
    if not by_surface:
        return NOTHING
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
