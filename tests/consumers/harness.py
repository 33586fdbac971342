"""Run the programs that consume citekit's output on TEXT and say what they thought of it.

Each `compile_*`/`validate_*`/`render_*`/`parse_*` function takes the text citekit wrote, runs
one real consumer (pdflatex+bibtex, lualatex+biber, biber --tool, the CSL schema, citeproc-py,
citeproc-js, rispy) in a fresh temporary directory under a time limit, and returns a
`ConsumerResult`: classified errors and warnings plus what the consumer rendered. The harness
imports no citekit code: it judges output whoever made it. Which warnings a test tolerates is
decided in policy.py, not here.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CSL_DIR = HERE / "csl"
CITEPROC_JS_SCRIPT = HERE / "citeproc_js_render.js"
CITEPROC_JS_VERSION = "2.4.63"  # pinned: expected strings in the tests come from this engine

LATEX_TIMEOUT = 240  # seconds for one TeX, bibtex or biber run (a 1,500-entry file takes ~30 s)
NODE_TIMEOUT = 300
PYTHON_TIMEOUT = 300
NPM_TIMEOUT = 600

# TeX wraps its log at 79 columns by default, which splits the messages we parse.
TEX_ENV = {"max_print_line": "100000", "error_line": "254", "half_error_line": "238"}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    """One error or warning from a consumer, classified so a test can decide about it.

    `code` is the harness's classification (`empty-field`, `unicode-char`, `invalid-date`, ...,
    `other` when no pattern matched); `key` is the entry the consumer named; `detail` is the
    field, character, macro or variable the message is about.
    """

    code: str
    text: str
    key: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ConsumerResult:
    tool: str
    errors: tuple[Message, ...] = ()
    warnings: tuple[Message, ...] = ()
    # entry keys (or CSL ids) the consumer typeset or read, in its order
    keys: tuple[str, ...] = ()
    # what it rendered: bibliography entries (.bbl items or citeproc strings)
    rendered: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()  # citeproc: one in-text citation per item, input order
    records: tuple[dict, ...] = ()  # rispy: the parsed records
    log: str = field(default="", repr=False)

    @property
    def ok(self) -> bool:
        return not self.errors

    def report(self, limit: int = 25) -> str:
        """A readable account for assertion messages: the messages, then the log's tail."""
        lines = [f"{self.tool}: {len(self.errors)} error(s), {len(self.warnings)} warning(s)"]
        for label, messages in (("error", self.errors), ("warning", self.warnings)):
            for m in messages[:limit]:
                lines.append(f"  {label} [{m.code}] {m.text}")
            if len(messages) > limit:
                lines.append(f"  ... {len(messages) - limit} more {label}s")
        if self.errors and self.log:
            lines.append("--- log tail ---")
            lines.extend(self.log.splitlines()[-40:])
        return "\n".join(lines)


class ConsumerMissing(RuntimeError):
    """A consumer program or module is not installed (tests skip locally, fail under CI)."""


# ---------------------------------------------------------------------------------------------
# Which consumers exist here
# ---------------------------------------------------------------------------------------------

_TEX_FILES_BIBTEX = ("plain.bst", "plainnat.bst", "natbib.sty", "url.sty", "lmodern.sty",
                     "t1enc.def", "amssymb.sty", "textcomp.sty")  # fmt: skip
_TEX_FILES_BIBLATEX = ("biblatex.sty", "amssymb.sty")


def missing_reason(tool: str) -> str | None:
    """Why consumer `tool` cannot run here, or None when it can."""
    checks = {
        "bibtex": lambda: _need_programs("pdflatex", "bibtex", "kpsewhich")
        or _need_tex_files(_TEX_FILES_BIBTEX),
        "biblatex": lambda: _need_programs("lualatex", "biber", "kpsewhich")
        or _need_tex_files(_TEX_FILES_BIBLATEX),
        "biblatex-pdflatex": lambda: _need_programs("pdflatex", "biber", "kpsewhich")
        or _need_tex_files(_TEX_FILES_BIBLATEX + ("lmodern.sty", "t1enc.def")),
        "biber": lambda: _need_programs("biber"),
        "csl-schema": lambda: _need_module("jsonschema") or _need_schema(),
        "citeproc-py": lambda: _need_module("citeproc"),
        "citeproc-js": _need_citeproc_js,
        "rispy": lambda: _need_module("rispy"),
    }
    if tool not in checks:
        raise ValueError(f"unknown consumer {tool!r}; known: {', '.join(checks)}")
    return checks[tool]()


def require(tool: str) -> None:
    """Skip the calling test when `tool` is missing; fail it instead when CI=true."""
    reason = missing_reason(tool)
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"consumer {tool} is required under CI=true but {reason}", pytrace=False)
    pytest.skip(f"consumer {tool} unavailable: {reason}")


