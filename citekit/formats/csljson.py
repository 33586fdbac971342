"""CSL-JSON read and write through one two-way variable table (docs/mapping.md, CSL column).

Reads a single item or an array (CSL 1.0.1/1.0.2, Zotero and citation-js variants); writes
documents that validate against csl-data.json. Fields with no CSL variable go under `custom`.
Imports model, diagnostics, options, markup, names, dates and json; never another format module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from .. import dates, markup, names
from ..diagnostics import Diagnostic, info, warning
from ..diagnostics import error as error_diag
from ..model import (
    CITEKIT_FIELDS,
    CSL_TYPES,
    DATE_ROLES,
    NAME_ROLES,
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

NAME = "csl-json"
SUFFIXES = (".json", ".csl.json", ".csljson")

# ---------------------------------------------------------------------------------------------
# The variable table. One row per CSL variable: canonical field, CSL name, converter pair and
# whether the row writes (alias rows only read). CSL is the canonical vocabulary, so most rows
# are the identity; the converters decide between rich text and verbatim strings.
# ---------------------------------------------------------------------------------------------

Problems = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rule:
    canonical: str
    csl: str
    to_canonical: Callable[[str], tuple[Text, Problems]]
    from_canonical: Callable[[Text], str]
    writes: bool = True


def _rich_in(value: str) -> tuple[Text, Problems]:
    # CSL-JSON has no character entities: citeproc-js and Zotero print "&amp;" as it stands.
    # So a value without a tag is taken as it is, `&` included (the fast path for most values).
    if "<" not in value:
        return value, ()
    return markup.from_csl(value)


def _rich_out(value: Text) -> str:
    # A plain string is written as it is, for the same reason; only markup goes through to_csl.
    return value if isinstance(value, str) else markup.to_csl(value)


def _verbatim_in(value: str) -> tuple[Text, Problems]:
    return value, ()


def _verbatim_out(value: Text) -> str:
    return plain(value)


# Identifiers and links are never markup: an `&` in a URL is not an entity.
_VERBATIM = frozenset(
    """DOI ISBN ISSN PMCID PMID URL call-number archive_location citation-label
    citation-number first-reference-note-number locator year-suffix""".split()
)

# Every CSL 1.0.2 string/number variable in csl-data.json, in the order they are written.
_STRING_VARIABLES: tuple[str, ...] = (
    "title", "title-short", "original-title", "part-title", "volume-title", "volume-title-short",
    "reviewed-title", "reviewed-genre", "container-title", "container-title-short",
    "collection-title", "collection-number", "event-title", "event-place", "volume", "issue",
    "number", "part", "supplement", "printing", "page", "page-first", "number-of-pages",
    "number-of-volumes", "chapter-number", "section", "edition", "version", "publisher",
    "publisher-place", "original-publisher", "original-publisher-place", "authority", "division",
    "jurisdiction", "genre", "medium", "dimensions", "scale", "status", "language", "license",
    "DOI", "ISBN", "ISSN", "PMCID", "PMID", "URL", "archive", "archive-place",
    "archive_collection", "archive_location", "call-number", "source", "references", "keyword",
    "abstract", "note", "annote", "citation-label", "citation-number",
    "first-reference-note-number", "locator", "year-suffix",
)  # fmt: skip

# Non-standard spellings that Zotero, citation-js and CSL 1.0.1 data use (read only).
_ALIASES: dict[str, str] = {
    "journalAbbreviation": "container-title-short",
    "shortTitle": "title-short",
    "event": "event-title",
    "container-title-abbrev": "container-title-short",
    "part-number": "part",
}

RULES: tuple[Rule, ...] = tuple(
    Rule(v, v, _verbatim_in, _verbatim_out) if v in _VERBATIM else Rule(v, v, _rich_in, _rich_out)
    for v in _STRING_VARIABLES
) + tuple(
    Rule(canon, alias, _rich_in, _rich_out, writes=False) for alias, canon in _ALIASES.items()
)

_READ_RULES: dict[str, Rule] = {rule.csl: rule for rule in RULES}
_WRITE_RULES: dict[str, Rule] = {rule.canonical: rule for rule in RULES if rule.writes}
# `license` is not in csl-data.json's properties; it is written under `custom`.
_NOT_IN_SCHEMA = frozenset({"license"})
_NAME_ROLES = frozenset(NAME_ROLES)
_DATE_ROLES = frozenset(DATE_ROLES)

# Top-level keys of csl-data.json that no rule owns; kept as extras and written back in place.
_SCHEMA_OTHER: dict[str, type | tuple[type, ...]] = {"categories": list}
_STRUCTURAL = frozenset({"id", "type", "citation-key", "custom"})

# Types written by tools that are not CSL 1.0.2 (pandoc's RIS reader, Zotero item types,
# BibTeX names). Anything else unknown becomes `document`, with a warning.
_TYPE_FIXES: dict[str, str] = {
    "motion-picture": "motion_picture", "legal-case": "legal_case",
    "personal-communication": "personal_communication", "musical-score": "musical_score",
    "program": "software", "computer-program": "software", "unpublished": "manuscript",
    "misc": "document", "catalog": "book", "journalarticle": "article-journal",
    "booksection": "chapter", "conferencepaper": "paper-conference", "preprint": "article",
    "magazinearticle": "article-magazine", "newspaperarticle": "article-newspaper",
    "blogpost": "post-weblog", "computerprogram": "software",
    "encyclopediaarticle": "entry-encyclopedia", "dictionaryentry": "entry-dictionary",
    "letter": "personal_communication", "film": "motion_picture", "web-page": "webpage",
    "website": "webpage", "blog-post": "post-weblog",
}  # fmt: skip

# `custom` keys citekit owns: its own fields, the incomplete-name-list flags and the source type.
_INCOMPLETE_SUFFIX = "-incomplete"
_SOURCE_TYPE = "source-type"
_FORMAT_PREFIX = re.compile(r"^(bibtex|biblatex|ris|arxiv-listing|arxiv):(.+)$")


# ---------------------------------------------------------------------------------------------
# Sniffing and counting
# ---------------------------------------------------------------------------------------------

_SNIFF = re.compile(r'^\ufeff?\s*[\[{]\s*(?:[\[{]\s*)?"', re.S)


def sniff(text: str) -> bool:
    """True when the text starts like a JSON object or array of objects with string keys."""
    head = text[:2000]
    return bool(_SNIFF.match(head)) and ('"type"' in head or '"id"' in head)


def count_records(text: str) -> int:
    """Records in a CSL-JSON document, counted without the reader: array items, or 1."""
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError:
        return 1  # the whole document is one rejected record
    return len(data) if isinstance(data, list) else 1


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def read(text: str, *, source: str = "<string>") -> Bibliography:
    """Read a CSL-JSON document: one item object or an array of items.

    A JSON syntax error rejects the document as one record (with its line); an item that is not
    an object is rejected on its own and the good items are kept.
    """
    bib = Bibliography()
    body = text.lstrip("\ufeff")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        reason = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        bib.rejected.append(Rejected(source, exc.lineno, text, reason, NAME))
        bib.diagnostics.append(
            error_diag("csljson.syntax", reason, source=source, line=exc.lineno, raw=text[:2000])
        )
        return bib
    items: list[tuple[object, int, str]]
    if isinstance(data, dict):
        items = [(data, 1, body)]
    elif isinstance(data, list):
        items = _locate_items(body, data)
    else:
        reason = f"a CSL-JSON document is an object or an array, not {type(data).__name__}"
        bib.rejected.append(Rejected(source, 1, text, reason, NAME))
        bib.diagnostics.append(error_diag("csljson.not-csl", reason, source=source, line=1))
        return bib
    for obj, line, raw in items:
        _read_item(obj, source, line, raw, bib)
    return bib


def _locate_items(body: str, data: list[object]) -> list[tuple[object, int, str]]:
    """Each array item with its 1-based line and raw text, found by decoding item by item."""
    decoder = json.JSONDecoder()
    located: list[tuple[object, int, str]] = []
    pos = body.index("[") + 1
    line, counted = 1, 0  # lines are counted incrementally: one pass over the text in all
    for obj in data:
        while body[pos] in " \t\r\n,":
            pos += 1
        _, end = decoder.raw_decode(body, pos)
        line += body.count("\n", counted, pos)
        counted = pos
        located.append((obj, line, body[pos:end]))
        pos = end
    return located


@dataclass(slots=True)
class _ItemReader:
    """State while one item is read: where it is, and what was said about it."""

    source: str
    line: int
    key: str
    diagnostics: list[Diagnostic]

    def say(self, make: Callable[..., Diagnostic], code: str, message: str) -> None:
        self.diagnostics.append(
            make(code, message, source=self.source, line=self.line, key=self.key)
        )


def _read_item(obj: object, source: str, line: int, raw: str, bib: Bibliography) -> None:
    if not isinstance(obj, dict):
        reason = f"array item is {type(obj).__name__}, not an object"
        bib.rejected.append(Rejected(source, line, raw, reason, NAME))
        bib.diagnostics.append(
            error_diag("csljson.not-an-object", reason, source=source, line=line, raw=raw)
        )
        return
    key, extra_id = _read_key(obj)
    r = _ItemReader(source, line, key, bib.diagnostics)
    if not key:
        r.say(warning, "csljson.missing-id", "item has no id; a key will be generated")
    ctype, source_type = _read_type(obj.get("type"), r)
    entry = Entry(type=ctype, key=key, original_key=key, source_type=source_type)
    entry.origin = Origin(source, line, NAME, raw)
    if extra_id is not None:
        entry.extra.append(Extra(NAME, "id", json.dumps(extra_id, ensure_ascii=False)))
        r.say(
            info,
            "csljson.id-differs",
            f"id {extra_id!r} differs from citation-key {key!r}; the key is used, id kept",
        )
    for name, value in obj.items():
        if name in _STRUCTURAL:
            continue
        _read_variable(entry, name, value, r)
    custom = obj.get("custom")
    if custom is not None:
        _read_custom(entry, custom, r)
    bib.entries.append(entry)


def _read_key(obj: dict[str, object]) -> tuple[str, object | None]:
    """The citation key (`citation-key` wins over `id`) and an `id` to keep when they differ."""
    raw_id = obj.get("id")
    ident = "" if raw_id is None else str(raw_id)
    ckey = obj.get("citation-key")
    if isinstance(ckey, str) and ckey:
        return ckey, (raw_id if ident and ident != ckey else None)
    return ident, None


def _read_type(value: object, r: _ItemReader) -> tuple[str, str]:
    if not isinstance(value, str) or not value.strip():
        r.say(warning, "csljson.missing-type", "item has no type; read as document")
        return "document", ""
    written = value
    lowered = value.strip().lower()
    if lowered in CSL_TYPES:
        if lowered != value:
            r.say(info, "csljson.type-case", f"type {value!r} read as {lowered!r}")
        return lowered, written
    squeezed = lowered.replace(" ", "").replace("_", "-") if lowered not in _TYPE_FIXES else lowered
    fixed = _TYPE_FIXES.get(lowered) or _TYPE_FIXES.get(squeezed)
    if fixed is None and squeezed.replace("-", "_") in CSL_TYPES:
        fixed = squeezed.replace("-", "_")
    if fixed is not None:
        r.say(warning, "csljson.nonstandard-type", f"type {value!r} is not CSL; read as {fixed!r}")
        return fixed, written
    r.say(warning, "csljson.unknown-type", f"unknown type {value!r}; read as 'document'")
    return "document", written


def _read_variable(entry: Entry, name: str, value: object, r: _ItemReader) -> None:
    if name in _NAME_ROLES:
        _read_names(entry, name, value, r)
    elif name in _DATE_ROLES:
        _read_date(entry, name, value, r)
    elif name in _READ_RULES:
        _read_field(entry, _READ_RULES[name], value, r)
    elif name in _SCHEMA_OTHER or name.startswith("_"):
        # a schema variable with no canonical field, or a tool's private key (citation-js
        # writes `_graph`, `_label`): kept as it is, nothing to warn about
        entry.extra.append(Extra(NAME, name, json.dumps(value, ensure_ascii=False)))
    else:
        entry.extra.append(Extra(NAME, name, json.dumps(value, ensure_ascii=False)))
        r.say(
            warning,
            "csljson.unknown-variable",
            f"{name!r} is not a CSL variable; kept, and written back under 'custom'",
        )


def _read_names(entry: Entry, role: str, value: object, r: _ItemReader) -> None:
    if not isinstance(value, list):
        value = [value]
        r.say(warning, "csljson.bad-value", f"{role} is not an array; read as a one-name list")
    people: list[Name] = entry.names.setdefault(role, [])
    for obj in value:
        if isinstance(obj, str):  # a bare string: treat as a literal name, never split it
            obj = {"literal": obj}
            r.say(warning, "csljson.bad-value", f"{role} holds a string; read as a literal name")
        if not isinstance(obj, dict):
            entry.extra.append(Extra(NAME, role, json.dumps(obj, ensure_ascii=False)))
            r.say(warning, "csljson.bad-value", f"{role} holds {type(obj).__name__}; kept as extra")
            continue
        person, problems = names.name_from_csl(obj)
        for problem in problems:
            r.say(warning, "csljson.name", f"{role}: {problem}")
        people.append(person)
    if not people:
        del entry.names[role]


def _read_date(entry: Entry, role: str, value: object, r: _ItemReader) -> None:
    if isinstance(value, str):  # EDTF or free text where an object belongs
        value = {"raw": value}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = {"date-parts": [[int(value)]]}
    if not isinstance(value, dict):
        entry.extra.append(Extra(NAME, role, json.dumps(value, ensure_ascii=False)))
        r.say(warning, "csljson.bad-value", f"{role} is {type(value).__name__}; kept as extra")
        return
    date, problems = dates.date_from_csl(value)
    for problem in problems:
        r.say(warning, "csljson.date", f"{role}: {problem}")
    if date != Date():
        entry.dates[role] = date


def _read_field(entry: Entry, rule: Rule, value: object, r: _ItemReader) -> None:
    text = _scalar_text(rule.csl, value, r)
    if text is None:
        entry.extra.append(Extra(NAME, rule.csl, json.dumps(value, ensure_ascii=False)))
        return
    if not text.strip():
        return
    if rule.canonical in entry.fields:
        if plain(entry.fields[rule.canonical]) != text:
            entry.extra.append(Extra(NAME, rule.csl, json.dumps(value, ensure_ascii=False)))
            r.say(
                warning,
                "csljson.duplicate-variable",
                f"{rule.csl!r} repeats {rule.canonical!r} with another value; kept as extra",
            )
        return
    converted, problems = rule.to_canonical(text)
    for problem in problems:
        r.say(warning, "csljson.markup", f"{rule.csl}: {problem}")
    entry.fields[rule.canonical] = converted
    if rule.csl != rule.canonical:
        r.say(info, "csljson.alias", f"non-standard {rule.csl!r} read as {rule.canonical!r}")


def _scalar_text(name: str, value: object, r: _ItemReader) -> str | None:
    """A string for a string/number variable; lists of strings are joined (reported)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        r.say(warning, "csljson.bad-value", f"{name!r} is {value!r}; kept as extra")
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) != 1:
            r.say(warning, "csljson.bad-value", f"{name!r} is a list; its items joined with '; '")
        return "; ".join(value)  # type: ignore[arg-type]
    r.say(warning, "csljson.bad-value", f"{name!r} is {type(value).__name__}; kept as extra")
    return None


