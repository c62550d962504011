"""The words of a query that something holds, when nothing holds them all.

The one-box search asks for every word of a query. Judges and players type questions ("what
happens if my commander dies", "can I respond to a cascade trigger"), and no rule, ruling or
glossary entry holds all of those words, so such a query found nothing. Here the question's
words ("what", "if", "my", …; German, French, Spanish, Italian, Portuguese or Russian ones too:
``search_question_words``) and the words nothing holds are left out first, unless such a word
misspells a word of the rules ("comander": read as "commander"; not in a question asked in
another language: French "lancer" is no "lander"). Of the rest, the five rarest
are kept; if they are not found together, the commonest is left out, one at a time, until the
remaining words are: the rarest words say most about what was asked, a term of the glossary
("aura") is left out after a player's own words, a word that names a section of the rules
("commander") after those, then the two to four words of a glossary term typed together
("legend rule", "maximum hand size"), all at once, and a word that names a keyword ("cascade") last. Common words ("no such" of "no
such wordxyz") are never offered alone: their results would be noise. The search page shows the results for the words
kept and names the words it left out.

Used where the query as typed found nothing, and for a question opening with a question word
whose other words name a term ("what is the stack": ``kb.site.search``). Bounded: for each word
a one-row probe (``limit 1``) and a window of at most a thousand index matches; of the five
rarest words, at most eight probes of several words together.
"""
from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from kb.site.search_db import per_file, table_exists
from kb.site.search_keywords import english_keywords_by_key
from kb.site.search_prefix import prefix_as_words
from kb.site.search_question_words import asked_in, question_words, question_words_of
from kb.site.search_readings import DIE_WORDING, RULES_WORDING, rules_wording
from kb.site.search_spelling import rules_word_for, vocabulary
from kb.site.search_text import TITLE_FILLER, WORD, fold, fts_query, has_cjk

# The full-text indexes whose rows a search shows, in the order they are probed.
PROBED_INDEXES = ("rules_fts", "glossary_fts", "rulings_fts", "ruling_translations_fts", "card_names_fts")
# The indexes a word's commonness is measured in: the largest share of one's rows that hold it
# (what ranking calls a word's document frequency). A word held by more than one row in twenty of
# one is common (as "no", "such", "player", "creature" are): a set of common words alone is never
# offered.
COUNTED_INDEXES = ("rules_fts", "rulings_fts", "ruling_translations_fts")
COMMON_SHARE = 0.05
SHARE_WINDOW = 1000
# Words of a question looked at (an FTS query reads twelve), and the rarest of them searched for:
# an AND of many common words reads long index entries (tens of ms on a million rulings).
MAX_CANDIDATES = 12
MAX_WORDS = 5
# Probes of two words or more, at most: past them, the rarest telling word alone is searched for.
MULTI_WORD_PROBES = 8
# The most words of a glossary term typed together that are kept together ("Maximum Hand Size",
# "First-Turn Drawing Exception"...).
GLOSSARY_TERM_WORDS = 4


@dataclass
class Relaxed:
    """What a question is searched for: ``kept``, its words found together (a misspelt rules word
    read as the word it misspells), ``left_out`` (as typed), ``read_as`` (typed → read)."""

    kept: list[str]
    left_out: list[str]
    read_as: dict[str, str] = field(default_factory=dict)
    # The piece kept is part of a longer run of CJK characters no question phrase splits: a word
    # cut, not a question's topic ("先制" of the Japanese "先制攻撃", First strike, is the Chinese
    # rules' Initiative). Its results are listed, none taken as the answer.
    cut_word: bool = False


# A player's noun for a creature the rules name by what it is doing: "can a creature block more
# than one attacker" kept "creature block one attacker", which no rule holds together (509.1a
# says "one creature for it to block that's attacking"), and listed only the glossary's "As
# though". The rules say "attacker" too (228 rules), so it is read so only where the words kept
# are held together by no rule, and by some rule when read so.
PLAYERS_NOUNS = {"attacker": "attacking", "attackers": "attacking", "blocker": "blocking", "blockers": "blocking"}


