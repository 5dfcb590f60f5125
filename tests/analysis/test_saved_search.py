"""A saved exact search, resumed in a later build, groups exactly as a fresh one."""

from __future__ import annotations

import math
import random
import struct
from dataclasses import FrozenInstanceError, fields, replace

import numpy as np
import pytest
from analysis_series import make_series, series_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis import classify, exact, saved_search
from sphinxcontrib_trending.analysis.incremental import IncrementalClassifier
from sphinxcontrib_trending.analysis.saved_search import MAGIC, SavedSearch


def _through_bytes(saved: SavedSearch) -> SavedSearch:
    return SavedSearch.from_bytes(saved.to_bytes())


def _with_sides(saved: SavedSearch, change) -> bytes:  # type: ignore[no-untyped-def]
    """The saved bytes with ``change`` applied to the arrays' sides in their header."""
    data = saved.to_bytes()
    numbers = struct.unpack_from("<qqddqq", data, len(MAGIC))
    sides = list(struct.unpack_from("<11q", data, len(MAGIC) + 48))
    change(sides)
    head = struct.pack("<qqddqq11q", *numbers, *sides)
    return MAGIC + head + data[len(MAGIC) + len(head) :]


def _cut_and_saved(case, cut: int, rng):  # type: ignore[no-untyped-def]
    """The case's runs (a tenth missing) and where they are cut, with the classifier of
    the runs before the cut and its saved search (None: nothing to resume)."""
    runs, unit, sbps = case
    runs = [None if rng.random() < 0.1 else run for run in runs]
    cut = min(cut, len(runs))
    before = IncrementalClassifier(unit=unit, sbps=sbps)
    before.extend(runs[:cut])
    return runs, unit, sbps, cut, before, before.save()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=90), st.integers(1, 89), st.randoms(use_true_random=False))
def test_a_resumed_search_classifies_as_a_fresh_one(case, cut, rng) -> None:
    runs, unit, sbps, cut, before, saved = _cut_and_saved(case, cut, rng)
    if saved is None:  # nothing measured yet, all zero or negative: nothing to resume
        return
    resumed = IncrementalClassifier.resumed(runs[:cut], _through_bytes(saved), unit, sbps)
    assert resumed.extend(runs[cut:]) == classify(runs, unit=unit, sbps=sbps)
    again = resumed.save()
    assert again is not None and again.runs == sum(run is not None for run in runs)
    before.extend(runs[cut:])  # the same search, never saved
    continued = before.save()
    assert continued is not None and again.to_bytes() == continued.to_bytes()


def _continued_as_resumed_and_extended(runs: list, cut: int, saved: SavedSearch, unit, sbps):  # type: ignore[no-untyped-def]
    """``continued`` gives what ``resumed`` then ``extend`` give, or refuses as they do."""
    try:
        resumed = IncrementalClassifier.resumed(runs[:cut], _through_bytes(saved), unit, sbps)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)):
            IncrementalClassifier.continued(runs, cut, _through_bytes(saved), unit, sbps)
        return None
    expected = resumed.extend(runs[cut:])
    classifier, result = IncrementalClassifier.continued(
        runs, cut, _through_bytes(saved), unit, sbps
    )
    assert result == expected
    assert classifier.run_count == resumed.run_count == len(runs)
    again, expected_again = classifier.save(), resumed.save()
    assert (again is None) == (expected_again is None)
    assert again is None or again.to_bytes() == expected_again.to_bytes()  # type: ignore[union-attr]
    return result


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=90), st.integers(1, 89), st.randoms(use_true_random=False))
def test_a_continued_search_is_the_resumed_one_extended(case, cut, rng) -> None:
    """Numbers are prepared once, the rest in two parts: the same either way."""
    runs, unit, sbps, cut, _, saved = _cut_and_saved(case, cut, rng)
    if saved is None:
        return
    result = _continued_as_resumed_and_extended(runs, cut, saved, unit, sbps)
    assert result == classify(runs, unit=unit, sbps=sbps)


