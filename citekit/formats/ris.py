"""RIS read (lenient, reporting) and write (Zotero's dialect) through one two-way tag table.

The table and every choice where tools disagree are in docs/mapping.md (RIS column).
Imports model, diagnostics, options, markup, names and dates; never another format module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from .. import dates, markup, names
from ..diagnostics import Diagnostic, info, warning
from ..diagnostics import error as error_diag
from ..model import (
    CSL_TYPES,
    OTHERS,
    Bibliography,
    Date,
    Entry,
    Extra,
    Name,
    Origin,
    Rejected,
    Text,
    plain,
)
from ..options import WriteOptions

NAME = "ris"
SUFFIXES = (".ris",)

# ---------------------------------------------------------------------------------------------
# Types. Writing follows Zotero's export map; reading also accepts the RIS-2011 and EndNote
# types nobody writes back. See docs/mapping.md "Types" for each split between tools.
# ---------------------------------------------------------------------------------------------

TYPE_TO_TY: dict[str, str] = {
    "article-journal": "JOUR", "article-magazine": "MGZN", "article-newspaper": "NEWS",
    "article": "GEN", "book": "BOOK", "collection": "BOOK", "chapter": "CHAP",
    "paper-conference": "CONF", "thesis": "THES", "report": "RPRT", "manuscript": "MANSCPT",
    "webpage": "ELEC", "post-weblog": "BLOG", "post": "ELEC", "patent": "PAT",
    "dataset": "DATA", "software": "COMP", "entry-dictionary": "DICT",
    "entry-encyclopedia": "ENCYC", "motion_picture": "MPCT", "broadcast": "MPCT",
    "song": "SOUND", "graphic": "ART", "figure": "FIGURE", "map": "MAP",
    "personal_communication": "PCOMM", "interview": "PCOMM", "legal_case": "CASE",
    "legislation": "STAT", "bill": "BILL", "hearing": "HEAR", "speech": "SLIDE",
    "standard": "STAND", "pamphlet": "PAMP", "classic": "CLSWK", "periodical": "JFULL",
    "musical_score": "MUSIC", "document": "GEN",
}  # fmt: skip
DEFAULT_TY = "GEN"

TY_TO_TYPE: dict[str, str] = {
    **{ty: csl for csl, ty in TYPE_TO_TY.items() if csl not in
       ("collection", "post", "broadcast", "interview", "article")},
    "GEN": "document", "JFULL": "article-journal", "EJOUR": "article-journal",
    "INPR": "article-journal", "ABST": "article-journal", "EBOOK": "book", "EDBOOK": "book",
    "SER": "book", "CTLG": "book", "ECHAP": "chapter", "CPAPER": "paper-conference",
    "GOVDOC": "report", "UNPB": "manuscript", "UNPD": "manuscript", "WEB": "webpage",
    "DBASE": "dataset", "AGGR": "dataset", "VIDEO": "motion_picture", "ADVS": "motion_picture",
    "MULTI": "motion_picture", "MUSIC": "musical_score", "CHART": "graphic", "ICOMM":
    "personal_communication", "LEGAL": "legal_case", "UNBILL": "bill", "ANCIENT": "classic",
    "EQUA": "document", "GRNT": "document", "ELEC": "webpage",
}  # fmt: skip

# EndNote writes reference type names where TY codes belong ("TY  - Journal Article").
TYPE_NAMES: dict[str, str] = {
    "journal article": "JOUR", "book": "BOOK", "book section": "CHAP", "edited book": "EDBOOK",
    "conference paper": "CPAPER", "conference proceedings": "CONF", "thesis": "THES",
    "report": "RPRT", "web page": "ELEC", "generic": "GEN", "magazine article": "MGZN",
    "newspaper article": "NEWS", "electronic article": "EJOUR", "unpublished work": "UNPB",
    "patent": "PAT", "dataset": "DATA", "computer program": "COMP", "manuscript": "MANSCPT",
}  # fmt: skip

_BOOKS = frozenset({"BOOK", "EBOOK", "EDBOOK", "SER", "CTLG"})
_SERIALS = frozenset({"JOUR", "JFULL", "EJOUR", "MGZN", "NEWS", "INPR", "ABST"})
_CHAPTERS = frozenset({"CHAP", "ECHAP"})
_CONFS = frozenset({"CONF", "CPAPER"})
_PAGE_COUNT_TYS = _BOOKS | {"THES"}  # SP means "number of pages" here (RIS-2011, Zotero)
_NUMBERED_BY_SN = frozenset({"RPRT", "GOVDOC", "PAT"})  # report/patent number in SN (Zotero)

# ---------------------------------------------------------------------------------------------
# The tag table. Each row: tag, canonical target, kind, the TYs it is limited to (`only`) or
# excluded from, and whether it writes. Reading takes the first row that applies to a tag;
# the row order is also the read priority for single-valued targets (T2 over JF over JO).
# Writing takes, for each canonical target, the first writing row that applies to the TY.
# ---------------------------------------------------------------------------------------------

Kind = Literal["field", "name", "date", "page", "isxn", "keyword", "url", "note", "eprint"]


@dataclass(frozen=True, slots=True)
class TagRule:
    tag: str
    target: str  # canonical field, name role or date role
    kind: Kind = "field"
    only: frozenset[str] = frozenset()
    exclude: frozenset[str] = frozenset()
    writes: bool = True
    fallback: str = ""  # where a lower-priority value goes when `target` is taken

    def applies(self, ty: str) -> bool:
        return (not self.only or ty in self.only) and ty not in self.exclude


def _rule(tag: str, target: str, kind: Kind = "field", *, only: frozenset[str] = frozenset(),
          exclude: frozenset[str] = frozenset(), writes: bool = True,
          fallback: str = "") -> TagRule:  # fmt: skip
    return TagRule(tag, target, kind, only, exclude, writes, fallback)


RULES: tuple[TagRule, ...] = (
    _rule("TI", "title"),
    _rule("T1", "title", writes=False),
    _rule("CT", "title", writes=False),
    _rule("BT", "title", only=_BOOKS | {"UNPB", "MANSCPT"}, writes=False),
    _rule("AU", "author", "name"),
    _rule("A1", "author", "name", writes=False),
    _rule("A2", "collection-editor", "name", only=_BOOKS),
    _rule("A2", "editor", "name", exclude=_BOOKS),
    _rule("A3", "editor", "name", only=_BOOKS),
    _rule("A3", "collection-editor", "name", exclude=_BOOKS),
    _rule("ED", "editor", "name", writes=False),
    _rule("A4", "translator", "name"),
    _rule("C2", "container-author", "name", only=_CHAPTERS),
    _rule("T2", "collection-title", only=_BOOKS),
    _rule("T2", "container-title", exclude=_BOOKS),
    _rule("JF", "container-title", writes=False),
    _rule("JO", "container-title", writes=False, fallback="container-title-short"),
    _rule("BT", "container-title", writes=False),
    _rule("T3", "collection-title"),
    _rule("J2", "container-title-short"),
    _rule("JA", "container-title-short", writes=False),
    _rule("J1", "container-title-short", writes=False),
    _rule("ST", "title-short"),
    _rule("DA", "issued", "date"),
    _rule("Y1", "issued", "date", writes=False),
    _rule("PY", "issued", "date"),
    _rule("Y2", "accessed", "date"),
    _rule("VL", "volume"),
    _rule("IS", "issue"),
    _rule("SP", "number-of-pages", "page", only=_PAGE_COUNT_TYS),
    _rule("SP", "page", "page"),
    _rule("EP", "page", "page"),
    _rule("M1", "collection-number", only=_BOOKS),
    _rule("SV", "collection-number", only=_CHAPTERS),
    _rule("SN", "number", "isxn", only=_NUMBERED_BY_SN),
    _rule("C7", "number", only=_SERIALS),  # EndNote's "Article Number"
    _rule("M1", "number", exclude=_BOOKS | _SERIALS),
    _rule("SE", "chapter-number", only=_CHAPTERS),
    _rule("SE", "section", exclude=_CHAPTERS),
    _rule("ET", "edition"),
    _rule("NV", "number-of-volumes"),
    _rule("PB", "publisher"),
    _rule("CY", "publisher-place"),
    _rule("C1", "publisher-place", only=_CONFS, writes=False),
    _rule("PP", "publisher-place", writes=False),
    _rule("SN", "ISSN", "isxn"),
    _rule("SN", "ISBN", "isxn"),
    _rule("DO", "DOI"),
    _rule("M3", "DOI", writes=False),  # only when it looks like a DOI (JabRef writes DOIs here)
    _rule("M3", "genre", exclude=_SERIALS),  # Scopus writes "Article" here: not a genre
    _rule("UR", "URL", "url"),
    _rule("LK", "URL", "url", writes=False),
    _rule("AN", "arxiv", "eprint"),
    _rule("AN", "archive_location"),
    _rule("DB", "archive"),
    _rule("CN", "call-number"),
    _rule("LA", "language"),
    _rule("N2", "abstract", writes=False),
    _rule("AB", "abstract", fallback="note"),  # RIS-1: AB means notes when N2 is the abstract
    _rule("KW", "keyword", "keyword"),
    _rule("N1", "note", "note"),
    _rule("RN", "note", "note", writes=False),
)

# Tags of RIS-2011 and of common exporters that citekit keeps as extras without complaint.
KNOWN_UNMAPPED = frozenset(
    """AD AV C1 C3 C4 C5 C6 C7 C8 CA CP CR DI DP H1 H2 L1 L2 L3 L4 LB M2 OP RI RP TA TT U1 U2
    U3 U4 U5 VO""".split()
)

_NOTE_TAGS = frozenset({"AB", "N1", "N2", "RN"})  # continuation lines keep their line breaks
_WRITE_ORDER = (
    "TI AU A2 A3 A4 C2 T2 T3 J2 ST PY DA Y2 VL IS SP EP C7 M1 SV SE ET NV PB CY SN DO UR AN DB CN "
    "M3 LA AB KW N1".split()
)

_READ_RULES: dict[str, tuple[TagRule, ...]] = {}
for _r in RULES:
    _READ_RULES[_r.tag] = (*_READ_RULES.get(_r.tag, ()), _r)
# Read priority by row position; keyed by identity, since hashing a rule hashes its frozensets.
_PRIORITY: dict[int, int] = {id(r): i for i, r in enumerate(RULES)}
_AN_LOCATION = next(r for r in RULES if r.tag == "AN" and r.target == "archive_location")


@cache
def _rules_for(tag: str, ty: str) -> tuple[TagRule, ...]:
    """The rows that read `tag` in a record of type `ty`, in priority order."""
    return tuple(r for r in _READ_RULES.get(tag, ()) if r.applies(ty))


# ---------------------------------------------------------------------------------------------
# Lines
# ---------------------------------------------------------------------------------------------

# `TAG  - value`: one or two spaces before the hyphen (Zotero accepts both); value optional.
_TAG_LINE = re.compile(r"^([A-Z][A-Z0-9]) {1,2}-(?:[ \t](.*))?[ \t]*$")
# Damaged tag lines that are still unmistakable: three+ spaces, a tab, or no space after `-`.
_BENT_TAG_LINE = re.compile(
    r"^([A-Z][A-Z0-9])(?: {3,}|\t+ ?)-[ \t]?(.*)$|^([A-Z][A-Z0-9]) {1,2}-(\S.*)$"
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_VALUE_BREAK = re.compile(r"\r\n|[\r\n\u2028\u2029\u0085\x0b\x0c]")
# Record starts after any line break (CR alone too, as old Mac exports have it).
_TY_COUNT = re.compile(r"(?:^|(?<=[\r\n]))[ \t\ufeff]*TY {1,2}-")
_WOS_HEAD = re.compile(r"^\ufeff?\s*(?:FN |VR |PT [A-Z]\b)")
_WOS_PT = re.compile(r"(?:^|(?<=[\r\n]))PT [A-Z]")
_ANY_TAG = re.compile(r"^\s*(?:[A-Z][A-Z0-9] {1,2}-|TY\b)")
# A folded continuation line that a trimming reader could take for a tag line.
_TAG_LOOKALIKE = re.compile(r"^\s*[A-Z][A-Z0-9](?:\s*-|\s*$)")


def sniff(text: str) -> bool:
    """True when a `TY  - ` line comes within the first few non-blank lines (as Zotero checks)."""
    seen = 0
    for line in _LINE_BREAK.split(text[:4000]):
        stripped = line.strip().lstrip("\ufeff")
        if not stripped:
            continue
        if re.match(r"^TY {1,2}-", stripped):
            return True
        seen += 1
        if seen > 8:
            return False
    return False


def count_records(text: str) -> int:
    """Records in the text, counted without the reader: `TY` lines, or a WoS export's `PT` lines."""
    found = len(_TY_COUNT.findall(text))
    if found == 0 and _is_wos(text):
        return len(_WOS_PT.findall(text))
    return found


