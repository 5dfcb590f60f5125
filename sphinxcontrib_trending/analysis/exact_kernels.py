"""The exact search's inner loops, compiled: one call per step of a block, not hundreds.

A block of the search (:mod:`.exact`) works on arrays of a few hundred
values; as numpy operations it took about 400 calls per block, and their
fixed cost, not the arithmetic, was most of its time.  Each function here
does one of its steps in a single compiled loop with the same arithmetic,
term for term.  The logarithm is the C library's (numba's, and
``math.log2``'s), where numpy's vectorised one may differ in the last bit:
every rule that drops a candidate keeps a relative slack for that
(``RELATIVE_SLACK``), and the partition found is priced with the exact
formula anyway.

Compiled once per machine: ``cache=True`` keeps the machine code beside this
file, so later processes (every ``sphinx-build``) load it instead.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_compiled = numba.njit(cache=True, nogil=True)
# compiled into each caller: as a call of its own, a step that is mostly
# logarithms took two and a half times as long
_inlined = numba.njit(cache=True, nogil=True, inline="always")


@_compiled
def base_bits(trials: float, spread: float, size_bits: float) -> float:
    """A group's bits but its average's: ``c(n) + (n-1) log2(s+1) + log2(s+2)``."""
    plus_one = math.sqrt(spread / trials) + 1.0
    bits = (trials - 1.0) * math.log2(plus_one)
    bits += math.log2(plus_one + 1.0)
    return bits + size_bits


@_compiled
def norm_bits(avg: float, half_m: float, norm_floor: float) -> float:
    """``L(p) = log2(norm(p))`` of an average ``p`` in units."""
    centred = avg - half_m
    return math.log2(centred * centred + norm_floor)


@_compiled
def predecessors(history_begin: IntArray, start: int, history_total: int) -> tuple[int, int]:
    """Where the predecessors of the group opened at run ``start`` lie in the history.

    Every start's predecessors, as it opened, are kept in run order
    (``ExactSearch._history_*``): entries ``low`` up to ``high``.  A
    surviving start's are never changed, so the survivors keep no copy.
    """
    low = history_begin[start]
    high = history_begin[start + 1] if start + 1 < len(history_begin) else history_total
    return low, high


@_inlined
def grown_state(
    groups: FloatArray,
    index: int,
    history_begin: IntArray,
    history_keys: FloatArray,
    history_prevs: FloatArray,
    block_count: int,
    block_mean: float,
    block_spread: float,
    size_bits: FloatArray,
    half_m: float,
    norm_floor: float,
) -> tuple[float, float, float, float, float]:
    """Survivor ``index``'s group grown by a block's prefix: trials, mean, spread, best, key.

    Its predecessors are in the history (:func:`predecessors`); the prefix
    has ``block_count`` trials, mean ``block_mean`` and spread
    ``block_spread``.
    """
    trials, mean, spread = groups[0, index], groups[1, index], groups[2, index]
    total = int(trials) + block_count
    total_float = float(total)
    delta = block_mean - mean
    share = float(block_count) / total_float
    moved = delta * share + mean
    grown = delta * delta * share * trials + spread + block_spread
    bits = base_bits(total_float, grown, size_bits[total])
    start = int(groups[3, index])
    low, high = predecessors(history_begin, start, len(history_keys))
    cheapest = np.inf
    for pair in range(low, high):
        # the first group has no previous average
        no_jump = start == 0 and pair == low
        jump = 0.0 if no_jump else math.log2(abs(moved - history_prevs[pair]) + 1.0)
        cost = history_keys[pair] - jump
        if cost < cheapest:
            cheapest = cost
    bits += cheapest
    return total_float, moved, grown, bits, norm_bits(moved, half_m, norm_floor) + bits


@_compiled
def extend_survivors(
    rows: IntArray,
    groups: FloatArray,
    history_begin: IntArray,
    history_keys: FloatArray,
    history_prevs: FloatArray,
    block_counts: IntArray,
    block_mean: FloatArray,
    block_spread: FloatArray,
    size_bits: FloatArray,
    half_m: float,
    norm_floor: float,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Survivors ``rows`` (indices, by start) grown by each prefix of the block given.

    ``block_*`` describe the block's prefixes (runs ``0..e``).  Arrays
    [survivor, end] of trials, mean, spread, best and keys.  Each entry is
    computed alone (:func:`grown_state`): a survivor's values do not depend
    on the others.
    """
    count, ends = len(rows), len(block_counts)
    new_trials = np.empty((count, ends))
    new_mean = np.empty((count, ends))
    new_spread = np.empty((count, ends))
    best = np.empty((count, ends))
    keys = np.empty((count, ends))
    for row in range(count):
        index = rows[row]
        for end in range(ends):
            trials, mean, spread, bits, key = grown_state(
                groups,
                index,
                history_begin,
                history_keys,
                history_prevs,
                block_counts[end],
                block_mean[end],
                block_spread[end],
                size_bits,
                half_m,
                norm_floor,
            )
            new_trials[row, end], new_mean[row, end], new_spread[row, end] = trials, mean, spread
            best[row, end], keys[row, end] = bits, key
    return new_trials, new_mean, new_spread, best, keys


