"""The build runs with Python's collector walking its objects less often, and puts it back."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from kb.build import publish
from kb.build.collector import FEWER_COLLECTIONS, fewer_collections


def test_thresholds_are_put_back_even_when_the_body_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with fewer_collections():
            assert gc.get_threshold() == FEWER_COLLECTIONS
            raise RuntimeError("a build that failed")
    assert gc.get_threshold() == before


def test_a_build_runs_with_fewer_collections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def recording_build(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.get_threshold())
        return publish.BuildReport(db_path=tmp_path / "kb.db")

    # Python's defaults, whatever the test run set (tests/conftest.py).
    suite_thresholds = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        monkeypatch.setattr(publish, "_build", recording_build)
        publish.build_database([], tmp_path / "kb.db")
        assert seen == [FEWER_COLLECTIONS]
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*suite_thresholds)
