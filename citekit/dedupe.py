"""Finding the same work across inputs (same arXiv id, same DOI, or same normalised title, first
author and year) and merging each group into one entry, with a diagnostic per decision.
Indexes entries by key values, so 20k entries cost one pass, not a pairwise comparison.
May import: model, diagnostics, markup. Must not import formats, keys, pipeline, cli.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from .diagnostics import Diagnostic, info, warning
from .markup import to_unicode
from .model import OTHERS, Date, Entry, Name, Text, plain

# arXiv ids: new style 2101.00001 (4 or 5 digits after the dot), old style math/0211159 or
# math.AG/0211159; an optional version suffix is ignored.
_ARXIV_ID = re.compile(
    r"(?:arxiv:)?\s*(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z-]+)?/\d{7})(?:v\d+)?", re.IGNORECASE
)
_ARXIV_URL = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z-]+)?/\d{7})", re.IGNORECASE
)
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI_URL = re.compile(r"(?:dx\.)?doi\.org/(10\.\S+)", re.IGNORECASE)
_NON_WORD = re.compile(r"[\W_]+")

# How much a type says about the work: `document` (BibTeX @misc) least, then the generic
# types (`article` is CSL's preprint), then every specific type. The higher rank wins a merge.
_TYPE_RANK: dict[str, int] = {
    "document": 0, "article": 1, "manuscript": 1, "webpage": 1, "post": 1,
}  # fmt: skip
_SPECIFIC_RANK = 2

# Reports a disagreement: what differs, the value kept, and each member's value.
_Conflict = Callable[[str, str, Iterable[tuple[Entry, str]]], None]


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    """Entries (positions in the list given) found to be the same work, and why."""

    indices: tuple[int, ...]
    reason: str  # "same arXiv id 2101.00001", "same DOI 10.1/x", "same title, author and year"


# ---------------------------------------------------------------------------------------------
# Finding
# ---------------------------------------------------------------------------------------------


def find_duplicates(entries: list[Entry]) -> list[DuplicateGroup]:
    """Groups of two or more entries that are the same work, in order of first appearance.

    Two entries are the same work when they share an arXiv id or a DOI (case-insensitive; the
    arXiv DataCite DOI 10.48550/arXiv.<id> counts as the id), or when their normalised titles
    and years agree and so do their authors: the same first author family, or, when a list is
    marked incomplete (`and others`, as in profile listings), its known authors appear in the
    other list (two incomplete lists cannot contradict each other and always agree). Matches
    are transitive (a preprint id and a journal DOI join through an entry that carries both).
    """
    parent = list(range(len(entries)))
    reasons: dict[int, str] = {}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: int, b: int, reason: str) -> None:
        root_a, root_b = find(a), find(b)
        if root_a == root_b:
            return
        low, high = min(root_a, root_b), max(root_a, root_b)
        parent[high] = low
        reasons.setdefault(low, reasons.pop(high, reason))

    first_by_id: dict[str, int] = {}
    by_title: dict[tuple[str, int], list[int]] = {}
    for index, entry in enumerate(entries):
        for identifier in _identifiers(entry):
            seen = first_by_id.setdefault(identifier, index)
            if seen != index:
                union(seen, index, _describe_identifier(identifier))
        title_key = _title_key(entry)
        if title_key is not None:
            by_title.setdefault(title_key, []).append(index)

    for indices in by_title.values():
        if len(indices) > 1:
            _match_bucket(entries, indices, find, union)

    groups: dict[int, list[int]] = {}
    for index in range(len(entries)):
        groups.setdefault(find(index), []).append(index)
    return [
        DuplicateGroup(tuple(members), reasons.get(root, "same work"))
        for root, members in groups.items()
        if len(members) > 1
    ]


def _match_bucket(
    entries: list[Entry],
    indices: list[int],
    find: Callable[[int], int],
    union: Callable[[int, int, str], None],
) -> None:
    """Join the entries of one title-and-year bucket whose authors agree, through indexes, so a
    bucket of many same-titled works ("Preface", 2020) stays linear.

    Same first author family: joined. Two incomplete lists (profile pages of co-authors):
    joined, they cannot contradict each other. An incomplete list and a complete one: joined
    when every known author of the first is in the second; candidates come from an index of
    the complete lists by author family, not from the whole bucket.
    """
    reason = "same title, first author and year"
    first_by_family: dict[str, int] = {}
    partial: list[tuple[int, frozenset[str]]] = []
    complete_families: dict[int, frozenset[str]] = {}
    complete_by_family: dict[str, list[int]] = {}
    for index in indices:
        known, incomplete = _known_authors(entries[index])
        if not known:
            continue  # a title and year alone are too weak: "Editorial", 2020
        first_family = _family(known[0])
        seen = first_by_family.setdefault(first_family, index)
        if seen != index:
            union(seen, index, reason)
        families = frozenset(_family(name) for name in known)
        if incomplete:
            partial.append((index, families))
        else:
            complete_families[index] = families
            for family in families:
                complete_by_family.setdefault(family, []).append(index)
    for index, _ in partial[1:]:
        union(partial[0][0], index, reason)
    for index, wanted in partial:
        anchor = next(iter(wanted))
        for other in complete_by_family.get(anchor, ()):
            if find(other) != find(index) and wanted <= complete_families[other]:
                union(index, other, reason)


def _identifiers(entry: Entry) -> list[str]:
    """The entry's identifiers as index keys: `arxiv:<id>` and `doi:<doi>`, lower-cased."""
    found: list[str] = []
    arxiv = entry.get("arxiv").strip()
    if arxiv and (match := _ARXIV_ID.fullmatch(arxiv)):
        found.append("arxiv:" + match.group(1).lower())
    doi = normalize_doi(entry.get("DOI"))
    if doi:
        arxiv_doi = _ARXIV_DOI.fullmatch(doi)
        if arxiv_doi and (match := _ARXIV_ID.fullmatch(arxiv_doi.group(1))):
            found.append("arxiv:" + match.group(1).lower())
        else:
            found.append("doi:" + doi)
    url = entry.get("URL")
    if url:
        if match := _ARXIV_URL.search(url):
            found.append("arxiv:" + match.group(1).lower())
        elif match := _DOI_URL.search(url):
            found.append("doi:" + normalize_doi(match.group(1)))
    return list(dict.fromkeys(found))


