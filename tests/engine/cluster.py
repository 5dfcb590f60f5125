"""A real Dask cluster for tests: ``dask scheduler`` and ``dask worker`` subprocesses."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DASK = str(Path(sys.executable).with_name("dask"))
STARTUP_SECONDS = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Cluster:
    """The processes of one cluster; :meth:`stop` ends every one of them."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def processes(self) -> list[subprocess.Popen[bytes]]:
        return [self.scheduler, *self.workers]

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill(process)


def _spawn(*arguments: str, log: Path) -> subprocess.Popen[bytes]:
    # workers import the tests' task module by name, so the checkout is on their path
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("ab") as output:
        return subprocess.Popen(
            [DASK, *arguments],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )


def start_cluster(logs: Path, workers: int = 2) -> Cluster:
    """A scheduler on a free port of 127.0.0.1 and ``workers`` one-thread workers.

    Workers run without a nanny, so killing one kills the worker itself and
    nothing restarts it: the scheduler has to move its tasks elsewhere.
    """
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _spawn(
        "scheduler",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-dashboard",
        log=logs / "scheduler.log",
    )
    cluster = Cluster(address, scheduler)
    try:
        for number in range(workers):
            cluster.workers.append(
                _spawn(
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--host",
                    "127.0.0.1",
                    "--name",
                    f"worker-{number}",
                    "--death-timeout",
                    "30",
                    log=logs / f"worker-{number}.log",
                )
            )
        with Client(address, timeout=STARTUP_SECONDS) as client:
            client.wait_for_workers(workers, timeout=STARTUP_SECONDS)
    except BaseException:
        cluster.stop()
        raise
    return cluster