def _is_wos(text: str) -> bool:
    return bool(_WOS_HEAD.match(text)) and not _TY_COUNT.search(text)


# ---------------------------------------------------------------------------------------------
# Reading: lines -> raw records -> entries
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Tagged:
    tag: str
    value: str
    line: int
    continued: bool = False


@dataclass(slots=True)
class _Record:
    line: int
    ty: str
    lines: list[str] = field(default_factory=list)
    fields: list[_Tagged] = field(default_factory=list)


@dataclass(slots=True)
class _Reader:
    source: str
    bib: Bibliography
    record: _Record | None = None
    outside: list[tuple[int, str]] = field(default_factory=list)

    def say(self, diag: Diagnostic) -> None:
        self.bib.diagnostics.append(diag)

    def where(self, line: int, key: str = "") -> dict[str, object]:
        return {"source": self.source, "line": line, "key": key}


def read(text: str, *, source: str = "<string>") -> Bibliography:
    """Read RIS leniently: every oddity is reported with its line, no record is lost."""
    bib = Bibliography()
    if _is_wos(text):
        _reject_wos(text, source, bib)
        return bib
    reader = _Reader(source, bib)
    lines = _LINE_BREAK.split(text)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    for number, line in enumerate(lines, 1):
        _read_line(reader, number, line)
    if reader.record is not None:
        reader.say(
            warning(
                "ris.missing-er",
                "the last record has no ER line; it ends at the end of the file",
                **reader.where(reader.record.line),
            )
        )
        _finish(reader)
    _flush_outside(reader)
    return bib


