"""Fixtures for the arXiv tests: the local server (see localarxiv.py), a fake clock, a client
factory, and the check that a full run serves every recorded fixture."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from localarxiv import FakeClock, LocalArxiv, _handler

from citekit.arxiv.client import ArxivClient

_STATE: LocalArxiv | None = None


@pytest.fixture(scope="session")
def arxiv_server() -> Iterator[LocalArxiv]:
    global _STATE
    state = LocalArxiv()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/api/query"
    _STATE = state
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def server(arxiv_server: LocalArxiv) -> LocalArxiv:
    arxiv_server.reset()
    return arxiv_server


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_client(server: LocalArxiv, clock: FakeClock) -> Callable[..., ArxivClient]:
    def make(**options: Any) -> ArxivClient:
        options.setdefault("base_url", server.url)
        options.setdefault("timeout", 5.0)
        return ArxivClient(clock=clock, sleep=clock.sleep, rng=random.Random(0), **options)

    return make


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a full run of tests/arxiv that left a recorded fixture unused (arxiv.py's idea)."""
    if _STATE is None or exitstatus != 0:
        return
    config = session.config
    if config.getoption("keyword") or config.getoption("markexpr") or config.getoption("lf", default=False):
        return
    here = Path(__file__).parent
    ran = {
        Path(str(item.fspath)).name
        for item in session.items
        if Path(str(item.fspath)).parent == here
    }
    whole = {p.name for p in here.glob("test_*.py")}
    if not whole or ran != whole or any("::" in a for a in config.args):
        return
    unused = sorted(_STATE.all_recorded - _STATE.used)
    if unused:
        session.exitstatus = 1
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"tests/arxiv: recorded fixtures never served: {unused}", red=True)
