"""Outliers: short excursions that leave a group and come straight back.

The search describes a history as groups only, so a single odd run costs two
boundaries: a group of its own, a regression into it and a progression out.
The description-length model gets one more code word instead, the
*excursion*: inside a group, a stretch of at most ``K`` runs (``max_runs``)
described on its own.  Its bits are

* 1 bit saying "an excursion follows" and ``log2(n - 1)`` for where it sits
  among the ``n - 1`` gaps between the group's ``n`` inlier runs; adjacent
  excursions (a block of ``K`` runs at most, each at its own level) share
  the flag and the position and pay one bit for each further one;
* its values, coded as a group of its own whose average is coded against the
  surrounding group's average (:meth:`~.bits.BitModel.group_bits`).

A group without excursions pays nothing more, so a history without outliers
has exactly the description length (and partition) it had before.  The
derivation and the choice of this post-pass over an in-search code are in
``docs/methodology/grouping.rst`` ("Outliers").

:func:`find_outliers` runs after the search, on the partition it found:
wherever ``A | B | A'`` with ``B`` of at most ``K`` runs is cheaper as one
group ``A + A'`` with ``B`` an excursion, it merges them (best saving first);
a merged group is then re-checked against its neighbours, and merged with
one when the partition without that boundary is cheaper.  Then, by rule and
not by bits, excursions that a short return to their level separates from a
step become excursions of that level (:func:`_returns_at_steps`), and a
short group that overshoots both neighbouring levels at a step becomes an
excursion of the nearer one (:func:`_overshoots_at_steps`).
Group statistics are those of the inlier runs only.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from sphinxcontrib_trending.analysis.bits import BitModel
from sphinxcontrib_trending.analysis.confidence import merged_stats
from sphinxcontrib_trending.analysis.greedy import Partition

DEFAULT_OUTLIER_RUNS = 3
"""``K`` of the exact search: excursions of up to three runs can be outliers."""

DISSOLVE_RUNS = 3
"""A wide group of up to this many times ``K`` runs is tried as a level plus
excursions (:meth:`_Merger._dissolved`): a bound on the work, not on the model."""

Stats = tuple[int, float, float]


@dataclass(frozen=True)
class Excursion:
    """Outlier runs ``[start, stop)`` (present-run positions) and their statistics."""

    start: int
    stop: int
    stats: Stats


class _Group(NamedTuple):
    """A group of the partition, with its excursions; a merge makes a new one, never
    changes one (a tuple: the pass makes and prices hundreds per series)."""

    start: int
    stop: int
    inliers: int
    """Runs of the group that are not outliers."""
    stats: Stats
    """(trials, avg, stdev) of the inlier runs."""
    excursions: tuple[Excursion, ...] = ()
    excursion_avgs: tuple[float, ...] = ()
    excursion_rest: float = 0.0
    """The excursions' bits but their averages': see :meth:`_Pricer.excursions`."""
    blocks: int = 0
    """Stretches of adjacent excursions: each pays one flag and one position."""
    excursion_bits: float = 0.0
    """All the excursions' bits (:meth:`_Pricer.excursions`): they depend on this group
    alone, and each group is priced against several neighbours."""


@dataclass(frozen=True)
class OutlierPartition:
    """A partition whose groups may hold outlier excursions.

    ``partition`` has one entry per group (starts in present-run positions,
    statistics of the inlier runs, ``bits`` including the excursions');
    ``excursions`` holds each group's excursions.
    """

    partition: Partition
    excursions: tuple[tuple[Excursion, ...], ...]


class _Pricer:
    """Bits of groups, each coded after the previous group's average.

    An excursion's bits are its flag and position, its values as a group
    coded without a previous average, minus that uniform average code, plus
    its average coded against the surrounding group's.  Only the last part
    depends on the group, so a group keeps the rest summed and the
    excursions' averages apart: a merged group's excursions are re-priced
    with one numpy logarithm, however many it holds.
    """

    def __init__(self, model: BitModel) -> None:
        self.model = model

    def excursion_rest(self, excursion: Excursion) -> float:
        """An excursion's values but its average: a group's bits but the uniform average."""
        size, avg, stdev = excursion.stats
        return self.model.group_bits(size, avg, stdev, None) - self.model.first_avg_bits

    def excursions(
        self, stats: Stats, inliers: int, avgs: tuple[float, ...], rest: float, blocks: int
    ) -> float:
        """Bits of the excursions of a group of these ``stats`` and ``inliers``: each
        block's flags and position, each excursion's values (``rest``, and the ``avgs``
        coded here).

        The jumps are the elementwise numpy expression's, in Python floats (which
        round alike): four numpy calls on one or two values cost more than the
        rest of a merge.
        """
        count = len(avgs)
        if not count:
            return 0.0
        model = self.model
        avg, unit = stats[1], model.unit
        jumps = np.array([abs(other - avg) / unit + 1.0 for other in avgs])
        averages = count * math.log2(model.norm(avg)) - float(np.log2(jumps).sum())
        return rest + blocks * math.log2(max(inliers - 1, 1)) + averages

    def group(self, group: _Group, previous: _Group | None) -> float:
        size, avg, stdev = group.stats
        prev_avg = None if previous is None else previous.stats[1]
        return self.model.group_bits(size, avg, stdev, prev_avg) + group.excursion_bits

    def stretch(self, groups: list[_Group], before: _Group | None, after: _Group | None) -> float:
        """Bits of ``groups`` after ``before``, plus ``after``'s, coded against their average."""
        total = 0.0
        previous = before
        for group in groups:
            total += self.group(group, previous)
            previous = group
        if after is not None:
            total += self.group(after, previous)
        return total

    def merge(self, first: _Group, second: _Group, middle: tuple[_Group, ...] = ()) -> _Group:
        """``first`` and ``second`` as one group, each group of ``middle`` an excursion
        between them (adjacent excursions, each coded on its own)."""
        gaps = tuple(Excursion(group.start, group.stop, group.stats) for group in middle)
        excursions = (*first.excursions, *gaps, *second.excursions)
        avgs = (
            *first.excursion_avgs,
            *(group.stats[1] for group in middle),
            *second.excursion_avgs,
        )
        rest = first.excursion_rest + second.excursion_rest
        blocks = first.blocks + second.blocks
        if gaps:
            # one flag for the block, one bit for each excursion that follows right after
            rest += 1.0 + (len(gaps) - 1) + sum(self.excursion_rest(gap) for gap in gaps)
            blocks += 1
        inliers = first.inliers + second.inliers
        stats = merged_stats(first.stats, second.stats)
        return _Group(
            start=first.start,
            stop=second.stop,
            inliers=inliers,
            stats=stats,
            excursions=excursions,
            excursion_avgs=avgs,
            excursion_rest=rest,
            blocks=blocks,
            excursion_bits=self.excursions(stats, inliers, avgs, rest, blocks),
        )

    def dissolve(
        self, first: _Group, second: _Group, noisy: _Group, runs: Sequence[Stats], away: set[int]
    ) -> _Group:
        """``first`` and ``second`` as one group with the runs of ``noisy`` between
        them: those in ``away`` excursions (adjacent ones a block), the others inliers."""
        stats = merged_stats(first.stats, second.stats)
        inliers = first.inliers + second.inliers
        blocks: list[list[Excursion]] = []
        for run in range(noisy.start, noisy.stop):
            if run not in away:
                stats = merged_stats(stats, runs[run])
                inliers += 1
            elif blocks and blocks[-1][-1].stop == run:
                blocks[-1].append(Excursion(run, run + 1, runs[run]))
            else:
                blocks.append([Excursion(run, run + 1, runs[run])])
        gaps = [gap for block in blocks for gap in block]
        rest = first.excursion_rest + second.excursion_rest
        # per block: one flag, one bit for each excursion that follows right after
        rest += sum(float(len(block)) for block in blocks)
        rest += sum(self.excursion_rest(gap) for gap in gaps)
        avgs = (*first.excursion_avgs, *(gap.stats[1] for gap in gaps), *second.excursion_avgs)
        count = first.blocks + second.blocks + len(blocks)
        return _Group(
            start=first.start,
            stop=second.stop,
            inliers=inliers,
            stats=stats,
            excursions=(*first.excursions, *gaps, *second.excursions),
            excursion_avgs=avgs,
            excursion_rest=rest,
            blocks=count,
            excursion_bits=self.excursions(stats, inliers, avgs, rest, count),
        )

    def edge_excursion(self, group: _Group, excursion: _Group) -> _Group:
        """``group`` with ``excursion``, the group right before or after it, as an
        excursion at its start or end, coded like one inside it."""
        gap = Excursion(excursion.start, excursion.stop, excursion.stats)
        first = excursion.start < group.start
        avgs = (excursion.stats[1], *group.excursion_avgs)
        if not first:
            avgs = (*group.excursion_avgs, excursion.stats[1])
        rest = group.excursion_rest + 1.0 + self.excursion_rest(gap)
        blocks = group.blocks + 1
        return group._replace(
            start=excursion.start if first else group.start,
            stop=group.stop if first else excursion.stop,
            excursions=(gap, *group.excursions) if first else (*group.excursions, gap),
            excursion_avgs=avgs,
            excursion_rest=rest,
            blocks=blocks,
            excursion_bits=self.excursions(group.stats, group.inliers, avgs, rest, blocks),
        )


