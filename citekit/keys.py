"""Citation keys: generate them from a small pattern language, check them, deduplicate them.

The default key is `{auth}{year}{title}` (`bethune2025shielded`): ASCII via anyascii, lowercase,
`[a-z][a-z0-9]*`, then `a`, `b` ... `z`, `aa` ... on collisions (compared case-insensitively).
Imports model, diagnostics and anyascii; never formats, pipeline or cli.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from anyascii import anyascii

from .diagnostics import Diagnostic, info, warning
from .model import Entry, Math, Name, Raw, Span, Text

__all__ = [
    "DEFAULT_PATTERN",
    "PATTERN_FIELDS",
    "PATTERN_HELP",
    "STOP_WORDS",
    "KeyAssignment",
    "assign_keys",
    "generate_key",
    "is_usable_key",
    "validate_pattern",
]

DEFAULT_PATTERN = "{auth}{year}{title}"

# Title words never used in a key: articles, prepositions and conjunctions in English, German,
# French, Spanish and Italian (in the spirit of Better BibTeX's skip words). Compared with the
# lowercased word before transliteration, so "Uber" is a word and "über" is not.
STOP_WORDS: tuple[str, ...] = tuple(
    sorted(
        set(
            # English
            """a about after an and as at but by do for from in into is it its nor of off on
            onto or out over per so some the to up via with yet"""
            # German
            """ am an auf aus bei das dem den der des die ein eine einem einen einer eines für
            im mit nach oder über um und vom von zu zum zur"""
            # French
            """ au aux avec d dans de des du en et l la le les ou par pour sans sur un une"""
            # Spanish
            """ al con del el las lo los para por sin una uno unos unas y"""
            # Italian
            """ ai al alla da dal dalla degli dei della delle di e ed fra gli i il nel nella o
            sul tra""".split()
        )
    )
)
_STOP = frozenset(STOP_WORDS)

# French and Italian elided articles and prepositions: "l'analyse" -> "analyse".
_ELIDED = frozenset("c d j l m n qu s t all dall dell nell sull un".split())

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")
# A word keeps inner hyphens, apostrophes and dots: Higher-Order, l'analyse, U.S., Node.js.
_TITLE_WORD = re.compile(r"\w[\w'’.-]*")
_APOSTROPHES = re.compile(r"['’]")
_INLINE_MATH = re.compile(r"\$[^$]*[\\^_{][^$]*\$")

# Keys bibtex, biber (under pdfLaTeX too, so ASCII only) and a bare pandoc `@key` all accept:
# ASCII letters, digits and `_`, with single `: . - / +` between them (pandoc ends a bare key at
# doubled or trailing punctuation; biber rejects `" # ' ( ) , = { } %` and whitespace).
_USABLE_KEY = re.compile(r"[A-Za-z0-9_]+(?:[:./+-][A-Za-z0-9_]+)*")
_LITERAL_TEXT = re.compile(r"[A-Za-z0-9_:./+-]*")


def is_usable_key(key: str) -> bool:
    """Whether bibtex, biber under pdfLaTeX and a bare pandoc citation all accept `key`.

    ASCII letters, digits and `_`, joined by single `:`, `.`, `-`, `/` or `+` (so `DBLP:conf/x`
    keys are usable; `a--b`, `a.`, `key with space`, `müller` and `a{b}` are not).
    """
    return _USABLE_KEY.fullmatch(key) is not None


# ---------------------------------------------------------------------------------------------
# Folding text to key material
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def _fold(text: str) -> str:
    """ASCII letters and digits only, case kept: `Béthune` -> `Bethune`, `王` -> `Wang`."""
    ascii_text = text if text.isascii() else anyascii(text)
    return _NOT_ALNUM.sub("", ascii_text)


def _plain_title(value: Text) -> str:
    """Title text with math and undecoded LaTeX left out (they make no key words)."""
    if isinstance(value, str):
        return _INLINE_MATH.sub(" ", value) if "$" in value else value
    parts: list[str] = []
    _collect_text(value.nodes, parts)
    return "".join(parts)


def _collect_text(nodes: Iterable[object], parts: list[str]) -> None:
    for node in nodes:
        if isinstance(node, str):
            parts.append(node)
        elif isinstance(node, Span):
            _collect_text(node.children, parts)
        elif isinstance(node, Math | Raw):
            parts.append(" ")


def _word_core(word: str) -> str:
    """Drop an elided article (`l'`, `dell'`); hyphens, apostrophes and dots go when folding."""
    word = word.strip("-'’_.")
    if "'" in word or "’" in word:
        head, rest = _APOSTROPHES.split(word, maxsplit=1)
        if head.lower() in _ELIDED and rest:
            word = rest
    return word


def _title_words(value: Text | None, limit: int) -> list[str]:
    """The title's first `limit` usable words, folded to ASCII (case kept); stop words and math
    skipped."""
    if value is None:
        return []
    words: list[str] = []
    for match in _TITLE_WORD.finditer(_plain_title(value)):
        word = match.group()
        if word.lower() in _STOP:
            continue
        word = _word_core(word)
        if not word or word.lower() in _STOP:
            continue
        folded = _fold(word)
        # a lone letter ("C Programming", "R: a language") would read like a collision suffix
        if folded and not (len(folded) == 1 and folded.isalpha()):
            words.append(folded)
            if len(words) == limit:
                break
    return words


def _name_words(name: Name) -> str:
    """A person's family name with particles, or a literal's first non-stop word, folded."""
    if name.literal:
        for match in _TITLE_WORD.finditer(name.literal):
            word = _word_core(match.group())
            if word and word.lower() not in _STOP and _fold(word):
                return _fold(word)
        return _fold(name.literal)
    parts = (name.dropping_particle, name.particle, name.family or name.given)
    return _fold(" ".join(p for p in parts if p))


def _people(entry: Entry) -> list[Name]:
    """Authors, else editors (the "and others" marker left out)."""
    for role in ("author", "editor"):
        people = [n for n in entry.names.get(role, []) if not n.others]
        if people:
            return people
    return []


def _has_more(entry: Entry, shown: int) -> bool:
    """More names than `shown`, or a list that ends in "and others"."""
    for role in ("author", "editor"):
        names = entry.names.get(role, [])
        real = sum(1 for n in names if not n.others)
        if real:
            return real > shown or real < len(names)
    return False


def _capitalise(word: str) -> str:
    return word[:1].upper() + word[1:]


# ---------------------------------------------------------------------------------------------
# The pattern language
# ---------------------------------------------------------------------------------------------

PATTERN_FIELDS: dict[str, str] = {
    "auth": "first author's family name with particles, lowercased (editor if no author; "
    "a corporate author's first word that is not a stop word; `anon` if none)",
    "Auth": "the same with its case kept and a capital first letter",
    "authorsN": "the first N family names lowercased, plus `etal` when there are more (N = 1-9)",
    "authors": "every family name, lowercased (at most 9, then `etal`)",
    "year": "the four-digit year of `issued` (`nd` if none)",
    "title": "first title word that is not a stop word, lowercased (nothing if none)",
    "Title": "the same with a capital first letter",
    "veryshorttitle": "the same as {Title} (JabRef's name for it)",
    "shorttitleN": "the first N title words that are not stop words, each capitalised (N = 1-9; "
    "{shorttitle} means 3)",
}

PATTERN_HELP = """\
Citation keys

