"""Configuration validation: bad values warn by key and fall back, never crash."""

from datetime import timedelta
from pathlib import Path

from sphinxcontrib_trending.ingest.spec import DEFAULT_BUILD_PATTERN
from sphinxcontrib_trending.settings import validate

BASE = Path("/site")


def test_minimal_csit_configuration_is_complete() -> None:
    settings, issues = validate({"trending_sources": {"mrr": {"paths": ["a/*.xml.gz"]}}}, BASE)
    assert issues == []
    source = settings.sources["mrr"]
    assert source.spec.paths == ("/site/a/*.xml.gz",)
    assert source.spec.format == "robot"
    assert source.spec.build_pattern == DEFAULT_BUILD_PATTERN
    assert source.metric == "mrr"
    assert source.direction == "higher"
    assert source.samples == "runs"
    assert settings.windows.short == timedelta(days=7)
    assert settings.windows.long == timedelta(days=90)
    assert settings.windows.failed == timedelta(days=7)
    assert settings.plotlyjs == "bundled"
    assert settings.search == "exact"


def test_bare_string_source_means_paths_and_urls_stay_untouched() -> None:
    settings, issues = validate(
        {"trending_sources": {"s": ["https://ci.example.org/x.xml", "/abs/y.xml"]}}, BASE
    )
    assert issues == []
    assert settings.sources["s"].spec.paths == ("https://ci.example.org/x.xml", "/abs/y.xml")


def test_bad_values_are_reported_by_key_and_fall_back() -> None:
    settings, issues = validate(
        {
            "trending_sources": {
                "mrr": {"paths": "x.xml", "format": "excel", "direction": "up", "colour": 1},
                "empty": {"paths": []},
                "broken": {"paths": "y.xml", "build_pattern": "(unclosed"},
            },
            "trending_short_term_days": -1,
            "trending_plotlyjs": "http://insecure.example/plotly.js",
            "trending_search": "fastest",
            "trending_window_mode": "weeks",
        },
        BASE,
    )
    keys = {issue.key for issue in issues}
    assert "trending_sources['mrr']['format']" in keys
    assert "trending_sources['mrr']['direction']" in keys
    assert "trending_sources['mrr']['colour']" in keys
    assert "trending_sources['empty']" in keys
    assert "trending_sources['broken']['build_pattern']" in keys
    assert {
        "trending_short_term_days",
        "trending_plotlyjs",
        "trending_search",
        "trending_window_mode",
    } <= keys
    assert set(settings.sources) == {"mrr", "broken"}
    assert settings.sources["mrr"].spec.format == "robot"
    assert settings.sources["mrr"].direction == "higher"
    assert settings.sources["broken"].spec.build_pattern == DEFAULT_BUILD_PATTERN
    assert settings.windows.short == timedelta(days=7)
    assert settings.plotlyjs == "bundled"
    assert settings.search == "exact"
    assert settings.windows.mode == "time"


def test_long_window_must_exceed_short_window() -> None:
    settings, issues = validate(
        {"trending_short_term_days": 30, "trending_long_term_days": 14}, BASE
    )
    assert [issue.key for issue in issues] == ["trending_long_term_days"]
    assert settings.windows.long == timedelta(days=90)


def test_testbed_accepts_a_pattern_or_an_address_map() -> None:
    settings, issues = validate(
        {
            "trending_sources": {
                "a": {"paths": "a.xml", "testbed": r"(?P<testbed>\dn-\w+)$"},
                "b": {"paths": "b.xml", "testbed": {"10.0.0.1": "2n-skx"}},
            }
        },
        BASE,
    )
    assert issues == []
    assert settings.sources["a"].spec.testbed_pattern == r"(?P<testbed>\dn-\w+)$"
    assert dict(settings.sources["b"].spec.testbed_map) == {"10.0.0.1": "2n-skx"}


def test_not_a_dict_of_sources_is_reported() -> None:
    settings, issues = validate({"trending_sources": ["x.xml"]}, BASE)
    assert [issue.key for issue in issues] == ["trending_sources"]
    assert settings.sources == {}


def test_build_pattern_without_job_or_build_group_leaves_the_source_out() -> None:
    settings, issues = validate(
        {"trending_sources": {"s": {"paths": "x.xml", "build_pattern": r"\d+"}}}, BASE
    )
    assert settings.sources == {}
    assert [issue.key for issue in issues] == ["trending_sources['s']"]
    assert "neither a (?P<job>...)" in issues[0].message


def test_degradation_strategies_are_validated() -> None:
    rules = [{"tags": "mrr and 1t1c", "method": "aat"}, {"method": "wtt", "alpha": 0.01}]
    settings, issues = validate(
        {"trending_degradation_strategies": rules, "trending_degradation_apply": "all"}, BASE
    )
    assert issues == []
    assert settings.strategies is not None and settings.strategies.apply == "all"
    assert [rule.method.name for rule in settings.strategies.rules] == [
        "average_amount_threshold",
        "welch_t_test",
    ]
    settings, issues = validate({"trending_degradation_strategies": [{"method": "nope"}]}, BASE)
    assert [issue.key for issue in issues] == ["trending_degradation_strategies"]
    assert settings.strategies is None
