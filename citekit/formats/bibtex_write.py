"""BibTeX/BibLaTeX writing: the `bibtex` dialect (journal, year + month macro, address, LaTeX
for non-ASCII) and the `biblatex` dialect (journaltitle, date, location, eprinttype, UTF-8).

Part of the bibtex format. Imports model, diagnostics, options, latex, names, dates and
bibtex_map; never bibtexparser (our output is plain text) nor other formats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import dates, latex, names
from ..diagnostics import Diagnostic, info, warning
from ..model import Bibliography, Comment, Date, DocItem, Entry, Extra, Macro, Preamble, Text, plain
from ..options import WriteOptions
from . import bibtex_map as M

FORMAT = "bibtex"

_UNSAFE_KEY = re.compile(r"[\s,{}%\"#'()=\\]")
_TYPE_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")
_BRACE_TOKEN = re.compile(r"\\[{}]|[{}]")
_PLAIN_BRACE = re.compile(r"(?<!\\)[{}]")
_NEWLINE_AT = re.compile(r"\s*\n\s*(?=@)")  # `@` must never start a line of a value
_PAGE_DASH = re.compile(r"[^\S\n]*[-\u2013]+[^\S\n]*")
_EDTF_LIKE = re.compile(r"(?=(?:.*\d){4})[0-9XYu/~?%.:T+\-]+\Z")
_MASTER = re.compile(r"master|\bm\.?\s?sc?\b|\bm\.?a\.|diplom|magister", re.IGNORECASE)

# biblatex fields that other formats' extras may be written to (a legal, meaningful home)
_LEGAL_EXTRA = frozenset(
    """addendum howpublished organization subtitle titleaddon maintitle mainsubtitle
    booksubtitle booktitleaddon issuetitle issuesubtitle eid entrysubtype library
    shorthand""".split()
)


def written_type(entry: Entry, dialect: str) -> str:
    """The entry type to write: the type as read when it still fits, else the back-map."""
    bibtex = dialect == "bibtex"
    allowed = M.BIBTEX_TYPES if bibtex else M.BIBLATEX_TYPES
    st = entry.source_type
    from_bibtex = entry.origin is None or entry.origin.format == FORMAT
    if st and from_bibtex:
        known = M.READ_TYPES.get(st)
        if known == entry.type and st in allowed:
            return st
        if known is None and not bibtex and entry.type == "document" and _TYPE_NAME.match(st):
            return st  # a type we do not know, kept for biber (classic BibTeX gets @misc)
    if entry.type == "chapter":
        return "incollection" if entry.names.get("editor") else "inbook"
    if entry.type == "thesis":
        if not bibtex:
            return "thesis"
        return "mastersthesis" if _MASTER.search(entry.get("genre")) else "phdthesis"
    pair = M.WRITE_TYPES.get(entry.type, ("misc", "misc"))
    return pair[0] if bibtex else pair[1]


def safe_key(key: str) -> str:
    """A key bibtex and biber accept: characters that would end or break it become `_`."""
    return _UNSAFE_KEY.sub("_", key)


def balance(body: str) -> tuple[str, bool]:
    """`body` made safe inside `{...}`; (text, whether it had to change).

    BibTeX counts escaped braces too, bibtexparser (our own reader) does not; the value must
    pair up for both, so it can never close its field early nor swallow the next one. An
    unmatched brace becomes `\\textbraceleft{}`/`\\textbraceright{}` (so does every escaped brace
    when escaped ones alone do not pair up), and a trailing backslash gets a space so it
    cannot escape the closing brace. No character is lost.
    """
    changed = False
    if body.endswith("\\"):
        # even `\\` before the closing brace fools bibtexparser's escape test
        body, changed = body + " ", True
    if "{" not in body and "}" not in body:
        return body, changed
    fixed, bad = _pair_up(body, _BRACE_TOKEN)
    if _pair_up(fixed, _PLAIN_BRACE)[1]:
        fixed = fixed.replace("\\{", "\\textbraceleft{}").replace("\\}", "\\textbraceright{}")
        fixed, bad = _pair_up(fixed, _BRACE_TOKEN)[0], True
    return fixed, changed or bad


def _pair_up(body: str, tokens: re.Pattern[str]) -> tuple[str, bool]:
    """Replace the braces (as `tokens` finds them) that have no partner."""
    opens: list[tuple[int, int]] = []
    bad: list[tuple[int, int, str]] = []
    for m in tokens.finditer(body):
        if m.group()[-1] == "{":
            opens.append((m.start(), m.end()))
        elif opens:
            opens.pop()
        else:
            bad.append((m.start(), m.end(), "\\textbraceright{}"))
    bad.extend((s, e, "\\textbraceleft{}") for s, e in opens)
    if not bad:
        return body, False
    pieces: list[str] = []
    last = 0
    for start, end, replacement in sorted(bad):
        pieces.append(body[last:start])
        pieces.append(replacement)
        last = end
    pieces.append(body[last:])
    return "".join(pieces), True


@dataclass(slots=True)
class _Field:
    name: str
    value: str
    bare: bool = False  # written without braces (month macros)
    canonical: str = ""


@dataclass(slots=True)
class _EntryWriter:
    entry: Entry
    options: WriteOptions
    diagnostics: list[Diagnostic]
    fields: list[_Field] = field(default_factory=list)

    @property
    def from_bibtex(self) -> bool:
        return self.entry.origin is not None and self.entry.origin.format == FORMAT

    @property
    def bibtex(self) -> bool:
        return self.options.dialect == "bibtex"

    def where(self) -> dict[str, object]:
        origin = self.entry.origin
        return {"source": origin.source if origin else "", "line": origin.line if origin else None,
                "key": self.entry.key}  # fmt: skip

    def omitted(self, *names: str) -> bool:
        omit = self.options.omit
        return bool(omit) and any(n in omit or n.lower() in omit for n in names if n)

    def add(self, name: str, value: str, canonical: str = "", *, bare: bool = False) -> None:
        if self.omitted(name, canonical):
            return
        if not bare:
            value, changed = balance(_NEWLINE_AT.sub(" ", value))
            if changed:
                self.diagnostics.append(warning(
                    "bibtex.unbalanced-braces",
                    f"field {name}: unmatched braces written as \\textbraceleft/right",
                    **self.where()))  # fmt: skip
        self.fields.append(_Field(name, value, bare, canonical))

    def not_written(self, what: str, etype: str) -> None:
        if self.omitted(what.rsplit(" ", 1)[-1]):
            return
        where = f" in a @{etype} entry" if etype else ""
        self.diagnostics.append(
            info(
                "bibtex.field-not-written",
                f"{what} has no field bibtex or biber accept{where}; not written",
                **self.where(),
            )
        )

    def encode(self, name: str, value: Text) -> str:
        body, problems = latex.encode(value, ascii=self.bibtex)
        for problem in problems:
            code, severity = latex.classify_problem(problem)
            make = info if severity == "info" else warning
            self.diagnostics.append(make(code, f"field {name}: {problem}", **self.where()))
        return body


def _extra_names(entry: Entry) -> set[str]:
    return {x.name.lower() for x in entry.extra if x.format == FORMAT}


def _target(rule: M.FieldRule, dialect: str, taken: set[str]) -> str:
    """The field a rule writes to: the dialect's choice, unless a kept extra field of a higher
    reading priority (or the same name) would then win on reading back."""
    preferred = rule.bibtex if dialect == "bibtex" else rule.biblatex
    clashing = taken.intersection(rule.read)
    if not clashing:
        return preferred
    rank = rule.read.index(preferred) if preferred in rule.read else len(rule.read)
    if all(rule.read.index(name) > rank for name in clashing):
        return preferred
    for name in rule.read:
        if name not in taken:
            return name
    return preferred  # every candidate is also an extra: written twice, as it was read


def _is_default_genre(entry: Entry, etype: str) -> bool:
    genre = entry.get("genre")
    default = M.THESIS_GENRES.get(etype)
    return default is not None and genre.lower() == default.lower()


def _write_fields(w: _EntryWriter, etype: str, protect: bool) -> set[str]:
    entry, dialect = w.entry, w.options.dialect
    taken = _extra_names(entry)
    done: set[str] = set()
    # fields are named for the type the written entry reads back as (a periodical written as
    # @misc in classic BibTeX gets @misc's field names), so a second write is byte-identical
    for rule in M.rules_for(M.READ_TYPES.get(etype, entry.type)):
        value = entry.fields.get(rule.canonical)
        if value is None or rule.canonical in done:
            continue
        done.add(rule.canonical)
        name = _target(rule, dialect, taken)
        if rule.canonical == "genre":
            if _is_default_genre(entry, etype):
                continue
            if not w.bibtex:
                value = M.GENRE_TO_KEY.get(plain(value).lower(), value)
        if rule.kind == "verbatim":
            w.add(name, _verbatim(plain(value), rule.canonical), rule.canonical)
            continue
        if rule.kind == "page" and isinstance(value, str):
            # ranges use BibTeX's `--`; each side is encoded on its own (encode would keep a
            # literal "--" from becoming a dash)
            body = "--".join(w.encode(name, part) for part in _PAGE_DASH.split(value))
        else:
            if protect and rule.canonical in ("title", "title-short"):
                value = latex.protect_case(value, w.options.protect)
            body = w.encode(name, value)
        w.add(name, body, rule.canonical)
    for canonical in entry.fields:
        if canonical in done or canonical in _SPECIAL_FIELDS:
            continue
        w.not_written(f"field {canonical}", etype)
    return done


_SPECIAL_FIELDS = frozenset({"arxiv", "arxiv-version", "arxiv-class", "eprint", "eprinttype",
                             "eprintclass"})  # fmt: skip


def _verbatim(value: str, canonical: str) -> str:
    """DOI and URL are written as they are (never TeX-escaped); braces that do not pair up in a
    URL are percent-encoded, which means the same to every browser."""
    if canonical == "URL" and balance(value)[1]:
        return value.replace("{", "%7B").replace("}", "%7D")
    return value


def _write_names(w: _EntryWriter) -> None:
    for role, people in w.entry.names.items():
        name = M.ROLE_FIELDS.get(role)
        if name is None:
            w.not_written(f"name role {role}", "")
            continue
        body, problems = names.format_bibtex_names_checked(
            people, ascii=w.bibtex, extended=not w.bibtex
        )
        for problem in problems:
            code, severity = latex.classify_problem(problem)
            if code == "latex.problem":
                code, severity = "bibtex.name", "warning"
            make = info if severity == "info" else warning
            w.diagnostics.append(make(code, f"field {name}: {problem}", **w.where()))
        w.add(name, body, role)


def _needs_date_field(d: Date) -> bool:
    """Whether year/month/day lose something of `d` (circa, season, a range with months)."""
    if d.literal:
        return False
    if d.circa or d.season is not None:
        return True
    return d.is_range and any(v is not None for v in (d.month, d.day, d.end_month, d.end_day))


def _write_dates(w: _EntryWriter) -> None:
    for role, d in w.entry.dates.items():
        if role == "issued":
            _write_issued(w, d)
            continue
        name = M.ROLE_DATE_FIELDS.get(role)
        if name is None:
            w.not_written(f"date {role}", "")
            continue
        w.add(name, _date_text(w, name, d, dates.format_biblatex_date(d)), role)


def _date_text(w: _EntryWriter, name: str, d: Date, text: str) -> str:
    """A date as written: a literal read from BibTeX is LaTeX already (`{\\noopsort{a}}1973`)
    and is kept; a literal from another format is plain text and is encoded."""
    if d.literal and not w.from_bibtex:
        return w.encode(name, text)
    return text


def _write_issued(w: _EntryWriter, d: Date) -> None:
    if not w.bibtex and d.literal and _EDTF_LIKE.match(d.literal):
        # an EDTF form we do not model (a season range, 199X): biber reads it, and in `year`
        # it would break biblatex's date handling
        w.add("date", _date_text(w, "date", d, d.literal), "issued")
        return
    if w.bibtex or d.literal or d.year is None:
        if w.bibtex and _needs_date_field(d):
            w.add("date", dates.format_biblatex_date(d), "issued")
        w.add("year", _date_text(w, "year", d, dates.format_bibtex_year(d)), "issued")
        month = dates.bibtex_month_macro(d)
        if month and not d.season:
            w.add("month", month, "issued", bare=True)
            if d.day is not None and not d.is_range:
                w.add("day", str(d.day), "issued")
        return
    w.add("date", dates.format_biblatex_date(d), "issued")


def _write_eprint(w: _EntryWriter) -> None:
    fields = w.entry.fields
    prefix_name = "archivePrefix" if w.bibtex else "eprinttype"
    class_name = "primaryClass" if w.bibtex else "eprintclass"
    arxiv = fields.get("arxiv")
    if arxiv is not None:
        ident = plain(arxiv)
        version = fields.get("arxiv-version")
        if version is not None and plain(version):
            ident += "v" + plain(version)
        w.add("eprint", ident, "arxiv")
        w.add(prefix_name, "arXiv" if w.bibtex else "arxiv", "arxiv")
        if "arxiv-class" in fields:
            w.add(class_name, w.encode(class_name, fields["arxiv-class"]), "arxiv-class")
        return
    if "arxiv-class" in fields:  # a listing record: the class is known, the id not yet
        w.add(prefix_name, "arXiv" if w.bibtex else "arxiv", "arxiv")
        w.add(class_name, w.encode(class_name, fields["arxiv-class"]), "arxiv-class")
        return
    if "eprint" in fields:
        w.add("eprint", plain(fields["eprint"]), "eprint")
    if "eprinttype" in fields:
        w.add(prefix_name, w.encode(prefix_name, fields["eprinttype"]), "eprinttype")
    if "eprintclass" in fields:
        w.add(class_name, w.encode(class_name, fields["eprintclass"]), "eprintclass")


_LIST_SPLIT = re.compile(r"\s*,\s*")


def _links(entry: Entry) -> list[str]:
    """The keys an entry's crossref and xdata fields name (casefolded), in field order."""
    found: list[str] = []
    for extra in entry.extra:
        name = extra.name.lower()
        if extra.format == FORMAT and name in ("crossref", "xdata"):
            found.extend(k.casefold() for k in _LIST_SPLIT.split(extra.value.strip()) if k)
    return found


