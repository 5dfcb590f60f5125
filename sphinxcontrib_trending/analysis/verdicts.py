"""The Performance Analysis verdicts: how each test's newest data is judged.

The methodology's PA job regroups the history after every test job and judges
the new run: its group prolonged is Pass/Normal, a new group with a worse
trend is Fail/Regression, a better one Pass/Progression.  Two more reasons
come from the data itself: a test that failed in the build (Failed) and one
that was expected there but did not run (Missing).  A failed newest run is
Failed whether or not the test ever had a value: the gate judges the
histories ``histories(..., keep_failing=True)`` cuts, which keep tests that
never measured anything.

Judging a run uses only the history up to and including it, exactly as the
PA job would have seen it at the time; that is what makes ``--all`` a true
record of when each change arrived.

A change in performance often shows only a run or two after it started: the
MDL grouping needs some evidence before a new group pays for its bits.  The
reference gate then missed it forever, because by the time the group existed
it no longer started at the newest run.  Here a run is also judged a
Regression or Progression when its group's boundary was not there one
measured run earlier ("detected late"); ``since`` names the run the new group
starts at.

A run that leaves its group and comes straight back is an outlier, not two
changes (see :mod:`.outliers`).  While it is the newest run nobody can tell
yet, and it is judged as the change it looks like; the first run back at the
old level is then judged Outlier (``since`` names the excursion's first
run): the change reported before did not hold.  Outlier does not fail a job
unless ``--fail-on`` names it.

A regression seen in one run only (the judged run starts its group) is
"unconfirmed": re-running the build tells a real change from a bad run.  The
first later run of the same DUT version settles it: still at the new level it
is "confirmed" (a Regression again, ``since`` its first run), back at the old
one "dismissed".  Runs of other versions before it cannot settle it, as their
own changes could move the level: each is judged as the grouping has it
(Normal while the level holds, Outlier when it is back) without confirming or
dismissing anything.  Where either run names no DUT version the next measured
run settles it, there being nothing to match.  ``check --unconfirmed``
chooses whether an unconfirmed regression fails the job (see
:attr:`Verdict.waived`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from typing import Literal

from sphinxcontrib_trending.analysis import Classification, classify
from sphinxcontrib_trending.analysis.acknowledged import KnownChanges
from sphinxcontrib_trending.analysis.build_selection import build_name, newest_per_job
from sphinxcontrib_trending.analysis.calibration import calibrated_unit
from sphinxcontrib_trending.analysis.change_range import ChangeRange, change_range
from sphinxcontrib_trending.analysis.classify import Group
from sphinxcontrib_trending.analysis.environment_changes import environment_change, labelled
from sphinxcontrib_trending.analysis.grading import AnomalyPolicy, change_ratio, judge_anomaly
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.incremental import Grouping, IncrementalClassifier
from sphinxcontrib_trending.analysis.sensitivity import Sensitivity
from sphinxcontrib_trending.analysis.summary import TrendOptions, run_samples
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.ingest.model import Build


class Reason(str, Enum):
    """Why a test got its verdict; the PA job's "Reason" plus Failed and Missing."""

    NORMAL = "Normal"
    REGRESSION = "Regression"
    PROGRESSION = "Progression"
    MAYBE_REGRESSION = "Maybe Regression"
    MAYBE_PROGRESSION = "Maybe Progression"
    FAILED = "Failed"
    MISSING = "Missing"
    OUTLIER = "Outlier"

    def __str__(self) -> str:
        return self.value


DEFAULT_FAIL_ON: frozenset[Reason] = frozenset({Reason.REGRESSION, Reason.FAILED})

ANOMALIES: frozenset[Reason] = frozenset(
    {Reason.REGRESSION, Reason.PROGRESSION, Reason.MAYBE_REGRESSION, Reason.MAYBE_PROGRESSION}
)
"""Reasons that mean a new group arrived: they carry a trend change."""

_REGRESSIONS = frozenset({Reason.REGRESSION, Reason.MAYBE_REGRESSION})