def _need_programs(*names: str) -> str | None:
    missing = [n for n in names if shutil.which(n) is None]
    return f"program(s) not on PATH: {', '.join(missing)}" if missing else None


def _need_tex_files(names: tuple[str, ...]) -> str | None:
    found = subprocess.run(["kpsewhich", *names], capture_output=True, text=True, timeout=60)
    have = {Path(line).name for line in found.stdout.splitlines()}
    missing = [n for n in names if n not in have]
    return f"TeX file(s) not found by kpsewhich: {', '.join(missing)}" if missing else None


def _need_module(name: str) -> str | None:
    try:
        __import__(name)
    except ImportError as exc:
        return f"Python module {name} cannot be imported ({exc})"
    return None


def _need_schema() -> str | None:
    return None if csl_schema_path() else "the CSL-JSON schema (shared/schema) is not found"


def _need_citeproc_js() -> str | None:
    if shutil.which("node") is None:
        return "program not on PATH: node"
    try:
        citeproc_js_modules()
    except ConsumerMissing as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------------------------------
# Running things
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Run:
    returncode: int | None  # None: timed out
    output: str


def _run(argv: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None,
         stdin: str | None = None) -> _Run:  # fmt: skip
    full_env = {**os.environ, **(env or {})}
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=full_env, input=stdin if stdin is not None else "",
            capture_output=True, timeout=timeout, text=True, encoding="utf-8", errors="replace",
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        if isinstance(out, bytes):
            out = out.decode("utf-8", "replace")
        return _Run(None, out)
    except FileNotFoundError as exc:
        raise ConsumerMissing(str(exc)) from exc
    return _Run(done.returncode, done.stdout + done.stderr)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


@contextlib.contextmanager
def _workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="citekit-consumer-") as tmp:
        yield Path(tmp)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the main thread after `seconds` (for in-process consumers)."""

    def expire(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"consumer did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _timeout_message(step: str, seconds: float) -> Message:
    return Message("timeout", f"{step} did not finish within {seconds:g} s")


# ---------------------------------------------------------------------------------------------
# BibTeX: pdflatex + bibtex + pdflatex on a \nocite{*} document
# ---------------------------------------------------------------------------------------------

NATBIB_STYLES = frozenset({"plainnat", "abbrvnat", "unsrtnat"})

# What a careful author's preamble holds: T1 fonts for accented Latin, AMS symbols for math in
# titles, `url` for URLs with _ and %. Nothing that would hide a defect in the .bib.
_BIBTEX_DOC = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage{textcomp}
\usepackage{amsmath,amssymb}
\usepackage{url}
%(natbib)s
\begin{document}
\nocite{*}
\bibliographystyle{%(style)s}
\bibliography{refs}
\end{document}
"""


def compile_bibtex(bib_text: str, style: str = "plain", *, placeholders: Iterable[str] = (),
                   timeout: float = LATEX_TIMEOUT) -> ConsumerResult:  # fmt: skip
    """Typeset every entry of `bib_text` with classic BibTeX and `style` (plain, plainnat...).

    Errors: bibtex's error messages (.blg), every LaTeX error of the final pdflatex run (which
    reads the .bbl) and any timeout. Warnings: bibtex's `Warning--` lines, classified.
    `keys` are the \\bibitem keys of the .bbl; `rendered` its items.

    `placeholders`: characters pdflatex has no glyph for that the document declares as a
    placeholder box, for characters citekit kept as UTF-8 and warned about; otherwise a title
    in Cyrillic stops pdflatex at its 100-error limit before the rest is checked.
    """
    if missing := _need_programs("pdflatex", "bibtex"):
        raise ConsumerMissing(missing)
    tool = f"bibtex/{style}"
    natbib = r"\usepackage{natbib}" if style in NATBIB_STYLES else ""
    natbib += "".join(f"\n\\DeclareUnicodeCharacter{{{ord(c):04X}}}{{\\fbox{{?}}}}"
                      for c in sorted(set(placeholders)) if ord(c) > 127)
    with _workdir() as tmp:
        (tmp / "refs.bib").write_text(bib_text, encoding="utf-8")
        (tmp / "main.tex").write_text(_BIBTEX_DOC % {"natbib": natbib, "style": style},
                                      encoding="utf-8")
        # nonstopmode without -halt-on-error: keep going, so every error is reported
        latex = ["pdflatex", "-interaction=nonstopmode", "-file-line-error", "main.tex"]
        first = _run(latex, tmp, timeout, TEX_ENV)
        if first.returncode is None:
            return ConsumerResult(tool, (_timeout_message("pdflatex (first run)", timeout),),
                                  log=_read(tmp / "main.log"))
        bibtex = _run(["bibtex", "main"], tmp, timeout, TEX_ENV)
        blg = _read(tmp / "main.blg")
        errors, warns = parse_blg(blg)
        if bibtex.returncode is None:
            errors.append(_timeout_message("bibtex", timeout))
        elif bibtex.returncode >= 2 and not errors:
            errors.append(Message("bibtex-exit", f"bibtex exited {bibtex.returncode}"))
        second = _run(latex, tmp, timeout, TEX_ENV)
        log = _read(tmp / "main.log")
        if second.returncode is None:
            errors.append(_timeout_message("pdflatex (second run)", timeout))
        tex_errors, tex_warnings = parse_tex_log(log)
        errors.extend(tex_errors)
        if second.returncode not in (0, None) and not tex_errors:
            errors.append(Message("latex-exit", f"pdflatex exited {second.returncode}"))
        bbl = _read(tmp / "main.bbl")
        items = bbl_bibitems(bbl)
        return ConsumerResult(
            tool, tuple(errors), tuple(warns + tex_warnings),
            keys=tuple(k for k, _ in items), rendered=tuple(t for _, t in items),
            log=log + "\n" + blg,
        )  # fmt: skip


