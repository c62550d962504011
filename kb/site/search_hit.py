"""What a search answers: one hit, and the hits grouped by kind with counts and paging."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

GROUP_TITLES = {
    "cards": "Cards",
    "card_rulings": "Rulings of the card",
    "keywords": "Keywords",
    "rules": "Rules",
    "glossary": "Glossary",
    "rulings": "Rulings",
    "translations": "Ruling translations",
}


@dataclass
class Hit:
    kind: str
    title: str
    url: str
    snippet: str = ""  # HTML: escaped text with <mark> around the matched words
    lang: str | None = None
    detail: str = ""
    # The language of a card name used as the title (cards, rulings, translations: a card found
    # by a localized name is titled by its English name, one known only by a printed name by that
    # name); None where the title is English. Rules and glossary terms are titled in ``lang``.
    title_lang: str | None = None
    # Older CR versions' copies of the same rule, folded under it on the page (the newest of
    # those the query found, at most twenty), and in how many older versions the rule is in all
    # (0: as many as are listed).
    older: list[Hit] = field(default_factory=list)
    older_count: int = 0
    # A rule found only in older versions whose identity goes on: its number in the newest
    # version, whose words the query did not match ("" where it was removed, or not a rule).
    now: str = ""
    # ``now`` was reached through a step paired by a number alone: it may be another rule.
    now_by_number: bool = False

    def title_language(self) -> str | None:
        return self.lang if self.kind in ("rule", "glossary") else self.title_lang

    def to_dict(self) -> dict[str, Any]:
        """``dataclasses.asdict`` without its deep copies (a page of hits with their older copies)."""
        return {"kind": self.kind, "title": self.title, "url": self.url, "snippet": self.snippet, "lang": self.lang,
                "detail": self.detail, "title_lang": self.title_lang, "older": [copy.to_dict() for copy in self.older],
                "older_count": self.older_count or len(self.older), "now": self.now, "now_by_number": self.now_by_number}


# The furthest a group is paged (``kb.site.search._search``): a page asked from further is this one.
LAST_OFFSET = 1000


@dataclass
class SearchResults:
    query: str
    groups: dict[str, list[Hit]] = field(default_factory=dict)
    best: Hit | None = None
    # Matches per group (read up to a cap: "1000+" when it is reached) and the page shown.
    counts: dict[str, int] = field(default_factory=dict)
    capped: set[str] = field(default_factory=set)
    suggestions: list[Hit] = field(default_factory=list)
    kind: str | None = None  # one group paged on its own
    offset: int = 0
    page_size: int = 10
    abbreviation: str | None = None  # the query as typed, when ``query`` is what it abbreviates
    # The query as typed, when nothing held all its words and these are the results for some
    # of them (``query``); ``left_out``: the words the results were not asked to hold.
    relaxed_from: str | None = None
    left_out: list[str] = field(default_factory=list)
    read_as: dict[str, str] = field(default_factory=dict)  # a misspelt word → the rules word searched
    # Where no rule held every word and something else did: the words the rules group holds, and
    # those it was not asked to hold (``kb.site.search.with_rules_of_fewer_words``).
    rules_for: str | None = None
    rules_left_out: list[str] = field(default_factory=list)
    # Where only older editions' rules held every word: today's rules of fewer words lead them.
    rules_older_hold_all: bool = False
    # The rules a player's word within the question points to (listed first; no match of its words).
    players_words_rules: list[str] = field(default_factory=list)
    # The card some of the query's words named ("Okaun" of "Okaun coin flip"): oracle_id, name,
    # typed (those words); its rulings holding the other words are the group "card_rulings".
    card: dict[str, str | None] | None = None
    # "Did you mean", not asked for yet (``kb.site.search._search``): not part of the answer.
    later_suggestions: Callable[[], list[Hit]] | None = field(default=None, repr=False, compare=False)

    @property
    def query_lang(self) -> str | None:
        """The language of the query, where the answer is an exact match that says it (a keyword
        or a card name in that language); None where it is English or not known. Not where the
        search lands on nothing: "Initiative" is French First Strike and 726 The Initiative."""
        best = self.best
        if best is None or self.relaxed_from or best.kind not in ("keyword", "card") or not best.detail.startswith("exact"):
            return None
        return best.lang if best.lang != "en" else None

    @property
    def total(self) -> int:
        return sum(len(hits) for hits in self.groups.values())

    def count_text(self, kind: str) -> str:
        count = max(self.counts.get(kind, 0), len(self.groups.get(kind, [])))
        return f"{count:,}+" if kind in self.capped else f"{count:,}"

    def has_more(self, kind: str) -> bool:
        """Whether a next page of ``kind`` has hits. A page of one group paged on its own that
        came back short is its last, capped or not: the window read per group ends there, and
        "more" past it led to a page of nothing (an API user's review: a script paging on
        looped, and the group vanished from the JSON without a word)."""
        hits = self.groups.get(kind, [])
        if self.kind == kind and (len(hits) < self.page_size or self.offset + len(hits) > LAST_OFFSET):
            # Past LAST_OFFSET a page is the last one again (a review of the change).
            return False
        shown = self.offset + len(hits)
        return kind in self.capped or self.counts.get(kind, 0) > shown

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            **({"abbreviation": self.abbreviation} if self.abbreviation else {}),
            **({"relaxed_from": self.relaxed_from, "left_out": self.left_out, "read_as": self.read_as}
               if self.relaxed_from else {}),
            **({"card": self.card} if self.card else {}),
            **({"rules_for": self.rules_for, "rules_left_out": self.rules_left_out} if self.rules_for else {}),
            **({"rules_older_hold_all": True} if self.rules_older_hold_all else {}),
            **({"players_words_rules": self.players_words_rules} if self.players_words_rules else {}),
            "best": self.best.to_dict() if self.best else None,
            "suggestions": [hit.to_dict() for hit in self.suggestions],
            "groups": [
                {"kind": kind, "title": GROUP_TITLES[kind], "count": self.counts.get(kind, len(hits)),
                 "count_is_lower_bound": kind in self.capped, "offset": self.offset,
                 "more": self.has_more(kind), "hits": [hit.to_dict() for hit in hits]}
                for kind, hits in self.groups.items()
                # The group paged on its own is there past its end too, empty, "more": false.
                if hits or kind == self.kind
            ],
        }
