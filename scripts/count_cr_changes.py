#!/usr/bin/env python3
"""Count the changes between two English CR text files, independently of kb.link.cr_diff.

A deliberately different, simple method, so that the test of ``kb.link.cr_diff.diff_versions`` can
check its figures against something that shares none of its code (not even the parser):

- decoding: BOM sniffing (UTF-8, UTF-16), else UTF-8, else Windows-1252; ``str.splitlines``;
- the body is everything between the second "1. Game Concepts" line (the first is in the
  table of contents) and the "Glossary" line after it; a line starting with a number
  ("100.", "100.1.", "100.1a", "119.1d.") opens an entry, every other non-blank line is added
  to the entry's text; whitespace runs are collapsed;
- the glossary is blank-line separated blocks (first line the term) up to "Credits";
- comparison, by number: same number and same text is unchanged; then old and new entries left
  over are paired when their texts are identical once every "NNN.N[x]" rule number in them is
  replaced by "#" (a renumbering, or a change of cited numbers only when the number is the same);
  then what is left under the same number is "changed"; the rest is "removed" / "added".
  There is no similarity matching: a rule renumbered *and* edited counts as one removal plus one
  addition.

Usage: scripts/count_cr_changes.py OLD.txt NEW.txt  (prints one "kind: count" line per kind)
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

# "901.4.All" (2025-02-07) lost its space: a capital right after the period still opens an entry.
ENTRY_LINE = re.compile(r"^(\d{1,3}(?:\.\d+[a-z]?)?)(?:\.?\s+|\.(?=[A-Z]))(\S.*)$")
RULE_NUMBER = re.compile(r"\d{3}\.\d+[a-z]?")


def decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252")


def read_cr(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(number → text, glossary term → definition) of one CR file."""
    lines = decode(path.read_bytes()).splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "1. Game Concepts"]
    start = starts[1]
    glossary_at = next(i for i in range(start, len(lines)) if lines[i].strip() == "Glossary")
    credits_at = next(i for i in range(glossary_at, len(lines)) if lines[i].strip() == "Credits")
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[start:glossary_at]:
        if not line.strip():
            continue
        match = ENTRY_LINE.match(line)
        if match:
            current = entries.setdefault(match.group(1), [])
            current.append(match.group(2))
        elif current is not None:
            current.append(line)
    glossary: dict[str, str] = {}
    block: list[str] = []
    for line in [*lines[glossary_at + 1 : credits_at], ""]:
        if line.strip():
            block.append(line.strip())
        elif block:
            glossary[block[0]] = " ".join(block[1:])
            block = []
    rules = {number: " ".join(" ".join(parts).split()) for number, parts in entries.items()}
    return rules, {term: " ".join(text.split()) for term, text in glossary.items()}


def compare(old: dict[str, str], new: dict[str, str]) -> dict[str, int]:
    counts = {"added": 0, "removed": 0, "changed": 0, "renumbered": 0, "numbers-only": 0}
    left_old = [n for n in old if new.get(n) != old[n]]
    left_new = {n for n in new if old.get(n) != new[n]}
    by_masked: dict[str, list[str]] = defaultdict(list)
    for number in new:
        if number in left_new:
            by_masked[RULE_NUMBER.sub("#", new[number])].append(number)
    unpaired_old = []
    for number in left_old:
        candidates = by_masked.get(RULE_NUMBER.sub("#", old[number]), [])
        # Prefer the same number (a cited number changed), else the first in document order.
        target = number if number in candidates else (candidates[0] if candidates else None)
        if target is None:
            unpaired_old.append(number)
            continue
        candidates.remove(target)
        left_new.discard(target)
        counts["numbers-only" if target == number else "renumbered"] += 1
    for number in unpaired_old:
        if number in left_new:
            left_new.discard(number)
            counts["changed"] += 1
        else:
            counts["removed"] += 1
    counts["added"] = len(left_new)
    return counts


def compare_glossary(old: dict[str, str], new: dict[str, str]) -> dict[str, int]:
    return {
        "glossary-added": len(new.keys() - old.keys()),
        "glossary-removed": len(old.keys() - new.keys()),
        "glossary-changed": sum(1 for term in old.keys() & new.keys() if old[term] != new[term]),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    old_rules, old_glossary = read_cr(Path(argv[1]))
    new_rules, new_glossary = read_cr(Path(argv[2]))
    print(f"entries: {len(old_rules)} -> {len(new_rules)}")
    for kind, count in {**compare(old_rules, new_rules), **compare_glossary(old_glossary, new_glossary)}.items():
        print(f"{kind}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
