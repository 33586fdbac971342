"""The real ArxivClient over HTTP against the local server: spacing, retries, failures."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest
from localarxiv import FIXTURES, FakeClock, LocalArxiv, Scripted

from citekit.arxiv.atom import AtomError
from citekit.arxiv.client import (
    DEFAULT_URL,
    ArxivClient,
    match_ids,
    resolve_base_url,
    user_agent,
)
from citekit.errors import ArxivHTTPError, ArxivRateLimited, ArxivUnavailable

Make = Callable[..., ArxivClient]
ATOM = {"Content-Type": "application/atom+xml"}
SINGLE = (FIXTURES / "arxivpy-2026-id-single-1605.08386.xml").read_bytes()


def _ids(server: LocalArxiv) -> list[str]:
    return [r.params.get("id_list", "") for r in server.requests]


def test_one_id_one_request(server: LocalArxiv, clock: FakeClock, make_client: Make) -> None:
    client = make_client(contact="lab@example.org")
    result = client.fetch_batch(["1605.08386"])
    assert result.records["1605.08386"].title == "Heat-bath random walks with Markov bases"
    assert result.missing == () and result.refused == {}
    (seen,) = server.requests
    assert seen.path == "/api/query"
    assert seen.params == {"id_list": "1605.08386", "start": "0", "max_results": "1"}
    assert seen.user_agent == f"{user_agent()} (+mailto:lab@example.org)"
    assert seen.user_agent.startswith("citekit/")
    assert clock.sleeps == [] and client.stats.requests == 1


def test_requests_are_three_seconds_apart_on_one_connection(
    server: LocalArxiv, clock: FakeClock, make_client: Make
) -> None:
    client = make_client()
    client.fetch_batch(["1605.08386"])
    client.fetch_batch(["astro-ph/0601001"])
    client.fetch_batch(["quant-ph/0201082v1"])
    assert clock.sleeps == [3.0, 3.0]
    assert client.stats.waited == 6.0
    assert len({r.client_port for r in server.requests}) == 1  # keep-alive, one connection
    assert _ids(server) == ["1605.08386", "astro-ph/0601001", "quant-ph/0201082v1"]


def test_spacing_counts_time_already_passed(clock: FakeClock, make_client: Make) -> None:
    client = make_client()
    client.fetch_batch(["1605.08386"])
    clock.now += 2.0  # the caller spent 2 s elsewhere
    client.fetch_batch(["1605.08386"])
    assert clock.sleeps == [1.0]


def test_batch_with_a_missing_id(server: LocalArxiv, make_client: Make) -> None:
    # 0808.05394 cannot exist (five digits before 1501), so citekit never sends it; the recorded
    # answer shows what arXiv does with it: the known id comes back, the other is just absent
    client = make_client()
    feed = client.query({"id_list": "0808.05394,1707.08567", "start": "0", "max_results": "100"})
    assert match_ids(["0808.05394", "1707.08567"], feed.records).keys() == {"1707.08567"}
    result = client.fetch_batch(["0808.05394", "1707.08567"])
    assert _ids(server) == ["0808.05394,1707.08567", "1707.08567"]
    assert list(result.records) == ["1707.08567"]
    assert result.refused == {"0808.05394": "not a valid arXiv identifier"}


def test_a_well_formed_unknown_id_is_missing(server: LocalArxiv, make_client: Make) -> None:
    server.queue(Scripted(200, (FIXTURES / "arxivpy-2026-empty-nonexistent-id.xml").read_bytes()))
    result = make_client().fetch_batch(["2101.99999"])
    assert result.records == {} and result.missing == ("2101.99999",)


def test_results_are_matched_by_id_not_by_order(server: LocalArxiv, make_client: Make) -> None:
    asked = ["1605.08386", "astro-ph/0601001", "quant-ph/0201082v1", "1111.2011v2"]
    result = make_client().fetch_batch(asked)
    assert len(server.requests) == 1
    assert {k: r.versioned_id for k, r in result.records.items()} == {
        "1605.08386": "1605.08386v1",
        "astro-ph/0601001": "astro-ph/0601001v1",
        "quant-ph/0201082v1": "quant-ph/0201082v1",
        "1111.2011v2": "1111.2011v2",
    }


def test_fetch_ids_batches_and_dedupes(server: LocalArxiv, make_client: Make) -> None:
    asked = ["1605.08386", "astro-ph/0601001", "1605.08386", "quant-ph/0201082v1", "1111.2011v2"]
    result = make_client().fetch_ids(asked, batch_size=2)
    assert _ids(server) == ["1605.08386,astro-ph/0601001", "quant-ph/0201082v1,1111.2011v2"]
    assert len(result.records) == 4


def test_locally_invalid_ids_are_never_sent(server: LocalArxiv, make_client: Make) -> None:
    result = make_client().fetch_batch(["abc", "1605.08386"])
    assert _ids(server) == ["1605.08386"]
    assert result.refused == {"abc": "not a valid arXiv identifier"}


def test_a_refused_batch_is_split_until_the_bad_id_is_alone(
    server: LocalArxiv, make_client: Make
) -> None:
    server.refuse.add("astro-ph/0601001")
    asked = ["1605.08386", "astro-ph/0601001", "quant-ph/0201082v1", "1111.2011v2"]
    result = make_client().fetch_batch(asked)
    assert _ids(server) == [
        "1605.08386,astro-ph/0601001,quant-ph/0201082v1,1111.2011v2",
        "1605.08386,astro-ph/0601001",
        "1605.08386",
        "astro-ph/0601001",
        "quant-ph/0201082v1,1111.2011v2",
    ]
    assert result.refused == {"astro-ph/0601001": "incorrect id format for astro-ph/0601001"}
    assert sorted(result.records) == ["1111.2011v2", "1605.08386", "quant-ph/0201082v1"]


def test_recorded_error_feed_is_final(server: LocalArxiv, make_client: Make) -> None:
    with pytest.raises(ArxivHTTPError) as caught:
        make_client().query({"id_list": "abc", "start": "0", "max_results": "100"})
    assert caught.value.status == 400
    assert caught.value.message == "incorrect id format for abc"
    assert len(server.requests) == 1
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.status, again.message, again.attempt) == (400, caught.value.message, 1)


def test_recorded_empty_feed(server: LocalArxiv, make_client: Make) -> None:
    feed = make_client().query({"id_list": "0000.0000", "start": "0", "max_results": "100"})
    assert feed.records == () and feed.total_results == 0 and feed.error is None


def test_recorded_searches(server: LocalArxiv, make_client: Make) -> None:
    client = make_client()
    phrase = client.search('au:del_maestro AND ti:"quantum criticality"')
    assert [r.versioned_id for r in phrase.records] == ["1111.2011v2", "cond-mat/0607501v2"]
    author = client.search("au:del_maestro")
    assert author.total_results == 31 and len(author.records) == 10
    testing = client.search("testing")
    assert testing.total_results == 214881
    assert server.requests[0].params == {
        "search_query": 'au:del_maestro AND ti:"quantum criticality"',
        "start": "0",
        "max_results": "10",
        "sortBy": "relevance",
        "sortOrder": "descending",
    }


def test_title_zero_by_id(make_client: Make) -> None:
    result = make_client().fetch_batch(["2104.12255v1"])
    assert result.records["2104.12255v1"].title == "0"


def test_503_with_retry_after_is_honoured(
    server: LocalArxiv, clock: FakeClock, make_client: Make
) -> None:
    server.queue(Scripted(503, b"Service Unavailable", {"Retry-After": "7"}))
    result = make_client().fetch_batch(["1605.08386"])
    assert "1605.08386" in result.records
    assert clock.sleeps == [7.0]
    assert _ids(server) == ["1605.08386", "1605.08386"]


def test_429_rate_exceeded_backs_off_without_retry_after(
    server: LocalArxiv, clock: FakeClock, make_client: Make
) -> None:
    server.queue(Scripted(429, b"Rate exceeded.", {"Content-Type": "text/plain"}))
    client = make_client(rate_backoff=30.0)
    client.fetch_batch(["1605.08386"])
    (pause,) = clock.sleeps
    assert 30.0 <= pause <= 37.5  # 30 s plus up to 25 % jitter
    assert client.stats.retries == 1 and client.stats.requests == 2


def test_429_that_never_ends_gives_up(
    server: LocalArxiv, clock: FakeClock, make_client: Make
) -> None:
    server.queue(*[Scripted(429, b"Rate exceeded.") for _ in range(10)])
    client = make_client(max_retries=3, rate_backoff=10.0, max_total=10_000)
    with pytest.raises(ArxivRateLimited) as caught:
        client.fetch_batch(["1605.08386"])
    assert len(server.requests) == 4 and caught.value.attempt == 4
    assert len(clock.sleeps) == 3
    assert clock.sleeps[0] < clock.sleeps[1] < clock.sleeps[2]  # exponential backoff


def test_total_time_is_bounded(server: LocalArxiv, clock: FakeClock, make_client: Make) -> None:
    server.queue(*[Scripted(429, b"Rate exceeded.") for _ in range(10)])
    client = make_client(max_retries=10, rate_backoff=30.0, max_total=60.0)
    with pytest.raises(ArxivRateLimited):
        client.fetch_batch(["1605.08386"])
    assert len(server.requests) == 2  # the second backoff (60 s or more) would pass the budget
    assert sum(clock.sleeps) <= 60.0


def test_retry_after_longer_than_the_budget_stops_at_once(
    server: LocalArxiv, clock: FakeClock, make_client: Make
) -> None:
    server.queue(Scripted(503, b"", {"Retry-After": "3600"}))
    with pytest.raises(ArxivRateLimited):
        make_client(max_total=600.0).fetch_batch(["1605.08386"])
    assert len(server.requests) == 1 and clock.sleeps == []


def test_slow_response_times_out_and_is_retried(server: LocalArxiv, make_client: Make) -> None:
    server.queue(Scripted(200, SINGLE, ATOM, delay=1.0))
    client = make_client(timeout=0.2, backoff=5.0)
    result = client.fetch_batch(["1605.08386"])
    assert "1605.08386" in result.records
    assert len(server.requests) == 2 and client.stats.retries == 1


def test_timeouts_that_persist_raise_unavailable(server: LocalArxiv, make_client: Make) -> None:
    server.queue(*[Scripted(200, SINGLE, ATOM, delay=0.6) for _ in range(2)])
    with pytest.raises(ArxivUnavailable) as caught:
        make_client(timeout=0.15, max_retries=1).fetch_batch(["1605.08386"])
    assert "Timeout" in caught.value.message or "timed out" in caught.value.message


def test_dropped_connection_is_retried(server: LocalArxiv, make_client: Make) -> None:
    server.queue(Scripted(drop=True))
    result = make_client().fetch_batch(["1605.08386"])
    assert "1605.08386" in result.records and len(server.requests) == 2


@pytest.mark.parametrize(
    "bad",
    [
        Scripted(
            200,
            b"<!DOCTYPE html><html><body>Maintenance</body></html>",
            {"Content-Type": "text/html"},
        ),
        Scripted(502, b"<html><body>Bad Gateway</body></html>", {"Content-Type": "text/html"}),
        Scripted(200, SINGLE[: len(SINGLE) // 2], ATOM),  # truncated feed
        Scripted(200, b"", ATOM),
        # an empty page although totalResults says there is one (arxiv.py #43)
        Scripted(200, SINGLE.split(b"<entry>")[0] + b"</feed>", ATOM),
    ],
    ids=["html-200", "html-502", "truncated", "empty-body", "empty-page"],
)
def test_broken_answers_are_retried_never_parsed(
    server: LocalArxiv, clock: FakeClock, make_client: Make, bad: Scripted
) -> None:
    server.queue(bad)
    result = make_client(backoff=5.0).fetch_batch(["1605.08386"])
    assert "1605.08386" in result.records
    assert len(server.requests) == 2
    assert 5.0 <= clock.sleeps[0] <= 6.25


def test_broken_answers_that_persist_raise_unavailable(
    server: LocalArxiv, make_client: Make
) -> None:
    server.queue(*[Scripted(200, SINGLE[:300], ATOM) for _ in range(3)])
    with pytest.raises(ArxivUnavailable) as caught:
        make_client(max_retries=2).fetch_batch(["1605.08386"])
    assert "malformed XML" in caught.value.message and len(server.requests) == 3


def test_entity_bomb_is_refused_without_retry(server: LocalArxiv, make_client: Make) -> None:
    bomb = (
        b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(
            b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
            for i in range(1, 10)
        )
        + b']>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>&lol9;</title></feed>'
    )
    server.queue(Scripted(200, bomb, ATOM))
    with pytest.raises(AtomError) as caught:
        make_client().fetch_batch(["1605.08386"])
    assert not caught.value.retryable and len(server.requests) == 1


def test_forbidden_is_final(server: LocalArxiv, make_client: Make) -> None:
    server.queue(Scripted(403, b"403: Access denied", {"Content-Type": "text/plain"}))
    with pytest.raises(ArxivHTTPError) as caught:
        make_client().fetch_batch(["1605.08386"])
    assert caught.value.status == 403 and "Access denied" in caught.value.message
    assert len(server.requests) == 1


def test_unreachable_server_raises_unavailable(clock: FakeClock) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = ArxivClient(
        base_url=f"http://127.0.0.1:{port}/api/query",
        clock=clock,
        sleep=clock.sleep,
        max_retries=2,
        timeout=1.0,
    )
    with pytest.raises(ArxivUnavailable) as caught:
        client.fetch_batch(["1605.08386"])
    assert caught.value.attempt == 3 and client.stats.requests == 3


def test_base_url_resolution() -> None:
    assert resolve_base_url(None, {}) == DEFAULT_URL
    assert resolve_base_url(None, {"CITEKIT_ARXIV_URL": "http://h/api"}) == "http://h/api"
    assert resolve_base_url("http://o/api", {"CITEKIT_ARXIV_URL": "http://h/api"}) == "http://o/api"
    assert user_agent("https://example.org/me").endswith("(+https://example.org/me)")
