"""The arXiv profile-listing reader (citekit/formats/arxiv_listing.py): both real listings in
full, the LaTeX in their titles and abstracts at the model level, and broken listings."""

# ruff: noqa: E501  (the record tables keep one record per line)

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citekit.formats import arxiv_listing
from citekit.formats.arxiv_listing import count_records, read, sniff
from citekit.model import (
    OTHERS,
    Bibliography,
    Date,
    Entry,
    Extra,
    Math,
    Name,
    Node,
    Raw,
    Rejected,
    Rich,
    Span,
    Text,
    plain,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "sources"
GOLDEN = ROOT / "tests" / "golden" / "listings"

# (marker line, year, primary class, decoded title, links) for every record, in file order.
BETHUNE = [
    (9, 2026, "cs.LG", "Learning Unmasking Policies for Diffusion Language Models", ()),
    (17, 2026, "cs.CL", "LaCy: What Small Language Models Can and Should Learn is Not Just a Question of Loss", ()),
    (25, 2026, "cs.LG", "Mix, Don't Tune: Bilingual Pre-Training Outperforms Hyperparameter Search in Data-Constrained Settings", ()),
    (33, 2026, "cs.LG", "Scaling Categorical Flow Maps", ()),
    (41, 2025, "cs.LG", "Completed Hyperparameter Transfer across Modules, Width, Depth, Batch and Duration", ()),
    (49, 2025, "cs.LG", "Follow the Energy, Find the Path: Riemannian Metrics from Energy-Based Models", ()),
    (57, 2025, "math.ST", "Improved learning theory for kernel distribution regression with two-stage sampling", ()),
    (65, 2025, "cs.CV", "Shielded Diffusion: Generating Novel and Diverse Images using Sparse Repellency", ()),
    (73, 2025, "stat.ML", "Sample and Map from a Single Convex Potential: Generation using Conjugate Moment Measures", ()),
    (81, 2025, "cs.LG", "Deep Sturm–Liouville: From Sample-Based to 1D Regularization with Learnable Orthogonal Basis Functions", ()),
    (89, 2025, "cs.CV", "Graph-Based Captioning: Enhancing Visual Descriptions by Interconnecting Region Captions", ("https://github.com/apple/ml-gbc", "https://huggingface.co/graph-based-captions")),
    (97, 2024, "cs.CV", "Multimodal Autoregressive Pre-training of Large Vision Encoders", ()),
    (105, 2024, "cs.CL", "TaCo: Targeted Concept Erasure Prevents Non-Linear Classifiers From Detecting Protected Attributes", ("https://github.com/fanny-jourdan/TaCo",)),
    (113, 2024, "cs.AI", "On the explainable properties of 1-Lipschitz Neural Networks: An Optimal Transport Perspective", ()),
    (121, 2022, "cs.LG", "Pay attention to your loss: understanding misconceptions about 1-Lipschitz neural networks", ()),
    (129, 2022, "stat.ML", "Gaussian Processes on Distributions based on Regularized Optimal Transport", ()),
    (137, 2022, "stat.ML", "GAN Estimation of Lipschitz Optimal Transport Maps", ()),
    (145, 2020, "cs.LG", "Ranking Deep Learning Generalization using Label Variation in Latent Geometry Graphs", ()),
]  # fmt: skip

ALLAUZEN = [
    (9, 2026, "cs.LG", "Across the Loss Landscape with Progressive Growth", ("https://github.com/p0lcAi/Across-the-Loss-Landscape",)),
    (17, 2026, "cs.CE", "Higher-Order Fourier Neural Operator: Explicit Mode Mixer for Nonlinear PDEs", ("https://github.com/AlexColagrande/HO-FNO",)),
    (25, 2026, "cs.LG", "Limits of Resolution Equivariance in Fourier Neural Operators", ()),
    (33, 2026, "cs.LG", "Trading Complexity for Expressivity Through Structured Generalized Linear Token Mixing", ()),
    (41, 2026, "cs.LG", "Structured-Sparse Attention for Entity Tracking with Subquadratic Sequence Complexity", ()),
    (49, 2026, "cs.CL", "Responsible Benchmarking of Fairness for Automatic Speech Recognition", ()),
    (57, 2026, "cs.CL", "Identifying and typifying demographic unfairness in phoneme-level embeddings of self-supervised speech recognition models", ()),
    (65, 2026, "cs.CL", "Where Do Self-Supervised Speech Models Become Unfair?", ()),
    (73, 2026, "cs.CL", "Polynomial Mixing for Efficient Self-supervised Speech Encoders", ()),
    (81, 2025, "cs.LG", "Forward Only Learning for Orthogonal Neural Networks of any Depth", ("https://github.com/p0lcAi/FOTON",)),
    (89, 2025, "cs.LG", "On the MIA Vulnerability Gap Between Private GANs and Diffusion Models", ()),
    (97, 2025, "cs.CL", "Improving Diversity in Language Models: When Temperature Fails, Change the Loss", ()),
    (105, 2025, "cs.CL", "Interference Matrix: Quantifying Cross-Lingual Interference in Transformer Encoders", ()),
    (113, 2025, "cs.CV", "Linear Attention with Global Context: A Multipole Attention Mechanism for Vision and Physics", ("https://github.com/AlexColagrande/MANO",)),
    (121, 2025, "cs.LG", "Bridging the Theoretical Gap in Randomized Smoothing", ()),
    (129, 2025, "cs.LG", "Fast Training of Recurrent Neural Networks with Stationary State Feedbacks", ()),
    (137, 2025, "cs.CL", "SCOPE: A Self-supervised Framework for Improving Faithfulness in Conditional Text Generation", ()),
    (145, 2025, "cs.LG", "Conditional Distribution Quantization in Machine Learning", ()),
]  # fmt: skip

LISTINGS = {
    "bethune": (BETHUNE, Name(family="Béthune", given="Louis")),
    "allauzen": (ALLAUZEN, Name(family="Allauzen", given="Alexandre")),
}


def read_listing(name: str) -> Bibliography:
    path = SOURCES / f"{name}.txt"
    return read(path.read_text(encoding="utf-8"), source=f"sources/{name}.txt")


def entry_titled(bib: Bibliography, start: str) -> Entry:
    [found] = [e for e in bib.entries if e.get("title").startswith(start)]
    return found


def nodes(value: Text) -> tuple[Node, ...]:
    return (value,) if isinstance(value, str) else value.nodes


# ---------------------------------------------------------------------------------------------
# Both listings in full
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LISTINGS)
def test_every_record_is_read(name: str) -> None:
    expected, author = LISTINGS[name]
    text = (SOURCES / f"{name}.txt").read_text(encoding="utf-8")
    bib = read_listing(name)
    assert bib.rejected == []
    assert count_records(text) == len(bib.entries) == 18
    lines = text.split("\n")
    for entry, (line, year, category, title, links) in zip(bib.entries, expected, strict=True):
        assert entry.type == "article"
        assert entry.source_type == "arxiv-listing"
        assert entry.key == "" and entry.original_key == ""
        assert entry.get("title") == title
        assert entry.dates == {"issued": Date(year=year)}
        assert entry.fields["arxiv-class"] == category
        assert entry.fields["publisher"] == "arXiv"
        assert entry.get("links") == " ".join(links)
        assert ("links" in entry.fields) == bool(links)
        assert "url" not in entry.fields and "URL" not in entry.fields
        # the page's author is the one author known; the list is marked incomplete
        assert entry.names == {"author": [author, OTHERS]}
        assert entry.extra == []
        origin = entry.origin
        assert origin is not None
        assert (origin.source, origin.line, origin.format) == (f"sources/{name}.txt", line, NAME)
        assert lines[line - 1] == f"arXiv{year}"
        # the raw record runs from its year line to its category line, as written
        assert origin.raw == "\n".join(lines[line - 1 : line + 6])
        assert origin.raw.endswith(f"{category}↗")


