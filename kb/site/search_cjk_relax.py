"""The part of a Chinese, Japanese or Korean question that something holds.

Judges ask in a sentence: "飞行怎么运作" (how does flying work), "指挥官死了会怎样" (what happens
if my commander dies), "커맨더가 죽으면 어떻게 되나요". CJK is searched as one run of characters
(``search_cjk``), and no rule, ruling or name holds the whole sentence, so such a query found
nothing. Here, when nothing holds the query as typed, its question phrases ("怎么", "会怎样",
"어떻게", "どうなる") split it, and of the rest the piece searched for is, in this order, a keyword's
term, or a translated CR's section title or glossary term ("飞行", "커맨더", "咒语"; a part of a word:
"비행" of "비행은", whose particle nothing holds with it), else the longest run of three or more
characters that something holds and that is not common (held by more than one row in twenty of
its language's: "没有", "可以", "生物" say nothing of what was asked). A piece never starts or ends
with a particle ("了", "的", a Japanese kana ending). Bounded: at most ``CJK_PROBES`` probes of the CJK
index, each reading at most ``SHARE_WINDOW`` matches.
"""
from __future__ import annotations

import re
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterator

from kb.site.search_cjk import cjk_rows, short_cjk_condition
from kb.site.search_db import per_file, rows, rules_titled, table_exists, translated_versions
from kb.site.search_keywords import keyword_terms_by_key
from kb.site.search_relax import COMMON_SHARE, SHARE_WINDOW, Relaxed, found_together, probed_indexes
from kb.site.search_text import CJK_CHAR, fold, has_cjk, title_key

# Question phrases, longest first where one holds another: Simplified and Traditional Chinese,
# Japanese, Korean. A query is split where one occurs; no Chinese character alone, since one is
# part of many words (時 of 同時): a character alone is never a piece anyway.
CHINESE_QUESTION_PHRASES = frozenset("""
    怎么样 怎麼樣 怎么办 怎麼辦 会怎样 會怎樣 会怎么样 會怎麼樣 怎么 怎麼 怎样 怎樣 如何 什么 什麼 为什么 為什麼
    为何 為何 是否 能否 可不可以 可以 会不会 會不會 有没有 有沒有 如果 假如 要是 的话 的話 时候 時候 发生 發生
    运作 運作 起作用 作用 工作 意思 意味着 意味著 区别 區別 不同 之间 之間 一起 请问 請問 我的 你的
""".split())
CJK_QUESTION_PHRASES = sorted(CHINESE_QUESTION_PHRASES | set("""
    どうなりますか どうなります どうなる どうして どうやって どう なぜ なに なん ですか ますか でしょうか
    場合 とき 自分 機能 仕組み 意味 違い について とは
    어떻게 어떤 무엇인가요 무엇 뭔가요 뭐예요 뭐 왜 언제 어디서 어디 누가 누구 무슨 어느 되나요 됩니까 하나요
    합니까 인가요 있나요 있습니까 작동하나요 작동합니까 작동해요 작동 동작 경우 만약 만일 내가 제가 나의 저의
    그리고 그런데 그럼 의미 차이 뜻 알려주세요 궁금합니다 질문
""".split()), key=lambda phrase: (-len(phrase), phrase))
_SPLIT = re.compile("|".join(re.escape(phrase) for phrase in CJK_QUESTION_PHRASES) + r"|\s+")
# A piece that starts or ends with one of these is a word with its grammar: "死了", "统率者が".
CHINESE_PARTICLES = frozenset("了的吗嗎呢吧么麼和与與跟及在是会會")
# Particles that may stand alone once a piece is taken out of a word: Korean, Chinese, Japanese.
# Korean's "(이)란" asks what a thing is ("비행이란", what is flying: a Korean judge's review).
PARTICLES_ALONE = frozenset("은 는 이 가 을 를 의 에 에서 로 으로 와 과 도 만 이란 란 的 了 吗 呢 吧 和 の は が を に で と も へ".split())
# What ends a question after its last word ("비행은?").
QUESTION_MARKS = "?？!！.。"
KANA = re.compile(r"[\u3040-\u309f]")  # hiragana: Japanese particles and endings
HANGUL_WORD = re.compile(r"[\uac00-\ud7af]+")
PIECE_AT_MOST = 12  # characters: longer runs are not looked for (card names are shorter)
# Characters a piece holds at least, unless it is a term: two Chinese characters across a word's
# edge ("有这" of "没有这种东西") are held by some rule as often as a word is.
UNNAMED_AT_LEAST = 3
CJK_PROBES = 60


