"""Rule page history names the rule a removed rule was merged into, and what a rule took in."""
from __future__ import annotations


async def test_removed_rule_says_where_it_went(snapshot_ds) -> None:
    # 701.16d ("shuffle anyway") was folded into Shuffle's 701.16c by Magic Origins' update
    # (2015-07-17; Venser's Journal pairs the two), today 701.24c.
    page = (await snapshot_ds.client.get("/rule/701.16d.json?version=en-2014-09-25")).json()
    removed = page["trace"][-1]
    assert (removed["version"], removed["change"]) == ("en-2015-07-17", "removed")
    assert [(link["label"], link["number"], link["current_number"]) for link in removed["links"]] == [
        ("merged into", "701.16c", "701.24c"),
    ]
    html = (await snapshot_ds.client.get("/rule/701.16d?version=en-2014-09-25")).text
    assert 'merged into <a class="rule-ref" href="/rule/701.16c?version=en-2015-07-17">701.16c</a>' in html


async def test_rule_that_took_another_in_says_so(snapshot_ds) -> None:
    # 700.8 "cards with a name originally printed in a set" and its subrules went under 206.3 in
    # Zendikar Rising's update (2020-09-25); 206.3 kept its identity, and today's 700.8 is another rule.
    page = (await snapshot_ds.client.get("/rule/206.3.json")).json()
    took_in = [(row["version"], link["label"], link["number"]) for row in page["trace"] for link in row["links"]]
    assert took_in == [("en-2020-09-25", "took in", "700.8")]
    assert [row["number"] for row in page["trace"]][:1] == ["206.3"]


async def test_an_older_edition_says_where_todays_rule_of_the_number_is(snapshot_ds) -> None:
    """A judge who typed ?version=en-2009-10-01 for Trample got 702.19 Banding, and only the page's
    foot said another rule had the number (a judge's review)."""
    html = (await snapshot_ds.client.get("/rule/702.19?version=en-2009-10-01")).text
    assert ("Today's 702.19 (Trample) is another rule: in this edition it is "
            '<a class="rule-ref" href="/rule/702.17?version=en-2009-10-01">702.17</a>.') in html
    assert "is another rule" not in (await snapshot_ds.client.get("/rule/702.19?version=en-2026-01-16")).text
    assert "is another rule" not in (await snapshot_ds.client.get("/rule/702.19")).text
    # A rule without a title is named by none (its section's title named it: a code review).
    html = (await snapshot_ds.client.get("/rule/500.4?version=en-2009-10-01")).text
    assert "Today's 500.4 (" not in html