_BLG_SUMMARY_ERRORS = re.compile(r"^\(There (?:was 1 error message|were (\d+) error messages)\)",
                                 re.M)  # fmt: skip
_BLG_FATAL = re.compile(r"^\(That was a fatal error\)", re.M)
_BLG_ERROR_START = re.compile(
    r"---line \d+ of file|^I couldn't open|^Sorry---|^This can't happen|^Illegal, |"
    r"^Too many commas|^I was expecting|^You're missing|^Repeated entry|^I'm skipping|"
    r"^A bad cross reference|^I found no "
)
_BLG_CONTINUATION = (" : ", ":", "I'm skipping", "while executing", "refers to entry")
_BLG_BAD_CROSSREF = re.compile(r'entry "(.+?)" \| refers to entry "(.+?)"')
_BLG_WARNINGS = [
    (re.compile(r"^Warning--empty (.+) in (\S+)$"), "empty-field"),
    (re.compile(r"^Warning--can't use both (.+) fields in (\S+)$"), "both-fields"),
    (re.compile(r"^Warning--there's a number but no series in (\S+)$"), "number-without-series"),
    (re.compile(r"^Warning--there's a number but no volume in (\S+)$"), "number-without-volume"),
    (re.compile(r"^Warning--to sort, need (.+) in (\S+)$"), "sort-key-missing"),
    (re.compile(r"^Warning--I didn't find a database entry for \"(.+)\"$"), "missing-entry"),
    (re.compile(r"^Warning--string name \"(.+)\" is undefined$"), "undefined-macro"),
    (re.compile(r"^Warning--entry type for \"(.+)\" isn't style-file defined$"), "unknown-type"),
    (re.compile(r"^Warning--I'm ignoring (\S+)'s extra \"(.+)\" field$"), "duplicate-field"),
    (re.compile(r"^Warning--page numbers missing in both pages and chapter fields in (\S+)$"),
     "empty-field"),
    (re.compile(r"^Warning--you've nested cross references--entry \"(.+)\"$"), "nested-crossref"),
    (re.compile(r"^Warning--empty (.+) in (\S+)'s crossref of (\S+)$"), "empty-field"),
    (re.compile(r"^Warning--need (.+) for (\S+) to crossref (\S+)$"), "empty-field"),
]  # fmt: skip


def parse_blg(blg: str) -> tuple[list[Message], list[Message]]:
    """bibtex's errors and warnings from its .blg, cross-checked with its own closing counts."""
    errors: list[Message] = []
    warns: list[Message] = []
    lines = blg.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Warning--"):
            text = line
            if i + 1 < len(lines) and lines[i + 1].startswith("--line "):
                text += " " + lines[i + 1]
                i += 1
            warns.append(_classify_blg_warning(line, text))
        elif _BLG_ERROR_START.search(line) and not line.startswith("--line "):
            block = [line]
            while i + 1 < len(lines) and lines[i + 1].startswith(_BLG_CONTINUATION):
                block.append(lines[i + 1])
                i += 1
            text = " | ".join(block)
            if crossref := _BLG_BAD_CROSSREF.search(text):
                errors.append(Message("bad-crossref", text, key=crossref.group(1),
                                      detail=crossref.group(2)))
            elif not line.startswith("I'm skipping"):
                errors.append(Message("bibtex-error", text))
        i += 1
    summary = _BLG_SUMMARY_ERRORS.search(blg)
    if summary:
        stated = int(summary.group(1) or 1)
        if stated > len(errors):  # never report fewer errors than bibtex itself counted
            errors.append(Message("bibtex-error", f"bibtex counted {stated} error messages; "
                                  f"only {len(errors)} were recognised in the .blg"))
    if _BLG_FATAL.search(blg):
        errors.append(Message("bibtex-fatal", "bibtex stopped on a fatal error"))
    return errors, warns


