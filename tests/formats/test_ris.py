"""The RIS reader and writer (citekit/formats/ris.py): every corpus file with conservation, the
lenient reader's reports line by line, Zotero-style output byte for byte, value folding against
record injection, rispy as an independent consumer, RIS -> RIS round trips and a hypothesis
write -> read property with RIS's documented loss."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import rispy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citekit.formats import ris
from citekit.model import OTHERS, Bibliography, Date, Entry, Extra, Name, Origin, plain

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ris"
RIS_FILES = sorted(CORPUS.glob("*.ris"))

# file -> (records counted independently, entries, rejected)
EXPECTED_COUNTS = {
    "jabref-ris-scopus.ris": (1, 1, 0),
    # JabRef's test file repeats TY nine times before its first field: each TY opens a record
    # (Zotero's reading); the eight that hold no tag are rejected, raw text kept.
    "jabref-ris-test1.ris": (11, 3, 8),
    "rispy-custom-list-tags.ris": (1, 1, 0),
    "rispy-extraneous-data.ris": (2, 2, 0),
    "rispy-full.ris": (2, 2, 0),
    "rispy-multiline.ris": (3, 3, 0),
    "rispy-utf8-bom.ris": (1, 1, 0),
    "rispy-wos-not-ris.ris": (2, 0, 2),
}


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def _read(text: str) -> Bibliography:
    return ris.read(text, source="t.ris")


def _codes(bib: Bibliography) -> list[tuple[str, int | None]]:
    return [(d.code, d.line) for d in bib.diagnostics]


def _only(text: str) -> Entry:
    bib = _read(text)
    assert len(bib.entries) == 1, bib.diagnostics
    return bib.entries[0]


# ---------------------------------------------------------------------------------------------
# Corpus: conservation, no exception, diagnostics that name the file and line
# ---------------------------------------------------------------------------------------------


def test_every_corpus_file_has_expected_counts() -> None:
    assert sorted(p.name for p in RIS_FILES) == sorted(EXPECTED_COUNTS)


@pytest.mark.parametrize("path", RIS_FILES, ids=lambda p: p.name)
def test_corpus_conservation(path: Path) -> None:
    text = _text(path)
    bib = ris.read(text, source=str(path))
    seen = ris.count_records(text)
    assert seen == len(bib.entries) + len(bib.rejected)
    assert (seen, len(bib.entries), len(bib.rejected)) == EXPECTED_COUNTS[path.name]
    for diagnostic in bib.diagnostics:
        assert diagnostic.source == str(path)
        assert diagnostic.line is not None and diagnostic.line >= 1
    for rejected in bib.rejected:
        assert rejected.raw and rejected.line >= 1


def test_rispy_full_first_record_field_by_field() -> None:
    bib = _read(_text(CORPUS / "rispy-full.ris"))
    entry = bib.entries[0]
    assert entry.type == "article-journal" and entry.source_type == "JOUR"
    assert entry.key == "12345"
    assert entry.names == {
        "author": [Name(family="Marx", given="Karl"), Name(family="Lindgren", given="Astrid")],
        "editor": [Name(family="Glattauer", given="Daniel")],
    }
    assert entry.dates == {"issued": Date(2014)}
    fields = dict(entry.fields)
    assert fields.pop("abstract").startswith("BACKGROUND: Lorem ipsum dolor sit amet")
    assert fields == {
        "title": "Title of reference",
        "keyword": "Pippi, Nordwind, Piraten",
        "container-title": "Lorem",
        "container-title-short": "lorem",
        "volume": "9",
        "issue": "3",
        "page": "e0815",
        "publisher-place": "United States",
        "publisher": "Fun Factory",
        "ISSN": "1932-6208",
        "URL": "http://example_url.com",
    }
    # M1 has no meaning on a journal article in RIS-2011; L2 is a full-text link: both kept
    assert entry.extra == [
        Extra("ris", "M1", "1008150341"),
        Extra("ris", "L2", "http://example.com"),
    ]
    assert ("ris.outside-record", 1) in _codes(bib)  # the "1." line before TY
    assert ("ris.outside-record", 26) in _codes(bib)


def test_multiline_values_keep_breaks_in_notes() -> None:
    bib = _read(_text(CORPUS / "rispy-multiline.ris"))
    first, second, third = bib.entries
    assert first.fields["abstract"] == (
        "first line, ER then second line and at the end the last line"
    )
    assert second.fields["abstract"] == (
        "first line,\nER then second line and at the end\nthe last line"
    )
    # "ER then second line" has no "  - ": a continuation line, not the end of the record
    assert third.fields["abstract"] == second.fields["abstract"]
    assert first.fields["note"] == "first line\n* second line\n* last line"
    assert ("ris.continuation", 3) in _codes(bib)


def test_bom_and_reference_type_name() -> None:
    bib = _read(_text(CORPUS / "rispy-utf8-bom.ris"))
    (entry,) = bib.entries
    assert entry.type == "article-journal"
    assert entry.source_type == "Journal Article"
    assert entry.names["author"][0] == Name(family="Dobrokhotova", given="Yu E.")
    assert entry.fields["container-title"] == "Gynecology, Obstetrics and Perinatology"
    assert entry.fields["note"] == "Ä,Ö,Ü,ä,ö,ü,ß"
    assert Extra("ris", "VO", "8") in entry.extra
    assert ("ris.type-name", 1) in _codes(bib)


def test_web_of_science_export_is_reported_as_not_ris() -> None:
    text = _text(CORPUS / "rispy-wos-not-ris.ris")
    assert not ris.sniff(text)
    bib = _read(text)
    assert bib.entries == []
    assert [d.code for d in bib.diagnostics] == ["ris.not-ris"]
    assert bib.diagnostics[0].severity == "error"
    assert [r.line for r in bib.rejected] == [3, 112]
    assert all(r.raw.startswith("PT J\n") and r.raw.endswith("\nER") for r in bib.rejected)


def test_jabref_test1_reports_and_keeps() -> None:
    bib = _read(_text(CORPUS / "jabref-ris-test1.ris"))
    assert [r.line for r in bib.rejected] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert all(d.code == "ris.empty-record" for d in bib.diagnostics if d.severity == "error")
    conf, other, thesis = bib.entries
    assert conf.type == "paper-conference"
    assert conf.fields["title"] == "Editorial."  # TI wins over the four T1 lines, kept as extras
    assert [x.value for x in conf.extra if x.name == "T1"] == [
        "Editorial: Open Source and Empirical Software Engineering:",
        "Editorial?",
        "Editorial",
        "Editorials",
    ]
    assert conf.names["author"] == [
        Name(literal="Cocke"),
        Name(family="Harrison", given="Warren Levenshtein Morris"),
    ]
    assert conf.names["editor"] == [Name(literal="Rives"), Name(literal="Kasami")]
    assert conf.dates["issued"] == Date(2001, 9, 1)
    assert conf.fields["page"] == "193-194"
    assert conf.fields["container-title"] == "Automaton"
    assert Extra("ris", "PY", "99") in conf.extra
    assert other.type == "document" and other.source_type == "OTHER"
    assert thesis.key == "123456 sxdbgsd"
    assert thesis.fields["abstract"] == "abstract0"
    assert thesis.fields["note"] == "abstract1\ncomment2"
    assert ("ris.er-value", 66) in _codes(bib)


# ---------------------------------------------------------------------------------------------
# The lenient reader: each oddity reported with its line, the record kept
# ---------------------------------------------------------------------------------------------


def test_lf_one_space_missing_er_at_eof_and_junk() -> None:
    text = "Exported by X\n\nTY - JOUR\nTI - One space\nAU - Doe, Jane\n"
    bib = _read(text)
    (entry,) = bib.entries
    assert entry.fields["title"] == "One space"
    assert entry.names["author"] == [Name(family="Doe", given="Jane")]
    assert _codes(bib) == [("ris.outside-record", 1), ("ris.missing-er", 3)]


def test_new_ty_without_er_starts_a_record() -> None:
    bib = _read("TY  - JOUR\r\nTI  - A\r\nTY  - BOOK\r\nTI  - B\r\nER  - \r\n")
    assert [e.fields["title"] for e in bib.entries] == ["A", "B"]
    assert _codes(bib) == [("ris.missing-er", 1)]


def test_repeated_single_tag_kept_and_written_back() -> None:
    entry = _only("TY  - JOUR\nTI  - First\nTI  - Second\nER  - \n")
    assert entry.fields["title"] == "First"
    assert entry.extra == [Extra("ris", "TI", "Second")]
    text, _ = ris.write(Bibliography(entries=[entry]))
    assert "TI  - First\r\n" in text and "TI  - Second\r\n" in text


def test_unknown_tag_reported_with_line_and_written_back() -> None:
    bib = _read("TY  - JOUR\nTI  - T\nZZ  - zed value\nER  - \n")
    (entry,) = bib.entries
    assert entry.extra == [Extra("ris", "ZZ", "zed value")]
    (diag,) = bib.diagnostics
    assert (diag.severity, diag.code, diag.line) == ("warning", "ris.unknown-tag", 3)
    text, _ = ris.write(bib)
    assert "ZZ  - zed value\r\nER  - \r\n" in text


def test_bent_tag_lines_and_orphan_lines() -> None:
    bib = _read("TY  - JOUR\nstray text\nAU   - Roe, Rita\nTI  -Squashed\nER  - \n")
    (entry,) = bib.entries
    assert entry.names["author"] == [Name(family="Roe", given="Rita")]
    assert entry.fields["title"] == "Squashed"
    assert _codes(bib) == [
        ("ris.malformed-line", 2),
        ("ris.malformed-line", 3),
        ("ris.malformed-line", 4),
    ]


def test_bare_er_ends_the_record() -> None:
    bib = _read("TY  - JOUR\nTI  - A\nER\nTY  - JOUR\nTI  - B\nER  - \n")
    assert [e.fields["title"] for e in bib.entries] == ["A", "B"]
    assert _codes(bib) == [("ris.malformed-line", 3)]


def test_continuation_of_plain_tag_joins_with_space_and_empty_values() -> None:
    bib = _read("TY  - JOUR\nTI  - A long\n   title\nIS  -\nVL  - \nER  -\n")
    (entry,) = bib.entries
    assert entry.fields == {"title": "A long title"}
    assert _codes(bib) == [("ris.continuation", 2), ("ris.empty-value", 4), ("ris.empty-value", 5)]


def test_synonyms_ris1_style_record() -> None:
    text = (
        "TY  - JOUR\nT1  - Old style\nA1  - Alpha, A.\nAU  - Beta, B.\nA1  - Gamma, C.\n"
        "JF  - Journal Full\nJO  - J. Full\nY1  - 2012/05//\nN2  - The abstract\n"
        "AB  - A note in RIS-1\nER  - \n"
    )
    bib = _read(text)
    (entry,) = bib.entries
    assert [n.family for n in entry.names["author"]] == ["Alpha", "Beta", "Gamma"]
    assert entry.fields["title"] == "Old style"
    assert entry.fields["container-title"] == "Journal Full"
    assert entry.fields["container-title-short"] == "J. Full"
    assert entry.dates["issued"] == Date(2012, 5)
    assert entry.fields["abstract"] == "The abstract"
    assert entry.fields["note"] == "A note in RIS-1"
    assert ("ris.ab-as-note", 10) in _codes(bib)


def test_t2_wins_over_jf_and_jo() -> None:
    entry = _only("TY  - JOUR\nJO  - Abbr\nJF  - Full\nT2  - Secondary\nER  - \n")
    assert entry.fields["container-title"] == "Secondary"
    assert entry.fields["container-title-short"] == "Abbr"
    assert entry.extra == [Extra("ris", "JF", "Full")]


def test_dates_da_wins_and_conflicting_py_kept() -> None:
    bib = _read("TY  - JOUR\nPY  - 2019\nDA  - 2020/03/04/\nY2  - 2021/01/02/\nER  - \n")
    (entry,) = bib.entries
    assert entry.dates == {"issued": Date(2020, 3, 4), "accessed": Date(2021, 1, 2)}
    assert entry.extra == [Extra("ris", "PY", "2019")]
    assert ("ris.conflicting-date", 2) in _codes(bib)


def test_pages_forms() -> None:
    assert _only("TY  - JOUR\nSP  - 12\nEP  - 19\nER  - \n").fields == {"page": "12-19"}
    assert _only("TY  - JOUR\nEP  - 19\nSP  - 12\nER  - \n").fields == {"page": "12-19"}
    assert _only("TY  - JOUR\nSP  - 12-19\nER  - \n").fields == {"page": "12-19"}
    assert _only("TY  - BOOK\nSP  - 350\nER  - \n").fields == {"number-of-pages": "350"}


def test_identifiers() -> None:
    entry = _only(
        "TY  - GEN\nTI  - P\nAN  - arXiv:2101.00001v3 [cs.LG]\nM3  - https://doi.org/10.1234/abc\n"
        "SN  - 978-3-16-148410-0\nSN  - 1234-5679\nUR  - https://a.example\nUR  - https://b.x\n"
        "AN  - WOS:000123\nER  - \n"
    )
    assert entry.type == "article"  # GEN with an arXiv id: a preprint citekit wrote
    assert entry.fields == {
        "title": "P",
        "arxiv": "2101.00001",
        "arxiv-version": "3",
        "arxiv-class": "cs.LG",
        "DOI": "10.1234/abc",
        "ISBN": "978-3-16-148410-0",
        "ISSN": "1234-5679",
        "archive_location": "WOS:000123",
        "URL": "https://a.example",
        "links": "https://b.x",
    }


def test_keywords_on_one_line_are_split() -> None:
    entry = _only("TY  - JOUR\nKW  - alpha; beta\nKW  - gamma\nER  - \n")
    assert entry.fields == {"keyword": "alpha, beta, gamma"}
    text, _ = ris.write(Bibliography(entries=[entry]))
    assert "KW  - alpha\r\nKW  - beta\r\nKW  - gamma\r\n" in text


def test_all_authors_on_one_line_are_split() -> None:
    bib = _read("TY  - JOUR\nAU  - Doe, J.; Roe, R.\nER  - \n")
    assert bib.entries[0].names["author"] == [
        Name(family="Doe", given="J."),
        Name(family="Roe", given="R."),
    ]
    assert _codes(bib) == [("ris.names-on-one-line", 2)]


def test_book_editor_and_series_tags_follow_ty() -> None:
    entry = _only(
        "TY  - BOOK\nA2  - Series, Ed\nA3  - Book, Ed\nT2  - The Series\nM1  - 7\nER  - \n"
    )
    assert entry.names == {
        "collection-editor": [Name(family="Series", given="Ed")],
        "editor": [Name(family="Book", given="Ed")],
    }
    assert entry.fields == {"collection-title": "The Series", "collection-number": "7"}
    text, _ = ris.write(Bibliography(entries=[entry]))
    assert "A2  - Series, Ed\r\nA3  - Book, Ed\r\nT2  - The Series\r\n" in text


def test_mapping_doc_lists_every_tag_and_type() -> None:
    """docs/mapping.md §6 names every tag the table reads or keeps, §1 every TY written."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "mapping.md").read_text()
    section = doc[doc.index("## 6. Every RIS tag") : doc.index("## 7. Every CSL variable")]
    listed = set(re.findall(r"`([A-Z][A-Z0-9])`", section))
    tags = {rule.tag for rule in ris.RULES} | set(ris.KNOWN_UNMAPPED) | {"TY", "ER", "ID"}
    assert tags - listed == set()
    types = doc[doc.index("### 1.1") : doc.index("### 1.2")]
    assert {ty for ty in ris.TYPE_TO_TY.values()} - set(re.findall(r"`([A-Z]+)`", types)) == set()


