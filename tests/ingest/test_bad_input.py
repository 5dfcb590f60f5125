"""Bad input: a clear problem naming file and line, and the rest still ingested."""

from __future__ import annotations

import gzip
from pathlib import Path

from tests.ingest.conftest import RF6, RF7_DAILY, load_paths

RF6_TEXT = (RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml").read_text()

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<robot generated="20230101 00:00:00.000"><suite name="S"><test name="t">
<status status="PASS" starttime="20230101 00:00:00.000"
 endtime="20230101 00:00:01.000">&lol9;</status>
</test><status status="PASS" starttime="20230101 00:00:00.000" endtime="20230101 00:00:02.000"/>
</suite></robot>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE robot [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
<robot generated="20230101 00:00:00.000"><suite name="S"><test name="t">
<status status="PASS" starttime="20230101 00:00:00.000"
 endtime="20230101 00:00:01.000">&secret;</status>
</test><status status="PASS" starttime="20230101 00:00:00.000" endtime="20230101 00:00:02.000"/>
</suite></robot>
"""


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_truncated_xml_names_file_and_line_and_keeps_the_rest(tmp_path: Path) -> None:
    cut = RF6_TEXT[: RF6_TEXT.index('<test id="s1-s2-t1"')] + '<test id="s1-s2-t1" name="x'
    truncated = _write(tmp_path, "job__1__output.xml", cut)
    _write(tmp_path, "job__2__output.xml", RF6_TEXT)
    dataset = load_paths(tmp_path)
    (problem,) = dataset.problems
    assert problem.origin == str(truncated) and problem.subtype == "parse"
    assert problem.line == cut.count("\n") + 1
    assert "kept the 2 tests read before it" in problem.message
    builds = {build.build: build for build in dataset.builds}
    assert len(builds["1"].tests) == 2
    assert builds["1"].time.isoformat() == "2023-03-15T03:10:00+00:00"  # the generated time
    assert len(builds["2"].tests) == 4


def test_malformed_xml_line_number(tmp_path: Path) -> None:
    lines = RF6_TEXT.splitlines()
    lines[20] = lines[20].replace("<tag>", "<tag", 1)
    path = _write(tmp_path, "job__1__output.xml", "\n".join(lines))
    (problem,) = load_paths(path).problems
    assert problem.line in (21, 22)
    assert str(problem).startswith(f"{path}:{problem.line}: malformed XML")


def test_not_xml_at_all(tmp_path: Path) -> None:
    path = _write(tmp_path, "job__1__output.xml", "this is a log file, not XML\n")
    dataset = load_paths(path)
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert (problem.subtype, problem.line) == ("parse", 1)


def test_xml_without_tests(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "job__1__output.xml",
        '<robot generated="20230101 00:00:00.000"><suite name="S"/></robot>',
    )
    other = _write(tmp_path, "junit.xml", "<testsuites><testsuite/></testsuites>")
    dataset = load_paths(path, other)
    assert dataset.builds == []
    assert sorted((p.origin, p.message) for p in dataset.problems) == [
        (str(path), "no test found in this file"),
        (str(other), "no test found in this file"),
    ]


def test_billion_laughs_is_refused_before_any_expansion(tmp_path: Path) -> None:
    path = _write(tmp_path, "job__1__output.xml", BILLION_LAUGHS)
    good = _write(tmp_path, "job__2__output.xml", RF6_TEXT)
    dataset = load_paths(path, good)
    assert [b.build for b in dataset.builds] == ["2"]
    (problem,) = dataset.problems
    assert problem.origin == str(path) and "document type declaration refused" in problem.message


def test_external_entity_is_refused_and_never_read(tmp_path: Path) -> None:
    path = _write(tmp_path, "job__1__output.xml.gz", gzip.compress(EXTERNAL_ENTITY.encode()))
    dataset = load_paths(path)
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert "document type declaration refused" in problem.message
    assert "root:" not in str(dataset)


def test_doctype_in_utf16_is_refused_too(tmp_path: Path) -> None:
    text = EXTERNAL_ENTITY.replace(
        '<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>'
    )
    path = _write(tmp_path, "job__1__output.xml", text.encode("utf-16"))
    (problem,) = load_paths(path).problems
    assert "document type declaration refused" in problem.message


def test_malformed_trial_list_keeps_the_test_without_results(tmp_path: Path) -> None:
    text = RF6_TEXT.replace("[23606123.4, 23711010.0, 23688549.7]", "[23606123.4, n/a, 23688549.7]")
    path = _write(tmp_path, "job__1__output.xml", text)
    dataset = load_paths(path)
    (problem,) = dataset.problems
    assert problem.subtype == "data" and problem.origin == str(path)
    assert (
        "64B-1c-ethip4-ip4base-mrr" in problem.message
        and "'n/a' is not a number" in problem.message
    )
    test = dataset.builds[0].tests[0]
    assert test.status == "PASS" and test.measurements == ()
    assert dataset.builds[0].tests[1].measurement("mrr") is not None


def test_duplicate_builds_keep_one_and_warn(tmp_path: Path) -> None:
    first = sorted(RF7_DAILY.glob("*.xml.gz"))[0]
    copy = tmp_path / "copy" / first.name
    copy.parent.mkdir()
    copy.write_bytes(first.read_bytes())
    dataset = load_paths(RF7_DAILY, copy)
    assert len(dataset.builds) == 6
    duplicates = [p for p in dataset.problems if p.subtype == "duplicate"]
    assert len(duplicates) == 1
    kept, dropped = sorted([str(first), str(copy)])  # the first input in resolve order wins
    assert duplicates[0].origin == dropped
    assert kept in duplicates[0].message
    assert {b.origin for b in dataset.builds} & {str(first), str(copy)} == {kept}


def test_missing_paths_and_empty_globs_are_source_problems(tmp_path: Path) -> None:
    dataset = load_paths(tmp_path / "absent.xml", tmp_path / "*.xml.gz", RF7_DAILY)
    assert len(dataset.builds) == 6
    assert [(p.subtype, p.origin) for p in dataset.problems] == [
        ("source", str(tmp_path / "absent.xml")),
        ("source", str(tmp_path / "*.xml.gz")),
    ]


def test_doctype_hidden_behind_a_comment_is_still_refused(tmp_path: Path) -> None:
    """The prolog scan is fooled by '<a' in a comment; the parser-level check is not."""
    text = BILLION_LAUGHS.replace("<!DOCTYPE", "<!-- <a trick --><!DOCTYPE", 1)
    path = _write(tmp_path, "job__1__output.xml", text)
    (problem,) = load_paths(path).problems
    assert "document type declaration refused" in problem.message