def _classify_blg_warning(line: str, text: str) -> Message:
    for pattern, code in _BLG_WARNINGS:
        m = pattern.match(line)
        if not m:
            continue
        groups = m.groups()
        if code in ("missing-entry", "undefined-macro"):
            return Message(code, text, detail=groups[0])
        if code == "nested-crossref":  # bibtex names the parent whose own crossref is nested
            return Message(code, text, detail=groups[0])
        if len(groups) == 3:  # "empty volume in child's crossref of parent"
            return Message(code, text, key=groups[1], detail=groups[0])
        if code == "unknown-type":  # bibtex names the entry's key, not its type
            return Message(code, text, key=groups[0])
        if code == "duplicate-field":
            return Message(code, text, key=groups[0], detail=groups[1])
        if code == "empty-field" and len(groups) == 1:
            return Message(code, text, key=groups[0], detail="chapter and pages")
        if len(groups) == 1:
            return Message(code, text, key=groups[0])
        return Message(code, text, key=groups[1], detail=groups[0])
    return Message("other", text)


def bbl_bibitems(bbl: str) -> list[tuple[str, str]]:
    """(key, item text) for each \\bibitem of a classic .bbl (plain or natbib form)."""
    items: list[tuple[str, str]] = []
    starts = [m.start() for m in re.finditer(r"\\bibitem\b", bbl)]
    for n, start in enumerate(starts):
        pos = start + len(r"\bibitem")
        if bbl.startswith("[", pos):  # natbib's optional label, with nested braces
            pos = _skip_group(bbl, pos, "[", "]")
        while pos < len(bbl) and bbl[pos] in " \n":
            pos += 1
        end = _skip_group(bbl, pos, "{", "}")
        key = bbl[pos + 1:end - 1]
        stop = starts[n + 1] if n + 1 < len(starts) else bbl.find(r"\end{thebibliography}")
        items.append((key, bbl[end:stop].strip()))
    return items


def _skip_group(text: str, pos: int, open_: str, close: str) -> int:
    """Index just past the group opening at `pos`, counting braces inside it."""
    depth = 0
    brace = 0
    i = pos
    while i < len(text):
        c = text[i]
        if c == "{" and open_ != "{":
            brace += 1
        elif c == "}" and open_ != "{":
            brace -= 1
        elif c == open_ and brace == 0:
            depth += 1
        elif c == close and brace == 0:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


# ---------------------------------------------------------------------------------------------
# TeX logs
# ---------------------------------------------------------------------------------------------

_TEX_FILE_LINE_ERROR = re.compile(r"^(\.?/?[^:\s]+):(\d+): (.*)$")
_TEX_UNICODE = re.compile(r"Unicode character (.) \(U\+([0-9A-F]+)\)")
_TEX_UNDEFINED_CS = re.compile(r"(\\[A-Za-z@]+|\\.)\s*$")
_TEX_MISSING_GLYPH = re.compile(r"^Missing character: There is no (.+?) (?:\(U\+([0-9A-F]+)\) )?"
                                r"in font (.+?)!")  # fmt: skip
_TEX_WARNING = re.compile(r"^((?:LaTeX|Package|Class) ?(\S*) Warning): (.*)$")


def parse_tex_log(log: str) -> tuple[list[Message], list[Message]]:
    """Errors (file:line form, from -file-line-error, or `! ...`) and warnings of a TeX run."""
    errors: list[Message] = []
    warns: list[Message] = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = _TEX_FILE_LINE_ERROR.match(line)
        if m and not line.startswith(("(", "l.")):
            where, text = f"{m.group(1)}:{m.group(2)}", m.group(3)
            errors.append(_classify_tex_error(text, lines[i + 1:i + 8], where))
        elif line.startswith("! ") and not any(
            _TEX_FILE_LINE_ERROR.match(prev) for prev in lines[max(0, i - 1):i]
        ):
            errors.append(_classify_tex_error(line[2:], lines[i + 1:i + 8], ""))
        elif g := _TEX_MISSING_GLYPH.match(line):
            warns.append(Message("missing-glyph", line, detail=g.group(1)))
        elif w := _TEX_WARNING.match(line):
            text = line
            for cont in lines[i + 1:i + 6]:
                if not cont.startswith("(") or not cont.strip():
                    break
                text += " " + cont.split(")", 1)[-1].strip()
            warns.append(Message("latex-warning", text, detail=w.group(2)))
    return errors, warns


def _classify_tex_error(text: str, following: list[str], where: str) -> Message:
    # TeX shows the input read so far; its first line ends where the error struck (for an
    # undefined command: with that command), and the `l.N` line gives the source line.
    top = following[0].rstrip() if following else ""
    context = next((line for line in following if line.startswith("l.")), "")
    full = f"{where}: {text}" if where else text
    if top and top != context:
        full += f" [{top.strip()}]"
    if context:
        full += f" [{context}]"
    if u := _TEX_UNICODE.search(" ".join([text, *following[:2]])):
        return Message("unicode-char", full, detail=u.group(1))
    if "Undefined control sequence" in text:
        cs = _TEX_UNDEFINED_CS.search(top)
        return Message("undefined-command", full, detail=cs.group(1) if cs else "")
    if "Fatal error" in text or "Emergency stop" in text:
        return Message("fatal", full)
    return Message("latex-error", full)