def test_sniff() -> None:
    assert ris.sniff("\ufeffTY  - JOUR\r\n")
    assert ris.sniff("Record #1 of 2\nProvider: x\n1.\nTY  - JOUR\n")
    assert not ris.sniff('[{"id": "a", "type": "book"}]')
    assert not ris.sniff("@article{a, title={T}}")


def test_count_records_is_independent_of_the_reader() -> None:
    text = "TY  - JOUR\nTI  - A\nER  - \nTY - BOOK\nTI  - B\n  TY  - X\n\tTI  - C\n"
    assert ris.count_records(text) == 3
    bib = _read(text)
    assert [e.fields["title"] for e in bib.entries] == ["A", "B", "C"]  # indented lines too
    assert ris.count_records("no records") == 0


# ---------------------------------------------------------------------------------------------
# Writing: Zotero's dialect, byte for byte
# ---------------------------------------------------------------------------------------------


def _article() -> Entry:
    return Entry(
        type="article-journal",
        key="doe2020",
        fields={
            "title": "Deep Nets for FNO Solvers",
            "container-title": "Journal of Tests",
            "container-title-short": "J. Tests",
            "volume": "12",
            "issue": "3",
            "page": "100–120",
            "publisher": "Test Press",
            "publisher-place": "Berlin",
            "ISSN": "1234-5679",
            "DOI": "10.1000/xyz",
            "URL": "https://example.org/a",
            "abstract": "We test.",
            "keyword": "testing, ris",
            "language": "en",
        },
        names={
            "author": [
                Name(family="Doe", given="Jane", suffix="Jr."),
                Name(family="Berg", given="Jan", particle="van der"),
                Name(literal="World Health Organization"),
            ]
        },
        dates={"issued": Date(2020, 5, 17)},
    )


