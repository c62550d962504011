"""Query text for the one-box search: cleaning, folding, FTS5 expressions, snippets, spelling distance (pure)."""
from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from kb.normalise.names import name_key

# Private-use sentinels mark hits inside snippet(): they survive html.escape, user text never
# contains them (they are stripped from queries), and they become <mark> after escaping.
HIT_START = "\ue000"
HIT_END = "\ue001"

WORD = re.compile(r"\w+", re.UNICODE)
CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)
RULE_NUMBER_KEY = re.compile(r"(\d+)|([a-z]+)")


def fold(text: str | None) -> str:
    """Case- and accent-insensitive key: 'Paradiesvögel' and 'paradiesvogel' fold alike."""
    return _fold(text) if text is None or len(text) <= 300 else name_key(text) or ""


@lru_cache(maxsize=1 << 16)
def _fold(text: str | None) -> str:
    # Rule titles and card names recur across versions and queries (300 folds a search).
    return name_key(text) or ""


def compact(text: str | None) -> str:
    """``fold`` without spaces or punctuation: "Jace, Vryn's Prodigy" and "jace vryns prodigy" meet."""
    return _compact(text) if text is None or len(text) <= 300 else NOT_WORD.sub("", fold(text))


@lru_cache(maxsize=1 << 16)
def _compact(text: str | None) -> str:
    # The candidates of a query are card names that recur across queries (800 a search).
    return NOT_WORD.sub("", fold(text))


# Full-width forms of ASCII (U+FF01–U+FF5E) and the ideographic space, as a Japanese or Chinese
# input method types them: "７０２．１９ｂ" is 702.19b (read as three words, it found nothing, and
# "７０２.19b" found 701.19b first).
FULL_WIDTH_ASCII = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


# Half-width katakana ("ｼﾞｪｲｽ"), as some keyboards and old systems type it: the katakana every text
# prints ("ジェイス").
HALF_WIDTH_KANA = re.compile(r"[\uff61-\uff9f]+")
# A Chinese input method's full stop between a rule number's digits: "702。19" is 702.19.
IDEOGRAPHIC_POINT = re.compile(r"(?<=\d)。(?=\d)")


def clean_query(raw: str | None) -> str:
    """The query as typed, NFC, full-width ASCII as ASCII, half-width katakana as katakana,
    sentinels and control characters removed, length bounded."""
    text = HALF_WIDTH_KANA.sub(lambda kana: unicodedata.normalize("NFKC", kana.group()), raw or "")
    text = IDEOGRAPHIC_POINT.sub(".", unicodedata.normalize("NFC", text).translate(FULL_WIDTH_ASCII))
    text = "".join(char for char in text if char.isprintable() and char not in (HIT_START, HIT_END))
    return " ".join(text.split())[:200]


# Quotation marks of the languages searched, put around a term to say it is one: "Flying",
# „Fliegend“, « Vol », 「飛行」, 《飞行》.
QUOTATION_MARKS = "\"'“”„‟‘’‚«»‹›「」『』《》〈〉"


def without_quotes(query: str) -> str:
    """``query`` without the quotation marks around it: „Fliegend“ is the keyword Fliegend (quoted,
    it found nothing in any language but English, whose titles are matched without them; a foreign
    players' review)."""
    inner = query.strip().strip(QUOTATION_MARKS).strip()
    # Not two quoted terms ("“Flying” and “reach”"): one term, whatever apostrophes it holds.
    return inner if inner and not any(mark in inner for mark in QUOTATION_MARKS if mark not in "'‘’") else query


def fts_query(query: str, prefix_last: bool = True) -> str | None:
    """An FTS5 MATCH expression from the words of ``query``: every token quoted, all required.

    Quotes, parentheses, '-', '*', ':' and keywords like NEAR or OR can never be FTS syntax here
    because only ``\\w+`` runs are kept and each is wrapped in double quotes.
    """
    tokens = WORD.findall(query)[:12]
    if not tokens:
        return None
    parts = [f'"{token}"' for token in tokens]
    # A prefix of three letters ("the*") expands to hundreds of words: four or more only.
    if prefix_last and len(tokens[-1]) >= 4 and not has_cjk(tokens[-1]):
        parts[-1] += "*"
    return " ".join(parts)


