"""Finding and merging the same work across inputs (citekit/dedupe.py)."""

from __future__ import annotations

from citekit.dedupe import (
    DuplicateGroup,
    find_duplicates,
    merge_duplicates,
    normalize_doi,
    normalize_title,
    report_duplicates,
)
from citekit.model import OTHERS, Date, Entry, Extra, Math, Name, Origin, Rich, Span

BETHUNE = Name(family="Béthune", given="Louis")
ALLAUZEN = Name(family="Allauzen", given="Alexandre")
KIRCHHOF = Name(family="Kirchhof", given="Michael")
CUTURI = Name(family="Cuturi", given="Marco")


def make(
    title: str | Rich = "",
    *,
    year: int | None = 2025,
    authors: list[Name] | None = None,
    key: str = "",
    line: int = 1,
    source: str = "a.bib",
    type: str = "article",
    **fields: str,
) -> Entry:
    values: dict[str, str | Rich] = {}
    if title:
        values["title"] = title
    values.update({name.replace("_", "-"): value for name, value in fields.items()})
    return Entry(
        type=type,
        key=key,
        original_key=key,
        fields=values,
        names={"author": authors} if authors else {},
        dates={"issued": Date(year=year)} if year else {},
        origin=Origin(source, line, "bibtex"),
    )


# ---------------------------------------------------------------------------------------------
# find_duplicates
# ---------------------------------------------------------------------------------------------


def test_same_arxiv_id_in_every_spelling_is_one_work() -> None:
    entries = [
        make("A", arxiv="2101.00001"),
        make("Unrelated", arxiv="2101.00002"),
        make("B", DOI="10.48550/arXiv.2101.00001"),
        make("C", URL="https://arxiv.org/abs/2101.00001v3"),
        make("D", arxiv="arXiv:2101.00001v2"),
    ]
    assert find_duplicates(entries) == [DuplicateGroup((0, 2, 3, 4), "same arXiv id 2101.00001")]


def test_old_style_arxiv_ids_match() -> None:
    entries = [make("A", arxiv="math/0211159"), make("B", DOI="10.48550/arXiv.math/0211159")]
    assert find_duplicates(entries) == [DuplicateGroup((0, 1), "same arXiv id math/0211159")]


def test_doi_matches_case_insensitively_and_through_resolver_urls() -> None:
    entries = [
        make("A", DOI="10.1000/ABC.def"),
        make("B", DOI="https://doi.org/10.1000/abc.DEF"),
        make("C", URL="https://dx.doi.org/10.1000/Abc.Def"),
        make("D", DOI="doi:10.1000/other"),
    ]
    assert find_duplicates(entries) == [DuplicateGroup((0, 1, 2), "same DOI 10.1000/abc.def")]


def test_identifier_matches_are_transitive() -> None:
    # the preprint and the journal version join through the entry that carries both
    entries = [
        make("Preprint", arxiv="2101.00001"),
        make("Journal", DOI="10.1/j"),
        make("Both", arxiv="2101.00001", DOI="10.1/J"),
    ]
    groups = find_duplicates(entries)
    assert [g.indices for g in groups] == [(0, 1, 2)]


def test_same_normalised_title_first_author_and_year() -> None:
    entries = [
        make("Deep Sturm–Liouville: From Sample-Based to 1D", authors=[BETHUNE]),
        make("DEEP STURM-LIOUVILLE — from sample based to 1d", authors=[BETHUNE, CUTURI]),
        make("Deep Sturm–Liouville: From Sample-Based to 1D", authors=[CUTURI]),
        make("Deep Sturm–Liouville: From Sample-Based to 1D", authors=[BETHUNE], year=2024),
    ]
    assert find_duplicates(entries) == [DuplicateGroup((0, 1), "same title, first author and year")]


def test_first_author_family_ignores_accents_and_case() -> None:
    entries = [
        make("Shielded Diffusion", authors=[BETHUNE]),
        make("Shielded diffusion", authors=[Name(family="BETHUNE", given="L.")]),
    ]
    assert [g.indices for g in find_duplicates(entries)] == [(0, 1)]


