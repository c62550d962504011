"""What every fetcher shares: the per-source report and "fetch one document into the store"."""
from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scraper.http import FetchError, PoliteClient
from scraper.rawstore import ManifestEntry, RawStore, RawStoreError, Validators, utc_now, writing_into
from scraper.verify import Verifier, VerifyError


@dataclass
class FetchReport:
    """What one source's fetch did. ``failures`` holds (url, reason) per failed document."""

    source: str
    requests: int = 0
    fetched: int = 0
    not_modified: int = 0
    # Documents not even asked for because a cheaper check said nothing changed.
    skipped: int = 0
    failed: int = 0
    bytes: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    _start: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def begin(cls, source: str, client: PoliteClient) -> FetchReport:
        report = cls(source)
        report._start = client.counters.snapshot()
        return report

    def end(self, client: PoliteClient) -> FetchReport:
        """Fill ``requests`` and ``bytes`` from the client's counters since ``begin``."""
        now = client.counters.snapshot()
        self.requests = now["requests"] - self._start.get("requests", 0)
        self.bytes = now["bytes_downloaded"] - self._start.get("bytes_downloaded", 0)
        return self

    def fail(self, url: str, reason: str) -> None:
        self.failed += 1
        self.failures.append((url, reason))

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "fetched": self.fetched,
            "not_modified": self.not_modified,
            "skipped": self.skipped,
            "failed": self.failed,
            "bytes": self.bytes,
            "failures": [list(pair) for pair in self.failures],
        }


def fetch_document(
    client: PoliteClient,
    store: RawStore,
    report: FetchReport,
    url: str,
    *,
    source: str,
    lang: str | None = None,
    verify: Verifier | None = None,
    accept: str | None = None,
    expect_types: Iterable[str] = (),
    run_id: int | None = None,
) -> ManifestEntry | None:
    """Fetch ``url`` conditionally into the store; the latest good entry, or None on failure.

    A 304 gives the earlier entry's body (recorded as ``not-modified``). A failure is recorded
    in the manifest and in ``report`` and never replaces an earlier good body.
    """
    # A body this URL gave that failed verification, not changed since, is not fetched again in
    # full every run (393 MB for all_cards: an operator's review): it is asked for by its ETag
    # alone (a date would also match an older good body a server rolled back to: a code review).
    rejected = store.get_state(REJECTED_STATE + url)
    # A body known unreadable after it was stored, which its server told apart by its date alone:
    # a 304 to that date also answers a server that rolled back to an older body, and its source
    # failed every night after the site had mended it (an operator's review). Asked for whole.
    ask_whole = None if rejected else store.get_state(ASK_WHOLE_STATE + url)
    validators = (Validators(etag=rejected["etag"]) if rejected else Validators() if ask_whole
                  else store.validators_for(url))
    tmp = store.temp_path()
    try:
        # The body streams into the store's tmp/: an OS error there is the store's, not the site's.
        with writing_into(store.root, tmp, f"downloading {url}"):
            result = client.get(
                url, source=source, dest=tmp, etag=validators.etag,
                last_modified=validators.last_modified, accept=accept, expect_types=expect_types,
            )
    except RawStoreError:
        tmp.unlink(missing_ok=True)
        raise
    except FetchError as exc:
        tmp.unlink(missing_ok=True)
        store.record_failure(url, source=source, lang=lang, error=exc.reason,
                             http_status=exc.status, run_id=run_id)
        report.fail(url, exc.reason)
        return None
    if result.not_modified and rejected:
        tmp.unlink(missing_ok=True)
        return _rejected_unchanged(store, report, url, rejected, source=source, lang=lang, verify=verify, run_id=run_id)
    if result.not_modified:
        tmp.unlink(missing_ok=True)
        report.not_modified += 1
        return store.record_not_modified(
            url, source=source, lang=lang, etag=result.etag,
            last_modified=result.last_modified, run_id=run_id,
        )
    try:
        entry = store.commit(
            tmp, url=url, source=source, lang=lang, http_status=result.status,
            etag=result.etag, last_modified=result.last_modified,
            content_type=result.content_type, content_length=result.content_length,
            verify=verify, run_id=run_id,
        )
    except VerifyError as exc:
        report.fail(url, str(exc))
        if result.etag:
            store.set_state(REJECTED_STATE + url, {
                "etag": result.etag, "last_modified": result.last_modified, "content_type": result.content_type,
                "sha256": exc.rejected_sha256, "error": str(exc), "at": utc_now()})
        return None
    if rejected:
        store.delete_state(REJECTED_STATE + url)
    if ask_whole and ask_whole.get("sha256") != entry.sha256:
        store.delete_state(ASK_WHOLE_STATE + url)
    report.fetched += 1
    return entry


# The raw store's state key (then the URL) of the validators of a body that failed verification.
REJECTED_STATE = "rejected-body:"
# And of a stored body found unreadable later, with no ETag to ask for it by (``{"sha256": …}``):
# the URL is asked for without a date until another body comes (set by kb.refresh).
ASK_WHOLE_STATE = "ask-whole:"


def _rejected_unchanged(
    store: RawStore, report: FetchReport, url: str, rejected: dict[str, Any], *, source: str, lang: str | None,
    verify: Verifier | None, run_id: int | None,
) -> ManifestEntry | None:
    """A 304 to a rejected body's ETag: the body kept (``rejected/<sha>``) checked again, as a
    check may pass it now (MTGJSON's digest file was stale when the body came, or the check was
    wrong: a code review); failing, it fails as it failed, and is not downloaded again."""
    kept = store.root / "rejected" / str(rejected.get("sha256"))
    error = rejected["error"]
    if verify is not None and rejected.get("sha256") and kept.is_file():
        copy = store.temp_path()
        shutil.copyfile(kept, copy)
        try:
            entry = store.commit(
                copy, url=url, source=source, lang=lang, http_status=304, etag=rejected["etag"],
                last_modified=rejected.get("last_modified"), content_type=rejected.get("content_type"),
                verify=verify, run_id=run_id,
            )
        except VerifyError as exc:
            error = str(exc)
        else:
            store.delete_state(REJECTED_STATE + url)
            report.fetched += 1
            return entry
    else:
        store.record_failure(url, source=source, lang=lang, error=error, http_status=304, run_id=run_id)
    report.fail(url, f"unchanged since its body was rejected ({rejected['at']}): {error}")
    return None


def option_list(options: dict[str, Any], key: str) -> list[str]:
    """An option that may be given as one string or a list of strings."""
    value = options.get(key) or []
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value]


def join_url(base_url: str, path: str) -> str:
    """``base_url`` + ``/path``, or ``path`` itself when it is already absolute."""
    if "://" in path:
        return path
    return base_url.rstrip("/") + "/" + path.lstrip("/")
