"""How many bits one group of runs costs under the MDL model of the methodology.

A group of ``n`` trials with average ``a`` and population stdev ``s`` is encoded
as its length, its average (uniform for the first group, an "opposite triangle"
density around the previous group's average for later ones, which discourages
splitting near-equal levels), its stdev and finally the trials themselves as a
point on a sphere.  All quantities are measured in ``unit``, the resolution the
values are assumed to have.

:meth:`BitModel.group_bits` evaluates the formula with the reference library's
exact sequence of floating-point operations, including ``math.log`` from the C
library.  The searches use numpy's faster logarithm for ranking candidates and
fall back to this exact evaluation whenever a decision is too close for the
last-bit differences between the two logarithms to be ruled out.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

LN2 = math.log(2)
LN_PI = math.log(math.pi)
DEFAULT_SBPS = 12.0


SMALLEST_DOUBLE = math.ulp(0.0)


def resolve_unit(max_value: float, unit: float | None, sbps: float | None) -> float:
    """The value resolution: ``unit`` if given, else ``max_value / (2**(sbps+1) - 1)``.

    Zero counts as "not given" for both, as in the reference library.  No
    resolution is finer than the smallest double: values so small that the
    division underflows (``5e-324``) get that one, not zero.
    """
    if unit is not None and unit < 0:
        raise ValueError(f"unit must be positive, got {unit!r}")
    if sbps is not None and sbps < 0:
        raise ValueError(f"sbps must be positive, got {sbps!r}")
    if unit:
        return float(unit)
    bits_per_sample = float(sbps) if sbps else DEFAULT_SBPS
    return max(max_value / (math.pow(2.0, bits_per_sample + 1.0) - 1.0), SMALLEST_DOUBLE)


def perturb(size: float, avg: float, stdev: float) -> tuple[float, float]:
    """Average and stdev after one more round trip through the reference's merge.

    The reference recomputes statistics from (size, avg, stdev) whenever it
    copies a group or counts its bits; ``avg * n / n`` and
    ``sqrt(stdev * stdev * n / n)`` can each move the last bit, and matching
    those moves is part of matching its tie-breaking.
    """
    return avg * size / size, math.sqrt(stdev * stdev * size / size)


class _SizeTables:
    """The per-size constants every model shares: they depend on ``n`` alone.

    Computed once per process and grown as longer groups come (they need
    ``lgamma``, which numpy lacks, so a table is a Python loop); a site with
    thousands of series would otherwise rebuild the same table per series.
    """

    def __init__(self) -> None:
        self.size = 0
        self.length = [0.0]
        self.head = [0.0]
        self.tail = [0.0]
        self.arrays = (np.zeros(1), np.zeros(1), np.zeros(1))
        self.ranking = (np.zeros(1), np.zeros(1))

    def cover(self, max_size: int) -> None:
        """Make the tables reach groups of ``max_size`` trials."""
        if max_size <= self.size:
            return
        for n in range(self.size + 1, max_size + 1):
            self.length.append(math.log(n * (n + 1)) / LN2)
            if n < 2:  # one trial: no stdev, no sphere
                self.head.append(0.0)
                self.tail.append(0.0)
                continue
            head = LN2
            head += LN_PI * ((n - 1) / 2)
            head -= math.lgamma((n - 1) / 2)
            self.head.append(head)
            self.tail.append(math.log(n) * ((n - 2) / 2))
        self.size = max_size
        self.arrays = (np.array(self.length), np.array(self.head), np.array(self.tail))
        length, head, tail = self.arrays
        sizes = np.arange(len(length)).clip(2)
        # the parts of BitModel.ranking_size_bits that do not depend on the model
        self.ranking = (length[sizes], (head[sizes] + tail[sizes]) / LN2)


_TABLES = _SizeTables()


def ranking_parts() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """The shared tables' parts of :meth:`BitModel.ranking_size_bits`, as far as any model
    made so far reaches, and one trial's length bits: what a compiled loop needs to make
    a model's size table itself (:mod:`.batch_kernels`)."""
    length, sphere = _TABLES.ranking
    return length, sphere, _TABLES.length[1]