EXPECTED_ARTICLE = (
    "TY  - JOUR\r\n"
    "ID  - doe2020\r\n"
    "TI  - Deep Nets for FNO Solvers\r\n"
    "AU  - Doe, Jane, Jr.\r\n"
    "AU  - van der Berg, Jan\r\n"
    "AU  - World Health Organization\r\n"
    "T2  - Journal of Tests\r\n"
    "J2  - J. Tests\r\n"
    "PY  - 2020\r\n"
    "DA  - 2020/05/17/\r\n"
    "VL  - 12\r\n"
    "IS  - 3\r\n"
    "SP  - 100\r\n"
    "EP  - 120\r\n"
    "PB  - Test Press\r\n"
    "CY  - Berlin\r\n"
    "SN  - 1234-5679\r\n"
    "DO  - 10.1000/xyz\r\n"
    "UR  - https://example.org/a\r\n"
    "LA  - en\r\n"
    "AB  - We test.\r\n"
    "KW  - testing\r\n"
    "KW  - ris\r\n"
    "ER  - \r\n"
    "\r\n"
)


def test_write_article_exactly() -> None:
    text, diagnostics = ris.write(Bibliography(entries=[_article()]))
    assert text == EXPECTED_ARTICLE
    assert diagnostics == []
    assert not text.startswith("\ufeff")
    assert text.encode("utf-8").decode("utf-8") == text


