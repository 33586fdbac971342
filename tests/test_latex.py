"""LaTeX <-> rich text: accent spellings, special letters, case protection, spans, math, unknown
commands, unbalanced braces, the real arXiv/corpus values, and hypothesis round trips."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citekit.latex import classify_problem, decode, decode_plain, encode, protect_case
from citekit.mathmap import unicode_to_math
from citekit.model import Math, Node, Raw, Rich, Span, Text, make_text


def text_of(latex: str) -> Text:
    return decode(latex).text


def nocase(*children: Node) -> Span:
    return Span("nocase", children)


def span(kind: str, *children: Node) -> Span:
    return Span(kind, children)  # type: ignore[arg-type]


# --- accents: every spelling ------------------------------------------------------------------

ACCENT_SPELLINGS = [
    (r"{\"u}", "ü"), (r"\"{u}", "ü"), (r"\"u", "ü"), (r"\" u", "ü"), (r"{\" u}", "ü"),
    (r"\"{U}", "Ü"), (r"{\.{e}}", "ė"), (r"{\.e}", "ė"), (r"\.{e}", "ė"), (r"\.e", "ė"),
    (r"\v{c}", "č"), (r"{\v c}", "č"), (r"{\v{c}}", "č"), (r"\v c", "č"), (r"\v{C}", "Č"),
    (r"\'{\i}", "í"), (r"{\'\i}", "í"), (r"\'\i", "í"), (r"{\'{\i}}", "í"), (r"\'i", "í"),
    (r"\'{e}", "é"), (r"\'e", "é"), (r"{\'E}", "É"), (r"\`{a}", "à"), (r"\`a", "à"),
    (r"\c{c}", "ç"), (r"{\c c}", "ç"), (r"\c{s}", "ş"), (r"\H{o}", "ő"), (r"{\H o}", "ő"),
    (r"\k{a}", "ą"), (r"\k{e}", "ę"), (r"\r{a}", "å"), (r"\r{u}", "ů"), (r"\u{g}", "ğ"),
    (r"{\u a}", "ă"), (r"\={a}", "ā"), (r"\=a", "ā"), (r"\~{n}", "ñ"), (r"\~n", "ñ"),
    (r"{\~N}", "Ñ"), (r"\^{o}", "ô"), (r"\^o", "ô"), (r"\^{\i}", "î"), (r"\d{o}", "ọ"),
    (r"\d{s}", "ṣ"), (r"\b{o}", "o\u0331"), (r"\b{b}", "ḇ"), (r"\t{oo}", "o\u0361o"),
    (r"\'{\o}", "ǿ"), (r"\^{\d{e}}", "ệ"), (r"{\^{\d{e}}}", "ệ"), (r"\v{\i}", "ǐ"),
    (r"\'{}", "\u00b4"), (r'\"{}', "\u00a8"),
]  # fmt: skip


@pytest.mark.parametrize(("latex", "expected"), ACCENT_SPELLINGS)
def test_accent_spellings_decode_to_composed_unicode(latex: str, expected: str) -> None:
    decoded = decode(latex)
    assert decoded.text == expected
    assert unicodedata.is_normalized("NFC", decoded.text)  # type: ignore[arg-type]
    assert decoded.problems == ()


def test_accent_spellings_suite_is_large() -> None:
    assert len(ACCENT_SPELLINGS) >= 40


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"Bon{\v c}a", "Bonča"),
        (r"P\"{a}ckert", "Päckert"),
        (r"Stra\ss e", "Straße"),
        (r"Stra{\ss}e", "Straße"),
        (r"\AA{}ngstr\"om", "Ångström"),
        (r"{\O}rsted", "Ørsted"),
        (r"\o\ \O\ \ss\ \ae\ \AE\ \oe\ \OE\ \l\ \L\ \i\ \j", "ø Ø ß æ Æ œ Œ ł Ł ı ȷ"),
        (r"\aa\ \AA\ \dh\ \DH\ \th\ \TH\ \ng\ \NG", "å Å ð Ð þ Þ ŋ Ŋ"),
        (r"\S 3, \P 2", "§3, ¶2"),
        (r"\copyright{} \textregistered{} \texttrademark{} \dag{} \ddag", "© ® ™ † ‡"),
        (r"Wait\ldots{} and\dots", "Wait… and…"),
        (r"a\textendash b\textemdash c", "a–b—c"),
        (r"\textquoteleft x\textquoteright{} \textquotedblleft y\textquotedblright", "‘x’ “y”"),
        (r"\& \% \$ \# \_ \{ \}", "& % $ # _ { }"),
        (r"\textbackslash{} \textasciitilde{} \textasciicircum{}", "\\ ~ ^"),
        ("Sturm--Liouville", "Sturm–Liouville"),
        ("a---b", "a—b"),
        ("pages 10--20", "pages 10–20"),
        ("a~b", "a\u00a0b"),
        ("``quoted''", "“quoted”"),
        ("`single'", "‘single'"),
        ("don't", "don't"),
        (r"a\,b", "a\u2009b"),
        (r"a\ b", "a b"),
        (r"line\\break", "line break"),
        ("many   spaces\n\tand\r\nnewlines  ", "many spaces and newlines"),
        (r"\LaTeX{} and \TeX", "LaTeX and TeX"),
        (r"\mkbibquote{Ja} and \enquote{Nein}", "“Ja” and “Nein”"),
        (r"\glqq Ja\grqq{} \flqq Non\frqq", "„Ja“ «Non»"),
    ],
)
def test_special_letters_symbols_escapes(latex: str, expected: str) -> None:
    assert decode(latex) == (expected, ())


def test_plain_values_take_the_fast_path_unchanged() -> None:
    assert decode("Monthly Weather Review") == ("Monthly Weather Review", ())
    # BibTeX collapses whitespace runs, newlines included
    value = "Representation of Topography by Shaved Cells in a\n    \t\t   Height Coordinate"
    assert (
        decode(value).text == "Representation of Topography by Shaved Cells in a Height Coordinate"
    )
    assert decode("  x  ").text == "x"
    assert decode("").text == ""


# --- case protection, spans --------------------------------------------------------------------


def test_braces_are_case_protection_but_special_characters_are_not() -> None:
    assert text_of("{DNA} sequences") == Rich((nocase("DNA"), " sequences"))
    assert text_of(r"{\"U}ber") == "Über"
    assert text_of(r"{\'E}cole {DNA}") == Rich(("École ", nocase("DNA")))
    # BibTeX: `{\emph{X}}` is a special character (no protection); `{{\emph{X}}}` protects
    assert text_of(r"{\emph{X}}") == Rich((span("i", "X"),))
    assert text_of(r"{{\emph{X}}}") == Rich((nocase(span("i", "X")),))
    # nested braces inside protection add nothing
    assert text_of("{{Nonequilibrium {DNA}}}") == Rich((nocase("Nonequilibrium DNA"),))
    assert text_of("{}") == ""
    assert text_of("a{}b") == "ab"


@pytest.mark.parametrize(
    ("latex", "kind"),
    [
        (r"\emph{x}", "i"), (r"\textit{x}", "i"), (r"{\it x}", "i"), (r"{\em x}", "i"),
        (r"\mkbibemph{x}", "i"), (r"\textbf{x}", "b"), (r"{\bf x}", "b"), (r"\mkbibbold{x}", "b"),
        (r"\textsc{x}", "sc"), (r"{\sc x}", "sc"), (r"\textsuperscript{x}", "sup"),
        (r"\textsubscript{x}", "sub"),
    ],
)  # fmt: skip
def test_font_commands_become_spans(latex: str, kind: str) -> None:
    assert decode(latex) == (Rich((span(kind, "x"),)), ())


@pytest.mark.parametrize(
    "latex", [r"\texttt{x}", r"\textrm{x}", r"\textsf{x}", r"\textup{x}", r"\textnormal{x}",
              r"\mbox{x}", r"{\rm x}", r"{\tt x}"],
)  # fmt: skip
def test_font_only_commands_keep_their_content(latex: str) -> None:
    assert decode(latex) == ("x", ())


def test_switch_runs_to_the_end_of_its_group() -> None:
    assert text_of(r"a {\em b c} d") == Rich(("a ", span("i", "b c"), " d"))
    assert text_of(r"a \bf b") == Rich(("a ", span("b", "b")))


def test_urls_keep_their_text_verbatim() -> None:
    assert text_of(r"\url{https://x.org/~a_b%20c}") == "https://x.org/~a_b%20c"
    assert text_of(r"\path|a_b|") == "a_b"
    decoded = decode(r"see \href{https://x.org}{the site}")
    assert decoded.text == "see the site"
    assert any("https://x.org" in p for p in decoded.problems)  # the target is reported
    assert text_of(r"\href{https://x.org}{https://x.org}") == "https://x.org"


# --- math ---------------------------------------------------------------------------------------


def test_math_is_kept_exactly() -> None:
    assert text_of("$μ$P") == Rich((Math("μ"), "P"))
    assert text_of(r"$O(n^{4/3}d)$") == Rich((Math("O(n^{4/3}d)"),))
    assert text_of(r"$ρ=\nabla u \sharp e^{-u}$") == Rich((Math(r"ρ=\nabla u \sharp e^{-u}"),))
    assert text_of(r"\(a--b\)") == Rich((Math("a--b"),))
    assert text_of(r"$a~b$ c") == Rich((Math("a~b"), " c"))
    assert text_of(r"\ensuremath{\alpha}") == Rich((Math(r"\alpha", bare=True),))


def test_math_commands_outside_math_become_bare_math() -> None:
    decoded = decode(r"Conditional expectation \mathbb{E}(Y \mid X) fails")
    assert decoded.text == Rich(
        ("Conditional expectation ", Math(r"\mathbb{E}", True), "(Y ", Math(r"\mid", True),
         " X) fails")
    )  # fmt: skip
    assert decoded.problems == (
        "math command \\mathbb outside math, kept as math",
        "math command \\mid outside math, kept as math",
    )
    assert text_of(r"\mathcal{L}(Y \mid X)") == Rich(
        (Math(r"\mathcal{L}", True), "(Y ", Math(r"\mid", True), " X)")
    )
    assert text_of(r"\alpha and \nabla") == Rich(
        (Math(r"\alpha", True), " and ", Math(r"\nabla", True))
    )
    # ^ and _ are not commands: they stay text
    assert text_of("x^2 a_b") == "x^2 a_b"


def test_unterminated_or_broken_math_stays_text() -> None:
    decoded = decode("costs $5")
    assert decoded.text == "costs $5"
    assert decoded.problems == ("unterminated math: $ kept as text",)
    decoded = decode(r"$a%b$")
    assert decoded.text == "$a%b$"
    assert decoded.problems


# --- unknown commands and unbalanced braces ------------------------------------------------------


def test_unknown_commands_are_kept_verbatim_with_a_problem() -> None:
    assert decode(r"\foo{bar} x") == (
        Rich((Raw(r"\foo{bar}"), " x")),
        ("unknown command \\foo kept verbatim",),
    )
    assert text_of(r"{\noopsort{a}}Zeta") == Rich((Raw(r"{\noopsort{a}}"), "Zeta"))
    assert text_of(r"\foo[opt]{a}{b}c") == Rich((Raw(r"\foo[opt]{a}{b}"), "c"))
    assert text_of(r"\mymacro rest") == Rich((Raw(r"\mymacro"), " rest"))
    assert text_of(r"\mymacro{}rest") == Rich((Raw(r"\mymacro"), "rest"))


@pytest.mark.parametrize(
    ("latex", "expected", "problem"),
    [
        ("a { b", "a { b", "unbalanced opening brace kept as text"),
        ("a } b", "a } b", "unbalanced closing brace kept as text"),
        (r"\emph{open", Rich((span("i", "{open"),)), "unbalanced opening brace kept as text"),
        ("trailing \\", "trailing \\", "lone backslash at the end kept as text"),
        ("{{a}", "{a", "unbalanced opening brace kept as text"),
    ],
)
def test_unbalanced_input_keeps_every_character(latex: str, expected: Text, problem: str) -> None:
    decoded = decode(latex)
    assert decoded.text == expected
    assert problem in decoded.problems


def test_decode_plain_flattens_and_caches() -> None:
    assert decode_plain(r"{\v{C}}ech, {DNA} and \emph{x}") == "Čech, DNA and x"
    assert decode_plain(r"$\alpha$-helix") == r"$\alpha$-helix"
    assert decode_plain.cache_info().maxsize  # an lru_cache: names repeat


@pytest.mark.parametrize(
    ("latex", "code", "severity"),
    [
        (r"\mathbb{E}", "latex.math-outside-math", "info"),
        ("$$x$$", "latex.display-math", "info"),
        (r"\foo{x}", "latex.unknown-command", "warning"),
        ("a { b", "latex.unbalanced-braces", "warning"),
        ("a } b", "latex.unbalanced-braces", "warning"),
        ("a \\", "latex.unbalanced-braces", "warning"),
        ("costs $5", "latex.unterminated-math", "warning"),
        (r"\(x", "latex.unterminated-math", "warning"),
        ("$a%b$", "latex.unsafe-math", "warning"),
        (r"\d{}", "latex.accent", "warning"),
        (r"\emph", "latex.missing-argument", "warning"),
        (r"\href{https://x.org}{site}", "latex.link-target", "warning"),
    ],
)
def test_every_decode_problem_has_a_stable_code(latex: str, code: str, severity: str) -> None:
    problems = decode(latex).problems
    assert problems
    assert {classify_problem(p) for p in problems} == {(code, severity)}


def test_encode_problems_have_stable_codes() -> None:
    _, problems = encode(Rich(("Ж", Math("è"), Raw("é"), "\u0301")), ascii=True)
    assert {classify_problem(p) for p in problems} == {("latex.no-ascii-form", "warning")}
    _, problems = encode(Rich((Math("a}"), Raw("{"))), ascii=True)
    assert [classify_problem(p)[0] for p in problems] == ["latex.unsafe-math", "latex.unsafe-raw"]


# --- the real values -----------------------------------------------------------------------------

# From /work/shared/sources/*.txt (arXiv abstracts and titles).
REAL_CASES = [
    # latex, decoded, bibtex (ascii), biblatex (utf-8)
    ("$μ$P", Rich((Math("μ"), "P")), r"$\mu$P", r"$\mu$P"),
    (
        r"\emph{which tokens an SLM can and should learn} during",
        Rich((span("i", "which tokens an SLM can and should learn"), " during")),
        r"\textit{which tokens an SLM can and should learn} during",
        r"\textit{which tokens an SLM can and should learn} during",
    ),
    (
        r"via a \texttt{ } token",
        "via a token",
        "via a token",
        "via a token",
    ),
    (
        r"\textit{Deep Sturm--Liouville} (DSL)",
        Rich((span("i", "Deep Sturm–Liouville"), " (DSL)")),
        r"\textit{Deep Sturm--Liouville} (DSL)",
        r"\textit{Deep Sturm–Liouville} (DSL)",
    ),
    (
        r"\mathbb{E}(Y \mid X)",
        Rich((Math(r"\mathbb{E}", True), "(Y ", Math(r"\mid", True), " X)")),
        r"\ensuremath{\mathbb{E}}(Y \ensuremath{\mid} X)",
        r"\ensuremath{\mathbb{E}}(Y \ensuremath{\mid} X)",
    ),
    (
        r"\mathcal{L}(Y \mid X)",
        Rich((Math(r"\mathcal{L}", True), "(Y ", Math(r"\mid", True), " X)")),
        r"\ensuremath{\mathcal{L}}(Y \ensuremath{\mid} X)",
        r"\ensuremath{\mathcal{L}}(Y \ensuremath{\mid} X)",
    ),
    (
        r"$ρ=\nabla u \sharp e^{-u}$",
        Rich((Math(r"ρ=\nabla u \sharp e^{-u}"),)),
        r"$\rho=\nabla u \sharp e^{-u}$",
        r"$\rho=\nabla u \sharp e^{-u}$",
    ),
    (
        r"$O(n^{4/3}d)$",
        Rich((Math("O(n^{4/3}d)"),)),
        r"$O(n^{4/3}d)$",
        r"$O(n^{4/3}d)$",
    ),
    (
        r"by $12-29\%$ under",
        Rich(("by ", Math(r"12-29\%"), " under")),
        r"by $12-29\%$ under",
        r"by $12-29\%$ under",
    ),
    (
        r"equivalent to 2--3$\times$ the",
        Rich(("equivalent to 2–3", Math(r"\times"), " the")),
        r"equivalent to 2--3$\times$ the",
        r"equivalent to 2–3$\times$ the",
    ),
]


@pytest.mark.parametrize(("latex", "decoded", "bibtex", "biblatex"), REAL_CASES)
def test_real_arxiv_values(latex: str, decoded: Text, bibtex: str, biblatex: str) -> None:
    assert decode(latex).text == decoded
    assert encode(decoded, ascii=True) == (bibtex, ())
    assert encode(decoded, ascii=False) == (biblatex, ())


# From tests/corpus/bibtex/bbt-math-627.bib and bbt-title-cased-1246.bib (field bodies).
def test_corpus_bbt_math_627_values() -> None:
    title = r"{Nonequilibrium Propagation and Decay of a Bound Pair in Driven $t$-$J$ Models}"
    expected = Rich(
        (nocase("Nonequilibrium Propagation and Decay of a Bound Pair in Driven ", Math("t"), "-",
                Math("J"), " Models"),)
    )  # fmt: skip
    assert decode(title) == (expected, ())
    assert encode(expected, ascii=True) == (title, ())

    assert decode(r"Bon{\v c}a, J and Mierzejewski, M and Vidmar, L").text == (
        "Bonča, J and Mierzejewski, M and Vidmar, L"
    )
    assert decode(r"Fritz, U. and Corti, C. and P\"{a}ckert, M.").text == (
        "Fritz, U. and Corti, C. and Päckert, M."
    )
    journal = r"Actes du $4^{\textrm{ème}}$ Congrès Français d'Acoustique"
    decoded = Rich(("Actes du ", Math(r"4^{\textrm{ème}}"), " Congrès Français d'Acoustique"))
    assert decode(journal) == (decoded, ())
    assert encode(decoded, ascii=False) == (journal, ())
    bibtex, problems = encode(decoded, ascii=True)
    assert bibtex == r"Actes du $4^{\textrm{ème}}$ Congr{\`e}s Fran{\c{c}}ais d'Acoustique"
    assert problems == ("no math command for 'è'; kept as UTF-8",)

    title = (
        r"Test of markupconversion: Italics, bold, superscript, subscript, and small caps: "
        r"Mitochondrial DNA$_{\textrm{2}}$ sequences suggest unexpected phylogenetic position of "
        r"Corso-Sardinian grass snakes (\textit{Natrix cetti}) and \textbf{do not} support their "
        r"\textsc{species status}, with notes on phylogeography and subspecies delineation of "
        r"grass snakes."
    )
    decoded = decode(title)
    assert decoded.problems == ()
    assert decoded.text == Rich(
        (
            "Test of markupconversion: Italics, bold, superscript, subscript, and small caps: "
            "Mitochondrial DNA",
            Math(r"_{\textrm{2}}"),
            " sequences suggest unexpected phylogenetic position of Corso-Sardinian grass snakes (",
            span("i", "Natrix cetti"),
            ") and ",
            span("b", "do not"),
            " support their ",
            span("sc", "species status"),
            ", with notes on phylogeography and subspecies delineation of grass snakes.",
        )
    )
    assert encode(decoded.text, ascii=True) == (title, ())


def test_corpus_bbt_title_cased_1246_values() -> None:
    assert decode("Adcroft, Alistair  and  Chris Hill\n    \t\t   and  John Marshall").text == (
        "Adcroft, Alistair and Chris Hill and John Marshall"
    )
    title = (
        "Representation of Topography by Shaved Cells in a\n"
        "    \t\t   Height Coordinate Ocean Model"
    )
    assert decode(title) == (
        "Representation of Topography by Shaved Cells in a Height Coordinate Ocean Model",
        (),
    )
    assert decode("2293-2315").text == "2293-2315"


# --- encoding -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ascii_out", "utf8_out"),
    [
        ("R&D 50% #1 a_b $5", r"R\&D 50\% \#1 a\_b \$5", r"R\&D 50\% \#1 a\_b \$5"),
        ("{x}", r"\{x\}", r"\{x\}"),
        ("a } b {", r"a \textbraceright{} b \textbraceleft{}",
         r"a \textbraceright{} b \textbraceleft{}"),
        ("C:\\dir ~ x^2", r"C:\textbackslash{}dir \textasciitilde{} x\textasciicircum{}2",
         r"C:\textbackslash{}dir \textasciitilde{} x\textasciicircum{}2"),
        ("a\u00a0b\u2009c", r"a~b\,c", r"a~b\,c"),
        ("Sturm–Liouville — “q” ‘s’", r"Sturm--Liouville --- ``q'' `s{\textquoteright}",
         "Sturm–Liouville — “q” ‘s’"),
        ("Müller Čech Straße Ørsted ł", r"M{\"u}ller {\v{C}}ech Stra{\ss}e {\O}rsted {\l}",
         "Müller Čech Straße Ørsted ł"),
        ("ệ í ǿ", r"{\^{\d{e}}} {\'{\i}} {\'{\o}}", "ệ í ǿ"),
        ("α-helix ∣", r"{\ensuremath{\alpha}}-helix {\ensuremath{\mid}}", "α-helix ∣"),
        ("a--b", "a-{}-b", "a-{}-b"),
        ("it''s `x", r"it'{}'s \textasciigrave{}x", r"it'{}'s \textasciigrave{}x"),
        ("©2020 §3", r"{\copyright}2020 {\S}3", "©2020 §3"),
    ],
)  # fmt: skip
def test_encode_text(text: str, ascii_out: str, utf8_out: str) -> None:
    assert encode(text, ascii=True) == (ascii_out, ())
    assert encode(text, ascii=False) == (utf8_out, ())
    assert decode(ascii_out).text == text
    assert decode(utf8_out).text == text


def test_encode_never_drops_unmappable_characters() -> None:
    out, problems = encode("Київ 東京", ascii=True)
    assert out == "Київ 東京"
    assert problems == (
        "no LaTeX form for 6 character(s) 'Київ東京' (first: U+041A CYRILLIC CAPITAL LETTER KA); "
        "kept as UTF-8",
    )
    assert encode("Київ", ascii=False) == ("Київ", ())


def test_encode_spans_and_protection() -> None:
    text = Rich(
        (nocase("DNA"), " ", span("i", "x"), span("b", "y"), span("sc", "z"), span("sup", "2"),
         span("sub", "3"))
    )  # fmt: skip
    assert encode(text, ascii=True) == (
        r"{DNA} \textit{x}\textbf{y}\textsc{z}\textsuperscript{2}\textsubscript{3}",
        (),
    )
    # `{\textit{X}}` would cancel the protection: double braces
    assert encode(Rich((nocase(span("i", "X"), " y"),)), ascii=True) == (r"{{\textit{X} y}}", ())
    assert encode(Rich((nocase("Über"),)), ascii=True) == (r"{{\"U}ber}", ())
    assert encode(Rich((nocase(Math(r"\alpha", True)),)), ascii=True) == (
        r"{{}\ensuremath{\alpha}}",
        (),
    )
    assert encode(Rich((nocase(Raw(r"\foo"), " x"),)), ascii=True) == (r"{{}\foo x}", ())


def test_encode_math_and_raw() -> None:
    assert encode(Rich((Math("μ"), "P")), ascii=False) == (r"$\mu$P", ())
    assert encode(Rich((Math("x"), Math("y"))), ascii=True) == ("$x${}$y$", ())
    assert encode(Rich((Math(r"\mathbb{E}", True),)), ascii=True) == (
        r"\ensuremath{\mathbb{E}}",
        (),
    )
    assert encode(Rich((Raw(r"\noopsort{a}"), "b")), ascii=True) == (r"\noopsort{a}b", ())
    assert encode(Rich((Raw(r"\foo"), "bar")), ascii=True) == (r"\foo\relax{}bar", ())
    # math or raw that cannot be written safely is written as text, with a problem
    out, problems = encode(Rich((Math("a}b"),)), ascii=True)
    assert out == r"\$a\textbraceright{}b\$"
    assert problems
    out, problems = encode(Rich((Raw("\\foo{50%}"),)), ascii=True)
    assert out == r"\textbackslash{}foo\{50\%\}"
    assert problems


# --- protect_case -------------------------------------------------------------------------------


def test_protect_case_acronyms() -> None:
    title = "Higher-Order FNO for DNA on iPhone with LaTeX, GANs, SciPy and μP in 3D ResNet-50"
    assert protect_case(title, "acronyms") == Rich(
        ("Higher-Order ", nocase("FNO"), " for ", nocase("DNA"), " on ", nocase("iPhone"),
         " with ", nocase("LaTeX"), ", ", nocase("GANs"), ", ", nocase("SciPy"), " and ",
         nocase("μP"), " in ", nocase("3D"), " ", nocase("ResNet-50"))
    )  # fmt: skip
    assert protect_case("A Study of Things", "acronyms") == "A Study of Things"
    assert protect_case("O'Brien's McDonald", "acronyms") == Rich(
        (nocase("O'Brien's"), " ", nocase("McDonald"))
    )
    # text inside nocase, math and raw is left alone; math with capitals is protected whole
    text = Rich((nocase("keep DNA"), " ", Math("O(n)"), " ", Math("x"), " ", Raw(r"\foo{AB}")))
    assert protect_case(text, "acronyms") == Rich(
        (nocase("keep DNA"), " ", nocase(Math("O(n)")), " ", Math("x"), " ", Raw(r"\foo{AB}"))
    )
    # letters glued to math are one word with it
    assert protect_case(Rich(("via ", Math("μ"), "P and ", Math("n"), "-body")), "acronyms") == (
        Rich(("via ", Math("μ"), nocase("P"), " and ", Math("n"), "-body"))
    )
    assert protect_case(Rich((span("i", "the HIV virus"),)), "acronyms") == Rich(
        (span("i", "the ", nocase("HIV"), " virus"),)
    )


def test_protect_case_all_and_none() -> None:
    assert protect_case("A Title", "none") == "A Title"
    assert protect_case("A Title", "all") == Rich((nocase("A Title"),))
    emphasised = Rich((span("i", "Natrix"), " cetti"))
    protected = protect_case(emphasised, "all")
    assert protected == Rich((nocase(span("i", "Natrix"), " cetti"),))
    # never ONE pair of braces around a value starting with a command
    assert encode(protected, ascii=True) == (r"{{\textit{Natrix} cetti}}", ())
    assert decode(encode(protected, ascii=True)[0]).text == protected
    assert protect_case(Rich((nocase("X"), " y")), "all") == Rich((nocase("X y"),))


# --- hypothesis: round trips and output safety --------------------------------------------------

LATEX_PIECES = st.sampled_from(
    ["a", "B", "z", " ", "  ", "\n", "{", "}", "\\", "$", "~", "-", "--", "`", "'", "%", "#", "&",
     "_", "^", '\\"', "\\'", "\\v", "\\c", "\\i", "\\o", "\\ss", "\\emph", "\\textit", "\\em",
     "\\foo", "\\mathbb", "\\mid", "\\alpha", "\\ensuremath", "\\url", "\\href", "\\(", "\\)",
     "\\{", "\\}", "\\&", "\\%", "\\\\", "\\ ", "ü", "μ", "α", "ø", "Ж", "–", "’", "\u00a0",
     "\u0301", "x^2", "{}", "[", "]", "\\textbf", "\\sc", "\\noopsort", "\\,", "\\-", "\\t",
     "\\d", "\\texttt", "\\LaTeX", "\\textbackslash", "é", "@", "ı"]
)  # fmt: skip
LATEX = st.lists(LATEX_PIECES, max_size=25).map("".join)
_BARE_SPECIAL = re.compile(r"(?<!\\)(?:\\\\)*[%#]")


def _bibtex_balanced(out: str) -> bool:
    depth = 0
    for c in out:  # BibTeX counts every brace, escaped or not
        depth += (c == "{") - (c == "}")
        if depth < 0:
            return False
    return depth == 0


def _math_commands(text: Text) -> Text:
    """decode(encode(x)) writes Unicode inside math as commands (`$μ$` -> `$\\mu$`)."""
    if isinstance(text, str):
        return text

    def fix(node: Node) -> Node:
        if isinstance(node, Math):
            return Math(unicode_to_math(node.tex)[0], node.bare)
        if isinstance(node, Span):
            return Span(node.kind, tuple(fix(c) for c in node.children))
        return node

    return Rich(tuple(fix(n) for n in text.nodes))


def _assert_safe(out: str) -> None:
    assert _bibtex_balanced(out), out
    assert not _BARE_SPECIAL.search(out), out


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(LATEX, st.booleans())
def test_round_trip_of_anything_decode_produces(latex: str, ascii: bool) -> None:
    text = decode(latex).text
    out, problems = encode(text, ascii=ascii)
    _assert_safe(out)
    assert decode(out).text == _math_commands(text)
    if ascii and not out.isascii():
        assert problems  # non-ASCII output is always reported


STRINGS = st.text(
    alphabet=st.sampled_from(list("aZ09 -`'{}\\$%#&_^~@.,|<>") + ["ü", "ß", "α", "–", "—", "“",
                             "’", "\u00a0", "\u2009", "Ж", "½", "é", "ϵ", "\n"]),
    min_size=1,
    max_size=12,
)  # fmt: skip
MATHS = st.builds(
    Math,
    st.sampled_from(["x", r"\alpha", "O(n^{4/3}d)", r"\mathbb{E}", "a_{1}", r"12-29\%", "μ"]),
    st.booleans(),
)
RAWS = st.sampled_from([Raw(r"\foo{bar}"), Raw(r"\noopsort{a}"), Raw(r"{\foo x}"), Raw(r"\foo")])


def _rich(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        Span, st.sampled_from(["nocase", "i", "b", "sc", "sup", "sub"]),
        st.lists(children, min_size=1, max_size=4).map(tuple),
    )  # fmt: skip


NODES = st.recursive(st.one_of(STRINGS, MATHS, RAWS), _rich, max_leaves=10)
RICH = st.lists(NODES, min_size=1, max_size=5).map(lambda nodes: make_text(nodes))


@settings(max_examples=250, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(RICH, st.booleans())
def test_encode_output_is_always_safe_bibtex(text: Text, ascii: bool) -> None:
    out, problems = encode(text, ascii=ascii)
    _assert_safe(out)
    if ascii and not out.isascii():
        assert problems


@settings(max_examples=400, deadline=None)
@given(st.lists(STRINGS, max_size=4).map("".join), st.booleans())
def test_any_plain_string_comes_back_as_bibtex_would_read_it(text: str, ascii: bool) -> None:
    out, _ = encode(text, ascii=ascii)
    _assert_safe(out)
    # BibTeX collapses whitespace runs and trims the ends; nothing else may change
    expected = unicodedata.normalize("NFC", re.sub(r"[ \t\r\n]+", " ", text).strip(" "))
    assert decode(out).text == expected


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(RICH, st.booleans())
def test_round_trip_of_canonical_rich_text(text: Text, ascii: bool) -> None:
    canonical = decode(encode(text, ascii=ascii)[0]).text  # what decode makes of it
    out, _ = encode(canonical, ascii=ascii)
    assert decode(out).text == _math_commands(canonical)


# --- real consumers: BibTeX + pdfLaTeX read every encoded value ----------------------------------

CONSUMER_VALUES: list[Text] = [
    decode(r"$μ$P and \mathbb{E}(Y \mid X) with $ρ=\nabla u \sharp e^{-u}$, $O(n^{4/3}d)$").text,
    decode(
        r"\textit{Deep Sturm--Liouville} {DNA} \textsc{sc} \textbf{b} x\textsuperscript{2}"
    ).text,
    "Müller Čech Straße Ørsted łódź ệ í ǿ α-helix ∣ ½ © “q” ‘s’ – — R&D 50% #1 a_b $5",
    "{x} } { \\ ~ ^ a\u00a0b\u2009c it''s `x a--b",
    Rich((nocase(span("i", "X"), " y"),)),
    Rich((nocase(Math(r"\alpha", True)),)),
    Rich((Raw(r"{\noopsort{a}}"), "Zeta ", Raw(r"\foo"), "bar")),
    protect_case("A Study of DNA in iPhone Apps", "all"),
]


def _run(command: list[str], cwd: str) -> str:
    import subprocess

    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


@pytest.mark.consumer
@pytest.mark.slow
def test_bibtex_and_pdflatex_accept_ascii_output(tmp_path) -> None:
    import shutil

    if not (shutil.which("bibtex") and shutil.which("pdflatex")):
        pytest.skip("bibtex/pdflatex not installed")
    entries = []
    for number, value in enumerate(CONSUMER_VALUES):
        body, _ = encode(value, ascii=True)
        entries.append(
            f"@misc{{k{number},\n  author = {{Doe, J.}},\n  title = {{{body}}},\n"
            "  year = {2020}\n}\n"
        )
    (tmp_path / "refs.bib").write_text("\n".join(entries), encoding="ascii")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{amssymb}\n"
        "\\newcommand{\\noopsort}[1]{}\\newcommand{\\foo}{Foo}\n"
        "\\begin{document}\\nocite{*}\\bibliographystyle{plain}\\bibliography{refs}"
        "\\end{document}\n",
        encoding="ascii",
    )
    cwd = str(tmp_path)
    _run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], cwd)
    bibtex_log = _run(["bibtex", "doc"], cwd)
    assert "error message" not in bibtex_log and "Warning--" not in bibtex_log, bibtex_log
    _run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], cwd)
    log = (tmp_path / "doc.log").read_text(encoding="latin-1")
    assert "\n!" not in log, log[log.find("\n!") : log.find("\n!") + 400]
    bbl = (tmp_path / "doc.bbl").read_text(encoding="ascii")
    assert bbl.count("\\bibitem") == len(CONSUMER_VALUES)


@pytest.mark.consumer
@pytest.mark.slow
def test_biber_and_lualatex_accept_utf8_output(tmp_path) -> None:
    import shutil

    if not (shutil.which("biber") and shutil.which("lualatex")):
        pytest.skip("biber/lualatex not installed")
    entries = []
    for number, value in enumerate([*CONSUMER_VALUES, "Київ"]):
        body, _ = encode(value, ascii=False)
        entries.append(f"@misc{{k{number},\n  title = {{{body}}},\n  date = {{2020}}\n}}\n")
    (tmp_path / "refs.bib").write_text("\n".join(entries), encoding="utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage{amssymb}\\usepackage[backend=biber]{biblatex}\n"
        "\\newcommand{\\noopsort}[1]{}\\newcommand{\\foo}{Foo}\\addbibresource{refs.bib}\n"
        "\\begin{document}\\nocite{*}\\printbibliography\\end{document}\n",
        encoding="utf-8",
    )
    cwd = str(tmp_path)
    _run(["lualatex", "-interaction=nonstopmode", "doc.tex"], cwd)
    biber_log = _run(["biber", "doc"], cwd)
    assert "ERROR" not in biber_log and "WARN" not in biber_log, biber_log
    _run(["lualatex", "-interaction=nonstopmode", "doc.tex"], cwd)
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert "\n!" not in log, log[log.find("\n!") : log.find("\n!") + 400]


def test_braces_nested_past_the_limit_are_kept_as_written_without_recursion() -> None:
    value = "{" * 10_000 + "x" + "}" * 10_000
    decoded = decode(value)
    assert classify_problem(decoded.problems[0]) == ("latex.too-deep", "warning")
    encoded, _ = encode(decoded.text, ascii=True)
    assert "x" in encoded and encoded.count("{") == encoded.count("}")
    # a write drops braces that protect nothing (nested inside protection); the text survives
    again, _ = encode(decode(encoded).text, ascii=True)
    assert again.replace("{", "").replace("}", "") == "x"


@pytest.mark.parametrize(
    ("source", "written"),
    [
        (r"Euler-\kern-1pt Fonts", r"Euler-\kern-1pt Fonts"),
        (r"A\kern-.1emVDU", r"A\kern-.1em\relax{}VDU"),
        (r"\raise.25ex\hbox{x} y", r"\raise.25ex\hbox{x} y"),
    ],
)
def test_dimension_primitives_keep_their_dimension(source: str, written: str) -> None:
    """TUGboat's logos: `\\kern-1pt` split from its dimension made pdflatex fail."""
    decoded = decode(source)
    assert encode(decoded.text, ascii=True)[0] == written
    assert decode(written).text == decoded.text