@_compiled
def extend_in_place(
    groups: FloatArray,
    survivors: int,
    history_begin: IntArray,
    history_keys: FloatArray,
    history_prevs: FloatArray,
    block_count: int,
    block_mean: float,
    block_spread: float,
    size_bits: FloatArray,
    half_m: float,
    norm_floor: float,
    keys: FloatArray,
) -> None:
    """Every survivor grown by a block's runs, written over its statistics and best.

    What :func:`extend_survivors` gives for one prefix, without arrays the
    size of the survivors in between: rows 0 to 2 and 4 (best) of
    ``groups``, and each survivor's key into ``keys``.
    """
    for index in range(survivors):
        trials, mean, spread, bits, key = grown_state(
            groups,
            index,
            history_begin,
            history_keys,
            history_prevs,
            block_count,
            block_mean,
            block_spread,
            size_bits,
            half_m,
            norm_floor,
        )
        groups[0, index], groups[1, index], groups[2, index] = trials, mean, spread
        groups[4, index] = bits
        keys[index] = key


@_compiled
def close_survivors(
    groups: FloatArray,
    count: int,
    first: int,
    cumulative: IntArray,
    block_mean: FloatArray,
    block_spread: FloatArray,
    block_best: FloatArray,
    block_keys: FloatArray,
    keys: FloatArray,
    size_bits: FloatArray,
    per_trial: float,
    theta_base: float,
    widest_jump: float,
    slack: float,
) -> tuple[npt.NDArray[np.bool_], bool, int, IntArray]:
    """The block's starts joined to the ``count`` survivors, and what the next block needs.

    Writes each start's group up to the block's last run (trials from
    ``cumulative``, ``block_*`` its statistics, best and key) into the
    columns from ``count`` on of ``groups``, and its key into ``keys``,
    which holds the older survivors' before them.  Then, over every
    survivor: which are within the split bound (``ExactSearch.split_bound``
    with ``n`` its trials: ``c(n) - n * per_trial`` plus ``theta_base``,
    ``L`` of the cheapest's average, the cheapest best and a relative
    ``slack``) and whether all are; the survivor with the cheapest key; and
    those within ``log2(M + 1)`` and a bit of it, the only ones that can
    follow (``ExactSearch._predecessors``).
    """
    length = len(block_mean)
    end = length - 1
    survivors = count + length
    for start in range(length):
        column = count + start
        groups[0, column] = float(cumulative[end + 1] - cumulative[start])
        groups[1, column] = block_mean[start]
        groups[2, column] = block_spread[start]
        groups[3, column] = float(first + start)
        groups[4, column] = block_best[start]
        keys[column] = block_keys[start]
    lowest = 0
    for index in range(1, survivors):
        if groups[4, index] < groups[4, lowest]:
            lowest = index
    floor = groups[4, lowest]
    norm_of_lowest = keys[lowest] - floor
    offset = norm_of_lowest + theta_base + floor + slack * (abs(floor) + 1.0)
    keep = np.empty(survivors, dtype=np.bool_)
    kept_all = True
    for index in range(survivors):
        trials = groups[0, index]
        limit = size_bits[int(trials)] - trials * per_trial
        limit += offset
        keep[index] = groups[4, index] <= limit
        kept_all = kept_all and keep[index]
    cheapest = 0
    for index in range(1, survivors):
        if keys[index] < keys[cheapest]:
            cheapest = index
    reach = keys[cheapest] + (widest_jump + 1.0) + slack * (abs(keys[cheapest]) + 1.0)
    found = 0
    for index in range(survivors):
        found += keys[index] <= reach
    near = np.empty(found, dtype=np.int64)
    found = 0
    for index in range(survivors):
        if keys[index] <= reach:
            near[found] = index
            found += 1
    return keep, kept_all, cheapest, near


