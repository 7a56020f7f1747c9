"""Population uniqueness estimators: from a sample and its sampling fraction, the share of the
population's records that are unique on the quasi-identifiers.

A row unique in a 1 % sample is not necessarily unique in the population it was drawn from;
an attacker who links the sample with a population register succeeds for sure only on
*population* uniques. Without the population, statistical models of how the population's
class sizes are distributed estimate how many there are. pdanon implements the four estimators
of ARX (``org.deidentifier.arx.risk.RiskModelPopulationUniqueness``), each from the sample's
**frequency-of-frequencies** table - how many classes of size 1, 2, 3, ... the sample has:

* **Zayatz** (1991): the chance that a sample unique comes from a population unique, with the
  population's class sizes assumed distributed like the sample's, from hypergeometric sampling;
* **Pitman** (Hoshino 2001): the population is a draw from Pitman's two-parameter sampling
  formula (θ, α); the parameters are the maximum-likelihood estimates on the sample, and the
  population uniques are Γ(θ + 1) / Γ(θ + α) · N^α;
* **SNB** (Chen & Keller-McNulty 1998): population class sizes follow a shifted negative
  binomial law (α, β) over K non-empty classes; K is Haas et al.'s (1995) Shlosser-type
  estimate, α and β make the expected numbers of sample uniques and doubletons equal the
  observed ones, and the population uniques are K · β^α;
* **Dankar** (Dankar, El Emam, Neisa & Roffey 2012): a decision rule, as ARX applies it -
  sampling fraction ≤ 0.1: Pitman (Zayatz when Pitman has no solution); above 0.1: the smaller
  of Zayatz and SNB (Zayatz when SNB has no solution).

Every estimate is a **fraction of the population's records** (estimated population uniques /
N, N = n / sampling fraction), as ARX's ``getFractionOfUniqueTuples...`` report it: 0.02 means
2 % of the people in the population are unique on the quasi-identifiers. Conventions (as ARX):
no sample unique gives 0 for every estimator; sampling fraction 1 (the sample *is* the
population) gives the sample's own uniques share exactly. Pitman and SNB need a root of their
equations; when there is none in the model's range the estimate is NaN and
:func:`uniqueness_models` says why in ``notes`` (ARX reports 0 then).

Missing quasi-identifier cells are a value of their own (``missing="value"``); the estimators
need equivalence classes, so ``missing="wildcard"`` (under which rows form no classes) is
refused with an error.

Example
-------
>>> import pandas as pd
>>> sample = pd.DataFrame({"zip": [1, 1, 2, 3, 4, 4, 4, 5]})
>>> round(population_uniques(sample, ["zip"], sampling_fraction=0.5,
...                          estimator="zayatz"), 4)
0.2312
>>> population_uniques(sample, ["zip"], sampling_fraction=1.0)  # the sample's own share
0.375
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._errors import InvalidInputError
from pdanon.metrics._common import check_frame, quasi_identifier_kinds


class _LazyModule:
    """A scipy module imported on first use: ``scipy.stats`` alone costs about a second
    to import, which every ``import pdanon.metrics`` (the policy check, the command line)
    would otherwise pay before measuring anything."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        import importlib

        return getattr(importlib.import_module(self._name), attr)


optimize, special, stats = (_LazyModule(f"scipy.{m}") for m in ("optimize", "special", "stats"))

__all__ = ["population_uniques", "population_uniques_from_counts", "uniqueness_models",
           "class_size_counts", "counts_from_row_sizes", "check_sampling_fraction",
           "UniquenessModels", "ESTIMATORS", "DANKAR_SMALL_FRACTION"]

#: The estimators, in the order of ``estimator="all"``.
ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")
#: Dankar's rule: at or below this sampling fraction Pitman's estimate is used.
DANKAR_SMALL_FRACTION = 0.1
#: Relative residual under which a root of Pitman's or SNB's equations is accepted.
TOLERANCE = 1e-8


def check_sampling_fraction(fraction) -> float:
    """``fraction`` as a float if it is a share in (0, 1], else a clear error."""
    if (isinstance(fraction, bool) or not isinstance(fraction, numbers.Real)
            or not 0 < fraction <= 1):
        raise InvalidInputError(
            f"sampling_fraction is the share of the population the table holds, in (0, 1] "
            f"(e.g. 0.01 for a 1 % sample), got {fraction!r}"
        )
    return float(fraction)