class _Chain:
    """The groups as a linked list: a merge replaces neighbours by a new node.

    Nodes are never changed, only replaced, so a candidate priced on some
    nodes is still valid exactly when those nodes are all still linked the
    same way.
    """

    def __init__(self, groups: list[_Group]) -> None:
        count = len(groups)
        self.groups = dict(enumerate(groups))
        self.before: dict[int, int | None] = {i: i - 1 if i else None for i in range(count)}
        self.after: dict[int, int | None] = {
            i: i + 1 if i + 1 < count else None for i in range(count)
        }
        self.fresh = count

    def group(self, node: int | None) -> _Group | None:
        return None if node is None else self.groups[node]

    def window(self, node: int, width: int = 1) -> tuple[int | None, ...] | None:
        """The nodes a merge around ``width`` nodes from ``node`` on is priced on: two
        either side, and those; None when fewer than ``width`` nodes follow."""
        middle = [node]
        while len(middle) < width:
            following = self.after[middle[-1]]
            if following is None:
                return None
            middle.append(following)
        back = self.before[node]
        front = self.after[middle[-1]]
        return (
            None if back is None else self.before[back],
            back,
            *middle,
            front,
            None if front is None else self.after[front],
        )

    def alive(self, window: tuple[int | None, ...]) -> bool:
        middle = window[2]
        return middle in self.groups and self.window(middle, len(window) - 4) == window

    def replace(self, first: int, last: int, merged: _Group) -> int:
        """Replace the nodes from ``first`` to ``last`` (linked) with ``merged``."""
        node = self.fresh
        self.fresh += 1
        back, front = self.before[first], self.after[last]
        current: int | None = first
        while current is not None:
            following = self.after[current] if current != last else None
            del self.groups[current], self.before[current], self.after[current]
            current = following
        self.groups[node] = merged
        self.before[node], self.after[node] = back, front
        if back is not None:
            self.after[back] = node
        if front is not None:
            self.before[front] = node
        return node

    def near(self, node: int, reach: int) -> list[int]:
        """``node`` and up to ``reach`` nodes either side of it."""
        nodes = [node]
        back: int | None = node
        front: int | None = node
        for _ in range(reach):
            back = None if back is None else self.before[back]
            front = None if front is None else self.after[front]
            nodes += [side for side in (back, front) if side is not None]
        return nodes

    def ordered(self) -> list[_Group]:
        first = next(node for node, back in self.before.items() if back is None)
        groups = []
        node: int | None = first
        while node is not None:
            groups.append(self.groups[node])
            node = self.after[node]
        return groups


