"""URL templates for builds and versions: values quoted, fields checked, sources override."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sphinxcontrib_trending.conf.links import COMPARE_FIELDS, LinkTemplates, check_link_template
from sphinxcontrib_trending.settings import validate

BASE = Path("/docs")
JENKINS = "https://jenkins.example.org/job/{job}/{build}/"
COMMITS = "https://git.example.org/commit/{version}?testbed={testbed}"


def test_each_value_is_quoted_whole_so_data_cannot_change_the_address() -> None:
    links = LinkTemplates(JENKINS, COMMITS)
    assert links.build_url("perf daily", "12", None, None) == (
        "https://jenkins.example.org/job/perf%20daily/12/"
    )
    assert links.version_url("j", "1", "26.02/../x?y=1#z", "2n-icx") == (
        "https://git.example.org/commit/26.02%2F..%2Fx%3Fy%3D1%23z?testbed=2n-icx"
    )


def test_a_field_the_data_does_not_give_leaves_no_link() -> None:
    links = LinkTemplates(JENKINS, COMMITS)
    assert links.version_url("j", "1", None, "2n-icx") is None
    assert links.version_url("j", "1", "v1", None) is None  # {testbed} unknown
    assert LinkTemplates().build_url("j", "1", "v", "t") is None


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("javascript:alert(1)//{job}", "expected an http:// or https:// URL template"),
        ("https://x/{job.__class__}", "field {job.__class__} reaches into a value"),
        ("https://x/{version.__class__}", "field {version.__class__} reaches into a value"),
        ("https://x/{job[0]}", "field {job[0]} reaches into a value"),
        ("https://x/{0}", "unknown field {0}"),
        ("https://x/{job!r}", "unknown field {job}"),
        ("https://x/{job:>9}", "unknown field {job}"),
        ("https://x/{", "Single '{'"),
    ],
)
def test_only_http_templates_of_the_four_fields_are_accepted(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        check_link_template(template)


def test_a_sources_templates_win_over_conf_py_and_bad_ones_are_issues() -> None:
    settings, issues = validate(
        {
            "trending_build_url": JENKINS,
            "trending_version_url": "ftp://nope/{version}",
            "trending_sources": {
                "mrr": {"paths": ["a.xml"], "version_url": COMMITS},
                "ndr": {"paths": ["b.xml"], "build_url": "https://other/{build}"},
            },
        },
        BASE,
    )
    assert settings.sources["mrr"].links == LinkTemplates(JENKINS, COMMITS, None)
    assert settings.sources["ndr"].links == LinkTemplates("https://other/{build}", None)
    (issue,) = issues
    assert issue.key == "trending_version_url" and "http://" in issue.message


COMPARE = "https://github.com/org/dut/compare/{last_good}...{first_bad}?on={testbed}"


def test_a_compare_link_names_both_ends_of_a_change_quoted_whole() -> None:
    links = LinkTemplates(compare=COMPARE)
    assert links.compare_url("v1", 'v2"><script>&x', "job", "2n") == (
        "https://github.com/org/dut/compare/v1...v2%22%3E%3Cscript%3E%26x?on=2n"
    )


def test_no_compare_link_without_both_versions_or_between_one_version() -> None:
    links = LinkTemplates(compare=COMPARE)
    assert links.compare_url(None, "v2", "job", "2n") is None
    assert links.compare_url("v2", "v2", "job", "2n") is None
    assert links.compare_url("v1", "v2", "job", None) is None  # {testbed} unknown
    assert LinkTemplates().compare_url("v1", "v2", "job", "2n") is None


def test_compare_templates_take_their_own_fields() -> None:
    assert check_link_template(COMPARE, COMPARE_FIELDS) == COMPARE
    with pytest.raises(ValueError, match=r"unknown field \{version\}"):
        check_link_template("https://x/{version}", COMPARE_FIELDS)
    with pytest.raises(ValueError, match=r"reaches into a value"):
        check_link_template("https://x/{last_good.__class__}", COMPARE_FIELDS)


def test_a_templates_braces_stay_literal_and_nothing_is_formatted() -> None:
    links = LinkTemplates(build="https://x/{{job}}/{job}")
    assert links.build_url("{build}", "1", None, None) == "https://x/{job}/%7Bbuild%7D"


def test_a_sources_compare_template_wins_and_a_hostile_one_is_refused() -> None:
    settings, issues = validate(
        {
            "trending_compare_url": COMPARE,
            "trending_sources": {
                "mrr": {"paths": ["a.xml"]},
                "ndr": {"paths": ["b.xml"], "compare_url": "https://x/{last_good}..{first_bad}"},
                "pdr": {"paths": ["c.xml"], "compare_url": "https://x/{first_bad.__class__}"},
            },
        },
        BASE,
    )
    assert settings.sources["mrr"].links.compare == COMPARE
    assert settings.sources["ndr"].links.compare == "https://x/{last_good}..{first_bad}"
    assert settings.sources["pdr"].links.compare == COMPARE
    (issue,) = issues
    assert "compare_url" in issue.key and "reaches into a value" in issue.message


def test_a_hostile_conf_py_compare_template_is_a_config_issue() -> None:
    _settings, issues = validate({"trending_compare_url": "https://x/{last_good.__init__}"}, BASE)
    (issue,) = issues
    assert issue.key == "trending_compare_url" and "reaches into a value" in issue.message
