"""Link a translated Comprehensive Rules document to the English version it translates (pure).

Translations keep the English rule numbers, but a translation follows one English version and
numbers move between versions (702.78 was Persist in 2021 and is Conspire since 2022). So we
first choose the English version, honestly saying how (same effective date, structure, or only
the nearest one), then check every rule against the English rule of the same number by
structure, never by wording: the same subrule letters under it, the same rule numbers cited,
the same number of examples, and a title that corresponds when we can tell (an English title the
translation prints, a glossary pair, a cognate). Where the translated version's own English
version is not held, the rule is matched in the versions around it by the titles it prints and
its parent's choice, and status says whether the English rule of the same lineage is unchanged,
renumbered, stale or missing.

Version choice, structural checks and title checks are steps of one matcher over shared private
helpers (folding, title pairs), read in order; the glossary alignment it uses for title pairs is
``kb.link.cr_glossary_links``.
"""
from __future__ import annotations

import datetime
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from cydifflib import SequenceMatcher

from kb.link.cr_glossary_links import link_glossary
from kb.normalise.names import name_key
from kb.normalise.refs import extract_refs
from kb.records import CRDocument, Rule

# How much one failed check costs. A "hard" disagreement (other subrules, a contradicting title)
# means the numbers denote different rules; a "soft" one (a citation or an example the
# translators changed or dropped) happens in faithful translations too.
HARD_FACTOR = 0.3
SOFT_FACTOR = 0.85
# Latin-script titles are compared as cognates ("Conspirar" ~ "Conspire"): only a strong
# resemblance counts, and only as agreement (German "Verschwörung" is Conspire too).
COGNATE_RATIO = 0.6
ISO_IN_ID = re.compile(r"(\d{4}-\d{2}-\d{2})")
TRANSLATOR_NOTE = re.compile(r"[（(]\s*译注[:：].*?[)）]")
QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})


@dataclass
class RuleLink:
    """One translated rule and the English rule it translates."""

    number: str
    en_number: str | None
    status: str  # same | renumbered | stale | mismatch
    confidence: float
    reasons: list[str] = field(default_factory=list)
    # The hard checks a mismatch failed ("subrules", "title"): subrules alone may have grown since.
    contradicted: tuple[str, ...] = ()


@dataclass
class VersionChoice:
    version_id: str | None
    method: str  # effective-date | structure | nearest
    note: str | None = None


# ---------------------------------------------------------------- public API


def link_rules(
    translated: CRDocument, english: dict[str, CRDocument]
) -> tuple[str | None, str | tuple[str, str], list[RuleLink]]:
    """(English version id, how it was chosen, one RuleLink per translated rule).

    "How" is "effective-date", "structure" or "nearest"; when the choice is not exact it comes
    as a pair (method, note) saying why, e.g. ("nearest", "no English version effective …").
    """
    choice = choose_english_version(translated, english)
    how: str | tuple[str, str] = (choice.method, choice.note) if choice.note else choice.method
    if choice.version_id is None:
        return None, how, []
    english_doc = english[choice.version_id]
    glossary_pairs = {
        _clean_term(link.term): link.en_term for link in link_glossary(translated, english_doc)
    }
    later = _later_versions(choice.version_id, english)
    checker = _RuleChecker(translated, english_doc, choice.version_id, glossary_pairs, later,
                           earlier_titles(choice.version_id, english))
    return choice.version_id, how, [checker.link(rule) for rule in translated.rules]


def choose_english_version(translated: CRDocument, english: dict[str, CRDocument]) -> VersionChoice:
    """The English version a translation follows, and how sure we are of it."""
    if not english:
        return VersionChoice(None, "nearest", "no English version given")
    dates = {version_id: _version_date(version_id, doc) for version_id, doc in english.items()}
    scores = {version_id: _structure_score(translated, doc) for version_id, doc in english.items()}
    if translated.effective_date:
        same_day = [v for v, d in dates.items() if d == translated.effective_date]
        if same_day:
            return VersionChoice(max(same_day, key=lambda v: (scores[v].value, v)), "effective-date")
        return _nearest_by_date(translated.effective_date, dates, scores)
    return _best_by_structure(dates, scores)


