"""sha256 of files: one implementation for build inputs, refresh runs and the served file's inspect data."""
from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path | str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
