"""citekit: read BibTeX, RIS, CSL-JSON and arXiv listings into one entry model; normalise
citation keys; enrich from arXiv; write BibTeX, BibLaTeX, CSL-JSON or RIS.

Public API: `read`, `read_file`, `write`, `write_file`, `normalize_keys`, and the model types.
Heavy modules (bibtexparser, LaTeX tables, requests) load on first use, not on import.
"""

from __future__ import annotations

from .diagnostics import Diagnostic, Report
from .model import Bibliography, Date, Entry, Name, Rich
from .options import WriteOptions

__version__ = "0.1.0"

__all__ = [
    "Bibliography", "Date", "Diagnostic", "Entry", "Name", "Report", "Rich", "WriteOptions",
    "__version__", "normalize_keys", "read", "read_file", "write", "write_file",
]  # fmt: skip


def read(source: str, format: str | None = None, *, name: str = "<string>") -> Bibliography:
    """Read a document held in `source` (text). The format is detected unless given.

    Problems are in the result's `diagnostics`; rejected records (with their raw text) in
    `rejected`. Nothing raises for bad data; an unknown format raises `UnknownFormat`.
    """
    from .formats import get_format
    from .io import decode_bytes
    from .pipeline import read_text

    text = decode_bytes(source.encode("utf-8"), source=name).text  # same newline rules as files
    fmt = get_format(format) if format else None  # `biblatex` loads the same BibTeX reader
    return read_text(text, source=name, fmt=fmt)


def read_file(path: str, format: str | None = None) -> Bibliography:
    """Read one file (encoding detected, `-` for stdin)."""
    from .formats import get_format
    from .io import read_input
    from .pipeline import read_text

    loaded = read_input(str(path))
    fmt = get_format(format) if format else None
    bib = read_text(loaded.text, source=loaded.source, fmt=fmt)
    bib.diagnostics[:0] = list(loaded.diagnostics)
    return bib


def write(
    bibliography: Bibliography,
    format: str = "bibtex",
    *,
    diagnostics: list[Diagnostic] | None = None,
    **options: object,
) -> str:
    """Render `bibliography` as `format` (`bibtex`, `biblatex`, `csl-json`, `ris`).

    `options` are `WriteOptions` fields (`omit`, `protect`, ...). The writer's own diagnostics
    are appended to `diagnostics` when a list is passed.
    """
    from .pipeline import write_text

    if "omit" in options:
        options["omit"] = frozenset(options["omit"])  # type: ignore[arg-type]
    text, found = write_text(bibliography, format, WriteOptions(**options))  # type: ignore[arg-type]
    if diagnostics is not None:
        diagnostics.extend(found)
    return text


def write_file(
    bibliography: Bibliography, path: str, format: str | None = None, **options: object
) -> list[Diagnostic]:
    """Write `bibliography` to `path` atomically; the format defaults from the suffix."""
    from .formats import FORMATS
    from .io import write_atomic

    if format is None:
        lower = str(path).lower()
        format = next(
            (f.name for f in FORMATS.values() if f.writable and lower.endswith(f.suffixes)),
            "bibtex",
        )
    found: list[Diagnostic] = []
    write_atomic(str(path), write(bibliography, format, diagnostics=found, **options))
    return found


def normalize_keys(
    bibliography: Bibliography, *, keep_keys: bool = False, pattern: str | None = None
) -> list[tuple[str, str, str]]:
    """Give every entry its normalised citation key; returns (old, new, where) for each."""
    from .pipeline import KeyOptions
    from .pipeline import normalize_keys as run

    return run(bibliography, KeyOptions(keep_keys=keep_keys, pattern=pattern))
