"""Every corpus input, read and written by citekit's public API, judged by the real consumers.

For each .bib, .ris and CSL-JSON input (tests/corpus, see corpus.py), keyed as `citekit convert`
keys by default:
- the `bibtex` output compiles with pdflatex + bibtex (plain and plainnat) and the `biblatex`
  output with lualatex + biblatex + biber, every entry typeset, no error, and only warnings
  policy.py excuses; `biber --tool --validate-datamodel` reports no ERROR on either dialect;
- the CSL-JSON output validates against the shared schema and renders in citeproc-py (APA,
  IEEE);
- the RIS output parses in rispy with the same records, titles, authors, years and DOIs as
  citekit's own model.
A corpus file's entries go through each consumer as one document.
"""

from __future__ import annotations

import json
import re

import pytest

from citekit.model import Bibliography, Date, Entry, Rich, Span, plain

from . import policy
from .corpus import CorpusFile, corpus_files, load, output
from .harness import (
    ConsumerResult,
    biber_tool,
    compile_biblatex,
    compile_bibtex,
    csl_schema_path,
    parse_rispy,
    render_citeproc_js,
    render_citeproc_py,
    validate_csl,
)

pytestmark = pytest.mark.consumer

FILES = corpus_files()
IDS = [f.id for f in FILES]

# Inputs whose own content stops biber or biblatex: citekit writes what the input says, and the
# original file fails the same way. Strict: if citekit's output ever passes, the entry goes.
INPUT_DEFECTS: dict[tuple[str, str], str] = {
    ("biblatex", "bibtex/bbt-plus-in-fieldname-2660.bib"):
        "its ENTRYSUBTYPE {Album recorded by Academy of St~Martin in the Fields} goes into a "
        "\\csname in biblatex: 'Missing \\endcsname' on the original file too",
    ("biblatex", "bibtex/biber-xdata.bib"):
        "circular granular XDATA (lxd1:loop <-> lxd2:loop): biber stops with 'Circular XDATA "
        "inheritance' on the original file too",
}  # fmt: skip


def _expect_input_defect(request: pytest.FixtureRequest, consumer: str, cf: CorpusFile) -> None:
    reason = INPUT_DEFECTS.get((consumer, cf.id))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


def _written(cf: CorpusFile, large_corpus: str) -> tuple[Bibliography, Bibliography]:
    full, written = load(cf.path, large_corpus)
    if not written.entries:
        pytest.skip(f"{cf.id}: citekit read no entries ({len(full.rejected)} rejected), so "
                    "there is nothing for a consumer to judge")
    return full, written


def _judge(result: ConsumerResult, problems: list[str]) -> str:
    return "\n".join([*problems, "", result.report()])


def _timeout(text: str) -> float:
    """A minute, plus a second for every 5 kB: the largest corpus output (800 kB) gets about
    four minutes, and an output that makes a consumer hang fails in a minute, not ten."""
    return 60 + len(text) / 5000


# ---------------------------------------------------------------------------------------------
# BibTeX and BibLaTeX
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["plain", "plainnat"])
@pytest.mark.parametrize("cf", FILES, ids=IDS)
def test_bibtex_output_compiles_with_bibtex(cf: CorpusFile, style: str, require, large_corpus):
    require("bibtex")
    full, written = _written(cf, large_corpus)
    text, diagnostics = output(cf.path, "bibtex", large_corpus)
    warnings = [*full.diagnostics, *diagnostics]
    result = compile_bibtex(text, style, timeout=_timeout(text),
                            placeholders=policy.chars_citekit_warned_about(warnings, text))
    problems = policy.unexpected(result, policy.context_for(written, full, "bibtex"),
                                 policy.BIBTEX_WARNINGS, citekit_warnings=warnings)
    assert not problems, _judge(result, problems)
    assert sorted(result.keys) == sorted(e.key for e in written.entries), result.report()


@pytest.mark.parametrize("cf", FILES, ids=IDS)
def test_biblatex_output_compiles_with_biber(cf: CorpusFile, require, large_corpus, request):
    require("biblatex")
    _expect_input_defect(request, "biblatex", cf)
    full, written = _written(cf, large_corpus)
    text, diagnostics = output(cf.path, "biblatex", large_corpus)
    result = compile_biblatex(text, "lualatex", timeout=_timeout(text))
    ctx = policy.context_for(written, full, "biblatex")
    problems = policy.unexpected(result, ctx, policy.BIBER_WARNINGS,
                                 citekit_warnings=[*full.diagnostics, *diagnostics])
    assert not problems, _judge(result, problems)
    assert sorted(result.keys) == sorted(e.key for e in written.entries), result.report()


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
@pytest.mark.parametrize("cf", FILES, ids=IDS)
def test_biber_tool_validates_output(cf: CorpusFile, dialect: str, require, large_corpus):
    require("biber")
    full, written = _written(cf, large_corpus)
    text, _diagnostics = output(cf.path, dialect, large_corpus)
    result = biber_tool(text, timeout=_timeout(text))
    ctx = policy.context_for(written, full, dialect)
    problems = policy.unexpected(result, ctx, policy.BIBER_WARNINGS)
    assert not problems, _judge(result, problems)
    assert sorted(result.keys) == sorted(e.key for e in written.entries), result.report()


# ---------------------------------------------------------------------------------------------
# CSL-JSON
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cf", FILES, ids=IDS)
def test_csl_output_validates_against_schema(cf: CorpusFile, require, large_corpus):
    require("csl-schema")
    _full, written = _written(cf, large_corpus)
    text, _diagnostics = output(cf.path, "csl-json", large_corpus)
    result = validate_csl(text)
    assert result.ok, result.report()
    assert list(result.keys) == [e.key for e in written.entries]


