"""Primary rules: which cells disclose a contributor, and how wide a range each must keep.

A cell that breaks a rule is *primary*: it is withheld, and the published table must leave an
attacker a range of possible values for it at least as wide as its *protection levels* — the
attacker's upper bound at least ``value + upper``, the lower bound at most ``value - lower``.
The rules and their levels (Hundepool et al., *Statistical Disclosure Control*, 2012, ch. 4;
X is the cell total, x1 >= x2 >= ... its contributions, by row or, with ``contributor=``, by
holder):

* ``min_frequency: n`` — unsafe when ``0 < frequency < n`` (``frequency`` counts rows, or
  holders). For a count, the attacker must not be able to tell the cell from a safe one or
  from an empty one: ``upper = n - f``, ``lower = min(f, n - f)``. For a sum, the levels are
  ``protection`` % of the value (default 10, τ-ARGUS's usual manual level). A cell of one
  contributor is named "one contributor": its holder alone knows it (the ``singletons``
  option of :meth:`~pdanon.tables.Table.protect` guards against that holder).
* ``dominance: (n, k)`` — unsafe when the n largest contributions exceed k % of X; levels
  ``100/k · (x1 + ... + xn) - X`` (the total the n largest would have to hide in).
* ``p_percent: p`` — unsafe when ``X - x1 - x2 < p/100 · x1`` (the second largest contributor
  could estimate the largest within p %); levels ``p/100 · x1 - (X - x1 - x2)``.
* ``pq: (p, q)`` — the prior-posterior rule: unsafe when ``X - x1 - x2 < p/q · x1``; levels
  ``p/q · x1 - (X - x1 - x2)``.
* ``zeros``: ``"safe"`` (default: an empty cell discloses nobody) or ``"primary"`` (every
  empty cell is withheld too, e.g. when "nobody in this group" is itself sensitive).
* ``group: True`` (counts) — *group attribute disclosure* (Hundepool et al. 2012, §5.2): in
  a group of sibling cells (a row's categories, the children of one sub-total) where everyone
  falls in one cell ("all in one": the table says every person of the row has that
  category), or everyone but one person ("all but one": that person learns that all the
  others share the other category), the group's empty cells and its cells of 1 are primary
  with upper level 1 — a reader must not be able to rule out one more person there.

Levels are symmetric (upper = lower) for the magnitude rules, as τ-ARGUS and sdcTable use them;
every primary cell needs at least a range of width 1 for counts (not exactly recomputable).

>>> import pandas as pd
>>> from pdanon.tables.table import build
>>> t = build(pd.DataFrame({"g": list("aab")}), index="g")
>>> primary(t, {"min_frequency": 2})[["status", "rule", "lower", "upper"]].values.tolist()
[['safe', '', 0.0, 0.0], ['primary', 'min_frequency (one contributor)', 1.0, 1.0], ['safe', '', 0.0, 0.0]]
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.keywords import did_you_mean
from pdanon.tables.structure import below, sibling_groups

__all__ = ["RULES", "check_rules", "primary"]

RULES = ("min_frequency", "dominance", "p_percent", "pq", "zeros", "group", "protection")


def _number(value, name: str, lo: float, hi: float, *, closed_lo: bool, closed_hi: bool):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise InvalidInputError(f"rule {name}: expected a number, got {value!r}")
    ok = (value >= lo if closed_lo else value > lo) and (value <= hi if closed_hi else value < hi)
    if not ok:
        left, right = "[" if closed_lo else "(", "]" if closed_hi else ")"
        raise InvalidInputError(f"rule {name}={value!r} is outside {left}{lo}, {hi}{right}; "
                                f"give a value in that range (a percentage)")
    return float(value)


def _pairs(value, name: str) -> list[tuple]:
    if isinstance(value, tuple) and len(value) == 2 and all(
            isinstance(v, numbers.Real) for v in value):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, tuple) and len(v) == 2 for v in value):
        return list(value)
    raise InvalidInputError(
        f"rule {name} expects a pair like (1, 80), or a list of pairs; got {value!r}")


def check_rules(rules, *, is_count: bool) -> dict:
    """Validate ``rules`` (a dict) before any work; returns them normalized."""
    if rules is None:
        rules = {"min_frequency": 3}
    if not isinstance(rules, dict):
        raise InvalidInputError(
            f"rules must be a dict such as {{'min_frequency': 3, 'p_percent': 10}}, got "
            f"{type(rules).__name__}")
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        said = "; ".join(f"{u!r}{did_you_mean(u, RULES)}" for u in unknown)
        raise InvalidInputError(f"unknown table rules: {said}; the rules are {RULES}")
    out: dict = {}
    if "min_frequency" in rules:
        n = rules["min_frequency"]
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise InvalidInputError(f"rule min_frequency={n!r} must be an integer >= 1")
        out["min_frequency"] = int(n)
    magnitude = [r for r in ("dominance", "p_percent", "pq") if r in rules]
    if magnitude and is_count:
        raise InvalidInputError(
            f"rule {magnitude[0]} reads contributions to a sum; this is a count table "
            f"(build it with values=..., aggfunc='sum'), or use min_frequency")
    if "dominance" in rules:
        pairs = []
        for n, k in _pairs(rules["dominance"], "dominance"):
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                raise InvalidInputError(f"rule dominance: n={n!r} must be an integer >= 1")
            pairs.append((int(n), _number(k, "dominance k", 0, 100, closed_lo=False,
                                          closed_hi=True)))
        out["dominance"] = pairs
    if "p_percent" in rules:
        out["p_percent"] = _number(rules["p_percent"], "p_percent", 0, 100, closed_lo=False,
                                   closed_hi=False)
    if "pq" in rules:
        (p, q), = _pairs(rules["pq"], "pq")[:1]
        p = _number(p, "pq p", 0, 100, closed_lo=False, closed_hi=False)
        q = _number(q, "pq q", 0, 100, closed_lo=False, closed_hi=True)
        if p >= q:
            raise InvalidInputError(f"rule pq=({p:g}, {q:g}): p must be smaller than q")
        out["pq"] = (p, q)
    zeros = rules.get("zeros", "safe")
    if zeros not in ("safe", "primary"):
        raise InvalidInputError(f"rule zeros={zeros!r} must be 'safe' or 'primary'")
    out["zeros"] = zeros
    group = rules.get("group", False)
    if not isinstance(group, (bool, np.bool_)):
        raise InvalidInputError(f"rule group={group!r} must be True or False")
    if group and not is_count:
        raise InvalidInputError(
            "rule group reads how people split over a count's categories; this is a sum "
            "(build the count with aggfunc='count' to protect groups, or use min_frequency)")
    out["group"] = bool(group)
    out["protection"] = _number(rules.get("protection", 10.0), "protection", 0, 100,
                                closed_lo=False, closed_hi=True)
    if not any(r in out for r in ("min_frequency", "dominance", "p_percent", "pq")) \
            and zeros == "safe" and not out["group"]:
        raise InvalidInputError("rules name no primary rule: give min_frequency, dominance, "
                                "p_percent, pq or group")
    return out


def primary(table, rules=None) -> pd.DataFrame:
    """Per cell of ``table``: ``status`` ("primary" or "safe"), the ``rule`` that made it
    unsafe (the first that applies, in the order frequency, dominance, p %, pq, zeros), and
    the protection levels ``lower`` and ``upper`` (the largest any broken rule asks)."""
    rules = check_rules(rules, is_count=table.is_count)
    cells = table.cells
    x = cells["value"].to_numpy(dtype=np.float64)
    f = cells["frequency"].to_numpy(dtype=np.int64)
    n = len(cells)
    rule = np.full(n, "", dtype=object)
    lower = np.zeros(n)
    upper = np.zeros(n)

    def mark(unsafe, name, lo, hi):
        fresh = unsafe & (rule == "")
        rule[fresh] = name if isinstance(name, str) else name[fresh]
        lower[unsafe] = np.maximum(lower[unsafe], np.asarray(lo, dtype=float)[unsafe]
                                   if np.ndim(lo) else lo)
        upper[unsafe] = np.maximum(upper[unsafe], np.asarray(hi, dtype=float)[unsafe]
                                   if np.ndim(hi) else hi)

    if "min_frequency" in rules:
        m = rules["min_frequency"]
        unsafe = (f > 0) & (f < m)
        names = np.where(f == 1, "min_frequency (one contributor)", "min_frequency")
        if table.is_count:
            mark(unsafe, names, np.minimum(f, m - f), m - f)
        else:
            lvl = rules["protection"] / 100 * x
            mark(unsafe, names, lvl, lvl)
    need = max([nn for nn, _ in rules.get("dominance", [])] + [2]) \
        if any(r in rules for r in ("dominance", "p_percent", "pq")) else 0
    if need:
        top = table.largest(need)
        for nn, k in rules.get("dominance", []):
            s = top[:, :nn].sum(axis=1)
            unsafe = (x > 0) & (s > k / 100 * x)
            lvl = 100 / k * s - x
            mark(unsafe, f"dominance ({nn}, {k:g})", lvl, lvl)
        rest = x - top[:, 0] - top[:, 1]
        if "p_percent" in rules:
            p = rules["p_percent"]
            lvl = p / 100 * top[:, 0] - rest
            mark((x > 0) & (lvl > 0), f"p_percent ({p:g})", lvl, lvl)
        if "pq" in rules:
            p, q = rules["pq"]
            lvl = p / q * top[:, 0] - rest
            mark((x > 0) & (lvl > 0), f"pq ({p:g}, {q:g})", lvl, lvl)
    if rules["zeros"] == "primary":
        mark(f == 0, "zeros", 0.0, 1.0 if table.is_count else 0.0)
    if rules["group"]:
        all_in, but_one = _group_disclosure(table, f)
        mark(all_in, "group (all in one)", 0.0, 1.0)
        mark(but_one, "group (all but one)", 0.0, 1.0)
    unsafe = rule != ""
    if table.is_count:  # a count is an integer: at least a range of width 1
        upper[unsafe] = np.maximum(np.ceil(upper[unsafe] - 1e-9), 1.0) \
            if unsafe.any() else upper[unsafe]
        lower[unsafe] = np.minimum(np.ceil(lower[unsafe] - 1e-9), x[unsafe]) + 0.0
        lower[unsafe & (upper == 0)] = 0
    _attainable(table, unsafe, rule, lower, x)
    return pd.DataFrame({"status": np.where(unsafe, "primary", "safe"), "rule": rule,
                         "lower": lower, "upper": upper}, index=cells.index)


def _group_disclosure(table, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells the ``group`` rule makes primary: the empty cells of every sibling group
    whose people all fall in one cell, and the empty cells and cells of 1 of every group whose
    people all but one fall in one cell (its other non-empty cell holds that one person).

    An empty cell inside an empty sub-total that is not flagged itself (a category nobody
    has, in any row) says nothing about its row's people that the published sub-total does
    not say of everyone; it is not flagged (and could not be protected: the sub-total pins
    it). The empty cells *below* a flagged one may be chosen as secondaries
    (:func:`pdanon.tables.suppress.closed_cells`): a flagged sub-total can only move if one
    of its parts does."""
    g = sibling_groups(table.dims).astype(np.int64)
    occupied = g @ (f > 0).astype(np.int64)
    ones = g @ (f == 1).astype(np.int64)
    all_in = occupied == 1
    but_one = (occupied == 2) & (ones >= 1)
    in_all_in = (g.T @ all_in.astype(np.int64)) > 0
    in_but_one = (g.T @ but_one.astype(np.int64)) > 0
    flagged = (in_all_in | in_but_one) & (f == 0)
    pinned = below(table.constraints, (f == 0) & ~flagged)
    return in_all_in & (f == 0) & ~pinned, in_but_one & (f <= 1) & ~pinned


def _attainable(table, unsafe, rule, lower, x) -> None:
    """Refuse levels no pattern can give, before any work: the attacker's range never
    reaches below zero (no cell is negative), so a cell whose lower protection level exceeds
    its value is unprotectable whatever is withheld. Only an (n, k)-dominance rule with
    k < 50 asks for that (its level is 100/k * (x1 + ... + xn) - X, up to (100/k - 1) X)."""
    bad = np.flatnonzero(unsafe & (lower > x + 1e-9 * np.maximum(1.0, np.abs(x))))
    if not len(bad):
        return
    dims = table.dimensions
    named = "; ".join(
        "(" + ", ".join(f"{d}={table.cells[d].iloc[i]!r}" for d in dims) + f") by {rule[i]}"
        for i in bad[:5])
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    raise InvalidInputError(
        f"no suppression pattern can protect {len(bad)} cells: {named}{more}: their lower "
        f"protection level exceeds their value, so the attacker's range would have to reach "
        f"below zero; use k >= 50 in the dominance rule (e.g. dominance=(1, 75)) or the "
        f"p_percent rule")
