"""Citation keys: golden table, pattern language, usable keys, collisions, idempotence."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citekit.keys import (
    DEFAULT_PATTERN,
    PATTERN_FIELDS,
    PATTERN_HELP,
    STOP_WORDS,
    assign_keys,
    generate_key,
    is_usable_key,
    validate_pattern,
)
from citekit.model import OTHERS, Date, Entry, Math, Name, Origin, Raw, Rich, Span, Text


def entry(
    authors: list[Name] | None = None,
    year: int | None = None,
    title: Text | None = None,
    *,
    key: str = "",
    editors: list[Name] | None = None,
    line: int = 1,
) -> Entry:
    names: dict[str, list[Name]] = {}
    if authors:
        names["author"] = authors
    if editors:
        names["editor"] = editors
    return Entry(
        type="article-journal",
        key=key,
        names=names,
        dates={"issued": Date(year)} if year is not None else {},
        fields={"title": title} if title is not None else {},
        origin=Origin("refs.bib", line, "bibtex"),
    )


# --- golden table -----------------------------------------------------------------------------

GOLDEN = [
    (
        entry([Name(family="Béthune", given="A.")], 2025, "Shielded Reasoning"),
        "bethune2025shielded",
    ),
    (entry([Name(family="Müller", given="J.")], 2020, "Über die Logik"), "muller2020logik"),
    (entry([Name(family="Øster")], 2019, "On the Road"), "oster2019road"),
    (entry([Name(family="王", given="小明")], 2021, "Deep Networks"), "wang2021deep"),
    (entry([Name(family="Колмогоров")], 1933, "Основные понятия"), "kolmogorov1933osnovnye"),
    (
        entry([Name(family="Berg", given="Jan", particle="van der")], 2018, "Dikes"),
        "vanderberg2018dikes",
    ),
    (
        entry([Name(family="Beethoven", dropping_particle="van")], 1801, "Sonata"),
        "vanbeethoven1801sonata",
    ),
    (entry([Name(family="O'Brien-Smith")], 2000, "Notes"), "obriensmith2000notes"),
    (entry([Name(literal="World Health Organization")], 2020, "World report"), "world2020world"),
    (
        entry([Name(literal="The ATLAS Collaboration")], 2012, "Observation of a new particle"),
        "atlas2012observation",
    ),
    (entry([Name(family="Smith")], 2020, "Higher-Order Functions"), "smith2020higherorder"),
    (entry([Name(family="Smith")], 2020, "A Theory of l'Analyse"), "smith2020theory"),
    (entry([Name(family="Smith")], 2020, "L'analyse des données"), "smith2020analyse"),
    (entry([Name(family="Smith")], 2020, "$\\alpha$-Stable Laws"), "smith2020stable"),
    (
        entry([Name(family="Smith")], 2020, Rich((Math("O(n)"), " Algorithms"))),
        "smith2020algorithms",
    ),
    (
        entry([Name(family="Smith")], 2020, Rich((Raw("\\foo"), " ", Span("nocase", ("DNA",))))),
        "smith2020dna",
    ),
    (entry([Name(family="Smith")], 2020, "3D Shapes"), "smith20203d"),
    (entry([Name(family="Smith")], 2020, "C Programming"), "smith2020programming"),
    (entry([Name(literal="U.S. Department of Health")], 2020, "U.S. Policy. Notes"), "us2020us"),
    (entry([Name(family="Dahl")], 2009, "Node.js Internals"), "dahl2009nodejs"),
    (entry(None, 2020, "Anonymous Work"), "anon2020anonymous"),
    (entry(None, 2020, "Edited Volume", editors=[Name(family="Editor")]), "editor2020edited"),
    (entry([Name(family="Smith")], None, "Undated"), "smithndundated"),
    (entry([Name(family="Smith")], 2020, "The Of And"), "smith2020"),
    (entry([Name(family="Smith")], 2020, None), "smith2020"),
    (entry([Name(literal="3M")], 2000, "Tape"), "x3m2000tape"),
    (entry([Name(family="Caesar")], -44, "Commentarii"), "caesar0044bccommentarii"),
    (entry([OTHERS, Name(family="Late")], 1999, "Essay"), "late1999essay"),
]


@pytest.mark.parametrize(("item", "key"), GOLDEN, ids=[k for _, k in GOLDEN])
def test_golden_keys(item: Entry, key: str) -> None:
    assert generate_key(item) == key
    assert re.fullmatch(r"[a-z][a-z0-9]*", key)


# --- pattern language -------------------------------------------------------------------------

VASWANI = entry(
    [Name(family="Vaswani", given="A."), Name(family="Shazeer"), Name(family="Parmar")],
    2017,
    "Attention Is All You Need",
)


@pytest.mark.parametrize(
    ("pattern", "key"),
    [
        (DEFAULT_PATTERN, "vaswani2017attention"),
        ("{auth}{shorttitle3}{year}", "vaswaniAttentionAllYou2017"),
        ("{auth}{shorttitle}{year}", "vaswaniAttentionAllYou2017"),
        ("{Auth}{year}", "Vaswani2017"),
        ("{authors2}{year}", "vaswanishazeeretal2017"),
        ("{authors3}{year}", "vaswanishazeerparmar2017"),
        ("{authors}{year}", "vaswanishazeerparmar2017"),
        ("{auth}_{year}_{title}", "vaswani_2017_attention"),
        ("{auth}:{year}.{Title}", "vaswani:2017.Attention"),
        ("{auth}{year}{veryshorttitle}", "vaswani2017Attention"),
        ("{auth}{shorttitle1}", "vaswaniAttention"),
        ("ref-{auth}", "ref-vaswani"),
    ],
)
def test_patterns(pattern: str, key: str) -> None:
    assert generate_key(VASWANI, pattern) == key
    assert is_usable_key(key)


def test_and_others_counts_as_more_authors() -> None:
    item = entry([Name(family="Doe"), Name(family="Roe"), OTHERS], 2001, "X-rays")
    assert generate_key(item, "{authors2}{year}") == "doeroeetal2001"
    assert generate_key(item, "{authors}") == "doeroeetal"
    many = entry([Name(family=f"N{chr(97 + i)}") for i in range(12)], 2001, None)
    assert generate_key(many, "{authors}") == "nanbncndnenfngnhnietal"
    assert generate_key(entry([Name(family="—")], 2001, "Dash"), DEFAULT_PATTERN) == "anon2001dash"


def test_patterns_tidy_punctuation_left_by_empty_fields() -> None:
    item = entry([Name(family="Smith")], 2020, None)
    assert generate_key(item, "{auth}-{title}") == "smith"
    assert generate_key(item, "{title}-{auth}") == "smith"
    assert generate_key(item, "{year}-{auth}") == "x2020-smith"
    assert generate_key(item, "{title}") == "anon"
    assert generate_key(item, "{auth}--{year}") == "smith-2020"


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("{foo}", "unknown key pattern field {foo}; known fields: {auth} {Auth} {authors}"),
        ("{auth", "'{auth' is not a field; known fields:"),
        ("{auth} {year}", "literal text ' ' may only hold ASCII letters, digits and _ : . - / +"),
        ("{authors0}", "{authors0}: N must be 1-9"),
        ("{year2}", "unknown key pattern field {year2}"),
        ("abc", "key pattern 'abc' has no field"),
        ("{auth}é", "literal text 'é' may only hold"),
    ],
)
def test_bad_patterns_raise_value_error(pattern: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        validate_pattern(pattern)
    with pytest.raises(ValueError):
        assign_keys([VASWANI], pattern=pattern)


def test_help_names_every_field_and_the_default() -> None:
    assert DEFAULT_PATTERN in PATTERN_HELP
    for field in (
        "{auth}",
        "{Auth}",
        "{authors2}",
        "{authors}",
        "{year}",
        "{title}",
        "{Title}",
        "{shorttitle3}",
        "{veryshorttitle}",
    ):
        assert field in PATTERN_HELP
    assert set(PATTERN_FIELDS) >= {"auth", "Auth", "year", "title", "Title", "shorttitleN"}


def test_stop_words_are_sorted_unique_and_cover_five_languages() -> None:
    assert list(STOP_WORDS) == sorted(set(STOP_WORDS))
    assert 90 <= len(STOP_WORDS) <= 130
    for word in ("the", "of", "der", "über", "les", "del", "della", "zum"):
        assert word in STOP_WORDS


# --- usable keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "usable"),
    [
        ("smith2020", True),
        ("Smith2020a", True),
        ("DBLP:conf/nips/VaswaniSPUJGKP17", True),
        ("smith_2020", True),
        ("smith-2020.v2", True),
        ("2020smith", True),
        ("", False),
        ("a--b", False),
        ("a.", False),
        ("-a", False),
        ("müller2020", False),
        ("a b", False),
        ("a{b}", False),
        ("a,b", False),
        ("x%y", False),
        ("a#b", False),
        ("o'brien", False),
        ("a~b", False),
        ("a\\b", False),
    ],
)
def test_is_usable_key(key: str, usable: bool) -> None:
    assert is_usable_key(key) is usable


# --- assigning keys ---------------------------------------------------------------------------


def _smith(title: str, *, key: str = "", line: int = 1) -> Entry:
    return entry([Name(family="Smith")], 2020, title, key=key, line=line)


def test_collision_suffix_order_follows_input_order() -> None:
    items = [_smith("Rings", line=i) for i in range(1, 30)]
    result = assign_keys(items)
    keys = [e.key for e in result.entries]
    assert keys[:4] == ["smith2020rings", "smith2020ringsa", "smith2020ringsb", "smith2020ringsc"]
    assert keys[25:29] == [
        "smith2020ringsy",
        "smith2020ringsz",
        "smith2020ringsaa",
        "smith2020ringsab",
    ]
    assert len(set(keys)) == len(keys)


def test_collisions_are_case_insensitive() -> None:
    items = [
        entry([Name(family="Smith")], 2020, None, key="Smith2020"),
        entry([Name(family="Smith")], 2020, None, key="smith2020"),
    ]
    result = assign_keys(items, keep_keys=True)
    assert [e.key for e in result.entries] == ["Smith2020", "smith2020a"]
    codes = [d.code for d in result.diagnostics]
    assert codes == ["key.duplicate", "key.renamed"]
    dup = result.diagnostics[0]
    assert dup.severity == "warning"
    assert dup.key == "smith2020a"
    assert dup.message == (
        "key 'smith2020' is already used by an earlier entry (line 1); "
        "this one becomes 'smith2020a'"
    )
    # a generated key that differs only in case from a kept one is a collision too
    items = [
        entry([Name(family="Smith")], 2020, "Rings"),
        entry([Name(family="Other")], 1999, None, key="SMITH2020RINGS"),
    ]
    result = assign_keys(items, keep_keys=True)
    assert [e.key for e in result.entries] == ["smith2020ringsa", "SMITH2020RINGS"]


def test_default_regenerates_every_key_and_reports_each_rename() -> None:
    items = [_smith("Rings", key="old1", line=3), _smith("Rings", key="smith2020rings", line=9)]
    result = assign_keys(items)
    assert [e.key for e in result.entries] == ["smith2020rings", "smith2020ringsa"]
    assert [e.original_key for e in result.entries] == ["old1", "smith2020rings"]
    assert result.renames == [("old1", "smith2020rings"), ("smith2020rings", "smith2020ringsa")]
    assert [
        (d.severity, d.code, d.source, d.line, d.key, d.message) for d in result.diagnostics
    ] == [
        (
            "info",
            "key.renamed",
            "refs.bib",
            3,
            "smith2020rings",
            "key 'old1' renamed to 'smith2020rings'",
        ),
        (
            "info",
            "key.renamed",
            "refs.bib",
            9,
            "smith2020ringsa",
            "key 'smith2020rings' renamed to 'smith2020ringsa'",
        ),
    ]
    # the input entries are untouched
    assert [e.key for e in items] == ["old1", "smith2020rings"]


def test_keep_keys_keeps_usable_keys_and_replaces_the_rest() -> None:
    items = [
        _smith("Rings", key="Knuth:1984", line=1),
        _smith("Rings", key="bad key", line=2),
        _smith("Rings", key="", line=3),
        _smith("Rings", key="müller", line=4),
    ]
    result = assign_keys(items, keep_keys=True)
    assert [e.key for e in result.entries] == [
        "Knuth:1984",
        "smith2020rings",
        "smith2020ringsa",
        "smith2020ringsb",
    ]
    unusable = "is not usable in bibtex, biber and pandoc alike; renamed to"
    assert [d.message for d in result.diagnostics] == [
        f"key 'bad key' {unusable} 'smith2020rings'",
        "entry had no key; it gets 'smith2020ringsa'",
        f"key 'müller' {unusable} 'smith2020ringsb'",
    ]
    assert result.renames[0] == ("Knuth:1984", "Knuth:1984")


def test_kept_keys_win_over_earlier_generated_keys() -> None:
    items = [_smith("Rings", line=1), _smith("Other", key="smith2020rings", line=2)]
    result = assign_keys(items, keep_keys=True)
    assert [e.key for e in result.entries] == ["smith2020ringsa", "smith2020rings"]


def test_suffix_skips_keys_already_held() -> None:
    items = [
        _smith("Rings", key="smith2020ringsa", line=1),
        _smith("Rings", line=2),
        _smith("Rings", line=3),
    ]
    result = assign_keys(items, keep_keys=True)
    assert [e.key for e in result.entries] == [
        "smith2020ringsa",
        "smith2020rings",
        "smith2020ringsb",
    ]


def test_unchanged_keys_give_no_diagnostics_and_original_key_is_set() -> None:
    items = [_smith("Rings", key="smith2020rings")]
    result = assign_keys(items)
    assert result.diagnostics == []
    assert result.entries[0].original_key == "smith2020rings"
    assert result.renames == [("smith2020rings", "smith2020rings")]


# --- properties -------------------------------------------------------------------------------

_families = st.sampled_from(
    ["Smith", "Müller", "Øster", "王", "Колмогоров", "O'Brien", "Lloyd-Jones", "3M", "de la Cruz"]
)
_titles = st.one_of(
    st.none(),
    st.sampled_from(
        ["Rings", "The Rings", "Higher-Order Rings", "$x^2$ Rings", "On", "Über Ringe"]
    ),
    st.text(max_size=20),
)
_keys = st.sampled_from(
    ["", "smith2020rings", "Smith2020Rings", "bad key", "x", "Knuth:84", "a--b"]
)


@st.composite
def entries(draw: st.DrawFn) -> list[Entry]:
    items = []
    for line in range(draw(st.integers(0, 25))):
        family = draw(_families)
        authors = [Name(literal=family)] if draw(st.booleans()) else [Name(family=family)]
        items.append(
            entry(
                authors if draw(st.integers(0, 5)) else None,
                draw(st.sampled_from([None, 2020, 1999])),
                draw(_titles),
                key=draw(_keys),
                line=line + 1,
            )
        )
    return items


_GENERATED = re.compile(r"[a-z][a-z0-9]*")


@settings(max_examples=300, deadline=None)
@given(entries(), st.booleans())
def test_keys_are_unique_usable_and_idempotent(items: list[Entry], keep: bool) -> None:
    result = assign_keys(items, keep_keys=keep)
    keys = [e.key for e in result.entries]
    assert len({k.lower() for k in keys}) == len(keys)
    assert all(is_usable_key(k) for k in keys)
    for item, new in zip(items, result.entries, strict=True):
        kept = keep and item.key and is_usable_key(item.key) and new.key.startswith(item.key)
        if not kept:
            assert _GENERATED.fullmatch(new.key)
    assert [(old, new) for old, new in result.renames] == [
        (i.key, e.key) for i, e in zip(items, result.entries, strict=True)
    ]
    again = assign_keys(result.entries, keep_keys=keep)
    assert [e.key for e in again.entries] == keys
    assert again.diagnostics == []
    # same input, same keys
    assert [e.key for e in assign_keys(items, keep_keys=keep).entries] == keys


# --- consumers: bibtex, biber under pdfLaTeX and pandoc all find usable keys ----------------------

_EDGE_KEYS = [
    "smith2020", "Smith2020a", "DBLP:conf/nips/VaswaniSPUJGKP17", "smith_2020", "smith-2020.v2",
    "2020smith", "_x", "a+b", "a.b:c",
]  # fmt: skip


def _run(args: list[str], cwd: Path) -> str:
    run = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)
    return run.stdout + run.stderr


@pytest.mark.consumer
def test_usable_keys_work_in_bibtex_biber_and_pandoc(tmp_path: Path) -> None:
    for tool in ("pdflatex", "bibtex", "biber", "pandoc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    assert all(is_usable_key(k) for k in _EDGE_KEYS)
    entries = "".join(
        f"@misc{{{k}, author = {{A Smith}}, title = {{T{i}}}, year = 2020}}\n"
        for i, k in enumerate(_EDGE_KEYS)
    )
    (tmp_path / "k.bib").write_text(entries, encoding="ascii")
    cites = ",".join(_EDGE_KEYS)
    (tmp_path / "a.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{" + cites + "}"
        "\\bibliographystyle{plain}\\bibliography{k}\\end{document}\n"
    )
    (tmp_path / "b.tex").write_text(
        "\\documentclass{article}\\usepackage[backend=biber]{biblatex}\\addbibresource{k.bib}"
        "\\begin{document}\\cite{" + cites + "}\\printbibliography\\end{document}\n"
    )
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error"]
    for doc, backend in (("a", "bibtex"), ("b", "biber")):
        _run([*latex, doc], tmp_path)
        log = _run([backend, doc], tmp_path)
        assert "error" not in log.lower(), log[-600:]
        _run([*latex, doc], tmp_path)
        final = _run([*latex, doc], tmp_path)
        assert "undefined" not in final.lower(), final[-600:]
    (tmp_path / "p.md").write_text("".join(f"- @{k}\n" for k in _EDGE_KEYS))
    out = _run(["pandoc", "p.md", "--citeproc", "--bibliography=k.bib", "-t", "plain"], tmp_path)
    assert "not found" not in out, out[-600:]
    assert all(f"T{i}" in out for i in range(len(_EDGE_KEYS))), out[-600:]
