"""A build's failures grouped by masked message."""

from __future__ import annotations

from dataclasses import replace

from sphinxcontrib_trending.analysis.failures import failure_groups, failure_key
from tests.hand_built import builds, result


def test_failures_group_by_masked_message_largest_first() -> None:
    (build,) = builds({"ok": lambda n: 5e6}, [1])
    failed = [
        replace(result("a", None), message="No route to 10.30.51.49 at 2026-01-01 06:00:01"),
        replace(result("b", None), message="Interface 0000:86:00.1 down"),
        replace(result("c", None), message=" No route to 10.30.51.50 at 2026-01-01 06:10:13\n"),
        replace(result("d", None), status="SKIP", message="skipped: not on this testbed"),
    ]
    build = replace(build, tests=(*build.tests, *failed))
    groups = failure_groups(build)
    assert [(group.message, [t.name for t in group.tests]) for group in groups] == [
        ("No route to <IPv4> at <TIME>", ["a", "c"]),
        ("Interface <PCI> down", ["b"]),
    ]
    only_b = failure_groups(build, accept=lambda test: test.name == "b")
    assert [group.message for group in only_b] == ["Interface <PCI> down"]


def test_a_teardown_failing_too_does_not_split_a_root_cause() -> None:
    (build,) = builds({"ok": lambda n: 5e6}, [1])
    failed = [
        replace(result("a", None), message="No traffic\n\nAlso teardown failed:\nSSH to 10.0.0.1"),
        replace(result("b", None), message="No traffic\n\nAlso teardown failed:\nPID 4242 hung"),
        replace(result("c", None), message="No traffic"),
    ]
    build = replace(build, tests=(*build.tests, *failed))
    groups = failure_groups(build)
    assert [(group.message, len(group.tests)) for group in groups] == [("No traffic", 3)]
    assert failure_key("Setup failed: x\nAlso suite teardown failed: y") == "Setup failed: x"
