"""Finding an entry's arXiv record by title: query building, title normalisation and scoring.

Precision comes first (a wrong paper must never be merged): a candidate needs a near-identical
normalised title, an author in common when the entry names any, and a plausible year; two close
candidates make the lookup ambiguous. Imports model, names, atom; never requests or the client.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from ..model import Entry, Name, plain
from ..names import parse_display_name
from .atom import ArxivRecord

_MATH_RE = re.compile(r"\$[^$]*\$")
_COMMAND_RE = re.compile(r"\\(?:[A-Za-z]+\*?|.)")
_COMMAND_ARG_RE = re.compile(r"\\[A-Za-z]{2,}\*?\s*\{")
# accents (`\"o`, `\'e`, `\c{c}`) vanish without a space, so `Schr\"odinger` stays one word
_ACCENT_RE = re.compile(r"\\[\"'`^~=.]|\\[cvHudbkrt](?=[{\s])")
_NON_WORD_RE = re.compile(r"[\W_]+")
# Greek letters are the math users and arXiv most often write either way (`$\mu$P`, `μP`)
_GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau "
    "upsilon phi chi psi omega"
).split()
_GREEK_RE = re.compile(
    r"\\(var)?(" + "|".join(_GREEK) + r"|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|"
    r"Upsilon|Phi|Psi|Omega)(?![A-Za-z])"
)
_ASCII_WORD_RE = re.compile(r"\A[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*\Z")
_DASH_RE = re.compile(r"[\u2010-\u2015\u2212]")
_EDGE_PUNCT = ".,:;!?\"'`()[]{}<>«»“”‘’"
_AUTHOR_RE = re.compile(r"\A[A-Za-z]+(?: [A-Za-z]+)*\Z")

MAX_QUERY_WORDS = 12  # long exact phrases can miss (stemming, edited titles): a prefix suffices


@lru_cache(maxsize=4096)
def normalize_title(text: str) -> str:
    """Title reduced for comparison: TeX commands and `$` dropped, accents folded, lowercase,
    punctuation gone, single spaces. `Schr\\"odinger` and `Schrödinger` compare equal."""
    text = _GREEK_RE.sub(lambda m: unicodedata.lookup(_greek_name(m[2])), text)
    text = _COMMAND_RE.sub(" ", _ACCENT_RE.sub("", text))
    text = text.replace("{", "").replace("}", "").replace("$", "")
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(_NON_WORD_RE.sub(" ", text).split())


def _greek_name(command: str) -> str:
    case = "CAPITAL" if command[0].isupper() else "SMALL"
    letter = {"lambda": "LAMDA"}.get(command.lower(), command.upper())
    return f"GREEK {case} LETTER {letter}"


def title_similarity(a: str, b: str) -> float:
    """Similarity of two normalised titles in [0, 1] (difflib's ratio on characters)."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


# ---------------------------------------------------------------------------------------------
# Query building (arxiv-api.md §1: hyphens act as NOT, colons confuse the parser, unquoted words
# match separately). Each run of plain ASCII words becomes one quoted title phrase; anything
# else (math, TeX commands, words with accents or apostrophes) ends the phrase and is left out.
# ---------------------------------------------------------------------------------------------


def title_phrases(title: str) -> list[list[str]]:
    """The title as runs of lower-case ASCII words safe to quote in `ti:"..."`."""
    title = _DASH_RE.sub("-", title)  # Sturm–Liouville searches like Sturm-Liouville
    # math is glued to its neighbours (`$\mu$P`) so that a word touching it is left out too
    text = _MATH_RE.sub("\x00", title)
    # `\emph{...}` keeps its argument as words; other commands (`\"o`) spoil their word
    text = _COMMAND_ARG_RE.sub(" \x00 ", text)
    text = _COMMAND_RE.sub("\x00", text).replace("{", "").replace("}", "")
    phrases: list[list[str]] = [[]]
    for token in text.split():
        word = token.strip(_EDGE_PUNCT)
        if word and _ASCII_WORD_RE.match(word):
            phrases[-1].extend(re.split(r"[-/]", word.lower()))
            if token[-1] in "\"'()[]":
                phrases.append([])  # a closing quote or bracket ends a phrase
        elif word or "\x00" in token:
            phrases.append([])
    return [p for p in phrases if p]


def author_term(name: Name | None) -> str:
    """`au:` term for a family name, or "" when it is not plain ASCII letters (a query with an
    accent or apostrophe may silently match nothing; scoring still checks the author)."""
    if name is None or name.others:
        return ""
    family = name.literal or name.family
    if not _AUTHOR_RE.match(family):
        return ""
    # arXiv's own syntax for multi-word surnames: au:del_maestro
    return "au:" + family.lower().replace(" ", "_")


def title_query(title: str, first_author: Name | None = None) -> str:
    """`ti:"w1 w2" AND ti:"w4" [AND au:family]`, or "" when the title has no searchable words."""
    phrases: list[str] = []
    budget = MAX_QUERY_WORDS
    for words in title_phrases(title):
        if budget <= 0:
            break
        words = words[:budget]
        budget -= len(words)
        phrases.append('ti:"' + " ".join(words) + '"')
    if not phrases:
        return ""
    author = author_term(first_author)
    return " AND ".join(phrases + ([author] if author else []))


def combine_queries(queries: list[str]) -> str:
    """Several title queries OR-ed into one search (one request for several entries)."""
    return " OR ".join(f"({q})" for q in queries)


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------

MIN_TITLE = 0.90  # with an author in common
MIN_TITLE_ALONE = 0.97  # without any author to confirm
MIN_WORDS_ALONE = 4  # short titles ("0", "Deep Learning") never match on title alone
MAX_SUSPECT_TITLE = 0.5  # an id whose record shares neither title nor author is a typo
AMBIGUITY_MARGIN = 0.03


@dataclass(frozen=True, slots=True)
class Score:
    """How well a record fits an entry, and whether it may be merged (`reason` when not)."""

    record: ArxivRecord
    title: float
    authors: float | None  # share of the entry's authors found on the record; None: none known
    year_ok: bool | None  # None: the entry has no year
    value: float
    acceptable: bool
    reason: str = ""


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if c.isalnum() and not unicodedata.combining(c)).lower()