def cyclic_links(entries: list[Entry]) -> dict[int, set[str]]:
    """For each entry (by index), the crossref/xdata targets that close a loop.

    biber stops on circular inheritance, so the writer leaves these links out (the entries
    already hold what they inherited). A depth-first walk in entry order drops each back edge,
    which breaks every cycle and nothing else; the walk keeps its own stack, so long chains
    cannot exhaust Python's recursion limit.
    """
    index: dict[str, int] = {}
    for i, e in enumerate(entries):
        index.setdefault(e.key.casefold(), i)
        for extra in e.extra:
            if extra.format == FORMAT and extra.name.lower() == "ids":
                for alias in _LIST_SPLIT.split(extra.value.strip()):
                    if alias:
                        index.setdefault(alias.casefold(), i)
    links = [_links(e) for e in entries]
    state = [0] * len(entries)  # 0 new, 1 on the stack, 2 done
    drop: dict[int, set[str]] = {}
    for root in range(len(entries)):
        if state[root] or not links[root]:
            continue
        state[root] = 1
        stack = [(root, iter(links[root]))]
        while stack:
            node, targets = stack[-1]
            for target in targets:
                j = index.get(target)
                if j is None:
                    continue
                if state[j] == 1:
                    drop.setdefault(node, set()).add(target)
                elif state[j] == 0:
                    state[j] = 1
                    stack.append((j, iter(links[j])))
                    break
            else:
                state[node] = 2
                stack.pop()
    return drop


