"""The on-disk cache: keys, expiry, offline and refresh modes, location, damaged files."""

from __future__ import annotations

from pathlib import Path

import pytest
from localarxiv import FIXTURES

from citekit.arxiv.atom import parse_feed
from citekit.arxiv.cache import ArxivCache, Lookup, default_cache_path

RECORD = parse_feed((FIXTURES / "arxivpy-2026-id-oldstyle-astro-ph-0601001.xml").read_bytes()
                    ).records[0]  # fmt: skip


def test_records_round_trip_exactly(tmp_path: Path) -> None:
    with ArxivCache(tmp_path / "c.sqlite3") as cache:
        cache.put_id("astro-ph/0601001", RECORD)
        cache.put_id("2101.99999", None)
        cache.put_query('ti:"frequency of hot jupiters" AND au:gould', [RECORD, RECORD])
    with ArxivCache(tmp_path / "c.sqlite3") as again:
        hit = again.get_id("astro-ph/0601001")
        assert hit.state is Lookup.HIT and hit.record == RECORD  # affiliations, dates, all
        assert again.get_id("2101.99999").state is Lookup.ABSENT
        assert again.get_id("1605.08386").state is Lookup.MISS
        query = again.get_query('ti:"frequency of hot jupiters" AND au:gould')
        assert query.records == (RECORD, RECORD)


def test_expiry_offline_and_refresh(tmp_path: Path) -> None:
    now = [0.0]
    path = tmp_path / "c.sqlite3"
    cache = ArxivCache(path, max_age=100.0, absent_max_age=10.0, now=lambda: now[0])
    cache.put_id("astro-ph/0601001", RECORD)
    cache.put_id("2101.99999", None)
    now[0] = 50.0
    assert cache.get_id("astro-ph/0601001").state is Lookup.HIT
    assert cache.get_id("2101.99999").state is Lookup.MISS  # "no such paper" expires sooner
    now[0] = 500.0
    assert cache.get_id("astro-ph/0601001").state is Lookup.MISS
    offline = ArxivCache(path, mode="offline", max_age=100.0, now=lambda: 500.0)
    assert offline.get_id("astro-ph/0601001").state is Lookup.HIT  # stale beats nothing
    offline.put_id("1605.08386", RECORD)  # offline never writes
    assert ArxivCache(path).get_id("1605.08386").state is Lookup.MISS
    refresh = ArxivCache(path, mode="refresh")
    assert refresh.get_id("astro-ph/0601001").state is Lookup.MISS
    refresh.put_id("1605.08386", RECORD)  # refresh still keeps what it learns
    assert ArxivCache(path).get_id("1605.08386").state is Lookup.HIT


def test_location_follows_xdg_and_can_be_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "citekit" / "arxiv-v1.sqlite3"
    assert ArxivCache().path == default_cache_path()
    assert (tmp_path / "xdg" / "citekit" / "arxiv-v1.sqlite3").exists()
    chosen = ArxivCache.in_dir(tmp_path / "mine")
    assert chosen.path == tmp_path / "mine" / "arxiv-v1.sqlite3"


def test_a_damaged_cache_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database, just junk " * 100)
    cache = ArxivCache(path)
    assert cache.get_id("astro-ph/0601001").state is Lookup.MISS
    cache.put_id("astro-ph/0601001", RECORD)
    assert cache.get_id("astro-ph/0601001").state is Lookup.HIT
    assert (tmp_path / "c.sqlite3.corrupt").read_bytes().startswith(b"this is not")
    (problem,) = cache.take_problems()
    assert "was unreadable" in problem and cache.take_problems() == []
