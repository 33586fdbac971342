"""Reader for arXiv author-profile listings: the text of a profile page (a header naming the
author and a claimed record count, then records of `arXiv<YEAR>`, title, abstract and primary
category followed by `↗`, one per line, separated by blank lines). Read-only.
May import: model, diagnostics, latex, names. Must not import other formats, arxiv/, pipeline, cli.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic, error, info, warning
from ..latex import decode
from ..model import (
    OTHERS,
    Bibliography,
    Date,
    Entry,
    Extra,
    Name,
    Node,
    Origin,
    Rejected,
    Text,
    make_text,
    plain,
)
from ..names import parse_display_name

NAME = "arxiv-listing"
SUFFIXES: tuple[str, ...] = (".txt",)

# The entry type of a preprint: Zotero maps its `preprint` item to CSL `article`
# (docs/arxiv-api.md §6, zotero-bits#88); `source_type` records where the entry came from.
ENTRY_TYPE = "article"
SOURCE_TYPE = "arxiv-listing"
# The repository goes to CSL `publisher` (Zotero's arXiv translator; DataCite BibTeX `publisher`).
PUBLISHER = "arXiv"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MARKER = re.compile(r"arXiv\s*(\d{4})")
_ARROW = "↗"
# New-style classes (cs.LG, math.ST, astro-ph.CO, physics.comp-ph) and old archives (hep-th).
_CLASS = re.compile(r"[a-z][a-z-]*(?:\.[A-Za-z][A-Za-z-]*)?")
_CATEGORY_SEPARATORS = re.compile(r"[↗,;]")
_SUBJECTS = "arXiv subjects"
_ATTRIBUTED = re.compile(r"Publications and source records attributed to\s+(.+)")
_CLAIM = re.compile(r"(at\s+least\s+)?([\d,]+)\s+records?", re.IGNORECASE)
_KNOWN_HEADER_TAIL = "Linked to original sources"
_HEADER_SIGNATURE = re.compile(
    r"^[ \t]*(?:arXiv subjects|Publications and source records attributed to .+)[ \t]*\r?$",
    re.MULTILINE,
)

# A URL ends at whitespace or at characters that cannot be part of it in running text; TeX
# braces and `$` end it too, so `\url{...}` and math next to a URL stay balanced.
_URL = re.compile(r"https?://[^\s<>\"{}\\$]+")
_URL_COMMAND = re.compile(r"\\url\{(https?://[^{}\s]+)\}|\\href\{(https?://[^{}\s]+)\}\{([^{}]*)\}")
_TRAILING_PUNCTUATION = ".,;:!?'\""
_CLOSERS = {")": "(", "]": "["}
# How latex.decode words a math-only command found outside math (`\mathbb{E}`, `\mid`).
_BARE_MATH_NOTE = "outside math, kept as math"

# Characters that arXiv abstracts use literally ("89.5% accuracy", "~1000 runs", "R&D") but
# that LaTeX would read as a comment, a tie or an alignment tab. Outside math they are escaped
# before decoding, so `%` never swallows the rest of an abstract.
_NEEDS_ESCAPE = re.compile(r"[%&#_~^$]")
# What the escaper must step over whole: \(...\) math, a control symbol (\%, \$), $$...$$ and
# $...$ math; then a lone $ (unmatched) and the characters to escape.
_ESCAPE_TOKEN = re.compile(
    r"\\\(.*?\\\)|\\.|\$\$.*?\$\$|\$(?:\\.|[^$\\])*\$|\$|[%&#_~^]", re.DOTALL
)
_TEXT_ESCAPES: dict[str, str] = {
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


# ---------------------------------------------------------------------------------------------
# Sniffing and counting
# ---------------------------------------------------------------------------------------------


def sniff(text: str) -> bool:
    """True when `text` looks like a profile listing: its header lines, or a first record line
    `arXiv<YEAR>` with a category arrow further on (a listing copied without its header)."""
    head = text[:4096].lstrip("\ufeff")
    if _HEADER_SIGNATURE.search(head):
        return True
    for line in _LINE_BREAK.split(head):
        stripped = line.strip()
        if stripped:
            return bool(_MARKER.fullmatch(stripped)) and _ARROW in text[:65536]
    return False


def count_records(text: str) -> int:
    """Count records with a plain line scan, independently of `read`: one per `arXiv<YEAR>`
    line, plus one per text that follows a category line without a year line of its own.
    A header line after records starts a new page; the name line just before it is header."""
    count = 0
    in_body = False  # past the page's header
    open_record = False  # a record has started and its category line has not come yet
    previous, previous_opened = "", False
    for line in _LINE_BREAK.split(text.lstrip("\ufeff")):
        stripped = line.strip()
        if not stripped:
            continue
        opened = False
        if in_body and _starts_header(stripped):
            if previous_opened and _names_author_of(previous, stripped):
                count -= 1  # that "record" was the next page's name line
            in_body = open_record = False
        elif _MARKER.fullmatch(stripped):
            count += 1
            in_body = open_record = True
        elif not in_body:
            pass
        elif _is_category(stripped):
            count += 0 if open_record else 1
            open_record = False
        elif not open_record:
            count += 1
            open_record = opened = True
        previous, previous_opened = stripped, opened
    return count


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Line:
    number: int  # 1-based
    text: str  # stripped


@dataclass(slots=True)
class _Unit:
    """The lines of one record: its year line (None when missing), body and category line."""

    marker: _Line | None
    body: list[_Line] = field(default_factory=list)
    category: _Line | None = None

    @property
    def first(self) -> _Line:
        return self.lines()[0]  # a unit always holds at least one line

    def lines(self) -> list[_Line]:
        head = [self.marker] if self.marker is not None else []
        tail = [self.category] if self.category is not None else []
        return head + self.body + tail


@dataclass(frozen=True, slots=True)
class _Header:
    author: Name | None
    author_text: str
    author_line: int | None
    claimed: int | None
    at_least: bool
    claim_line: int | None


def read(text: str, *, source: str) -> Bibliography:
    """Read a profile listing into one `article` entry per record.

    Each entry carries the title and abstract decoded from their LaTeX, the year, the primary
    class (`arxiv-class`), `publisher` arXiv, every http(s) URL of the abstract in `links`, and
    the page's author followed by `OTHERS`: the listing names one author of each work only.
    Records that cannot be read become `Rejected` with their raw text and an error.
    """
    bib = Bibliography()
    if "\r" in text:
        bib.diagnostics.append(
            info(f"{NAME}.line-ends", "CR/CRLF line ends read as plain line ends", source=source)
        )
    raw_lines = _LINE_BREAK.split(text.lstrip("\ufeff"))
    lines = [
        _Line(number, raw.strip()) for number, raw in enumerate(raw_lines, start=1) if raw.strip()
    ]
    for page in _split_pages(lines):
        _read_page(page, raw_lines, source, bib)
    return bib


def _split_pages(lines: list[_Line]) -> list[list[_Line]]:
    """Cut the lines into profile pages: a header line after records starts a new page (two
    listings saved into one file keep their own authors and counts)."""
    pages: list[list[_Line]] = [[]]
    in_body = False
    for line in lines:
        if in_body and _starts_header(line.text):
            page = pages[-1]
            # without its "arXiv subjects" line, the new page's name line ended the old page
            moved = [page.pop()] if page and _names_author_of(page[-1].text, line.text) else []
            pages.append(moved)
            in_body = False
        if _MARKER.fullmatch(line.text):
            in_body = True
        pages[-1].append(line)
    return pages


def _starts_header(text: str) -> bool:
    return text == _SUBJECTS or _ATTRIBUTED.fullmatch(text) is not None


def _names_author_of(name_line: str, sentence: str) -> bool:
    """`name_line` is the name in `sentence` ('Publications ... attributed to NAME.')."""
    match = _ATTRIBUTED.fullmatch(sentence)
    return match is not None and match.group(1).strip() in (name_line, name_line + ".")


def _read_page(page: list[_Line], raw_lines: list[str], source: str, bib: Bibliography) -> None:
    start = next((i for i, line in enumerate(page) if _MARKER.fullmatch(line.text)), len(page))
    header = _read_header(page[:start], source, bib.diagnostics)
    entries_before, rejected_before = len(bib.entries), len(bib.rejected)
    units = list(_split_units(page[start:]))
    for index, unit in enumerate(units):
        unit_lines = unit.lines()
        # the record's own text, from its first to its last line as written
        raw = "\n".join(raw_lines[unit_lines[0].number - 1 : unit_lines[-1].number])
        _read_unit(unit, header, raw, source, bib, is_last=index == len(units) - 1)
    read_here = len(bib.entries) - entries_before
    _check_counts(header, read_here, len(bib.rejected) - rejected_before, source, bib)
    if header.author is not None and read_here:
        bib.diagnostics.append(
            info(
                f"{NAME}.incomplete-authors",
                f"the listing names only {header.author_text} as author of its "
                f"{read_here} record(s); each author list is marked incomplete (and others)",
                source=source,
                line=header.author_line,
            )
        )


def _read_header(lines: list[_Line], source: str, out: list[Diagnostic]) -> _Header:
    attributed: _Line | None = None
    claim: re.Match[str] | None = None
    claim_line: int | None = None
    rest: list[_Line] = []
    for line in lines:
        if line.text == _SUBJECTS:
            continue
        if attributed is None and _ATTRIBUTED.fullmatch(line.text):
            attributed = line
            continue
        if claim is None and (found := _CLAIM.match(line.text)):
            claim, claim_line = found, line.number
            tail = line.text[found.end() :].strip()
            if tail and tail != _KNOWN_HEADER_TAIL:
                rest.append(_Line(line.number, tail))
            continue
        rest.append(line)

    author_text = ""
    if attributed is not None:
        author_text, rest = _author_text(attributed, rest, source, out)
    else:
        out.append(
            warning(
                f"{NAME}.no-author",
                "no 'Publications and source records attributed to NAME.' line: "
                "the entries get no author",
                source=source,
                line=lines[0].number if lines else 1,
            )
        )
    if rest:
        raw = "\n".join(line.text for line in rest)
        out.append(
            warning(
                f"{NAME}.header-text",
                f"{len(rest)} line(s) before the first record are not part of the header "
                "and were not read as a record",
                source=source,
                line=rest[0].number,
                raw=raw,
            )
        )
    claimed = int(claim.group(2).replace(",", "")) if claim else None
    author = parse_display_name(author_text) if author_text else None
    author_line = attributed.number if attributed is not None else None
    at_least = bool(claim and claim.group(1))
    return _Header(author, author_text, author_line, claimed, at_least, claim_line)


def _author_text(
    attributed: _Line, rest: list[_Line], source: str, out: list[Diagnostic]
) -> tuple[str, list[_Line]]:
    """The page's author: the name line, checked against 'attributed to NAME.'."""
    match = _ATTRIBUTED.fullmatch(attributed.text)
    assert match is not None
    sentence_name = match.group(1).strip()
    # The name line normally sits just before the sentence; a name may end in "." itself (Jr.).
    for line in rest:
        if line.number < attributed.number and sentence_name in (line.text, line.text + "."):
            return line.text, [r for r in rest if r is not line]
    name = sentence_name[:-1].rstrip() if sentence_name.endswith(".") else sentence_name
    named_lines = [r for r in rest if r.number < attributed.number]
    if named_lines:
        out.append(
            warning(
                f"{NAME}.author-mismatch",
                f"the name line {named_lines[-1].text!r} differs from the author in "
                f"'attributed to {name}.'; the latter is used",
                source=source,
                line=named_lines[-1].number,
            )
        )
        rest = [r for r in rest if r is not named_lines[-1]]
    return name, rest