class _Merger:
    """Applies the best excursion first, re-checks, and re-prices only around each change."""

    def __init__(
        self, chain: _Chain, pricer: _Pricer, max_runs: int, runs: Sequence[Stats]
    ) -> None:
        self.chain = chain
        self.pricer = pricer
        self.max_runs = max_runs
        self.runs = runs
        # (-saving, order queued, window, merged group): the order breaks ties
        self.queue: list[tuple[float, int, tuple[int | None, ...], _Group]] = []
        self.queued = 0

    def consider(self, middle: int) -> None:
        """Queue each excursion starting at ``middle`` that saves bits: one or more
        adjacent groups of ``K`` runs in all at most, one excursion per group; and
        the group at ``middle`` as some excursions and some inlier runs."""
        chain = self.chain
        group = chain.groups[middle]
        if _dissolvable(group, self.max_runs):
            window = chain.window(middle)
            if window is not None and window[1] is not None and window[3] is not None:
                self._queue(window, *self._dissolved(window))
        if group.inliers > self.max_runs:  # too long to be an excursion, alone or with others
            return
        for width in range(1, self.max_runs + 1):
            window = chain.window(middle, width)
            if window is None:
                return
            back, front = window[1], window[-2]
            excursions = tuple(chain.groups[node] for node in window[2:-2])  # type: ignore[index]
            if sum(group.inliers for group in excursions) > self.max_runs:
                return
            if excursions[-1].excursions:
                return
            if back is None or front is None:
                continue
            first, second = chain.groups[back], chain.groups[front]
            merged = self.pricer.merge(first, second, excursions)
            saved = self._saving([first, *excursions, second], merged, window[0], window[-1])
            self._queue(window, saved, merged)

    def _queue(self, window: tuple[int | None, ...], saved: float, merged: _Group | None) -> None:
        if saved > 0.0 and merged is not None:
            heapq.heappush(self.queue, (-saved, self.queued, window, merged))
            self.queued += 1

    def _dissolved(self, window: tuple[int | None, ...]) -> tuple[float, _Group | None]:
        """The best saving of ``A | G | A'`` as one group with some of ``G``'s runs as
        excursions, the rest inliers; ``(0.0, None)`` when none saves bits.

        The search may put an odd run and its neighbours into one wide group ``G``
        (its spread is cheaper than two more boundaries), so there is no short
        group to take out.  The runs of ``G`` farthest from the level of ``A``
        and ``A'`` are tried as excursions, one more at a time, as long as no
        stretch of them is longer than ``K``.
        """
        chain = self.chain
        back, middle, front = window[1], window[2], window[3]
        assert back is not None and middle is not None and front is not None
        noisy = chain.groups[middle]
        first, second = chain.groups[back], chain.groups[front]
        level = merged_stats(first.stats, second.stats)[1]
        runs = range(noisy.start, noisy.stop)
        farthest = sorted(runs, key=lambda run: -abs(self.runs[run][1] - level))
        best: tuple[float, _Group | None] = (0.0, None)
        away: set[int] = set()
        for run in farthest[:-1]:
            away.add(run)
            if _longest_stretch(away) > self.max_runs:
                break
            merged = self.pricer.dissolve(first, second, noisy, self.runs, away)
            saved = self._saving([first, noisy, second], merged, window[0], window[4])
            if saved > best[0]:
                best = (saved, merged)
        return best

    def _saving(
        self, apart: list[_Group], merged: _Group, before: int | None, after: int | None
    ) -> float:
        chain, pricer = self.chain, self.pricer
        outside = chain.group(before), chain.group(after)
        return pricer.stretch(apart, *outside) - pricer.stretch([merged], *outside)

    def run(self) -> bool:
        """Merge while an excursion saves bits; whether anything was merged."""
        for node in list(self.chain.groups):
            self.consider(node)
        merged_any = False
        while self.queue:
            _, _, window, merged = heapq.heappop(self.queue)
            if not self.chain.alive(window):
                continue
            back, front = window[1], window[-2]
            assert back is not None and front is not None
            node = self._recheck(self.chain.replace(back, front, merged))
            for near in self.chain.near(node, self.max_runs + 1):
                self.consider(near)
            merged_any = True
        return merged_any

    def _recheck(self, node: int) -> int:
        """Merge ``node`` into a neighbour while that saves bits; the node it ends as.

        The search found the boundaries around ``A`` and ``A'`` against their
        own averages; the merged group's average differs, so either boundary
        may no longer pay for itself.
        """
        chain = self.chain
        while True:
            options = []
            back, front = chain.before[node], chain.after[node]
            for first, second in ((back, node), (node, front)):
                if first is None or second is None:
                    continue
                pair = [chain.groups[first], chain.groups[second]]
                merged = self.pricer.merge(*pair)
                saved = self._saving(pair, merged, chain.before[first], chain.after[second])
                options.append((saved, first, second, merged))
            best = max(options, key=lambda option: option[0], default=None)
            if best is None or best[0] <= 0.0:
                return node
            _, first, second, merged = best
            node = chain.replace(first, second, merged)


