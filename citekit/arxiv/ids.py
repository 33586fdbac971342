"""arXiv identifiers: parse, validate and normalise them, and find one wherever an entry holds it.

Validation is local (no request is spent on an id that cannot exist). Old-style ids lose their
subject class (`math.GT/0309136` -> `math/0309136`), the form arXiv cites and answers with.
Imports only the standard library and citekit.model; must not import requests or the client.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Entry, plain

# Archives that existed before the April 2007 switch to YYMM.NNNNN ids (arxiv_identifier.md).
OLD_ARCHIVES: frozenset[str] = frozenset(
    """acc-phys adap-org alg-geom ao-sci astro-ph atom-ph bayes-an chao-dyn chem-ph cmp-lg
    comp-gas cond-mat cs dg-ga funct-an gr-qc hep-ex hep-lat hep-ph hep-th math math-ph mtrl-th
    nlin nucl-ex nucl-th patt-sol physics plasm-ph q-alg q-bio quant-ph solv-int supr-con""".split()
)

_PHYSICS_PREDECESSORS: dict[str, str] = {"acc-ph": "acc-phys", "ao-ph": "ao-sci"}

_VERSION = r"(?:v(?P<version>[1-9]\d{0,3}))?"
_NEW = r"(?P<new>(?P<nyy>\d{2})(?P<nmm>\d{2})\.(?P<nnum>\d{4,5}))"
_OLD = (
    r"(?P<old>(?P<archive>[a-z]+(?:-[a-z]+)?)(?:\.(?P<subject>[A-Za-z]+(?:-[a-z]+)?))?"
    r"/(?P<oyy>\d{2})(?P<omm>\d{2})(?P<onum>\d{3}))"
)
_ID = rf"(?:{_NEW}|{_OLD}){_VERSION}"
_FULL_RE = re.compile(rf"\A{_ID}\Z", re.ASCII)

# Where an id sits inside longer text: a URL (abs/pdf, any host ending in arxiv.org), the arXiv
# DataCite DOI, or an `arXiv:` label. Anchored on these markers so a bare number in a note is
# never taken for an id.
_URL_RE = re.compile(
    rf"arxiv\.org/(?:abs|pdf|format|ps)/{_ID}(?:\.pdf)?(?!\w)(?!\.\d)", re.ASCII | re.IGNORECASE
)
_DOI_RE = re.compile(rf"10\.48550/arxiv\.{_ID}(?!\w)(?!\.\d)", re.ASCII | re.IGNORECASE)
_LABEL_RE = re.compile(rf"\barxiv\s*[:=]?\s*(?:preprint\s+)?(?:arxiv\s*:\s*)?{_ID}(?!\w)(?!\.\d)",
                       re.ASCII | re.IGNORECASE)  # fmt: skip
_CORR_RE = re.compile(rf"\Aabs/{_ID}\Z", re.ASCII)  # DBLP: journal=CoRR, volume=abs/1605.08386
_PREFIX_RE = re.compile(r"\A(?:arxiv\s*:\s*)", re.IGNORECASE)


@dataclass(frozen=True, slots=True, order=True)
class ArxivId:
    """A validated arXiv id: `id` without version (`2101.00001`, `math/0211159`), `version`."""

    id: str
    version: int | None = None

    @property
    def versioned(self) -> str:
        """The id with `vN` when a version is known: what `id_list` should be sent."""
        return f"{self.id}v{self.version}" if self.version is not None else self.id

    @property
    def is_old_style(self) -> bool:
        return "/" in self.id

    @property
    def doi(self) -> str:
        """arXiv's DataCite DOI: one per article, never per version (help/doi.md)."""
        return f"10.48550/arXiv.{self.id}"

    @property
    def abs_url(self) -> str:
        return f"https://arxiv.org/abs/{self.id}"

    def __str__(self) -> str:
        return self.versioned


@dataclass(frozen=True, slots=True)
class IdHit:
    """An id found in an entry, and the field it came from (for diagnostics)."""

    arxiv_id: ArxivId
    field: str


def _from_match(m: re.Match[str]) -> ArxivId | None:
    version = int(m["version"]) if m["version"] else None
    if m["new"]:
        yy, mm, num = int(m["nyy"]), int(m["nmm"]), m["nnum"]
        if not 1 <= mm <= 12 or (yy, mm) < (7, 4):
            return None
        # four-digit numbers ran from 0704 to 1412, five-digit ones from 1501 on
        if (len(num) == 5) != ((yy, mm) >= (15, 1)) or int(num) == 0:
            return None
        return ArxivId(m["new"], version)
    archive = m["archive"]
    yy, mm = int(m["oyy"]), int(m["omm"])
    if archive not in OLD_ARCHIVES or not 1 <= mm <= 12 or int(m["onum"]) == 0:
        return None
    # old-style ids run from 1991-08 to 2007-03
    if not ((91 <= yy <= 99) or (yy <= 6) or (yy == 7 and mm <= 3)):
        return None
    if archive == "physics" and m["subject"] and (yy, mm) >= (90, 1) and (yy, mm) < (96, 10):
        # `physics` opened in 1996-10; earlier papers now classed physics.X sit in their own
        # archive, and `physics.atom-ph/9601001` means atom-ph/9601001 (arxiv2bib#8)
        archive = _PHYSICS_PREDECESSORS.get(m["subject"], m["subject"])
        if archive not in OLD_ARCHIVES:
            return None
    return ArxivId(f"{archive}/{m['oyy']}{m['omm']}{m['onum']}", version)