def _split_units(lines: list[_Line]) -> Iterator[_Unit]:
    """Cut the lines after the header into records: a record starts at its `arXiv<YEAR>` line
    (or, when that line is missing, at the first text after the previous category line) and
    ends at its category line."""
    unit: _Unit | None = None
    for line in lines:
        if _MARKER.fullmatch(line.text):
            if unit is not None:
                yield unit
            unit = _Unit(marker=line)
        elif _is_category(line.text):
            if unit is None:
                unit = _Unit(marker=None)
            unit.category = line
            yield unit
            unit = None
        else:
            if unit is None:
                unit = _Unit(marker=None)
            unit.body.append(line)
    if unit is not None:
        yield unit


def _is_category(text: str) -> bool:
    return text.endswith(_ARROW)


def _read_unit(
    unit: _Unit, header: _Header, raw: str, source: str, bib: Bibliography, *, is_last: bool
) -> None:
    reason = _unit_problem(unit)
    if reason and is_last and unit.marker is not None and unit.category is None:
        reason += " (the listing looks truncated)"
    if reason:
        first = unit.first.number
        bib.rejected.append(Rejected(source, first, raw, reason, NAME))
        bib.diagnostics.append(
            error(f"{NAME}.unreadable-record", reason, source=source, line=first, raw=raw)
        )
        return
    assert unit.marker is not None
    marker_match = _MARKER.fullmatch(unit.marker.text)
    assert marker_match is not None
    out = bib.diagnostics
    fields: dict[str, Text] = {}
    links: list[str] = []
    for name, line in zip(("title", "abstract"), unit.body, strict=False):
        value, found = _decode_field(line, name, source, out)
        links.extend(found)
        if plain(value).strip():
            fields[name] = value
        else:
            out.append(
                warning(
                    f"{NAME}.empty-{name}",
                    f"{name} '{line.text}' holds no text once decoded; the entry has no {name}",
                    source=source,
                    line=line.number,
                )
            )
    fields["publisher"] = PUBLISHER
    extra: list[Extra] = []
    if unit.category is not None:
        _read_category(unit.category, fields, extra, source, out)
    if links:
        fields["links"] = " ".join(dict.fromkeys(links))
    names = {"author": [header.author, OTHERS]} if header.author is not None else {}
    bib.entries.append(
        Entry(
            type=ENTRY_TYPE,
            source_type=SOURCE_TYPE,
            fields=fields,
            names=names,
            dates={"issued": Date(year=int(marker_match.group(1)))},
            extra=extra,
            origin=Origin(source, unit.marker.number, NAME, raw),
        )
    )
    if unit.category is None:
        _report_missing_category(unit, source, out, is_last=is_last)
    elif len(unit.body) == 1:
        out.append(_missing_abstract(unit.marker.number, source))


