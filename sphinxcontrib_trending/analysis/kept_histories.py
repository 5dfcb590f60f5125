"""A source's histories of one metric kept between builds, so a new build gathers only its runs.

Gathering histories reads every build's columns of the metric and numbers
every test run (:class:`.history.Gathering`): at CSIT's size, 3.6 million
runs for each build of the site, though a new build adds 20,000.  So a
gathering made from a results store is kept in the cache folder as
columns: its runs as Arrow files (*segments*, memory-mapped when read
back), and a small state naming its builds, its histories and each one's
newest test.  The next build whose first builds are exactly the kept ones
(the same jobs, build numbers and times, read from the same content-named
data files, with as many tests) goes on from there and gathers only the
builds after them, then appends their runs as one more segment.

Anything else (a build changed, went or came between kept ones, a build
not read from a store, a latency metric, whose percentiles are other
measurements) gathers every build again and starts a new kept gathering:
the histories are the same either way, which the tests check run by run.
Kept runs are written as read (averages, deviations, trials, statuses,
messages, hosts, environments), so what a view shows of a kept run is
what it would show of the run read again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.ipc as ipc

from sphinxcontrib_trending.analysis.history import (
    Gathering,
    KeptHeads,
    RunBatch,
    TestHistory,
    histories,
)
from sphinxcontrib_trending.analysis.test_run import RunBuild
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.engine.pages import small_pages
from sphinxcontrib_trending.ingest.atomic import replaced_atomically, write_atomically
from sphinxcontrib_trending.ingest.dimensions import DimensionRules
from sphinxcontrib_trending.ingest.metrics import latency_base
from sphinxcontrib_trending.ingest.model import Build, TestHead, TestResult
from sphinxcontrib_trending.ingest.store.lazy_columns import (
    CodedTexts,
    SameValue,
    TextColumn,
    TrialsColumn,
)
from sphinxcontrib_trending.ingest.store.stored_tests import StoredTests

KEPT_FORMAT = "sphinxcontrib-trending/kept-histories/1"
"""Change it when what is kept, or how, changes: older kept gatherings are then gathered again."""

MAX_SEGMENTS = 32
"""Segments a kept gathering may have: one more is written as one with all the others."""

CHUNK_ROWS = 1 << 20
"""Runs a segment's record batches hold at least (the last one excepted)."""

CODED = ("status", "hosts", "environment", "unit")
"""Text columns kept as codes into one list of names per segment (kept in the state)."""

_SCHEMA = pa.schema(
    [
        ("history", pa.int32()),
        ("build", pa.int32()),
        ("average", pa.float64()),
        ("stdev", pa.float64()),
        ("with_metric", pa.bool_()),
        ("measured", pa.bool_()),
        ("failed", pa.bool_()),
        *((name, pa.int32()) for name in CODED),
        ("message", pa.string()),
        ("trials", pa.list_(pa.float64())),
    ]
)

BuildMark = list[Any]
"""What tells a kept build from another: JSON-like, compared as it is."""


def build_mark(build: Build) -> BuildMark | None:
    """``build``'s mark, or None for a build not read from our store (not kept)."""
    tests = build.tests
    if type(tests) is not StoredTests or not tests.provenance:
        return None
    return [
        build.job,
        build.build,
        build.time.isoformat(),
        build.dut_version,
        build.testbed,
        list(tests.provenance),
        len(tests),
    ]


@dataclass
class _Kept:
    """A kept gathering as read back: what :meth:`.Gathering.resume` takes, and its files."""

    marks: list[BuildMark]
    histories: list[tuple[str | None, str]]
    builds: list[tuple[datetime, RunBuild]]
    batches: list[RunBatch]
    segments: list[dict[str, Any]]


