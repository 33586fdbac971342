"""A local arXiv API for the client tests: real HTTP on 127.0.0.1, no internet, no mocks.

The server replays the recorded responses in fixtures/ (keyed by `id_list`/`search_query`),
answers other id lists and title searches from the recorded entries (plus the invented decoys),
and plays scripted responses queued by a test (503 with Retry-After, 429 `Rate exceeded.`, slow
bodies, HTML pages, truncated feeds, an entity bomb, dropped connections). It logs every request
so tests assert the sequence the server saw. A fake clock and sleep keep tests from waiting.
"""

from __future__ import annotations

import json
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"
ATOM_NS = "http://www.w3.org/2005/Atom"
NS = {"a": ATOM_NS, "arxiv": "http://arxiv.org/schemas/atom"}
FEED_HEAD = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
)
# the server's own id check, independent of citekit's (so it can catch citekit's mistakes)
SERVER_ID_RE = re.compile(r"\A(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\Z")


@dataclass
class Scripted:
    """One scripted answer: status, body, headers; `delay` seconds before the body;
    `drop` closes the connection without answering."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False


@dataclass
class Seen:
    path: str
    params: dict[str, str]
    user_agent: str
    client_port: int


class FakeClock:
    """Monotonic time that only moves when the client sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _recorded_key(url: str) -> tuple[str, str]:
    query = url.split("?", 1)[1].split("  ", 1)[0]
    params = dict(parse_qsl(query, keep_blank_values=True))
    if "search_query" not in params and "id_list" not in params:  # legacy, reconstructed
        params = {k: unquote_plus(v) for k, v in (p.split("=", 1) for p in query.split("&"))}
    return params.get("id_list", ""), params.get("search_query", "")


def _entry_xml(entry: ET.Element) -> str:
    return ET.tostring(entry, encoding="unicode")


class Corpus:
    """Every recorded (and invented) <entry>, searchable like arXiv's `ti:`/`au:`/`all:`."""

    def __init__(self, files: list[Path]) -> None:
        ET.register_namespace("", ATOM_NS)
        ET.register_namespace("arxiv", NS["arxiv"])
        ET.register_namespace("opensearch", "http://a9.com/-/spec/opensearch/1.1/")
        self.entries: dict[str, ET.Element] = {}  # versioned id -> entry
        for path in files:
            root = ET.fromstring(path.read_bytes())
            for entry in root.findall("a:entry", NS):
                entry_id = entry.findtext("a:id", "", NS).strip()
                if "/abs/" in entry_id:
                    self.entries.setdefault(entry_id.split("/abs/", 1)[1], entry)

    def by_id(self, wanted: str) -> ET.Element | None:
        if re.search(r"v\d+\Z", wanted):
            return self.entries.get(wanted)
        versions = [k for k in self.entries if re.sub(r"v\d+\Z", "", k) == wanted]
        return (
            self.entries[max(versions, key=lambda k: int(k.rsplit("v", 1)[1]))]
            if versions
            else None
        )

    def search(self, query: str) -> list[ET.Element]:
        predicate = _parse_query(query)
        return [e for e in self.entries.values() if predicate(e)]


def _words(text: str) -> list[str]:
    return re.sub(r"[^0-9a-z]+", " ", text.lower()).split()


def _has_phrase(text: str, phrase: str) -> bool:
    hay, needle = _words(text), _words(phrase)
    return bool(needle) and any(hay[i : i + len(needle)] == needle for i in range(len(hay)))


def _term(field_name: str, value: str) -> Callable[[ET.Element], bool]:
    def title(e: ET.Element) -> str:
        return e.findtext("a:title", "", NS)

    def authors(e: ET.Element) -> list[str]:
        return [a.findtext("a:name", "", NS) for a in e.findall("a:author", NS)]

    if field_name == "ti":
        return lambda e: _has_phrase(title(e), value)
    if field_name == "au":
        surname = value.replace("_", " ")
        return lambda e: any(_has_phrase(n, surname) for n in authors(e))
    return lambda e: _has_phrase(
        " ".join([title(e), e.findtext("a:summary", "", NS), *authors(e)]), value
    )


_TOKEN_RE = re.compile(r'\(|\)|ANDNOT|AND|OR|(\w+):"([^"]*)"|(\w+):([^\s()]+)|([^\s()]+)')


def _parse_query(query: str) -> Callable[[ET.Element], bool]:
    """A small recursive-descent reading of arXiv's boolean query grammar."""
    tokens = [m for m in _TOKEN_RE.finditer(query)]
    pos = 0

    def atom() -> Callable[[ET.Element], bool]:
        nonlocal pos
        m = tokens[pos]
        pos += 1
        if m.group(0) == "(":
            inner = expr()
            pos += 1  # ")"
            return inner
        if m.group(1):
            return _term(m.group(1), m.group(2))
        if m.group(3):
            return _term(m.group(3), m.group(4))
        return _term("all", m.group(5))

    def expr() -> Callable[[ET.Element], bool]:
        nonlocal pos
        left = atom()
        while pos < len(tokens) and tokens[pos].group(0) in ("AND", "OR", "ANDNOT"):
            op = tokens[pos].group(0)
            pos += 1
            right = atom()
            left = _combine(op, left, right)
        return left

    return expr()