def normalize_doi(doi: str) -> str:
    """`https://doi.org/10.1000/ABC` -> `10.1000/abc`: DOIs compare case-insensitively."""
    doi = _DOI_PREFIX.sub("", doi.strip())
    return doi.lower() if doi.startswith("10.") else ""


def _describe_identifier(identifier: str) -> str:
    kind, _, value = identifier.partition(":")
    return f"same arXiv id {value}" if kind == "arxiv" else f"same DOI {value}"


def _title_key(entry: Entry) -> tuple[str, int] | None:
    title = entry.fields.get("title")
    issued = entry.dates.get("issued")
    if title is None or issued is None or issued.year is None:
        return None
    normalized = normalize_title(title)
    return (normalized, issued.year) if normalized else None


def normalize_title(title: Text) -> str:
    """Lower-case, accent-free words of a title with math in Unicode: `Deep Sturm--Liouville`,
    `Deep Sturm–Liouville` and `DEEP STURM-LIOUVILLE` agree."""
    text = title if isinstance(title, str) else to_unicode(title)
    return _fold(text)


@lru_cache(maxsize=65536)
def _fold(text: str) -> str:
    if text.isascii():  # most titles and names: no accents to strip
        return _NON_WORD.sub(" ", text.lower()).strip()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", stripped.casefold()).strip()


def _known_authors(entry: Entry) -> tuple[list[Name], bool]:
    """The first non-empty creator list (authors, else editors) without the `others` mark, and
    whether it was marked incomplete."""
    for role in ("author", "editor"):
        names = entry.names.get(role)
        if names:
            known = [n for n in names if not n.others]
            return known, len(known) < len(names)
    return [], False


def _family(name: Name) -> str:
    return _fold(name.literal or name.family)


# ---------------------------------------------------------------------------------------------
# Reporting and merging
# ---------------------------------------------------------------------------------------------


