"""The conversion pipeline: read sources -> (dedupe) -> (enrich) -> normalise keys -> write.

Returns a `Report` (diagnostics and counts) and never prints. The CLI is the only caller that
knows about stderr and exit codes. Imports: formats, keys, dedupe, io, model, diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import io
from .diagnostics import Diagnostic, Report, error, warning
from .errors import CitekitError, InputError, UnknownFormat
from .formats import FORMATS, READ_FORMATS, Format, detect_format, get_format
from .model import Bibliography, Entry, Extra, Rejected
from .options import WriteOptions


@dataclass(frozen=True, slots=True)
class KeyOptions:
    keep_keys: bool = False
    pattern: str | None = None  # None: keys.DEFAULT_PATTERN


@dataclass(slots=True)
class Conversion:
    """Everything a conversion produced; `text` is None when nothing could be written."""

    bibliography: Bibliography
    report: Report
    text: str | None = None
    renames: list[tuple[str, str, str]] = field(default_factory=list)  # old, new, where


def input_suffixes() -> tuple[str, ...]:
    """File suffixes a directory scan picks up: every readable format's."""
    suffixes: list[str] = []
    for name in READ_FORMATS:
        suffixes.extend(FORMATS[name].suffixes)
    return tuple(dict.fromkeys(suffixes))


def read_text(text: str, *, source: str, fmt: Format | None = None) -> Bibliography:
    """Read one document already in memory, detecting its format unless `fmt` is given."""
    chosen = fmt or detect_format(source, text)
    bib: Bibliography = chosen.load().read(text, source=source)
    return bib


def read_sources(
    paths: list[str], *, from_format: str | None = None, report: Report | None = None
) -> tuple[Bibliography, Report]:
    """Read every input into one bibliography, reporting per file; one bad file stops nothing.

    Each file's records are counted independently of its reader (the format's
    `count_records`), and a mismatch with entries + rejected is reported as an error, so a
    record can never vanish unnoticed.
    """
    report = report or Report()
    forced = get_format(from_format) if from_format else None
    combined = Bibliography()
    paths = io.expand_inputs(paths, input_suffixes())
    if not paths:
        report.add(error("input.none", "no input files found"))
    for path in paths:
        try:
            loaded = io.read_input(path)
        except InputError as exc:
            report.add(error("input.unreadable", exc.message, source=exc.path or path))
            continue
        report.diagnostics.extend(loaded.diagnostics)
        try:
            fmt = forced or detect_format(loaded.source, loaded.text)
        except UnknownFormat as exc:
            _reject_whole_file(combined, report, loaded.source, loaded.text, exc.message)
            continue
        bib = read_text(loaded.text, source=loaded.source, fmt=fmt)
        _check_conservation(fmt, loaded.text, loaded.source, bib, report)
        if not bib.entries and not bib.rejected:
            report.add(warning("input.no-records", f"no {fmt.name} records found",
                               source=loaded.source))  # fmt: skip
        report.files += 1
        report.read += len(bib.entries) + len(bib.rejected)
        report.rejected += len(bib.rejected)
        report.diagnostics.extend(bib.diagnostics)
        bib.diagnostics = []
        combined.extend(bib)
    return combined, report


def _reject_whole_file(
    combined: Bibliography, report: Report, source: str, text: str, message: str
) -> None:
    # the file is kept whole as one rejected record, so --rejects still has every byte of it
    report.add(error("input.unknown-format", message, source=source, line=1))
    if text.strip():
        combined.rejected.append(Rejected(source, 1, text, message))
        report.files += 1
        report.read += 1
        report.rejected += 1


def _check_conservation(
    fmt: Format, text: str, source: str, bib: Bibliography, report: Report
) -> None:
    counter: Callable[[str], int] | None = getattr(fmt.load(), "count_records", None)
    if counter is None:
        return
    seen = counter(text)
    kept = len(bib.entries) + len(bib.rejected)
    if seen != kept:
        report.add(
            error(
                "internal.conservation",
                f"{seen} record(s) in the file but {kept} read or rejected; please report this",
                source=source,
            )
        )