NAME = arxiv_listing.NAME


@pytest.mark.parametrize("name", LISTINGS)
def test_listing_diagnostics(name: str) -> None:
    bib = read_listing(name)
    author = "Louis Béthune" if name == "bethune" else "Alexandre Allauzen"
    expected = []
    if name == "allauzen":
        # \mathbb{E}(Y \mid X) written without dollars: read as math, which is worth knowing
        expected = [
            ("info", "arxiv-listing.bare-math", 149, f"abstract: math command \\{command} "
             "outside math, kept as math")
            for command in ("mathbb", "mid", "mathcal")
        ]  # fmt: skip
    expected += [
        (
            "warning",
            "arxiv-listing.count-mismatch",
            7,
            "the header claims at least 19 records but the listing holds 18 (18 read, 0 rejected)",
        ),
        (
            "info",
            "arxiv-listing.incomplete-authors",
            5,
            f"the listing names only {author} as author of its 18 record(s); each author list "
            "is marked incomplete (and others)",
        ),
    ]
    assert [(d.severity, d.code, d.line, d.message) for d in bib.diagnostics] == expected
    assert {d.source for d in bib.diagnostics} == {f"sources/{name}.txt"}


def test_abstracts_are_plain_where_there_is_no_latex() -> None:
    bib = read_listing("bethune")
    aim = entry_titled(bib, "Multimodal Autoregressive")
    # "%" is a literal percent sign in arXiv abstracts, not a LaTeX comment
    assert isinstance(aim.fields["abstract"], str)
    assert "our AIMV2-3B encoder achieves 89.5% accuracy on ImageNet-1k with a frozen trunk. " in (
        aim.get("abstract")
    )
    assert aim.get("abstract").endswith(
        "in multimodal image understanding across diverse settings."
    )


