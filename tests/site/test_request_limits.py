"""Limits that hold whatever a request's query string looks like (a review's fuzz of the site)."""
from __future__ import annotations

import pytest

from kb.site.limits import _carries_sql
from kb.site.views import MAX_OFFSET, page_offset


@pytest.mark.parametrize(("query_string", "carries"), [
    (b"sql=select+42", True),
    (b"_where=1%3D1", True),
    (b"q=x&sql=select+1", True),
    # Datasette reads a name decoded: "?%73ql=" ran SQL past the gate of two at a time.
    (b"%73ql=select+42", True),
    (b"%5Fwhere=1%3D1", True),
    (b"sq%6C=select+1", True),
    (b"q=sql", False),
    (b"sqlite=1", False),
    (b"q=%73ql", False),
])
def test_a_query_carrying_sql_is_known_however_its_name_is_written(query_string: bytes, carries: bool) -> None:
    assert _carries_sql(query_string) is carries


def test_an_offset_of_any_length_is_a_page() -> None:
    # 4,301 digits are past what int() reads: a 500 on /search, /diff and /version.
    assert page_offset("1" * 4301) == MAX_OFFSET
    assert page_offset("0" * 5000 + "25") == 25
    assert (page_offset("²"), page_offset(None), page_offset("-5")) == (0, 0, 0)


async def test_a_page_asked_for_past_every_offset_answers(snapshot_ds) -> None:
    huge = "1" * 4301
    for path in (f"/search.json?q=flying&kind=rules&offset={huge}", f"/diff.json?offset={huge}",
                 f"/version/en-2026-04-17?offset={huge}"):
        assert (await snapshot_ds.client.get(path)).status_code == 200, path