def test_write_preprint() -> None:
    entry = Entry(
        type="article",
        key="smith2021",
        fields={
            "title": "A Preprint",
            "arxiv": "2101.00001",
            "arxiv-version": "2",
            "arxiv-class": "cs.LG",
            "DOI": "10.48550/arXiv.2101.00001",
            "URL": "https://arxiv.org/abs/2101.00001",
            "publisher": "arXiv",
        },
        names={"author": [Name(family="Smith", given="Ann"), OTHERS]},
        dates={"issued": Date(2021, 1)},
    )
    text, diagnostics = ris.write(Bibliography(entries=[entry]))
    assert text == (
        "TY  - GEN\r\nID  - smith2021\r\nTI  - A Preprint\r\nAU  - Smith, Ann\r\n"
        "PY  - 2021\r\n"
        "DA  - 2021/01//\r\nPB  - arXiv\r\nDO  - 10.48550/arXiv.2101.00001\r\n"
        "UR  - https://arxiv.org/abs/2101.00001\r\nAN  - arXiv:2101.00001v2 [cs.LG]\r\n"
        "N1  - The author list is incomplete (and others).\r\nER  - \r\n\r\n"
    )
    assert diagnostics == []
    back = _only(text)
    assert back.type == "article"
    assert back.fields == entry.fields
    assert back.names == entry.names  # the note reads back as the "and others" marker