def counterpart_citations(translated: list[str], english: list[str]) -> dict[str, str]:
    """The English rule number each number a translated rule cites stands for, read from the
    English text it translates: ``translated`` and ``english`` are the numbers each text cites, in
    order.

    A translation cites rules in the numbering of the edition it translates, which may not be the
    English version it is shown beside (the Korean rules of 2021 cite 706.10, Copying Objects'
    rule on copies of spells, where the 2022 text beside them cites 707.10). Where both texts cite
    as many numbers and every number the two share sits at the same place, the n-th citation of one
    is the n-th of the other; otherwise only the numbers both cite are known. A number left out is
    not known: the caller reads it in the translation's own numbering.
    """
    shared = set(translated) & set(english)
    in_step = len(translated) == len(english) and all(
        mine == theirs or (mine not in shared and theirs not in shared)
        for mine, theirs in zip(translated, english, strict=False)
    )
    if in_step:
        pairs: dict[str, str] = {}
        back: dict[str, str] = {}
        for mine, theirs in zip(translated, english, strict=True):
            if pairs.setdefault(mine, theirs) != theirs or back.setdefault(theirs, mine) != mine:
                return {number: number for number in shared}  # read two ways: no evidence
        return pairs
    return {number: number for number in shared}


# ---------------------------------------------------------------- version choice


@dataclass
class _Score:
    value: float
    coverage: float
    missing: list[str]
    titles_agree: int
    titles_disagree: int


def _version_date(version_id: str, doc: CRDocument) -> str | None:
    if doc.effective_date:
        return doc.effective_date
    match = ISO_IN_ID.search(version_id)
    return match[1] if match else None


def _structure_score(translated: CRDocument, doc: CRDocument) -> _Score:
    """How well an English version's numbering and titles fit the translation."""
    english_rules = {rule.number: rule for rule in doc.rules}
    numbers = list(dict.fromkeys([r.number for r in translated.rules] + translated.extra.get("listed_numbers", [])))
    missing = [number for number in numbers if number not in english_rules]
    coverage = 1 - len(missing) / len(numbers) if numbers else 0.0
    agree = disagree = 0
    english_titles = translated.extra.get("english_titles", {})
    for rule in translated.rules:
        en_rule = english_rules.get(rule.number)
        if not rule.title or en_rule is None or not en_rule.title:
            continue
        verdict = _title_verdict(rule, en_rule, english_titles, {})
        agree += verdict is True
        disagree += verdict is False
    components = [coverage]
    if agree + disagree:
        components.append(agree / (agree + disagree))
    return _Score(sum(components) / len(components), coverage, missing, agree, disagree)


def _nearest_by_date(date: str, dates: dict[str, str | None], scores: dict[str, _Score]) -> VersionChoice:
    dated = {v: d for v, d in dates.items() if d}
    earlier = [v for v, d in dated.items() if d <= date]
    if earlier:
        # A translation cannot follow an English text published after it.
        chosen = max(earlier, key=lambda v: (dated[v], scores[v].value))
        relation = "the latest one before it"
    elif dated:
        chosen = min(dated, key=lambda v: (dated[v], -scores[v].value))
        relation = "the earliest one after it (none is older)"
    else:
        return _best_by_structure(dates, scores)
    days = abs((_as_date(dated[chosen]) - _as_date(date)).days)
    score = scores[chosen]
    note = (
        f"no English version effective {date} among the {len(dates)} given; "
        f"{chosen} (effective {dated[chosen]}, {days} days apart) is {relation}; "
        f"{score.coverage:.0%} of the translation's rule numbers exist there"
    )
    if score.titles_agree + score.titles_disagree:
        note += f", {score.titles_agree} of {score.titles_agree + score.titles_disagree} checkable titles agree"
    return VersionChoice(chosen, "nearest", note)


def _best_by_structure(dates: dict[str, str | None], scores: dict[str, _Score]) -> VersionChoice:
    # Ties go to the newest version: undated pages are read today.
    ranked = sorted(scores, key=lambda v: (scores[v].value, dates[v] or "", v), reverse=True)
    chosen = ranked[0]
    score = scores[chosen]
    tied = [v for v in ranked if scores[v].value == score.value]
    if score.coverage == 1.0 and score.titles_disagree == 0:
        note = None
        if len(tied) > 1:
            note = f"{len(tied)} English versions fit equally ({', '.join(sorted(tied))}); chose the newest"
        return VersionChoice(chosen, "structure", note)
    note = (
        f"no English version has every number the translation uses; {chosen} fits best "
        f"({score.coverage:.0%} of its numbers): {len(score.missing)} missing there"
        f" ({_span(score.missing)})"
    )
    listed = _listed_span_note(score.missing)
    if listed:
        note += f"; {listed}"
    return VersionChoice(chosen, "nearest", note)


def _listed_span_note(missing: list[str]) -> str:
    if missing and all("." in number for number in missing):
        return "the translation follows a newer or different English version than any given"
    return ""


