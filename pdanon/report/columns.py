"""How each quasi-identifier was published, and which rows were suppressed and why.

Both work on whole columns with numpy (no loop over cells). The suppressed-rows table holds
index labels, reasons and the *published* quasi-identifier cells of those rows, never a cell
of the original frame.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
>>> out = df.anon.k_anonymize(2, algorithm="mondrian")
>>> column_facts(out, df, {"age": "real"}, out.anon.info)[0]["mean_width"]
1.5
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: rows of the suppressed-rows table shown in HTML (the JSON and the object hold all)
SHOWN_ROWS = 200


def _widths(s: pd.Series, orig: pd.Series | None) -> tuple:
    """(generalized cells, mean width, width unit) of a published column: a real range's
    hi - lo, an ordered range's number of categories, a set's number of members."""
    from pdanon.dtype import GeneralizationDtype

    if not isinstance(s.dtype, GeneralizationDtype):
        return 0, None, ""
    arr = s.array
    present = ~np.asarray(arr.isna(), dtype=bool)
    generalized = int((~np.asarray(arr.is_plain, dtype=bool) & present).sum())
    if not present.any():
        return generalized, None, ""
    if arr.kind == "unordered":
        codes = np.asarray(arr.codes)
        uniq, first, counts = np.unique(codes, return_index=True, return_counts=True)
        keep = uniq >= 0
        sizes = arr.take(first[keep]).member_counts
        return generalized, float((sizes * counts[keep]).sum() / counts[keep].sum()), "values per set"
    lo = np.asarray(arr.lo, dtype=np.float64)[present]
    hi = np.asarray(arr.hi, dtype=np.float64)[present]
    if arr.categories is not None:
        return generalized, float(np.mean(hi - lo + 1)), "categories"
    return generalized, float(np.mean(hi - lo)), "units"


def column_facts(anonymized: pd.DataFrame, original: pd.DataFrame | None, qis: dict,
                 info: dict) -> list:
    """One dict per quasi-identifier: kind, published dtype, distinct published values,
    changed / generalized / suppressed cells (shares of the rows), mean width of its ranges
    or sets, and the hierarchy level when one was applied."""
    from pdanon.metrics import _cells

    n = len(anonymized)
    levels, heights = info.get("levels") or {}, info.get("heights") or {}
    out = []
    for c, kind in qis.items():
        s = anonymized[c]
        na = s.isna().to_numpy()
        orig = None if original is None else original[c]
        generalized, width, unit = _widths(s, orig)
        row = {"column": str(c), "kind": kind, "published_dtype": str(s.dtype),
               "distinct_published": int(s.nunique(dropna=True)),
               "generalized_cells": generalized,
               "mean_width": width, "width_unit": unit,
               "level": levels.get(c), "height": heights.get(c)}
        if orig is not None:
            was_na = orig.isna().to_numpy()
            row["suppressed_cells"] = int((na & ~was_na).sum())
            row["changed_cells"] = int((~_cells.equal_cells(orig, s, kind)).sum())
            if width is not None and unit == "units":
                x = pd.to_numeric(orig, errors="coerce").to_numpy(dtype=np.float64)
                span = float(np.nanmax(x) - np.nanmin(x)) if (~np.isnan(x)).any() else 0.0
                row["relative_width"] = width / span if span > 0 else None
        else:
            row["suppressed_cells"] = int(na.sum())
            row["changed_cells"] = None
        for key in ("changed_cells", "generalized_cells", "suppressed_cells"):
            v = row[key]
            row[key.replace("_cells", "_share")] = v / n if v is not None and n else None
        out.append(row)
    return out


def _published_text(s: pd.Series) -> np.ndarray:
    """The published cells of ``s`` as text, missing cells as '(suppressed)'."""
    from pdanon.dtype import GeneralizationDtype

    if isinstance(s.dtype, GeneralizationDtype):
        text = np.asarray(s.array.to_text(na_rep=None), dtype=object)
    else:
        text = s.astype(object).to_numpy()
    na = s.isna().to_numpy()
    out = np.array([str(v) for v in text], dtype=object) if len(text) else text
    out[na] = "(suppressed)"
    return out


def suppressed_rows(anonymized: pd.DataFrame, original: pd.DataFrame | None, qis: dict,
                    info: dict) -> tuple:
    """``(table, mask)``: the rows whose every quasi-identifier cell is withheld (with the
    original: that had at least one present), then the rows with some of their cells
    withheld, each with the reason; ``mask`` marks the fully suppressed rows."""
    cols = list(qis)
    n = len(anonymized)
    if not cols or n == 0:
        return pd.DataFrame(columns=["row", "suppressed", "reason", *cols]), np.zeros(n, bool)
    missing = anonymized[cols].isna().to_numpy()
    if original is not None:
        new = missing & ~original[cols].isna().to_numpy()
        full = missing.all(axis=1) & new.any(axis=1)
        partial = new.any(axis=1) & ~full
    else:
        new = missing
        full = missing.all(axis=1)
        partial = np.zeros(n, dtype=bool)
    rows = np.flatnonzero(full | partial)
    if len(rows) == 0:
        return pd.DataFrame(columns=["row", "suppressed", "reason", *cols]), full
    full_reason = row_reason(info)
    cell_reason = cell_reason_of(info)
    names = np.array([str(c) for c in cols], dtype=object)
    reasons = []
    for i in rows:  # only the suppressed rows, each reason built from its own mask row
        if full[i]:
            reasons.append(full_reason)
        else:
            reasons.append(f"cells withheld in {', '.join(names[new[i]])}: {cell_reason}")
    table = {"row": [_label(v) for v in anonymized.index[rows]],
             "suppressed": np.where(full[rows], "row", "cells").tolist(),
             "reason": reasons}
    for c in cols:
        table[str(c)] = _published_text(anonymized[c].iloc[rows]).tolist()
    return pd.DataFrame(table), full


def _label(v):
    if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
        return int(v)
    return str(v)


def row_reason(info: dict) -> str:
    """Why a whole row was withheld, in the words of what ``info`` recorded."""
    algorithm = info.get("algorithm") or info.get("operation") or "the method"
    if info.get("operation") == "local_suppression":
        return (f"local suppression withheld every quasi-identifier cell to reach "
                f"k={info.get('k')} (a missing cell matches any value)")
    if info.get("method") == "suppress":
        also = (f" (or {algorithm} withheld it as an outlier, within its suppression budget)"
                if "max_suppressed_rows" in info else "")
        return ("method='suppress' blanked every quasi-identifier cell: the row's group "
                f"differs in each{also}")
    if info.get("suppressed_rows"):
        model = info.get("model") or "the privacy model"
        budget = info.get("max_suppressed_rows")
        within = f" (suppression budget: {budget} rows)" if budget is not None else ""
        return (f"suppressed by {algorithm}: an outlier whose class would not satisfy "
                f"{model}, withheld rather than generalizing every other row further{within}")
    return "every quasi-identifier cell is missing in the release"


def cell_reason_of(info: dict) -> str:
    """Why some cells of a row were withheld."""
    if info.get("operation") == "local_suppression":
        return f"local suppression to reach k={info.get('k')} (missing matches any value)"
    if info.get("method") == "suppress":
        return "method='suppress' blanks a column where the row's group is not constant"
    if info.get("method") == "generalize":
        return ("the row's group mixed missing and present cells there, so the present "
                "cells were withheld")
    return "published missing where the original had a value"