def test_date_losses_are_reported() -> None:
    issued = Date(2001, end_year=2003, circa=True)
    entry = Entry(type="book", key="k", fields={"title": "T"}, dates={"issued": issued})
    text, diagnostics = ris.write(Bibliography(entries=[entry]))
    assert "PY  - 2001\r\nDA  - 2001///\r\n" in text
    assert [(d.severity, d.code) for d in diagnostics] == [("warning", "ris.date-simplified")] * 2


def test_omit_takes_canonical_names_and_tags() -> None:
    from citekit.options import WriteOptions

    text, _ = ris.write(Bibliography(entries=[_article()]),
                        WriteOptions(omit=frozenset({"abstract", "KW", "author"})))  # fmt: skip
    assert "AB  - " not in text and "KW  - " not in text and "AU  - " not in text
    assert "TI  - Deep Nets for FNO Solvers\r\n" in text


def test_unwritable_fields_are_reported() -> None:
    entry = Entry(
        type="article-journal",
        key="k",
        fields={"title": "T", "journal-ref": "X 1"},
        extra=[Extra("bibtex", "howpublished", "by hand")],
    )
    _, diagnostics = ris.write(Bibliography(entries=[entry]))
    assert [(d.code, d.message) for d in diagnostics] == [
        ("ris.not-written", "no RIS tag for: journal-ref, bibtex:howpublished")
    ]


