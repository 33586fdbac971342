"""What citeproc-js renders for the four hand-written works in golden/ (four-works.bib and
its CSL-JSON mapping four-works.csl.json), in an author-date and a numeric style.

Rendered by citeproc-js 2.4.63 (harness.CITEPROC_JS_VERSION) with csl/apa.csl and csl/ieee.csl
and checked by hand against APA 7 and the IEEE reference guide: particle kept before the family
name ("van der Berg"), suffix after it ("J. Smith Jr."), the corporate author as one name, the
protected "DNA" and "ACM" uppercase, "in vitro" set upright inside the italic book title, en
dashes in page ranges, the DOI as a link in APA and as "doi:" in IEEE.
"""

from __future__ import annotations

APA_HTML = [
    "Dijkstra, E. W. (1968). Go to statement considered harmful. In J. Smith Jr. (Ed.), "
    "<i>Proceedings of the ACM Conference</i> (pp. 10–20). ACM.",
    "Knuth, D. E. (1984). Literate programming. <i>The Computer Journal</i>, <i>27</i>(2), "
    "97–111. https://doi.org/10.1093/comjnl/27.2.97",
    "van der Berg, J., &#38; Müller, H. (2020). <i>Folding DNA with "
    "<span style=\"font-style:normal;\">in vitro</span> assays</i>. Springer.",
    "World Health Organization. (2016). <i>Global report on diabetes</i>. WHO Press.",
]
APA_CITATIONS = ["(Knuth, 1984)", "(van der Berg & Müller, 2020)",
                 "(World Health Organization, 2016)", "(Dijkstra, 1968)"]  # fmt: skip
IEEE_TEXT = [
    "[1] D. E. Knuth, “Literate programming,” The Computer Journal, vol. 27, no. 2, "
    "pp. 97–111, May 1984, doi: 10.1093/comjnl/27.2.97.",
    "[2] J. van der Berg and H. Müller, Folding DNA with in vitro assays. Berlin: Springer, "
    "2020.",
    "[3] World Health Organization, “Global report on diabetes,” WHO Press, Geneva, 2016.",
    "[4] E. W. Dijkstra, “Go to statement considered harmful,” in Proceedings of the ACM "
    "Conference, J. Smith Jr., Ed., New York: ACM, 1968, pp. 10–20.",
]
