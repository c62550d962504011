"""Stream the objects of a bulk JSON file one at a time: a JSON array or JSON Lines, gzipped or not.

Scryfall's bulk files run to gigabytes (all_cards ~2.4 GB): never read whole. Errors name the
record number and the raw byte offset where the file broke.
"""
from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

import ijson
import orjson

from kb.parse.bounds import GZIP_MAGIC
from kb.records import ParseError


class _CountingReader(io.RawIOBase):
    """Reads ``prefix`` then ``stream``, counting bytes so errors can name an offset."""

    def __init__(self, prefix: bytes, stream: BinaryIO) -> None:
        self._prefix = prefix
        self._stream = stream
        self.offset = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        if self._prefix:
            count = min(len(view), len(self._prefix))
            view[:count] = self._prefix[:count]
            self._prefix = self._prefix[count:]
        else:
            chunk = self._stream.read(len(view))
            count = len(chunk)
            view[:count] = chunk
        self.offset += count
        return count


def _decoded_stream(stream: BinaryIO) -> tuple[BinaryIO, _CountingReader]:
    """``stream`` gunzipped when it starts with the gzip magic; the counter sees the raw bytes."""
    head = stream.read(2)
    counter = _CountingReader(head, stream)
    buffered = io.BufferedReader(counter, buffer_size=1 << 16)
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=buffered, mode="rb"), counter  # type: ignore[return-value]
    return buffered, counter


def _first_byte(reader: Any, name: str) -> bytes:
    while True:
        try:
            peeked = reader.peek(1)
        except (OSError, EOFError) as error:
            raise ParseError(f"{name}: unreadable gzip stream at the start: {error}") from None
        if not peeked:
            return b""
        stripped = peeked.lstrip()
        if stripped:
            return stripped[:1]
        reader.read(len(peeked))


def iter_bulk_objects(stream: BinaryIO, name: str = "<stream>") -> Iterator[dict[str, Any]]:
    """Every top-level object of a bulk file, streamed: gzip or not, JSON array or JSON Lines.

    Raises ParseError naming the record number and raw byte offset where the file broke.
    """
    reader, counter = _decoded_stream(stream)
    first = _first_byte(reader, name)
    if first == b"[":
        yield from _iter_array(reader, counter, name)
    elif first == b"{":
        yield from _iter_lines(reader, counter, name)
    elif first == b"":
        return
    else:
        raise ParseError(f"{name}: a bulk file starts with '[' or '{{', found {first!r}")


def _iter_array(reader: BinaryIO, counter: _CountingReader, name: str) -> Iterator[dict[str, Any]]:
    number = 0
    try:
        for item in ijson.items(reader, "item", use_float=True):
            number += 1  # the count the error message reports
            yield item
    except (ijson.JSONError, ijson.IncompleteJSONError, EOFError, OSError, zlib.error) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ParseError(
            f"{name}: malformed or truncated JSON array after record {number} (near byte offset {counter.offset}): {reason}"
        ) from None


def _iter_lines(reader: BinaryIO, counter: _CountingReader, name: str) -> Iterator[dict[str, Any]]:
    number = 0
    line_number = 0
    try:
        for line_number, line in enumerate(reader, 1):
            if not line.strip():
                continue
            number += 1
            try:
                yield _loads(line)
            except ValueError as error:
                raise ParseError(
                    f"{name}: record {number} (line {line_number}, near byte offset {counter.offset}) "
                    f"is not valid JSON: {error}"
                ) from None
    except (EOFError, OSError, zlib.error) as error:
        raise ParseError(
            f"{name}: stream broke after record {number} (line {line_number}, near byte offset {counter.offset}): {error}"
        ) from None


def _loads(line: bytes) -> Any:
    """One JSON Lines record as ``json.loads`` reads it, in a third of its time: orjson, and
    ``json.loads`` for whatever orjson refuses (NaN, huge numbers, lone surrogates, UTF-16: the
    same result or the same error as always) or reads differently (integers past 64 bits
    come out as floats)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
    return value if _as_json_reads_it(value) else json.loads(line)


# A whole float this large is an integer past 64 bits that orjson turned into a float.
_INTEGER_LIMIT = float(2**63)


def _as_json_reads_it(value: Any) -> bool:
    kind = type(value)
    if kind is dict:
        for item in value.values():
            if type(item) in _SCALARS or item is None:
                continue
            if not _as_json_reads_it(item):
                return False
        return True
    if kind is list:
        return all(type(item) in _SCALARS or _as_json_reads_it(item) for item in value)
    if kind is float:
        return not (abs(value) >= _INTEGER_LIMIT and value.is_integer())
    return True


_SCALARS = frozenset((str, int, bool))