def test_unknown_ty_from_ris_goes_back_as_it_came() -> None:
    entry = _only("TY  - OTHER\nTI  - T\nER  - \n")
    text, _ = ris.write(Bibliography(entries=[entry]))
    assert text.startswith("TY  - OTHER\r\n")
    # the same type from another format gets Zotero's default
    moved = entry.evolve(source_type="misc", origin=Origin("x.bib", 1, "bibtex"))
    text, _ = ris.write(Bibliography(entries=[moved]))
    assert text.startswith("TY  - GEN\r\n")


# ---------------------------------------------------------------------------------------------
# Folding: no value can open or close a record
# ---------------------------------------------------------------------------------------------

EVIL = "Innocent\r\nER  - \r\n\r\nTY  - JOUR\r\nTI  - Injected\nER  -\n  TY  - BOOK\nend"


@pytest.mark.parametrize("field", ["title", "abstract", "note", "publisher", "keyword"])
def test_injection_is_impossible(field: str) -> None:
    entry = Entry(type="article-journal", key="k", fields={field: EVIL, "DOI": "10.1/x"})
    text, diagnostics = ris.write(Bibliography(entries=[entry]))
    assert ris.count_records(text) == 1
    assert text.count("\r\nER  - \r\n") == 1
    bib = _read(text)
    assert len(bib.entries) == 1 and bib.rejected == []
    assert bib.entries[0].fields["DOI"] == "10.1/x"
    parsed = rispy.loads(text)
    assert len(parsed) == 1 and parsed[0]["doi"] == "10.1/x"
    assert "ris.folded" in [d.code for d in diagnostics]


