"""A batch of saved searches extended by one run each, in one compiled call.

A build that adds a run to every series extends twenty thousand saved
searches by that run.  Done series by series (:func:`.many.extend_job`), each
took about 420 Python-level calls: decoding and checking the state, making
the search and its model, one block of the search, the backtrack, pricing
and encoding the new state; their fixed cost, not the arithmetic, was most
of its time.  :func:`extend_states` does those steps for a whole batch,
reading every state from one buffer and writing every new one into another,
with the functions of :mod:`.exact_kernels` the search itself calls, so the
same numbers to the last bit: the new states are the bytes
:meth:`.SavedSearch.to_bytes` would write and the partitions those
:meth:`.ExactSearch.partition` finds.

What it cannot settle the same way it leaves to the search series by
series (:data:`ASIDE`): a state that fails a check, more than one state
equally cheap at the end, a search whose every survivor was to be dropped.
Pricing the partition found and classifying it stay in Python
(:mod:`.batch_extend`): they are the reference's exact formula.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.exact_kernels import (
    advance_all,
    pending_states,
    state_in_range,
    welford_pass,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ByteArray = npt.NDArray[np.uint8]

_compiled = numba.njit(cache=True, nogil=True)

DONE, ASIDE = 0, 1
"""A series' status: extended here, or left to the one-by-one search."""

HEAD_WORDS = 17
"""The words of a state's header: six numbers, then eleven sides (see :mod:`.saved_search`)."""
SIDES = 11
RUNS, TRIALS, MAX_VALUE, UNIT, TABLE_SIZE, BLOCK = range(6)

# ExactSearch's block lengths (see exact.MIN_BLOCK and exact.ExactSearch._longest)
MIN_BLOCK, MAX_BLOCK, LONGEST_BLOCK = 4, 48, 192


@numba.njit(cache=True, nogil=True, inline="always")
def _isqrt(value: int) -> int:
    """``math.isqrt``: the floating root, corrected to the exact integer one."""
    root = int(math.sqrt(float(value)))
    while root * root > value:
        root -= 1
    while (root + 1) * (root + 1) <= value:
        root += 1
    return root


@numba.njit(cache=True, nogil=True, inline="always")
def _put(out: npt.NDArray[np.generic], at: int, values: npt.NDArray[np.generic]) -> int:
    """Copy ``values`` into ``out`` from ``at``; where they end.

    A loop, not a slice assignment: numba's copies the values aside first
    when it cannot tell that the two do not overlap (most of a state's
    encoding went to that)."""
    for index in range(len(values)):
        out[at + index] = values[index]
    return at + len(values)


@numba.njit(cache=True, nogil=True, inline="always")
def _joined(
    first: npt.NDArray[np.generic], second: npt.NDArray[np.generic]
) -> npt.NDArray[np.generic]:
    """``first`` then ``second``, in a new array (copied by :func:`_put`'s loops)."""
    joined = np.empty(len(first) + len(second), dtype=first.dtype)
    _put(joined, _put(joined, 0, first), second)
    return joined


@numba.njit(cache=True, nogil=True, inline="always")
def _size_table(
    size: int,
    max_bits: float,
    ranking_length: FloatArray,
    ranking_sphere: FloatArray,
    length_one: float,
) -> FloatArray:
    """:meth:`.BitModel.ranking_size_bits` of a model, in its operations' order."""
    table = np.empty(size)
    for trials in range(size):
        table[trials] = ranking_length[trials] + max_bits + ranking_sphere[trials]
    table[1] = length_one - 1.0
    table[0] = 0.0
    return table