def _write_extras(w: _EntryWriter, keys: frozenset[str], cyclic: set[str]) -> None:
    written = {f.name.lower() for f in w.fields}
    for extra in w.entry.extra:
        if extra.format == FORMAT and cyclic and extra.name.lower() in ("crossref", "xdata"):
            extra = _without_cycles(w, extra, cyclic)
            if not extra.value:
                continue
        if extra.format == FORMAT:
            if w.bibtex and extra.name.lower() == "crossref" and not _target_present(extra, keys):
                # classic BibTeX stops on a crossref to a missing entry ("bad cross reference");
                # the child already holds what it inherited
                w.diagnostics.append(warning(
                    "bibtex.crossref-dropped",
                    f"crossref {extra.value!r} names no entry in the output; not written",
                    **w.where()))  # fmt: skip
                continue
            w.add(extra.name, extra.value)
            continue
        name = extra.name.lower()
        if name in _LEGAL_EXTRA and name not in written:
            w.add(name, w.encode(name, extra.value))
            written.add(name)
        else:
            w.diagnostics.append(info(
                "bibtex.extra-not-written",
                f"{extra.format} field {extra.name} has no BibTeX equivalent; not written",
                **w.where()))  # fmt: skip


def _without_cycles(w: _EntryWriter, extra: Extra, cyclic: set[str]) -> Extra:
    kept = [k for k in _LIST_SPLIT.split(extra.value.strip()) if k and k.casefold() not in cyclic]
    dropped = [k for k in _LIST_SPLIT.split(extra.value.strip()) if k.casefold() in cyclic]
    if dropped:
        w.diagnostics.append(warning(
            "bibtex.crossref-cycle-dropped",
            f"{extra.name} {', '.join(dropped)} closes a loop (biber stops on circular "
            "inheritance); not written", **w.where()))  # fmt: skip
    return Extra(extra.format, extra.name, ", ".join(kept) if dropped else extra.value)