Confirmation = Literal["", "unconfirmed", "confirmed", "dismissed"]
"""Where a one-run regression stands: seen once, held on the next run, or gone."""

UNCONFIRMED_NOTE = "re-run to confirm"

_GRADED = {
    "regression": Reason.REGRESSION,
    "progression": Reason.PROGRESSION,
    "maybe regression": Reason.MAYBE_REGRESSION,
    "maybe progression": Reason.MAYBE_PROGRESSION,
    "normal": Reason.NORMAL,
}
"""The reasons that fail a CI job unless the user chooses others."""


def parse_reasons(text: str) -> frozenset[Reason]:
    """``"Regression,Failed"`` -> reasons; case-insensitive, an empty string means none.

    Raises ValueError naming the unknown word and the known ones.
    """
    by_name = {reason.value.lower(): reason for reason in Reason}
    reasons = set()
    for word in (part.strip() for part in text.split(",")):
        if not word:
            continue
        if word.lower() not in by_name:
            known = ", ".join(reason.value for reason in Reason)
            raise ValueError(f"unknown verdict {word!r}; known verdicts: {known}")
        reasons.add(by_name[word.lower()])
    return frozenset(reasons)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One test judged in one build.

    With slots: ``check --all`` keeps one per test and build (400,000 at
    2,000 tests x 200 builds), and an instance dictionary each cost 86 MB.

    ``trend`` is the average of the group the run belongs to and
    ``previous_trend`` the average of the group before it, both only when a
    new group was detected (Regression, Progression) or, for ``trend``, when
    the group was prolonged (Normal).  ``since`` is the run the new group
    starts at when it was detected after that run.
    """

    source: str
    history: TestHistory
    reason: Reason
    job: str
    build: str
    time: datetime
    value: float | None = None
    trend: float | None = None
    previous_trend: float | None = None
    since: Run | None = None
    message: str = ""
    confidence: float | None = None
    """How sure the grouping is of the new group (see Group.confidence)."""
    acknowledged: str = ""
    """The reason of the known change that covers this anomaly, if any."""
    provisional: bool = False
    """The new group is too recent to be sure of: it starts within the policy's
    ``provisional_runs`` or the outlier rule's ``K`` last measured runs, so
    later runs may still merge it back or prove it an outlier excursion."""
    change_range: ChangeRange | None = None
    """For a Regression or Progression, the last run of the old level and the
    first of the new one, as the judging grouping had them: the versions (or
    commits) between them hold the cause."""
    version: str | None = None
    """The DUT version (commit) the judged build ran, where the data names one."""
    confirmation: Confirmation = ""
    """``"unconfirmed"``: a regression seen in this run only; ``"confirmed"``: this
    run, the first later one of the same DUT version, held the new level;
    ``"dismissed"``: it was back."""
    environment: str = ""
    """What the machine changed where the new group starts (hosts, TG, build
    pattern fields...; see :mod:`.environment_changes`); "" if nothing."""
    waived: str = ""
    """Why this verdict does not fail the job although its reason would (an
    unconfirmed regression or an environment change the gate lets pass)."""
    false_alarms_per_100_runs: float | None = None
    """The test's stated false-alarm rate under its own noise (see :mod:`.sensitivity`);
    None when its history is too short to measure the noise, or when the options
    neither ask for it (``stated_rates``) nor set a target."""

    @property
    def job_build(self) -> str:
        return build_name(self.job, self.build)

    @property
    def change(self) -> float | None:
        """Relative change of the trend, ``(new - old) / |old|``, when a new group arrived."""
        return None if self.trend is None else change_ratio(self.trend, self.previous_trend)

    @property
    def anomaly(self) -> bool:
        return self.reason in ANOMALIES

    def fails(self, fail_on: Iterable[Reason] = DEFAULT_FAIL_ON) -> bool:
        """Acknowledged anomalies never fail: somebody has already looked; nor waived ones."""
        return self.reason in frozenset(fail_on) and not self.acknowledged and not self.waived

    def result(self, fail_on: Iterable[Reason] = DEFAULT_FAIL_ON) -> str:
        """The PA job's Result: Fail or Pass; a Missing test that does not fail is Skip."""
        if self.fails(fail_on):
            return "Fail"
        return "Skip" if self.reason is Reason.MISSING else "Pass"


