"""What a translated CR lacks against the English rules it translates, as quality issues: the
store's side of ``kb.link.cr_coverage``, run by ``kb.store.derive_cr_links`` once a translation's
rules and glossary are linked.

Each is something a translation's file can lose while every check of the file itself passes:
sections its contents list that hold no rule (``sections-without-rules``), the end of a part's
last section (``translation-cut-short``), a rule's last subrules (``rules-not-translated``), its
examples (``examples-lost``) and glossary entries (``glossary-not-translated``).
"""
from __future__ import annotations

from itertools import pairwise

import sqlite_utils

from kb.link.cr_coverage import (
    examples_not_translated,
    glossary_not_translated,
    rules_after_last_translated,
    rules_not_translated,
    sections_with_rules,
    sections_without_rules,
)
from kb.records import CRDocument, QualityIssue, first_few
from kb.store.save import save_quality_issue
from kb.store.version_losses import EXAMPLES_LOST_KIND, EXAMPLES_LOST_SHARE

KINDS = ("sections-without-rules", "translation-cut-short", "rules-not-translated", "glossary-not-translated")


def clear_what_translations_lack(db: sqlite_utils.Database) -> None:
    """Delete the issues ``report_what_it_lacks`` writes (an English edition's ``examples-lost``
    is the CR history's: ``kb.store.version_losses``)."""
    db.execute(
        f"delete from quality_issues where kind in ({', '.join('?' * len(KINDS))})"
        " or (kind = ? and document_id in (select document_id from cr_versions where lang != 'en'))",
        [*KINDS, EXAMPLES_LOST_KIND],
    )


def report_what_it_lacks(
    db: sqlite_utils.Database,
    version_id: str,
    translated: CRDocument,
    english: dict[str, CRDocument],
    translates: tuple[str, str],
    links: list,
    glossary_links: list,
    lineage_of: dict[tuple[str, str], str],
) -> None:
    """The issues of one translation. ``translates``: the English edition it is said to translate
    and how that was chosen (``effective-date``: its very edition); ``links`` its rules' links (to
    that edition or a neighbour), ``glossary_links`` its glossary's; ``lineage_of`` maps an English
    (version, number) to its rule's identity."""
    en_version, how = translates
    document_id = _document_of(db, version_id)
    issues = _sections_without_rules(version_id, translated, english, links)
    issues += _parts_cut_in_a_section(version_id, translated, (en_version, english[en_version]), links, lineage_of)
    issues += _examples_not_translated(version_id, translated, english, links)
    if how == "effective-date":  # the very edition it translates: nothing added or removed since
        issues += _rules_not_translated(version_id, (en_version, english[en_version]), links)
        issues += _glossary_not_translated(version_id, translated, (en_version, english[en_version]), glossary_links)
    for issue in issues:
        save_quality_issue(db, issue, document_id)


def _targets(links: list) -> dict[str, tuple[str, str]]:
    """Translated number → (English version, number), for the rules linked to one."""
    return {link.number: (link.en_version, link.en_number) for link in links if link.en_version and link.en_number}


def _sections_without_rules(
    version_id: str, translated: CRDocument, english: dict[str, CRDocument], links: list
) -> list[QualityIssue]:
    """The sections ``translated`` lists without rules while the English section each is linked
    to (by identity: ``links``) has some."""
    linked = _targets(links)
    held: dict[str, set[str]] = {}

    def english_holds_rules(section: str) -> bool:
        if section not in linked:
            return False  # nothing to compare with: not named
        en_version, en_number = linked[section]
        if en_version not in held:
            held[en_version] = sections_with_rules(english[en_version])
        return en_number in held[en_version]

    issues = []
    for part, sections in sections_without_rules(translated, english_holds_rules):
        listed = sections[0] if len(sections) == 1 else f"{sections[0]}–{sections[-1]}" if _consecutive(sections) else ", ".join(sections)
        issues.append(QualityIssue(
            "sections-without-rules",
            f"{version_id}: part {part} holds rules, but {'sections' if len(sections) > 1 else 'section'} {listed}"
            f" of its contents {'hold' if len(sections) > 1 else 'holds'} none: its chapter may be cut short,"
            " or not translated",
        ))
    return issues