@pytest.mark.parametrize(
    "added",
    [
        [float("nan"), 101.0],  # a run that is no value: missing
        [-5.0],  # a negative value: the whole history is shifted, no state kept
        [[99.0, 101.0]],  # trials: prepared in two parts
        [500.0, None],  # a new largest value: a new search
        [None, None],  # nothing measured
    ],
)
def test_a_continued_search_handles_what_a_new_run_may_be(saved_case, added) -> None:
    runs, saved = saved_case
    result = _continued_as_resumed_and_extended([*runs, *added], len(runs), saved, None, None)
    assert result == classify([*runs, *added])


def test_a_continued_search_refuses_a_state_of_other_runs(saved_case) -> None:
    runs, saved = saved_case
    with pytest.raises(ValueError, match="other runs"):
        IncrementalClassifier.continued([*runs[:-1], 100.0], len(runs) - 1, saved)
    with pytest.raises(ValueError, match="other bit model"):
        IncrementalClassifier.continued([*runs[:-1], max(runs) + 1.0, 1.0], len(runs), saved)
    with pytest.raises(ValueError, match="non-negative"):
        IncrementalClassifier.continued([-1.0, *runs[1:], 1.0], len(runs), saved)


def test_the_state_of_a_long_history_is_compact() -> None:
    """About 12 KB for 180 runs of ten trials, whatever the history's shape."""
    rng = random.Random(7)
    runs = make_series(rng, 180, 1e7, "trials")
    classifier = IncrementalClassifier()
    classifier.extend(runs)
    saved = classifier.save()
    assert saved is not None
    assert len(saved.to_bytes()) < 48_000


def test_jumpavg_and_negative_values_have_no_state_to_save() -> None:
    jumpavg = IncrementalClassifier(search="jumpavg")
    jumpavg.extend([1.0, 2.0, 3.0])
    negative = IncrementalClassifier()
    negative.extend([1.0, -2.0, 3.0])
    assert jumpavg.save() is None
    assert negative.save() is None


@pytest.fixture(scope="module")
def saved_case() -> tuple[list[float], SavedSearch]:
    rng = random.Random(3)
    runs = [rng.gauss(100.0 if index < 30 else 80.0, 1.0) for index in range(60)]
    classifier = IncrementalClassifier()
    classifier.extend(runs)
    saved = classifier.save()
    assert saved is not None
    return runs, saved


def test_a_state_for_other_runs_is_refused(saved_case) -> None:
    runs, saved = saved_case
    with pytest.raises(ValueError, match="other runs"):
        IncrementalClassifier.resumed(runs[:-1], saved)  # the same largest value, a run less
    with pytest.raises(ValueError, match="other bit model"):
        IncrementalClassifier.resumed([*runs[:-1], max(runs) + 1.0], saved)
    with pytest.raises(ValueError, match="other bit model"):
        IncrementalClassifier.resumed(runs, saved, sbps=8.0)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("history_from", lambda a: a + 10_000, "history's predecessors"),
        ("history_begin", lambda a: a[::-1].copy(), "history's"),
        ("pending_from", lambda a: np.full_like(a, -5), "pending"),
        ("groups", lambda a: a[:, :-1].copy(), "statistics"),
        ("best", lambda a: np.full_like(a, np.nan), "best"),
        ("groups", lambda a: np.vstack((a[:1] * 0, a[1:])), "trial counts"),
        ("groups", lambda a: np.vstack((a[:1] + 0.5, a[1:])), "trial counts"),
        ("groups", lambda a: np.vstack((a[:3], a[3:] + 10_000)), "starts"),
        ("groups", lambda a: np.vstack((a[:3], a[3:] + 0.5)), "starts"),
        ("history_begin", lambda a: np.concatenate((a[:1], a[:-1])), "history's order"),
        ("history_begin", lambda a: a - 1, "history's ranges"),
        ("history_key", lambda a: np.where(np.arange(len(a)) == 3, np.inf, a), "history_key"),
        ("groups", lambda a: np.where(a == a.max(), np.nan, a), "groups"),
    ],
)
def test_a_tampered_state_is_refused_with_what_is_wrong(saved_case, field, value, message) -> None:
    """The state comes from the build folder: every index is checked before use."""
    runs, saved = saved_case
    bad = replace(saved, **{field: value(getattr(saved, field))})
    with pytest.raises(ValueError, match=message):
        IncrementalClassifier.resumed(runs, SavedSearch.from_bytes(bad.to_bytes()))
    assert SavedSearch.from_bytes(saved.to_bytes()).runs == saved.runs  # the original loads