def parse_arxiv_id(text: str) -> ArxivId | None:
    """An id from text that is nothing but an id, in any form people write one.

    Accepts `2101.00001`, `2101.00001v2`, `arXiv:hep-th/9901001`, `math.GT/0309136`,
    `https://arxiv.org/abs/...`, `.../pdf/....pdf`, `10.48550/arXiv.2101.00001` and
    `https://doi.org/10.48550/ARXIV.2101.00001`. Returns None when it is not a valid id.
    """
    value = text.strip()
    if not value:
        return None
    m = _FULL_RE.match(_PREFIX_RE.sub("", value))
    if m:
        return _from_match(m)
    for pattern in (_URL_RE, _DOI_RE):
        m = pattern.search(value)
        if m and _only_wrapper_around(value, m):
            return _from_match(m)
    return None


def _only_wrapper_around(value: str, m: re.Match[str]) -> bool:
    # a URL or DOI may carry a scheme/host in front and a query or fragment after, nothing else
    before, after = value[: m.start()], value[m.end() :]
    return " " not in before.strip() and (not after or after[0] in "?#/")


def find_in_text(text: str) -> ArxivId | None:
    """The first arXiv id that free text (a note, a journal field) marks as one, or None."""
    for pattern in (_URL_RE, _DOI_RE, _LABEL_RE):
        for m in pattern.finditer(text):
            found = _from_match(m)
            if found is not None:
                return found
    return None


# Fields that hold only an id, or a URL/DOI that may be one; in the order they are trusted.
_ID_FIELDS: tuple[str, ...] = ("arxiv", "DOI", "URL")
# Fields of free text that may mention an id (`journal = {arXiv preprint arXiv:...}`).
_TEXT_FIELDS: tuple[str, ...] = ("container-title", "note", "number", "publisher", "links")
# Field names other readers keep as extras when they do not map them.
_EXTRA_ID_NAMES: frozenset[str] = frozenset({"arxiv", "arxivid", "arxiv_id", "arxiv-id", "eprint"})
_EXTRA_TEXT_NAMES: frozenset[str] = frozenset({"journal", "note", "url", "doi", "howpublished"})


def find_arxiv_id(entry: Entry) -> IdHit | None:
    """The arXiv id an entry holds, wherever it holds it, or None.

    Looks at the canonical `arxiv` field (with `arxiv-version`), an `eprint` whose `eprinttype`
    says arXiv, DOI and URL fields, DBLP's `volume = {abs/...}` beside `journal = {CoRR}`, free
    text in journal/note/number, and extras other readers kept (`arxivid`, `eprint`, ...).
    """
    fields = entry.fields
    if "arxiv" in fields:
        found = parse_arxiv_id(plain(fields["arxiv"]))
        if found is not None:
            if found.version is None and "arxiv-version" in fields:
                found = _with_version(found, plain(fields["arxiv-version"]))
            return IdHit(found, "arxiv")
    if "eprint" in fields and entry.get("eprinttype").strip().lower() in ("arxiv", ""):
        found = parse_arxiv_id(entry.get("eprint"))
        if found is not None:
            return IdHit(found, "eprint")
    for name in _ID_FIELDS[1:]:
        if name in fields:
            found = parse_arxiv_id(entry.get(name))
            if found is not None:
                return IdHit(found, name)
    if entry.get("container-title").strip().lower() == "corr":
        m = _CORR_RE.match(entry.get("volume").strip())
        if m:
            found = _from_match(m)
            if found is not None:
                return IdHit(found, "volume")
    for name in _TEXT_FIELDS:
        if name in fields:
            found = find_in_text(entry.get(name))
            if found is not None:
                return IdHit(found, name)
    return _find_in_extras(entry)


def _find_in_extras(entry: Entry) -> IdHit | None:
    for extra in entry.extra:
        lowered = extra.name.lower()
        if lowered in _EXTRA_ID_NAMES:
            found = parse_arxiv_id(extra.value)
            if found is not None:
                return IdHit(found, extra.name)
    for extra in entry.extra:
        if extra.name.lower() in _EXTRA_TEXT_NAMES:
            found = parse_arxiv_id(extra.value) or find_in_text(extra.value)
            if found is not None:
                return IdHit(found, extra.name)
    return None


def _with_version(found: ArxivId, version: str) -> ArxivId:
    text = version.strip().lstrip("vV")
    return ArxivId(found.id, int(text)) if text.isdigit() and int(text) > 0 else found


def split_version(text: str) -> tuple[str, int | None]:
    """`1605.08386v2` -> (`1605.08386`, 2); text that is no id comes back unchanged with None."""
    found = parse_arxiv_id(text)
    return (found.id, found.version) if found else (text, None)
