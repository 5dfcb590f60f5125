"""Masking volatile tokens in CSIT-style failure messages."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.analysis.masking import mask


@pytest.mark.parametrize(
    ("message", "masked"),
    [
        (
            "Setup failed:\nSSHTimeout: Timeout exception during execution of command on "
            "10.30.51.49:22: sudo -E sh -c 'cat /proc/meminfo'",
            "Setup failed:\nSSHTimeout: Timeout exception during execution of command on "
            "<IPv4>:22: sudo -E sh -c 'cat /proc/meminfo'",
        ),
        (
            "Test Setup failed: Interface 0000:86:00.1 (3c:fd:fe:b8:45:e0) not found on DUT1",
            "Test Setup failed: Interface <PCI> (<MAC>) not found on DUT1",
        ),
        (
            "Traffic flow not received: expected at least 1 packets, received 0 from "
            "2001:db8:0:1::2 via fe80::3efd:feff:feb8:45e0%enp134s0f1",
            "Traffic flow not received: expected at least 1 packets, received 0 from "
            "<IPv6> via <IPv6>%enp134s0f1",
        ),
        ("Trex started at 20240501 10:00:00.123 and died", "Trex started at <TIME> and died"),
        (
            "Container 3f2a9b7c1d0e exited at 2024-05-01T10:00:00.123456Z",
            "Container <HEX> exited at <TIME>",
        ),
        ("sw_if_index 0x1f not in table", "sw_if_index <HEX> not in table"),
        ("Uuid 123e4567-e89b-12d3-a456-426614174000 busy", "Uuid <UUID> busy"),
        ("MAC 3C-FD-FE-B8-45-E0 on ::ffff:10.0.0.1", "MAC <MAC> on <IPv6>"),
        ("Elapsed 10:11:12 on 192.168.1.255/24", "Elapsed <TIME> on <IPv4>/24"),
    ],
)
def test_volatile_tokens_become_placeholders(message: str, masked: str) -> None:
    assert mask(message) == masked


@pytest.mark.parametrize(
    "message",
    [
        "Received 10000000 packets, expected 12000000",  # counts tell failures apart
        "64b-2t1c-ethip4-ip4base-mrr failed after 3 retries",
        "deadbeef is a word here; cafe too",  # hex-looking words without a digit
        "version 1.2.3 and ratio 0.5",  # not four octets
        "ip 300.1.1.1 is no address",
        "time 10:00 is not a clock with seconds",
    ],
)
def test_words_and_counts_stay(message: str) -> None:
    assert mask(message) == message


def test_same_failure_on_other_hosts_masks_to_one_message() -> None:
    runs = [
        "Failed to connect to 10.30.51.49:22 (MAC 3c:fd:fe:b8:45:e0) at 2026-11-01 06:00:01",
        "Failed to connect to 10.30.51.50:22 (MAC 3c:fd:fe:b8:45:e1) at 2026-11-02 06:03:17",
    ]
    assert len({mask(message) for message in runs}) == 1
    assert mask("Received 0 packets") != mask("Received 5 packets")