def test_incomplete_author_list_matches_when_its_known_author_is_listed() -> None:
    # a profile listing knows one author of each work, not necessarily the first one
    listing = make("Shielded Diffusion", authors=[BETHUNE, OTHERS], source="bethune.txt")
    full = make("Shielded Diffusion", authors=[KIRCHHOF, BETHUNE, CUTURI])
    stranger = make("Shielded Diffusion", authors=[KIRCHHOF, CUTURI])
    assert [g.indices for g in find_duplicates([listing, full])] == [(0, 1)]
    assert find_duplicates([listing, stranger]) == []


def test_two_profile_listings_of_co_authors_match() -> None:
    a = make("Shielded Diffusion", authors=[BETHUNE, OTHERS])
    b = make("Shielded Diffusion", authors=[ALLAUZEN, OTHERS])
    assert [g.indices for g in find_duplicates([a, b])] == [(0, 1)]


def test_title_and_year_without_authors_are_not_enough() -> None:
    entries = [make("Editorial"), make("Editorial")]
    assert find_duplicates(entries) == []


def test_missing_year_or_title_never_matches_on_title() -> None:
    entries = [
        make("Same", year=None, authors=[BETHUNE]),
        make("Same", year=None, authors=[BETHUNE]),
        make(authors=[BETHUNE]),
        make(authors=[BETHUNE]),
    ]
    assert find_duplicates(entries) == []


def test_math_titles_compare_in_unicode() -> None:
    rich = Rich(("Transfer via ", Math("\\mu"), "P"))
    entries = [make(rich, authors=[BETHUNE]), make("Transfer via μP", authors=[BETHUNE])]
    assert [g.indices for g in find_duplicates(entries)] == [(0, 1)]


def test_many_same_titled_works_by_different_authors_stay_apart() -> None:
    # one title-and-year bucket of 3000 entries: indexed by first author, not compared pairwise
    entries = [make("Preface", authors=[Name(family=f"Editor{i}")], year=2020) for i in range(3000)]
    entries.append(make("Preface", authors=[Name(family="Editor17", given="A.")], year=2020))
    assert [g.indices for g in find_duplicates(entries)] == [(17, 3000)]


def test_normalize_helpers() -> None:
    assert normalize_doi(" https://doi.org/10.1000/XyZ ") == "10.1000/xyz"
    assert normalize_doi("doi: 10.1000/XyZ") == "10.1000/xyz"
    assert normalize_doi("not a doi") == ""
    assert normalize_title("Mix, Don't Tune: Bilingual Pre-Training") == (
        "mix don t tune bilingual pre training"
    )
    assert normalize_title("Béthune’s Théorème") == "bethune s theoreme"


# ---------------------------------------------------------------------------------------------
# report_duplicates
# ---------------------------------------------------------------------------------------------


def test_report_names_every_member_once_per_group() -> None:
    entries = [
        make("A", arxiv="2101.00001", key="smith2021a", line=3),
        make("B", key="other", line=9),
        make("A", DOI="10.48550/arXiv.2101.00001", key="smith2021b", line=12, source="b.bib"),
    ]
    [diagnostic] = report_duplicates(entries)
    assert diagnostic.severity == "warning"
    assert diagnostic.code == "dedupe.duplicate"
    assert diagnostic.source == "a.bib" and diagnostic.line == 3
    assert diagnostic.key == "smith2021a"
    assert diagnostic.message == (
        "2 entries are the same work (same arXiv id 2101.00001): smith2021a (a.bib:3), "
        "smith2021b (b.bib:12); --dedupe merges them"
    )


def test_report_is_empty_without_duplicates() -> None:
    assert report_duplicates([make("A", authors=[BETHUNE]), make("B", authors=[BETHUNE])]) == []


# ---------------------------------------------------------------------------------------------
# merge_duplicates
# ---------------------------------------------------------------------------------------------


