"""Configuration validation: bad values warn by key and fall back, never crash."""

from datetime import timedelta
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import AnomalyPolicy
from sphinxcontrib_trending.cli.sources import read_conf
from sphinxcontrib_trending.ingest.spec import DEFAULT_BUILD_PATTERN
from sphinxcontrib_trending.judging import trend_options
from sphinxcontrib_trending.settings import OPTIONS, validate

BASE = Path("/site")


def test_minimal_csit_configuration_is_complete() -> None:
    settings, issues = validate({"trending_sources": {"mrr": {"paths": ["a/*.xml.gz"]}}}, BASE)
    assert issues == []
    source = settings.sources["mrr"]
    assert source.spec.paths == ("/site/a/*.xml.gz",)
    assert source.spec.format == "robot"
    assert source.spec.build_pattern == DEFAULT_BUILD_PATTERN
    assert source.metric == "mrr"
    assert source.direction is None  # left to the metric table
    assert source.direction_for("mrr") == "higher"
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


def test_a_misspelt_source_key_names_the_source_and_the_nearest_key() -> None:
    settings, issues = validate({"trending_sources": {"mrr": {"path": "x.xml"}}}, BASE)
    assert settings.sources == {}
    typo = issues[0]
    assert typo.key == "trending_sources['mrr']['path']"
    assert typo.source == "mrr" and typo.option == "trending_sources"
    assert "unknown key 'path'; did you mean 'paths'?" in str(typo)
    assert [str(issue) for issue in issues[1:]] == [
        "trending_sources['mrr']: has no 'paths'; the source is left out"
    ]


def test_unknown_keys_of_dict_options_suggest_the_nearest() -> None:
    settings, issues = validate({"trending_anomaly_policy": {"min_confidance": 0.9}}, BASE)
    assert [issue.key for issue in issues] == ["trending_anomaly_policy['min_confidance']"]
    assert "did you mean 'min_confidence'?" in issues[0].message
    assert settings.policy == AnomalyPolicy()


def test_a_misspelt_option_name_is_an_issue_with_a_suggestion() -> None:
    _, issues = validate({"trending_source": {"mrr": "x.xml"}, "html_theme": "x"}, BASE)
    assert [issue.key for issue in issues] == ["trending_source"]
    assert "did you mean 'trending_sources'?" in issues[0].message


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_a_value_of_the_wrong_type_is_exactly_one_issue_and_falls_back(name: str) -> None:
    settings, issues = validate({name: object()}, BASE)
    assert [issue.key for issue in issues] == [name]
    assert f"expected {OPTIONS[name].doc_type}" in issues[0].message
    assert settings == validate({}, BASE)[0]


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_the_declared_default_is_valid_and_of_a_declared_type(name: str) -> None:
    option = OPTIONS[name]
    assert option.accepts(option.default)
    assert validate({name: option.fresh_default()}, BASE)[1] == []
    assert option.rebuild in ("env", "html", "")
    assert option.help.endswith(".")


def test_fractional_days_are_valid_and_booleans_are_not_numbers() -> None:
    settings, issues = validate({"trending_short_term_days": 3.5}, BASE)
    assert issues == [] and settings.windows.short == timedelta(days=3.5)
    _, issues = validate({"trending_sbps": True}, BASE)
    assert [issue.key for issue in issues] == ["trending_sbps"]


def test_presentation_and_cache_options_do_not_re_read_pages() -> None:
    assert OPTIONS["trending_plotlyjs"].rebuild == "html"
    assert OPTIONS["trending_cache_dir"].rebuild == ""
    assert OPTIONS["trending_docs_base_url"].rebuild == ""
    assert OPTIONS["trending_sources"].rebuild == "env"


def test_the_cli_reads_conf_py_through_the_same_declarations(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        "trending_sources = {'mrr': {'path': 'x.xml'}, 'ok': 'y.xml'}\n"
        "trending_short_term_days = 3.5\n"
        "trending_serach = 'jumpavg'\n"
    )
    settings, issues = read_conf(tmp_path)
    assert settings.windows.short == timedelta(days=3.5)
    assert list(settings.sources) == ["ok"]
    assert [(issue.key, issue.source) for issue in issues] == [
        ("trending_serach", None),
        ("trending_sources['mrr']['path']", "mrr"),
        ("trending_sources['mrr']", "mrr"),
    ]
    assert "did you mean 'trending_search'?" in issues[0].message
    assert "did you mean 'paths'?" in issues[1].message


@pytest.mark.parametrize("bad", [-1, True, 2.5, "3"])
def test_outlier_runs_must_be_a_count_or_none(bad: object) -> None:
    settings, issues = validate({"trending_outlier_runs": bad}, BASE)
    assert [issue.key for issue in issues] == ["trending_outlier_runs"]
    assert settings.outlier_runs is None


@pytest.mark.parametrize("runs", [0, 2, None])
def test_outlier_runs_reach_the_trend_options(runs: int | None) -> None:
    settings, issues = validate(
        {"trending_sources": {"a": "x.xml"}, "trending_outlier_runs": runs}, BASE
    )
    assert issues == [] and settings.outlier_runs == runs
    assert trend_options(settings, settings.sources["a"], "mrr").outlier_runs == runs


def test_a_parquet_source_takes_days_and_metrics() -> None:
    store = {"paths": "s3://bucket/trending", "format": "parquet"}
    settings, issues = validate(
        {"trending_sources": {"s": {**store, "days": 180, "metrics": ["mrr", "ndr"]}}}, BASE
    )
    assert issues == []
    spec = settings.sources["s"].spec
    assert (spec.paths, spec.days, spec.metrics) == (("s3://bucket/trending",), 180, ("mrr", "ndr"))
    settings, issues = validate(
        {"trending_sources": {"s": {**store, "days": "half a year", "metrics": "mrr"}}}, BASE
    )
    assert [issue.key for issue in issues] == [
        "trending_sources['s']['days']",
        "trending_sources['s']['metrics']",
    ]
    assert (settings.sources["s"].spec.days, settings.sources["s"].spec.metrics) == (None, None)
    settings, issues = validate({"trending_sources": {"s": {"paths": "x.xml", "days": 3}}}, BASE)
    assert settings.sources == {}
    assert "days does not apply to format 'robot'" in issues[0].message


def test_a_false_alarm_target_reaches_the_trend_options() -> None:
    conf = {"trending_sources": {"a": "x.xml"}, "trending_false_alarm_target": 0.5}
    settings, issues = validate(conf, BASE)
    assert issues == [] and settings.false_alarm_target == 0.5
    assert trend_options(settings, settings.sources["a"], "mrr").false_alarm_target == 0.5
    settings, issues = validate({**conf, "trending_false_alarm_target": -1}, BASE)
    assert [issue.key for issue in issues] == ["trending_false_alarm_target"]
    assert settings.false_alarm_target is None
