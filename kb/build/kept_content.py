"""What a build keeps of a bulk document, as one digest: two bodies with the same digest build the same database.

Scryfall regenerates its card bulk files every 12 hours with each printing's prices, ranks and
image states in them, and MTGJSON rebuilds AllPrintings every day with its build date in it: their
bytes change on every fetch while nothing the knowledge base keeps of them has. A refresh that keyed
"nothing changed" on the bytes rebuilt the whole database twice a day to publish no change. The
digest is taken over the records the parser reads out of the body, the same records the build
saves, so only a change to those counts.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import orjson

from kb.parse.bounds import bounded_json_stream, shown
from kb.records import ParseError


def _bulk_rulings(handle: BinaryIO, name: str) -> Iterator[Any]:
    from kb.parse.rulings.scryfall import iter_bulk_rulings

    return iter_bulk_rulings(handle, name)


def _bulk_cards(handle: BinaryIO, name: str) -> Iterator[Any]:
    from kb.parse.rulings.scryfall import iter_bulk_card_names

    return iter_bulk_card_names(handle, name)


def _mtgjson(handle: BinaryIO, name: str) -> Iterator[Any]:
    from kb.parse.rulings.mtgjson import iter_cards

    # Each set's name and day, read after its cards, are kept too (the sets table). The day
    # the file was made (meta.date, documents.made_on) is not: it is new every day, and a served
    # file kept because its records are the same keeps its older day, still the day of its wording.
    set_fields: dict[str, dict[str, str]] = {}
    yield from iter_cards(handle, name, set_fields)
    yield ("sets", sorted(set_fields.items()))


# The streamed formats (kb.build.load.STREAMING_SAVERS) and the records each is saved from.
RECORDS_OF: dict[str, Callable[[BinaryIO, str], Iterator[Any]]] = {
    "scryfall-bulk-rulings": _bulk_rulings,
    "scryfall-bulk-cards": _bulk_cards,
    "mtgjson": _mtgjson,
}

# What the records are told they are read from (see ``kept_digest``).
LABEL = "<bulk body>"

# Records hashed per update: one call per record was a fifth of the digest's time.
BATCH = 2_000

# Which canonical form the digests are taken over (``canonical``): a digest kept beside a body
# (kb.refresh.inputs) counts only if it was taken the same way.
SCHEME = 2


def canonical(record: Any) -> bytes:
    """A record's canonical form: its class name and its fields as JSON, every field by name in
    declaration order, nested records alike (orjson writes dataclasses, lists and tuples in C:
    ``repr`` took 130–150 µs an MTGJSON card and its foreign printings, this ~21).

    A record orjson cannot write (a lone surrogate, an integer past 64 bits, a type it does not
    know) is written by its ``repr`` instead, after a marker no class name has. orjson writes a
    float NaN as ``null``: no record field digested here is a float (a test holds every record
    class to that), so ``None`` and a number never meet."""
    try:
        body = orjson.dumps(tuple(record) if isinstance(record, tuple) else record)
    except TypeError:  # orjson.JSONEncodeError included
        return b"<repr> " + repr(record).encode("utf-8", "surrogatepass")
    return type(record).__name__.encode() + b" " + body


def kept_digest(path: str, fmt: str) -> str:
    """``"kept:"`` and the SHA-256 of the records a build reads from the ``fmt`` body at ``path``.

    Taken over each record's ``canonical`` form: every field by name, so a parser that starts
    keeping one more field changes every digest (a rebuild, never a skipped change). Raises
    ParseError where the build itself would refuse the body."""
    records_of = RECORDS_OF[fmt]
    name = shown(path)
    digest = hashlib.sha256(fmt.encode() + b"\n")
    batch: list[bytes] = []
    try:
        raw = open(path, "rb")
    except OSError as error:
        raise ParseError(f"{name}: cannot read: {error.strerror or error}") from None
    with raw:
        try:
            handle = bounded_json_stream(raw, name, lines_if_object=fmt.startswith("scryfall-bulk"))
            # Read under a fixed label, not the body's name: a record may carry where it was
            # read (an MTGJSON card's quality issue does), and every body has a name of its own.
            for record in records_of(handle, LABEL):
                batch.append(canonical(record))
                if len(batch) >= BATCH:
                    digest.update(b"\n".join(batch) + b"\n")
                    batch = []
        except ParseError as error:
            raise ParseError(str(error).replace(LABEL, name)) from error
        except (Exception, MemoryError) as error:
            raise ParseError(f"{name}: could not be read as {fmt}: {type(error).__name__}: {error}") from error
    digest.update(b"\n".join(batch))
    return "kept:" + digest.hexdigest()