def test_merge_keeps_first_key_and_position_and_every_field() -> None:
    listing = make(
        "Shielded Diffusion: Generating Novel and Diverse Images using Sparse Repellency",
        authors=[BETHUNE, OTHERS],
        key="bethune2025shielded",
        source="bethune.txt",
        line=65,
        publisher="arXiv",
        arxiv_class="cs.CV",
        abstract="The adoption of text-to-image diffusion models raises concerns.",
    )
    between = make("Something else", authors=[CUTURI], key="cuturi2025", line=2)
    bib = make(
        "Shielded diffusion: generating novel and diverse images using sparse repellency",
        authors=[KIRCHHOF, BETHUNE, CUTURI],
        key="kirchhof2025shielded",
        line=40,
        arxiv="2410.06025",
        abstract="The adoption",
    )
    merged, diagnostics = merge_duplicates([listing, between, bib])
    assert [e.key for e in merged] == ["bethune2025shielded", "cuturi2025"]
    result = merged[0]
    assert result.fields == {
        "title": "Shielded Diffusion: Generating Novel and Diverse Images using Sparse Repellency",
        "publisher": "arXiv",
        "arxiv-class": "cs.CV",
        "abstract": "The adoption of text-to-image diffusion models raises concerns.",
        "arxiv": "2410.06025",
    }
    # the complete list wins over the listing's "Béthune and others"
    assert result.names == {"author": [KIRCHHOF, BETHUNE, CUTURI]}
    assert result.origin == listing.origin and result.origin.line == 65
    assert [(d.severity, d.code) for d in diagnostics] == [
        ("info", "dedupe.merged"),
        ("warning", "dedupe.conflict"),
    ]
    assert diagnostics[0].message == (
        "merged 2 entries (same title, first author and year): "
        "bethune2025shielded (bethune.txt:65), kirchhof2025shielded (a.bib:40)"
    )
    assert diagnostics[0].key == "bethune2025shielded"
    assert diagnostics[1].message == (
        "field abstract differs: 'The adoption of text-to-image diffusion models raises "
        "con...' (bethune.txt:65); 'The adoption' (a.bib:40); kept 'The adoption of "
        "text-to-image diffusion models raises con...'"
    )
    # the inputs are values: untouched
    assert listing.names == {"author": [BETHUNE, OTHERS]}
    assert "arxiv" not in listing.fields


def test_merge_prefers_markup_when_the_text_agrees() -> None:
    rich = Rich(("Deep ", Span("i", ("Sturm–Liouville",))))
    merged, diagnostics = merge_duplicates(
        [make("Deep Sturm-Liouville", DOI="10.1/x"), make(rich, DOI="10.1/X")]
    )
    assert merged[0].fields["title"] == rich
    assert [d.code for d in diagnostics] == ["dedupe.merged"]


def test_merge_type_specific_beats_generic_and_is_reported() -> None:
    preprint = make("T", arxiv="2101.00001", type="article")
    published = make("T", arxiv="2101.00001", type="paper-conference")
    published = published.evolve(source_type="inproceedings")
    merged, diagnostics = merge_duplicates([preprint, published])
    assert merged[0].type == "paper-conference"
    assert merged[0].source_type == "inproceedings"
    conflicts = [d.message for d in diagnostics if d.code == "dedupe.conflict"]
    assert conflicts == [
        "type differs: 'article' (a.bib:1); 'paper-conference' (a.bib:1); kept 'paper-conference'"
    ]


def test_merge_fuller_date_wins_and_contradictions_are_reported() -> None:
    a = make("T", DOI="10.1/x").evolve(dates={"issued": Date(year=2024)})
    b = make("T", DOI="10.1/x").evolve(dates={"issued": Date(year=2024, month=5, day=2)})
    merged, diagnostics = merge_duplicates([a, b])
    assert merged[0].dates == {"issued": Date(year=2024, month=5, day=2)}
    assert [d.code for d in diagnostics] == ["dedupe.merged"]

    c = make("T", DOI="10.1/x").evolve(dates={"issued": Date(year=2023)})
    merged, diagnostics = merge_duplicates([a, c])
    assert merged[0].dates == {"issued": Date(year=2024)}
    assert [d.message for d in diagnostics if d.code == "dedupe.conflict"] == [
        "date issued differs: '2024' (a.bib:1); '2023' (a.bib:1); kept '2024'"
    ]