By default every entry gets a generated key; with --keep-keys an existing key is kept when
bibtex, biber (under pdfLaTeX too) and pandoc all accept it. Keys are ASCII: names and title
words are transliterated with anyascii (Béthune -> bethune, Müller -> muller, Øster -> oster,
王 -> wang, Колмогоров -> kolmogorov); spaces, apostrophes, hyphens and other punctuation are
removed (van der Berg -> vanderberg, Higher-Order -> higherorder). Math in titles is skipped,
and so are single letters (they would look like collision suffixes).

Key pattern (--key-pattern): fields in braces, with literal text between them made of ASCII
letters, digits and _ : . - / +. The default is {auth}{year}{title}, e.g. bethune2025shielded.

  {auth}            first author's family name with particles, lowercased; the editor's when
                    there is no author; for a corporate author its first word that is not a
                    stop word ({The ATLAS Collaboration} -> atlas); `anon` when there is none
  {Auth}            the same with its case kept and a capital first letter
                    (van der Berg -> VanderBerg, McDonald -> McDonald)
  {authors2}        first two family names, plus `etal` when there are more ({authorsN}, N 1-9)
  {authors}         every family name (at most 9, then `etal`)
  {year}            four-digit year of the date issued (`nd` when there is none;
                    a negative year -44 gives 0044bc)
  {title}           first title word that is not a stop word, lowercased
  {Title}           the same, capital first letter ({veryshorttitle} is the same)
  {shorttitle3}     first 3 title words that are not stop words, each capitalised
                    ({shorttitleN}, N 1-9; {shorttitle} is {shorttitle3})

A key that would start with a digit (an author like {3M}) gets an `x` in front, so every
generated key starts with a letter. Repeated punctuation is collapsed and punctuation at the
ends dropped.