def _read_line(reader: _Reader, number: int, line: str) -> None:
    # Indented tag lines count as tag lines, as in readers that trim lines (citation-js): the
    # writer never lets a value line look like one, so this cannot split a value it wrote.
    bare = line.lstrip(" \t\ufeff")
    match = _TAG_LINE.match(bare)
    if match is None and (bent := _BENT_TAG_LINE.match(bare)) is not None:
        tag = bent.group(1) or bent.group(3)
        value = bent.group(2) if bent.group(1) else bent.group(4)
        reader.say(
            warning(
                "ris.malformed-line",
                f"bent tag line read as {tag!r}: {line!r}",
                **reader.where(number),
            )
        )
        match_tag: tuple[str, str] | None = (tag, value or "")
    else:
        match_tag = (match.group(1), match.group(2) or "") if match else None
    record = reader.record
    if match_tag is None:
        _read_untagged(reader, number, line)
        return
    tag, value = match_tag[0], match_tag[1].strip()
    if tag == "TY":
        if record is not None:
            reader.say(
                warning(
                    "ris.missing-er",
                    "record has no ER line; a new TY starts the next record",
                    **reader.where(record.line),
                )
            )
            _finish(reader)
        _flush_outside(reader)
        reader.record = _Record(number, value, [line])
        return
    if record is None:
        reader.outside.append((number, line))
        return
    record.lines.append(line)
    if tag == "ER":
        if value:
            reader.say(
                warning("ris.er-value", f"text after ER ignored: {value!r}", **reader.where(number))
            )
        _finish(reader)
        return
    record.fields.append(_Tagged(tag, value, number))