def test_merge_two_incomplete_author_lists_keeps_every_known_author() -> None:
    a = make("Shielded Diffusion", authors=[BETHUNE, OTHERS], source="bethune.txt")
    b = make("Shielded Diffusion", authors=[ALLAUZEN, OTHERS], source="allauzen.txt")
    merged, diagnostics = merge_duplicates([a, b])
    assert merged[0].names == {"author": [BETHUNE, ALLAUZEN, OTHERS]}
    assert [d.code for d in diagnostics] == ["dedupe.merged"]


def test_merge_reports_different_complete_author_lists() -> None:
    a = make("T", DOI="10.1/x", authors=[BETHUNE, CUTURI])
    b = make("T", DOI="10.1/x", authors=[BETHUNE, KIRCHHOF, CUTURI])
    merged, diagnostics = merge_duplicates([a, b])
    assert merged[0].names["author"] == [BETHUNE, KIRCHHOF, CUTURI]
    assert [d.message for d in diagnostics if d.code == "dedupe.conflict"] == [
        "author differs: 'Béthune, Louis and Cuturi, Marco' (a.bib:1); "
        "'Béthune, Louis and Kirchhof, Michael and Cuturi, Marco' (a.bib:1); "
        "kept 'Béthune, Louis and Kirchhof, Michael and Cuturi, Marco'"
    ]


def test_merge_keeps_extras_of_every_member_once() -> None:
    a = make("T", DOI="10.1/x").evolve(extra=[Extra("bibtex", "note2", "n")])
    b = make("T", DOI="10.1/x").evolve(
        extra=[Extra("bibtex", "note2", "n"), Extra("ris", "M3", "m")]
    )
    merged, _ = merge_duplicates([a, b])
    assert merged[0].extra == [Extra("bibtex", "note2", "n"), Extra("ris", "M3", "m")]


def test_merge_without_duplicates_returns_the_entries_unchanged() -> None:
    entries = [make("A", authors=[BETHUNE]), make("B", authors=[BETHUNE])]
    merged, diagnostics = merge_duplicates(entries)
    assert merged == entries and diagnostics == []


def test_merge_several_groups_keeps_order() -> None:
    entries = [
        make("A", key="a1", DOI="10.1/a"),
        make("B", key="b1", DOI="10.1/b"),
        make("A", key="a2", DOI="10.1/A"),
        make("C", key="c"),
        make("B", key="b2", DOI="10.1/B"),
    ]
    merged, diagnostics = merge_duplicates(entries)
    assert [e.key for e in merged] == ["a1", "b1", "c"]
    assert [d.code for d in diagnostics] == ["dedupe.merged", "dedupe.merged"]


def test_merge_takes_the_first_key_in_the_group_when_the_first_entry_has_none() -> None:
    listing = make("Shielded Diffusion", authors=[BETHUNE, OTHERS], source="bethune.txt")
    bib = make("Shielded diffusion", authors=[KIRCHHOF, BETHUNE], key="kirchhof2024shielded")
    merged, _ = merge_duplicates([listing, bib])
    assert (merged[0].key, merged[0].original_key) == ("kirchhof2024shielded",) * 2
    assert merged[0].origin == listing.origin


def test_merge_a_preprint_beats_misc_and_misc_never_beats_a_preprint() -> None:
    preprint = make("T", DOI="10.1/x", type="article")
    misc = make("T", DOI="10.1/x", type="document")
    assert merge_duplicates([misc, preprint])[0][0].type == "article"
    assert merge_duplicates([preprint, misc])[0][0].type == "article"
