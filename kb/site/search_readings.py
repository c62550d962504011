"""What a player's word means in the rules' words: "dies" is "put into a graveyard" (700.4).

The rules say "dies" in two rules and "put into a graveyard" in hundreds, so a question's "dies"
is searched as "graveyard" where that is found (``kb.site.search_relax.relaxed_words``), and the
glossary entry the reading rests on (Dies) is listed with its results (``kb.site.search``).
"""
from __future__ import annotations

import sqlite3

from kb.site.search_fulltext import glossary_by_text
from kb.site.search_hit import Hit
from kb.site.search_question_words import question_words
from kb.site.search_text import fold, fts_query

# Words players say for what the rules word otherwise, as the rules define them: a creature or
# planeswalker "dies" if it is put into a graveyard from the battlefield (700.4). A question's
# "dies" is left out when nothing holds it with its other words ("what happens if my commander
# dies" found 903 alone, never 903.9): then it is read as the rules' word.
RULES_WORDING = {"dies": "graveyard", "died": "graveyard", "dying": "graveyard"}
# "die" too, but only in an English question that rolls nothing and names what dies: a die is
# rolled ("commander die roll", the planar die) or kept on the table ("can a die be used as a
# counter": a review), and German's "die" is an article.
DIE_WORDING = {"die": "graveyard"}
DYING = frozenset({"creature", "creatures", "planeswalker", "planeswalkers", "token", "tokens", "commander",
                   "commanders", "permanent", "permanents", "it", "they", "blocker", "blockers", "attacker", "attackers"})
# Words of a die a player holds: rolled, or kept as a marker ("can I use a die to track loyalty
# counters on a planeswalker", "can a token be represented by a die": a review).
DICE = frozenset({"roll", "rolls", "rolled", "rolling", "reroll", "rerolls", "rerolled", "planar", "dice", "sided",
                  "result", "results", "d4", "d6", "d8", "d10", "d12", "d20", "chaos", "spindown", "track",
                  "tracking", "marker", "markers", "represent", "represents", "represented", "use", "used", "using", "app"})


def rules_wording(words: list[str]) -> dict[str, str]:
    """``RULES_WORDING`` for a question of ``words``, with ``DIE_WORDING`` where its "die" is not
    a question word of its language, nothing in it is a die a player holds (``DICE``) and something
    in it may die."""
    folded = set(map(fold, words))
    if "die" not in folded or "die" in question_words(words) or DICE & folded or not DYING & folded:
        return RULES_WORDING
    return {**RULES_WORDING, **DIE_WORDING}


def definitions_of_readings(conn: sqlite3.Connection, read_as: dict[str, str]) -> list[Hit]:
    """The glossary entries of a player's words read as the rules' wording ("dies" as
    "graveyard"): the definition each reading rests on (Dies, 700.4), which the words searched no
    longer name ("dies trigger on a creature that phases out" listed only the rules holding
    "graveyard": a judge's review). Listed first among the glossary's hits (``kb.site.search._search``)."""
    wordings = {**RULES_WORDING, **DIE_WORDING}
    defined: list[Hit] = []
    for typed_word, reading in read_as.items():
        if wordings.get(fold(typed_word)) != reading:
            continue
        # "die", "died" and "dying" are read as their term's: the glossary defines Dies.
        forms = [fold(typed_word)] + [form for form, wording in wordings.items() if wording == reading]
        defined += next((hits for form in forms if (hits := [
            hit for hit in glossary_by_text(conn, form, fts_query(form) or form, 1) if fold(hit.title) == form])), [])
    return defined
