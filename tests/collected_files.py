"""A pytest plugin: the test files this process collected, before any deselection.

tests/test_layout.py checks that no test file goes uncollected; a run of the whole suite has the
answer already and need not run pytest's collection again in a subprocess (every test module
imported a second time: ~6 s of CPU).
"""
from __future__ import annotations

import pytest

COLLECTED: set[str] = set()


def pytest_itemcollected(item: pytest.Item) -> None:
    COLLECTED.add(item.nodeid.split("::")[0])