def test_note_folding_keeps_ordinary_line_breaks() -> None:
    note = "First line\nsecond line\nthird line"
    entry = Entry(type="article-journal", key="k", fields={"note": note})
    text, _ = ris.write(Bibliography(entries=[entry]))
    assert "N1  - First line\r\nsecond line\r\nthird line\r\n" in text
    assert _only(text).fields["note"] == note


# ---------------------------------------------------------------------------------------------
# rispy, an independent reader, sees the same title, authors, year and DOI
# ---------------------------------------------------------------------------------------------


def _rispy_view(record: dict[str, object]) -> tuple[object, ...]:
    return (record.get("title"), record.get("authors", []), record.get("year"), record.get("doi"))


def _our_view(entry: Entry) -> tuple[object, ...]:
    date = entry.dates.get("issued")
    return (
        plain(entry.fields["title"]) if "title" in entry.fields else None,
        [ris.names.format_ris_name(n) for n in entry.names.get("author", [])],
        str(date.year) if date and date.year else None,
        entry.fields.get("DOI"),
    )


@pytest.mark.consumer
@pytest.mark.parametrize(
    "path", [p for p in RIS_FILES if "wos" not in p.name], ids=lambda p: p.name
)
def test_rispy_reads_what_we_write_from_the_corpus(path: Path) -> None:
    bib = _read(_text(path))
    text, _ = ris.write(bib)
    parsed = rispy.loads(text)
    assert len(parsed) == len(bib.entries)
    assert [_rispy_view(r) for r in parsed] == [_our_view(e) for e in bib.entries]


@pytest.mark.consumer
def test_rispy_reads_constructed_article() -> None:
    (record,) = rispy.loads(EXPECTED_ARTICLE)
    assert _rispy_view(record) == (
        "Deep Nets for FNO Solvers",
        ["Doe, Jane, Jr.", "van der Berg, Jan", "World Health Organization"],
        "2020",
        "10.1000/xyz",
    )
    assert record["start_page"] == "100" and record["end_page"] == "120"
    assert record["keywords"] == ["testing", "ris"]


# ---------------------------------------------------------------------------------------------
# Round trips RIS -> citekit -> RIS keep every field
# ---------------------------------------------------------------------------------------------


def _same(a: Entry, b: Entry) -> None:
    assert (a.type, a.key) == (b.type, b.key)
    # a TY written as an EndNote type name ("Journal Article") goes back as its code
    assert ris._resolve_ty(a.source_type)[0] == b.source_type
    assert a.fields == b.fields
    assert a.names == b.names
    assert a.dates == b.dates
    assert Counter(a.extra) == Counter(b.extra)


@pytest.mark.parametrize("path", RIS_FILES, ids=lambda p: p.name)
def test_ris_round_trip_keeps_every_field(path: Path) -> None:
    first = _read(_text(path))
    text, _ = ris.write(first)
    second = _read(text)
    assert len(second.entries) == len(first.entries)
    for a, b in zip(first.entries, second.entries, strict=True):
        _same(a, b)
    again, _ = ris.write(second)
    assert again == text  # the writer is deterministic and the second pass is a fixed point


# ---------------------------------------------------------------------------------------------
# Property: write -> read returns the entry, modulo RIS's documented loss
#
# RIS's documented loss (docs/mapping.md, "What each format loses"): no date ranges, circa or
# seasons beside a month; no "and others"; no markup (rich text becomes plain Unicode); line
# breaks in values other than AB/N1 become spaces; keywords are split on "," and ";"; dropping
# particles merge into the family part; types without their own TY come back as their TY's
# type. The strategy below generates only what RIS can hold, so equality is exact.
# ---------------------------------------------------------------------------------------------

_WORD = st.text(st.characters(whitelist_categories=("Lu", "Ll"), max_codepoint=0x24F),
                min_size=1, max_size=8)  # fmt: skip