def _read_untagged(reader: _Reader, number: int, line: str) -> None:
    record = reader.record
    if record is None:
        if line.strip():
            reader.outside.append((number, line))
        return
    record.lines.append(line)
    if not line.strip():
        return
    if line.strip() == "ER":  # "ER" without "  - " (WoS habit): still the end of the record
        reader.say(
            warning("ris.malformed-line", "'ER' without '  - ' read as the end of the record",
                    **reader.where(number))
        )  # fmt: skip
        _finish(reader)
        return
    if not record.fields:
        reader.say(
            warning(
                "ris.malformed-line",
                f"line is no tag line and continues nothing; ignored: {line!r}",
                **reader.where(number),
            )
        )
        return
    last = record.fields[-1]
    joiner = "\n" if last.tag in _NOTE_TAGS else " "
    last.value = f"{last.value}{joiner}{line.strip()}" if last.value else line.strip()
    last.continued = True


def _flush_outside(reader: _Reader) -> None:
    if not reader.outside:
        return
    first = reader.outside[0][0]
    raw = "\n".join(line for _, line in reader.outside)
    tagged = any(_ANY_TAG.match(line) for _, line in reader.outside)
    what = "tag lines outside any record (no TY before them)" if tagged else "text outside records"
    reader.say(
        warning(
            "ris.outside-record",
            f"{what} ignored: {len(reader.outside)} line(s) from line {first}",
            raw=raw,
            **reader.where(first),
        )
    )
    reader.outside = []


def _finish(reader: _Reader) -> None:
    record = reader.record
    reader.record = None
    assert record is not None
    raw = "\n".join(record.lines)
    if not record.fields:
        reason = f"record TY {record.ty!r} holds no tags"
        reader.bib.rejected.append(Rejected(reader.source, record.line, raw, reason, NAME))
        reader.say(error_diag("ris.empty-record", reason, raw=raw, **reader.where(record.line)))
        return
    entry, problems = _build_entry(record, reader.source)
    entry.origin = Origin(reader.source, record.line, NAME, raw)
    reader.bib.entries.append(entry)
    reader.bib.diagnostics.extend(problems)


def _reject_wos(text: str, source: str, bib: Bibliography) -> None:
    """A Web of Science tagged export is not RIS: reject each of its records, raw text kept."""
    lines = _LINE_BREAK.split(text)
    reason = ("Web of Science tagged export (FN/PT/ER tags without '  - '), not RIS; "
              "export the records as RIS instead")  # fmt: skip
    bib.diagnostics.append(error_diag("ris.not-ris", reason, source=source, line=1))
    start: int | None = None
    for number, line in enumerate(lines, 1):
        if _WOS_PT.match(line):
            if start is not None:  # a record without its ER: it ends where the next begins
                raw = "\n".join(lines[start - 1 : number - 1])
                bib.rejected.append(Rejected(source, start, raw, reason, NAME))
            start = number
        elif start is not None and line.rstrip() == "ER":
            raw = "\n".join(lines[start - 1 : number])
            bib.rejected.append(Rejected(source, start, raw, reason, NAME))
            start = None
    if start is not None:
        bib.rejected.append(Rejected(source, start, "\n".join(lines[start - 1 :]), reason, NAME))


# ---------------------------------------------------------------------------------------------
# One record -> Entry
# ---------------------------------------------------------------------------------------------

_DOI = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", re.I)
_ISSN = re.compile(r"^\d{4}-?\d{3}[\dXx]$")
_ISBN = re.compile(r"^(?:97[89][- ]?)?(?:\d[- ]?){9}[\dXx]$")
_PAGE_RANGE = re.compile(r"^\s*([^-–—\s]+)\s*[-–—]+\s*([^-–—\s]+)\s*$")
_KW_SPLIT = re.compile(r"[;\n]")
_ARXIV_AN = re.compile(r"^arXiv:(\S+?)(?:v(\d+))?(?: \[([^\]]+)\])?$", re.I)
_ARXIV_CLASS_AN = re.compile(r"^arXiv \[([^\]]+)\]$", re.I)  # class known, id not (listings)
_EPRINT_AN = re.compile(r"^([a-z][a-z0-9]*):(\S+)(?: \[([^\]]+)\])?$", re.I)
EPRINT_TYPES = frozenset({"pubmed", "pmcid", "jstor", "hdl", "googlebooks", "mr", "zbl",
                          "ssrn", "hal", "biorxiv", "medrxiv", "ads", "inspire"})  # fmt: skip


