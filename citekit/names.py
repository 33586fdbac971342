"""Personal and corporate names: parse and format them for BibTeX, CSL-JSON, RIS and arXiv.

BibTeX names follow BibTeX's own rules (`First von Last`, `von Last, First`, `von Last, Jr,
First`, von found by case at brace depth 0) plus biblatex's extended `family=..., given=...` form.
Imports model and latex only; never formats, keys or anything above.

Particle policy: BibTeX's von part becomes `Name.particle`, CSL's *non-dropping* particle
(citation-js's choice, and what "van Gogh"-style names need for sorting). Only an explicit
biblatex `useprefix=false` (per name, per name list or per entry) yields a `dropping_particle`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import latex
from .model import OTHERS, Name

__all__ = [
    "parse_bibtex_names",
    "format_bibtex_name",
    "format_bibtex_names",
    "format_bibtex_names_checked",
    "parse_ris_name",
    "format_ris_name",
    "name_from_csl",
    "name_to_csl",
    "parse_display_name",
]

# ---------------------------------------------------------------------------------------------
# BibTeX: lexical helpers
# ---------------------------------------------------------------------------------------------

_AND_PLAIN = re.compile(r"\s+and(?=\s)", re.IGNORECASE)
_AND_AT = re.compile(r"and\s", re.IGNORECASE)
_NEEDS_DECODE = re.compile(r"[\\{}$~]")
_NEEDS_LATEX = re.compile(r"[\\$~]|--")
_SPACE_RUN = re.compile(r"\s+")
# The control-sequence names BibTeX treats as letters in their own right (`{\ae}`, `{\OE}`...).
_FOREIGN_LETTERS = frozenset(
    {"oe", "OE", "ae", "AE", "aa", "AA", "o", "O", "l", "L", "ss", "i", "j"}
)


def _split_and(value: str) -> list[str]:
    """Split a name list on the word `and` at brace depth 0 (any case, any whitespace).

    The value is padded so a leading "and " or trailing " and" yields an empty name to report.
    """
    value = f" {value} "
    if "{" not in value:
        return [piece.strip() for piece in _AND_PLAIN.split(value)]
    pieces: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and c.isspace():
            j = i
            while j < n and value[j].isspace():
                j += 1
            if _AND_AT.match(value, j):
                pieces.append(value[start:i].strip())
                start = i = j + 3  # the whitespace after "and" may precede another "and"
                continue
            i = j
            continue
        i += 1
    pieces.append(value[start:].strip())
    return pieces


def _split_words(name: str) -> tuple[list[list[str]], bool]:
    """Words of each comma-separated part (commas at depth 0); whitespace and `~` separate words.

    Returns the parts and whether the braces balanced.
    """
    parts: list[list[str]] = [[]]
    word: list[str] = []
    depth = 0
    balanced = True
    for c in name:
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                balanced = False
                continue
            depth -= 1
        elif depth == 0 and (c.isspace() or c == "~" or c == ","):
            if word:
                parts[-1].append("".join(word))
                word = []
            if c == ",":
                parts.append([])
            continue
        word.append(c)
    if word:
        parts[-1].append("".join(word))
    if depth:
        balanced = False
    return parts, balanced


def _special_char_case(word: str, i: int) -> str | None:
    """Case of a `{\\...}` group starting at word[i] == '\\', decided as BibTeX does."""
    n = len(word)
    j = i + 1
    if j < n and word[j].isalpha():
        k = j
        while k < n and word[k].isalpha():
            k += 1
        command = word[j:k]
        if command in _FOREIGN_LETTERS:
            return "lower" if command[0].islower() else "upper"
        j = k
    else:
        j += 1  # a control symbol such as \' or \"
    depth = 1
    while j < n and depth > 0:
        c = word[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c.isalpha():
            return "lower" if c.islower() else ("upper" if c.isupper() else None)
        j += 1
    return None


def _word_case(word: str) -> str | None:
    """`lower`, `upper` or None (caseless), judged at brace depth 0 as BibTeX judges von words."""
    depth = 0
    i = 0
    n = len(word)
    while i < n:
        c = word[i]
        if c == "{":
            if depth == 0 and i + 1 < n and word[i + 1] == "\\":
                return _special_char_case(word, i + 1)
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and c.isalpha():
            if c.islower():
                return "lower"
            if c.isupper():
                return "upper"
        i += 1
    return None


def _is_von(word: str) -> bool:
    return _word_case(word) == "lower"


def _decode(text: str) -> str:
    """Plain Unicode for one name part; a fast path skips the LaTeX decoder for plain text."""
    if not text:
        return ""
    if _NEEDS_DECODE.search(text) is None:
        return text
    if _NEEDS_LATEX.search(text) is None:  # only braces: dropping them is the whole decoding
        return text.replace("{", "").replace("}", "")
    return _SPACE_RUN.sub(" ", latex.decode_plain(text)).strip()


def _is_one_group(text: str) -> bool:
    """True when `text` is exactly one brace group `{...}` (its first brace closes at the end)."""
    if len(text) < 2 or text[0] != "{" or text[-1] != "}":
        return False
    depth = 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


# ---------------------------------------------------------------------------------------------
# BibTeX: parsing
# ---------------------------------------------------------------------------------------------

_EXTENDED_KEY = re.compile(r"\s*([A-Za-z][A-Za-z-]*)\s*=\s*(.*)\Z", re.DOTALL)
_EXTENDED_KNOWN = frozenset({"family", "given", "prefix", "suffix", "useprefix"})
_EXTENDED_START = re.compile(r"\s*(family|given|prefix|suffix|useprefix|id)\s*=", re.IGNORECASE)


def _split_parts_raw(name: str) -> list[str]:
    """Comma-separated parts at depth 0, as raw substrings (for the extended name format)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(name):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            parts.append(name[start:i])
            start = i + 1
    parts.append(name[start:])
    return parts