Duplicates are compared case-insensitively. The first entry in input order keeps the bare
key; later ones get a, b, ... z, aa, ab, ...; kept keys are reserved before generated ones.
Every change of key is reported (key.renamed) and listed by --key-map.
"""

_FIELD = re.compile(r"\{([A-Za-z]+?)(\d*)\}")
_NUMBERED = {"authors": None, "shorttitle": 3}
_PLAIN_FIELDS = ("auth", "Auth", "year", "title", "Title", "veryshorttitle")

Part = Callable[[Entry], str]


def _field_list() -> str:
    return (
        "{auth} {Auth} {authors} {authorsN} {year} {title} {Title} {veryshorttitle} "
        "{shorttitle} {shorttitleN}"
    )


def _auth(entry: Entry) -> str:
    people = _people(entry)
    return (_name_words(people[0]) if people else "").lower() or "anon"


def _auth_cap(entry: Entry) -> str:
    people = _people(entry)
    return _capitalise(_name_words(people[0]) if people else "") or "Anon"


def _year(entry: Entry) -> str:
    date = entry.dates.get("issued")
    if date is None or date.year is None or date.literal:
        return "nd"
    if date.year < 0:
        return f"{-date.year:04d}bc"
    return f"{date.year:04d}"


def _title(entry: Entry) -> str:
    words = _title_words(entry.fields.get("title"), 1)
    return words[0].lower() if words else ""


def _title_cap(entry: Entry) -> str:
    words = _title_words(entry.fields.get("title"), 1)
    return _capitalise(words[0]) if words else ""


_AUTHORS_CAP = 9  # {authors} on a 3000-author paper must still give a usable key


def _authors(count: int | None) -> Part:
    limit = _AUTHORS_CAP if count is None else count

    def part(entry: Entry) -> str:
        people = _people(entry)
        text = "".join(_name_words(n).lower() for n in people[:limit])
        if _has_more(entry, limit):
            text += "etal"
        return text or "anon"

    return part


def _shorttitle(count: int) -> Part:
    def part(entry: Entry) -> str:
        return "".join(_capitalise(w) for w in _title_words(entry.fields.get("title"), count))

    return part


_SIMPLE: dict[str, Part] = {
    "auth": _auth,
    "Auth": _auth_cap,
    "year": _year,
    "title": _title,
    "Title": _title_cap,
    "veryshorttitle": _title_cap,
}


def _field_part(name: str, digits: str) -> Part:
    if name in _SIMPLE and not digits:
        return _SIMPLE[name]
    if name in _NUMBERED:
        count = int(digits) if digits else _NUMBERED[name]
        if count is not None and not 1 <= count <= 9:
            raise ValueError(f"{{{name}{digits}}}: N must be 1-9")
        return _authors(count) if name == "authors" else _shorttitle(count)  # type: ignore[arg-type]
    raise ValueError(f"unknown key pattern field {{{name}{digits}}}; known fields: {_field_list()}")


@lru_cache(maxsize=64)
def _compile(pattern: str) -> tuple[str | Part, ...]:
    parts: list[str | Part] = []
    position = 0
    for match in _FIELD.finditer(pattern):
        _add_literal(parts, pattern[position : match.start()], pattern)
        parts.append(_field_part(match.group(1), match.group(2)))
        position = match.end()
    _add_literal(parts, pattern[position:], pattern)
    if not any(callable(p) for p in parts):
        raise ValueError(f"key pattern {pattern!r} has no field; known fields: {_field_list()}")
    return tuple(parts)


def _add_literal(parts: list[str | Part], text: str, pattern: str) -> None:
    if not text:
        return
    if "{" in text or "}" in text:
        raise ValueError(
            f"key pattern {pattern!r}: {text!r} is not a field; known fields: {_field_list()}"
        )
    if _LITERAL_TEXT.fullmatch(text) is None:
        raise ValueError(
            f"key pattern {pattern!r}: literal text {text!r} may only hold ASCII letters, "
            "digits and _ : . - / +"
        )
    parts.append(text)


def validate_pattern(pattern: str) -> None:
    """Raise ValueError (naming the known fields) if `pattern` is not a valid key pattern."""
    _compile(pattern)


_PUNCT_RUN = re.compile(r"([:./+-])[:./+-]+")


def _tidy(key: str) -> str:
    """Collapse repeated punctuation, drop it at the ends, make the key start with a letter."""
    key = _PUNCT_RUN.sub(r"\1", key).strip(":./+-")
    if not key:
        return "anon"
    return key if key[0].isalpha() else "x" + key


def generate_key(entry: Entry, pattern: str = DEFAULT_PATTERN) -> str:
    """The key `pattern` gives for `entry`, before any collision suffix."""
    parts = _compile(pattern)
    return _tidy("".join(p if isinstance(p, str) else p(entry) for p in parts))


# ---------------------------------------------------------------------------------------------
# Assigning keys to a whole bibliography
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyAssignment:
    """New entries (keys set, `original_key` kept), diagnostics, and (old, new) for every entry."""

    entries: list[Entry]
    diagnostics: list[Diagnostic]
    renames: list[tuple[str, str]]


def _suffix(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> aa, 27 -> ab (spreadsheet columns)."""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(97 + rest) + letters
    return letters