def _unit_problem(unit: _Unit) -> str:
    """Why a record cannot be read, or "" when it can."""
    if unit.marker is None:
        first = unit.first.text
        shown = first if len(first) <= 60 else first[:57] + "..."
        return f"text {shown!r} is not a record: it has no arXiv<YEAR> line before it"
    if not unit.body:
        return f"record {unit.marker.text} has no title"
    if len(unit.body) > 2:
        return (
            f"record {unit.marker.text} has {len(unit.body)} lines of text where a title and an "
            "abstract were expected; two records may have run together"
        )
    return ""


def _report_missing_category(
    unit: _Unit, source: str, out: list[Diagnostic], *, is_last: bool
) -> None:
    assert unit.marker is not None
    if is_last:
        lacking = "its category line" if len(unit.body) > 1 else "its abstract and category line"
        out.append(
            warning(
                f"{NAME}.truncated-record",
                f"the last record ends without {lacking}: the listing looks truncated "
                "(read what is there; the text may be incomplete)",
                source=source,
                line=unit.marker.number,
            )
        )
        return
    out.append(
        warning(
            f"{NAME}.missing-category",
            "record has no category line (cs.LG↗); it is read without a primary class",
            source=source,
            line=unit.marker.number,
        )
    )
    if len(unit.body) == 1:
        out.append(_missing_abstract(unit.marker.number, source))


