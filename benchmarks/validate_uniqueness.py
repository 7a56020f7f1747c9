"""Validation of the population uniqueness estimators against a known population.

Three synthetic populations of 1,000,000 rows are generated deterministically (a mixture of
latent groups, each with its own Zipf-like distribution over every attribute, so the joint
distribution is skewed and has a long tail of rare combinations):

* ``low``  - 5 quasi-identifiers (5-year age band, sex, region, education, marital status):
  about 4 % of the population is unique;
* ``mid``  - the same with age in years: about a quarter is unique;
* ``high`` - ``mid`` plus the number of children: more than half is unique.

From each, simple random samples without replacement at fractions 0.01, 0.1 and 0.5 are drawn
(``--reps`` seeded repetitions each). Two more populations follow the estimators' own models
(a check that each estimator recovers the truth when its assumptions hold): ``Pitman model``
(1,000,000 rows partitioned by Pitman's sampling formula, θ = 5000, α = 0.5) and ``SNB model``
(classes of size 1 + negative binomial (α = 0.8, β = 0.2), about 1,000,000 rows).

The true fraction of population uniques (population records unique on the quasi-identifiers /
population size) is known; every estimator of
:func:`pdanon.metrics.population_uniques` is computed on each sample and averaged over the
repetitions. ``seconds`` is the mean time of one ``population_uniques(..., estimator="all")``
call (class sizes + all four models). Also printed: the sample's own uniques share and the
share of sample uniques that are population uniques.

Run: ``python benchmarks/validate_uniqueness.py [--rows 1000000] [--reps 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from _util import print_table  # noqa: E402

from pdanon.metrics.uniqueness import population_uniques  # noqa: E402

FRACTIONS = (0.01, 0.1, 0.5)
GROUPS = 6  # latent mixture components


def zipf_weights(m: int, s: float, rng) -> np.ndarray:
    """Zipf-like probabilities 1/k^s over m values, in a random order of the values."""
    w = 1.0 / np.arange(1, m + 1) ** s
    return rng.permutation(w / w.sum())


def draw(rows: int, m: int, s: float, group: np.ndarray, rng) -> np.ndarray:
    """One attribute: in every latent group its own Zipf(s) law over m values."""
    out = np.empty(rows, dtype=np.int64)
    for g in range(GROUPS):
        idx = np.flatnonzero(group == g)
        out[idx] = rng.choice(m, size=len(idx), p=zipf_weights(m, s, rng))
    return out


def make_population(kind: str, rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(GROUPS, size=rows, p=zipf_weights(GROUPS, 1.0, rng))
    cols = {"sex": draw(rows, 2, 0.3, group, rng),
            "region": draw(rows, 60, 1.1, group, rng),
            "education": draw(rows, 16, 1.0, group, rng),
            "marital": draw(rows, 6, 1.2, group, rng)}
    if kind == "low":
        cols["age"] = draw(rows, 18, 0.4, group, rng)  # 5-year bands
    else:
        cols["age"] = draw(rows, 91, 0.5, group, rng)  # years
    if kind == "high":
        cols["children"] = draw(rows, 8, 1.5, group, rng)
    return pd.DataFrame(cols)


def pitman_population(rows: int, theta: float, alpha: float, seed: int) -> pd.DataFrame:
    """A population partitioned by Pitman's two-parameter model (the Chinese restaurant
    process): row i opens a new class with probability (θ + Kα) / (θ + i), K classes so far,
    else joins class k with probability (size_k - α) / (θ + i) (a random earlier row's class,
    accepted with probability (size_k - α) / size_k). A sequential loop: a few seconds."""
    rng = np.random.default_rng(seed)
    draws = iter(rng.random(4 * rows).tolist())
    label, size = [0] * rows, []
    for i in range(rows):
        if next(draws) * (theta + i) < theta + len(size) * alpha:
            label[i] = len(size)
            size.append(1)
            continue
        while True:
            k = label[int(next(draws) * i)]
            if next(draws) * size[k] < size[k] - alpha:
                break
        label[i] = k
        size[k] += 1
    return pd.DataFrame({"cls": np.array(label, dtype=np.int64)})


def snb_population(rows: int, alpha: float, beta: float, seed: int) -> pd.DataFrame:
    """A population of about ``rows`` rows whose class sizes are 1 + negative binomial (α, β),
    the SNB model; rows in random order."""
    rng = np.random.default_rng(seed)
    K = int(rows / (1 + alpha * (1 - beta) / beta))
    sizes = 1 + rng.negative_binomial(alpha, beta, K)
    return pd.DataFrame({"cls": rng.permutation(np.repeat(np.arange(K), sizes))})


def class_sizes(frame: pd.DataFrame) -> np.ndarray:
    """Size of every row's class over all the frame's columns (plain pandas, independent of
    pdanon)."""
    g = frame.groupby(list(frame.columns)).ngroup().to_numpy()
    return np.bincount(g)[g]


def validate(rows: int, reps: int, models: bool = True) -> list[dict]:
    table = []
    populations = [(kind, lambda kind=kind, seed=seed: make_population(kind, rows, seed))
                   for seed, kind in enumerate(("low", "mid", "high"), start=1)]
    if models:
        populations += [("Pitman model", lambda: pitman_population(rows, 5000.0, 0.5, 4)),
                        ("SNB model", lambda: snb_population(rows, 0.8, 0.2, 5))]
    for kind, make in populations:
        pop = make()
        rows = len(pop)
        qis = list(pop.columns)
        F = class_sizes(pop)
        true = np.count_nonzero(F == 1) / rows
        for fraction in FRACTIONS:
            n = int(round(fraction * rows))
            est, seconds, own, precise, models = [], [], [], [], []
            for rep in range(reps):
                idx = np.random.default_rng(100 * rep + int(fraction * 100)).choice(
                    rows, size=n, replace=False)
                sample = pop.iloc[idx]
                started = time.perf_counter()
                e = population_uniques(sample, qis, sampling_fraction=n / rows,
                                       estimator="all")
                seconds.append(time.perf_counter() - started)
                est.append(e.to_numpy())
                models.append(e.attrs["dankar_model"])
                f = class_sizes(sample)
                own.append(np.count_nonzero(f == 1) / n)
                precise.append(np.count_nonzero((f == 1) & (F[idx] == 1))
                               / max(np.count_nonzero(f == 1), 1))
            est = np.array(est)
            nan = np.isnan(est).sum(axis=0)
            cell = [f"{np.mean(e[~np.isnan(e)]):.4f}" if k < reps else "NaN" for e, k in
                    zip(est.T, nan)]
            cell = [c + (f" ({k}/{reps} NaN)" if 0 < k < reps else "") for c, k in zip(cell, nan)]
            label = kind if kind.endswith("model") else f"{kind} ({len(qis)} QIs)"
            table.append({"population": label, "fraction": fraction,
                          "true": f"{true:.4f}", "pitman": cell[0], "zayatz": cell[1],
                          "snb": cell[2], "dankar": cell[3],
                          "dankar model": "/".join(sorted(set(models))),
                          "sample uniques": f"{np.mean(own):.4f}",
                          "of them pop-unique": f"{np.mean(precise):.3f}",
                          "seconds": f"{np.mean(seconds):.3f}"})
            print_table(table[-1:])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-models", action="store_true",
                        help="skip the populations drawn from Pitman's and SNB's models")
    args = parser.parse_args()
    table = validate(args.rows, args.reps, not args.no_models)
    print(f"\n{args.rows:,}-row populations, {args.reps} samples per fraction "
          f"(mean estimate; fraction of population records that are population uniques):")
    print_table(table)


if __name__ == "__main__":
    main()