# The CR writes small numbers as words ("ten or more poison counters", "a hand of seven cards");
# players type digits ("10 poison counters" found the Two-Headed Giant's 15: an English judge's
# review).
NUMBER_WORDS = dict(enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)))
# One word of ``fts_query``'s expression, perhaps a prefix of its own ("exil"*).
QUOTED_TOKEN = re.compile(r'"[^"]*"\*?')


def with_number_words(match: str) -> str:
    """``fts_query``'s expression with each small number also as the word the CR writes for it:
    ``"10" "poison"`` is ``("10" OR "ten") AND "poison"`` (FTS5 joins a group to a word only by
    an explicit AND)."""
    tokens = QUOTED_TOKEN.findall(match)
    # isdecimal, not isdigit: "²" and "②" are digits no int() reads (a review: "deal ³ damage" raised).
    either = [f'({token} OR "{NUMBER_WORDS[int(token[1:-1])]}")'
              if token[1:-1].isascii() and token[1:-1].isdecimal() and int(token[1:-1]) in NUMBER_WORDS else token
              for token in tokens]
    return " AND ".join(either) if either != tokens else match


# An English word's ending, for a stem read as a prefix ("exiled", "controls", "targets").
INFLECTION = re.compile(r"^([a-z]{4,}?)(?:ed|es|s|ing)$")


def word_stems_as_prefixes(match: str) -> str | None:
    """``fts_query``'s plain words with each inflected English word as its stem's prefix, and
    every other word of ``STEM_LENGTH`` letters or more as a prefix of itself (``"commander"
    "exiled"*`` is ``"commander"* "exil"*``: "redirect" finds today's 306.7, which says
    "redirection", "lose" finds "loses"); None when no word changes."""
    tokens = QUOTED_TOKEN.findall(match)
    if not tokens or " ".join(tokens) != match:
        return None
    stems = []
    for token in tokens:
        word = token.strip('"*')
        found = INFLECTION.match(word)
        stem = found.group(1) if found else word
        stems.append(f'"{stem}"*' if len(stem) >= STEM_LENGTH and stem.isascii() and stem.isalpha() else token)
    return " ".join(stems) if stems != tokens else None


# The shortest word read as a prefix of longer ones ("lose": "loses"; not "die": "diet").
STEM_LENGTH = 4


def has_cjk(text: str) -> bool:
    return bool(CJK_CHAR.search(text))


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def marked_to_html(text: str | None) -> str:
    """Escape text that carries hit sentinels, then turn the sentinels into <mark>."""
    escaped = html.escape(text or "")
    return escaped.replace(HIT_START, "<mark>").replace(HIT_END, "</mark>")


def highlight(text: str | None, needle: str, width: int = 80) -> str:
    """A window of ``text`` around the first (case-insensitive) ``needle``, escaped and marked."""
    text = text or ""
    if not needle:
        return html.escape(text[: width * 2])
    lowered, wanted = text.casefold(), needle.casefold()
    first = lowered.find(wanted)
    if first < 0:
        return html.escape(text[: width * 2]) + ("…" if len(text) > width * 2 else "")
    start = max(0, first - width)
    end = min(len(text), first + len(needle) + width)
    window, window_lower = text[start:end], lowered[start:end]
    pieces, cursor = [], 0
    while True:
        found = window_lower.find(wanted, cursor)
        if found < 0:
            break
        pieces.append(html.escape(window[cursor:found]))
        pieces.append("<mark>" + html.escape(window[found : found + len(needle)]) + "</mark>")
        cursor = found + len(needle)
    pieces.append(html.escape(window[cursor:]))
    return ("…" if start else "") + "".join(pieces) + ("…" if end < len(text) else "")