def _missing_abstract(line: int, source: str) -> Diagnostic:
    return warning(f"{NAME}.missing-abstract", "record has no abstract", source=source, line=line)


def _read_category(
    line: _Line, fields: dict[str, Text], extra: list[Extra], source: str, out: list[Diagnostic]
) -> None:
    # "cs.LG↗"; tolerate several classes on one line ("cs.LG↗ stat.ML↗"): the first is primary.
    classes = _split_classes(line.text)
    if not classes:
        out.append(
            warning(
                f"{NAME}.missing-category", "empty category line", source=source, line=line.number
            )
        )
        return
    primary, others = classes[0], classes[1:]
    if _CLASS.fullmatch(primary):
        fields["arxiv-class"] = primary
    else:
        extra.append(Extra(NAME, "category", primary))
        out.append(
            warning(
                f"{NAME}.unknown-category",
                f"{primary!r} is not an arXiv class; kept as an extra field, not as the class",
                source=source,
                line=line.number,
            )
        )
    if others:
        extra.append(Extra(NAME, "categories", " ".join(others)))


def _split_classes(text: str) -> list[str]:
    parts = [p.strip() for p in _CATEGORY_SEPARATORS.split(text) if p.strip()]
    classes: list[str] = []
    for part in parts:
        tokens = part.split()
        # "cs.LG stat.ML" is two classes; "Computer Science" is one unknown category
        classes.extend(tokens if all(_CLASS.fullmatch(t) for t in tokens) else [part])
    return classes


def _check_counts(
    header: _Header, read_here: int, rejected_here: int, source: str, bib: Bibliography
) -> None:
    found = read_here + rejected_here
    if header.claimed is None:
        if found == 0:
            bib.diagnostics.append(
                warning(f"{NAME}.no-records", "the listing holds no records", source=source)
            )
        return
    if header.at_least and found >= header.claimed:
        return
    if not header.at_least and found == header.claimed:
        return
    claim = f"at least {header.claimed}" if header.at_least else str(header.claimed)
    bib.diagnostics.append(
        warning(
            f"{NAME}.count-mismatch",
            f"the header claims {claim} records but the listing holds {found} "
            f"({read_here} read, {rejected_here} rejected)",
            source=source,
            line=header.claim_line,
        )
    )


