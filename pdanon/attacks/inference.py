"""Inference: can a person's secret be guessed from the release, given some of their columns?

The attacker knows a target's auxiliary columns (``aux_cols``) and looks up the release rows
nearest to them (those whose cells contain the values; else the nearest by Gower's distance,
:mod:`pdanon.attacks._columns`). Its guess of the ``secret``: the most frequent secret among
those rows for categories (ties at random); for numbers, the median of the rows' secrets (a
published range counts as its midpoint). Success: the guess equals the target's secret
(categories: a published set shares its row's vote among its members; missing equals
missing) or lies within ``tolerance`` × |secret| of it (numbers).
Targets come from the original (main) and the control; the naive attacker guesses the secret of
a random release row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import KindError
from pdanon.attacks import _checks
from pdanon.attacks._columns import Column
from pdanon.attacks._match import Side, matches
from pdanon.attacks._result import LEVEL, AttackResult, rate, rng_of

WHAT = "inference"


def _secret_values(col: Column, release: pd.Series):
    """The secret of every release row: a number (``num``: a range's midpoint; ``pos``: the
    middle category's position) or, for categories, its members as CSR ``(offsets, keys)``
    (a plain value has one; a set several, each worth an equal share of the row's vote; a
    wildcard none)."""
    cells = col.release_cells(release)
    if col.space == "num":
        return np.where(cells.na | cells.wild, np.nan, (cells.lo + cells.hi) / 2)
    if col.space == "pos":  # a range of categories: each of them a member
        lo = np.where(cells.na, col.missing_key, np.nan_to_num(cells.lo)).astype(np.int64)
        hi = np.where(cells.na, col.missing_key, np.nan_to_num(cells.hi)).astype(np.int64)
        lo = lo + (cells.olo & ~cells.na)
        hi = hi - (cells.ohi & ~cells.na)
        lens = np.where(cells.wild, 0, np.maximum(hi - lo + 1, 0))
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        start = np.repeat(lo - offsets[:-1], lens)
        return offsets, start + np.arange(int(offsets[-1]))
    n = len(cells)
    if cells.offsets is None:
        lens = (~cells.wild).astype(np.int64)
        return np.concatenate([[0], np.cumsum(lens)]), cells.key[~cells.wild]
    lens = np.where(cells.key >= 0, 1, np.diff(cells.offsets))
    lens = np.where(cells.wild, 0, lens)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    members = np.empty(int(offsets[-1]), dtype=np.int64)
    plain = (cells.key >= 0) & ~cells.wild
    members[offsets[:-1][plain]] = cells.key[plain]
    sets = np.flatnonzero((cells.key < 0) & ~cells.wild)
    if len(sets):
        src = np.concatenate([np.arange(cells.offsets[i], cells.offsets[i + 1]) for i in sets])
        dst = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in sets])
        members[dst] = cells.members[src]
    del n
    return offsets, members


def _vote(t, r, secret, n_targets, rng, numeric):
    """Per target, the guess from its matched rows: the median (numbers) or the category
    with the most votes (a row's vote shared among its cell's members; ties at random)."""
    guess = np.full(n_targets, np.nan)
    if not len(t):
        return guess
    if numeric:
        s = secret[r]
        keep = ~np.isnan(s)
        t, s = t[keep], s[keep]
        order = np.lexsort((s, t))
        t, s = t[order], s[order]
        counts = np.bincount(t, minlength=n_targets)
        start = np.cumsum(counts) - counts
        have = counts > 0
        lo = start + (counts - 1) // 2
        hi = start + counts // 2
        guess[have] = (s[lo[have]] + s[hi[have]]) / 2
        return guess
    offsets, members = secret
    lens = np.diff(offsets)[r]
    tt = np.repeat(t, lens)
    at = np.repeat(offsets[:-1][r] - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    mm = members[at + np.arange(int(lens.sum()))]
    if not len(tt):
        return guess
    width = int(members.max()) + 1
    uniq, inv = np.unique(tt * width + mm, return_inverse=True)
    score = np.bincount(inv.reshape(-1), weights=np.repeat(1.0 / lens, lens))
    score = score + rng.random(len(score)) * 1e-9  # ties at random
    ut = uniq // width
    order = np.lexsort((-score, ut))
    first = np.ones(len(order), dtype=bool)
    first[1:] = ut[order[1:]] != ut[order[:-1]]
    best = order[first]
    guess[ut[best]] = uniq[best] % width
    return guess


def _truth(col: Column, values: pd.Series) -> np.ndarray:
    """Targets' secrets as floats: numbers, or category keys (NaN for missing)."""
    v = col.values(values).astype(np.float64)
    return np.where(v == col.missing_key, np.nan, v) if col.space == "cat" else v


def _fix(guess: np.ndarray, col: Column) -> np.ndarray:
    """A guess of the missing key is a guess of "missing" (NaN)."""
    return guess if col.space == "num" else np.where(guess == col.missing_key, np.nan, guess)


def _as_values(guess: np.ndarray, col: Column):
    """Guesses as the secret's values (numbers stay numbers; a category key its category;
    no guess or "missing": None)."""
    if col.space == "num":
        return guess
    have = ~np.isnan(guess)
    out = np.full(len(guess), None, dtype=object)
    out[have] = np.asarray(col.categories, dtype=object)[guess[have].astype(np.int64)]
    return out


def _hits(guess, truth, numeric, tolerance):
    both_na = np.isnan(guess) & np.isnan(truth)
    if numeric:
        with np.errstate(invalid="ignore"):
            close = np.abs(guess - truth) <= tolerance * np.abs(truth)
        return both_na | (close & ~np.isnan(guess))
    return both_na | (guess == truth)


def inference(release: pd.DataFrame, original: pd.DataFrame, *, control: pd.DataFrame,
              aux_cols, secret, n_attacks: int | None = None, tolerance: float = 0.05,
              seed=None, level: float = LEVEL, missing: str = "value",
              hierarchies=None) -> AttackResult:
    """Inference risk of ``secret`` in ``release`` for records of ``original`` given their
    ``aux_cols`` (see the module docstring and docs/attacks.md).

    ``tolerance``: a numeric guess succeeds within ``tolerance × |secret|``; ``n_attacks``:
    targets drawn from the original and the control (default ``min(2000, rows)``); ``seed``:
    for tests (else a CSPRNG); ``missing="wildcard"``: a missing release cell contains every
    value; ``hierarchies``: ``{column: hierarchy}`` to read published hierarchy labels.
    ``detail``: per main target, its row in ``original``, ``guess`` (the secret's value it
    guessed), ``matches`` (rows at the least
    distance), ``distance`` and ``success``.

    Example
    -------
    >>> original = pd.DataFrame({"zip": list("abcdefghij") * 2, "sick": [0, 1] * 10})
    >>> control = pd.DataFrame({"zip": list("abcdefghij") * 2, "sick": [1, 0] * 10})
    >>> r = inference(original, original, control=control, aux_cols=["zip"], secret="sick",
    ...               seed=0)
    >>> r.main_rate, r.control_rate, r.risk
    (1.0, 0.0, 1.0)
    """
    if isinstance(secret, (list, tuple)):
        raise _checks.InvalidInputError(f"{WHAT}: secret names one column, got {secret!r}")
    aux = _checks.aux_secret(aux_cols, secret, what=WHAT)
    _checks.check_frames(release, original, control, aux + [secret], what=WHAT)
    missing = _checks.check_missing(missing)
    level = _checks.check_level(level)
    if not (isinstance(tolerance, (int, float)) and tolerance >= 0):
        raise _checks.InvalidInputError(f"{WHAT}: tolerance must be a number >= 0, got "
                                        f"{tolerance!r}")
    rng = rng_of(seed)
    n, main_t, ctrl_t = _checks.draw_targets(n_attacks, original, control, rng, what=WHAT)
    scol = Column(secret, original[secret], release[secret], [control[secret]],
                  hierarchy=(hierarchies or {}).get(secret))
    numeric = scol.space == "num"
    svals = _secret_values(scol, release[secret])
    side = Side(release, original, control, aux, missing, hierarchies)
    out = {}
    for name, df, rows in (("main", original, main_t), ("control", control, ctrl_t)):
        t, r, dist = matches(side, side.values(df, rows))
        guess = _fix(_vote(t, r, svals, n, rng, numeric), scol)
        truth = _truth(scol, df[secret].iloc[rows])
        out[name] = (_hits(guess, truth, numeric, tolerance), guess,
                     np.bincount(t, minlength=n), dist)
    pick = rng.integers(0, len(release), size=n)
    base_guess = svals[pick] if numeric else _vote(
        np.arange(n), pick, svals, n, rng, False)
    truth = _truth(scol, original[secret].iloc[main_t])
    base_guess = _fix(base_guess, scol)
    base_ok = _hits(base_guess, truth, numeric, tolerance)
    ok, guess, count, dist = out["main"]
    ctrl_ok = out["control"][0]
    detail = pd.DataFrame({"target": main_t, "guess": _as_values(guess, scol), "matches": count,
                           "distance": dist, "success": ok})
    return AttackResult(WHAT, rate(ok.sum(), n), rate(ctrl_ok.sum(), n), rate(base_ok.sum(), n),
                        n, float(ok.sum()), float(ctrl_ok.sum()), n, level, detail)
