"""What a person would notice of a video slot, from the times its frames were decoded or shown:
a freeze is a gap of more than FREEZE_MS between frames."""

FREEZE_MS = 200


def gaps(times, start, end, longer_than=FREEZE_MS):
    """The intervals of [start, end] (ms) between consecutive `times` (the window's edges count
    as times) longer than `longer_than`."""
    moments = [start] + sorted(t for t in times if start <= t <= end) + [end]
    return [(earlier, later) for earlier, later in zip(moments, moments[1:]) if later - earlier > longer_than]


def overlap(intervals, others):
    return sum(max(0, min(b, d) - max(a, c)) for a, b in intervals for c, d in others)


def frozen_fraction(times, start, end, blind=()):
    """The share of [start, end] (ms) spent in gaps of more than FREEZE_MS between frames, leaving
    out the `blind` intervals (when nobody looked: the page's sampler did not run)."""
    frozen = gaps(times, start, end)
    seen = (end - start) - sum(b - a for a, b in blind)
    return (sum(b - a for a, b in frozen) - overlap(frozen, blind)) / seen if seen > 0 else 1.0
