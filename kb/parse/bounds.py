"""Bounds on every input: regular files only, size, decompression, JSON nesting and string length, ZIP members.

A small hostile file must not cost gigabytes or hang: a gzip bomb, JSON nested a hundred
thousand deep, a FIFO or ``/dev/zero`` given as a path, a DOCX whose XML inflates to gigabytes.
Each bound raises ParseError with one line naming the file and the bound; the limits sit far
above anything real (Scryfall's all-cards bulk file inflates about 6× to ~2.3 GB, its records
nest 5 deep, its longest string is a few kilobytes; a release-notes DOCX holds a few MB).
"""
from __future__ import annotations

import gzip
import io
import os
import re
import stat
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from kb.records import ParseError

# A document parsed whole (CR text, a card page, a DOCX, an API response) is never this large.
MAX_WHOLE_FILE = 64 << 20
# Decompressed gzip: the largest bulk file is ~2.3 GB; ratio checked once past a first mebibyte.
MAX_INFLATED = 8 << 30
MAX_RATIO = 100
RATIO_GRACE = 1 << 20
# JSON: real records nest under 10 deep; one string (or one JSON Lines record) stays under this.
MAX_JSON_DEPTH = 64
MAX_RECORD = 16 << 20
# ZIP (DOCX): members' declared sizes bind what zipfile will inflate.
MAX_ZIP_MEMBERS = 5_000
MAX_ZIP_INFLATED = 256 << 20
MAX_ZIP_MEMBER_RATIO = 200
ZIP_MAGIC = b"PK\x03\x04"
GZIP_MAGIC = b"\x1f\x8b"