@pytest.mark.parametrize("version", [1, 2])
def test_a_state_saved_in_an_earlier_format_is_refused(saved_case, version) -> None:
    """Version 1 kept every survivor's predecessors twice, version 2 had a JSON header; such
    a state is refused (the series is then grouped afresh), never read as the present format."""
    runs, saved = saved_case
    earlier = f"sphinxcontrib-trending/saved-search/{version}\n".encode()
    with pytest.raises(ValueError, match="not a saved search"):
        SavedSearch.from_bytes(saved.to_bytes().replace(MAGIC, earlier, 1))
    assert IncrementalClassifier.resumed(runs, _through_bytes(saved)).run_count == len(runs)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not a state",
        MAGIC,
        MAGIC + struct.pack("<I", 5) + b"[1,2]",
        MAGIC + struct.pack("<I", 9) + b'{"runs":3}',
        MAGIC + struct.pack("<I", 99) + b"{",
        MAGIC + struct.pack("<I", 3) + b"\xff\xfe{",
    ],
)
def test_what_is_not_a_state_at_all_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match="saved search"):
        SavedSearch.from_bytes(data)


def test_an_array_that_does_not_fill_its_shape_or_has_none_is_refused(saved_case) -> None:
    _, saved = saved_case
    best = 2  # groups' two sides come first

    def grow(sides: list[int]) -> None:
        sides[best] = 10**9

    def negative(sides: list[int]) -> None:
        sides[best] = -1

    assert (
        SavedSearch.from_bytes(_with_sides(saved, lambda sides: None)).to_bytes()
        == saved.to_bytes()
    )
    with pytest.raises(ValueError, match="fill its shape"):
        SavedSearch.from_bytes(_with_sides(saved, grow))
    with pytest.raises(ValueError, match="valid shape"):
        SavedSearch.from_bytes(_with_sides(saved, negative))
    with pytest.raises(ValueError, match="beyond its arrays"):
        SavedSearch.from_bytes(saved.to_bytes() + b"\0" * 8)
    with pytest.raises(ValueError, match="not a saved search"):
        SavedSearch.from_bytes(saved.to_bytes()[: len(MAGIC) + 20])


def test_a_resumed_search_makes_its_size_table_once(saved_case, monkeypatch) -> None:
    """Resuming and adding a run makes one table, sized for the new run, not two."""
    runs, saved = saved_case
    made = []
    original = exact.size_costs
    monkeypatch.setattr(exact, "size_costs", lambda model: made.append(model) or original(model))
    resumed = IncrementalClassifier.resumed(runs, _through_bytes(saved))
    extended = resumed.extend([runs[0]])
    assert len(made) == 1 and len(made[0].length_bits) > saved.trials + 1
    assert extended == classify([*runs, runs[0]])


def test_a_read_state_s_arrays_are_writable_and_its_own(saved_case) -> None:
    """numba tells a read-only array's type the slow way: a state is read into one copy."""
    _, saved = saved_case
    data = saved.to_bytes()
    read = SavedSearch.from_bytes(data)
    for name in ("groups", "best", "doomed", "pending_from", "history_key", "history_prev"):
        array = getattr(read, name)
        assert array.flags.writeable and not np.shares_memory(array, np.frombuffer(data, "u1"))