def name_key(name: Name) -> str:
    """A surname key robust to how the name was split: the last word of the family name,
    folded ("Del Maestro" and arXiv's "Adrian Del Maestro" -> "maestro")."""
    if name.literal:
        return _fold(name.literal)
    words = name.family.split()
    return _fold(words[-1]) if words else ""


@lru_cache(maxsize=65536)
def display_name_key(display: str) -> str:
    return name_key(parse_display_name(display))


def entry_authors(entry: Entry) -> list[Name]:
    """The entry's named authors (editors when it has none), without the incomplete mark."""
    names = entry.names.get("author") or entry.names.get("editor") or []
    return [n for n in names if not n.others]


def author_overlap(entry_names: list[Name], record: ArxivRecord) -> float | None:
    keys = {k for k in (name_key(n) for n in entry_names[:20]) if k}
    if not keys:
        return None
    record_keys = {display_name_key(a.name) for a in record.authors}
    return len(keys & record_keys) / len(keys)


def year_plausible(year: int | None, record: ArxivRecord) -> bool | None:
    # a journal version can appear a year or two after v1; an entry can cite a later version
    if year is None:
        return None
    return record.published.year - 1 <= year <= record.updated.year + 2


def score(entry: Entry, record: ArxivRecord) -> Score:
    """Score `record` as the arXiv version of `entry` (title, authors, year)."""
    entry_title = normalize_title(plain(entry.fields.get("title", "")))
    record_title = normalize_title(record.title)
    similarity = title_similarity(entry_title, record_title)
    overlap = author_overlap(entry_authors(entry), record)
    issued = entry.dates.get("issued")
    year_ok = year_plausible(issued.year if issued else None, record)
    value = 0.6 * similarity + 0.3 * (overlap if overlap is not None else 0.0)
    value += 0.1 * (1.0 if year_ok else 0.5 if year_ok is None else 0.0)
    reason = _refusal(entry_title, record_title, similarity, overlap, year_ok)
    return Score(record, similarity, overlap, year_ok, round(value, 4), not reason, reason)