class _Registry:
    """Keys taken so far (case-insensitive), with where each base's suffix search resumes."""

    def __init__(self) -> None:
        self.taken: dict[str, int] = {}  # folded key -> index of the entry holding it
        self.next_suffix: dict[str, int] = {}

    def claim(self, key: str, index: int) -> bool:
        folded = key.lower()
        if folded in self.taken:
            return False
        self.taken[folded] = index
        return True

    def claim_with_suffix(self, base: str, index: int) -> str:
        folded = base.lower()
        n = self.next_suffix.get(folded, 0)
        while True:
            candidate = base + _suffix(n)
            n += 1
            if self.claim(candidate, index):
                self.next_suffix[folded] = n
                return candidate


def _where(entry: Entry) -> dict[str, object]:
    if entry.origin is None:
        return {}
    return {"source": entry.origin.source, "line": entry.origin.line}


# Entry types whose keys are references, not citations: kept as they are.
NEVER_RENAMED_TYPES: frozenset[str] = frozenset({"xdata"})


def assign_keys(
    entries: list[Entry], *, keep_keys: bool = False, pattern: str = DEFAULT_PATTERN
) -> KeyAssignment:
    """Give every entry a key: generated from `pattern`, or (with `keep_keys`) its own key when
    that key is usable. Same input, same keys; assigning again to the result changes nothing.

    Collisions are compared case-insensitively: the first holder in input order keeps the bare
    key, later ones get a, b, ... z, aa ...; kept keys are reserved before generated ones, and a
    kept key used twice gets a suffix on its later use (with a `key.duplicate` warning).
    Raises ValueError for an invalid pattern.
    """
    _compile(pattern)
    registry = _Registry()
    keys: list[str | None] = [None] * len(entries)
    diagnostics: list[Diagnostic] = []

    # 1. Kept keys first, in input order: the first holder keeps the bare key. biblatex @xdata
    # containers are never cited; other entries name them inside field values
    # (`author = {xdata=gxd2-author-1}`), so their keys are always kept.
    duplicates: list[int] = []
    for index, entry in enumerate(entries):
        if keep_keys or entry.source_type.lower() in NEVER_RENAMED_TYPES:
            if entry.key and is_usable_key(entry.key):
                if registry.claim(entry.key, index):
                    keys[index] = entry.key
                else:
                    duplicates.append(index)

    # 2. Everything else in input order; a bare key taken means the next free suffix.
    duplicate_set = set(duplicates)
    for index, entry in enumerate(entries):
        if keys[index] is not None:
            continue
        if index in duplicate_set:
            first = entries[registry.taken[entry.key.lower()]]
            key = registry.claim_with_suffix(entry.key, index)
            diagnostics.append(
                warning(
                    "key.duplicate",
                    f"key {entry.key!r} is already used by an earlier entry"
                    f"{_line_note(first)}; this one becomes {key!r}",
                    key=key,
                    **_where(entry),
                )
            )
        else:
            base = generate_key(entry, pattern)
            key = base if registry.claim(base, index) else registry.claim_with_suffix(base, index)
        keys[index] = key

    # 3. New entries, renames and one info per change of key.
    result: list[Entry] = []
    renames: list[tuple[str, str]] = []
    for entry, assigned in zip(entries, keys, strict=True):
        key = assigned or ""  # every slot was filled above
        renames.append((entry.key, key))
        if key == entry.key and entry.original_key:
            result.append(entry)
            continue
        original = entry.original_key or entry.key
        result.append(entry.evolve(key=key, original_key=original))
        if key != entry.key:
            diagnostics.append(
                info(
                    "key.renamed", _rename_message(entry, key, keep_keys), key=key, **_where(entry)
                )
            )
    return KeyAssignment(result, diagnostics, renames)


def _line_note(entry: Entry) -> str:
    return f" (line {entry.origin.line})" if entry.origin is not None else ""


def _rename_message(entry: Entry, key: str, keep_keys: bool) -> str:
    if not entry.key:
        return f"entry had no key; it gets {key!r}"
    if keep_keys and not is_usable_key(entry.key):
        return (
            f"key {entry.key!r} is not usable in bibtex, biber and pandoc alike; renamed to {key!r}"
        )
    return f"key {entry.key!r} renamed to {key!r}"