@_compiled
def pending_states(
    groups: FloatArray, keys: FloatArray, cheapest: int, near: IntArray, slack: float
) -> tuple[IntArray, FloatArray, FloatArray]:
    """The states the next group may follow: starts, keys, averages (``ExactSearch._predecessors``).

    Of ``near`` (the survivors within reach of the cheapest, ``cheapest``),
    those whose key is within ``log2(|p - p*| + 1)`` of the cheapest key
    plus a relative ``slack``, ``p*`` the cheapest's average.  With the C
    library's logarithm, where numpy's vectorised one may differ in the last
    bit: the slack is there for that.
    """
    found = len(near)
    kept = np.empty(found, dtype=np.bool_)
    if found == 1:
        kept[0] = True
    else:
        lowest = keys[cheapest]
        reach = lowest + slack * (abs(lowest) + 1.0)
        centre = groups[1, cheapest]
        found = 0
        for place in range(len(near)):
            index = near[place]
            bound = math.log2(abs(groups[1, index] - centre) + 1.0) + reach
            kept[place] = keys[index] <= bound
            found += kept[place]
    starts = np.empty(found, dtype=np.int64)
    pending_keys = np.empty(found)
    averages = np.empty(found)
    found = 0
    for place in range(len(near)):
        if kept[place]:
            index = near[place]
            starts[found] = int(groups[3, index])
            pending_keys[found], averages[found] = keys[index], groups[1, index]
            found += 1
    return starts, pending_keys, averages


@_inlined
def _grown(values: npt.NDArray[np.generic], used: int) -> npt.NDArray[np.generic]:
    """``values`` with room for twice as many, the first ``used`` kept."""
    grown = np.empty(2 * len(values), dtype=values.dtype)
    grown[:used] = values[:used]
    return grown


