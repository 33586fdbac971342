"""Where the project's shared material (`shared/`: corpus, schema, sources) lives for tests.

CI clones the repository into a fresh folder with a copy of `shared/` beside it; developers have
it beside their checkout too. `CITEKIT_SHARED` overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _find_shared() -> Path:
    for candidate in (os.environ.get("CITEKIT_SHARED", ""), str(REPO.parent / "shared")):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return REPO.parent / "shared"  # missing: tests that need it skip or fail under CI


SHARED = _find_shared()
