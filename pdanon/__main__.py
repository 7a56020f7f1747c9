"""``pdanon`` / ``python -m pdanon``: the demo and small utilities.

``pdanon demo [--k K] [--method generalize|suppress|aggregate] [--rows N]`` anonymizes the
embedded Adult table and prints a before/after sample, the achieved k, the changed cells and the
time it took. ``pdanon anonymize`` (:mod:`pdanon.cli.anonymize`) and ``pdanon table``
(:mod:`pdanon.cli.table`) are the command lines.
"""

from __future__ import annotations

import argparse
import sys
import time


def _demo(args: argparse.Namespace) -> int:
    import pandas as pd

    import pdanon

    df = pdanon.datasets.load_adult(nrows=args.rows)
    roles = df.anon.roles()
    print(f"pdanon {pdanon.__version__} demo: UCI Adult, {len(df):,} rows")
    print(f"quasi-identifiers: {', '.join(f'{c} ({k})' for c, k in roles.quasi_identifiers.items())}")
    print(f"sensitive: {', '.join(roles.sensitive)}")
    print(f"k-anonymity before: k = {df.anon.k_anonymity()}")
    started = time.perf_counter()
    out = df.anon.k_anonymize(args.k, method=args.method, algorithm=args.algorithm)
    seconds = time.perf_counter() - started
    info = out.anon.info
    with pd.option_context("display.width", 140, "display.max_columns", 20,
                           "display.max_colwidth", 28):
        print("\nbefore (first 5 rows):")
        print(df.head(5).to_string())
        print(f"\nafter k_anonymize({args.k}, method={args.method!r}, "
              f"algorithm={info['algorithm']!r}) (first 5 rows):")
        print(out.head(5).to_string())
    cells = len(df) * len(roles.qi)
    print(f"\nachieved k            : {out.anon.k_anonymity()}")
    print(f"equivalence classes   : {info['groups']:,}")
    print(f"changed cells         : {info['changed_cells']:,} of {cells:,} "
          f"quasi-identifier cells ({info['changed_cells'] / cells:.1%})")
    print(f"seconds               : {seconds:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pdanon", description="pdanon utilities")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="anonymize the embedded Adult table and show the result")
    demo.add_argument("--k", type=int, default=5, help="k of k-anonymity (default 5)")
    demo.add_argument("--method", default="generalize",
                      choices=["generalize", "suppress", "aggregate"])
    demo.add_argument("--algorithm", default="auto",
                      help="partitioning algorithm (auto, nearest, mondrian, datafly, ...)")
    demo.add_argument("--rows", type=int, default=None, help="use only the first N rows")
    from pdanon.cli import anonymize as cli_anonymize

    cli_anonymize.add_parser(sub)
    from pdanon.cli import table as cli_table

    cli_table.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "anonymize":
        return cli_anonymize.main(args)
    if args.command == "table":
        return cli_table.main(args)
    try:
        if args.command == "demo":
            return _demo(args)
    except Exception as exc:  # one-line error, no traceback, for a command-line user
        from pdanon._errors import AnonymizationError

        if isinstance(exc, (AnonymizationError, ValueError, KeyError, TypeError)):
            print(f"pdanon: error: {exc}", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