def _combine(
    op: str, a: Callable[[ET.Element], bool], b: Callable[[ET.Element], bool]
) -> Callable[[ET.Element], bool]:
    if op == "AND":
        return lambda e: a(e) and b(e)
    if op == "OR":
        return lambda e: a(e) or b(e)
    return lambda e: a(e) and not b(e)


def build_feed(entries: list[ET.Element], total: int | None = None, title: str = "q") -> bytes:
    body = [
        FEED_HEAD,
        f"  <id>https://arxiv.org/api/local</id>\n  <title>{title}</title>\n",
        "  <updated>2026-04-12T22:10:19Z</updated>\n",
        f"  <opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>\n",
        f"  <opensearch:totalResults>{len(entries) if total is None else total}"
        "</opensearch:totalResults>\n  <opensearch:startIndex>0</opensearch:startIndex>\n",
    ]
    body += [_entry_xml(e) for e in entries]
    body.append("</feed>\n")
    return "".join(body).encode("utf-8")


def error_feed(slug: str, message: str) -> bytes:
    return (
        FEED_HEAD + "  <id>https://arxiv.org/</id>\n  <title>arXiv Search Results</title>\n"
        "  <opensearch:totalResults>1</opensearch:totalResults>\n  <entry>\n"
        f"    <id>https://arxiv.org/api/errors#{slug}</id>\n    <title>Error</title>\n"
        f"    <summary>{message}</summary>\n"
        "    <author><name>arXiv api core</name></author>\n  </entry>\n</feed>\n"
    ).encode()


class LocalArxiv:
    """The server's state: recorded answers, the corpus, the script queue and the request log."""

    def __init__(self) -> None:
        index = json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))
        self.recorded: dict[tuple[str, str], tuple[str, int]] = {}
        for name, meta in index.items():
            self.recorded[_recorded_key(meta["request_url"])] = (name, meta["http_status"])
        self.all_recorded = set(index)
        self.used: set[str] = set()
        self.corpus = Corpus(sorted(FIXTURES.glob("*.xml")))
        self.script: list[Scripted] = []
        self.refuse: set[str] = set()  # well-formed ids this server answers with HTTP 400
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
        self.url = ""

    def reset(self) -> None:
        with self.lock:
            self.script.clear()
            self.requests.clear()
            self.refuse.clear()

    def queue(self, *answers: Scripted) -> None:
        with self.lock:
            self.script.extend(answers)

    def answer(self, params: dict[str, str]) -> Scripted:
        with self.lock:
            if self.script:
                return self.script.pop(0)
        id_list, search = params.get("id_list", ""), params.get("search_query", "")
        recorded = self.recorded.get((id_list, search))
        if recorded is not None and not self.refuse.intersection(id_list.split(",")):
            name, status = recorded
            with self.lock:
                self.used.add(name)
            return Scripted(
                status,
                (FIXTURES / name).read_bytes(),
                {"Content-Type": "application/atom+xml; charset=utf-8"},
            )
        return self._compute(id_list, search, params)

    def _compute(self, id_list: str, search: str, params: dict[str, str]) -> Scripted:
        atom = {"Content-Type": "application/atom+xml; charset=utf-8"}
        start = int(params.get("start", "0") or 0)
        limit = int(params.get("max_results", "10") or 10)
        if id_list:
            ids = id_list.split(",")
            bad = [i for i in ids if not SERVER_ID_RE.match(i) or i in self.refuse]
            if bad:
                slug = "incorrect_id_format_for_" + bad[0].replace("/", "_")
                return Scripted(400, error_feed(slug, f"incorrect id format for {bad[0]}"), atom)
            found = [e for e in (self.corpus.by_id(i) for i in ids) if e is not None]
            found.reverse()  # arXiv does not answer in id_list order (S13): neither do we
            return Scripted(200, build_feed(found[start : start + limit], len(found)), atom)
        hits = self.corpus.search(search)
        return Scripted(200, build_feed(hits[start : start + limit], len(hits), search), atom)


def _handler(state: LocalArxiv) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the client should reuse one connection

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            params = dict(parse_qsl(parts.query, keep_blank_values=True))
            with state.lock:
                state.requests.append(
                    Seen(
                        parts.path,
                        params,
                        self.headers.get("User-Agent", ""),
                        self.client_address[1],
                    )
                )
            reply = state.answer(params)
            if reply.drop:
                self.close_connection = True
                return
            if reply.delay:
                time.sleep(reply.delay)  # the server is slow, not the test: the client times out
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler
