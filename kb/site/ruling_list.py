"""A rule page's "rulings relying on this rule" as HTML, written in Python rather than in the template.

A busy rule lists a hundred rulings, and Jinja's async rendering (every expression awaited, every
attribute looked up through the environment's ``getattr``) took 12–14 ms for them on the full-scale
database: a third of the page's time in process. Written here the same HTML takes a fraction of that. The output is
what the template wrote, character for character (markupsafe's escaping, as autoescape does).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from kb.site.card_page import version_date
from kb.site.labels import bcp47, version_name
from kb.site.markup import render_text
from kb.site.search_fulltext import LOST_SYMBOLS_NOTE

METHOD_LABELS = {"cited": "cites this rule", "keyword": "names this keyword", "term": "names this rule"}


def _link_notes(ruling: dict[str, Any]) -> str:
    """What the card page says of a link and the rule page did not (a links review): the rule
    reworded since the ruling, its number on the ruling's date not known, or the keyword found only
    in a version later than the ruling."""
    version, number = ruling.get("version_id"), ruling.get("rule_number")
    if not version or not number:
        return ""
    notes = []
    in_force = ruling.get("in_force_version_id")
    if in_force and in_force != version and ruling.get("method") == "cited":
        # kb.link.ruling_citations.numbers_read_ahead: that edition may number another rule so.
        notes.append(
            f"read in the {escape(version_name(version))}, later than the ruling: in the"
            f" {escape(version_name(in_force))}, the newest held before its date, {escape(number)} is not this rule"
        )
    elif in_force and in_force != version:
        notes.append(
            f"not in the {escape(version_name(in_force))}, the newest held before the ruling's date: found in the"
            f" {escape(version_name(version))}, later than the ruling"
        )
    if ruling.get("number_uncertain"):
        if (ruling.get("published_at") or "9999") < version_date(version):
            notes.append(f"the ruling is older than every version held: whether this rule was {escape(number)} on"
                         " its date is not known")
        else:
            notes.append(
                f"the next version held numbers this rule otherwise: whether it was {escape(number)} on the ruling's"
                " date is not known"
            )
    if ruling.get("status") == "changed":
        # A section changed where a rule under it did, or one was added or removed (kb.store.derive_history._status).
        # The rule first, then what became of it: "the section has changed since: 707 in …" read as
        # if 707 were the change (a judge's review of the rule pages); not "relied on" it, which a
        # ruling found in a later edition than its own did not (a code review).
        what, since = ("the rule", "was reworded since") if "." in number else ("the section", "has changed since")
        notes.append(
            f'{what}, <a href="/rule/{escape(quote(number))}?version={escape(quote(version))}">'
            # The edition held, which may not be the one the ruling read: editions between two held
            # ones are not held (Crackleburr's 2008 ruling on {Q} beside 2006's 212.3d, which lacks
            # it, was "as the ruling read it": a judge's review).
            f"{escape(number)} in the {escape(version_name(version))}</a>, {since}"
        )
    # Each a sentence: two notes ran together ("… is not known the rule, 212.3d …": a judge's review).
    return "".join(f' <span class="kb-note">{note[:1].upper()}{note[1:]}.</span>' for note in notes)


def ruling_items_html(rulings: Iterable[dict[str, Any]], page_number: str) -> Markup:
    """The ``<li>`` of each ruling: its card, date, how it relies on the rule (and under which
    number, when its own date's version numbered the rule otherwise) and its text."""
    out: list[str] = []
    for ruling in rulings:
        card = ruling.get("card")
        oracle_id = ruling.get("oracle_id")
        if oracle_id:
            href = f"/card/{escape(oracle_id)}"
        elif card:
            href = f"/card?name={escape(quote(card))}"
        else:  # printed without its card (kb.site.search_fulltext.ruling_hit does the same)
            href = f"/ruling/{escape(ruling.get('id'))}"
        method = ruling.get("method")
        label = str(escape(METHOD_LABELS.get(method, method)))  # type: ignore[arg-type]
        if method == "term" and ruling.get("matched_text"):
            # Words the ruling says, not a number it cites ("names this rule" was read as a
            # citation of 708: a judge's review).
            label = f"uses the term “{escape(ruling['matched_text'])}”"
        if ruling.get("version_id") and ruling.get("rule_number") != page_number:
            label += (
                f" (as {escape(ruling.get('rule_number'))} in the"
                f" {escape(version_name(ruling['version_id']))})"
            )
        # A ruling citing this rule by number cites the numbers of the version it was linked in.
        cited_version = ruling.get("version_id") if ruling.get("method") == "cited" else None
        caution = ""
        if ruling.get("paired_by_number"):
            caution = (
                f' <span class="kb-note">the rule it relied on, {escape(ruling.get("rule_number"))} in the'
                f" {escape(version_name(ruling['version_id']))}, was paired with this one by its number alone:"
                " it may be another rule</span>"
            )
        caution += _link_notes(ruling)
        if ruling.get("symbols_lost"):
            # As the card page and the search warn of it (a judge's review: "with in the cost").
            caution += LOST_SYMBOLS_NOTE
        # A card known by the name a page printed: in its language ("Tödliches Komplott": a judge's review).
        card_lang = ruling.get("card_lang")
        lang = f' lang="{escape(bcp47(card_lang))}"' if card and card_lang and card_lang != "en" else ""
        out.append(
            f'\n    <li><a href="{href}#ruling-{escape(ruling.get("id"))}"{lang}>{escape(card or "card not identified")}</a>\n'
            f'      <time>{escape(ruling.get("published_at") or "")}</time> <span class="tag">{label}</span>{caution}\n'
            f'      <div>{render_text(ruling.get("text"), cited_version)}</div></li>\n  '
        )
    return Markup("".join(out))
