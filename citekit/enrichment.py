"""Glue between the command line's arXiv options and `citekit.arxiv`: builds the client, the
cache and the policy once per run, and draws the progress bar (tqdm) on stderr.

Layer 3, beside pipeline.py. Imports arxiv lazily so runs without `--enrich` never pay for
requests. Must not import cli.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .diagnostics import Report
from .model import Bibliography
from .options import WriteOptions
from .pipeline import Conversion, KeyOptions, normalize_keys, write_text


@dataclass(frozen=True, slots=True)
class ArxivSettings:
    """What the user said about reaching arXiv."""

    url: str | None = None
    offline: bool = False
    refresh: bool = False
    cache_dir: str | None = None
    contact: str = ""
    overwrite: bool = False
    prefer_published: bool = False

    @classmethod
    def from_options(cls, opts: dict[str, Any]) -> ArxivSettings:
        return cls(
            url=opts.get("arxiv_url"),
            offline=bool(opts.get("offline")),
            refresh=bool(opts.get("refresh")),
            cache_dir=opts.get("cache_dir"),
            contact=opts.get("contact") or "",
            overwrite=bool(opts.get("overwrite")),
            prefer_published=bool(opts.get("prefer_published")),
        )


@contextmanager
def arxiv_session(settings: ArxivSettings) -> Iterator[tuple[Any, Any, Any]]:
    """(client or None when offline, cache, policy) for one run; the cache is closed after."""
    from . import arxiv

    mode: arxiv.CacheMode = "offline" if settings.offline else (
        "refresh" if settings.refresh else "normal"
    )
    cache = arxiv.ArxivCache.in_dir(settings.cache_dir, mode=mode)
    client = None
    if not settings.offline:
        client = arxiv.ArxivClient(
            base_url=arxiv.resolve_base_url(settings.url), contact=settings.contact
        )
    policy = arxiv.EnrichPolicy(
        overwrite=settings.overwrite, prefer_published=settings.prefer_published
    )
    try:
        yield client, cache, policy
    finally:
        cache.close()
        if client is not None:
            client.close()


def make_enricher(
    settings: ArxivSettings, *, progress: bool
) -> Callable[[Bibliography, Report], None]:
    """A pipeline step that enriches every entry of a bibliography in place of the old list."""

    def enrich(bib: Bibliography, report: Report) -> None:
        from . import arxiv

        with arxiv_session(settings) as (client, cache, policy), progress_bar(
            len(bib.entries), enabled=progress
        ) as tick:
            result = arxiv.enrich_entries(
                bib.entries, client=client, cache=cache, policy=policy, progress=tick
            )
        bib.entries = result.entries
        bib.diagnostics.extend(result.diagnostics)

    return enrich


@contextmanager
def progress_bar(total: int, *, enabled: bool) -> Iterator[Callable[[Any], None] | None]:
    """A tqdm bar on stderr (entries done of total, requests, time waited on the rate limit)."""
    if not enabled or total == 0:
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit="entry", desc="arXiv", leave=False) as bar:

        def tick(step: Any) -> None:
            bar.n = step.done
            bar.set_postfix(requests=step.requests, waited=f"{step.waited:.0f}s", refresh=False)
            bar.refresh()

        yield tick


def fetch_conversion(
    ids: list[str],
    settings: ArxivSettings,
    *,
    to_format: str,
    key_options: KeyOptions,
    progress: bool,
) -> Conversion:
    """`citekit arxiv ID...`: entries for the ids, keyed and rendered; ids arXiv does not know
    (or text that is no id) are rejected records with an error each."""
    from . import arxiv

    with arxiv_session(settings) as (client, cache, policy), progress_bar(
        len(ids), enabled=progress
    ) as tick:
        result = arxiv.fetch_entries(ids, client=client, cache=cache, policy=policy,
                                     progress=tick)  # fmt: skip
    bib = Bibliography(entries=result.entries)
    report = Report(diagnostics=list(result.diagnostics), read=len(ids))
    report.rejected = len(ids) - len(bib.entries)
    conversion = Conversion(bib, report)
    conversion.renames = normalize_keys(bib, key_options)
    report.extend(bib.diagnostics)
    bib.diagnostics = []
    if bib.entries:
        conversion.text, written = write_text(bib, to_format, WriteOptions())
        report.extend(written)
        report.written = len(bib.entries)
    return conversion