# Words a title is asked for without: "Day and Night" as "day night", "Stack" as "the stack",
# "810 Two-Headed Giant Variant" as the game, "503 Upkeep Step" and "506 Combat Phase" as "upkeep"
# and "combat". A title of filler alone keeps its words ("Phase", "Step").
TITLE_FILLER = frozenset({"a", "an", "and", "of", "the", "variant", "step", "phase"})


# A glossary entry defining a subtype, in any of its numbered senses ("Case: An enchantment
# subtype…", "Wall: A creature type…", "Room: … 2. An enchantment subtype…", "Forest: One of the
# five basic land types"): the rules write those capitalized, and the same word in lower case is
# an ordinary word ("in that case", "the role of a famous character"). Card types ("Creature: A
# card type…") and the entries naming a kind of subtype ("Creature Type: A subtype that's
# correlated to…") are written in lower case and stay linked so.
SUBTYPE_DEFINITION = re.compile(
    r"(?:^|\n)(?:\d\. )?(?:An? (?:\w+ )?(?:subtype|creature type|land type|artifact type)|One of the five basic land types)\b")


def linked_as_written(term: str, definition: str | None) -> bool:
    """Whether a glossary term is linked in running text only as written (capitalized): a
    subtype (or one its entry names so: "Role: … the Aura and Role subtypes"). An obsolete term is
    never linked there (its bare word, "During", "Bury", is an ordinary word of today's rules):
    see ``links_in_text``."""
    bare = bare_term(term)
    if bare.endswith(("Type", "type")) or bare == "Subtype":
        return False
    definition = definition or ""
    return bool(SUBTYPE_DEFINITION.search(definition)) or f"{bare} subtype" in definition


# Terms whose entry defines a thing ("Match: A multiplayer game or a two-player series of
# games…") while the rules mostly say the word as an everyday verb ("if the properties no longer
# match", "its Oracle text matches", "change to match": 17 rules of 2026-04-17; a review). Read
# from the definitions ("A …", no "To …" sense), the rule took Color from "colored", Target
# from "targeted", Enchant from "enchanted": a list, not a guess.
VERBS_TOO = frozenset({"match", "persist"})  # 603.2e: a state "persists"; a creature has persist

# Terms whose word the rules say in its everyday sense but in the rules their entries point to,
# linked only on a page of those: "in general" is not the Emperor variant's General (six rules of
# 2026-04-17), and "unless" a cost only in 118.12a (81 rules). A list, as ``VERBS_TOO`` is (a
# judge's review of the glossary links).
EVERYDAY_WORDS = frozenset({"general", "unless"})

# Terms whose word the rules say in both senses, by what is around it: a pattern of the everyday
# sense ("skip"), or of the game's ("only"), matched where the word is (two judges' reviews of the
# glossary links, then a code review: "combat requirements" and "pass in succession" are the
# game's, "not a requirement" and a turn marker "passed" are not).
WORD_SENSES: dict[str, tuple[str | None, str | None]] = {
    "dash": (r"\b(?:long|em|en)\s+dash|\b(?:the|a)\s+dash\b(?!\s+(?:cost|abilit))", None),
    "limited": (r"\blimited\s+to\b", None),
    "lock": (r"\blocked\s+in\b", None),
    "locked": (r"\blocked\s+in\b", None),
    # A counter moved (graft, 702.58a), not an object moved out of a zone (113.6m).
    "move": (None, r"\bmov(?:e|es|ed|ing)\s+(?:\S+\s+){0,3}?counters?\b"),
    # The multiplayer options of 800–811, not "two or more options", "the option to".
    "option": (None, r"\bmultiplayer\s+options?\b"),
    "pass": (r"\bpass(?:es|ed|ing)?\s+(?:the\s+turn\s+marker|the\s+remaining|to\s+(?:them|the|each))"
             r"|\b(?:being|been|is|was|are|were)\s+passed\b", None),
    "requirement": (None, r"\bcombat\s+requirements?|\brequirements?\s+(?:or\s+restrictions|\(effects)"
                          r"|\brestrictions\s+and\s+requirements?"),
    # "play a game", "play with stickers", "limited play": not a land's or a card's play.
    "play": (r"\bplay(?:s|ed|ing)?\s+(?:with|for|first|begins|until|involving|activities|variants|where|other\s+than"
             r"|in\s+which|(?:a|an|the)\s+(?:[\w-]+\s+){0,2}?(?:games?|magic|role)|magic)\b"
             r"|\b(?:limited|casual|organized|game)\s+play\b", None),
}