@dataclass(slots=True)
class _Build:
    ty: str
    entry: Entry
    problems: list[Diagnostic]
    source: str
    pages: dict[str, _Tagged] = field(default_factory=dict)
    date_seen: list[tuple[TagRule, _Tagged]] = field(default_factory=list)
    candidates: dict[str, list[tuple[int, TagRule, _Tagged]]] = field(default_factory=dict)
    notes: list[tuple[int, str]] = field(default_factory=list)  # (line, text): file order
    incomplete: list[str] = field(default_factory=list)  # roles whose list ends "and others"
    keywords: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    def say(self, make: Callable[..., Diagnostic], code: str, message: str, line: int) -> None:
        self.problems.append(make(code, message, source=self.source, line=line, key=self.entry.key))

    def keep(self, tagged: _Tagged) -> None:
        self.entry.extra.append(Extra(NAME, tagged.tag, tagged.value))


def _resolve_ty(value: str) -> tuple[str, str, list[str]]:
    """(TY code, CSL type, notes) for a TY value as written."""
    code = value.strip().upper()
    notes: list[str] = []
    if code not in TY_TO_TYPE and value.strip().lower() in TYPE_NAMES:
        code = TYPE_NAMES[value.strip().lower()]
        notes.append(f"reference type name {value.strip()!r} read as TY {code}")
    if code in TY_TO_TYPE:
        return code, TY_TO_TYPE[code], notes
    return code, "document", notes


def _build_entry(record: _Record, source: str) -> tuple[Entry, list[Diagnostic]]:
    ty, ctype, ty_notes = _resolve_ty(record.ty)
    key = next((f.value for f in record.fields if f.tag == "ID" and f.value), "")
    entry = Entry(type=ctype, key=key, original_key=key, source_type=record.ty.strip())
    build = _Build(ty, entry, [], source)
    for note in ty_notes:
        build.say(info, "ris.type-name", note, record.line)
    if ty not in TY_TO_TYPE:
        build.say(
            warning,
            "ris.unknown-type",
            f"unknown TY {record.ty.strip()!r}; read as 'document'",
            record.line,
        )
    id_seen = False
    for tagged in record.fields:
        if tagged.continued:
            build.say(
                info,
                "ris.continuation",
                f"{tagged.tag} continues on the following line(s); joined",
                tagged.line,
            )
        if tagged.tag == "ID" and not id_seen and tagged.value:
            id_seen = True
            continue
        if not tagged.value:
            build.say(info, "ris.empty-value", f"empty {tagged.tag} ignored", tagged.line)
            continue
        _take(build, tagged)
    _settle_candidates(build)
    _settle_dates(build)
    _settle_pages(build)
    _settle_lists(build)
    for role in build.incomplete:
        people = entry.names.setdefault(role, [])
        if not people or not people[-1].others:
            people.append(OTHERS)
    if ty == "GEN" and ("arxiv" in entry.fields or "arxiv-class" in entry.fields):
        entry.type = "article"  # a preprint written by citekit (docs/mapping.md, preprints)
    return entry, build.problems


def _take(build: _Build, tagged: _Tagged) -> None:
    rules = _rules_for(tagged.tag, build.ty)
    rule = next((r for r in rules if _value_fits(r, tagged.value)), None)
    if rule is None:
        build.keep(tagged)
        if tagged.tag in KNOWN_UNMAPPED or tagged.tag in _READ_RULES or tagged.tag == "ID":
            build.say(
                info,
                "ris.unmapped-tag",
                f"{tagged.tag} has no canonical field here; kept and written back",
                tagged.line,
            )
        else:
            build.say(
                warning,
                "ris.unknown-tag",
                f"unknown tag {tagged.tag}; kept and written back",
                tagged.line,
            )
        return
    if rule.kind == "name":
        _take_names(build, rule, tagged)
    elif rule.kind == "date":
        build.date_seen.append((rule, tagged))
    elif rule.kind == "page":
        if tagged.tag in build.pages:
            build.keep(tagged)
            build.say(
                warning, "ris.repeated-tag", f"repeated {tagged.tag}; kept as extra", tagged.line
            )
        else:
            build.pages[tagged.tag] = tagged
    elif rule.kind == "keyword":  # several keywords on one KW line: split as Zotero does
        build.keywords.extend(k.strip() for k in _KW_SPLIT.split(tagged.value) if k.strip())
    elif rule.kind == "url":
        build.urls.append(tagged.value)
    elif rule.kind == "note":
        if (role := incomplete_role(tagged.value)) is not None:
            build.incomplete.append(role)
        else:
            build.notes.append((tagged.line, tagged.value))
    elif rule.kind == "eprint":
        _take_eprint(build, tagged)
    elif rule.kind == "isxn":
        _take_isxn(build, tagged)
    else:
        build.candidates.setdefault(rule.target, []).append((_PRIORITY[id(rule)], rule, tagged))


def _value_fits(rule: TagRule, value: str) -> bool:
    if rule.tag == "M3" and rule.target == "DOI":
        return bool(_DOI.match(value.strip()))
    if rule.kind == "eprint":
        return bool(_ARXIV_AN.match(value) or _ARXIV_CLASS_AN.match(value)) or _is_other_eprint(
            value
        )
    return True


def _is_other_eprint(value: str) -> bool:
    match = _EPRINT_AN.match(value)
    return bool(match) and match.group(1).lower() in EPRINT_TYPES  # type: ignore[union-attr]