def _span(numbers: list[str]) -> str:
    if not numbers:
        return ""
    return numbers[0] if len(numbers) == 1 else f"{numbers[0]}–{numbers[-1]}"


def _as_date(iso: str) -> datetime.date:
    return datetime.date.fromisoformat(iso)


def earlier_titles(version_id: str, english: dict[str, CRDocument]) -> frozenset[str]:
    """Every rule title (folded) of the English editions dated before ``version_id``'s."""
    chosen_date = _version_date(version_id, english[version_id])
    if not chosen_date:
        return frozenset()
    return frozenset(
        rule.title.casefold().strip()
        for other_id, doc in english.items()
        if (date := _version_date(other_id, doc)) and date < chosen_date
        for rule in doc.rules if rule.title
    )


def _later_versions(version_id: str, english: dict[str, CRDocument]) -> list[tuple[str, dict[str, Rule]]]:
    chosen_date = _version_date(version_id, english[version_id])
    if not chosen_date:
        return []
    later = [
        (date, other_id)
        for other_id, doc in english.items()
        if (date := _version_date(other_id, doc)) and date > chosen_date
    ]
    return [(other_id, {r.number: r for r in english[other_id].rules}) for _, other_id in sorted(later)]


# ---------------------------------------------------------------- per-rule checks


class _RuleChecker:
    def __init__(
        self,
        translated: CRDocument,
        english_doc: CRDocument,
        version_id: str,
        glossary_pairs: dict[str, str],
        later: list[tuple[str, dict[str, Rule]]],
        earlier_titles: frozenset[str] = frozenset(),
    ) -> None:
        self.version_id = version_id
        self.earlier_titles = earlier_titles
        self.english = {rule.number: rule for rule in english_doc.rules}
        self.children = _children(translated.rules)
        self.english_children = _children(english_doc.rules)
        self.english_titles = translated.extra.get("english_titles", {})
        self.glossary_pairs = glossary_pairs
        self.later = later
        self.english_title_numbers = {
            rule.title.casefold().strip(): rule.number for rule in english_doc.rules if rule.title
        }

    def link(self, rule: Rule) -> RuleLink:
        en_rule = self.english.get(rule.number)
        if en_rule is None:
            return RuleLink(rule.number, None, "mismatch", 0.0, [f"no rule {rule.number} in {self.version_id}"])
        hard: list[str] = []
        soft: list[str] = []
        self._check_children(rule, hard)
        contradicted = ("subrules",) if hard else ()
        self._check_refs(rule, en_rule, soft)
        if len(rule.examples) != len(en_rule.examples):
            soft.append(f"{len(rule.examples)} examples here, {len(en_rule.examples)} in English")
        verdict = _title_verdict(
            rule, en_rule, self.english_titles, self.glossary_pairs, self.english_title_numbers, self.earlier_titles
        )
        if verdict is False:
            hard.append(f"title {rule.title!r} does not correspond to English {en_rule.title!r}")
            contradicted = (*contradicted, "title")
        confidence = rule.number_confidence * HARD_FACTOR ** len(hard) * SOFT_FACTOR ** len(soft)
        if rule.number_confidence < 1:
            soft.append("number recovered by position")
        if hard:
            return RuleLink(rule.number, en_rule.number, "mismatch", round(confidence, 3), hard + soft, contradicted)
        changed_in = self._changed_in_later_version(en_rule)
        if changed_in:
            return RuleLink(rule.number, en_rule.number, "stale", round(confidence, 3), [changed_in, *soft])
        return RuleLink(rule.number, en_rule.number, "same", round(confidence, 3), soft)

    def _check_children(self, rule: Rule, hard: list[str]) -> None:
        mine = self.children.get(rule.number, [])
        if not mine:
            return  # a partial document (one page, one chapter) may not carry them: no evidence
        theirs = self.english_children.get(rule.number, [])
        if set(mine) != set(theirs):
            hard.append(
                f"under {rule.number}: {_span(mine)} ({len(mine)}) here, "
                f"{_span(theirs) or 'nothing'} ({len(theirs)}) in {self.version_id}"
            )

    def _check_refs(self, rule: Rule, en_rule: Rule, soft: list[str]) -> None:
        mine, theirs = cited_numbers(rule), cited_numbers(en_rule)
        if mine != theirs:
            only_here = sorted(mine - theirs)
            only_english = sorted(theirs - mine)
            soft.append(
                "cites "
                + (", ".join(only_here) if only_here else "nothing more")
                + " where English cites "
                + (", ".join(only_english) if only_english else "nothing more")
            )

    def _changed_in_later_version(self, en_rule: Rule) -> str | None:
        reference = _comparable(en_rule)
        for version_id, rules in self.later:
            newer = rules.get(en_rule.number)
            if newer is None:
                return f"English rule {en_rule.number} no longer exists in {version_id}"
            if _comparable(newer) != reference:
                return f"English text of {en_rule.number} changed in {version_id}"
        return None


