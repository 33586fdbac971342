"""Atom parsing: both response generations, error feeds, hostile and broken bodies."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from citekit.arxiv.atom import ArxivAuthor, AtomError, collapse, parse_feed

FIXTURES = Path(__file__).parent / "fixtures"


def _feed(name: str):  # noqa: ANN202
    return parse_feed((FIXTURES / name).read_bytes())


def test_current_single_id() -> None:
    feed = _feed("arxivpy-2026-id-single-1605.08386.xml")
    assert feed.total_results == 1 and feed.error is None and feed.skipped == ()
    (record,) = feed.records
    assert record.arxiv_id == "1605.08386" and record.version == 1
    assert record.title == "Heat-bath random walks with Markov bases"
    assert record.authors == (ArxivAuthor("Caprice Stanley"), ArxivAuthor("Tobias Windisch"))
    assert record.primary_category == "math.CO"
    assert record.categories == ("math.CO", "math.ST")
    assert record.comment == "20 pages, 3 figures"
    assert record.journal_ref is None and record.doi is None
    assert record.published == datetime(2016, 5, 26, 17, 59, 46, tzinfo=UTC)
    assert record.abs_url == "https://arxiv.org/abs/1605.08386"
    assert record.pdf_url == "https://arxiv.org/pdf/1605.08386v1"
    assert record.arxiv_doi == "10.48550/arXiv.1605.08386"
    assert record.summary.startswith("Graphs on lattice points are studied")


def test_legacy_feed_is_unwrapped_and_read_by_namespace() -> None:
    (record,) = _feed("arxivpy-2016-legacy-idlist-versioned-doi.xml").records
    assert record.title == (
        "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    )
    assert "\n" not in record.summary and not record.summary.startswith(" ")
    assert record.summary.startswith("Theoretical description of anisotropic systems")
    assert (record.arxiv_id, record.version) == ("1111.2011", 2)
    assert record.published.date().isoformat() == "2011-11-08"
    assert record.updated.date().isoformat() == "2012-04-02"
    assert record.doi == "10.1103/PhysRevB.85.115117"
    assert record.journal_ref == "Phys. Rev. B 85, 115117 (2012)"
    assert record.primary_category == "cond-mat.str-el"


def test_old_style_affiliations_and_entities() -> None:
    (record,) = _feed("arxivpy-2026-id-oldstyle-astro-ph-0601001.xml").records
    assert record.arxiv_id == "astro-ph/0601001"
    assert record.authors[0] == ArxivAuthor("Andrew Gould", ("Ohio State",))
    assert record.journal_ref == "ActaAstron.56:1-50,2006"
    assert not record.summary.startswith(" ")
    assert "&amp;" not in record.summary and "&lt;" not in record.summary


def test_non_ascii_names_come_from_bytes() -> None:
    feed = _feed("arxivpy-2026-idlist-multi-one-missing.xml")
    (record,) = feed.records
    assert len(record.authors) == 34
    assert any(a.name.endswith("Wübben") for a in record.authors)


def test_title_zero_is_a_title() -> None:
    (record,) = _feed("arxivpy-2026-id-title-zero-2104.12255v1.xml").records
    assert record.title == "0"


def test_empty_and_error_feeds() -> None:
    empty = _feed("arxivpy-2026-empty-nonexistent-id.xml")
    assert (empty.records, empty.total_results, empty.error) == ((), 0, None)
    failed = _feed("arxivpy-2026-error-malformed-id-http400.xml")
    assert failed.records == ()
    assert failed.error is not None
    assert failed.error.slug == "incorrect_id_format_for_abc"
    assert failed.error.message == "incorrect id format for abc"


def test_search_feed_dois_and_versions() -> None:
    feed = _feed("arxivpy-2026-search-all-testing.xml")
    assert feed.total_results == 214881 and len(feed.records) == 10
    assert (
        feed.query_title == "arXiv Query: search_query=all:testing&id_list=&start=0&max_results=10"
    )
    assert sum(1 for r in feed.records if r.doi) == 6
    assert sum(1 for r in feed.records if r.journal_ref) == 6


def test_a_paper_titled_error_is_not_an_error_feed() -> None:
    body = (FIXTURES / "arxivpy-2026-id-single-1605.08386.xml").read_bytes()
    body = body.replace(
        b"<title>Heat-bath random walks with Markov bases</title>", b"<title>Error</title>"
    )
    feed = parse_feed(body)
    assert feed.error is None and feed.records[0].title == "Error"


def test_entry_without_usable_id_is_skipped_with_a_reason() -> None:
    body = (FIXTURES / "arxivpy-2026-id-single-1605.08386.xml").read_bytes()
    body = body.replace(b"<id>http://arxiv.org/abs/1605.08386v1</id>", b"<id></id>")
    feed = parse_feed(body)
    assert feed.records == ()
    assert feed.skipped == ("entry id '' is not a versioned arXiv id",)


@pytest.mark.parametrize(
    ("body", "retryable", "message"),
    [
        (b"Rate exceeded.", True, "not an Atom feed: 'Rate exceeded.'"),
        (b"", True, "not an Atom feed: empty body"),
        (b"<!DOCTYPE html><html><body>Bad gateway</body></html>", True, "not an Atom feed"),
        (b"<html><body>Bad gateway</body></html>", True, "root element 'html'"),
        (
            b"<?xml version='1.0'?><feed xmlns='http://www.w3.org/2005/Atom'><entry>",
            True,
            "malformed XML",
        ),
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 '
            b'"&lol;&lol;&lol;&lol;">]><feed xmlns="http://www.w3.org/2005/Atom">'
            b"<title>&lol2;</title></feed>",
            False,
            "refused XML",
        ),
        (
            b'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<feed xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></feed>',
            False,
            "refused XML",
        ),
    ],
)
def test_bodies_that_are_not_feeds(body: bytes, retryable: bool, message: str) -> None:
    with pytest.raises(AtomError) as caught:
        parse_feed(body, url="http://x/api/query")
    assert caught.value.retryable is retryable
    assert message in caught.value.message
    assert caught.value.url == "http://x/api/query"


def test_collapse() -> None:
    assert collapse("  a\n   b\tc  ") == "a b c"
    assert collapse(None) == ""