# ---------------------------------------------------------------------------------------------
# Titles and abstracts: arXiv's TeX-flavoured plain text
# ---------------------------------------------------------------------------------------------


def _decode_field(
    line: _Line, name: str, source: str, out: list[Diagnostic]
) -> tuple[Text, list[str]]:
    """Decode one title or abstract line; return the text and the http(s) URLs found in it.

    URLs are kept verbatim (LaTeX decoding would read `%`, `~` or `--` inside them), the text
    around them is decoded from LaTeX after escaping the characters arXiv uses literally.
    """
    nodes: list[Node] = []
    links: list[str] = []
    problems: list[str] = []
    for piece, url, verbatim in _url_pieces(line.text):
        if url:
            links.append(url)
        if verbatim:
            nodes.append(piece)  # a URL shown as written
        elif piece:
            nodes.extend(_decode_piece(piece, problems))
    for problem in dict.fromkeys(problems):
        where = {"source": source, "line": line.number}
        if problem.endswith(_BARE_MATH_NOTE):
            # the BibTeX writer wraps such math in \ensuremath{} and says so: not a loss
            out.append(info(f"{NAME}.bare-math", f"{name}: {problem}", **where))
        else:
            out.append(warning(f"{NAME}.latex", f"{name}: {problem}", **where))
    return make_text(nodes), links


def _decode_piece(piece: str, problems: list[str]) -> list[Node]:
    """Decode text between URLs, keeping the spaces at its ends (they separate it from them)."""
    core = piece.strip()
    lead = " " if core and piece[0].isspace() else ""
    trail = " " if core and piece[-1].isspace() else ""
    if not core:
        return [" "]
    latex, unmatched = _escape_text(core)
    if unmatched:
        problems.append("unmatched $ read as a dollar sign")
    decoded = decode(latex)
    problems.extend(decoded.problems)
    value = decoded.text
    return [lead, *((value,) if isinstance(value, str) else value.nodes), trail]


def _url_pieces(text: str) -> Iterator[tuple[str, str, bool]]:
    """Split `text` into (piece, url, verbatim): a URL shown as written (bare or `\\url{}`) is
    a verbatim piece; `\\href{url}{label}` shows its LaTeX label; other text has url "".
    """
    if "http" not in text:
        yield text, "", False
        return
    position = 0
    for start, end, url, label in _find_urls(text):
        yield text[position:start], "", False
        if label is None:
            yield url, url, True
        else:
            yield label, url, False
        position = end
    yield text[position:], "", False


def _find_urls(text: str) -> Iterator[tuple[int, int, str, str | None]]:
    """(start, end, url, href label) for each URL, trailing sentence punctuation left outside."""
    commands = [(m.start(), m.end(), m) for m in _URL_COMMAND.finditer(text)]
    taken = 0
    for match in sorted(
        [(s, e, m, True) for s, e, m in commands]
        + [(m.start(), m.end(), m, False) for m in _URL.finditer(text)],
        key=lambda item: item[0],
    ):
        start, end, found, is_command = match
        if start < taken:
            continue  # the bare URL inside a \url{} or \href{} already taken
        if is_command:
            url = found.group(1) or found.group(2)
            yield start, end, url, found.group(3)
        else:
            url = _strip_trailing(found.group(0))
            end = start + len(url)
            yield start, end, url, None
        taken = end


def _strip_trailing(url: str) -> str:
    """Drop sentence punctuation after a URL; keep a `)` or `]` the URL itself opened."""
    while url:
        last = url[-1]
        if last in _TRAILING_PUNCTUATION:
            url = url[:-1]
        elif last in _CLOSERS and url.count(_CLOSERS[last]) < url.count(last):
            url = url[:-1]
        else:
            break
    return url


def _escape_text(text: str) -> tuple[str, bool]:
    """Escape the characters arXiv text uses literally, outside `$...$` math only.

    Returns the LaTeX and whether an unmatched `$` was escaped as a dollar sign.
    """
    if not _NEEDS_ESCAPE.search(text):
        return text, False
    unmatched = False

    def replace(match: re.Match[str]) -> str:
        nonlocal unmatched
        token = match.group()
        if token == "$":
            unmatched = True
            return r"\$"
        return _TEXT_ESCAPES.get(token, token)  # math and escapes such as \% stay as written

    return _ESCAPE_TOKEN.sub(replace, text), unmatched
