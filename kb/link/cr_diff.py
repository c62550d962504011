"""How the Comprehensive Rules changed between versions: diffs with renumberings, per-rule traces.

Pure functions over parsed ``CRDocument``s; nothing here reads files or a database.

A diff pairs every numbered entry (part, section, rule, subrule) of the old version with at most
one entry of the new version. Renumbering is common (keyword actions are re-sorted, rules are
inserted in the middle of a section), so entries are paired by content, not only by number:

1. same number, same content once rule numbers inside the text are masked (a rule whose only
   edit is an updated cross-reference is "changed" with the aspect ``numbers-only``);
2. identical masked content under another number (a pure renumbering: "moved");
3. a heading whose subrules moved together moves with them ("701.47 Connive" → "701.50");
4. an edited subrule of a moved rule keeps its letter under the new parent;
5. same number, similar content ("changed");
6. similar content elsewhere, same section first, then anywhere through a rare-word index
   (never all pairs: the 2009 renumbering would be 1,000 × 2,000 comparisons);
7. what is left under the same number is "changed" however little is left of it; the rest is
   "removed" or "added".

Pure normalisation (line endings, BOM, "119.1d." printed for "119.1d", runs of spaces) is not a
change: the parser removes the first three and comparison collapses whitespace.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from kb.records import CRDocument, GlossaryEntry, Rule

RULE_KINDS = ("added", "removed", "changed", "moved", "moved-changed")
GLOSSARY_KINDS = ("glossary-added", "glossary-removed", "glossary-changed")
CHANGE_KINDS = RULE_KINDS + GLOSSARY_KINDS

# Dotted rule numbers and "rule 702"-style section numbers inside a text: masked before content
# comparison so that a renumbered cross-reference alone does not hide a move.
NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[1-9]\d{2}\.\d+[a-z]?(?:[-–][a-z])?(?![\w])|(?<=[Rr]ule )[1-9]\d{2}\b")
NUMBER_MASK = "#"
MAY_HOLD_NUMBER = re.compile(r"\d\.\d|[Rr]ule \d")
# Typography is not content: 2014 switched to curly quotes and dropped "_Magic_" italics,
# and ranges went from "601.2e-g" to "601.2e–g". Comparison folds these; display keeps them.
# (str.translate with a dict is slow on long texts; a few str.replace calls are not.)
TYPOGRAPHY = (
    ("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-"), ("‑", "-"),
    ("\u00a0", " "), ("(TM)", "™"), ("(tm)", "™"), ("(R)", "®"),
)
ITALICS = re.compile(r"(?<!\w)_(\S(?:[^_\n]*\S)?)_(?!\w)")
WORD = re.compile(r"\S+")

# Pairing thresholds (SequenceMatcher ratio on word tokens).
CHANGED_IN_PLACE = 0.5
MOVED_WITH_PARENT = 0.5
MOVED_ELSEWHERE = 0.6
# Short contents ("Manifest" vs "Manifest Dread") are too easily similar: demand more.
SHORT_CONTENT_WORDS = 4
MOVED_ELSEWHERE_SHORT = 0.85
# Candidates for an "anywhere" move share at least one of an entry's rarest words.
RARE_WORDS_PER_ENTRY = 4
JACCARD_PREFILTER = 0.3
# Markup of the one-line word diff: equal runs longer than this are elided in ``compact``.
ELIDE_EQUAL_WORDS = 6


@dataclass
class WordOp:
    """One step of a word-level diff: ``equal``, ``delete``, ``insert`` or ``replace``."""

    op: str
    old_words: list[str]
    new_words: list[str]


@dataclass
class Change:
    """One difference between two versions.

    For rules, ``old_number``/``new_number`` are rule numbers (``None`` on the side where the
    rule does not exist). For glossary kinds they hold the glossary term. ``aspects`` says what
    differs: ``title``, ``text``, ``examples`` (an example change is a change of the rule) and
    ``numbers-only`` when the only differences are rule numbers inside the text.
    """

    kind: str
    old_number: str | None
    new_number: str | None
    old_text: str | None
    new_text: str | None
    similarity: float
    word_diff: str
    aspects: list[str] = field(default_factory=list)
    ops: list[WordOp] = field(default_factory=list)
    entry_kind: str | None = None  # part / section / rule / subrule, or "glossary"

    def compact_diff(self, elide: int = ELIDE_EQUAL_WORDS) -> str:
        """The word diff on one line, long unchanged runs shortened to "…"."""
        return render_word_diff(self.ops, elide=elide).replace("\n", " ⏎ ")


@dataclass
class TraceEntry:
    """A rule as one version has it (``number`` is None where the version lacks the rule)."""

    version_id: str
    effective_date: str | None
    number: str | None
    title: str | None
    text: str | None
    examples: list[str]
    status: str  # same / changed / moved / moved-changed / added / absent / first / removed


# --------------------------------------------------------------------------------------------
# Content and comparison


def rule_display_text(rule: Rule) -> str:
    """Title, text and examples of a rule as one text (what a reader sees under its number)."""
    return "\n".join(part for part in (rule.title or "", rule.text or "", *rule.examples) if part)


def _collapse(text: str) -> str:
    """Whitespace runs as one space, typography folded: the comparison form of a text."""
    text = unicodedata.normalize("NFC", text)
    for printed, folded in TYPOGRAPHY:
        if printed in text:
            text = text.replace(printed, folded)
    if "_" in text:
        text = ITALICS.sub(r"\1", text)
    return " ".join(text.split())


def _masked(text: str) -> str:
    if not MAY_HOLD_NUMBER.search(text):  # the masking pattern is slow; most texts cite nothing
        return text
    return NUMBER_IN_TEXT.sub(NUMBER_MASK, text)


@dataclass
class _Entry:
    """A rule prepared for comparison."""

    rule: Rule
    index: int
    parts: tuple[str, str, tuple[str, ...]]  # title, text, examples in comparison form
    masked: str
    words: list[str]

    @property
    def number(self) -> str:
        return self.rule.number


ASPECT_NAMES = ("title", "text", "examples")


def _entry(rule: Rule, index: int) -> _Entry:
    title, text = _collapse(rule.title or ""), _collapse(rule.text or "")
    examples = tuple(_collapse(example) for example in rule.examples)
    masked = _masked("\x1f".join([title, text, *examples]))
    return _Entry(
        rule=rule, index=index, parts=(title, text, examples), masked=masked,
        words=WORD.findall(masked.replace("\x1f", " ")),
    )


def similarity(old: Sequence[str], new: Sequence[str]) -> float:
    """Ratio of matching words (0..1) between two word lists."""
    if not old and not new:
        return 1.0
    return difflib.SequenceMatcher(None, old, new, autojunk=False).ratio()


def word_ops(old_text: str, new_text: str) -> list[WordOp]:
    """The word-level diff of two texts as a structured list."""
    old_words, new_words = WORD.findall(old_text or ""), WORD.findall(new_text or "")
    matcher = difflib.SequenceMatcher(None, old_words, new_words, autojunk=False)
    return [
        WordOp(op=tag, old_words=old_words[i1:i2], new_words=new_words[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def render_word_diff(ops: Iterable[WordOp], elide: int | None = None) -> str:
    """``[-old-]{+new+}`` markup; with ``elide``, equal runs longer than that become "… "."""
    pieces: list[str] = []
    for op in ops:
        if op.op == "equal":
            words = op.old_words
            if elide is not None and len(words) > elide:
                half = max(1, elide // 2)
                words = [*words[:half], "…", *words[-half:]]
            pieces.append(" ".join(words))
            continue
        if op.old_words:
            pieces.append(f"[-{' '.join(op.old_words)}-]")
        if op.new_words:
            pieces.append(f"{{+{' '.join(op.new_words)}+}}")
    return " ".join(piece for piece in pieces if piece)


def _aspects(old: _Entry, new: _Entry) -> list[str]:
    """What differs between two entries once whitespace and typography are folded."""
    aspects = [name for name, a, b in zip(ASPECT_NAMES, old.parts, new.parts, strict=True) if a != b]
    if aspects and old.masked == new.masked:
        aspects.append("numbers-only")
    return aspects


def same_content(old: Rule, new: Rule) -> bool:
    """True when two rules say the same once whitespace and typography are folded."""
    return _entry(old, 0).parts == _entry(new, 0).parts


# --------------------------------------------------------------------------------------------
# Pairing


@dataclass
class _Pairing:
    old: dict[str, _Entry]
    new: dict[str, _Entry]
    old_to_new: dict[str, str] = field(default_factory=dict)
    new_to_old: dict[str, str] = field(default_factory=dict)

    def pair(self, old_number: str, new_number: str) -> None:
        self.old_to_new[old_number] = new_number
        self.new_to_old[new_number] = old_number

    def free_old(self) -> list[_Entry]:
        return [e for n, e in self.old.items() if n not in self.old_to_new]

    def free_new(self) -> list[_Entry]:
        return [e for n, e in self.new.items() if n not in self.new_to_old]

    def is_free(self, old_number: str | None, new_number: str | None) -> bool:
        return (old_number is None or old_number not in self.old_to_new) and (
            new_number is None or new_number not in self.new_to_old
        )


def _pair_unchanged_and_masked_equal(pairing: _Pairing) -> None:
    for number, old in pairing.old.items():
        new = pairing.new.get(number)
        if new is not None and old.masked == new.masked:
            pairing.pair(number, number)


def _pair_identical_elsewhere(pairing: _Pairing) -> None:
    """Identical (masked) content under another number: paired in document order per content."""
    olds: dict[tuple[str, str], list[_Entry]] = defaultdict(list)
    news: dict[tuple[str, str], list[_Entry]] = defaultdict(list)
    for entry in pairing.free_old():
        if entry.words:
            olds[(entry.rule.kind, entry.masked)].append(entry)
    for entry in pairing.free_new():
        if entry.words:
            news[(entry.rule.kind, entry.masked)].append(entry)
    for key, old_entries in olds.items():
        for old, new in zip(old_entries, news.get(key, []), strict=False):
            pairing.pair(old.number, new.number)


def _children(entries: dict[str, _Entry]) -> dict[str, list[_Entry]]:
    children: dict[str, list[_Entry]] = defaultdict(list)
    for entry in entries.values():
        if entry.rule.kind == "subrule" and entry.rule.parent:
            children[entry.rule.parent].append(entry)
    return children


def _pair_headings_by_children(pairing: _Pairing) -> None:
    """A rule whose subrules went (mostly) under one new rule went there itself."""
    old_children = _children(pairing.old)
    for old in pairing.free_old():
        if old.rule.kind != "rule" or not old_children.get(old.number):
            continue
        votes = Counter(
            pairing.new[pairing.old_to_new[child.number]].rule.parent
            for child in old_children[old.number]
            if child.number in pairing.old_to_new
        )
        if not votes:
            continue
        target, count = votes.most_common(1)[0]
        majority = count * 2 > len(old_children[old.number])
        if majority and target in pairing.new and pairing.is_free(None, target) and pairing.new[target].rule.kind == "rule":
            pairing.pair(old.number, target)


def _pair_children_of_moved_parents(pairing: _Pairing) -> None:
    """An edited subrule keeps its letter when its rule moved: 701.47d → 701.50d."""
    for old in pairing.free_old():
        rule = old.rule
        if rule.kind != "subrule" or not rule.parent or rule.parent not in pairing.old_to_new:
            continue
        new_parent = pairing.old_to_new[rule.parent]
        if new_parent == rule.parent:
            continue
        target = new_parent + rule.number[len(rule.parent):]
        new = pairing.new.get(target)
        if new is not None and pairing.is_free(None, target) and similarity(old.words, new.words) >= MOVED_WITH_PARENT:
            pairing.pair(old.number, target)


def _pair_in_place(pairing: _Pairing, threshold: float) -> None:
    for old in pairing.free_old():
        new = pairing.new.get(old.number)
        if new is not None and pairing.is_free(None, old.number) and similarity(old.words, new.words) >= threshold:
            pairing.pair(old.number, old.number)


def _threshold(old: _Entry, new: _Entry) -> float:
    short = min(len(old.words), len(new.words)) < SHORT_CONTENT_WORDS
    return MOVED_ELSEWHERE_SHORT if short else MOVED_ELSEWHERE


def _assign_best(pairing: _Pairing, candidates: Iterable[tuple[_Entry, _Entry]]) -> None:
    """Greedy best-first assignment of scored candidate pairs above their threshold."""
    scored = []
    for old, new in candidates:
        if old.rule.kind != new.rule.kind:
            continue
        old_set, new_set = set(old.words), set(new.words)
        union = old_set | new_set
        if not union or len(old_set & new_set) / len(union) < JACCARD_PREFILTER:
            continue
        score = similarity(old.words, new.words)
        if score >= _threshold(old, new):
            scored.append((score, -abs(old.index - new.index), old.number, new.number))
    for _score, _distance, old_number, new_number in sorted(scored, reverse=True):
        if pairing.is_free(old_number, new_number):
            pairing.pair(old_number, new_number)


def _section_of(entry: _Entry) -> str:
    return entry.rule.section or entry.number.split(".")[0]


def _pair_similar_in_section(pairing: _Pairing) -> None:
    new_by_section: dict[str, list[_Entry]] = defaultdict(list)
    for new in pairing.free_new():
        new_by_section[_section_of(new)].append(new)
    _assign_best(
        pairing,
        ((old, new) for old in pairing.free_old() for new in new_by_section.get(_section_of(old), [])),
    )


def _pair_similar_anywhere(pairing: _Pairing) -> None:
    free_new = pairing.free_new()
    free_old = pairing.free_old()
    frequency = Counter(word for entry in [*free_old, *free_new] for word in set(entry.words))
    index: dict[str, list[_Entry]] = defaultdict(list)
    for new in free_new:
        for word in set(new.words):
            index[word].append(new)

    def candidates() -> Iterable[tuple[_Entry, _Entry]]:
        for old in free_old:
            rare = sorted(set(old.words), key=lambda word: (frequency[word], word))[:RARE_WORDS_PER_ENTRY]
            seen: set[str] = set()
            for word in rare:
                for new in index.get(word, []):
                    if new.number not in seen:
                        seen.add(new.number)
                        yield old, new

    _assign_best(pairing, candidates())


def pair_rules(old_doc: CRDocument, new_doc: CRDocument) -> dict[str, str | None]:
    """Each old rule number → its number in the new version (``None`` if removed)."""
    pairing = _pairing(old_doc, new_doc)
    return {number: pairing.old_to_new.get(number) for number in pairing.old}


def _pairing(old_doc: CRDocument, new_doc: CRDocument) -> _Pairing:
    pairing = _Pairing(
        old={rule.number: _entry(rule, i) for i, rule in enumerate(old_doc.rules)},
        new={rule.number: _entry(rule, i) for i, rule in enumerate(new_doc.rules)},
    )
    _pair_unchanged_and_masked_equal(pairing)
    _pair_identical_elsewhere(pairing)
    _pair_headings_by_children(pairing)
    _pair_children_of_moved_parents(pairing)
    _pair_in_place(pairing, CHANGED_IN_PLACE)
    _pair_similar_in_section(pairing)
    _pair_similar_anywhere(pairing)
    # A heading may only now have its subrules placed.
    _pair_headings_by_children(pairing)
    _pair_in_place(pairing, 0.0)
    return pairing


# --------------------------------------------------------------------------------------------
# Diffs


def diff_versions(old: CRDocument, new: CRDocument) -> list[Change]:
    """Every rule and glossary difference from ``old`` to ``new``, in the new version's order
    (removed rules and glossary changes after the rest)."""
    return diff_and_map(old, new)[0]


def diff_and_map(old: CRDocument, new: CRDocument) -> tuple[list[Change], dict[str, str | None]]:
    """``diff_versions`` and ``pair_rules`` from one pairing (what a build needs for both)."""
    pairing = _pairing(old, new)
    changes = _changes(old, new, pairing)
    return changes, {number: pairing.old_to_new.get(number) for number in pairing.old}


def _changes(old: CRDocument, new: CRDocument, pairing: _Pairing) -> list[Change]:
    changes: list[Change] = []
    for new_entry in pairing.new.values():
        old_number = pairing.new_to_old.get(new_entry.number)
        if old_number is None:
            changes.append(_one_sided("added", None, new_entry.rule))
            continue
        change = _paired_change(pairing.old[old_number], new_entry)
        if change is not None:
            changes.append(change)
    for old_entry in pairing.free_old():
        changes.append(_one_sided("removed", old_entry.rule, None))
    changes.extend(diff_glossary(old.glossary, new.glossary))
    return changes


def _one_sided(kind: str, old: Rule | None, new: Rule | None) -> Change:
    old_text = rule_display_text(old) if old else None
    new_text = rule_display_text(new) if new else None
    ops = word_ops(old_text or "", new_text or "")
    rule = old or new
    assert rule is not None
    return Change(
        kind=kind,
        old_number=old.number if old else None,
        new_number=new.number if new else None,
        old_text=old_text,
        new_text=new_text,
        similarity=0.0,
        word_diff=render_word_diff(ops),
        ops=ops,
        entry_kind=rule.kind,
    )


def _paired_change(old_entry: _Entry, new_entry: _Entry) -> Change | None:
    old, new = old_entry.rule, new_entry.rule
    aspects = _aspects(old_entry, new_entry)
    moved = old.number != new.number
    if not moved and not aspects:
        return None
    if moved:
        kind = "moved" if not aspects or "numbers-only" in aspects else "moved-changed"
    else:
        kind = "changed"
    old_text, new_text = rule_display_text(old), rule_display_text(new)
    ops = word_ops(old_text, new_text)
    return Change(
        kind=kind,
        old_number=old.number,
        new_number=new.number,
        old_text=old_text,
        new_text=new_text,
        similarity=_ratio_of(ops),
        word_diff=render_word_diff(ops),
        aspects=aspects,
        ops=ops,
        entry_kind=old.kind if old.kind == new.kind else f"{old.kind}->{new.kind}",
    )


def _ratio_of(ops: Sequence[WordOp]) -> float:
    """SequenceMatcher's ratio, from the diff already computed: 2 × equal words / all words."""
    equal = sum(len(op.old_words) for op in ops if op.op == "equal")
    total = sum(len(op.old_words) + len(op.new_words) for op in ops)
    return round(2 * equal / total, 4) if total else 1.0


