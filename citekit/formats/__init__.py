"""The format registry: one `Format` record per format, looked up by name, suffix or content.

Each format module exposes the same small surface (no base class):
    NAME: str, SUFFIXES: tuple[str, ...], sniff(text) -> bool,
    read(text, *, source) -> Bibliography,
    write(bib, options: WriteOptions) -> tuple[str, list[Diagnostic]]   (absent for read-only)
Modules are imported on first use, so `citekit --help` does not pay for bibtexparser or the
LaTeX tables. Format modules never import each other.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from ..errors import UnknownFormat


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    module: str  # dotted module path, imported lazily
    suffixes: tuple[str, ...]
    writable: bool
    description: str
    dialect: str = ""  # for `bibtex`/`biblatex`: the writer dialect

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


FORMATS: dict[str, Format] = {
    "bibtex": Format("bibtex", "citekit.formats.bibtex", (".bib", ".bibtex"), True,
                     "BibTeX (classic fields; LaTeX for non-ASCII)", dialect="bibtex"),
    "biblatex": Format("biblatex", "citekit.formats.bibtex", (".bib",), True,
                       "BibLaTeX (date, journaltitle, eprint...; UTF-8)", dialect="biblatex"),
    "csl-json": Format("csl-json", "citekit.formats.csljson", (".json", ".csl.json", ".csljson"),
                       True, "CSL-JSON (citeproc, Zotero, pandoc)"),
    "ris": Format("ris", "citekit.formats.ris", (".ris",), True,
                  "RIS (Zotero, EndNote, Mendeley)"),
    "arxiv-listing": Format("arxiv-listing", "citekit.formats.arxiv_listing", (".txt",), False,
                            "arXiv author profile listing (read only)"),
}  # fmt: skip

# Reading: `biblatex` reads as `bibtex` (one reader serves both dialects).
READ_FORMATS: tuple[str, ...] = ("bibtex", "csl-json", "ris", "arxiv-listing")
WRITE_FORMATS: tuple[str, ...] = tuple(n for n, f in FORMATS.items() if f.writable)
ALIASES: dict[str, str] = {"bib": "bibtex", "csl": "csl-json", "csljson": "csl-json",
                           "json": "csl-json", "listing": "arxiv-listing"}  # fmt: skip

# Content sniffing order: the most specific signatures first.
_SNIFF_ORDER: tuple[str, ...] = ("arxiv-listing", "ris", "csl-json", "bibtex")


def get_format(name: str) -> Format:
    """The format called `name` (or an alias); `UnknownFormat` lists the choices."""
    key = ALIASES.get(name.lower(), name.lower())
    try:
        return FORMATS[key]
    except KeyError:
        raise UnknownFormat(
            f"unknown format {name!r}; choose one of: {', '.join(FORMATS)}"
        ) from None


def detect_format(path: str, text: str) -> Format:
    """Pick the reading format from content first, then the file suffix.

    Content wins because files are often misnamed (a Web of Science export saved as .ris is
    caught by the RIS reader itself). Raises `UnknownFormat` when nothing matches.
    """
    lower = path.lower()
    by_suffix = [n for n in _SNIFF_ORDER if lower.endswith(FORMATS[n].suffixes)]
    # the format the file name suggests is asked first, so a .bib never imports the RIS or
    # CSL readers just to be told "no"; content still decides
    for name in by_suffix + [n for n in _SNIFF_ORDER if n not in by_suffix]:
        fmt = FORMATS[name]
        module = fmt.load()
        sniff = getattr(module, "sniff", None)
        if sniff is not None and sniff(text):
            return fmt
    for name in READ_FORMATS:
        if any(lower.endswith(s) for s in FORMATS[name].suffixes):
            return FORMATS[name]
    raise UnknownFormat(
        "cannot tell the format from the content or the file name; use --from", path=path
    )
