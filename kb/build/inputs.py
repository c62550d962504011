"""What a build reads: the snapshot folder's manifest or paths given on the command line, as DocumentInputs."""
from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path, PurePath

from kb.checksums import file_sha256
from kb.parse.bounds import check_regular_file, shown
from kb.records import ParseError
from kb.store.files import read_only_uri
from kb.store.save import (
    DocumentInput,
    document_id_for,
)


class BuildError(Exception):
    """A build that cannot complete; the message names the input and the reason.

    ``document`` is the input that could not be read, when one is to blame.
    """

    def __init__(self, message: str, document: DocumentInput | None = None) -> None:
        super().__init__(message)
        self.document = document


SNAPSHOT_MANIFEST = "manifest.json"


def regular_file(path: Path) -> os.stat_result:
    """The stat of a regular file; BuildError naming it otherwise (a FIFO or /dev/zero would hang)."""
    try:
        return check_regular_file(path)
    except ParseError as error:
        raise BuildError(str(error)) from None


def sha256_of(path: Path) -> str:
    """The file's sha256; BuildError naming it when it cannot be read."""
    try:
        return file_sha256(path)
    except OSError as error:
        raise BuildError(f"{shown(path)}: cannot read: {error.strerror or error}") from None


def snapshot_inputs(snapshot: Path) -> list[DocumentInput]:
    """Every file of a snapshot folder, described by its ``manifest.json`` where it has one.

    The manifest lists ``{"path", "url", "source", "lang", "fetched_at", "format"}`` per file;
    files it does not list are imported as local files with their format detected.
    """
    if not snapshot.is_dir():
        raise BuildError(f"{shown(snapshot)}: snapshot folder not found")
    described = _manifest_entries(snapshot / SNAPSHOT_MANIFEST)
    manifest = snapshot / SNAPSHOT_MANIFEST
    inputs = []
    for path in sorted(snapshot.rglob("*")):
        relative = path.relative_to(snapshot).as_posix()
        if path.is_dir() or relative == SNAPSHOT_MANIFEST or path.name.startswith(".") or path.name.lower() == "readme.md":
            continue
        info = regular_file(path)
        entry = described.get(relative, {})
        check_source_id(entry.get("source", "local"), f"{shown(manifest)}: {shown(relative)}")
        inputs.append(
            DocumentInput(
                path=str(path),
                sha256=sha256_of(path),
                size=info.st_size,
                source_id=entry.get("source", "local"),
                url=entry.get("url"),
                lang=entry.get("lang"),
                fetched_at=entry.get("fetched_at"),
                format=entry.get("format"),
            )
        )
    missing = sorted(set(described) - {Path(i.path).relative_to(snapshot).as_posix() for i in inputs})
    if missing:
        raise BuildError(f"{shown(manifest)}: lists files that are not in the snapshot: {shown(', '.join(missing))}")
    return inputs


MANIFEST_FIELDS = ("path", "url", "source", "lang", "fetched_at", "format")


def _manifest_entries(manifest: Path) -> dict[str, dict]:
    """The manifest's entries by path; BuildError naming the manifest and the entry when malformed."""
    if not manifest.exists():
        return {}
    regular_file(manifest)
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise BuildError(f"{shown(manifest)}: not valid JSON ({' '.join(str(error).split())})") from None
    if not isinstance(entries, list):
        raise BuildError(f"{shown(manifest)}: must be a JSON list of entries, found a {type(entries).__name__}")
    described: dict[str, dict] = {}
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise BuildError(f"{shown(manifest)}: entry {number} is a {type(entry).__name__}, not an object")
        if not isinstance(entry.get("path"), str) or not entry["path"]:
            raise BuildError(f"{shown(manifest)}: entry {number} has no \"path\"")
        for key in MANIFEST_FIELDS[1:]:
            if entry.get(key) is not None and not isinstance(entry[key], str):
                raise BuildError(f"{shown(manifest)}: entry {number} ({shown(entry['path'])}): \"{key}\" must be a string")
        described[entry["path"]] = entry
    return described


