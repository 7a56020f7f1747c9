"""(ε, δ)-differentially private releases of Adult (SafePub) against the k-anonymity optimum at
the same hierarchies: granularity, discernibility, salary-class accuracy, rows kept, seconds.

Setting: UCI Adult (30,162 rows, shipped with pdanon) with ARX's hierarchies for all nine
columns; SafePub publishes every column (differential privacy protects them all), so
salary-class is a quasi-identifier like the others. 70 % of the rows (a fixed split) are the
table to publish, 30 % are held out to test the classifier. For each ε in {0.5, 1, 2} at
δ = 1e-5: ``--runs`` SafePub releases for each of quality "loss" and "classification" (target
salary-class; the default searches: search="all" for "loss", the walk of 100 steps for
"classification"; the CSPRNG, no seed), and
the optimal full-domain k-anonymization (``algorithm="optimal"``, objective "loss", at most
5 % of the rows suppressed) at the k that SafePub uses at that ε.

Figures (every one over the rows of the table to publish, so a row SafePub did not sample
or withheld counts as suppressed):

* granularity loss: the mean over rows and columns of a cell's loss — (m - 1) / (M - 1) for
  a node holding m of a hierarchy's M leaves, 1 for a suppressed cell (0 is the input);
* discernibility: (Σ |class|² over published classes + n · rows not published) / n²;
* accuracy: a logistic regression (one-hot cells) trained on the published rows to predict
  salary-class from the other eight columns, tested on the held-out rows recoded to the same
  levels; "-" when the release generalized salary-class to its top (nothing to learn); the
  same model on the input is the reference;
* rows kept: published rows / rows of the table.

SafePub's paper (Bild, Kuhn & Prasser, PoPETs 2018) evaluates the same data set and
hierarchies; its tables could not be read from this machine: ``--issue`` compares with ARX
3.9.2 instead (issue 53's figures, measured the same way).

``--scale N`` adds a table of speed: a release per quality of N rows drawn with replacement
from Adult (rows/s, seconds and CPU seconds of one release; peak memory traced during a second,
since tracing slows the call down).

``--issue`` prints instead the side-by-side with ARX 3.9.2 of issue 53 (all 30,162 rows,
quality "loss", rows published mean ± sd, granularity loss, discernibility, wall seconds;
``--walk`` adds SafePub's walk).

Run: ``python benchmarks/bench_dp.py [--runs 5] [--scale 1000000] [--issue [--walk]]``
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))

import pdanon  # noqa: E402
from _util import max_rss_mb, measure, print_table  # noqa: E402
from pdanon import engine  # noqa: E402
from pdanon.hierarchy import read_arx_csv  # noqa: E402
from pdanon.models import EDDifferentialPrivacy  # noqa: E402

TARGET = "salary-class"
DELTA = 1e-5
EPSILONS = (0.5, 1.0, 2.0)


def _leaf_shares(h, level: int) -> dict:
    """{label at ``level``: (leaves under it - 1) / (all leaves - 1)}."""
    leaves = pd.Series(list(h.leaves))
    counts = h.map(leaves, level).value_counts()
    return {lab: (m - 1) / (len(leaves) - 1) for lab, m in counts.items()}


def _recoded(df: pd.DataFrame, hierarchies: dict, levels: dict) -> pd.DataFrame:
    """``df``'s rows as the labels of the nodes at ``levels`` (one label per published cell)."""
    return pd.DataFrame({c: hierarchies[c].map(df[c].astype(str) if c != "age" else df[c],
                                                levels[c]).astype(str).to_numpy()
                         for c in df.columns})


def _figures(table, kept_rows, levels, hierarchies, test=None):
    """Granularity, discernibility, accuracy and rows kept of a release that publishes
    ``table.iloc[kept_rows]`` at ``levels``."""
    n, d = len(table), table.shape[1]
    published = _recoded(table.iloc[kept_rows], hierarchies, levels)
    loss = 0.0
    for c in table.columns:
        shares = _leaf_shares(hierarchies[c], levels[c]) if levels[c] else None
        if shares is not None:
            loss += float(published[c].map(shares).fillna(1.0).sum())
    loss = (loss + d * (n - len(kept_rows))) / (n * d)
    sizes = published.groupby(list(published.columns), observed=True).size().to_numpy()
    dm = (float((sizes.astype(float) ** 2).sum()) + n * (n - len(kept_rows))) / n ** 2
    acc = None
    if test is not None and levels[TARGET] == 0 and len(published):
        acc = _accuracy(published, _recoded(test, hierarchies, levels), test[TARGET])
    return {"granularity_loss": loss, "discernibility": dm, "accuracy": acc,
            "rows_kept": len(kept_rows) / n}