@dataclass(frozen=True)
class UniquenessModels:
    """Every estimator's result on one frequency-of-frequencies table.

    Estimates are fractions of the population's records (NaN: no estimate, ``notes`` says
    why). ``dankar_model`` names the estimate Dankar's rule took (``"pitman"``, ``"zayatz"``,
    ``"snb"``; ``"exact"`` at sampling fraction 1; ``"none"`` without sample uniques or rows).
    ``pitman_parameters`` is (θ, α) and ``snb_parameters`` (K, α, β) when solved.
    """

    pitman: float
    zayatz: float
    snb: float
    dankar: float
    dankar_model: str
    sample_size: int
    population_size: float
    sampling_fraction: float
    notes: dict = field(default_factory=dict)
    pitman_parameters: tuple | None = None
    snb_parameters: tuple | None = None

    def as_series(self) -> pd.Series:
        """The four estimates as a float Series (``attrs``: ``dankar_model``, ``notes``)."""
        out = pd.Series([getattr(self, e) for e in ESTIMATORS], index=list(ESTIMATORS),
                        name="population_uniques", dtype=np.float64)
        out.attrs["dankar_model"] = self.dankar_model
        out.attrs["notes"] = dict(self.notes)
        return out


# ---------------------------------------------------------------------------- the table


def check_size_counts(size_counts) -> tuple[np.ndarray, np.ndarray]:
    """(class sizes ascending, number of classes of each size > 0) from ``size_counts``."""
    if isinstance(size_counts, pd.Series):
        sizes, counts = size_counts.index.to_numpy(), size_counts.to_numpy()
    elif isinstance(size_counts, Mapping):
        sizes, counts = np.array(list(size_counts.keys())), np.array(list(size_counts.values()))
    else:
        raise InvalidInputError(
            f"size_counts is the frequency-of-frequencies table {{class size: number of "
            f"classes}} as a dict or pandas Series (e.g. df.groupby(qis).size().value_counts()"
            f" or class_size_counts(df, qis)), got {type(size_counts).__name__}"
        )
    try:
        s = np.asarray(sizes, dtype=np.float64)
        c = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        s = c = np.array([np.nan])
    if (s.ndim != 1 or c.shape != s.shape or not np.isfinite(s).all()
            or not np.isfinite(c).all() or (s != np.round(s)).any() or (c != np.round(c)).any()
            or (s < 1).any() or (c < 0).any() or len(np.unique(s)) != len(s)):
        raise InvalidInputError(
            "size_counts must map distinct whole class sizes >= 1 to whole numbers of classes "
            ">= 0, e.g. {1: 120, 2: 40, 3: 9} (120 sample uniques, 40 pairs, 9 triples)"
        )
    keep = c > 0
    order = np.argsort(s[keep])
    return s[keep][order].astype(np.int64), c[keep][order]


def counts_from_row_sizes(f) -> pd.Series:
    """The frequency-of-frequencies table from the class size of every row (a class of size s
    has s rows).

    Example
    -------
    >>> counts_from_row_sizes([2, 2, 1, 3, 3, 3]).to_dict()
    {1: 1, 2: 1, 3: 1}
    """
    f = np.asarray(f, dtype=np.int64)
    rows = np.bincount(f) if len(f) else np.zeros(1, dtype=np.int64)
    sizes = np.flatnonzero(rows)
    sizes = sizes[sizes > 0]
    return pd.Series(rows[sizes] // sizes, index=pd.Index(sizes, name="class_size"),
                     name="classes", dtype=np.int64)


def class_size_counts(df: pd.DataFrame, quasi_identifiers=None, *,
                      missing: str = "value") -> pd.Series:
    """How many equivalence classes of each size ``df`` has over the quasi-identifiers: a
    Series indexed by class size (ascending), the input of :func:`uniqueness_models`.

    Example
    -------
    >>> class_size_counts(pd.DataFrame({"zip": [1, 1, 2, 3]}), ["zip"]).to_dict()
    {1: 2, 2: 1}
    """
    check_frame(df)
    if _groups.check_missing(missing) == "wildcard":
        raise InvalidInputError(
            "population uniqueness estimators work from the sample's equivalence classes (how "
            "many classes of size 1, 2, ...), and with missing='wildcard' a row with a missing "
            "quasi-identifier matches rows of several classes, so there are none; use "
            "missing='value' (a missing cell is a value of its own)"
        )
    qis = list(quasi_identifier_kinds(df, quasi_identifiers))
    return counts_from_row_sizes(_groups.frequencies(df, qis))


