"""Smoke test of the benchmark's data builder (benchmarks/benchdata.py): exact entry counts,
consistent key renaming, and determinism. The benchmark itself is a script and is never run
from the test suite."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("benchdata", REPO / "benchmarks" / "benchdata.py")
assert _spec and _spec.loader
benchdata = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("benchdata", benchdata)  # dataclasses look their module up while built
_spec.loader.exec_module(benchdata)

CORPUS = benchdata.DEFAULT_CORPUS
needs_corpus = pytest.mark.skipif(
    not (CORPUS / benchdata.TUGBOAT).exists(), reason=f"shared corpus not found at {CORPUS}"
)


def test_renamed_copy_renames_keys_and_the_fields_that_point_at_them() -> None:
    text = (
        "@string{jgg = {Journal}}\n"
        "@inbook{part, crossref = {whole}, xdata = {a, b}, title = {T}}\n"
        "@book{whole,\n  title = {Cross reference}}\n"
        "@article{, title = {no key}}\n"
    )
    assert benchdata.renamed_copy(text, 2) == (
        "@string{jgg = {Journal}}\n"
        "@inbook{part-r2, crossref = {whole-r2}, xdata = {a-r2, b-r2}, title = {T}}\n"
        "@book{whole-r2,\n  title = {Cross reference}}\n"
        "@article{, title = {no key}}\n"
    )
    assert benchdata.renamed_copy(text, 0) == text


def test_cut_after_keeps_whole_entries_and_not_strings() -> None:
    text = "@string{a = {1}}\n@book{x, title={X}}\n@comment{c}\n@book{y, title={Y}}\n"
    assert benchdata.cut_after(text, 1) == "@string{a = {1}}\n@book{x, title={X}}\n@comment{c}\n"
    assert benchdata.count_entries(text) == 2


@needs_corpus
def test_replication_reaches_exactly_20k_entries_with_unique_keys() -> None:
    sources = [benchdata._read_source(p) for p in benchdata.corpus_files(CORPUS)]
    chunks = list(benchdata.replicated_chunks(sources, 20_000))
    assert sum(benchdata.count_entries(c) for c in chunks) == 20_000
    # copies after the first never repeat a key of the first (renamed with -rN)
    assert "@Article{Welland:TB1-1-2-r1," in "".join(chunks)


@needs_corpus
def test_build_gives_the_advertised_counts_and_is_deterministic(tmp_path: Path) -> None:
    built = benchdata.build(tmp_path / "a", CORPUS, ("tugboat", "corpus-100"))
    assert built["tugboat"].entries == 3644
    assert built["tugboat"].path.read_bytes() == (CORPUS / benchdata.TUGBOAT).read_bytes()
    assert built["corpus-100"].entries == 100
    again = benchdata.build(tmp_path / "b", CORPUS, ("corpus-100",))
    digest = [hashlib.sha256(d.path.read_bytes()).hexdigest()
              for d in (built["corpus-100"], again["corpus-100"])]
    assert digest[0] == digest[1]
