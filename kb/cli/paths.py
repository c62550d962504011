"""Where the commands look by default: the paths the README's commands use."""
from __future__ import annotations

from pathlib import Path

DEFAULT_DB = Path("data/kb.db")
DEFAULT_RAW = Path("data/raw")
DEFAULT_SNAPSHOT = Path("data/snapshot")
