"""What a build reads: the snapshot folder's manifest or paths given on the command line, as DocumentInputs."""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from kb.checksums import file_sha256
from kb.store.save import (
    DocumentInput,
)


class BuildError(Exception):
    """A build that cannot complete; the message names the input and the reason.

    ``document`` is the input that could not be read, when one is to blame.
    """

    def __init__(self, message: str, document: DocumentInput | None = None) -> None:
        super().__init__(message)
        self.document = document


SNAPSHOT_MANIFEST = "manifest.json"


def snapshot_inputs(snapshot: Path) -> list[DocumentInput]:
    """Every file of a snapshot folder, described by its ``manifest.json`` where it has one.

    The manifest lists ``{"path", "url", "source", "lang", "fetched_at", "format"}`` per file;
    files it does not list are imported as local files with their format detected.
    """
    if not snapshot.is_dir():
        raise BuildError(f"{snapshot}: snapshot folder not found")
    described: dict[str, dict] = {}
    manifest = snapshot / SNAPSHOT_MANIFEST
    if manifest.exists():
        try:
            entries = json.loads(manifest.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise BuildError(f"{manifest}: not valid JSON ({error})") from error
        for entry in entries:
            described[entry["path"]] = entry
    inputs = []
    for path in sorted(snapshot.rglob("*")):
        relative = path.relative_to(snapshot).as_posix()
        if not path.is_file() or relative == SNAPSHOT_MANIFEST or path.name.startswith(".") or path.name.lower() == "readme.md":
            continue
        entry = described.get(relative, {})
        inputs.append(
            DocumentInput(
                path=str(path),
                sha256=file_sha256(path),
                size=path.stat().st_size,
                source_id=entry.get("source", "local"),
                url=entry.get("url"),
                lang=entry.get("lang"),
                fetched_at=entry.get("fetched_at"),
                format=entry.get("format"),
            )
        )
    missing = sorted(set(described) - {Path(i.path).relative_to(snapshot).as_posix() for i in inputs})
    if missing:
        raise BuildError(f"{manifest}: lists files that are not in the snapshot: {', '.join(missing)}")
    return inputs


def path_inputs(paths: Iterable[Path], source_id: str = "local", lang: str | None = None, fmt: str | None = None) -> list[DocumentInput]:
    inputs = []
    for given in paths:
        if not given.exists():
            raise BuildError(f"{given}: no such file")
        files = sorted(p for p in given.rglob("*") if p.is_file()) if given.is_dir() else [given]
        for path in files:
            inputs.append(
                DocumentInput(
                    path=str(path), sha256=file_sha256(path), size=path.stat().st_size,
                    source_id=source_id, lang=lang, format=fmt,
                )
            )
    return inputs
