"""Fixtures for the consumer tests: `require` and the large-corpus mode."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from . import harness


@pytest.fixture
def require() -> Callable[[str], None]:
    """`require("bibtex")`: skip when the consumer is missing; fail instead under CI=true."""
    return harness.require


@pytest.fixture
def large_corpus(request: pytest.FixtureRequest) -> str:
    """`sample` (default) or `full`: how much of a large corpus file the consumers see."""
    return str(request.config.getoption("--large-corpus"))
