"""Checks of a downloaded body before the raw store keeps it: complete JSON, gzip, JSON Lines,
the page markers a document always has, a published checksum. Each raises ``VerifyError`` or
returns None when the body is usable.
"""
from __future__ import annotations

import codecs
import gzip
import hashlib
import json
import zlib
from collections.abc import Callable
from pathlib import Path

import ijson

CHUNK = 1 << 20


class VerifyError(ValueError):
    """A downloaded body that is not what it claims to be (truncated, corrupt, wrong kind).

    ``rejected_sha256``: the body's digest, once the raw store has kept it under ``rejected/``."""

    rejected_sha256: str | None = None


Verifier = Callable[[Path], None]


def verify_json(path: Path) -> None:
    """The file is one complete JSON document (streamed with ijson: bulk files are GBs)."""
    try:
        with path.open("rb") as handle:
            for _ in ijson.parse(handle):
                pass
    except (ijson.JSONError, ijson.IncompleteJSONError, UnicodeDecodeError) as exc:
        # yajl's message goes on with a picture of the text and a caret ("(right here) ------^"):
        # its first line is the reason, on the one line an error is given.
        raise VerifyError(f"not valid JSON: {str(exc).strip().splitlines()[0]}") from None


def verify_gzip(path: Path) -> None:
    """The gzip stream is complete and its CRC checks out (reads it through, in chunks)."""
    try:
        with gzip.open(path, "rb") as handle:
            while handle.read(CHUNK):
                pass
    except (OSError, EOFError, zlib.error) as exc:
        raise VerifyError(f"gzip stream damaged: {exc}") from None


def verify_jsonl_gz(path: Path) -> None:
    """Gzipped JSON Lines: the stream is intact and its first record parses."""
    verify_gzip(path)
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                try:
                    json.loads(line)
                except ValueError as exc:
                    raise VerifyError(f"first JSON Lines record does not parse: {exc}") from None
                return
    raise VerifyError("gzipped JSON Lines file has no records")


def verify_json_or_jsonl_gz(path: Path) -> None:
    """Scryfall bulk files come in both shapes: sniff the gzip magic bytes to tell which."""
    with path.open("rb") as handle:
        magic = handle.read(2)
    if magic == b"\x1f\x8b":
        verify_jsonl_gz(path)
    else:
        verify_json(path)


def decode_text(data: bytes) -> str:
    """Decode a text document by its BOM, else UTF-8, else Windows-1252 (CR files use all)."""
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_BE, "utf-16"),
        (codecs.BOM_UTF16_LE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # cp1252 leaves five bytes undefined; latin-1 accepts anything, so text always decodes.
        return data.decode("cp1252", errors="replace")


def text_verifier(*markers: str) -> Verifier:
    """A check that the file decodes as text and contains at least one of ``markers``."""
    lowered = [m.lower() for m in markers]

    def verify(path: Path) -> None:
        data = path.read_bytes()
        try:
            text = decode_text(data)
        except UnicodeDecodeError as error:
            # A file with a byte-order mark is that encoding throughout: one cut inside a character
            # (a download stopped short) crashed the fetcher, which named another URL. (The codec
            # counts from after the mark.)
            at = error.start + len(data) - len(error.object)
            raise VerifyError(
                f"not valid {error.encoding.removesuffix('-sig')} text at byte {at} of {len(data)}"
                " (cut short inside a character?)"
            ) from None
        if "\x00" in text:
            raise VerifyError("binary content where text was expected")
        if lowered and not any(m in text.lower() for m in lowered):
            raise VerifyError(f"expected marker not found ({' or '.join(map(repr, markers))})")

    return verify


def sha256_verifier(expected_hex: str, then: Verifier | None = None) -> Verifier:
    """A check that the file's sha256 is ``expected_hex`` (e.g. MTGJSON's ``.sha256``)."""

    def verify(path: Path) -> None:
        actual = file_sha256(path)
        if actual != expected_hex.lower():
            raise VerifyError(f"sha256 {actual} does not match the published {expected_hex}")
        if then is not None:
            then(path)

    return verify


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