def report_duplicates(entries: list[Entry]) -> list[Diagnostic]:
    """One warning (`dedupe.duplicate`) per group of entries that are the same work."""
    diagnostics: list[Diagnostic] = []
    for group in find_duplicates(entries):
        members = [entries[i] for i in group.indices]
        first = members[0]
        diagnostics.append(
            warning(
                "dedupe.duplicate",
                f"{len(members)} entries are the same work ({group.reason}): "
                f"{_list_members(members)}; --dedupe merges them",
                **_where(first),
            )
        )
    return diagnostics


def merge_duplicates(entries: list[Entry]) -> tuple[list[Entry], list[Diagnostic]]:
    """Merge each group of duplicates into one entry at the first one's position, with its key
    (or, when the first has none, the first key in the group).

    Every field of every member is kept; where members disagree the richer value wins (more
    text, markup over plain, a complete author list over one marked `and others`, a fuller
    date, a specific type over a generic one) and a `dedupe.conflict` warning says what was
    kept. Each merge is reported as `dedupe.merged` (info). Entries are not modified.
    """
    groups = find_duplicates(entries)
    if not groups:
        return list(entries), []
    diagnostics: list[Diagnostic] = []
    merged_at: dict[int, Entry] = {}
    dropped: set[int] = set()
    for group in groups:
        members = [entries[i] for i in group.indices]
        merged, conflicts = _merge_group(members)
        merged_at[group.indices[0]] = merged
        dropped.update(group.indices[1:])
        diagnostics.append(
            info(
                "dedupe.merged",
                f"merged {len(members)} entries ({group.reason}): {_list_members(members)}",
                **_where(members[0]),
            )
        )
        diagnostics.extend(conflicts)
    result = [
        merged_at.get(index, entry) for index, entry in enumerate(entries) if index not in dropped
    ]
    return result, diagnostics


def _merge_group(members: list[Entry]) -> tuple[Entry, list[Diagnostic]]:
    first = members[0]
    conflicts: list[Diagnostic] = []
    where = _where(first)

    def conflict(what: str, kept: str, values: Iterable[tuple[Entry, str]]) -> None:
        shown = "; ".join(f"{_short(v)!r} ({_label(e)})" for e, v in values)
        conflicts.append(
            warning("dedupe.conflict", f"{what} differs: {shown}; kept {_short(kept)!r}", **where)
        )

    entry_type, source_type = _merge_type(members, conflict)
    fields = _merge_fields(members, conflict)
    names = _merge_names(members, conflict)
    dates = _merge_dates(members, conflict)
    extra = list(dict.fromkeys(x for m in members for x in m.extra))
    # the first entry's key; when it has none (a listing record), the first key in the group
    keyed = next((m for m in members if m.key), first)
    return (
        first.evolve(
            key=keyed.key,
            original_key=keyed.original_key,
            type=entry_type,
            source_type=source_type,
            fields=fields,
            names=names,
            dates=dates,
            extra=extra,
        ),
        conflicts,
    )


def _merge_type(members: list[Entry], conflict: _Conflict) -> tuple[str, str]:
    chosen = members[0]
    for member in members[1:]:
        if _type_rank(member.type) > _type_rank(chosen.type):
            chosen = member
    types = {m.type for m in members}
    if len(types) > 1:
        conflict("type", chosen.type, [(m, m.type) for m in members])
    return chosen.type, chosen.source_type


def _type_rank(entry_type: str) -> int:
    return _TYPE_RANK.get(entry_type, _SPECIFIC_RANK)


def _merge_fields(members: list[Entry], conflict: _Conflict) -> dict[str, Text]:
    fields: dict[str, Text] = {}
    holders: dict[str, list[tuple[Entry, Text]]] = {}
    for member in members:
        for name, value in member.fields.items():
            holders.setdefault(name, []).append((member, value))
    for name, values in holders.items():
        best = values[0][1]
        for _, value in values[1:]:
            if _richness(value) > _richness(best):
                best = value
        fields[name] = best
        distinct = {_fold_value(name, v) for _, v in values}
        if len(distinct) > 1:
            conflict(f"field {name}", plain(best), [(e, plain(v)) for e, v in values])
    return fields