def relaxed_words(
    conn: sqlite3.Connection, query: str, names_a_term: Callable[[str], bool] = lambda word: False,
    a_glossary_term: Callable[[str], bool] = lambda word: False, indexes: list[str] | None = None,
) -> Relaxed | None:
    """``_relaxed_words``; a word it left out that the rules word otherwise (``RULES_WORDING``)
    read as the rules' word, when a rule holds it with the words kept: it is the rules' wording
    ("what happens to the attacking creature if the blocking creature dies" read so kept
    "creature blocking graveyard", which only the glossary's "As though" holds, and lost
    "attacking", which found 506's rules), and not that word alone: "does a creature that died stay
    in combat" found 404 Graveyard. Such a word kept as typed is read so where that keeps more of
    the question: "how do dies triggers look back in time" kept "dies" alone (700.4, and 701.66a
    Earthbend), and read so finds 603.10a; two rules say "dies", hundreds "put into a graveyard"
    (the search keeps the word's own glossary entry beside the reading: ``kb.site.search``).
    ``indexes``: the full-text indexes that must hold the words kept together (every one probed
    where none is given)."""
    relaxed = _relaxed_words(conn, query, names_a_term, a_glossary_term, indexes)
    if relaxed is None:
        return None
    wording = rules_wording(WORD.findall(query))
    reworded = {word: wording[fold(word)] for word in relaxed.left_out if fold(word) in wording}
    kept_as_typed = {word: wording[fold(word)] for word in relaxed.kept if fold(word) in wording}
    reworded.update(kept_as_typed)
    if reworded:
        again = _relaxed_words(
            conn, " ".join(reworded.get(word, word) for word in WORD.findall(query)), names_a_term, a_glossary_term, indexes
        )
        if (
            again is not None and all(reading in again.kept for reading in reworded.values())
            and table_exists(conn, "rules_fts") and found_together(conn, again.kept, ["rules_fts"])
            and set(again.kept) - set(reworded.values())
            # A kept word, or a "die" (which may be a die after all), only where more is kept so.
            and (not (kept_as_typed or DIE_WORDING.keys() & set(map(fold, reworded))) or len(again.kept) > len(relaxed.kept))
        ):
            relaxed = Relaxed(again.kept, again.left_out, {**again.read_as, **reworded}, again.cut_word)
    return _players_nouns_read(conn, relaxed)


def _players_nouns_read(conn: sqlite3.Connection, relaxed: Relaxed) -> Relaxed:
    """``relaxed`` with a player's noun among the words kept read as the rules word it
    (``PLAYERS_NOUNS``), where no rule holds the words kept as typed and some rule holds them so."""
    nouns = {word: PLAYERS_NOUNS[fold(word)] for word in relaxed.kept if fold(word) in PLAYERS_NOUNS}
    if not nouns or not table_exists(conn, "rules_fts") or found_together(conn, relaxed.kept, ["rules_fts"]):
        return relaxed
    reading = _distinct([nouns.get(word, word) for word in relaxed.kept])
    if not found_together(conn, reading, ["rules_fts"]):
        return relaxed
    return Relaxed(reading, relaxed.left_out, {**relaxed.read_as, **nouns}, relaxed.cut_word)