@dataclass(frozen=True)
class BuildVerdicts:
    """Every expected test of one build, judged as of that build."""

    job: str
    build: str
    time: datetime
    verdicts: tuple[Verdict, ...]

    @property
    def job_build(self) -> str:
        return build_name(self.job, self.build)


Sample = float | Sequence[float] | None


class _Judge:
    """Judges the runs of one history, classifying each prefix at most once.

    The classification of a prefix is kept only while a later judgement may
    still compare against it, so walking a long history costs the memory of
    two classifications and of one extendable search state.

    Only a ``walking`` judge (every run in turn) extends one search run by
    run.  Judging one build needs two prefixes at most, and reaching them
    run by run redoes the search at every new largest value (each run of a
    rising series): 3,000 runs took minutes where two fresh searches take
    about a second.
    """

    def __init__(
        self,
        source: str,
        history: TestHistory,
        options: TrendOptions,
        whole: Classification | None = None,
        *,
        walking: bool = False,
    ) -> None:
        self.source = source
        self.history = history
        self.options = options
        self.excluded = options.exclusions.in_history(history.test_id, history.runs)
        self.samples: list[Sample] = run_samples(history, options.samples, options.exclusions)
        self.measured = [sample is not None for sample in self.samples]
        # per run, the measured run before it: a walk asks for it twice a run
        self._before = _measured_before(self.measured)
        # a spread unit is the whole history's, for every prefix: a search per prefix
        # otherwise (see :mod:`.calibration`)
        self.unit = calibrated_unit(self.samples, options.calibration)
        self._classified: dict[int, Classification] = {}
        # a walk's groupings come without the groups' confidences (most runs never
        # read them): how to get each with them, where a change is graded
        self._detailed: dict[int, Grouping] = {}
        self._stated: Sensitivity | None = None
        self._sensitivity_known = False
        if whole is not None:  # the whole history's grouping, from a cache or a worker
            self._classified[len(history.runs) - 1] = whole
        self._walking = walking
        # a walk asks for the prefixes in order: extend one search run by run
        self._growing = IncrementalClassifier(
            unit=self.unit,
            sbps=options.sbps,
            search=options.search,
            direction=options.direction,
            outlier_runs=options.outlier_runs,
        )
        self._prefixes = self._growing.extend_each(self.samples)  # searched in blocks

    def _classification(self, index: int) -> Classification:
        """The grouping the PA job had after run ``index``: the prefix only."""
        result = self._classified.get(index)
        if result is None:
            if self._walking and index >= self._growing.run_count:
                while self._growing.run_count <= index:
                    classified = next(self._prefixes)
                result = classified(details=False)
                self._detailed[index] = classified
            else:
                result = classify(
                    self.samples[: index + 1],
                    unit=self.unit,
                    sbps=self.options.sbps,
                    search=self.options.search,
                    direction=self.options.direction,
                    outlier_runs=self.options.outlier_runs,
                )
            self._classified[index] = result
        return result

    def _with_details(self, index: int) -> Classification:
        """:meth:`_classification` with every group's bits saved, confidence and
        serial correlation, which grading a change reads."""
        result = self._classification(index)
        grouping = self._detailed.pop(index, None)
        if grouping is not None:
            result = self._classified[index] = grouping()
        return result

    def forget_before(self, index: int) -> None:
        for old in [known for known in self._classified if known < index]:
            del self._classified[old]
            self._detailed.pop(old, None)

    def _previous_measured(self, index: int) -> int | None:
        return self._before[index]

    def verdict(self, index: int) -> Verdict:
        run = self.history.runs[index]
        if run.status != "PASS":
            return self._make(run, Reason.FAILED, message=run.message)
        excluded = self.excluded.get(index)
        if excluded is not None:
            return self._make(
                run,
                Reason.MISSING,
                value=run.average,
                message=f"excluded from grouping ({excluded.origin}): {excluded.reason}",
            )
        if not self.measured[index]:
            return self._make(
                run, Reason.MISSING, message=f"passed without a {self.history.metric} value"
            )
        # The run is the last measured one of its prefix, so it is in the last group,
        # and a group always starts at a measured run.
        result = self._classification(index)
        groups = result.groups
        group = groups[-1]
        previous = self._previous_measured(index)
        excursion = self._excursion_before(index, set(group.outliers))
        if excursion:
            dismissed = self._settles(excursion[0], index)
            return self._outlier(run, excursion, group.avg, dismissed)
        if previous is not None and self._merged_back(result, previous, index):
            return self._dismissed(run, previous, group.avg)
        if len(groups) == 1:
            return self._make(run, Reason.NORMAL, value=run.average, trend=group.avg)
        since: Run | None = None
        confirmation: Confirmation = ""
        if group.start != index:
            if previous is None:
                return self._make(run, Reason.NORMAL, value=run.average, trend=group.avg)
            if group.start in _boundaries(self._classification(previous)):
                held = group.comment == "regression" and self._settles(group.start, index)
                if not held:
                    return self._make(run, Reason.NORMAL, value=run.average, trend=group.avg)
                if not self.options.hold_unconfirmed:
                    return self._make(
                        run,
                        Reason.NORMAL,
                        value=run.average,
                        trend=group.avg,
                        since=self.history.runs[group.start],
                        confirmation="confirmed",
                        message=self._confirmation_message("confirmed", run, group.start),
                    )
                confirmation = "confirmed"
            since = self.history.runs[group.start]
        result = self._with_details(index)  # the same groups, with their confidences
        groups = result.groups
        group = groups[-1]
        runs_since = sum(self.measured[group.start : index + 1])
        graded = judge_anomaly(
            group,
            groups[-2],
            self._policy(),
            runs_since=runs_since,
            outlier_runs=result.outlier_runs,
        )
        reason = _GRADED[graded.verdict]
        if since is None and reason in _REGRESSIONS:
            confirmation = "unconfirmed"
        elif since is None and self._back_up(group, groups[-2], previous):
            confirmation = "dismissed"
        return self._make(
            run,
            reason,
            confidence=graded.confidence,
            provisional=graded.provisional,
            value=run.average,
            trend=group.avg,
            previous_trend=groups[-2].avg,
            since=since,
            change_range=change_range(self.history.runs, groups, group.start),
            environment=environment_change(self.history.runs, group.start, self.excluded),
            confirmation=confirmation,
            message=self._confirmation_message(
                confirmation, run, group.start if since is not None else previous
            ),
        )

    def _back_up(self, group: Group, before: Group, previous: int | None) -> bool:
        """Whether ``group`` is the level's return after a one-run regression at ``previous``
        that its first run settles (see :meth:`_settles`)."""
        return (
            group.comment == "progression"
            and before.start == previous
            and previous is not None
            and self._settles(previous, group.start)
        )

    def _settles(self, first: int, index: int) -> bool:
        """Whether run ``index`` confirms or dismisses a one-run regression at ``first``:
        it is the first measured run after it of the same DUT version (or, where either
        names no version, the next measured run)."""
        if not self._same_version(first, index):  # most runs: no scan of the runs between
            return False
        between = (i for i in range(first + 1, index) if self.measured[i])
        if any(self._same_version(first, i) for i in between):
            return False
        return self._single_run_regression(first)

    def _same_version(self, first: int, other: int) -> bool:
        """Whether run ``other`` re-ran run ``first``'s DUT version; runs without a
        version match any run, as nothing tells them apart."""
        mine = self.history.runs[first].dut_version
        theirs = self.history.runs[other].dut_version
        return not mine or not theirs or mine == theirs

    def _merged_back(self, result: Classification, previous: int, index: int) -> bool:
        """Whether the run before was a one-run regression that this run's grouping
        merged back into its group (with the outlier rule off; with it on, such a
        run is an outlier excursion).  Only a run worse than its group's average
        can be one, which spares the gate a grouping of the shorter history."""
        if result.outlier_runs or not result.groups:
            return False
        group = next(g for g in reversed(result.groups) if g.start <= previous)
        value = self.history.runs[previous].average
        if value is None or group.start == previous:
            return False
        worse = value < group.avg if self.options.direction == "higher" else value > group.avg
        return worse and self._settles(previous, index)

    def _single_run_regression(self, index: int | None) -> bool:
        """Whether run ``index`` was judged a regression that starts at that run:
        the one-run regression the next run confirms or dismisses."""
        if index is None:
            return False
        groups = self._classification(index).groups
        if len(groups) < 2 or groups[-1].start != index:
            return False
        result = self._with_details(index)
        groups = result.groups
        graded = judge_anomaly(
            groups[-1],
            groups[-2],
            self.options.policy,
            runs_since=1,
            outlier_runs=result.outlier_runs,
        )
        return _GRADED[graded.verdict] in _REGRESSIONS

    def _confirmation_message(self, confirmation: str, run: Run, previous: int | None) -> str:
        if confirmation == "unconfirmed":
            return f"seen in this run only: {UNCONFIRMED_NOTE}"
        if confirmation == "dismissed":
            return "back from the one run before: its regression did not hold, dismissed"
        if confirmation != "confirmed" or previous is None:
            return ""
        first = self.history.runs[previous]
        rerun = bool(first.dut_version) and first.dut_version == run.dut_version
        by = "a re-run of the same DUT version" if rerun else "the next run"
        return f"the regression of {first.job_build} confirmed by {by}"

    def _dismissed(self, run: Run, first: int, trend: float) -> Verdict:
        """The run after a one-run regression is back at the old level: it did not hold."""
        since = self.history.runs[first]
        return self._make(
            run,
            Reason.NORMAL,
            value=run.average,
            trend=trend,
            since=since,
            confirmation="dismissed",
            message=f"the regression of {since.job_build} did not hold: dismissed",
        )

    def _excursion_before(self, index: int, outliers: set[int]) -> list[int]:
        """The outlier runs just before run ``index``, oldest first; empty if none."""
        excursion: list[int] = []
        previous = self._previous_measured(index)
        while previous is not None and previous in outliers:
            excursion.insert(0, previous)
            previous = self._previous_measured(previous)
        return excursion

    def _outlier(
        self, run: Run, excursion: list[int], trend: float, dismissed: bool = False
    ) -> Verdict:
        first = self.history.runs[excursion[0]]
        count = len(excursion)
        runs = "run" if count == 1 else f"{count} runs"
        return self._make(
            run,
            Reason.OUTLIER,
            value=run.average,
            trend=trend,
            since=first,
            confirmation="dismissed" if dismissed else "",
            message=f"the {runs} from {first.job_build} left the group and came back: "
            "an outlier, not a change",
        )

    def missing(self, build: Build) -> Verdict:
        return Verdict(
            source=self.source,
            history=self.history,
            reason=Reason.MISSING,
            job=build.job,
            build=build.build,
            time=build.time,
            message="not run in this build",
            version=build.dut_version,
            false_alarms_per_100_runs=self._stated_rate(),
        )

    def _make(self, run: Run, reason: Reason, **fields: object) -> Verdict:
        return Verdict(
            source=self.source,
            history=self.history,
            reason=reason,
            job=run.job,
            build=run.build,
            time=run.time,
            version=run.dut_version,
            false_alarms_per_100_runs=self._stated_rate(),
            **fields,  # type: ignore[arg-type]
        )

    def _sensitivity(self) -> Sensitivity | None:
        """The stated rate, measured once on the whole history.

        Every prefix is judged by the whole history's threshold, as a spread
        unit is the whole history's (see :mod:`.sensitivity`).
        """
        if not self._sensitivity_known:
            self._stated = self.options.sensitivity(self.samples)
            self._sensitivity_known = True
        return self._stated

    def _stated_rate(self) -> float | None:
        if not self.options.stated_rates and self.options.false_alarm_target is None:
            return None
        stated = self._sensitivity()
        return None if stated is None else stated.false_alarms_per_100_runs

    def _policy(self) -> AnomalyPolicy:
        """The options' policy, its threshold raised where a false-alarm target asks."""
        stated = self._sensitivity() if self.options.false_alarm_target is not None else None
        if stated is None:
            return self.options.policy
        return replace(self.options.policy, min_confidence=stated.min_confidence)