def _strip_group(value: str) -> str:
    value = value.strip()
    return value[1:-1].strip() if _is_one_group(value) else value


def _read_bool(value: str, what: str, problems: list[str]) -> bool | None:
    text = value.strip().lower()
    if text in ("true", ""):  # biblatex reads a bare `useprefix` as true
        return True
    if text == "false":
        return False
    problems.append(f"{what}={value.strip()!r} is not true or false; ignored")
    return None


def _list_options(piece: str, problems: list[str]) -> bool | None | str:
    """biblatex's per-list options given as the first "name" (`useprefix=false and ...`).

    Returns the list's useprefix (True/False/None), or "" when `piece` is not an options name.
    """
    parts = [p for p in _split_parts_raw(piece) if p.strip()]
    matches = [_EXTENDED_KEY.match(p) for p in parts]
    if not parts or any(m is None for m in matches):
        return ""
    keys = [m.group(1).lower() for m in matches if m is not None]
    if any(k in ("family", "given", "prefix", "suffix") for k in keys):
        return ""
    useprefix: bool | None = None
    for key, match in zip(keys, matches, strict=True):
        if key == "useprefix":
            useprefix = _read_bool(match.group(2), "useprefix", problems)  # type: ignore[union-attr]
        else:
            problems.append(f"biblatex name-list option {key!r} is not kept")
    return useprefix


def _with_useprefix(name: Name, useprefix: bool | None) -> Name:
    """Apply biblatex's useprefix: false makes the von part a dropping particle."""
    if useprefix is False and name.particle:
        return Name(name.family, name.given, "", name.particle, name.suffix)
    return name


def _parse_extended(name: str, problems: list[str], useprefix: bool | None) -> Name:
    """biblatex's `family=Berg, given=Jan, prefix=van der, useprefix=true, suffix=Jr` form."""
    values: dict[str, str] = {}
    for raw_part in _split_parts_raw(name):
        if not raw_part.strip():
            continue
        match = _EXTENDED_KEY.match(raw_part)
        if match is None:
            problems.append(f"name part {raw_part.strip()!r} in {name!r} is not key=value; ignored")
            continue
        key = match.group(1).lower()
        if key not in _EXTENDED_KNOWN:
            problems.append(f"biblatex name key {key!r} in {name!r} is not kept")
            continue
        values[key] = _strip_group(match.group(2))
    prefix = _SPACE_RUN.sub(" ", _decode(values.get("prefix", ""))).strip()
    if "useprefix" in values:
        own = _read_bool(values["useprefix"], "useprefix", problems)
        useprefix = useprefix if own is None else own
    dropping = prefix if useprefix is False else ""
    result = Name(
        family=_norm(_decode(values.get("family", ""))),
        given=_norm(_decode(values.get("given", ""))),
        particle="" if dropping else prefix,
        dropping_particle=dropping,
        suffix=_norm(_decode(values.get("suffix", ""))),
    )
    if not (result.family or result.given):
        problems.append(f"name {name!r} has neither family nor given part")
    return result