# ---------------------------------------------------------------------------- the models


def _zayatz(s, c, n, N, pi) -> float:
    """Zayatz's number of population uniques: sample uniques / π times the chance that a
    sample unique is a population unique, population class sizes distributed as the
    sample's and drawn hypergeometrically (n of N)."""
    hit = stats.hypergeom.pmf(1, N, np.minimum(s, N), n)  # P(one member drawn | class size s)
    c1 = c[0] if s[0] == 1 else 0.0
    total = float(np.dot(c, hit))
    if c1 == 0 or total <= 0:
        return 0.0
    return c1 * (c1 * hit[0] / total) / pi


def _pitman_sums(theta, alpha, s, c, n, u):
    """The two sides of each of Pitman's likelihood equations (Hoshino 2001):
    Σ_{i<u} 1/(θ+iα) = Σ_{i<n} 1/(θ+i) and Σ_{i<u} i/(θ+iα) = Σ_j c_j Σ_{l<j} 1/(l-α)."""
    r = theta / alpha
    inv = (special.digamma(r + u) - special.digamma(r + 1)) / alpha  # Σ_{i<u} 1/(θ+iα)
    lin = ((u - 1) - theta * inv) / alpha                             # Σ_{i<u} i/(θ+iα)
    rows = special.digamma(theta + n) - special.digamma(theta + 1)    # Σ_{i<n} 1/(θ+i)
    within = float(np.dot(c, special.digamma(s - alpha) - special.digamma(1 - alpha)))
    return inv, rows, lin, within


def _pitman(s, c, n, N):
    """(population uniques, (θ, α), note) under Pitman's sampling formula; NaN and a note when
    the likelihood equations have no root in the model's range: α < 1, α ≠ 0, θ + iα > 0 for
    i = 1 .. u - 1 (α < 0 is a finite number of population classes, θ = -mα)."""
    u = float(c.sum())
    c1 = c[0] if s[0] == 1 else 0.0
    c2 = float(c[s == 2].sum())
    if u < 2 or c1 == n:
        return np.nan, None, ("Pitman: every row is in one class, or every row is unique; the "
                              "likelihood has no maximum")

    def params(x, negative):
        """(θ, α) from unconstrained x: 0 < α < 1 and θ > -α, or α < 0 and
        θ > (u - 1)·|α| (every θ + iα > 0)."""
        if negative:
            alpha = -np.exp(x[1])
            return (u - 1) * -alpha + np.exp(x[0]), alpha
        alpha = special.expit(x[1])
        return np.exp(x[0]) - alpha, alpha

    def equations(x, negative):
        inv, rows, lin, within = _pitman_sums(*params(x, negative), s, c, n, u)
        return [(inv - rows) / max(abs(inv), abs(rows)),
                (lin - within) / max(abs(lin), abs(within))]

    # Hoshino's moment-type starting point (as ARX) when it lies in 0 < α < 1, then a grid
    d = c2 if c2 else 1.0
    q = c1 * (c1 - 1) / d
    den = 2 * c1 * u + c1 * q - n * q
    starts = []
    if den:
        t0 = (n * u * q - c1 * (n - 1) * (2 * u + q)) / den
        a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
        if 0 < a0 < 1 and t0 > -a0:
            starts.append((np.log(t0 + a0), special.logit(a0), False))
    starts += [(np.log(t), special.logit(a), False) for t in (u / 10, u, 10 * u)
               for a in (0.1, 0.5, 0.9)]
    starts += [(np.log(t), np.log(a), True) for t in (u, 10 * u, 100 * u)
               for a in (0.01, 0.1, 1.0)]
    for x0, x1, negative in starts:
        with np.errstate(all="ignore"):
            sol = optimize.root(equations, [x0, x1], args=(negative,), method="hybr",
                                options={"xtol": 1e-13})
            res = np.abs(equations(sol.x, negative))
        if np.isfinite(res).all() and res.max() < TOLERANCE:
            theta, alpha = (float(v) for v in params(sol.x, negative))
            log_u = special.gammaln(theta + 1) - special.gammaln(theta + alpha) + alpha * np.log(N)
            uniques = float(np.exp(min(log_u, np.log(N) + 1)))  # above N is refused below
            if 0 <= uniques <= N:
                return uniques, (theta, alpha), None
            return np.nan, (theta, alpha), (f"Pitman: the estimate {uniques:.4g} is outside "
                                            f"[0, N = {N:.0f}]")
    return np.nan, None, ("Pitman: the likelihood equations have no root with alpha < 1, "
                          "alpha != 0 (the model does not fit this table)")


