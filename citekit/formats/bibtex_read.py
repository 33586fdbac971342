"""BibTeX/BibLaTeX reading: bibtexparser's splitter, then our own whole-file passes (macros,
duplicate keys, crossref/xdata inheritance), then the per-entry stage (bibtex_entry).

Part of the bibtex format. Imports model, diagnostics, bibtex_map, bibtex_entry and
bibtexparser's splitter only (never its LaTeX or name middlewares, never other formats).
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from sys import intern

from bibtexparser import model as bp
from bibtexparser.splitter import Splitter

from ..diagnostics import Diagnostic, error, info, warning
from ..model import (
    Bibliography,
    Comment,
    DocItem,
    Entry,
    Macro,
    Origin,
    Preamble,
    Rejected,
)
from . import bibtex_map as M
from .bibtex_entry import RawEntry, RawField, convert_entry, slot

FORMAT = "bibtex"

# The splitter logs every failed block; we report them as diagnostics instead, so its records
# must not reach stderr through logging's last-resort handler (applications can still listen).
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

# ---------------------------------------------------------------------------------------------
# Preparing the text for the splitter
# ---------------------------------------------------------------------------------------------

_CHUNK = 1 << 19  # characters of text per splitter run (see _Reader.split)
_NEWLINES = re.compile(r"\r\n?")
_MASK = "\ue000"  # stands for an `@` the splitter must not take as a block start
# `@article{` directly followed by `field =` (EndNote): no key. A comma is inserted so the
# splitter reads the entry; the raw text shown to users is taken from the original.
_KEYLESS = re.compile(r"[^\S\n]*@[^\S\n]*(?!comment|string|preamble)\w+[^\S\n]*[{(]"
                      r"(?=\s*[^\s,={}()\"#%]+\s*=)", re.IGNORECASE)  # fmt: skip
# A `% comment` after a one-line field (biber allows it; the splitter would take it into the
# next field's name): blanked to spaces so offsets stay the same.
_TRAILING_COMMENT = re.compile(
    r"[^\S\n]*[^\s=,{}\"#%@]+[^\S\n]*=[^\S\n]*"
    r"(?:\{[^{}\n]*\}|\"[^\"\n]*\"|[\w.:+-]+)[^\S\n]*,?[^\S\n]*(%[^\n]*)$",
    re.MULTILINE,
)


@dataclass(slots=True)
class _Prepared:
    """The text the splitter sees, and how to map its offsets back to the original."""

    text: str
    original: str
    insertions: list[int]  # offsets in `text` of inserted characters (one each)
    masked: bool
    blanked: list[tuple[int, str]]  # (line, comment text) of trailing comments blanked

    @property
    def changed(self) -> bool:
        return self.masked or bool(self.insertions) or bool(self.blanked)


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _prepare(text: str) -> _Prepared:
    """Normalise line ends and the BOM, then edit what the splitter would misread, visiting only
    the `@` and `%` characters (a regex over every line costs seconds on 20k entries):
    `@` inside a line is masked (text, not a block start: biber's and our counter's reading),
    a keyless `@type{` gets a comma, and a `% comment` after a field is blanked."""
    if "\r" in text:
        text = _NEWLINES.sub("\n", text)
    if text.startswith("\ufeff"):
        text = " " + text[1:]  # keep offsets; the BOM is not content
    original = text
    masks: list[int] = []
    commas: list[int] = []
    pos = text.find("@")
    while pos >= 0:
        start = _line_start(text, pos)
        if text[start:pos].strip():
            masks.append(pos)
        else:
            m = _KEYLESS.match(text, start)
            if m:
                commas.append(m.end())
        pos = text.find("@", pos + 1)
    blanks: list[tuple[int, int]] = []
    blanked: list[tuple[int, str]] = []
    pos = text.find("%")
    line, counted = 1, 0
    while pos >= 0:
        start = _line_start(text, pos)
        next_line = text.find("\n", pos)
        if text[start:pos].strip():
            m = _TRAILING_COMMENT.match(text, start)
            if m:
                line += text.count("\n", counted, start)
                counted = start
                blanks.append((m.start(1), m.end(1)))
                blanked.append((line, m.group(1)))
        if next_line < 0:
            break
        pos = text.find("%", next_line)
    if not (masks or commas or blanks):
        return _Prepared(text, original, [], False, [])
    return _edit(text, original, masks, blanks, commas, blanked)


def _edit(
    text: str,
    original: str,
    masks: list[int],
    blanks: list[tuple[int, int]],
    commas: list[int],
    blanked: list[tuple[int, str]],
) -> _Prepared:
    edits: list[tuple[int, int, str]] = [(p, p + 1, _MASK) for p in masks]
    edits += [(s, e, " " * (e - s)) for s, e in blanks]
    edits += [(p, p, ",") for p in commas]
    edits.sort()
    pieces: list[str] = []
    insertions: list[int] = []
    last = 0
    for start, end, replacement in edits:
        pieces.append(text[last:start])
        if start == end:
            insertions.append(start + len(insertions))
        pieces.append(replacement)
        last = end
    pieces.append(text[last:])
    return _Prepared("".join(pieces), original, insertions, bool(masks), blanked)


def _unmask(value: str) -> str:
    return value.replace(_MASK, "@") if _MASK in value else value


class _RawLocator:
    """Where a block really is: its 0-based line and its original raw text.

    bibtexparser's splitter does not count a line break that follows a backslash (its marks
    skip escaped characters), so its line numbers drift after `...\\TeX\\` at a line end;
    we look the block's text up from (at or before) the line it gives and count ourselves.
    """

    def __init__(self, prepared: _Prepared) -> None:
        self._p = prepared
        text = prepared.text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def locate(self, raw: str, line0: int) -> tuple[int, str]:
        p = self._p
        starts = self._line_starts
        start = p.text.find(raw, starts[min(max(line0, 0), len(starts) - 1)]) if raw else -1
        if start < 0:
            return line0, _unmask(raw)
        line0 = bisect_right(starts, start) - 1
        if not p.insertions and not p.blanked:
            return line0, _unmask(raw)
        end = start + len(raw)
        shift_start = bisect_left(p.insertions, start)
        shift_end = bisect_left(p.insertions, end)
        return line0, p.original[start - shift_start : end - shift_end]


# ---------------------------------------------------------------------------------------------
# Field values: @string macros and # concatenation
# ---------------------------------------------------------------------------------------------

# plain.bst's month macros; a file may redefine them with @string
MONTH_NAMES: dict[str, str] = {
    "jan": "January", "feb": "February", "mar": "March", "apr": "April", "may": "May",
    "jun": "June", "jul": "July", "aug": "August", "sep": "September", "oct": "October",
    "nov": "November", "dec": "December",
}  # fmt: skip

_BRACE = re.compile(r"(?<!\\)[{}]")
_QUOTE_MARK = re.compile(r'(?<!\\)[{}"]')
_NUMBER = re.compile(r"\d+")
_MACRO_NAME = re.compile(r"[^\s#\"{}(),=%]+")
_BARE = re.compile(r"[^\s#\"{}(),=%]+\Z")


@dataclass(slots=True)
class _Value:
    body: str
    undefined: tuple[str, ...] = ()
    malformed: bool = False


def _group_end(value: str, start: int) -> int:
    """Index just past the `{...}` group opening at `start`, or -1 if it never closes."""
    depth = 0
    for m in _BRACE.finditer(value, start):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return m.end()
    return -1


def _quote_end(value: str, start: int) -> int:
    """Index just past the `"..."` opening at `start` (quotes inside braces do not close)."""
    depth = 0
    for m in _QUOTE_MARK.finditer(value, start + 1):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth <= 0:
            return m.end()
    return -1


def evaluate(value: str, macros: dict[str, str]) -> _Value:
    """The body BibTeX sees for a field value: delimiters removed, macros expanded, # joined."""
    if "#" not in value:
        first, last = value[:1], value[-1:]
        if first == "{" and last == "}":
            inner = value[1:-1]
            # no inner braces: certainly one group (the common case, checked without a scan)
            if ("{" not in inner and "}" not in inner) or _group_end(value, 0) == len(value):
                return _Value(inner)
        elif first == '"' and last == '"':
            inner = value[1:-1]
            if '"' not in inner or _quote_end(value, 0) == len(value):
                return _Value(inner)
        if value.isdigit():
            return _Value(value)
        if _BARE.match(value):
            found = macros.get(value.lower())
            return _Value(found) if found is not None else _Value(value, (value,))
    return _evaluate_general(value, macros)


