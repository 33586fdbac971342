"""On-disk cache of arXiv answers, keyed per arXiv id and per normalised title query.

One SQLite file (stdlib sqlite3: atomic writes, safe with two runs at once) in the platform's
cache directory (platformdirs, so XDG_CACHE_HOME is honoured), or wherever the caller says.
Entries expire (arXiv updates once a day); `offline` reads stale entries and never expires
them, `refresh` ignores what is stored but still stores new answers. Imports stdlib, atom,
platformdirs; must not import requests or model.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any, Literal

import platformdirs

from .atom import ArxivAuthor, ArxivRecord

CacheMode = Literal["normal", "offline", "refresh"]
SCHEMA = 1
DAY = 86400.0


def default_cache_path() -> Path:
    """`<user cache dir>/citekit/arxiv-v<schema>.sqlite3` (`~/.cache/citekit/...` on Linux)."""
    return platformdirs.user_cache_path("citekit", appauthor=False) / f"arxiv-v{SCHEMA}.sqlite3"


class Lookup(Enum):
    """What the cache knows: nothing usable, a known absence, or records."""

    MISS = "miss"
    ABSENT = "absent"  # arXiv answered that this id does not exist
    HIT = "hit"


@dataclass(frozen=True, slots=True)
class Cached:
    state: Lookup
    records: tuple[ArxivRecord, ...] = ()

    @property
    def record(self) -> ArxivRecord | None:
        return self.records[0] if self.records else None


_MISS = Cached(Lookup.MISS)


class ArxivCache:
    """Answers keyed `id:<id as asked>` and `query:<normalised query>`, each with its age."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        mode: CacheMode = "normal",
        max_age: float = 7 * DAY,
        absent_max_age: float = DAY,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.mode = mode
        self.max_age = max_age
        self.absent_max_age = absent_max_age
        self._now = now
        self.problems: list[str] = []  # e.g. a corrupt file that was set aside
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return _open_db(self.path)
        except sqlite3.DatabaseError as exc:
            # a damaged cache must not stop a run: keep it for inspection, start a new one
            aside = self.path.with_name(self.path.name + ".corrupt")
            self.path.replace(aside)
            self.problems.append(f"cache {self.path} was unreadable ({exc}); moved to {aside}")
            return _open_db(self.path)

    @classmethod
    def in_dir(cls, folder: Path | str | None, **options: Any) -> ArxivCache:
        """The cache file inside `folder` (`--cache-dir`), or in the platform's default place."""
        path = Path(folder) / default_cache_path().name if folder else default_cache_path()
        return cls(path, **options)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ArxivCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ids ------------------------------------------------------------------------------

    def get_id(self, asked: str) -> Cached:
        return self._get(f"id:{asked}")

    def put_id(self, asked: str, record: ArxivRecord | None) -> None:
        """Store the record arXiv gave for `asked`, or None when arXiv does not know the id."""
        self._put_many([(f"id:{asked}", None if record is None else [record])])

    def put_ids(self, answers: Iterable[tuple[str, ArxivRecord | None]]) -> None:
        self._put_many((f"id:{a}", None if r is None else [r]) for a, r in answers)

    # -- title queries --------------------------------------------------------------------

    def get_query(self, query_key: str) -> Cached:
        return self._get(f"query:{query_key}")

    def put_query(self, query_key: str, records: Iterable[ArxivRecord]) -> None:
        # an empty answer is a real answer ("no such title"), cached like any other
        self._put_many([(f"query:{query_key}", list(records))])

    # -- storage --------------------------------------------------------------------------

    def _get(self, key: str) -> Cached:
        if self.mode == "refresh":
            return _MISS
        try:
            row = self._db.execute(
                "SELECT stored, value FROM answers WHERE key = ?", (key,)
            ).fetchone()
            payload = json.loads(row[1]) if row is not None else None
        except (sqlite3.Error, ValueError) as exc:
            # a locked or damaged cache costs requests, never the run
            self._problem(f"cache {self.path} could not be read ({exc}); asking arXiv instead")
            return _MISS
        if row is None:
            return _MISS
        age = self._now() - row[0]
        limit = self.absent_max_age if payload is None else self.max_age
        if self.mode != "offline" and not 0 <= age <= limit:
            return _MISS
        if payload is None:
            return Cached(Lookup.ABSENT)
        return Cached(Lookup.HIT, tuple(record_from_json(r) for r in payload))

    def _put_many(self, items: Iterable[tuple[str, list[ArxivRecord] | None]]) -> None:
        if self.mode == "offline":
            return
        now = self._now()
        rows = [(key, now, json.dumps(None if recs is None else [record_to_json(r) for r in recs],
                                      ensure_ascii=False))
                for key, recs in items]  # fmt: skip
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO answers (key, stored, value) VALUES (?, ?, ?)", rows
                )
        except sqlite3.Error as exc:
            self._problem(f"cache {self.path} could not be written ({exc}); answers not kept")

    def take_problems(self) -> list[str]:
        """Problems met since the last call (each reported once, as one diagnostic)."""
        taken, self.problems = self.problems, []
        return taken

    def _problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)


def _open_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=10.0)
    db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, stored REAL, value TEXT)")
    return db


def record_to_json(record: ArxivRecord) -> dict[str, Any]:
    return {
        "arxiv_id": record.arxiv_id,
        "version": record.version,
        "title": record.title,
        "summary": record.summary,
        "authors": [[a.name, list(a.affiliations)] for a in record.authors],
        "published": record.published.isoformat(),
        "updated": record.updated.isoformat(),
        "primary_category": record.primary_category,
        "categories": list(record.categories),
        "comment": record.comment,
        "journal_ref": record.journal_ref,
        "doi": record.doi,
    }


def record_from_json(data: dict[str, Any]) -> ArxivRecord:
    return ArxivRecord(
        arxiv_id=data["arxiv_id"],
        version=int(data["version"]),
        title=data["title"],
        summary=data["summary"],
        authors=tuple(ArxivAuthor(name, tuple(affs)) for name, affs in data["authors"]),
        published=datetime.fromisoformat(data["published"]),
        updated=datetime.fromisoformat(data["updated"]),
        primary_category=data["primary_category"],
        categories=tuple(data["categories"]),
        comment=data["comment"],
        journal_ref=data["journal_ref"],
        doi=data["doi"],
    )