def _target_present(extra: Extra, keys: frozenset[str]) -> bool:
    return extra.value.strip().casefold() in keys


def _render_entry(
    entry: Entry,
    options: WriteOptions,
    diagnostics: list[Diagnostic],
    keys: frozenset[str],
    cyclic: set[str],
) -> str:
    w = _EntryWriter(entry, options, diagnostics)
    etype = written_type(entry, options.dialect)
    protect = entry.origin is None or entry.origin.format != FORMAT
    _write_names(w)
    _write_fields(w, etype, protect)
    _write_dates(w)
    _write_eprint(w)
    subtype = M.SUBTYPE_OF.get(entry.type)
    if subtype and etype == "article" and "entrysubtype" not in _extra_names(entry):
        w.add("entrysubtype", subtype)
    mapped = sorted(
        enumerate(w.fields),
        key=lambda p: (M.FIELD_RANK.get(p[1].name.lower(), len(M.FIELD_RANK)), p[0]),
    )
    count = len(w.fields)
    _write_extras(w, keys, cyclic)
    ordered = [f for _, f in mapped] + w.fields[count:]
    key = safe_key(entry.key)
    if key != entry.key:
        diagnostics.append(warning(
            "bibtex.unsafe-key", f"key {entry.key!r} written as {key!r}: bibtex cannot take "
            "spaces, commas, braces, quotes, #, %, =, parentheses or backslashes in keys",
            **w.where()))  # fmt: skip
    if not key:
        diagnostics.append(warning("bibtex.empty-key", "entry written with an empty key",
                                   **w.where()))  # fmt: skip
    lines = [f"@{etype}{{{key},"]
    for i, f in enumerate(ordered):
        value = f.value if f.bare else "{" + f.value + "}"
        comma = "," if i < len(ordered) - 1 else ""
        lines.append(f"  {f.name} = {value}{comma}")
    lines.append("}")
    return "\n".join(lines)