@pytest.mark.parametrize("style", ["apa", "ieee"])
@pytest.mark.parametrize("cf", FILES, ids=IDS)
def test_csl_output_renders_in_citeproc_py(cf: CorpusFile, style: str, require, large_corpus):
    require("citeproc-py")
    _full, written = _written(cf, large_corpus)
    text, _diagnostics = output(cf.path, "csl-json", large_corpus)
    result = render_citeproc_py(text, style)
    variables = policy.csl_variable_names(json.loads(csl_schema_path().read_text())) \
        if csl_schema_path() else frozenset()
    defects = [m for m in result.errors if policy.citeproc_py_defect(m)]
    problems = [f"error [{m.code}] {m.text}" for m in result.errors if m not in defects]
    problems += [f"warning [{m.code}] {m.text}" for m in result.warnings
                 if not policy.unsupported_but_valid(m, variables)]  # fmt: skip
    assert not problems, _judge(result, problems)
    if defects:
        # Tolerated only when the reference engine renders the same items cleanly.
        require("citeproc-js")
        ids = {m.key for m in defects}
        items = [i for i in json.loads(text) if str(i["id"]) in ids]
        js = render_citeproc_js(json.dumps(items), style)
        assert js.ok and len(js.rendered) == len(items), js.report()
    else:
        assert len(result.rendered) == len(written.entries), result.report()


# ---------------------------------------------------------------------------------------------
# RIS
# ---------------------------------------------------------------------------------------------

_SPACES = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _name_words(text: str) -> list[str]:
    return sorted(w for w in re.split(r"[\s,]+", text) if w)


def _text_pattern(value: object) -> re.Pattern[str]:
    """A pattern for `value` as RIS plain text: every character of the text exactly (up to
    whitespace), while math and kept raw LaTeX may appear in any non-empty rendering, since
    RIS has no markup (the writer may keep `$\\mu$` or write `μ`)."""
    parts: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            words = node.split()
            lead = r"\s+" if node[:1].isspace() else ""
            trail = r"\s+" if node[-1:].isspace() and words else ""
            parts.append(lead + r"\s+".join(re.escape(w) for w in words) + trail)
        elif isinstance(node, Rich):
            for child in node.nodes:
                walk(child)
        elif isinstance(node, Span):
            for child in node.children:
                walk(child)
        else:  # Math, Raw
            parts.append(".+?")

    walk(value if isinstance(value, Rich) else _squash(str(value)))
    pattern = "".join(parts)
    pattern = pattern[3:] if pattern.startswith(r"\s+") else pattern  # the title is squashed
    pattern = pattern[:-3] if pattern.endswith(r"\s+") else pattern
    return re.compile(pattern, re.S)


def _year(date: Date | None) -> str | None:
    """PY as RIS carries it: the year, or the literal date verbatim when none was parsed."""
    if date is None:
        return None
    return str(date.year) if date.year is not None else (date.literal or None)


def _ris_year(value: str | None) -> str | None:
    if not value:
        return None
    m = re.fullmatch(r"(-?\d+)(/.*)?", value.strip())
    return str(int(m.group(1))) if m else value.strip()


def _authors(entry: Entry) -> list[list[str]]:
    names = []
    for name in entry.names.get("author", []):
        if name.others:  # RIS says "and others" in an N1 note, not as a name
            continue
        parts = name.literal or " ".join([name.dropping_particle, name.particle, name.family,
                                          name.given, name.suffix])  # fmt: skip
        names.append(_name_words(parts))
    return names


def _ris_mismatches(entry: Entry, record: dict) -> list[str]:
    """Where rispy's reading of a record differs from citekit's model of the entry."""
    found: list[str] = []
    title = entry.fields.get("title")
    ris_title = _squash(record.get("title") or record.get("primary_title") or "")
    if title is not None and not _text_pattern(title).fullmatch(ris_title):
        found.append(f"title: model {plain(title)!r}, rispy {ris_title!r}")
    if title is None and ris_title:
        found.append(f"title: model none, rispy {ris_title!r}")
    year, ris_year = _year(entry.dates.get("issued")), _ris_year(record.get("year"))
    if year != ris_year:
        found.append(f"year: model {year!r}, rispy {ris_year!r}")
    if (entry.get("DOI") or None) != (record.get("doi") or None):
        found.append(f"DOI: model {entry.get('DOI')!r}, rispy {record.get('doi')!r}")
    ris_authors = [_name_words(a) for a in record.get("authors", [])]
    if _authors(entry) != ris_authors:
        found.append(f"authors: model {_authors(entry)}, rispy {ris_authors}")
    return found


@pytest.mark.parametrize("cf", FILES, ids=IDS)
def test_ris_output_parses_in_rispy(cf: CorpusFile, require, large_corpus):
    require("rispy")
    _full, written = _written(cf, large_corpus)
    text, _diagnostics = output(cf.path, "ris", large_corpus)
    result = parse_rispy(text)
    # Continuation lines (`untagged-line`) are valid RIS that rispy joins onto the value; the
    # record count and the values compared below catch a line that broke a record.
    problems = [f"error [{m.code}] {m.text}" for m in result.errors]
    problems += [f"warning [{m.code}] {m.text}" for m in result.warnings
                 if m.code == "unknown-tag" and m.detail not in policy.RIS_TAGS_RISPY_LACKS]
    assert not problems, _judge(result, problems)
    assert len(result.records) == len(written.entries)
    mismatches = []
    for entry, record in zip(written.entries, result.records, strict=True):
        mismatches += [f"{entry.key}: {m}" for m in _ris_mismatches(entry, record)]
    assert not mismatches, "\n".join(mismatches[:40])
