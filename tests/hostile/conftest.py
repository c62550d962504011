"""Fixtures of the hostile catalogue: a forking ``mtgkb`` runner and a small served database to keep intact."""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit import ROOT, Zygote

SEED = ROOT / "tests/fixtures/constructed/rulings-lethal-scheme.json"


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    server = Zygote()
    yield server
    server.close()


@pytest.fixture(scope="session")
def seeded_db(zygote: Zygote, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small published database (one constructed rulings file): what hostile runs must not touch."""
    folder = tmp_path_factory.mktemp("seed")
    outcome = zygote.run(["import", "--db", "kb.db", SEED], cwd=folder)
    assert outcome.code == 0, outcome.describe()
    return folder / "kb.db"


@pytest.fixture
def served(seeded_db: Path, tmp_path: Path) -> Path:
    """A copy of the seeded database in this test's folder."""
    target = tmp_path / "kb.db"
    shutil.copy2(seeded_db, target)
    return target
