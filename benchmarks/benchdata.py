"""Benchmark inputs built from the real corpus: TUGboat unchanged, and the corpus .bib files
replicated with renamed keys up to an exact entry count (20k, 200k, and 100 for startup; the
`messy-20k` file also keeps the malformed fixtures that make pandoc and citation-js abort).

Deterministic: files in sorted order, copy N renames every key `k` to `k-rN` (and the crossref,
xdata, ids... fields that point at keys), the last copy is cut at an entry boundary. Stdlib only;
never imports citekit, so the data does not depend on the code being measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BUILDER_VERSION = 2  # bump when the construction changes, so cached data is rebuilt

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
DEFAULT_DATA_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "citekit-bench"

TUGBOAT = "large/biber-tugboat.bib"

# Entry starts: an `@` opening a line (BibTeX's own rule is looser, but every corpus file and
# every peer agrees on line-start entries). Group 1 is everything up to the key, group 2 the
# type, group 3 the key (possibly empty, as in Mendeley's `@article{,`).
_ENTRY_START = re.compile(r"^[ \t]*@[ \t]*([A-Za-z]+)", re.MULTILINE)
_ENTRY_HEAD = re.compile(
    r"^([ \t]*@[ \t]*([A-Za-z]+)[ \t]*[{(][ \t\n]*)([^,\s{}()]*)(?=[ \t\n]*,)", re.MULTILINE
)
_NOT_ENTRIES = frozenset({"string", "preamble", "comment"})

# Fields whose value is a comma-separated list of citation keys: renamed along with the keys,
# so crossref and xdata inheritance still resolves inside each copy.
_KEY_LIST_FIELD = re.compile(
    r"(?<![\w-])((?:crossref|xref|xdata|ids|related|entryset)[ \t]*=[ \t]*[{\"])"
    r"([^{}\"]*)(?=[}\"])",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    path: Path
    entries: int
    bytes: int
    description: str


def count_entries(text: str) -> int:
    """Entries (not @string/@preamble/@comment) whose `@` opens a line."""
    return sum(1 for m in _ENTRY_START.finditer(text) if m.group(1).lower() not in _NOT_ENTRIES)


# Corpus files that make a peer abort the WHOLE file (measured with pandoc 3.9, citation-js
# 0.8.2; bibutils 7.2 reads them all). They are test fixtures of malformed or unusual input; the
# peer-comparison data leaves them out so that every tool converts the same file, and the
# `messy-*` data keeps them to show what citekit does with them.
PEER_BREAKERS: dict[str, str] = {
    "bbt-mendeley-dupkeys.bib": "empty keys: pandoc and citation-js stop with a syntax error",
    "bbt-missing-key-endnote.bib": "no key: pandoc and citation-js stop with a syntax error",
    "bbt-plus-in-fieldname-2660.bib": "'+' in field names: citation-js stops",
    "bbt-string-concat-round-871.bib": "@techreport( ... ): pandoc stops",
    "bibtextidy-entry-with-parentheses.bib": "@article( ... ): pandoc stops",
    "biber-crossrefs.bib": "pandoc runs out of memory; citation-js cannot map bookauthor",
    "biber-xdata.bib": "pandoc runs out of memory (xdata loops)",
    "biber-dateformats.bib": "citation-js cannot map urldate ranges",
    "biber-names.bib": "citation-js stops at a %@BOOK line",
}


def corpus_files(corpus: Path, *, messy: bool = False) -> list[Path]:
    """The UTF-8 .bib inputs of the corpus, sorted, TUGboat last; without `messy`, the
    PEER_BREAKERS are left out. The ISO-8859-15 file is always left out: one non-UTF-8 file
    would make the whole concatenation undecodable."""
    found: list[Path] = []
    for path in sorted((corpus / "bibtex").glob("*.bib")) + [corpus / TUGBOAT]:
        if not messy and path.name in PEER_BREAKERS:
            continue
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        found.append(path)
    return found


def renamed_copy(text: str, copy: int) -> str:
    """`text` with every non-empty key `k` renamed `k-r<copy>`; copy 0 is returned unchanged."""
    if copy == 0:
        return text
    suffix = f"-r{copy}"

    def head(m: re.Match[str]) -> str:
        key = m.group(3)
        if not key or m.group(2).lower() in _NOT_ENTRIES:
            return m.group(0)
        return m.group(1) + key + suffix

    def key_list(m: re.Match[str]) -> str:
        keys = [k.strip() for k in m.group(2).split(",")]
        return m.group(1) + ", ".join(k + suffix if k else k for k in keys)

    return _KEY_LIST_FIELD.sub(key_list, _ENTRY_HEAD.sub(head, text))


def cut_after(text: str, entries: int) -> str:
    """The prefix of `text` holding its first `entries` entries (cut where the next one starts)."""
    seen = 0
    for m in _ENTRY_START.finditer(text):
        if m.group(1).lower() in _NOT_ENTRIES:
            continue
        if seen == entries:
            return text[: m.start()]
        seen += 1
    return text


def replicated_chunks(sources: list[str], target: int) -> Iterator[str]:
    """Renamed copies of `sources` in turn until exactly `target` entries have been given."""
    counts = [count_entries(text) for text in sources]
    if not any(counts):
        raise ValueError("the corpus holds no entries")
    given, copy = 0, 0
    while given < target:
        for text, count in zip(sources, counts, strict=True):
            if given >= target:
                return
            chunk = renamed_copy(text, copy)
            if given + count > target:
                chunk = cut_after(chunk, target - given)
                count = target - given
            given += count
            yield chunk if chunk.endswith("\n") else chunk + "\n"
        copy += 1


def _read_source(path: Path) -> str:
    return path.read_bytes().decode("utf-8").lstrip("\ufeff")


def build_replicated(corpus: Path, target: int, out: Path, *, messy: bool = False) -> None:
    sources = [_read_source(p) for p in corpus_files(corpus, messy=messy)]
    tmp = out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as f:
        for chunk in replicated_chunks(sources, target):
            f.write(chunk)
            f.write("\n")
    os.replace(tmp, out)


def _fingerprint(corpus: Path) -> str:
    digest = hashlib.sha256(f"builder {BUILDER_VERSION}\n".encode())
    for path in corpus_files(corpus, messy=True):
        digest.update(path.relative_to(corpus).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


# replicated data files and their exact entry counts ("tugboat" is the corpus file unchanged)
SIZES: dict[str, int] = {
    "corpus-100": 100, "corpus-20k": 20_000, "corpus-200k": 200_000, "messy-20k": 20_000,
}


def build(
    data_dir: Path = DEFAULT_DATA_DIR,
    corpus: Path = DEFAULT_CORPUS,
    names: tuple[str, ...] = ("tugboat", "corpus-100", "corpus-20k"),
) -> dict[str, Dataset]:
    """Build (or reuse, when the corpus and builder are unchanged) the named data files."""
    data = data_dir / "data"
    data.mkdir(parents=True, exist_ok=True)
    manifest_path = data / "manifest.json"
    fingerprint = _fingerprint(corpus)
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("fingerprint") != fingerprint:
        manifest = {"fingerprint": fingerprint, "files": {}}
    result: dict[str, Dataset] = {}
    for name in names:
        path = data / f"{name}.bib"
        known = manifest["files"].get(name)
        if not (known and path.exists() and path.stat().st_size == known["bytes"]):
            if name == "tugboat":
                path.write_bytes((corpus / TUGBOAT).read_bytes())
            else:
                build_replicated(corpus, SIZES[name], path, messy=name.startswith("messy"))
            text = path.read_bytes().decode("utf-8")
            known = {"entries": count_entries(text), "bytes": path.stat().st_size}
            manifest["files"][name] = known
            manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
        if name == "tugboat":
            what = "TUGboat bibliography, unreplicated"
        elif name.startswith("messy"):
            what = "all corpus .bib files, malformed ones too, replicated with renamed keys"
        else:
            what = "corpus .bib files every peer reads, replicated with renamed keys"
        result[name] = Dataset(name, path, known["entries"], known["bytes"], what)
    return result