def test_an_assembled_state_is_the_constructed_one(saved_case) -> None:
    """Made without the frozen constructor (as a read or saved state is), a state has
    every field, the same values, and compares, hashes its fields and encodes alike."""
    _, saved = saved_case
    values = {field.name: getattr(saved, field.name) for field in fields(SavedSearch)}
    assembled = SavedSearch.assembled(values)
    assert type(assembled) is SavedSearch
    assert all(getattr(assembled, name) is value for name, value in values.items())
    assert vars(assembled).keys() == vars(SavedSearch(**values)).keys()
    assert assembled.to_bytes() == SavedSearch(**values).to_bytes() == saved.to_bytes()
    read = SavedSearch.from_bytes(saved.to_bytes())
    assert vars(read).keys() == values.keys()
    with pytest.raises(FrozenInstanceError):
        assembled.runs = 3  # type: ignore[misc]


def test_a_continued_search_makes_its_model_once(saved_case, monkeypatch) -> None:
    """A series that gained a run makes one bit model for its search: sized for the new run
    where it resumes, not made for the old runs and made again when the new one comes."""
    runs, saved = saved_case
    made = []
    original = exact.BitModel
    monkeypatch.setattr(exact, "BitModel", lambda *model: made.append(model) or original(*model))
    grown = np.array([*runs, runs[0]])
    classifier, result = IncrementalClassifier.continued(grown, len(runs), _through_bytes(saved))
    assert len(made) == 1 and made[0][2] >= len(grown)
    assert result == classify(list(grown))
    continued = classifier.save()
    extended = IncrementalClassifier.resumed(runs, _through_bytes(saved))
    extended.extend([runs[0]])
    again = extended.save()
    assert continued is not None and again is not None
    assert continued.to_bytes() == again.to_bytes()


def _one_by_one(saved: SavedSearch) -> bool:
    """Whether the check's tests one by one (numpy, which say what failed) accept ``saved``."""

    class Undecided:
        @staticmethod
        def state_in_range(*_arguments: object) -> bool:
            return False

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(saved_search, "_compiled", lambda: Undecided)
        try:
            saved.check()
        except ValueError:
            return False
    return True


def test_the_compiled_check_accepts_exactly_what_the_tests_one_by_one_accept(
    saved_case,
) -> None:
    """One value changed at a time, to what an index or count must never be, or just may."""
    _, saved = saved_case
    rng = random.Random(11)
    edges = [-2, -1, 0, 0.5, 1, saved.runs - 1, saved.runs, saved.trials, saved.trials + 1]
    edges += [len(saved.history_from) - 1, len(saved.history_from), math.nan, math.inf]
    arrays = ["groups", "best", "doomed", "pending_from", "pending_key", "history_begin"]
    arrays += ["history_from", "history_key", "history_prev", "pending_prev"]
    verdicts = set()
    for _ in range(600):
        name = rng.choice(arrays)
        values = getattr(saved, name).copy()
        flat = values.reshape(-1)
        value = rng.choice(edges)
        if values.dtype.kind == "i" and not (isinstance(value, int) or value.is_integer()):
            continue
        flat[rng.randrange(len(flat))] = value
        bad = SavedSearch.from_bytes(replace(saved, **{name: values}).to_bytes())
        compiled = saved_search._compiled().state_in_range(
            bad.groups,
            bad.best,
            bad.pending_key,
            bad.pending_prev,
            bad.history_key,
            bad.history_prev,
            bad.doomed,
            bad.pending_from,
            bad.history_begin,
            bad.history_from,
            bad.runs,
            bad.trials,
        )
        assert compiled == _one_by_one(bad), (name, value)
        verdicts.add(compiled)
    assert verdicts == {True, False}
