"""Keyword actions printed inside sentences, paired with the English Oracle text's (pure).

A keyword action is printed as a verb where a clause begins: "Manifest the top card of your
library.", "When Sultai Emissary dies, manifest the top card…", "{3}{W}: Manifest…", "Scry 2."
Where a localized printing's line splits into as many sentences, and each sentence into as many
clauses, as the Oracle text's line, the printed clause's first word is the action's term there:
"Manifestez", "Manifiesta", "Manifestiere", "Воплотите" (the real MTGJSON UGIN file).
``kb.link.keywords`` reads the keyword lines ("Flying, trample"); this reads the other lines.

A Japanese or Korean clause ends with its verb: there the action's term is the noun the clause
ends with, before する or 하다 ("…カードを予示する", "…予示し、", "…카드를 구현화한다": 予示 and 구현화,
Manifest, in the same file). Chinese has neither spaces nor such an ending to find a word by.

One printing's first word is no evidence: a term is kept where two printings or more print it,
and where the word begins a clause (almost) only where the English clause begins with that
action. An older printing's template begins clauses of all kinds: German printings from before
Mill was a keyword action print "Lege die obersten drei Karten…" where today's Oracle text says
"Mill three cards", and "Lege" begins every clause that puts something somewhere.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from kb.link.keyword_vocabulary import STOP_WORDS
from kb.link.keywords import REMINDER, PrintedKeyword
from kb.normalise.text import face_pairs, restored_lines

# Languages with no word to find an action by: no spaces, no verb ending.
NO_WORDS_TO_FIND = frozenset({"zhs", "zht"})
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# A clause ends at a comma ("When … dies, manifest …") or at an activation cost's colon.
CLAUSE_END = re.compile(r"[,:]\s+")
# Japanese ends sentences with 。 and clauses with 、 or a full-width colon; Korean printings
# may set no space after a sentence's full stop ("방어될 수 없다.제스카이 침투원이…").
SENTENCE_ENDS = {"ja": re.compile(r"(?<=。)"), "ko": re.compile(r"(?<=[.!?])\s*")}
CLAUSE_ENDS = {"ja": re.compile(r"[、：:]\s*")}
# The noun a clause ends with before its verb ending: Japanese する / し (予示する, 予示し), in
# kanji or katakana, after its object's を (not "１体生成する", whose counter 体 would be glued on:
# a review of the change); Korean 한다 / 하고 (구현화한다, 구현화하고), in one word.
VERB_LAST = {
    "ja": re.compile(r"(?<=を)([\u4e00-\u9fff\u30a1-\u30fa\u30fc]{2,})(?:する|し)[。.]?$"),
    "ko": re.compile(r"(?<![\uac00-\ud7a3])([\uac00-\ud7a3]{2,}?)(?:한다|하고)[.]?$"),
}
FIRST_WORD = re.compile(r"[\s\"'“”«»„‚‘’]*([^\W\d_]+(?:['’][^\W\d_]+)*)")
# The share of a word's clause starts that must be the action's for the word to be its term.
ACTION_SHARE = 0.9
MIN_PRINTINGS = 2


def action_titles(titles: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The keyword actions (701) a clause can begin with: one-word titles ("Scry", "Manifest"),
    not the everyday verbs ``STOP_WORDS`` lists (every other sentence destroys or exiles)."""
    return {
        folded: meaning for folded, meaning in titles.items()
        if meaning[1].startswith("701.") and " " not in folded and folded not in STOP_WORDS
    }


def clause_starts(
    lang: str, printed_text: str | None, oracle_text: str | None, actions: dict[str, tuple[str, str]],
) -> list[tuple[str, tuple[str, str] | None]]:
    """Each printed clause's first word beside the keyword action its English clause begins
    with (None: another word), for the clauses the two texts pair one to one."""
    if not printed_text or not oracle_text or lang == "en" or lang in NO_WORDS_TO_FIND:
        return []
    found: list[tuple[str, tuple[str, str] | None]] = []
    verb_last = VERB_LAST.get(lang)
    for printed, oracle in _line_pairs(printed_text, oracle_text):
        for printed_clause, oracle_clause in _clause_pairs(printed, oracle, lang):
            if verb_last:
                # Its verb ends the clause wherever the English one's stands ("then manifest
                # those cards", "Its controller manifests…": …予示する).
                word, action = _last_verb(printed_clause, verb_last), _action_within(oracle_clause, actions)
            else:
                english = _first_word(oracle_clause)
                word = _first_word(printed_clause) if english else None
                action = actions.get(english.casefold()) if english else None
            if word:
                found.append((word, action))
    return found


