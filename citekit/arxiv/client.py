"""`ArxivClient`: the only place citekit talks HTTP (the only module that imports requests).

One request at a time over one connection, at least `min_interval` seconds apart across the
whole run; a timeout on every request; retries with backoff on timeouts, connection errors,
5xx and 429 (Retry-After honoured); a bounded total time. Clock, sleep and session are
injectable so tests run the real client against a local server without waiting.
Must not import model, formats or enrich: it returns `ArxivRecord`s only.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import parse_qs, urlsplit

import requests
from requests.adapters import HTTPAdapter

from ..errors import ArxivError, ArxivHTTPError, ArxivRateLimited, ArxivUnavailable
from .atom import ArxivRecord, AtomError, Feed, parse_feed
from .ids import parse_arxiv_id

log = logging.getLogger(__name__)

DEFAULT_URL = "https://export.arxiv.org/api/query"
URL_ENV = "CITEKIT_ARXIV_URL"
# arXiv allows up to 2000 results a page; 100 ids keep the GET URL short (about 1.2 kB)
DEFAULT_BATCH = 100


def citekit_version() -> str:
    try:
        return version("citekit")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"


def user_agent(contact: str = "") -> str:
    """`citekit/<version>`, plus `(+mailto:...)` or `(+url)` so arXiv staff can reach the user."""
    agent = f"citekit/{citekit_version()}"
    contact = contact.strip()
    if not contact:
        return agent
    if "@" in contact and "://" not in contact and not contact.startswith("mailto:"):
        contact = f"mailto:{contact}"
    return f"{agent} (+{contact})"


def resolve_base_url(option: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The endpoint to use: `--arxiv-url`, else `$CITEKIT_ARXIV_URL`, else arXiv's own."""
    env = os.environ if environ is None else environ
    return (option or env.get(URL_ENV, "") or DEFAULT_URL).strip()


