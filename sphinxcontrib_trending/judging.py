"""What the CLI and the directives ask the analysis for: the settings plus overrides.

Both front ends start from the same :class:`~sphinxcontrib_trending.settings.Settings`
and differ only in what a page option or a command-line option overrides;
building the analysis options here, once, keeps a page and the gate from
judging the same data differently.
"""

from __future__ import annotations

from sphinxcontrib_trending.analysis.calibration import calibrated_policy, resolve_calibration
from sphinxcontrib_trending.analysis.degradation.builds import single_method
from sphinxcontrib_trending.analysis.degradation.strategies import Strategies, layered
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.settings import Settings, Source


def trend_options(
    settings: Settings,
    source: Source,
    metric: str,
    *,
    samples: str | None = None,
    search: str | None = None,
) -> TrendOptions:
    """How to group and judge ``metric`` of ``source``; ``samples`` and ``search`` override.

    The direction is the source's if the user set one, else the metric
    table's: ``latency_pdr50_forward_avg`` improves downwards unasked.  The
    calibration is resolved by the source's format (see :mod:`.calibration`),
    and a spread calibration judges by its own policy unless one is configured.
    """
    calibration = resolve_calibration(settings.calibration, source.spec.format, settings.sbps)
    return TrendOptions(
        samples=samples or source.samples,
        search=search or settings.search,
        direction=source.direction_for(metric),
        windows=settings.windows,
        policy=calibrated_policy(settings.policy, calibration),
        sbps=settings.sbps,
        outlier_runs=settings.outlier_runs,
        exclusions=settings.excluded_runs.for_source(source.name),
        calibration=calibration,
        false_alarm_target=settings.false_alarm_target,
    )


def comparison_strategies(
    settings: Settings, *, method: str | None = None, rules: Strategies | None = None
) -> Strategies | None:
    """Which method checks which test, in the documented order of precedence.

    ``method`` (``--method``, ``:method:``) checks every test and replaces
    everything else; else ``rules`` (``--strategy``) are tried before the
    settings' ``trending_degradation_strategies``; None (the default method
    for every test) when there is no rule at all.  An unknown method raises
    ValueError naming the known ones.
    """
    if method:
        return single_method(method)
    return layered(rules, settings.strategies)
