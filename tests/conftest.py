"""Shared fixtures: ``site`` (the real local test site), ``fake_clock``, and the site databases."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from sitekit import FakeClock, TestSite

pytest_plugins = ("site_databases",)


@pytest.fixture(scope="session")
def _site_server() -> Iterator[TestSite]:
    site = TestSite().start()
    yield site
    site.stop()


@pytest.fixture
def site(_site_server: TestSite) -> Iterator[TestSite]:
    """The recorded site on 127.0.0.1 with fresh routes, no faults and an empty request log."""
    _site_server.reset()
    yield _site_server
    _site_server.reset()


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()