def test_urls_stay_verbatim_in_the_abstract() -> None:
    bib = read_listing("bethune")
    gbc = entry_titled(bib, "Graph-Based Captioning")
    assert gbc.get("abstract").endswith(
        "Our code and datasets are released at https://github.com/apple/ml-gbc and "
        "https://huggingface.co/graph-based-captions."
    )
    foton = entry_titled(read_listing("allauzen"), "Forward Only Learning")
    assert foton.get("abstract").endswith(
        "The code is open-sourced at https://github.com/p0lcAi/FOTON ."
    )


# ---------------------------------------------------------------------------------------------
# The LaTeX named in issue 4, at the model level
# ---------------------------------------------------------------------------------------------


def test_mu_p_and_times_are_math_nodes() -> None:
    mix = entry_titled(read_listing("bethune"), "Mix, Don't Tune")
    abstract = mix.fields["abstract"]
    assert isinstance(abstract, Rich)
    parts = nodes(abstract)
    assert [n for n in parts if isinstance(n, Math)] == [
        Math("\\times"),
        Math("\\times"),
        Math("μ"),
    ]
    assert plain(abstract).endswith("transfer hyperparameters from a small proxy model via $μ$P.")
    assert parts[-2:] == (Math("μ"), "P.")
    assert "an amount equivalent to 2–3" in plain(abstract)
    assert "2–3$\\times$ the unique target data on validation loss and 2–13$\\times$ on" in (
        plain(abstract)
    )


def test_sturm_liouville_en_dash_and_emphasis() -> None:
    dsl = entry_titled(read_listing("bethune"), "Deep Sturm")
    assert dsl.fields["title"] == (
        "Deep Sturm–Liouville: From Sample-Based to 1D Regularization with Learnable "
        "Orthogonal Basis Functions"
    )
    abstract = dsl.fields["abstract"]
    assert isinstance(abstract, Rich)
    assert Span("i", ("Deep Sturm–Liouville",)) in abstract.nodes
    assert "the traditional sample-based (0–dimensionnal) regularization" in plain(abstract)
    assert "a Sturm–Liouville problem is solved" in plain(abstract)
    assert "--" not in plain(abstract)


def test_emph_is_an_italic_span() -> None:
    lacy = entry_titled(read_listing("bethune"), "LaCy")
    abstract = lacy.fields["abstract"]
    assert isinstance(abstract, Rich)
    spans = [n for n in abstract.nodes if isinstance(n, Span)]
    assert spans == [
        Span("i", ("which tokens an SLM can and should learn",)),
        Span("i", ("which ones it should delegate",)),
        Span("i", ("acceptable",)),
    ]
    assert not any(isinstance(n, Raw) for n in abstract.nodes)


def test_texttt_keeps_its_content_and_no_command() -> None:
    lacy = entry_titled(read_listing("bethune"), "LaCy")
    text = plain(lacy.fields["abstract"])
    assert "\\texttt" not in text and "\\emph" not in text
    # `\texttt{ }`: the token name was lost upstream; its content is a space, and spaces
    # around it collapse as TeX collapses them
    assert "versus which ones it should delegate via a token. We find" in text
    assert "should not trigger a . This suggests" in text


def test_math_in_dollars_keeps_its_exact_tex() -> None:
    sample = entry_titled(read_listing("bethune"), "Sample and Map")
    maths = [n for n in nodes(sample.fields["abstract"]) if isinstance(n, Math)]
    assert Math("ρ=\\nabla u \\sharp e^{-u}") in maths
    assert Math("\\nabla w^*\\sharp e^{-w}") in maths
    assert all(not m.bare for m in maths)

    sparse = entry_titled(read_listing("allauzen"), "Structured-Sparse Attention")
    maths = [n for n in nodes(sparse.fields["abstract"]) if isinstance(n, Math)]
    assert maths == [
        Math("O(n^{4/3}d)"),
        Math("O(n^{7/3})"),
        Math("d\\approx n"),
        Math("12-29\\%"),
        Math("2.4 \\times"),
    ]

    completed = entry_titled(read_listing("bethune"), "Completed Hyperparameter")
    assert "the Complete$^{(d)}$ Parameterisation" in plain(completed.fields["abstract"])


def test_math_commands_outside_dollars_are_bare_math() -> None:
    cdq = entry_titled(read_listing("allauzen"), "Conditional Distribution Quantization")
    abstract = cdq.fields["abstract"]
    assert isinstance(abstract, Rich)
    # each math-only command becomes its own bare Math node; the text between stays text
    assert abstract.nodes[:5] == (
        "Conditional expectation ",
        Math("\\mathbb{E}", bare=True),
        "(Y ",
        Math("\\mid", bare=True),
        " X) often fails to capture the complexity of multimodal conditional distributions ",
    )
    assert abstract.nodes[5:9] == (
        Math("\\mathcal{L}", bare=True),
        "(Y ",
        Math("\\mid", bare=True),
        " X). To address this, we propose using n-point conditional quantizations–functional "
        "mappings of X that are learnable via gradient descent–to approximate ",
    )
    assert all(n.bare for n in abstract.nodes if isinstance(n, Math))
    # "--" between words is an en dash
    assert "n-point conditional quantizations–functional mappings of X" in plain(abstract)