@dataclass(slots=True)
class ClientStats:
    """What the client did: requests sent (retries included), retries, seconds slept."""

    requests: int = 0
    retries: int = 0
    waited: float = 0.0


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The answer to a list of ids, keyed by the id as asked (`1605.08386` or `1605.08386v1`).

    `missing` are valid ids arXiv does not know; `refused` maps ids the API answered with an
    error feed (HTTP 400) to its message.
    """

    records: dict[str, ArxivRecord] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    refused: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Retry:
    """One failed attempt worth repeating: why, how long to wait, and which error if we stop."""

    reason: str
    delay: float
    rate_limited: bool
    status: int = 0


class ArxivClient:
    """A polite arXiv API client. Share one instance across a run: the spacing lives in it."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_URL,
        session: requests.Session | None = None,
        timeout: float | tuple[float, float] = (10.0, 60.0),
        min_interval: float = 3.0,
        max_retries: int = 3,
        backoff: float = 3.0,
        rate_backoff: float = 30.0,
        max_delay: float = 300.0,
        max_total: float = 900.0,
        contact: str = "",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.base_url = base_url
        self.session = session if session is not None else _one_connection_session()
        self.timeout = timeout
        self.min_interval = min_interval
        self.max_retries = max_retries
        self.backoff = backoff
        self.rate_backoff = rate_backoff
        self.max_delay = max_delay
        self.max_total = max_total
        self.headers = {"User-Agent": user_agent(contact), "Accept": "application/atom+xml"}
        self.stats = ClientStats()
        self._clock = clock
        self._sleep = sleep
        self._rng = rng if rng is not None else random.Random()
        self._last_done: float | None = None
        self._lock = threading.Lock()  # one request in flight, even if callers use threads

    def close(self) -> None:
        """Close the connection (the client can still be used; it reconnects)."""
        self.session.close()

    def __enter__(self) -> ArxivClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public queries --------------------------------------------------------------------

    def fetch_ids(self, ids: Iterable[str], *, batch_size: int = DEFAULT_BATCH) -> BatchResult:
        """Records for `ids`, `batch_size` ids a request; duplicates are asked for once."""
        wanted = list(dict.fromkeys(ids))
        results = [self.fetch_batch(wanted[i : i + batch_size])
                   for i in range(0, len(wanted), batch_size)]  # fmt: skip
        return _merge_batches(results)

    def fetch_batch(self, ids: Sequence[str]) -> BatchResult:
        """One `id_list` request for `ids` (validated locally first), matched back by id.

        A batch the API refuses with HTTP 400 is split in halves until the refused id stands
        alone, so one bad id costs about log2(batch) extra requests, not the whole batch.
        """
        valid = [i for i in ids if parse_arxiv_id(i) is not None]
        refused = {i: "not a valid arXiv identifier" for i in ids if parse_arxiv_id(i) is None}
        pending: list[list[str]] = [valid] if valid else []
        found: dict[str, ArxivRecord] = {}
        missing: list[str] = []
        while pending:
            batch = pending.pop(0)
            try:
                feed = self.query({"id_list": ",".join(batch), "start": "0",
                                   "max_results": str(len(batch))})  # fmt: skip
            except ArxivHTTPError as exc:
                if exc.status != 400:
                    raise
                if len(batch) == 1:
                    refused[batch[0]] = exc.message
                    continue
                half = len(batch) // 2
                pending[:0] = [batch[:half], batch[half:]]
                continue
            matched = match_ids(batch, feed.records)
            found.update(matched)
            missing.extend(i for i in batch if i not in matched)
        return BatchResult(found, tuple(missing), refused)

    def search(self, search_query: str, *, max_results: int = 10) -> Feed:
        """The first page of a `search_query` (field-prefixed, already escaped by the caller)."""
        return self.query({"search_query": search_query, "start": "0",
                           "max_results": str(max_results), "sortBy": "relevance",
                           "sortOrder": "descending"})  # fmt: skip

    # -- one logical request, with spacing and retries ---------------------------------------

    def query(self, params: Mapping[str, str]) -> Feed:
        """Send one API request (retrying as needed) and return the parsed feed.

        Raises `ArxivHTTPError` for a final refusal (400 error feed, 403, 404),
        `ArxivRateLimited` when 429/503 outlast the retries or the time budget, and
        `ArxivUnavailable` when timeouts, connection errors or broken bodies do.
        """
        with self._lock:
            deadline = self._clock() + self.max_total
            attempt = 0
            while True:
                attempt += 1
                self._wait_turn()
                outcome = self._attempt(params, attempt)
                if isinstance(outcome, Feed):
                    return outcome
                if attempt > self.max_retries or self._clock() + outcome.delay > deadline:
                    raise self._give_up(outcome, attempt)
                log.debug("retrying in %.1f s: %s", outcome.delay, outcome.reason)
                self.stats.retries += 1
                self._pause(outcome.delay)

    def _attempt(self, params: Mapping[str, str], attempt: int) -> Feed | _Retry:
        url = self.base_url
        self.stats.requests += 1
        try:
            response = self.session.get(url, params=dict(params), headers=self.headers,
                                        timeout=self.timeout, allow_redirects=True)  # fmt: skip
        except (requests.Timeout, requests.ConnectionError,
                requests.exceptions.ChunkedEncodingError) as exc:  # fmt: skip
            return _Retry(_brief(exc), self._backoff(attempt), False)
        except requests.RequestException as exc:  # bad URL, too many redirects: final
            raise ArxivUnavailable(f"request failed: {exc}", url=url, attempt=attempt) from exc
        finally:
            self._last_done = self._clock()
        return self._judge(response, attempt)

    def _judge(self, response: requests.Response, attempt: int) -> Feed | _Retry:
        status, url = response.status_code, response.url
        if status in (429, 503):
            # 429 comes as plain `Rate exceeded.` with no Retry-After (arxiv-api.md §2.3)
            delay = self._retry_after(response) or self._rate_backoff(attempt)
            return _Retry(f"HTTP {status}", delay, True, status)
        if status >= 500:
            delay = self._retry_after(response) or self._backoff(attempt)
            return _Retry(f"HTTP {status}", delay, False, status)
        if status != 200:
            raise ArxivHTTPError(_refusal(response), status=status, url=url, attempt=attempt)
        try:
            feed = parse_feed(response.content, url=url)
        except AtomError as exc:
            if not exc.retryable:
                exc.attempt = attempt
                raise
            return _Retry(exc.message, self._backoff(attempt), False, status)
        if feed.error is not None:
            raise ArxivHTTPError(feed.error.message, status=status, url=url, attempt=attempt)
        if _short_page(feed, response.request.url or ""):
            # an empty or short page while totalResults says more exist is transient (arxiv.py #43)
            return _Retry("page shorter than totalResults", self._backoff(attempt), False)
        return feed

    def _give_up(self, outcome: _Retry, attempt: int) -> ArxivError:
        message = f"{outcome.reason} after {attempt} attempt(s)"
        if outcome.rate_limited:
            return ArxivRateLimited(f"rate limited: {message}", url=self.base_url, attempt=attempt)
        return ArxivUnavailable(f"unavailable: {message}", url=self.base_url, attempt=attempt)

    # -- timing ---------------------------------------------------------------------------

    def _wait_turn(self) -> None:
        # spacing runs from the end of the previous answer: arXiv asks for 3 s *between* calls
        if self._last_done is None:
            return
        gap = self._last_done + self.min_interval - self._clock()
        if gap > 0:
            self._pause(gap)

    def _pause(self, seconds: float) -> None:
        self.stats.waited += seconds
        self._sleep(seconds)

    def _backoff(self, attempt: int) -> float:
        return self._jitter(min(self.max_delay, self.backoff * 2 ** (attempt - 1)))

    def _rate_backoff(self, attempt: int) -> float:
        return self._jitter(min(self.max_delay, self.rate_backoff * 2 ** (attempt - 1)))

    def _jitter(self, delay: float) -> float:
        # up to +25 %, so several citekit runs that hit a 429 together do not retry in step
        return delay * (1.0 + 0.25 * self._rng.random())

    def _retry_after(self, response: requests.Response) -> float | None:
        value = response.headers.get("Retry-After", "").strip()
        if not value:
            return None
        if value.isdigit():
            return float(value)
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _brief(exc: Exception) -> str:
    # urllib3 wraps the cause in a long "Max retries exceeded with url: ..." sentence
    text = str(exc)
    if "(Caused by " in text:
        text = text.split("(Caused by ", 1)[1].rstrip(")")
    text = " ".join(text.split())
    return f"{type(exc).__name__}: {text[:160]}"


