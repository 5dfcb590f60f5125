"""A source can say where a generic Robot Framework test keeps its values."""

from pathlib import Path

from sphinxcontrib_trending.settings import validate

BASE = Path("/site")


def test_value_keys_reach_the_source_spec() -> None:
    raw = {
        "paths": "results/**/output.xml",
        "value_pattern": r"response: (?P<value>[\d.]+) ms",
        "value_keyword": "Measure Response Time",
        "metric": "response",
    }
    settings, issues = validate({"trending_sources": {"shop": raw}}, BASE)
    assert issues == []
    spec = settings.sources["shop"].spec
    assert (spec.value_pattern, spec.value_keyword) == (raw["value_pattern"], raw["value_keyword"])


def test_unusable_value_keys_name_the_source_and_key() -> None:
    settings, issues = validate(
        {
            "trending_sources": {
                "unnamed": {"paths": "x.xml", "value_pattern": r"took ([\d.]+) s"},
                "badtype": {
                    "paths": "x.xml",
                    "value_pattern": r"(?P<value>\d+)",
                    "value_keyword": 3,
                },
                "tables": {"paths": "x.csv", "format": "csv", "value_pattern": r"(?P<value>\d+)"},
            }
        },
        BASE,
    )
    messages = {issue.key: issue.message for issue in issues}
    assert "has no named group" in messages["trending_sources['unnamed']"]
    assert "expected a keyword name" in messages["trending_sources['badtype']['value_keyword']"]
    assert "does not apply to format 'csv'" in messages["trending_sources['tables']"]
    assert set(settings.sources) == {"badtype"}
