"""Exceptions for operations that cannot go on (a file that cannot be read, an unknown format,
output that cannot be written, an arXiv API that keeps failing). Data problems are diagnostics,
not exceptions. Every exception carries the path or URL and pickles cleanly.
Imports nothing but the standard library.
"""

from __future__ import annotations


class CitekitError(Exception):
    """Root of citekit's exceptions."""

    def __init__(self, message: str, *, path: str = "", url: str = "", attempt: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.url = url
        self.attempt = attempt

    def __reduce__(self):  # type: ignore[no-untyped-def]
        # keyword-only arguments do not survive default pickling; rebuild explicitly
        return (_rebuild, (type(self), self.message, dict(self.__dict__)))

    def __str__(self) -> str:
        where = self.path or self.url
        return f"{where}: {self.message}" if where else self.message


def _rebuild(cls: type[CitekitError], message: str, state: dict[str, object]) -> CitekitError:
    obj = cls.__new__(cls)
    Exception.__init__(obj, message)
    obj.__dict__.update(state)
    return obj


class InputError(CitekitError):
    """An input cannot be read at all (missing, unreadable, a directory with nothing in it)."""


class UnknownFormat(CitekitError):
    """A format name or file that matches no registered format."""


class OutputError(CitekitError):
    """The output cannot be written (or would overwrite an input)."""


class ArxivError(CitekitError):
    """The arXiv API could not answer after the allowed retries."""


class ArxivHTTPError(ArxivError):
    """A final HTTP error status from the arXiv API."""

    def __init__(self, message: str, *, status: int = 0, **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.status = status


class ArxivRateLimited(ArxivError):
    """The API kept answering 429 (`Rate exceeded.`) or 503 past the retry budget."""


class ArxivUnavailable(ArxivError):
    """The API could not be reached (connection refused, reset, timeouts) past the retry budget."""