# ---------------------------------------------------------------------------------------------
# BibLaTeX: lualatex (or pdflatex) + biber + lualatex; biber --tool
# ---------------------------------------------------------------------------------------------

_BIBLATEX_DOC = r"""\documentclass{article}
%(fonts)s
\usepackage{amsmath,amssymb}
\usepackage[backend=biber,style=%(style)s]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\nocite{*}
\printbibliography
\end{document}
"""
_PDFLATEX_FONTS = "\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{lmodern}"


def compile_biblatex(bib_text: str, engine: str = "lualatex", *, style: str = "authoryear",
                     timeout: float = LATEX_TIMEOUT) -> ConsumerResult:  # fmt: skip
    """Typeset every entry of `bib_text` with biblatex, biber and `engine`.

    Errors: biber's ERROR lines, every LaTeX error of the final run, timeouts. Warnings: biber's
    WARN lines (classified) and the LaTeX warnings. `keys` are the \\entry keys of the .bbl.
    """
    if missing := _need_programs(engine, "biber"):
        raise ConsumerMissing(missing)
    tool = f"biblatex/{engine}"
    fonts = _PDFLATEX_FONTS if engine == "pdflatex" else ""
    with _workdir() as tmp:
        (tmp / "refs.bib").write_text(bib_text, encoding="utf-8")
        (tmp / "main.tex").write_text(_BIBLATEX_DOC % {"fonts": fonts, "style": style},
                                      encoding="utf-8")
        latex = [engine, "-interaction=nonstopmode", "-file-line-error", "main.tex"]
        first = _run(latex, tmp, timeout, TEX_ENV)
        if first.returncode is None:
            return ConsumerResult(tool, (_timeout_message(f"{engine} (first run)", timeout),),
                                  log=_read(tmp / "main.log"))
        biber = _run(["biber", "main"], tmp, timeout)
        errors, warns = parse_biber(biber.output)
        if biber.returncode is None:
            errors.append(_timeout_message("biber", timeout))
        elif biber.returncode != 0 and not errors:
            errors.append(Message("biber-exit", f"biber exited {biber.returncode}"))
        second = _run(latex, tmp, timeout, TEX_ENV)
        log = _read(tmp / "main.log")
        if second.returncode is None:
            errors.append(_timeout_message(f"{engine} (second run)", timeout))
        tex_errors, tex_warnings = parse_tex_log(log)
        errors.extend(tex_errors)
        if second.returncode not in (0, None) and not tex_errors:
            errors.append(Message("latex-exit", f"{engine} exited {second.returncode}"))
        bbl = _read(tmp / "main.bbl")
        keys = tuple(re.findall(r"^\s*\\entry\{([^}]*)\}", bbl, re.M))
        return ConsumerResult(tool, tuple(errors), tuple(warns + tex_warnings), keys=keys,
                              log=biber.output + "\n" + log)


def biber_tool(bib_text: str, *, validate: bool = True,
               timeout: float = LATEX_TIMEOUT) -> ConsumerResult:  # fmt: skip
    """`biber --tool` (with `--validate-datamodel`): biber reads and rewrites the file alone.

    Errors are biber's ERROR lines; warnings its WARN lines, classified. `keys` are the entries
    in biber's rewritten file, so an entry biber skipped shows up as missing.
    """
    if missing := _need_programs("biber"):
        raise ConsumerMissing(missing)
    with _workdir() as tmp:
        (tmp / "refs.bib").write_text(bib_text, encoding="utf-8")
        argv = ["biber", "--tool", "--output-file=out.bib"]
        if validate:
            argv.append("--validate-datamodel")
        run = _run([*argv, "refs.bib"], tmp, timeout)
        errors, warns = parse_biber(run.output)
        if run.returncode is None:
            errors.append(_timeout_message("biber --tool", timeout))
        elif run.returncode != 0 and not errors:
            errors.append(Message("biber-exit", f"biber --tool exited {run.returncode}"))
        out = _read(tmp / "out.bib")
        keys = tuple(re.findall(r"^@\w+\{(.*),\s*$", out, re.M))
        return ConsumerResult("biber-tool", tuple(errors), tuple(warns), keys=keys,
                              log=run.output)


