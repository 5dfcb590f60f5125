"""``check --send``: the alert reaches a real local SMTP server, or stays on disk."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.cli import main
from tests.archives import ArchiveCache
from tools.make_robot_archive import DEFAULT_JOB, Change


@pytest.fixture(scope="module")
def archive(robot_archive: ArchiveCache) -> Path:
    return robot_archive(
        builds=6, changes=[Change("tc01-64b-1t1c-ethip4-ip4base-mrr", 5, 0.7)], seed=2
    )


def _argv(archive: Path, target: Path, port: int, *extra: str) -> list[str]:
    return [
        "check",
        str(archive),
        "--email",
        str(target),
        "--send",
        "--smtp-host",
        "127.0.0.1",
        "--smtp-port",
        str(port),
        "--mail-from",
        "ci@example.org",
        "--mail-to",
        "dev@example.org",
        "--mail-to",
        "ops@example.org",
        "--smtp-timeout",
        "10",
        *extra,
    ]


def test_send_delivers_the_message_kept_on_disk(
    archive: Path,
    tmp_path: Path,
    start_smtp: Callable[..., Any],
    credentials: tuple[str, str],
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    user, password = credentials
    server = start_smtp("starttls", auth=True)
    monkeypatch.setenv("CI_MAIL_PASSWORD", password)
    target = tmp_path / "alert.eml"
    argv = _argv(archive, target, server.port, "--smtp-user", user)
    argv += ["--smtp-password-env", "CI_MAIL_PASSWORD", "--smtp-ca-file", str(certificate[0])]
    assert main(argv) == 1
    assert "alert e-mail sent to dev@example.org, ops@example.org" in capsys.readouterr().out
    assert server.recorder.logins == [(user, password)]
    (envelope,) = server.recorder.envelopes
    assert envelope.rcpt_tos == ["dev@example.org", "ops@example.org"]
    received = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
    kept = email.message_from_bytes(target.read_bytes(), policy=email.policy.default)
    assert received["Message-ID"] == kept["Message-ID"]
    # The subject is folded before its long job name; CPython's parser keeps
    # the folding space in front of the unfolded value, hence strip().
    assert received["Subject"].strip() == f"[trending] FAIL: 1 regression in {DEFAULT_JOB}/6"
    # named as every view names it: testbed, NIC, driver, frame size, cores, the rest
    assert " 64b 1t1c ethip4-ip4base-mrr" in received.get_body(("plain",)).get_content()


def test_server_down_keeps_the_message_and_exits_3(
    archive: Path, tmp_path: Path, free_port: Callable[[], int], capsys
) -> None:
    target = tmp_path / "alert.eml"
    port = free_port()
    assert main(_argv(archive, target, port, "--smtp-security", "none")) == 3
    err = capsys.readouterr().err
    assert f"alert e-mail not sent: 127.0.0.1:{port} (none):" in err
    assert f"the message is kept in {target}" in err
    kept = email.message_from_bytes(target.read_bytes(), policy=email.policy.default)
    assert kept["To"] == "dev@example.org, ops@example.org"


def test_a_passing_gate_still_reports_a_failed_delivery(
    archive: Path, tmp_path: Path, free_port: Callable[[], int], capsys
) -> None:
    target = tmp_path / "alert.eml"
    argv = _argv(archive, target, free_port(), "--smtp-security", "none", "--fail-on", "")
    assert main(argv) == 3
    assert target.exists()
    assert "alert e-mail not sent" in capsys.readouterr().err
