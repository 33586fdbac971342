"""What the consumer tests tolerate, decided in one place.

Every consumer error fails a test. A warning is tolerated only when it is on an allow-list below
AND a cross-check against citekit's own model shows the warning is about the input, not about
citekit: "empty journal in k" passes only if the model of entry k has no container title either,
so a field citekit dropped or mis-mapped is still caught. Everything not listed here fails.
Imports the model only to read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from citekit.model import Bibliography, Comment, Entry, Preamble

from .harness import ConsumerResult, Message

# ---------------------------------------------------------------------------------------------
# Does the model hold a value for the field a consumer says is empty?
# ---------------------------------------------------------------------------------------------


def _names(role: str) -> Callable[[Entry], bool]:
    return lambda e: any(not n.others for n in e.names.get(role, []))


def _fields(*names: str) -> Callable[[Entry], bool]:
    return lambda e: any(e.get(n).strip() for n in names)


def _year(e: Entry) -> bool:
    issued = e.dates.get("issued")
    return issued is not None and issued.year is not None


# BibTeX / biblatex field name -> "the model has this information". A field missing here makes
# any "empty X" warning about it fail: add it only with the canonical field it maps to.
FIELD_IN_MODEL: dict[str, Callable[[Entry], bool]] = {
    "author": _names("author"),
    "editor": _names("editor"),
    "title": _fields("title"),
    "journal": _fields("container-title"),
    "journaltitle": _fields("container-title"),
    "booktitle": _fields("container-title"),
    "year": _year,
    "date": _year,
    "publisher": _fields("publisher"),
    "school": _fields("publisher"),
    "institution": _fields("publisher"),
    "chapter": _fields("chapter-number"),
    "pages": _fields("page"),
    "volume": _fields("volume"),
    "number": _fields("number", "issue", "collection-number"),
    "url": _fields("URL"),
    "note": _fields("note"),
    "eprint": _fields("arxiv", "eprint"),
    "eprinttype": _fields("arxiv", "eprinttype"),
    "eprintclass": _fields("arxiv-class", "eprintclass"),
    "doi": _fields("DOI"),
    "issn": _fields("ISSN"),
    "isbn": _fields("ISBN"),
    "series": _fields("collection-title"),
    "edition": _fields("edition"),
    "address": _fields("publisher-place"),
    "location": _fields("publisher-place"),
    "issue": _fields("issue"),
    "type": _fields("genre"),
    "abstract": _fields("abstract"),
    "keywords": _fields("keyword"),
    "language": _fields("language"),
    "shortjournal": _fields("container-title-short"),
    "shorttitle": _fields("title-short"),
    "pagetotal": _fields("number-of-pages"),
    "translator": _names("translator"),
    "bookauthor": _names("container-author"),
    "volumes": _fields("number-of-volumes"),
    "pmid": _fields("PMID"),
    "pmcid": _fields("PMCID"),
}

_DATE_PART = re.compile(r"(event|orig|url|)(?:end)?(?:year|month|day|season|hour|minute|second)")

# biblatex date fields -> the model's date roles
DATE_FIELD_ROLE: dict[str, str] = {"date": "issued", "urldate": "accessed",
                                   "origdate": "original-date", "eventdate": "event-date"}


def _split_fields(detail: str) -> list[str]:
    """'author and editor' / 'date, year' / 'author, editor, or key' -> field names."""
    words = detail.replace(",", " ").replace(" and ", " ").replace(" or ", " ").split()
    return [w.strip("'").lower() for w in words if w not in ("and", "or")]


def _all_absent(detail: str, entry: Entry) -> bool:
    names = [n for n in _split_fields(detail) if n != "key"]  # `key` is never in the model
    return bool(names) and all(n in FIELD_IN_MODEL and not FIELD_IN_MODEL[n](entry)
                               for n in names)  # fmt: skip


def _all_present(detail: str, entry: Entry) -> bool:
    names = _split_fields(detail)
    return bool(names) and all(n in FIELD_IN_MODEL and FIELD_IN_MODEL[n](entry) for n in names)


def _is_extra(detail: str, entry: Entry) -> bool:
    """The field came in unknown and is written back as it was (never dropped): allowed."""
    return any(x.name.lower() == detail.lower() for x in entry.extra)


def _carried(detail: str, entry: Entry) -> bool:
    """The field holds data the model has (from the input): writing it is not citekit's choice
    to make up, even where biblatex's data model does not expect it for the type."""
    name = detail.lower()
    if name in ("year", "month") and _literal_issued(entry):
        return True
    if (part := _DATE_PART.fullmatch(name)) and part.group(1):  # eventdate -> eventday, ...
        role = DATE_FIELD_ROLE.get(f"{part.group(1)}date", "")
        return role in entry.dates
    return _is_extra(name, entry) or _in_bibtex_source(name, entry) or (
        name in FIELD_IN_MODEL and FIELD_IN_MODEL[name](entry))