def _accuracy(train: pd.DataFrame, test: pd.DataFrame, truth: pd.Series) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import OneHotEncoder

    features = [c for c in train.columns if c != TARGET]
    if train[TARGET].nunique() < 2:
        return float((truth.astype(str).to_numpy() == train[TARGET].iloc[0]).mean())
    enc = OneHotEncoder(handle_unknown="ignore")
    x = enc.fit_transform(train[features])
    model = LogisticRegression(max_iter=2000).fit(x, train[TARGET])
    return float((model.predict(enc.transform(test[features]))
                  == truth.astype(str).to_numpy()).mean())


def _safepub(table, roles, epsilon, hierarchies, quality, search="all"):
    model = EDDifferentialPrivacy(epsilon, DELTA)
    extra = {"target": TARGET} if quality == "classification" else {}
    extra.update({"search": "walk", "steps": 100} if search == "walk" else {"search": "all"})
    started, cpu = time.perf_counter(), time.process_time()
    run = engine.partition(table, roles, model=model, method="generalize",
                           algorithm="safepub", hierarchies=hierarchies, quality=quality,
                           **extra)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return model.k, run.result.release_rows, run.result.info["levels"], seconds, cpu


def _optimal(table, k, hierarchies):
    qis = {c: ("real" if c == "age" else "ordered" if c == "education" else "unordered")
           for c in table.columns}
    started, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = table.anon.k_anonymize(k, algorithm="optimal", hierarchies=hierarchies,
                                     max_suppressed_rows=0.05, quasi_identifiers=qis)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    kept = np.flatnonzero(~out.isna().all(axis=1).to_numpy())
    return kept, out.anon.info["levels"], seconds, cpu


#: ARX 3.9.2's EDDifferentialPrivacy on all of Adult (issue 53: delta = 1e-5, search budget
#: 0.1 epsilon, 100 steps, quality "loss", 10 runs): k, rows published mean and sd,
#: granularity loss, discernibility, wall seconds.
ARX = {0.5: (52, 8918, 394, 0.819, 0.709, 1.14), 1.0: (59, 14860, 1003, 0.697, 0.519, 0.78),
       2.0: (92, 20553, 1526, 0.579, 0.340, 0.72)}


