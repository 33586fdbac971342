"""The one entry model every format reads into and writes from.

Holds `Entry`, `Name`, `Date`, the rich-text nodes (`Rich`, `Span`, `Math`, `Raw`), `Origin`,
the document items BibTeX keeps (`Preamble`, `Macro`, `Comment`), `Rejected` and `Bibliography`,
plus the canonical type and field vocabulary. Imports nothing but the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# ---------------------------------------------------------------------------------------------
# Rich text
#
# A field value is a plain `str` when it carries no markup (the fast path: most values), or a
# `Rich` when it holds case protection, emphasis, sub/superscripts, math or kept LaTeX. Writers
# render `Rich` in their own syntax: BibTeX braces and commands, CSL's HTML-like subset, RIS
# plain text. Plain strings are already-decoded Unicode: no LaTeX, no HTML escapes.
# ---------------------------------------------------------------------------------------------

SpanKind = Literal["nocase", "i", "b", "sc", "sup", "sub"]
SPAN_KINDS: tuple[SpanKind, ...] = ("nocase", "i", "b", "sc", "sup", "sub")


@dataclass(frozen=True, slots=True)
class Span:
    """Marked-up run: `nocase` is BibTeX's `{...}` and CSL's `<span class="nocase">`."""

    kind: SpanKind
    children: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Math:
    """Inline math, kept as its TeX source without the `$` delimiters (`\\mu`, `O(n^{4/3}d)`).

    `bare` marks math-only commands found outside math in the source (`\\mathbb{E}` in plain
    text); the BibTeX writer wraps those in `\\ensuremath{}` instead of `$...$`.
    """

    tex: str
    bare: bool = False


@dataclass(frozen=True, slots=True)
class Raw:
    """LaTeX we could not decode (an unknown command), kept verbatim so nothing is lost."""

    tex: str


Node = str | Span | Math | Raw


@dataclass(frozen=True, slots=True)
class Rich:
    """A value with markup: an ordered tuple of nodes."""

    nodes: tuple[Node, ...]

    def plain(self) -> str:
        """The text without markup; math and raw LaTeX appear as their TeX source."""
        return "".join(_plain_node(n) for n in self.nodes)

    def __str__(self) -> str:
        return self.plain()


def _plain_node(node: Node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, Span):
        return "".join(_plain_node(c) for c in node.children)
    if isinstance(node, Math):
        return f"${node.tex}$"
    return node.tex


Text = str | Rich


def plain(value: Text) -> str:
    """Plain text of a field value, whichever form it has."""
    return value if isinstance(value, str) else value.plain()


def make_text(nodes: list[Node] | tuple[Node, ...]) -> Text:
    """The simplest value for `nodes`: adjacent strings merged; a `str` if no markup is left."""
    merged: list[Node] = []
    for node in nodes:
        if isinstance(node, str):
            if not node:
                continue
            if merged and isinstance(merged[-1], str):
                merged[-1] = merged[-1] + node
                continue
        merged.append(node)
    if not merged:
        return ""
    if len(merged) == 1 and isinstance(merged[0], str):
        return merged[0]
    return Rich(tuple(merged))


# ---------------------------------------------------------------------------------------------
# Names and dates
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Name:
    """One person or body. Parts are kept apart, never joined into one string.

    `particle` is CSL's non-dropping particle (BibTeX's "von" part: "van der" in
    "van der Berg"); `dropping_particle` is CSL's dropping particle. `literal` is an
    institution or any name given as one unit (`{World Health Organization}`).
    `others` marks "and others" / "et al.": the list is known to be incomplete.
    """

    family: str = ""
    given: str = ""
    particle: str = ""
    dropping_particle: str = ""
    suffix: str = ""
    literal: str = ""
    others: bool = False

    @property
    def is_literal(self) -> bool:
        return bool(self.literal)


OTHERS = Name(others=True)


@dataclass(frozen=True, slots=True)
class Date:
    """A partial date, an optional range end, `circa`, or a `literal` we could not parse.

    Never guess: text that is not a date we understand stays in `literal`.
    `season` is 1..4 (spring..winter) when the source names one instead of a month.
    """

    year: int | None = None
    month: int | None = None
    day: int | None = None
    end_year: int | None = None
    end_month: int | None = None
    end_day: int | None = None
    circa: bool = False
    season: int | None = None
    literal: str = ""

    @property
    def is_range(self) -> bool:
        return self.end_year is not None


# ---------------------------------------------------------------------------------------------
# Entries
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a record came from: source path (or `<stdin>`), 1-based line, format, raw text."""

    source: str
    line: int
    format: str
    raw: str = ""


@dataclass(frozen=True, slots=True)
class Extra:
    """A field no mapping knows, kept as it came: origin format, field name as written, value."""

    format: str
    name: str
    value: str


