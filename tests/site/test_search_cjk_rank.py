"""The order of the Chinese and Korean rules a query finds (kb.site.search_cjk_rank), on the
snapshot's Chinese CR of 2025 and Korean CR of 2021: the most telling first, not the rulebook's."""
from __future__ import annotations

import sqlite3

import pytest

from kb.site.search import search


@pytest.mark.parametrize(
    ("query", "first"),
    [
        # 117 时机和优先权 (Timing and Priority): its title holds the term and the glossary's 优先权
        # points to it. It was 23rd of the rules, after 104.3b, 104.3c … that mention priority.
        ("优先权", ["117 时机和优先权", "117.1", "117.1a"]),
        # The glossary's 时间印记顺序 (Timestamp Order), which the term begins, points to 613.7: it
        # was eighth, after 123.5a, 123.6c, 123.8, 303.7a, 613.2 ….
        ("时间印记", ["613.7", "613.7a", "613.7b"]),
        # 混血法术力符号 (Hybrid Mana Symbols) points to 107.4: of its rules, 107.4e says the term.
        ("混血法术力", ["107.4e", "107.4", "107.4a"]),
    ],
)
def test_the_rules_a_cjk_terms_title_or_glossary_entry_names_come_first(
    snapshot_conn: sqlite3.Connection, query: str, first: list[str]
) -> None:
    for kind in (None, "rules"):  # the page of every group, and the rules' own page
        hits = search(snapshot_conn, query, kind=kind).groups["rules"]
        assert [(hit.title, hit.lang) for hit in hits[:3]] == [(title, "zhs") for title in first]


def test_a_cjk_rule_saying_the_term_more_often_comes_first(snapshot_conn: sqlite3.Connection) -> None:
    # After 405, which 스택 titles (the Korean CR of 2021 holds none of its rules), 112.1 says
    # "스택" four times; 107.3a, the first rule to mention it, came first.
    hits = search(snapshot_conn, "스택").groups["rules"]
    assert [(hit.title, hit.lang) for hit in hits[:3]] == [("405 Stack", "en"), ("405 스택", "ko"), ("112.1", "ko")]


def test_a_cjk_questions_rule_saying_more_of_it_comes_first(snapshot_conn: sqlite3.Connection) -> None:
    # "생명점이 0이 되면" (when life becomes 0): 104.3b says "생명점이 0 또는 …" (life 0 or less); it
    # was past the fifth, after every rule of 119 Life, which 생명점 titles.
    hits = search(snapshot_conn, "생명점이 0이 되면").groups["rules"]
    assert [(hit.title, hit.lang) for hit in hits[:3]] == [("119 Life", "en"), ("119 생명점", "ko"), ("104.3b", "ko")]


def test_a_korean_words_pieces_try_its_bare_word_once() -> None:
    # The bare word came back among the word's beginnings: a probe of the few spent twice (a code review).
    from kb.site.search_cjk_relax import _pieces_longest_first

    assert list(_pieces_longest_first("멀리건은")) == ["멀리건", "멀리건은", "멀리"]