def issue_table(adult, roles, hierarchies, runs: int, searches=("all",)) -> None:
    """The side-by-side of docs/differential_privacy.md: every row of Adult, quality "loss",
    ``runs`` releases per epsilon and search, next to ARX's figures."""
    rows = []
    for eps in EPSILONS:
        k, mean, sd, gl, dm, wall = ARX[eps]
        rows.append({"epsilon": eps, "tool": "ARX 3.9.2 (issue 53)", "k": k,
                     "rows_published": f"{mean:,} ± {sd:,}", "granularity_loss": gl,
                     "discernibility": dm, "wall_s": wall, "cpu_s": "-"})
        for search in searches:
            figures = []
            for _ in range(runs):
                k, kept, levels, seconds, cpu = _safepub(adult, roles, eps, hierarchies,
                                                         "loss", search)
                figures.append({**_figures(adult, kept, levels, hierarchies),
                                "rows": len(kept), "seconds": seconds, "cpu": cpu})
            frame = pd.DataFrame(figures)
            rows.append({"epsilon": eps, "tool": f"pdanon search={search!r}", "k": k,
                         "rows_published": f"{frame['rows'].mean():,.0f} ± "
                                           f"{frame['rows'].std(ddof=1):,.0f}",
                         "granularity_loss": frame["granularity_loss"].mean(),
                         "discernibility": frame["discernibility"].mean(),
                         "wall_s": frame["seconds"].mean(), "cpu_s": frame["cpu"].mean()})
    print(f"All {len(adult):,} rows of Adult, ARX's hierarchies for all nine columns, "
          f"delta = {DELTA:g}, search_share 0.1, quality 'loss', {runs} runs per row "
          f"(the CSPRNG); {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print_table(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="SafePub releases per epsilon")
    parser.add_argument("--scale", type=int, default=0,
                        help="also time one release per quality of this many rows")
    parser.add_argument("--issue", action="store_true",
                        help="only the side-by-side with ARX (all rows, quality 'loss')")
    parser.add_argument("--walk", action="store_true",
                        help="with --issue: also SafePub's walk (search='walk', 100 steps)")
    args = parser.parse_args(argv)

    adult = pdanon.datasets.load_adult()
    hierarchies = {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c))
                   for c in adult.columns}
    if args.issue:
        roles = pdanon.roles.Roles(quasi_identifiers={
            c: ("real" if c == "age" else "ordered" if c == "education" else "unordered")
            for c in adult.columns})
        issue_table(adult, roles, hierarchies, args.runs,
                    ("all", "walk") if args.walk else ("all",))
        if args.scale:
            _speed(adult, roles, hierarchies, args.scale)
        return
    rng = np.random.default_rng(2018)
    test_rows = rng.random(len(adult)) < 0.3
    table = adult[~test_rows].reset_index(drop=True)
    test = adult[test_rows].reset_index(drop=True)
    roles = pdanon.roles.Roles(quasi_identifiers={
        c: ("real" if c == "age" else "ordered" if c == "education" else "unordered")
        for c in table.columns})
    zero = {c: 0 for c in table.columns}
    reference = _accuracy(_recoded(table, hierarchies, zero), _recoded(test, hierarchies, zero),
                          test[TARGET])
    print(f"Adult: {len(table):,} rows to publish, {len(test):,} held out; salary-class "
          f"accuracy on the input {reference:.3f}, majority class "
          f"{(test[TARGET] == table[TARGET].mode()[0]).mean():.3f}; delta = {DELTA:g}; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}\n")
    rows = []
    for eps in EPSILONS:
        for quality in ("loss", "classification"):
            runs = []
            for _ in range(args.runs):
                k, kept, levels, seconds, cpu = _safepub(
                    table, roles, eps, hierarchies, quality,
                    "all" if quality == "loss" else "walk")  # the defaults
                runs.append({**_figures(table, kept, levels, hierarchies, test),
                             "seconds": seconds, "cpu": cpu})
            frame = pd.DataFrame(runs)
            accs = frame["accuracy"].dropna()
            rows.append({
                "epsilon": eps, "k": k,
                "method": f"SafePub {quality}, search="
                          f"{'all' if quality == 'loss' else 'walk'} (mean of {args.runs})",
                "granularity_loss": frame["granularity_loss"].mean(),
                "discernibility": frame["discernibility"].mean(),
                "accuracy": (f"{accs.mean():.3f} ({len(accs)}/{len(frame)})" if len(accs)
                             else "-"),
                "rows_kept": frame["rows_kept"].mean(), "seconds": frame["seconds"].mean(),
                "cpu_s": frame["cpu"].mean()})
        kept, levels, seconds, cpu = _optimal(table, k, hierarchies)
        fig = _figures(table, kept, levels, hierarchies, test)
        rows.append({
            "epsilon": eps, "method": "optimal k-anonymity", "k": k,
            "granularity_loss": fig["granularity_loss"], "discernibility": fig["discernibility"],
            "accuracy": "-" if fig["accuracy"] is None else f"{fig['accuracy']:.3f}",
            "rows_kept": fig["rows_kept"], "seconds": seconds, "cpu_s": cpu})
    print_table(rows)
    print("\naccuracy (a/b): mean over the a of b SafePub runs that published salary-class "
          "ungeneralized")
    if args.scale:
        _speed(adult, roles, hierarchies, args.scale)


def _speed(adult, roles, hierarchies, n):
    """One release at ε = 1 per quality of ``n`` rows resampled from Adult."""
    big = adult.iloc[np.random.default_rng(1).integers(0, len(adult), n)].reset_index(drop=True)
    rows = []
    for quality in ("loss", "precision", "discernibility", "group_size", "classification"):
        extra = {"target": TARGET} if quality == "classification" else {}
        release = functools.partial(big.anon.dp_anonymize, 1.0, DELTA,
                                    hierarchies=hierarchies, quality=quality,
                                    quasi_identifiers=roles.quasi_identifiers, **extra)
        started, cpu = time.perf_counter(), time.process_time()
        out = release()
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        _, _, peak = measure(release)  # a second release, traced (tracing slows it down)
        rows.append({"rows": n, "quality": quality, "published": len(out),
                     "rows_per_s": n / seconds, "seconds": seconds,
                     "cpu_s": cpu, "peak_traced_mb": peak})
    print(f"\nSpeed at epsilon = 1, delta = {DELTA:g} ({n:,} rows resampled from Adult; load "
          f"{os.getloadavg()[0]:.2f})")
    print_table(rows)
    print(f"peak RSS {max_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
