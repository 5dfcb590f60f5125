"""The windows that trend compliance and the failed-tests tables look back over.

They belong to the analysis layer, which measures them; the configuration
only fills them in from conf.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal, get_args

WindowMode = Literal["time", "runs"]
WINDOW_MODES: tuple[WindowMode, ...] = get_args(WindowMode)


@dataclass(frozen=True)
class Windows:
    """Trend-compliance and failed-tests windows.

    In ``time`` mode (the methodology's weeks and months) the windows are
    time spans; ``runs`` mode counts runs, as the reference implementation
    did, for sites that want its numbers.
    """

    short: timedelta = timedelta(days=7)
    long: timedelta = timedelta(days=90)
    failed: timedelta = timedelta(days=7)
    mode: WindowMode = "time"
    short_runs: int = 14
    long_runs: int = 180