def _in_bibtex_source(name: str, entry: Entry) -> bool:
    """The BibTeX record citekit read had a field of this name (its raw text says so)."""
    origin = entry.origin
    if origin is None or origin.format != "bibtex" or not origin.raw:
        return False
    return re.search(rf"[,{{(]\s*{re.escape(name)}\s*=", origin.raw, re.I) is not None


def _literal_issued(entry: Entry) -> bool:
    date = entry.dates.get("issued")
    return date is not None and date.year is None and bool(date.literal)


def _literal_date(detail: str, entry: Entry) -> bool:
    """biber could not read a date that the model also holds only as unparsed text: the input's
    own text, kept verbatim rather than guessed at."""
    date = entry.dates.get(DATE_FIELD_ROLE.get(detail.lower(), ""))
    return date is not None and date.year is None and bool(date.literal)


def _unusual_year(entry: Entry) -> bool:
    """A date classic BibTeX's `year` cannot hold as one integer (range, BCE, unparsed)."""
    date = entry.dates.get("issued")
    return date is not None and (date.year is None or date.year < 0 or date.end_year is not None)


# ---------------------------------------------------------------------------------------------
# The allow-lists
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may consult: the entries by written key, every key the input had, and the
    dialect the text was written in (`bibtex` or `biblatex`)."""

    entries: dict[str, Entry]
    input_keys: frozenset[str]  # keys and original keys, lower-cased
    dialect: str = ""
    free_text: bool = False  # the bibliography keeps free text between entries
    preamble: bool = False  # the bibliography keeps @preamble items

    def entry(self, key: str) -> Entry | None:
        return self.entries.get(key) or self.entries.get(key.lower())


Rule = Callable[[Message, Entry | None, Context], bool]


def _with_entry(check: Callable[[str, Entry], bool]) -> Rule:
    return lambda m, e, _ctx: e is not None and check(m.detail, e)


def _dangling_in_input(m: Message, _e: Entry | None, ctx: Context) -> bool:
    # A crossref to a key the input never had is the input's own dangling reference, kept as
    # written. A target that existed (even under a key citekit renamed) must be found.
    return m.detail.lower() not in ctx.input_keys


def _both_carried(detail: str, entry: Entry) -> bool:
    # "can't use both author and editor": each field holds the input's data (in the model, or
    # kept as written, such as a granular `xdata=` reference)
    names = _split_fields(detail)
    return bool(names) and all(_carried(n, entry) for n in names)


def _nested_in_input(m: Message, _e: Entry | None, ctx: Context) -> bool:
    # the parent bibtex names had a crossref of its own in the input: the nesting is the input's
    parent = ctx.entry(m.detail)
    return parent is not None and any(x.name.lower() == "crossref" for x in parent.extra)


def _xdata_reference_as_written(detail: str, entry: Entry) -> bool:
    # a granular `xdata=key-field` reference biber cannot resolve, written back as the input had
    # it (kept as an extra field, or read as the text of a canonical field)
    values = [x.value for x in entry.extra if x.name.lower() == detail.lower()]
    values += [entry.get(name) for name in entry.fields]
    return any(v.strip().lower().startswith("xdata=") for v in values)


# bibtex (plain, plainnat): the style's checks for required fields, and nothing else.
BIBTEX_WARNINGS: dict[str, Rule] = {
    "empty-field": _with_entry(_all_absent),
    "both-fields": _with_entry(_both_carried),  # "can't use both author and editor fields"
    "nested-crossref": _nested_in_input,
    "number-without-series": _with_entry(lambda _d, e: not e.get("collection-title")),
    "number-without-volume": _with_entry(lambda _d, e: not e.get("volume")),
    # "to sort, need author, editor, or key": the persons the style sorts by are all absent
    "sort-key-missing": _with_entry(
        lambda d, e: _all_absent(d.replace("organization", "").replace("key", ""), e)),
    "missing-entry": _dangling_in_input,
}  # fmt: skip

# biber (in a biblatex compile and in --tool --validate-datamodel)
BIBER_WARNINGS: dict[str, Rule] = {
    "missing-mandatory": _with_entry(_all_absent),
    # a field biblatex does not know: only one the input had under that name
    # (or a canonical field with no biblatex home that the input had, such as CSL's PMID)
    "invalid-field": _with_entry(lambda d, e: _is_extra(d, e) or _in_bibtex_source(d, e)
                                 or (d.lower() in ("pmid", "pmcid") and _carried(d, e))),
    "xdata-no-source": _with_entry(_xdata_reference_as_written),
    # biber ignores crossref in @set entries and entryset in their members; the input had the
    # field, written back as read
    "set-field": _with_entry(lambda d, e: any(x.name.lower() == d.lower() for x in e.extra)),
    "field-not-for-type": _with_entry(_carried),
    "invalid-value": _with_entry(_carried),  # e.g. volume = {IV}: the input's value, unchanged
    "invalid-identifier": _with_entry(_carried),  # an ISBN/ISSN the input had, checksum and all
    "invalid-type": lambda m, e, _c: e is not None and e.source_type.lower() == m.detail.lower(),
    "invalid-date": _with_entry(_literal_date),
    # `year = {1995--1996}` is how the classic dialect writes a range; in either dialect a date
    # the model holds only as the input's unparsed text is written back as that text
    "legacy-date": lambda _m, e, c: e is not None and (
        _literal_issued(e) or (c.dialect == "bibtex" and _unusual_year(e))),
    # free text between entries, kept verbatim (classic BibTeX ignores it; biber calls it junk)
    "junk-text": lambda _m, _e, c: c.free_text,
    "missing-entry": _dangling_in_input,
}

# TeX runs: warnings (fonts, boxes, glyphs a font lacks) are about typesetting, not about the
# .bib, and are not judged. Errors are, with three exceptions. Errors at \begin{document} in a
# biblatex run where the input had an @preamble (see _at_begin_document). And two things the
# spec makes citekit keep and warn about: an unknown LaTeX command from the input is kept
# verbatim (so LaTeX finds it undefined unless the user's document defines it), and in the
# `bibtex` dialect a character with no LaTeX form stays UTF-8 (so pdflatex cannot typeset it).
# Either is tolerated only for a command or character that one of citekit's own warnings names.
TEX_JUDGED_WARNINGS: frozenset[str] = frozenset()
EXCUSED_BY_CITEKIT_WARNING: frozenset[str] = frozenset({"undefined-command", "unicode-char"})


def context_for(bib: Bibliography, full: Bibliography | None = None, dialect: str = "") -> Context:
    """Entries by key for `bib` (as written); input keys from `full` (defaults to `bib`)."""
    entries: dict[str, Entry] = {}
    for entry in bib.entries:
        entries.setdefault(entry.key, entry)
        entries.setdefault(entry.key.lower(), entry)
    keys = {k.lower() for e in (full or bib).entries for k in (e.key, e.original_key) if k}
    free_text = any(isinstance(item, Comment) and not item.text.lstrip().startswith("@")
                    for item in bib.document)  # fmt: skip
    preamble = any(isinstance(item, Preamble) for item in bib.document)
    return Context(entries, frozenset(keys), dialect, free_text, preamble)


def unexpected(result: ConsumerResult, ctx: Context, rules: dict[str, Rule], *,
               citekit_warnings: Iterable[object] = ()) -> list[str]:  # fmt: skip
    """The messages of `result` that the rules do not excuse, rendered for an assertion.

    `citekit_warnings` are citekit's diagnostics for the text (read and write); see
    EXCUSED_BY_CITEKIT_WARNING for what they can excuse."""
    warned = [d.message for d in citekit_warnings if getattr(d, "severity", "") == "warning"]
    problems: list[str] = []
    for m in result.errors:
        if m.code in EXCUSED_BY_CITEKIT_WARNING and m.detail and _named_in(m.detail, warned):
            continue
        if ctx.preamble and result.tool.startswith("biblatex/") and _at_begin_document(m):
            continue
        problems.append(f"error [{m.code}] {m.text}")
    for m in result.warnings:
        if m.code in ("latex-warning", "missing-glyph") and m.code not in TEX_JUDGED_WARNINGS:
            continue
        rule = rules.get(m.code)
        if rule is None or not rule(m, ctx.entry(m.key), ctx):
            problems.append(f"warning [{m.code}] {m.text}")
    return problems


def chars_citekit_warned_about(diagnostics: Iterable[object], text: str) -> set[str]:
    """Non-ASCII characters of `text` that one of citekit's warnings names."""
    messages = [d.message for d in diagnostics if getattr(d, "severity", "") == "warning"]
    return {c for c in set(text) if ord(c) > 127 and any(c in m for m in messages)}