_EXPLICIT_COMMENT = re.compile(r"\s*@comment\s*[{(]", re.IGNORECASE)


def bibtex_safe_comment(text: str) -> str:
    """Comment text classic BibTeX cannot mistake for an entry.

    BibTeX starts an entry at every `@` outside entries (a `%` does not hide it, and neither
    does `@comment{...}`), so `%@book{x,` or an e-mail address in a comment would be parsed.
    Each such `@` becomes `(at)`; the leading `@comment` of an explicit comment block stays.
    """
    if "@" not in text:
        return text
    m = _EXPLICIT_COMMENT.match(text)
    head, rest = (text[: m.end()], text[m.end() :]) if m else ("", text)
    return head + rest.replace("@", "(at)")


def _render_item(item: DocItem, options: WriteOptions, diagnostics: list[Diagnostic]) -> str:
    if isinstance(item, Preamble):
        return f"@preamble{{{item.value}}}"
    if isinstance(item, Macro):
        return f"@string{{{item.name} = {item.value}}}"
    assert isinstance(item, Comment)
    if options.dialect != "bibtex":
        return item.text
    safe = bibtex_safe_comment(item.text)
    if safe != item.text:
        origin = item.origin
        diagnostics.append(
            warning(
                "bibtex.comment-at-sign",
                "comment holds '@', which classic BibTeX reads as the start of an entry; "
                "written as '(at)'",
                source=origin.source if origin else "",
                line=origin.line if origin else None,
            )
        )
    return safe


def write(bib: Bibliography, options: WriteOptions) -> tuple[str, list[Diagnostic]]:
    """Render `bib` in `options.dialect`; document items keep their place between entries."""
    diagnostics: list[Diagnostic] = []
    blocks: list[str] = []
    items = bib.document
    keys = frozenset(safe_key(e.key).casefold() for e in bib.entries)
    cyclic = cyclic_links(bib.entries)
    next_item = 0
    for index, entry in enumerate(bib.entries):
        while next_item < len(items) and items[next_item].position <= index:
            blocks.append(_render_item(items[next_item], options, diagnostics))
            next_item += 1
        blocks.append(_render_entry(entry, options, diagnostics, keys, cyclic.get(index, set())))
    blocks.extend(_render_item(item, options, diagnostics) for item in items[next_item:])
    if options.rejects_as_comments and bib.rejected:
        blocks.append(_rejected_block(bib, options))
    text = "\n\n".join(blocks)
    return (text + "\n" if text else ""), diagnostics


def _rejected_block(bib: Bibliography, options: WriteOptions) -> str:
    """Rejected records, each line behind `% ` (and with `@` made safe for classic BibTeX)."""
    lines = [f"% citekit: {len(bib.rejected)} record(s) could not be read; their text follows, "
             "commented out"]  # fmt: skip
    for rejected in bib.rejected:
        lines.append(f"% {rejected.source}:{rejected.line}: {rejected.reason}")
        raw = bibtex_safe_comment(rejected.raw) if options.dialect == "bibtex" else rejected.raw
        lines.extend("% " + line for line in raw.splitlines())
    return "\n".join(lines)
