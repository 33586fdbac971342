"""io.py: decoding bytes (BOM, UTF-8, fallbacks), newlines, input discovery, atomic writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from citekit import io
from citekit.errors import InputError, OutputError


def test_utf8_is_read_without_diagnostics() -> None:
    loaded = io.decode_bytes("Béthune\n".encode(), source="a.bib")
    assert (loaded.text, loaded.encoding, loaded.diagnostics) == ("Béthune\n", "utf-8", ())


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"\xef\xbb\xbf@article{k,}", "utf-8-sig"),
        ("@article{k,}".encode("utf-16"), "utf-16"),
    ],
)
def test_a_bom_decides_the_encoding_and_is_dropped(data: bytes, encoding: str) -> None:
    loaded = io.decode_bytes(data, source="x")
    assert loaded.text == "@article{k,}"
    assert loaded.encoding == encoding


def test_latin9_file_is_decoded_with_a_warning_naming_the_encoding() -> None:
    data = "title = {Fran\u00e7ais}\n% \u00e9t\u00e9\n".encode("iso-8859-15")
    loaded = io.decode_bytes(b"@book{x,\n" + data, source="enc.bib")
    assert "Français" in loaded.text
    (note,) = loaded.diagnostics
    assert note.severity == "warning" and note.code == "input.encoding"
    assert note.line == 2 and note.source == "enc.bib"
    assert loaded.encoding in note.message


def test_cp1252_smart_quotes_survive() -> None:
    loaded = io.decode_bytes(b"\x93quoted\x94 text \x96 dash", source="x")
    assert loaded.text == "\u201cquoted\u201d text \u2013 dash"


def test_gbk_text_is_detected() -> None:
    data = "@misc{k, title = {中文标题测试，这是一个比较长的标题用于检测编码}}".encode("gbk")
    loaded = io.decode_bytes(data, source="x")
    assert "中文标题测试" in loaded.text


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_newlines_are_normalised_one_for_one(newline: str) -> None:
    text = newline.join(["a", "b", "", "c"])
    assert io.decode_bytes(text.encode(), source="x").text == "a\nb\n\nc"


def test_missing_input_is_an_input_error(tmp_path) -> None:
    with pytest.raises(InputError) as info:
        io.read_input(str(tmp_path / "nope.bib"))
    assert info.value.path.endswith("nope.bib")


def test_directories_expand_to_known_suffixes_in_sorted_order(tmp_path) -> None:
    (tmp_path / "b.bib").write_text("")
    (tmp_path / "a.ris").write_text("")
    (tmp_path / "notes.md").write_text("")
    (tmp_path / ".hidden.bib").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.json").write_text("")
    found = io.expand_inputs([str(tmp_path)], (".bib", ".ris", ".json"))
    assert [os.path.relpath(p, tmp_path) for p in found] == ["a.ris", "b.bib", "sub/c.json"]


def test_write_atomic_replaces_and_keeps_permissions(tmp_path) -> None:
    target = tmp_path / "out.bib"
    target.write_text("old")
    os.chmod(target, 0o640)
    io.write_atomic(str(target), "new\n", backup=True)
    assert target.read_text() == "new\n"
    assert (tmp_path / "out.bib~").read_text() == "old"
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o640)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bib", "out.bib~"]


def test_write_atomic_into_a_missing_folder_fails_cleanly(tmp_path) -> None:
    with pytest.raises(OutputError):
        io.write_atomic(str(tmp_path / "no" / "such" / "out.bib"), "x")


def test_a_killed_writer_leaves_the_previous_file_intact(tmp_path) -> None:
    """SIGKILL in the middle of a large write: the old file stays whole, no partial file."""
    target = tmp_path / "out.bib"
    target.write_text("previous content\n")
    script = textwrap.dedent(
        f"""
        import os, sys
        from citekit import io
        text = "x" * 400_000_000
        sys.stdout.write("ready\\n"); sys.stdout.flush()
        io.write_atomic({str(target)!r}, text)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert target.read_text() == "previous content\n"