def cited_numbers(rule: Rule) -> set[str]:
    """The rules, sections and parts the rule's text and examples cite, other than itself.

    Only citations as ``kb.normalise.refs`` reads them in every language ("rule 704", "规则704",
    "규칙 704", "see section 8", "第8章"): a bare number is a quantity as often ("exactly 100
    cards", "999 times"), and one taken as a citation the translation leaves out marked correct
    links down. A rule naming its own number ("参见规则202.3c" in 202.3c) cites nothing.
    """
    return set(_citations_in("\n".join([rule.text, *rule.examples]))) - {rule.number}


# Each English rule is compared with every translation and each candidate version of it.
@lru_cache(maxsize=1 << 15)
def _citations_in(text: str) -> frozenset[str]:
    return frozenset(extract_refs(text))


def _children(rules: list[Rule]) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for rule in rules:
        if rule.parent:
            children.setdefault(rule.parent, []).append(rule.number)
    return children


def _comparable(rule: Rule) -> str:
    text = "\n".join([rule.title or "", rule.text, *rule.examples])
    text = unicodedata.normalize("NFKC", text).translate(QUOTES)
    return " ".join(text.split())


def _title_verdict(
    rule: Rule,
    en_rule: Rule,
    english_titles: dict[str, str],
    glossary_pairs: dict[str, str],
    english_title_numbers: dict[str, str] | None = None,
    earlier_titles: frozenset[str] = frozenset(),
) -> bool | None:
    """True/False when the titles can be compared, None when we cannot tell.

    An English title the translation prints decides. A glossary pair ("协力" ↔ "Conspire") only
    agrees when it resembles the English title (glossary terms are singular, titles often
    plural) and only contradicts when it is exactly the title of another English rule of the
    same section: that is what a shifted numbering looks like.
    """
    if not rule.title or not en_rule.title:
        return None
    english_title = en_rule.title.casefold().strip()
    printed = english_titles.get(rule.number)
    if printed:
        # A slip of one letter in the English name a translation prints beside its own is not
        # another rule: the Korean 714 "서사시 카드 Sage Cards" is Saga Cards.
        printed_folded = printed.casefold().strip()
        if printed_folded != english_title and printed_folded in (english_title_numbers or {}):
            return False  # the title of another English rule
        if _one_slip_apart(printed_folded, english_title):
            return True
        # A title of an earlier edition that no rule of this one has: the rule renamed since the
        # translators' English ("717. 턴을 끝내기 Ending the Turn", "Ending Turns and Phases" from
        # 2020: flagged as a mismatch; a foreign judges' review). Nothing can be told.
        return None if printed_folded in earlier_titles else False
    paired = glossary_pairs.get(_clean_term(rule.title))
    if paired:
        paired_folded = paired.casefold().strip()
        if _resembles(paired_folded, english_title):
            return True
        elsewhere = (english_title_numbers or {}).get(paired_folded)
        if elsewhere and elsewhere != rule.number and elsewhere.split(".")[0] == rule.number.split(".")[0]:
            return False
        return None
    if _is_latin(rule.title) and _is_latin(en_rule.title):
        ratio = SequenceMatcher(None, _fold(rule.title), _fold(en_rule.title)).ratio()
        return True if ratio >= COGNATE_RATIO else None
    return None


def _one_slip_apart(a: str, b: str) -> bool:
    """Equal, or one letter changed, added or left out (titles of five letters or more)."""
    if a == b:
        return True
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    return a[start + 1:] == b[start + 1:] or a[start:] == b[start + 1:] or a[start + 1:] == b[start:]


def _resembles(a: str, b: str) -> bool:
    return a == b or a.startswith(b) or b.startswith(a) or SequenceMatcher(None, a, b).ratio() >= 0.8


def _is_latin(text: str) -> bool:
    letters = [char for char in text if char.isalpha()]
    return bool(letters) and all(unicodedata.name(char, "").startswith("LATIN") for char in letters)


def _fold(text: str) -> str:
    return name_key(text) or ""


def _clean_term(term: str) -> str:
    return TRANSLATOR_NOTE.sub("", term).strip()
