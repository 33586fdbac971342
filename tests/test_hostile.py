"""Hostile and broken input through the real command line, in a child process with bounds.

Each case is a file a user might really feed citekit. For every case: no traceback reaches the
user, every good record is converted, every bad one is reported with file and line and its raw
text kept (`--rejects`), the exit code follows the rules, and the child stays inside 500 MiB of
address space (RLIMIT_AS) and a 10 s guard. The guard is a hang detector, not a speed test:
speed lives in benchmarks/.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

MEMORY_LIMIT = 500 * 2**20
TIME_GUARD = 10.0

GOOD = "@book{good, author = {Doe, Jane}, title = {A Good Book}, year = {2001}}\n"


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    data: bytes
    good_keys: tuple[str, ...] = ()  # keys that must be in the output (run with --keep-keys)
    rejected: int = 0  # records that must be rejected
    codes: tuple[str, ...] = ()  # diagnostic codes that must appear
    lines: tuple[int, ...] = ()  # lines that must be named by an error
    exit_codes: tuple[int, ...] = (0,)
    extra_args: tuple[str, ...] = field(default=())
    guard: float = TIME_GUARD


def _bib(text: str) -> bytes:
    return text.encode("utf-8")


CASES = [
    Case("truncated file", "trunc.bib",
         _bib(GOOD + "@article{cut,\n  title = {Half a val"),
         good_keys=("good",), rejected=1, lines=(2,), exit_codes=(1,)),
    Case("unbalanced braces", "braces.bib",
         _bib(GOOD + "@article{bad,\n  title = {Open {brace},\n}\n\n" + GOOD.replace("good", "good2")),
         good_keys=("good",), rejected=1, lines=(2,), exit_codes=(1,)),
    Case("unbalanced quotes", "quotes.bib",
         _bib('@article{q,\n  title = "no end,\n  year = 2000\n}\n\n' + GOOD),
         good_keys=("good",), rejected=1, lines=(1,), exit_codes=(1,)),
    Case("entry with no key", "nokey.bib",
         _bib("@article{\n  title = {No Key Here},\n  year = {1999}\n}\n" + GOOD),
         good_keys=("good", "anon1999no"), exit_codes=(0,)),
    Case("duplicate fields", "dupfield.bib",
         _bib("@misc{dup, title = {One}, title = {Two}, year = 2000}\n" + GOOD),
         good_keys=("good", "dup"), codes=("bibtex.duplicate-field",), exit_codes=(0,)),
    Case("@ inside values", "at.bib",
         _bib("@misc{at, title = {mail me @home or @ work}, note = \"a@b.org\", year = 2000}\n"
              + GOOD),
         good_keys=("good", "at"), exit_codes=(0,)),
    Case("entry start inside a value", "at2.bib",
         _bib("@misc{at, title = {see @article{x, y}}, year = 2000}\n" + GOOD),
         good_keys=("good", "at"), exit_codes=(0,)),
    Case("stray closing brace between entries", "stray.bib",
         _bib(GOOD + "}\n}\n" + GOOD.replace("good", "after")),
         good_keys=("good", "after"), exit_codes=(0,)),
    Case("binary junk", "junk.bib",
         bytes(range(256)) * 40 + b"\n" + GOOD.encode(),
         good_keys=("good",), codes=("input.encoding",), exit_codes=(0, 1)),
    Case("NUL bytes", "nul.bib",
         _bib("@misc{nul, title = {a\x00b}, year = 2000}\n" + GOOD),
         good_keys=("good", "nul"), exit_codes=(0, 1)),
    Case("latin-1 bytes", "latin1.bib",
         "@misc{lat, title = {Caf\u00e9 cr\u00e8me}, year = 2000}\n".encode("latin-1") + GOOD.encode(),
         good_keys=("good", "lat"), codes=("input.encoding",), exit_codes=(0,)),
    Case("cp1252 bytes", "cp1252.bib",
         "@misc{win, title = {\u201cQuoted\u201d \u2013 dash}, year = 2000}\n".encode("cp1252")
         + GOOD.encode(),
         good_keys=("good", "win"), codes=("input.encoding",), exit_codes=(0,)),
    Case("GBK bytes", "gbk.bib",
         "@misc{zh, title = {中文标题测试，这是一个比较长的标题用于检测编码}, year = 2000}\n"
         .encode("gbk") + GOOD.encode(),
         good_keys=("good", "zh"), codes=("input.encoding",), exit_codes=(0,)),
    Case("UTF-8 BOM", "bom.bib", b"\xef\xbb\xbf" + GOOD.encode(),
         good_keys=("good",), exit_codes=(0,)),
    Case("CRLF line ends", "crlf.bib",
         (GOOD + "@article{bad,\n title = {x\n").replace("\n", "\r\n").encode(),
         good_keys=("good",), rejected=1, lines=(2,), exit_codes=(1,)),
    Case("lone CR line ends", "cr.bib",
         (GOOD + "@article{bad,\n title = {x\n").replace("\n", "\r").encode(),
         good_keys=("good",), rejected=1, lines=(2,), exit_codes=(1,)),
    Case("50 MB single field", "huge.bib",
         b"@misc{huge, abstract = {" + b"lorem ipsum " * (50 * 2**20 // 12) + b"}, year = 2000}\n"
         + GOOD.encode(),
         good_keys=("good", "huge"), exit_codes=(0,), guard=60.0),
    Case("braces nested 10,000 deep", "deep.bib",
         _bib("@misc{deep, title = {" + "{" * 10_000 + "x" + "}" * 10_000 + "}, year = 2000}\n"
              + GOOD),
         good_keys=("good", "deep"), exit_codes=(0, 1)),
    Case("looping crossref", "crossref.bib",
         _bib("@inproceedings{a, crossref = {b}, title = {A}}\n"
              "@proceedings{b, crossref = {a}, title = {B}}\n" + GOOD),
         good_keys=("good", "a", "b"), codes=("bibtex.crossref-cycle",), exit_codes=(0,)),
    Case("looping xdata", "xdata.bib",
         _bib("@xdata{x, xdata = {y}, publisher = {P}}\n@xdata{y, xdata = {x}}\n"
              "@book{c, xdata = {x}, title = {C}}\n" + GOOD),
         good_keys=("good", "c"), codes=("bibtex.crossref-cycle",), exit_codes=(0,)),
    Case("empty file", "empty.bib", b"", codes=("input.no-records",), exit_codes=(0,)),
    Case("RIS with no TY", "nota.ris", b"AU  - Doe, Jane\r\nTI  - Lost title\r\nER  - \r\n",
         exit_codes=(0, 1), extra_args=("--from", "ris")),
    Case("CSL-JSON that is not JSON", "bad.json", b'[{"id": "a", "title": "x"', rejected=1,
         lines=(1,), exit_codes=(1,), extra_args=("--from", "csl-json")),
    Case("CSL-JSON of the wrong shape", "shape.json",
         _bib(json.dumps([{"id": "ok", "type": "book", "title": "Fine"}, 42, "text"])),
         good_keys=("ok",), rejected=2, exit_codes=(1,), extra_args=("--from", "csl-json")),
]  # fmt: skip


def run_citekit(args: list[str], cwd: Path, guard: float = TIME_GUARD,
                memory: int = MEMORY_LIMIT):  # fmt: skip
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "citekit", *args],
        cwd=cwd, capture_output=True, text=True, timeout=guard, preexec_fn=limits,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    source = tmp_path / case.filename
    source.write_bytes(case.data)
    out, rejects = tmp_path / "out.bib", tmp_path / "rejects.txt"
    result = run_citekit(
        ["convert", case.filename, "--keep-keys", "-o", str(out), "--rejects", str(rejects),
         *case.extra_args],
        tmp_path, case.guard,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode in case.exit_codes, result.stderr[-3000:]
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.startswith("citekit: "), summary
    read, written, rejected = map(int, re.findall(
        r"(\d+) record\(s\) read, (\d+) written, (\d+) rejected", summary)[0])  # fmt: skip
    assert rejected == case.rejected, result.stderr[-3000:]
    assert read == written + rejected  # conservation, as the summary reports it
    output = out.read_text(encoding="utf-8") if out.exists() else ""
    for key in case.good_keys:
        assert re.search(rf"@\w+\{{{re.escape(key)},", output), f"{key} missing:\n{output[:2000]}"
    for code in case.codes:
        assert f"({code})" in result.stderr, result.stderr[-3000:]
    error_lines = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    for line in case.lines:
        assert any(ln.startswith(f"{case.filename}:{line}: error: ") for ln in error_lines), \
            error_lines
    for ln in error_lines:  # every error names its file (and a line where there is one)
        assert ln.startswith(f"{case.filename}"), ln
    if case.rejected:
        kept = rejects.read_bytes()
        assert kept.strip(), "rejected records' raw text must be kept"


def test_a_folder_with_unreadable_entries_converts_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "refs"
    folder.mkdir()
    (folder / "good.bib").write_text(GOOD)
    (folder / "dangling.bib").symlink_to(tmp_path / "gone.bib")
    (folder / "adir.bib").mkdir()
    os.mkfifo(folder / "pipe.bib")
    result = run_citekit(["convert", "refs", "--keep-keys"], tmp_path)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    assert "@book{good," in result.stdout
    assert "refs/dangling.bib: error: no such file (input.unreadable)" in result.stderr
    assert "refs/pipe.bib: error: not a regular file (input.unreadable)" in result.stderr


def test_many_tiny_entries_stay_in_bounds(tmp_path: Path) -> None:
    """200k tiny entries within their own bound (issue 7: under 1.5 GiB) and a hang guard."""
    source = tmp_path / "many.bib"
    source.write_text("".join(f"@misc{{k{i}, title = {{T{i}}}, year = 2000}}\n"
                              for i in range(200_000)))  # fmt: skip
    out = tmp_path / "out.json"
    result = run_citekit(["convert", "many.bib", "--to", "csl-json", "-o", str(out), "-q"],
                         tmp_path, guard=300.0, memory=1536 * 2**20)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "200000 record(s) read, 200000 written, 0 rejected" in result.stderr