def _read_custom(entry: Entry, custom: object, r: _ItemReader) -> None:
    if not isinstance(custom, dict):
        entry.extra.append(Extra(NAME, "custom", json.dumps(custom, ensure_ascii=False)))
        r.say(warning, "csljson.bad-value", "'custom' is not an object; kept as extra")
        return
    for name, value in custom.items():
        if (name in CITEKIT_FIELDS or name in _NOT_IN_SCHEMA) and _is_scalar_text(value):
            entry.fields[name] = str(value)
        elif name.endswith(_INCOMPLETE_SUFFIX) and value is True:
            role = name[: -len(_INCOMPLETE_SUFFIX)]
            role = "author" if role == "authors" else role
            if role in _NAME_ROLES:
                entry.names.setdefault(role, []).append(OTHERS)
            else:
                entry.extra.append(Extra(NAME, name, json.dumps(value)))
        elif name == _SOURCE_TYPE and isinstance(value, str) and ":" in value:
            # kept whole ("bibtex:phdthesis"): no writer mistakes it for a type of its own
            # format, and the next CSL-JSON written carries it on unchanged
            entry.source_type = value
        elif (match := _FORMAT_PREFIX.match(name)) and _is_str_or_strs(value):
            values = value if isinstance(value, list) else [value]
            entry.extra.extend(Extra(match.group(1), match.group(2), v) for v in values)
        else:
            entry.extra.append(Extra(NAME, name, json.dumps(value, ensure_ascii=False)))