def _take_names(build: _Build, rule: TagRule, tagged: _Tagged) -> None:
    parts = [tagged.value]
    if ";" in tagged.value:  # some exporters put every author on one line
        parts = [p.strip() for p in tagged.value.split(";") if p.strip()]
        build.say(
            warning,
            "ris.names-on-one-line",
            f"{tagged.tag} holds {len(parts)} names separated by ';'; split into one name each",
            tagged.line,
        )
    people = build.entry.names.setdefault(rule.target, [])
    for part in parts:
        person = names.parse_ris_name(part)
        if person == Name():
            build.say(warning, "ris.bad-name", f"{tagged.tag} {part!r} holds no name", tagged.line)
            continue
        people.append(person)


def _take_eprint(build: _Build, tagged: _Tagged) -> None:
    fields = build.entry.fields
    if (klass := _ARXIV_CLASS_AN.match(tagged.value)) and "arxiv-class" not in fields:
        fields["arxiv-class"] = klass.group(1)
        return
    arxiv = _ARXIV_AN.match(tagged.value)
    if arxiv and "arxiv" not in fields:
        fields["arxiv"] = arxiv.group(1)
        if arxiv.group(2):
            fields["arxiv-version"] = arxiv.group(2)
        if arxiv.group(3):
            fields["arxiv-class"] = arxiv.group(3)
        return
    other = _EPRINT_AN.match(tagged.value)
    if other and not arxiv and "eprint" not in fields:
        fields["eprinttype"] = other.group(1)
        fields["eprint"] = other.group(2)
        if other.group(3):
            fields["eprintclass"] = other.group(3)
        return
    build.candidates.setdefault("archive_location", []).append(
        (_PRIORITY[id(_AN_LOCATION)], _AN_LOCATION, tagged)
    )


def _take_isxn(build: _Build, tagged: _Tagged) -> None:
    """SN holds an ISSN, an ISBN or (reports, patents) the number: the value's shape decides,
    else the TY (Zotero's rule)."""
    value = tagged.value.strip()
    fields = build.entry.fields
    if _ISSN.match(value.replace(" ", "")):
        target = "ISSN"
    elif _ISBN.match(value):
        target = "ISBN"
    elif build.ty in _NUMBERED_BY_SN:
        target = "number"
    else:
        target = "ISSN" if build.ty in _SERIALS else "ISBN"
    if target not in fields:
        fields[target] = value
        return
    build.keep(tagged)
    build.say(warning, "ris.repeated-tag", f"further SN {value!r} kept as extra", tagged.line)


def _settle_candidates(build: _Build) -> None:
    fields = build.entry.fields
    for target, found in build.candidates.items():
        found.sort(key=lambda item: item[0])
        for _, rule, tagged in found:
            value = tagged.value
            if target not in fields:
                fields[target] = value
                if rule.tag == "M3" and rule.target == "DOI":
                    fields[target] = _DOI.match(tagged.value.strip()).group(1)  # type: ignore[union-attr]
                continue
            if plain(fields[target]) == plain(value):
                continue  # the same value under a synonym (JF and JO both naming the journal)
            if rule.fallback == "note":
                build.notes.append((tagged.line, tagged.value))
                build.say(
                    info,
                    "ris.ab-as-note",
                    "AB beside N2: read as a note, as RIS-1 defined AB",
                    tagged.line,
                )
            elif rule.fallback and rule.fallback not in fields:
                fields[rule.fallback] = value
                build.say(
                    info,
                    "ris.fallback",
                    f"{rule.tag} read as {rule.fallback!r}: {target!r} is already set",
                    tagged.line,
                )
            else:
                build.keep(tagged)
                build.say(
                    warning,
                    "ris.repeated-tag",
                    f"{rule.tag} repeats {target!r} with another value; kept as extra",
                    tagged.line,
                )


def _settle_dates(build: _Build) -> None:
    chosen: dict[str, tuple[Date, _Tagged]] = {}
    ordered = sorted(build.date_seen, key=lambda item: _PRIORITY[id(item[0])])
    for rule, tagged in ordered:
        date, problems = dates.parse_ris_date(tagged.value)
        for problem in problems:
            build.say(warning, "ris.date", f"{tagged.tag}: {problem}", tagged.line)
        held = chosen.get(rule.target)
        if held is None:
            if date != Date():
                chosen[rule.target] = (date, tagged)
            else:
                build.keep(tagged)
            continue
        if _date_agrees(held[0], date):
            continue  # PY repeating DA's year: nothing new
        build.keep(tagged)
        build.say(
            warning,
            "ris.conflicting-date",
            f"{tagged.tag} {tagged.value!r} disagrees with "
            f"{held[1].tag} {held[1].value!r}; kept as extra",
            tagged.line,
        )
    for role, (date, _) in chosen.items():
        build.entry.dates[role] = date


def _date_agrees(held: Date, other: Date) -> bool:
    if other.literal or held.literal:
        return other.literal == held.literal
    pairs = ((held.year, other.year), (held.month, other.month), (held.day, other.day))
    return all(b is None or a == b for a, b in pairs)