@_compiled
def open_groups(
    inside_mean: FloatArray,
    inside_bits: FloatArray,
    inside_norm: FloatArray,
    survivor_keys: FloatArray,
    survivor_means: FloatArray,
    survivor_starts: IntArray,
    first: int,
    pending_from: IntArray,
    pending_key: FloatArray,
    pending_prev: FloatArray,
    widest_jump: float,
    slack: float,
    best: FloatArray,
    block_keys: FloatArray,
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, IntArray]:
    """The groups opened in a block, run by run: their predecessors, and their rows.

    Group ``t`` (the block's run ``t`` its start) follows the states at run
    ``t - 1`` not dominated by the cheapest one: the survivors'
    (``survivor_*``, [survivor, end]), then those of the block's groups
    opened before it, in that order; the first group follows the pending
    states.  A state qualifies when its key is within ``log2(|p - p*| + 1)``
    of the cheapest key (``p*`` the average of the first cheapest state,
    survivors first), plus a relative ``slack``.  Its rows then follow:
    ``best[e, t]`` (its bits as the last group up to run ``e``) and
    ``block_keys[e, t]`` (that plus ``L`` of its mean), inf where ``t > e``.
    Taking the groups in order, each sees exactly the states it may follow.

    Returns owner (the group's start, relative to the block), the state's
    start, key and average, by owner then by state, and where each owner's
    predecessors begin.
    """
    length = inside_mean.shape[0]
    survivors = survivor_keys.shape[0]
    pending = len(pending_from)
    room = pending + 4 * length
    owner = np.empty(room, dtype=np.int64)
    froms = np.empty(room, dtype=np.int64)
    keys = np.empty(room)
    prevs = np.empty(room)
    begins = np.empty(length, dtype=np.int64)
    found = 0
    for group in range(length):
        begins[group] = found
        if group == 0:
            for pair in range(pending):
                owner[pair], froms[pair] = 0, pending_from[pair]
                keys[pair], prevs[pair] = pending_key[pair], pending_prev[pair]
            found = pending
        else:
            end = group - 1
            states = survivors + group  # the block's groups opened up to run end
            # the first cheapest, survivors first
            lowest, centre = np.inf, 0.0
            for state in range(states):
                if state < survivors:
                    key, mean = survivor_keys[state, end], survivor_means[state, end]
                else:
                    column = state - survivors
                    key, mean = block_keys[end, column], inside_mean[end, column]
                if state == 0 or key < lowest:
                    lowest, centre = key, mean
            lowest += slack * (abs(lowest) + 1.0)
            # no state further than log2(M + 1) above the cheapest can qualify
            reach = lowest + widest_jump
            for state in range(states):
                if state < survivors:
                    key, mean = survivor_keys[state, end], survivor_means[state, end]
                    start = survivor_starts[state]
                else:
                    column = state - survivors
                    key, mean = block_keys[end, column], inside_mean[end, column]
                    start = first + column
                if not key <= reach:
                    continue
                if key <= math.log2(abs(mean - centre) + 1.0) + lowest:
                    if found == len(owner):
                        owner, froms = _grown(owner, found), _grown(froms, found)
                        keys, prevs = _grown(keys, found), _grown(prevs, found)
                    owner[found], froms[found], keys[found], prevs[found] = group, start, key, mean
                    found += 1
        low = begins[group]
        for end in range(length):
            if group > end:
                best[end, group] = block_keys[end, group] = np.inf
                continue
            avg = inside_mean[end, group]
            cheapest = np.inf
            for pair in range(low, found):
                if pair == 0 and froms[0] < 0:
                    jump = 0.0  # the first group has no previous average
                else:
                    jump = math.log2(abs(avg - prevs[pair]) + 1.0)
                cost = keys[pair] - jump
                if cost < cheapest:
                    cheapest = cost
            bits = inside_bits[end, group] + cheapest
            best[end, group] = bits
            block_keys[end, group] = bits + inside_norm[end, group]
    return owner[:found], froms[:found], keys[:found], prevs[:found], begins