def _evaluate_general(value: str, macros: dict[str, str]) -> _Value:
    parts: list[str] = []
    undefined: list[str] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and value[i].isspace():
            i += 1
        if i >= n:
            break
        c = value[i]
        if c == "{":
            end = _group_end(value, i)
        elif c == '"':
            end = _quote_end(value, i)
        else:
            m = _NUMBER.match(value, i) or _MACRO_NAME.match(value, i)
            end = m.end() if m else -1
        if end < 0:  # not a value part: keep the rest as text rather than lose it
            parts.append(value[i:])
            return _Value("".join(parts), tuple(undefined), malformed=True)
        if c in '{"':
            parts.append(value[i + 1 : end - 1])
        elif value[i].isdigit():
            parts.append(value[i:end])
        else:
            name = value[i:end]
            found = macros.get(name.lower())
            if found is None:
                undefined.append(name)
                parts.append(name)
            else:
                parts.append(found)
        i = end
        while i < n and value[i].isspace():
            i += 1
        if i < n:
            if value[i] != "#":
                parts.append(value[i:])
                return _Value("".join(parts), tuple(undefined), malformed=True)
            i += 1
    return _Value("".join(parts), tuple(undefined))


_COMMENT_LINE = re.compile(r"(?m)^[^\S\n]*%[^\n]*\n?")


