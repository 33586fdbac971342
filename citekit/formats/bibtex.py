"""The BibTeX/BibLaTeX format: the module surface the registry loads (`NAME`, `SUFFIXES`,
`sniff`, `read`, `write`, `count_records`). Reading lives in bibtex_read, writing in
bibtex_write, the shared type and field tables in bibtex_map. Never imports other formats.
"""

from __future__ import annotations

from .bibtex_read import count_records, read, sniff
from .bibtex_write import write

NAME = "bibtex"
SUFFIXES: tuple[str, ...] = (".bib", ".bibtex")

__all__ = ["NAME", "SUFFIXES", "count_records", "read", "sniff", "write"]
