"""How many arXiv requests enrichment costs, measured against the local test server.

Runs the real client over HTTP on 127.0.0.1 (the replay server of tests/arxiv) with arXiv's
3-second spacing scaled down by a printed factor, and prints requests per entry for: entries
with ids (must be ceil(N / batch)), entries found by title (one or several titles a request),
and a cached rerun (must be 0). Usage: python benchmarks/arxiv_requests.py [--scale 0.01]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "arxiv"))

from localarxiv import LocalArxiv, _handler  # noqa: E402

from citekit.arxiv import ArxivCache, ArxivClient, EnrichPolicy, enrich_entries  # noqa: E402
from citekit.arxiv.atom import parse_feed  # noqa: E402
from citekit.model import Entry, Name  # noqa: E402
from citekit.names import parse_display_name  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "arxiv" / "fixtures"


def start_server() -> tuple[LocalArxiv, ThreadingHTTPServer]:
    state = LocalArxiv()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/api/query"
    return state, server


def corpus_records():  # noqa: ANN201
    seen = {}
    for path in sorted(FIXTURES.glob("*.xml")):
        if "error" in path.name:
            continue
        for record in parse_feed(path.read_bytes()).records:
            seen.setdefault(record.arxiv_id, record)
    return list(seen.values())


def id_entries(n: int) -> list[Entry]:
    """`n` entries holding ids: every recorded paper, then well-formed ids arXiv lacks."""
    ids = [r.arxiv_id for r in corpus_records()]
    months = [f"{yy:02d}{mm:02d}" for yy in range(16, 26) for mm in range(1, 13)]
    ids += [f"{months[i // 9000]}.{90000 + i % 9000:05d}" for i in range(max(0, n - len(ids)))]
    return [Entry(type="article", key=f"id{i}", fields={"arxiv": a}) for i, a in enumerate(ids[:n])]


def title_entries() -> list[Entry]:
    """One entry per distinct recorded title, with its first author's name as a user has it."""
    entries, titles = [], set()
    for i, record in enumerate(corpus_records()):
        if record.title in titles or record.arxiv_id.startswith(("2301.999", "2401.999")):
            continue
        titles.add(record.title)
        first: Name = parse_display_name(record.authors[0].name)
        entries.append(Entry(type="article", key=f"t{i}", fields={"title": record.title},
                             names={"author": [first]}))  # fmt: skip
    return entries


def run(label: str, entries: list[Entry], state: LocalArxiv, *, scale: float,
        cache: ArxivCache | None = None, policy: EnrichPolicy | None = None) -> None:  # fmt: skip
    client = ArxivClient(base_url=state.url, min_interval=3.0 * scale, backoff=5.0 * scale,
                         rate_backoff=30.0 * scale)  # fmt: skip
    state.reset()
    started = time.perf_counter()
    result = enrich_entries(entries, client=client, cache=cache, policy=policy)
    elapsed = time.perf_counter() - started
    stats = result.stats
    per_entry = stats.requests / len(entries) if entries else 0.0
    per_request = len(entries) / stats.requests if stats.requests else float("inf")
    print(
        f"{label:<44} {len(entries):>5} {stats.requests:>8} {per_entry:>9.3f} "
        f"{per_request:>9.2f} {stats.matched:>7} {stats.cache_hits:>6} {stats.waited:>7.2f} "
        f"{elapsed:>7.2f} {max(0, stats.requests - 1) * 3.0:>9.0f}"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--scale",
        type=float,
        default=0.01,
        help="factor applied to arXiv's 3 s spacing (default 0.01 -> 0.03 s)",
    )
    parser.add_argument("--ids", type=int, default=250, help="entries with ids (default 250)")
    args = parser.parse_args()
    scale = args.scale
    state, server = start_server()
    print(
        f"spacing: arXiv's 3.0 s x scale {scale} = {3.0 * scale:.3f} s between requests; "
        f"'floor s' = the least the same run waits against arXiv (3 s between requests)"
    )
    print(
        f"{'case':<44} {'N':>5} {'requests':>8} {'req/entry':>9} {'entry/req':>9} "
        f"{'matched':>7} {'cached':>6} {'waited':>7} {'wall s':>7} {'floor s':>9}"
    )
    ids = id_entries(args.ids)
    for batch in (100, 50, 10):
        result = run(f"ids, batch {batch}", ids, state, scale=scale,
                     policy=EnrichPolicy(batch_size=batch))  # fmt: skip
        assert result.stats.requests == math.ceil(len(ids) / batch), result.stats.requests
    titles = title_entries()
    for per_request in (1, 2, 4, 8):
        run(f"titles, {per_request} title(s) per request", titles, state, scale=scale,
            policy=EnrichPolicy(titles_per_request=per_request))  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        cache = ArxivCache(Path(folder) / "arxiv.sqlite3")
        both = ids + titles
        run("ids + titles, empty cache", both, state, scale=scale, cache=cache)
        again = run("ids + titles, cached rerun", both, state, scale=scale, cache=cache)
        assert again.stats.requests == 0
        one_more = [*both, Entry(type="article", key="new", fields={"arxiv": "2101.99999"})]
        run("ids + titles + one new entry, cached", one_more, state, scale=scale, cache=cache)
        cache.close()
    server.shutdown()


if __name__ == "__main__":
    main()
