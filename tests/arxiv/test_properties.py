"""Properties of the arXiv helpers over generated input, and the layering rules of the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from citekit.arxiv.ids import OLD_ARCHIVES, ArxivId, find_in_text, parse_arxiv_id
from citekit.arxiv.match import normalize_title, title_query
from citekit.model import Name

PACKAGE = Path(__file__).resolve().parents[2] / "citekit" / "arxiv"

new_ids = st.builds(
    lambda yy, mm, n, five: f"{yy:02d}{mm:02d}.{n:05d}" if five else f"{yy:02d}{mm:02d}.{n:04d}",
    st.integers(7, 14), st.integers(1, 12), st.integers(1, 9999), st.just(False),
).filter(lambda s: s >= "0704") | st.builds(
    lambda yy, mm, n: f"{yy:02d}{mm:02d}.{n:05d}",
    st.integers(15, 99), st.integers(1, 12), st.integers(1, 99999),
)  # fmt: skip
old_ids = st.builds(
    lambda archive, yy, mm, n: f"{archive}/{yy:02d}{mm:02d}{n:03d}",
    st.sampled_from(sorted(OLD_ARCHIVES - {"physics"})), st.sampled_from([92, 99, 0, 3, 6]),
    st.integers(1, 12), st.integers(1, 999),
)  # fmt: skip
versions = st.none() | st.integers(1, 30)


@given(st.one_of(new_ids, old_ids), versions)
def test_every_valid_id_round_trips_through_every_written_form(
    bare: str, version: int | None
) -> None:
    expected = ArxivId(bare, version)
    text = expected.versioned
    forms = [text, f"arXiv:{text}", f"https://arxiv.org/abs/{text}",
             f"http://export.arxiv.org/pdf/{text}.pdf"]  # fmt: skip
    for form in forms:
        assert parse_arxiv_id(form) == expected, form
    assert parse_arxiv_id(f"https://doi.org/10.48550/arXiv.{bare}") == ArxivId(bare)
    assert find_in_text(f"See arXiv:{text}, p. 3.") == expected


@given(st.text())
def test_parsers_never_raise(text: str) -> None:
    parse_arxiv_id(text)
    find_in_text(text)
    normalize_title(text)


@given(st.text(), st.text(alphabet=st.characters(codec="ascii"), max_size=20))
def test_title_queries_are_always_well_formed(title: str, family: str) -> None:
    query = title_query(title, Name(family=family))
    if not query:
        return
    assert query.count('"') % 2 == 0
    for phrase in re.findall(r'ti:"([^"]*)"', query):
        assert phrase and re.fullmatch(r"[a-z0-9]+(?: [a-z0-9]+)*", phrase), phrase
    assert len(re.findall(r'ti:"[^"]*"', query)) >= 1
    assert all(term.startswith(("ti:", "au:")) for term in query.split(" AND "))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 2 and node.module:
            names.add("citekit." + node.module.split(".")[0])
    return names


def test_layering_of_the_arxiv_package() -> None:
    modules = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    assert {m for m, names in modules.items() if "requests" in names} == {"client"}
    for module, names in modules.items():
        assert not names & {"click", "tqdm", "citekit.cli", "citekit.pipeline",
                            "citekit.formats"}, module  # fmt: skip
    assert "citekit.model" not in modules["client"]  # the client returns records only
    for path in PACKAGE.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*print\(", source, re.M), path.name
        assert "except Exception" not in source and not re.search(r"except\s*:", source)