def _is_scalar_text(value: object) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _is_str_or_strs(value: object) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def write(bib: Bibliography, options: WriteOptions | None = None) -> tuple[str, list[Diagnostic]]:
    """Render every entry as one CSL-JSON array: UTF-8, stable key order, one variable a line.

    Each item is rendered as soon as it is built, so memory stays near the size of the output.
    """
    options = options or WriteOptions()
    diagnostics: list[Diagnostic] = []
    items = [_dump_item(_write_item(entry, options, diagnostics)) for entry in bib.entries]
    if not items:
        return "[]\n", diagnostics
    # one join builds the document once (a "[" + ... + "]" concatenation copies it again)
    items[0] = "[\n" + items[0]
    items[-1] += "\n]\n"
    return ",\n".join(items), diagnostics


# One encoder for the whole run: json.dumps builds a new JSONEncoder on every call, which
# cost a third of the writer's time on 20k entries. `encode` keeps the C implementation.
_dump = json.JSONEncoder(ensure_ascii=False).encode


def _dump_item(item: dict[str, object]) -> str:
    """One item, one variable a line; one name a line; `custom` one key a line.

    json.dumps with `indent` runs the pure-Python encoder (ten times slower on 200k items);
    this layout keeps the C encoder and is just as easy to diff.
    """
    lines = []
    for key, value in item.items():
        if key == "custom" and isinstance(value, dict) and value:
            inner = ",\n".join(f"      {_dump(k)}: {_dump(v)}" for k, v in value.items())
            lines.append(f'    "custom": {{\n{inner}\n    }}')
        elif key in _NAME_ROLES and isinstance(value, list) and value:
            inner = ",\n".join(f"      {_dump(person)}" for person in value)
            lines.append(f"    {_dump(key)}: [\n{inner}\n    ]")
        else:
            lines.append(f"    {_dump(key)}: {_dump(value)}")
    return "  {\n" + ",\n".join(lines) + "\n  }"


