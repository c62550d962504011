"""The words of a question, rather than of what it asks about, in the languages of the site.

Judges ask in their own language: "was passiert wenn mein Kommandant stirbt", "qué pasa si mi
comandante muere". When nothing holds every word of such a query, its question words are left out
(``search_relax``), as English ones are. A word of one language's list can be a telling word of
another's ("die" is a German article and an English rules word, "son" a French one and an English
noun), so a query leaves out English's words and those of the one other language whose words it
holds most of, never every list at once. Compared folded (``fold``: case and accents aside).
"""
from __future__ import annotations

from functools import cache

from kb.site.search_text import fold

QUESTION_WORDS_BY_LANGUAGE: dict[str, str] = {
    "en": """
        a an the and or but of to in on at by for from with without into onto about as
        is are was were be been being am do does did doing done
        can could may might must shall should will would
        what whats which who whom whose when where why how
        i me my mine we us our you your yours he him his she her it its they them their
        this that these those there here if then so than also just
        happen happens happened happening work works worked working
        same different difference between vs versus mean means meaning
        thing things something anything
        s t d ll re ve m
    """,
    "de": """
        was wie wer wen wem wessen wo wann warum wieso weshalb welche welcher welches welchen welchem
        ob wenn falls als dann und oder aber mit ohne von vom zu zum zur in im an am auf aus bei beim
        für nach über unter durch gegen um der die das den dem des ein eine einer eines einen einem
        ich mich mir mein meine meiner meinen meinem meines du dich dir dein deine deinen er sie es
        ihn ihm ihr ihre ihren sein seine seinen wir uns unser unsere man
        ist sind war waren wird werden wurde wurden hat haben hatte kann können darf dürfen muss
        müssen soll sollte würde macht tut passiert passieren geschieht geschehen funktioniert
        funktionieren bedeutet bedeuten unterschied zwischen also denn genau
    """,
    "fr": """
        que qu quoi qui quel quelle quels quelles comment pourquoi quand où ou si alors et mais avec puis
        sans de du des d la le les l un une à au aux en dans sur par pour ce c ça cela ceci se s
        je j me m moi mon ma mes tu te ton ta tes il elle ils elles lui leur leurs son sa ses on nous
        notre nos vous votre vos y est sont était être a ont avoir peut peux pouvons peuvent dois doit
        faut fait font passe arrive arrivent fonctionne fonctionnent marche marchent signifie veut
        dire différence entre t
    """,
    "es": """
        qué que quién quien quiénes cuál cual cuáles cómo como cuándo cuando dónde donde por porqué
        para si entonces y e o u pero con sin de del la el los las lo un una unos unas a al en sobre
        yo me mi mis tú tu tus te él ella ellos ellas su sus se nosotros nuestro es son está están era
        ser estar ha han hay hace hacen puede puedo pueden debo debe pasa pasaría ocurre sucede
        funciona funcionan significa diferencia entre
    """,
    "it": """
        che cosa chi quale quali come quando dove perché se allora e ed o ma con senza di del della
        dei delle da dal il lo la i gli le l un uno una a al alla in nel nella su sul per tra fra
        io mi me mio mia miei mie tu ti tuo tua lui lei suo sua si ci noi è sono era essere ha hanno
        fa fanno posso può possono devo deve succede accade capita funziona funzionano significa
        differenza
    """,
    "pt": """
        que quê o a os as um uma quem qual quais como quando onde por porque porquê para se então e
        ou mas com sem de do da dos das em no na nos nas ao à eu me meu minha meus minhas você seu
        sua ele ela eles elas é são está era ser tem têm faz fazem pode posso podem devo deve acontece
        funciona funcionam significa diferença entre
    """,
    "ru": """
        что как кто какой какая какие когда где почему зачем если то и или но а с со без в во на по
        из к о об для от у я мне меня мой моя мои моё моего моей ты твой он она оно они его её их
        это этот эта ли делает делают происходит произойдёт случится случается будет работает работают значит
        означает разница между можно может могу нужно
    """,
}


# The question words a question opens with, in the languages of the site: where a query opens
# with one (or ends with "?") and its other words name a term, that term is searched for
# (``kb.site.search``), not only when nothing holds every word. Not "can", "must", "is" or "do":
# rules say "must block", "can attack", "is a creature" ("Do or Die" is a card); nor "when",
# "where", "which", "whose", which open card text ("when you cast", "where X is", "whose power");
# nor German "was" and Italian "come", English words too ("was cast", "come into play").
OPENING_WORDS_BY_LANGUAGE: dict[str, str] = {
    "en": "what whats who whom why how",
    "de": "wie wer wen wem warum wieso weshalb",
    "fr": "que qu quoi qui comment pourquoi",
    "es": "qué quién quiénes cómo",
    "it": "che cosa chi perché",
    "pt": "quem como porque",
    "ru": "что как кто почему зачем",
}


@cache
def _opening_words() -> frozenset[str]:
    return frozenset(fold(word) for words in OPENING_WORDS_BY_LANGUAGE.values() for word in words.split())


def opens_a_question(words: list[str], typed: str) -> bool:
    """Whether a query of ``words`` (split at spaces; typed as ``typed``) is a question: it opens
    with a question word of a language of the site ("can", never "can't"), or ends with "?", and
    holds some other word."""
    return len(words) > 1 and (fold(words[0]) in _opening_words() or typed.rstrip().endswith(("?", "？")))


@cache
def _folded_lists() -> dict[str, frozenset[str]]:
    return {lang: frozenset(fold(word) for word in words.split()) for lang, words in QUESTION_WORDS_BY_LANGUAGE.items()}


def question_words(words: list[str]) -> frozenset[str]:
    """The folded words to leave out of a query of ``words``: English's question words, and those
    of the language it is asked in (``asked_in``)."""
    lists = _folded_lists()
    language = asked_in(words)
    return lists["en"] if language == "en" else lists["en"] | lists[language]


def question_words_of(language: str) -> frozenset[str]:
    """The folded question words of one language of ``QUESTION_WORDS_BY_LANGUAGE``."""
    return _folded_lists()[language]


def asked_in(words: list[str]) -> str:
    """The language a query of ``words`` is asked in, by its question words: the other language
    whose list holds most of them, where it holds more than English's does (on a tie, the first
    in ``QUESTION_WORDS_BY_LANGUAGE``'s order); else English."""
    lists = _folded_lists()
    folded = [fold(word) for word in words]
    english = sum(word in lists["en"] for word in folded)
    held, language = max(
        ((sum(word in listed for word in folded), -order), lang)
        for order, (lang, listed) in enumerate(lists.items())
        if lang != "en"
    )
    return language if held[0] > english else "en"