def _norm(text: str) -> str:
    return _SPACE_RUN.sub(" ", text).strip()


def _join(words: list[str]) -> str:
    return _decode(" ".join(words))


def _rsplit_von(words: list[str]) -> tuple[list[str], list[str]]:
    """von/Last split of a `von Last` run: von ends at the last lowercase word but the final one."""
    if not words:
        return [], []
    candidates = words[:-1]
    cut = 0
    for i, word in enumerate(candidates):
        if _is_von(word):
            cut = i + 1
    return words[:cut], words[cut:]


def _parse_one(name: str, problems: list[str], useprefix: bool | None) -> Name | None:
    """One name by BibTeX's rules; None (with a problem) when nothing usable is there."""
    text = name.strip()
    if not text:
        problems.append("empty name in name list")
        return None
    if text == "others":
        return OTHERS
    # One brace group is a corporate name, unless it is a lone special character (`{\O}`);
    # `{\LaTeX{} Project Team}` starts with a command but is still a name of several words.
    if _is_one_group(text) and (not text.startswith("{\\") or _SPACE_RUN.search(text)):
        literal = _norm(_decode(text[1:-1]))
        if not literal:
            problems.append("empty braced name in name list")
            return None
        return Name(literal=literal)
    if "=" in text and _EXTENDED_START.match(text):
        return _parse_extended(text, problems, useprefix)

    parts, balanced = _split_words(text)
    if not balanced:
        problems.append(f"unbalanced braces in name {text!r}")
    if len(parts) > 3:
        problems.append(
            f"too many commas in name {text!r}; parts after the second comma read as First"
        )
        parts = [parts[0], parts[1], [w for p in parts[2:] for w in p]]

    if len(parts) == 1:
        words = parts[0]
        first_at = next((i for i, w in enumerate(words) if _is_von(w)), len(words))
        first, von_last = words[:first_at], words[first_at:]
        if not von_last and first:
            von_last = [first.pop()]
        von, last = _rsplit_von(von_last)
        jr: list[str] = []
    else:
        von, last = _rsplit_von(parts[0])
        if len(parts) == 2:
            jr, first = [], parts[1]
        else:
            jr, first = parts[1], parts[2]
        if not parts[0]:
            problems.append(f"name {text!r} has nothing before its comma (no last name)")

    result = Name(family=_join(last), given=_join(first), particle=_join(von), suffix=_join(jr))
    if not (result.family or result.given or result.particle):
        problems.append(f"name {text!r} is empty")
        return None
    return _with_useprefix(result, useprefix)


@lru_cache(maxsize=65536)
def _parse_names_cached(
    value: str, useprefix: bool | None
) -> tuple[tuple[Name, ...], tuple[str, ...]]:
    problems: list[str] = []
    names: list[Name] = []
    if not value.strip():
        return (), ()
    pieces = _split_and(value)
    if "=" in pieces[0]:
        options = _list_options(pieces[0], problems)
        if options != "":
            pieces = pieces[1:]
            useprefix = useprefix if options is None else options  # type: ignore[assignment]
    for index, piece in enumerate(pieces):
        parsed = _parse_one(piece, problems, useprefix)
        if parsed is None:
            continue
        if parsed.others and index != len(pieces) - 1:
            problems.append("'others' is not the last name in the list")
        names.append(parsed)
    return tuple(names), tuple(problems)


def parse_bibtex_names(
    value: str, *, useprefix: bool | None = None
) -> tuple[list[Name], list[str]]:
    """Parse a BibTeX/biblatex name list (field body, macros resolved) into names and problems.

    `and others` becomes `model.OTHERS`; a name that is one brace group becomes a literal.
    The von part is a non-dropping particle unless biblatex's useprefix is false: per name (the
    extended form), per list (a first "name" of options, `useprefix=false and ...`), or for the
    entry (`useprefix=False`, from `options = {useprefix=false}`), the nearest one winning.
    Results are cached per raw string: names repeat a lot in real libraries.
    """
    names, problems = _parse_names_cached(value, useprefix)
    return list(names), list(problems)