@_compiled
def advance_all(
    groups: FloatArray,
    count: int,
    first: int,
    history_begin: IntArray,
    history_keys: FloatArray,
    history_prevs: FloatArray,
    sizes: IntArray,
    avgs: FloatArray,
    stdevs: FloatArray,
    pending_from: IntArray,
    pending_key: FloatArray,
    pending_prev: FloatArray,
    size_bits: FloatArray,
    half_m: float,
    norm_floor: float,
    per_trial: float,
    theta_base: float,
    widest_jump: float,
    slack: float,
) -> tuple[
    IntArray,
    IntArray,
    FloatArray,
    FloatArray,
    IntArray,
    FloatArray,
    npt.NDArray[np.bool_],
    bool,
    int,
    IntArray,
]:
    """A block whose ``count`` survivors (one at least) are all extended over every run.

    The steps ``ExactSearch._advance_block`` takes one call each for such a
    block (every block of one run, and every block of few survivors), in
    one: :func:`inside_groups` of the block's runs (``sizes``, and ``avgs``
    and ``stdevs`` in units), :func:`extend_survivors` of every survivor by
    each prefix of the block, :func:`open_groups` of the block's starts, the
    survivors' statistics and best at its last run written back into
    ``groups``, and :func:`close_survivors`.  The same functions on the same
    values, so the same numbers to the last bit; the calls between them
    cost a new run's search more than their arithmetic.  Returns
    :func:`open_groups`'s predecessors, the keys at the block's last run,
    and :func:`close_survivors`'s results.
    """
    cumulative, mean, spread, bits, norm = inside_groups(
        sizes, avgs, stdevs, size_bits, half_m, norm_floor
    )
    length = mean.shape[0]
    end = length - 1
    trials, means, spreads, best, keys_by_end = extend_survivors(
        np.arange(count),
        groups,
        history_begin,
        history_keys,
        history_prevs,
        cumulative[1:],
        np.ascontiguousarray(mean[:, 0]),
        np.ascontiguousarray(spread[:, 0]),
        size_bits,
        half_m,
        norm_floor,
    )
    new_best = np.empty_like(bits)
    new_keys = np.empty_like(bits)
    starts = np.empty(count, dtype=np.int64)
    for index in range(count):
        starts[index] = int(groups[3, index])
    owner, froms, pair_keys, prevs, begins = open_groups(
        mean,
        bits,
        norm,
        keys_by_end,
        means,
        starts,
        first,
        pending_from,
        pending_key,
        pending_prev,
        widest_jump,
        slack,
        new_best,
        new_keys,
    )
    keys = np.empty(count + length)
    for index in range(count):
        groups[0, index] = trials[index, end]
        groups[1, index] = means[index, end]
        groups[2, index] = spreads[index, end]
        groups[4, index] = best[index, end]
        keys[index] = keys_by_end[index, end]
    keep, kept_all, cheapest, near = close_survivors(
        groups,
        count,
        first,
        cumulative,
        np.ascontiguousarray(mean[end]),
        np.ascontiguousarray(spread[end]),
        np.ascontiguousarray(new_best[end]),
        np.ascontiguousarray(new_keys[end]),
        keys,
        size_bits,
        per_trial,
        theta_base,
        widest_jump,
        slack,
    )
    return owner, froms, pair_keys, prevs, begins, keys, keep, kept_all, cheapest, near


