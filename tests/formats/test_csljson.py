"""The CSL-JSON reader and writer (citekit/formats/csljson.py): every corpus file with
conservation, schema validity and a citeproc-py rendering of everything written, the reader's
leniency (shapes, types, dates, aliases, unknown variables) with its reports, exact output, the
`custom` conventions, CSL -> CSL round trips and a hypothesis write -> read property."""

from __future__ import annotations

import functools
import json
import warnings
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sharedpaths import SHARED

from citekit.formats import csljson, ris
from citekit.model import (
    OTHERS,
    Bibliography,
    Date,
    Entry,
    Extra,
    Name,
    Origin,
    Rich,
    Span,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
CSL_FILES = sorted((CORPUS / "csljson").glob("*.json"))
RIS_FILES = sorted((CORPUS / "ris").glob("*.ris"))
SCHEMA_PATH = SHARED / "schema" / "csl-data.json"
APA = ROOT / "tests" / "consumers" / "csl" / "apa.csl"

EXPECTED_COUNTS = {
    "bbt-available-date-3286.csl.json": 4,
    "bbt-creator-fields-825.csl.json": 7,
    "bbt-edtf-dates-811.csl.json": 15,
    "bbt-omit-fields-1179.csl.json": 26,
    "citationjs-mapping-bibtex-csl.json": 16,
    "citeproc-date-range-delimiter.json": 6,
    "citeproc-flipflop-italics.json": 6,
    "citeproc-name-particles.json": 61,
}


def _read(text: str) -> Bibliography:
    return csljson.read(text, source="t.json")


def _write(*entries: Entry) -> list[dict[str, object]]:
    text, _ = csljson.write(Bibliography(entries=list(entries)))
    return json.loads(text)


def _codes(bib: Bibliography) -> list[tuple[str, int | None]]:
    return [(d.code, d.line) for d in bib.diagnostics]


@functools.cache
def _schema_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    if not SCHEMA_PATH.exists():
        pytest.skip("shared CSL schema not available")
    return _schema_validator()


def _valid(validator: jsonschema.protocols.Validator, text: str) -> None:
    errors = sorted(validator.iter_errors(json.loads(text)), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def _render_citeproc_py(items: list[dict[str, object]]) -> list[str]:
    """Bibliography strings from citeproc-py with APA.

    citeproc-py implements CSL 1.0.1: it crashes on the 1.0.2 name variables (director,
    script-writer...). Those are dropped for this consumer only; the schema test covers them
    and the citeproc-js harness (tests/consumers) renders them.
    """
    from citeproc import (
        NAMES,
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    known = {n.replace("_", "-") for n in NAMES}
    from citekit.model import NAME_ROLES

    cleaned = []
    for i, item in enumerate(items):
        copy = {k: v for k, v in item.items() if k not in NAME_ROLES or k in known}
        copy["id"] = f"{item['id']}-{i}"  # citeproc needs distinct ids
        cleaned.append(copy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "unsupported arguments: custom, citation_key"
        source = CiteProcJSON(cleaned)
        style = CitationStylesStyle(str(APA), validate=False)
        bibliography = CitationStylesBibliography(style, source, formatter.plain)
        for item in cleaned:
            bibliography.register(Citation([CitationItem(item["id"])]))
        return [str(entry) for entry in bibliography.bibliography()]


# ---------------------------------------------------------------------------------------------
# Corpus: conservation, schema, citeproc-py
# ---------------------------------------------------------------------------------------------


def test_every_corpus_file_has_expected_counts() -> None:
    assert sorted(p.name for p in CSL_FILES) == sorted(EXPECTED_COUNTS)


@pytest.mark.parametrize("path", CSL_FILES, ids=lambda p: p.name)
def test_corpus_conservation(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    bib = csljson.read(text, source=str(path))
    assert csljson.count_records(text) == len(bib.entries) + len(bib.rejected)
    assert len(bib.entries) == EXPECTED_COUNTS[path.name] and bib.rejected == []
    for diagnostic in bib.diagnostics:
        assert diagnostic.source == str(path) and diagnostic.line


@pytest.mark.consumer
@pytest.mark.parametrize("path", CSL_FILES + RIS_FILES, ids=lambda p: p.name)
def test_written_documents_validate_and_render(
    path: Path, validator: jsonschema.protocols.Validator
) -> None:
    text = path.read_text(encoding="utf-8")
    module = csljson if path.suffix == ".json" else ris
    bib = module.read(text, source=str(path))
    written, _ = csljson.write(bib)
    _valid(validator, written)
    items = json.loads(written)
    rendered = _render_citeproc_py(items)
    assert len(rendered) == len(items)


@pytest.mark.consumer
def test_citeproc_py_renders_an_article(validator: jsonschema.protocols.Validator) -> None:
    entry = Entry(
        type="article-journal", key="doe2020",
        fields={"title": "Deep nets", "container-title": "Journal of Tests", "volume": "12",
                "issue": "3", "page": "100-120", "DOI": "10.1000/xyz"},
        names={"author": [Name(family="Doe", given="Jane"), Name(family="Roe", given="Rob")]},
        dates={"issued": Date(2020, 5)},
    )  # fmt: skip
    text, _ = csljson.write(Bibliography(entries=[entry]))
    _valid(validator, text)
    assert _render_citeproc_py(json.loads(text)) == [
        "Doe, J., & Roe, R. (2020). Deep nets. Journal of Tests, 12(3), 100–120. "
        "https://doi.org/10.1000/xyz"
    ]


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def test_single_object() -> None:
    bib = _read('{"id": "a", "type": "book", "title": "T"}')
    assert [(e.key, e.type, e.fields) for e in bib.entries] == [("a", "book", {"title": "T"})]


def test_syntax_error_is_one_rejected_record_with_its_line() -> None:
    text = '[\n  {"id": "a", "type": "book"},\n  {"id": "b" "type": "book"}\n]'
    bib = _read(text)
    assert bib.entries == []
    (rejected,) = bib.rejected
    assert rejected.line == 3 and rejected.raw == text
    assert _codes(bib) == [("csljson.syntax", 3)]
    assert csljson.count_records(text) == 1


def test_wrong_shapes_reported_good_items_kept() -> None:
    text = '[\n  {"id": "a", "type": "book"},\n  42,\n  ["x"],\n  {"id": "b", "type": "book"}\n]'
    bib = _read(text)
    assert [e.key for e in bib.entries] == ["a", "b"]
    assert [(r.line, r.raw) for r in bib.rejected] == [(3, "42"), (4, '["x"]')]
    assert _codes(bib) == [("csljson.not-an-object", 3), ("csljson.not-an-object", 4)]
    assert csljson.count_records(text) == 4
    assert _codes(_read('"just text"')) == [("csljson.not-csl", 1)]


def test_types_case_and_nonstandard_names() -> None:
    text = json.dumps([
        {"id": "a", "type": "Article-Journal"}, {"id": "b", "type": "motion-picture"},
        {"id": "c", "type": "journalArticle"}, {"id": "d", "type": "frobnicate"},
        {"id": "e", "type": "software"}, {"id": "f"},
    ])  # fmt: skip
    bib = _read(text)
    assert [(e.type, e.source_type) for e in bib.entries] == [
        ("article-journal", "Article-Journal"),
        ("motion_picture", "motion-picture"),
        ("article-journal", "journalArticle"),
        ("document", "frobnicate"),
        ("software", "software"),
        ("document", ""),
    ]
    assert [d.code for d in bib.diagnostics] == [
        "csljson.type-case",
        "csljson.nonstandard-type",
        "csljson.nonstandard-type",
        "csljson.unknown-type",
        "csljson.missing-type",
    ]


def test_dates_in_every_form() -> None:
    item = {
        "id": "a", "type": "book",
        "issued": {"date-parts": [["2011", "5", 25], [2012, 6, 26]], "circa": True},
        "accessed": {"raw": "2015-04-30"},
        "original-date": {"literal": "Spring of the Sheep"},
        "event-date": {"date-parts": [[2017]], "season": 4},
        "submitted": "2019-02",
    }  # fmt: skip
    (entry,) = _read(json.dumps(item)).entries
    assert entry.dates == {
        "issued": Date(2011, 5, 25, 2012, 6, 26, circa=True),
        "accessed": Date(2015, 4, 30),
        "original-date": Date(literal="Spring of the Sheep"),
        "event-date": Date(2017, season=4),
        "submitted": Date(2019, 2),
    }


def test_zotero_and_citation_js_aliases() -> None:
    item = {"id": "a", "type": "article-journal", "journalAbbreviation": "J. T.",
            "shortTitle": "Short", "event": "Conf", "volume": 5, "page": 12}  # fmt: skip
    bib = _read(json.dumps(item))
    (entry,) = bib.entries
    assert entry.fields == {"container-title-short": "J. T.", "title-short": "Short",
                            "event-title": "Conf", "volume": "5", "page": "12"}  # fmt: skip
    assert [d.code for d in bib.diagnostics] == ["csljson.alias"] * 3


def test_unknown_variables_kept_reported_and_written_under_custom() -> None:
    item = {"id": "a", "type": "book", "title": "T", "reference-count": 3,
            "link": [{"URL": "u"}], "categories": ["x", "y"], "_label": "x"}  # fmt: skip
    bib = _read(json.dumps(item))
    (entry,) = bib.entries
    assert entry.extra == [
        Extra("csl-json", "reference-count", "3"),
        Extra("csl-json", "link", '[{"URL": "u"}]'),
        Extra("csl-json", "categories", '["x", "y"]'),
        Extra("csl-json", "_label", '"x"'),
    ]
    assert [d.code for d in bib.diagnostics] == ["csljson.unknown-variable"] * 2
    (out,) = _write(entry)
    assert out["categories"] == ["x", "y"]  # a schema variable: back at the top level
    assert out["custom"] == {"reference-count": 3, "link": [{"URL": "u"}], "_label": "x"}
    (again,) = _read(json.dumps(out)).entries
    assert Counter(again.extra) == Counter(entry.extra)


def test_key_from_citation_key_and_differing_id_kept() -> None:
    bib = _read('{"id": 17, "citation-key": "doe2020", "type": "book"}')
    (entry,) = bib.entries
    assert entry.key == "doe2020"
    assert entry.extra == [Extra("csl-json", "id", "17")]
    assert _codes(bib) == [("csljson.id-differs", 1)]
    assert _read('{"id": 17, "type": "book"}').entries[0].key == "17"


def test_bad_values_kept_as_extras() -> None:
    item = {"id": "a", "type": "book", "title": None, "ISSN": ["1234-5678", "8765-4321"],
            "author": {"family": "Solo"}, "editor": ["Just A String"]}  # fmt: skip
    bib = _read(json.dumps(item))
    (entry,) = bib.entries
    assert entry.fields == {"ISSN": "1234-5678; 8765-4321"}
    assert entry.names == {"author": [Name(family="Solo")],
                           "editor": [Name(literal="Just A String")]}  # fmt: skip
    assert entry.extra == [Extra("csl-json", "title", "null")]
    assert sorted(d.code for d in bib.diagnostics) == ["csljson.bad-value"] * 4


def test_rich_text_is_read_as_markup() -> None:
    bib = _read((CORPUS / "csljson" / "citeproc-flipflop-italics.json").read_text())
    assert bib.entries[0].fields["title"] == Rich(
        ("One TwoA ", Span("i", ("Three Four",)), " Five!")
    )


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _preprint() -> Entry:
    return Entry(
        type="article",
        key="smith2021",
        fields={
            "title": Rich((Span("nocase", ("FNO",)), " solvers")),
            "publisher": "arXiv",
            "DOI": "10.48550/arXiv.2101.00001",
            "URL": "https://arxiv.org/abs/2101.00001?a=1&b=2",
            "arxiv": "2101.00001", "arxiv-version": "2", "arxiv-class": "cs.LG",
            "arxiv-comment": "12 pages", "journal-ref": "J. Tests 1 (2022) 1-2",
        },
        names={"author": [Name(family="Smith", given="Ann", particle="van"), OTHERS],
               "editor": [Name(literal="ACME Lab"), OTHERS]},
        dates={"issued": Date(2021, 1, 5)},
        extra=[Extra("bibtex", "howpublished", "online"), Extra("ris", "L1", "a.pdf"),
               Extra("ris", "L1", "b.pdf")],
        origin=Origin("x.bib", 3, "bibtex"),
        source_type="misc",
    )  # fmt: skip


EXPECTED_PREPRINT = """[
  {
    "id": "smith2021",
    "citation-key": "smith2021",
    "type": "article",
    "author": [
      {"family": "Smith", "given": "Ann", "non-dropping-particle": "van"}
    ],
    "editor": [
      {"literal": "ACME Lab"}
    ],
    "title": "<span class=\\"nocase\\">FNO</span> solvers",
    "publisher": "arXiv",
    "DOI": "10.48550/arXiv.2101.00001",
    "URL": "https://arxiv.org/abs/2101.00001?a=1&b=2",
    "issued": {"date-parts": [[2021, 1, 5]]},
    "custom": {
      "authors-incomplete": true,
      "editor-incomplete": true,
      "arxiv": "2101.00001",
      "arxiv-version": "2",
      "arxiv-class": "cs.LG",
      "arxiv-comment": "12 pages",
      "journal-ref": "J. Tests 1 (2022) 1-2",
      "source-type": "bibtex:misc",
      "bibtex:howpublished": "online",
      "ris:L1": ["a.pdf", "b.pdf"]
    }
  }
]
"""


def test_write_preprint_exactly(validator: jsonschema.protocols.Validator) -> None:
    text, diagnostics = csljson.write(Bibliography(entries=[_preprint()]))
    assert text == EXPECTED_PREPRINT
    assert diagnostics == []
    _valid(validator, text)


def test_custom_reads_back_into_the_model() -> None:
    (entry,) = _read(EXPECTED_PREPRINT).entries
    original = _preprint()
    assert entry.fields == original.fields
    assert entry.names == original.names  # "and others" restored from the flags
    assert entry.dates == original.dates
    assert entry.extra == original.extra
    assert entry.source_type == "bibtex:misc"


def test_ampersands_are_not_entities() -> None:
    """citeproc-js and Zotero print CSL strings without decoding entities: "&" stays "&"."""
    entry = Entry(type="book", key="k", fields={"title": "Tom & Jerry", "note": "a &amp; b"})
    (item,) = _write(entry)
    assert (item["title"], item["note"]) == ("Tom & Jerry", "a &amp; b")
    (back,) = _read(json.dumps([item])).entries
    assert back.fields == entry.fields


def test_write_is_deterministic_and_utf8() -> None:
    entry = Entry(type="book", key="k", fields={"title": "Ærøskøbing — Ünïcødé 中文"},
                  names={"author": [Name(family="Müller", given="Jörg")]})  # fmt: skip
    first, _ = csljson.write(Bibliography(entries=[entry]))
    second, _ = csljson.write(Bibliography(entries=[entry]))
    assert first == second
    assert "Ærøskøbing — Ünïcødé 中文" in first and "\\u" not in first


def test_write_reports_what_it_cannot_place() -> None:
    entry = Entry(type="thing", key="", fields={"title": "T", "bogus-field": "x"})
    text, diagnostics = csljson.write(Bibliography(entries=[entry]))
    (item,) = json.loads(text)
    assert item["type"] == "document" and item["id"] == ""
    assert item["custom"] == {"bogus-field": "x"}
    assert [d.code for d in diagnostics] == [
        "csljson.missing-id",
        "csljson.unknown-type",
        "csljson.noncanonical-field",
    ]


def test_omit_option() -> None:
    from citekit.options import WriteOptions

    entry = Entry(type="book", key="k", fields={"title": "T", "abstract": "A"},
                  names={"editor": [Name(family="E")]})  # fmt: skip
    text, _ = csljson.write(Bibliography(entries=[entry]),
                            WriteOptions(omit=frozenset({"abstract", "editor"})))  # fmt: skip
    assert json.loads(text) == [{"id": "k", "citation-key": "k", "type": "book", "title": "T"}]


def test_mapping_doc_lists_every_alias_and_type_fix() -> None:
    """docs/mapping.md names every non-standard spelling the reader maps (§1.2, §7)."""
    doc = (ROOT / "docs" / "mapping.md").read_text()
    for alias in csljson._ALIASES:
        assert f"`{alias}`" in doc, alias
    for written in ("motion-picture", "legal-case", "program", "journalArticle", "preprint"):
        assert f"`{written}`" in doc, written


def test_sniff() -> None:
    assert csljson.sniff('[\n  {\n    "id": "a"')
    assert csljson.sniff('\ufeff{"type": "book", "id": "x"}')
    assert not csljson.sniff("TY  - JOUR\r\n")
    assert not csljson.sniff("@article{a,}")


# ---------------------------------------------------------------------------------------------
# Round trips CSL -> citekit -> CSL keep every field
# ---------------------------------------------------------------------------------------------


def _same(a: Entry, b: Entry) -> None:
    assert (a.type, a.key, a.source_type) == (b.type, b.key, b.source_type)
    assert a.fields == b.fields
    assert a.names == b.names
    assert a.dates == b.dates
    assert Counter(a.extra) == Counter(b.extra)


@pytest.mark.parametrize("path", CSL_FILES, ids=lambda p: p.name)
def test_csl_round_trip_keeps_every_field(path: Path) -> None:
    first = _read(path.read_text(encoding="utf-8"))
    text, _ = csljson.write(first)
    second = _read(text)
    for a, b in zip(first.entries, second.entries, strict=True):
        _same(a, b)
    again, _ = csljson.write(second)
    assert again == text


def test_round_trip_of_the_source_values() -> None:
    """Beyond the model: every variable of the input item comes back with the same value."""
    path = CORPUS / "csljson" / "bbt-omit-fields-1179.csl.json"
    items = json.loads(path.read_text(encoding="utf-8"))
    written = json.loads(csljson.write(_read(path.read_text(encoding="utf-8")))[0])
    for before, after in zip(items, written, strict=True):
        for name, value in before.items():
            if name in ("issued", "accessed"):
                parts = [[int(p) for p in d] for d in value["date-parts"]]
                assert after[name]["date-parts"] == parts
            else:
                assert after[name] == (str(value) if isinstance(value, int) else value), name


# ---------------------------------------------------------------------------------------------
# Property: write -> read is the identity for what CSL can hold
#
# CSL-JSON's documented loss (docs/mapping.md): a name's `comma-suffix`, `static-ordering` and
# `parse-names` hints are not kept and its whitespace is normalised; numbers come back as
# strings; a season beside a month is dropped; markup outside CSL's subset is kept as text;
# extras from other formats are grouped by name under `custom` (their order across names is
# lost). The strategy generates model values, which CSL holds completely, so equality is exact.
# ---------------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(
    lambda s: s.strip() == s and s != ""
)
# Name parts are whitespace-normalised by names.py (a documented loss): single spaces only.
_PART = st.lists(st.text(st.characters(whitelist_categories=("L", "N", "P")), min_size=1,
                         max_size=8), min_size=1, max_size=3).map(" ".join)  # fmt: skip
_NAME = st.one_of(
    st.builds(Name, family=_PART, given=_PART),
    st.builds(Name, family=_PART, given=_PART, particle=_PART, dropping_particle=_PART,
              suffix=_PART),
    st.builds(Name, literal=_PART),
)  # fmt: skip
_YEAR = st.integers(1, 2200)
_DATE = st.one_of(
    st.builds(Date, year=_YEAR, month=st.none() | st.integers(1, 12)),
    st.builds(Date, year=_YEAR, month=st.integers(1, 12), day=st.integers(1, 28),
              end_year=_YEAR, end_month=st.integers(1, 12), end_day=st.integers(1, 28),
              circa=st.booleans()),
    st.builds(Date, year=_YEAR, season=st.integers(1, 4)),
    st.builds(Date, literal=_TEXT),
)  # fmt: skip
_VERBATIM = st.sampled_from(["DOI", "URL", "ISBN", "ISSN", "PMID"])
_PLAIN_VARS = st.sampled_from(["volume", "issue", "page", "edition", "publisher", "genre"])


@st.composite
def csl_entries(draw: st.DrawFn) -> Entry:
    from citekit.model import CSL_TYPES

    fields: dict[str, str] = {}
    for name in draw(st.lists(_VERBATIM | _PLAIN_VARS, unique=True, max_size=5)):
        value = draw(_TEXT)
        if name not in ("DOI", "URL", "ISBN", "ISSN", "PMID"):
            value = value.replace("<", "")  # a "<" may open markup: markup.py's property
            if not value.strip():
                continue
        fields[name] = value
    for name in draw(st.lists(st.sampled_from(["arxiv", "arxiv-class", "links"]), unique=True)):
        fields[name] = draw(_TEXT)
    names = {role: draw(st.lists(_NAME, min_size=1, max_size=3))
             for role in draw(st.lists(st.sampled_from(["author", "editor", "translator"]),
                                       unique=True))}  # fmt: skip
    if names and draw(st.booleans()):
        names[next(iter(names))].append(OTHERS)
    dates = {role: draw(_DATE) for role in draw(st.lists(
        st.sampled_from(["issued", "accessed"]), unique=True))}  # fmt: skip
    return Entry(
        type=draw(st.sampled_from(sorted(CSL_TYPES))),
        key=draw(_TEXT),
        fields=fields,
        names=names,
        dates=dates,
        extra=draw(
            st.lists(
                st.builds(Extra, st.just("ris"), st.sampled_from(["L1", "U1"]), _TEXT), max_size=3
            )
        ),  # fmt: skip
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csl_entries())
def test_property_write_then_read_is_identity(entry: Entry) -> None:
    text, _ = csljson.write(Bibliography(entries=[entry]))
    (back,) = _read(text).entries
    assert (back.type, back.key) == (entry.type, entry.key)
    assert back.fields == entry.fields
    assert back.names == entry.names
    assert back.dates == entry.dates
    assert Counter(back.extra) == Counter(entry.extra)  # grouped by name under custom


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_property_reader_never_raises_and_conserves(text: str) -> None:
    bib = _read(text)
    assert csljson.count_records(text) == len(bib.entries) + len(bib.rejected)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=8,
)  # fmt: skip
_ITEM = st.fixed_dictionaries(
    {"id": st.text(max_size=5) | st.integers()},
    optional={
        "type": st.sampled_from(["book", "Article", "misc", "nope", ""]) | _JSON,
        "title": st.text(max_size=12) | _JSON,
        "author": st.lists(st.fixed_dictionaries({}, optional={"family": st.text(max_size=5),
                                                               "given": _JSON})) | _JSON,
        "issued": st.fixed_dictionaries({}, optional={"date-parts": _JSON, "raw": _JSON}) | _JSON,
        "custom": _JSON, "volume": _JSON, "unknown-key": _JSON,
    },
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ITEM | _JSON, max_size=6))
def test_property_odd_items_conserve_and_write_valid_csl(items: list[object]) -> None:
    text = json.dumps(items, indent=1)
    bib = _read(text)
    assert csljson.count_records(text) == len(bib.entries) + len(bib.rejected) == len(items)
    written, _ = csljson.write(bib)
    if SCHEMA_PATH.exists():
        _valid(_schema_validator(), written)
    again = _read(written)
    assert len(again.entries) == len(bib.entries) and again.rejected == []
    assert csljson.write(again)[0] == written