def _relaxed_words(
    conn: sqlite3.Connection, query: str, names_a_term: Callable[[str], bool] = lambda word: False,
    a_glossary_term: Callable[[str], bool] = lambda word: False, together_in: list[str] | None = None,
) -> Relaxed | None:
    """The words of ``query`` to search for instead, or None when it is CJK (its words are not
    spaced), or no word of it is found at all, or it is one word that is not a misspelt word of
    the rules ("comander"). ``names_a_term``: whether a word names a keyword (in any language) or
    a section ("cascade", "Trampelschaden", "commander"): such words are kept before any other.
    ``a_glossary_term``: whether it is a term of the rules' glossary ("aura"): such words are
    left out after a player's own ("go")."""
    words = WORD.findall(query)
    if not words or has_cjk(query):
        return None
    # A CR phrase that holds such words ("until end of turn", "if a creature would die") is
    # searched as typed first: the search relaxes where that found nothing.
    asking = question_words(words)
    candidates = _distinct([word for word in words if fold(word) not in asking])[:MAX_CANDIDATES]
    indexes = probed_indexes(conn)
    named = {word: names_a_term(word) for word in candidates}
    # The two words of a keyword or a title ("split second", "combat damage") are each kept as a
    # keyword's word is, before other words: "can I counter a spell with split second" kept
    # "counter spell second", left out "split", and found Suspend (a judge's answer key).
    for word in (word for pair in _named_pairs(words, asking, names_a_term) for word in pair):
        if word in named:
            named[word] = True
    # Two words that name a glossary term together tell what was asked, each common or not:
    # "what does face down mean" found nothing at all. Only that: kept as a keyword's words are,
    # "legend rule" lost its "rule" first, and "does the legend rule apply to tokens" was read
    # as "legend", the obsolete Legend (a review of the change).
    # So do three or four ("maximum hand size discard at end of turn" kept "discard end", and
    # found The Ring tempts you: a judge's review), the longest where they overlap.
    terms = _longest([set(run) for run in _named_pairs(words, asking, a_glossary_term, longest=GLOSSARY_TERM_WORDS)])
    shares: dict[str, float] = {}

    def share(word: str) -> float:
        if word not in shares:
            shares[word] = _share(conn, word)
        return shares[word]

    # A word the rules word otherwise is a player's word, not a slip: "does sacrificing a creature
    # count as dying" was read as "doing" (a review), and so never as "graveyard" (``relaxed_words``).
    # Nor is a word of a question asked in another language a slip of an English one: the French
    # "quand puis-je lancer un éphémère" read "lancer" (cast) as "lander", and found Lander tokens.
    foreign = _asked_in_another_language(conn, words)
    candidates, read_as = words_held(
        conn, candidates, share, held_anyway=named.__getitem__,
        not_a_slip=lambda word: foreign or fold(word) in RULES_WORDING,
    )
    named.update({reading: names_a_term(reading) for reading in read_as.values()})
    if len(words) < 2 and not read_as:
        return None
    # The rarest few (a keyword's or a section's word first), in the order they were typed.
    rarest = set(sorted(candidates, key=lambda word: (not named[word], share(word)))[:MAX_WORDS])
    kept = [word for word in candidates if word in rarest]
    if not kept:
        return None

    def telling(words_kept: list[str]) -> bool:
        # Common words only ("no such" of "no such wordxyz": each in more than one row in twenty
        # of an index) tell nothing of what was asked: their results would be noise. A term of
        # the glossary does ("priority" of "holding priority").
        return any(named[word] or a_glossary_term(word) or share(word) <= COMMON_SHARE for word in words_kept) or any(
            pair <= set(words_kept) for pair in terms
        )

    probes = MULTI_WORD_PROBES
    a_keyword = _names_a_keyword(conn, words, lambda word: named.get(word, False), share)

    def found(words_kept: list[str]) -> bool:
        nonlocal probes
        if len(words_kept) == 1:  # each was found alone above, or names a keyword
            return True
        if probes == 0:
            return False
        probes -= 1
        return found_together(conn, words_kept, together_in or indexes)

    def relaxed(words_kept: list[str]) -> Relaxed:
        read = {typed: reading for typed, reading in read_as.items() if reading in words_kept}
        return Relaxed(words_kept, _left_out(words, words_kept + list(read)), read)

    if (len(kept) < len(words) or read_as) and telling(kept) and found(kept):
        return relaxed(kept)
    while len(kept) > 1:
        # A keyword's or a section's word is left out only once no other word is left, and a
        # common one ("creature", in a third of the rules) before a telling one: "can I sacrifice
        # an indestructible creature" kept "indestructible creature", the 2013 rules holding both,
        # and left out "sacrifice" (a judge's review).
        # A term of the glossary after a player's word, whichever is rarer: "why did my aura go
        # to the graveyard" kept "go graveyard" and left out "aura" (a judge's answer key).
        # The two words of a glossary term kept together are left out after the others, and
        # together; a keyword's word only after them: "does the legend rule apply to tokens" lost
        # "rule" first, then "legend", and was read as "tokens"; "combat damage from a creature
        # with wither" kept "combat damage" and lost Wither; "can I block a face down creature
        # with a flying creature" kept "face flying" (a judge's review of the change).
        # A term of three or four words holding a keyword's word is not kept whole: the keyword
        # outlasts it ("does trample over planeswalkers work with deathtouch" kept "deathtouch"
        # alone, where it was "trample deathtouch": a review of the change).
        pairs = _apart([
            pair for pair in terms if pair <= set(kept) and not all(map(a_keyword, pair))
            and (len(pair) == 2 or not any(map(a_keyword, pair)))
        ])
        paired = {word for pair in pairs for word in pair}
        others = [word for word in kept if word not in paired and not a_keyword(word)]
        if not others and pairs and (len(paired) < len(kept) or len(pairs) > 1):
            by_commonness = sorted(pairs, key=lambda pair: -max(share(word) for word in pair))
            for pair in by_commonness:
                rest = [word for word in kept if word not in pair]
                if telling(rest) and found(rest):
                    return relaxed(rest)
            kept = [word for word in kept if word not in by_commonness[0]]
            continue
        pool = others or [word for word in kept if not a_keyword(word)] or kept
        droppable = (
            [word for word in pool if not named[word] and not a_glossary_term(word)]
            or [word for word in pool if not named[word]]
            or [word for word in pool if share(word) > COMMON_SHARE]
            or pool
        )
        commonest_first = sorted(droppable, key=lambda word: -share(word))
        for word in commonest_first:
            rest = [other for other in kept if other != word]
            if telling(rest) and found(rest):
                return relaxed(rest)
        kept.remove(commonest_first[0])
    return None


