"""A number an official text cites that its own version has no rule of is shown as printed, not
linked to a missing page (the bundled snapshot's real editions)."""
from __future__ import annotations

import re

ABSENT = re.compile(r'<span class="rule-ref rule-ref-absent"[^>]*>([^<]+)</span>')


async def test_a_rule_citing_a_number_its_version_lacks(snapshot_ds) -> None:
    # The 2003 and 2006 texts of 405.1 say "See rule 402.9"; neither edition has a 402.9.
    for version in ("en-2003-03-15", "en-2006-02-01"):
        html = (await snapshot_ds.client.get(f"/rule/405.1?version={version}")).text
        assert "402.9" in ABSENT.findall(html), version
        assert f'href="/rule/402.9?version={version}"' not in html
    html = (await snapshot_ds.client.get("/rule/405.1?version=en-2006-02-01")).text
    assert "no rule of this number in this version: cited as printed" in html
    # What it does hold stays linked.
    assert 'href="/rule/402.8?version=en-2006-02-01"' in html


async def test_a_glossary_entry_citing_a_number_its_version_lacks(snapshot_ds) -> None:
    # Map's definition in the 2024 and January 2026 glossaries says "see rule 110.10" (the rule is 111.10).
    html = (await snapshot_ds.client.get("/glossary/Map")).text
    assert ABSENT.findall(html) == ["110.10", "110.10"]
    assert 'href="/rule/110.10' not in html