@_compiled
def key_floor(
    groups: FloatArray,
    survivors: int,
    history_begin: IntArray,
    history_keys: FloatArray,
    history_prevs: FloatArray,
    size_bits: FloatArray,
    block_low: float,
    block_high: float,
    block_trials: float,
    least_norm: float,
    threshold: float,
) -> tuple[FloatArray, FloatArray]:
    """Per survivor, the least key a state of it can have in a block, less the block's part.

    ``c(n) + n log2(s + 1)`` of its group, plus the cheapest predecessor term
    any average its group can take in the block can get, plus ``least_norm``
    (``L_min``): see ``ExactSearch._near``.  That average moves from the
    group's own towards the block's prefix averages (``block_low`` ..
    ``block_high``) by ``k / (n + k)`` of the way at most, ``k`` the trials
    taken in (``block_trials`` at most): an old group with many trials hardly
    moves.  Also that last part alone (the cheapest predecessor term plus
    ``L_min``), for :func:`near_survivors`.

    A survivor's best (row 4 of ``groups``) is ``c(n) + n log2(s + 1)`` plus
    ``log2((s + 2) / (s + 1)) <= 1`` plus its cheapest predecessor term at
    its own average ``m``; a term at an average ``a`` is at most
    ``log2(1 + |a - m|)`` more.  So ``best - 1 - log2(1 + w) + L_min``, ``w``
    the farthest the average can move in the block, is a floor too, without
    a logarithm per predecessor: a survivor it puts above ``threshold`` gets
    that floor (and no ``rest``), the others the one above.
    """
    lower = np.empty(survivors)
    rest = np.empty(survivors)
    for index in range(survivors):
        trials, mean = groups[0, index], groups[1, index]
        share = block_trials / (trials + block_trials)
        moved = share * max(mean - block_low, block_high - mean, 0.0)
        quick = groups[4, index] - 1.0 - math.log2(1.0 + moved) + least_norm
        if quick > threshold:
            lower[index], rest[index] = quick, np.nan
            continue
        bits = math.log2(math.sqrt(groups[2, index] / trials) + 1.0) * trials
        bits += size_bits[int(trials)]
        low = mean - share * max(mean - block_low, 0.0)
        high = mean + share * max(block_high - mean, 0.0)
        start = int(groups[3, index])
        first, stop = predecessors(history_begin, start, len(history_keys))
        cheapest = np.inf
        for pair in range(first, stop):
            if start == 0 and pair == first:
                reach = 0.0  # the first group has no previous average
            else:
                prev = history_prevs[pair]
                reach = math.log2(max(abs(low - prev), abs(high - prev)) + 1.0)
            cost = history_keys[pair] - reach
            if cost < cheapest:
                cheapest = cost
        rest[index] = cheapest + least_norm
        lower[index] = bits + rest[index]
    return lower, rest


@_compiled
def near_survivors(
    groups: FloatArray,
    candidates: IntArray,
    rest: FloatArray,
    size_bits: FloatArray,
    prefix_trials: IntArray,
    prefix_spread: FloatArray,
    limits: FloatArray,
) -> IntArray:
    """Those of ``candidates`` (survivors) whose floor with the pooled spread is within
    ``limits`` at some run of the block.

    The floor of a survivor's state at block run ``e``: ``c(N) + N log2(s +
    1)`` with ``N`` its trials and the block's first ``k``, ``s`` the root of
    the group's and the prefix's spreads (``prefix_spread``) over ``N``,
    plus ``rest`` (see :func:`key_floor`).  Unlike :func:`key_floor`'s, it
    stays close where the block's spread differs from the group's (a run far
    off in either); a logarithm per run and candidate, where extending the
    survivor costs several.
    """
    near = np.empty(len(candidates), dtype=np.int64)
    found = 0
    for candidate in candidates:
        trials = int(groups[0, candidate])
        spread = groups[2, candidate]
        for end in range(len(limits)):
            total = trials + prefix_trials[end]
            total_float = float(total)
            pooled = math.sqrt((spread + prefix_spread[end]) / total_float)
            floor = total_float * math.log2(pooled + 1.0) + size_bits[total]
            if floor + rest[candidate] <= limits[end]:
                near[found] = candidate
                found += 1
                break
    return near[:found]


