"""Time cutting a store's builds into histories, as a site build's histories phase does.

Usage::

    python benchmarks/bench_histories.py --store PATH [--metric mrr] [--repeat 5]
        [--profile [--sort tottime]]

The store is read once (as the parquet format); then each repetition makes
every history of the metric anew with :func:`.histories` and the default
dimension rules, as ``source_histories`` does for a source with no
``dimensions`` option.  Printed: the series count and the median and lowest
seconds of a repetition, in the process's CPU time (on a machine others
load, a wait for the processor is not the code's), and the median of its
user part alone: the system part is mostly the kernel handing out new
pages, which costs several times as much from one run to the next there.  ``--profile`` prints
instead the 40 functions one repetition spends most time in (cProfile,
ordered by ``--sort``: ``cumulative`` or ``tottime``).

It times the code it imports: run it with one tree, then the other, in
turn, to compare two versions.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import resource
import statistics
import sys
import time
from collections.abc import Sequence

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.dimensions import rules_for


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="a trending store")
    parser.add_argument("--metric", default="mrr")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sort", default="cumulative", help="the profile's order")
    args = parser.parse_args(argv)
    builds = list(load(SourceSpec(paths=(args.store,), format="parquet")).builds)
    rules = rules_for(SourceSpec(paths=(args.store,)).dimensions)
    gc.collect()
    gc.freeze()  # as a build freezes what it loaded
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(histories, builds, args.metric, rules=rules)
        pstats.Stats(profile).sort_stats(args.sort).print_stats(40)
        return 0
    seconds, user = [], []
    count = 0
    for _ in range(args.repeat):
        started, started_user = (
            time.process_time(),
            resource.getrusage(resource.RUSAGE_SELF).ru_utime,
        )
        count = len(histories(builds, args.metric, rules=rules))
        seconds.append(time.process_time() - started)
        user.append(resource.getrusage(resource.RUSAGE_SELF).ru_utime - started_user)
        gc.collect()
    print(
        f"{count} series of {len(builds)} builds: histories"
        f" {statistics.median(seconds):.3f} s CPU median, {min(seconds):.3f} lowest,"
        f" user {statistics.median(user):.3f} s median ({args.repeat} repetitions)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
