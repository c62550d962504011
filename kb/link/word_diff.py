"""The word-level diff of two texts: what changed, word by word, as steps and as one-line markup.

Pure functions over text; the diffs of CR versions (``kb.link.cr_diff``) show each change so.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cydifflib import SequenceMatcher

from kb.link.cr_compare import WORD

# Markup of the one-line word diff: equal runs longer than this are elided in ``compact``.
ELIDE_EQUAL_WORDS = 6


@dataclass
class WordOp:
    """One step of a word-level diff: ``equal``, ``delete``, ``insert`` or ``replace``."""

    op: str
    old_words: list[str]
    new_words: list[str]


def word_ops(old_text: str, new_text: str) -> list[WordOp]:
    """The word-level diff of two texts as a structured list."""
    old_words, new_words = WORD.findall(old_text or ""), WORD.findall(new_text or "")
    if old_words == new_words:  # most paired rules: what difflib would answer, without its work
        return [WordOp(op="equal", old_words=old_words, new_words=new_words)] if old_words else []
    if not old_words or not new_words:  # an added or removed rule: difflib's one opcode, without its index
        return [WordOp(op="insert" if new_words else "delete", old_words=old_words, new_words=new_words)]
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    return [
        WordOp(op=tag, old_words=old_words[i1:i2], new_words=new_words[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


# The markup's own marks where the rules' text holds them, and the backslash that escapes them:
# station's "{N+}" (721.2a), level up's "{LEVEL N3+}", a loyalty cost "[-X]" (107.3j). Read as
# marks, 721.2a's diff showed "<ins>“{N</ins>[abilities]…+}" and 107.3k's a whole rule deleted
# (a review of the diff pages).
MARKS_IN_TEXT = re.compile(r"\\|\[-|-\]|\{\+|\+\}")
ESCAPED_MARKS = {"\\": "\\\\", "[-": "[\\-", "-]": "-\\]", "{+": "{\\+", "+}": "+\\}"}


def escaped(text: str) -> str:
    """``text`` with a backslash inside each of the markup's marks it holds ("{N+}" is "{N+\\}"),
    and before each backslash: ``kb.site.markup.render_word_diff`` reads them back. A last "[" or
    "{" too: before the closing mark it would begin one ("[-x[-]" opens again: a code review)."""
    if MARKS_IN_TEXT.search(text):
        text = MARKS_IN_TEXT.sub(lambda mark: ESCAPED_MARKS[mark.group()], text)
    return text[:-1] + "\\" + text[-1] if text.endswith(("[", "{")) else text


def diff_pieces(ops: Iterable[WordOp], elide: int | None = None) -> list[tuple[str, str]]:
    """The diff as ("equal" | "delete" | "insert", words) pieces, in order, the words as written
    (no marks, nothing escaped); with ``elide``, equal runs longer than that become "…"."""
    pieces: list[tuple[str, str]] = []
    for op in ops:
        if op.op == "equal":
            words = op.old_words
            if elide is not None and len(words) > elide:
                half = max(1, elide // 2)
                words = [*words[:half], "…", *words[-half:]]
            pieces.append(("equal", " ".join(words)))
            continue
        if op.old_words:
            pieces.append(("delete", " ".join(op.old_words)))
        if op.new_words:
            pieces.append(("insert", " ".join(op.new_words)))
    return [(kind, words) for kind, words in pieces if words]


MARKUP = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}"}


def render_word_diff(ops: Iterable[WordOp], elide: int | None = None) -> str:
    """``[-old-]{+new+}`` markup, the marks the words hold escaped (``escaped``); with
    ``elide``, equal runs longer than that become "… "."""
    return " ".join(MARKUP[kind].format(escaped(words)) for kind, words in diff_pieces(ops, elide))


def ratio_of(ops: Sequence[WordOp]) -> float:
    """SequenceMatcher's ratio, from the diff already computed: 2 × equal words / all words."""
    equal = sum(len(op.old_words) for op in ops if op.op == "equal")
    total = sum(len(op.old_words) + len(op.new_words) for op in ops)
    return round(2 * equal / total, 4) if total else 1.0
