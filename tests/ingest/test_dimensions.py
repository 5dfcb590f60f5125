"""Dimensions derived from real CSIT test ids, tags and model fields, and their overrides."""

from __future__ import annotations

import re

import pytest

from sphinxcontrib_trending.ingest.dimensions import (
    Dimensions,
    compile_rule,
    display_name,
    overrides_from,
    rules_for,
)
from sphinxcontrib_trending.ingest.model import TestResult
from sphinxcontrib_trending.ingest.options import SpecError, compile_options
from sphinxcontrib_trending.ingest.spec import SourceSpec


def result_of(
    test_id: str,
    tags: tuple[str, ...] = (),
    attributes: tuple[tuple[str, str], ...] = (),
    name: str | None = None,
) -> TestResult:
    return TestResult(
        test_id=test_id,
        name=name if name is not None else test_id.rpartition(".")[2],
        suite=test_id.rpartition(".")[0],
        tags=tags,
        status="PASS",
        start=None,
        message="",
        attributes=attributes,
    )


# Test ids as the reference's trending specification and JSON model name them
# (resources/tools/presentation/specifications, the *.info.json test_id field).
REAL = [
    (
        "tests.vpp.perf.ip4.2n1l-100ge2p1e810cq-avf-ethip4-ip4base-mrr."
        "64b-2t1c-avf-ethip4-ip4base-mrr",
        ("100ge2p1e810cq", "avf", "64b", "2T1C", "mrr"),
    ),
    (
        "tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-avf-ethip4tcp-nat44ed-h16384-p63-s1032192-cps-"
        "ndrpdr.64b-2t1c-avf-ethip4tcp-nat44ed-h16384-p63-s1032192-cps-ndrpdr",
        ("25ge2p1xxv710", "avf", "64b", "2T1C", "ndrpdr"),
    ),
    (
        "tests.dpdk.perf.25ge2p1xxv710-eth-l2xcbase-testpmd-ndrpdr."
        "64b-1t1c-eth-l2xcbase-testpmd-ndrpdr",
        ("25ge2p1xxv710", "dpdk", "64b", "1T1C", "ndrpdr"),
    ),
    (
        "tests.vpp.perf.l2.2n-25ge2p1xxv710-eth-l2bd-10ch-20mif-10dcr1t-vppip4-ndrpdr."
        "imix-2t1c-eth-l2bd-10ch-20mif-10dcr1t-vppip4-ndrpdr",
        ("25ge2p1xxv710", "dpdk", "imix", "2T1C", "ndrpdr"),
    ),
    (
        "tests.vpp.perf.ip4.2n1l-100ge2p1cx556a-rdma-ethip4-ip4base-soak."
        "1518b-4t2c-rdma-ethip4-ip4base-soak",
        ("100ge2p1cx556a", "rdma", "1518b", "4T2C", "soak"),
    ),
    (
        "tests.vpp.perf.ip4.2n1l-100ge2p1e810cq-af-xdp-ethip4-ip4base-mrr."
        "9000b-2t1c-af-xdp-ethip4-ip4base-mrr",
        ("100ge2p1e810cq", "af-xdp", "9000b", "2T1C", "mrr"),
    ),
    (
        "tests.vpp.perf.crypto.10ge2p1x710-ethip4ipsec40tnlsw-1atnl-ip4base-int-aes128gcm-reconf."
        "64b-1c-ethip4ipsec40tnlsw-1atnl-ip4base-int-aes128gcm-reconf",
        ("10ge2p1x710", "dpdk", "64b", "1C", "reconf"),
    ),
    (
        "tests.vpp.perf.hoststack.2n1l-10ge2p1x710-eth-ip4tcphttp-ldpreload-nginx-1_21_5-cps."
        "1280b-1c-eth-ip4tcphttp-ldpreload-nginx-1_21_5-cps",
        ("10ge2p1x710", "dpdk", "1280b", "1C", "hoststack"),
    ),
    (
        "tests.vpp.perf.ip4.2n1l-200ge2p1cx7veat-rdma-ethip4-ip4base-mrr."
        "64b-8t4c-rdma-ethip4-ip4base-mrr",
        ("200ge2p1cx7veat", "rdma", "64b", "8T4C", "mrr"),
    ),
]


@pytest.mark.parametrize(("test_id", "expected"), REAL)
def test_real_csit_ids_give_nic_driver_frame_cores_and_type(
    test_id: str, expected: tuple[str, ...]
) -> None:
    found = rules_for().derive(result_of(test_id), "2n-icx")
    assert (found.nic, found.driver, found.frame_size, found.cores, found.test_type) == expected
    assert found.testbed == "2n-icx"