@dataclass(slots=True)
class Entry:
    """One bibliographic record in the canonical (CSL-based) vocabulary.

    Treat entries as values: a stage builds a new one with `Entry.evolve()` rather than changing
    one it was handed.
    """

    type: str
    key: str = ""
    original_key: str = ""
    source_type: str = ""
    fields: dict[str, Text] = field(default_factory=dict)
    names: dict[str, list[Name]] = field(default_factory=dict)
    dates: dict[str, Date] = field(default_factory=dict)
    extra: list[Extra] = field(default_factory=list)
    origin: Origin | None = field(default=None, compare=False)

    def evolve(self, **changes: object) -> Entry:
        """A copy with `changes` applied; containers are copied so the original stays as it was."""
        values: dict[str, object] = {
            "type": self.type,
            "key": self.key,
            "original_key": self.original_key,
            "source_type": self.source_type,
            "fields": dict(self.fields),
            "names": {role: list(names) for role, names in self.names.items()},
            "dates": dict(self.dates),
            "extra": list(self.extra),
            "origin": self.origin,
        }
        values.update(changes)
        return Entry(**values)  # type: ignore[arg-type]

    def get(self, name: str, default: str = "") -> str:
        """Plain text of field `name`, or `default`."""
        value = self.fields.get(name)
        return default if value is None else plain(value)


# ---------------------------------------------------------------------------------------------
# Document items BibTeX keeps beside its entries, in document order
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Preamble:
    value: str
    position: int  # how many entries precede it in the document
    origin: Origin | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Macro:
    """An `@string` definition: name and its value as written (quotes/braces and # kept)."""

    name: str
    value: str
    position: int
    origin: Origin | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Comment:
    """An `@comment` block or free text between entries, kept verbatim."""

    text: str
    position: int
    origin: Origin | None = field(default=None, compare=False)


DocItem = Preamble | Macro | Comment


@dataclass(frozen=True, slots=True)
class Rejected:
    """A record that could not be read: its raw text is kept so nothing is lost."""

    source: str
    line: int
    raw: str
    reason: str
    format: str = ""


@dataclass(slots=True)
class Bibliography:
    """What reading produces: entries, BibTeX document items, rejected records, diagnostics."""

    entries: list[Entry] = field(default_factory=list)
    document: list[DocItem] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    # `Diagnostic` lives in diagnostics.py (same layer); typed loosely to keep model import-free.
    diagnostics: list = field(default_factory=list)  # type: ignore[type-arg]

    def extend(self, other: Bibliography) -> None:
        """Append another bibliography read from a further source (document positions shift)."""
        offset = len(self.entries)
        self.entries.extend(other.entries)
        for item in other.document:
            self.document.append(_shift(item, offset))
        self.rejected.extend(other.rejected)
        self.diagnostics.extend(other.diagnostics)


def _shift(item: DocItem, offset: int) -> DocItem:
    if isinstance(item, Preamble):
        return Preamble(item.value, item.position + offset, item.origin)
    if isinstance(item, Macro):
        return Macro(item.name, item.value, item.position + offset, item.origin)
    return Comment(item.text, item.position + offset, item.origin)


# ---------------------------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------------------------

# CSL 1.0.2 item types (csl-data.json `type` enum). `Entry.type` is always one of these.
CSL_TYPES: frozenset[str] = frozenset(
    """article article-journal article-magazine article-newspaper bill book broadcast chapter
    classic collection dataset document entry entry-dictionary entry-encyclopedia event figure
    graphic hearing interview legal_case legislation manuscript map motion_picture musical_score
    pamphlet paper-conference patent performance periodical personal_communication post
    post-weblog regulation report review review-book software song speech standard thesis treaty
    webpage""".split()
)

# CSL name variables (roles). `Entry.names` keys are among these.
NAME_ROLES: tuple[str, ...] = (
    "author", "editor", "translator", "container-author", "collection-editor", "composer",
    "director", "editorial-director", "illustrator", "interviewer", "original-author",
    "recipient", "reviewed-author", "chair", "compiler", "contributor", "curator",
    "executive-producer", "guest", "host", "narrator", "organizer", "performer", "producer",
    "script-writer", "series-creator",
)  # fmt: skip

# CSL date variables. `Entry.dates` keys are among these.
DATE_ROLES: tuple[str, ...] = (
    "issued", "accessed", "original-date", "event-date", "submitted", "available-date",
)  # fmt: skip

# Canonical fields citekit adds where CSL has no variable. Every format documents where these go
# (docs/mapping.md). Everything else in `Entry.fields` is a CSL 1.0.2 variable name.
CITEKIT_FIELDS: dict[str, str] = {
    "arxiv": "arXiv identifier without version: 2101.00001 or math/0211159",
    "arxiv-version": "arXiv version number as text ('2'), when a version was named",
    "arxiv-class": "arXiv primary class: cs.LG, hep-th",
    "eprint": "identifier in an e-print archive other than arXiv",
    "eprinttype": "that archive's name as written (pubmed, jstor, hdl, ...)",
    "eprintclass": "that archive's class, as written",
    "links": "further http(s) URLs (code, data) separated by single spaces; not the record URL",
    "arxiv-comment": "the arXiv author comment (pages, figures, venue)",
    "journal-ref": "the arXiv journal reference, verbatim",
}
