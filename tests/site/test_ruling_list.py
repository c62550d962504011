"""A rule page's rulings, written in Python: exactly the HTML the template's loop wrote."""
from __future__ import annotations

import sqlite3
from urllib.parse import quote

from jinja2 import Environment
from markupsafe import Markup

from kb.site.labels import bcp47, version_name
from kb.site.markup import render_text
from kb.site.rule_rulings import rulings_relying_on
from kb.site.ruling_list import ruling_items_html
from kb.site.search_db import rows

# The loop kb_rule.html had before the list was written in Python, as the reference (with what
# was mended since: a ruling without its card links its own page, a cited number its version, the
# notes the card page gave of a link and this list did not).
TEMPLATE_LOOP = """{% for r in rulings %}
    <li><a href="{% if r.oracle_id %}/card/{{ r.oracle_id }}{% elif r.card %}/card?name={{ r.card|quote }}{% else %}/ruling/{{ r.id }}{% endif %}#ruling-{{ r.id }}"{% if r.card and r.card_lang and r.card_lang != "en" %} lang="{{ r.card_lang|bcp47 }}"{% endif %}>{{ r.card or "card not identified" }}</a>
      <time>{{ r.published_at or "" }}</time> <span class="tag">{% if r.method == "term" and r.matched_text %}uses the term “{{ r.matched_text }}”{% else %}{{ {"cited": "cites this rule", "keyword": "names this keyword", "term": "names this rule"}.get(r.method, r.method) }}{% endif %}{% if r.version_id and r.rule_number != number %} (as {{ r.rule_number }} in the {{ r.version_id|versionname }}){% endif %}</span>
{%- if r.version_id and r.rule_number %}
{%- if r.in_force_version_id and r.in_force_version_id != r.version_id and r.method == "cited" %} <span class="kb-note">Read in the {{ r.version_id|versionname }}, later than the ruling: in the {{ r.in_force_version_id|versionname }}, the newest held before its date, {{ r.rule_number }} is not this rule.</span>
{%- elif r.in_force_version_id and r.in_force_version_id != r.version_id %} <span class="kb-note">Not in the {{ r.in_force_version_id|versionname }}, the newest held before the ruling's date: found in the {{ r.version_id|versionname }}, later than the ruling.</span>{% endif %}
{%- if r.number_uncertain %} <span class="kb-note">{% if (r.published_at or "9999") < r.version_id[3:13] %}The ruling is older than every version held: whether this rule was {{ r.rule_number }} on its date is not known{% else %}The next version held numbers this rule otherwise: whether it was {{ r.rule_number }} on the ruling's date is not known{% endif %}.</span>{% endif %}
{%- if r.status == "changed" %} <span class="kb-note">{{ "The rule" if "." in r.rule_number else "The section" }}, <a href="/rule/{{ r.rule_number|quote }}?version={{ r.version_id|quote }}">{{ r.rule_number }} in the {{ r.version_id|versionname }}</a>, {{ "was reworded since" if "." in r.rule_number else "has changed since" }}.</span>{% endif %}
{%- endif %}
{%- if r.symbols_lost %} <span class="kb-warning kb-lost-symbols">Some symbols (such as {T} or mana) were lost from this ruling where we read it: check the card's official text before relying on it.</span>{% endif %}
      <div>{{ r.text|kbtext(r.version_id if r.method == "cited" else none) }}</div></li>
  {% endfor %}"""


def template_loop() -> Environment:
    env = Environment(autoescape=True)
    env.filters.update({
        "quote": lambda text: quote(text or ""),
        "versionname": version_name,
        "bcp47": bcp47,
        "kbtext": lambda text, version=None: Markup(render_text(text, version)),
    })
    return env


def current_rule(conn: sqlite3.Connection, number: str) -> dict:
    return rows(conn, """select * from rules where number = ? and version_id =
        (select id from cr_versions where lang = 'en' order by effective_date desc limit 1)""", (number,))[0]


def test_a_card_not_known_and_a_keyword_numbered_otherwise_then(snapshot_conn: sqlite3.Connection) -> None:
    # Connive (701.50 since 2026): a German page's ruling, its card not identified by Oracle id.
    rulings = rulings_relying_on(snapshot_conn, current_rule(snapshot_conn, "701.50"))
    komplott = next(r for r in rulings if r["card"] == "Tödliches Komplott")
    assert str(ruling_items_html([komplott], "701.50")) == (
        # The name the German page printed, in German.
        f'\n    <li><a href="/card?name=T%C3%B6dliches%20Komplott#ruling-{komplott["id"]}" lang="de">Tödliches Komplott</a>\n'
        '      <time>2022-04-29</time> <span class="tag">names this keyword'
        " (as 701.47 in the Comprehensive Rules of 2022-04-29)</span>"
        # Connive was reworded since ("Certain spells and abilities", 701.50d's last known controller).
        ' <span class="kb-note">The rule, <a href="/rule/701.47?version=en-2022-04-29">'
        "701.47 in the Comprehensive Rules of 2022-04-29</a>, was reworded since.</span>\n"
        "      <div>When multiple creatures are instructed to connive simultaneously, they connive one at a"
        " time in the order of their controller&#x27;s choice.</div></li>\n  "
    )