def _clean_field_name(name: str) -> tuple[str, str]:
    """Field name without `%` comment lines the splitter took in; (name, dropped comment)."""
    if "%" not in name:
        return name, ""
    comments = "".join(m.group().strip() + " " for m in _COMMENT_LINE.finditer(name)).strip()
    return _COMMENT_LINE.sub("", name).strip(), comments


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.prepared = _prepare(text)
        self.locator = _RawLocator(self.prepared)
        self.macros: dict[str, str] = dict(MONTH_NAMES)
        self.raw_entries: list[RawEntry] = []
        self.document: list[DocItem] = []
        self.rejected: list[Rejected] = []
        self.diagnostics: list[Diagnostic] = []
        self.macro_lines: dict[str, int] = {}
        self.offset = 0  # lines before the chunk being split
        self.line0, self.raw, self.field_shift = 0, "", 0  # the block being read

    # -- splitting -------------------------------------------------------------------------

    def split(self) -> None:
        # The splitter keeps every block of its input alive at once (about 1 KiB an entry), so
        # it is fed the text a chunk at a time, cut before a line-start `@`: the splitter
        # itself ends a block there, so the blocks are the same as in one pass.
        text = self.prepared.text
        start, line = 0, 0
        while start < len(text):
            cut = text.find("\n@", start + _CHUNK) if len(text) - start > _CHUNK else -1
            end = len(text) if cut < 0 else cut + 1
            self.offset = line
            for block in Splitter(bibstr=text[start:end]).split().blocks:
                self._block(block)
            line += text.count("\n", start, end)
            start = end
        for line, comment in self.prepared.blanked:
            self.diagnostics.append(info(
                "bibtex.comment-in-entry",
                f"'{comment.strip()}' after a field is a comment (biber's reading); not kept",
                source=self.source, line=line))  # fmt: skip

    def _l0(self, block: bp.Block) -> int:
        """The current block's 0-based line in the whole text (see _RawLocator)."""
        return self.line0

    def _where(self, line0: int | None, key: str = "") -> dict[str, object]:
        return {"source": self.source, "line": (line0 or 0) + 1, "key": key}

    def _block(self, block: bp.Block) -> None:
        told = (block.start_line or 0) + self.offset
        self.line0, self.raw = self.locator.locate(block.raw or "", told)
        self.field_shift = self.offset + self.line0 - told  # fields drift as their block did
        duplicate_fields: set[str] = set()
        while isinstance(block, (bp.DuplicateBlockKeyBlock, bp.DuplicateFieldKeyBlock)):
            if isinstance(block, bp.DuplicateFieldKeyBlock):
                duplicate_fields |= set(block.duplicate_keys)
            inner = block.ignore_error_block
            assert inner is not None  # both kinds always wrap the block they report
            block = inner
        position = len(self.raw_entries)
        if isinstance(block, bp.Entry):
            self._entry(block, duplicate_fields)
        elif isinstance(block, bp.String):
            self._string(block, position)
        elif isinstance(block, bp.Preamble):
            raw = self.raw
            self.document.append(Preamble(_unmask(block.value.strip()), position,
                                          self._origin(self._l0(block), raw)))  # fmt: skip
        elif isinstance(block, bp.ExplicitComment):
            raw = self.raw
            self.document.append(Comment(raw, position, self._origin(self._l0(block), raw)))
        elif isinstance(block, bp.ImplicitComment):
            text = _unmask(block.comment)
            self.document.append(Comment(text, position, self._origin(self._l0(block), text)))
        elif isinstance(block, bp.ParsingFailedBlock):
            self._failed(block)
        else:  # pragma: no cover - the splitter makes no other blocks
            raise TypeError(f"unexpected bibtexparser block {type(block).__name__}")

    def _origin(self, line0: int | None, raw: str) -> Origin:
        return Origin(self.source, (line0 or 0) + 1, FORMAT, raw)

    def _failed(self, block: bp.ParsingFailedBlock) -> None:
        raw = self.raw
        reason = str(block.error).strip() or type(block.error).__name__
        abort = getattr(block.error, "abort_reason", "")
        if abort:
            reason = str(abort).strip()
        line = (self._l0(block)) + 1
        self.rejected.append(Rejected(self.source, line, raw, reason, FORMAT))
        self.diagnostics.append(error("bibtex.syntax", f"record not read: {reason}",
                                      source=self.source, line=line, raw=raw))  # fmt: skip

    def _string(self, block: bp.String, position: int) -> None:
        name = _unmask(block.key)
        value = _unmask(block.value)
        where = self._where(self._l0(block))
        evaluated = evaluate(value, self.macros)
        for undefined in evaluated.undefined:
            self.diagnostics.append(
                warning(
                    "bibtex.undefined-macro",
                    f"@string {name}: macro '{undefined}' is not defined; kept as text",
                    **where,
                )
            )
        lname = name.lower()
        if lname in self.macro_lines:
            self.diagnostics.append(warning(
                "bibtex.duplicate-macro",
                f"@string {name} redefined (first at line {self.macro_lines[lname]}); "
                "later entries use the new value", **where))  # fmt: skip
        else:
            self.macro_lines[lname] = (self._l0(block)) + 1
        self.macros[lname] = evaluated.body
        raw = self.raw
        self.document.append(Macro(name, value, position, self._origin(self._l0(block), raw)))

    def _field_problems(
        self, entry: RawEntry, name: str, line: int, comment: str, evaluated: _Value
    ) -> None:
        where = {"source": self.source, "line": line, "key": entry.key}
        if comment:
            entry.diagnostics.append(info(
                "bibtex.comment-in-entry",
                f"'{comment}' inside the entry is a comment (biber's reading); not kept",
                **where))  # fmt: skip
        for undefined in evaluated.undefined:
            entry.diagnostics.append(
                warning(
                    "bibtex.undefined-macro",
                    f"field {name}: macro '{undefined}' is not defined; kept as text",
                    **where,
                )
            )
        if evaluated.malformed:
            entry.diagnostics.append(warning(
                "bibtex.malformed-value",
                f"field {name}: value is not a braced/quoted text, number or macro; "
                "kept as written", **where))  # fmt: skip

    def _entry(self, block: bp.Entry, duplicate_fields: set[str]) -> None:
        key = _unmask(block.key)
        raw = self.raw
        entry = RawEntry(block.entry_type.lower(), key, [], (self._l0(block)) + 1, raw)
        where = self._where(self._l0(block), key)
        if not key:
            entry.diagnostics.append(warning(
                "bibtex.missing-key", "entry has no citation key; one will be generated",
                **where))  # fmt: skip
        fields = entry.fields
        for f in block.fields:
            name, comment = _clean_field_name(_unmask(f.key))
            line = (f.start_line or 0) + self.field_shift + 1
            evaluated = evaluate(_unmask(f.value), self.macros)
            # field names repeat in every entry: one string object each
            fields.append(RawField(intern(name), intern(name.lower()), evaluated.body, line))
            if comment or evaluated.undefined or evaluated.malformed:
                self._field_problems(entry, name, line, comment, evaluated)
        for dup in sorted(duplicate_fields):
            entry.diagnostics.append(warning(
                "bibtex.duplicate-field",
                f"field {dup} given more than once; the first is used, the others are kept "
                "as extra fields", **where))  # fmt: skip
        self.raw_entries.append(entry)