# ---------------------------------------------------------------------------------------------
# Sniffing and counting
# ---------------------------------------------------------------------------------------------

HEADER = (
    "arXiv subjects\n\nJane Doe\n\nPublications and source records attributed to Jane Doe.\n\n"
    "At least 2 recordsLinked to original sources\n\n"
)
REC1 = "arXiv2024\n\nFirst Title\n\nFirst abstract.\n\ncs.LG↗\n\n"
REC2 = "arXiv2023\n\nSecond Title\n\nSecond abstract, see https://github.com/x/y.\n\nstat.ML↗"
JANE = Name(family="Doe", given="Jane")


@pytest.mark.parametrize("name", LISTINGS)
def test_sniff_finds_the_listings_by_content(name: str) -> None:
    assert sniff((SOURCES / f"{name}.txt").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "text",
    [
        HEADER,
        "\ufeff" + HEADER + REC1,
        REC1 + REC2,  # no header: the first line is a record line and a category follows
        "\n\n" + HEADER.replace("\n", "\r\n"),
    ],
    ids=["header-only", "bom", "headerless", "crlf"],
)
def test_sniff_accepts(text: str) -> None:
    assert sniff(text)


@pytest.mark.parametrize(
    "text",
    [
        "@article{a, title={arXiv2024}}\n",
        "TY  - JOUR\nTI  - arXiv subjects of note\nER  - \n",
        '[{"id": "a", "title": "Publications and source records"}]',
        "arXiv2024\n\nA title without any category line\n",
        "",
    ],
    ids=["bibtex", "ris", "csl-json", "no-arrow", "empty"],
)
def test_sniff_rejects(text: str) -> None:
    assert not sniff(text)


# ---------------------------------------------------------------------------------------------
# Broken and unusual listings
# ---------------------------------------------------------------------------------------------


def codes(bib: Bibliography) -> list[tuple[str, str, int | None]]:
    return [(d.severity, d.code, d.line) for d in bib.diagnostics]


def test_clean_synthetic_listing() -> None:
    bib = read(HEADER + REC1 + REC2, source="jane.txt")
    assert [(e.get("title"), e.origin.line if e.origin else 0) for e in bib.entries] == [
        ("First Title", 9),
        ("Second Title", 17),
    ]
    second = bib.entries[1]
    assert second.fields == {
        "title": "Second Title",
        "abstract": "Second abstract, see https://github.com/x/y.",
        "publisher": "arXiv",
        "arxiv-class": "stat.ML",
        "links": "https://github.com/x/y",
    }
    assert second.names == {"author": [JANE, OTHERS]}
    assert codes(bib) == [("info", "arxiv-listing.incomplete-authors", 5)]


def test_header_only() -> None:
    bib = read(HEADER, source="jane.txt")
    assert bib.entries == [] and bib.rejected == []
    assert [(d.severity, d.code, d.line, d.message) for d in bib.diagnostics] == [
        (
            "warning",
            "arxiv-listing.count-mismatch",
            7,
            "the header claims at least 2 records but the listing holds 0 (0 read, 0 rejected)",
        )
    ]


def test_header_only_without_a_claimed_count() -> None:
    text = "arXiv subjects\n\nJane Doe\n\nPublications and source records attributed to Jane Doe."
    bib = read(text, source="jane.txt")
    assert codes(bib) == [("warning", "arxiv-listing.no-records", None)]


def test_truncated_last_record_mid_abstract() -> None:
    bib = read(HEADER + REC1 + "arXiv2023\n\nSecond Title\n\nSecond abstract cut mi", source="t")
    assert len(bib.entries) == 2 and bib.rejected == []
    last = bib.entries[1]
    assert last.fields == {
        "title": "Second Title",
        "abstract": "Second abstract cut mi",
        "publisher": "arXiv",
    }
    assert [(d.severity, d.code, d.line, d.message) for d in bib.diagnostics][0] == (
        "warning",
        "arxiv-listing.truncated-record",
        17,
        "the last record ends without its category line: the listing looks truncated "
        "(read what is there; the text may be incomplete)",
    )


def test_truncated_last_record_after_its_title() -> None:
    bib = read(HEADER + REC1 + "arXiv2023\n\nSecond Title\n", source="t")
    assert bib.entries[1].fields == {"title": "Second Title", "publisher": "arXiv"}
    [truncated] = [d for d in bib.diagnostics if d.code == "arxiv-listing.truncated-record"]
    assert "without its abstract and category line" in truncated.message