def _dissolvable(group: _Group, max_runs: int) -> bool:
    """Whether :meth:`_Merger._dissolved` tries ``group`` as a level plus excursions."""
    return not group.excursions and 2 <= group.inliers <= DISSOLVE_RUNS * max_runs


def _longest_stretch(runs: set[int]) -> int:
    longest = 0
    for run in runs:
        if run - 1 not in runs:
            length = 1
            while run + length in runs:
                length += 1
            longest = max(longest, length)
    return longest


RETURN_SPREAD = 3.0
"""How close, in standard deviations of a level, a short stretch must be to that
level to count as the history's return to it (:func:`_returns_at_steps`)."""


def _returns_at_steps(
    groups: list[_Group], pricer: _Pricer, max_runs: int
) -> tuple[list[_Group], bool]:
    """Make excursions that a short stretch of the same level separates from a step
    excursions of that level; whether there were any.

    ``A | B | R | C``: ``A`` longer than ``K``, ``B`` one or more groups of at
    most ``K`` runs in all, each away from ``A``'s level, ``R`` of at most ``K``
    runs back at it (within :data:`RETURN_SPREAD` of ``A``'s standard
    deviation), then a step to ``C``: the history left ``A``, came back, and
    then changed.  Or the mirror, ``P | R | B | A`` after a step: the new
    level's first runs ``R``, an excursion ``B``, then the level ``A`` again.
    Bits do not decide these: ``R`` is so short that it costs about as much on
    its own as inside ``A``, so merging them saves next to nothing and the
    search's extra changes stay.  By rule ``B`` is an excursion of ``A + R``,
    so the alert names one change, the step, where it happened.  A return at
    the very end of the history (no step after ``R``) is left to the bits.
    """
    groups = list(groups)
    found = False
    index = 0
    while index < len(groups):
        match = _return_after(groups, index, max_runs) or _return_before(groups, index, max_runs)
        if match is None:
            index += 1
            continue
        first, last = match
        merged = pricer.merge(groups[first], groups[last], tuple(groups[first + 1 : last]))
        groups[first : last + 1] = [merged]
        found = True
        index = max(first - 1, 0)  # the merged level may now meet its neighbours' shapes
    return groups, found


