"""Glossary lineages: one identity for a glossary entry through every English version, whatever its term.

Pure. Consecutive versions' entries are paired (``pair_glossary``), then chained into lineages
the way rules are (``kb.link.cr_lineage.chain_lineages``). The CR renames glossary terms when
the game renames a thing: "Converted Mana Cost" (to 2021) is "Mana Value" since, "Tribal" became
"Kindred", "Removed from Combat" became "Remove from Combat", and typography changes alone turned
"Attacks and Isn't Blocked" into "Attacks and Isn’t Blocked" (2014) and back. A lineage follows
the definition, not the spelling of its term. The editors say so themselves: a renamed term
stays in the glossary as "<old term> (Obsolete)", defined as "An obsolete term for mana value".

A lineage id names its first member: ``<version id>/glossary:<term>``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.link.cr_compare import collapse, masked
from kb.link.cr_lineage import Lineage, chain_lineages
from kb.records import GlossaryEntry

OBSOLETE = re.compile(r"\s*\((?:obsolete|informal)\)\s*$", re.IGNORECASE)
FORMERLY = re.compile(r"\b(?:used to be (?:known as|called)|formerly (?:known as|called)|previously (?:known as|called))\b")
# Where an obsolete entry names the entry that took its place: "An obsolete term for mana value",
# "An older name for the Commander casual variant", "…that has been renamed. See rule 308,
# “Kindreds.”" Only the name right after these words: "now say “non-Aura enchantment.” See also
# Aura" names Aura beside the old term, not as its new name.
SUCCESSOR = re.compile(r"\b(?:term|name) for (?:an? |the )?|\brenamed\. see rule [\d.]+,? ")
WORDS = re.compile(r"\w+")
# Words that do not name anything in a term: "Flip a Coin", "Control Another Player's Turn".
NAME_FILLERS = frozenset({"a", "an", "and", "by", "for", "from", "in", "into", "of", "on", "or", "s", "the", "to", "with"})
# Words every definition may use, which say nothing of what it defines.
DEFINITION_FILLERS = NAME_FILLERS | frozenset({
    "all", "also", "any", "are", "as", "at", "be", "can", "card", "cards", "if", "is", "it", "its", "may", "no", "not",
    "one", "other", "player", "players", "rule", "rules", "section", "see", "such", "than", "that", "their", "them",
    "then", "there", "they", "this", "was", "were", "when", "which", "who", "will", "would",
})
# Endings that inflect a word without making it another name: "Flipping", "Triggered", "Ending",
# "Effects", "Legendary". The longest first.
INFLECTIONS = ("ing", "ary", "ed", "s")
QUOTES = re.compile(r"[\"'_]")


def glossary_lineage_id(version_id: str, term: str) -> str:
    return f"{version_id}/glossary:{term}"


def folded_term(term: str) -> str:
    """A term as a reader would look it up: case, quotes and typography folded."""
    return " ".join(QUOTES.sub("", collapse(term)).casefold().split())


def pair_glossary(old: Sequence[GlossaryEntry], new: Sequence[GlossaryEntry]) -> dict[str, str]:
    """Old term → new term of the same entry, for consecutive versions ``old`` and ``new``.

    In order, each step only among entries not paired yet:
    1. the same term; then the same term up to case, quotes and typography;
    2. a rename the new glossary states: a new entry saying the thing "used to be known as" the
       old term ("Battlefield … used to be known as the “in-play” zone"), or a new "<old term>
       (Obsolete)" entry naming the entry that took the old definition over ("An obsolete term
       for mana value"; taken over: most of the old definition's words are there); naming none
       ("Some older cards used the term “global enchantment.” … See also Aura"), the obsolete
       entry itself continues the old one;
    3. the same definition under another term (the terms masked);
    4. one term's words all inside the other's, beginning with the same word ("Upkeep" → "Upkeep
       Step", "Two-Headed Giant" → "Two-Headed Giant Variant"), where that is true of one pair
       only and the shorter definition's words are mostly in the longer one;
    5. a term renamed in part ("State-Based Effects" → "State-Based Actions", "Flip a Coin" →
       "Flipping a Coin", "Leaves Play" → "Leaves the Battlefield"): see ``_renamed_in_part``.
    """
    old_text = _unique_terms(old)
    new_text = _unique_terms(new)
    pairs: dict[str, str] = {term: term for term in old_text if term in new_text}
    steps = (
        lambda olds, news: _pair_unique(olds, news, folded_term, folded_term),
        lambda olds, news: _stated_renames(olds, news, old_text, new_text),
        lambda olds, news: _same_definitions(olds, news, old_text, new_text),
        lambda olds, news: {
            old_term: new_term
            for old_term, new_term in _pair_unique(olds, news, _term_words, _term_words, contained=True).items()
            if _term_words(old_term)[0] == _term_words(new_term)[0]  # type: ignore[index]
            and _shared_share(old_text[old_term], new_text[new_term]) >= 0.5
        },
        lambda olds, news: _renamed_in_part(olds, news, old_text, new_text),
    )
    for step in steps:
        taken = set(pairs.values())
        pairs.update(step([term for term in old_text if term not in pairs], [term for term in new_text if term not in taken]))
    return pairs


def glossary_lineages(
    version_ids: Sequence[str], glossaries: Sequence[Sequence[GlossaryEntry]],
) -> tuple[list[dict[str, str]], dict[str, Lineage]]:
    """For each version (oldest first), term → lineage id; and every lineage by id."""
    maps: list[dict[str, str | None]] = [
        dict(pair_glossary(older, newer)) for older, newer in zip(glossaries, glossaries[1:], strict=False)
    ]
    keys = [[(entry.term, "glossary") for entry in glossary] for glossary in glossaries]
    return chain_lineages(version_ids, keys, maps, glossary_lineage_id)


def _unique_terms(entries: Sequence[GlossaryEntry]) -> dict[str, str]:
    terms: dict[str, str] = {}
    for entry in entries:
        terms.setdefault(entry.term, entry.text)  # a misprinted duplicate: the first one
    return terms


def _pair_unique(olds: list[str], news: list[str], key_old: Callable[[str], object], key_new: Callable[[str], object],
                 contained: bool = False) -> dict[str, str]:
    """Old and new terms whose keys are equal (or, ``contained``, one key a subset of the
    other) and that match no other term on either side."""
    old_keys = {term: key_old(term) for term in olds}
    new_keys = {term: key_new(term) for term in news}

    def match(a: object, b: object) -> bool:
        if a is None or b is None:
            return False
        if contained:
            a_words, b_words = a[1], b[1]  # type: ignore[index]
            return a_words <= b_words or b_words <= a_words
        return a == b

    found: dict[str, str] = {}
    for old_term, old_key in old_keys.items():
        candidates = [new_term for new_term, new_key in new_keys.items() if match(old_key, new_key)]
        if len(candidates) == 1 and sum(match(other, new_keys[candidates[0]]) for other in old_keys.values()) == 1:
            found[old_term] = candidates[0]
    return found


def _stated_renames(olds: list[str], news: list[str], old_text: dict[str, str], new_text: dict[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    stubs = {_bare(term): term for term in news if OBSOLETE.search(term)}
    # What follows "used to be known as" in each new definition that says it.
    formerly = {
        term: [folded[match.end():match.end() + 80] for match in FORMERLY.finditer(folded)]
        for term in news if term not in stubs.values()
        for folded in [_bare_text(new_text[term])] if "known as" in folded or "called" in folded
    }
    bare_news = {term: _bare(term) for term in news}
    for old_term in olds:
        name = _bare(old_term)
        told = [term for term, tails in formerly.items() if any(_names(tail[:len(name) + 24], name) for tail in tails)]
        if len(told) == 1:
            found[old_term] = told[0]
            continue
        stub = stubs.get(name)
        if stub is None or stub in found.values():
            continue
        successors = [_bare_text(new_text[stub])[match.end():] for match in SUCCESSOR.finditer(_bare_text(new_text[stub]))]
        named = [
            term for term in news
            if term != stub and any(_names(tail, bare_news[term], at_start=True) for tail in successors)
            and _kept_share(old_text[old_term], new_text[term]) >= 0.5
        ]
        found[old_term] = max(named, key=len, default=stub)  # "nonmodal double-faced card" over "double-faced cards"
    return found


def _bare(term: str) -> str:
    """A term folded, without "(Obsolete)", hyphens as spaces: "in-play" names "In Play"."""
    return " ".join(folded_term(OBSOLETE.sub("", term)).replace("-", " ").split())


def _bare_text(text: str) -> str:
    return " ".join(folded_term(text).replace("-", " ").split())


def _names(text: str, name: str, at_start: bool = False) -> bool:
    """Whether ``text`` holds ``name`` as whole words, or its plural ("kindreds" names Kindred;
    "attached" does not name Attach); ``at_start``: right at its beginning."""
    pattern = ("" if at_start else r"(?<!\w)") + re.escape(name) + r"(?:e?s)?(?!\w)"
    return bool(name) and (re.match if at_start else re.search)(pattern, text) is not None


def _kept_share(before: str, after: str) -> float:
    words = set(WORDS.findall(collapse(before).casefold()))
    return len(words & set(WORDS.findall(collapse(after).casefold()))) / len(words) if words else 0.0


def _same_definitions(olds: list[str], news: list[str], old_text: dict[str, str], new_text: dict[str, str]) -> dict[str, str]:
    # Every unpaired term of both sides masked in every definition: a renamed entry's definition
    # names itself ("Certain events can cause a creature … to be “removed from combat.”").
    names = sorted({name for name in map(_bare, olds + news) if name}, key=len, reverse=True)
    if not names:
        return {}
    terms = re.compile("|".join(re.escape(name).replace("\\ ", "[ -]") for name in names) + r"\w*")

    def definition(text: str) -> str | None:
        folded = masked(collapse(text)).casefold().replace("-", " ")
        return terms.sub("~", folded) if len(folded) >= 20 else None

    return _pair_unique(olds, news, lambda term: definition(old_text[term]), lambda term: definition(new_text[term]))


def _term_words(term: str) -> tuple[str, frozenset[str]] | None:
    """A term's first word and all its words (compared as sets: "Kicker" is in "Kicker, Kicked")."""
    words = WORDS.findall(_bare(term))
    return (words[0], frozenset(words)) if words else None


def _shared_share(one: str, other: str) -> float:
    a, b = (set(WORDS.findall(collapse(text).casefold())) for text in (one, other))
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _renamed_in_part(olds: list[str], news: list[str], old_text: dict[str, str], new_text: dict[str, str]) -> dict[str, str]:
    """Old and new terms whose names share at least half their words (inflections folded), taken
    as one entry where their names and definitions together say so, counted twice: the share of
    the names' words plus the share of the shorter definition's words found in the other reaches
    1.1, and with its telling words only (no fillers, numbers, "player", "card") 1. The 2009
    rewrite shortened most definitions, so a rename's definitions may share little ("State-Based
    Effects" → "State-Based Actions": 4 of 10 telling words); a short definition has most of its
    words in any long one ("Game Action" and "Restart the Game": 62% of all words, 2 of 5 telling
    ones), and generic telling words meet anywhere ("Imprinted [type] card" and "Card Type": 2/3 of
    the name, 39% of all words). A name said in other words ("Comes into Play" → "Enters the
    Battlefield") is not found.

    Best first and one to one; a pair that another pair of either of its terms comes within 0.1
    of is left unpaired: "Instant Type" and "Sorcery Type" both became "Spell Type", and each
    "Enchant Creature", "Enchant Land", … is as near to "Enchant" as the others.
    """
    scored: dict[tuple[str, str], float] = {}
    for old_term in olds:
        if _split(old_term, news, new_text):
            continue
        for new_term in news:
            named = _name_share(old_term, new_term)
            if named >= 0.5:
                old_definition, new_definition = old_text[old_term], new_text[new_term]
                score = named + _shared_share(old_definition, new_definition)
                if score >= 1.1 and named + _telling_share(old_definition, new_definition) >= 1:
                    scored[old_term, new_term] = score
    found: dict[str, str] = {}
    for (old_term, new_term), score in sorted(scored.items(), key=lambda item: -item[1]):
        if old_term in found or new_term in found.values():
            continue
        rivals = [
            other for (other_old, other_new), other in scored.items()
            if (other_old == old_term) != (other_new == new_term)
            and other_old not in found and other_new not in found.values()
        ]
        if all(other < score - 0.1 for other in rivals):
            found[old_term] = new_term
    return found


def _split(old_term: str, news: list[str], new_text: dict[str, str]) -> bool:
    """Whether the next glossary defines the old term's thing in two or more new entries, each
    named in its words or within them (from its first word) and each saying the old term: 2003's
    "Source" ("the source of an ability or of damage") became "Source of an Ability" and "Source
    of Damage"; "Basic Land" became "Basic" (the supertype) and "Basic Land Type". Joined to the
    likelier of the two, the other's page lost its history and a page said "Source" was the
    earlier name of the source of damage alone (a review)."""
    return len(split_parts(old_term, {term: new_text[term] for term in news})) >= 2


def split_parts(old_term: str, new_entries: dict[str, str]) -> list[str]:
    """The terms of ``new_entries`` (term → definition, entries new in the next glossary) that
    may each define part of what ``old_term`` did (``_split``): named in its words or within
    them, from its first word, and saying the old term."""
    old_words = _term_words(old_term)
    if old_words is None:
        return []
    parts = []
    for new_term, new_definition in new_entries.items():
        new_words = _term_words(new_term)
        if (new_words is not None and new_words[0] == old_words[0]
                and (old_words[1] < new_words[1] or new_words[1] < old_words[1])
                and _names(_bare_text(new_definition), _bare(old_term))):
            parts.append(new_term)
    return parts


def _telling_share(one: str, other: str) -> float:
    """The share of the shorter definition's telling words (inflections folded; no fillers, no
    numbers) that the other definition has too."""
    a, b = ({_stem(word) for word in WORDS.findall(collapse(text).casefold()) if word not in DEFINITION_FILLERS
             and not word.isdigit()} for text in (one, other))
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _name_share(one: str, other: str) -> float:
    """The share of the longer name's words that the other name has too, inflections folded."""
    a, b = _name_stems(one), _name_stems(other)
    return len(a & b) / max(len(a), len(b)) if a and b else 0.0


def _name_stems(term: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in WORDS.findall(_bare(term)) if word not in NAME_FILLERS)


def _stem(word: str) -> str:
    for ending in INFLECTIONS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            word = word[: -len(ending)]
            break
    # "flipp(ing)", "controll(ing)": the consonant doubled before the ending.
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word