def _at_begin_document(m: Message) -> bool:
    """biblatex runs the .bib's @preamble text at \\begin{document}; an error there comes from
    the input's own preamble, which citekit keeps verbatim (bibtexparser's features.bib needs
    \\makeatletter in a separate @preamble, which only classic BibTeX's .bbl honours). The
    harness proves the test document itself compiles cleanly."""
    return m.text.startswith("./main.tex:") and "\\begin{document}]" in m.text


def _named_in(token: str, messages: list[str]) -> bool:
    """`token` (a command like \\foo, or one character) appears in a message as itself: a
    command not followed by more letters (\\foo is not named by \\foobar)."""
    if token.startswith("\\") and token[1:].isalpha():
        pattern = re.compile(re.escape(token) + r"(?![A-Za-z])")
        return any(pattern.search(msg) for msg in messages)
    return any(token in msg for msg in messages)


# ---------------------------------------------------------------------------------------------
# RIS
# ---------------------------------------------------------------------------------------------

# Tags of the RIS specification (RefMan, 2011), plus SV (EndNote's, which Zotero's RIS translator
# reads), that rispy 0.10 does not map: rispy still reads them (under `unknown_tag`), so nothing
# is lost. Any other tag rispy does not know is not RIS, and fails.
RIS_SPEC_TAGS: frozenset[str] = frozenset(
    """TY A1 A2 A3 A4 AB AD AN AU AV BT C1 C2 C3 C4 C5 C6 C7 C8 CA CN CP CT CY DA DB DO DP ED EP
    ET ID IS J1 J2 JA JF JO KW L1 L2 L3 L4 LA LB LK M1 M2 M3 N1 N2 NV OP PB PP PY RI RN RP SE
    SN SP ST SV T1 T2 T3 TA TI TT U1 U2 U3 U4 U5 UR VL VO Y1 Y2 ER""".split()
)


