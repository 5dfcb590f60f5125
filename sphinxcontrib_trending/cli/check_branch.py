"""``check --baseline-job JOB``: a branch's or pull request's build judged on main's history.

A pull-request pipeline has a build or two of its own, too few for a trend.
What a reviewer wants to know is whether the change would have been a
regression had it landed: so the branch build is judged exactly as the
baseline job's next build would have been, its runs appended to the
histories of the baseline job's builds up to its time, with the same
grouping, verdicts and known changes as the trend mode.  Only the tests the
branch build ran are judged: a pull-request job that runs a subset is not
missing the rest.
"""

from __future__ import annotations

from sphinxcontrib_trending.analysis.build_selection import against_job, branch_build
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.verdicts import Verdict, judge_build
from sphinxcontrib_trending.cli.check_loading import Loaded, Messages
from sphinxcontrib_trending.ingest.dimensions import rules_for


def judge_against_job(
    loaded: Loaded, baseline_job: str, build: str | None, messages: Messages
) -> list[Verdict]:
    """Verdicts of the branch build (``build``, else the newest of another job) of one source.

    Raises :class:`~.build_selection.UnknownBuild` when the source has no
    build of ``baseline_job`` or nothing else to judge.
    """
    target = branch_build(loaded.builds, baseline_job, build, messages.deprecated)
    selected = histories(
        against_job(loaded.builds, baseline_job, target),
        loaded.metric,
        loaded.accept,
        keep_failing=True,
        rules=rules_for(loaded.source.spec.dimensions),
    )
    return judge_build(loaded.source.name, selected, target, loaded.options)
