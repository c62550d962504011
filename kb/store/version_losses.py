"""What an English CR edition lacks against the editions on either side of it, as quality issues:
losses no check of its own file can see, found in ``cr_changes`` once the CR history is diffed
(``kb.store.derive_history``): rules or glossary entries its neighbours print word for word
(``missing-between-versions``), and its examples (``examples-lost``).
"""
from __future__ import annotations

import sqlite_utils

from kb.records import QualityIssue, first_few
from kb.store.save import save_quality_issue


def report_version_losses(db: sqlite_utils.Database) -> None:
    report_entries_missing_between(db)
    report_examples_lost(db)


MISSING_KIND = "missing-between-versions"
# Rules or glossary entries removed from a version and added back, word for word, in the next
# (a glossary entry's changes are "glossary-removed" and "glossary-added", its term in the
# number's place).
MISSING_BETWEEN = """
    select removed.new_version_id as version_id, removed.old_version_id as before_id,
        added.new_version_id as after_id, removed.entry_kind, removed.old_number, cr_versions.document_id
    from cr_changes as removed
    join cr_changes as added on added.old_version_id = removed.new_version_id
        and added.kind = replace(removed.kind, 'removed', 'added')
        and added.entry_kind = removed.entry_kind and added.new_text = removed.old_text
        and (removed.entry_kind != 'glossary' or added.new_number = removed.old_number)
    join cr_versions on cr_versions.id = removed.new_version_id
    where removed.kind in ('removed', 'glossary-removed') and removed.old_text != ''
    order by removed.new_version_id, removed.position"""


# Rules that print fewer examples in a version than in the versions on either side, which print
# the same ones word for word: one "Example:" paragraph cut is below the share examples-lost names.
EXAMPLES_MISSING_BETWEEN = """
    select earlier.new_version_id as version_id, earlier.old_version_id as before_id,
        later.new_version_id as after_id, earlier.new_number, cr_versions.document_id
    from cr_changes as earlier
    join cr_changes as later on later.old_version_id = earlier.new_version_id and later.old_rule_id = earlier.new_rule_id
    join cr_versions on cr_versions.id = earlier.new_version_id
    where earlier.aspects like '%examples%' and later.aspects like '%examples%'
        and (select count(*) from rule_examples where rule_id = earlier.new_rule_id)
            < (select count(*) from rule_examples where rule_id = earlier.old_rule_id)
        and (select group_concat(text, char(31)) from (select text from rule_examples where rule_id = earlier.old_rule_id order by position))
            = (select group_concat(text, char(31)) from (select text from rule_examples where rule_id = later.new_rule_id order by position))
    order by earlier.new_version_id, earlier.position"""


def report_entries_missing_between(db: sqlite_utils.Database) -> None:
    """Name each version that lacks rules, glossary entries or a rule's examples that the versions
    on either side of it print word for word: lost from its file, most likely (a block cut from the
    end of a section passes every check of the file itself). The editions we hold have none."""
    db.execute(f"delete from quality_issues where kind = '{MISSING_KIND}'")
    found: dict[tuple[str, str, str, int | None, str], list[str]] = {}  # (version, before, after, document, what)
    for row in db.query(MISSING_BETWEEN):
        what = "glossary" if row["entry_kind"] == "glossary" else "rules"
        found.setdefault((row["version_id"], row["before_id"], row["after_id"], row["document_id"], what), []).append(
            row["old_number"])
    for row in db.query(EXAMPLES_MISSING_BETWEEN):
        found.setdefault((row["version_id"], row["before_id"], row["after_id"], row["document_id"], "examples"), []).append(
            row["new_number"])
    for (version_id, before_id, after_id, document_id, what), numbers in found.items():
        save_quality_issue(db, QualityIssue(MISSING_KIND, _missing(what, numbers, version_id, before_id, after_id)), document_id)


def _missing(what: str, numbers: list[str], version_id: str, before_id: str, after_id: str) -> str:
    one = len(numbers) == 1
    if what == "examples":
        return (f"{version_id}: {len(numbers)} {'rule prints' if one else 'rules print'} fewer examples than in {before_id}"
                f" and {after_id}, which print {'its' if one else 'their'} examples word for word ({first_few(numbers)}):"
                " its file may have lost them")
    entries = ("glossary entry" if one else "glossary entries") if what == "glossary" else ("rule" if one else "rules")
    return (f"{version_id}: {len(numbers)} {entries} of {before_id} {'is' if one else 'are'} missing from it and back"
            f" in {after_id} word for word ({first_few(numbers)}): its file may have lost {'it' if one else 'them'}")


EXAMPLES_LOST_KIND = "examples-lost"
# Rules of the version before that printed examples and, paired with a rule of this version,
# print none, beside how many of the version before's rules printed any.
EXAMPLES_LOST = """
    select changes.new_version_id as version_id, changes.old_version_id as before_id,
        cr_versions.document_id, changes.new_number,
        (select count(distinct rule_examples.rule_id) from rule_examples
            join rules on rules.id = rule_examples.rule_id
            where rules.version_id = changes.old_version_id) as before_with_examples
    from cr_changes as changes
    join cr_versions on cr_versions.id = changes.new_version_id
    where changes.kind in ('changed', 'moved-changed') and changes.aspects like '%examples%'
        and exists (select 1 from rule_examples where rule_id = changes.old_rule_id)
        and not exists (select 1 from rule_examples where rule_id = changes.new_rule_id)
    order by changes.new_version_id, changes.position"""
# Of the real English updates since 1999 none took every example from more than 3 rules (of
# 57–215 rules printing any: 3.5 % at most; tests/store/test_examples_lost.py). A file whose
# "Example:" paragraphs were not read loses them from all of its rules.
EXAMPLES_LOST_SHARE = 0.1


def report_examples_lost(db: sqlite_utils.Database) -> None:
    """Name each version in which more than a tenth of the rules that printed examples in the
    version before print none: "Example:" paragraphs lost from its file, most likely (every rule
    and its text are still there, so nothing else notices)."""
    # A translation's are its links' (kb.store.derive_cr_links).
    db.execute(
        f"delete from quality_issues where kind = '{EXAMPLES_LOST_KIND}' and (document_id is null"
        " or document_id not in (select document_id from cr_versions where lang != 'en' and document_id is not null))"
    )
    found: dict[tuple[str, str, int | None, int], list[str]] = {}
    for row in db.query(EXAMPLES_LOST):
        key = (row["version_id"], row["before_id"], row["document_id"], row["before_with_examples"])
        found.setdefault(key, []).append(row["new_number"])
    for (version_id, before_id, document_id, before_with_examples), numbers in found.items():
        if len(numbers) <= EXAMPLES_LOST_SHARE * before_with_examples:
            continue
        shown = first_few(numbers)
        save_quality_issue(db, QualityIssue(
            EXAMPLES_LOST_KIND,
            f"{version_id}: {len(numbers)} of the {before_with_examples} rules that print examples in {before_id}"
            f" print none in it ({shown}): its file may have lost its \"Example:\" paragraphs",
        ), document_id)