def _rispy_tags() -> frozenset[str]:
    try:
        from rispy.config import TAG_KEY_MAPPING
    except ImportError:
        return frozenset()
    return frozenset(TAG_KEY_MAPPING)


RIS_TAGS_RISPY_LACKS: frozenset[str] = RIS_SPEC_TAGS - _rispy_tags()


# ---------------------------------------------------------------------------------------------
# citeproc-py
# ---------------------------------------------------------------------------------------------

# Defects of citeproc-py 0.11 on VALID CSL-JSON, matched exactly (exception, function, message).
# A known defect is tolerated only for items that citeproc-js renders without error.
CITEPROC_PY_DEFECTS: dict[str, str] = {
    "AssertionError@process: assert term == 'month'":
        "citeproc-py cannot render a season (date-parts plus `season`) where the style asks "
        "for a numeric month (model.py, DatePart.process; apa.csl triggers it)",
    "AttributeError@process: 'String' object has no attribute 'parts'":
        "citeproc-py lists only some CSL name variables (no director, reviewed-author, ...); "
        "another name variable reaches <names> as a string (citeproc/__init__.py NAMES)",
    "TypeError@render_date_range: 'NoneType' object is not callable":
        "citeproc-py joins a date range with a delimiter it never set when a style renders "
        "only part of the range (model.py render_date_range; ieee.csl triggers it)",
}  # fmt: skip


def citeproc_py_defect(m: Message) -> str | None:
    """Why `m` is a known citeproc-py defect, or None."""
    if m.code != "exception":
        return None
    for signature, reason in CITEPROC_PY_DEFECTS.items():
        where, message = signature.split(": ", 1)
        if m.detail == where and message in m.text:
            return reason
    return None


def csl_variable_names(schema: dict) -> frozenset[str]:
    """Every variable the CSL-JSON schema defines for an item."""
    return frozenset(schema["items"]["properties"])


def unsupported_but_valid(m: Message, variables: frozenset[str]) -> bool:
    """citeproc-py warns about variables it does not know; fine when the schema defines them."""
    if m.code != "unsupported-variable":
        return False
    names = [n.strip() for n in m.detail.split(",") if n.strip()]
    lowered = {v.lower() for v in variables}
    return bool(names) and all(n.replace("_", "-").lower() in lowered for n in names)
