"""Parse arXiv API Atom responses into frozen `ArxivRecord`s, safely and by namespace.

defusedxml refuses entity declarations and external entities; elements are found by namespace,
never by position (the 2025-11 server reordered them); whitespace in text is collapsed. A body
that is not an Atom feed is refused, never guessed at. Imports stdlib, errors, ids, defusedxml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as safe_et  # type: ignore[import-untyped]
from defusedxml import DefusedXmlException

from ..errors import ArxivError
from .ids import parse_arxiv_id

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

_ERROR_ID_RE = re.compile(r"/api/errors#")
# What an XML document may start with: BOM, whitespace, declaration, comment or element.
_XML_START_RE = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<(?:\?xml\b|!--|[A-Za-z_])")


class AtomError(ArxivError):
    """A response body that is not a usable Atom feed (HTML page, plain text, truncated XML,
    forbidden entities). `retryable` says whether asking again may help."""

    def __init__(self, message: str, *, retryable: bool = True, **where: object) -> None:
        super().__init__(message, **where)  # type: ignore[arg-type]
        self.retryable = retryable


@dataclass(frozen=True, slots=True)
class ArxivAuthor:
    name: str
    affiliations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArxivRecord:
    """One arXiv article as the API describes it (one version of it).

    `arxiv_id` has no version (`1605.08386`, `astro-ph/0601001`); `version` is the version the
    API returned. `published` is when v1 appeared, `updated` when this version did.
    `doi` is the publisher's DOI the authors supplied (never the 10.48550 arXiv DOI).
    """

    arxiv_id: str
    version: int
    title: str
    summary: str
    authors: tuple[ArxivAuthor, ...]
    published: datetime
    updated: datetime
    primary_category: str
    categories: tuple[str, ...] = ()
    comment: str | None = None
    journal_ref: str | None = None
    doi: str | None = None

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @property
    def abs_url(self) -> str:
        """The unversioned abstract page: it always shows the latest version."""
        return f"https://arxiv.org/abs/{self.arxiv_id}"

    @property
    def pdf_url(self) -> str:
        """The PDF of exactly this version."""
        return f"https://arxiv.org/pdf/{self.versioned_id}"

    @property
    def arxiv_doi(self) -> str:
        return f"10.48550/arXiv.{self.arxiv_id}"


@dataclass(frozen=True, slots=True)
class ApiErrorInfo:
    """The one entry of an error feed: the slug after `/api/errors#` and the message."""

    slug: str
    message: str


@dataclass(frozen=True, slots=True)
class Feed:
    """A parsed response: its records, `totalResults`, the query it echoes, and any API error."""

    records: tuple[ArxivRecord, ...]
    total_results: int | None
    query_title: str
    error: ApiErrorInfo | None = None
    # entries left out because they lack a usable id, title or date (legacy servers sent
    # id-less entries for unknown ids, arxiv.py #80); one message each, never silently
    skipped: tuple[str, ...] = ()


def collapse(text: str | None) -> str:
    """Runs of whitespace (legacy feeds hard-wrap at 80 columns) become one space; ends trimmed."""
    return " ".join(text.split()) if text else ""


def parse_feed(body: bytes, *, url: str = "") -> Feed:
    """Parse a response body (bytes, so the XML declaration decides the encoding).

    Raises `AtomError` for anything that is not a well-formed Atom feed; `retryable` is False
    for a body that forbidden entities make hostile, True for truncation and foreign pages.
    """
    if not _XML_START_RE.match(body[:512]):
        raise AtomError(f"not an Atom feed: {_preview(body)}", url=url)
    try:
        root = safe_et.fromstring(body, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise AtomError(f"refused XML ({type(exc).__name__})", retryable=False, url=url) from exc
    except ParseError as exc:
        raise AtomError(f"malformed XML ({exc})", url=url) from exc
    if root.tag != f"{ATOM}feed":
        raise AtomError(f"not an Atom feed: root element {root.tag!r}", url=url)
    entries = root.findall(f"{ATOM}entry")
    error = _error_of(entries)
    records: list[ArxivRecord] = []
    skipped: list[str] = []
    for entry in () if error else entries:
        try:
            records.append(_record(entry))
        except _BadEntry as exc:
            skipped.append(str(exc))
    return Feed(tuple(records), _int_of(root.find(f"{OPENSEARCH}totalResults")),
                collapse(root.findtext(f"{ATOM}title")), error, tuple(skipped))  # fmt: skip


class _BadEntry(ValueError):
    """An <entry> that cannot become a record; the feed notes it and goes on."""


def _preview(body: bytes) -> str:
    text = body[:60].decode("utf-8", "replace")
    return repr(collapse(text)) if text.strip() else "empty body"


def _error_of(entries: list[Element]) -> ApiErrorInfo | None:
    # by id, never by title: a real paper may be titled "Error" (manual §3.4)
    for entry in entries:
        entry_id = entry.findtext(f"{ATOM}id") or ""
        match = _ERROR_ID_RE.search(entry_id)
        if match:
            slug = entry_id[match.end() :]
            return ApiErrorInfo(slug, collapse(entry.findtext(f"{ATOM}summary")) or slug)
    return None


def _int_of(element: Element | None) -> int | None:
    if element is None or element.text is None:
        return None
    text = element.text.strip()
    return int(text) if text.isdigit() else None


def _record(entry: Element) -> ArxivRecord:
    raw_id = collapse(entry.findtext(f"{ATOM}id"))
    parsed = parse_arxiv_id(raw_id)
    if parsed is None or parsed.version is None:
        raise _BadEntry(f"entry id {raw_id!r} is not a versioned arXiv id")
    title = entry.findtext(f"{ATOM}title")
    if title is None:
        # old servers dropped <title>0</title> (arxiv.py #71); never treat falsy as missing
        raise _BadEntry(f"entry {raw_id} has no <title>")
    primary = entry.find(f"{ARXIV}primary_category")
    categories = tuple(c.get("term", "") for c in entry.findall(f"{ATOM}category"))
    return ArxivRecord(
        arxiv_id=parsed.id,
        version=parsed.version,
        title=collapse(title),
        summary=collapse(entry.findtext(f"{ATOM}summary")),
        authors=tuple(_author(a) for a in entry.findall(f"{ATOM}author")),
        published=_datetime(entry.findtext(f"{ATOM}published"), raw_id),
        updated=_datetime(entry.findtext(f"{ATOM}updated"), raw_id),
        primary_category=(primary.get("term", "") if primary is not None else "")
        or (categories[0] if categories else ""),
        categories=tuple(c for c in categories if c),
        comment=collapse(entry.findtext(f"{ARXIV}comment")) or None,
        journal_ref=collapse(entry.findtext(f"{ARXIV}journal_ref")) or None,
        doi=collapse(entry.findtext(f"{ARXIV}doi")) or _doi_link(entry),
    )


def _author(element: Element) -> ArxivAuthor:
    affiliations = tuple(
        collapse(a.text) for a in element.findall(f"{ARXIV}affiliation") if collapse(a.text)
    )
    return ArxivAuthor(collapse(element.findtext(f"{ATOM}name")), affiliations)


def _doi_link(entry: Element) -> str | None:
    # the 2025-11 regression dropped title="doi" (arxiv.py #181): recognise the link by its href
    for link in entry.findall(f"{ATOM}link"):
        href = link.get("href", "")
        if "doi.org/" in href and link.get("rel") == "related":
            return href.split("doi.org/", 1)[1] or None
    return None


def _datetime(text: str | None, raw_id: str) -> datetime:
    value = collapse(text)
    try:
        return datetime.fromisoformat(value)
    except ValueError as exc:
        raise _BadEntry(f"entry {raw_id}: unreadable date {value!r}") from exc