def diff_glossary(old: Sequence[GlossaryEntry], new: Sequence[GlossaryEntry]) -> list[Change]:
    """Glossary entries added, removed or redefined, matched by their term."""
    old_by_term = {entry.term: entry for entry in old}
    new_by_term = {entry.term: entry for entry in new}
    changes = []
    for term, entry in new_by_term.items():
        before = old_by_term.get(term)
        if before is None:
            changes.append(_glossary_change("glossary-added", None, entry))
        elif _collapse(before.text) != _collapse(entry.text):
            changes.append(_glossary_change("glossary-changed", before, entry))
    for term, entry in old_by_term.items():
        if term not in new_by_term:
            changes.append(_glossary_change("glossary-removed", entry, None))
    return changes


def _glossary_change(kind: str, old: GlossaryEntry | None, new: GlossaryEntry | None) -> Change:
    old_text, new_text = (old.text if old else None), (new.text if new else None)
    ops = word_ops(old_text or "", new_text or "")
    aspects = []
    if old and new:
        aspects = ["text"]
        if _masked(_collapse(old.text)) == _masked(_collapse(new.text)):
            aspects.append("numbers-only")
    return Change(
        kind=kind,
        old_number=old.term if old else None,
        new_number=new.term if new else None,
        old_text=old_text,
        new_text=new_text,
        similarity=_ratio_of(ops) if old and new else 0.0,
        word_diff=render_word_diff(ops),
        aspects=aspects,
        ops=ops,
        entry_kind="glossary",
    )


