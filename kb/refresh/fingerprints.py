"""Whether a refresh's inputs are those the served file was built from: fingerprints of the
inputs (by their bytes, or by what a build keeps of them), of the code that builds, and of the
published file itself."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from kb.build.kept_content import RECORDS_OF, SCHEME, kept_digest
from kb.checksums import code_fingerprint
from kb.records import ParseError
from kb.store.save import DocumentInput
from scraper.rawstore import RawStore

# What a built file's rows depend on besides its documents: every part of ``kb`` a build or a
# refresh runs (not the site, which reads the file, nor the command line).
BUILD_CODE = (
    "kb.build", "kb.checksums", "kb.link", "kb.normalise", "kb.parse", "kb.records", "kb.refresh", "kb.store",
)


@lru_cache(maxsize=1)
def build_code_fingerprint() -> str:
    """``code_fingerprint`` of ``BUILD_CODE``: a refresh rebuilds a file published by other code
    even when no document changed (a fixed parser, a new column: an upgrade is published)."""
    return code_fingerprint(BUILD_CODE)


def inputs_fingerprint(inputs: list[DocumentInput]) -> list[list[str]]:
    """What a build reads, by content: (sha256, format, language) of every input.

    Not the URL: Scryfall publishes every bulk file under a new dated name, so the same bytes
    under a new URL are the same build, and rebuilding a million rulings to publish "+0 ~0 −0"
    is the cost to avoid."""
    return _fingerprint(inputs, lambda doc: doc.sha256)


def _fingerprint(inputs: list[DocumentInput], key: Callable[[DocumentInput], str]) -> list[list[str]]:
    return sorted([key(doc), doc.format or "", doc.lang or ""] for doc in inputs)


def kept_fingerprint(store: RawStore, inputs: list[DocumentInput]) -> list[list[str]]:
    """``inputs_fingerprint`` by what a build keeps: a bulk body by the digest of the records read
    out of it (``kb.build.kept_content``), every other document by its bytes.

    Each body is read once in its life for this: its digest is kept in the raw store beside it.
    A body the parser refuses counts by its bytes (the build reports it; see ``_fall_back``)."""
    return _fingerprint(inputs, lambda doc: _kept_key(store, doc))


def _kept_key(store: RawStore, doc: DocumentInput) -> str:
    if doc.format not in RECORDS_OF:
        return doc.sha256
    state_key = f"kept-digest:{doc.sha256}"
    known = store.get_state(state_key)
    # A digest kept by code that took it another way is taken again (once), so two bodies are
    # never compared by digests of two schemes.
    if known is not None and known.get("format") == doc.format and known.get("scheme") == SCHEME:
        return str(known["digest"])
    try:
        digest = kept_digest(doc.path, doc.format)
    except ParseError:
        digest = doc.sha256
    store.set_state(state_key, {"format": doc.format, "digest": digest, "scheme": SCHEME})
    return digest


# How much of each end of a database file its identity reads: the first page holds SQLite's file
# change counter and schema cookie, which every committed write changes.
IDENTITY_BYTES = 1 << 16


def file_identity(path: Path) -> list[int | str] | None:
    """What tells the file a refresh published from any other: its size and a digest of its first
    and last 64 KiB, not where it is (device and inode): a copy of it, restored by a CI cache or a
    backup, is the same file (each such run rebuilt everything and said nothing of why)."""
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(IDENTITY_BYTES)
            handle.seek(max(size - IDENTITY_BYTES, 0))
            tail = handle.read(IDENTITY_BYTES)
    except FileNotFoundError:
        return None
    return [size, hashlib.sha256(head + tail).hexdigest()]
