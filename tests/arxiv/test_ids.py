"""arXiv ids: every form people write one in, validation, and finding one inside an entry."""

from __future__ import annotations

import pytest

from citekit.arxiv.ids import ArxivId, find_arxiv_id, find_in_text, parse_arxiv_id, split_version
from citekit.model import Entry, Extra


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2101.00001", ArxivId("2101.00001")),
        ("2101.00001v2", ArxivId("2101.00001", 2)),
        ("0704.0001", ArxivId("0704.0001")),
        ("1412.9999v3", ArxivId("1412.9999", 3)),
        ("arXiv:1605.08386", ArxivId("1605.08386")),
        ("ARXIV: 1605.08386v1", ArxivId("1605.08386", 1)),
        ("hep-th/9901001", ArxivId("hep-th/9901001")),
        ("arXiv:hep-th/9901001v2", ArxivId("hep-th/9901001", 2)),
        ("math.GT/0309136", ArxivId("math/0309136")),
        ("cond-mat.str-el/0501001v3", ArxivId("cond-mat/0501001", 3)),
        ("quant-ph/0201082v1", ArxivId("quant-ph/0201082", 1)),
        ("physics.atom-ph/9601001", ArxivId("atom-ph/9601001")),  # arxiv2bib#8
        ("physics.acc-ph/9501001", ArxivId("acc-phys/9501001")),
        ("physics.optics/0101001", ArxivId("physics/0101001")),
        ("https://arxiv.org/abs/1605.08386v1", ArxivId("1605.08386", 1)),
        ("http://arxiv.org/abs/hep-th/9901001", ArxivId("hep-th/9901001")),
        ("https://arxiv.org/pdf/1605.08386v2.pdf", ArxivId("1605.08386", 2)),
        ("https://arxiv.org/pdf/1605.08386", ArxivId("1605.08386")),
        ("https://export.arxiv.org/abs/2101.00001?context=cs", ArxivId("2101.00001")),
        ("10.48550/arXiv.2202.01037", ArxivId("2202.01037")),
        ("https://doi.org/10.48550/ARXIV.math/0211159", ArxivId("math/0211159")),
        ("  2101.00001  ", ArxivId("2101.00001")),
    ],
)
def test_parse_accepts_every_written_form(text: str, expected: ArxivId) -> None:
    assert parse_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "0112019",  # old style without its archive is not unique (arxiv.py #74)
        "1234.1234",  # month 34
        "0703.0001",  # new style began in 0704
        "1412.12345",  # five digits only from 1501
        "1501.0001",  # four digits only until 1412
        "2101.00000",
        "2101.00001v0",
        "foo-bar/9901001",  # no such archive
        "hep-th/0801001",  # old style ended in 2007-03
        "hep-th/9013001",  # month 13
        "physics.optics/9601001",  # physics opened in 1996-10 and optics had no archive
        "10.1103/PhysRevB.85.115117",
        "see 2101.00001 and more",
    ],
)
def test_parse_refuses_what_cannot_be_an_id(text: str) -> None:
    assert parse_arxiv_id(text) is None


def test_id_forms() -> None:
    found = ArxivId("math/0211159", 2)
    assert found.versioned == "math/0211159v2"
    assert str(ArxivId("2101.00001")) == "2101.00001"
    assert found.doi == "10.48550/arXiv.math/0211159"
    assert found.abs_url == "https://arxiv.org/abs/math/0211159"
    assert found.is_old_style and not ArxivId("2101.00001").is_old_style
    assert split_version("1605.08386v2") == ("1605.08386", 2)
    assert split_version("nonsense") == ("nonsense", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("arXiv preprint arXiv:1706.03762, 2017.", "1706.03762"),
        ("see arXiv:1234.56789.", None),  # 1234: month 34, so not an id
        ("see arXiv:2101.00001.", "2101.00001"),
        ("Preprint arXiv 1605.08386", "1605.08386"),
        ("ArXiv e-prints 2017", None),
        ("available at https://arxiv.org/abs/hep-th/9901001v1 and elsewhere", "hep-th/9901001v1"),
        ("doi:10.48550/arXiv.2202.01037", "2202.01037"),
        ("arXiv:2101.00001v12", "2101.00001v12"),
        ("1605.08386", None),  # a bare number in free text is not taken for an id
    ],
)
def test_find_in_text(text: str, expected: str | None) -> None:
    found = find_in_text(text)
    assert (found.versioned if found else None) == expected


def _entry(**fields: str) -> Entry:
    return Entry(type="article", key="k", fields=dict(fields))


@pytest.mark.parametrize(
    ("entry", "versioned", "where"),
    [
        (_entry(arxiv="1605.08386"), "1605.08386", "arxiv"),
        (_entry(arxiv="1605.08386", **{"arxiv-version": "2"}), "1605.08386v2", "arxiv"),
        (_entry(eprint="hep-th/9901001", eprinttype="arXiv"), "hep-th/9901001", "eprint"),
        (_entry(eprint="PMC12345", eprinttype="pubmed"), None, ""),
        (_entry(URL="https://arxiv.org/abs/2101.00001v3"), "2101.00001v3", "URL"),
        (_entry(DOI="10.48550/arXiv.2202.01037"), "2202.01037", "DOI"),
        (
            _entry(**{"container-title": "arXiv preprint arXiv:1706.03762"}),
            "1706.03762",
            "container-title",
        ),
        (_entry(**{"container-title": "CoRR", "volume": "abs/1605.08386"}), "1605.08386", "volume"),
        (_entry(**{"container-title": "Nature", "volume": "abs/1605.08386"}), None, ""),
        (_entry(note="arXiv:math.GT/0309136"), "math/0309136", "note"),
        (_entry(title="Only a title", DOI="10.1103/PhysRevB.85.115117"), None, ""),
    ],
)
def test_find_arxiv_id_in_entries(entry: Entry, versioned: str | None, where: str) -> None:
    hit = find_arxiv_id(entry)
    assert (hit.arxiv_id.versioned if hit else None) == versioned
    assert (hit.field if hit else "") == where


def test_find_arxiv_id_in_extras_kept_by_other_readers() -> None:
    entry = Entry(
        type="article",
        extra=[Extra("bibtex", "arxivId", "1605.08386"), Extra("bibtex", "archivePrefix", "arXiv")],
    )
    hit = find_arxiv_id(entry)
    assert hit is not None and hit.arxiv_id == ArxivId("1605.08386") and hit.field == "arxivId"
    in_journal = Entry(type="article", extra=[Extra("bibtex", "journal", "arXiv:2101.00001")])
    hit = find_arxiv_id(in_journal)
    assert hit is not None and hit.arxiv_id.id == "2101.00001"