_BIBER_LINE = re.compile(r"^(?:\[\d+\] [^>]*> )?(WARN|ERROR) - (.*)$")
_BIBER_WARNINGS = [
    (re.compile(r"Entry '(.+?)' \(.*?\): Missing mandatory field - one of '(.+?)' must be "
                r"defined"), "missing-mandatory"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Missing mandatory field '(.+?)'"), "missing-mandatory"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Field '(.+?)' invalid in data model"), "invalid-field"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Invalid field '(.+?)' for entrytype"),
     "field-not-for-type"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Invalid value of field '(.+?)'"), "invalid-value"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Invalid format '.*' of date field '(.+?)'"),
     "invalid-date"),
    (re.compile(r"I didn't find a database entry for (?:crossref|xref|xdata|related) "
                r"(?:entry )?'(.+?)' in entry '(.+?)'"), "missing-entry"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Invalid (ISSN|ISBN|ISMN)"), "invalid-identifier"),
    (re.compile(r"(ISBN|ISSN|ISMN) '.*' in entry '(.+?)' is invalid"), "invalid-identifier"),
    (re.compile(r"Entry '(.+?)' \(.*?\): Invalid entry type '(.+?)'"), "invalid-type"),
    (re.compile(r"Entry alias '(.+?)' is identical to the entry key"), "alias-is-key"),
    (re.compile(r"Duplicate entry key '(.+?)'"), "duplicate-key"),
    (re.compile(r"Overwriting field '(.+?)' with year value from field '(.+?)' for entry "
                r"'(.+?)'"), "overwritten-field"),
    (re.compile(r"Name \"(.+?)\" has too many commas"), "bad-name"),
    (re.compile(r"legacy (?:year|month) field '.*' in entry '(.+?)' is not an integer"),
     "legacy-date"),
    (re.compile(r"Entry '(.+?)' has XDATA reference from field '(.+?)' that contains no source "
                r"field"), "xdata-no-source"),
    (re.compile(r"Field '(.+?)' is no longer needed in set (?:member )?entries in Biber - "
                r"ignoring in entry '(.+?)'"), "set-field"),
    (re.compile(r"^BibTeX subsystem: .*?(\d+ characters of junk seen at toplevel)"), "junk-text"),
    (re.compile(r"^BibTeX subsystem: (.*)"), "btparse"),
]  # fmt: skip


def parse_biber(output: str) -> tuple[list[Message], list[Message]]:
    """biber's ERROR lines (all errors) and WARN lines (classified warnings)."""
    errors: list[Message] = []
    warns: list[Message] = []
    seen: set[str] = set()
    for line in output.splitlines():
        m = _BIBER_LINE.match(line.strip())
        if not m or m.group(2) in seen:  # biber repeats some lines in its log and on stdout
            continue
        seen.add(m.group(2))
        level, text = m.groups()
        if level == "ERROR":
            errors.append(Message("biber-error", text))
        else:
            warns.append(_classify_biber_warning(text))
    return errors, warns


def _classify_biber_warning(text: str) -> Message:
    for pattern, code in _BIBER_WARNINGS:
        m = pattern.search(text)
        if not m:
            continue
        g = m.groups()
        if code == "missing-entry":
            return Message(code, text, key=g[1], detail=g[0])
        if code == "overwritten-field":
            return Message(code, text, key=g[2], detail=g[0])
        if code == "invalid-identifier" and g[0] in ("ISBN", "ISSN", "ISMN"):
            return Message(code, text, key=g[1], detail=g[0].lower())
        if code == "invalid-identifier":
            return Message(code, text, key=g[0], detail=g[1].lower())
        if code == "alias-is-key":
            return Message(code, text, key=g[0], detail=g[0])
        if code in ("duplicate-key", "bad-name", "btparse", "junk-text"):
            return Message(code, text, detail=g[0])
        if code == "legacy-date":
            return Message(code, text, key=g[0])
        if code == "set-field":
            return Message(code, text, key=g[1], detail=g[0])
        return Message(code, text, key=g[0], detail=g[1])
    return Message("other", text)


# ---------------------------------------------------------------------------------------------
# CSL-JSON: schema, citeproc-py, citeproc-js
# ---------------------------------------------------------------------------------------------


def csl_schema_path() -> Path | None:
    """The shared CSL-JSON schema: `CITEKIT_CSL_SCHEMA`, else shared/ beside the checkout."""
    candidates = [os.environ.get("CITEKIT_CSL_SCHEMA", ""),
                  str(REPO.parent / "shared" / "schema" / "csl-data.json"),
                  "/work/shared/schema/csl-data.json"]  # fmt: skip
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def validate_csl(json_text: str) -> ConsumerResult:
    """Validate a CSL-JSON document against the shared csl-data.json schema (draft 7)."""
    import jsonschema

    schema_path = csl_schema_path()
    if schema_path is None:
        raise ConsumerMissing("the CSL-JSON schema is not found")
    try:
        data = json.loads(json_text)
    except json.JSONDecodeError as exc:
        return ConsumerResult("csl-schema", (Message("json", f"not JSON: {exc}"),))
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    errors = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        path = list(err.absolute_path)
        key = ""
        if path and isinstance(path[0], int) and isinstance(data, list):
            key = str(data[path[0]].get("id", "")) if isinstance(data[path[0]], dict) else ""
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "(root)"
        errors.append(Message("schema", f"{where}: {err.message}", key=key,
                              detail=".".join(str(p) for p in path[1:])))
    ids = tuple(str(item.get("id", "")) for item in data if isinstance(item, dict)) \
        if isinstance(data, list) else ()
    return ConsumerResult("csl-schema", tuple(errors), keys=ids)