def _measured_before(measured: Sequence[bool]) -> list[int | None]:
    """For each run, the last measured run before it (None if there is none)."""
    before: list[int | None] = []
    last: int | None = None
    for index, present in enumerate(measured):
        before.append(last)
        if present:
            last = index
    return before


def _boundaries(result: Classification) -> set[int]:
    """Runs where a group other than the first one starts."""
    return {group.start for group in result.groups[1:]}


def _run_index(history: TestHistory, build: Build) -> int | None:
    for index in range(len(history.runs) - 1, -1, -1):
        run = history.runs[index]
        if run.job == build.job and run.build == build.build:
            return index
    return None


def _expected(history: TestHistory, build: Build) -> bool:
    """A test is expected in every build of a job it had run in by then.

    Tests of other jobs or testbeds, and tests added later, are no
    concern of this build and are left out rather than called Missing.
    """
    return any(run.job == build.job and run.time <= build.time for run in history.runs)


def _judge_in(judge: _Judge, build: Build) -> Verdict:
    index = _run_index(judge.history, build)
    return judge.missing(build) if index is None else judge.verdict(index)


def judge_latest(
    source: str,
    histories: Sequence[TestHistory],
    builds: Sequence[Build],
    options: TrendOptions,
    classified: Sequence[Classification] | None = None,
) -> list[Verdict]:
    """Each test judged in the newest build of the job its newest run came from.

    A test absent from that build is Missing there; judging per job rather
    than only the newest build of the source keeps tests of other testbeds
    (other jobs) from all looking Missing.  ``classified``, when given, holds
    each history's whole grouping (with ``options``), computed elsewhere.
    """
    newest = newest_per_job(builds)
    verdicts = []
    for number, history in enumerate(histories):
        if not history.runs:
            continue
        build = newest.get(history.runs[-1].job)
        judge = _Judge(source, history, options, classified[number] if classified else None)
        if build is None:
            verdicts.append(judge.verdict(len(history.runs) - 1))
        else:
            verdicts.append(_judge_in(judge, build))
    return verdicts