def relaxed_cjk(conn: sqlite3.Connection, query: str, names: Callable[[str], bool]) -> Relaxed | None:
    """The piece of ``query`` to search for (``kept``) and the rest of it, as typed and split at
    spaces (``left_out``), or None when nothing holds any piece. ``names``: whether a piece is a
    keyword's term or a section's title in any language."""
    probes = CJK_PROBES
    # The best piece yet, ranked: a keyword's term, then another term, then any other piece; of
    # keywords the first, the longer where two start alike ("接死とトランプル": Deathtouch's rules,
    # as "践踏和死触" shows Trample's; the longer トランプル was taken, a foreign players' review);
    # of other terms and pieces the longer, then the earlier ("전장의 생명연결": Lifelink's rules,
    # not 403 Battlefield's: a code review).
    keywords = keyword_terms_by_key(conn)
    best: tuple[tuple[int, int, int], str] | None = None
    for order, segment in enumerate(segment for segment in _SPLIT.split(query) if segment):
        held_here = False  # past a segment's longest held piece, only terms are looked for
        for piece in _pieces_longest_first(segment):
            term = names(piece)
            rank = ((2, -query.index(piece), len(piece)) if term and fold(piece) in keywords
                    else (int(term), len(piece), -order))
            if best is not None and rank <= best[0]:
                continue
            if not term:  # probed, if it is long enough and the probes last
                if len(piece) < UNNAMED_AT_LEAST or held_here or probes == 0:
                    continue
                probes -= 1
                if not cjk_telling(conn, piece):
                    continue
                held_here = True
            best = (rank, piece)
    if best is None:
        return None
    piece = best[1]
    rest = _without(query, piece)
    kept = [piece]
    if best[0][0] and (other := _another_term_held_with(conn, piece, rest, names)):
        # Chinese writes two terms without a space: "指挥官伤害" (commander damage) is 指挥官 and 伤害
        # where some text holds both (704.6c), not 指挥官 alone (a review: 46 rules of Commander).
        kept = sorted([piece, other], key=query.index)
        rest = _without(" ".join(rest), other)
    # The piece's own particle ("가" of "커맨더가", "的" of "乌金的") is its grammar, not a word left out.
    left_out = [part for part in (part.rstrip(QUESTION_MARKS) for part in rest) if part and part not in PARTICLES_ALONE]
    return Relaxed(kept, left_out, cut_word=len(kept) == 1 and _cut_from_one_word(query, piece, left_out))


def _without(text: str, piece: str) -> list[str]:
    """``text`` without the first ``piece``, split where it was and at spaces."""
    start = text.index(piece)
    return (text[:start] + " " + text[start + len(piece):]).split()


# Terms probed, at most, for one held with the term a query is searched for.
OTHER_TERMS_PROBED = 2


def _another_term_held_with(conn: sqlite3.Connection, term: str, rest: list[str], names: Callable[[str], bool]) -> str | None:
    """The first longest term in ``rest`` (a section title's, a glossary term) that some CJK rule
    holds with ``term``. Neither may be a keyword: a keyword's rules answer for it ("돌진피해",
    trample damage: no Korean rule holds both, and the 9 rules of Trample were lost; "不灭伤害" kept
    one rule of Indestructible; a review of the change), and the texts holding two keywords are
    lists of them ("践踏死触": 122.1b, the keyword counters)."""
    keywords = keyword_terms_by_key(conn)
    if fold(term) in keywords:
        return None
    probed = 0
    for part in rest:
        for piece in _pieces_longest_first(part):
            if piece == term or not has_cjk(piece) or not names(piece) or fold(piece) in keywords:
                continue
            if cjk_rows(conn, f"{term} {piece}", 1, ("rule",)).get("rule"):
                return piece
            probed += 1
            if probed == OTHER_TERMS_PROBED:
                return None
    return None


def _cut_from_one_word(query: str, piece: str, left_out: list[str]) -> bool:
    """Whether ``piece`` was cut out of a query that is one run of characters, neither a question
    (no question phrase, no space) nor a phrase (no particle): "先制攻撃", the Japanese First strike,
    whose "先制" is the Chinese rules' Initiative. "指挥官死了会怎样" asks about 指挥官."""
    return (
        _SPLIT.search(query) is None and bool(left_out)
        and not any(char in CHINESE_PARTICLES or KANA.match(char) for part in left_out for char in part)
    )


def names_a_cjk_term(conn: sqlite3.Connection) -> Callable[[str], bool]:
    """Whether a run of CJK characters is a keyword's term ("飞行", "비행"), or a section's title
    ("指挥官", "커맨더") or a glossary term ("咒语") of a translated CR: read from maps kept per
    served file."""
    keywords = keyword_terms_by_key(conn)
    translated = translated_versions(conn)
    glossary = translated_glossary_terms(conn)
    return lambda piece: fold(piece) in keywords or title_key(piece) in glossary or any(
        rules_titled(conn, version, title_key(piece)) for version in translated)


