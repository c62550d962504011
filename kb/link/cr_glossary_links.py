"""Link a translated CR glossary to the English glossary it translates (pure).

The glossary keeps the English alphabetical order in translation, so entries are aligned in
order (a banded sequence alignment that tolerates added or missing entries), scored by the rule
numbers each definition cites; an English name printed in the entry decides outright. The
pairs also serve ``kb.link.cr_translations`` as title pairs ("协力" is "Conspire").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kb.normalise.refs import extract_refs
from kb.records import CRDocument

BARE_SECTION = re.compile(r"(?<![\d.])[1-9]\d{2}(?![\d.]\d|\d)")


@dataclass
class GlossaryLink:
    term: str
    en_term: str
    confidence: float


def link_glossary(translated: CRDocument, english_doc: CRDocument) -> list[GlossaryLink]:
    """Each translated glossary entry with the English entry it translates.

    The glossary keeps the English alphabetical order in translation, so entries are aligned in
    order (a banded sequence alignment that tolerates added or missing entries), scored by the
    rule numbers each definition cites; an English name printed in the entry decides outright.
    """
    source, target = translated.glossary, english_doc.glossary
    if not source or not target:
        return []
    english_by_name = {entry.term.casefold(): entry.term for entry in target}
    pairs = _align_glossary(source, target)
    links = []
    for i, j, similarity in pairs:
        term = source[i].term
        named = _english_name_in_term(term)
        if named and named.casefold() in english_by_name:
            links.append(GlossaryLink(term, english_by_name[named.casefold()], 1.0))
            continue
        links.append(GlossaryLink(term, target[j].term, round(_glossary_confidence(similarity), 3)))
    return links


def _english_name_in_term(term: str) -> str | None:
    """"協力 (Conspire)" or "집요 Persist" → the English name; None when the term has none."""
    match = re.search(r"[（(]\s*([A-Za-z][A-Za-z ,'’\-]*)\s*[)）]\s*$", term)
    if match:
        return match[1].strip()
    match = re.search(r"[^\x00-\x7f]\s*([A-Za-z][A-Za-z ,'’\-]*)$", term)
    return match[1].strip() if match else None


# The English texts are read again for every translation compared with them (each version's
# glossary and rules, several translations): ~60k calls for ~15k texts in a build with both.
@lru_cache(maxsize=1 << 15)
def numbers_cited_in(text: str) -> frozenset[str]:
    """Dotted rule numbers, and bare section numbers whatever word precedes them (kb.normalise.refs
    takes a bare "704" only after the English word "rule"; translations write "规则704", "규칙 704")."""
    found = {ref for ref in extract_refs(text) if "." in ref}
    found.update(match.group() for match in BARE_SECTION.finditer(text))
    return frozenset(found)


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.5  # neither cites anything: order alone decides
    return len(a & b) / len(a | b)


def _glossary_confidence(similarity: float) -> float:
    return 0.85 if similarity == 0.5 else 0.6 + 0.4 * similarity


def _align_glossary(source: list, target: list) -> list[tuple[int, int, float]]:
    """Banded Needleman–Wunsch over the two entry lists; returns matched (i, j, similarity)."""
    a = [numbers_cited_in(entry.text) for entry in source]
    b = [numbers_cited_in(entry.text) for entry in target]
    n, m = len(a), len(b)
    band = abs(n - m) + 25
    gap = -0.3
    score: dict[tuple[int, int], float] = {(0, 0): 0.0}
    back: dict[tuple[int, int], tuple[int, int]] = {}
    for i in range(n + 1):
        for j in range(max(0, i - band), min(m, i + band) + 1):
            if (i, j) == (0, 0):
                continue
            options = []
            if i and j and (i - 1, j - 1) in score:
                options.append((score[i - 1, j - 1] + _similarity(a[i - 1], b[j - 1]) - 0.25, (i - 1, j - 1)))
            if i and (i - 1, j) in score:
                options.append((score[i - 1, j] + gap, (i - 1, j)))
            if j and (i, j - 1) in score:
                options.append((score[i, j - 1] + gap, (i, j - 1)))
            if options:
                best = max(options, key=lambda option: option[0])
                score[i, j], back[i, j] = best
    matched = []
    cell = (n, m)
    while cell != (0, 0):
        previous = back[cell]
        if previous == (cell[0] - 1, cell[1] - 1):
            matched.append(previous)
        cell = previous
    matched = _pair_leftovers(matched[::-1], n, m, a, b)
    matched = _swap_crossed(matched, a, b)
    return [(i, j, _similarity(a[i], b[j])) for i, j in matched]


def _pair_leftovers(
    matched: list[tuple[int, int]], n: int, m: int, a: list[frozenset[str]], b: list[frozenset[str]]
) -> list[tuple[int, int]]:
    """An entry the alignment skipped on each side, close together, is one pair moved in order."""
    free_source = sorted(set(range(n)) - {i for i, _ in matched})
    free_target = set(range(m)) - {j for _, j in matched}
    for i in free_source:
        near = [j for j in free_target if abs(j - i) <= 3 and _similarity(a[i], b[j]) > 0.5]
        if near:
            j = max(near, key=lambda j: (_similarity(a[i], b[j]), -abs(j - i)))
            free_target.discard(j)
            matched.append((i, j))
    return sorted(matched)


def _swap_crossed(
    matched: list[tuple[int, int]], a: list[frozenset[str]], b: list[frozenset[str]]
) -> list[tuple[int, int]]:
    """Two neighbouring entries sorted the other way round in translation (关键字指示物/关键字动作)."""
    result = list(matched)
    for k in range(len(result) - 1):
        (i1, j1), (i2, j2) = result[k], result[k + 1]
        kept = _similarity(a[i1], b[j1]) + _similarity(a[i2], b[j2])
        crossed = _similarity(a[i1], b[j2]) + _similarity(a[i2], b[j1])
        if crossed > kept and min(_similarity(a[i1], b[j2]), _similarity(a[i2], b[j1])) > 0.5:
            result[k], result[k + 1] = (i1, j2), (i2, j1)
    return result