def judge_build(
    source: str,
    histories: Iterable[TestHistory],
    build: Build,
    options: TrendOptions,
) -> list[Verdict]:
    """Every test expected in ``build`` (see :func:`.find_build`), judged as of that build."""
    return [
        _judge_in(_Judge(source, history, options), build)
        for history in histories
        if _expected(history, build)
    ]


def judge_every_build(
    source: str,
    histories: Iterable[TestHistory],
    builds: Sequence[Build],
    options: TrendOptions,
    progress: Callable[[TestHistory], None] | None = None,
) -> list[BuildVerdicts]:
    """The verdict every build would have got, newest build first.

    Each history is walked once, oldest run first, classifying every prefix
    once and keeping only the classification the next run compares with.
    With ``search="exact"`` one search state is extended run by run
    (:class:`~.incremental.IncrementalClassifier`), so a prefix costs one
    search step plus building its classification; ``search="jumpavg"``
    classifies every prefix afresh.
    """
    per_build: dict[tuple[str, str], list[Verdict]] = {build.key: [] for build in builds}
    jobs: dict[str, list[Build]] = {}
    for build in builds:
        jobs.setdefault(build.job, []).append(build)
    for history in histories:
        judge = _Judge(source, history, options, walking=True)
        for verdict in _walk(judge, jobs):
            per_build.setdefault((verdict.job, verdict.build), []).append(verdict)
        if progress is not None:
            progress(history)
    result = [
        BuildVerdicts(build.job, build.build, build.time, tuple(per_build[build.key]))
        for build in builds
    ]
    return sorted(result, key=lambda entry: entry.time, reverse=True)