def _parts_cut_in_a_section(
    version_id: str, translated: CRDocument, english: tuple[str, CRDocument], links: list,
    lineage_of: dict[tuple[str, str], str],
) -> list[QualityIssue]:
    """The parts of ``translated`` whose last rule translates an English rule that its section
    follows with rules nothing translates: a chapter post cut within its last section. Read in
    the English edition the translation is said to translate (``english``), each link there by
    the lineage of its rule (a link may name the edition after: a Korean CR between two held
    ones), and only when that edition is not newer than the translation."""
    en_version, en_doc = english
    if not (translated.effective_date and en_doc.effective_date and en_doc.effective_date <= translated.effective_date):
        return []
    number_in_edition = {lineage: number for (version, number), lineage in lineage_of.items() if version == en_version}
    targets = {}
    for number, (version, en_number) in _targets(links).items():
        if version == en_version:
            targets[number] = en_number
        elif lineage_of.get((version, en_number)) in number_in_edition:
            targets[number] = number_in_edition[lineage_of[(version, en_number)]]
    return [
        QualityIssue(
            "translation-cut-short",
            f"{version_id}: part {part} ends with the rule that translates {last} of {en_version}, which its section"
            f" follows with {len(after)} {'rules' if len(after) > 1 else 'rule'} nothing in it translates ({first_few(after)}):"
            " its chapter may be cut short",
        )
        for part, last, after in rules_after_last_translated(translated, targets, en_doc)
    ]


def _examples_not_translated(
    version_id: str, translated: CRDocument, english: dict[str, CRDocument], links: list
) -> list[QualityIssue]:
    """``examples-lost`` for a translation in which more than a tenth of the rules that translate
    an English rule with examples print none: as for an English edition against the one before
    it (``kb.store.version_losses``)."""
    lacking, translating = examples_not_translated(translated, _targets(links), english)
    if len(lacking) <= EXAMPLES_LOST_SHARE * translating:
        return []
    return [QualityIssue(
        EXAMPLES_LOST_KIND,
        f"{version_id}: {len(lacking)} of the {translating} rules that translate an English rule with examples"
        f" print none ({first_few(lacking)}): its file may have lost its examples",
    )]


def _rules_not_translated(version_id: str, english: tuple[str, CRDocument], links: list) -> list[QualityIssue]:
    """The rules of the English edition the translation translates that nothing in it translates,
    under a rule or section it does translate."""
    en_version, en_doc = english
    targets = {en_number for version, en_number in _targets(links).values() if version == en_version}
    missing = rules_not_translated(targets, en_doc)
    if not missing:
        return []
    many = len(missing) > 1
    return [QualityIssue(
        "rules-not-translated",
        f"{version_id}: {len(missing)} {'rules' if many else 'rule'} of {en_version}, which it translates,"
        f" {'are' if many else 'is'} translated by none of its rules though {'their' if many else 'its'} rule or section"
        f" is ({first_few(missing)}): lost from its file, or left untranslated",
    )]


def _glossary_not_translated(
    version_id: str, translated: CRDocument, english: tuple[str, CRDocument], glossary_links: list
) -> list[QualityIssue]:
    """The entries of the English glossary ``translated`` translates that its own glossary leaves out."""
    en_version, en_doc = english
    missing = glossary_not_translated(translated, {link.en_term for link in glossary_links}, en_doc)
    if not missing:
        return []
    return [QualityIssue(
        "glossary-not-translated",
        f"{version_id}: {len(missing)} of the {len(en_doc.glossary)} glossary entries of {en_version}, which it"
        f" translates, have no entry in its glossary ({first_few(missing)}): lost from its file, or left untranslated",
    )]


def _document_of(db: sqlite_utils.Database, version_id: str) -> int | None:
    row = db.execute("select document_id from cr_versions where id = ?", [version_id]).fetchone()
    return row[0] if row else None


def _consecutive(sections: list[str]) -> bool:
    return all(int(later) == int(earlier) + 1 for earlier, later in pairwise(sections))