# A query is asked in another language when it holds this many of that language's question words
# that are no words of the English rules: "deathtuch per turn" (Italian "per") and "die roll
# comander" (German "die") are English, and their slips are read (a review of the change).
FOREIGN_QUESTION_WORDS = 2


def _asked_in_another_language(conn: sqlite3.Connection, words: list[str]) -> bool:
    language = asked_in(words)
    if language == "en":
        return False
    english = vocabulary(conn)
    listed = question_words_of(language)
    return sum(fold(word) in listed and word.lower() not in english for word in words) >= FOREIGN_QUESTION_WORDS


def _names_a_keyword(
    conn: sqlite3.Connection, words: list[str], names_a_term: Callable[[str], bool], share: Callable[[str], float]
) -> Callable[[str], bool]:
    """Whether a word names a keyword: an English one of two words typed together ("split
    second"), or of one that few rows hold ("wither", "goad", or a misspelt word read so: not
    "cast", "counter" or "sacrifice", verbs of every other rule), or a word of another language
    that names one ("Trampelschaden"). Not a section's title ("tokens", "declare attackers")."""
    keys = english_keywords_by_key(conn)
    english = vocabulary(conn)
    beside = {word for first, second in zip(words, words[1:], strict=False) if fold(f"{first} {second}") in keys
              for word in (first, second)}
    return lambda word: word in beside or (fold(word) in keys and share(word) <= COMMON_SHARE) or (
        word.lower() not in english and fold(word) not in keys and names_a_term(word))


def _apart(pairs: list[set[str]]) -> list[set[str]]:
    """``pairs`` when no two share a word, else none: "hybrid mana symbols converted mana cost"
    names Mana Symbol, Converted Mana Cost and Mana Cost, and kept every word of them before
    "hybrid", the word that asked (202.3f; a judge's review of the change)."""
    words = [word for pair in pairs for word in pair]
    return pairs if len(words) == len(set(words)) else []


def _named_pairs(
    words: list[str], asking: frozenset[str], names_a_term: Callable[[str], bool], longest: int = 2
) -> list[tuple[str, ...]]:
    """Each pair (or run of up to ``longest``) of typed words, none a question word nor a title's
    filler, that names a term: a title is named without its "step" or "phase", so "damage step"
    would be 120 Damage (a review of the change)."""
    runs = (tuple(words[start : start + size]) for size in range(2, longest + 1) for start in range(len(words) - size + 1))
    return [
        run for run in runs if not {fold(word) for word in run} & (asking | TITLE_FILLER) and names_a_term(" ".join(run))
    ]


def _longest(runs: list[set[str]]) -> list[set[str]]:
    """``runs`` but those within a longer one ("hand size" of "maximum hand size")."""
    return [run for run in runs if not any(run < other for other in runs)]


def probed_indexes(conn: sqlite3.Connection) -> list[str]:
    """The full-text indexes of ``PROBED_INDEXES`` the file has."""
    return [name for name in PROBED_INDEXES if table_exists(conn, name)]


