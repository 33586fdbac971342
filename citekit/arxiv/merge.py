"""Merge an `ArxivRecord` into an `Entry`: what arXiv says, where it goes, and who wins.

Default: fill what is missing and keep the user's values (a difference is a reported conflict);
`overwrite` lets arXiv win (reported); `prefer_published` shows the published version when
arXiv knows one. Each decision is a `Change` the caller turns into a Diagnostic.
Imports model, diagnostics, latex, names, atom, ids, match; never requests or the client.

Where arXiv's facts go (canonical fields, docs/mapping.md §4):
  title, abstract        `title`, `abstract` (TeX decoded by citekit.latex; problems reported)
  authors                `author`, parsed with names.parse_display_name; a list ending in
                         "others" is replaced by the full one when every named author is on it
  id, version, class     `arxiv` (never a version), `arxiv-version` only when the entry named
                         one, `arxiv-class` (the primary category)
  DOI                    the publisher's DOI when arXiv knows it; else, for a preprint entry,
                         arXiv's own 10.48550/arXiv.<id>; never 10.48550 on a published record
  journal_ref, comment   `journal-ref` verbatim, `arxiv-comment`
  dates                  `issued` = v1's date (arXiv's own BibTeX export uses v1's year);
                         `available-date` = when the returned version appeared (last update)
  URLs                   `URL` = the unversioned abs page; the PDF is added to `links`
  preprint               `publisher` = arXiv for a CSL `article` (preprint) entry
  --prefer-published     type article-journal (paper-conference for proceedings), venue,
                         volume, pages and year from journal_ref when its shape is unambiguous
                         (else the whole journal_ref as venue), the publisher DOI
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .. import latex
from ..diagnostics import Diagnostic, info, warning
from ..model import Date, Entry, Name, Origin, Text, plain
from ..names import parse_display_name
from .atom import ArxivRecord
from .ids import parse_arxiv_id
from .match import name_key, normalize_title

ChangeKind = Literal["filled", "kept", "replaced", "completed", "published", "normalized", "latex"]

# CSL types that describe a preprint (CSL `article` is the preprint type)
PREPRINT_TYPES = frozenset({"article", "manuscript", "report", "document"})
ARXIV_DOI_PREFIX = "10.48550/arxiv."
_TEX_SIGNS = re.compile(r"[\\$^_{}~]")
_PROCEEDINGS_RE = re.compile(r"\b(proc|proceedings|conference|workshop|symposium)\b", re.I)

# Journal references we read back only when the shape leaves no doubt (arXiv's journal_ref is
# free text): "Phys. Rev. B 85, 115117 (2012)", "Astrophys. J. 645 (2006) 1-12",
# "ActaAstron.56:1-50,2006". Anything else stays verbatim in `journal-ref` only.
_JOURNAL = r"(?P<journal>[A-Z][A-Za-z.&' ]*?[A-Za-z.])"
_PAGES = r"(?P<page>[A-Z]?\d+(?:\s*-+\s*[A-Z]?\d+)?)"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_JOURNAL_REF_RES = (
    re.compile(rf"\A{_JOURNAL}\s*(?P<volume>\d+)\s*,\s*{_PAGES}\s*\({_YEAR}\)\Z"),
    re.compile(rf"\A{_JOURNAL}\s*(?P<volume>\d+)\s*\({_YEAR}\)\s*,?\s*{_PAGES}\Z"),
    re.compile(rf"\A{_JOURNAL}\s*(?P<volume>\d+)\s*:\s*{_PAGES}\s*,\s*{_YEAR}\Z"),
)


@dataclass(frozen=True, slots=True)
class JournalRef:
    journal: str
    volume: str
    page: str
    year: int


def parse_journal_ref(text: str) -> JournalRef | None:
    """Journal, volume, pages and year of a journal reference, or None when not unambiguous."""
    for pattern in _JOURNAL_REF_RES:
        m = pattern.match(text.strip())
        if m:
            page = re.sub(r"\s*-+\s*", "-", m["page"])
            return JournalRef(m["journal"].strip(), m["volume"], page, int(m["year"]))
    return None


@dataclass(frozen=True, slots=True)
class Change:
    """One merge decision about one field: filled, kept (conflict), replaced, ..."""

    name: str
    kind: ChangeKind
    old: str = ""
    new: str = ""

    def diagnostic(self, where: dict[str, object]) -> Diagnostic:
        if self.kind == "kept":
            return info(
                "arxiv.conflict",
                f"{self.name}: kept {_short(self.old)}; arXiv has "
                f"{_short(self.new)} (use --overwrite to take arXiv's)",
                **where,
            )
        if self.kind == "replaced":
            return warning(
                "arxiv.overwritten",
                f"{self.name}: replaced {_short(self.old)} with arXiv's {_short(self.new)}",
                **where,
            )
        if self.kind == "completed":
            return info(
                "arxiv.authors-completed",
                f"author list was incomplete ({self.old}); "
                f"now the full list from arXiv ({self.new})",
                **where,
            )
        if self.kind == "latex":
            return warning("arxiv.latex", f"{self.name} from arXiv: {self.new}", **where)
        if self.kind == "normalized":
            return info(
                "arxiv.normalized",
                f"{self.name}: {_short(self.old)} written as {_short(self.new)}",
                **where,
            )
        if self.kind == "published":
            return info("arxiv.published", f"shown as the published version: {self.new}", **where)
        return info("arxiv.filled", f"{self.name}: filled {_short(self.new)}", **where)


def _short(value: str, limit: int = 80) -> str:
    return repr(value if len(value) <= limit else value[: limit - 1] + "…")


def tex_text(value: str) -> tuple[Text, tuple[str, ...]]:
    """arXiv title/abstract text (TeX-flavoured) as citekit text, and what could not be decoded;
    the fast path skips LaTeX for the many values without any."""
    if not _TEX_SIGNS.search(value):
        return value, ()
    decoded = latex.decode(value)
    return decoded.text, decoded.problems


def record_names(record: ArxivRecord) -> list[Name]:
    return [parse_display_name(a.name) for a in record.authors]


def _date(moment_year: int, month: int, day: int) -> Date:
    return Date(year=moment_year, month=month, day=day)


@dataclass(frozen=True, slots=True)
class Proposal:
    """What arXiv says, in canonical fields and dates, plus LaTeX problems per field."""

    fields: dict[str, Text]
    dates: dict[str, Date]
    problems: dict[str, tuple[str, ...]]


def proposal(
    record: ArxivRecord,
    *,
    published: bool = False,
    arxiv_doi: bool = True,
    repository: bool = False,
    cite_version: bool = False,
) -> Proposal:
    """What arXiv says about `record`.

    `published`: as the published record (venue, volume and pages from an unambiguous
    journal_ref; never the 10.48550 DOI). `arxiv_doi`: the preprint's own DOI when arXiv knows
    no publisher DOI. `repository`: publisher `arXiv`, as for a preprint entry. `cite_version`:
    name the version (only when the entry asked for one; an unversioned id cites the latest).
    """
    title, title_problems = tex_text(record.title)
    abstract, abstract_problems = tex_text(record.summary)
    fields: dict[str, Text] = {
        "title": title,
        "abstract": abstract,
        "arxiv": record.arxiv_id,
        "arxiv-class": record.primary_category,
        "URL": record.abs_url,
    }
    if cite_version:
        fields["arxiv-version"] = str(record.version)
    if repository:
        fields["publisher"] = "arXiv"  # Zotero's repository; docs/mapping.md §4
    if record.comment:
        fields["arxiv-comment"] = record.comment
    if record.journal_ref:
        fields["journal-ref"] = record.journal_ref
    if record.doi:
        fields["DOI"] = record.doi
    elif arxiv_doi and not published:
        fields["DOI"] = record.arxiv_doi  # the preprint's own DOI (Zotero does the same)
    p, u = record.published, record.updated
    # the year is v1's (as arXiv's own BibTeX export); the returned version's date is kept as
    # `available-date`: when the version cited (the latest, or arxiv-version) became available
    dates = {
        "issued": _date(p.year, p.month, p.day),
        "available-date": _date(u.year, u.month, u.day),
    }
    if published and record.journal_ref:
        ref = parse_journal_ref(record.journal_ref)
        if ref is not None:
            fields.update({"container-title": ref.journal, "volume": ref.volume, "page": ref.page})
            dates["issued"] = Date(year=ref.year)
        else:
            fields["container-title"] = record.journal_ref
    problems = {"title": title_problems, "abstract": abstract_problems}
    return Proposal(fields, dates, {k: v for k, v in problems.items() if v})


def _same(name: str, old: Text, new: Text) -> bool:
    a, b = plain(old).strip(), plain(new).strip()
    if name in ("title", "abstract"):
        return normalize_title(a) == normalize_title(b)
    if name == "URL":
        ids = parse_arxiv_id(a), parse_arxiv_id(b)
        if ids[0] is not None and ids[1] is not None:
            return ids[0].id == ids[1].id
    if name in ("DOI", "arxiv", "arxiv-class"):
        return a.lower() == b.lower()
    return " ".join(a.split()) == " ".join(b.split())


def _is_arxiv_doi(doi: str) -> bool:
    return doi.strip().lower().startswith(ARXIV_DOI_PREFIX)


def is_preprint(entry: Entry) -> bool:
    """Whether the entry describes the preprint: a preprint type, or a venue that is arXiv
    itself (Google Scholar's `journal = {arXiv preprint arXiv:...}`, DBLP's CoRR)."""
    if entry.type in PREPRINT_TYPES:
        return True
    venue = entry.get("container-title").strip().lower()
    return "arxiv" in venue or venue == "corr"


def merge_record(
    entry: Entry,
    record: ArxivRecord,
    *,
    overwrite: bool = False,
    prefer_published: bool = False,
    cite_version: bool = False,
) -> tuple[Entry, list[Change]]:
    """`entry` with `record` merged in, and every decision taken.

    `cite_version`: the entry named a version (`2101.00001v2`), so `arxiv-version` and the PDF
    link name it too; otherwise they follow the latest version.
    """
    preprint = is_preprint(entry)
    published = prefer_published and preprint and bool(record.doi or record.journal_ref)
    # a journal article's own venue is never mixed with the journal_ref's volume and pages
    said = proposal(record, published=published, arxiv_doi=preprint and not published,
                    repository=not published and entry.type == "article",
                    cite_version=cite_version)  # fmt: skip
    fields_in, dates_in = said.fields, said.dates
    fields = dict(entry.fields)
    dates = dict(entry.dates)
    names = {role: list(ns) for role, ns in entry.names.items()}
    changes: list[Change] = []
    new_type, source_type = entry.type, entry.source_type
    if published:
        new_type = (
            "paper-conference"
            if _PROCEEDINGS_RE.search(record.journal_ref or "")
            else "article-journal"
        )
        source_type = ""
        changes.append(
            Change("type", "published", entry.type, record.journal_ref or f"doi:{record.doi}")
        )
    _normalize_arxiv_field(fields, changes)
    for name, value in fields_in.items():
        _merge_field(
            name,
            value,
            fields,
            changes,
            overwrite=overwrite
            or (published and name in ("DOI", "container-title", "volume", "page")),
        )
    if published and "DOI" in fields and _is_arxiv_doi(plain(fields["DOI"])):
        # the 10.48550 DOI names the preprint; it never goes on the published record
        changes.append(Change("DOI", "replaced", plain(fields.pop("DOI")), ""))
    _merge_dates(dates_in, dates, changes, overwrite=overwrite or published)
    _merge_authors(record, names, changes, overwrite=overwrite)
    taken = {c.name for c in changes if c.kind in ("filled", "replaced")}
    for name, problems in said.problems.items():
        if name in taken:
            changes.extend(Change(name, "latex", "", problem) for problem in problems)
    pdf = record.pdf_url if cite_version else f"https://arxiv.org/pdf/{record.arxiv_id}"
    links = _with_link(fields.get("links"), pdf)
    if links is not None:
        fields["links"] = links
        changes.append(Change("links", "filled", "", pdf))
    merged = entry.evolve(
        type=new_type, source_type=source_type, fields=fields, dates=dates, names=names
    )
    return merged, changes


def _normalize_arxiv_field(fields: dict[str, Text], changes: list[Change]) -> None:
    # the canonical `arxiv` field holds no version; `arXiv:2101.00001v2` is split in two
    if "arxiv" not in fields:
        return
    old = plain(fields["arxiv"]).strip()
    found = parse_arxiv_id(old)
    if found is None or old == found.id:
        return
    fields["arxiv"] = found.id
    new = found.id
    if found.version is not None and "arxiv-version" not in fields:
        fields["arxiv-version"] = str(found.version)
        new = f"{found.id} with arxiv-version {found.version}"
    changes.append(Change("arxiv", "normalized", old, new))


def _merge_field(
    name: str, value: Text, fields: dict[str, Text], changes: list[Change], *, overwrite: bool
) -> None:
    old = fields.get(name)
    if old is None or not plain(old).strip():
        fields[name] = value
        changes.append(Change(name, "filled", "", plain(value)))
        return
    if _same(name, old, value):
        return
    if name == "URL" and "arxiv.org/" not in plain(old):
        return  # a publisher's page is another resource, not a conflicting value
    if overwrite:
        fields[name] = value
        changes.append(Change(name, "replaced", plain(old), plain(value)))
    else:
        changes.append(Change(name, "kept", plain(old), plain(value)))


def _show_date(d: Date) -> str:
    return "-".join(str(p) for p in (d.year, d.month, d.day) if p is not None) or d.literal


def _merge_dates(
    dates_in: dict[str, Date], dates: dict[str, Date], changes: list[Change], *, overwrite: bool
) -> None:
    for role, value in dates_in.items():
        old = dates.get(role)
        if old is None:
            dates[role] = value
            changes.append(Change(role, "filled", "", _show_date(value)))
        elif old.year == value.year and old.month is None and not old.is_range:
            dates[role] = value  # same year, arXiv adds month and day
            changes.append(Change(role, "filled", _show_date(old), _show_date(value)))
        elif old.year != value.year or (old.month not in (None, value.month)):
            kind: ChangeKind = "replaced" if overwrite else "kept"
            if overwrite:
                dates[role] = value
            changes.append(Change(role, kind, _show_date(old), _show_date(value)))


def _merge_authors(
    record: ArxivRecord, names: dict[str, list[Name]], changes: list[Change], *, overwrite: bool
) -> None:
    full = record_names(record)
    if not full:
        return
    current = names.get("author", [])
    if not current:
        names["author"] = full
        changes.append(Change("author", "filled", "", f"{len(full)} author(s)"))
        return
    known = [n for n in current if not n.others]
    incomplete = any(n.others for n in current)
    known_keys = [name_key(n) for n in known]
    full_keys = [name_key(n) for n in full]
    if incomplete and set(known_keys) <= set(full_keys):
        names["author"] = full
        changes.append(
            Change(
                "author", "completed", f"{len(known)} named and others", f"{len(full)} author(s)"
            )
        )
        return
    if known_keys == full_keys and not incomplete:
        return
    old = _names_text(current)
    if overwrite:
        names["author"] = full
        changes.append(Change("author", "replaced", old, _names_text(full)))
    else:
        changes.append(Change("author", "kept", old, _names_text(full)))


def _names_text(names: list[Name]) -> str:
    parts = [
        "others"
        if n.others
        else (n.literal or " ".join(p for p in (n.given, n.particle, n.family) if p))
        for n in names
    ]
    return "; ".join(parts)


def _with_link(links: Text | None, url: str) -> str | None:
    # the PDF of the version used goes beside the entry's other links (code, data)
    current = plain(links).split() if links is not None else []
    if any(u.rstrip("/").removesuffix(".pdf") == url for u in current):
        return None
    return " ".join([*current, url])


def record_entry(
    record: ArxivRecord,
    *,
    prefer_published: bool = False,
    cite_version: bool = False,
    origin: Origin | None = None,
) -> Entry:
    """A new entry for `record` (the `citekit arxiv` command): a preprint (CSL `article`), or
    the published version when asked and arXiv knows one."""
    start = Entry(type="article", origin=origin)
    merged, _ = merge_record(start, record, prefer_published=prefer_published,
                             cite_version=cite_version)  # fmt: skip
    return merged