def _line_pairs(printed_text: str, oracle_text: str) -> Iterator[tuple[str, str]]:
    """A printed line beside its Oracle line: faces alike, lines as many (or a text printed on
    one line read as its lines: ``restored_lines``)."""
    for printed, oracle in face_pairs(printed_text, oracle_text):
        printed_lines = [line for line in printed.splitlines() if line.strip()]
        oracle_lines = [line for line in oracle.splitlines() if line.strip()]
        if len(printed_lines) != len(oracle_lines):
            printed_lines = restored_lines(printed.strip(), len(oracle_lines), oracle_lines) or []
        if len(printed_lines) == len(oracle_lines):
            yield from zip(printed_lines, oracle_lines, strict=True)


def _clause_pairs(printed: str, oracle: str, lang: str) -> Iterator[tuple[str, str]]:
    sentence_end, clause_end = SENTENCE_ENDS.get(lang, SENTENCE_END), CLAUSE_ENDS.get(lang, CLAUSE_END)
    printed_sentences = [part for part in sentence_end.split(REMINDER.sub(" ", printed).strip()) if part.strip()]
    oracle_sentences = SENTENCE_END.split(REMINDER.sub(" ", oracle).strip())
    if len(printed_sentences) != len(oracle_sentences):
        return
    for printed_sentence, oracle_sentence in zip(printed_sentences, oracle_sentences, strict=True):
        printed_clauses, oracle_clauses = clause_end.split(printed_sentence.strip()), CLAUSE_END.split(oracle_sentence)
        if len(printed_clauses) == len(oracle_clauses):
            yield from zip(printed_clauses, oracle_clauses, strict=True)


def _last_verb(clause: str, verb_last: re.Pattern[str]) -> str | None:
    match = verb_last.search(clause.strip())
    return match.group(1) if match else None


def _action_within(clause: str, actions: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """The keyword action a clause's verb is, wherever it stands ("manifests" is Manifest)."""
    for word in ENGLISH_WORD.findall(clause.casefold()):
        action = actions.get(word) or (actions.get(word[:-1]) if word.endswith("s") else None)
        if action:
            return action
    return None


ENGLISH_WORD = re.compile(r"[a-z]+")


def _first_word(clause: str) -> str | None:
    match = FIRST_WORD.match(clause)
    return match.group(1) if match else None


@dataclass
class ClauseEvidence:
    """Clause starts gathered over many printings; ``keywords()`` gives the terms they support."""

    starts: Counter[tuple[str, str]] = field(default_factory=Counter)
    action_starts: Counter[tuple[str, str, tuple[str, str]]] = field(default_factory=Counter)
    printings: dict[tuple[str, str, tuple[str, str]], dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    forms: dict[tuple[str, str], Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, printing_id: str, source: str, lang: str, starts: list[tuple[str, tuple[str, str] | None]]) -> None:
        for word, action in starts:
            key = (lang, word.casefold())
            self.starts[key] += 1
            if action is not None:
                self.action_starts[(*key, action)] += 1
                self.printings[(*key, action)][printing_id] = source
                self.forms[key][word] += 1

    def keywords(self) -> list[PrintedKeyword]:
        """One observation per printing of each term: a word two printings or more begin an
        action's clause with, that begins other clauses seldom (``ACTION_SHARE``)."""
        found = []
        for (lang, folded, (en_term, number)), count in sorted(self.action_starts.items()):
            printings = self.printings[(lang, folded, (en_term, number))]
            if len(printings) < MIN_PRINTINGS or count < ACTION_SHARE * self.starts[(lang, folded)]:
                continue
            # As it is printed most often ("Воплотите" begins five sentences, "воплотите" two
            # clauses); a tie goes to the capital, whatever order the printings came in.
            term = min(self.forms[(lang, folded)].items(), key=lambda form: (-form[1], form[0]))[0]
            found += [PrintedKeyword(lang, term, en_term, number, printing_id, source)
                      for printing_id, source in sorted(printings.items())]
        return found
