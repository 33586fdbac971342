"""The only place citekit touches files: bytes to text with encoding detection, input discovery,
and atomic writes (temporary file in the same folder, then `os.replace`). `-` means stdin/stdout.

Imports: stdlib, errors, diagnostics, and charset-normalizer lazily (only for non-UTF-8 input).
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostic, warning
from .errors import InputError, OutputError

STDIO = "-"
STDIN_NAME = "<stdin>"

# Line ends: CRLF and lone CR both become LF, one for one, so line numbers stay right.
_NEWLINES = re.compile(r"\r\n?")

# Encodings tried, in order, when the bytes are not UTF-8 and the detector has no confident
# answer: cp1252 covers Windows exports (smart quotes in 0x80-0x9f), latin-1 never fails.
FALLBACK_ENCODINGS: tuple[str, ...] = ("cp1252", "latin-1")

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True, slots=True)
class InputText:
    """Decoded input: text with LF line ends, the encoding used, and what decoding had to say."""

    source: str
    text: str
    encoding: str
    diagnostics: tuple[Diagnostic, ...] = ()


def decode_bytes(data: bytes, *, source: str) -> InputText:
    """Decode `data`: a BOM decides; else UTF-8; else a detector; else cp1252, latin-1.

    Every encoding other than UTF-8 is named in a warning, because a wrong guess changes
    characters, and the user should be able to check it.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = data.decode(encoding, errors="replace")
            return InputText(source, _normalize_newlines(text.lstrip("\ufeff")), encoding)
    try:
        return InputText(source, _normalize_newlines(data.decode("utf-8")), "utf-8")
    except UnicodeDecodeError as exc:
        bad_line = data.count(b"\n", 0, exc.start) + 1
    encoding = _detect_encoding(data)
    text = data.decode(encoding, errors="replace")
    note = warning(
        "input.encoding",
        f"not valid UTF-8 (first bad byte on line {bad_line}); read as {encoding}",
        source=source,
        line=bad_line,
    )
    return InputText(source, _normalize_newlines(text), encoding, (note,))


def _detect_encoding(data: bytes) -> str:
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # the detector is a dependency; stay usable if it is missing
        best = None
    else:
        best = from_bytes(data[:200_000]).best()
    if best is not None and best.encoding:
        candidate = best.encoding
        try:
            data.decode(candidate)
        except (UnicodeDecodeError, LookupError):
            pass
        else:
            # the detector names ISO-8859-1 where cp1252 is the same or a strict superset in
            # practice; prefer the Windows code page, which also maps 0x80-0x9f
            return "cp1252" if candidate in ("latin_1", "iso8859_1") and _fits(data, "cp1252") \
                else candidate
    for candidate in FALLBACK_ENCODINGS:
        if _fits(data, candidate):
            return candidate
    return "latin-1"


def _fits(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _normalize_newlines(text: str) -> str:
    return _NEWLINES.sub("\n", text) if "\r" in text else text


def read_input(path: str) -> InputText:
    """Read one input file (or stdin for `-`) and decode it."""
    if path == STDIO:
        return decode_bytes(sys.stdin.buffer.read(), source=STDIN_NAME)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            # a FIFO or device would block or never end; only regular files are inputs
            raise InputError("not a regular file", path=path)
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise InputError("is a directory", path=path) from None
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path=path) from None
    return decode_bytes(data, source=path)


def expand_inputs(paths: Iterable[str], suffixes: Iterable[str]) -> list[str]:
    """Expand directories into the files in them whose names end in one of `suffixes`.

    Files are listed recursively in sorted order (so runs are repeatable); hidden files and
    folders are skipped. Plain paths and `-` are returned as given, missing ones included, so
    the caller reports them one by one.
    """
    wanted = tuple(s.lower() for s in suffixes)
    result: list[str] = []
    for path in paths:
        if path != STDIO and os.path.isdir(path):
            result.extend(_walk(path, wanted))
        else:
            result.append(path)
    return result


def _walk(folder: str, suffixes: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and name.lower().endswith(suffixes):
                found.append(os.path.join(root, name))
    return found


def same_file(a: str, b: str) -> bool:
    """True when two paths name the same existing file (or the same path)."""
    if a == STDIO or b == STDIO:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def write_atomic(path: str, text: str, *, backup: bool = False) -> None:
    """Write `text` as UTF-8 to `path` so that no reader ever sees a half-written file.

    The text goes to a temporary file in the same folder, is flushed to disk, and replaces the
    target in one `os.replace`. An interrupted run leaves the previous file intact. With `backup`
    the previous file is kept as `path~`. The previous file's permissions are kept.
    """
    if path == STDIO:
        # bytes, not text: UTF-8 whatever the locale, and CRLF (RIS) passes through untouched
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
        return
    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc), path=path) from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp",
                                   dir=folder)
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc), path=path) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        if backup and mode is not None:
            _keep_backup(target)
        os.replace(tmp, target)
    except OSError as exc:
        _remove_quietly(tmp)
        raise OutputError(exc.strerror or str(exc), path=path) from None
    except BaseException:
        _remove_quietly(tmp)
        raise


def _keep_backup(target: str) -> None:
    # a hard link keeps the old bytes without a moment in which `target` is missing
    backup = target + "~"
    _remove_quietly(backup)
    try:
        os.link(target, backup)
    except OSError:
        shutil.copy2(target, backup)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
