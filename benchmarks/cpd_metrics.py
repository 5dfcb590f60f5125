"""Change-point accuracy metrics of the Turing Change Point Dataset benchmark.

van den Burg & Williams, "An Evaluation of Change Point Detection
Algorithms" (arXiv:2003.06222) score a detector against several human
annotators with two metrics, implemented here from their definitions:

* F1 with a margin: a predicted change point is a true positive when it lies
  within ``margin`` points of an annotated one, each annotated point
  matching at most one prediction.  Precision is taken against the union of
  all annotators' points, recall is averaged over the annotators, and index
  0 counts as a change point in every truth and in every prediction (so a
  detector that finds nothing still scores).
* Segmentation covering: each annotator's segments are weighted by length
  and matched to the best-overlapping (Jaccard) predicted segment; the
  covering is averaged over annotators.

A change point is the index of the first point of a new segment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

DEFAULT_MARGIN = 5


def _matched(truth: Iterable[int], predicted: Iterable[int], margin: int) -> int:
    """How many truth points find a distinct prediction within ``margin``.

    Truth points are taken in ascending order and each takes its closest
    free prediction (the smaller one on a tie), as in the paper's code.
    """
    free = set(predicted)
    count = 0
    for point in sorted(truth):
        close = [(abs(point - guess), guess) for guess in free if abs(point - guess) <= margin]
        if close:
            free.remove(min(close)[1])
            count += 1
    return count


def f1_score(
    annotations: Mapping[str, Sequence[int]],
    predictions: Iterable[int],
    margin: int = DEFAULT_MARGIN,
) -> float:
    """F1 of ``predictions`` against every annotator's change points."""
    truths = [set(points) | {0} for points in annotations.values()]
    predicted = set(predictions) | {0}
    union = set().union(*truths)
    precision = _matched(union, predicted, margin) / len(predicted)
    # 1 / K * sum(...), the paper's order of operations, for identical rounding.
    recall = (
        1 / len(truths) * sum(_matched(truth, predicted, margin) / len(truth) for truth in truths)
    )
    if precision + recall == 0:
        return 0.0
    return precision * recall / (0.5 * recall + 0.5 * precision)


def segments(change_points: Iterable[int], length: int) -> list[tuple[int, int]]:
    """Half-open ``(start, end)`` segments; points outside ``(0, length)`` are ignored."""
    bounds = sorted({point for point in change_points if 0 < point < length})
    starts = [0, *bounds]
    return list(zip(starts, [*bounds, length], strict=True))


def _jaccard(first: tuple[int, int], second: tuple[int, int]) -> float:
    overlap = min(first[1], second[1]) - max(first[0], second[0])
    if overlap <= 0:
        return 0.0
    return overlap / (max(first[1], second[1]) - min(first[0], second[0]))


def _cover(predicted: list[tuple[int, int]], truth: list[tuple[int, int]], length: int) -> float:
    total = 0.0
    for segment in truth:
        total += (segment[1] - segment[0]) * max(_jaccard(segment, other) for other in predicted)
    return total / length


def covering(
    annotations: Mapping[str, Sequence[int]], predictions: Iterable[int], length: int
) -> float:
    """Segmentation covering of the predicted segments, averaged over annotators."""
    predicted = segments(predictions, length)
    covers = [
        _cover(predicted, segments(points, length), length) for points in annotations.values()
    ]
    return sum(covers) / len(covers)