def csl_style_path(style: str) -> Path:
    """A style shipped with the tests by name (`apa`, `ieee`), or a path to a .csl file."""
    shipped = CSL_DIR / f"{style}.csl"
    return shipped if shipped.is_file() else Path(style)


def render_citeproc_py(json_text: str, style: str = "apa", *,
                       timeout: float = PYTHON_TIMEOUT) -> ConsumerResult:  # fmt: skip
    """Render every item with citeproc-py: one citation each, then the bibliography.

    When the whole document fails, each item is rendered alone so the errors name the items
    that fail (code `exception`, detail `ExceptionType@function` where citeproc raised).
    Python warnings citeproc-py emits become warnings (`unsupported-variable` for CSL
    variables it does not know).
    """
    try:
        import citeproc
    except ImportError as exc:
        raise ConsumerMissing(f"citeproc-py: {exc}") from exc
    tool = f"citeproc-py/{Path(style).stem}"
    items = json.loads(json_text)
    if isinstance(items, dict):
        items = [items]
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught, time_limit(timeout):
            warnings.simplefilter("always")
            css = citeproc.CitationStylesStyle(str(csl_style_path(style)), validate=False)
            try:
                citations, entries = _citeproc_py_render(citeproc, css, items)
                errors: list[Message] = []
            except Exception:  # noqa: BLE001 - any failure of the consumer is a finding
                citations, entries = (), ()
                errors = [_citeproc_py_item_error(citeproc, css, item) for item in items]
                errors = [e for e in errors if e is not None] or [
                    _exception_message("", "the whole document failed to render")
                ]
    except TimeoutError as exc:
        return ConsumerResult(tool, (Message("timeout", str(exc)),))
    warns = [_citeproc_py_warning(str(w.message)) for w in caught
             if "citeproc" in (w.filename or "")]  # fmt: skip
    return ConsumerResult(tool, tuple(errors), tuple(dict.fromkeys(warns)),
                          keys=tuple(str(i.get("id", "")) for i in items),
                          rendered=tuple(entries), citations=tuple(citations))


def _citeproc_py_render(citeproc: object, css: object, items: list[dict]
                        ) -> tuple[list[str], list[str]]:  # fmt: skip
    from citeproc import Citation, CitationItem, CitationStylesBibliography, formatter
    from citeproc.source.json import CiteProcJSON

    source = CiteProcJSON(items)
    bib = CitationStylesBibliography(css, source, formatter.plain)
    cites = [Citation([CitationItem(str(item["id"]))]) for item in items]
    for cite in cites:
        bib.register(cite)
    citations = [str(bib.cite(cite, lambda _item: None)) for cite in cites]
    entries = [str(entry) for entry in bib.bibliography()]
    return citations, entries


def _citeproc_py_item_error(citeproc: object, css: object, item: dict) -> Message | None:
    try:
        _citeproc_py_render(citeproc, css, [item])
    except Exception:  # noqa: BLE001 - any failure of the consumer is a finding
        return _exception_message(str(item.get("id", "")), "")
    return None


def _exception_message(key: str, prefix: str) -> Message:
    exc_type, exc, tb = sys.exc_info()
    frames = traceback.extract_tb(tb)
    where = frames[-1].name if frames else "?"
    name = exc_type.__name__ if exc_type else "Exception"
    text = f"{prefix + ': ' if prefix else ''}{name}: {exc}"
    if frames:
        last = frames[-1]
        text += f" (in {where}, {Path(last.filename).name}:{last.lineno}: {last.line})"
    return Message("exception", text, key=key, detail=f"{name}@{where}")


_UNSUPPORTED = re.compile(r"arguments for \w+ are unsupported: (.+)$")


def _citeproc_py_warning(text: str) -> Message:
    m = _UNSUPPORTED.search(text)
    if m:
        return Message("unsupported-variable", text, detail=m.group(1).strip())
    return Message("other", text)