def test_a_csit_case_names_its_cores_as_csit_dash_reads_them() -> None:
    # A run tags itself "2T1C" besides the suite's "1C"; csit-dash reads "1c" from the name.
    test = result_of(
        "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-ndrpdr.64b-1c-ethip4-ip4base-ndrpdr",
        tags=("NDRPDR", "NIC_Intel-X710", "DRV_VFIO_PCI", "64B", "1C", "2T1C"),
        name="64B-1c-ethip4-ip4base-ndrpdr",
    )
    found = rules_for().derive(test, None)
    assert found == Dimensions(None, "10ge2p1x710", "dpdk", "64b", "1C", "ndrpdr")
    assert display_name(test.name, found) == "10ge2p1x710 dpdk 64b 1c ethip4-ip4base-ndrpdr"


def test_a_name_without_the_csit_slots_takes_its_cores_from_the_tags() -> None:
    test = result_of("suite.ethip4-ip4base-1c-ndrpdr", tags=("NDRPDR", "2T1C"))
    assert rules_for().derive(test, None).cores == "2T1C"


def test_tags_alone_name_nic_driver_frame_and_type() -> None:
    test = result_of("suite.case", tags=("NIC_Intel-E810CQ", "DRV_AVF", "IMIX_V4_1", "2T1C", "MRR"))
    found = rules_for().derive(test, "3n-icx")
    assert found == Dimensions("3n-icx", "intel-e810cq", "avf", "imix", "2T1C", "mrr")


def test_the_model_test_type_wins_over_tags_and_name() -> None:
    test = result_of("s.64b-1c-x-mrr", tags=("NDRPDR",), attributes=(("test_type", "soak"),))
    assert rules_for().derive(test, None).test_type == "soak"


def test_generic_tests_have_no_hardware_and_keep_their_names() -> None:
    test = result_of("parser.parse-small-file", tags=("2T1C",))
    found = rules_for().derive(test, None)
    assert (found.nic, found.driver, found.frame_size, found.test_type) == (None,) * 4
    assert found.cores == "2T1C"
    assert display_name("parse-small-file", found) == "parse-small-file"


def test_no_false_tokens_inside_words() -> None:
    # "ip4base" holds no frame size, "x710" alone is no NIC, "10ch" no cores.
    test = result_of("s.x710-ethip4-ip4base-10ch-mrr")
    found = rules_for().derive(test, None)
    assert (found.nic, found.frame_size, found.cores) == (None, None, None)


def test_display_names_tell_nics_and_drivers_apart_and_are_stable() -> None:
    names = set()
    for suite in (
        "2n1l-100ge2p1e810cq-avf-ethip4-ip4base-mrr",
        "2n1l-10ge2p1x710-avf-ethip4-ip4base-mrr",
        "2n1l-100ge2p1e810cq-ethip4-ip4base-mrr",
    ):
        case = (
            "64b-2t1c-avf-ethip4-ip4base-mrr" if "avf" in suite else "64b-2t1c-ethip4-ip4base-mrr"
        )
        test = result_of(f"tests.vpp.perf.ip4.{suite}.{case}", tags=("2T1C",))
        found = rules_for().derive(test, "2n-icx")
        shown = display_name(test.name, found)
        names.add(shown)
        # named again (an export read back in): the same name
        again = rules_for().derive(result_of(test.test_id, tags=("2T1C",), name=shown), "2n-icx")
        assert again == found
        assert display_name(shown, again) == shown
    assert names == {
        "2n-icx 100ge2p1e810cq avf 64b 2t1c ethip4-ip4base-mrr",
        "2n-icx 10ge2p1x710 avf 64b 2t1c ethip4-ip4base-mrr",
        "2n-icx 100ge2p1e810cq dpdk 64b 2t1c ethip4-ip4base-mrr",
    }


def test_labels_name_every_known_dimension() -> None:
    found = Dimensions("2n-icx", "10ge2p1x710", "dpdk", None, "2T1C", "mrr")
    assert found.labels() == (
        "testbed=2n-icx",
        "nic=10ge2p1x710",
        "driver=dpdk",
        "cores=2T1C",
        "test_type=mrr",
    )


def test_overrides_replace_one_rule_each() -> None:
    rules = rules_for(
        overrides_from(
            {
                "nic": "tag:NIC_",
                "driver": r"-(?P<value>avf|rdma)-",
                "frame_size": r"(\d+)b-",
                "test_type": "",
            }
        )
    )
    test = result_of(
        "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-mrr.64b-2t1c-ethip4-ip4base-mrr",
        tags=("NIC_Intel-X710", "MRR", "2T1C"),
    )
    found = rules.derive(test, "2n-icx")
    # nic from the tag, no driver matched, frame size from the first group, no test type
    assert found == Dimensions("2n-icx", "intel-x710", None, "64", "2T1C", None)
    assert rules_for().derive(test, "2n-icx").nic == "10ge2p1x710"


def test_an_override_on_testbed_reads_the_test_not_the_build() -> None:
    rules = rules_for(overrides_from({"testbed": r"\.(\dn-[a-z]+)-"}))
    assert rules.derive(result_of("tests.x.3n-icx-case.y"), "2n-skx").testbed == "3n-icx"


