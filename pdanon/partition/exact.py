"""Exact minimum suppression: the fewest suppressed quasi-identifier cells that satisfy a model.

Changes: **partitioning and recoding** (cells become missing). Registered as
``algorithm="exact"`` with ``method="suppress"`` for k-anonymity, l-diversity and t-closeness:
the reference's ``SuppressionKAnonymityBaseline`` / ``SuppressionLDiversityBaseline`` /
``SuppressionTClosenessBaseline``, which try all 2^(rows·columns) suppression patterns. pdanon
returns a table with the same (minimum) number of suppressed cells from an integer program
solved by HiGHS (:func:`scipy.optimize.milp`).

The integer program
-------------------
A row's published tuple is its values with some set ``P`` of columns suppressed (missing cells
are equal to each other), so it is ``(P, the row's values outside P)``. Every row picks one
pattern ``P`` (2^columns choices); the rows that picked the same tuple form an equivalence
class. Variables: ``x[r, τ]`` = row r publishes tuple τ (binary, only for tuples that ≥ k rows
can reach), ``y[τ]`` = tuple τ is used (binary). Constraints:

* every row picks exactly one tuple; ``x[r, τ] ≤ y[τ]``; ``Σ_r x[r, τ] ≥ k·y[τ]``;
* distinct l-diversity: ``z[τ, s, v] ≤ Σ_{r: s_r = v} x[r, τ]`` (z ∈ [0, 1]) and
  ``Σ_v z[τ, s, v] ≥ l·y[τ]`` for every sensitive column s;
* t-closeness with a distance that is a weighted sum of absolute values of linear functions of
  the class's value counts ``n_v`` and size ``N`` — equal-distance EMD (Σ_v |n_v − q_v·N| ≤
  2t·N), ordered EMD and the normalized Wasserstein distance (on cumulative counts), and
  hierarchical EMD (per level) — with one auxiliary variable per absolute value. An unused
  tuple has all counts 0 and meets these constraints trivially;
* the other conditions are added lazily: the program is solved, every class of the solution is
  checked with the model, and a violated class gets a cut and the program is solved again.
  Jensen–Shannon t-closeness (convex and positively homogeneous in the counts) and entropy
  l-diversity (concave and homogeneous) get tangent cuts, which are valid for every class;
  recursive (c, l)-diversity and other models get a cut that forbids exactly that class.

Missing cells publish what suppressed cells publish, so a tuple is numbered by its published
cells and a row never "suppresses" a cell that is already missing (that costs nothing and is
never counted). Objective: Σ |P|·x[r, τ], the number of suppressed cells. The solution is optimal when HiGHS
proves it (``info["optimal"]``); a time-out or a table beyond the size limits raises
:class:`~pdanon._errors.InvalidInputError` that points to ``algorithm="group_join"`` or
``"mondrian"``. Tuples that fewer than k rows can reach (or, for distinct l-diversity, whose
reachable rows hold fewer than l distinct values) are left out, which keeps the program small:
a 14-row × 5-column table solves in well under a second.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.models import KAnonymity
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]],
...                   columns=list("abcd"))
>>> sol = exact_suppression(encode_table(df, resolve_roles(df)), KAnonymity(2))
>>> sol.suppressed_cells, sol.mask.astype(int).tolist()
(2, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 1]])
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from pdanon.encode import EncodedTable
from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.partition import Partition, register
from pdanon.partition.common import check_distance_option, no_progress, sensitive_columns
from pdanon.progress import progress_bar

__all__ = ["exact_suppression", "ExactSolution", "MAX_COLUMNS", "MAX_PATTERN_ROWS",
           "MAX_VARIABLES"]

#: the most quasi-identifier columns the exact solver accepts (2^columns patterns per row)
MAX_COLUMNS = 12
#: the most (row, pattern) pairs it enumerates: rows · 2^columns
MAX_PATTERN_ROWS = 1_000_000
#: the most row/tuple variables of the integer program
MAX_VARIABLES = 150_000
_SCALABLE = "use algorithm='group_join' or algorithm='mondrian' (method='suppress')"
_EPS = 1e-3  # smoothing of the point at which tangent cuts are taken


@dataclass
class ExactSolution:
    """A minimum-suppression solution: ``mask`` (rows × columns, True = suppressed), the class
    label of every row, the count, and solver statistics."""

    mask: np.ndarray
    labels: np.ndarray
    suppressed_cells: int
    optimal: bool = True
    stats: dict = field(default_factory=dict)


# ============================================================================ the program


class _Program:
    """A growing sparse MILP: variables with bounds / cost / integrality and constraint rows."""

    def __init__(self):
        self.cost: list = []
        self.lb: list = []
        self.ub: list = []
        self.integer: list = []
        self.nvar = 0
        self.r: list = []
        self.c: list = []
        self.v: list = []
        self.blo: list = []
        self.bhi: list = []
        self.ncon = 0

    def variables(self, count: int, *, cost=0.0, integer: bool, lb=0.0, ub=1.0) -> np.ndarray:
        idx = np.arange(self.nvar, self.nvar + count)
        self.cost.append(np.broadcast_to(np.asarray(cost, dtype=np.float64), (count,)))
        self.lb.append(np.full(count, lb, dtype=np.float64))
        self.ub.append(np.full(count, ub, dtype=np.float64))
        self.integer.append(np.full(count, 1 if integer else 0, dtype=np.uint8))
        self.nvar += count
        return idx

    def rows(self, row, col, val, lo, hi) -> None:
        """Constraint rows given in COO form with local row numbers 0..len(lo)-1."""
        lo = np.atleast_1d(np.asarray(lo, dtype=np.float64))
        hi = np.atleast_1d(np.asarray(hi, dtype=np.float64))
        self.r.append(np.asarray(row, dtype=np.int64) + self.ncon)
        self.c.append(np.asarray(col, dtype=np.int64))
        self.v.append(np.asarray(val, dtype=np.float64))
        self.blo.append(lo)
        self.bhi.append(hi)
        self.ncon += len(lo)

    def solve(self, time_limit: float):
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_matrix

        A = coo_matrix((np.concatenate(self.v), (np.concatenate(self.r), np.concatenate(self.c))),
                       shape=(self.ncon, self.nvar)).tocsr()
        cons = LinearConstraint(A, np.concatenate(self.blo), np.concatenate(self.bhi))
        return milp(np.concatenate(self.cost), integrality=np.concatenate(self.integer),
                    bounds=Bounds(np.concatenate(self.lb), np.concatenate(self.ub)),
                    constraints=cons,
                    options={"time_limit": max(time_limit, 0.01), "disp": False,
                             "mip_rel_gap": 1e-9})


# ============================================================================ tuples


def _tuples(enc: EncodedTable):
    """Every (pattern, row) pair's tuple id. Returns (tuple_of (patterns × n), pattern sizes,
    tuple count, valid): ``valid`` (patterns × n, or None when no cell is missing) says which
    pairs suppress no missing cell.

    A missing cell publishes what a suppressed cell publishes, so with missing cells a tuple is
    numbered by its published cells (a suppressed column takes the missing code) over all
    patterns at once; a pattern that would suppress a row's missing cell gives the same tuple
    as the pattern without that column, at a higher cost, and is left out (``valid``)."""
    from pdanon._groups import combine_codes

    n = enc.n
    c = len(enc.columns)
    codes = [np.asarray(col.codes, dtype=np.int64) for col in enc.columns]
    patterns = 1 << c
    popcount = np.array([bin(P).count("1") for P in range(patterns)], dtype=np.int64)
    if any(col.na is not None for col in enc.columns):
        marker = [len(col.categories) for col in enc.columns]  # = the missing code
        bits = np.arange(patterns)[:, None]
        stacked = [np.where((bits >> j) & 1, marker[j], codes[j][None, :]).reshape(-1)
                   for j in range(c)]
        tuple_of = combine_codes(stacked, patterns * n).reshape(patterns, n)
        na_bits = sum((col.na.astype(np.int64) << j) for j, col in enumerate(enc.columns)
                      if col.na is not None)
        valid = (bits & na_bits[None, :]) == 0
        return tuple_of, popcount, int(tuple_of.max()) + 1 if n else 0, valid
    tuple_of = np.empty((patterns, n), dtype=np.int64)
    offset = 0
    for P in range(patterns):
        kept = [codes[j] for j in range(c) if not (P >> j) & 1]
        lab = combine_codes(kept, n) if kept else np.zeros(n, dtype=np.int64)
        tuple_of[P] = lab + offset
        offset += int(lab.max()) + 1 if n else 0
    return tuple_of, popcount, offset, None


# ============================================================================ linear t-closeness


def _abs_sum_rows(prog: _Program, xs: np.ndarray, coefs: np.ndarray, weights: np.ndarray,
                  beta: np.ndarray) -> None:
    """Σ_i w_i·|coefs[i] · x| + beta · x <= 0 over the variables ``xs``, with one auxiliary
    e_i >= |coefs[i] · x| per term."""
    terms = len(weights)
    if terms == 0:
        prog.rows(np.zeros(len(xs)), xs, beta, [-np.inf], [0.0])
        return
    e = prog.variables(terms, integer=False, lb=0.0, ub=np.inf)
    R = len(xs)
    ti = np.repeat(np.arange(terms), R)
    xi = np.tile(xs, terms)
    cv = coefs.reshape(-1)
    # e_i - coefs·x >= 0 and e_i + coefs·x >= 0
    for sign in (-1.0, 1.0):
        prog.rows(np.concatenate([np.arange(terms), ti]), np.concatenate([e, xi]),
                  np.concatenate([np.ones(terms), sign * cv]), np.zeros(terms),
                  np.full(terms, np.inf))
    prog.rows(np.zeros(terms + R), np.concatenate([e, xs]), np.concatenate([weights, beta]),
              [-np.inf], [0.0])


def _linear_distance(distance: str, col, hierarchy=None) -> str | None:
    """Which linearization a (distance, column) pair has, or None (then cuts)."""
    if distance == "reference":
        distance = "wasserstein" if col.kind == "real" else "jensen_shannon"
    if distance == "hierarchical" and hierarchy is not None:
        return "hierarchical"
    if distance in ("emd", "hierarchical"):
        return "tv" if col.kind == "unordered" else "ordered"
    if distance == "wasserstein":
        return "wasserstein" if col.kind == "real" else "ordered"
    return None


def _known_rows(col, known_only: bool) -> np.ndarray:
    """Rows whose cell of ``col`` counts as a value: all, or (``known_only``: the rule
    ``missing_sensitive="unknown"``) those not missing."""
    if known_only and col.has_na:
        return col.codes != col.m - 1
    return np.ones(len(col.codes), dtype=bool)


def _refuse_unknown_blanks(model, sens_cols) -> None:
    """Entropy l-diversity and t-closeness are linear (or cut) in the counts of every value
    here; under ``missing_sensitive="unknown"`` a column with missing cells would need them
    over the known values only, which this program does not model: refused, naming the fix."""
    from pdanon.models import LDiversity, TCloseness

    for part in model.parts():
        ruled = (isinstance(part, TCloseness)
                 or (isinstance(part, LDiversity) and part.variant == "entropy"))
        if not ruled or part.missing_sensitive != "unknown":
            continue
        blank = [col.name for col in sens_cols if col.has_na]
        if blank:
            raise InvalidInputError(
                f"algorithm='exact' cannot express {part!r} when sensitive column "
                f"{blank[0]!r} has missing cells, which missing_sensitive='unknown' leaves out "
                f"of every class: use algorithm='mondrian', 'group_join' or 'optimal', or pass "
                f"missing_sensitive='value' (a missing cell then is one more value)")


def _t_rows(prog, xs, codes, col, how: str, t: float, hierarchy) -> None:
    """The linear t-closeness constraint of one tuple (rows ``codes``) and sensitive column."""
    from pdanon import distributions as d

    q = col.global_counts / max(col.global_counts.sum(), 1)
    R = len(xs)
    if how in ("tv", "hierarchical"):
        levels, height = ([np.arange(col.m)], 1) if how == "tv" else \
            d.hierarchy_levels(hierarchy, col)
        coefs, beta = [], np.full(R, -2.0 * height * t)
        for node in levels:
            m_new = int(node.max()) + 1
            qn = np.bincount(node, weights=q, minlength=m_new)
            mine = node[codes]
            present = np.unique(mine)
            beta += qn.sum() - qn[present].sum()  # absent nodes: |0 − q·N| = q·N
            coefs.append((mine[None, :] == present[:, None]) - qn[present][:, None])
        coefs = np.concatenate(coefs) if coefs else np.zeros((0, R))
        _abs_sum_rows(prog, xs, coefs, np.ones(len(coefs)), beta)
        return
    Q = np.cumsum(q)
    m = col.m
    if how == "ordered":
        w = np.ones(m - 1)
        budget = (m - 1) * t
    else:  # wasserstein on the sorted distinct values
        if col.has_na:
            raise InvalidInputError(
                f"sensitive column {col.name!r} has missing values; the Wasserstein distance is "
                "undefined for them: fill or drop them, or use distance='emd'")
        w = np.diff(col.values)
        budget = (col.values[-1] - col.values[0] + d.WASSERSTEIN_EPS) * t
    if m <= 1:
        return
    lo, hi = int(codes.min()), int(codes.max())
    beta = np.full(R, -budget)
    # i < lo: the class's cumulative count is 0 -> |0 − Q_i·N| = Q_i·N
    beta += float((w[:lo] * Q[:lo]).sum())
    # i >= hi (up to m − 2): cumulative count is N -> (1 − Q_i)·N
    beta += float((w[hi:m - 1] * (1.0 - Q[hi:m - 1])).sum())
    idx = np.arange(lo, min(hi, m - 1))
    coefs = (codes[None, :] <= idx[:, None]) - Q[idx][:, None]
    _abs_sum_rows(prog, xs, coefs, w[idx], beta)


# ============================================================================ lazy cuts


def _js_cut(counts: np.ndarray, q: np.ndarray, t: float):
    """Tangent of N·JS(n/N, q) at (smoothed) counts: g with g·n <= N·JS for every n."""
    N = counts.sum()
    a = counts + _EPS * N * q
    b = q * a.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        common = 0.5 * np.sum(np.where(q > 0, q * np.log(2 * b / (a + b)), 0.0))
        g = 0.5 * np.log(2 * a / (a + b)) + common
    return g - t  # cut: Σ_r (g[s_r] − t)·x_r <= 0


def _entropy_cut(counts: np.ndarray, l: float):
    """Tangent of N·H(n/N) (concave, homogeneous) at smoothed counts: every class with
    entropy >= log l has Σ_v (log(A/a_v) − log l)·n_v >= 0."""
    a = counts.astype(np.float64) + _EPS * max(counts.sum(), 1.0)
    return np.log(a.sum() / a) - np.log(l)


# ============================================================================ the solver


def exact_suppression(enc: EncodedTable, model, *, context=None, time_limit: float = 60.0,
                      max_rounds: int = 200) -> ExactSolution:
    """Fewest suppressed quasi-identifier cells such that every equivalence class meets
    ``model`` (module docstring).

    Raises :class:`InvalidInputError` when the table exceeds the solver's limits
    (:data:`MAX_COLUMNS`, :data:`MAX_PATTERN_ROWS`, :data:`MAX_VARIABLES`) or HiGHS does not
    prove optimality within ``time_limit`` seconds / ``max_rounds`` rounds of cuts, and
    :class:`InfeasibleError` when no suppression meets the model.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_table
    >>> from pdanon.models import AllOf, KAnonymity, LDiversity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame([[1, 1, 1, 1, 1], [1, 1, 1, 1, 2], [2, 2, 2, 2, 2], [2, 2, 2, 3, 1]],
    ...                   columns=list("abcds"))
    >>> model = AllOf(KAnonymity(2), LDiversity(2))
    >>> roles = resolve_roles(df, quasi_identifiers=list("abcd"), sensitive=["s"])
    >>> sol = exact_suppression(encode_table(df, roles), model,
    ...                         context=model.models[1].context(df, ["s"]))
    >>> sol.suppressed_cells
    2
    """
    from pdanon import distributions as d
    from pdanon.models import KAnonymity, LDiversity, TCloseness

    started = time.perf_counter()
    other = [p for p in model.parts() if not isinstance(p, (KAnonymity, LDiversity, TCloseness))]
    if other:
        raise InvalidInputError(
            f"algorithm='exact' formulates k-anonymity, l-diversity and t-closeness as an "
            f"integer program; it cannot express {other[0]!r}: use algorithm='mondrian', "
            "'group_join' or 'optimal'")
    n, c = enc.n, len(enc.columns)
    where = f"a table of {n} rows × {c} quasi-identifier columns"
    if c > MAX_COLUMNS or n * (1 << c) > MAX_PATTERN_ROWS:
        raise InvalidInputError(
            f"algorithm='exact' is limited to {MAX_COLUMNS} quasi-identifiers and "
            f"rows·2^columns <= {MAX_PATTERN_ROWS:,}; {where} is too large: {_SCALABLE}")
    sens_cols = sensitive_columns(enc, context)
    req = model.requirements()
    if req.sensitive and not sens_cols:
        raise InvalidInputError(
            f"{model!r} needs at least one sensitive column: pass sensitive=[...]")
    k = req.min_size
    if n < k:
        raise InfeasibleError(f"k={k} is larger than the number of rows ({n})")

    tuple_of, popcount, T, valid = _tuples(enc)
    patterns = tuple_of.shape[0]
    size = np.bincount(tuple_of.ravel() if valid is None else tuple_of[valid], minlength=T)
    usable = size >= k
    distinct_l = [p for p in model.parts() if isinstance(p, LDiversity)
                  and p.variant in ("distinct", "entropy")]
    need_l = max((float(p.l) for p in distinct_l), default=1.0)
    _refuse_unknown_blanks(model, sens_cols)
    if need_l > 1:
        for col in sens_cols:
            known = _known_rows(col, req.known_only)
            pairs = np.unique((tuple_of * col.m + col.codes[None, :])[:, known])
            usable &= np.bincount(pairs // col.m, minlength=T) >= need_l
    # ---- variables
    P_idx, r_idx = np.nonzero(usable[tuple_of] if valid is None else usable[tuple_of] & valid)
    x_tau = tuple_of[P_idx, r_idx]
    X = len(x_tau)
    if X > MAX_VARIABLES:
        raise InvalidInputError(
            f"algorithm='exact' would need {X:,} variables for {where} (limit "
            f"{MAX_VARIABLES:,}): {_SCALABLE}")
    used_t, x_t = np.unique(x_tau, return_inverse=True)  # compact tuple numbers
    x_t = x_t.reshape(-1)
    Tn = len(used_t)
    prog = _Program()
    xs = prog.variables(X, cost=popcount[P_idx].astype(np.float64), integer=True)
    ys = prog.variables(Tn, integer=True)
    # every row picks one tuple
    prog.rows(r_idx, xs, np.ones(X), np.ones(n), np.ones(n))
    # x <= y
    prog.rows(np.concatenate([np.arange(X), np.arange(X)]), np.concatenate([xs, ys[x_t]]),
              np.concatenate([np.ones(X), -np.ones(X)]), np.full(X, -np.inf), np.zeros(X))
    # Σ x >= k·y
    if k > 1:
        prog.rows(np.concatenate([x_t, np.arange(Tn)]), np.concatenate([xs, ys]),
                  np.concatenate([np.ones(X), np.full(Tn, -float(k))]), np.zeros(Tn),
                  np.full(Tn, np.inf))
    # x variables of each tuple, grouped
    order = np.argsort(x_t, kind="stable")
    bounds = np.searchsorted(x_t[order], np.arange(Tn + 1))
    members = [order[bounds[i]:bounds[i + 1]] for i in range(Tn)]  # positions into xs

    lazy_js, lazy_entropy = [], []
    for part in model.parts():
        if isinstance(part, LDiversity):
            if part.variant == "distinct" and part.l > 1:
                for col in sens_cols:
                    # a missing cell is no value under missing_sensitive="unknown": no z
                    pos = np.flatnonzero(
                        _known_rows(col, part.missing_sensitive == "unknown")[r_idx])
                    key = x_t[pos] * col.m + col.codes[r_idx[pos]]
                    uk, zi = np.unique(key, return_inverse=True)
                    zi = zi.reshape(-1)
                    zs = prog.variables(len(uk), integer=False)
                    # z - Σ x <= 0
                    prog.rows(np.concatenate([np.arange(len(uk)), zi]),
                              np.concatenate([zs, xs[pos]]),
                              np.concatenate([np.ones(len(uk)), -np.ones(len(pos))]),
                              np.full(len(uk), -np.inf), np.zeros(len(uk)))
                    # Σ z - l·y >= 0
                    zt = uk // col.m
                    prog.rows(np.concatenate([zt, np.arange(Tn)]), np.concatenate([zs, ys]),
                              np.concatenate([np.ones(len(uk)), np.full(Tn, -float(part.l))]),
                              np.zeros(Tn), np.full(Tn, np.inf))
            elif part.variant == "entropy":
                lazy_entropy.append(part)
        elif isinstance(part, TCloseness):
            hier = part.hierarchies or {}
            for col in sens_cols:
                how = _linear_distance(part.distance, col, hier.get(col.name))
                if how is None:
                    lazy_js.append((part, col))
                    continue
                for i in range(Tn):
                    pos = members[i]
                    _t_rows(prog, xs[pos], col.codes[r_idx[pos]], col, how,
                            part.t + 0.5 * _tol(), hier.get(col.name))

    # ---- tangent cuts, valid for every tuple (the same function of the class's counts)
    def cut_everywhere(vec: np.ndarray, col, upper: bool) -> None:
        vals = vec[col.codes[r_idx]]
        if upper:  # Σ vec[s_r]·x <= 0
            prog.rows(x_t, xs, vals, np.full(Tn, -np.inf), np.zeros(Tn))
        else:  # Σ vec[s_r]·x >= 0
            prog.rows(x_t, xs, vals, np.zeros(Tn), np.full(Tn, np.inf))

    def q_of(col):
        return col.global_counts / max(col.global_counts.sum(), 1)

    for part, col in lazy_js:  # seed: tangents at the one-value distributions
        for v in range(col.m):
            cut_everywhere(_js_cut(np.eye(col.m)[v], q_of(col), part.t), col, True)
    for part in lazy_entropy:
        for col in sens_cols:
            for v in range(col.m):
                cut_everywhere(_entropy_cut(np.eye(col.m)[v], float(part.l)), col, False)

    # ---- solve, check, cut, repeat
    rounds, cuts = 0, 0
    previous = None  # the rows chosen by the last round: a round's cuts must change them
    with progress_bar(None, desc="exact: HiGHS round 1", unit="round") as bar:
        while True:
            rounds += 1
            remaining = time_limit - (time.perf_counter() - started)
            if remaining <= 0:
                _timeout(where, time_limit)
            bar.set_description(f"exact: HiGHS round {rounds}")
            res = prog.solve(remaining)
            bar.update(1)
            if res.status == 2:
                raise InfeasibleError(f"no suppression of the quasi-identifiers makes the table "
                                      f"satisfy {model!r}")
            if res.status != 0 or res.x is None:
                if res.status == 1:
                    _timeout(where, time_limit)
                raise InvalidInputError(f"the exact solver failed ({res.message}); {_SCALABLE}")
            chosen = np.flatnonzero(res.x[:X] > 0.5)
            if previous is not None and np.array_equal(chosen, previous):
                raise no_progress("exact", f"round {rounds} of cuts left the solution unchanged")
            previous = chosen
            row_tuple = np.empty(n, dtype=np.int64)
            row_tuple[r_idx[chosen]] = x_t[chosen]
            labels = np.unique(row_tuple, return_inverse=True)[1].reshape(-1)
            G = int(labels.max()) + 1
            sizes = np.bincount(labels, minlength=G)
            pairs = [d.PairCounts.from_codes(labels, col.codes, col.m, G) for col in sens_cols]
            counts = d.ClassCounts(sizes, sens_cols if req.sensitive else [],
                                   pairs if req.sensitive else [])
            ok = np.asarray(model.classes_ok(counts), dtype=bool)
            if ok.all():
                break
            if rounds >= max_rounds:
                raise InvalidInputError(
                    f"algorithm='exact' did not converge in {max_rounds} rounds of cuts for {where}"
                    f": {_SCALABLE}")
            for g in np.flatnonzero(~ok):
                rows = np.flatnonzero(labels == g)
                added = False
                for part, col in lazy_js:
                    one = d.PairCounts.from_codes(np.zeros(len(rows), np.int64), col.codes[rows],
                                                  col.m, 1)
                    if float(d.class_distances(one, col, part.distance)[0]) <= part.t + _tol():
                        continue
                    cnt = np.bincount(col.codes[rows], minlength=col.m).astype(np.float64)
                    vec = _js_cut(cnt, q_of(col), part.t)
                    if float(vec[col.codes[rows]].sum()) > 1e-9:
                        cut_everywhere(vec, col, True)
                        added = True
                for part in lazy_entropy:
                    for col in sens_cols:
                        cnt = np.bincount(col.codes[rows], minlength=col.m).astype(np.float64)
                        vec = _entropy_cut(cnt, float(part.l))
                        if float(vec[col.codes[rows]].sum()) < -1e-9:
                            cut_everywhere(vec, col, False)
                            added = True
                if not added:
                    # forbid exactly this class: Σ_in x − Σ_out x <= |S| − 1
                    tau = int(row_tuple[rows[0]])
                    pos = members[tau]
                    coef = np.where(np.isin(r_idx[pos], rows), 1.0, -1.0)
                    prog.rows(np.zeros(len(pos)), xs[pos], coef, [-np.inf], [len(rows) - 1.0])
                cuts += 1

    pattern = np.empty(n, dtype=np.int64)
    pattern[r_idx[chosen]] = P_idx[chosen]
    mask = ((pattern[:, None] >> np.arange(c)[None, :]) & 1).astype(bool)
    count = int(mask.sum())
    stats = {"optimal": True, "suppressed_cells": count, "solver": "HiGHS (scipy.optimize.milp)",
             "variables": int(prog.nvar), "constraints": int(prog.ncon), "rounds": rounds,
             "cuts": cuts, "solver_seconds": time.perf_counter() - started}
    return ExactSolution(mask, labels, count, True, stats)


def _tol() -> float:
    from pdanon.models import TOLERANCE

    return TOLERANCE


def _timeout(where: str, limit: float):
    raise InvalidInputError(
        f"algorithm='exact' could not prove an optimum within time_limit={limit:g} s for "
        f"{where}: {_SCALABLE}, or pass a larger time_limit=")


@register("exact", options=("time_limit", "max_rounds", "distance"))
def exact(enc: EncodedTable, model, *, method: str, frame=None, context=None,
          time_limit: float = 60.0, max_rounds: int = 200, distance=None):
    """Engine entry point (``algorithm="exact"``, ``method="suppress"`` only). Returns the
    recoded columns; ``info`` gains ``optimal`` (True), ``suppressed_cells`` and solver
    statistics.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.engine import anonymize
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"a": [1, 1, 2, 2, 2], "b": ["x", "y", "z", "z", "z"]})
    >>> out, info = anonymize(df, resolve_roles(df), model=KAnonymity(2), method="suppress",
    ...                       algorithm="exact")
    >>> out["b"].tolist(), info["suppressed_cells"], info["optimal"]
    ([nan, nan, 'z', 'z', 'z'], 2, True)
    """
    from pdanon import recode

    if method != "suppress":
        raise InvalidInputError(
            f"algorithm='exact' finds the minimum number of suppressed cells: it supports "
            f"method='suppress' only, not {method!r}; use algorithm='group_join' or "
            "'mondrian' for generalization or aggregation")
    check_distance_option(model, distance)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or \
            not time_limit > 0:
        raise InvalidInputError(f"time_limit must be a number of seconds > 0, got {time_limit!r}")
    sol = exact_suppression(enc, model, context=context, time_limit=float(time_limit),
                            max_rounds=int(max_rounds))
    if frame is None:
        return Partition(sol.labels, note="exact: minimum suppression", info=sol.stats)
    columns = {}
    for j, col in enumerate(enc.columns):
        columns[col.name] = frame[col.name].mask(sol.mask[:, j])
    return recode.Recoded(columns, sol.suppressed_cells, info=sol.stats,
                          note="exact: minimum number of suppressed cells")