def newest_verdicts(
    every: Sequence[BuildVerdicts], histories: Sequence[TestHistory], builds: Sequence[Build]
) -> list[Verdict]:
    """:func:`judge_latest`'s verdicts, read from :func:`judge_every_build`'s.

    The walk has judged each job's newest build already; grouping every
    history whole once more for the gate cost ``check --all`` an eighth of its time.
    """
    newest = newest_per_job(builds)
    wanted = {build.key for build in newest.values()}
    found = {
        (entry.job, entry.build, verdict.history.key): verdict
        for entry in every
        if (entry.job, entry.build) in wanted
        for verdict in entry.verdicts
    }
    return [
        found[(build.job, build.build, history.key)]
        for history in histories
        if history.runs and (build := newest[history.runs[-1].job])
    ]


def _walk(judge: _Judge, jobs: dict[str, list[Build]]) -> Iterable[Verdict]:
    """Verdicts of every run, plus Missing for builds of its jobs that skipped it."""
    history = judge.history
    present = {(run.job, run.build) for run in history.runs}
    for index in range(len(history.runs)):
        yield judge.verdict(index)
        if judge.measured[index]:
            judge.forget_before(index)
    first_seen: dict[str, datetime] = {}
    for run in history.runs:
        first_seen.setdefault(run.job, run.time)
    for job, since in first_seen.items():
        for build in jobs.get(job, ()):
            if build.time >= since and build.key not in present:
                yield judge.missing(build)