def _settle_pages(build: _Build) -> None:
    # RIS values are plain text: `<` and `&` are literal, never markup, so nothing is parsed.
    sp_tag, ep_tag = build.pages.get("SP"), build.pages.get("EP")
    if sp_tag is None and ep_tag is None:
        return
    sp = sp_tag.value if sp_tag else ""
    ep = ep_tag.value if ep_tag else ""
    fields = build.entry.fields
    if build.ty in _PAGE_COUNT_TYS and sp and not ep and not _PAGE_RANGE.match(sp):
        fields["number-of-pages"] = sp
        return
    if sp and ep:
        match = _PAGE_RANGE.match(sp)
        if match and match.group(2) != ep:
            fields["page"] = sp
            assert ep_tag is not None
            build.keep(ep_tag)
            build.say(
                warning,
                "ris.conflicting-pages",
                f"SP {sp!r} is a range and EP {ep!r} disagrees; EP kept as extra",
                ep_tag.line,
            )
            return
        fields["page"] = sp if match else f"{sp}-{ep}"
        return
    fields["page"] = sp or ep


def _settle_lists(build: _Build) -> None:
    fields = build.entry.fields
    if build.keywords:
        if any("," in k for k in build.keywords) and len(build.keywords) > 1:
            build.say(
                info,
                "ris.keyword-comma",
                "a KW holds a comma; keywords are joined with "
                "', ', so it will split there when written",
                0,
            )
        fields["keyword"] = ", ".join(build.keywords)
    if build.urls:
        fields.setdefault("URL", build.urls[0])
        rest = [u for u in build.urls[1:] if u != plain(fields["URL"])]
        if rest:
            fields["links"] = " ".join(rest)
    if build.notes:
        fields["note"] = "\n".join(text for _, text in sorted(build.notes))


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------

_WRITE_RULES: dict[str, tuple[TagRule, ...]] = {}
for _r in RULES:
    if _r.writes:
        _WRITE_RULES[_r.target] = (*_WRITE_RULES.get(_r.target, ()), _r)

# Canonical fields written by special code rather than by the table.
_SPECIAL = frozenset({"arxiv", "arxiv-version", "arxiv-class", "eprint", "eprinttype",
                      "eprintclass", "links", "page", "number-of-pages", "keyword", "note",
                      "ISSN", "ISBN", "URL"})  # fmt: skip


def write(bib: Bibliography, options: WriteOptions | None = None) -> tuple[str, list[Diagnostic]]:
    """Render entries as Zotero writes RIS: CRLF, `TAG  - value`, `ER  - ` then a blank line."""
    options = options or WriteOptions()
    out: list[Diagnostic] = []
    chunks = [_write_entry(entry, options, out) for entry in bib.entries]
    return "".join(chunks), out


def _ty_for(entry: Entry) -> str:
    """The TY to write: the one read, when it still means the entry's type; else the map's."""
    written = entry.source_type.strip().upper()
    from_ris = entry.origin is not None and entry.origin.format == NAME
    if written.startswith("RIS:"):  # carried through CSL-JSON's custom.source-type
        written, from_ris = written[4:], True
    if written in TY_TO_TYPE:
        if TY_TO_TYPE[written] == entry.type or (written == "GEN" and entry.type == "article"):
            return written
    elif from_ris and entry.type == "document" and re.fullmatch(r"[A-Z][A-Z0-9]{1,7}", written):
        return written  # an unknown TY read from RIS goes back as it came
    return TYPE_TO_TY.get(entry.type, DEFAULT_TY)


def _write_entry(entry: Entry, options: WriteOptions, out: list[Diagnostic]) -> str:
    ty = _ty_for(entry)
    lines: list[tuple[str, str]] = []
    unwritten: list[str] = []
    omit = options.omit
    for role, people in entry.names.items():
        if role in omit:
            continue
        rule = _first_write_rule(role, ty)
        if rule is None:
            unwritten.append(role)
            continue
        for person in people:
            if person.others:  # RIS has no "and others": an N1 note says so (read back)
                lines.append(("N1", incomplete_note(role)))
                continue
            lines.append((rule.tag, names.format_ris_name(person)))
    for role, date in entry.dates.items():
        if role in omit:
            continue
        if role == "issued":
            if py := dates.format_ris_py(date):
                lines.append(("PY", py))
            if da := dates.format_ris_da(date):
                lines.append(("DA", da))
            for loss in dates.ris_date_losses(date):
                out.append(warning("ris.date-simplified", loss, **_where(entry)))
        elif (rule := _first_write_rule(role, ty)) is not None:
            if da := dates.format_ris_da(date):
                lines.append((rule.tag, da))
        else:
            unwritten.append(role)
    for name, value in entry.fields.items():
        if name in omit or name in _SPECIAL or not plain(value).strip():
            continue
        rule = _first_write_rule(name, ty)
        if rule is None:
            unwritten.append(name)
            continue
        lines.append((rule.tag, _text_out(value)))
    lines.extend(_special_lines(entry, ty, omit, unwritten))
    for extra in entry.extra:
        if extra.format == NAME and extra.name not in omit:
            lines.append((extra.name, extra.value))
        elif extra.format != NAME:
            unwritten.append(f"{extra.format}:{extra.name}")
    # Extras sit beside the mapped lines of their tag (a repeated TI after the TI); tags with no
    # place in the order follow alphabetically. Stable, so a second round gives the same text.
    if omit:  # `--omit` may name RIS tags as well as canonical fields
        lines = [line for line in lines if line[0] not in omit]
    lines.sort(key=_line_order)
    if unwritten:
        out.append(
            info("ris.not-written", "no RIS tag for: " + ", ".join(unwritten), **_where(entry))
        )
    body = [f"TY  - {ty}"]
    if entry.key:
        body.append(f"ID  - {_one_line(entry.key)}")
    folded_any = False
    for tag, value in lines:
        text, folded = _fold(tag, value)
        folded_any |= folded
        body.append(text)
    if folded_any:
        out.append(
            info(
                "ris.folded",
                "line breaks inside values were folded so that no value can open or close a record",
                **_where(entry),
            )
        )
    body.append("ER  - ")
    return "\r\n".join(body) + "\r\n\r\n"


