"""The main job's four outputs (the shipped arXiv listings in sources/) through real consumers.

Issue 4: the BibTeX compiles with bibtex and with biblatex + biber, the CSL-JSON validates and
renders in both CSL processors, the RIS parses in rispy; every one of the 36 records arrives.
"""

from __future__ import annotations

import pytest

from citekit.pipeline import convert

from .harness import (
    REPO,
    biber_tool,
    compile_biblatex,
    compile_bibtex,
    parse_rispy,
    render_citeproc_js,
    render_citeproc_py,
    validate_csl,
)

pytestmark = pytest.mark.consumer
SOURCES = str(REPO / "sources")
RECORDS = 36
_TEX_ONLY = frozenset({"latex-warning", "missing-glyph"})


def _main_job(to_format: str) -> tuple[str, list[str]]:
    conversion = convert([SOURCES], to_format=to_format)
    assert conversion.text is not None
    assert conversion.report.written == RECORDS
    return conversion.text, [e.key for e in conversion.bibliography.entries]


@pytest.mark.parametrize("style", ["plain", "plainnat"])
def test_listing_bibtex_compiles_with_bibtex(style: str, require) -> None:
    require("bibtex")
    text, keys = _main_job("bibtex")
    result = compile_bibtex(text, style)
    assert not result.errors, result.report()
    # bibtex's own warnings (missing fields, bad names) must be none; LaTeX's rerun notes are
    # about typesetting, not the .bib
    assert not [w for w in result.warnings if w.code not in _TEX_ONLY], result.report()
    assert sorted(result.keys) == sorted(keys)


def test_listing_biblatex_compiles_with_biber(require) -> None:
    require("biblatex")
    text, keys = _main_job("biblatex")
    result = compile_biblatex(text, "lualatex")
    assert not result.errors, result.report()
    assert sorted(result.keys) == sorted(keys)
    tool = biber_tool(text)
    assert not tool.errors, tool.report()


def test_listing_csl_json_validates_and_renders(require) -> None:
    text, keys = _main_job("csl-json")
    assert not validate_csl(text).errors
    rendered = render_citeproc_py(text)
    assert not rendered.errors, rendered.report()
    require("citeproc-js")
    js = render_citeproc_js(text)
    assert not js.errors, js.report()
    assert len(js.rendered) == RECORDS


def test_listing_ris_parses_in_rispy() -> None:
    text, keys = _main_job("ris")
    result = parse_rispy(text)
    assert not result.errors, result.report()
    assert len(result.records) == RECORDS
