"""Models against a population: k-map and δ-presence.

The released table is a *sample* of a population an attacker can see (a voter list, a
census extract). Both models read, for every equivalence class, how many population rows
fall in it (``ClassCounts.population``): the population generalized exactly as the sample.

* **k-map** (Sweeney 2002; El Emam & Dankar 2008, "Protecting privacy using k-anonymity",
  JAMIA 15(5)): every published class matches at least ``k`` rows of the population, so an
  attacker who links a class to the population finds ``k`` candidates (journalist risk
  ``1/F <= 1/k``). Given as a population table, or estimated: without a table, the sample
  class sizes that make ``F >= k`` likely are derived from the sampling fraction with a
  Poisson (or zero-truncated Poisson) model of the sampling, as in ARX (:func:`derived_k`),
  and the model becomes "every class has at least derived k rows" -- k-anonymity with a
  smaller k, enforceable by every partitioner.
* **δ-presence** (Nergiz, Atzori & Clifton 2007, "Hiding the presence of individuals from
  shared databases", SIGMOD): for every class of the generalized population,
  ``δmin <= (sample rows in it) / (population rows in it) <= δmax``; the attacker learns
  that a person of the population is in the release with probability at most ``δmax``
  (and at least ``δmin``). A population class without a published row has δ = 0.

Missing quasi-identifier cells are a value of their own (in the sample and the population).

Example
-------
>>> import pandas as pd
>>> sample = pd.DataFrame({"zip": [1, 1, 2]})
>>> population = pd.DataFrame({"zip": [1, 1, 1, 1, 2, 2, 3]})
>>> k_map(sample, ["zip"], population=population)
2
>>> delta_presence(sample, ["zip"], population=population)
(0.0, 0.5)
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import check_missing, class_labels, frequencies, refuse_wildcard
from pdanon.models.anonymity import KAnonymity
from pdanon.models.base import TOLERANCE, PrivacyModel, Requirements, check_int, check_qis

ESTIMATORS = ("poisson", "zero_truncated_poisson")


# --------------------------------------------------------------------------- checks


def check_population(population, qis, what: str = "population") -> pd.DataFrame:
    """``population`` is a frame holding every quasi-identifier."""
    from pdanon._errors import UnknownColumnError

    if not isinstance(population, pd.DataFrame):
        raise InvalidInputError(
            f"{what} must be a pandas DataFrame (the population table, with the sample's "
            f"quasi-identifier columns), got {type(population).__name__}")
    absent = [c for c in qis if c not in population.columns]
    if absent:
        raise UnknownColumnError(
            f"{what} lacks quasi-identifier column(s) {absent}; give it the same "
            f"quasi-identifier columns as the sample (it has {list(population.columns)})")
    return population


def _check_fraction(value, name: str) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not 0 < float(value) < 1):
        raise InvalidInputError(f"{name} must be a number in (0, 1), got {value!r}")
    return float(value)


def check_contains(df, f, F, *, hint: str = "") -> None:
    """The population holds the sample: every sample row matches at least as many population
    rows (``F``) as sample rows (``f``); else a clear error (``hint``: another way out)."""
    short = F < f
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise InvalidInputError(
            f"the population table must contain the sample's records, but {int(short.sum())} "
            f"sample row(s) have more matches in the sample than in the population (first: "
            f"index {df.index[i]!r}, {int(f[i])} in the sample, {int(F[i])} in the population); "
            f"pass the population the sample was drawn from, with the same quasi-identifier "
            f"values (raw, or generalized as the sample){hint}")


def _type_hint(df, population, qis) -> str:
    """A hint naming quasi-identifiers whose values are numbers in one table and text in the
    other (such values never match), or ``""``."""
    from pandas.api.types import is_numeric_dtype

    from pdanon.dtype import GeneralizationDtype

    def numeric(dtype):
        if isinstance(dtype, pd.CategoricalDtype):
            dtype = dtype.categories.dtype
        return is_numeric_dtype(dtype)

    odd = [c for c in qis
           if not isinstance(df[c].dtype, GeneralizationDtype)
           and not isinstance(population[c].dtype, GeneralizationDtype)
           and numeric(df[c].dtype) != numeric(population[c].dtype)]
    if not odd:
        return ""
    cols = ", ".join(f"{c!r} ({df[c].dtype} in the sample, {population[c].dtype} in the "
                     f"population)" for c in odd)
    return (f". Column(s) {cols} hold numbers in one table and text in the other, so no value "
            f"matches: convert one to the other's type (e.g. population[col].astype(...))")


def _joint_counts(df, population, qis):
    """(sample rows, population rows) per class of sample + population, and the class of
    every sample row (missing cells a value of their own); checks that the population
    contains the sample."""
    check_population(population, qis)
    joint = class_labels(pd.concat([df[qis], population[qis]], ignore_index=True), qis)
    g = int(joint.max()) + 1 if len(joint) else 0
    n = len(df)
    s, p = np.bincount(joint[:n], minlength=g), np.bincount(joint[n:], minlength=g)
    check_contains(df, s[joint[:n]], p[joint[:n]], hint=_type_hint(df, population, qis))
    return s, p, joint[:n]


def _publishes_cells(df, population, qis) -> bool:
    """``df`` publishes generalized cells (ranges, sets) that the raw ``population`` must be
    matched into, rather than compared with for equality."""
    from pdanon.dtype import GeneralizationDtype

    return any(isinstance(df[c].dtype, GeneralizationDtype)
               and not isinstance(population[c].dtype, GeneralizationDtype) for c in qis)


def published_class_counts(df, population, qis):
    """The :class:`~pdanon.distributions.ClassCounts` of ``df``'s classes against
    ``population``: sample rows and population rows per class (``population``), the
    population's size (``population_rows``) and, for generalized cells, the most classes one
    population row matches (``population_shared``).

    Plain values: a population row counts in the class with equal values (missing equals
    missing). Generalized cells (a release of any anonymizer, against the raw population it
    was drawn from): a population row counts in every class whose cells contain its values
    (:func:`pdanon.containment.population_matches`). Rows that publish no quasi-identifier
    (the suppressed rows) are one class that matches every population row (a row that shows
    nothing could be anyone), as the engine verified them.
    Raises a clear error when a class matches fewer population rows than it holds (the
    population does not contain the sample)."""
    from pdanon.containment import population_matches
    from pdanon.distributions import ClassCounts

    check_population(population, qis)
    if len(df) == 0:
        return ClassCounts(np.zeros(0, np.int64), population=np.zeros(0, np.int64),
                           population_rows=len(population), labels=np.zeros(0, np.int64))
    blank = df[qis].isna().all(axis=1).to_numpy()
    if not _publishes_cells(df, population, qis) and not blank.any():
        s, p, labels = _joint_counts(df, population, qis)
        present = s > 0
        remap = np.cumsum(present) - 1
        return ClassCounts(s[present], population=p[present], population_rows=len(population),
                           labels=remap[labels])
    published = df[qis]
    labels = class_labels(published, qis)
    groups = int(labels.max()) + 1 if len(labels) else 0
    counts, shared = population_matches(published, labels, population, qis, shared=True)
    if blank.any():  # rows that publish no quasi-identifier could be anyone
        counts[int(labels[np.flatnonzero(blank)[0]])] = len(population)
    sizes = np.bincount(labels, minlength=groups)
    check_contains(published, sizes[labels], counts[labels],
                   hint=". The sample publishes generalized cells: a population row counts in a "
                        "class when each of its values lies in the class's cell")
    return ClassCounts(sizes, population=counts, population_rows=len(population),
                       labels=labels, population_shared=shared)


def population_counts(df, population, qis, missing: str = "value") -> np.ndarray:
    """F per row of ``df``: the population rows matching it (``missing="wildcard"``: a
    missing cell matches any value, as :func:`pdanon._groups.frequencies` counts)."""
    blank = df[qis].isna().all(axis=1).to_numpy()
    if check_missing(missing) == "value":
        _, p, labels = _joint_counts(df, population, qis)
        # a row that publishes no quasi-identifier could be anyone (as the engine verifies)
        return np.where(blank, len(population), p[labels])
    check_population(population, qis)
    joint = pd.concat([df[qis], population[qis]], ignore_index=True)
    f = frequencies(df, qis, missing="wildcard")
    F = frequencies(joint, qis, missing="wildcard")[:len(df)] - f  # matching is symmetric
    check_contains(df, f, F)
    return F


# --------------------------------------------------------------------------- measures


def k_map(df: pd.DataFrame, quasi_identifiers, *, population: pd.DataFrame,
          missing: str = "value") -> int:
    """Largest k for which ``df`` meets k-map against ``population``: the smallest number of
    population rows matching a sample row's quasi-identifiers (F; 0 for an empty frame).
    ``missing="value"``: a missing cell matches a missing cell only; ``missing="wildcard"``: a
    missing cell matches any value (as in
    :func:`~pdanon.metrics.reidentification.population_sizes`). In either mode a row with
    every quasi-identifier missing (a suppressed row) could be anyone and matches every
    population row.

    Example
    -------
    >>> sample = pd.DataFrame({"age": [30, None], "sex": ["F", "M"]})
    >>> population = pd.DataFrame({"age": [30, 30, None, 40], "sex": ["F", "F", "M", "M"]})
    >>> k_map(sample, ["age", "sex"], population=population)
    1
    >>> k_map(sample, ["age", "sex"], population=population, missing="wildcard")
    2
    >>> k_map(sample, ["age"], population=population)     # (None,) matches all four rows
    2
    """
    check_missing(missing)
    qis = check_qis(df, quasi_identifiers)
    check_population(population, qis)
    if len(df) == 0:
        return 0
    if _publishes_cells(df, population, qis):
        refuse_wildcard(missing, "k-map of generalized cells")
        classes = published_class_counts(df, population, qis)
        return int(classes.population.min()) if classes.groups else 0
    return int(population_counts(df, population, qis, missing).min())


def delta_presence(df: pd.DataFrame, quasi_identifiers, *, population: pd.DataFrame,
                   missing: str = "value") -> tuple[float, float]:
    """``(δmin, δmax)`` achieved: over the classes of the population (rows sharing the
    quasi-identifiers), the smallest and largest share of a class's population rows that are
    in ``df``. A population class with no sample row has δ = 0. ``(0.0, 0.0)`` for an empty
    population.

    Example
    -------
    >>> sample = pd.DataFrame({"zip": [1, 2, 2]})
    >>> delta_presence(sample, ["zip"], population=pd.DataFrame({"zip": [1, 1, 2, 2]}))
    (0.5, 1.0)
    """
    refuse_wildcard(missing, "δ-presence")
    qis = check_qis(df, quasi_identifiers)
    got = DeltaPresence(0.0, 1.0, population=population).achieved(
        published_class_counts(df, population, qis))
    return (got["delta_min"], got["delta_max"]) if got else (0.0, 0.0)


# --------------------------------------------------------------------------- the estimator


def derived_k(k: int, sampling_fraction: float, *, estimator: str = "poisson",
              significance: float = 0.01, rows: int | None = None) -> int:
    """The class size that k-map is estimated to need, without a population table (ARX's
    ``KMap`` with a population model; El Emam & Dankar 2008).

    A population class of ``k`` rows puts ``X ~ Poisson(λ)`` of them in a sample drawn with
    ``sampling_fraction`` π, ``λ = π·k`` (Pannekoek's model; ``"zero_truncated_poisson"``
    conditions on the class being present in the sample, ``P(X = x | X >= 1)``). Let ``c``
    be the smallest count with ``P(X <= c) >= 1 − significance`` (``c >= 1`` for the
    truncated form). A sample class with more rows than a population class of ``k`` rows
    would show with that confidence is taken to stand for at least ``k`` population rows.
    ARX returns ``c + 2`` (Poisson) and ``c + 1`` (zero-truncated), capped at ``k`` (a
    population class holds at least as many rows as its sample class) and at ``rows``; this
    function returns the same numbers.

    Example
    -------
    >>> derived_k(10, 0.1), derived_k(10, 0.1, estimator="zero_truncated_poisson")
    (6, 5)
    >>> derived_k(5, 0.9)
    5
    """
    from scipy import stats

    k = check_int(k, "k")
    pi = _check_fraction(sampling_fraction, "sampling_fraction")
    alpha = _check_fraction(significance, "significance")
    if estimator not in ESTIMATORS:
        raise InvalidInputError(f"estimator must be one of {list(ESTIMATORS)}, got "
                                f"{estimator!r}")
    lam = pi * k
    counts = np.arange(0, k + 2)
    target = 1.0 - alpha
    if estimator == "poisson":
        cdf = stats.poisson.cdf(counts, lam)
        offset = 2
    else:
        p0 = stats.poisson.pmf(0, lam)
        cdf = np.where(counts >= 1, (stats.poisson.cdf(counts, lam) - p0) / (1.0 - p0), 0.0)
        offset = 1
    reached = np.flatnonzero(cdf >= target - TOLERANCE)
    value = int(counts[reached[0]]) + offset if len(reached) else k
    value = min(value, k)
    if rows is not None and rows > 0:
        value = min(value, int(rows))
    return max(value, 1)


# --------------------------------------------------------------------------- models


def population_table(model) -> pd.DataFrame | None:
    """The population table the parts of ``model`` read (``None`` when none does). All
    parts must share one table."""
    tables = [p.population for p in model.parts()
              if p.requirements().population and getattr(p, "population", None) is not None]
    if not tables:
        return None
    first = tables[0]
    if any(t is not first and not t.equals(first) for t in tables[1:]):
        raise InvalidInputError(
            "the population models of one request must share one population table; pass the "
            "same population= to each")
    return first


class _PopulationModel(PrivacyModel):
    """Shared checks of the models that read ``ClassCounts.population``."""

    population: pd.DataFrame

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        qis = list(roles.qi)
        check_population(self.population, qis)
        if len(df):
            _joint_counts(df, self.population, qis)  # the population contains the sample

    def _population_of(self, classes) -> np.ndarray:
        if classes.population is None:
            raise InvalidInputError(
                f"{self!r} needs the population rows of every class; anonymize with "
                f"algorithm='optimal' (with hierarchies=), 'mondrian' or 'group_join', or "
                f"measure with .holds(df, ...)")
        return classes.population

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        """Whether ``df`` meets the model against the population table: ``df`` either has
        the population's values (plain or generalized the same way) or is a release with
        generalized cells checked against the raw population
        (:func:`published_class_counts`)."""
        qis = check_qis(df, quasi_identifiers)
        classes = published_class_counts(df, self.population, qis)
        return bool(np.all(self.classes_ok(classes))) and bool(self.table_ok(classes))


class KMap(_PopulationModel):
    """k-map: every published class matches at least ``k`` rows of the population.

    ``KMap(k, population=table)``: against a population table (the sample's rows must be in
    it); ``algorithm="optimal"`` enforces it by generalizing the population with the sample,
    ``"mondrian"`` and ``"group_join"`` by counting the population rows inside each published
    class's cells (see docs/risk.md). ``KMap(k, sampling_fraction=π)`` or ``KMap(k, population_size=N)`` (π = rows / N):
    estimated (see :func:`derived_k`); the object is then an :class:`EstimatedKMap`, a
    k-anonymity with the derived k, and every partitioner enforces it.

    Example
    -------
    >>> KMap(10, sampling_fraction=0.1)
    EstimatedKMap(k=10, sampling_fraction=0.1, estimator='poisson', significance=0.01, derived_k=6)
    >>> m = KMap(2, population=pd.DataFrame({"zip": [1, 1, 2, 2, 2]}))
    >>> m.holds(pd.DataFrame({"zip": [1, 2]}), ["zip"])
    True
    """

    name = "k-map"

    def __new__(cls, k=None, *, population=None, **options):
        if cls is KMap and population is None:
            return PrivacyModel.__new__(EstimatedKMap)
        return PrivacyModel.__new__(cls)

    def __init__(self, k: int, *, population: pd.DataFrame | None = None,
                 sampling_fraction=None, population_size=None, estimator: str = "poisson",
                 significance: float = 0.01):
        self.k = check_int(k, "k")
        if sampling_fraction is not None or population_size is not None:
            raise InvalidInputError(
                "KMap takes either population= (a population table) or sampling_fraction= / "
                "population_size= (an estimate), not both")
        if not isinstance(population, pd.DataFrame):
            raise InvalidInputError(
                f"population must be a pandas DataFrame (the population table), got "
                f"{type(population).__name__}")
        self.population = population

    def __repr__(self) -> str:
        return f"KMap(k={self.k}, population=<{len(self.population)} rows>)"

    def params(self) -> dict:
        return {"k_map": self.k, "population_rows": len(self.population)}

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        super().check_feasible(df, roles)
        if len(self.population) < self.k:
            raise InvalidInputError(
                f"k={self.k} is larger than the population ({len(self.population)} rows); "
                f"choose k <= {len(self.population)}")

    def requirements(self) -> Requirements:
        # a violating class (F < k) is a union of violating ones: F only adds up
        return Requirements(merge_monotone=True, parts_monotone=True, population=True)

    def classes_ok(self, classes) -> np.ndarray:
        return self._population_of(classes) >= self.k

    def accepts(self, achieved: dict) -> bool:
        return achieved["k_map"] >= self.k

    def achieved(self, classes) -> dict:
        """The smallest population class of a published class (0 when there is none)."""
        if classes.population is None or not classes.groups:
            return {}
        return {"k_map": int(classes.population.min())}


class EstimatedKMap(KAnonymity, KMap):
    """k-map estimated from the sampling fraction: k-anonymity with ``derived_k`` (see
    :func:`derived_k`). ``population_size=N`` takes the sampling fraction as
    ``rows / N`` of the table the model is applied to (known when it is applied, as in ARX);
    ``sampling_fraction=π`` fixes it in advance.

    Example
    -------
    >>> m = KMap(10, population_size=200)
    >>> m.holds(pd.DataFrame({"zip": [1] * 6 + [2] * 6 + [3] * 8}), ["zip"]), m.k
    (True, 6)
    """

    name = "k-map"

    def __init__(self, k: int, *, population=None, sampling_fraction=None,
                 population_size=None, estimator: str = "poisson", significance: float = 0.01):
        self.k_map = check_int(k, "k")
        if (sampling_fraction is None) == (population_size is None):
            raise InvalidInputError(
                "KMap needs a population table (population=) or an estimate of the "
                "population: exactly one of sampling_fraction= (the sample's share of the "
                "population, in (0, 1)) or population_size= (its row count)")
        if estimator not in ESTIMATORS:
            raise InvalidInputError(
                f"estimator must be one of {list(ESTIMATORS)}, got {estimator!r}")
        self.estimator = estimator
        self.significance = _check_fraction(significance, "significance")
        self.population = None
        self.population_size = None
        self.sampling_fraction = None
        self.rows = None
        if population_size is not None:
            self.population_size = check_int(population_size, "population_size")
            self.k = self.k_map  # bound to the table's rows when applied
        else:
            self.sampling_fraction = _check_fraction(sampling_fraction, "sampling_fraction")
            self.k = derived_k(self.k_map, self.sampling_fraction, estimator=estimator,
                               significance=self.significance)
        self._fixed_k = self.k

    def bind(self, rows: int) -> None:
        """Derive k for a table of ``rows`` rows (``population_size=``: π = rows / N; as in
        ARX, never above the row count)."""
        rows = int(rows)
        self.rows = rows
        if self.population_size is None:
            self.k = max(1, min(self._fixed_k, rows)) if rows else self._fixed_k
            return
        if rows > self.population_size:
            raise InvalidInputError(
                f"population_size={self.population_size} is smaller than the table ({rows} "
                f"rows); the population must contain the sample")
        if rows == 0 or rows == self.population_size:
            self.k = self.k_map  # the sample is the population: k-map is k-anonymity
            return
        self.k = derived_k(self.k_map, rows / self.population_size, estimator=self.estimator,
                           significance=self.significance, rows=rows)

    def __repr__(self) -> str:
        src = (f"sampling_fraction={self.sampling_fraction}" if self.population_size is None
               else f"population_size={self.population_size}")
        return (f"EstimatedKMap(k={self.k_map}, {src}, estimator={self.estimator!r}, "
                f"significance={self.significance}, derived_k={self.k})")

    def params(self) -> dict:
        out = {"k_map": self.k_map, "estimator": self.estimator,
               "significance": self.significance, "k": self.k}
        if self.population_size is None:
            out["sampling_fraction"] = self.sampling_fraction
        else:
            out["population_size"] = self.population_size
        return out

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        self.bind(len(df))
        KAnonymity.check_feasible(self, df, roles)

    def requirements(self) -> Requirements:
        return KAnonymity.requirements(self)

    def classes_ok(self, classes) -> np.ndarray:
        return KAnonymity.classes_ok(self, classes)

    def accepts(self, achieved: dict) -> bool:
        return KAnonymity.accepts(self, achieved)

    def achieved(self, classes) -> dict:
        return KAnonymity.achieved(self, classes)

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        self.bind(len(df))
        return KAnonymity.holds(self, df, quasi_identifiers, sensitive)


class DeltaPresence(_PopulationModel):
    """δ-presence: for every class of the population generalized as the release,
    ``delta_min <= published rows / population rows <= delta_max``.

    A population class whose sample rows are all suppressed, or that has none, has δ = 0: it
    fails when ``delta_min > 0`` (suppression cannot help it). Suppressed rows count in no
    class, as in ARX. ``algorithm="optimal"`` enforces it; ``"mondrian"`` and ``"group_join"``
    too when ``delta_min`` is 0 (population rows outside every published class then need no
    check).

    Example
    -------
    >>> pop = pd.DataFrame({"zip": [1, 1, 2, 2, 3, 3]})
    >>> DeltaPresence(0.0, 0.5, population=pop).holds(pd.DataFrame({"zip": [1, 2]}), ["zip"])
    True
    >>> DeltaPresence(0.1, 0.5, population=pop).holds(pd.DataFrame({"zip": [1, 2]}), ["zip"])
    False
    """

    name = "δ-presence"

    def __init__(self, delta_min: float, delta_max: float, *, population: pd.DataFrame):
        for name, v in (("delta_min", delta_min), ("delta_max", delta_max)):
            if (isinstance(v, bool) or not isinstance(v, numbers.Real)
                    or not 0 <= float(v) <= 1 or math.isnan(float(v))):
                raise InvalidInputError(f"{name} must be a number in [0, 1], got {v!r}")
        if delta_min > delta_max:
            raise InvalidInputError(
                f"delta_min={delta_min} is above delta_max={delta_max}; choose "
                f"delta_min <= delta_max")
        if not isinstance(population, pd.DataFrame):
            raise InvalidInputError(
                f"population must be a pandas DataFrame (the population table), got "
                f"{type(population).__name__}")
        self.delta_min = float(delta_min)
        self.delta_max = float(delta_max)
        self.population = population

    def __repr__(self) -> str:
        return (f"DeltaPresence(delta_min={self.delta_min}, delta_max={self.delta_max}, "
                f"population=<{len(self.population)} rows>)")

    def params(self) -> dict:
        return {"delta_min": self.delta_min, "delta_max": self.delta_max,
                "population_rows": len(self.population)}

    def requirements(self) -> Requirements:
        # the δ of a union lies between its parts' δ (a mediant): merging keeps it
        return Requirements(merge_monotone=True, population=True, table=self.delta_min > 0)

    def _deltas(self, classes) -> np.ndarray:
        pop = self._population_of(classes)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pop > 0, classes.sizes / np.maximum(pop, 1), 0.0)

    def _upper(self, classes) -> np.ndarray:
        """δ bounded above for the δmax side: a population row that matches ``m`` published
        classes (overlapping cells of local recoding) may be in the release through any of
        them, so the attacker's belief in it is at most the sum of their δ; requiring
        ``δ · m_max <= δmax`` of every class (``m_max``: ``ClassCounts.population_shared``)
        bounds that sum by δmax. Equals δ when cells are disjoint."""
        d = self._deltas(classes)
        shared = classes.population_shared
        return d if shared is None else d * np.maximum(shared, 1)

    def classes_ok(self, classes) -> np.ndarray:
        d = self._deltas(classes)
        return (d >= self.delta_min - TOLERANCE) & (self._upper(classes)
                                                    <= self.delta_max + TOLERANCE)

    def table_ok(self, classes) -> bool:
        """With ``delta_min > 0`` no population row may lie outside the published classes
        (its class would have δ = 0)."""
        if self.delta_min <= 0:
            return True
        pop = self._population_of(classes)
        inside = int(pop[classes.sizes > 0].sum())
        return inside >= int(classes.population_rows or 0)

    def accepts(self, achieved: dict) -> bool:
        return (achieved["delta_min"] >= self.delta_min - TOLERANCE
                and achieved["delta_max"] <= self.delta_max + TOLERANCE)

    def achieved(self, classes) -> dict:
        """The smallest and largest δ over the population's classes (0 when population rows
        lie outside the published classes)."""
        if classes.population is None or not classes.groups:
            return {}
        d = self._deltas(classes)
        low = float(d.min())
        if int(classes.population[classes.sizes > 0].sum()) < int(classes.population_rows or 0):
            low = 0.0
        return {"delta_min": low, "delta_max": float(self._upper(classes).max())}
