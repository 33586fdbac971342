"""Golden consumer cases: hand-written BibTeX, converted by citekit to CSL-JSON, renders in
citeproc-js (the engine in Zotero and Mendeley) exactly as the hand-checked expected strings,
in an author-date style (APA, as HTML so italics show) and a numeric one (IEEE)."""

from __future__ import annotations

from pathlib import Path

import pytest

import citekit

from .expected import APA_CITATIONS, APA_HTML, IEEE_TEXT
from .harness import render_citeproc_js, validate_csl

pytestmark = pytest.mark.consumer

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def four_works_csl() -> str:
    bib = citekit.read_file(str(GOLDEN / "four-works.bib"))
    assert bib.rejected == []
    citekit.normalize_keys(bib)
    return citekit.write(bib, "csl-json")


def test_four_works_csl_validates(four_works_csl, require):
    require("csl-schema")
    result = validate_csl(four_works_csl)
    assert result.errors == (), result.report()
    assert len(result.keys) == 4


def test_four_works_render_in_citeproc_js_apa(four_works_csl, require):
    require("citeproc-js")
    html = render_citeproc_js(four_works_csl, "apa", output="html")
    assert html.errors == (), html.report()
    assert list(html.rendered) == APA_HTML
    text = render_citeproc_js(four_works_csl, "apa")
    assert list(text.citations) == APA_CITATIONS


def test_four_works_render_in_citeproc_js_ieee(four_works_csl, require):
    require("citeproc-js")
    result = render_citeproc_js(four_works_csl, "ieee")
    assert result.errors == (), result.report()
    assert list(result.rendered) == IEEE_TEXT
    assert list(result.citations) == ["[1]", "[2]", "[3]", "[4]"]