def words_held(
    conn: sqlite3.Connection, words: list[str], commonness: Callable[[str], float] | None = None,
    held_anyway: Callable[[str], bool] = lambda word: False, not_a_slip: Callable[[str], bool] = lambda word: False,
) -> tuple[list[str], dict[str, str]]:
    """The words some full-text index holds (or ``held_anyway``: a keyword a dictionary names),
    a word nothing holds read as the rules word it misspells ("comander" → commander: the
    commonest candidate by ``commonness``), the others (and a word ``not_a_slip``) left out
    ("rulings" and "2015" of "Jace rulings 2015"); and those readings, typed → read."""
    indexes = probed_indexes(conn)
    held: list[str] = []
    read_as: dict[str, str] = {}
    for word in words:
        if held_anyway(word) or found_together(conn, [word], indexes):
            held.append(word)
        elif not not_a_slip(word) and (reading := rules_word_for(conn, word, commonness or (lambda candidate: _share(conn, candidate)))) and (
            reading not in held
        ):
            read_as[word] = reading
            held.append(reading)
    return held, read_as


def found_together(conn: sqlite3.Connection, words: list[str], indexes: list[str]) -> bool:
    """Whether some row of one of ``indexes`` holds every word, as the search would ask for
    them (the last word also as the start of a longer one: "trigger" finds "triggered")."""
    expression = fts_query(" ".join(words))
    if not expression:
        return False
    return any(
        conn.execute(
            f"select 1 from {index} where {index} match ? limit 1", (prefix_as_words(conn, index, expression),)
        ).fetchone()
        for index in indexes
    )


_SHARES: OrderedDict[tuple, dict[str, float]] = OrderedDict()
# Words whose share is kept per served file: a question's common words ("the", "creature", "at")
# recur from query to query, each three index probes (a long question's ~1.5 ms).
SHARES_KEPT = 20_000
KEPT_WORD_LENGTH = 40  # no word of the rules is longer; a pasted run of letters is not kept


def _share(conn: sqlite3.Connection, word: str) -> float:
    """The largest share of a counted index's rows that hold ``word`` (a word common in the
    translations' language is common, however rare in English): counted exactly up to
    ``SHARE_WINDOW`` matches of an index, else estimated from how far into its rowids that many
    matches reach (rowids are dense, or hashes spread evenly over their range). Kept per served
    file, ``SHARES_KEPT`` words at most."""
    kept = per_file(conn, _SHARES, lambda _: {})
    share = kept.get(word)
    if share is None:
        share = _counted_share(conn, word)
        if len(kept) < SHARES_KEPT and len(word) <= KEPT_WORD_LENGTH:
            kept[word] = share
    return share


def _counted_share(conn: sqlite3.Connection, word: str) -> float:
    largest = 0.0
    for index, (rows_held, low, high) in index_spans(conn).items():
        found, last = conn.execute(
            f"select count(*), max(rowid) from (select rowid from {index} where {index} match ? limit {SHARE_WINDOW})",
            (f'"{word}"',),
        ).fetchone()
        reached = rows_held if found < SHARE_WINDOW or high <= low else rows_held * (last - low + 1) / (high - low + 1)
        largest = max(largest, min(1.0, found / max(reached, 1)))
    return largest


_INDEX_SPANS: OrderedDict[tuple, dict[str, tuple[int, int, int]]] = OrderedDict()


def index_spans(conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]:
    """(rows, lowest rowid, highest rowid) of each counted index, kept per served file."""
    return per_file(conn, _INDEX_SPANS, _read_index_spans)


def _read_index_spans(conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]:
    spans = {}
    for index in COUNTED_INDEXES:
        if table_exists(conn, f"{index}_docsize"):
            rows_held, low, high = conn.execute(f"select count(*), min(id), max(id) from {index}_docsize").fetchone()
            spans[index] = (rows_held, low or 0, high or 0)
    return spans


def _distinct(words: list[str]) -> list[str]:
    seen: set[str] = set()
    distinct = []
    for word in words:
        if word.casefold() not in seen:
            seen.add(word.casefold())
            distinct.append(word)
    return distinct


def _left_out(words: list[str], kept: list[str]) -> list[str]:
    wanted = {word.casefold() for word in kept}
    return _distinct([word for word in words if word.casefold() not in wanted])
