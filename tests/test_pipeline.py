"""pipeline.py: reading many sources, conservation checks, key renames that links follow."""

from __future__ import annotations

from pathlib import Path

from citekit.model import Entry, Extra
from citekit.pipeline import KeyOptions, convert, follow_renames, normalize_keys, read_sources


def test_renamed_keys_are_followed_by_crossref_and_xdata() -> None:
    entries = [
        Entry("paper-conference", key="child", original_key="Child",
              extra=[Extra("bibtex", "crossref", "Parent"), Extra("bibtex", "note", "Parent")]),
        Entry("book", key="parent2001", original_key="Parent"),
        Entry("book", key="c", original_key="c",
              extra=[Extra("bibtex", "xdata", "parent, missing")]),
    ]  # fmt: skip
    result = follow_renames(entries)
    assert result[0].extra == [Extra("bibtex", "crossref", "parent2001"),
                               Extra("bibtex", "note", "Parent")]  # fmt: skip
    assert result[2].extra == [Extra("bibtex", "xdata", "parent2001,missing")]
    assert entries[0].extra[0].value == "Parent"  # the input entries are not changed


def test_sources_are_read_in_order_and_counted(tmp_path: Path) -> None:
    (tmp_path / "a.bib").write_text("@misc{a, title = {A}, year = 2000}\n@misc{b,\n")
    (tmp_path / "b.ris").write_text("TY  - JOUR\nTI  - R\nER  - \n")
    bib, report = read_sources([str(tmp_path)])
    assert [e.get("title") for e in bib.entries] == ["A", "R"]
    assert (report.files, report.read, report.rejected) == (2, 3, 1)
    assert not [d for d in report.diagnostics if d.code == "internal.conservation"]


def test_convert_writes_keys_that_are_unique_across_sources(tmp_path: Path) -> None:
    same = "@article{x, author = {Roe, Ann}, title = {Same Title}, year = 2020}\n"
    (tmp_path / "a.bib").write_text(same)
    (tmp_path / "b.bib").write_text(same)
    conversion = convert([str(tmp_path)], to_format="bibtex")
    assert [e.key for e in conversion.bibliography.entries] == ["roe2020same", "roe2020samea"]
    assert conversion.text is not None and "@article{roe2020samea," in conversion.text


def test_normalize_keys_lists_every_entry_with_where(tmp_path: Path) -> None:
    (tmp_path / "a.bib").write_text("@misc{Old, title = {New Things}, year = 1999}\n")
    bib, _ = read_sources([str(tmp_path / "a.bib")])
    renames = normalize_keys(bib, KeyOptions())
    assert renames == [("Old", "anon1999new", f"{tmp_path / 'a.bib'}:1")]


def test_xdata_containers_keep_their_keys(tmp_path: Path) -> None:
    """Granular references (`xdata=gxd2-author-1`) name @xdata keys inside values."""
    (tmp_path / "x.bib").write_text(
        "@xdata{gxd2, author = {Ann Roe}}\n"
        "@book{b, author = {xdata=gxd2-author-1}, title = {T}, year = 2000}\n"
    )
    bib, _ = read_sources([str(tmp_path / "x.bib")])
    normalize_keys(bib, KeyOptions())
    assert [e.key for e in bib.entries] == ["gxd2", "anon2000"]