@pytest.mark.parametrize(
    ("mapping", "complaint"),
    [
        ({"nics": "x"}, "unknown dimension 'nics'"),
        ({"nic": "(unclosed"}, "dimension 'nic': '(unclosed' is not a valid regular"),
        ({"driver": "tag:"}, "'tag:' needs a tag prefix"),
        ({"cores": 3}, "expected a regular expression or 'tag:PREFIX', got 3"),
    ],
)
def test_bad_overrides_are_named(mapping: dict, complaint: str) -> None:
    with pytest.raises(ValueError, match=re.escape(complaint)):
        overrides_from(mapping)


def test_a_bad_override_in_a_spec_is_a_spec_error() -> None:
    spec = SourceSpec(paths=("x",), dimensions=(("nic", "[a-"),))
    with pytest.raises(SpecError, match="dimension 'nic'"):
        compile_options(spec)


def test_rules_are_compiled_once_per_option() -> None:
    assert rules_for((("nic", "tag:NIC_"),)) is rules_for((("nic", "tag:NIC_"),))
    assert compile_rule("nic", "")(result_of("s.10ge2p1x710-x.y"), None) is None


def test_a_source_declares_its_rules_once_and_a_bad_one_is_a_config_issue() -> None:
    from pathlib import Path

    from sphinxcontrib_trending.settings import validate

    settings, issues = validate(
        {
            "trending_sources": {
                "good": {"paths": "a.xml", "dimensions": {"nic": "tag:NIC_", "frame-size": ""}},
                "bad": {"paths": "b.xml", "dimensions": {"nics": "x"}},
            }
        },
        Path("/conf"),
    )
    assert settings.sources["good"].spec.dimensions == (("frame_size", ""), ("nic", "tag:NIC_"))
    assert settings.sources["bad"].spec.dimensions == ()
    (issue,) = issues
    assert "trending_sources['bad']['dimensions']" in str(issue)
    assert "unknown dimension 'nics'" in str(issue) and "built-in rules are used" in str(issue)


# Real ids from CSIT's suite generator, with what csit-dash derives from them.
CSIT_DASH = [
    (  # an Octeon testbed's vfio-pci test runs the octeon plugin
        "tests.vpp.perf.ip4.100ge2p1a063-ethip4-ip4base-mrr.64b-1c-ethip4-ip4base-mrr",
        ("NIC_Cavium-A063-100G", "DRV_VFIO_PCI", "64B", "1C", "MRR"),
        "3n-oct",
        ("100ge2p1a063", "octeon", "64b", "1C"),
    ),
    (  # the same on any other testbed is DPDK's
        "tests.vpp.perf.ip4.2n1l-100ge2p1e810cq-ethip4-ip4base-mrr.64b-1c-ethip4-ip4base-mrr",
        ("NIC_Intel-E810CQ", "DRV_VFIO_PCI", "64B", "1C", "MRR"),
        "3na-spr",
        ("100ge2p1e810cq", "dpdk", "64b", "1C"),
    ),
    (  # GSO sends 128 kB TCP segments
        "tests.vpp.perf.gso.2n1l-100ge2p1e810cq-ethip4-ip4base-2tap-gso-iperf3-mrr."
        "128kb-1c-ethip4-ip4base-2tap-gso-iperf3-mrr",
        ("NIC_Intel-E810CQ", "DRV_TAP", "GSO_TRUE", "128KB", "1C", "MRR"),
        "2n-icx",
        ("100ge2p1e810cq", "dpdk", "128kb", "1C"),
    ),
    (  # TRex's case leaves the cores slot empty: csit-dash lists it as 8C
        "tests.trex.perf.ip4.1n1l-100ge2p1e810cq-ethip4-ip4base-tg-ndrpdr."
        "64b--ethip4-ip4base-tg-ndrpdr",
        ("NIC_Intel-E810CQ", "TG_DRV_IGB_UIO", "64B", "NDRPDR"),
        "2n-spr",
        ("100ge2p1e810cq", "dpdk", "64b", "8C"),
    ),
]


@pytest.mark.parametrize(("test_id", "tags", "testbed", "expected"), CSIT_DASH)
def test_real_ids_get_csit_dashs_nic_driver_frame_size_and_cores(
    test_id: str, tags: tuple[str, ...], testbed: str, expected: tuple[str, ...]
) -> None:
    found = rules_for().derive(result_of(test_id, tags=tags), testbed)
    assert (found.nic, found.driver, found.frame_size, found.cores) == expected


def test_a_gso_frame_size_tag_is_read_when_the_name_has_none() -> None:
    assert rules_for().derive(result_of("suite.case", tags=("128KB",)), None).frame_size == "128kb"


def test_the_rules_name_a_test_as_every_view_shows_it() -> None:
    test = result_of(CSIT_DASH[0][0], tags=CSIT_DASH[0][1])
    assert rules_for().display_name(test, "3n-oct") == (
        "3n-oct 100ge2p1a063 octeon 64b 1c ethip4-ip4base-mrr"
    )