def _write_item(entry: Entry, options: WriteOptions, out: list[Diagnostic]) -> dict[str, object]:
    omit = options.omit
    item: dict[str, object] = {"id": entry.key, "citation-key": entry.key}
    if not entry.key:
        del item["citation-key"]
        out.append(
            warning("csljson.missing-id", 'entry has no key; written with id ""', **_where(entry))
        )
    item["type"] = entry.type if entry.type in CSL_TYPES else "document"
    if entry.type not in CSL_TYPES:
        out.append(
            warning(
                "csljson.unknown-type",
                f"type {entry.type!r} written as 'document'",
                **_where(entry),
            )
        )
    custom: dict[str, object] = {}
    for role in NAME_ROLES:
        if role in entry.names and role not in omit:
            _write_names(item, custom, role, entry.names[role])
    for role in entry.names:
        if role not in _NAME_ROLES:
            out.append(
                warning(
                    "csljson.unknown-role",
                    f"name role {role!r} has no CSL variable; not written",
                    **_where(entry),
                )
            )
    for canonical, value in entry.fields.items():
        if canonical in omit or not plain(value):
            continue
        rule = _WRITE_RULES.get(canonical)
        if rule is not None and canonical in _NOT_IN_SCHEMA:
            custom[canonical] = rule.from_canonical(value)
        elif rule is not None:
            item[rule.csl] = rule.from_canonical(value)
        elif canonical in CITEKIT_FIELDS:
            custom[canonical] = plain(value)
        else:
            custom[canonical] = plain(value)
            out.append(
                info(
                    "csljson.noncanonical-field",
                    f"{canonical!r} is no canonical field; written under 'custom'",
                    **_where(entry),
                )
            )
    for role in DATE_ROLES:
        if role in entry.dates and role not in omit:
            item[role] = dates.date_to_csl(entry.dates[role])
    if _FORMAT_PREFIX.match(entry.source_type):
        custom[_SOURCE_TYPE] = entry.source_type
    elif entry.source_type and entry.origin is not None and entry.origin.format != NAME:
        custom[_SOURCE_TYPE] = f"{entry.origin.format}:{entry.source_type}"
    _write_extras(item, custom, entry.extra, omit)
    if custom:
        item["custom"] = custom
    return _ordered(item)