def test_quotes_in_a_ruling_are_escaped_once(snapshot_conn: sqlite3.Connection) -> None:
    rulings = rulings_relying_on(snapshot_conn, current_rule(snapshot_conn, "702.124"))
    partner = next(r for r in rulings if r["text"].startswith('"Partner with'))
    html = str(ruling_items_html([partner], "702.124"))
    assert html.startswith(
        '\n    <li><a href="/card/502849a6-8e65-40f3-b348-a41c4f939768#ruling-106131826719571058">'
        "Zndrsplt, Eye of Wisdom</a>\n      <time>2018-06-08</time>"
        ' <span class="tag">names this keyword (as 702.123 in the Comprehensive Rules of 2018-06-08)</span>'
        ' <span class="kb-note">The rule, <a href="/rule/702.123?version=en-2018-06-08">'
        "702.123 in the Comprehensive Rules of 2018-06-08</a>, was reworded since.</span>\n"
        "      <div>&quot;Partner with [name]&quot; represents two abilities."
    )


def test_every_rule_page_of_the_snapshot_lists_what_the_template_wrote(snapshot_conn: sqlite3.Connection) -> None:
    loop = template_loop().from_string(TEMPLATE_LOOP)
    lineages = [row[0] for row in snapshot_conn.execute(
        "select distinct lineage_id from ruling_rules where lineage_id is not null")]
    listed = 0
    for lineage in lineages:
        rule = rows(snapshot_conn, "select * from rules where lineage_id = ? order by version_id desc limit 1", (lineage,))[0]
        rulings = rulings_relying_on(snapshot_conn, rule)
        assert str(ruling_items_html(rulings, rule["number"])) == loop.render(rulings=rulings, number=rule["number"])
        listed += len(rulings)
    # 107.6 since "{Q}": three of Crackleburr's rulings; 602, 603 and 204 since an entry's pointer after
    # a title is read: thirteen.
    assert (len(lineages), listed) == (37, 378)
    # A ruling whose card is unknown by any name, and a method the page has no words for.
    odd = [{"id": 7, "oracle_id": None, "card": None, "published_at": None, "text": "See rule 702.19 & {T}.",
            "method": "cited-by-hand", "rule_number": "702.19", "version_id": None}]
    assert str(ruling_items_html(odd, "702.19")) == loop.render(rulings=odd, number="702.19")


def test_a_ruling_printed_without_its_card_links_its_own_page() -> None:
    # Neither an Oracle id nor a printed name (an English ruling a page printed without its card):
    # "/card?name=" named no card and answered 404.
    html = ruling_items_html([{"id": 42, "oracle_id": None, "card": None, "published_at": "2015-01-23",
                               "method": "keyword", "text": "Its text."}], "702.105")
    assert '<a href="/ruling/42#ruling-42">card not identified</a>' in html
    assert "/card?name=" not in html


def test_a_ruling_is_said_to_rely_on_a_rule_reworded_since_or_numbered_in_doubt(snapshot_conn: sqlite3.Connection) -> None:
    """The card page said it, the rule page did not (a links review): 2021's ruling that a modal
    double-faced card can't transform, listed under today's Transform, which lets any double-faced
    card transform; 2014's Morph rulings linked as 702.35 of 2013, which a version not held had
    made Fear by their date; 2014's Manifest rulings, found only in a later version."""
    transform = rulings_relying_on(snapshot_conn, current_rule(snapshot_conn, "701.27"))
    modal = next(r for r in transform if r["text"].startswith("A modal double-faced card can't be transformed"))
    assert (modal["rule_number"], modal["version_id"], modal["status"]) == ("701.28", "en-2020-11-20", "changed")
    assert 'The rule, <a href="/rule/701.28?version=en-2020-11-20">701.28 in the Comprehensive Rules of 2020-11-20</a>, was reworded since' in str(
        ruling_items_html([modal], "701.27"))
    morph = [r for r in rulings_relying_on(snapshot_conn, current_rule(snapshot_conn, "702.37")) if r["number_uncertain"]]
    assert {(r["rule_number"], r["version_id"]) for r in morph} == {("702.35", "en-2013-05-01")}
    assert "whether it was 702.35 on the ruling's date is not known" in str(ruling_items_html(morph[:1], "702.37"))
    manifest = rulings_relying_on(snapshot_conn, current_rule(snapshot_conn, "701.40"))
    later = [r for r in manifest if r["in_force_version_id"] != r["version_id"]]
    assert later and "Not in the Comprehensive Rules of 2014-09-25, the newest held before the ruling's date" in str(
        ruling_items_html(later[:1], "701.40"))


def test_a_ruling_older_than_every_version_held_is_said_so() -> None:
    """Linked to the oldest version held, a ruling older than it was told "the next version held
    numbers this rule otherwise", which is not why its number is in doubt (the diff review)."""
    ruling = {"id": 1, "oracle_id": None, "card": "Grim Haruspex", "published_at": "2014-09-20", "text": "Morph.",
              "method": "keyword", "rule_number": "702.37", "version_id": "en-2022-02-18", "number_uncertain": 1,
              "in_force_version_id": "en-2022-02-18", "status": "same"}
    html = str(ruling_items_html([ruling], "702.37"))
    assert "The ruling is older than every version held: whether this rule was 702.37 on its date is not known" in html
    assert "next version held" not in html


async def test_the_card_page_says_a_rule_was_reworded_since_the_ruling(snapshot_ds) -> None:
    """2021's ruling that a modal double-faced card can't transform relied on 701.28 of 2020, which
    only transforming double-faced cards could do; today's 701.27 lets any double-faced card
    transform. The rule page said it was reworded since, the card page did not (the diff review)."""
    html = (await snapshot_ds.client.get("/card/0a69c3dd-52a3-4ef6-b53f-b0780e0dc5f8")).text
    assert ('reworded since: <a href="/rule/701.28?version=en-2020-11-20">701.28 in en-2020-11-20</a>') in html