def test_truncated_after_the_year_line_is_a_rejected_record() -> None:
    bib = read(HEADER + REC1 + "arXiv2023", source="t")
    assert len(bib.entries) == 1
    assert bib.rejected == [
        Rejected(
            "t",
            17,
            "arXiv2023",
            "record arXiv2023 has no title (the listing looks truncated)",
            "arxiv-listing",
        )
    ]
    assert codes(bib) == [
        ("error", "arxiv-listing.unreadable-record", 17),
        ("info", "arxiv-listing.incomplete-authors", 5),
    ]
    assert bib.diagnostics[0].raw == "arXiv2023"


def test_crlf_line_ends_read_like_lf() -> None:
    clean = read(HEADER + REC1 + REC2, source="jane.txt")
    crlf = read((HEADER + REC1 + REC2).replace("\n", "\r\n"), source="jane.txt")
    assert crlf.entries == clean.entries
    assert [e.origin for e in crlf.entries] == [e.origin for e in clean.entries]
    assert codes(crlf) == [("info", "arxiv-listing.line-ends", None)] + codes(clean)


def test_extra_blank_lines_and_trailing_spaces_change_nothing_but_line_numbers() -> None:
    spaced = "\n\n" + HEADER.replace("\n\n", "\n \n\n") + REC1.replace("\n\n", "\n\n\n\t\n") + REC2
    bib = read(spaced.replace("First Title", "First Title   "), source="jane.txt")
    clean = read(HEADER + REC1 + REC2, source="jane.txt")
    assert bib.entries == clean.entries
    assert [e.origin.line for e in bib.entries if e.origin] == [15, 31]
    assert codes(bib) == [("info", "arxiv-listing.incomplete-authors", 9)]


def test_record_missing_its_category_line() -> None:
    text = HEADER + REC1.replace("cs.LG↗\n\n", "") + REC2
    bib = read(text, source="jane.txt")
    assert [e.get("arxiv-class") for e in bib.entries] == ["", "stat.ML"]
    assert bib.entries[0].fields["abstract"] == "First abstract."
    assert [(d.severity, d.code, d.line, d.message) for d in bib.diagnostics][0] == (
        "warning",
        "arxiv-listing.missing-category",
        9,
        "record has no category line (cs.LG↗); it is read without a primary class",
    )
    assert bib.entries[1].origin is not None and bib.entries[1].origin.line == 15


def test_record_missing_its_abstract() -> None:
    bib = read(HEADER + REC1.replace("First abstract.\n\n", "") + REC2, source="jane.txt")
    assert bib.entries[0].fields == {
        "title": "First Title",
        "publisher": "arXiv",
        "arxiv-class": "cs.LG",
    }
    assert ("warning", "arxiv-listing.missing-abstract", 9) in codes(bib)


def test_text_without_a_year_line_is_rejected_with_its_raw_text() -> None:
    orphan = "Orphan Title\n\nOrphan abstract.\n\ncs.CL↗\n\n"
    text = HEADER + REC1 + orphan + REC2
    bib = read(text, source="jane.txt")
    assert [e.get("title") for e in bib.entries] == ["First Title", "Second Title"]
    assert bib.rejected == [
        Rejected(
            "jane.txt",
            17,
            "Orphan Title\n\nOrphan abstract.\n\ncs.CL↗",
            "text 'Orphan Title' is not a record: it has no arXiv<YEAR> line before it",
            "arxiv-listing",
        )
    ]
    assert count_records(text) == 3
    assert ("error", "arxiv-listing.unreadable-record", 17) in codes(bib)


def test_text_after_the_last_record_is_rejected_not_called_truncation() -> None:
    bib = read(HEADER + REC1 + REC2 + "\n\nShow more", source="jane.txt")
    assert [(r.line, r.raw, r.reason) for r in bib.rejected] == [
        (25, "Show more", "text 'Show more' is not a record: it has no arXiv<YEAR> line before it")
    ]
    assert len(bib.entries) == 2


def test_records_run_together_are_rejected() -> None:
    merged = (
        "arXiv2024\n\nFirst Title\n\nFirst abstract.\n\nOther Title\n\nOther abstract.\n\ncs.LG↗"
    )
    bib = read(HEADER + merged, source="jane.txt")
    assert bib.entries == []
    [rejected] = bib.rejected
    assert rejected.line == 9 and rejected.raw == merged
    assert rejected.reason == (
        "record arXiv2024 has 4 lines of text where a title and an abstract were expected; "
        "two records may have run together"
    )
    assert ("warning", "arxiv-listing.count-mismatch", 7) in codes(bib)


