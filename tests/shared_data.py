"""Where the evaluation data lives, and what a test needing it says when it is absent.

The data sets are too large for the repository; CI checks them out as
``../shared/`` beside this checkout.  A test that reads them carries
``@pytest.mark.shared_data("subfolder")``.  Without the data it is skipped with
the path it looked at, so a reader knows what to fetch, and with
``TRENDING_REQUIRE_SHARED_DATA=1`` (what CI sets) it fails instead, so the
data going missing in CI cannot turn into a quiet skip.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
REQUIRE = "TRENDING_REQUIRE_SHARED_DATA"


def absent_reason(subfolder: str = "", root: Path = SHARED_DATA) -> str | None:
    """None when the data is there, else a sentence naming the folder expected."""
    wanted = root / subfolder if subfolder else root
    if wanted.is_dir():
        return None
    return f"needs the evaluation data at {wanted} (../shared/data beside the checkout)"


def required(environ: Mapping[str, str] = os.environ) -> bool:
    return environ.get(REQUIRE, "") not in ("", "0")
