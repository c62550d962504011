"""Which rule numbers a page's texts cite that their own CR version does not hold."""
from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable

from kb.site.markup import linked_in_order


def absent_citations(conn: sqlite3.Connection, texts: Iterable[tuple[str | None, str]]) -> dict[str, list[str]]:
    """For ``texts`` as (text, version id): by version, the numbers its texts cite that it has no
    rule of. Official texts have such slips (2006's 405.1 cites 402.9; the later glossaries' Map
    says "see rule 110.10" for 111.10): the page shows them as printed, leading nowhere."""
    cited: dict[str, set[str]] = defaultdict(set)
    for text, version in texts:
        cited[version].update(linked_in_order(text))
    absent: dict[str, list[str]] = {}
    for version, numbers in cited.items():
        if not numbers:
            continue
        marks = ",".join("?" * len(numbers))
        held = {row[0] for row in conn.execute(
            f"select number from rules where version_id = ? and number in ({marks})", [version, *numbers])}
        if missing := sorted(numbers - held):
            absent[version] = missing
    return absent