class KeptHistories:
    """The kept gatherings of one source read one way, in ``folder`` (a file set per metric).

    ``warn`` hears of a kept gathering that could not be read or written;
    the histories are gathered all the same.  Only a ``writer`` writes: one
    process per cache folder (a site's parallel readers read what the main
    process kept, but two writers could each remove the other's segments).
    """

    def __init__(self, folder: Path, warn: Callable[[str], None], *, writer: bool = True) -> None:
        self.folder = folder
        self.warn = warn
        self.writer = writer

    def histories(
        self, builds: Sequence[Build], metric: str, rules: DimensionRules
    ) -> list[TestHistory]:
        """:func:`.history.histories` of ``builds``, gathering only builds not kept."""
        marks = [build_mark(build) for build in builds]
        if latency_base(metric) is not None or None in marks:
            return histories(builds, metric, rules=rules)
        with collector_paused(), small_pages():  # see engine.pages
            kept = self._read(metric, marks)
            gathering = Gathering(metric)
            if kept is not None:
                gathering.resume(kept.histories, kept.builds, kept.batches)
            done = len(kept.marks) if kept is not None else 0
            gathering.add(builds[done:])
            found = gathering.histories(False, rules)
            if self.writer and (kept is None or done < len(builds)):
                self._write(metric, marks, gathering, kept)
            return found

    def _paths(self, metric: str) -> tuple[Path, str]:
        """The state file of ``metric``'s kept gathering, and its segments' name prefix."""
        name = hashlib.sha256(metric.encode()).hexdigest()[:16]
        return self.folder / f"{name}.json", name

    def _read(self, metric: str, marks: list[BuildMark | None]) -> _Kept | None:
        state_path, _ = self._paths(metric)
        try:
            state = json.loads(state_path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            self.warn(f"kept histories {state_path}: unreadable ({error}); gathered again")
            return None
        try:
            if state["format"] != KEPT_FORMAT or state["metric"] != metric:
                return None
            kept_marks = state["marks"]
            if kept_marks != marks[: len(kept_marks)]:
                return None  # a build changed or came among the kept ones
            return _Kept(
                kept_marks,
                [(testbed, test_id) for testbed, test_id in state["histories"]],
                [
                    (datetime.fromisoformat(time), RunBuild.of(*origin))
                    for time, origin in state["builds"]
                ],
                self._batches(state),
                state["segments"],
            )
        except (OSError, ValueError, KeyError, TypeError, IndexError, pa.ArrowException) as error:
            self.warn(f"kept histories {state_path}: unusable ({error}); gathered again")
            return None

    def _batches(self, state: dict[str, Any]) -> list[RunBatch]:
        heads = KeptHeads(
            [
                TestHead(
                    sys.intern(test_id),
                    sys.intern(name),
                    sys.intern(suite),
                    tuple(map(sys.intern, tags)),
                    thread_core,
                    tuple((key, value) for key, value in attributes),
                )
                for test_id, name, suite, tags, thread_core, attributes in state["heads"]
            ]
        )
        batches = []
        for segment in state["segments"]:
            reader = ipc.open_file(pa.memory_map(str(self.folder / segment["file"])))
            records = [reader.get_batch(at) for at in range(reader.num_record_batches)]
            rows = sum(record.num_rows for record in records)
            if rows != segment["rows"] or not reader.schema.equals(_SCHEMA):
                raise ValueError(f"segment {segment['file']} is not the one kept")
            names = {
                column: [None if name is None else sys.intern(name) for name in listed]
                for column, listed in segment["names"].items()
            }
            # a batch per record batch, whose columns are the mapped file's own: joined
            # into one they were copied twice, once here and again by the gathering
            batches.extend(_batch_of(record, names, heads) for record in records)
        return batches

    def _write(
        self,
        metric: str,
        marks: list[BuildMark | None],
        gathering: Gathering,
        kept: _Kept | None,
    ) -> None:
        state_path, prefix = self._paths(metric)
        segments = [] if kept is None else list(kept.segments)
        first = 0 if kept is None else len(kept.batches)
        if len(segments) >= MAX_SEGMENTS:
            segments, first = [], 0  # all the runs again, as one segment
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            segments.append(self._segment(prefix, gathering.batches[first:]))
            state = {
                "format": KEPT_FORMAT,
                "metric": metric,
                "marks": marks,
                "histories": gathering.numbered(),
                "builds": [
                    [
                        time.isoformat(),
                        [origin.job, origin.build, origin.dut_version, origin.testbed],
                    ]
                    for time, origin in zip(gathering.times, gathering.origins, strict=True)
                ],
                "heads": [_head_cells(test) for test in gathering.heads()],
                "segments": segments,
            }
            write_atomically(state_path, [json.dumps(state).encode()])
        except OSError as error:
            self.warn(f"kept histories {state_path}: not written ({error})")
            return
        listed = {segment["file"] for segment in segments}
        for old in self.folder.glob(f"{prefix}.*.arrow"):  # replaced, or of an older gathering
            if old.name not in listed:
                with contextlib.suppress(OSError):
                    old.unlink()

    def _segment(self, prefix: str, batches: list[RunBatch]) -> dict[str, Any]:
        """Write ``batches``' runs as one segment file; its entry in the state."""
        names: dict[str, dict[str | None, int]] = {column: {} for column in CODED}
        file = f"{prefix}.{uuid.uuid4().hex}.arrow"
        rows = written = 0
        pending: list[pa.RecordBatch] = []
        path = self.folder / file
        with replaced_atomically(path) as stream, ipc.new_file(stream, _SCHEMA) as writer:
            for at, batch in enumerate(batches):
                pending.append(_record_batch(batch, names))
                rows += batch.rows()
                if rows - written >= CHUNK_ROWS or at == len(batches) - 1:
                    # few long chunks: each column reads back as an array or two
                    writer.write_table(pa.Table.from_batches(pending).combine_chunks())
                    pending, written = [], rows
        return {
            "file": file,
            "rows": rows,
            "names": {key: list(value) for key, value in names.items()},
        }


def _head_cells(test: TestResult | TestHead) -> list[Any]:
    return [
        test.test_id,
        test.name,
        test.suite,
        list(test.tags),
        test.thread_core,
        [list(pair) for pair in test.attributes],
    ]


def _codes(texts: CodedTexts, united: dict[str | None, int]) -> pa.Array:
    """``texts`` as codes into ``united`` (grown with its names)."""
    mapping = np.array(
        [united.setdefault(name, len(united)) for name in texts.names], dtype=np.int32
    )
    return pa.array(mapping[texts.codes] if len(texts.codes) else np.zeros(0, dtype=np.int32))


def _units(batch: RunBatch) -> CodedTexts | Sequence[str | None]:
    """A batch's units as codes where one unit is shared by its tests that measured the metric."""
    if isinstance(batch.units, str):
        return CodedTexts([None, batch.units], batch.with_metric.astype(np.int32))
    return batch.units


def _record_batch(batch: RunBatch, names: dict[str, dict[str | None, int]]) -> pa.RecordBatch:
    statuses, messages, hosts, _, _, environments = batch.details
    coded = dict(zip(CODED, (statuses, hosts, environments, _units(batch)), strict=True))
    trials = batch.trials
    # Gathering.add gives a store's runs as these (KeptHistories keeps no other)
    if not (
        all(isinstance(texts, CodedTexts) for texts in coded.values())
        and isinstance(messages, TextColumn)
        and isinstance(trials, TrialsColumn)
    ):
        raise TypeError("only runs read from a store are kept")
    return pa.record_batch(
        [
            pa.array(batch.histories),
            pa.array(batch.row_builds()),
            pa.array(batch.averages),
            pa.array(batch.stdevs),
            pa.array(batch.with_metric),
            pa.array(batch.measured),
            pa.array(batch.failed),
            *(_codes(texts, names[column]) for column, texts in coded.items()),  # type: ignore[arg-type]
            messages.arrow(),
            trials.arrow(),
        ],
        schema=_SCHEMA,
    )


def _batch_of(
    record: pa.RecordBatch, names: dict[str, list[str | None]], heads: KeptHeads
) -> RunBatch:
    """A record batch of a segment read back as runs; ``names`` are the segment's
    coded texts, one list per column its batches share (joined without recoding)."""

    def array(column: str) -> npt.NDArray[Any]:
        return record.column(column).to_numpy(zero_copy_only=False)  # bools are bits

    def coded(column: str) -> CodedTexts:
        return CodedTexts(names[column], array(column))

    def chunked(column: str) -> pa.ChunkedArray:
        return pa.chunked_array([record.column(column)])

    count = record.num_rows
    nothing = SameValue((), count)
    return RunBatch(
        array("history"),
        heads,
        coded("unit"),
        array("with_metric"),
        array("measured"),
        array("failed"),
        array("build"),
        array("average"),
        array("stdev"),
        TrialsColumn.of_arrow(chunked("trials")),
        (
            coded("status"),
            TextColumn.of_arrow(chunked("message")),
            coded("hosts"),
            nothing,
            nothing,
            coded("environment"),
        ),
    )