def _one_connection_session() -> requests.Session:
    # arXiv's terms: a single connection at a time; block instead of opening a second one
    session = requests.Session()
    adapter = HTTPAdapter(pool_connections=1, pool_maxsize=1, pool_block=True, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def _refusal(response: requests.Response) -> str:
    try:
        feed = parse_feed(response.content, url=response.url)
    except AtomError:
        body = " ".join(response.content[:120].decode("utf-8", "replace").split())
        return f"HTTP {response.status_code}: {body}" if body else f"HTTP {response.status_code}"
    if feed.error is not None:
        return feed.error.message
    return f"HTTP {response.status_code}"


def _short_page(feed: Feed, request_url: str) -> bool:
    if feed.total_results is None:
        return False
    asked = _param(request_url, "max_results")
    start = _param(request_url, "start") or 0
    expected = max(0, feed.total_results - start)
    if asked is not None:
        expected = min(expected, asked)
    return len(feed.records) + len(feed.skipped) < expected


def _param(url: str, name: str) -> int | None:
    values = parse_qs(urlsplit(url).query).get(name)
    return int(values[0]) if values and values[0].isdigit() else None


def match_ids(asked: Sequence[str], records: Iterable[ArxivRecord]) -> dict[str, ArxivRecord]:
    """Pair each asked id with its record, by id and never by position (results come unordered).

    A versioned id needs exactly that version; an unversioned one takes the latest returned.
    """
    by_versioned: dict[str, ArxivRecord] = {}
    latest: dict[str, ArxivRecord] = {}
    for record in records:
        by_versioned[record.versioned_id] = record
        known = latest.get(record.arxiv_id)
        if known is None or record.version > known.version:
            latest[record.arxiv_id] = record
    matched: dict[str, ArxivRecord] = {}
    for wanted in asked:
        parsed = parse_arxiv_id(wanted)
        if parsed is None:
            continue
        pick = by_versioned if parsed.version is not None else latest
        found = pick.get(parsed.versioned if parsed.version is not None else parsed.id)
        if found is not None:
            matched[wanted] = found
    return matched


def _merge_batches(results: list[BatchResult]) -> BatchResult:
    records: dict[str, ArxivRecord] = {}
    missing: list[str] = []
    refused: dict[str, str] = {}
    for result in results:
        records.update(result.records)
        missing.extend(result.missing)
        refused.update(result.refused)
    return BatchResult(records, tuple(missing), refused)
