"""Rich text <-> CSL-JSON markup and -> plain Unicode: real arXiv values, math to Unicode, markup
that cannot be injected, parsing CSL's subset back, and the round trip without math."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citekit.latex import decode
from citekit.markup import from_csl, to_csl, to_unicode
from citekit.model import Math, Raw, Rich, Span, Text, make_text


def nocase(*children) -> Span:
    return Span("nocase", children)


def span(kind: str, *children) -> Span:
    return Span(kind, children)  # type: ignore[arg-type]


# latex as found in /work/shared/sources/*.txt, CSL-JSON rich text, plain Unicode
REAL_CASES = [
    ("$μ$P", "μP", "μP"),
    (r"\mathbb{E}(Y \mid X)", "𝔼(Y ∣ X)", "𝔼(Y ∣ X)"),
    (r"\mathcal{L}(Y \mid X)", "ℒ(Y ∣ X)", "ℒ(Y ∣ X)"),
    (r"$ρ=\nabla u \sharp e^{-u}$", "ρ=∇u ♯ e⁻ᵘ", "ρ=∇u ♯ e⁻ᵘ"),
    (r"$O(n^{4/3}d)$", "O(n<sup>4/3</sup>d)", "$O(n^{4/3}d)$"),
    (r"Complete$^{(d)}$ Parameterisation", "Complete⁽ᵈ⁾ Parameterisation",
     "Complete⁽ᵈ⁾ Parameterisation"),
    (r"by $12-29\%$ under", "by 12-29% under", "by 12-29% under"),
    (r"up to $2.4 \times$ faster", "up to 2.4 × faster", "up to 2.4 × faster"),
    (r"when $d\approx n$", "when d≈n", "when d≈n"),
    (r"\textit{Deep Sturm--Liouville} (DSL)", "<i>Deep Sturm–Liouville</i> (DSL)",
     "Deep Sturm–Liouville (DSL)"),
    (r"via a \texttt{ } token", "via a token", "via a token"),
    (r"\emph{acceptable} alternative", "<i>acceptable</i> alternative", "acceptable alternative"),
    (r"measure $\mathcal{U}$.", "measure 𝒰.", "measure 𝒰."),
    # from tests/corpus/bibtex/bbt-math-627.bib
    (r"Mitochondrial DNA$_{\textrm{2}}$ sequences", "Mitochondrial DNA₂ sequences",
     "Mitochondrial DNA₂ sequences"),
    (r"Actes du $4^{\textrm{ème}}$ Congrès", "Actes du 4<sup>ème</sup> Congrès",
     r"Actes du $4^{\textrm{ème}}$ Congrès"),
    (r"grass snakes (\textit{Natrix cetti}) and \textbf{do not} support their \textsc{species "
     r"status}",
     'grass snakes (<i>Natrix cetti</i>) and <b>do not</b> support their '
     '<span style="font-variant:small-caps;">species status</span>',
     "grass snakes (Natrix cetti) and do not support their species status"),
    (r"{Nonequilibrium Propagation in Driven $t$-$J$ Models}",
     '<span class="nocase">Nonequilibrium Propagation in Driven t-J Models</span>',
     "Nonequilibrium Propagation in Driven t-J Models"),
]  # fmt: skip


@pytest.mark.parametrize(("latex", "csl", "unicode"), REAL_CASES)
def test_real_values_to_csl_and_unicode(latex: str, csl: str, unicode: str) -> None:
    text = decode(latex).text
    assert to_csl(text) == csl
    assert to_unicode(text) == unicode


def test_math_that_does_not_map_stays_tex() -> None:
    assert to_csl(Rich((Math(r"\frac{a}{b}"),))) == r"$\frac{a}{b}$"
    assert to_unicode(Rich((Math(r"\frac{a}{b}"),))) == r"$\frac{a}{b}$"
    assert to_csl(Rich((Math("a<b"),))) == "a<b"
    assert to_csl(Rich((Math(r"\unknowncmd x<y"),))) == r"$\unknowncmd x<y$"
    assert to_csl(Rich((Math("x^2"),))) == "x²"
    assert to_csl(Rich((Math("x_{i,j}"),))) == "x<sub>i,j</sub>"
    assert to_unicode(Rich((Math(r"O(n\log n)"),))) == "O(n log n)"
    assert to_csl(Rich((Math(r"\lim_{n\to\infty} a_n = \|x\|"),))) == ("lim<sub>n→∞</sub> aₙ = ‖x‖")
    assert to_unicode(Rich((Math(r"\mathbf{x}\in\mathbb{R}^{d}"),))) == "𝐱∈ℝᵈ"


def test_raw_latex_is_kept_as_text() -> None:
    text = Rich((Raw(r"\noopsort{a}"), "Zeta"))
    assert to_csl(text) == r"\noopsort{a}Zeta"
    assert to_unicode(text) == r"\noopsort{a}Zeta"


def test_text_goes_out_as_written() -> None:
    """CSL has no escapes: citeproc-js and Zotero print `&amp;` as five characters."""
    assert to_csl("R&D <script>alert(1)</script> & co") == "R&D <script>alert(1)</script> & co"
    parsed, problems = from_csl(to_csl("R&D <script>x</script>"))
    assert parsed == "R&D <script>x</script>"  # unknown tags stay text, with a problem each
    assert len(problems) == 2
    # the documented loss: text spelling the subset's own tags reads back as markup
    assert from_csl(to_csl("<i>not markup</i>"))[0] == Rich((span("i", "not markup"),))


def test_all_span_kinds_render() -> None:
    text = Rich(
        (nocase("DNA"), span("i", "i"), span("b", "b"), span("sc", "sc"), span("sup", "2"),
         span("sub", "3"))
    )  # fmt: skip
    assert to_csl(text) == (
        '<span class="nocase">DNA</span><i>i</i><b>b</b>'
        '<span style="font-variant:small-caps;">sc</span><sup>2</sup><sub>3</sub>'
    )
    assert to_unicode(text) == "DNAibsc23"


# --- from_csl ---------------------------------------------------------------------------------


def test_from_csl_fast_path() -> None:
    value = "A plain title"
    parsed, problems = from_csl(value)
    assert parsed is value
    assert problems == ()


def test_from_csl_parses_the_subset_and_synonyms() -> None:
    assert from_csl("<em>a</em> <strong>b</strong> <sc>c</sc>") == (
        Rich((span("i", "a"), " ", span("b", "b"), " ", span("sc", "c"))),
        (),
    )
    assert from_csl(
        '<span class="nocase">iPhone</span> <span style="font-variant: small-caps">x</span>'
    ) == (Rich((nocase("iPhone"), " ", span("sc", "x"))), ())
    # entities are text: CSL processors print them as written, and so does citekit
    assert from_csl("R&amp;D &#233; <i>x</i>") == (Rich(("R&amp;D &#233; ", span("i", "x"))), ())
    assert from_csl("AT&T") == ("AT&T", ())
    assert from_csl("H<sub>2</sub>O <i><b>x</b></i>") == (
        Rich(("H", span("sub", "2"), "O ", span("i", span("b", "x")))),
        (),
    )


def test_from_csl_keeps_what_it_cannot_map() -> None:
    text, problems = from_csl('<a href="x">link</a> <u>u</u>')
    assert text == '<a href="x">link</a> <u>u</u>'
    assert problems == (
        'unknown CSL markup <a href="x"> kept as text',
        "unknown CSL markup </a> kept as text",
        "unknown CSL markup <u> kept as text",
        "unknown CSL markup </u> kept as text",
    )
    text, problems = from_csl('<span class="other">x</span>')
    assert text == "x"
    assert problems == ('CSL markup <span class="other"> has no citekit form; text kept',)


def test_from_csl_repairs_bad_nesting_with_problems() -> None:
    text, problems = from_csl("<i>open")
    assert text == Rich((span("i", "open"),))
    assert problems == ("CSL markup <i> never closed; closed at the end",)
    text, problems = from_csl("stray</b> x")
    assert text == "stray</b> x"
    assert problems == ("CSL closing tag </b> without an opening one kept as text",)
    text, problems = from_csl("<i>a<b>b</i>c</b>")
    assert text == Rich((span("i", "a", span("b", "b")), "c</b>"))
    assert len(problems) == 2


# --- round trip -------------------------------------------------------------------------------

STRINGS = st.lists(
    # not the subset's own tags (`<i>`): CSL cannot tell those from markup (documented loss)
    st.sampled_from(list("aZ0 <>&;/\"'=#") + ["ü", "–", "&amp;", "<a>", "é", "&#"]),
    min_size=1,
    max_size=10,
).map("".join)


def _nodes(text: Text) -> tuple:
    return (text,) if isinstance(text, str) else text.nodes


def _spans(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        Span,
        st.sampled_from(["nocase", "i", "b", "sc", "sup", "sub"]),
        st.lists(children, min_size=1, max_size=3).map(lambda nodes: _nodes(make_text(nodes))),
    )


RICH_WITHOUT_MATH = st.lists(
    st.recursive(STRINGS, _spans, max_leaves=8), min_size=1, max_size=4
).map(make_text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(RICH_WITHOUT_MATH)
def test_csl_round_trip_without_math(text: Text) -> None:
    # Math becomes Unicode in CSL (CSL has no math), so only math-free text comes back whole.
    assert from_csl(to_csl(text))[0] == text
    assert to_unicode(text) == (text if isinstance(text, str) else text.plain())
