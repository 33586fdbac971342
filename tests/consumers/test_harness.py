"""The consumer harness proven on hand-written inputs: what is good passes, what is broken is
caught with the right classification. No citekit code runs here, so these tests hold the
harness to account before it judges citekit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from . import harness, policy
from .expected import APA_CITATIONS, APA_HTML, IEEE_TEXT
from .harness import (
    Message,
    biber_tool,
    compile_biblatex,
    compile_bibtex,
    parse_blg,
    parse_rispy,
    parse_tex_log,
    render_citeproc_js,
    render_citeproc_py,
    validate_csl,
)

pytestmark = pytest.mark.consumer

GOLDEN = Path(__file__).parent / "golden"

GOOD_BIBTEX = r"""@preamble{"\providecommand{\noopsort}[1]{}"}

@article{knuth84,
  author = {Knuth, Donald E.},
  title = {Literate Programming},
  journal = {The Computer Journal},
  volume = {27},
  number = {2},
  pages = {97--111},
  year = {1984},
  month = may,
  doi = {10.1093/comjnl/27.2.97},
}

@book{berg20,
  author = {van der Berg, Jan and M{\"u}ller, Hans},
  title = {Folding {DNA} with \emph{in vitro} assays and $\mu$-calculus},
  publisher = {Springer},
  address = {Berlin},
  year = {2020},
  url = {https://example.org/a_b%20c},
}

@inproceedings{dijkstra68,
  author = {Dijkstra, Edsger W.},
  editor = {Smith, Jr., John},
  title = {Go To Statement Considered Harmful},
  booktitle = {Proceedings of the {ACM} Conference},
  pages = {10--20},
  publisher = {ACM},
  address = {New York},
  year = {1968},
}
"""

GOOD_KEYS = ["berg20", "dijkstra68", "knuth84"]


def _not_typesetting(result: harness.ConsumerResult) -> list[Message]:
    return [m for m in result.warnings if m.code not in ("latex-warning", "missing-glyph")]


# ---------------------------------------------------------------------------------------------
# BibTeX
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["plain", "plainnat"])
def test_good_bibtex_compiles_cleanly(style, require):
    require("bibtex")
    result = compile_bibtex(GOOD_BIBTEX, style)
    assert result.errors == (), result.report()
    assert _not_typesetting(result) == [], result.report()
    assert sorted(result.keys) == GOOD_KEYS
    items = dict(zip(result.keys, result.rendered, strict=True))
    assert "Literate programming" in items["knuth84"]  # the style lowercases unprotected words
    assert "97--111" in items["knuth84"]
    assert "{DNA}" in items["berg20"]


BIBTEX_ENTRY_OK = "@article{ok, author={Good, Gail}, title={Fine}, journal={J}, year=2001}\n"

# (snippet, expected code, expected key, expected detail); each followed by a good entry
BROKEN_BIBTEX = [
    pytest.param("@article{a, author={A, B}, title = {Broken {brace}, journal={J}, year=2000}\n",
                 "bibtex-error", "", "", id="unbalanced-brace"),
    pytest.param("@article{b, author={Smith, John, Jr, Extra}, title={T}, journal={J}, "
                 "year=2000}\n", "bibtex-error", "", "", id="too-many-commas"),
    pytest.param("@misc{ok, title={Again}, year=2002}\n", "bibtex-error", "", "",
                 id="repeated-key"),
    pytest.param("@inproceedings{c, author={A, B}, title={T}, crossref={nothere}, year=2000}\n",
                 "bad-crossref", "c", "nothere", id="bad-crossref"),
    pytest.param("@article{d, author={A, B}, title={T}, journal=jcp, year=2000}\n",
                 "undefined-macro", "", "jcp", id="undefined-macro"),
    pytest.param("@online{e, author={A, B}, title={T}, year=2000}\n", "unknown-type", "e", "",
                 id="unknown-type"),
    pytest.param("@article{f, author={A, B}, title={T}, year=2000}\n", "empty-field", "f",
                 "journal", id="empty-journal"),
    pytest.param("@book{g, author={A, B}, editor={C, D}, title={T}, publisher={P}, "
                 "year=2000}\n", "both-fields", "g", "author and editor", id="author-and-editor"),
    pytest.param("@article{h, author={A, B}, title={\\foo bar}, journal={J}, year=2000}\n",
                 "undefined-command", "", "\\foo", id="undefined-command"),
    pytest.param("@article{i, author={A, B}, title={Ж}, journal={J}, year=2000}\n",
                 "unicode-char", "", "Ж", id="unicode-char"),
]  # fmt: skip


@pytest.mark.parametrize(("snippet", "code", "key", "detail"), BROKEN_BIBTEX)
def test_broken_bibtex_is_caught(snippet, code, key, detail, require):
    require("bibtex")
    result = compile_bibtex(BIBTEX_ENTRY_OK + snippet, "plain")
    found = [m for m in (*result.errors, *result.warnings) if m.code == code]
    assert found, result.report()
    if key:
        assert key in {m.key for m in found}, result.report()
    if detail:
        assert detail in {m.detail for m in found}, result.report()
    assert "ok" in result.keys  # the good entry is still typeset


def test_placeholders_stand_in_only_for_the_characters_named(require):
    require("bibtex")
    text = BIBTEX_ENTRY_OK + "@article{i, author={A, B}, title={Ж 王}, journal={J}, year=2000}\n"
    result = compile_bibtex(text, "plain", placeholders={"Ж"})
    assert [(m.code, m.detail) for m in result.errors] == [("unicode-char", "王")], result.report()


def test_blg_error_count_is_never_underreported():
    blg = "Database file #1: refs.bib\nSomething new went wrong\n(There were 2 error messages)\n"
    errors, warnings = parse_blg(blg)
    assert [m.code for m in errors] == ["bibtex-error"]
    assert "counted 2 error messages" in errors[0].text
    assert warnings == []


def test_tex_log_errors_name_file_line_and_command():
    log = ("./main.bbl:12: Undefined control sequence.\n"
           "l.12 \\newblock Some \\mkbibquote\n"
           "                                {x}\n"
           "./main.bbl:20: LaTeX Error: Unicode character Ж (U+0416)\n"
           "               not set up for use with LaTeX.\n"
           "Missing character: There is no Ж (U+0416) in font lmroman10-regular!\n"
           "LaTeX Warning: Citation `x' undefined on input line 3.\n")  # fmt: skip
    errors, warnings = parse_tex_log(log)
    assert [(m.code, m.detail) for m in errors] == [("undefined-command", "\\mkbibquote"),
                                                   ("unicode-char", "Ж")]  # fmt: skip
    assert errors[0].text.startswith("./main.bbl:12: ")
    assert [m.code for m in warnings] == ["missing-glyph", "latex-warning"]


# ---------------------------------------------------------------------------------------------
# BibLaTeX and biber
# ---------------------------------------------------------------------------------------------

GOOD_BIBLATEX = r"""@article{kolmogorov33,
  author = {Колмогоров, Андрей Николаевич},
  title = {Grundbegriffe der Wahrscheinlichkeitsrechnung},
  journaltitle = {Ergebnisse der Mathematik},
  date = {1933-03},
  volume = {2},
  pages = {1--62},
}

@online{berg20,
  author = {family={Berg}, given={Jan}, prefix={van der}, useprefix=true and Müller, Hans},
  title = {Folding {DNA} with \emph{in vitro} assays and $\mu$-calculus},
  date = {2020-01-15/2020-02-01},
  eprint = {2001.01234},
  eprinttype = {arxiv},
  eprintclass = {q-bio.BM},
  url = {https://example.org/a_b%20c},
}
"""


def test_good_biblatex_compiles_cleanly(require):
    require("biblatex")
    result = compile_biblatex(GOOD_BIBLATEX, "lualatex")
    assert result.errors == (), result.report()
    assert _not_typesetting(result) == [], result.report()
    assert sorted(result.keys) == ["berg20", "kolmogorov33"]


BIBLATEX_ENTRY_OK = ("@article{ok, author={Good, Gail}, title={Fine}, journaltitle={J}, "
                     "date={2001}}\n")

BROKEN_BIBLATEX = [
    pytest.param("@article{a, author={A, B}, title={T}, journaltitle={J}, date={20xx}}\n",
                 "invalid-date", "a", "date", id="invalid-date"),
    pytest.param("@article{b, author={A, B}, title = {Broken {brace}, date={2000}}\n",
                 "biber-error", "", "", id="syntax-error"),
    pytest.param("@article{c, author={Smith, John, Jr, Extra}, title={T}, journaltitle={J}, "
                 "date={2000}}\n", "biber-error", "", "", id="too-many-commas"),
    pytest.param("@article{d, author={A, B}, title={T}, journaltitle={J}, year={2000}, "
                 "date={2001}}\n", "overwritten-field", "d", "year", id="year-and-date"),
]  # fmt: skip


@pytest.mark.parametrize(("snippet", "code", "key", "detail"), BROKEN_BIBLATEX)
def test_broken_biblatex_is_caught(snippet, code, key, detail, require):
    require("biblatex")
    result = compile_biblatex(BIBLATEX_ENTRY_OK + snippet, "lualatex")
    found = [m for m in (*result.errors, *result.warnings) if m.code == code]
    assert found, result.report()
    if key:
        assert key in {m.key for m in found}, result.report()
    if detail:
        assert detail in {m.detail for m in found}, result.report()
    if code != "biber-error":  # after an ERROR biber may write no .bbl at all
        assert "ok" in result.keys, result.report()


def test_biber_tool_accepts_good_biblatex(require):
    require("biber")
    result = biber_tool(GOOD_BIBLATEX)
    assert result.errors == (), result.report()
    assert [m.code for m in result.warnings] == [], result.report()
    assert sorted(result.keys) == ["berg20", "kolmogorov33"]


def test_biber_tool_reports_datamodel_problems(require):
    require("biber")
    text = BIBLATEX_ENTRY_OK + "@article{x, author={A, B}, title={T}, date={2000}, foo={bar}}\n"
    result = biber_tool(text)
    assert result.errors == (), result.report()
    found = {(m.code, m.key, m.detail) for m in result.warnings}
    assert found == {("invalid-field", "x", "foo"), ("missing-mandatory", "x", "journaltitle")}, \
        result.report()
    assert sorted(result.keys) == ["ok", "x"]


def test_biber_tool_reports_syntax_errors(require):
    require("biber")
    result = biber_tool(BIBLATEX_ENTRY_OK + "@article{y, title = {Broken {brace}, date={2000}}\n")
    assert [m.code for m in result.errors] == ["biber-error"], result.report()
    assert "syntax error" in result.errors[0].text


# ---------------------------------------------------------------------------------------------
# The policy's cross-checks against the model
# ---------------------------------------------------------------------------------------------


def test_policy_excuses_missing_data_only_when_the_model_lacks_it():
    from citekit.model import Bibliography, Entry, Extra, Name

    has_journal = Entry("article-journal", key="a", fields={"container-title": "J"},
                        names={"author": [Name(family="A")]})  # fmt: skip
    no_journal = Entry("article-journal", key="b", names={"author": [Name(family="B")]},
                       extra=[Extra("bibtex", "foo", "bar")])  # fmt: skip
    renamed = Entry("book", key="c2000t", original_key="old:c")
    ctx = policy.context_for(Bibliography(entries=[has_journal, no_journal, renamed]))
    result = harness.ConsumerResult("bibtex/plain", warnings=(
        Message("empty-field", "Warning--empty journal in a", key="a", detail="journal"),
        Message("empty-field", "Warning--empty journal in b", key="b", detail="journal"),
        Message("missing-entry", "no entry old:c", detail="old:c"),
        Message("missing-entry", "no entry never", detail="never"),
        Message("undefined-macro", "Warning--string name \"jcp\" is undefined", detail="jcp"),
    ))  # fmt: skip
    problems = policy.unexpected(result, ctx, policy.BIBTEX_WARNINGS)
    assert problems == [
        "warning [empty-field] Warning--empty journal in a",  # citekit lost the journal
        "warning [missing-entry] no entry old:c",  # a renamed target must still be found
        "warning [undefined-macro] Warning--string name \"jcp\" is undefined",
    ]
    biber = harness.ConsumerResult("biber-tool", warnings=(
        Message("invalid-field", "Field 'foo' invalid", key="b", detail="foo"),
        Message("invalid-field", "Field 'bar' invalid", key="b", detail="bar"),
    ))  # fmt: skip
    assert policy.unexpected(biber, ctx, policy.BIBER_WARNINGS) == [
        "warning [invalid-field] Field 'bar' invalid"  # not a field the input had
    ]


def test_tex_errors_are_excused_only_for_what_citekit_warned_about():
    from citekit.diagnostics import warning
    from citekit.model import Bibliography

    result = harness.ConsumerResult("bibtex/plain", errors=(
        Message("unicode-char", "Unicode character Ж", detail="Ж"),
        Message("unicode-char", "Unicode character 王", detail="王"),
    ))  # fmt: skip
    diagnostics = [warning("latex.no-latex-form", "no LaTeX form for 'Ж' (U+0416); kept as UTF-8"),
                   warning("latex.unknown-command", "unknown command \\rpackage kept verbatim")]
    ctx = policy.context_for(Bibliography())
    assert policy.unexpected(result, ctx, {}, citekit_warnings=diagnostics) == [
        "error [unicode-char] Unicode character 王"
    ]
    commands = harness.ConsumerResult("biblatex/lualatex", errors=(
        Message("undefined-command", "Undefined control sequence", detail="\\rpackage"),
        Message("undefined-command", "Undefined control sequence", detail="\\rpack"),
        Message("undefined-command", "Undefined control sequence", detail="\\mkbibquote"),
    ))  # fmt: skip
    assert policy.unexpected(commands, ctx, {}, citekit_warnings=diagnostics) == [
        "error [undefined-command] Undefined control sequence",
        "error [undefined-command] Undefined control sequence",
    ]


# ---------------------------------------------------------------------------------------------
# CSL-JSON
# ---------------------------------------------------------------------------------------------

GOOD_CSL = (GOLDEN / "four-works.csl.json").read_text(encoding="utf-8")


def test_good_csl_validates(require):
    require("csl-schema")
    result = validate_csl(GOOD_CSL)
    assert result.errors == (), result.report()
    assert result.keys == ("knuth1984literate", "vanderberg2020folding", "world2016global",
                           "dijkstra1968go")  # fmt: skip


@pytest.mark.parametrize(("item", "path_start"), [
    pytest.param({"id": "a", "type": "book", "foo": 1}, "[0]", id="extra-top-level-property"),
    pytest.param({"id": "b", "type": "journal"}, "[0].type", id="type-not-in-vocabulary"),
    pytest.param({"type": "book"}, "[0]", id="missing-id"),
    pytest.param({"id": "c", "type": "book", "issued": {"date-parts": [[{"y": 1}]]}},
                 "[0].issued", id="date-part-not-a-number"),
    pytest.param({"id": "d", "type": "book", "author": [{"family": 3}]}, "[0].author",
                 id="name-part-not-a-string"),
])  # fmt: skip
def test_invalid_csl_is_caught(item, path_start, require):
    require("csl-schema")
    result = validate_csl(json.dumps([item]))
    assert result.errors, result.report()
    assert all(m.code == "schema" for m in result.errors)
    assert any(m.text.startswith(path_start) for m in result.errors), result.report()
    if "id" in item:
        assert {m.key for m in result.errors} == {item["id"]}


def test_csl_that_is_not_json_is_caught(require):
    require("csl-schema")
    assert [m.code for m in validate_csl("[{").errors] == ["json"]


def test_citeproc_js_renders_good_csl_in_author_date_and_numeric_styles(require):
    require("citeproc-js")
    apa = render_citeproc_js(GOOD_CSL, "apa", output="html")
    assert apa.errors == (), apa.report()
    assert list(apa.rendered) == APA_HTML
    text = render_citeproc_js(GOOD_CSL, "apa")
    assert list(text.citations) == APA_CITATIONS
    ieee = render_citeproc_js(GOOD_CSL, "ieee")
    assert ieee.errors == (), ieee.report()
    assert list(ieee.rendered) == IEEE_TEXT
    assert list(ieee.citations) == ["[1]", "[2]", "[3]", "[4]"]


def test_citeproc_py_renders_good_csl(require):
    require("citeproc-py")
    apa = render_citeproc_py(GOOD_CSL, "apa")
    assert apa.errors == (), apa.report()
    assert list(apa.citations) == APA_CITATIONS
    assert apa.rendered[0] == ("Knuth, D. E. (1984). Literate programming. The Computer "
                               "Journal, 27(2), 97–111. https://doi.org/10.1093/comjnl/27.2.97")
    ieee = render_citeproc_py(GOOD_CSL, "ieee")
    assert ieee.errors == (), ieee.report()
    assert list(ieee.citations) == ["[1]", "[2]", "[3]", "[4]"]
    assert len(ieee.rendered) == 4


def test_citeproc_js_failure_is_reported_not_raised(tmp_path, require):
    require("citeproc-js")
    broken = tmp_path / "broken.csl"
    broken.write_text("<style xmlns='http://purl.org/net/xbiblio/csl'><citation>", "utf-8")
    result = render_citeproc_js(GOOD_CSL, str(broken))
    assert [m.code for m in result.errors] == ["citeproc-js"], result.report()
    assert result.rendered == ()


def test_citeproc_py_defect_is_recognised_and_citeproc_js_renders_the_item(require):
    require("citeproc-py")
    require("citeproc-js")
    film = [{"id": "kubrick", "type": "motion_picture", "title": "Dr. Strangelove",
             "director": [{"family": "Kubrick", "given": "Stanley"}],
             "issued": {"date-parts": [[1964]]}}]  # fmt: skip
    py = render_citeproc_py(json.dumps(film), "apa")
    assert [m.key for m in py.errors] == ["kubrick"], py.report()
    assert policy.citeproc_py_defect(py.errors[0]) is not None, py.report()
    js = render_citeproc_js(json.dumps(film), "apa")
    assert list(js.rendered) == ["Kubrick, S. (Director). (1964). Dr. Strangelove [Video "
                                 "recording]."]


def test_citeproc_py_warns_about_variables_it_does_not_know(require):
    require("citeproc-py")
    item = [{"id": "a", "type": "book", "title": "T", "citation-key": "a"}]
    result = render_citeproc_py(json.dumps(item), "apa")
    assert result.errors == (), result.report()
    assert [(m.code, m.detail) for m in result.warnings] == [("unsupported-variable",
                                                             "citation_key")]  # fmt: skip
    variables = frozenset({"citation-key", "title"})
    assert policy.unsupported_but_valid(result.warnings[0], variables)
    assert not policy.unsupported_but_valid(result.warnings[0], frozenset({"title"}))


# ---------------------------------------------------------------------------------------------
# RIS
# ---------------------------------------------------------------------------------------------

GOOD_RIS = ("TY  - JOUR\r\nAU  - van der Berg, Jan\r\nAU  - Müller, Hans\r\n"
            "TI  - Folding DNA with in vitro assays\r\nT2  - Journal of Folding\r\nPY  - 2020\r\n"
            "DA  - 2020/03/02/\r\nDO  - 10.1000/xyz123\r\nER  - \r\n\r\n"
            "TY  - BOOK\r\nAU  - World Health Organization\r\nTI  - Global report on diabetes\r\n"
            "PY  - 2016\r\nER  - \r\n\r\n")  # fmt: skip


def test_good_ris_parses(require):
    require("rispy")
    result = parse_rispy(GOOD_RIS)
    assert result.errors == () and result.warnings == (), result.report()
    assert [(r["title"], r["year"], r.get("doi"), r["authors"]) for r in result.records] == [
        ("Folding DNA with in vitro assays", "2020", "10.1000/xyz123",
         ["van der Berg, Jan", "Müller, Hans"]),
        ("Global report on diabetes", "2016", None, ["World Health Organization"]),
    ]  # fmt: skip


@pytest.mark.parametrize(("text", "code"), [
    pytest.param("TY  - JOUR\nTI  - A\nTY  - BOOK\nTI  - B\nER  - \n", "record-count",
                 id="missing-ER-swallows-a-record"),
    pytest.param("TY  - JOUR\nTI  - A\nER  - \n\nTY  - BOOK\nTI  - B\n", "record-count",
                 id="unterminated-last-record"),
    pytest.param("TY  - JOUR\nTI  - A\nsecond line\nER  - \n", "untagged-line",
                 id="value-glued-onto-the-title"),
    pytest.param("TY  - JOUR\nTI  - A\nZZ  - what\nER  - \n", "unknown-tag", id="unknown-tag"),
    pytest.param("TY  - JOUR\nTI  - A\nDO - 10.1/x\nER  - \n", "untagged-line",
                 id="one-space-separator"),
])  # fmt: skip
def test_broken_ris_is_caught(text, code, require):
    require("rispy")
    result = parse_rispy(text)
    assert code in {m.code for m in (*result.errors, *result.warnings)}, result.report()


# ---------------------------------------------------------------------------------------------
# require(): skip locally, fail under CI
# ---------------------------------------------------------------------------------------------


def test_require_skips_locally_and_fails_under_ci(monkeypatch):
    monkeypatch.setenv("PATH", os.devnull)
    assert harness.missing_reason("biber") == "program(s) not on PATH: biber"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="consumer biber unavailable"):
        harness.require("biber")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required under CI=true"):
        harness.require("biber")


def test_require_knows_every_consumer_it_is_asked_for():
    with pytest.raises(ValueError, match="unknown consumer"):
        harness.missing_reason("pandoc")