def worst_first(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """Regressions and failures first, then by the size of the change, then by name."""
    order = {
        Reason.REGRESSION: 0,
        Reason.FAILED: 1,
        Reason.MAYBE_REGRESSION: 2,
        Reason.PROGRESSION: 3,
        Reason.MAYBE_PROGRESSION: 4,
        Reason.MISSING: 5,
        Reason.OUTLIER: 6,
        Reason.NORMAL: 7,
    }

    def key(verdict: Verdict) -> tuple[int, float, str]:
        change = verdict.change
        magnitude = -abs(change) if change is not None and not math.isnan(change) else 0.0
        return (order[verdict.reason], magnitude, verdict.history.display_name)

    return sorted(verdicts, key=key)


def acknowledge(verdicts: Iterable[Verdict], known: KnownChanges | None) -> list[Verdict]:
    """Mark anomalies that a known-changes entry covers, by the run their group starts at."""
    marked = []
    for verdict in verdicts:
        change = None
        if known is not None and verdict.anomaly:
            start = verdict.since
            job, build, time = (
                (start.job, start.build, start.time)
                if start is not None
                else (verdict.job, verdict.build, verdict.time)
            )
            change = known.find(verdict.history.test_id, job=job, build=build, time=time)
        marked.append(replace(verdict, acknowledged=change.reason) if change else verdict)
    return marked


def waive(
    verdicts: Iterable[Verdict], *, unconfirmed: bool, environment: bool = True
) -> list[Verdict]:
    """Let unconfirmed regressions (``unconfirmed``) and regressions that came with an
    environment change (``environment``) pass the gate.

    The verdict keeps its reason (a Regression is still one), only
    :attr:`Verdict.waived` says why it does not fail; ``check --unconfirmed``
    and ``--environment-changes`` choose.
    """
    waived = []
    for verdict in verdicts:
        if not verdict.waived and verdict.reason in _REGRESSIONS:  # what could fail
            if environment and verdict.environment:
                verdict = replace(verdict, waived=labelled(verdict.environment))
            elif unconfirmed and verdict.confirmation == "unconfirmed":
                verdict = replace(verdict, waived=UNCONFIRMED_NOTE)
        waived.append(verdict)
    return waived
