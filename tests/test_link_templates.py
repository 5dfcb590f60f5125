"""URL templates for builds and versions: values quoted, fields checked, sources override."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxcontrib_trending.conf.links import LinkTemplates, check_link_template
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
        ("https://x/{job.__class__}", "unknown field {job.__class__}"),
        ("https://x/{0}", "unknown field {0}"),
        ("https://x/{job!r}", "unknown field {job}"),
        ("https://x/{job:>9}", "unknown field {job}"),
        ("https://x/{", "Single '{'"),
    ],
)
def test_only_http_templates_of_the_four_fields_are_accepted(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("(", r"\(")):
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
    assert settings.sources["mrr"].links == LinkTemplates(JENKINS, COMMITS)
    assert settings.sources["ndr"].links == LinkTemplates("https://other/{build}", None)
    (issue,) = issues
    assert issue.key == "trending_version_url" and "http://" in issue.message