def _return_after(groups: list[_Group], index: int, max_runs: int) -> tuple[int, int] | None:
    """``(index, r)`` when the long group at ``index`` has excursions and then a short
    return ``r`` followed by another group; else None."""
    if groups[index].inliers <= max_runs:
        return None
    for back in range(index + 2, min(index + 2 + max_runs, len(groups) - 1)):
        if _returns(groups[index], groups[index + 1 : back], groups[back], max_runs):
            return index, back
    return None


def _return_before(groups: list[_Group], index: int, max_runs: int) -> tuple[int, int] | None:
    """``(r, index)`` when the long group at ``index`` has a short stretch ``r`` of its
    level before it, after another group, with excursions between; else None."""
    if groups[index].inliers <= max_runs:
        return None
    for back in range(index - 2, max(index - 2 - max_runs, 0), -1):
        if _returns(groups[index], groups[back + 1 : index], groups[back], max_runs):
            return back, index
    return None


def _returns(level: _Group, away: list[_Group], back: _Group, max_runs: int) -> bool:
    """Whether ``away`` (at most ``K`` runs in all) leaves ``level`` and ``back``, of at
    most ``K`` runs, is at it again."""
    if back.inliers > max_runs or sum(group.inliers for group in away) > max_runs:
        return False
    if any(group.excursions for group in away):
        return False
    reach = RETURN_SPREAD * level.stats[2]
    avg = level.stats[1]
    far = all(abs(group.stats[1] - avg) > reach for group in away)
    return far and abs(back.stats[1] - avg) <= reach