def _shlosser(s, c, pi) -> float:
    """Haas et al.'s (1995) Shlosser-type estimate of the number of non-empty population
    classes: u + c1 · Σ s q²(1-q²)^(s-1) c_s / Σ ((1-q²)^s - (1-q)^s) c_s ·
    (Σ (1-q)^s c_s / Σ s q (1-q)^(s-1) c_s)², q the sampling fraction."""
    u = float(c.sum())
    c1 = c[0] if s[0] == 1 else 0.0
    q = pi
    a = np.dot(c, s * q * q * (1 - q * q) ** (s - 1))
    b = np.dot(c, (1 - q * q) ** s - (1 - q) ** s)
    e = np.dot(c, (1 - q) ** s)
    g = np.dot(c, s * q * (1 - q) ** (s - 1))
    return u + c1 * (a / b) * (e / g) ** 2 if b > 0 and g > 0 else u


def _snb_expected(K, pi, alpha, beta):
    """Expected sample uniques and doubletons when K population class sizes are 1 + a negative
    binomial (α, β) and every record is sampled with probability π."""
    d = (1 - pi) * (1 - beta)
    log_ratio = alpha * (np.log(beta) - np.log1p(-d))  # log (β / (1 - d))^α
    e1 = K * pi * np.exp(log_ratio) * (1 + alpha * d / (1 - d))
    e2 = (K * pi * pi / 2 * alpha * (1 - beta) * (2 + (alpha - 1) * d)
          * np.exp(log_ratio - 2 * np.log1p(-d)))
    return e1, e2


def _snb(s, c, N, pi):
    """(population uniques, (K, α, β), note) under the shifted negative binomial model."""
    c1 = c[0] if s[0] == 1 else 0.0
    c2 = float(c[s == 2].sum())
    if c2 == 0:
        return np.nan, None, ("SNB: the sample has no class of size 2; the model's second "
                              "equation (expected doubletons) has no root")
    K = _shlosser(s, c, pi)

    def equations(x):
        e1, e2 = _snb_expected(K, pi, np.exp(x[0]), special.expit(x[1]))
        return [e1 / c1 - 1, e2 / c2 - 1]

    for a0 in (0.1, 0.5, 1.0, 3.0):
        for b0 in (0.01, 0.1, 0.33, 0.66, 0.9):
            with np.errstate(all="ignore"):
                sol = optimize.root(equations, [np.log(a0), special.logit(b0)], method="hybr",
                                    options={"xtol": 1e-13})
                res = np.abs(equations(sol.x))
            if np.isfinite(res).all() and res.max() < TOLERANCE:
                alpha, beta = float(np.exp(sol.x[0])), float(special.expit(sol.x[1]))
                uniques = float(K * np.exp(alpha * np.log(beta)))
                if 0 <= uniques <= N:
                    return uniques, (K, alpha, beta), None
    return np.nan, None, ("SNB: no alpha > 0, 0 < beta < 1 makes the expected sample uniques "
                          "and pairs equal the observed ones")


def uniqueness_models(size_counts, *, sampling_fraction) -> UniquenessModels:
    """Every estimator on a frequency-of-frequencies table ``{class size: number of classes}``
    (a dict or a Series, as :func:`class_size_counts` gives): the lower-level entry point for
    code that has only the counts (a distributed group-by, a published table).

    Example
    -------
    >>> m = uniqueness_models({1: 3, 2: 1, 3: 1}, sampling_fraction=0.5)
    >>> round(m.zayatz, 4), m.dankar_model, m.notes["pitman"][:40]
    (0.2312, 'snb', 'Pitman: the likelihood equations have no')
    """
    pi = check_sampling_fraction(sampling_fraction)
    s, c = check_size_counts(size_counts)
    n = int(np.dot(s, c))
    if n == 0:
        return UniquenessModels(0.0, 0.0, 0.0, 0.0, "none", 0, 0.0, pi,
                                {"all": "empty sample: no population uniques to estimate"})
    N = max(float(round(n / pi)), float(n))
    c1 = float(c[0]) if s[0] == 1 else 0.0
    if pi == 1.0 or c1 == 0:
        share = c1 / n
        note = ("sampling fraction 1: the sample is the population" if pi == 1.0 else
                "no sample uniques: no population uniques (every estimator)")
        share = float(share)
        return UniquenessModels(share, share, share, share, "exact" if pi == 1.0 else "none",
                                n, N, pi, {"all": note})
    notes = {}
    zayatz = _zayatz(s, c, n, int(N), pi)
    pitman, pitman_par, note = _pitman(s, c, n, N)
    if note:
        notes["pitman"] = note
    snb, snb_par, note = _snb(s, c, N, pi)
    if note:
        notes["snb"] = note
    if pi <= DANKAR_SMALL_FRACTION:
        model = "pitman" if np.isfinite(pitman) and pitman > 0 else "zayatz"
    elif np.isfinite(snb) and snb > 0 and snb <= zayatz:
        model = "snb"
    else:
        model = "zayatz"
    chosen = {"pitman": pitman, "zayatz": zayatz, "snb": snb}[model]
    return UniquenessModels(float(pitman / N), float(zayatz / N), float(snb / N),
                            float(chosen / N), model, n, N, pi, notes, pitman_par,
                            None if snb_par is None else tuple(float(v) for v in snb_par))