def _fold_value(name: str, value: Text) -> str:
    if name == "DOI":
        return normalize_doi(plain(value)) or plain(value).strip().lower()
    if name == "links":
        return " ".join(sorted(plain(value).split()))
    return _fold(plain(value) if isinstance(value, str) else to_unicode(value))


def _richness(value: Text) -> tuple[int, int]:
    """More text first (a full abstract beats a cut one), then more markup (kept math)."""
    if isinstance(value, str):
        return len(value), 0
    return len(value.plain()), len(value.nodes)


def _merge_names(members: list[Entry], conflict: _Conflict) -> dict[str, list[Name]]:
    names: dict[str, list[Name]] = {}
    holders: dict[str, list[tuple[Entry, list[Name]]]] = {}
    for member in members:
        for role, people in member.names.items():
            if people:
                holders.setdefault(role, []).append((member, people))
    for role, lists in holders.items():
        complete = [(e, p) for e, p in lists if not any(n.others for n in p)]
        if complete:
            best = max(complete, key=lambda item: len(item[1]))[1]  # first longest list
            families = {_family(n) for n in best}
            shapes = {tuple(_family(n) for n in p) for _, p in complete}
            missing = [
                (e, p)
                for e, p in lists
                if any(_family(n) not in families for n in p if not n.others)
            ]
            if len(shapes) > 1 or missing:
                conflict(role, _names_text(best), [(e, _names_text(p)) for e, p in lists])
        else:
            # only incomplete lists (profile pages of several co-authors): keep every known
            # name, in order of first appearance, and keep the list marked incomplete
            seen: dict[str, Name] = {}
            for _, people in lists:
                for person in people:
                    if not person.others:
                        seen.setdefault(_family(person) + "\0" + _fold(person.given), person)
            best = [*seen.values(), OTHERS]
        names[role] = list(best)
    return names


def _names_text(people: list[Name]) -> str:
    return " and ".join(
        "others" if n.others else (n.literal or ", ".join(p for p in (n.family, n.given) if p))
        for n in people
    )


def _merge_dates(members: list[Entry], conflict: _Conflict) -> dict[str, Date]:
    dates: dict[str, Date] = {}
    holders: dict[str, list[tuple[Entry, Date]]] = {}
    for member in members:
        for role, date in member.dates.items():
            holders.setdefault(role, []).append((member, date))
    for role, values in holders.items():
        best = values[0][1]
        for _, date in values[1:]:
            if _precision(date) > _precision(best):
                best = date
        dates[role] = best
        if not all(_compatible_dates(best, d) for _, d in values):
            conflict(f"date {role}", _date_text(best), [(e, _date_text(d)) for e, d in values])
    return dates


def _precision(date: Date) -> int:
    return sum(part is not None for part in (date.year, date.month, date.day))


def _compatible_dates(fuller: Date, other: Date) -> bool:
    """`other` says nothing that contradicts `fuller` (2024 fits 2024-05-01)."""
    if other.literal or fuller.literal:
        return other == fuller
    pairs = ((fuller.year, other.year), (fuller.month, other.month), (fuller.day, other.day))
    return all(b is None or a == b for a, b in pairs)


def _date_text(date: Date) -> str:
    if date.literal:
        return date.literal
    parts = [str(date.year or "?")]
    parts += [f"{p:02d}" for p in (date.month, date.day) if p is not None]
    return "-".join(parts)


def _label(entry: Entry) -> str:
    if entry.origin is not None:
        return f"{entry.origin.source}:{entry.origin.line}"
    return entry.key or "?"


def _list_members(members: list[Entry]) -> str:
    return ", ".join(f"{m.key} ({_label(m)})" if m.key else _label(m) for m in members)


def _where(entry: Entry) -> dict[str, object]:
    where: dict[str, object] = {"key": entry.key}
    if entry.origin is not None:
        where["source"] = entry.origin.source
        where["line"] = entry.origin.line
    return where


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = [
    "DuplicateGroup",
    "find_duplicates",
    "merge_duplicates",
    "normalize_doi",
    "normalize_title",
    "report_duplicates",
]
