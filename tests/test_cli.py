"""The command line as a user meets it: stdout, stderr, exit codes and files, checked apart."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from citekit.cli import cli

GOOD = """@article{Smith99,
  author = {Smith, John and M{\\"u}ller, Anna},
  title = {The {DNA} of Citation Keys},
  journal = {Journal of Tests},
  year = {1999},
  month = jun,
  abstract = {Long text.},
}
"""

BROKEN = GOOD + """
@article{broken,
  title = {Unbalanced {brace,
  year = 2001
}

@book{Doe2020,
  author = {Doe, Jane},
  title = {A Book about Nothing},
  publisher = {Pub},
  year = {2020},
}
"""


def run(args: list[str], stdin: str | None = None):
    return CliRunner().invoke(cli, args, input=stdin, catch_exceptions=False)


@pytest.fixture
def good_bib(tmp_path: Path) -> Path:
    path = tmp_path / "refs.bib"
    path.write_text(GOOD, encoding="utf-8")
    return path


@pytest.fixture
def broken_bib(tmp_path: Path) -> Path:
    path = tmp_path / "broken.bib"
    path.write_text(BROKEN, encoding="utf-8")
    return path


def test_convert_prints_normalised_bibtex_and_a_summary(good_bib: Path) -> None:
    result = run(["convert", str(good_bib), "--to", "bibtex"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("@article{smith1999dna,")
    assert "month = jun," in result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("citekit: 1 file(s), 1 record(s) read, 1 written, 0 rejected")


def test_keep_keys_keeps_usable_keys(good_bib: Path) -> None:
    result = run(["convert", str(good_bib), "--keep-keys"])
    assert result.stdout.startswith("@article{Smith99,")


def test_rename_is_reported_at_info_level(good_bib: Path) -> None:
    result = run(["convert", str(good_bib)])
    assert f"{good_bib}:1: info: [smith1999dna]" in result.stderr
    assert "(key.renamed)" in result.stderr


def test_output_file_is_written_and_stdout_stays_empty(good_bib: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = run(["convert", str(good_bib), "--to", "csl-json", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert '"id": "smith1999dna"' in out.read_text(encoding="utf-8")


def test_a_broken_entry_is_reported_and_the_rest_converted(broken_bib: Path, tmp_path: Path):
    rejects = tmp_path / "rejects.bib"
    result = run(["convert", str(broken_bib), "--rejects", str(rejects)])
    assert result.exit_code == 1
    assert "@article{smith1999dna," in result.stdout
    assert "@book{doe2020book," in result.stdout
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert errors and errors[0].startswith(f"{broken_bib}:10: error: ")
    assert "Unbalanced {brace" in rejects.read_text(encoding="utf-8")
    assert "3 record(s) read, 2 written, 1 rejected" in result.stderr.splitlines()[-1]


def test_fail_on_warning_turns_warnings_into_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "w.bib"
    path.write_text("@misc{a, title = {\\unknowncommand{x}}, year = 2000}\n")
    assert run(["convert", str(path)]).exit_code == 0
    assert run(["convert", str(path), "--fail-on", "warning"]).exit_code == 1


def test_stdin_is_read_with_dash(good_bib: Path) -> None:
    result = run(["convert", "-", "--to", "ris"], stdin=good_bib.read_text())
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(b"TY  - JOUR\r\n")
    assert "<stdin>" in result.stderr or "1 record(s) read" in result.stderr


def test_a_directory_is_expanded(tmp_path: Path) -> None:
    (tmp_path / "a.bib").write_text(GOOD)
    (tmp_path / "b.bib").write_text(GOOD.replace("Smith99", "Other").replace("1999", "2001"))
    result = run(["convert", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    assert "2 file(s), 2 record(s) read, 2 written" in result.stderr


def test_nothing_readable_is_exit_3(tmp_path: Path) -> None:
    result = run(["convert", str(tmp_path / "missing.bib")])
    assert result.exit_code == 3
    assert "missing.bib: error: no such file (input.unreadable)" in result.stderr


def test_output_that_is_an_input_is_refused(good_bib: Path) -> None:
    before = good_bib.read_text()
    result = run(["convert", str(good_bib), "-o", str(good_bib)])
    assert result.exit_code == 2
    assert good_bib.read_text() == before


def test_in_place_rewrites_with_a_backup(good_bib: Path) -> None:
    before = good_bib.read_text()
    result = run(["convert", str(good_bib), "--in-place", "--backup", "--keep-keys"])
    assert result.exit_code == 0, result.stderr
    assert Path(str(good_bib) + "~").read_text() == before
    assert good_bib.read_text().startswith("@article{Smith99,")


def test_key_map_lists_every_entry(broken_bib: Path, tmp_path: Path) -> None:
    key_map = tmp_path / "keys.tsv"
    run(["convert", str(broken_bib), "--key-map", str(key_map)])
    rows = key_map.read_text().splitlines()
    assert rows[0] == "old\tnew\twhere"
    assert rows[1] == f"Smith99\tsmith1999dna\t{broken_bib}:1"
    assert rows[2].startswith("Doe2020\tdoe2020book\t")


def test_omit_drops_fields(good_bib: Path) -> None:
    result = run(["convert", str(good_bib), "--omit", "abstract,journal"])
    assert "abstract" not in result.stdout and "journal =" not in result.stdout


def test_a_bad_key_pattern_is_a_usage_error(good_bib: Path) -> None:
    result = run(["convert", str(good_bib), "--key-pattern", "{nosuchfield}"])
    assert result.exit_code == 2
    assert "--key-pattern" in result.stderr


def test_check_writes_nothing(broken_bib: Path) -> None:
    result = run(["check", str(broken_bib)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "1 rejected" in result.stderr


def test_the_output_file_is_untouched_when_nothing_can_be_read(tmp_path: Path) -> None:
    out = tmp_path / "out.bib"
    out.write_text("keep me")
    result = run(["convert", str(tmp_path / "missing.bib"), "-o", str(out)])
    assert result.exit_code == 3
    assert out.read_text() == "keep me"
    assert os.listdir(tmp_path) == ["out.bib"]


def test_in_place_keeps_a_biblatex_file_biblatex(tmp_path: Path) -> None:
    path = tmp_path / "blx.bib"
    path.write_text("@online{web, title = {A Page}, date = {2020-05-01}, url = {https://x.org}}\n")
    result = run(["convert", str(path), "--in-place", "--keep-keys"])
    assert result.exit_code == 0, result.stderr
    rewritten = path.read_text()
    assert rewritten.startswith("@online{web,")
    assert "date = {2020-05-01}" in rewritten