_ROMAN = frozenset(
    "i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx".split()
)


def _markers(title: str) -> frozenset[str]:
    """Numbers and roman numerals: what tells apart the parts of a series ("Planck 2013
    results. XV", "... helium-4" vs "helium-3"), which similarity alone cannot."""
    return frozenset(w for w in title.split() if w.isdigit() or w in _ROMAN)


# words whose presence or absence does not make another paper ("A theory of X" = "Theory of X")
_FILLER = frozenset("a an the of on in for and to".split())


def _spelling_only(a: str, b: str) -> bool:
    """Whether two titles differ only in spelling (optimisation/optimization, walk/walks) or
    filler words; an added or removed word ("not", "revisited", "towards") is another paper
    as far as we can tell, and similarity alone lets it through."""
    only_a = Counter(a.split()) - Counter(b.split())
    only_b = list((Counter(b.split()) - Counter(a.split())).elements())
    for word in only_a.elements():
        partner = next((w for w in only_b if _close(word, w)), None)
        if partner is not None:
            only_b.remove(partner)
        elif word not in _FILLER:
            return False
    return all(w in _FILLER for w in only_b)


def _close(a: str, b: str) -> bool:
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.75


def _refusal(
    title: str, other: str, similarity: float, overlap: float | None, year_ok: bool | None
) -> str:
    if year_ok is False:
        return "year too far from the arXiv dates"
    if overlap == 0:
        return "no author in common"
    if _markers(title) != _markers(other):
        return "the titles differ in a number"
    if min(len(title.split()), len(other.split())) < MIN_WORDS_ALONE and title != other:
        return "short titles must be identical"
    if title != other and not _spelling_only(title, other):
        return "the titles differ in words, not only in spelling"
    if overlap is not None:
        return "" if similarity >= MIN_TITLE else f"title similarity {similarity:.2f}"
    if len(title.split()) < MIN_WORDS_ALONE:
        return "title too short to identify a paper without an author"
    return "" if similarity >= MIN_TITLE_ALONE else f"title similarity {similarity:.2f}"


def id_record_suspect(entry: Entry, record: ArxivRecord) -> str:
    """Why the record found by the entry's own id looks like another paper, or "".

    Only when the entry's title is clearly different *and* no author confirms it: a typo in an
    id must not pull in an unrelated paper, but a retitled v2 must still merge.
    """
    title = normalize_title(plain(entry.fields.get("title", "")))
    if not title:
        return ""
    similarity = title_similarity(title, normalize_title(record.title))
    overlap = author_overlap(entry_authors(entry), record)
    if similarity < MAX_SUSPECT_TITLE and not overlap:
        return f"title similarity {similarity:.2f} and no author in common"
    return ""


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of a title lookup: `matched` (record set), `ambiguous` or `none`."""

    outcome: str  # "matched" | "ambiguous" | "none"
    best: Score | None = None
    rivals: tuple[Score, ...] = ()


def decide(entry: Entry, candidates: list[ArxivRecord] | tuple[ArxivRecord, ...]) -> Decision:
    """Pick the record for `entry` among search results, or say why none can be picked."""
    seen: dict[str, Score] = {}
    for record in candidates:
        current = seen.get(record.arxiv_id)
        scored = score(entry, record)
        if current is None or scored.value > current.value:
            seen[record.arxiv_id] = scored
    ranked = sorted(seen.values(), key=lambda s: s.value, reverse=True)
    good = [s for s in ranked if s.acceptable]
    if not good:
        return Decision("none", ranked[0] if ranked else None)
    close = [s for s in good[1:] if s.value >= good[0].value - AMBIGUITY_MARGIN]
    if close:
        return Decision("ambiguous", good[0], tuple(close))
    return Decision("matched", good[0])