_GLOSSARY_TERMS: OrderedDict[tuple, frozenset[str]] = OrderedDict()


def translated_glossary_terms(conn: sqlite3.Connection) -> frozenset[str]:
    """The ``title_key`` of every glossary term of the translated CR versions, kept per file."""
    def read(of: sqlite3.Connection) -> frozenset[str]:
        versions = translated_versions(of)
        marks = ", ".join("?" for _ in versions) or "null"
        return frozenset(title_key(row["term"]) for row in rows(
            of, f"select distinct term from glossary where version_id in ({marks})", versions))

    return per_file(conn, _GLOSSARY_TERMS, read)


def _pieces_longest_first(segment: str) -> Iterator[str]:
    """Runs of two or more characters of a CJK ``segment`` (a non-CJK one whole), longest first,
    that neither start nor end with a particle."""
    if not has_cjk(segment):
        yield segment
        return
    # Korean sets its words apart with spaces and ends them with their particles and endings:
    # a piece is a word's beginning ("정화" of "정화하는"), never its middle ("화하는", which
    # found 활성화하는 and 무효화하는).
    korean = bool(HANGUL_WORD.fullmatch(segment))
    bare = _without_particle(segment) if korean else None
    if bare:
        # The word before the word with its particle: "멀리건은 어떻게 하나요?" (how do I mulligan?)
        # found only 103.4c, the one rule saying "멀리건은", not 103.4 (a Korean judge's review).
        yield bare
    starts = [0] if korean else range(len(segment))
    for size in range(min(len(segment), PIECE_AT_MOST), 1, -1):
        for start in (start for start in starts if start + size <= len(segment)):
            piece = segment[start:start + size]
            # Not the bare word again: a probe spent twice (a code review).
            if piece != bare and _whole_at_edges(piece):
                yield piece


KOREAN_PARTICLES = sorted((particle for particle in PARTICLES_ALONE if HANGUL_WORD.fullmatch(particle)), key=len, reverse=True)


def _without_particle(word: str) -> str | None:
    """A Korean ``word`` without the particle it ends with ("멀리건" of "멀리건은"), if two or more
    characters are left ("효과" is no "효" with 과)."""
    particle = next((particle for particle in KOREAN_PARTICLES if word.endswith(particle)), None)
    return word[:-len(particle)] if particle and len(word) - len(particle) >= 2 else None


def _whole_at_edges(piece: str) -> bool:
    first, last = piece[0], piece[-1]
    if first in CHINESE_PARTICLES or last in CHINESE_PARTICLES:
        return False
    if KANA.match(first) or KANA.match(last):
        return False
    return bool(CJK_CHAR.match(first) and CJK_CHAR.match(last))


def cjk_telling(conn: sqlite3.Connection, piece: str) -> bool:
    """Whether some CJK text (rules, glossary, names, translations, keywords) holds ``piece``,
    and at most one row in twenty of a language's (``COMMON_SHARE``): counted in a window of
    ``SHARE_WINDOW`` matches, scaled by how far into the rowids the window reached."""
    if not has_cjk(piece):
        return _held_as_word(conn, piece)
    if not table_exists(conn, "cjk_search"):
        return False
    if len(piece) >= 3:
        condition, param = "cjk_search match ?", '"' + piece.replace('"', "") + '"'
    else:
        condition, param = short_cjk_condition(conn, piece)
    found = conn.execute(
        f"""select lang, count(*), max(rowid) from
        (select rowid, lang from cjk_search where {condition} limit {SHARE_WINDOW}) group by lang""",
        (param,),
    ).fetchall()
    if not found:
        return False
    rows_by_lang, highest = cjk_rows_by_lang(conn)
    reached = max(last for _, _, last in found)
    scale = highest / max(reached, 1) if sum(count for _, count, _ in found) >= SHARE_WINDOW else 1.0
    return all(count * scale <= COMMON_SHARE * rows_by_lang.get(lang, count) for lang, count, _ in found)


_CJK_ROWS: OrderedDict[tuple, tuple[dict[str, int], int]] = OrderedDict()


def cjk_rows_by_lang(conn: sqlite3.Connection) -> tuple[dict[str, int], int]:
    """The CJK index's rows of each language and its highest rowid, kept per served file."""
    def read(of: sqlite3.Connection) -> tuple[dict[str, int], int]:
        if not table_exists(of, "cjk_search"):
            return {}, 0
        counts = dict(of.execute("select lang, count(*) from cjk_search group by lang").fetchall())
        return counts, of.execute("select coalesce(max(rowid), 0) from cjk_search").fetchone()[0]

    return per_file(conn, _CJK_ROWS, read)


def _held_as_word(conn: sqlite3.Connection, word: str) -> bool:
    return bool(fold(word)) and found_together(conn, [word], probed_indexes(conn))
