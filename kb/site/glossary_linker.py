"""Glossary terms linked in the rules' text at their first use on a page: which word is a term,
in which sense (a verb, an everyday word, a word of a card's name), and where it links.

Used by ``kb.site.markup.render_text``; the terms a page may link are ``kb.site.rule_page``'s.
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterable

from kb.site.search_text import WORD_SENSES, bare_term, term_endings


class GlossaryLinker:
    """Links each glossary term at its first use on a page (later uses stay plain text).

    Terms are matched as whole words, longest first, with a short English ending ("attacks",
    "attacking"), not as part of a hyphenated word ("double-faced" is not Double); terms under
    four letters are left alone (too many false hits). A term given as written (a third item,
    true: a subtype, "Case") is matched only capitalized; one given as a noun (a fourth item,
    true: Match) only as the noun itself, not inflected nor after ``VERB_BEFORE`` (``_a_verb``).
    """

    def __init__(self, terms: Iterable[tuple[str, str] | tuple[str, str, bool] | tuple[str, str, bool, bool]]):
        self.urls: dict[str, str] = {}
        names = []
        as_written: set[str] = set()
        self.nouns: set[str] = set()
        for term, url, *how in terms:
            name = bare_term(term).strip()
            if len(name) >= 4 and name.casefold() not in self.urls:
                self.urls[name.casefold()] = url
                names.append(name)
                if how and how[0]:
                    as_written.add(name)
                if len(how) > 1 and how[1]:
                    self.nouns.add(name.casefold())
        names.sort(key=len, reverse=True)

        def alternative(name: str) -> str:
            stem, endings = term_endings(name)
            return (f"(?-i:{re.escape(stem)})" if name in as_written else re.escape(stem)) + endings

        alternatives = [alternative(name) for name in names]
        self.pattern = re.compile(
            r"(?<!\w-)\b(?:" + "|".join(alternatives) + r")\b(?!-\w)", re.IGNORECASE) if names else None
        self.seen: set[str] = set()

    def term_of(self, word: str) -> str | None:
        word = word.casefold()
        for candidate in (word, word[:-3] + "y" if word.endswith(("ies", "ied")) else "", word[:-1], word[:-2], word[:-3]):
            if candidate in self.urls:
                return candidate
        return None

    def _a_term_begins(self, text: str, at: int) -> bool:
        """Whether a term begins at ``at``: a subtype ("Aura Role"), a type ("Basic Land — Mountain"),
        a term of several words ("Planechase Grand Melee"). So a card named by terms ("Artifact
        Ward") is linked: 206.3's lists, against type lines (a code review)."""
        return self.pattern is not None and self.pattern.match(text, at) is not None

    def _in_a_name(self, text: str, found: re.Match[str]) -> bool:
        """Whether a capitalised one-word term ``found`` is a word of a longer name
        (``NAME_GOES_ON``, ``NAME_BEGUN``): the words beside it are capitalised and no term's."""
        goes_on = NAME_GOES_ON.match(text, found.end())
        if goes_on is not None and not self._a_term_begins(text, goes_on.start("next")):
            return True
        begun = NAME_BEGUN.search(text, max(0, found.start() - 80), found.start())
        if begun is None or self._a_term_begins(text, begun.start("word")):
            return False
        # "(See rule 704.) An Aura …": a sentence's close is before its closing marks (a code review).
        opening = text[: begun.start("word")].rstrip().rstrip(")”’\"'")
        return bool(opening) and opening[-1] not in SENTENCE_OPENERS

    def link(self, text: str) -> str:
        """Escaped ``text`` with first uses of terms linked."""
        if self.pattern is None:
            return html.escape(text)
        out, cursor = [], 0
        for found in self.pattern.finditer(text):
            key = self.term_of(found.group(0))
            if key is None or key in self.seen or (key in self.nouns and _a_verb(text, found, key)) or (
                    key in SENSES and not _in_the_games_sense(text, found, key)) or (
                    found.group(0)[:1].isupper() and " " not in key and self._in_a_name(text, found)):
                continue
            self.seen.add(key)
            out.append(html.escape(text[cursor : found.start()]))
            out.append(f'<a class="term-ref" href="{html.escape(self.urls[key])}">{html.escape(found.group(0))}</a>')
            cursor = found.end()
        out.append(html.escape(text[cursor:]))
        return "".join(out)


SENSES = {term: (re.compile(skip, re.IGNORECASE) if skip else None, re.compile(only, re.IGNORECASE) if only else None)
          for term, (skip, only) in WORD_SENSES.items()}


def _in_the_games_sense(text: str, found: re.Match[str], term: str) -> bool:
    """Whether the word ``found`` of ``term`` is said in the game's sense (``WORD_SENSES``): no
    everyday pattern holds it, and the game's, where one is given, does."""
    skip, only = SENSES[term]
    window = (max(0, found.start() - 40), min(len(text), found.end() + 40))

    def holds(pattern: re.Pattern[str]) -> bool:
        return any(match.start() <= found.start() < match.end() for match in pattern.finditer(text, *window))

    return not (skip is not None and holds(skip)) and (only is None or holds(only))


# After a capitalised one-word term, the next word of a longer name: "Commander Legends", "Battle
# for Baldur's Gate", "Flying Carpet", "Shadows over Innistrad" (903.13e, 206.3: a judge's review of
# the glossary links). Not a number nor a variable ("Layer 1", "Bolster N"), nor where a term
# begins ("Aura Role", "Planechase Grand Melee": a code review).
NAME_GOES_ON = re.compile(r"(?:(?:\s+(?:of|for|the|and|from|over)\b)*)\s+(?P<next>[A-Z][a-z][\w’'-]*)")
# Before it: "Arabian Nights", "Elephant Graveyard", "Circle of Protection" (206.3a's card names),
# a capitalised word not opening a sentence, nor ending a term.
NAME_BEGUN = re.compile(r"(?P<word>[A-Z][a-z][\w’'-]*)(?:\s+(?:of|for|the|and|from|over)\b)*\s+$")
SENTENCE_OPENERS = ".!?:“\"(["


# Words after which a noun's word is a verb: "don't match", "no longer match", "change to match".
VERB_BEFORE = frozenset({"to", "not", "longer", "must", "would", "could", "can", "cannot", "may", "might", "will",
                         "should", "does", "do", "did", "that", "which"})  # "triggers that match the event" (603.6a)


def _a_verb(text: str, found: re.Match[str], term: str) -> bool:
    """Whether the word ``found`` of the noun ``term`` is a verb: ``term`` with an ending ("matching",
    "matched"; "matches", which the rules say of states and texts: "the game state matches", a
    judge's review), or after ``VERB_BEFORE`` (or a word ending "n't")."""
    if found.group(0).casefold() != term:
        return True
    before = text[: found.start()].split()
    word = before[-1].casefold().replace("’", "'") if before else ""
    return word in VERB_BEFORE or word.endswith("n't")
