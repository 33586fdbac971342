"""Character tables shared by the LaTeX codec and the markup renderers, plus math -> Unicode.

Holds the text-mode symbol and accent commands, the math symbol commands, the math alphabets
(`\\mathbb` ...), Unicode super/subscripts, and `math_pieces()` / `unicode_to_math()`.
Imports only the standard library; must not import model, latex or markup.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# ---------------------------------------------------------------------------------------------
# Text mode
# ---------------------------------------------------------------------------------------------

# Accent commands -> combining mark. Letter accents take a braced argument (`\v{c}`), symbol
# accents are written without braces for one letter (`\"u`).
ACCENTS: dict[str, str] = {
    "`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306",
    ".": "\u0307", '"': "\u0308", "r": "\u030a", "H": "\u030b", "v": "\u030c", "d": "\u0323",
    "c": "\u0327", "k": "\u0328", "b": "\u0331", "t": "\u0361",
}  # fmt: skip
ACCENT_OF_MARK: dict[str, str] = {mark: cmd for cmd, mark in ACCENTS.items()}
# Marks that sit below the letter: an `i` under them keeps its dot, so no `\i` is needed.
MARKS_BELOW = frozenset("\u0323\u0327\u0328\u0331")
# What an accent over an empty argument (`\"{}`) prints: the spacing form of the mark.
SPACING_ACCENTS: dict[str, str] = {
    "`": "`", "'": "\u00b4", "^": "^", "~": "~", "=": "\u00af", "u": "\u02d8", ".": "\u02d9",
    '"': "\u00a8", "r": "\u02da", "H": "\u02dd", "v": "\u02c7", "c": "\u00b8", "k": "\u02db",
}  # fmt: skip

# Zero-argument text commands. The FIRST name given for a character is the one the encoder writes.
TEXT_SYMBOLS: dict[str, str] = {
    # letters
    "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð", "th": "þ",
    "TH": "Þ", "dj": "đ", "DJ": "Đ", "ng": "ŋ", "NG": "Ŋ", "SS": "ẞ", "ij": "ĳ", "IJ": "Ĳ",
    # punctuation and signs
    "S": "§", "textsection": "§", "P": "¶", "textparagraph": "¶", "copyright": "©",
    "textcopyright": "©", "textregistered": "®", "texttrademark": "™", "dag": "†",
    "textdagger": "†", "ddag": "‡", "textdaggerdbl": "‡", "ldots": "…", "dots": "…",
    "textellipsis": "…", "textendash": "–", "textemdash": "—", "textquoteleft": "‘",
    "textquoteright": "’", "textquotedblleft": "“", "textquotedblright": "”",
    "quotesinglbase": "‚", "quotedblbase": "„", "guillemetleft": "«", "guillemotleft": "«",
    "guillemetright": "»", "guillemotright": "»", "guilsinglleft": "‹", "guilsinglright": "›",
    "glqq": "„", "grqq": "“", "glq": "‚", "grq": "‘", "flqq": "«", "frqq": "»", "flq": "‹",
    "frq": "›",
    "textexclamdown": "¡", "textquestiondown": "¿", "pounds": "£", "textsterling": "£",
    "texteuro": "€", "euro": "€", "textyen": "¥", "textcent": "¢", "textcurrency": "¤",
    "textbullet": "•", "textperiodcentered": "·", "textdegree": "°", "textmu": "µ",
    "textordfeminine": "ª", "textordmasculine": "º", "textonehalf": "½",
    "textonequarter": "¼", "textthreequarters": "¾", "textonesuperior": "¹",
    "texttwosuperior": "²", "textthreesuperior": "³", "texttimes": "×", "textdiv": "÷",
    "textpm": "±", "textminus": "−", "textlnot": "¬", "textbrokenbar": "¦",
    "textnumero": "№", "textflorin": "ƒ", "textasciimacron": "¯", "textasciiacute": "´",
    "textasciidieresis": "¨", "textasciicaron": "ˇ", "textasciibreve": "˘",
    "textbardbl": "‖",
    # ASCII characters that are special in TeX
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^",
    "textunderscore": "_", "textbar": "|", "textless": "<", "textgreater": ">",
    "textbraceleft": "{", "textbraceright": "}", "textdollar": "$", "textquotedbl": '"',
    "textquotesingle": "'", "textasciigrave": "`", "slash": "/", "textslash": "/",
    # spaces
    "nobreakspace": "\u00a0", "thinspace": "\u2009", "enspace": "\u2002", "quad": "\u2003",
    "qquad": "\u2003\u2003", "newline": " ", "par": " ",
    # logos: their letters, so nothing is lost
    "LaTeX": "LaTeX", "TeX": "TeX", "LaTeXe": "LaTeX2e", "BibTeX": "BibTeX", "XeTeX": "XeTeX",
    "XeLaTeX": "XeLaTeX", "LuaTeX": "LuaTeX", "LuaLaTeX": "LuaLaTeX", "ConTeXt": "ConTeXt",
    "AmSTeX": "AmSTeX", "pdfTeX": "pdfTeX", "pdfLaTeX": "pdfLaTeX",
}  # fmt: skip

# Control symbols (backslash + one non-letter) that stand for a character.
CONTROL_SYMBOLS: dict[str, str] = {
    "&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ",
    "\n": " ", "\t": " ", "\\": " ", ",": "\u2009", ":": "\u205f", ";": "\u2005",
    "-": "\u00ad", "/": "", "@": "", "!": "",
}  # fmt: skip

# Characters the encoder writes as a command in BOTH dialects (invisible or TeX-special).
ALWAYS_COMMAND: dict[str, str] = {"\u00a0": "~", "\u2009": "\\,", "\u00ad": "\\-"}

# Non-ASCII character -> the text command the encoder writes for it (first name wins).
TEXT_COMMAND_OF: dict[str, str] = {}
for _name, _char in TEXT_SYMBOLS.items():
    if len(_char) == 1 and ord(_char) > 127 and _char not in TEXT_COMMAND_OF:
        TEXT_COMMAND_OF[_char] = _name
# Spacing accents with no text command of their own are written as an accent over nothing.
SPACING_ACCENT_OF: dict[str, str] = {
    _char: _name
    for _name, _char in SPACING_ACCENTS.items()
    if ord(_char) > 127 and _char not in TEXT_COMMAND_OF
}

# ---------------------------------------------------------------------------------------------
# Math mode
# ---------------------------------------------------------------------------------------------

_GREEK = (
    "alpha α beta β gamma γ delta δ epsilon ϵ varepsilon ε zeta ζ eta η theta θ vartheta ϑ "
    "iota ι kappa κ varkappa ϰ lambda λ mu μ nu ν xi ξ omicron ο pi π varpi ϖ rho ρ varrho ϱ "
    "sigma σ varsigma ς tau τ upsilon υ phi ϕ varphi φ chi χ psi ψ omega ω digamma ϝ "
    "Gamma Γ Delta Δ Theta Θ Lambda Λ Xi Ξ Pi Π Sigma Σ Upsilon Υ Phi Φ Psi Ψ Omega Ω"
)
_SYMBOLS = (
    "mid ∣ nmid ∤ sharp ♯ flat ♭ natural ♮ nabla ∇ partial ∂ infty ∞ times × div ÷ pm ± "
    "mp ∓ cdot ⋅ cdots ⋯ vdots ⋮ ddots ⋱ ldotp . cdotp ⋅ circ ∘ bullet ∙ star ⋆ ast ∗ "
    "leq ≤ le ≤ geq ≥ ge ≥ neq ≠ ne ≠ ll ≪ gg ≫ approx ≈ sim ∼ simeq ≃ cong ≅ equiv ≡ "
    "propto ∝ prec ≺ succ ≻ preceq ⪯ succeq ⪰ in ∈ notin ∉ ni ∋ subset ⊂ supset ⊃ "
    "subseteq ⊆ supseteq ⊇ cup ∪ cap ∩ setminus ∖ emptyset ∅ varnothing ∅ forall ∀ "
    "exists ∃ nexists ∄ neg ¬ lnot ¬ wedge ∧ land ∧ vee ∨ lor ∨ oplus ⊕ ominus ⊖ otimes ⊗ "
    "odot ⊙ oslash ⊘ perp ⊥ bot ⊥ top ⊤ vdash ⊢ dashv ⊣ models ⊨ parallel ∥ angle ∠ "
    "to → rightarrow → leftarrow ← gets ← leftrightarrow ↔ Rightarrow ⇒ Leftarrow ⇐ "
    "Leftrightarrow ⇔ implies ⟹ iff ⟺ mapsto ↦ longrightarrow ⟶ longleftarrow ⟵ "
    "longmapsto ⟼ uparrow ↑ downarrow ↓ hookrightarrow ↪ rightharpoonup ⇀ "
    "sum ∑ prod ∏ coprod ∐ int ∫ iint ∬ iiint ∭ oint ∮ bigcup ⋃ bigcap ⋂ bigoplus ⨁ "
    "bigotimes ⨂ sqrt √ surd √ ell ℓ hbar ℏ imath ı jmath ȷ Re ℜ Im ℑ aleph ℵ wp ℘ "
    "prime ′ dagger † ddagger ‡ langle ⟨ rangle ⟩ lceil ⌈ rceil ⌉ lfloor ⌊ rfloor ⌋ "
    "triangle △ Box □ diamond ⋄ lhd ⊲ rhd ⊳ unlhd ⊴ unrhd ⊵ wr ≀ amalg ⨿ uplus ⊎ "
    "sqcup ⊔ sqcap ⊓ sqsubseteq ⊑ sqsupseteq ⊒ asymp ≍ doteq ≐ bowtie ⋈ smile ⌣ frown ⌢ "
    "| ‖ vert | Vert ‖ lbrace { rbrace } backslash \\ ldots … dots … colon : "
    "leqslant ⩽ geqslant ⩾ lesssim ≲ gtrsim ≳ triangleq ≜ coloneqq ≔ "
    "complement ∁ therefore ∴ because ∵ blacksquare ■ square □ checkmark ✓ "
    "clubsuit ♣ diamondsuit ♢ heartsuit ♡ spadesuit ♠ degree °"
)


def _pairs(spec: str) -> dict[str, str]:
    words = spec.split()
    return dict(zip(words[0::2], words[1::2], strict=True))


GREEK: dict[str, str] = _pairs(_GREEK)
MATH_SYMBOLS: dict[str, str] = {**GREEK, **_pairs(_SYMBOLS)}
# After these, the space that ends the command name is not a space in the output (`\nabla u`).
LETTER_LIKE: frozenset[str] = frozenset(
    [*GREEK, "nabla", "partial", "infty", "ell", "hbar", "imath", "jmath", "Re", "Im", "aleph",
     "wp", "prime", "emptyset", "varnothing", "neg", "lnot", "forall", "exists", "nexists",
     "sum", "prod", "int", "iint", "iiint", "oint", "sqrt", "surd", "angle"]
)  # fmt: skip
# Operator names (`\\log n`): printed as their name; the space after them stays.
MATH_FUNCTIONS: frozenset[str] = frozenset(
    "log ln lg exp sin cos tan cot sec csc sinh cosh tanh coth arcsin arccos arctan max min "
    "sup inf lim liminf limsup det arg deg dim gcd hom ker Pr mod bmod".split()
)
# Spacing commands inside math and what they print.
MATH_SPACES: dict[str, str] = {
    ",": "\u2009", ":": "\u205f", ";": "\u2005", "!": "", " ": " ", "quad": "\u2003",
    "qquad": "\u2003\u2003", "enspace": "\u2002", "thinspace": "\u2009",
}  # fmt: skip
# Sizing/delimiter helpers that print nothing themselves.
MATH_IGNORED: frozenset[str] = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr displaystyle textstyle "
    "scriptstyle limits nolimits relax".split()
)
# Commands whose argument is text (kept as written, spaces included).
MATH_TEXT_ARG: frozenset[str] = frozenset(
    "text textrm textnormal mathrm operatorname textit textsf texttt mathit mbox textup".split()
)
# Accents over a math argument.
MATH_ACCENTS: dict[str, str] = {
    "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
    "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7", "dot": "\u0307",
    "ddot": "\u0308", "acute": "\u0301", "grave": "\u0300", "breve": "\u0306",
    "check": "\u030c", "mathring": "\u030a",
}  # fmt: skip

# Math alphabets: command -> (Unicode name prefix, exceptions that live in Letterlike Symbols).
_ALPHABETS: dict[str, str] = {
    "mathbb": "DOUBLE-STRUCK", "mathcal": "SCRIPT", "mathscr": "SCRIPT",
    "mathfrak": "FRAKTUR", "mathbf": "BOLD", "boldsymbol": "BOLD", "bm": "BOLD",
    "mathsf": "SANS-SERIF", "mathtt": "MONOSPACE",
}  # fmt: skip
_LETTERLIKE_FALLBACK = {
    "FRAKTUR": "BLACK-LETTER",
    "SCRIPT": "SCRIPT",
    "DOUBLE-STRUCK": "DOUBLE-STRUCK",
}


@lru_cache(maxsize=4096)
def alphabet_char(style_cmd: str, char: str) -> str | None:
    """`\\mathbb{E}` -> '𝔼' for one character, or None when Unicode has no such letter."""
    style = _ALPHABETS[style_cmd]
    if char.isdigit() and char.isascii():
        kind = "DIGIT " + unicodedata.name(char).split()[-1]
    elif char.isascii() and char.isalpha():
        kind = ("CAPITAL " if char.isupper() else "SMALL ") + char.upper()
    else:
        return None
    for name in (f"MATHEMATICAL {style} {kind}", f"{_LETTERLIKE_FALLBACK.get(style, '')} {kind}"):
        try:
            return unicodedata.lookup(name.strip())
        except KeyError:
            continue
    return None


ALPHABET_COMMANDS: frozenset[str] = frozenset(_ALPHABETS)
# Math-only commands that take arguments: name -> number of mandatory arguments.
MATH_ARG_COMMANDS: dict[str, int] = {
    **{name: 1 for name in _ALPHABETS}, **{name: 1 for name in MATH_ACCENTS},
    "frac": 2, "dfrac": 2, "tfrac": 2, "binom": 2, "sqrt": 1, "mathrm": 1, "mathit": 1,
    "operatorname": 1, "underbrace": 1, "overbrace": 1, "overrightarrow": 1,
    **{name: 0 for name in MATH_FUNCTIONS},
}  # fmt: skip

# Unicode superscripts and subscripts.
SUPERSCRIPTS: dict[str, str] = dict(
    zip(
        "0123456789+-=()niabcdefghjklmoprstuvwxyzABDEGHIJKLMNOPRTUVW",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
        strict=True,
    )
)
SUPERSCRIPTS["−"] = "⁻"
SUBSCRIPTS: dict[str, str] = dict(
    zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)
SUBSCRIPTS["−"] = "₋"

# ---------------------------------------------------------------------------------------------
# Math source -> Unicode
# ---------------------------------------------------------------------------------------------

Piece = tuple[str, str]  # ("text" | "sup" | "sub", unicode)

_MATH_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([{}^_])|(\s+)|(.)", re.DOTALL)
_PLAIN_MATH = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789()[]=+-<>,.;:!?/|'*@\""
)


class _Unmappable(Exception):
    """Internal: a token has no Unicode form; the caller keeps the TeX."""


@lru_cache(maxsize=8192)
def math_pieces(tex: str) -> tuple[Piece, ...] | None:
    """Math source as Unicode pieces, or None when any token has no Unicode form.

    A `sup`/`sub` piece is a script whose characters have no Unicode super/subscript form;
    CSL can still show it with `<sup>`, plain Unicode cannot.
    """
    tokens = [(m.group(1), m.group(2), m.group(3), m.group(4)) for m in _MATH_TOKEN.finditer(tex)]
    try:
        pieces, pos = _math_seq(tokens, 0, top=True)
    except _Unmappable:
        return None
    if pos != len(tokens):
        return None
    return _merge_pieces(pieces)


def _merge_pieces(pieces: list[Piece]) -> tuple[Piece, ...]:
    merged: list[Piece] = []
    for kind, text in pieces:
        if not text:
            continue
        if merged and merged[-1][0] == kind == "text":
            merged[-1] = ("text", merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return tuple(merged)


def _math_seq(tokens: list, pos: int, *, top: bool) -> tuple[list[Piece], int]:
    out: list[Piece] = []
    while pos < len(tokens):
        cmd, special, space, char = tokens[pos]
        if special == "}":
            if top:
                raise _Unmappable
            return out, pos
        if special == "{":
            inner, pos = _math_seq(tokens, pos + 1, top=False)
            if pos >= len(tokens):
                raise _Unmappable
            out.extend(inner)
            pos += 1
            continue
        if special in ("^", "_"):
            arg, pos = _math_arg(tokens, pos + 1)
            out.append(_script(special, arg))
            continue
        if space is not None:
            out.append(("text", " "))
            pos += 1
            continue
        if char is not None:
            out.append(("text", _math_char(char)))
            pos += 1
            continue
        before = out[-1][1][-1:] if out and out[-1][0] == "text" else ""
        if cmd in MATH_FUNCTIONS and before.isalnum():
            out.append(("text", " "))  # `n\log n` reads "n log n"
        pos = _math_command(cmd, tokens, pos + 1, out)
        if cmd.isalpha() and before != " " and cmd not in _KEEP_SPACE_AFTER:
            # the space only ended the command name (`d\approx n`), unless the source spaced
            # the symbol on both sides (`Y \mid X`)
            pos = _skip_space(tokens, pos)
    return out, pos


_KEEP_SPACE_AFTER = ALPHABET_COMMANDS | MATH_TEXT_ARG | MATH_FUNCTIONS


def _math_char(char: str) -> str:
    if char in _PLAIN_MATH:
        return "′" if char == "'" else char
    if char in "&#$%~":
        raise _Unmappable
    return char  # already Unicode (`$μ$`)


def _math_command(cmd: str, tokens: list, pos: int, out: list[Piece]) -> int:
    if cmd in MATH_SYMBOLS:
        out.append(("text", MATH_SYMBOLS[cmd]))
        if cmd in LETTER_LIKE:
            return _skip_space(tokens, pos)
        return pos
    if cmd in MATH_FUNCTIONS:
        out.append(("text", "mod" if cmd == "bmod" else cmd))
        return pos
    if cmd in MATH_SPACES:
        out.append(("text", MATH_SPACES[cmd]))
        return pos
    if cmd in "%&#$_{}":
        out.append(("text", cmd))
        return pos
    if cmd in MATH_IGNORED:
        return _skip_space(tokens, pos)
    if cmd in ALPHABET_COMMANDS:
        arg, pos = _math_arg(tokens, pos)
        styled = [alphabet_char(cmd, c) for c in _text_only(arg).replace(" ", "")]
        if any(c is None for c in styled):
            raise _Unmappable
        out.append(("text", "".join(styled)))  # type: ignore[arg-type]
        return pos
    if cmd in MATH_TEXT_ARG:
        arg, pos = _math_arg(tokens, pos)
        out.append(("text", _text_only(arg)))
        return pos
    if cmd in MATH_ACCENTS:
        arg, pos = _math_arg(tokens, pos)
        base = _text_only(arg)
        if len(base) != 1:
            raise _Unmappable
        out.append(("text", unicodedata.normalize("NFC", base + MATH_ACCENTS[cmd])))
        return pos
    raise _Unmappable


def _skip_space(tokens: list, pos: int) -> int:
    while pos < len(tokens) and tokens[pos][2] is not None:
        pos += 1
    return pos


def _math_arg(tokens: list, pos: int) -> tuple[list[Piece], int]:
    """One argument: a braced group or a single token (spaces before it skipped)."""
    pos = _skip_space(tokens, pos)
    if pos >= len(tokens):
        raise _Unmappable
    cmd, special, _space, char = tokens[pos]
    if special == "{":
        inner, end = _math_seq(tokens, pos + 1, top=False)
        if end >= len(tokens):
            raise _Unmappable
        return inner, end + 1
    if special is not None:
        raise _Unmappable
    if char is not None:
        return [("text", _math_char(char))], pos + 1
    single: list[Piece] = []
    end = _math_command(cmd, tokens, pos + 1, single)
    return single, end


def _text_only(pieces: list[Piece]) -> str:
    if any(kind != "text" for kind, _ in pieces):
        raise _Unmappable
    return "".join(text for _, text in pieces)


def _script(kind: str, arg: list[Piece]) -> Piece:
    text = _text_only(arg)
    table = SUPERSCRIPTS if kind == "^" else SUBSCRIPTS
    if text and all(c in table for c in text):
        return ("text", "".join(table[c] for c in text))
    return ("sup" if kind == "^" else "sub", text)


def math_to_unicode(tex: str) -> str | None:
    """Math source as one Unicode string, or None when some part has no Unicode form."""
    pieces = math_pieces(tex)
    if pieces is None or any(kind != "text" for kind, _ in pieces):
        return None
    return "".join(text for _, text in pieces)


# ---------------------------------------------------------------------------------------------
# Unicode -> math source (for non-ASCII characters inside math, and math characters in text)
# ---------------------------------------------------------------------------------------------

MATH_COMMAND_OF: dict[str, str] = {}
for _name, _char in MATH_SYMBOLS.items():
    if len(_char) == 1 and ord(_char) > 127 and _char not in MATH_COMMAND_OF:
        MATH_COMMAND_OF[_char] = "\\" + _name
MATH_COMMAND_OF["µ"] = "\\mu"  # MICRO SIGN, common in pasted text
for _cmd in ("mathbb", "mathcal", "mathfrak", "mathbf", "mathsf", "mathtt"):
    for _c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789":
        _styled = alphabet_char(_cmd, _c)
        if _styled is not None and _styled not in MATH_COMMAND_OF:
            MATH_COMMAND_OF[_styled] = f"\\{_cmd}{{{_c}}}"
for _plain_char, _sup in SUPERSCRIPTS.items():
    if _plain_char.isascii():
        MATH_COMMAND_OF.setdefault(_sup, f"^{{{_plain_char}}}")
for _plain_char, _sub in SUBSCRIPTS.items():
    if _plain_char.isascii():
        MATH_COMMAND_OF.setdefault(_sub, f"_{{{_plain_char}}}")

_CONTROL_WORD_END = re.compile(r"\\[A-Za-z]+$")


def unicode_to_math(tex: str) -> tuple[str, tuple[str, ...]]:
    """Replace non-ASCII characters in math source by math commands (`μ` -> `\\mu`).

    Returns the new source and the characters that have no command (kept as they are).
    """
    if tex.isascii():
        return tex, ()
    out: list[str] = []
    kept: list[str] = []
    for char in tex:
        command = MATH_COMMAND_OF.get(char) if ord(char) > 127 else None
        if command is None:
            if out and char.isascii() and char.isalpha() and _CONTROL_WORD_END.search(out[-1]):
                out.append(" ")
            out.append(char)
            if ord(char) > 127:
                kept.append(char)
            continue
        out.append(command)
    return "".join(out), tuple(kept)
