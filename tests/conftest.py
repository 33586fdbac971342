"""Options and markers shared by the whole test suite (markers are declared in pyproject.toml).

Keep this file small: one block per option, each saying who uses it.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("citekit")
    # tests/consumers: the large corpus file (biber-tugboat.bib, 3,644 entries) goes through
    # the LaTeX/biber/citeproc consumers as a 1-in-10 sample unless `full` is asked for.
    group.addoption("--large-corpus", choices=("sample", "full"), default="sample",
                    help="consumer tests: run a sample (default) or all of a large corpus file")
    # tests/formats/test_bibtex.py: rewrite the golden files in tests/golden/bibtex from the
    # current output instead of comparing against them (review the diff before committing).
    group.addoption("--update-golden", action="store_true", default=False,
                    help="rewrite golden files (tests/golden/...) instead of comparing")