class BitModel:
    """Bit costs for one input: its largest value and unit fix every constant.

    Per-size constants come from tables shared by every model (see
    :class:`_SizeTables`), used by the exact scalar path and, as arrays
    indexed by trial count, by the vectorised paths.
    """

    def __init__(self, max_value: float, unit: float, max_size: int) -> None:
        if max_value <= 0.0 or unit <= 0.0:
            raise ValueError("the bit model needs a positive largest value and unit")
        self.max_value = max_value
        self.unit = unit
        self.max_in_units = max_value / unit
        big_m = self.max_in_units
        max_size = max(max_size, 2)
        self.first_avg_bits = math.log(big_m + 1) / LN2
        self.max_bits = math.log(1 - 1 / (big_m + 2)) / LN2
        _TABLES.cover(max_size)
        length, head, tail = _TABLES.arrays
        # views of exactly max_size + 1 entries: callers size their own tables by them
        self.length_bits = length[: max_size + 1]
        self.sphere_head = head[: max_size + 1]
        self.sphere_tail = tail[: max_size + 1]
        # the lists may run longer: they are only indexed by sizes up to max_size
        self._length = _TABLES.length
        self._head = _TABLES.head
        self._tail = _TABLES.tail

    def norm(self, prev_avg: float) -> float:
        """Normalisation of the "opposite triangle" density around ``prev_avg``."""
        big_m = self.max_in_units
        prev = prev_avg / self.unit
        norm = prev * prev
        norm -= (prev - 1) * big_m
        norm += big_m * big_m / 2
        return norm

    def group_bits(self, size: int, avg: float, stdev: float, prev_avg: float | None) -> float:
        """Bits of one group, bit-for-bit as the reference library counts them.

        ``avg`` and ``stdev`` are the already-perturbed statistics the reference
        feeds its formula (see :func:`perturb`); ``prev_avg`` is None for the
        first group.
        """
        if size < 1:
            return 0.0
        unit = self.unit
        bits = 0.0
        bits += self._length[size]
        if prev_avg is None:
            bits += self.first_avg_bits
        else:
            prev = prev_avg / unit
            bits -= math.log((abs(avg / unit - prev) + 1) / self.norm(prev_avg)) / LN2
        if size < 2:
            return bits
        sd = stdev / unit
        bits += math.log((sd + 1) * (sd + 2)) / LN2
        bits += self.max_bits
        sphere = self._head[size]
        sphere += math.log(sd + 1) * (size - 2)
        sphere += self._tail[size]
        bits += sphere / LN2
        return bits

    def ranking_size_bits(self) -> npt.NDArray[np.float64]:
        """Per-size part of :meth:`ranking_bits`, indexed by the group's trial count.

        Summed in another order than :meth:`group_bits`: for ranking only.
        """
        # length_bits + max_bits + (sphere_head + sphere_tail) / LN2 at max(size, 2), in
        # that order, from the shared tables' parts: a model is made per series
        count = len(self.length_bits)
        length, sphere = _TABLES.ranking
        table = np.add(length[:count], self.max_bits)
        table += sphere[:count]
        # a one-trial group has no stdev terms, but ranking_bits adds
        # log2((0+1)*(0+2)) = 1 bit for them: take it back here
        table[1] = self.length_bits[1] - 1.0
        table[0] = 0.0
        return table

    def ranking_bits(
        self, sizes: npt.NDArray[np.int64], stdevs: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.float64]:
        """Bits of groups without the average's term, fast and for ranking only.

        Runs on an N x N table at once, so it works in place on few
        temporaries: ``stdevs`` is consumed (overwritten).
        """
        bits = self.ranking_size_bits()[sizes]
        spread = np.divide(stdevs, self.unit, out=stdevs)
        spread += 1.0
        term = np.add(spread, 1.0)
        term *= spread
        np.log2(term, out=term)
        bits += term
        np.subtract(sizes, 2.0, out=term)
        np.log2(spread, out=spread)
        spread *= term
        bits += spread
        return bits

    def first_record_bits(self, size: int, avg: float, stdev: float) -> float:
        """Bits of the record after the first run, as a later group's prefix.

        The reference never caches this record's bits, and its copy re-derives
        the statistics once more (see :func:`perturb`) before counting them.
        """
        avg, stdev = perturb(size, avg, stdev)
        return self.group_bits(size, avg, stdev, None)

    def partition_bits(
        self, starts: tuple[int, ...], stats: list[tuple[int, float, float]]
    ) -> float:
        """Exact bits of a partition, as the reference would count it.

        ``stats`` holds each group's (size, avg, stdev) as the formula receives
        them; groups are priced in order, each against the previous average.
        """
        total = 0.0
        previous: float | None = None
        for index, (size, avg, stdev) in enumerate(stats):
            if index == 0 and len(starts) > 1 and starts[1] == 1:
                total = self.first_record_bits(size, avg, stdev)
            else:
                total += self.group_bits(size, avg, stdev, previous)
            previous = avg
        return total
