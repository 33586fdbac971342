"""The corpus inputs the consumer tests convert, and each one read once per session.

Inputs come from tests/corpus/ (copied from the shared corpus with origins noted); a kind of
input (bibtex/, ris/, csljson/, large/) that is not copied there yet is taken from the shared
corpus beside the checkout. Peer outputs (`*.expected.bib`, `citationjs-mapping-*-csl.json`)
are another tool's answers, not inputs, and are left out.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from citekit.model import Bibliography, Comment, Macro, Preamble

from .harness import REPO

LOCAL = REPO / "tests" / "corpus"
SUFFIX_KIND = {".bib": "bibtex", ".ris": "ris", ".json": "csl-json"}
LARGE_BYTES = 1_500_000  # files past this size go through a sample in consumer runs
LARGE_SAMPLE_EVERY = 10


def _shared_corpus() -> Path | None:
    for candidate in (os.environ.get("CITEKIT_SHARED_CORPUS", ""),
                      str(REPO.parent / "shared" / "corpus"), "/work/shared/corpus"):  # fmt: skip
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def _is_peer_output(path: Path) -> bool:
    name = path.name
    return name.endswith(".expected.bib") or (name.startswith("citationjs-mapping-")
                                              and name.endswith("-csl.json"))  # fmt: skip


@dataclass(frozen=True, slots=True)
class CorpusFile:
    path: Path
    id: str  # relative path, the test id: "bibtex/pybtex-xampl.bib"
    kind: str  # the input format: bibtex, ris, csl-json

    @property
    def large(self) -> bool:
        return self.path.stat().st_size > LARGE_BYTES


def corpus_files() -> list[CorpusFile]:
    """Every corpus input, sorted by id; local copies win over the shared corpus."""
    found: dict[str, CorpusFile] = {}
    roots = [r for r in (LOCAL, _shared_corpus()) if r is not None and r.is_dir()]
    local_kinds = {p.name for p in LOCAL.iterdir() if p.is_dir()} if LOCAL.is_dir() else set()
    for root in roots:
        for path in sorted(root.rglob("*")):
            kind = SUFFIX_KIND.get(path.suffix.lower())
            if kind is None or not path.is_file() or _is_peer_output(path):
                continue
            rel = path.relative_to(root).as_posix()
            if root != LOCAL and rel.split("/", 1)[0] in local_kinds:
                continue  # this kind of input is copied locally; the local copy is the corpus
            found.setdefault(rel, CorpusFile(path, rel, kind))
    return [found[k] for k in sorted(found)]


@functools.cache
def load(path: Path, large_corpus: str = "sample") -> tuple[Bibliography, Bibliography]:
    """(full, written): the file read and keyed as `citekit convert` does by default (read,
    then normalise keys), and the part the consumer tests write: all of it, or for a large
    file in `sample` mode every LARGE_SAMPLE_EVERY-th entry (see sample())."""
    import citekit

    bib = citekit.read_file(str(path))
    citekit.normalize_keys(bib)
    if path.stat().st_size > LARGE_BYTES and large_corpus == "sample":
        return bib, sample(bib, LARGE_SAMPLE_EVERY)
    return bib, bib


@functools.cache
def output(path: Path, fmt: str, large_corpus: str = "sample") -> tuple[str, tuple[object, ...]]:
    """What `citekit.write` makes of the corpus file in `fmt`, with the writer's diagnostics."""
    import citekit

    _full, written = load(path, large_corpus)
    diagnostics: list[object] = []
    text = citekit.write(written, fmt, diagnostics=diagnostics)
    return text, tuple(diagnostics)


def sample(bib: Bibliography, every: int) -> Bibliography:
    """Every `every`-th entry of `bib` with all its @preamble/@string/@comment items kept.

    Why a sample: the large file is one journal's 3,644 homogeneous records; a tenth of them
    keeps every decade and every @preamble macro in play while the LaTeX, biber and citeproc
    runs take a tenth of the time (performance itself belongs to benchmarks/).
    """
    kept = bib.entries[::every]
    document = []
    for item in bib.document:
        position = -(-item.position // every)  # entries kept before the item's old position
        if isinstance(item, Preamble):
            document.append(Preamble(item.value, position, item.origin))
        elif isinstance(item, Macro):
            document.append(Macro(item.name, item.value, position, item.origin))
        else:
            document.append(Comment(item.text, position, item.origin))
    return Bibliography(entries=list(kept), document=document, rejected=[], diagnostics=[])