def test_unknown_category_and_secondary_classes_are_kept_as_extras() -> None:
    text = (
        HEADER
        + REC1.replace("cs.LG↗", "Computer Science↗")
        + REC2.replace("stat.ML↗", "stat.ML↗ cs.LG↗")
    )
    bib = read(text, source="jane.txt")
    first, second = bib.entries
    assert "arxiv-class" not in first.fields
    assert first.extra == [Extra("arxiv-listing", "category", "Computer Science")]
    assert second.fields["arxiv-class"] == "stat.ML"
    assert second.extra == [Extra("arxiv-listing", "categories", "cs.LG")]
    assert ("warning", "arxiv-listing.unknown-category", 15) in codes(bib)


def test_headerless_listing_reads_without_author() -> None:
    bib = read(REC1 + REC2, source="bare.txt")
    assert [e.names for e in bib.entries] == [{}, {}]
    assert codes(bib) == [("warning", "arxiv-listing.no-author", 1)]


def test_name_line_that_disagrees_with_the_sentence() -> None:
    text = HEADER.replace("\nJane Doe\n", "\nJ. Doe\n") + REC1
    bib = read(text, source="jane.txt")
    assert bib.entries[0].names == {"author": [JANE, OTHERS]}
    assert ("warning", "arxiv-listing.author-mismatch", 3) in codes(bib)


def test_unknown_header_text_is_reported_with_its_raw_text() -> None:
    text = HEADER.replace("At least 2", "Sort by date\n\nAt least 2") + REC1 + REC2
    bib = read(text, source="jane.txt")
    [diagnostic] = [d for d in bib.diagnostics if d.code == "arxiv-listing.header-text"]
    assert (diagnostic.severity, diagnostic.line, diagnostic.raw) == ("warning", 7, "Sort by date")


def test_characters_arxiv_uses_literally_are_not_latex() -> None:
    abstract = "Gains of 89.5% on ~10 tasks & R&D, snake_case #1, x^2 and 2--3 runs."
    bib = read(HEADER + REC1.replace("First abstract.", abstract), source="jane.txt")
    assert bib.entries[0].fields["abstract"] == (
        "Gains of 89.5% on ~10 tasks & R&D, snake_case #1, x^2 and 2–3 runs."
    )


def test_a_title_that_decodes_to_nothing_is_reported() -> None:
    bib = read(HEADER + REC1.replace("First Title", "{\\relax}"), source="jane.txt")
    assert "title" not in bib.entries[0].fields
    assert [(d.severity, d.code, d.line, d.message) for d in bib.diagnostics][0] == (
        "warning",
        "arxiv-listing.empty-title",
        11,
        "title '{\\relax}' holds no text once decoded; the entry has no title",
    )


def test_unmatched_dollar_is_a_dollar_sign() -> None:
    bib = read(HEADER + REC1.replace("First abstract.", "It costs $5 per run."), source="j")
    assert bib.entries[0].fields["abstract"] == "It costs $5 per run."
    assert [(d.code, d.line, d.message) for d in bib.diagnostics][0] == (
        "arxiv-listing.latex",
        13,
        "abstract: unmatched $ read as a dollar sign",
    )


def test_urls_with_punctuation_commands_and_percent_escapes() -> None:
    abstract = (
        "See (https://example.org/a_(b)), https://x.org/%20y; \\url{https://z.org/q_r} and "
        "\\href{https://w.org/}{our site}. Again: https://x.org/%20y!"
    )
    bib = read(HEADER + REC1.replace("First abstract.", abstract), source="jane.txt")
    entry = bib.entries[0]
    assert entry.fields["links"] == (
        "https://example.org/a_(b) https://x.org/%20y https://z.org/q_r https://w.org/"
    )
    assert entry.get("abstract") == (
        "See (https://example.org/a_(b)), https://x.org/%20y; https://z.org/q_r and our site. "
        "Again: https://x.org/%20y!"
    )


def test_two_listings_in_one_file_keep_their_own_authors_and_counts() -> None:
    bethune = (SOURCES / "bethune.txt").read_text(encoding="utf-8")
    allauzen = (SOURCES / "allauzen.txt").read_text(encoding="utf-8")
    text = bethune + "\n\n" + allauzen
    bib = read(text, source="both.txt")
    assert count_records(text) == len(bib.entries) == 36 and bib.rejected == []
    authors = [e.names["author"][0].family for e in bib.entries]
    assert authors == ["Béthune"] * 18 + ["Allauzen"] * 18
    assert [e.origin.line for e in bib.entries if e.origin][18] == 151 + 2 + 8
    mismatches = [d.line for d in bib.diagnostics if d.code == "arxiv-listing.count-mismatch"]
    assert mismatches == [7, 151 + 2 + 6]


def test_a_second_page_without_its_subjects_line() -> None:
    second = HEADER.replace("arXiv subjects\n\n", "").replace("Jane Doe", "John Roe") + REC2
    text = HEADER + REC1 + second
    bib = read(text, source="two.txt")
    assert [(e.get("title"), e.names["author"][0].family) for e in bib.entries] == [
        ("First Title", "Doe"),
        ("Second Title", "Roe"),
    ]
    assert bib.rejected == []
    assert count_records(text) == 2