# ---------------------------------------------------------------------------------------------
# Whole-file passes: duplicate keys, crossref/xdata inheritance
# ---------------------------------------------------------------------------------------------


def report_duplicate_keys(entries: list[RawEntry], source: str) -> None:
    """Warn for every entry whose key (compared case-insensitively, as BibTeX does) is taken."""
    seen: dict[str, RawEntry] = {}
    for entry in entries:
        if not entry.key:
            continue
        folded = entry.key.casefold()
        first = seen.get(folded)
        if first is None:
            seen[folded] = entry
            continue
        how = "" if first.key == entry.key else f" (as '{first.key}', differing only in case)"
        entry.diagnostics.append(warning(
            "bibtex.duplicate-key",
            f"key already used at line {first.line}{how}; both entries are kept",
            source=source, line=entry.line, key=entry.key))  # fmt: skip


_MAX_DEPTH = 64
_XDATA_SPLIT = re.compile(r"\s*,\s*")


class _Inheritance:
    """crossref and xdata: a child takes the fields it lacks, resolving each entry once."""

    def __init__(self, entries: list[RawEntry], source: str) -> None:
        self.entries = entries
        self.source = source
        self.by_key: dict[str, int] = {}
        for i, e in enumerate(entries):
            if e.key:
                self.by_key.setdefault(e.key.casefold(), i)
        # biblatex `ids` gives an entry alias keys that crossref and xdata may use
        for i, e in enumerate(entries):
            ids = e.first("ids")
            if ids is not None:
                for alias in _XDATA_SPLIT.split(ids.body.strip()):
                    if alias:
                        self.by_key.setdefault(alias.casefold(), i)
        self.state = [0] * len(entries)  # 0 new, 1 resolving, 2 done

    def run(self) -> None:
        for i, e in enumerate(self.entries):
            if self.state[i] == 0 and (e.has("crossref") or e.has("xdata")):
                self.resolve(i, 0)

    def _report(self, entry: RawEntry, line: int, code: str, message: str) -> None:
        entry.diagnostics.append(warning(code, message, source=self.source, line=line,
                                         key=entry.key))  # fmt: skip

    def _target(self, entry: RawEntry, f: RawField, ref: str, depth: int) -> RawEntry | None:
        what = "xdata" if f.lname == "xdata" else "crossref"
        j = self.by_key.get(ref.casefold())
        if j is None:
            self._report(
                entry,
                f.line,
                "bibtex.crossref-missing",
                f"{what} '{ref}' names no entry in this file; nothing inherited",
            )
            return None
        if self.state[j] == 1:
            self._report(
                entry,
                f.line,
                "bibtex.crossref-cycle",
                f"{what} '{ref}' leads back to this entry; the loop is not followed",
            )
            return None
        if depth >= _MAX_DEPTH:
            self._report(
                entry,
                f.line,
                "bibtex.crossref-cycle",
                f"{what} chain deeper than {_MAX_DEPTH}; not followed further",
            )
            return None
        self.resolve(j, depth + 1)
        return self.entries[j]

    def resolve(self, i: int, depth: int) -> None:
        if self.state[i]:
            return
        self.state[i] = 1
        entry = self.entries[i]
        for f in list(entry.fields):
            if f.lname != "xdata" or f.inherited:
                continue
            for ref in _XDATA_SPLIT.split(f.body.strip()):
                if ref:
                    parent = self._target(entry, f, ref, depth)
                    if parent is not None:
                        _inherit(entry, parent, crossref=False)
        link = entry.first("crossref")
        if link is not None and link.body.strip():
            parent = self._target(entry, link, link.body.strip(), depth)
            if parent is not None:
                _inherit(entry, parent, crossref=True)
        self.state[i] = 2


