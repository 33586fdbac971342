"""Diagnostics: what citekit says about the data it reads and writes.

`Diagnostic` is one message (severity, code, message, source, line, key, raw); `Report` collects
them with the counts a run ends on. Data problems are diagnostics, never exceptions (see errors.py).
Imports nothing but the standard library.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One message about the data.

    `error` means a record was rejected (its raw text is in `raw`); `warning` means it was written
    but something was guessed or lost; `info` is for decisions worth knowing (renamed keys).
    Codes are short, stable `<area>.<problem>` names such as `bibtex.unbalanced-braces`.
    """

    severity: Severity
    code: str
    message: str
    source: str = ""
    line: int | None = None
    key: str = ""
    raw: str = field(default="", repr=False)

    def render(self) -> str:
        """`path:line: severity: [key] message (code)`, the form editors and CI parse."""
        where = self.source or "-"
        if self.line is not None:
            where = f"{where}:{self.line}"
        key = f"[{self.key}] " if self.key else ""
        return f"{where}: {self.severity}: {key}{self.message} ({self.code})"


def error(code: str, message: str, **where: object) -> Diagnostic:
    return Diagnostic("error", code, message, **where)  # type: ignore[arg-type]


def warning(code: str, message: str, **where: object) -> Diagnostic:
    return Diagnostic("warning", code, message, **where)  # type: ignore[arg-type]


def info(code: str, message: str, **where: object) -> Diagnostic:
    return Diagnostic("info", code, message, **where)  # type: ignore[arg-type]


@dataclass(slots=True)
class Report:
    """What a run did: diagnostics in order plus the counts of its closing summary line."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    read: int = 0
    written: int = 0
    rejected: int = 0

    def add(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)

    def extend(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics.extend(diagnostics)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)

    def codes(self) -> Counter[str]:
        return Counter(d.code for d in self.diagnostics)

    def worst(self) -> Severity | None:
        if not self.diagnostics:
            return None
        return max((d.severity for d in self.diagnostics), key=SEVERITY_RANK.__getitem__)

    def summary(self) -> str:
        """The one line that ends stderr."""
        return (
            f"citekit: {self.files} file(s), {self.read} record(s) read, {self.written} written, "
            f"{self.rejected} rejected; {self.count('error')} error(s), "
            f"{self.count('warning')} warning(s), {self.count('info')} info"
        )
