"""Singling out: does a predicate read off the release isolate exactly one real person?

The attacker builds predicates from the release (Giomi et al. 2023, as Anonymeter builds them
on plain values) and guesses that each isolates one person of the original:

* ``multivariate``: a random release row and ``n_cols`` random columns; per column, the
  row's cell as a predicate: a published range or set is the predicate "the value lies in the
  cell"; a plain category "equals"; a plain number ``>= v`` when above the column's median
  else ``<= v`` (the extreme side, where rows are rarest); a missing cell "is missing" (a
  wildcard, ``missing="wildcard"``: the column is left out). Kept when exactly one release row
  lies inside it (a row's cell inside the predicate) and not seen before, until ``n_attacks``
  predicates or ``max_attempts`` tries;
* ``univariate``: per column, a cell published once, the single missing cell, and for numbers
  ``<= min`` and ``>= max``; kept when exactly one release row lies inside.

Success: the predicate matches exactly one row of the original (a row matches when every cell
of the predicate contains its value). The control rate is the share of the same predicates
that match exactly one row of the control; when the control's size differs from the
original's, it is rescaled by the paper's model of singling out against size (fitted on
subsamples of the control: the number of predicates that single out, not of predicates). The
naive attacker draws random predicates: per column a random published cell with a random
operator (``==``, ``!=``, and for plain numbers ``<``, ``<=``, ``>``, ``>=``). The rates
divide by the predicates actually made (``n_attacks`` of the result), which a release can
make smaller than asked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.attacks import _checks
from pdanon.attacks._columns import Cells, Column
from pdanon.attacks._result import LEVEL, AttackResult, rate, rng_of

WHAT = "singling out"
#: (rows, predicate) pairs compared at once
BUDGET = 1 << 22
INF = np.inf


def _concat(cells: list) -> Cells:
    first = cells[0]
    out = Cells(np.concatenate([c.na for c in cells]), np.concatenate([c.wild for c in cells]))
    for name in ("lo", "hi", "olo", "ohi", "key"):
        if getattr(first, name) is not None:
            setattr(out, name, np.concatenate([getattr(c, name) for c in cells]))
    if first.offsets is not None:
        lens = np.concatenate([np.diff(c.offsets) for c in cells])
        out.offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        out.members = np.concatenate([c.members for c in cells])
    return out


class _Patterns:
    """Counts of predicates over rows, by the columns each predicate uses.

    Rows (``inv``: per column, every row's distinct cell; ``weights``: what each row counts)
    are grouped, per set of used columns, into their distinct combinations over those columns
    only (kept for the next batch): a predicate over 3 of 9 columns is read on the few
    combinations of its 3, not on every row."""

    def __init__(self, inv: list, weights: np.ndarray):
        self.inv = inv
        self.weights = weights  # (rows,) or (rows, m)
        self.cache = {}

    def _groups(self, cols: tuple):
        if cols not in self.cache:
            from pdanon._groups import combine_codes

            n = len(self.inv[0])
            labels = combine_codes([self.inv[j] for j in cols], n)
            g = int(labels.max()) + 1 if n else 0
            first = np.full(g, n, dtype=np.int64)
            np.minimum.at(first, labels, np.arange(n, dtype=np.int64))
            w = self.weights
            if w.ndim == 1:
                cw = np.bincount(labels, weights=w, minlength=g)[:, None]
            else:
                cw = np.stack([np.bincount(labels, weights=w[:, k], minlength=g)
                               for k in range(w.shape[1])], axis=1)
            self.cache[cols] = ([self.inv[j][first] for j in cols], cw)
        return self.cache[cols]

    def counts(self, tables: list, used: np.ndarray) -> np.ndarray:
        """(predicates × m) weighted counts; ``tables[j]``: column j's distinct cells ×
        predicates; ``used``: predicates × columns."""
        q = used.shape[0]
        m = 1 if self.weights.ndim == 1 else self.weights.shape[1]
        out = np.zeros((q, m))
        if not q or not len(self.inv[0]):
            return out
        patterns, which = np.unique(used, axis=0, return_inverse=True)
        which = which.reshape(-1)
        for p, pattern in enumerate(patterns):
            preds = np.flatnonzero(which == p)
            cols = tuple(np.flatnonzero(pattern).tolist())
            if not cols:
                out[preds] = self.weights.sum(axis=0)
                continue
            codes, cw = self._groups(cols)
            subs = [tables[j][:, preds] for j in cols]  # distinct cells × these predicates
            step = max(1, BUDGET // len(preds))
            for g0 in range(0, len(cw), step):
                g1 = min(len(cw), g0 + step)
                hit = subs[0][codes[0][g0:g1]]
                for sub, c in zip(subs[1:], codes[1:]):
                    hit &= sub[c[g0:g1]]
                out[preds] += hit.T.astype(np.float64) @ cw[g0:g1]
        return out


class _Predicates:
    """Q predicates: per column, Cells (``wild`` where the column is not used) and ``neg``."""

    def __init__(self, cells: list, neg: list | None = None, src: list | None = None):
        self.cells = cells
        self.neg = neg if neg is not None else [np.zeros(len(c), dtype=bool) for c in cells]
        # per column, the release's distinct cell each predicate was read from (or None)
        self.src = src if src is not None else [None] * len(cells)

    def __len__(self):
        return len(self.cells[0]) if self.cells else 0

    def take(self, idx):
        return _Predicates([c.take(idx) for c in self.cells], [n[idx] for n in self.neg],
                           [None if x is None else x[idx] for x in self.src])

    def keys(self) -> list:
        """A hashable identity per predicate (for uniqueness)."""
        parts = []
        for c, ng in zip(self.cells, self.neg):
            cols = [c.na, c.wild, ng]
            for name in ("lo", "hi", "olo", "ohi", "key"):
                v = getattr(c, name)
                if v is not None:
                    cols.append(np.where(c.wild, 0, v))
            if c.offsets is not None:
                lens = np.diff(c.offsets)
                h = np.zeros(len(c), dtype=np.float64)
                if len(c.members):
                    ids = np.repeat(np.arange(len(c)), lens)
                    np.add.at(h, ids, (c.members + 1.0) * 1.61803 ** (c.members % 37))
                cols.append(np.where(c.wild | (c.key >= 0), 0, h))
            parts.append(np.stack([np.asarray(x, dtype=np.float64) for x in cols], axis=1))
        table = np.concatenate(parts, axis=1)
        return [row.tobytes() for row in np.nan_to_num(table, nan=-7.0, posinf=9e300,
                                                       neginf=-9e300)]


class _Table:
    """Rows of a table (original or control) in the attacked columns' spaces: per column,
    the distinct values and every row's position among them."""

    def __init__(self, columns: list, df: pd.DataFrame):
        self.n = len(df)
        self.uniq, self.inv = [], []
        for col in columns:
            v = col.values(df[col.name])
            u, inv = np.unique(v, return_inverse=True)
            self.uniq.append(u)
            self.inv.append(inv.reshape(-1))
        self.patterns = None

    def counts(self, columns: list, preds: _Predicates, weights: np.ndarray | None = None):
        """Per predicate, the rows it matches (or ``weights``-weighted sums: Q × m)."""
        q = len(preds)
        tables = []
        for col, u, cells, ng in zip(columns, self.uniq, preds.cells, preds.neg):
            tab = np.ones((len(u), q), dtype=bool)
            used = np.flatnonzero(~cells.wild)
            if len(used):
                tab[:, used] = col.contains(u, cells.take(used)) ^ ng[None, used]
            tables.append(tab)
        if weights is None:
            if self.patterns is None:
                self.patterns = _Patterns(self.inv, np.ones(self.n))
            return self.patterns.counts(tables, _used(preds))
        return _Patterns(self.inv, weights).counts(tables, _used(preds))


class _Release:
    """The release through the attacked columns: per column its distinct cells and every
    row's cell among them (``full``: the cells of every row, for building predicates)."""

    def __init__(self, columns: list, release: pd.DataFrame):
        from pdanon._groups import column_codes

        n = len(release)
        self.full = [col.release_cells(release[col.name]) for col in columns]
        self.distinct, codes = [], []
        for col, full in zip(columns, self.full):
            c, m = column_codes(release[col.name].array)
            first = np.full(m, n, dtype=np.int64)
            np.minimum.at(first, c, np.arange(n, dtype=np.int64))
            self.distinct.append(full.take(first))
            codes.append(c)
        self.codes = codes
        self.subsets = {}
        self.patterns = _Patterns(codes, np.ones(n))

    @classmethod
    def inside(cls, col: Column, cells: Cells, preds: Cells) -> np.ndarray:
        """cells × predicates: the cell lies in the predicate (a set: when every member
        does; a missing cell under ``missing="wildcard"``: always, it may hold anything).
        Only the predicates that use the column are computed."""
        used = np.flatnonzero(~preds.wild)
        out = np.ones((len(cells), len(preds)), dtype=bool)
        if len(used):
            out[:, used] = cls._inside(col, cells, preds.take(used))
        return out

    @staticmethod
    def _inside(col: Column, cells: Cells, preds: Cells) -> np.ndarray:
        wild = preds.wild[None, :] | cells.wild[:, None]
        na = cells.na[:, None] & preds.na[None, :]
        if col.space != "cat":
            with np.errstate(invalid="ignore"):
                ok = ((preds.lo[None, :] <= cells.lo[:, None])
                      & (cells.hi[:, None] <= preds.hi[None, :]))
            # a plain value at an open end of the predicate is outside it
            plain = (cells.lo == cells.hi)[:, None]
            strict = col.contains(cells.lo, preds) | ~plain
            return wild | na | (ok & strict & ~cells.na[:, None])
        vals = cells.key if cells.offsets is None else np.where(cells.key >= 0, cells.key, -1)
        out = col.contains(vals, preds)
        sets = np.flatnonzero(cells.key < 0) if cells.offsets is not None else []
        if len(sets):  # a set lies in the predicate when every member does
            lens = np.diff(cells.offsets)[sets]
            at = np.repeat(cells.offsets[:-1][sets] - (np.cumsum(lens) - lens), lens)
            mem = cells.members[at + np.arange(int(lens.sum()))]
            inner = col.contains(mem, preds)
            out[sets] = np.logical_and.reduceat(inner, np.cumsum(lens) - lens, axis=0)
        return wild | out

    def counts(self, columns: list, preds: _Predicates) -> np.ndarray:
        """Per predicate, the release rows whose cells lie in it."""
        tables = [self._table(j, col, pc, src) for j, (col, pc, src) in
                  enumerate(zip(columns, preds.cells, preds.src))]
        return self.patterns.counts(tables, _used(preds))[:, 0]

    def _table(self, j: int, col: Column, pc: Cells, src) -> np.ndarray:
        """distinct cells × predicates of column j; a predicate read off a distinct cell
        looks up the cells × cells table of the column (made once, when not too large)."""
        d = self.distinct[j]
        if src is None or len(d) ** 2 > BUDGET:
            return self.inside(col, d, pc)
        if j not in self.subsets:
            self.subsets[j] = self.inside(col, d, d)
        return self.subsets[j][:, src] | pc.wild[None, :]


def _used(preds: _Predicates) -> np.ndarray:
    """predicates × columns: the predicate reads the column."""
    if not preds.cells:
        return np.zeros((0, 0), dtype=bool)
    return np.stack([~c.wild for c in preds.cells], axis=1)


def _from_rows(columns, release: _Release, rows, chosen, medians, missing) -> _Predicates:
    """Predicates from release ``rows``, each using the columns where ``chosen`` (rows × cols)."""
    cells = []
    for j, col in enumerate(columns):
        c = release.full[j].take(rows)
        use = chosen[:, j]
        if col.space == "num":
            plain = (c.lo == c.hi) & ~c.na
            up = plain & (c.lo > medians[j])
            down = plain & ~up
            c.hi = np.where(up, INF, c.hi)
            c.lo = np.where(down, -INF, c.lo)
        if missing == "wildcard":
            use = use & ~c.na
        c.wild = ~use
        c.na = c.na & use
        cells.append(c)
    src = [release.codes[j][rows] if col.space == "cat" else None
           for j, col in enumerate(columns)]
    return _Predicates(cells, src=src)


def _univariate(columns, release: pd.DataFrame, rel: _Release, missing) -> _Predicates:
    from pdanon._groups import column_codes

    out = []
    ncol = len(columns)
    for j, col in enumerate(columns):
        full = rel.full[j]
        codes, m = column_codes(release[col.name].array)
        counts = np.bincount(codes, minlength=m)
        rows = list(np.flatnonzero(counts[codes] == 1))
        extra = []
        if col.space == "num" and (~full.na).any():
            present = np.flatnonzero(~full.na)
            lo_row = present[np.argmin(full.lo[present])]
            hi_row = present[np.argmax(full.hi[present])]
            extra = [(lo_row, "down"), (hi_row, "up")]
        chosen = np.zeros((len(rows) + len(extra), ncol), dtype=bool)
        chosen[:, j] = True
        idx = np.array(rows + [r for r, _ in extra], dtype=np.int64)
        meds = [np.nan] * ncol
        p = _from_rows(columns, rel, idx, chosen, meds, missing)
        if col.space == "num":  # rare cells: the cell itself; extremes: one side open
            c = p.cells[j]
            base = rel.full[j].take(idx)
            c.lo, c.hi = base.lo.copy(), base.hi.copy()
            for i, (_, side) in enumerate(extra, start=len(rows)):
                if side == "down":
                    c.lo[i], c.hi[i], c.ohi[i] = -INF, base.lo[i], False
                else:
                    c.hi[i], c.lo[i], c.olo[i] = INF, base.hi[i], False
        out.append(p)
    cells = [_concat([p.cells[j] for p in out]) for j in range(ncol)]
    return _Predicates(cells)


def _random_preds(columns, rel: _Release, n: int, n_cols: int, rng) -> _Predicates:
    """The naive attacker's predicates: random published cells with random operators."""
    ncol = len(columns)
    n_rows = len(rel.full[0])
    chosen = np.zeros((n, ncol), dtype=bool)
    pick = np.argsort(rng.random((n, ncol)), axis=1)[:, :n_cols]
    chosen[np.repeat(np.arange(n), n_cols), pick.reshape(-1)] = True
    cells, negs = [], []
    for j, col in enumerate(columns):
        c = rel.full[j].take(rng.integers(0, n_rows, size=n))
        op = rng.integers(0, 6 if col.space == "num" else 2, size=n)
        neg = op == 1  # 0: ==, 1: !=, 2: <, 3: <=, 4: >, 5: >=
        if col.space == "num":
            plain = (c.lo == c.hi) & ~c.na
            c.lo = np.where(plain & (op >= 2) & (op <= 3), -INF, c.lo)
            c.ohi = np.where(plain & (op == 2), True, c.ohi)
            c.hi = np.where(plain & (op >= 4), INF, c.hi)
            c.olo = np.where(plain & (op == 4), True, c.olo)
        c.wild = ~chosen[:, j]
        c.na = c.na & chosen[:, j]
        cells.append(c)
        negs.append(neg & chosen[:, j])
    return _Predicates(cells, negs)


def _size_correction(columns, table: _Table, preds: _Predicates, n_target: int, rng) -> float:
    """The paper's rescaling of control successes to the original's size: fit
    ``norm * ∫_0^w n x (1 - x)^(n-1) dx`` to the predicates that single out in subsamples of
    the control, and return model(n_original) / model(n_control)."""
    from scipy.optimize import curve_fit

    n_c = table.n
    sizes = np.repeat(np.linspace(min(1000, n_c), n_c, 10).astype(int), 5)
    w = np.zeros((n_c, len(sizes)))
    for i, s in enumerate(sizes):
        w[rng.choice(n_c, s, replace=False), i] = 1.0
    singled = (table.counts(columns, preds, w) == 1).sum(axis=0)

    def model(n, weight, norm):
        return norm * (1 - (1 - weight) ** n * (1 + n * weight)) / (n + 1)

    x, y = sizes.astype(float), singled.astype(float)
    best = None
    # several starts: the curve rises while n·w is small and falls after, and the
    # predicates were built to single out in a table of about n_target rows
    for w0 in (0.1 / n_target, 1 / n_target, 10 / n_target, 1 / n_c):
        w0 = min(w0, 0.5)
        start = (w0, max(y.max(), 1.0) / max(model(float(n_c), w0, 1.0), 1e-300))
        try:
            p, _ = curve_fit(model, x, y, p0=start, bounds=((0, 0), (1, np.inf)),
                             maxfev=20000)
        except (RuntimeError, ValueError):
            continue
        sse = float(((model(x, *p) - y) ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, p)
    if best is None:
        return 1.0
    ratio = model(float(n_target), *best[1]) / model(float(n_c), *best[1])
    return float(ratio) if np.isfinite(ratio) and ratio > 0 else 1.0


def singling_out(release: pd.DataFrame, original: pd.DataFrame, *, control: pd.DataFrame,
                 n_attacks: int = 2000, mode: str = "multivariate", n_cols: int | None = None,
                 columns=None, max_attempts: int | None = None, seed=None,
                 level: float = LEVEL, missing: str = "value",
                 hierarchies=None) -> AttackResult:
    """Singling-out risk of ``release`` for records of ``original`` (module docstring;
    docs/attacks.md).

    ``mode``: ``"multivariate"`` (predicates over ``n_cols`` columns, default 3 or fewer)
    or ``"univariate"``;
    ``columns``: the columns the attacker reads (default: every column the three tables
    share); ``n_attacks``: predicates asked for; ``max_attempts``: tries of the multivariate
    search (default ``20 × n_attacks``); ``seed``: for tests (else a CSPRNG);
    ``missing="wildcard"``: a missing release cell stands for any value; ``hierarchies``:
    ``{column: hierarchy}`` to read published hierarchy labels. ``detail``: per
    predicate, ``predicate`` (text), ``original_matches``, ``control_matches``, ``success``.

    Example
    -------
    >>> original = pd.DataFrame({"age": range(40), "sex": ["F", "M"] * 20})
    >>> control = pd.DataFrame({"age": range(100, 140), "sex": ["F", "M"] * 20})
    >>> r = singling_out(original, original, control=control, n_attacks=20, seed=0)
    >>> r.main_rate, r.control_rate < r.main_rate
    (1.0, True)
    """
    if mode not in ("multivariate", "univariate"):
        raise _checks.InvalidInputError(
            f"{WHAT}: mode must be 'multivariate' or 'univariate', got {mode!r}")
    if columns is None:
        if not isinstance(control, pd.DataFrame):
            _checks.check_frames(release, original, control, [], what=WHAT)
        shared = set(original.columns) & set(control.columns)
        columns = [c for c in release.columns if c in shared]
    cols = _checks.names(columns, f"{WHAT}: columns") if columns else []
    _checks.check_frames(release, original, control, cols, what=WHAT)
    if not cols:
        raise _checks.InvalidInputError(f"{WHAT}: the three tables share no column")
    missing = _checks.check_missing(missing)
    level = _checks.check_level(level)
    n_attacks = _checks.check_attacks(n_attacks, {}, what=WHAT)
    if n_cols is None:
        n_cols = min(3, len(cols))
    if mode == "multivariate" and (isinstance(n_cols, bool) or not isinstance(
            n_cols, (int, np.integer)) or not 1 <= n_cols <= len(cols)):
        raise _checks.InvalidInputError(
            f"{WHAT}: n_cols must be an integer in 1..{len(cols)} (the attacked columns), got "
            f"{n_cols!r}")
    rng = rng_of(seed)
    h = hierarchies or {}
    columns_ = [Column(c, original[c], release[c], [control[c]], missing=missing,
                       hierarchy=h.get(c)) for c in cols]
    rel = _Release(columns_, release)
    if mode == "univariate":
        cand = _univariate(columns_, release, rel, missing)
        keep = _unique_new(cand, rel.counts(columns_, cand), set())
        order = rng.permutation(len(keep))[:n_attacks]
        preds = cand.take(np.asarray(keep, dtype=np.int64)[order])
        k_cols = 1
    else:
        preds = _multivariate(columns_, rel, n_attacks, n_cols, max_attempts, rng, missing)
        k_cols = n_cols
    main = _Table(columns_, original)
    ctrl = _Table(columns_, control)
    m_counts = main.counts(columns_, preds)[:, 0]
    c_counts = ctrl.counts(columns_, preds)[:, 0]
    ok, c_ok = m_counts == 1, c_counts == 1
    n = len(preds)
    n_ctrl = float(c_ok.sum())
    notes = []
    if n and len(control) != len(original):
        factor = _size_correction(columns_, ctrl, preds, len(original), rng)
        n_ctrl = min(n_ctrl * factor, float(n))
        notes.append(f"control successes rescaled by {factor:.3f} from {len(control)} to "
                     f"{len(original)} rows")
    if n < n_attacks:
        notes.append(f"the release gave {n} singling-out predicates of the {n_attacks} asked")
    base = _random_preds(columns_, rel, n_attacks, k_cols, rng)
    b_ok = main.counts(columns_, base)[:, 0] == 1
    detail = pd.DataFrame({"original_matches": m_counts.astype(np.int64),
                           "control_matches": c_counts.astype(np.int64), "success": ok})
    return AttackResult(WHAT, rate(ok.sum(), n), rate(n_ctrl, n), rate(b_ok.sum(), n_attacks),
                        n, float(ok.sum()), n_ctrl, n_attacks, level, detail, tuple(notes))


def _unique_new(preds: _Predicates, counts: np.ndarray, seen: set) -> list:
    keep = []
    for i, key in enumerate(preds.keys()):
        if counts[i] == 1 and key not in seen:
            seen.add(key)
            keep.append(i)
    return keep


def _multivariate(columns, rel: _Release, n_attacks, n_cols, max_attempts, rng, missing):
    n_rows = len(rel.full[0])
    ncol = len(columns)
    meds = []
    for full, col in zip(rel.full, columns):
        mid = (full.lo + full.hi) / 2 if col.space == "num" else None
        meds.append(np.nanmedian(mid[np.isfinite(mid)]) if mid is not None
                    and np.isfinite(mid).any() else np.nan)
    limit = 20 * n_attacks if max_attempts is None else int(max_attempts)
    seen, parts, found, tried = set(), [], 0, 0
    batch = max(200, min(n_attacks, 2000))
    while found < n_attacks and tried < limit:
        b = min(batch, limit - tried)
        rows = rng.integers(0, n_rows, size=b)
        chosen = np.zeros((b, ncol), dtype=bool)
        pick = np.argsort(rng.random((b, ncol)), axis=1)[:, :n_cols]
        chosen[np.repeat(np.arange(b), n_cols), pick.reshape(-1)] = True
        cand = _from_rows(columns, rel, rows, chosen, meds, missing)
        keep = _unique_new(cand, rel.counts(columns, cand), seen)[:n_attacks - found]
        if keep:
            parts.append(cand.take(np.asarray(keep, dtype=np.int64)))
            found += len(keep)
        tried += b
    if not parts:
        return _from_rows(columns, rel, np.zeros(0, dtype=np.int64),
                          np.zeros((0, ncol), dtype=bool), meds, missing)
    return _Predicates([_concat([p.cells[j] for p in parts]) for j in range(ncol)])