def count_changes(changes: Iterable[Change]) -> dict[str, int]:
    """Number of changes per kind, every kind listed (zeros included), in CHANGE_KINDS order."""
    counts = Counter(change.kind for change in changes)
    return {kind: counts.get(kind, 0) for kind in CHANGE_KINDS}


# --------------------------------------------------------------------------------------------
# Versions, traces


def version_id_of(doc: CRDocument) -> str:
    """The database's id of a parsed version (``kb.store.save.version_id_for`` for dated documents)."""
    return f"{doc.lang}-{doc.effective_date}"


def version_in_force(versions: Sequence[tuple[str, str | None]], date: str) -> str | None:
    """The version id whose effective date is the latest on or before ``date`` (ISO dates)."""
    dated = [(effective, version_id) for version_id, effective in versions if effective and effective <= date]
    return max(dated)[1] if dated else None


def number_maps(versions: Sequence[CRDocument]) -> list[dict[str, str | None]]:
    """For each consecutive pair of ``versions``, old number → new number (None: removed)."""
    return [pair_rules(old, new) for old, new in pairwise(versions)]


def trace_rule(
    versions: Sequence[CRDocument],
    number: str,
    at_version: str | None = None,
    maps: Sequence[dict[str, str | None]] | None = None,
) -> list[TraceEntry]:
    """The rule numbered ``number`` in version ``at_version`` (default: the newest) through every
    version, following renumberings; ``maps`` from ``number_maps`` saves recomputing the diffs."""
    ids = [version_id_of(doc) for doc in versions]
    start = ids.index(at_version) if at_version is not None else len(versions) - 1
    if at_version is not None and at_version not in ids:
        raise ValueError(f"unknown version {at_version!r}")
    maps = list(maps) if maps is not None else number_maps(versions)
    numbers: list[str | None] = [None] * len(versions)
    numbers[start] = number
    for i in range(start, len(versions) - 1):  # forwards
        numbers[i + 1] = maps[i].get(numbers[i]) if numbers[i] else None
    for i in range(start, 0, -1):  # backwards through the inverted maps
        current = numbers[i]
        inverse = {new: old for old, new in maps[i - 1].items() if new}
        numbers[i - 1] = inverse.get(current) if current else None
    rules = [{rule.number: rule for rule in doc.rules} for doc in versions]
    entries = []
    for i, doc in enumerate(versions):
        rule = rules[i].get(numbers[i]) if numbers[i] else None
        previous = rules[i - 1].get(numbers[i - 1]) if i and numbers[i - 1] else None
        entries.append(
            TraceEntry(
                version_id=ids[i],
                effective_date=doc.effective_date,
                number=rule.number if rule else None,
                title=rule.title if rule else None,
                text=rule.text if rule else None,
                examples=list(rule.examples) if rule else [],
                status=_trace_status(i, rule, previous),
            )
        )
    return entries


def _trace_status(index: int, rule: Rule | None, previous: Rule | None) -> str:
    if rule is None:
        return "removed" if previous is not None else "absent"
    if index == 0:
        return "first"
    if previous is None:
        return "added"
    if previous.number == rule.number and _entry(previous, 0).parts == _entry(rule, 0).parts:
        return "same"
    aspects = _aspects(_entry(previous, 0), _entry(rule, 0))
    if previous.number == rule.number:
        return "changed" if aspects else "same"
    return "moved" if not aspects or "numbers-only" in aspects else "moved-changed"
