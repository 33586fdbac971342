"""Options that writers and the pipeline share, as frozen dataclasses.

One `WriteOptions` serves every writer: a writer reads the options that concern it and ignores
the rest (each option says which writers use it). Imports nothing but the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Dialect = Literal["bibtex", "biblatex"]
Protect = Literal["acronyms", "all", "none"]


@dataclass(frozen=True, slots=True)
class WriteOptions:
    # BibTeX writer: `bibtex` (classic fields, LaTeX for non-ASCII) or `biblatex` (UTF-8).
    dialect: Dialect = "bibtex"
    # every writer: canonical field names or the target format's own names to leave out
    omit: frozenset[str] = field(default_factory=frozenset)
    # BibTeX writer: case protection for titles that carry none (RIS/CSL input)
    protect: Protect = "acronyms"
    # BibTeX writer: emit rejected records as commented raw blocks at the end
    rejects_as_comments: bool = False