@_compiled
def extend_states(
    data: ByteArray,
    state_at: IntArray,
    state_length: IntArray,
    magic: ByteArray,
    avgs: FloatArray,
    avgs_start: IntArray,
    avgs_stop: IntArray,
    seen: IntArray,
    unit: FloatArray,
    table_size: IntArray,
    max_bits: FloatArray,
    ranking_length: FloatArray,
    ranking_sphere: FloatArray,
    length_one: float,
    per_trial: float,
    slack: float,
) -> tuple[
    IntArray, ByteArray, IntArray, IntArray, IntArray, IntArray, IntArray, FloatArray, FloatArray
]:
    """Series ``i``'s saved state (``data[state_at[i]:][:state_length[i]]``) extended by
    its runs after the ``seen[i]`` it has seen (none or one).

    Each state lies so that its arrays start on a word (``state_at[i]`` plus
    the header's length is a multiple of eight): they are read in place.

    ``avgs[avgs_start[i]:avgs_stop[i]]`` are the series' present runs, one
    trial each (a history of numbers); ``unit[i]`` its unit, and its
    model's size table (:func:`.exact.size_costs`) has ``table_size[i]``
    entries, made as :meth:`.BitModel.ranking_size_bits` makes it from the
    shared tables' ``ranking_*`` parts, ``length_one`` (one trial's length
    bits) and the model's ``max_bits[i]``.  The caller has checked the header's
    numbers against the runs (as ``IncrementalClassifier._resume`` does);
    the arrays are checked here as :meth:`.SavedSearch.check` checks them.

    Returns per series its status (:data:`DONE` or :data:`ASIDE`), the new
    states (``out[out_at[i]:out_end[i]]``, each placed as the states read), and the
    partition of each: group starts (present-run positions) from
    ``starts_at[i]``, with each group's trials, average and stdev.
    """
    series = len(state_at)
    status = np.full(series, ASIDE, dtype=np.int64)
    out = np.empty((len(data) + 512 * series) // 8 + 64, dtype=np.int64)
    out_at = np.zeros(series, dtype=np.int64)
    out_end = np.zeros(series, dtype=np.int64)
    starts_at = np.zeros(series + 1, dtype=np.int64)
    starts = np.empty(16 * series + 16, dtype=np.int64)
    group_sizes = np.empty(16 * series + 16, dtype=np.int64)
    group_avgs = np.empty(16 * series + 16)
    group_stdevs = np.empty(16 * series + 16)
    head = np.empty(HEAD_WORDS, dtype=np.int64)
    head_bytes = head.view(np.uint8)
    numbers = head.view(np.float64)
    longest_runs = 1
    for index in range(series):
        longest_runs = max(longest_runs, avgs_stop[index] - avgs_start[index])
    ones = np.ones(longest_runs, dtype=np.int64)
    zeros = np.zeros(longest_runs)
    written = 0
    found = 0
    start_of_data = len(magic) + 8 * HEAD_WORDS
    for index in range(series):
        starts_at[index + 1] = found
        at, length = state_at[index], state_length[index]
        if length < start_of_data:
            continue
        head_bytes[:] = data[at + len(magic) : at + start_of_data]
        sides = head[6:]
        if sides.min() < 0 or sides.max() > length:  # no product of two overflows
            continue
        total = sides[0] * sides[1] + sides[2:].sum()
        if start_of_data + 8 * total != length:
            continue
        # the caller placed the state so that its arrays start on a word: read in place
        words = data[at + start_of_data : at + length].view(np.int64)
        block_values = words.view(np.float64)
        count = sides[2]
        # the arrays in their order (see saved_search._ARRAYS)
        cut = sides[0] * sides[1]
        groups = block_values[:cut].reshape(sides[0], sides[1])
        best = block_values[cut : cut + count]
        cut += count
        doomed = words[cut : cut + sides[3]]
        cut += sides[3]
        pending_from = words[cut : cut + sides[4]]
        cut += sides[4]
        pending_key = block_values[cut : cut + sides[5]]
        cut += sides[5]
        pending_prev = block_values[cut : cut + sides[6]]
        cut += sides[6]
        history_begin = words[cut : cut + sides[7]]
        cut += sides[7]
        history_from = words[cut : cut + sides[8]]
        cut += sides[8]
        history_key = block_values[cut : cut + sides[9]]
        cut += sides[9]
        history_prev = block_values[cut : cut + sides[10]]
        runs, trials = head[RUNS], head[TRIALS]
        max_value, step = numbers[MAX_VALUE], numbers[UNIT]
        saved_size, saved_block = head[TABLE_SIZE], head[BLOCK]
        # SavedSearch.check, but for the numbers the caller checked
        if not (
            runs >= 1
            and trials >= runs
            and trials < saved_size <= 1 << 31
            and 1 <= saved_block <= 1 << 16
            and sides[0] == 4
            and count >= 1
            and sides[3] == count
            and sides[4] >= 1
            and sides[5] == sides[4]
            and sides[6] == sides[4]
            and sides[7] == runs
            and sides[9] == sides[8]
            and sides[10] == sides[8]
        ):
            continue
        if not state_in_range(
            groups,
            best,
            pending_key,
            pending_prev,
            history_key,
            history_prev,
            doomed,
            pending_from,
            history_begin,
            history_from,
            runs,
            trials,
        ):
            continue
        first, stop = avgs_start[index], avgs_stop[index]
        added = stop - first - seen[index]
        table = _size_table(
            table_size[index], max_bits[index], ranking_length, ranking_sphere, length_one
        )
        # ExactSearch.__init__ of the saved state
        big_m = max_value / step
        half_m = big_m / 2.0
        norm_floor = big_m * big_m / 4.0 + big_m
        norm_span = math.log2(big_m * big_m / 2.0 + big_m) - math.log2(norm_floor)
        theta_base = 2.0 * math.log2(1.0 + big_m / 2.0) + norm_span + 2.0
        widest_jump = math.log2(big_m + 1.0)
        block = min(max(saved_block, MIN_BLOCK), LONGEST_BLOCK)
        state = np.zeros((5, count + 1))
        for row in range(4):
            _put(state[row], 0, groups[row])
        _put(state[4], 0, best)
        keep = doomed == 0
        dropping = not keep.all()
        if added:
            if dropping:  # ExactSearch._drop
                kept = 0
                for column in range(count):
                    if keep[column]:
                        for row in range(5):
                            state[row, kept] = state[row, column]
                        kept += 1
                count = kept
                if not count:
                    continue  # every survivor dropped: the search opens its block otherwise
            value = np.empty(1)
            value[0] = avgs[stop - 1] / step
            nothing = np.zeros(1)
            _, froms, pair_keys, prevs, begins, keys, keep, kept_all, cheapest, near = advance_all(
                state,
                count,
                runs,
                history_begin,
                history_key,
                history_prev,
                ones[:1],
                value,
                nothing,
                pending_from,
                pending_key,
                pending_prev,
                table,
                half_m,
                norm_floor,
                per_trial,
                theta_base,
                widest_jump,
                slack,
            )
            history_begin = _joined(history_begin, len(history_from) + begins)
            history_from = _joined(history_from, froms)
            history_key = _joined(history_key, pair_keys)
            history_prev = _joined(history_prev, prevs)
            count += len(begins)
            pending_from, pending_key, pending_prev = pending_states(
                state, keys, cheapest, near, slack
            )
            dropping = not kept_all
            runs += 1
            trials += 1
            longest = min(LONGEST_BLOCK, max(MAX_BLOCK, _isqrt(count)))
            block = min(longest, 2 * block)
        # ExactSearch.partition: the cheapest state's backtrack, if one is the cheapest
        floor = state[4, :count].min()
        close = floor + slack * (abs(floor) + 1.0)
        cheapest_at = -1
        ties = 0
        for column in range(count):
            if state[4, column] <= close:
                ties += 1
                if cheapest_at < 0:
                    cheapest_at = column
        if ties != 1:
            continue
        start = int(state[3, cheapest_at])
        avg = state[1, cheapest_at]
        path = np.empty(runs + 1, dtype=np.int64)
        path[0] = start
        steps = 1
        broken = False
        while start:
            if start < 0 or start >= runs or steps > runs:
                broken = True
                break
            low = history_begin[start]
            high = history_begin[start + 1] if start + 1 < runs else len(history_from)
            if high <= low:
                broken = True
                break
            chosen, lowest = low, np.inf
            for pair in range(low, high):
                cost = history_key[pair] - math.log2(abs(avg - history_prev[pair]) + 1.0)
                if cost < lowest:
                    chosen, lowest = pair, cost
            start, avg = history_from[chosen], history_prev[chosen]
            path[steps] = start
            steps += 1
        if broken:
            continue
        # ExactSearch.price of those groups, each one Welford pass
        if found + steps > len(starts):
            room = 2 * (found + steps)
            grown_starts = np.empty(room, dtype=np.int64)
            grown_sizes = np.empty(room, dtype=np.int64)
            grown_avgs = np.empty(room)
            grown_stdevs = np.empty(room)
            grown_starts[:found] = starts[:found]
            grown_sizes[:found] = group_sizes[:found]
            grown_avgs[:found] = group_avgs[:found]
            grown_stdevs[:found] = group_stdevs[:found]
            starts, group_sizes = grown_starts, grown_sizes
            group_avgs, group_stdevs = grown_avgs, grown_stdevs
        run_avgs = avgs[first:stop]
        for group in range(steps):
            begin = path[steps - 1 - group]
            end = path[steps - 2 - group] if group + 1 < steps else runs
            size, mean, moment = welford_pass(ones, run_avgs, zeros, begin, end, 0.0, 0.0, 0.0)
            starts[found + group] = begin
            group_sizes[found + group] = int(size)
            group_avgs[found + group] = mean
            group_stdevs[found + group] = math.sqrt(moment / size)
        # SavedSearch.to_bytes of ExactSearch.save, its arrays starting on a word
        begin = written + (-(written + start_of_data)) % 8
        need = start_of_data + 8 * (6 * count + 3 * len(pending_from) + runs)
        need += 24 * len(history_from)
        if begin + need > 8 * len(out):
            grown = np.empty(2 * (begin + need) // 8 + 1, dtype=np.int64)
            grown[: (written + 7) // 8] = out[: (written + 7) // 8]
            out = grown
        out_bytes = out.view(np.uint8)
        out_bytes[begin : begin + len(magic)] = magic
        head[RUNS], head[TRIALS] = runs, trials
        numbers[MAX_VALUE], numbers[UNIT] = max_value, step
        head[TABLE_SIZE], head[BLOCK] = len(table), block
        sides[0], sides[1], sides[2], sides[3] = 4, count, count, count
        sides[4] = sides[5] = sides[6] = len(pending_from)
        sides[7] = runs
        sides[8] = sides[9] = sides[10] = len(history_from)
        out_bytes[begin + len(magic) : begin + start_of_data] = head_bytes
        word = (begin + start_of_data) // 8
        floats = out.view(np.float64)
        for row in range(5):
            word = _put(floats, word, state[row, :count])
        for column in range(count):
            out[word + column] = 1 if dropping and not keep[column] else 0
        word += count
        word = _put(out, word, pending_from)
        word = _put(floats, word, pending_key)
        word = _put(floats, word, pending_prev)
        word = _put(out, word, history_begin)
        word = _put(out, word, history_from)
        word = _put(floats, word, history_key)
        word = _put(floats, word, history_prev)
        out_at[index] = begin
        end_at = 8 * word
        written = end_at
        found += steps
        status[index] = DONE
        out_end[index] = written
        starts_at[index + 1] = found
    return (
        status,
        out.view(np.uint8)[:written],
        out_at,
        out_end,
        starts_at,
        starts[:found],
        group_sizes[:found],
        group_avgs[:found],
        group_stdevs[:found],
    )
