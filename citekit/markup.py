"""Rich text <-> CSL's HTML-like markup, and rich text -> plain Unicode (RIS, keys, matching).

CSL loses math: it becomes Unicode where every token maps (`$μ$P` -> `μP`), else its TeX stays
verbatim between `$` signs; Raw LaTeX becomes its TeX as text. May import: model, mathmap.
Must not import formats, cli.
"""

from __future__ import annotations

import re

from .mathmap import math_pieces
from .model import Math, Node, Span, Text, make_text

_CSL_OPEN: dict[str, str] = {
    "i": "<i>", "b": "<b>", "sup": "<sup>", "sub": "<sub>",
    "sc": '<span style="font-variant:small-caps;">', "nocase": '<span class="nocase">',
}  # fmt: skip
_CSL_CLOSE: dict[str, str] = {
    "i": "</i>", "b": "</b>", "sup": "</sup>", "sub": "</sub>", "sc": "</span>",
    "nocase": "</span>",
}  # fmt: skip
# CSL-JSON rich text has no escapes: citeproc-js (Zotero, Mendeley) and citeproc-py print
# `&amp;` as those five characters, so text goes out as it is. The price, stated as CSL's loss
# in docs/mapping.md: text that spells one of the subset's own tags reads back as markup.


# ---------------------------------------------------------------------------------------------
# Math
# ---------------------------------------------------------------------------------------------


def _math_csl(math: Math) -> str:
    pieces = math_pieces(math.tex)
    if pieces is None:
        return f"${math.tex}$"
    out = []
    for kind, text in pieces:
        out.append(text if kind == "text" else f"<{kind}>{text}</{kind}>")
    return "".join(out)


def _math_unicode(math: Math) -> str:
    pieces = math_pieces(math.tex)
    if pieces is None or any(kind != "text" for kind, _ in pieces):
        return f"${math.tex}$"
    return "".join(text for _, text in pieces)


# ---------------------------------------------------------------------------------------------
# To CSL and to Unicode
# ---------------------------------------------------------------------------------------------


def to_csl(text: Text) -> str:
    """Render as CSL-JSON rich text: <i>, <b>, <sup>, <sub>, <span class="nocase">, small caps."""
    if isinstance(text, str):
        return text
    return "".join(_csl_node(node) for node in text.nodes)


def _csl_node(node: Node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, Span):
        inner = "".join(_csl_node(child) for child in node.children)
        return _CSL_OPEN[node.kind] + inner + _CSL_CLOSE[node.kind]
    if isinstance(node, Math):
        return _math_csl(node)
    return node.tex


def to_unicode(text: Text) -> str:
    """Plain Unicode for RIS and plain-text uses: math as Unicode where every token maps, else
    `$tex$` verbatim; no LaTeX text commands ever appear."""
    if isinstance(text, str):
        return text
    return "".join(_unicode_node(node) for node in text.nodes)


def _unicode_node(node: Node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, Span):
        return "".join(_unicode_node(child) for child in node.children)
    if isinstance(node, Math):
        return _math_unicode(node)
    return node.tex


# ---------------------------------------------------------------------------------------------
# From CSL
# ---------------------------------------------------------------------------------------------

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[^<>]*?)?)\s*(/?)>")
_SIMPLE_TAGS: dict[str, str] = {
    "i": "i", "em": "i", "b": "b", "strong": "b", "sup": "sup", "sub": "sub", "sc": "sc",
}  # fmt: skip
_CLASS_NOCASE = re.compile(r"""class\s*=\s*(["'])[^"']*\bnocase\b[^"']*\1""")
_SMALL_CAPS = re.compile(r"""style\s*=\s*(["'])[^"']*font-variant\s*:\s*small-caps""")


class _Element:
    __slots__ = ("tag", "kind", "source", "children")

    def __init__(self, tag: str, kind: str | None, source: str) -> None:
        self.tag = tag
        self.kind = kind  # None: a span we do not map (kept as its content)
        self.source = source
        self.children: list[Node] = []


def _span_kind(tag: str, attributes: str) -> str | None:
    if tag in _SIMPLE_TAGS:
        return _SIMPLE_TAGS[tag]
    if tag == "span":
        if _CLASS_NOCASE.search(attributes):
            return "nocase"
        if _SMALL_CAPS.search(attributes):
            return "sc"
    return None


def from_csl(value: str) -> tuple[Text, tuple[str, ...]]:
    """Parse CSL-JSON rich text into citekit rich text; problems for markup we cannot map."""
    if "<" not in value:  # entities are text too: CSL processors print them as written
        return value, ()
    problems: list[str] = []
    root = _Element("", None, "")
    stack = [root]
    last = 0
    for match in _TAG.finditer(value):
        stack[-1].children.append(value[last : match.start()])
        last = match.end()
        closing, tag, attributes, self_closing = match.groups()
        tag = tag.lower()
        known = tag in _SIMPLE_TAGS or tag == "span"
        if closing and known:
            _close(stack, tag, match.group(), problems)
        elif known:
            if self_closing:
                continue
            kind = _span_kind(tag, attributes)
            if kind is None:
                problems.append(f"CSL markup {match.group()} has no citekit form; text kept")
            stack.append(_Element(tag, kind, match.group()))
        else:
            problems.append(f"unknown CSL markup {match.group()} kept as text")
            stack[-1].children.append(match.group())
    stack[-1].children.append(value[last:])
    while len(stack) > 1:
        element = stack.pop()
        problems.append(f"CSL markup {element.source} never closed; closed at the end")
        _attach(stack[-1], element)
    return make_text(_merge(root.children)), tuple(problems)


def _close(stack: list[_Element], tag: str, source: str, problems: list[str]) -> None:
    if not any(element.tag == tag for element in stack[1:]):
        problems.append(f"CSL closing tag {source} without an opening one kept as text")
        stack[-1].children.append(source)
        return
    while True:
        element = stack.pop()
        if element.tag != tag:
            problems.append(f"CSL markup {element.source} never closed; closed at {source}")
        _attach(stack[-1], element)
        if element.tag == tag:
            return


def _attach(parent: _Element, element: _Element) -> None:
    children = _merge(element.children)
    if element.kind is None:
        parent.children.extend(children)
        return
    if children:
        parent.children.append(Span(element.kind, tuple(children)))  # type: ignore[arg-type]


def _merge(nodes: list[Node]) -> list[Node]:
    text = make_text(nodes)
    if isinstance(text, str):
        return [text] if text else []
    return list(text.nodes)
