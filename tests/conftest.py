"""Shared fixtures: ``site`` (the real local test site), ``fake_clock``, and the site databases."""
from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Callable, Iterator

import pytest

from kb.build import publish
from kb.build.collector import FEWER_COLLECTIONS
from kb.link import cr_compare, cr_diff, cr_pairing
from kb.parse import formats
from kb.parse.cr import ko, txt, txt_1999, zh
from kb.records import CRDocument, ParseError
from sitekit import FakeClock, TestSite

pytest_plugins = ("site_databases", "collected_files")

# Tests compare the same pairs of CR versions many times in one process: keep them (a build
# keeps none, for its memory).
cr_diff.RECENT_DIFFS_KEPT = 16
# And language detection's model between builds (a build lets it go, for its memory).
publish.RELEASE_LANGUAGE_MODEL = False


def _parsed_once(parse: Callable[..., CRDocument]) -> Callable[..., CRDocument]:
    """``parse`` reading each file's bytes once per worker, whatever name they are read under.

    The first read parses under a name no file has, and keeps the document pickled; every read
    gets its own copy (unpickled in a seventh of a parse's time, so no test sees what another
    changed), its warnings naming the name it was read under. A parser names a file in its
    messages only: a document that holds the stand-in anywhere else is not kept. A file that does
    not parse is parsed again under its own name, for its error."""
    kept: dict[tuple[bytes, str | None], tuple[bytes, list[str]] | None] = {}

    @functools.wraps(parse)
    def parse_once(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
        key = (hashlib.blake2b(data, digest_size=16).digest(), lang)
        if key not in kept:
            kept[key] = None
            with contextlib.suppress(ParseError):
                document = parse(data, STAND_IN_NAME, lang)
                warnings, document.warnings = document.warnings, []
                body = pickle.dumps(document, protocol=pickle.HIGHEST_PROTOCOL)
                if STAND_IN_NAME.encode() not in body:
                    kept[key] = body, warnings
        found = kept[key]
        if found is None:
            return parse(data, name, lang)
        body, warnings = found
        document = pickle.loads(body)
        document.warnings = [warning.replace(STAND_IN_NAME, str(name)) for warning in warnings]
        return document

    return parse_once


STAND_IN_NAME = "<a file the tests read once>"


# Tests read the same real CR files again and again: the snapshot's 31 editions in every build of
# it, the archive in the parser's, the diff's and the checks' own tests (one run without workers:
# 362 parses of 90 files, 24 s of its ~290). The parsers are pure, bytes in and a document out.
for _parser in (txt, txt_1999, zh, ko):
    _parser.parse = _parsed_once(_parser.parse)  # type: ignore[assignment]
formats._REGISTRY = None  # the format registry holds the parsers it found: found again, these


def _paired_once(pairing_of: Callable[..., cr_pairing.Pairing]) -> Callable[..., cr_pairing.Pairing]:
    """``pairing_of`` answering the same two documents (by what a comparison reads of them:
    ``cr_diff.content_key``) from the last few it made. The diff's own cache shares a pairing
    read-only, as this does; the tests pair directly too (``pair_rules``): 2006 and 2009 seven
    times in the diff's tests, ¾ s each. Pairings of other entries than the documents' own
    (``HeldEntries``) are made each time, and so is a pairing while a test has replaced a function
    of the pairing's modules (the key holds which functions they are: a test that reorders the
    glossary's pointers was answered from before it did, and could not fail; a code review)."""
    kept: OrderedDict[tuple, cr_pairing.Pairing] = OrderedDict()

    @functools.wraps(pairing_of)
    def pairing_once(old_doc: CRDocument, new_doc: CRDocument, entries: Callable | None = None) -> cr_pairing.Pairing:
        if entries is not None and entries is not cr_compare.entries_of:
            return pairing_of(old_doc, new_doc, entries)
        code = tuple(id(value) for module in (cr_pairing, cr_compare) for value in vars(module).values() if callable(value))
        key = (cr_diff.content_key(old_doc), cr_diff.content_key(new_doc), code)
        if key not in kept:
            kept[key] = pairing_of(old_doc, new_doc)
            while len(kept) > 8:
                kept.popitem(last=False)
        kept.move_to_end(key)
        return kept[key]

    return pairing_once


cr_pairing.pairing_of = cr_diff.pairing_of = _paired_once(cr_pairing.pairing_of)  # type: ignore[assignment]

# The suite holds parsed CR archives, built databases' maps and servers' state for the whole run,
# and each default collection of the old generation walked all of it: the collector as a build
# runs it (kb.build.collector), for every test. Measured: the workers' CPU 168 → 143 s.
gc.set_threshold(*FEWER_COLLECTIONS)

SNAPSHOT_FIXTURES = {"snapshot_db", "snapshot_conn", "snapshot_ds"}


# The longest module (a third of the suite): started first, so that the other worker is never
# left alone with it at the end.
FIRST_MODULES = {"test_browser.py"}

# Modules that take seconds (wall time of a run with two workers, measured 2026-12-04 with the
# snapshot's 31 editions), handed out first within their group: a worker that picks up a long
# module near the end of the run keeps the other idle (test_diff_by_identity.py, 6.5 s, among the
# last left the two workers ending 5 s apart).
LONGEST_FIRST = (
    "test_incremental.py", "test_refresh.py", "test_carry_cr.py", "test_page_cache.py", "test_build.py",
    "test_site.py", "test_reload.py", "test_refresh_defaults.py", "test_diff_by_identity.py",
    "test_carry_links.py", "test_search_prefix.py", "test_serve_workers.py", "test_derive_rulings.py",
    "test_deploy.py", "test_inputs.py", "test_streaming.py", "test_plain_datasette.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser module first; other modules that read the built snapshot last, so that a
    worker has other tests to run while the snapshot is built; the longest modules first within
    each group. Each module stays whole and in its own order (``--dist loadscope`` hands a worker
    whole modules)."""
    def reads_snapshot(item: pytest.Item) -> bool:
        module = item.module  # type: ignore[attr-defined]
        return bool(SNAPSHOT_FIXTURES & set(getattr(item, "fixturenames", ()))) or "built_snapshot_db" in vars(module)

    late = {item.module for item in items if reads_snapshot(item)}  # type: ignore[attr-defined]

    def rank(item: pytest.Item) -> tuple[int, int]:
        name = item.path.name
        longest = LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
        if name in FIRST_MODULES:
            return 0, longest
        return (2 if item.module in late else 1), longest  # type: ignore[attr-defined]

    items.sort(key=rank)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Everything the run still holds is left out of the collection Python makes as the process
    exits: that collection walked it all (2.3 s a worker at the end of every run, measured)."""
    gc.freeze()


@pytest.fixture(scope="session")
def _site_server() -> Iterator[TestSite]:
    site = TestSite().start()
    yield site
    site.stop()


@pytest.fixture
def site(_site_server: TestSite) -> Iterator[TestSite]:
    """The recorded site on 127.0.0.1 with fresh routes, no faults and an empty request log."""
    _site_server.reset()
    yield _site_server
    _site_server.reset()


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()
