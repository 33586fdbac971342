"""The golden citation keys of the 36 records of sources/ (both profile listings read together),
from the arXiv-listing reader and the foundation's default key pattern and stop words."""

from __future__ import annotations

from pathlib import Path

from citekit import keys
from citekit.dedupe import find_duplicates
from citekit.formats.arxiv_listing import read
from citekit.model import Bibliography

SOURCES = Path(__file__).resolve().parents[1] / "sources"

GOLDEN_KEYS = {
    "bethune.txt": [
        "bethune2026learning", "bethune2026lacy", "bethune2026mix", "bethune2026scaling",
        "bethune2025completed", "bethune2025follow", "bethune2025improved",
        "bethune2025shielded", "bethune2025sample", "bethune2025deep",
        "bethune2025graphbased", "bethune2024multimodal", "bethune2024taco",
        "bethune2024explainable", "bethune2022pay", "bethune2022gaussian", "bethune2022gan",
        "bethune2020ranking",
    ],
    "allauzen.txt": [
        "allauzen2026across", "allauzen2026higherorder", "allauzen2026limits",
        "allauzen2026trading", "allauzen2026structuredsparse", "allauzen2026responsible",
        "allauzen2026identifying", "allauzen2026where", "allauzen2026polynomial",
        "allauzen2025forward", "allauzen2025mia", "allauzen2025improving",
        "allauzen2025interference", "allauzen2025linear", "allauzen2025bridging",
        "allauzen2025fast", "allauzen2025scope", "allauzen2025conditional",
    ],
}  # fmt: skip


def read_both() -> Bibliography:
    bib = Bibliography()
    for name in GOLDEN_KEYS:
        text = (SOURCES / name).read_text(encoding="utf-8")
        bib.extend(read(text, source=name))
    return bib


def test_golden_keys_of_all_36_records() -> None:
    bib = read_both()
    result = keys.assign_keys(bib.entries, keep_keys=False, pattern=keys.DEFAULT_PATTERN)
    by_file: dict[str, list[str]] = {name: [] for name in GOLDEN_KEYS}
    for entry in result.entries:
        assert entry.origin is not None
        by_file[entry.origin.source].append(entry.key)
    assert by_file == GOLDEN_KEYS
    assert len({e.key for e in result.entries}) == 36
    # every key is new (listings carry none), so each assignment is reported, nothing renamed
    assert {d.code for d in result.diagnostics} == {"key.renamed"}
    assert len(result.diagnostics) == 36


def test_keys_skip_stop_words_and_fold_accents() -> None:
    bib = read_both()
    by_title = {e.get("title"): e for e in bib.entries}
    explainable = by_title[
        "On the explainable properties of 1-Lipschitz Neural Networks: An Optimal Transport "
        "Perspective"
    ]
    assert keys.generate_key(explainable) == "bethune2024explainable"
    shielded = by_title[
        "Shielded Diffusion: Generating Novel and Diverse Images using Sparse Repellency"
    ]
    assert keys.generate_key(shielded) == "bethune2025shielded"


def test_the_two_listings_share_no_work() -> None:
    assert find_duplicates(read_both().entries) == []