def check_source_id(source_id: str, where: str) -> None:
    from kb.store.save import SOURCES

    known = [source["id"] for source in SOURCES]
    if source_id not in known:
        raise BuildError(f"{where}: unknown source id {shown(repr(source_id))} (known: {', '.join(known)})")


def check_lang(lang: str | None, where: str) -> None:
    """A language code the tables spell (the printings' codes: Scryfall's and the few more MTGJSON
    gives): "xx" made a CR version "xx-pages-local" with exit 0."""
    from kb.build.checks import KNOWN_PRINTING_LANGS
    from kb.normalise.lang import SCRYFALL_LANGS

    if lang is not None and lang not in KNOWN_PRINTING_LANGS:
        known = ", ".join([*SCRYFALL_LANGS, *sorted(KNOWN_PRINTING_LANGS - set(SCRYFALL_LANGS))])
        raise BuildError(f"{where}: unknown language code {shown(repr(lang))} (known: {known})")


def path_inputs(paths: Iterable[Path], source_id: str = "local", lang: str | None = None, fmt: str | None = None) -> list[DocumentInput]:
    check_source_id(source_id, "--source")
    check_lang(lang, "--lang")
    if fmt is not None:
        from kb.parse.formats import format_named

        try:
            format_named(fmt)
        except ParseError as error:
            raise BuildError(f"--format: {error}") from None
    inputs = []
    for given in paths:
        if not given.exists():
            raise BuildError(f"{shown(given)}: no such file")
        files = sorted(p for p in given.rglob("*") if not p.is_dir()) if given.is_dir() else [given]
        for path in files:
            info = regular_file(path)
            if not os.access(path, os.R_OK):
                raise BuildError(f"{shown(path)}: cannot read: permission denied")
            inputs.append(
                DocumentInput(
                    path=str(path), sha256=sha256_of(path), size=info.st_size,
                    source_id=source_id, lang=lang, format=fmt,
                )
            )
    if not inputs:
        # An empty folder made a new file of the same rows, swapped in on every run, exit 0.
        raise BuildError(f"{', '.join(shown(given) for given in paths)}: no file to import (an empty folder)")
    return inputs


def with_known_sources(inputs: list[DocumentInput], db_path: Path) -> list[DocumentInput]:
    """Inputs the database already holds (the same bytes and name) keep the source it records for
    them, where the import named none: a bulk file fetched from Scryfall, imported again by hand,
    was relabelled "local" and its rulings derived again. So does one the database holds under
    the address it was published at (the bundled snapshot's files, named by their URLs): the same
    bytes, read again from a file of the same name, are that document, URL and all (it was added
    a second time, as "local", and its card's Oracle text credited to it; an upgrade's review)."""
    if not db_path.exists():
        return inputs
    try:
        conn = sqlite3.connect(read_only_uri(db_path), uri=True)
        try:
            known: dict[str, tuple[str, str | None]] = {}
            for doc in inputs:
                found = conn.execute("select source_id, url from documents where id = ?", [document_id_for(doc)]).fetchone()
                if found is None and doc.url is None:
                    found = next((
                        (source_id, url) for source_id, url, path in conn.execute(
                            "select source_id, url, path from documents where sha256 = ? and url is not null order by id",
                            [doc.sha256])
                        if PurePath(path or "").name == PurePath(doc.path).name
                    ), None)
                if found is not None:
                    known[doc.path] = found
        finally:
            conn.close()
    except sqlite3.OperationalError as error:
        if "locked" in str(error):
            # Not a reason to record the files as "local": the refresh's own writer holds it.
            raise BuildError(f"{shown(db_path)}: {error}: try again when the other writer is done") from None
        return inputs  # no documents table yet, or another shape: the build says what is wrong
    except sqlite3.Error:
        return inputs  # not a database: the build says what is wrong
    return [replace(doc, source_id=known[doc.path][0], url=doc.url or known[doc.path][1]) if doc.path in known else doc
            for doc in inputs]


