"""LaTeX <-> citekit rich text for BibTeX field values: `decode`, `decode_plain`, `encode`,
`protect_case`. Our own small tokenizer (braces, commands with arguments, math); the tables
live in `mathmap`. May import: model, options, mathmap. Must not import formats, keys, names, cli.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from .mathmap import (
    ACCENT_OF_MARK,
    ACCENTS,
    ALWAYS_COMMAND,
    CONTROL_SYMBOLS,
    MARKS_BELOW,
    MATH_ARG_COMMANDS,
    MATH_COMMAND_OF,
    MATH_SYMBOLS,
    SPACING_ACCENT_OF,
    SPACING_ACCENTS,
    TEXT_COMMAND_OF,
    TEXT_SYMBOLS,
    math_to_unicode,
    unicode_to_math,
)
from .model import Math, Node, Raw, Rich, Span, Text, make_text, plain
from .options import Protect


class Decoded(NamedTuple):
    text: Text
    problems: tuple[str, ...]  # human messages, e.g. "unknown command \\foo kept verbatim"


# ---------------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------------

# Anything that needs the tokenizer; most values have none of these (the fast path).
_NEEDS_DECODE = re.compile(r"[\\{}$~`]|--|''")
_NEEDS_TOKENIZER = re.compile(r"[\\{}$~`]|''")
_WHITESPACE_RUN = re.compile(r"[ \t\r\n]+")
_PLAIN_RUN = re.compile(r"[^\\{}$~`'\-]+")
_CONTROL_WORD = re.compile(r"[A-Za-z]+")

_LETTER_ACCENTS = frozenset("uvHckrdbt")
# Commands whose one argument becomes a span.
_SPAN_COMMANDS: dict[str, str] = {
    "emph": "i", "textit": "i", "textsl": "i", "mkbibemph": "i", "textbf": "b",
    "mkbibbold": "b", "textsc": "sc", "textsuperscript": "sup", "mkbibsuperscript": "sup",
    "textsubscript": "sub", "mkbibsubscript": "sub", "NoCaseChange": "nocase",
}  # fmt: skip
# Declarations that change the font up to the end of the current group.
_SWITCHES: dict[str, str | None] = {
    "it": "i", "itshape": "i", "em": "i", "sl": "i", "slshape": "i", "bf": "b",
    "bfseries": "b", "sc": "sc", "scshape": "sc", "rm": None, "tt": None, "sf": None,
    "normalfont": None, "upshape": None, "mdseries": None, "rmfamily": None,
    "ttfamily": None, "sffamily": None, "tiny": None, "scriptsize": None,
    "footnotesize": None, "small": None, "normalsize": None, "large": None, "Large": None,
    "LARGE": None, "huge": None, "Huge": None,
}  # fmt: skip
# Font-only commands: no span exists for them, their argument is kept as text.
_CONTENT_COMMANDS = frozenset(
    "texttt textrm textsf textup textnormal textmd mbox hbox text textlf".split()
)
# Quotation commands (biblatex, csquotes): their argument between curly double quotes.
_QUOTE_COMMANDS = frozenset(["mkbibquote", "enquote", "textquote"])
_VERBATIM_COMMANDS = frozenset(["url", "path", "nolinkurl"])
# Known commands kept raw when their argument is missing; they would skip a space to find it.
_KNOWN_WITHOUT_ARGUMENT = frozenset(["url", "path", "nolinkurl", "href", "ensuremath"])
_URL_DELIMITERS = frozenset("|!+=/:;\"'.,-@*")
# Commands that print nothing (spacing hints, robustness prefixes).
_INVISIBLE = frozenset(["relax", "protect", "xspace", "unskip", "nobreak", "ignorespaces"])
# Math-only commands known outside math: symbols plus the ones taking arguments.
_MATH_ONLY = (frozenset(MATH_SYMBOLS) | frozenset(MATH_ARG_COMMANDS)) - frozenset(TEXT_SYMBOLS)


# Groups nested deeper than this are kept as written: real values nest a handful of levels,
# and a hostile 10,000-deep value must not exhaust Python's recursion limit.
_MAX_DEPTH = 64


class _Parser:
    """One pass over a field body. `nocase` context: brace groups add no span (already inside
    one); elsewhere a brace group not starting with a command is BibTeX case protection."""

    __slots__ = ("s", "i", "problems", "depth")

    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.problems: list[str] = []
        self.depth = 0

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    # -- sequences ---------------------------------------------------------------------------

    def seq(self, *, nocase: bool, in_group: bool) -> list[Node]:
        """Nodes up to the end, or up to (not past) the `}` closing the current group."""
        if self.depth >= _MAX_DEPTH:
            return self.too_deep()
        self.depth += 1
        try:
            return self._seq(nocase=nocase, in_group=in_group)
        finally:
            self.depth -= 1

    def too_deep(self) -> list[Node]:
        """The rest of a group nested past `_MAX_DEPTH`, kept as written (no recursion)."""
        s, start, level = self.s, self.i, 0
        while self.i < len(s):
            c = s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "{":
                level += 1
            elif c == "}":
                if level == 0:
                    break
                level -= 1
            self.i += 1
        self.i = min(self.i, len(s))
        self.problem(f"braces nested deeper than {_MAX_DEPTH}; the inner text is kept as written")
        text = s[start : self.i]
        # balanced text can stay LaTeX; an unbalanced tail is plain text, escaped on output
        return [Raw(text)] if level == 0 and text else ([text] if text else [])

    def _seq(self, *, nocase: bool, in_group: bool) -> list[Node]:
        s = self.s
        n = len(s)
        out: list[Node] = []
        while self.i < n:
            match = _PLAIN_RUN.match(s, self.i)
            if match:
                out.append(match.group())
                self.i = match.end()
                continue
            c = s[self.i]
            if c == "}":
                if in_group:
                    return out
                self.problem("unbalanced closing brace kept as text")
                out.append("}")
                self.i += 1
            elif c == "{":
                out.extend(self.group(nocase=nocase))
            elif c == "\\":
                switch = self.switch_kind()
                if switch is not None:
                    rest = self.seq(nocase=nocase, in_group=in_group)
                    kind = switch[0]
                    inner = _children(rest) if kind else ()
                    out.extend([Span(kind, inner)] if inner else rest)  # type: ignore[arg-type]
                    return out
                out.extend(self.command(nocase=nocase))
            elif c == "$":
                out.extend(self.dollar_math())
            elif c == "~":
                out.append("\u00a0")
                self.i += 1
            elif c == "-":
                out.append(self.dashes())
            elif c == "`":
                double = s.startswith("``", self.i)
                out.append("\u201c" if double else "\u2018")
                self.i += 2 if double else 1
            else:  # "'"
                double = s.startswith("''", self.i)
                out.append("\u201d" if double else "'")
                self.i += 2 if double else 1
        return out

    def dashes(self) -> str:
        start = self.i
        while self.i < len(self.s) and self.s[self.i] == "-":
            self.i += 1
        run = self.i - start
        return "\u2014" * (run // 3) + {0: "", 1: "-", 2: "\u2013"}[run % 3]

    def switch_kind(self) -> tuple[str | None] | None:
        """If a font switch (`\\em`, `\\bf`) starts here, consume it and return its span kind."""
        match = _CONTROL_WORD.match(self.s, self.i + 1)
        if match is None or match.group() not in _SWITCHES:
            return None
        self.i = _after_spaces(self.s, match.end())
        return (_SWITCHES[match.group()],)

    # -- groups ------------------------------------------------------------------------------

    def group(self, *, nocase: bool) -> list[Node]:
        start = self.i
        self.i += 1
        special = self.s.startswith("\\", self.i)
        children = self.seq(nocase=nocase or not special, in_group=True)
        if self.i >= len(self.s):
            self.problem("unbalanced opening brace kept as text")
            return ["{", *children]
        self.i += 1  # the closing brace
        if not children:
            return []
        if special:
            return self.special_group(start, children)
        if nocase:
            return children
        return _nocase(children)

    def special_group(self, start: int, children: list[Node]) -> list[Node]:
        """A group starting with a command (`{\\"u}`): BibTeX's special character, no case
        protection. Kept whole as raw LaTeX when it holds something we could not decode."""
        source = self.s[start : self.i]
        if _has_raw(children):
            raw = _safe_raw(source)
            if raw is not None:
                return [raw]
            return children
        if (
            len(children) == 1
            and isinstance(children[0], Math)
            and children[0].bare
            and source.startswith("{\\ensuremath")
        ):
            as_text = math_to_unicode(children[0].tex)
            if as_text:
                return [as_text]
        return children

    # -- commands ----------------------------------------------------------------------------

    def read_name(self) -> tuple[str, bool]:
        """Command name after the backslash at self.i; True when it is a control word."""
        s = self.s
        match = _CONTROL_WORD.match(s, self.i + 1)
        if match:
            self.i = match.end()
            return match.group(), True
        name = s[self.i + 1]
        self.i += 2
        return name, False

    def command(self, *, nocase: bool) -> list[Node]:
        s = self.s
        start = self.i
        if start + 1 >= len(s):
            self.problem("lone backslash at the end kept as text")
            self.i += 1
            return ["\\"]
        name, word = self.read_name()
        if name in ACCENTS and (not word or name in _LETTER_ACCENTS):
            return self.accent(name, start)
        if word and name in TEXT_SYMBOLS:
            self.skip_spaces()
            return [TEXT_SYMBOLS[name]]
        if not word and name in CONTROL_SYMBOLS:
            return [CONTROL_SYMBOLS[name]]
        if word and name in _SPAN_COMMANDS:
            return self.span_command(_SPAN_COMMANDS[name], name, nocase)
        if word and name in _CONTENT_COMMANDS:
            return self.argument_nodes(name, nocase)
        if word and name in _QUOTE_COMMANDS:
            return ["\u201c", *self.argument_nodes(name, nocase), "\u201d"]
        if word and name in _VERBATIM_COMMANDS:
            return self.verbatim(name, start)
        if name == "href":
            return self.href(start)
        if name == "ensuremath":
            return self.ensuremath(start)
        if name in ("(", "["):
            return self.delimited_math(start, "\\)" if name == "(" else "\\]")
        if word and (name in _INVISIBLE or name in _SWITCHES):
            # a switch here is a one-token argument (`\\texttt\\sc`): it ends at once
            self.skip_spaces()
            return []
        if word and name in _MATH_ONLY:
            return self.bare_math(name, start)
        return self.unknown(name, start, word)

    def skip_spaces(self) -> None:
        self.i = _after_spaces(self.s, self.i)

    def span_command(self, kind: str, name: str, nocase: bool) -> list[Node]:
        children = self.argument_nodes(name, nocase or kind == "nocase")
        if kind == "nocase":
            return children if nocase else _nocase(children)
        inner = _children(children)
        if not inner:
            return []
        return [Span(kind, inner)]  # type: ignore[arg-type]

    def argument_nodes(self, name: str, nocase: bool) -> list[Node]:
        """Decode one argument in place: a braced group or the next single token."""
        self.skip_spaces()
        s = self.s
        if self.i >= len(s) or s[self.i] == "}":
            self.problem(f"command \\{name} without argument")
            return []
        if s[self.i] != "{":
            if s[self.i] == "\\":
                return self.command(nocase=nocase)
            self.i += 1
            return [s[self.i - 1]]
        self.i += 1
        children = self.seq(nocase=nocase, in_group=True)
        if self.i >= len(s):
            self.problem("unbalanced opening brace kept as text")
            return ["{", *children]
        self.i += 1
        return children

    def braced_source(self) -> str | None:
        """The verbatim text of the braced group at self.i (spaces before it skipped)."""
        start = _after_spaces(self.s, self.i)
        if not self.s.startswith("{", start):
            return None
        end = _matching_brace(self.s, start)
        if end < 0:
            return None
        self.i = end + 1
        return self.s[start + 1 : end]

    def accent(self, name: str, start: int) -> list[Node]:
        mark = ACCENTS[name]
        self.skip_spaces()
        s = self.s
        if self.i >= len(s) or s[self.i] == "}":
            return [self.empty_accent(name)]
        if s[self.i] == "{":
            self.i += 1
            children = self.seq(nocase=True, in_group=True)
            if self.i >= len(s):
                self.problem("unbalanced opening brace kept as text")
                return ["{", *children]
            self.i += 1
        elif s[self.i] == "\\":
            children = self.command(nocase=True)
        else:
            children = [s[self.i]]
            self.i += 1
        if any(not isinstance(c, str) for c in children):
            return self.unknown_accent(name, start, children)
        base = "".join(children)  # type: ignore[arg-type]
        if not base.strip(" \t\r\n"):
            return [self.empty_accent(name)]
        return [_apply_mark(base, mark)]

    def empty_accent(self, name: str) -> str:
        spacing = SPACING_ACCENTS.get(name)
        if spacing is not None:
            return spacing
        self.problem(f"accent \\{name} without a letter kept as its combining mark")
        return ACCENTS[name]

    def unknown_accent(self, name: str, start: int, children: list[Node]) -> list[Node]:
        source = self.s[start : self.i]
        # only a braced argument is safe to keep raw: `\"\emph\t` would take what follows
        raw = _safe_raw(source) if source.endswith("}") else None
        if raw is not None:
            self.problem(f"accent over LaTeX we cannot decode kept verbatim: {raw.tex}")
            return [raw]
        spacing = self.empty_accent(name)
        self.problem(f"accent \\{name} over LaTeX we cannot decode written as {spacing}")
        return [spacing, *children]

    def verbatim(self, name: str, start: int) -> list[Node]:
        s = self.s
        body = self.braced_source()
        if body is None and self.i < len(s) and s[self.i] in _URL_DELIMITERS:
            # \url|...| style delimiters
            end = s.find(s[self.i], self.i + 1)
            if end > 0:
                body = s[self.i + 1 : end]
                self.i = end + 1
        if body is None:
            return self.unknown(name, start, True)
        return [body]

    def href(self, start: int) -> list[Node]:
        url = self.braced_source()
        if url is None:
            return self.unknown("href", start, True)
        self.skip_spaces()
        if not self.s.startswith("{", self.i):
            return [url]
        text = self.argument_nodes("href", False)
        if not text:
            return [url]
        if url != _plain(text):
            self.problem(f"\\href target {url} not kept; its link text is")
        return text

    def ensuremath(self, start: int) -> list[Node]:
        body = self.braced_source()
        if body is None:
            return self.unknown("ensuremath", start, True)
        return self.math_node(body, bare=True, source=self.s[start : self.i])

    def dollar_math(self) -> list[Node]:
        s = self.s
        start = self.i
        display = s.startswith("$$", start)
        opener = 2 if display else 1
        end = _find_unescaped(s, "$$" if display else "$", start + opener)
        if end < 0 or (display and end == start + opener):
            self.problem("unterminated math: $ kept as text")
            self.i = start + opener
            return ["$" * opener]
        tex = s[start + opener : end]
        self.i = end + opener
        if tex.strip() and _safe_math(tex) is None:
            # braces in the math do not pair up (or a `%`, `#` is bare): read it as text
            self.problem(f"math with unbalanced braces or a bare % or # read as text: {tex}")
            inner = _Parser(tex).seq(nocase=True, in_group=False)
            return ["$" * opener, *inner, "$" * opener]
        if display:
            self.problem("display math kept as inline math")
        return self.math_node(tex, bare=False, source=s[start : self.i])

    def delimited_math(self, start: int, closer: str) -> list[Node]:
        end = _find_unescaped(self.s, closer, self.i)
        if end < 0:
            self.problem(f"unterminated math: {self.s[start : self.i]} kept as text")
            return [self.s[start : self.i]]
        body = self.s[self.i : end]
        self.i = end + 2
        if closer == "\\]":
            self.problem("display math kept as inline math")
        return self.math_node(body, bare=False, source=self.s[start : self.i])

    def math_node(self, tex: str, *, bare: bool, source: str) -> list[Node]:
        if not tex.strip():
            return [" "] if tex else []
        safe = _safe_math(tex)
        if safe is None:
            # braces inside the math do not pair up (or a `$`, `%`, `#` is bare): keep the
            # source as text instead
            self.problem(f"math with unbalanced braces or a bare % or # read as text: {source}")
            return [source]
        return [Math(safe, bare)]

    def bare_math(self, name: str, start: int) -> list[Node]:
        """A math-only command outside math (`\\mathbb{E}`, `\\mid`): one bare Math node."""
        s = self.s
        for _ in range(MATH_ARG_COMMANDS.get(name, 0)):
            self.skip_spaces()
            if s.startswith("[", self.i):
                close = s.find("]", self.i)
                if close > 0:
                    self.i = close + 1
                    self.skip_spaces()
            if s.startswith("{", self.i):
                end = _matching_brace(s, self.i)
                if end < 0:
                    break
                self.i = end + 1
            elif self.i < len(s) and s[self.i].isalnum():
                self.i += 1
        tex = s[start : self.i]
        self.problem(f"math command \\{name} outside math, kept as math")
        safe = _safe_math(tex)
        return [Math(safe, True)] if safe is not None else [tex]

    def unknown(self, name: str, start: int, word: bool) -> list[Node]:
        """Unknown command: kept verbatim with the arguments that follow it directly."""
        s = self.s
        if name in _DIMENSION_PRIMITIVES:  # `\kern-.1em`: the dimension is its argument
            match = _DIMENSION.match(s, self.i)
            if match:
                self.i = match.end()
                box = _BOX.match(s, self.i)  # `\raise.25ex\hbox{...}` moves a box: keep it
                if box and name in ("raise", "lower", "moveleft", "moveright"):
                    end = _matching_brace(s, box.end() - 1)
                    if end > 0:
                        self.i = end + 1
                        self.problem(f"unknown command \\{name} kept verbatim")
                        return [Raw(s[start : self.i])] if _safe_raw(s[start : self.i]) else \
                            [s[start : self.i]]
        while self.i < len(s) and s[self.i] in "{[":
            end = _matching_brace(s, self.i) if s[self.i] == "{" else s.find("]", self.i)
            if end < 0:
                break
            self.i = end + 1
        tex = s[start : self.i]
        if tex.endswith("{}") and tex.count("{") == 1:
            tex = tex[:-2]  # `\foo{}` only ends the name: no argument
        raw = _safe_raw(tex)
        if raw is None:
            self.i = start + 1 + len(name)
            raw = Raw(s[start : self.i])
        self.problem(f"unknown command \\{name} kept verbatim")
        return [raw]


# TeX primitives whose argument is a dimension, not a brace group (TUGboat's logos use them:
# `Euler-\kern-1pt`). Splitting the dimension off would leave `\kern` with no number.
_DIMENSION_PRIMITIVES = frozenset({"kern", "hskip", "vskip", "raise", "lower", "mkern", "mskip",
                                   "hspace", "vspace", "moveleft", "moveright"})  # fmt: skip
_DIMENSION = re.compile(
    r"\s*[-+]?\s*(?:\d+(?:[.,]\d*)?|[.,]\d+)\s*(?:pt|em|ex|mm|cm|in|bp|pc|dd|cc|sp|mu|px)"
)


_BOX = re.compile(r"\s*\\[hv]box\s*\{")


def _after_spaces(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in " \t\r\n":
        i += 1
    return i


def _children(nodes: list[Node]) -> tuple[Node, ...]:
    text = make_text(_normalize_strings(nodes))
    if isinstance(text, str):
        return (text,) if text else ()
    return text.nodes


def _normalize_strings(nodes: list[Node]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + node
        else:
            out.append(node)
    return [_clean(n) if isinstance(n, str) else n for n in out]


def _clean(text: str) -> str:
    text = _WHITESPACE_RUN.sub(" ", text)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def _nocase(children: list[Node]) -> list[Node]:
    if all(isinstance(c, str) and not _has_cased_letter(c) for c in children):
        return children  # `{"}`, `{2020}`: protection without letters protects nothing
    return [Span("nocase", _children(children))]


def _has_cased_letter(text: str) -> bool:
    return any(c.isupper() or c.islower() for c in text)


def _has_raw(nodes: tuple[Node, ...] | list[Node]) -> bool:
    for node in nodes:
        if isinstance(node, Raw) or (isinstance(node, Span) and _has_raw(node.children)):
            return True
    return False


def _plain(nodes: list[Node]) -> str:
    return plain(make_text(nodes))


def _apply_mark(base: str, mark: str) -> str:
    first = base[0]
    if first in "ıȷ" and mark not in MARKS_BELOW:
        first = "i" if first == "ı" else "j"  # \'{\i} is í
    end = 1
    while end < len(base) and unicodedata.combining(base[end]):
        end += 1  # a mark over an accented letter goes on top of the marks it has
    return unicodedata.normalize("NFC", first + base[1:end] + mark + base[end:])


def _matching_brace(s: str, start: int) -> int:
    """Index of the `}` closing the `{` at `start` (escaped braces skipped), or -1."""
    depth = 0
    i = start
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _find_unescaped(s: str, target: str, start: int) -> int:
    i = start
    n = len(s)
    while i < n:
        if s.startswith(target, i):
            return i
        i += 2 if s[i] == "\\" else 1
    return -1


_BARE_PERCENT_OR_HASH = re.compile(r"(?<!\\)(?:\\\\)*[%#]")


def _balanced(tex: str) -> bool:
    """Braces pair up both as TeX groups (escapes skipped) and as characters (how BibTeX
    counts them), and no lone backslash ends the text."""
    depth = 0
    i = 0
    n = len(tex)
    while i < n:
        c = tex[i]
        if c == "\\":
            if i + 1 >= n:
                return False
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    if depth:
        return False
    lexical = 0
    for c in tex:
        lexical += (c == "{") - (c == "}")
        if lexical < 0:
            return False
    return lexical == 0


def _safe_tex(tex: str) -> str | None:
    """`tex` if it can go into a .bib value as it is: braces balanced (as TeX groups and as
    BibTeX counts them) and no bare `%` (a comment) or `#` (a macro parameter); else None."""
    if not _balanced(tex):
        return None
    if ("%" in tex or "#" in tex) and _BARE_PERCENT_OR_HASH.search(tex):
        return None
    return tex


def _safe_math(tex: str) -> str | None:
    """Like `_safe_tex`, and no bare `$` that would end the math early."""
    if "$" in tex and _find_unescaped(tex, "$", 0) >= 0:
        return None
    return _safe_tex(tex)


def _safe_raw(tex: str) -> Raw | None:
    safe = _safe_tex(tex)
    return None if safe is None else Raw(safe)


def _finish(nodes: list[Node]) -> Text:
    cleaned = _normalize_strings(nodes)
    if cleaned and isinstance(cleaned[0], str):
        cleaned[0] = cleaned[0].lstrip(" ")
    if cleaned and isinstance(cleaned[-1], str):
        cleaned[-1] = cleaned[-1].rstrip(" ")
    return make_text(cleaned)


def _collapse(text: str) -> str:
    if "  " in text or "\n" in text or "\t" in text or "\r" in text:
        text = _WHITESPACE_RUN.sub(" ", text)
    text = text.strip(" ")
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def decode(latex: str) -> Decoded:
    """Decode a BibTeX field value body (outer delimiters already removed) into rich text.

    Whitespace runs collapse to one space and the ends are trimmed, as BibTeX does; text comes
    out NFC. `{...}` is case protection (a `nocase` span) unless it starts with a command, which
    BibTeX treats as one special character (`{\\"u}`, `{\\emph{X}}`). Math keeps its TeX source
    exactly; math-only commands outside math become bare `Math`; unknown commands become `Raw`.
    Nothing raises and no character is dropped: what cannot be decoded stays, with a problem.
    """
    if _NEEDS_DECODE.search(latex) is None:
        return Decoded(_collapse(latex), ())
    if _NEEDS_TOKENIZER.search(latex) is None:
        # only dashes (page ranges, the most common case): no tokenizer needed
        return Decoded(_collapse(latex).replace("---", "\u2014").replace("--", "\u2013"), ())
    return _decode_latex(latex)


@lru_cache(maxsize=8192)
def _decode_latex(latex: str) -> Decoded:
    parser = _Parser(latex)
    nodes = parser.seq(nocase=False, in_group=False)
    return Decoded(_finish(nodes), tuple(parser.problems))


@lru_cache(maxsize=65536)
def decode_plain(latex: str) -> str:
    """Decode to plain Unicode (braces dropped, markup flattened); for names and keys."""
    text = decode(latex).text
    return text if isinstance(text, str) else text.plain()


# ---------------------------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------------------------

_NEEDS_ENCODE = re.compile(r"[^ -~]|[\\{}$&%#_~^`]|--|''|  |^ | $")
_ESCAPES: dict[str, str] = {
    "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}", "\\": "\\textbackslash{}", "`": "\\textasciigrave{}",
}  # fmt: skip
_ASCII_PUNCT: dict[str, str] = {
    "\u2013": "--", "\u2014": "---", "\u201c": "``", "\u201d": "''", "\u2018": "`",
}  # fmt: skip
_SAFE_ASCII = frozenset(
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 !"()*+,./:;<=>?@[]|'
)
# A run of characters written as they are (never the letter a combining mark sits on), or one
# character with its combining marks.
_ENCODE_TOKEN = re.compile(
    r"[A-Za-z0-9 !\"()*+,./:;<=>?@\[\]|]+(?![\u0300-\u036f\u20d0-\u20ff])"
    r"|.[\u0300-\u036f\u20d0-\u20ff]*",
    re.DOTALL,
)
_ENDS_CONTROL_WORD = re.compile(r"\\[A-Za-z]+$")
_LONE_WORD = re.compile(r"^\\[A-Za-z]+$")


class _Encoder:
    __slots__ = ("ascii", "problems", "unmapped")

    def __init__(self, *, ascii: bool) -> None:
        self.ascii = ascii
        self.problems: list[str] = []
        self.unmapped: list[str] = []  # characters with no LaTeX form, one problem for all

    def unmapped_problem(self) -> None:
        if not self.unmapped:
            return
        first = self.unmapped[0][0]
        name = unicodedata.name(first, f"U+{ord(first):04X}")
        self.problem(
            f"no LaTeX form for {len(self.unmapped)} character(s) {''.join(self.unmapped)!r} "
            f"(first: U+{ord(first):04X} {name}); kept as UTF-8"
        )

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def nodes(self, nodes: tuple[Node, ...]) -> str:
        out: list[str] = []
        previous_raw = False
        for node in nodes:
            piece = self.node(node)
            if not piece:
                continue
            _append(out, piece, after_raw=previous_raw)
            previous_raw = isinstance(node, Raw)
        return "".join(out)

    def node(self, node: Node) -> str:
        if isinstance(node, str):
            return self.string(node)
        if isinstance(node, Span):
            return self.span(node)
        if isinstance(node, Math):
            return self.math(node)
        return self.raw(node)

    def span(self, span: Span) -> str:
        inner = self.nodes(span.children)
        if not inner:
            return ""
        if span.kind != "nocase":
            command = {"i": "textit", "b": "textbf", "sc": "textsc", "sup": "textsuperscript",
                       "sub": "textsubscript"}[span.kind]  # fmt: skip
            return f"\\{command}{{{inner}}}"
        if not inner.startswith("\\"):
            return "{" + inner + "}"
        # `{\emph{X}}` is a BibTeX special character and protects nothing: the usual cure is
        # double braces; where the inner group would itself read back as one special
        # character (raw LaTeX, a lone \ensuremath), an empty group starts the span instead.
        lone_bare_math = len(span.children) == 1 and isinstance(span.children[0], Math)
        if _has_raw(span.children) or lone_bare_math:
            return "{{}" + inner + "}"
        return "{{" + inner + "}}"

    def math(self, math: Math) -> str:
        tex, kept = unicode_to_math(math.tex)
        if kept and self.ascii:
            self.problem(f"no math command for {''.join(kept)!r}; kept as UTF-8")
        safe = _safe_math(tex)
        if safe is None:
            self.problem(f"math that cannot be written as LaTeX kept as text: {math.tex}")
            return self.string(f"${math.tex}$")
        if not safe.strip():
            return self.string(safe)
        return f"\\ensuremath{{{safe}}}" if math.bare else f"${safe}$"

    def raw(self, raw: Raw) -> str:
        if self.ascii and not raw.tex.isascii():
            self.problem(f"raw LaTeX with non-ASCII characters kept as it is: {raw.tex}")
        safe = _safe_tex(raw.tex)
        if safe is None:
            self.problem(f"raw LaTeX with unbalanced braces written as text: {raw.tex}")
            return self.string(raw.tex)
        return safe

    def string(self, text: str) -> str:
        if _NEEDS_ENCODE.search(text) is None:
            return text
        text = _WHITESPACE_RUN.sub(" ", text)
        out: list[str] = []
        opened: list[int] = []  # positions of `{` still waiting for their `}`
        for match in _ENCODE_TOKEN.finditer(text):
            cluster = match.group()
            if cluster[0] in _SAFE_ASCII and not unicodedata.combining(cluster[-1]):
                out.append(cluster)  # a run that needs nothing (and starts no ligature)
                continue
            if len(cluster) > 1 and cluster[0].isascii() and not cluster[0].isalpha():
                # a mark over a TeX special (`%̈`): write the special escaped, then the marks
                self._special_then_marks(out, opened, cluster)
                continue
            if cluster == "{":
                opened.append(len(out))
                out.append("\\{")
                continue
            if cluster == "}":
                if opened:
                    opened.pop()
                    piece = "\\}"
                else:
                    piece = "\\textbraceright{}"
                out.append(piece)
                continue
            piece = self.cluster(cluster)
            if out and piece[0] in "-`'" and out[-1][-1] == piece[0]:
                out.append("{}")  # `--`, ``` `` ```, `''` would be read as one ligature
            out.append(piece)
        for position in opened:
            out[position] = "\\textbraceleft{}"  # unpaired: `\{` would unbalance the file
        return "".join(out)

    def _special_then_marks(self, out: list[str], opened: list[int], cluster: str) -> None:
        base = cluster[0]
        if base == "{":
            opened.append(len(out))
            out.append("\\{")
        elif base == "}":
            if opened:
                opened.pop()
                out.append("\\}")
            else:
                out.append("\\textbraceright{}")
        else:
            _append(out, self.cluster(base), after_raw=False)
        marks = cluster[1:]
        if self.ascii:
            self.problem(f"no LaTeX form for the combining marks {marks!r}; kept as UTF-8")
        out.append(marks)

    def cluster(self, cluster: str) -> str:
        if cluster in _ESCAPES:
            return _ESCAPES[cluster]
        if cluster.isascii():
            return cluster
        if cluster in ALWAYS_COMMAND:
            return ALWAYS_COMMAND[cluster]
        if not self.ascii:
            return cluster
        latex, unmapped = _ascii_cluster(cluster)
        if unmapped and unmapped not in self.unmapped:
            self.unmapped.append(unmapped)
        return latex


def _append(out: list[str], piece: str, *, after_raw: bool) -> None:
    """Append `piece`, separating it from what precedes where TeX would read the two together
    (`--` ligatures, quote pairs, `$$`, a command name running into letters)."""
    if out:
        last = out[-1]
        tail, head = last[-1], piece[0]
        if after_raw and _raw_needs_relax(last, head):
            out.append("\\relax{}")  # else the raw LaTeX would take it as its argument
        elif (tail == head and tail in "-`'$") or (
            head.isascii() and head.isalpha() and _ENDS_CONTROL_WORD.search(last)
        ):
            out.append("{}")
    out.append(piece)


def _raw_needs_relax(raw: str, head: str) -> bool:
    """Would decoding `raw` followed by `head` read `head` as part of the raw LaTeX?"""
    if head in "{[" or unicodedata.combining(head):
        return True
    if raw[-1] in "}]":
        return False
    if head.isspace():
        # `\foo bar`: after an unknown command the space stays text; after any other control
        # word it would be skipped as part of it
        if _LONE_WORD.match(raw):
            return raw[1:] in _KNOWN_WITHOUT_ARGUMENT
        return _ENDS_CONTROL_WORD.search(raw) is not None
    return True


@lru_cache(maxsize=8192)
def _ascii_cluster(cluster: str) -> tuple[str, str]:
    """ASCII LaTeX for one character with its combining marks, and the cluster itself when it
    has none (it is then kept as UTF-8)."""
    if cluster in _ASCII_PUNCT:
        return _ASCII_PUNCT[cluster], ""
    if cluster in TEXT_COMMAND_OF:
        return "{\\" + TEXT_COMMAND_OF[cluster] + "}", ""
    if cluster in SPACING_ACCENT_OF:
        return "{\\" + SPACING_ACCENT_OF[cluster] + "{}}", ""
    accented = _accented(cluster)
    if accented is not None:
        return "{" + accented + "}", ""
    if cluster in MATH_COMMAND_OF:
        return "{\\ensuremath{" + MATH_COMMAND_OF[cluster] + "}}", ""
    return cluster, cluster


def _accented(cluster: str) -> str | None:
    decomposed = unicodedata.normalize("NFD", cluster)
    base, marks = decomposed[0], decomposed[1:]
    if not marks or any(m not in ACCENT_OF_MARK for m in marks):
        return None
    if base.isascii() and base.isalpha():
        inner = base
        if base in "ij" and marks[0] not in MARKS_BELOW:
            inner = "\\" + base
    elif base in TEXT_COMMAND_OF and base not in "ıȷ":  # `\'{\i}` reads back as í
        inner = "\\" + TEXT_COMMAND_OF[base]
    else:
        return None
    for mark in marks:
        command = ACCENT_OF_MARK[mark]
        if command.isalpha() or len(inner) > 1:
            inner = f"\\{command}{{{inner}}}"
        else:
            inner = f"\\{command}{inner}"
    return inner


def encode(text: Text, *, ascii: bool) -> tuple[str, tuple[str, ...]]:
    """Rich text -> BibTeX value body (without outer braces) and problems.

    `ascii=True` (the `bibtex` dialect) writes LaTeX for every character that has a form and
    keeps the rest as UTF-8 with a problem; `ascii=False` (`biblatex`) keeps UTF-8 and only
    escapes TeX's specials. Either way the output has balanced braces (counted as BibTeX counts
    them), no bare `%` or `#`, and `decode(encode(x)) == x` for any `x` that `decode` returns,
    except that Unicode inside math comes back as math commands (`$μ$` -> `$\\mu$`), which
    `encode` always writes because pdfLaTeX cannot read Unicode in math.
    """
    encoder = _Encoder(ascii=ascii)
    if isinstance(text, str):
        out = encoder.string(text)
    else:
        out = encoder.nodes(text.nodes)
    encoder.unmapped_problem()
    return out, tuple(encoder.problems)


# ---------------------------------------------------------------------------------------------
# Problem messages -> stable diagnostic codes
# ---------------------------------------------------------------------------------------------

# (message start, code, severity). Order matters: the first match wins.
_PROBLEM_KINDS: tuple[tuple[str, str, str], ...] = (
    ("math command ", "latex.math-outside-math", "info"),
    ("display math ", "latex.display-math", "info"),
    ("unknown command ", "latex.unknown-command", "warning"),
    ("unbalanced ", "latex.unbalanced-braces", "warning"),
    ("lone backslash", "latex.unbalanced-braces", "warning"),
    ("braces nested deeper", "latex.too-deep", "warning"),
    ("unterminated math", "latex.unterminated-math", "warning"),
    ("math with unbalanced", "latex.unsafe-math", "warning"),
    ("math that cannot", "latex.unsafe-math", "warning"),
    ("raw LaTeX with unbalanced", "latex.unsafe-raw", "warning"),
    ("accent ", "latex.accent", "warning"),
    ("command ", "latex.missing-argument", "warning"),
    ("\\href target", "latex.link-target", "warning"),
    ("no LaTeX form", "latex.no-ascii-form", "warning"),
    ("no math command", "latex.no-ascii-form", "warning"),
    ("raw LaTeX with non-ASCII", "latex.no-ascii-form", "warning"),
)


def classify_problem(message: str) -> tuple[str, str]:
    """Stable diagnostic code and severity (`info`/`warning`) for a decode/encode problem."""
    for start, code, severity in _PROBLEM_KINDS:
        if message.startswith(start):
            return code, severity
    return "latex.problem", "warning"


# ---------------------------------------------------------------------------------------------
# Case protection
# ---------------------------------------------------------------------------------------------

# A word, with hyphenated parts kept together (`HO-FNO`, `ResNet-50`).
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_HYPHEN = re.compile(r"-")
_WORD_START = re.compile(r"[^\W_]+")
_UPPER_IN_MATH = re.compile(r"(?<![\\A-Za-z])[A-Za-z]*[A-Z]")


def _needs_protection(word: str) -> bool:
    for part in _HYPHEN.split(word):  # `Higher-Order` is two words, `O'Brien` one
        capitals = sum(1 for c in part if c.isupper())
        if capitals >= 2 or (capitals and not part[0].isupper()):
            return True
    return False


def _protect_string(text: str) -> list[Node]:
    out: list[Node] = []
    last = 0
    for match in _WORD.finditer(text):
        if _needs_protection(match.group()):
            out.append(text[last : match.start()])
            out.append(Span("nocase", (match.group(),)))
            last = match.end()
    out.append(text[last:])
    return out


def _math_has_capitals(tex: str) -> bool:
    # letters outside command names: `\mathbb{E}` has E, `\alpha` has none
    return any(c.isupper() for c in re.sub(r"\\[A-Za-z]+", "", tex))


def _protect_nodes(nodes: tuple[Node, ...]) -> list[Node]:
    out: list[Node] = []
    previous: Node | None = None
    for node in nodes:
        if isinstance(node, str):
            if isinstance(previous, Math):
                # letters glued to math form one word with it (`$μ$P`): protect them too
                glued = _WORD_START.match(node)
                if glued and any(c.isupper() for c in glued.group()):
                    out.append(Span("nocase", (glued.group(),)))
                    node = node[glued.end() :]
            out.extend(_protect_string(node))
        elif isinstance(node, Span) and node.kind != "nocase":
            out.append(Span(node.kind, _tuple(_protect_nodes(node.children))))
        elif isinstance(node, Math) and _math_has_capitals(node.tex):
            # BibTeX lowercases letters in unbraced math too (`$O(n)$` -> `$o(n)$`)
            out.append(Span("nocase", (node,)))
        else:
            out.append(node)
        previous = node
    return out


def _tuple(nodes: list[Node]) -> tuple[Node, ...]:
    text = make_text(nodes)
    return (text,) if isinstance(text, str) else text.nodes


def _without_nocase(nodes: tuple[Node, ...]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Span):
            if node.kind == "nocase":
                out.extend(_without_nocase(node.children))
            else:
                out.append(Span(node.kind, _tuple(_without_nocase(node.children))))
        else:
            out.append(node)
    return out


def protect_case(text: Text, mode: Protect) -> Text:
    """Add `nocase` spans to a title that carries no case protection (RIS/CSL input).

    `acronyms`: words with two capitals or an inner one (`DNA`, `iPhone`, `ResNet-50`) and
    math holding capitals; `all`: the whole value (the encoder doubles the braces when it
    starts with a command, since `{\\emph{X}}` protects nothing); `none`: unchanged.
    """
    if mode == "none" or not text:
        return text
    nodes = (text,) if isinstance(text, str) else text.nodes
    if mode == "all":
        if len(nodes) == 1 and isinstance(nodes[0], Span) and nodes[0].kind == "nocase":
            return text
        return Rich((Span("nocase", _tuple(_without_nocase(nodes))),))
    return make_text(_protect_nodes(nodes))
