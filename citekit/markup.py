"""Rich text <-> CSL's HTML-like markup and <-> plain Unicode (stub: contract only).

May import: model, latex. Must not import formats, cli.
"""

from __future__ import annotations

from .model import Text


def to_csl(text: Text) -> str:
    """Render as CSL-JSON rich text: <i>, <b>, <sup>, <sub>, <span class="nocase">, small caps."""
    raise NotImplementedError


def from_csl(value: str) -> tuple[Text, tuple[str, ...]]:
    """Parse CSL-JSON rich text into citekit rich text; problems for markup we cannot map."""
    raise NotImplementedError


def to_unicode(text: Text) -> str:
    """Plain Unicode for RIS and plain-text uses: math as Unicode where every token maps, else
    `$tex$` verbatim; no LaTeX text commands ever appear."""
    raise NotImplementedError
