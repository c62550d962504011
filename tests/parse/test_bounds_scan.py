"""The JSON bounds' scan of chunks without an escaped quote (split at quotes) against the
pattern scan it stands in for: the same state after every chunk, the same refusals. And JSON
Lines, bounded line by line, against each line scanned whole by that exact scan."""
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
    return (scanner._depth, scanner._in_string, scanner._escaped, scanner._string)


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


def test_plain_chunks_scan_as_the_pattern_scans_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_JSON_DEPTH", 64)
    rng = random.Random(15)
    for data in real_json() + CONSTRUCTED:
        for _ in range(6):
            sizes = [rng.choice((1, 2, 3, 7, 64, 500, 4096, 65536)) for _ in range(len(data) // 500 + 8)]
            sizes.append(len(data))  # the rest in one chunk
            scan_both(data, sizes, lines=False)


SMALL_BOUNDS_INPUTS = (b'{"a": "' + b"y" * 300 + b'"}', b"[[[[[[[]]]]]]]", b'{"a": 1, ' + b'"b": 2, ' * 40 + b"}\n", *CONSTRUCTED)


def test_plain_scan_refuses_what_the_pattern_scan_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bounds made small so that constructed inputs reach them.
    monkeypatch.setattr(bounds, "MAX_RECORD", 100)
    monkeypatch.setattr(bounds, "MAX_JSON_DEPTH", 5)
    rng = random.Random(16)
    for data in SMALL_BOUNDS_INPUTS:
        for _ in range(30):
            scan_both(data, [rng.choice((1, 5, 33, 200, 65536)) for _ in range(len(data) // 5 + 2)] + [len(data)], False)


def refused_by_lines(data: bytes, sizes: list[int]) -> bool:
    """JSON Lines bounds, fed ``data`` in chunks of ``sizes`` (the rest in one)."""
    scanner = bounds._JSONBounds(io.BytesIO(), "x", lines=True)
    position = 0
    try:
        for size in [*sizes, len(data)]:
            scanner._scan(data[position : position + size])
            position += size
    except ParseError:
        return True
    return False


def refused_line_by_line(data: bytes) -> bool:
    """The rule JSON Lines are held to: each line at most MAX_RECORD long, and within the
    bounds when the exact scan reads it whole, on its own."""
    for line in data.split(b"\n"):
        if len(line) > bounds.MAX_RECORD:
            return True
        try:
            PatternOnly(io.BytesIO(), "x")._scan(line)
        except ParseError:
            return True
    return False


def constructed_lines(rng: random.Random) -> bytes:
    """Records nesting up to eight deep, with brackets, quotes and backslashes in their strings."""
    def value(depth: int) -> str:
        kind = rng.random()
        if depth < 8 and kind < 0.3:
            return "[" + ", ".join(value(depth + 1) for _ in range(rng.randint(0, 3))) + "]"
        if depth < 8 and kind < 0.6:
            return "{" + ", ".join(f'"k{i}": {value(depth + 1)}' for i in range(rng.randint(0, 3))) + "}"
        return '"' + "".join(rng.choice(['[', '{', ']', 'x', '\\"', '\\\\', 'é']) for _ in range(rng.randint(0, 12))) + '"'
    return "".join("{" + f'"a": {value(1)}' + "}\n" for _ in range(rng.randint(1, 6))).encode("utf-8")


def test_json_lines_are_bounded_as_each_line_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_RECORD", 100)
    monkeypatch.setattr(bounds, "MAX_JSON_DEPTH", 5)
    rng = random.Random(17)
    inputs = [*SMALL_BOUNDS_INPUTS, *(constructed_lines(rng) for _ in range(300))]
    verdicts = set()
    for data in inputs:
        expected = refused_line_by_line(data)
        verdicts.add(expected)
        for _ in range(20):
            sizes = [rng.choice((1, 2, 5, 33, 200)) for _ in range(len(data) // 5 + 2)]
            assert refused_by_lines(data, sizes) == expected, (data[:120], sizes[:10])
    assert verdicts == {True, False}  # the inputs reach both answers


def test_real_json_lines_pass_their_bounds_in_any_chunks() -> None:
    rng = random.Random(18)
    files = [data for data in real_json() if data.lstrip()[:1] == b"{" and data.count(b"\n") > 1]
    assert files
    for data in files:
        for _ in range(6):
            assert not refused_by_lines(data, [rng.choice((1, 7, 500, 4096, 65536)) for _ in range(len(data) // 500 + 8)])


def test_a_json_line_with_brackets_in_its_strings_is_read_and_a_deep_one_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_JSON_DEPTH", 5)
    in_strings = b'{"a": "[[[[[[[[", "b": ["{{{{{{"]}\n'
    deep = b'{"a": [[[[[["x"]]]]]]}\n'
    for size in (1, 3, 7, 64):
        assert not refused_by_lines(in_strings * 3, [size] * (3 * len(in_strings) // size))
        assert refused_by_lines(in_strings + deep, [size] * (len(in_strings + deep) // size))
    with pytest.raises(ParseError, match="nested deeper than 5 levels"):
        bounds._JSONBounds(io.BytesIO(), "x", lines=True)._scan(in_strings + deep)


def test_a_json_line_longer_than_a_record_is_refused_whatever_its_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each string within the bound, the line past it: the parser would hold the whole line.
    monkeypatch.setattr(bounds, "MAX_RECORD", 100)
    line = b"{" + b", ".join(b'"k%d": "%s"' % (i, b"y" * 40) for i in range(5)) + b"}\n"
    with pytest.raises(ParseError, match="a JSON record longer than"):
        bounds._JSONBounds(io.BytesIO(), "x", lines=True)._scan(line)