def shown(name: str | os.PathLike[str]) -> str:
    """A file name on one line: newlines and other control characters escaped, the rest as is."""
    text = os.fspath(name)
    return "".join(
        char if char.isprintable() or char == " " else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def check_regular_file(path: Path) -> os.stat_result:
    """The file's stat; ParseError for a FIFO, device, socket or directory (reading one can hang)."""
    try:
        info = path.stat()
    except OSError as error:
        raise ParseError(f"{shown(path)}: cannot read: {error.strerror or error}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
            else "a socket" if stat.S_ISSOCK(info.st_mode) else "a directory" if stat.S_ISDIR(info.st_mode) else "not a file"
        )
        raise ParseError(f"{shown(path)}: {kind}, not a regular file; only regular files are read")
    return info


def read_whole(path: Path, limit: int = MAX_WHOLE_FILE) -> bytes:
    """A regular file's bytes, refusing files larger than ``limit`` before reading them."""
    info = check_regular_file(path)
    if info.st_size > limit:
        raise ParseError(
            f"{shown(path)}: {info.st_size:,} bytes is more than the {limit >> 20} MiB a document of this format may have"
        )
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise ParseError(f"{shown(path)}: cannot read: {error.strerror or error}") from None
    if len(data) > limit:  # grew while we read it
        raise ParseError(f"{shown(path)}: more than {limit >> 20} MiB; refused")
    return data


class _Inflating(io.RawIOBase):
    """A gzip stream's decompressed bytes, stopped when they exceed the size or ratio bounds."""

    def __init__(self, raw: BinaryIO, name: str) -> None:
        self._counter = _Counting(raw)
        # Unbuffered, so the count is what the inflater consumed (8 KiB at a time), not read-ahead.
        self._gzip = gzip.GzipFile(fileobj=self._counter, mode="rb")
        self._name = name
        self.inflated = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            chunk = self._gzip.read(len(buffer))
        except (OSError, EOFError, zlib.error) as error:
            # Where in the file: a small file is inflated by one read, which fails at its end
            # ("after 0 bytes" named the start of the content, not where the damage was).
            raise ParseError(
                f"{self._name}: damaged gzip data by byte {self._counter.count:,} of the file"
                f" ({self.inflated:,} bytes of content read before): {error}"
            ) from None
        count = len(chunk)
        buffer[:count] = chunk
        self.inflated += count
        if self.inflated > MAX_INFLATED:
            raise ParseError(f"{self._name}: gzip inflates past {MAX_INFLATED >> 30} GiB; refused as a decompression bomb")
        if self.inflated > RATIO_GRACE and self.inflated > MAX_RATIO * max(self._counter.count, 1):
            raise ParseError(
                f"{self._name}: gzip inflates more than {MAX_RATIO}× ({self._counter.count:,} bytes to "
                f"{self.inflated:,} so far); refused as a decompression bomb"
            )
        return count


class _Counting(io.RawIOBase):
    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._raw.read(len(buffer))
        buffer[: len(chunk)] = chunk
        self.count += len(chunk)
        return len(chunk)


# A complete JSON string (escapes included); the body of one up to its closing quote.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}\0\\')


class _JSONBounds(io.RawIOBase):
    """Passes JSON (an array or JSON Lines) through unchanged, refusing nesting deeper than
    MAX_JSON_DEPTH and strings (or, for JSON Lines, lines) longer than MAX_RECORD.

    Parsers that build prefixes (ijson) cost memory in the square of the depth, and one string
    of gigabytes is held whole: both are refused here, before the parser sees them. The scan
    is linear: regular expressions skip strings, and only brackets are counted one by one.

    JSON Lines are bounded line by line (``_scan_lines``): each line is one record, read whole
    by the parser, so its length bounds its strings, and a line with no more opening brackets
    than MAX_JSON_DEPTH (those in its strings counted too) cannot nest deeper. Only a line with
    more is scanned as above, from its first byte.
    """

    def __init__(self, inner: BinaryIO, name: str, lines: bool = False) -> None:
        self._inner = inner
        self._name = name
        self._lines = lines  # JSON Lines: one line is one record, bounded like a string
        self._depth = 0
        self._in_string = False
        self._escaped = False  # the previous chunk ended inside a string on a lone backslash
        self._string = 0  # length of the string in progress
        # JSON Lines: the line in progress, its length, its opening brackets (in strings too),
        # its bytes held while it may still need the exact scan, and whether it is getting it.
        self._record = 0
        self._opens = 0
        self._held: list[bytes] = []
        self._exact = False
        self.offset = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._inner.read(len(buffer))
        count = len(chunk)
        buffer[:count] = chunk
        if count:
            self._scan(chunk)
        self.offset += count
        return count

    def _string_body(self, chunk: bytes, start: int) -> int | None:
        """Where the string in progress ends in ``chunk`` (after its quote), or None if it goes on."""
        if self._escaped:
            if start >= len(chunk):
                return None
            start += 1
            self._escaped = False
        end = _STRING_BODY.match(chunk, start).end()  # type: ignore[union-attr]
        if end < len(chunk) and chunk[end] == 0x22:
            self._string += end - start
            self._check_string()
            self._in_string, self._string = False, 0
            return end + 1
        # The chunk ends inside the string, maybe on a backslash whose escaped byte comes next.
        self._escaped = end < len(chunk)
        self._string += len(chunk) - start
        self._check_string()
        return None

    def _check_string(self) -> None:
        if self._string > MAX_RECORD:
            raise ParseError(f"{self._name}: a JSON string longer than {MAX_RECORD >> 20} MiB near byte {self.offset:,}; refused")

    def _scan(self, chunk: bytes) -> None:
        if self._lines:
            self._scan_lines(chunk)
        else:
            self._scan_exactly(chunk)

    def _scan_lines(self, chunk: bytes) -> None:
        """A chunk of JSON Lines: each line's length and opening brackets counted (C counts over
        the chunk, where walking a real Scryfall printing's ~600 strings cost 30 % of reading
        it); a line with more than MAX_JSON_DEPTH of them is scanned exactly, from its first byte."""
        start, size = 0, len(chunk)
        while start <= size:
            newline = chunk.find(b"\n", start)
            end = size if newline < 0 else newline
            self._record += end - start
            if self._record > MAX_RECORD:
                raise ParseError(
                    f"{self._name}: a JSON record longer than {MAX_RECORD >> 20} MiB near byte {self.offset:,}; refused"
                )
            if self._exact:
                self._scan_exactly(chunk[start:end])
            else:
                self._opens += chunk.count(b"[", start, end) + chunk.count(b"{", start, end)
                if self._opens > MAX_JSON_DEPTH:
                    # Perhaps deeper than allowed: the exact scan, of the whole line so far.
                    self._exact = True
                    held, self._held = b"".join([*self._held, chunk[start:end]]), []
                    self._scan_exactly(held)
                elif newline < 0 and end > start:
                    self._held.append(chunk[start:end])  # the line goes on in the next chunk
            if newline < 0:
                return
            # A newline: the next record starts.
            self._record = self._opens = 0
            self._held, self._exact = [], False
            self._depth, self._in_string, self._escaped, self._string = 0, False, False, 0
            start = newline + 1

    def _scan_exactly(self, chunk: bytes) -> None:
        if self._escaped or chunk.endswith(b"\\"):
            self._scan_escaped(chunk)
            return
        # Escape pairs blanked (same length): every quote left opens or closes a string, and
        # splitting at quotes finds the strings, where the pattern cost twenty times the
        # inflating. A blank or backslash outside the strings found (not JSON) is scanned as before.
        plain = chunk.replace(b"\\\\", b"\0\0").replace(b'\\"', b"\0\0") if b"\\" in chunk else chunk
        if not self._scan_plain(plain):
            self._scan_escaped(chunk)

    def _scan_escaped(self, chunk: bytes) -> None:
        """Any chunk: a pattern skips every string, escaped quotes included."""
        start = 0
        if self._in_string:
            resumed = self._string_body(chunk, 0)
            if resumed is None:
                return
            start = resumed
        outside = _JSON_STRING.sub(b"", chunk[start:] if start else chunk)
        quote = outside.find(b'"')
        if quote >= 0:
            # An unmatched quote opens a string that goes on into the next chunk.
            body_start = len(chunk) - (len(outside) - quote - 1)
            self._in_string, self._string = True, 0
            self._string_body(chunk, body_start)
            outside = outside[:quote]
        self._outside(outside)

    def _scan_plain(self, chunk: bytes) -> bool:
        """``_scan`` of a chunk whose escape pairs are blanked; False (nothing done) when the
        bytes outside its strings hold a blank or a backslash.

        Only quotes, brackets, blanks and backslashes are looked at (the rest deleted by one
        translate), and two quotes side by side then dropped: they close and open nothing that
        matters here (an empty string, or two strings with nothing but text between them), and
        every later quote keeps its parity. A real MTGJSON card's ~600 strings become a few
        pieces instead of ~1,200 (an AllPrintings-shaped file scanned in 27 µs a card, not 36)."""
        closing = chunk.find(b'"') if self._in_string else -1
        if self._in_string and closing < 0:
            self._string += len(chunk)
            self._check_string()
            return True
        structure = chunk.translate(None, _NOT_STRUCTURE)
        if self._in_string:  # after the end of the string in progress
            structure = structure[structure.index(b'"') + 1 :]
        # Outside, string, outside, …
        pieces = structure.replace(b'""', b"").split(b'"')
        outside = b"".join(pieces[0::2])
        if b"\0" in outside or b"\\" in outside:
            return False
        if self._in_string:
            self._string += closing
            self._check_string()
            self._in_string, self._string = False, 0
        if len(pieces) % 2 == 0:  # ends inside a string
            self._in_string, self._string = True, len(chunk) - chunk.rfind(b'"') - 1
            self._check_string()
        self._outside(outside)
        return True

    def _outside(self, outside: bytes) -> None:
        """Nesting of a chunk's bytes outside strings."""
        depth = self._depth
        for bracket in outside.translate(None, _NOT_BRACKETS):
            depth += 1 if bracket in (0x5B, 0x7B) else -1
            if depth > MAX_JSON_DEPTH:
                raise ParseError(
                    f"{self._name}: JSON nested deeper than {MAX_JSON_DEPTH} levels near byte {self.offset:,}; refused"
                )
        self._depth = depth


def bounded_json_stream(handle: BinaryIO, name: str, lines_if_object: bool = False) -> BinaryIO:
    """``handle`` (gzip or not) as a bounded stream of plain JSON bytes.

    With ``lines_if_object``, a stream whose first value is an object is JSON Lines (as Scryfall
    bulk files are) and each line is bounded like a string.
    """
    head = handle.read(2)
    handle.seek(0)
    source = io.BufferedReader(_Inflating(handle, name), 1 << 16) if head == GZIP_MAGIC else io.BufferedReader(_Counting(handle), 1 << 16)
    lines = lines_if_object and source.peek(64).lstrip()[:1] == b"{"
    return io.BufferedReader(_JSONBounds(source, name, lines), 1 << 16)


def check_json_depth(data: bytes, name: str) -> None:
    """The same bounds for a JSON document read whole."""
    scanner = _JSONBounds(io.BytesIO(data), name)
    buffer = bytearray(1 << 20)
    while scanner.readinto(buffer):
        pass


def check_zip(data: bytes, name: str) -> None:
    """A ZIP (DOCX) whose members would inflate past the bounds is refused from its directory."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zlib.error, ValueError) as error:
        raise ParseError(f"{name}: damaged ZIP archive: {error}") from None
    if len(members) > MAX_ZIP_MEMBERS:
        raise ParseError(f"{name}: a ZIP of {len(members):,} members; refused (at most {MAX_ZIP_MEMBERS:,})")
    total = sum(member.file_size for member in members)
    if total > MAX_ZIP_INFLATED:
        raise ParseError(f"{name}: ZIP members inflate to {total:,} bytes; refused as a decompression bomb")
    for member in members:
        if member.file_size > RATIO_GRACE and member.file_size > MAX_ZIP_MEMBER_RATIO * max(member.compress_size, 1):
            raise ParseError(
                f"{name}: ZIP member {shown(member.filename)} inflates {member.compress_size:,} bytes to "
                f"{member.file_size:,}; refused as a decompression bomb"
            )


def gunzip_problem(data: bytes) -> str | None:
    """Why a whole gzip file cannot be read (bad CRC, truncated), or None when it can; bounded."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    inflated = 0
    try:
        pending = data
        while pending:
            out = inflater.decompress(pending, 1 << 20)
            inflated += len(out)
            if inflated > MAX_INFLATED or inflated > RATIO_GRACE + MAX_RATIO * len(data):
                return "it inflates like a decompression bomb"
            pending = inflater.unconsumed_tail
            if inflater.eof:
                break
        if not inflater.eof:
            return "the gzip stream is truncated"
    except zlib.error as error:
        return f"damaged gzip data ({error})"
    return None