def normalize_keys(bib: Bibliography, options: KeyOptions) -> list[tuple[str, str, str]]:
    """Give every entry its normalised key in place of the old list; return the renames."""
    from . import keys

    pattern = options.pattern or keys.DEFAULT_PATTERN
    result = keys.assign_keys(bib.entries, keep_keys=options.keep_keys, pattern=pattern)
    bib.entries = follow_renames(result.entries)
    bib.diagnostics.extend(result.diagnostics)
    renames: list[tuple[str, str, str]] = []
    for entry in result.entries:
        where = f"{entry.origin.source}:{entry.origin.line}" if entry.origin else ""
        renames.append((entry.original_key, entry.key, where))
    return renames


# Fields whose values name other entries by key (biblatex: crossref, xref, xdata, related,
# set members); after a rename they must name the new keys or the links break.
KEY_REFERENCE_FIELDS: frozenset[str] = frozenset(
    {"crossref", "xref", "xdata", "related", "entryset", "set"}
)


def follow_renames(entries: list[Entry]) -> list[Entry]:
    """Point key references (crossref = {old}) at the entries' new keys.

    A reference follows the first entry that was read under that key (case-insensitively, as
    bibtex compares keys); references to keys no entry had are left as written.
    """
    new_key: dict[str, str] = {}
    for entry in entries:
        if entry.original_key:
            new_key.setdefault(entry.original_key.lower(), entry.key)
    if all(old == new.lower() for old, new in new_key.items()):
        return entries
    result: list[Entry] = []
    for entry in entries:
        extras = [_renamed_reference(extra, new_key) for extra in entry.extra]
        extras = [e for e in (_without_own_key(x, entry.key) for x in extras) if e is not None]
        result.append(entry if extras == entry.extra else entry.evolve(extra=extras))
    return result


def _without_own_key(extra: Extra, key: str) -> Extra | None:
    """biblatex `ids` aliases minus the entry's own new key (biber rejects such an alias)."""
    if extra.name.lower() != "ids":
        return extra
    aliases = [a.strip() for a in extra.value.split(",") if a.strip()]
    kept = [a for a in aliases if a.lower() != key.lower()]
    if kept == aliases:
        return extra
    return Extra(extra.format, extra.name, ",".join(kept)) if kept else None


def _renamed_reference(extra: Extra, new_key: dict[str, str]) -> Extra:
    if extra.name.lower() not in KEY_REFERENCE_FIELDS:
        return extra
    parts = [p.strip() for p in extra.value.split(",")]
    renamed = [new_key.get(p.lower(), p) if p else p for p in parts]
    if renamed == parts:
        return extra
    return Extra(extra.format, extra.name, ",".join(renamed))


def deduplicate(bib: Bibliography, *, merge: bool) -> None:
    """Report (and with `merge`, merge) entries that are the same work across inputs."""
    from . import dedupe

    if merge:
        bib.entries, found = dedupe.merge_duplicates(bib.entries)
    else:
        found = dedupe.report_duplicates(bib.entries)
    bib.diagnostics.extend(found)


def write_text(
    bib: Bibliography, to_format: str, options: WriteOptions | None = None
) -> tuple[str, list[Diagnostic]]:
    """Render `bib` in `to_format` (`bibtex`, `biblatex`, `csl-json`, `ris`)."""
    fmt = get_format(to_format)
    if not fmt.writable:
        raise UnknownFormat(f"{fmt.name} can be read but not written")
    base = options or WriteOptions()
    if fmt.dialect:
        base = replace(base, dialect=fmt.dialect)
    text, diagnostics = fmt.load().write(bib, base)
    return text, list(diagnostics)


def convert(
    paths: list[str],
    *,
    to_format: str,
    from_format: str | None = None,
    write_options: WriteOptions | None = None,
    key_options: KeyOptions | None = None,
    merge_duplicates: bool = False,
    enrich: Callable[[Bibliography, Report], None] | None = None,
) -> Conversion:
    """Read `paths`, normalise keys, optionally dedupe and enrich, and render `to_format`."""
    bib, report = read_sources(paths, from_format=from_format)
    conversion = Conversion(bib, report)
    deduplicate(bib, merge=merge_duplicates)
    if enrich is not None:
        enrich(bib, report)
    conversion.renames = normalize_keys(bib, key_options or KeyOptions())
    report.extend(bib.diagnostics)
    bib.diagnostics = []
    if report.files == 0:
        return conversion
    try:
        text, written = write_text(bib, to_format, write_options)
    except CitekitError as exc:
        report.add(error("output.failed", exc.message))
        return conversion
    report.extend(written)
    conversion.text = text
    report.written = len(bib.entries)
    return conversion
