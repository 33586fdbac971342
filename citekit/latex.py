"""LaTeX <-> citekit rich text for field values (stub: contract only; being implemented).

May import: model, pylatexenc. Must not import formats, keys, names, cli.
"""

from __future__ import annotations

from typing import NamedTuple

from .model import Text
from .options import Protect


class Decoded(NamedTuple):
    text: Text
    problems: tuple[str, ...]  # human messages, e.g. "unknown command \\foo kept verbatim"


def decode(latex: str) -> Decoded:
    """Decode a BibTeX field value body (outer delimiters already removed) into rich text."""
    raise NotImplementedError


def decode_plain(latex: str) -> str:
    """Decode to plain Unicode (braces dropped, markup flattened); for names and keys."""
    raise NotImplementedError


def encode(text: Text, *, ascii: bool) -> tuple[str, tuple[str, ...]]:
    """Rich text -> BibTeX value body (without outer braces) and problems."""
    raise NotImplementedError


def protect_case(text: Text, mode: Protect) -> Text:
    """Add `nocase` spans to a title that carries no case protection (RIS/CSL input)."""
    raise NotImplementedError
