"""The JSON bounds' scan of chunks without an escaped quote (split at quotes) against the
pattern scan it stands in for: the same state after every chunk, the same refusals."""
from __future__ import annotations

import gzip
import io
import random
from pathlib import Path

import pytest

from kb.parse import bounds
from kb.records import ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures"


class PatternOnly(bounds._JSONBounds):
    """The scan as it was: the string pattern on every chunk."""

    def _scan(self, chunk: bytes) -> None:
        self._scan_escaped(chunk)


def state(scanner: bounds._JSONBounds) -> tuple:
    return (scanner._depth, scanner._in_string, scanner._escaped, scanner._string, scanner._line)


def scan_both(data: bytes, sizes: list[int], lines: bool) -> None:
    fast, slow = bounds._JSONBounds(io.BytesIO(), "x", lines), PatternOnly(io.BytesIO(), "x", lines)
    position = 0
    for size in sizes:
        chunk = data[position : position + size]
        position += size
        outcomes = []
        for scanner in (fast, slow):
            try:
                scanner._scan(chunk)
                outcomes.append(state(scanner))
            except ParseError as error:
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1], (chunk[:80], outcomes)
        if isinstance(outcomes[0], str):
            return


def real_json() -> list[bytes]:
    found = []
    for path in sorted((FIXTURES / "scryfall").rglob("*")):
        if path.suffix == ".json":
            found.append(path.read_bytes())
        elif path.name.endswith(".jsonl.gz"):
            found.append(gzip.decompress(path.read_bytes()))
    found.append((FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes())
    return found


# Constructed: escapes of every kind at chunk edges, unclosed strings, deep nesting, long lines.
CONSTRUCTED = [
    b'{"a": "x\\"y", "b": ["\\\\", "\\\\\\"", "q"]}\n{"c": "\\u00e9\\n"}\n',
    b'[' * 70 + b']' * 70,
    b'{"a": "' + b"z" * 5000 + b'"}\n' * 3,
    b'{"a": "unclosed',
    b'"\\\\"' * 50 + b'["\\"[[[["]',
    # Not JSON: backslashes and blanks outside strings, a quote escaped outside one.
    b'a\\"b"c"\\\\"[[[' + b'"x\\\\\\"y"' * 20,
    b'{"a": "\x00"}\x00[[["\\\\\\\\"]]]\n' * 10,
    b'\\\\\\"' * 30 + b'{"k": "\\\\\\\\"}' * 30,
]


@pytest.mark.parametrize("lines", [False, True])
def test_plain_chunks_scan_as_the_pattern_scans_them(lines: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_JSON_DEPTH", 64)
    rng = random.Random(15)
    for data in real_json() + CONSTRUCTED:
        for _ in range(6):
            sizes = [rng.choice((1, 2, 3, 7, 64, 500, 4096, 65536)) for _ in range(len(data) // 500 + 8)]
            sizes.append(len(data))  # the rest in one chunk
            scan_both(data, sizes, lines)


def test_plain_scan_refuses_what_the_pattern_scan_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bounds made small so that constructed inputs reach them.
    monkeypatch.setattr(bounds, "MAX_RECORD", 100)
    monkeypatch.setattr(bounds, "MAX_JSON_DEPTH", 5)
    rng = random.Random(16)
    for data in (b'{"a": "' + b"y" * 300 + b'"}', b"[[[[[[[]]]]]]]", b'{"a": 1, ' + b'"b": 2, ' * 40 + b"}\n", *CONSTRUCTED):
        for lines in (False, True):
            for _ in range(30):
                scan_both(data, [rng.choice((1, 5, 33, 200, 65536)) for _ in range(len(data) // 5 + 2)] + [len(data)], lines)