# A glossary term ending in "y" as the rules inflect it: abilities, copies, copied, destroyed,
# playing (the linker's "y|ies" missed "destroyed" and "played": a code review).
Y_ENDINGS = "(?:y(?:s|ed|ing)?|ies|ied)"


def term_endings(term: str) -> tuple[str, str]:
    """A glossary term's stem and the pattern of the English endings it is said with ("attacks",
    "attacking"; "abilities", "destroyed"): the linker's and the rule page's terms alike."""
    return (term[:-1], Y_ENDINGS) if term.endswith("y") else (term, "(?:s|es|ed|ing)?")


def linked_only_in_its_rules(term: str) -> bool:
    """Whether a glossary term is linked only on a page of the rules its entry points to
    (``EVERYDAY_WORDS``)."""
    return bare_term(term).casefold() in EVERYDAY_WORDS


def linked_as_a_noun(term: str) -> bool:
    """Whether a glossary term is linked in running text only where its word is not a verb
    (``kb.site.glossary_linker.GlossaryLinker``)."""
    return bare_term(term).casefold() in VERBS_TOO


def links_in_text(term: str) -> bool:
    """Whether a glossary term is linked where the rules' text uses it: not an obsolete one
    ("During (Obsolete)" linked every "during"; 2006's "Global Enchantment (obsolete)" too)."""
    return not is_obsolete_term(term)


def is_obsolete_term(term: str) -> bool:
    """Whether a glossary term is qualified obsolete, as today's "Mana Burn (Obsolete)" and 2006's
    "Local Enchantment (obsolete)" are."""
    return term.casefold().rstrip().endswith("(obsolete)")


def bare_term(term: str) -> str:
    """A glossary term without its qualifier: "Bury (Obsolete)" and "Summoning Sickness
    (Informal)" are asked for as "bury" and "summoning sickness"."""
    return term.split(" (")[0]


@lru_cache(maxsize=1 << 14)
def title_key(text: str | None) -> str:
    """A rule's title or a glossary term as a query names it: folded, without filler words, its
    last word singular ("Continuous Effects" and "continuous effect" alike). Kept: a common word's
    search orders a hundred glossary terms by it."""
    every = [word for word in NOT_WORD.split(fold(text)) if word]
    words = [word for word in every if word not in TITLE_FILLER] or every
    if words:
        words[-1] = singular(words[-1])  # "Mana Abilities" and "mana ability" alike
    return " ".join(words)


