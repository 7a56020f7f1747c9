"""Privacy / utility trade-off figures (matplotlib, the optional ``plot`` extra).

:func:`tradeoff` anonymizes a frame for a series of privacy parameters (k, or l, or t) and
draws the information loss and the rows suppressed against the parameter, as the k/l/t
tutorial suggests; :func:`information_loss` is the loss measure it plots.

matplotlib is imported only when a figure is drawn (``pip install "pdanon[plot]"``).

Example
-------
>>> import pdanon
>>> from pdanon.hierarchy import intervals, masking
>>> df = pdanon.datasets.make_patients(300, seed=0)
>>> fig, table = tradeoff(df, k=[2, 5], hierarchies={"age": intervals([10, 20]),
...                       "zipcode": masking()}, max_suppressed_rows=0.05,
...                       quasi_identifiers=["zipcode", "age"], sensitive=["disease"])
>>> table.columns.tolist()
['k', 'information_loss', 'suppressed_rows', 'suppressed_fraction', 'classes', 'seconds']
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["tradeoff", "tradeoff_table", "information_loss"]


def information_loss(original: pd.DataFrame, anonymized: pd.DataFrame, quasi_identifiers=None,
                     *, kinds=None) -> float:
    """Generalized information loss (Iyengar 2002; ARX's "Loss") averaged over all
    quasi-identifier cells, in [0, 1]:

    * a plain (unchanged) cell costs 0, a missing (suppressed) cell 1, any other plain
      replacement (hierarchy labels as text, aggregates) 1;
    * real: a range ``[lo, hi]`` costs ``(hi − lo) / (max − min)`` of the original column
      (capped at 1);
    * ordered and unordered: a range or set holding ``m`` of the column's ``M`` distinct
      original values costs ``(m − 1) / (M − 1)``.

    This is the ``objective="loss"`` that ``algorithm="optimal"`` minimizes, measured on any
    output. ``quasi_identifiers`` default to the roles remembered by ``anonymized``.

    Example
    -------
    >>> import pandas as pd, pdanon
    >>> df = pd.DataFrame({"age": [20, 30, 40, 50]})
    >>> out = df.anon.k_anonymize(2, algorithm="nearest")
    >>> information_loss(df, out, ["age"])  # [20, 30] and [40, 50]: 10/30 per cell
    0.3333333333333333
    """
    from pdanon.dtype import GeneralizationDtype
    from pdanon.roles import infer_kind

    if quasi_identifiers is None:
        quasi_identifiers = anonymized.anon.roles().qi
    qis = list(quasi_identifiers)
    if not qis:
        raise InvalidInputError("information_loss needs at least one quasi-identifier column")
    kinds = dict(kinds or {})
    roles = anonymized.anon.roles()
    n = len(anonymized)
    if n == 0:
        return 0.0
    if len(original) != n:
        raise InvalidInputError(
            f"original has {len(original)} rows, anonymized {n}: pass the frame that was "
            f"anonymized (same rows, same order)")
    total = 0.0
    for c in qis:
        orig = original[c]
        anon = anonymized[c]
        kind = kinds.get(c) or roles.quasi_identifiers.get(c) or infer_kind(orig)
        na = anon.isna().to_numpy()
        cost = np.zeros(n)
        if isinstance(anon.dtype, GeneralizationDtype):
            arr = anon.array
            if kind == "unordered":
                offsets, members = arr.members()  # sparse: no rows x categories matrix
                used = pd.Index(pd.unique(orig.dropna()))
                present = arr.categories.isin(used)
                m = np.bincount(np.repeat(np.arange(len(arr)), np.diff(offsets)),
                                weights=present[members], minlength=len(arr))
                M = len(used)
                cost = np.where(m > 1, (m - 1) / max(M - 1, 1), 0.0)
            elif kind == "real" or arr.categories is None:
                lo = np.asarray(arr.lo, dtype=np.float64)
                hi = np.asarray(arr.hi, dtype=np.float64)
                x = orig.to_numpy(dtype=np.float64, na_value=np.nan)
                if kind == "real":
                    span = float(np.nanmax(x) - np.nanmin(x)) if len(x) else 0.0
                    cost = np.clip((hi - lo) / span, 0, 1) if span > 0 else np.zeros(n)
                else:
                    values = np.unique(x[~np.isnan(x)])
                    m = np.searchsorted(values, hi, "right") - np.searchsorted(values, lo, "left")
                    cost = np.where(m > 1, (m - 1) / max(len(values) - 1, 1), 0.0)
            else:
                cats = arr.categories
                used = cats.isin(pd.unique(orig.dropna()))
                cum = np.concatenate(([0], np.cumsum(used)))
                lo = np.nan_to_num(np.asarray(arr.lo, dtype=np.float64)).astype(np.int64)
                hi = np.nan_to_num(np.asarray(arr.hi, dtype=np.float64)).astype(np.int64)
                m = cum[hi + 1] - cum[lo]
                cost = np.where(m > 1, (m - 1) / max(int(used.sum()) - 1, 1), 0.0)
            cost = np.nan_to_num(cost, nan=0.0)
        else:
            # plain values: unchanged cells cost 0; any other replacement (hierarchy labels
            # such as "20-29", aggregates) is counted as fully lost
            # (missing cells compared apart: pd.NA == x is neither True nor False)
            both = ~(na | orig.isna().to_numpy())
            same = np.zeros(n, dtype=bool)
            same[both] = np.asarray(anon.to_numpy(dtype=object)[both]
                                    == orig.to_numpy(dtype=object)[both], dtype=bool)
            cost = np.where(same, 0.0, 1.0)
        cost = np.where(na, 1.0, cost)
        total += float(cost.sum())
    return total / (n * len(qis))


def tradeoff(df: pd.DataFrame, k: Sequence[int] | None = (2, 5, 10, 20, 50), *,
             l: Sequence | None = None, t: Sequence | None = None, algorithm: str = "optimal",
             hierarchies=None, method: str = "generalize", max_suppressed_rows=None,
             objective: str | None = None, options: dict | None = None, ax=None,
             **roles):
    """Anonymize ``df`` for each privacy parameter and plot information loss and suppressed
    rows against it.

    Parameters
    ----------
    k : list of int
        The k values to try (the default series). With a list of ``l=`` or ``t=`` values, a
        single int ``k`` is also required of every class (default 1).
    l : list or number, optional
        A list: vary distinct l-diversity instead (:meth:`df.anon.l_diversify`). One number
        with a list of ``k``: vary k, every candidate also l-diverse.
    t : list or number, optional
        The same for t-closeness (:meth:`df.anon.t_close`).
    algorithm, hierarchies, method, max_suppressed_rows, objective, options
        Passed to the anonymizer (``algorithm="optimal"`` needs ``hierarchies``).
    ax : matplotlib Axes, optional
        Draw into this axes (a second y axis is added for suppressed rows); a new figure
        otherwise.
    **roles
        Role keywords.

    Returns ``(figure, table)``: the matplotlib figure and a DataFrame with one row per
    parameter value: ``information_loss`` (:func:`information_loss`), ``suppressed_rows``,
    ``suppressed_fraction``, ``classes`` and ``seconds``. A parameter that cannot be met gives
    NaN figures (and is marked with an ``x`` in the figure).
    """
    table = tradeoff_table(df, k, l=l, t=t, algorithm=algorithm, hierarchies=hierarchies,
                           method=method, max_suppressed_rows=max_suppressed_rows,
                           objective=objective, options=options, **roles)
    fig = _draw(table, table.columns[0], algorithm, ax)
    return fig, table


def tradeoff_table(df: pd.DataFrame, k: Sequence[int] | None = (2, 5, 10, 20, 50), *,
                   l: Sequence | None = None, t: Sequence | None = None,
                   algorithm: str = "optimal", hierarchies=None, method: str = "generalize",
                   max_suppressed_rows=None, objective: str | None = None,
                   options: dict | None = None, **roles) -> pd.DataFrame:
    """The table of :func:`tradeoff` without the figure (no matplotlib needed): one row per
    parameter value tried, for :func:`pdanon.report.build_report`'s ``tradeoff=``. A single
    ``l`` or ``t`` with a list of ``k`` varies k, each candidate also l-diverse (t-close).

    Example
    -------
    >>> import pdanon
    >>> df = pdanon.datasets.make_patients(100, seed=0)
    >>> tradeoff_table(df, k=[2, 5], algorithm="mondrian", quasi_identifiers=["age"])["k"].tolist()
    [2, 5]
    >>> tradeoff_table(df, k=[2, 5], l=2, algorithm="mondrian", quasi_identifiers=["age"],
    ...                sensitive=["disease"])["k"].tolist()
    [2, 5]
    """
    if l is not None and t is not None:
        raise InvalidInputError("pass either l=[...] or t=[...], not both")
    listed = (list, tuple, range, np.ndarray, pd.Series)
    fixed = l if l is not None else t  # a single l or t required of every k tried
    if fixed is not None and not isinstance(fixed, listed) and isinstance(k, listed):
        name, values, k_fixed = "k", list(k), None
        fixed_name = "l" if l is not None else "t"
    elif l is not None or t is not None:
        name, fixed_name = ("l" if l is not None else "t"), None
        values = list(fixed) if isinstance(fixed, listed) else [fixed]
        if k is None or isinstance(k, listed):
            k_fixed = 1
        else:
            k_fixed = int(k)
    else:
        fixed_name = None
        name = "k"
        if k is None:
            raise InvalidInputError("pass k=[...], l=[...] or t=[...]")
        values = [k] if isinstance(k, (int, np.integer)) else list(k)
        k_fixed = None
    if not values:
        raise InvalidInputError(f"{name}= needs at least one value")
    kw = dict(algorithm=algorithm, method=method, max_suppressed_rows=max_suppressed_rows,
              options=options, **roles)
    if hierarchies is not None:
        kw["hierarchies"] = hierarchies
    if objective is not None:
        kw["objective"] = objective
    qis = df.anon.roles(**_role_keywords(roles)).qi
    rows = []
    from pdanon._errors import InfeasibleError

    for v in values:
        started = time.perf_counter()
        try:
            if name == "k" and fixed_name == "l":
                out = df.anon.l_diversify(fixed, k=v, **kw)
            elif name == "k" and fixed_name == "t":
                out = df.anon.t_close(fixed, k=v, **kw)
            elif name == "k":
                out = df.anon.k_anonymize(v, **kw)
            elif name == "l":
                out = df.anon.l_diversify(v, k=k_fixed, **kw)
            else:
                out = df.anon.t_close(v, k=k_fixed, **kw)
        except InfeasibleError:
            rows.append({name: v, "information_loss": np.nan, "suppressed_rows": np.nan,
                         "suppressed_fraction": np.nan, "classes": np.nan,
                         "seconds": time.perf_counter() - started})
            continue
        seconds = time.perf_counter() - started
        info = out.anon.info
        suppressed = int(info.get("suppressed_rows", 0))
        rows.append({
            name: v,
            "information_loss": information_loss(df, out, qis),
            "suppressed_rows": suppressed,
            "suppressed_fraction": suppressed / len(df) if len(df) else 0.0,
            "classes": int(info.get("groups", 0)),
            "seconds": seconds,
        })
    return pd.DataFrame(rows)


def _role_keywords(roles: dict) -> dict:
    keys = ("identifiers", "quasi_identifiers", "sensitive", "insensitive")
    return {k: roles[k] for k in keys if k in roles}


def _draw(table: pd.DataFrame, name: str, algorithm: str, ax=None):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "pdanon.plot needs matplotlib: pip install 'pdanon[plot]' (or matplotlib)"
        ) from exc
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.2), constrained_layout=True)
    else:
        fig = ax.figure
    x = np.arange(len(table))
    labels = [f"{v:g}" if isinstance(v, float) else str(v) for v in table[name]]
    loss_color, supp_color = "#1f5fa8", "#c0502b"
    ax.plot(x, table["information_loss"], marker="o", color=loss_color, lw=2,
            label="information loss")
    ax.set_ylabel("information loss (0 = none, 1 = all)", color=loss_color)
    ax.tick_params(axis="y", colors=loss_color)
    top = np.nanmax(table["information_loss"].to_numpy(dtype=float), initial=0.0)
    ax.set_ylim(0, max(0.05, min(1.0, top * 1.15 + 0.02)))
    ax.set_xticks(x, labels)
    ax.set_xlabel({"k": "k (smallest class size)", "l": "l (distinct sensitive values per class)",
                   "t": "t (largest distance to the overall distribution)"}[name])
    ax.grid(True, axis="y", alpha=0.3)
    ax2 = ax.twinx()
    pct = 100 * table["suppressed_fraction"].to_numpy(dtype=float)
    ax2.bar(x, pct, width=0.35, color=supp_color, alpha=0.35, label="rows suppressed")
    ax2.set_ylabel("rows suppressed (%)", color=supp_color)
    ax2.tick_params(axis="y", colors=supp_color)
    ax2.set_ylim(0, max(1.0, np.nanmax(pct, initial=0.0) * 1.6))
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    failed = table["information_loss"].isna().to_numpy()
    if failed.any():
        ax.plot(x[failed], np.zeros(failed.sum()), "x", color="black", ms=9,
                label="not reachable")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", frameon=False)
    ax.set_title(f"Privacy vs. information loss ({algorithm})")
    return fig
