"""Run a snippet in a child Python under an address-space limit and read back its peak memory.

A test that guards against an unbounded allocation must not let the old code take the machine
down: the child gets ``RLIMIT_AS`` (as ``prlimit --as`` would set), so a dense rows × categories
matrix fails at once with a ``MemoryError`` instead of swapping, and a wall-clock timeout. The
snippet runs between ``tracemalloc.start()`` and ``tracemalloc.get_traced_memory()`` (numpy
reports its buffers to tracemalloc), so the figure is what the snippet itself allocated at its
peak, not the interpreter's baseline. Memory outside numpy and Python objects (pyarrow's own
allocator) is not counted by tracemalloc, only limited by ``RLIMIT_AS``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap

_TEMPLATE = """
import json, sys, time, tracemalloc
{setup}
if {trace}:
    tracemalloc.start()
_t = time.perf_counter()
{body}
_seconds = time.perf_counter() - _t
_peak = tracemalloc.get_traced_memory()[1] if {trace} else None
tracemalloc.stop()
{check}
print("@@" + json.dumps({{"peak": _peak, "seconds": _seconds}}))
"""


def run_measured(setup: str, body: str, check: str = "", *, limit: int = 3 * 2**30,
                 timeout: float = 120.0, trace: bool = True) -> dict:
    """Run ``setup`` (not measured), ``body`` (measured), then ``check`` (not measured) in a
    child interpreter limited to ``limit`` bytes of address space. Returns ``{"peak": bytes,
    "seconds": float}``; raises AssertionError with the child's error output when it fails.
    ``trace=False`` times the body without tracemalloc (which slows Python allocations down
    several times); ``peak`` is then None."""
    code = _TEMPLATE.format(setup=textwrap.dedent(setup), body=textwrap.dedent(body),
                            check=textwrap.dedent(check), trace=bool(trace))

    def limit_memory():  # runs in the child before exec
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, preexec_fn=limit_memory, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the measured snippet ran longer than {timeout} s") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@")]
    if proc.returncode != 0 or not lines:
        raise AssertionError(f"the measured snippet failed (exit {proc.returncode}) under a "
                             f"{limit / 2**30:.1f} GiB limit:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][2:])
