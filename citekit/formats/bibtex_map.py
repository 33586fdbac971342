"""The BibTeX/BibLaTeX <-> citekit vocabulary tables: entry types both ways and the two-way
field table the reader and the writer share, so the directions cannot drift apart.

Part of the bibtex format; imports only model. Choices where tools disagree (formats.md §7) are
stated beside the rows. The ones that are not a row:
- A field given twice: the first is read (as BibTeX and biber do); the later ones are kept as
  extras and written back, with a `bibtex.duplicate-field` warning.
- Two fields for one variable (`journal` and `journaltitle`, `number` and `issue` on an
  article): the reading priority below decides, the other stays an extra, and the writer never
  picks a name an extra already holds with a higher priority (so both survive a round trip).
- `subtitle`, `titleaddon`, `maintitle`, `organization`, `howpublished`, `addendum`: no CSL
  variable means the same, so they stay extras (written back verbatim) rather than being
  joined into another field we could not split again.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from ..model import CSL_TYPES

# ---------------------------------------------------------------------------------------------
# Entry types
# ---------------------------------------------------------------------------------------------

# Bib(La)TeX type (lowercased) -> CSL type. Choices (formats.md §1.2, §7.2):
#   booklet -> pamphlet (pandoc; the more specific CSL type, and it maps back to booklet);
#   manual -> report (citation-js, Better BibTeX) and written back as @manual via source_type;
#   misc -> document (Zotero, citation-js; pandoc's empty type is not a CSL type).
READ_TYPES: dict[str, str] = {
    "article": "article-journal",
    "inproceedings": "paper-conference", "conference": "paper-conference",
    "proceedings": "book", "mvproceedings": "book",
    "book": "book", "mvbook": "book", "collection": "book", "mvcollection": "book",
    "reference": "book", "mvreference": "book",
    "inbook": "chapter", "incollection": "chapter", "bookinbook": "chapter",
    "suppbook": "chapter", "suppcollection": "chapter", "book_section": "chapter",
    "inreference": "entry-encyclopedia",
    "booklet": "pamphlet",
    "manual": "report",
    "techreport": "report", "report": "report",
    "mastersthesis": "thesis", "phdthesis": "thesis", "thesis": "thesis",
    "misc": "document", "generic": "document", "set": "document", "xdata": "document",
    "unpublished": "manuscript",
    "online": "webpage", "electronic": "webpage", "www": "webpage", "webpage": "webpage",
    "web_page": "webpage", "web": "webpage",
    "patent": "patent", "dataset": "dataset", "data": "dataset", "software": "software",
    "periodical": "periodical", "suppperiodical": "article-journal",
    "magazine_article": "article-magazine", "magazine": "article-magazine",
    "newspaper_article": "article-newspaper", "newspaper": "article-newspaper",
    "film": "motion_picture", "movie": "motion_picture", "video": "motion_picture",
    "audio": "song", "music": "song", "image": "graphic", "artwork": "graphic",
    "performance": "performance", "standard": "standard", "letter": "personal_communication",
    "legislation": "legislation", "legal": "legislation", "jurisdiction": "legal_case",
    "review": "review", "presentation": "speech",
}  # fmt: skip

# The types each dialect's writer may emit (source types outside these are re-mapped).
# Classic BibTeX: the 14 types every standard style defines (plain, plainnat, alpha...); any
# other type makes bibtex warn "entry type ... isn't style-file defined".
BIBTEX_TYPES: frozenset[str] = frozenset(
    """article book booklet conference inbook incollection inproceedings manual mastersthesis
    misc phdthesis proceedings techreport unpublished""".split()
)
BIBLATEX_TYPES: frozenset[str] = frozenset(
    """article book mvbook inbook bookinbook suppbook booklet collection mvcollection
    incollection suppcollection dataset manual misc online patent periodical suppperiodical
    proceedings mvproceedings inproceedings reference mvreference inreference report set
    software thesis unpublished xdata artwork audio image jurisdiction legal legislation letter
    movie music performance review standard video conference electronic mastersthesis
    phdthesis techreport www""".split()
)

# CSL type -> written type when no still-valid source type exists: (bibtex, biblatex).
WRITE_TYPES: dict[str, tuple[str, str]] = {
    "article-journal": ("article", "article"), "article-magazine": ("article", "article"),
    "article-newspaper": ("article", "article"),
    # CSL `article` is a preprint or an article with no venue: arXiv's own BibTeX export and
    # Better BibTeX write @misc; biblatex's type for it is @online (with eprint fields)
    "article": ("misc", "online"),
    "periodical": ("misc", "periodical"),
    "paper-conference": ("inproceedings", "inproceedings"),
    "book": ("book", "book"), "classic": ("book", "book"), "collection": ("book", "book"),
    "pamphlet": ("booklet", "booklet"),
    "report": ("techreport", "report"), "standard": ("techreport", "standard"),
    "manuscript": ("unpublished", "unpublished"),
    "webpage": ("misc", "online"), "post": ("misc", "online"), "post-weblog": ("misc", "online"),
    "patent": ("misc", "patent"), "dataset": ("misc", "dataset"),
    "software": ("misc", "software"),
    "entry-encyclopedia": ("incollection", "inreference"),
    "entry-dictionary": ("incollection", "inreference"), "entry": ("misc", "inreference"),
    "motion_picture": ("misc", "movie"), "song": ("misc", "audio"),
    "graphic": ("misc", "image"), "performance": ("misc", "performance"),
    "personal_communication": ("misc", "letter"), "legislation": ("misc", "legislation"),
    "legal_case": ("misc", "jurisdiction"), "review": ("article", "review"),
    "review-book": ("article", "review"),
}  # fmt: skip
# chapter and thesis depend on the entry (editor; genre): see bibtex_write.written_type.

# biblatex's entrysubtype for @article (pandoc writes it too); written back by the writer
ARTICLE_SUBTYPES: dict[str, str] = {"magazine": "article-magazine",
                                    "newspaper": "article-newspaper"}  # fmt: skip
SUBTYPE_OF: dict[str, str] = {v: k for k, v in ARTICLE_SUBTYPES.items()}

# Thesis genres: the default genre a thesis type implies, and biblatex's localisation keys.
THESIS_GENRES: dict[str, str] = {"phdthesis": "PhD thesis", "mastersthesis": "Master's thesis"}
GENRE_KEYS: dict[str, str] = {
    "phdthesis": "PhD thesis", "mathesis": "Master's thesis", "candthesis": "Candidate thesis",
    "techreport": "Technical report", "resreport": "Research report",
}  # fmt: skip
GENRE_TO_KEY: dict[str, str] = {v.lower(): k for k, v in GENRE_KEYS.items()}

# ---------------------------------------------------------------------------------------------
# Fields
# ---------------------------------------------------------------------------------------------

Kind = Literal["text", "verbatim", "page"]

ARTICLE_TYPES = frozenset({"article-journal", "article-magazine", "article-newspaper",
                           "article", "periodical", "review", "review-book"})  # fmt: skip
SERIES_NUMBER_TYPES = frozenset({"book", "chapter", "paper-conference", "pamphlet",
                                 "classic", "collection", "entry-encyclopedia",
                                 "entry-dictionary"})  # fmt: skip
REPORT_TYPES = frozenset({"report", "standard"})
THESIS_TYPES = frozenset({"thesis"})
_ALL: frozenset[str] = frozenset(CSL_TYPES)


@dataclass(frozen=True, slots=True)
class FieldRule:
    """One row: canonical variable <- BibTeX fields (priority order) for some CSL types, and the
    field each dialect writes it to (`bibtex`, `biblatex`)."""

    canonical: str
    read: tuple[str, ...]
    bibtex: str
    biblatex: str
    kind: Kind = "text"
    types: frozenset[str] = _ALL


def _rule(canonical: str, read: str, bibtex: str = "", biblatex: str = "", kind: Kind = "text",
          types: frozenset[str] = _ALL) -> FieldRule:  # fmt: skip
    names = tuple(read.split())
    return FieldRule(canonical, names, bibtex or names[0], biblatex or bibtex or names[0], kind,
                     types)  # fmt: skip


_NOT_ARTICLE = _ALL - ARTICLE_TYPES
_OTHER_NUMBER = _ALL - ARTICLE_TYPES - SERIES_NUMBER_TYPES

# Order here is the written field order for text fields.
FIELD_RULES: tuple[FieldRule, ...] = (
    _rule("title", "title"),
    _rule("title-short", "shorttitle"),
    _rule(
        "container-title",
        "journaltitle journal booktitle",
        "journal",
        "journaltitle",
        types=ARTICLE_TYPES,
    ),
    _rule("container-title", "booktitle journaltitle journal", "booktitle", types=_NOT_ARTICLE),
    _rule("container-title-short", "shortjournal"),
    _rule("event-title", "eventtitle"),
    _rule("event-place", "venue"),
    _rule("original-title", "origtitle"),
    _rule("collection-title", "series"),
    _rule("edition", "edition"),
    _rule("volume", "volume"),
    _rule("number-of-volumes", "volumes"),
    _rule("part", "part"),
    _rule("issue", "number issue", "number", types=ARTICLE_TYPES),
    _rule("issue", "issue", types=_NOT_ARTICLE),
    _rule("collection-number", "number", types=SERIES_NUMBER_TYPES),
    _rule("number", "number", types=_OTHER_NUMBER),
    _rule("chapter-number", "chapter"),
    _rule("page", "pages", kind="page"),
    _rule("number-of-pages", "pagetotal"),
    # school/institution/publisher: type decides which field a dialect writes (formats.md §2.1)
    _rule("publisher", "school institution publisher", "school", "institution", types=THESIS_TYPES),
    _rule("publisher", "institution school publisher", "institution", types=REPORT_TYPES),
    _rule(
        "publisher",
        "publisher institution school",
        "publisher",
        types=_ALL - THESIS_TYPES - REPORT_TYPES,
    ),
    _rule("publisher-place", "location address", "address", "location"),
    _rule("original-publisher", "origpublisher"),
    _rule("original-publisher-place", "origlocation"),
    _rule("genre", "type"),
    _rule("status", "pubstate"),
    _rule("version", "version"),
    _rule("language", "language langid"),
    _rule("ISBN", "isbn"),
    _rule("ISSN", "issn"),
    _rule("PMID", "pmid"),
    _rule("PMCID", "pmcid"),
    _rule("DOI", "doi", kind="verbatim"),
    _rule("URL", "url", kind="verbatim"),
    # further http(s) URLs (code, data) found in arXiv listing abstracts; `url` stays the
    # record's own page. Not printed by the standard styles, kept by bibtex and biber.
    _rule("links", "links", kind="verbatim"),
    _rule("keyword", "keywords"),
    _rule("abstract", "abstract"),
    _rule("note", "note"),
    _rule("annote", "annotation annote", "annote", "annotation"),
)

# name fields: BibTeX field -> CSL role (and back)
NAME_FIELDS: dict[str, str] = {
    "author": "author",
    "editor": "editor",
    "translator": "translator",
    "bookauthor": "container-author",
}
ROLE_FIELDS: dict[str, str] = {v: k for k, v in NAME_FIELDS.items()}
# date fields other than the issued group (date/year/month/day)
DATE_FIELDS: dict[str, str] = {"urldate": "accessed", "origdate": "original-date",
                               "eventdate": "event-date"}  # fmt: skip
ROLE_DATE_FIELDS: dict[str, str] = {v: k for k, v in DATE_FIELDS.items()}
ISSUED_FIELDS: frozenset[str] = frozenset({"date", "year", "month", "day"})

# eprint group (arXiv or another archive)
EPRINT_FIELDS: frozenset[str] = frozenset({"eprint", "eprinttype", "archiveprefix",
                                           "eprintclass", "primaryclass"})  # fmt: skip

# Fields whose body is never LaTeX-decoded (biblatex verbatim fields and file links).
VERBATIM_FIELDS: frozenset[str] = frozenset(
    {"doi", "url", "links", "eprint", "file", "pdf", "verba", "verbb", "verbc", "urlraw"}
)

# Fields that link entries; never inherited (biber's default inheritance exclusions).
LINK_FIELDS: frozenset[str] = frozenset({"crossref", "xdata", "xref"})
NOT_INHERITED: frozenset[str] = frozenset(
    """ids crossref xref xdata entryset entrysubtype execute label options presort related
    relatedoptions relatedstring relatedtype shorthand shorthandintro sortkey""".split()
)
# in*-type children take the parent's title as their booktitle (biblatex's inheritance rule)
IN_TYPES: frozenset[str] = frozenset(
    """inproceedings incollection inbook inreference bookinbook suppbook suppcollection
    conference""".split()
)

# Canonical variables with no row above (CSL's archive, medium, director... and citekit's
# journal-ref, arxiv-comment, links) have no field bibtex or biber accept: the writer leaves
# them out with an info diagnostic, and an unknown BibTeX field is always read as an extra.

# The written order of fields; anything not listed follows in its own order.
FIELD_ORDER: tuple[str, ...] = (
    "author", "editor", "translator", "bookauthor", "title", "shorttitle", "journal",
    "journaltitle", "booktitle", "shortjournal", "eventtitle", "venue", "eventdate",
    "origtitle", "series", "edition", "volume", "volumes", "part", "number", "issue",
    "chapter", "pages", "pagetotal", "school", "institution", "publisher", "address",
    "location", "origpublisher", "origlocation", "origdate", "date", "year", "month", "day",
    "type", "pubstate", "version", "language", "isbn", "issn", "pmid", "pmcid", "doi", "url",
    "urldate", "eprint", "eprinttype", "archiveprefix", "eprintclass", "primaryclass",
    "keywords", "abstract", "note", "annote", "annotation", "crossref", "xdata",
)  # fmt: skip
FIELD_RANK: dict[str, int] = {name: i for i, name in enumerate(FIELD_ORDER)}


@cache
def rules_for(csl_type: str) -> tuple[FieldRule, ...]:
    """The field rules that apply to entries of `csl_type`, in written order."""
    return tuple(rule for rule in FIELD_RULES if csl_type in rule.types)


@cache
def read_index(csl_type: str) -> dict[str, FieldRule]:
    """BibTeX field name (lowercase) -> the rule that reads it, for entries of `csl_type`."""
    index: dict[str, FieldRule] = {}
    for rule in rules_for(csl_type):
        for name in rule.read:
            index.setdefault(name, rule)
    return index