def _overshoots_at_steps(
    groups: list[_Group], pricer: _Pricer, max_runs: int
) -> tuple[list[_Group], bool]:
    """Make each overshoot at a step an excursion of the nearer level; whether there
    was one.

    ``A | B | C``, ``B`` of at most ``K`` runs beyond both ``A``'s and ``C``'s
    levels (above both or below both) and ``A`` and ``C`` longer than ``K``:
    the history left ``A``, went past ``C``'s level and settled there.  Bits
    do not decide this one: with no ``A'`` to merge, the excursion saves no
    group, and the "opposite triangle" codes ``C``'s average more cheaply
    after the farther ``B`` than after ``A``.  By rule it is one change, so an
    alert names the new level once instead of a regression and a progression
    a run apart.  ``B`` joins the level it is nearer to: at ``A``'s end, the
    change is at ``C``'s first run; at ``C``'s start, the change is at ``B``'s
    (a step that overshoots on its first runs).
    """
    kept: list[_Group] = []
    found = False
    for index, group in enumerate(groups):
        following = groups[index + 1] if index + 1 < len(groups) else None
        if not kept or following is None or not _overshoots(kept[-1], group, following, max_runs):
            kept.append(group)
            continue
        found = True
        level = group.stats[1]
        if abs(level - kept[-1].stats[1]) < abs(level - following.stats[1]):
            kept[-1] = pricer.edge_excursion(kept[-1], group)
        else:
            groups[index + 1] = pricer.edge_excursion(following, group)
    return kept, found


def _overshoots(before: _Group, middle: _Group, after: _Group, max_runs: int) -> bool:
    if middle.excursions or middle.inliers > max_runs:
        return False
    if before.inliers <= max_runs or after.inliers <= max_runs:
        return False
    level = middle.stats[1]
    return (level - before.stats[1]) * (level - after.stats[1]) > 0.0


def find_outliers(
    partition: Partition,
    run_counts: list[int],
    model: BitModel,
    max_runs: int,
    runs: Sequence[Stats],
) -> OutlierPartition:
    """The partition with every excursion of at most ``max_runs`` runs that saves bits.

    ``run_counts`` holds the present runs of each group of ``partition``
    (its ``sizes`` count trials).  ``max_runs`` 0 returns the partition as is.
    Candidates wait in a priority queue, best saving first, and only those
    around a merge are priced again: linear in the groups, up to the
    logarithm of the queue.
    """
    unchanged = OutlierPartition(partition, tuple(() for _ in partition.starts))
    if max_runs <= 0 or len(partition.starts) < 3:
        return unchanged
    if all(runs > DISSOLVE_RUNS * max_runs for runs in run_counts[1:-1]):
        # every rule takes its excursion from a group between two others, of at most
        # K runs (or DISSOLVE_RUNS * K to dissolve): with none that short, nothing
        # moves, and ``check --all`` asks this of nearly every prefix of a history
        return unchanged
    stops = (*partition.starts[1:], partition.starts[-1] + run_counts[-1])
    groups = [
        _Group(start, stop, runs, (size, avg, stdev))
        for start, stop, runs, size, avg, stdev in zip(
            partition.starts,
            stops,
            run_counts,
            partition.sizes,
            partition.avgs,
            partition.stdevs,
            strict=True,
        )
    ]
    pricer = _Pricer(model)
    chain = _Chain(groups)
    merged = _Merger(chain, pricer, max_runs, runs).run()
    groups, returns = _returns_at_steps(chain.ordered(), pricer, max_runs)
    groups, overshoots = _overshoots_at_steps(groups, pricer, max_runs)
    if not merged and not returns and not overshoots:
        return unchanged
    return OutlierPartition(
        Partition(
            starts=tuple(group.start for group in groups),
            sizes=tuple(group.stats[0] for group in groups),
            avgs=tuple(group.stats[1] for group in groups),
            stdevs=tuple(group.stats[2] for group in groups),
            bits=pricer.stretch(groups, None, None),
        ),
        tuple(group.excursions for group in groups),
    )