_CAP = _WORD.map(lambda w: w[:1].upper() + w[1:])
_PHRASE = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)
# A lone two-capital line ("ER") is folded onto the line before (documented): keep lines longer.
_LINE = st.lists(_WORD, min_size=2, max_size=6).map(" ".join)
_NAME = st.one_of(
    st.builds(Name, family=_CAP, given=_CAP),
    st.builds(Name, family=_CAP, given=_CAP, suffix=st.sampled_from(["Jr.", "III"])),
    st.builds(Name, family=_CAP, given=_CAP, particle=st.sampled_from(["van", "de la"])),
    st.builds(Name, literal=st.lists(_CAP, min_size=2, max_size=4).map(" ".join)),
)
_DATE = st.one_of(
    st.builds(Date, year=st.integers(1000, 2100)),
    st.builds(Date, year=st.integers(1000, 2100), month=st.integers(1, 12)),
    st.builds(Date, year=st.integers(1000, 2100), month=st.integers(1, 12),
              day=st.integers(1, 28)),
)  # fmt: skip
_NUMBER = st.integers(1, 9999).map(str)


@st.composite
def ris_entries(draw: st.DrawFn) -> Entry:
    ctype = draw(st.sampled_from(sorted(ris.ROUND_TRIP_TYPES)))
    fields = {"title": draw(_PHRASE)}
    for name, strategy in (("volume", _NUMBER), ("publisher", _PHRASE), ("DOI", _NUMBER.map(
            lambda n: f"10.{1000 + int(n)}/x{n}")), ("abstract", st.lists(_LINE, min_size=1,
            max_size=3).map("\n".join)), ("keyword", st.lists(_PHRASE, min_size=1,
            max_size=3).map(", ".join)), ("language", st.sampled_from(["en", "de"]))):  # fmt: skip
        if draw(st.booleans()):
            fields[name] = draw(strategy)
    if draw(st.booleans()):
        first = int(draw(_NUMBER))
        fields["page"] = f"{first}-{first + draw(st.integers(0, 50))}"
    names = {"author": draw(st.lists(_NAME, min_size=1, max_size=4))}
    dates = {"issued": draw(_DATE)} if draw(st.booleans()) else {}
    key = draw(st.from_regex(r"[a-z][a-z0-9]{2,10}", fullmatch=True))
    return Entry(type=ctype, key=key, fields=fields, names=names, dates=dates)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ris_entries())
def test_property_write_then_read_is_identity(entry: Entry) -> None:
    text, _ = ris.write(Bibliography(entries=[entry]))
    bib = _read(text)
    assert ris.count_records(text) == 1 and bib.rejected == []
    back = bib.entries[0]
    assert (back.type, back.key) == (entry.type, entry.key)
    assert back.fields == entry.fields
    assert back.names == entry.names
    assert back.dates == entry.dates
    assert back.extra == []


_FRAGMENT = st.sampled_from([
    "TY  - JOUR", "TY - BOOK", "  TY  - GEN", "\ufeffTY  - X", "ER  - ", "ER  -", "ER",
    "TI  - Title", "AU  - Doe, J.", "AU   - Bent, B.", "PY  - 2020", "DA  - 2020/01//",
    "SP  - 1-2", "EP  - 9", "KW  - k", "N1  - note", "  continued", "junk", "", "ZZ  - z",
    "TY  -JOUR", "1.", "PT J", "FN Clarivate", "AN  - arXiv:2101.00001v2 [cs.LG]",
])  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_property_reader_never_raises_and_conserves(text: str) -> None:
    bib = _read(text)
    assert ris.count_records(text) == len(bib.entries) + len(bib.rejected)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENT, max_size=30), st.sampled_from(["\n", "\r\n", "\r"]))
def test_property_ris_like_text_conserves_and_round_trips(lines: list[str], eol: str) -> None:
    text = eol.join(lines)
    bib = _read(text)
    assert ris.count_records(text) == len(bib.entries) + len(bib.rejected)
    written, _ = ris.write(bib)
    again = _read(written)
    assert ris.count_records(written) == len(bib.entries) == len(again.entries)
    assert again.rejected == []