_ORDER_INDEX = {tag: i for i, tag in enumerate(_WRITE_ORDER)}


def _line_order(line: tuple[str, str]) -> tuple[int, str]:
    index = _ORDER_INDEX.get(line[0])
    return (len(_ORDER_INDEX), line[0]) if index is None else (index, "")


def _first_write_rule(target: str, ty: str) -> TagRule | None:
    return next((r for r in _WRITE_RULES.get(target, ()) if r.applies(ty)), None)


def _special_lines(
    entry: Entry, ty: str, omit: frozenset[str], unwritten: list[str]
) -> list[tuple[str, str]]:
    fields = entry.fields
    lines: list[tuple[str, str]] = []

    def get(name: str) -> str:
        return "" if name in omit else plain(fields.get(name, "")).strip()

    page, count = get("page"), get("number-of-pages")
    if ty in _PAGE_COUNT_TYS and count:
        lines.append(("SP", count))
        if page:
            unwritten.append("page")
    elif page:
        match = _PAGE_RANGE.match(page)
        lines.extend([("SP", match.group(1)), ("EP", match.group(2))] if match else [("SP", page)])
        if count:
            unwritten.append("number-of-pages")
    elif count:
        unwritten.append("number-of-pages")
    issn, isbn = get("ISSN"), get("ISBN")
    first, second = (issn, isbn) if ty in _SERIALS else (isbn, issn)
    lines.extend(("SN", v) for v in (first, second) if v)
    if url := get("URL"):
        lines.append(("UR", url))
    lines.extend(("UR", link) for link in get("links").split())
    if arxiv := get("arxiv"):
        version, klass = get("arxiv-version"), get("arxiv-class")
        value = f"arXiv:{arxiv}" + (f"v{version}" if version else "")
        lines.append(("AN", value + (f" [{klass}]" if klass else "")))
    elif klass := get("arxiv-class"):  # a listing record: the class is known, the id is not
        lines.append(("AN", f"arXiv [{klass}]"))
    eprint, eprinttype = get("eprint"), get("eprinttype")
    if eprint and eprinttype.lower() in EPRINT_TYPES:
        klass = get("eprintclass")
        lines.append(("AN", f"{eprinttype}:{eprint}" + (f" [{klass}]" if klass else "")))
    elif eprint:
        unwritten.extend(n for n in ("eprint", "eprinttype", "eprintclass") if get(n))
    if keywords := get("keyword"):
        lines.extend(("KW", k.strip()) for k in re.split(r"[,;]", keywords) if k.strip())
    if note := get("note"):
        lines.append(("N1", note))
    return lines


# The note that stands for "and others" (RIS has no way to say a name list is incomplete);
# citekit reads it back as the mark, other readers show it as a note.
_INCOMPLETE = re.compile(r"^The (\w[\w-]*) list is incomplete \(and others\)\.$")


def incomplete_note(role: str) -> str:
    return f"The {role} list is incomplete (and others)."


def incomplete_role(note: str) -> str | None:
    match = _INCOMPLETE.match(note.strip())
    return match.group(1) if match else None


def _text_out(value: Text) -> str:
    return value if isinstance(value, str) else markup.to_unicode(value)


def _one_line(value: str) -> str:
    return _VALUE_BREAK.sub(" ", value).strip()


def _fold(tag: str, value: str) -> tuple[str, bool]:
    """`TAG  - value`, with any line break made safe.

    In note-like tags (AB, N1) a line break becomes a continuation line, unless that line is
    blank or could pass for a tag line in a reader that trims lines (then it joins with a
    space); in every other tag line breaks become spaces. So no value can open or close a
    record, whatever it holds.
    """
    value = value.strip()
    if not _VALUE_BREAK.search(value):
        return f"{tag}  - {value}", False
    if tag not in _NOTE_TAGS:
        return f"{tag}  - {_one_line(value)}", True
    out: list[str] = []
    for piece in _VALUE_BREAK.split(value):
        piece = piece.strip()
        if not out:
            out.append(piece)
        elif not piece:
            continue
        elif _TAG_LOOKALIKE.match(piece):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return f"{tag}  - " + "\r\n".join(out), True


def _where(entry: Entry) -> dict[str, object]:
    if entry.origin is None:
        return {"key": entry.key}
    return {"key": entry.key, "source": entry.origin.source, "line": entry.origin.line}


# The canonical types this module can read back from its own TY codes (used by tests and docs).
ROUND_TRIP_TYPES = frozenset(
    t for t in CSL_TYPES if TY_TO_TYPE.get(TYPE_TO_TY.get(t, DEFAULT_TY)) == t
)
