"""The BibTeX/BibLaTeX format: the module surface the registry loads (`NAME`, `SUFFIXES`,
`sniff`, `read`, `write`) plus `count_records`, the reader-independent record count. Reading
lives in bibtex_read (whole-file passes) and bibtex_entry (per-entry stage), writing in
bibtex_write, the shared type and field tables in bibtex_map. Never imports other formats.
"""

from __future__ import annotations

import re

from .bibtex_read import read
from .bibtex_write import write

NAME = "bibtex"
SUFFIXES: tuple[str, ...] = (".bib", ".bibtex")

# ---------------------------------------------------------------------------------------------
# Counting records independently of the parser
# ---------------------------------------------------------------------------------------------

# An entry starts with `@type{` or `@type(` at a line start (after blanks). `%@book{` lines are
# commented out (biber's reading; classic BibTeX would see an entry there) and `@` inside a
# line is text, so neither counts: the reader treats them the same way.
# `re.M` lets the scan jump from line start to line start (a look-behind made it test every
# character: 0.4 s instead of 0.085 s on 20k entries). Lone CRs count as line ends too.
_ENTRY_START = re.compile(r"^[^\S\n\r]*@(\w*)[^\S\n\r]*[{(]", re.M)
_NOT_ENTRIES = frozenset({"comment", "string", "preamble"})


def count_records(text: str) -> int:
    """How many entries `text` holds, by a regex scan that shares nothing with the reader."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return sum(1 for m in _ENTRY_START.finditer(text) if m.group(1).lower() not in _NOT_ENTRIES)


_SNIFF = re.compile(r"(?m)^[\ufeff \t]*@[A-Za-z]+[ \t]*[{(]")


def sniff(text: str) -> bool:
    """True when some line starts with `@type{` or `@type(` (blanks and a BOM allowed)."""
    return _SNIFF.search(text) is not None


__all__ = ["NAME", "SUFFIXES", "count_records", "read", "sniff", "write"]


# Fields and types only biblatex knows: a file that uses them is rewritten in that dialect
# (`--in-place`), so that rewriting never turns @online into @misc or `date` into `year`.
_BIBLATEX_MARKS = re.compile(
    r"^[^\S\n]*(?:date|journaltitle|location|eprinttype|eprintclass|urldate|langid|maintitle|"
    r"origdate|eventdate|addendum|pubstate)[^\S\n]*=|"
    r"^[^\S\n]*@(?:online|report|thesis|dataset|software|mvbook|mvcollection|bookinbook|"
    r"suppbook|suppcollection|xdata|set|reference|inreference|patent|periodical)[^\S\n]*[{(]",
    re.M | re.I,
)


def guess_dialect(text: str) -> str:
    """`biblatex` when the text uses fields or types only biblatex has, else `bibtex`."""
    return "biblatex" if _BIBLATEX_MARKS.search(text) else "bibtex"