BROKEN = {
    "clean": HEADER + REC1 + REC2,
    "header-only": HEADER,
    "truncated-abstract": HEADER + REC1 + "arXiv2023\n\nSecond Title\n\nSecond abs",
    "truncated-marker": HEADER + REC1 + "arXiv2023\n",
    "crlf": (HEADER + REC1 + REC2).replace("\n", "\r\n"),
    "cr": (HEADER + REC1 + REC2).replace("\n", "\r"),
    "blank-lines": HEADER + "\n\n\n" + REC1.replace("\n\n", "\n\n\n\n") + REC2,
    "missing-category": HEADER + REC1.replace("cs.LG↗", "") + REC2,
    "orphan": HEADER + REC1 + "Orphan\n\ncs.CL↗\n\n" + REC2,
    "orphan-after-last": HEADER + REC1 + REC2 + "\n\nShow more",
    "two-categories": HEADER + REC1 + "cs.CL↗\n\n" + REC2,
    "no-blank-lines": (HEADER + REC1 + REC2).replace("\n\n", "\n"),
    "run-together": HEADER + "arXiv2024\n\nA\n\nB\n\nC\n\nD\n\ncs.LG↗",
    "two-pages": HEADER + REC1 + HEADER + REC2,
    "second-page-no-subjects": HEADER + REC1 + HEADER.replace("arXiv subjects", "") + REC2,
    "name-line-ends-record": HEADER + "arXiv2024\n\nT\n\nAbs\n\n" + HEADER[16:] + REC2,
}


@pytest.mark.parametrize("name", BROKEN)
def test_nothing_is_dropped_silently(name: str) -> None:
    text = BROKEN[name]
    bib = read(text, source=f"{name}.txt")
    # conservation: the independent count equals entries + rejected
    assert count_records(text) == len(bib.entries) + len(bib.rejected)
    for rejected in bib.rejected:
        assert rejected.raw and rejected.line >= 1
        assert any(d.severity == "error" and d.line == rejected.line for d in bib.diagnostics)
    # every non-blank line of the input is in an entry, a rejected record or the header
    kept = "\n".join(
        [e.origin.raw for e in bib.entries if e.origin]
        + [r.raw for r in bib.rejected]
        + [d.raw for d in bib.diagnostics]
    )
    header_lines = {"arXiv subjects", "Jane Doe", "At least 2 recordsLinked to original sources"}
    header_lines.add("Publications and source records attributed to Jane Doe.")
    for line in text.replace("\r", "\n").split("\n"):
        if line.strip() and line.strip() not in header_lines:
            assert line.strip() in kept, line


def test_every_line_ending_style_reads_the_same_entries() -> None:
    entries = {name: read(BROKEN[name], source="x").entries for name in ("clean", "crlf", "cr")}
    assert entries["clean"] == entries["crlf"] == entries["cr"]
    assert read(BROKEN["no-blank-lines"], source="x").entries == entries["clean"]


# ---------------------------------------------------------------------------------------------
# Golden model dumps (regenerate with CITEKIT_UPDATE_GOLDEN=1 or --update-golden; review them)
# ---------------------------------------------------------------------------------------------


def _node_json(node: Node) -> object:
    if isinstance(node, str):
        return node
    if isinstance(node, Span):
        return {"span": node.kind, "children": [_node_json(c) for c in node.children]}
    if isinstance(node, Math):
        return {"math": node.tex, "bare": node.bare} if node.bare else {"math": node.tex}
    return {"raw": node.tex}


def _text_json(value: Text) -> object:
    return value if isinstance(value, str) else [_node_json(n) for n in value.nodes]


def _name_json(name: Name) -> dict[str, object]:
    if name.others:
        return {"others": True}
    parts = ("family", "given", "particle", "dropping_particle", "suffix", "literal")
    return {p: getattr(name, p) for p in parts if getattr(name, p)}


def dump(bib: Bibliography) -> dict[str, object]:
    return {
        "entries": [
            {
                "line": e.origin.line if e.origin else None,
                "type": e.type,
                "source_type": e.source_type,
                "fields": {k: _text_json(v) for k, v in e.fields.items()},
                "names": {r: [_name_json(n) for n in ns] for r, ns in e.names.items()},
                "dates": {r: {"year": d.year} for r, d in e.dates.items()},
                "extra": [[x.format, x.name, x.value] for x in e.extra],
            }
            for e in bib.entries
        ],
        "rejected": [{"line": r.line, "reason": r.reason, "raw": r.raw} for r in bib.rejected],
        "diagnostics": [[d.severity, d.code, d.line, d.message] for d in bib.diagnostics],
    }