def _write_names(
    item: dict[str, object], custom: dict[str, object], role: str, people: list[Name]
) -> None:
    written = [obj for obj in (names.name_to_csl(p) for p in people) if obj is not None]
    if written:
        item[role] = written
    if any(p.others for p in people):  # "and others": CSL cannot say it, so flag it
        custom[f"{'authors' if role == 'author' else role}{_INCOMPLETE_SUFFIX}"] = True


def _write_extras(
    item: dict[str, object], custom: dict[str, object], extras: list[Extra], omit: frozenset[str]
) -> None:
    for extra in extras:
        if extra.name in omit:
            continue
        if extra.format == NAME:
            value = _json_or_text(extra.value)
            kind = _SCHEMA_OTHER.get(extra.name)
            if kind is not None and extra.name not in item and isinstance(value, kind):
                item[extra.name] = value
            else:
                custom[extra.name] = value
            continue
        slot = f"{extra.format}:{extra.name}"
        held = custom.get(slot)
        if held is None:
            custom[slot] = extra.value
        elif isinstance(held, list):
            held.append(extra.value)
        else:
            custom[slot] = [held, extra.value]


def _json_or_text(value: str) -> object:
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


_ORDER: dict[str, int] = {
    name: i
    for i, name in enumerate(
        ("id", "citation-key", "type", *NAME_ROLES, *_STRING_VARIABLES, *DATE_ROLES)
    )
}


def _ordered(item: dict[str, object]) -> dict[str, object]:
    """Known keys in table order, then any others alphabetically, `custom` last."""
    last = len(_ORDER)
    return dict(
        sorted(item.items(), key=lambda kv: (kv[0] == "custom", _ORDER.get(kv[0], last), kv[0]))
    )


def _where(entry: Entry) -> dict[str, object]:
    if entry.origin is None:
        return {"key": entry.key}
    return {"key": entry.key, "source": entry.origin.source, "line": entry.origin.line}
