"""Enrichment end to end: the real client and cache against the local server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from localarxiv import FIXTURES, FakeClock, LocalArxiv, Scripted

from citekit.arxiv.cache import ArxivCache
from citekit.arxiv.client import ArxivClient
from citekit.arxiv.enrich import (
    EnrichPolicy,
    Progress,
    enrich_entries,
    fetch_entries,
    wants_title_search,
)
from citekit.model import OTHERS, Date, Entry, Extra, Name, Origin, plain

Make = Callable[..., ArxivClient]


def _codes(result) -> list[str]:  # noqa: ANN001
    return [d.code for d in result.diagnostics]


@pytest.fixture
def cache(tmp_path: Path) -> ArxivCache:
    return ArxivCache(tmp_path / "arxiv.sqlite3", now=lambda: 1_000_000.0)


def entry(
    key: str,
    title: str = "",
    *authors: Name,
    year: int | None = None,
    type: str = "article",
    **fields: str,
) -> Entry:
    values: dict[str, object] = {"title": title} if title else {}
    values.update({k.replace("_", "-"): v for k, v in fields.items()})
    return Entry(type=type, key=key, fields=values, names={"author": list(authors)} if authors
                 else {}, dates={"issued": Date(year=year)} if year else {},
                 origin=Origin("refs.bib", 3, "bibtex"))  # fmt: skip


STANLEY = Name(family="Stanley", given="Caprice")
WINDISCH = Name(family="Windisch", given="Tobias")


def test_by_id_fills_what_is_missing(server: LocalArxiv, make_client: Make,
                                     cache: ArxivCache) -> None:  # fmt: skip
    start = entry(
        "stanley", "Heat-bath random walks with Markov bases", STANLEY, WINDISCH, arxiv="1605.08386"
    )
    result = enrich_entries([start], client=make_client(), cache=cache)
    (out,) = result.entries
    assert out.fields == {
        "title": "Heat-bath random walks with Markov bases",
        "arxiv": "1605.08386",
        "abstract": out.fields["abstract"],
        "arxiv-class": "math.CO",
        "URL": "https://arxiv.org/abs/1605.08386",
        "publisher": "arXiv",
        "arxiv-comment": "20 pages, 3 figures",
        "DOI": "10.48550/arXiv.1605.08386",
        "links": "https://arxiv.org/pdf/1605.08386",
    }  # no arxiv-version: the entry cites the latest version, so it still does
    assert str(out.fields["abstract"]).startswith("Graphs on lattice points are studied")
    assert out.names["author"] == [STANLEY, WINDISCH]  # the user's names are kept
    assert out.dates == {"issued": Date(2016, 5, 26), "available-date": Date(2016, 5, 26)}
    assert start.fields == {
        "title": "Heat-bath random walks with Markov bases",
        "arxiv": "1605.08386",
    }  # the input entry is not touched
    assert _codes(result) == ["arxiv.enriched"]  # every fill listed in one line per entry
    last = result.diagnostics[-1]
    assert (last.source, last.line, last.key) == ("refs.bib", 3, "stanley")
    assert last.message == (
        "matched arXiv 1605.08386v1 by id 1605.08386 (field arxiv); filled abstract, arxiv-class, "
        "URL, publisher, arxiv-comment, DOI, issued, available-date, links"
    )
    stats = result.stats
    assert (stats.requests, stats.matched, stats.changed, stats.by_id, stats.failed) == (
        1,
        1,
        1,
        1,
        False,
    )


def test_a_named_version_is_kept_and_linked(server: LocalArxiv, make_client: Make) -> None:
    start = entry("blaha", URL="https://arxiv.org/abs/quant-ph/0201082v1")
    (out,) = enrich_entries([start], client=make_client()).entries
    assert out.get("arxiv") == "quant-ph/0201082" and out.get("arxiv-version") == "1"
    assert out.get("links") == "https://arxiv.org/pdf/quant-ph/0201082v1"
    assert out.get("URL") == "https://arxiv.org/abs/quant-ph/0201082v1"  # the user's URL stays


def test_ids_cost_one_request_per_batch(server: LocalArxiv, make_client: Make) -> None:
    entries = [
        entry("a", eprint="1605.08386", eprinttype="arXiv"),
        entry("b", URL="https://arxiv.org/abs/astro-ph/0601001"),
        entry("c", DOI="10.48550/arXiv.1111.2011"),
        entry("d", note="arXiv:quant-ph/0201082v1"),
        entry("e", **{"container-title": "CoRR", "volume": "abs/1605.08386"}),
    ]
    result = enrich_entries(entries, client=make_client(), cache=None)
    assert len(server.requests) == 1  # four distinct ids, one id_list request
    assert server.requests[0].params["max_results"] == "4"
    assert result.stats.matched == 5
    assert [e.get("arxiv") for e in result.entries] == [
        "1605.08386",
        "astro-ph/0601001",
        "1111.2011",
        "quant-ph/0201082",
        "1605.08386",
    ]
    server.reset()
    enrich_entries(entries, client=make_client(), policy=EnrichPolicy(batch_size=2))
    assert len(server.requests) == 2


def test_second_run_uses_the_cache(server: LocalArxiv, make_client: Make,
                                   cache: ArxivCache) -> None:  # fmt: skip
    entries = [entry("a", arxiv="1605.08386"),
               entry("t", "Thermal melting of density waves on the square lattice",
                     Name(family="Del Maestro", given="Adrian"))]  # fmt: skip
    first = enrich_entries(entries, client=make_client(), cache=cache)
    assert first.stats.requests == 2 and first.stats.matched == 2
    second = enrich_entries(entries, client=make_client(), cache=cache)
    assert second.stats.requests == 0 and second.stats.cache_hits == 2
    assert [e.fields for e in second.entries] == [e.fields for e in first.entries]
    refreshed = enrich_entries(entries, client=make_client(),
                               cache=ArxivCache(cache.path, mode="refresh"))  # fmt: skip
    assert refreshed.stats.requests == 2 and refreshed.stats.cache_hits == 0


def test_expired_answers_are_asked_again(server: LocalArxiv, make_client: Make,
                                         tmp_path: Path) -> None:  # fmt: skip
    now = [0.0]
    cache = ArxivCache(tmp_path / "c.sqlite3", max_age=100.0, now=lambda: now[0])
    enrich_entries([entry("a", arxiv="1605.08386")], client=make_client(), cache=cache)
    now[0] = 50.0
    assert enrich_entries([entry("a", arxiv="1605.08386")], client=make_client(),
                          cache=cache).stats.requests == 0  # fmt: skip
    now[0] = 150.0
    assert enrich_entries([entry("a", arxiv="1605.08386")], client=make_client(),
                          cache=cache).stats.requests == 1  # fmt: skip
    offline = ArxivCache(cache.path, mode="offline", max_age=100.0, now=lambda: 10_000.0)
    stale = enrich_entries([entry("a", arxiv="1605.08386")], client=make_client(), cache=offline)
    assert stale.stats.requests == 0 and stale.stats.matched == 1  # offline takes stale answers


def test_offline_without_cached_answers(server: LocalArxiv, make_client: Make,
                                        tmp_path: Path) -> None:  # fmt: skip
    offline = ArxivCache(tmp_path / "empty.sqlite3", mode="offline")
    entries = [entry("a", arxiv="1605.08386"), entry("b", "Some listing title here", STANLEY)]
    result = enrich_entries(entries, client=make_client(), cache=offline)
    assert server.requests == [] and result.entries == entries
    assert _codes(result) == ["arxiv.not-cached"]
    assert result.diagnostics[0].message == (
        "offline: 2 of 2 entries have no cached arXiv answer and were left as they were"
    )
    assert not result.failed


def test_failure_leaves_entries_unchanged_with_one_summary(
    server: LocalArxiv, clock: FakeClock, make_client: Make, cache: ArxivCache
) -> None:
    server.queue(*[Scripted(503, b"Service Unavailable") for _ in range(10)])
    entries = [entry("a", arxiv="1605.08386"), entry("b", arxiv="astro-ph/0601001"),
               entry("c", "Thermal melting of density waves on the square lattice",
                     Name(family="Del Maestro", given="Adrian"))]  # fmt: skip
    result = enrich_entries(entries, client=make_client(max_retries=1),
                            cache=cache, policy=EnrichPolicy(batch_size=1))  # fmt: skip
    assert result.entries == entries
    assert result.failed and _codes(result) == ["arxiv.unavailable"]
    assert result.diagnostics[0].severity == "error"  # so the run exits 1
    assert "3 of 3 entries were left as they were" in result.diagnostics[0].message
    assert len(server.requests) == 2  # no further batch or title search after giving up


def test_unknown_refused_and_suspect_ids(server: LocalArxiv, make_client: Make) -> None:
    server.refuse.add("2101.00002")
    entries = [
        entry("unknown", arxiv="2101.99999"),
        entry("refused", arxiv="2101.00002"),
        entry("typo", "Deep learning for cats", Name(family="Nobody"), arxiv="1605.08386"),
    ]
    result = enrich_entries(entries, client=make_client())
    assert result.entries == entries
    assert _codes(result) == ["arxiv.unknown-id", "arxiv.invalid-id", "arxiv.id-mismatch"]
    assert result.stats.not_matched == 3


def test_listing_entry_by_title_gets_its_full_author_list(
    server: LocalArxiv, make_client: Make
) -> None:
    gould = Name(family="Gould", given="Andrew")
    listing = entry("gould2006", "Frequency of Hot Jupiters and Very Hot Jupiters from the "
                    "OGLE-III Transit Surveys Toward the Galactic Bulge and Carina", gould, OTHERS,
                    year=2006, publisher="arXiv")  # fmt: skip
    result = enrich_entries([listing], client=make_client())
    (seen,) = server.requests
    assert seen.params["search_query"] == (
        'ti:"frequency of hot jupiters and very hot jupiters from the ogle iii" AND au:gould'
    )
    (out,) = result.entries
    assert [n.family for n in out.names["author"]] == ["Gould", "Dorsher", "Gaudi", "Udalski"]
    assert not any(n.others for n in out.names["author"])
    assert out.get("arxiv") == "astro-ph/0601001"
    assert out.get("journal-ref") == "ActaAstron.56:1-50,2006"
    assert "arxiv.authors-completed" in _codes(result)
    assert out.dates["issued"] == Date(2006, 1, 2)  # same year: arXiv adds month and day
    # the abstract's TeX is decoded (`3--5` is an en dash, `&amp;` a plain ampersand)
    abstract = plain(out.fields["abstract"])
    assert abstract.startswith("We derive the frequencies of hot Jupiters (HJs) with 3–5 day")
    assert "following Gould & Morgan (2003)" in abstract


def test_overwrite_and_conflicts(server: LocalArxiv, make_client: Make) -> None:
    mine = entry("s", "Heat bath walks", STANLEY, WINDISCH, year=2017, arxiv="1605.08386",
                 arxiv_comment="my comment")  # fmt: skip
    kept = enrich_entries([mine], client=make_client()).entries[0]
    assert kept.get("title") == "Heat bath walks" and kept.dates["issued"] == Date(2017)
    assert kept.get("arxiv-comment") == "my comment"
    result = enrich_entries([mine], client=make_client(), policy=EnrichPolicy(overwrite=True))
    (out,) = result.entries
    assert out.get("title") == "Heat-bath random walks with Markov bases"
    assert out.dates["issued"] == Date(2016, 5, 26)
    overwritten = [d.message for d in result.diagnostics if d.code == "arxiv.overwritten"]
    assert overwritten == [
        "title: replaced 'Heat bath walks' with arXiv's 'Heat-bath random walks with Markov bases'",
        "arxiv-comment: replaced 'my comment' with arXiv's '20 pages, 3 figures'",
        "issued: replaced '2017' with arXiv's '2016-5-26'",
    ]


def test_conflicts_are_reported_and_values_kept(server: LocalArxiv, make_client: Make) -> None:
    mine = entry("s", "Heat bath walks", STANLEY, year=2017, arxiv="1605.08386")
    result = enrich_entries([mine], client=make_client())
    conflicts = [d.message for d in result.diagnostics if d.code == "arxiv.conflict"]
    assert conflicts == [
        "title: kept 'Heat bath walks'; arXiv has 'Heat-bath random walks with Markov bases' "
        "(use --overwrite to take arXiv's)",
        "issued: kept '2017'; arXiv has '2016-5-26' (use --overwrite to take arXiv's)",
        "author: kept 'Caprice Stanley'; arXiv has 'Caprice Stanley; Tobias Windisch' "
        "(use --overwrite to take arXiv's)",
    ]


def test_published_version(server: LocalArxiv, make_client: Make) -> None:
    preprint = entry("murray", arxiv="1111.2011v2", DOI="10.48550/arXiv.1111.2011")
    plain_run = enrich_entries([preprint], client=make_client())
    (kept,) = plain_run.entries
    assert kept.type == "article" and kept.get("DOI") == "10.48550/arXiv.1111.2011"
    assert kept.get("journal-ref") == "Phys. Rev. B 85, 115117 (2012)"
    assert any(d.code == "arxiv.conflict" and "10.1103/PhysRevB.85.115117" in d.message
               for d in plain_run.diagnostics)  # fmt: skip
    result = enrich_entries([preprint], client=make_client(),
                            policy=EnrichPolicy(prefer_published=True))  # fmt: skip
    (out,) = result.entries
    assert out.type == "article-journal" and out.source_type == ""
    assert out.get("DOI") == "10.1103/PhysRevB.85.115117"
    assert (out.get("container-title"), out.get("volume"), out.get("page")) == (
        "Phys. Rev. B",
        "85",
        "115117",
    )
    assert out.dates["issued"] == Date(2012)
    assert out.get("arxiv") == "1111.2011" and out.get("arxiv-version") == "2"
    assert "arxiv.published" in _codes(result)


def test_scholar_style_preprint_is_not_mixed_with_the_journal(
    server: LocalArxiv, make_client: Make
) -> None:
    scholar = entry("murray", "Quantum criticality for extended nodes", Name(family="Murray"),
                    OTHERS, year=2011, type="article-journal",
                    **{"container-title": "arXiv preprint arXiv:1111.2011"})  # fmt: skip
    (kept,) = enrich_entries([scholar], client=make_client()).entries
    assert kept.type == "article-journal"
    assert kept.get("container-title") == "arXiv preprint arXiv:1111.2011"
    assert "volume" not in kept.fields and "page" not in kept.fields  # never half a journal
    assert kept.get("DOI") == "10.1103/PhysRevB.85.115117"
    assert kept.dates["issued"] == Date(2011, 11, 8)
    result = enrich_entries([scholar], client=make_client(),
                            policy=EnrichPolicy(prefer_published=True))  # fmt: skip
    (out,) = result.entries
    assert (out.get("container-title"), out.get("volume"), out.get("page")) == (
        "Phys. Rev. B",
        "85",
        "115117",
    )
    assert out.dates["issued"] == Date(2012)
    replaced = [d.message for d in result.diagnostics if d.code == "arxiv.overwritten"]
    assert replaced[0].startswith("container-title: replaced 'arXiv preprint arXiv:1111.2011'")


def test_a_journal_paper_keeps_its_venue(server: LocalArxiv, make_client: Make) -> None:
    paper = entry("murray", "Quantum criticality for extended nodes", Name(family="Murray"),
                  type="article-journal", arxiv="1111.2011",
                  **{"container-title": "Physical Review B"})  # fmt: skip
    (out,) = enrich_entries([paper], client=make_client(),
                            policy=EnrichPolicy(prefer_published=True)).entries  # fmt: skip
    assert out.get("container-title") == "Physical Review B" and "volume" not in out.fields
    assert out.get("DOI") == "10.1103/PhysRevB.85.115117"


def test_title_search_only_where_it_can_help(server: LocalArxiv, make_client: Make) -> None:
    journal = entry("j", "Thermal melting of density waves on the square lattice",
                    Name(family="Del Maestro"), type="article-journal",
                    DOI="10.1103/PhysRevB.71.184511")  # fmt: skip
    untitled = entry("u")
    only_math = entry("m", "$E=mc^2$", STANLEY)
    result = enrich_entries([journal, untitled, only_math], client=make_client())
    assert server.requests == [] and result.entries == [journal, untitled, only_math]
    assert (result.stats.skipped, result.stats.not_matched) == (2, 1)
    assert [(d.code, d.key) for d in result.diagnostics] == [("arxiv.no-match", "m")]
    everything = enrich_entries([journal], client=make_client(),
                                policy=EnrichPolicy(title_search="all"))  # fmt: skip
    assert len(server.requests) == 1 and everything.stats.matched == 1


def test_progress_reports_every_entry(server: LocalArxiv, make_client: Make) -> None:
    seen: list[Progress] = []
    entries = [entry("a", arxiv="1605.08386"), entry("b", arxiv="astro-ph/0601001"),
               entry("c", "Thermal melting of density waves on the square lattice",
                     Name(family="Del Maestro")), entry("d")]  # fmt: skip
    enrich_entries(entries, client=make_client(), policy=EnrichPolicy(batch_size=1),
                   progress=seen.append)  # fmt: skip
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert seen[-1].done == seen[-1].total == 4
    assert seen[-1].requests == 3 and seen[-1].waited == 6.0


def test_fetch_entries_for_the_arxiv_command(server: LocalArxiv, make_client: Make) -> None:
    result = fetch_entries(["1605.08386", "not-an-id", "https://arxiv.org/abs/astro-ph/0601001",
                            "2101.99999"], client=make_client())  # fmt: skip
    assert len(server.requests) == 1
    assert [e.get("arxiv") for e in result.entries] == ["1605.08386", "astro-ph/0601001"]
    first = result.entries[0]
    assert first.type == "article"
    assert [n.family for n in first.names["author"]] == ["Stanley", "Windisch"]
    assert first.get("DOI") == "10.48550/arXiv.1605.08386"
    assert [(d.severity, d.code, d.source, d.line) for d in result.diagnostics] == [
        ("error", "arxiv.invalid-id", "arguments", 2),
        ("error", "arxiv.unknown-id", "arguments", 4),
    ]
    assert [(e.origin.source, e.origin.line) for e in result.entries if e.origin] == [
        ("arguments", 1),
        ("arguments", 3),
    ]
    published = fetch_entries(["1111.2011"], client=make_client(),
                              policy=EnrichPolicy(prefer_published=True))  # fmt: skip
    assert published.entries[0].type == "article-journal"


def test_fetch_entries_when_arxiv_is_down(server: LocalArxiv, make_client: Make) -> None:
    server.queue(*[Scripted(503, b"") for _ in range(3)])
    result = fetch_entries(["1605.08386"], client=make_client(max_retries=2))
    assert result.entries == [] and result.failed
    assert [d.code for d in result.diagnostics] == ["arxiv.unavailable"]


def test_extras_from_other_readers_are_used(server: LocalArxiv, make_client: Make) -> None:
    bib = Entry(type="article", key="x", extra=[Extra("bibtex", "arxivid", "1605.08386")])
    (out,) = enrich_entries([bib], client=make_client()).entries
    assert out.get("arxiv") == "1605.08386"


def test_or_ed_titles_fall_back_when_the_page_is_full(
    server: LocalArxiv, make_client: Make
) -> None:
    entries = [entry("a", "Thermal melting of density waves on the square lattice",
                     Name(family="Del Maestro")),
               entry("b", "Interacting bosons in one dimension and Luttinger liquid theory",
                     Name(family="Del Maestro"))]  # fmt: skip
    roomy = enrich_entries(entries, client=make_client(),
                           policy=EnrichPolicy(titles_per_request=2))  # fmt: skip
    assert len(server.requests) == 1 and roomy.stats.matched == 2
    assert server.requests[0].params["search_query"] == (
        '(ti:"thermal melting of density waves on the square lattice" AND au:del_maestro) OR '
        '(ti:"interacting bosons in one dimension and luttinger liquid theory" AND '
        "au:del_maestro)"
    )
    server.reset()
    # without an author the first title hits two papers: three hits for a page of two
    crowded = [entry("a", "Heat-bath random walks with Markov bases", year=2016), entries[1]]
    tight = enrich_entries(crowded, client=make_client(),
                           policy=EnrichPolicy(titles_per_request=2, max_candidates=1))  # fmt: skip
    assert len(server.requests) == 3  # the page was full: each title asked again on its own
    assert [e.get("arxiv") for e in tight.entries] == ["1605.08386", "1005.5383"]


def test_tex_arxiv_cannot_decode_is_kept_and_reported(
    server: LocalArxiv, make_client: Make
) -> None:
    body = (
        (FIXTURES / "arxivpy-2026-id-single-1605.08386.xml")
        .read_bytes()
        .replace(
            b"<title>Heat-bath random walks with Markov bases</title>",
            b"<title>Heat-bath random walks with \\frobnicate{Markov} bases</title>",
        )
    )
    server.queue(Scripted(200, body, {"Content-Type": "application/atom+xml"}))
    result = enrich_entries([entry("s", arxiv="1605.08386")], client=make_client())
    (out,) = result.entries
    assert "\\frobnicate" in str(out.fields["title"])  # kept verbatim, never dropped
    latex = [d for d in result.diagnostics if d.code == "arxiv.latex"]
    assert len(latex) == 1 and latex[0].severity == "warning"
    assert latex[0].message.startswith("title from arXiv: ")


@pytest.mark.parametrize(
    ("candidate", "mode", "expected"),
    [
        (entry("p", "T", type="article"), "auto", True),  # CSL article: a preprint
        (
            entry("s", "T", type="article-journal", **{"container-title": "arXiv preprint"}),
            "auto",
            True,
        ),
        (entry("c", "T", type="article-journal", **{"container-title": "CoRR"}), "auto", True),
        (entry("m", "T", type="document"), "auto", True),  # @misc with nothing else
        (entry("j", "T", type="article-journal", **{"container-title": "Nature"}), "auto", False),
        (entry("d", "T", type="document", DOI="10.1/x"), "auto", False),
        (entry("j", "T", type="article-journal", **{"container-title": "Nature"}), "all", True),
        (entry("p", "T", type="article"), "none", False),
        (entry("u", type="article"), "all", False),  # no title, nothing to search
    ],
)
def test_which_entries_are_searched_by_title(candidate: Entry, mode: str, expected: bool) -> None:
    assert wants_title_search(candidate, mode) is expected  # type: ignore[arg-type]