# ---------------------------------------------------------------------------------------------
# BibTeX: formatting
# ---------------------------------------------------------------------------------------------

_TEX_SPECIAL = re.compile(r"[\\{}$&%#_~^\u00a0]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_AND_WORD = re.compile(r"(?:^|\s)and(?:\s|$)", re.IGNORECASE)


def _encode(text: str, ascii: bool, problems: list[str]) -> str:
    if not text:
        return ""
    if _TEX_SPECIAL.search(text) is None and not (ascii and _NON_ASCII.search(text)):
        return text
    encoded, found = latex.encode(text, ascii=ascii)
    problems.extend(found)
    return encoded


def _has_depth0(text: str, pattern: re.Pattern[str]) -> bool:
    """Whether `pattern` matches text outside braces (braced content blanked first)."""
    if "{" not in text:
        return pattern.search(text) is not None
    flat: list[str] = []
    depth = 0
    for c in text:
        if c == "{":
            depth += 1
            flat.append(" ")
        elif c == "}":
            depth = max(0, depth - 1)
            flat.append(" ")
        else:
            flat.append(c if depth == 0 else "x")
    return pattern.search("".join(flat)) is not None


_COMMA = re.compile(",")


def _guard(part: str) -> str:
    """Brace a part that holds a comma or the word `and` where BibTeX would split on them."""
    if part and (_has_depth0(part, _COMMA) or _has_depth0(part, _AND_WORD)):
        return "{" + part + "}"
    return part


def _guard_family(family: str) -> str:
    """Brace a family name with a lowercase word: BibTeX would read the words before the last
    one as von, and biber even a lone lowercase family ("hooks, bell") as a prefix."""
    family = _guard(family)
    if _is_one_group(family):
        return family
    words, _ = _split_words(family)
    if any(_is_von(w) for w in words[0]):
        return "{" + family + "}"
    return family


def _format_classic(name: Name, ascii: bool, problems: list[str]) -> str:
    particle = " ".join(p for p in (name.dropping_particle, name.particle) if p)
    if name.dropping_particle:
        problems.append(
            f"dropping particle {name.dropping_particle!r} of {name.family!r} written as the von "
            "part; classic BibTeX cannot mark a particle as dropping (biblatex can)"
        )
    von = _encode(particle, ascii, problems)
    family_text = _encode(name.family or name.given, ascii, problems)
    family = _guard_family(family_text)
    given = _guard(_encode(name.given if name.family else "", ascii, problems))
    suffix = _guard(_encode(name.suffix, ascii, problems))
    if not name.family and name.given:
        problems.append(f"name with only a given name ({name.given!r}) written as a last name")
    von_last = f"{von} {family}" if von else family
    if suffix:
        # bibtex rejects a name ending in a comma, so an absent First is an empty group
        return f"{von_last}, {suffix}, {given or '{}'}"
    if given:
        return f"{von_last}, {given}"
    if von and _is_von(_split_words(von)[0][0][0]):
        return von_last
    # Family only: a lone word stays bare (even "hooks": bibtex and biber read it as Last).
    # Several words must be braced or BibTeX reads them as First Last; braced, BibTeX cannot
    # tell them from a corporate name, so they read back as a literal (a trailing comma would
    # keep them apart, but bibtex rejects it). A capitalised particle joins them: "De Gaulle"
    # alone would read as First "De", Last "Gaulle".
    family = _guard(f"{von} {family_text}" if von else family_text)
    words, _ = _split_words(family)
    if len(words[0]) > 1 or family == "others":
        return "{" + family + "}"
    return family


def _format_extended(name: Name, ascii: bool, problems: list[str]) -> str:
    fields: list[str] = []
    if name.family:
        fields.append("family={" + _encode(name.family, ascii, problems) + "}")
    if name.given:
        fields.append("given={" + _encode(name.given, ascii, problems) + "}")
    prefix = " ".join(p for p in (name.dropping_particle, name.particle) if p)
    fields.append("prefix={" + _encode(prefix, ascii, problems) + "}")
    if name.suffix:
        fields.append("suffix={" + _encode(name.suffix, ascii, problems) + "}")
    fields.append("useprefix=" + ("true" if name.particle else "false"))
    return ", ".join(fields)


def _format_one(name: Name, ascii: bool, extended: bool, problems: list[str]) -> str:
    if name.others:
        return "others"
    if name.literal:
        return "{" + _encode(name.literal, ascii, problems) + "}"
    if not (name.family or name.given or name.particle or name.dropping_particle):
        problems.append("empty name written as {}")
        return "{}"
    if extended and (name.particle or name.dropping_particle):
        return _format_extended(name, ascii, problems)
    return _format_classic(name, ascii, problems)


def format_bibtex_names_checked(
    names: list[Name], *, ascii: bool, extended: bool = False
) -> tuple[str, list[str]]:
    """Names joined with " and ", plus the problems met while encoding them.

    `extended=True` (for biblatex) writes names with a particle in biblatex's extended form so
    `useprefix` survives: non-dropping particle -> `useprefix=true`, dropping -> `false`.
    """
    problems: list[str] = []
    text = " and ".join(_format_one(n, ascii, extended, problems) for n in names)
    return text, problems


def format_bibtex_name(name: Name, *, ascii: bool, extended: bool = False) -> str:
    """One name as `von Last, Jr, First` (or `von Last, First`); literal as `{...}`.

    A dropping particle goes in the von part with the non-dropping one (classic BibTeX has only
    one); pass `extended=True` to keep the difference in biblatex's extended form.
    """
    problems: list[str] = []
    return _format_one(name, ascii, extended, problems)


def format_bibtex_names(names: list[Name], *, ascii: bool, extended: bool = False) -> str:
    """Names joined with " and " (`OTHERS` -> `others`). See `format_bibtex_names_checked`."""
    return format_bibtex_names_checked(names, ascii=ascii, extended=extended)[0]


# ---------------------------------------------------------------------------------------------
# RIS
# ---------------------------------------------------------------------------------------------


_ET_AL = frozenset({"et al.", "et al", "others", "and others", "et. al."})


def _split_particle(family: str) -> tuple[str, str]:
    """`van der Berg` -> (`van der`, `Berg`): leading lowercase words, if a word remains."""
    words = family.split()
    cut = 0
    while cut < len(words) - 1 and words[cut][:1].islower():
        cut += 1
    return " ".join(words[:cut]), " ".join(words[cut:])


def parse_ris_name(s: str) -> Name:
    """One RIS `AU` value, "Last, First, Suffix" as RIS and Zotero write it.

    "et al." (or "others") is `OTHERS`, as `format_ris_name` writes it.
    No comma -> a literal (Zotero reads such a line as a single-field name). Lowercase words at
    the start of the last name are split off as the (non-dropping) particle: "van der Berg, Jan".
    More than three parts: the rest joins the suffix part.
    """
    if _norm(s).lower() in _ET_AL:
        return OTHERS
    parts = [_norm(p) for p in s.split(",")]
    if len(parts) == 1:
        return Name(literal=parts[0]) if parts[0] else Name()
    particle, family = _split_particle(parts[0])
    given = parts[1]
    suffix = ", ".join(p for p in parts[2:] if p)
    return Name(family=family, given=given, particle=particle, suffix=suffix)


def format_ris_name(name: Name) -> str:
    """ "von Last, First, Suffix" for an `AU` line; literal as is; OTHERS -> "et al."

    A family-only name is written bare ("Plato"), so it reads back as a literal.
    """
    if name.others:
        return "et al."
    if name.literal:
        return name.literal
    family = " ".join(p for p in (name.dropping_particle, name.particle, name.family) if p)
    parts = [family, name.given] if name.given or name.suffix else [family]
    if name.suffix:
        parts.append(name.suffix)
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# CSL-JSON
# ---------------------------------------------------------------------------------------------

_CSL_PARTS = {
    "family": "family",
    "given": "given",
    "non-dropping-particle": "particle",
    "dropping-particle": "dropping_particle",
    "suffix": "suffix",
    "literal": "literal",
}
_CSL_TOLERATED = frozenset({"comma-suffix", "static-ordering", "parse-names"})


def name_from_csl(obj: dict) -> tuple[Name, list[str]]:  # type: ignore[type-arg]
    """A CSL name object -> Name and problems.

    `comma-suffix`, `static-ordering` and `parse-names` are accepted and not kept (rendering
    hints). Numbers are read as text with a problem; other non-string values are dropped with one.
    A `literal` wins over the other parts.
    """
    problems: list[str] = []
    if not isinstance(obj, dict):
        return Name(), [f"name is a {type(obj).__name__}, not an object"]
    values: dict[str, str] = {}
    for key, value in obj.items():
        if key in _CSL_TOLERATED:
            continue
        attr = _CSL_PARTS.get(key)
        if attr is None:
            problems.append(f"unknown name key {key!r} ignored")
            continue
        if isinstance(value, str):
            text = _norm(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            text = str(value)
            problems.append(f"name {key} is a number ({value!r}); read as text")
        else:
            problems.append(f"name {key} is a {type(value).__name__}; ignored")
            continue
        if text:
            values[attr] = text
    if "literal" in values:
        others = sorted(k for k in values if k != "literal")
        if others:
            problems.append(f"name has a literal and {', '.join(others)}; the literal is kept")
        return Name(literal=values["literal"]), problems
    name = Name(
        family=values.get("family", ""),
        given=values.get("given", ""),
        particle=values.get("particle", ""),
        dropping_particle=values.get("dropping_particle", ""),
        suffix=values.get("suffix", ""),
    )
    if not (name.family or name.given):
        problems.append("name has no family, given or literal part")
    return name, problems


def name_to_csl(name: Name) -> dict[str, str] | None:
    """Name -> CSL name object. `OTHERS` has no CSL form: returns None (writers drop it and say
    so; CSL styles add "et al." themselves)."""
    if name.others:
        return None
    if name.literal:
        return {"literal": name.literal}
    out: dict[str, str] = {}
    if name.family:
        out["family"] = name.family
    if name.given:
        out["given"] = name.given
    if name.particle:
        out["non-dropping-particle"] = name.particle
    if name.dropping_particle:
        out["dropping-particle"] = name.dropping_particle
    if name.suffix:
        out["suffix"] = name.suffix
    return out


# ---------------------------------------------------------------------------------------------
# One-string display names (arXiv)
# ---------------------------------------------------------------------------------------------

# A word that marks a group rather than a person ("Planck Collaboration", "The ATLAS Team").
_GROUP_WORDS = frozenset(
    """collaboration collaborations consortium consortia group team project survey
    committee council organization organisation association society institute laboratory
    observatory experiment initiative network alliance working taskforce""".split()
)
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v"})


def _is_group(words: list[str]) -> bool:
    if words and words[0].lower() == "the" and len(words) > 1:
        return True
    return any(w.lower().strip(".,:;()") in _GROUP_WORDS for w in words)


def parse_display_name(s: str) -> Name:
    """A name written as one string, "Given Middle von Family [Jr]", as arXiv lists authors.

    Rule: the first word is always given; the von part is the run from the first later lowercase
    word to the last lowercase word before the final word ("Aäron van den Oord", "Kevin de Bruyn
    Kops" -> particle "de", family "Bruyn Kops"); a trailing Jr/Sr/II/III/IV is the suffix.
    Collaborations, consortia, teams and other groups become literals. "Family, Given" with a
    comma is read in BibTeX's comma form. Capitalised particles are not guessed: "Adrian Del
    Maestro" gives family "Maestro" (as BibTeX would), because "Van" in "Minh Van Nguyen" is a
    Vietnamese middle name, not a particle.
    """
    text = _norm(s)
    words = text.split(" ") if text else []
    if not words:
        return Name()
    if text.lower() in _ET_AL:
        return OTHERS
    if _is_group(words):
        return Name(literal=text)
    if "," in text:
        parts = [_norm(p) for p in text.split(",")]
        particle, family = _split_particle(parts[0])
        suffix = ", ".join(p for p in parts[2:] if p)
        return Name(family=family, given=parts[1], particle=particle, suffix=suffix)
    suffix = ""
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix = words.pop()
    if len(words) == 1:
        return Name(family=words[0], suffix=suffix)
    rest = words[1:]
    start = next((i for i, w in enumerate(rest[:-1]) if w[:1].islower()), None)
    if start is None:
        return Name(family=rest[-1], given=" ".join([words[0], *rest[:-1]]), suffix=suffix)
    end = start
    for i in range(start, len(rest) - 1):
        if rest[i][:1].islower():
            end = i + 1
    given = " ".join([words[0], *rest[:start]])
    return Name(
        family=" ".join(rest[end:]),
        given=given,
        particle=" ".join(rest[start:end]),
        suffix=suffix,
    )
