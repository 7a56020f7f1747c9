"""How each quasi-identifier was published, its information loss, and the rows published with
blank quasi-identifier cells.

Everything here works on whole columns with numpy (no loop over cells), and every width, span
and domain is the *published* one: a range's width is compared with the span of the published
column (its lowest published bound to its highest), a set's size with the categories the
release publishes. The original's span would include the rows the release withholds, and with
the published widths it gives a withheld value back (an outlier's age from the span and the
lowest band). The original is used for one thing only: which plain cells differ from it (a
count). The blank-cells summary is the release's own: it never tells a cell the method blanked
from one that was missing from the start.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
>>> out = df.anon.k_anonymize(2, algorithm="mondrian")
>>> facts = column_facts(out, df, {"age": "real"}, out.anon.info)[0]
>>> facts["mean_width"], facts["relative_width"]     # ranges [30, 40], [40, 50] of 30..50
(10.0, 0.5)
>>> round(published_loss(out, df, {"age": "real"}), 12)  # (10 + 10 + 10 + 10) / 20 / 4 rows
0.5
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.metrics.published_loss import cell_loss, extents, published_loss

__all__ = ["BLANK_RULE", "SHOWN_LABELS", "cell_loss", "column_facts", "extents",
           "published_loss", "suppressed_rows"]

#: index labels the HTML page lists per reason (the JSON and the object hold all)
SHOWN_LABELS = 200
#: what the blank-cells summary says of every blank cell
BLANK_RULE = ("A blank cell is one the method withheld or one that was missing in the input: "
              "the release does not tell them apart, and neither does this report")


def _width_facts(s: pd.Series) -> dict:
    """Generalized cells, mean width and its unit, and the width relative to the published
    span (real ranges) of a published column."""
    out = {"generalized_cells": 0, "mean_width": None, "width_unit": ""}
    found = extents(s)
    if found is None:
        return out
    arr = s.array
    present = ~np.asarray(arr.isna(), dtype=bool)
    out["generalized_cells"] = int((~np.asarray(arr.is_plain, dtype=bool) & present).sum())
    extent, unit, domain = found
    if not present.any():
        return out
    width = float(np.mean(extent[present]))
    out.update(mean_width=width, width_unit=unit)
    if unit in ("units", "days"):
        out["relative_width"] = width / domain if domain > 0 else None
    return out


def column_facts(anonymized: pd.DataFrame, original: pd.DataFrame | None, qis: dict,
                 info: dict) -> list:
    """One dict per quasi-identifier: kind, published dtype, distinct published values,
    changed / generalized / suppressed cells (shares of the rows), mean width of its ranges
    or sets and, for real ranges, that width relative to the published span, and the
    hierarchy level when one was applied."""
    from pdanon.metrics import _cells

    n = len(anonymized)
    levels, heights = info.get("levels") or {}, info.get("heights") or {}
    out = []
    for c, kind in qis.items():
        s = anonymized[c]
        na = s.isna().to_numpy()
        orig = None if original is None else original[c]
        widths = _width_facts(s)
        row = {"column": str(c), "kind": kind, "published_dtype": str(s.dtype),
               "distinct_published": int(s.nunique(dropna=True)),
               "generalized_cells": widths["generalized_cells"],
               "mean_width": widths["mean_width"], "width_unit": widths["width_unit"],
               "level": levels.get(c), "height": heights.get(c)}
        if "relative_width" in widths:
            row["relative_width"] = widths["relative_width"]
        row["blank_cells"] = int(na.sum())
        if orig is not None:
            row["suppressed_cells"] = int((na & ~orig.isna().to_numpy()).sum())
            row["changed_cells"] = int((~_cells.equal_cells(orig, s, kind)).sum())
        else:
            row["suppressed_cells"] = int(na.sum())
            row["changed_cells"] = None
        for key in ("changed_cells", "generalized_cells", "suppressed_cells"):
            v = row[key]
            row[key.replace("_cells", "_share")] = v / n if v is not None and n else None
        out.append(row)
    return out


def _label(v):
    if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
        return int(v)
    return str(v)


SUMMARY_COLUMNS = ["reason", "rows", "blank", "columns", "index"]


def suppressed_rows(anonymized: pd.DataFrame, qis: dict, info: dict) -> tuple:
    """``(summary, mask)`` of the rows published with blank quasi-identifier cells, from the
    release alone: one row per *reason* the method blanks cells (from ``info``): rows whose
    every quasi-identifier is blank first, then rows with some blank. Each holds its number of
    ``rows``, ``blank`` ("every quasi-identifier" or "some quasi-identifiers"), the
    ``columns`` blank in at least one of them (in the release's column order) and the
    ``index`` labels of all its rows. ``mask`` marks the rows whose every quasi-identifier is
    blank. The summary grows with the reasons (two at most), never with the rows.

    Example
    -------
    >>> out = pd.DataFrame({"a": [1, None, None, 4], "b": [None, None, 3, 4]})
    >>> summary, whole = suppressed_rows(out, {"a": "real", "b": "real"}, {})
    >>> summary[["blank", "rows", "columns", "index"]].values.tolist()
    [['every quasi-identifier', 1, ['a', 'b'], [1]], ['some quasi-identifiers', 2, ['a', 'b'], [0, 2]]]
    >>> whole.tolist()
    [False, True, False, False]
    """
    cols = list(qis)
    n = len(anonymized)
    if not cols or n == 0:
        return pd.DataFrame(columns=SUMMARY_COLUMNS), np.zeros(n, dtype=bool)
    blank = anonymized[cols].isna().to_numpy()
    whole = blank.all(axis=1)
    some = blank.any(axis=1) & ~whole
    names = [str(c) for c in cols]
    table = {name: [] for name in SUMMARY_COLUMNS}
    for rows, word, reason in ((whole, "every quasi-identifier", row_reason(info)),
                               (some, "some quasi-identifiers", cell_reason_of(info))):
        if not rows.any():
            continue
        involved = blank[rows].any(axis=0)
        table["reason"].append(reason)
        table["rows"].append(int(rows.sum()))
        table["blank"].append(word)
        table["columns"].append([name for name, hit in zip(names, involved) if hit])
        table["index"].append([_label(v) for v in anonymized.index[rows]])
    return pd.DataFrame(table, columns=SUMMARY_COLUMNS), whole


def row_reason(info: dict) -> str:
    """Why the method publishes a row with every quasi-identifier blank, in the words of what
    ``info`` recorded (a rule of the method, never a fact about one row)."""
    algorithm = info.get("algorithm") or info.get("operation") or "the method"
    if info.get("operation") == "local_suppression":
        return (f"local suppression withholds cells until every row matches k={info.get('k')} "
                f"rows; a cell missing in the input is the same wildcard (it matches any "
                f"value)")
    if info.get("method") == "suppress":
        also = (f" (or {algorithm} withholds a row as an outlier, within its suppression "
                f"budget)" if "max_suppressed_rows" in info else "")
        return ("method='suppress' blanks every quasi-identifier cell of a group that differs "
                f"in each{also}")
    if info.get("suppressed_rows"):
        model = info.get("model") or "the privacy model"
        budget = info.get("max_suppressed_rows")
        if isinstance(budget, (int, float)) and info["suppressed_rows"] > budget:
            # more rows blank than the budget lets it withhold: the levels published them so
            return (f"the levels {algorithm} chose publish these rows blank in every "
                    f"quasi-identifier: a node that holds a missing value (as a top '*' over "
                    f"a column with missing cells does) publishes a missing cell, since no "
                    f"range or set may claim to contain one (suppression budget: {budget} "
                    f"rows, not spent on them)")
        within = f" (suppression budget: {budget} rows)" if budget is not None else ""
        return (f"{algorithm} withholds outliers whose class would not satisfy {model}, "
                f"rather than generalizing every other row further{within}; the withheld "
                f"rows are one class, which meets the model too (the smallest classes are "
                f"withheld with them when needed)")
    return "every quasi-identifier cell is blank in the release"


def cell_reason_of(info: dict) -> str:
    """Why the method publishes some cells of a row blank."""
    if info.get("operation") == "local_suppression":
        return (f"local suppression withholds cells to reach k={info.get('k')}; a cell "
                f"missing in the input is the same wildcard")
    if info.get("method") == "suppress":
        return "method='suppress' blanks a column where the row's group is not constant"
    if info.get("method") == "generalize":
        return ("a group that mixes blank and present cells in a column publishes them "
                "blank")
    return "blank in the release"