@_compiled
def inside_groups(
    sizes: IntArray,
    avgs: FloatArray,
    stdevs: FloatArray,
    size_bits: FloatArray,
    half_m: float,
    norm_floor: float,
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Every group within one block's runs: arrays [end, start] (see ``exact._Inside``).

    The trials of the runs before each (``cumulative``, one more than the
    runs), then means, spreads, base bits and ``L`` of the mean.

    Averages from sums of differences to the block's first value: the sums
    stay within a block's range, so they lose no precision to speak of.
    Spreads are running sums of Welford's increments, ``(x - mean before)(x
    - mean after) * size``, which are never negative: no cancellation.
    """
    length = len(sizes)
    mean = np.empty((length, length))
    spread = np.empty((length, length))
    bits = np.empty((length, length))
    norms = np.empty((length, length))
    cumulative = np.zeros(length + 1, dtype=np.int64)
    sums = np.zeros(length + 1)
    offset = avgs[0]
    for run in range(length):
        cumulative[run + 1] = cumulative[run] + sizes[run]
        sums[run + 1] = sums[run] + float(sizes[run]) * (avgs[run] - offset)
    for end in range(length):
        size = float(sizes[end])
        own = stdevs[end] * stdevs[end] * size
        for start in range(length):
            before_start = start > end  # every run has a trial at least
            count = max(cumulative[end + 1] - cumulative[start], 1)
            average = (sums[end + 1] - sums[start]) / float(count) + offset
            mean[end, start] = average
            if before_start:
                increment = 0.0
            elif start == end:
                increment = own  # a group's first run brings only its own spread
            else:
                step = (avgs[end] - mean[end - 1, start]) * (avgs[end] - mean[end, start])
                increment = max(step, 0.0) * size + own  # rounding can dip below zero
            total = increment if end == 0 else spread[end - 1, start] + increment
            spread[end, start] = total
            if before_start:  # read nowhere: half the logarithms saved
                bits[end, start] = norms[end, start] = 0.0
            else:
                bits[end, start] = base_bits(float(count), total, size_bits[count])
                norms[end, start] = norm_bits(average, half_m, norm_floor)
    return cumulative, mean, spread, bits, norms


@_compiled
def welford_pass(
    sizes: IntArray,
    avgs: FloatArray,
    stdevs: FloatArray,
    first: int,
    stop: int,
    total: float,
    avg: float,
    moment: float,
) -> tuple[float, float, float]:
    """Runs ``first..stop`` merged into a group's (trials, average, moment), one at a time.

    The reference's operation order (``exact.GroupPass``); for runs of one
    value (size 1, stdev 0) its extra terms are exact no-ops.
    """
    for run in range(first, stop):
        size = float(sizes[run])
        old_total = total
        delta = avgs[run] - avg
        total += size
        avg += delta * size / total
        moment += stdevs[run] * stdevs[run] * size
        moment += delta * delta * old_total * size / total
    return total, avg, moment


@_inlined
def _finite(values: FloatArray) -> bool:
    for value in values:  # noqa: SIM110 (a loop: all() of a generator does not compile)
        if not math.isfinite(value):
            return False
    return True


@_inlined
def _within(values: IntArray, low: int, high: int) -> bool:
    for value in values:  # noqa: SIM110 (a loop: all() of a generator does not compile)
        if value < low or value > high:
            return False
    return True


@_compiled
def state_in_range(
    groups: FloatArray,
    best: FloatArray,
    pending_key: FloatArray,
    pending_prev: FloatArray,
    history_key: FloatArray,
    history_prev: FloatArray,
    doomed: IntArray,
    pending_from: IntArray,
    history_begin: IntArray,
    history_from: IntArray,
    runs: int,
    trials: int,
) -> bool:
    """Whether a saved search's values pass every test of ``SavedSearch.check``, in one pass.

    Those tests as numpy calls took a tenth of a new run's grouping; this
    only says yes or no, and on a no the check runs them to say which
    failed.  The arrays' shapes are already checked: ``groups`` is
    ``(4, survivors)``, ``history_begin`` has one entry per run.
    """
    if not (
        _finite(best)
        and _finite(pending_key)
        and _finite(pending_prev)
        and _finite(history_key)
        and _finite(history_prev)
    ):
        return False
    for row in range(groups.shape[0]):
        if not _finite(groups[row]):
            return False
    last_start = -1.0
    for survivor in range(groups.shape[1]):
        count, start = groups[0, survivor], groups[3, survivor]
        if count != math.floor(count) or count < 1.0 or count > trials:
            return False
        if start != math.floor(start) or start <= last_start or start > runs - 1:
            return False
        last_start = start
    if not (
        _within(doomed, 0, 1)
        and _within(pending_from, -1, runs - 1)
        and _within(history_from, -1, runs - 1)
    ):
        return False
    last_begin = -1
    for begin in history_begin:
        if begin <= last_begin or begin > len(history_from) - 1:
            return False
        last_begin = begin
    return True