def documents_left_out(db_path: Path, inputs: list[DocumentInput]) -> list[str]:
    """The documents the file at ``db_path`` holds whose bytes are none of ``inputs``', by where
    they were read from: a build replaces the file with one of its inputs only, and the files an
    operator imported by hand into it were gone without a word (an upgrade's review). Empty where
    there is no such file, or it cannot be read."""
    if not db_path.exists():
        return []
    given = {doc.sha256 for doc in inputs}
    try:
        conn = sqlite3.connect(read_only_uri(db_path), uri=True)
        try:
            held = conn.execute("select sha256, coalesce(url, path, '') from documents where status = 'parsed'").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []
    return sorted({where for sha256, where in held if sha256 not in given})


# Documents that are other documents with the same bytes: Scryfall's rulings list of a card's
# printing names neither the printing nor the card, and two printings' lists are one file's bytes,
# each a sighting of its printing's rulings (read once, one sighting was lost: a test).
OWN_BYTES_NOT_OWN_IDENTITY = frozenset({"scryfall-rulings"})


def format_name_of(doc: DocumentInput) -> str | None:
    """The name of the format ``doc`` is read as, or None where it cannot be sniffed (the build
    reports that)."""
    from kb.build.load import detect_format_of

    try:
        return detect_format_of(doc).name
    except ParseError:
        return None


def read_once(inputs: list[DocumentInput]) -> tuple[list[DocumentInput], list[tuple[DocumentInput, DocumentInput]]]:
    """The inputs of one run each read once, and those left out, each with the input read for it:
    a file given twice (a folder and a file inside it), and a file with the same bytes as an
    earlier one read as the same format (``OWN_BYTES_NOT_OWN_IDENTITY`` apart). Two
    copies given at once were two documents, every row twice, as ``held_under_another_name`` found
    of a copy given later. Only inputs whose bytes repeat are sniffed; one that cannot be is left
    for the build to report."""
    left_out: list[tuple[DocumentInput, DocumentInput]] = []
    first_by_key: dict[tuple[str, str], DocumentInput] = {}
    repeats = {sha for sha, count in Counter(doc.sha256 for doc in inputs).items() if count > 1}
    kept = []
    for doc in inputs:
        if doc.sha256 in repeats:
            # One path and address: a file given twice. Not the path alone: a raw store names each
            # body by its bytes, and two printings' rulings lists of one body's bytes are two
            # documents (an upgrade's review: a refresh dropped one, 13 sightings lost).
            keys = [("given", f"{Path(doc.path).resolve()}\n{doc.url or ''}")]
            fmt = format_name_of(doc)
            if fmt is not None and fmt not in OWN_BYTES_NOT_OWN_IDENTITY:
                keys.append((fmt, doc.sha256))
            first = next((first_by_key[key] for key in keys if key in first_by_key), None)
            if first is not None:
                left_out.append((doc, first))
                continue
            for key in keys:
                first_by_key[key] = doc
        kept.append(doc)
    return kept, left_out


def held_under_another_name(inputs: list[DocumentInput], db_path: Path) -> dict[str, str]:
    """By input path, the document the database already holds the same bytes as, where the input
    is not that document (another file name, another place): its URL or path. Read again, it was
    a second document with every row twice, which the next refresh, reading the bytes once, found
    as a shrink and refused in every run after (an upgrade's review)."""
    held: dict[str, str] = {}
    if not db_path.exists():
        return held
    try:
        conn = sqlite3.connect(read_only_uri(db_path), uri=True)
        try:
            for doc in inputs:
                if conn.execute(
                        "select 1 from documents where id = ?", [document_id_for(doc)]).fetchone():
                    continue  # the document itself: read again, or left as it is (kb.build.publish)
                for url, path, held_format in conn.execute(
                        "select url, path, format from documents where sha256 = ? and status = 'parsed' and (format = ? or ? is null)"
                        " order by id", [doc.sha256, doc.format, doc.format]):
                    if held_format in OWN_BYTES_NOT_OWN_IDENTITY:
                        continue
                    # Not a file imported by hand that is gone from where it was: read from its new
                    # place, it is the one a refresh reads again (kb.refresh.imported; a code review).
                    if url or (path and Path(path).exists()):
                        held[doc.path] = url or path
                        break
            return held
        finally:
            conn.close()
    except sqlite3.Error:
        return held  # no documents table yet, or not a database: the build says what is wrong

