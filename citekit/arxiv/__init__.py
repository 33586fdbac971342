"""arXiv support: identifiers, the API client, its cache, and enrichment of entries.

The pipeline and CLI use `enrich_entries` and `fetch_entries` with an `ArxivClient` and an
`ArxivCache`; everything else here is the machinery behind them. Must not import cli or pipeline.
"""

from __future__ import annotations

from .atom import ArxivAuthor, ArxivRecord, AtomError, Feed, parse_feed
from .cache import ArxivCache, CacheMode, default_cache_path
from .client import DEFAULT_URL, URL_ENV, ArxivClient, BatchResult, resolve_base_url, user_agent
from .enrich import (
    EnrichPolicy,
    EnrichResult,
    EnrichStats,
    Progress,
    enrich_entries,
    fetch_entries,
)
from .ids import ArxivId, IdHit, find_arxiv_id, parse_arxiv_id
from .merge import merge_record, parse_journal_ref, record_entry

__all__ = [
    "DEFAULT_URL", "URL_ENV", "ArxivAuthor", "ArxivCache", "ArxivClient", "ArxivId",
    "ArxivRecord", "AtomError", "BatchResult", "CacheMode", "EnrichPolicy", "EnrichResult",
    "EnrichStats", "Feed", "IdHit", "Progress", "default_cache_path", "enrich_entries",
    "fetch_entries", "find_arxiv_id", "merge_record", "parse_arxiv_id", "parse_feed",
    "parse_journal_ref", "record_entry", "resolve_base_url", "user_agent",
]  # fmt: skip