def _check_estimator(estimator) -> str:
    if not isinstance(estimator, str) or estimator not in (*ESTIMATORS, "all"):
        raise InvalidInputError(
            f"estimator must be one of {list(ESTIMATORS) + ['all']} ('dankar': the decision "
            f"rule choosing among the others; 'all': a Series of the four), got {estimator!r}"
        )
    return estimator


def population_uniques_from_counts(size_counts, *, sampling_fraction,
                                   estimator: str = "dankar") -> float | pd.Series:
    """The estimated fraction of population records that are population-unique, from a
    frequency-of-frequencies table ``{class size: number of classes}``: one estimator's
    float, or with ``estimator="all"`` a Series of the four (see :func:`population_uniques`).

    Example
    -------
    >>> population_uniques_from_counts({1: 3, 2: 1, 3: 1}, sampling_fraction=1.0)
    0.375
    """
    estimator = _check_estimator(estimator)
    models = uniqueness_models(size_counts, sampling_fraction=sampling_fraction)
    if estimator == "all":
        return models.as_series()
    value = float(getattr(models, estimator))
    if np.isnan(value):
        warnings.warn(f"no {estimator} estimate: {models.notes.get(estimator, '')}; "
                      f"estimator='dankar' falls back to Zayatz", UserWarning, stacklevel=2)
    return value


def population_uniques(df: pd.DataFrame, quasi_identifiers=None, *, sampling_fraction,
                       estimator: str = "dankar", missing: str = "value") -> float | pd.Series:
    """Estimated fraction of the population's records that are unique on the
    quasi-identifiers, when ``df`` is a simple random sample holding the share
    ``sampling_fraction`` of that population.

    ``estimator``: ``"dankar"`` (default: Dankar et al.'s rule - Pitman at fractions ≤ 0.1,
    else the smaller of Zayatz and SNB), ``"pitman"``, ``"zayatz"``, ``"snb"`` (a float; NaN
    with a warning when the model's equations have no root), or ``"all"`` (a Series indexed
    pitman, zayatz, snb, dankar; ``attrs["dankar_model"]`` names the model the rule took and
    ``attrs["notes"]`` says why an estimate is NaN). The figure is population uniques / N,
    N = rows / ``sampling_fraction`` (ARX's convention). ``missing="value"`` (default): a
    missing cell is a value of its own; ``"wildcard"`` is refused (the estimators need
    equivalence classes). :func:`uniqueness_models` gives the fitted parameters too.

    Example
    -------
    >>> sample = pd.DataFrame({"age": [30, 30, 40, 50, 50, 60], "sex": list("FFMMMF")})
    >>> est = population_uniques(sample, ["age", "sex"], sampling_fraction=0.2,
    ...                          estimator="all")
    >>> est.index.tolist(), est.attrs["dankar_model"], list(est.attrs["notes"])
    (['pitman', 'zayatz', 'snb', 'dankar'], 'snb', ['pitman'])
    >>> round(float(est["zayatz"]), 4)
    0.1255
    """
    estimator = _check_estimator(estimator)
    check_sampling_fraction(sampling_fraction)
    counts = class_size_counts(df, quasi_identifiers, missing=missing)
    return population_uniques_from_counts(counts, sampling_fraction=sampling_fraction,
                                          estimator=estimator)
