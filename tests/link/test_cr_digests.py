"""The comparison digests a diff of versions years apart reads (kb.link.cr_compare.comparison_digest)
and the word diffs a diff page fills in later (kb.link.cr_diff.with_texts)."""
from __future__ import annotations

from typing import Any

import pytest

from kb.link.cr_compare import aspects, comparison_digest, digest_aspects, entry
from kb.link.cr_diff import Change, with_texts
from kb.records import Rule

KICKER = "Kicker is a static ability that functions while the spell with kicker is on the stack."


def rule(number: str = "702.33a", text: str = KICKER, examples: list[str] | None = None, title: str | None = None) -> Rule:
    return Rule(number=number, kind="subrule", text=text, title=title, examples=examples or [])


@pytest.mark.parametrize(("old", "new"), [
    (rule(), rule()),
    (rule(), rule(text=KICKER.replace("static", "spell"))),
    (rule(), rule(text=KICKER.replace("'", "’") + "  ")),  # typography and whitespace: no change
    (rule(text="See rule 702.33b."), rule(text="See rule 702.34b.")),  # a cited number alone
    (rule(examples=["Example: One."]), rule(examples=["Example: Two."])),
    (rule(title="Kicker"), rule(title="Multikicker")),
    # No example against one that folds to nothing: the lists differ (a review: joined, both were "").
    (rule(), rule(examples=[""])),
    (rule(), rule(examples=["   "])),
    (rule(examples=["Example: One.", "Two."]), rule(examples=["Example: One. Two."])),
])
def test_a_digest_tells_what_differs_as_the_texts_do(old: Rule, new: Rule) -> None:
    assert digest_aspects(comparison_digest(entry(old)), comparison_digest(entry(new))) == aspects(entry(old), entry(new))


def test_a_change_given_its_texts_is_done_once_its_texts_are_set() -> None:
    """A diff page hands the same kept change to every request that shows it, and a request
    takes one whose texts are set as done: the texts are set after its word diff and similarity
    (set before them, a request reading it meanwhile showed an empty word diff and a similarity of 0)."""
    assigned: list[str] = []

    class Watched(Change):
        def __setattr__(self, name: str, value: Any) -> None:
            assigned.append(name)
            super().__setattr__(name, value)

    change = Watched("changed", "702.33a", "702.33a", None, None, 0.0, "", entry_kind="subrule")
    assigned.clear()
    with_texts(change, KICKER, KICKER.replace("static", "spell"))
    assert (change.word_diff, change.similarity) == (
        "Kicker is a [-static-] {+spell+} ability that functions while the spell with kicker is on the stack.",
        0.9375,
    )
    assert assigned.index("old_text") > max(assigned.index("word_diff"), assigned.index("similarity"))
    assert assigned.index("new_text") > max(assigned.index("word_diff"), assigned.index("similarity"))
