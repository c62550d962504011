"""Where the commands look by default: the paths the README's commands use."""
from __future__ import annotations

from pathlib import Path

DEFAULT_DB = Path("data/kb.db")
DEFAULT_RAW = Path("data/raw")


def bundled_snapshot() -> Path:
    """The snapshot bundled with the source tree, found from wherever ``mtgkb build`` is run
    (relative to the working directory, a build run anywhere but the clone's top folder said
    "data/snapshot: snapshot folder not found"); ``data/snapshot`` where no source tree holds one."""
    beside_the_package = Path(__file__).resolve().parents[2] / "data" / "snapshot"
    return beside_the_package if beside_the_package.is_dir() else Path("data/snapshot")


DEFAULT_SNAPSHOT = bundled_snapshot()
