"""Shared helpers of the benchmark scripts: timing with peak memory, and table printing."""

from __future__ import annotations

import resource
import time
import tracemalloc


def measure(fn, *args, **kwargs):
    """Run ``fn`` once; return (result, seconds, peak traced MB).

    Peak memory is what Python and numpy allocated during the call (tracemalloc), which is what
    an algorithm adds on top of its input.
    """
    tracemalloc.start()
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def max_rss_mb() -> float:
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def print_table(rows: list[dict]) -> None:
    """Print dicts as an aligned text table."""
    if not rows:
        return
    cols = list(rows[0])
    text = [[_fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max(len(c), *(len(t[i]) for t in text)) for i, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    print("  ".join("-" * w for w in widths))
    for t in text:
        print("  ".join(x.rjust(w) for x, w in zip(t, widths)))


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.3f}" if v < 100 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)