def citeproc_js_cache() -> Path:
    """Where citeproc-js is installed for the tests: outside the repository, per user."""
    base = os.environ.get("CITEKIT_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "citekit-tests")
    return Path(base) / f"node-citeproc-{CITEPROC_JS_VERSION}"


def citeproc_js_modules() -> Path:
    """The node_modules folder holding npm `citeproc`, installed from the registry on first use.

    Installs into a temporary folder beside the cache and renames it into place under a lock,
    so concurrent test runs never see a half-installed package.
    """
    target = citeproc_js_cache()
    modules = target / "node_modules"
    if (modules / "citeproc" / "package.json").is_file():
        return modules
    if shutil.which("npm") is None:
        raise ConsumerMissing("npm is not on PATH, and citeproc-js is not installed in "
                              f"{target}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (modules / "citeproc" / "package.json").is_file():
            return modules
        staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.", dir=target.parent))
        run = _run(["npm", "install", "--prefix", str(staging), "--no-audit", "--no-fund",
                    "--no-save", "--no-package-lock", "--no-update-notifier",
                    f"citeproc@{CITEPROC_JS_VERSION}"], staging, NPM_TIMEOUT)  # fmt: skip
        if run.returncode != 0 or not (staging / "node_modules" / "citeproc").is_dir():
            shutil.rmtree(staging, ignore_errors=True)
            raise ConsumerMissing(f"npm install citeproc@{CITEPROC_JS_VERSION} failed: "
                                  f"{run.output.strip()[-500:]}")
        staging.chmod(0o755)  # mkdtemp makes it private; the cache is for every test run
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return modules


def render_citeproc_js(json_text: str, style: str = "apa", *, output: str = "text",
                       timeout: float = NODE_TIMEOUT) -> ConsumerResult:  # fmt: skip
    """Render every item with citeproc-js (node): one citation each, then the bibliography,
    as plain text or (`output="html"`) as citeproc-js's HTML, which shows italics."""
    if shutil.which("node") is None:
        raise ConsumerMissing("program not on PATH: node")
    modules = citeproc_js_modules()
    tool = f"citeproc-js/{Path(style).stem}"
    with _workdir() as tmp:
        run = _run(["node", str(CITEPROC_JS_SCRIPT), str(csl_style_path(style)), str(CSL_DIR),
                    output], tmp, timeout, {"NODE_PATH": str(modules)}, stdin=json_text)
    if run.returncode is None:
        return ConsumerResult(tool, (_timeout_message("citeproc-js", timeout),), log=run.output)
    try:
        out = json.loads(run.output)
    except json.JSONDecodeError:
        return ConsumerResult(tool, (Message("node", f"node exited {run.returncode}"),),
                              log=run.output)
    items = json.loads(json_text)
    items = items if isinstance(items, list) else [items]
    return ConsumerResult(
        tool,
        tuple(Message("citeproc-js", e) for e in out["errors"]),
        tuple(Message("citeproc-js", w) for w in out["warnings"]),
        keys=tuple(str(i.get("id", "")) for i in items),
        rendered=tuple(out["bibliography"]), citations=tuple(out["citations"]),
        log=run.output,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# RIS: rispy
# ---------------------------------------------------------------------------------------------

_RIS_TAG_LINE = re.compile(r"^[A-Z][A-Z0-9]  - ")
_RIS_START = re.compile(r"^TY  - ", re.M)


def parse_rispy(ris_text: str, *, timeout: float = PYTHON_TIMEOUT) -> ConsumerResult:
    """Parse RIS with rispy. Errors: a record count that differs from the `TY  - ` lines in the
    text (rispy drops what it cannot place), or an exception. Warnings: tags rispy does not know
    (`unknown-tag`) and non-blank lines that are not `XX  - value` (`untagged-line`), which
    rispy silently glues onto the previous value."""
    try:
        import rispy
    except ImportError as exc:
        raise ConsumerMissing(f"rispy: {exc}") from exc
    warns: list[Message] = []
    for number, line in enumerate(ris_text.splitlines(), 1):
        if line.strip() and not _RIS_TAG_LINE.match(line) and not line.startswith("ER  -"):
            warns.append(Message("untagged-line", f"line {number}: {line[:80]!r}",
                                 detail=str(number)))
    try:
        with time_limit(timeout):
            records = rispy.loads(ris_text)
    except TimeoutError as exc:
        return ConsumerResult("rispy", (Message("timeout", str(exc)),))
    except Exception:  # noqa: BLE001 - any failure of the consumer is a finding
        return ConsumerResult("rispy", (_exception_message("", "rispy failed"),))
    errors = []
    starts = len(_RIS_START.findall(ris_text))
    if len(records) != starts:
        errors.append(Message("record-count", f"rispy read {len(records)} records; the text "
                              f"opens {starts} with 'TY  - '"))
    for n, record in enumerate(records):
        for tag, value in (record.get("unknown_tag") or {}).items():
            warns.append(Message("unknown-tag", f"record {n + 1}: unknown tag {tag}: {value}",
                                 key=str(n), detail=tag))
    return ConsumerResult("rispy", tuple(errors), tuple(warns), records=tuple(records))
