"""The messy-frame fuzz suite for longer: many more cases than CI runs.

Every case draws a messy frame (missing cells of every kind, infinities, mixed types, unused
categories, tz-aware dates, the string dtype, duplicate and string indexes, 0-12 rows, up to
40 columns) and an anonymizer call (algorithm x method x model), and checks the contract of
tests/test_fuzz_messy.py: a verified table or a pdanon error, within a time limit, input
unchanged. Failures are grouped by exception and place and printed with one example each.

Run from the repository root (minutes; by hand, never in CI):

    python benchmarks/fuzz_messy.py --cases 3000
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests._helpers.messy import call_cases, check_call, messy_frames  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    outcomes: Counter = Counter()
    reasons: Counter = Counter()
    failures: dict = {}
    started = time.perf_counter()

    @settings(max_examples=args.cases, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data):
        df = data.draw(messy_frames())
        if df.shape[1] == 0:
            return
        case = data.draw(call_cases(df))
        try:
            outcome = check_call(df, case)
            outcomes["ok" if outcome == "ok" else "refused"] += 1
            if outcome != "ok":
                reasons[outcome[len("refused: "):]] += 1
        except Exception as exc:  # noqa: BLE001 - every failure is recorded, none stops the run
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            key = (type(exc).__name__, f"{Path(tb.filename).name}:{tb.lineno}")
            outcomes["FAILED"] += 1
            failures.setdefault(key, (str(exc)[:300], case, df.dtypes.astype(str).to_dict()))

    import random

    random.seed(args.seed)
    run()
    seconds = time.perf_counter() - started
    ran = sum(outcomes.values())
    print(f"| cases | verified table | pdanon error | failed | seconds | cases/s |")
    print(f"|---:|---:|---:|---:|---:|---:|")
    print(f"| {ran} | {outcomes['ok']} | {outcomes['refused']} | {outcomes['FAILED']} | "
          f"{seconds:.1f} | {ran / seconds:.1f} |")
    print("\npdanon errors by reason (column names and numbers as _):")
    for reason, count in reasons.most_common():
        print(f"  {count:5d}  {reason}")
    for (name, where), (message, case, dtypes) in failures.items():
        print(f"\n{name} at {where}: {message}\n  call: {case!r}\n  dtypes: {dtypes}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