def singular(word: str) -> str:
    """An English plural as its singular, roughly: "abilities" ability, "effects" effect; "loss" stays."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def stem(word: str) -> str:
    """An English word without its inflection, roughly: "copying" and "copies" are "copy"."""
    word = singular(word)
    found = INFLECTION.match(word)
    return found.group(1) if found else word


@lru_cache(maxsize=1 << 16)
def rules_over(number: str) -> tuple[str, ...]:
    """The section and the rule a rule number is under, itself among them: "702.19c" is under
    702 and 702.19; "702.19" under 702 and itself; "707" is its own section."""
    # Kept: a common word's search asks it of a few hundred rule numbers, the same every time.
    section, _, rest = number.partition(".")
    return (section, f"{section}.{rest.rstrip('abcdefghijklmnopqrstuvwxyz')}") if rest else (section,)


@lru_cache(maxsize=1 << 16)
def rule_number_key(number: str) -> tuple:
    """Sort key in reading order: 702.9 < 702.11 < 702.11a < 702.11b < 702.100."""
    # Kept: a common word's search sorts a few hundred rule numbers, the same ones every time.
    return tuple((int(digits), "") if digits else (-1, letters) for digits, letters in RULE_NUMBER_KEY.findall(number))


def edit_distance(left: str, right: str, cap: int = 4) -> int:
    """Levenshtein distance with adjacent transpositions ("conspier" is one edit from "conspire").

    Stops early once every path exceeds ``cap`` (returns ``cap + 1``): spelling suggestions
    only care about small distances.
    """
    if abs(len(left) - len(right)) > cap:
        return cap + 1
    previous_previous: list[int] = []
    previous = list(range(len(right) + 1))
    for i, left_char in enumerate(left, 1):
        current = [i] + [0] * len(right)
        for j, right_char in enumerate(right, 1):
            cost = left_char != right_char
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and left_char == right[j - 2] and left[i - 2] == right_char:
                current[j] = min(current[j], previous_previous[j - 2] + 1)
        if min(current) > cap:
            return cap + 1
        previous_previous, previous = previous, current
    return previous[-1]


def letters_apart(left: str, right: str) -> int:
    """A lower bound of the edit distance: the distinct letters one has and the other lacks
    (each needs an edit). Set operations in C: it rules out most of a few hundred candidates
    before ``edit_distance`` runs its Python loops."""
    mine, theirs = set(left), set(right)
    return max(len(mine - theirs), len(theirs - mine))


def allowed_slips(query_key: str) -> int:
    """How many edits a plausible misspelling of ``query_key`` may be away: one per four
    characters, and one at least for a word of letters. A CJK word of two or three characters
    allows none: each character is a word of its own, and one changed is another word, not a
    slip (one in two offered Graft for 接死, Deathtouch; Morph for 変身, Transform; First Strike
    for 速攻, Haste: a keyword review against the real Japanese printings; at four characters
    and more it put 90 pairs of the snapshot's card names and keywords in reach of each other)."""
    if has_cjk(query_key):
        return len(query_key) // 4
    return max(1, len(query_key) // 4)


def close_enough(query_key: str, candidate_key: str, allowed: int | None = None) -> int | None:
    """The distance when ``candidate_key`` is a plausible spelling of ``query_key``, else None
    (``allowed``: ``allowed_slips(query_key)``, when the caller has it)."""
    if not query_key or not candidate_key or query_key == candidate_key:
        return None
    if allowed is None:
        allowed = allowed_slips(query_key)
    if abs(len(query_key) - len(candidate_key)) > allowed or letters_apart(query_key, candidate_key) > allowed:
        return None
    distance = edit_distance(query_key, candidate_key, allowed)
    return distance if distance <= allowed else None


def one_face_when_alike(name: str) -> str:
    """A reversible card's whole name as Scryfall gives it, "Okaun, Eye of Chaos // Okaun, Eye of
    Chaos", as the one face it names twice (the card is named by its face: the whole name found
    nothing); any other text as it is."""
    faces = [face.strip() for face in name.split(" // ")]
    if len(faces) > 1 and faces[0] and len({fold(face) for face in faces}) == 1:
        return faces[0]
    return name


UMLAUT_SPELLED = re.compile(r"(?<=[^\W\d_])(?:ae|oe|ue)|^(?:Ae|Oe|Ue)(?=[^\W\d_])", re.IGNORECASE)


def umlauts_as_vowels(text: str) -> str | None:
    """German umlauts typed as two letters read as their vowel ("Waechter des Spaehnests" is
    "Wachter des Spahnests", as names are folded: without marks); None where ``text`` has no such
    pair, or is CJK."""
    if has_cjk(text) or not UMLAUT_SPELLED.search(text):
        return None
    return UMLAUT_SPELLED.sub(lambda pair: pair.group(0)[0], text)
