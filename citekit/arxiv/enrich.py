"""Enrich entries from arXiv: find each entry's record (by id, then by title) and merge it.

`enrich_entries` is what the pipeline calls; `fetch_entries` builds entries for the `citekit
arxiv ID...` command. Every change, conflict and skip is a Diagnostic; a failing API leaves the
remaining entries unchanged with one summary diagnostic. Imports model, diagnostics, errors,
names and the arxiv modules; never requests (only client.py does), click or tqdm.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..diagnostics import Diagnostic, error, info, warning
from ..errors import ArxivError
from ..model import Entry, Origin
from .atom import ArxivRecord
from .cache import ArxivCache, Lookup
from .client import DEFAULT_BATCH, ArxivClient
from .ids import IdHit, find_arxiv_id, parse_arxiv_id
from .match import Decision, combine_queries, decide, entry_authors, id_record_suspect, title_query
from .merge import is_preprint, merge_record, record_entry

TitleSearch = Literal["auto", "all", "none"]
MAX_BATCH = 2000  # arXiv's largest page (user manual §3.1.1.2)
# per asked id: the record, or None when arXiv has no such id; and refused ids with the reason
Resolved = tuple[dict[str, ArxivRecord | None], dict[str, str]]


@dataclass(frozen=True, slots=True)
class EnrichPolicy:
    """How enrichment decides. Defaults: fill what is missing, keep the user's values.

    `overwrite`: arXiv's value replaces a differing one (reported). `prefer_published`: when
    arXiv knows a publisher DOI or journal reference, show the entry as the published version
    (preprint kept in `arxiv`). `title_search`: "auto" searches titles only for entries with no
    DOI and no venue (listing entries, bare preprints), "all" for every entry without an id,
    "none" never. `titles_per_request` > 1 OR-s several title queries into one request.
    """

    overwrite: bool = False
    prefer_published: bool = False
    title_search: TitleSearch = "auto"
    batch_size: int = DEFAULT_BATCH
    titles_per_request: int = 1
    max_candidates: int = 10


@dataclass(slots=True)
class EnrichStats:
    """Counts for the summary line and the progress bar."""

    entries: int = 0
    skipped: int = 0  # neither an id nor a title worth searching (a journal paper with a DOI)
    by_id: int = 0
    by_title: int = 0
    matched: int = 0
    not_matched: int = 0
    ambiguous: int = 0
    changed: int = 0
    requests: int = 0
    cache_hits: int = 0
    waited: float = 0.0
    failed: bool = False


@dataclass(frozen=True, slots=True)
class Progress:
    """Handed to the progress callback after each step (entries done of total)."""

    done: int
    total: int
    requests: int
    waited: float


ProgressCallback = Callable[[Progress], None]


@dataclass(slots=True)
class EnrichResult:
    entries: list[Entry]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stats: EnrichStats = field(default_factory=EnrichStats)

    @property
    def failed(self) -> bool:
        """arXiv could not be reached or kept failing: some entries stayed as they were."""
        return self.stats.failed


def _where(entry: Entry) -> dict[str, object]:
    origin = entry.origin
    where: dict[str, object] = {"key": entry.key}
    if origin is not None:
        where.update(source=origin.source, line=origin.line or None)
    return where


def wants_title_search(entry: Entry, mode: TitleSearch) -> bool:
    """Whether an entry without an arXiv id should be looked up by title under `mode`.

    "auto" asks only for what may be an unplaced preprint: no publisher DOI, and a preprint
    type or an arXiv venue (`is_preprint`) or no venue at all. A 20k-entry file of journal
    papers would otherwise cost 20k requests, 17 hours at arXiv's rate.
    """
    if mode == "none" or not entry.get("title").strip():
        return False
    if mode == "all":
        return True
    doi = entry.get("DOI").strip().lower()
    if doi and not doi.startswith("10.48550/"):
        return False  # already identified by its publisher's DOI
    return is_preprint(entry) or not entry.get("container-title")


class _Run:
    """One enrichment run: the shared client/cache, the counters and the first failure."""

    def __init__(
        self,
        client: ArxivClient | None,
        cache: ArxivCache | None,
        policy: EnrichPolicy,
        total: int,
        progress: ProgressCallback | None,
    ) -> None:
        self.client = client
        self.cache = cache
        self.policy = policy
        self.stats = EnrichStats(entries=total)
        self.progress = progress
        self.done = 0
        self.failure: str = ""
        self._requests0 = client.stats.requests if client else 0
        self._waited0 = client.stats.waited if client else 0.0
        self.diagnostics: list[Diagnostic] = []

    @property
    def can_ask(self) -> bool:
        offline = self.cache is not None and self.cache.mode == "offline"
        return self.client is not None and not offline and not self.failure

    def tick(self, n: int = 1) -> None:
        self.done += n
        self.sync()
        if self.progress is not None:
            self.progress(
                Progress(self.done, self.stats.entries, self.stats.requests, self.stats.waited)
            )

    def sync(self) -> None:
        if self.client is not None:
            self.stats.requests = self.client.stats.requests - self._requests0
            self.stats.waited = self.client.stats.waited - self._waited0

    def fail(self, exc: ArxivError | sqlite3.Error) -> None:
        self.failure = str(exc)
        self.stats.failed = True

    # -- ids ------------------------------------------------------------------------------

    def resolve_ids(self, asked: Sequence[str]) -> Resolved:
        """Record (or None: arXiv has no such id) per asked id; refused ids with the message.
        Ids neither cached nor fetched (offline, failure) are absent from both."""
        known: dict[str, ArxivRecord | None] = {}
        refused: dict[str, str] = {}
        todo: list[str] = []
        for wanted in dict.fromkeys(asked):
            cached = self.cache.get_id(wanted) if self.cache else None
            if cached is not None and cached.state is not Lookup.MISS:
                self.stats.cache_hits += 1
                known[wanted] = cached.record
            else:
                todo.append(wanted)
        per_id = _count_by_id(asked)
        self.tick(sum(per_id[i] for i in known))
        size = min(max(1, self.policy.batch_size), MAX_BATCH)
        for start in range(0, len(todo), size):
            batch = todo[start : start + size]
            if not self.can_ask:
                continue
            try:
                result = self.client.fetch_batch(batch)  # type: ignore[union-attr]
                answers = [(i, result.records.get(i)) for i in batch if i not in result.refused]
                if self.cache is not None:
                    self.cache.put_ids(answers)
            except (ArxivError, sqlite3.Error) as exc:
                self.fail(exc)
                continue
            known.update(answers)
            refused.update(result.refused)
            self.tick(sum(per_id[i] for i in batch))
        return known, refused

    # -- titles ---------------------------------------------------------------------------

    def search_titles(self, queries: Sequence[str]) -> dict[str, tuple[ArxivRecord, ...]]:
        """Candidates per title query, from the cache or from arXiv (several OR-ed per request
        when `titles_per_request` > 1). Queries not answered are absent."""
        answers: dict[str, tuple[ArxivRecord, ...]] = {}
        todo: list[str] = []
        for query in dict.fromkeys(queries):
            cached = self.cache.get_query(query) if self.cache else None
            if cached is not None and cached.state is Lookup.HIT:
                self.stats.cache_hits += 1
                answers[query] = cached.records
            else:
                todo.append(query)
        per_query = _count_by_id(queries)
        self.tick(sum(per_query[q] for q in answers))
        group = max(1, self.policy.titles_per_request)
        for start in range(0, len(todo), group):
            chunk = todo[start : start + group]
            if not self.can_ask:
                continue
            try:
                found = self._ask_titles(chunk)
                if self.cache is not None:
                    for query, records in found.items():
                        self.cache.put_query(query, records)
            except (ArxivError, sqlite3.Error) as exc:
                self.fail(exc)
                continue
            answers.update(found)
            self.tick(sum(per_query[q] for q in chunk))  # the bar moves while titles are asked
        return answers

    def _ask_titles(self, chunk: list[str]) -> dict[str, tuple[ArxivRecord, ...]]:
        client = self.client
        assert client is not None
        per_title = self.policy.max_candidates
        if len(chunk) == 1:
            feed = client.search(chunk[0], max_results=per_title)
            return {chunk[0]: feed.records}
        # moonshot: one OR-ed request; every title sees every result and is scored against it
        feed = client.search(combine_queries(chunk), max_results=per_title * len(chunk))
        total = feed.total_results if feed.total_results is not None else len(feed.records)
        if total <= len(feed.records):
            return {query: feed.records for query in chunk}
        # the page was full, so one title's paper may have been crowded out: ask singly
        return {query: client.search(query, max_results=per_title).records for query in chunk}


def _count_by_id(asked: Sequence[str]) -> dict[str, int]:
    """How many entries share each asked id or query (each costs one lookup, ticks many)."""
    counts: dict[str, int] = {}
    for wanted in asked:
        counts[wanted] = counts.get(wanted, 0) + 1
    return counts


def enrich_entries(
    entries: Sequence[Entry],
    *,
    client: ArxivClient | None,
    cache: ArxivCache | None = None,
    policy: EnrichPolicy | None = None,
    progress: ProgressCallback | None = None,
) -> EnrichResult:
    """Fill and check `entries` from arXiv; returns new entries in the same order.

    Entries are found by the arXiv id they hold (batched `id_list` requests), else by title
    (see `EnrichPolicy.title_search`). With `client=None` or an offline cache only cached
    answers are used. Never raises for API trouble: the result's `failed` flag and one
    `arxiv.unavailable` diagnostic (severity error, so the run exits 1) say what was left
    unchanged; entries answered before the failure keep their enrichment.
    """
    policy = policy or EnrichPolicy()
    run = _Run(client, cache, policy, len(entries), progress)
    out = list(entries)
    hits: dict[int, IdHit] = {}
    titled: dict[int, str] = {}
    for index, entry in enumerate(entries):
        hit = find_arxiv_id(entry)
        if hit is not None:
            hits[index] = hit
        elif wants_title_search(entry, policy.title_search):
            authors = entry_authors(entry)
            query = title_query(entry.get("title"), authors[0] if authors else None)
            if query:
                titled[index] = query
            else:
                run.stats.not_matched += 1
                run.diagnostics.append(info("arxiv.no-match", "the title has no plain words to "
                                            "search arXiv with", **_where(entry)))  # fmt: skip
    run.stats.by_id, run.stats.by_title = len(hits), len(titled)
    run.stats.skipped = len(entries) - len(hits) - len(titled) - run.stats.not_matched
    run.tick(len(entries) - len(hits) - len(titled))

    known, refused = run.resolve_ids([h.arxiv_id.versioned for h in hits.values()])
    for index, hit in hits.items():
        out[index] = _apply_id(run, entries[index], hit, known, refused)

    answers = run.search_titles(list(titled.values()))
    for index, query in titled.items():
        if query in answers:
            out[index] = _apply_title(run, entries[index], answers[query])
    run.sync()
    _summarise(run, len(entries))
    return EnrichResult(out, run.diagnostics, run.stats)


def _apply_id(
    run: _Run,
    entry: Entry,
    hit: IdHit,
    known: dict[str, ArxivRecord | None],
    refused: dict[str, str],
) -> Entry:
    asked = hit.arxiv_id.versioned
    where = _where(entry)
    if asked in refused:
        run.stats.not_matched += 1
        run.diagnostics.append(
            warning(
                "arxiv.invalid-id",
                f"arXiv refused the id {asked} (from field {hit.field}): {refused[asked]}",
                **where,
            )
        )
        return entry
    if asked not in known:
        return entry  # not asked (offline or failure): counted in the summary
    record = known[asked]
    if record is None:
        run.stats.not_matched += 1
        run.diagnostics.append(
            warning(
                "arxiv.unknown-id",
                f"arXiv has no paper {asked} (from field {hit.field}); entry left as it was",
                **where,
            )
        )
        return entry
    suspect = id_record_suspect(entry, record)
    if suspect:
        run.stats.not_matched += 1
        run.diagnostics.append(
            warning(
                "arxiv.id-mismatch",
                f"arXiv {asked} is {record.title!r}, "
                f"which does not look like this entry ({suspect}); "
                "check the id; entry left as it was",
                **where,
            )
        )
        return entry
    run.stats.matched += 1
    how = f"by id {asked} (field {hit.field})"
    return _merge(run, entry, record, how, cite_version=hit.arxiv_id.version is not None)


def _apply_title(run: _Run, entry: Entry, candidates: tuple[ArxivRecord, ...]) -> Entry:
    decision: Decision = decide(entry, candidates)
    where = _where(entry)
    if decision.outcome == "matched" and decision.best is not None:
        run.stats.matched += 1
        best = decision.best
        how = f"by title (similarity {best.title:.2f}, score {best.value:.2f})"
        return _merge(run, entry, best.record, how)
    if decision.outcome == "ambiguous" and decision.best is not None:
        run.stats.ambiguous += 1
        ids = ", ".join(s.record.versioned_id for s in (decision.best, *decision.rivals))
        run.diagnostics.append(
            warning(
                "arxiv.ambiguous",
                f"several arXiv papers fit the title equally well ({ids}); entry left as it was",
                **where,
            )
        )
        return entry
    run.stats.not_matched += 1
    closest = decision.best
    detail = (
        f"; closest {closest.record.versioned_id} {closest.record.title!r}: {closest.reason}"
        if closest is not None
        else "; the search found nothing"
    )
    run.diagnostics.append(
        info("arxiv.no-match", f"no arXiv paper matches this entry{detail}", **where)
    )
    return entry


def _merge(
    run: _Run, entry: Entry, record: ArxivRecord, how: str, *, cite_version: bool = False
) -> Entry:
    policy = run.policy
    merged, changes = merge_record(entry, record, overwrite=policy.overwrite,
                                   prefer_published=policy.prefer_published,
                                   cite_version=cite_version)  # fmt: skip
    where = _where(entry)
    # fills are listed together in `arxiv.enriched`; every other decision gets its own line
    run.diagnostics.extend(c.diagnostic(where) for c in changes if c.kind != "filled")
    filled = [c.name for c in changes if c.kind == "filled"]
    if merged != entry:
        run.stats.changed += 1
        run.diagnostics.append(
            info(
                "arxiv.enriched",
                f"matched arXiv {record.versioned_id} {how}"
                + (f"; filled {', '.join(filled)}" if filled else ""),
                **where,
            )
        )
    return merged


def _summarise(run: _Run, total: int) -> None:
    if run.cache is not None:
        problems = run.cache.take_problems()
        run.diagnostics.extend(warning("arxiv.cache", p, source="arXiv") for p in problems)
    stats = run.stats
    left = total - stats.skipped - stats.matched - stats.not_matched - stats.ambiguous
    if run.failure:
        # an error, so the run ends with exit code 1, though every entry is still written
        run.diagnostics.append(
            error(
                "arxiv.unavailable",
                f"arXiv enrichment stopped: "
                f"{run.failure}; {left} of {total} entries were left as "
                "they were",
                source="arXiv",
            )
        )
    elif left > 0:
        run.diagnostics.append(
            info(
                "arxiv.not-cached",
                f"offline: {left} of {total} entries "
                "have no cached arXiv answer and were left as they were",
                source="arXiv",
            )
        )


ARGUMENTS = "arguments"  # the source name of ids given on the command line


def fetch_entries(
    ids: Iterable[str],
    *,
    client: ArxivClient | None,
    cache: ArxivCache | None = None,
    policy: EnrichPolicy | None = None,
    progress: ProgressCallback | None = None,
) -> EnrichResult:
    """Entries for arXiv ids or URLs given on the command line (`citekit arxiv ID...`).

    Text that is no arXiv id, and ids arXiv does not know, are `error` diagnostics (nothing
    to write for them). On API failure the result is `failed` with an `arxiv.unavailable` error.
    """
    policy = policy or EnrichPolicy()
    given = list(ids)
    run = _Run(client, cache, policy, len(given), progress)
    # diagnostics and entries say which argument they come from: `arguments:2` is the second
    parsed = [(text, parse_arxiv_id(text)) for text in given]
    for position, (text, found) in enumerate(parsed, 1):
        if found is None:
            run.diagnostics.append(error("arxiv.invalid-id", f"not an arXiv id: {text!r}",
                                         source=ARGUMENTS, line=position, raw=text))  # fmt: skip
    asked = [found.versioned for _, found in parsed if found is not None]
    known, refused = run.resolve_ids(asked)
    out: list[Entry] = []
    unanswered = 0
    for position, (text, found) in enumerate(parsed, 1):
        if found is None:
            continue
        key = found.versioned
        record = known.get(key)
        if record is not None:
            run.stats.matched += 1
            out.append(record_entry(record, prefer_published=policy.prefer_published,
                                    cite_version=found.version is not None,
                                    origin=Origin(ARGUMENTS, position, "arxiv", text)))  # fmt: skip
        elif key in refused or key in known:  # refused by the API, or answered "no such paper"
            reason = refused.get(key, "arXiv has no such paper")
            run.diagnostics.append(error("arxiv.unknown-id", f"{text}: {reason}",
                                         source=ARGUMENTS, line=position, raw=text))  # fmt: skip
        else:
            unanswered += 1
    run.sync()
    if cache is not None:
        problems = cache.take_problems()
        run.diagnostics.extend(warning("arxiv.cache", p, source="arXiv") for p in problems)
    if run.failure:
        run.diagnostics.append(
            error("arxiv.unavailable", f"arXiv could not be reached: {run.failure}", source="arXiv")
        )
    elif unanswered:
        run.diagnostics.append(
            error(
                "arxiv.not-cached",
                f"offline: {unanswered} id(s) have no cached arXiv answer",
                source="arXiv",
            )  # fmt: skip
        )
    return EnrichResult(out, run.diagnostics, run.stats)