@pytest.mark.parametrize("name", LISTINGS)
def test_golden_model(name: str, request: pytest.FixtureRequest) -> None:
    actual = dump(read_listing(name))
    golden = GOLDEN / f"{name}.json"
    update = os.environ.get("CITEKIT_UPDATE_GOLDEN") == "1" or request.config.getoption(
        "--update-golden", default=False
    )
    if update:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(actual, ensure_ascii=False, indent=1) + "\n", "utf-8")
    assert golden.exists(), f"{golden} is missing: run with CITEKIT_UPDATE_GOLDEN=1 and review it"
    assert actual == json.loads(golden.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# Properties: any text, listing-shaped or not, reads without raising and conserves records
# ---------------------------------------------------------------------------------------------

_LISTING_LINES = st.sampled_from(
    [
        "",
        "   ",
        "arXiv subjects",
        "Jane Doe",
        "Publications and source records attributed to Jane Doe.",
        "At least 3 recordsLinked to original sources",
        "arXiv2024",
        "arXiv 2023",
        "arXiv20",
        "A Title with $x_1$ and \\emph{this}",
        "Abstract with 5% and https://github.com/a/b. and $unmatched",
        "\\mathbb{E}(Y \\mid X) and {unbalanced",
        "cs.LG↗",
        "stat.ML↗ cs.AI↗",
        "Computer Science↗",
        "↗",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.one_of(_LISTING_LINES, st.text(max_size=40)), max_size=40),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_reading_never_raises_and_conserves_records(lines: list[str], newline: str) -> None:
    text = newline.join(lines)
    bib = read(text, source="h.txt")
    assert count_records(text) == len(bib.entries) + len(bib.rejected)
    for entry in bib.entries:
        assert entry.origin is not None and entry.origin.line >= 1
        title_reported = any(d.code == "arxiv-listing.empty-title" for d in bib.diagnostics)
        assert entry.get("title").strip() or title_reported
    for rejected in bib.rejected:
        assert rejected.raw.strip()


# ---------------------------------------------------------------------------------------------
# The listings' LaTeX through the renderers every writer uses (latex.encode, markup)
# ---------------------------------------------------------------------------------------------


def test_issue_cases_render_in_unicode_and_csl_without_text_commands() -> None:
    from citekit.markup import to_csl, to_unicode

    bethune, allauzen = read_listing("bethune"), read_listing("allauzen")
    mix = entry_titled(bethune, "Mix, Don't Tune").fields["abstract"]
    assert to_unicode(mix).endswith("from a small proxy model via μP.")
    cdq = entry_titled(allauzen, "Conditional Distribution").fields["abstract"]
    assert to_unicode(cdq).startswith("Conditional expectation 𝔼(Y ∣ X) often fails")
    assert "distributions ℒ(Y ∣ X). To address this" in to_unicode(cdq)
    dsl = entry_titled(bethune, "Deep Sturm")
    assert "we introduce <i>Deep Sturm–Liouville</i> (DSL)" in to_csl(dsl.fields["abstract"])
    assert "we introduce Deep Sturm–Liouville (DSL)" in to_unicode(dsl.fields["abstract"])
    for entry in bethune.entries + allauzen.entries:
        for value in entry.fields.values():
            for rendered in (to_unicode(value), to_csl(value)):
                assert "\\emph" not in rendered and "\\texttt" not in rendered
                assert "\\textit" not in rendered


def test_bare_math_is_wrapped_in_ensuremath_for_bibtex() -> None:
    from citekit.latex import encode

    cdq = entry_titled(read_listing("allauzen"), "Conditional Distribution").fields["abstract"]
    tex, problems = encode(cdq, ascii=True)
    assert tex.startswith(
        "Conditional expectation \\ensuremath{\\mathbb{E}}(Y \\ensuremath{\\mid} X) often fails"
    )
    assert problems == ()


_LATEX_DOC = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage{textcomp}
\usepackage{amsmath,amssymb}
\usepackage{url}
\begin{document}
%s
\end{document}
"""


@pytest.mark.consumer
def test_every_title_and_abstract_compiles_with_pdflatex(tmp_path: Path) -> None:
    """Bibliography styles do not typeset abstracts, so the .bib consumer checks never compile
    them: typeset every encoded title and abstract of both listings directly."""
    import shutil
    import subprocess

    from citekit.latex import encode

    if shutil.which("pdflatex") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("pdflatex is required in CI")
        pytest.skip("pdflatex not installed")
    paragraphs = []
    for name in LISTINGS:
        for entry in read_listing(name).entries:
            for field in ("title", "abstract"):
                tex, problems = encode(entry.fields[field], ascii=True)
                assert problems == (), (name, entry.get("title"))
                paragraphs.append(f"% {name}:{entry.origin.line if entry.origin else 0}\n{tex}\n")
    (tmp_path / "main.tex").write_text(_LATEX_DOC % "\n".join(paragraphs), encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    log = (tmp_path / "main.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert run.returncode == 0 and errors == [], errors