def _inherit(child: RawEntry, parent: RawEntry, *, crossref: bool) -> None:
    """Give `child` the parent's fields for the slots it has not filled (by meaning, not by
    name, so that reading our own output, where `journal` may be `journaltitle`, inherits the
    same)."""
    csl_type = M.READ_TYPES.get(child.type, "document")
    have = {slot(csl_type, f.lname) for f in child.fields}
    if child.has("date"):
        have.update(("month", "day"))  # a full date leaves no room for a parent's month
    added: list[RawField] = []
    in_type = crossref and child.type in M.IN_TYPES
    for f in parent.fields:
        if f.lname in M.NOT_INHERITED:
            continue
        name = f.name
        if in_type and f.lname == "title":
            if "booktitle" in have or parent.has("booktitle"):
                continue  # classic BibTeX: the parent's own booktitle is inherited instead
            name = "booktitle"
        elif in_type and f.lname in ("subtitle", "titleaddon"):
            name = "book" + f.lname
        lname = name.lower()
        filled = slot(csl_type, lname)
        if filled in have:
            continue
        have.add(filled)
        added.append(RawField(name, lname, f.body, f.line, inherited=True))
    child.fields.extend(added)


# ---------------------------------------------------------------------------------------------
# The whole read
# ---------------------------------------------------------------------------------------------


def read(text: str, *, source: str) -> Bibliography:
    """Read BibTeX/BibLaTeX `text` (already decoded to str) into a `Bibliography`."""
    reader = _Reader(text, source)
    reader.split()
    report_duplicate_keys(reader.raw_entries, source)
    _Inheritance(reader.raw_entries, source).run()
    entries: list[Entry] = []
    diagnostics = list(reader.diagnostics)
    raws = reader.raw_entries
    for i, raw in enumerate(raws):
        entry, found = convert_entry(raw, source)
        entries.append(entry)
        diagnostics.extend(found)
        raws[i] = None  # type: ignore[call-overload]  # each raw entry is freed once converted
    diagnostics.sort(key=lambda d: d.line or 0)
    return Bibliography(entries, reader.document, reader.rejected, diagnostics)
