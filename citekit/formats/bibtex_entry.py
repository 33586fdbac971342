"""The per-entry stage of BibTeX reading: a raw entry (fields with macros resolved and
inheritance applied) becomes an `Entry` through the type and field tables, LaTeX decoding, names
and dates. Pure functions of one raw entry, so the stage could run in parallel without changing
output. Part of the bibtex format; imports model, diagnostics, latex, names, dates, bibtex_map.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache

from .. import dates, latex, names
from ..diagnostics import Diagnostic, info, warning
from ..model import Date, Entry, Extra, Name, Origin, Text
from . import bibtex_map as M

FORMAT = "bibtex"

# ---------------------------------------------------------------------------------------------
# Raw entries (what the whole-file passes work on)
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class RawField:
    name: str  # as written
    lname: str
    body: str  # macro-resolved body, LaTeX not decoded
    line: int
    inherited: bool = False


@dataclass(slots=True)
class RawEntry:
    type: str  # lowercased, as written
    key: str
    fields: list[RawField]
    line: int
    raw: str
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def has(self, lname: str) -> bool:
        return any(f.lname == lname for f in self.fields)

    def first(self, lname: str) -> RawField | None:
        for f in self.fields:
            if f.lname == lname:
                return f
        return None


def slot(csl_type: str, lname: str) -> str:
    """What a BibTeX field fills in an entry of `csl_type`: its canonical variable, name role
    or date role (`journal` and `journaltitle` fill the same slot; so do `year` and `date`)."""
    rule = M.read_index(csl_type).get(lname)
    if rule is not None:
        return rule.canonical
    if lname in ("date", "year"):
        return "issued"  # month and day inherit on their own: a child may give only the month
    if lname in ("eprinttype", "archiveprefix"):
        return "eprinttype"
    if lname in ("eprintclass", "primaryclass"):
        return "eprintclass"
    return M.NAME_FIELDS.get(lname) or M.DATE_FIELDS.get(lname) or lname


# ---------------------------------------------------------------------------------------------
# Per-entry conversion (pure: depends only on the raw entry, so it could run in parallel)
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def _decode(body: str) -> latex.Decoded:
    return latex.decode(body)


_BLANKS = re.compile(r"\s+")
_GRANULAR_XDATA = re.compile(r"(?:^|\band\s+)xdata\s*=", re.IGNORECASE)
_DASHES = re.compile(r"[^\S\n]*[-\u2013\u2014\u2212]+[^\S\n]*")
_ARXIV_VERSION = re.compile(r"^(.+?)v(\d+)$")
_ARXIV_PREFIX = re.compile(r"^arxiv:\s*", re.IGNORECASE)


Where = tuple[str, int, str]  # source, line, key: made into keywords only when reporting


def _at(where: Where) -> dict[str, object]:
    return {"source": where[0], "line": where[1], "key": where[2]}


@cache
def _field_kinds(csl_type: str) -> dict[str, tuple[str, str, int]]:
    """lowercase BibTeX field -> (kind, target, priority) for entries of `csl_type`; a field
    that is not here is an extra. Built once per type so the per-field work is one lookup."""
    kinds: dict[str, tuple[str, str, int]] = {}
    for name, role in M.DATE_FIELDS.items():
        kinds[name] = ("date", role, 0)
    for name, role in M.NAME_FIELDS.items():
        kinds[name] = ("name", role, 0)
    for rule_name, rule in M.read_index(csl_type).items():
        kinds[rule_name] = ("rule", rule.canonical, rule.read.index(rule_name))
    for name in M.ISSUED_FIELDS:
        kinds[name] = ("issued", "issued", 0)
    for name in M.EPRINT_FIELDS:
        kinds[name] = ("eprint", name, 0)
    return kinds


def _problem_diagnostic(problem: str, where: Where, field_name: str) -> Diagnostic:
    """latex.py names the code and severity (`latex.unknown-command` warning,
    `latex.math-outside-math` info, ...); we add the field and the place."""
    code, severity = latex.classify_problem(problem)
    make = info if severity == "info" else warning
    return make(code, f"field {field_name}: {problem}", **_at(where))


@dataclass(slots=True)
class _Build:
    fields: dict[str, Text] = field(default_factory=dict)
    names: dict[str, list[Name]] = field(default_factory=dict)
    dates: dict[str, Date] = field(default_factory=dict)
    used: set[int] = field(default_factory=set)  # indexes of raw fields consumed
    diagnostics: list[Diagnostic] = field(default_factory=list)


# Types that an arXiv eprint turns into CSL's `article` (a preprint), as the writer writes one.
_PREPRINT_CONTAINERS = frozenset({"document", "webpage"})


def convert_entry(raw: RawEntry, source: str) -> tuple[Entry, list[Diagnostic]]:
    """One raw entry -> `Entry`: type and field maps, LaTeX decoding, names, dates, extras."""
    csl_type = M.READ_TYPES.get(raw.type)
    build = _Build()
    subtype = _article_subtype(raw, csl_type, build)
    if subtype:
        csl_type = subtype
    if csl_type is None:
        csl_type = "document"
        build.diagnostics.append(
            warning(
                "bibtex.unknown-type",
                f"entry type @{raw.type} is unknown; read as a document "
                "(the type is kept for BibTeX output)",
                source=source,
                line=raw.line,
                key=raw.key,
            )
        )
    index = M.read_index(csl_type)
    kinds = _field_kinds(csl_type)
    candidates: dict[str, list[tuple[int, int]]] = {}  # canonical -> (priority, field index)
    issued: dict[str, int] = {}
    eprint: dict[str, int] = {}
    for i, f in enumerate(raw.fields):
        found = kinds.get(f.lname)
        if found is None:
            continue  # an extra
        kind, target, priority = found
        if kind == "rule":
            candidates.setdefault(target, []).append((priority, i))
        elif kind == "name":
            if _GRANULAR_XDATA.search(f.body):
                # biber resolves `xdata=key-field-n` itself; we keep the reference as written
                build.diagnostics.append(info(
                    "bibtex.granular-xdata",
                    f"field {f.name}: xdata reference kept as an extra field, not read as names",
                    **_at((source, f.line, raw.key))))  # fmt: skip
            elif target not in build.names:
                build.names[target] = _names(f, (source, f.line, raw.key), build)
                build.used.add(i)
        elif kind == "issued":
            issued.setdefault(f.lname, i)
        elif kind == "eprint":
            eprint.setdefault(f.lname, i)
        elif target not in build.dates:  # date
            d = _date((source, f.line, raw.key), build, date=f.body)
            if d is not None:
                build.dates[target] = d
                build.used.add(i)
    if issued:
        _issued(raw, issued, source, build)
    if eprint:
        _eprint(raw, eprint, build)
    for canonical, fields_found in candidates.items():
        _priority, i = min(fields_found)
        f = raw.fields[i]
        rule = index[f.lname]
        build.fields[canonical] = _text(f, rule.kind, (source, f.line, raw.key), build)
        build.used.add(i)
    _thesis_genre(raw.type, csl_type, build)
    if csl_type in _PREPRINT_CONTAINERS and ("arxiv" in build.fields
                                             or "arxiv-class" in build.fields):  # fmt: skip
        csl_type = "article"  # @misc/@online for an arXiv record: a preprint (docs/mapping.md)
    fields = {k: build.fields[k] for k in _field_order(build.fields)}
    extra = [Extra(FORMAT, f.name, f.body) for i, f in enumerate(raw.fields)
             if i not in build.used]  # fmt: skip
    entry = Entry(
        type=csl_type,
        key=raw.key,
        original_key=raw.key,
        source_type=raw.type,
        fields=fields,
        names=build.names,
        dates=build.dates,
        extra=extra,
        origin=Origin(source, raw.line, FORMAT, raw.raw),
    )
    return entry, raw.diagnostics + build.diagnostics


_CANONICAL_RANK: dict[str, int] = {}
for _i, _r in enumerate(M.FIELD_RULES):
    _CANONICAL_RANK.setdefault(_r.canonical, _i)


def _field_order(fields: dict[str, Text]) -> list[str]:
    """Canonical fields in a fixed order, so field order in the file never changes the model."""
    return sorted(fields, key=lambda k: (_CANONICAL_RANK.get(k, len(_CANONICAL_RANK)), k))


def _nfc(body: str) -> str:
    """Composed Unicode, as LaTeX accents decode to: `e` + U+0301 and `\\'e` read the same."""
    return (
        body
        if body.isascii() or unicodedata.is_normalized("NFC", body)
        else (unicodedata.normalize("NFC", body))
    )


def _text(f: RawField, kind: str, where: Where, build: _Build) -> Text:
    body = f.body
    if kind == "verbatim":
        return body
    if kind == "page":
        body = _DASHES.sub("-", body.strip())
    decoded = _decode(_nfc(body))
    for problem in decoded.problems:
        build.diagnostics.append(_problem_diagnostic(problem, where, f.name))
    return decoded.text


def _names(f: RawField, where: Where, build: _Build) -> list[Name]:
    # BibTeX reads any run of blanks in a name list as one space (line breaks included)
    parsed, problems = names.parse_bibtex_names(_nfc(_BLANKS.sub(" ", f.body.strip())))
    for problem in problems:
        build.diagnostics.append(warning("bibtex.name", f"field {f.name}: {problem}", **_at(where)))
    return parsed


def _date(where: Where, build: _Build, **parts: str | None) -> Date | None:
    parsed, problems = dates.parse_bibtex_date(**parts)
    for problem in problems:
        build.diagnostics.append(warning("bibtex.date", problem, **_at(where)))
    return parsed


def _issued(raw: RawEntry, found: dict[str, int], source: str, build: _Build) -> None:
    parts = {name: raw.fields[i].body for name, i in found.items()}
    line = raw.fields[min(found.values())].line
    d = _date((source, line, raw.key), build, **parts)
    if d is not None:
        build.dates["issued"] = d
    # every part was read (dates.py reports the ones it ignored)
    build.used.update(found.values())


def _eprint(raw: RawEntry, found: dict[str, int], build: _Build) -> None:
    def body(name: str) -> str | None:
        i = found.get(name)
        return None if i is None else raw.fields[i].body.strip()

    archive, prefix = body("eprinttype"), body("archiveprefix")
    eclass, pclass = body("eprintclass"), body("primaryclass")
    ident = body("eprint")
    use = {found[n] for n in ("eprint", "eprinttype", "eprintclass") if n in found}
    # archivePrefix/primaryClass are aliases; one that disagrees with its twin stays an extra
    if prefix is not None and (archive is None or prefix.lower() == archive.lower()):
        use.add(found["archiveprefix"])
    if pclass is not None and (eclass is None or pclass == eclass):
        use.add(found["primaryclass"])
    kind = archive if archive is not None else prefix
    cls = eclass if eclass is not None else pclass
    if kind is not None and kind.lower() == "arxiv" and (ident or (cls and not ident)):
        if ident:
            ident = _ARXIV_PREFIX.sub("", ident)
            m = _ARXIV_VERSION.match(ident)
            if m:
                build.fields["arxiv"] = m.group(1)
                build.fields["arxiv-version"] = m.group(2)
            else:
                build.fields["arxiv"] = ident
        if cls:
            build.fields["arxiv-class"] = latex.decode_plain(cls)
    else:
        if ident is not None:
            build.fields["eprint"] = ident
        if kind is not None:
            build.fields["eprinttype"] = latex.decode_plain(kind)
        if cls is not None:
            build.fields["eprintclass"] = latex.decode_plain(cls)
    build.used.update(use)


def _article_subtype(raw: RawEntry, csl_type: str | None, build: _Build) -> str | None:
    """`@article` with `entrysubtype = {magazine}` or `{newspaper}` (biblatex, pandoc)."""
    if csl_type != "article-journal":
        return None
    for i, f in enumerate(raw.fields):
        if f.lname == "entrysubtype":
            found = M.ARTICLE_SUBTYPES.get(f.body.strip().lower())
            if found:
                build.used.add(i)
            return found
    return None


def _thesis_genre(source_type: str, csl_type: str, build: _Build) -> None:
    """Theses: the entry type implies the degree; biblatex's `type` keys become their text."""
    genre = build.fields.get("genre")
    if isinstance(genre, str) and genre.lower() in M.GENRE_KEYS:
        build.fields["genre"] = M.GENRE_KEYS[genre.lower()]
    elif genre is None and csl_type == "thesis" and source_type in M.THESIS_GENRES:
        build.fields["genre"] = M.THESIS_GENRES[source_type]
