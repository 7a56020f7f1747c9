"""Tables as frames: the tidy cells and the pivot a reader expects.

>>> import pandas as pd
>>> from pdanon.tables.table import build
>>> t = build(pd.DataFrame({"r": list("aab"), "c": list("xyx")}), index="r", columns="c")
>>> t.pivot()
c      x  y  Total
r                 
a      1  1      2
b      1  0      1
Total  2  1      3
"""

from __future__ import annotations

import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["MISSING", "missing_label", "pivot"]

#: the pivot's label of a missing value's leaf (the tidy cells keep it missing)
MISSING = "(missing)"


def missing_label(labels) -> str:
    """The pivot's label for a missing value's leaf: :data:`MISSING`, or ``"(missing 2)"``,
    ``"(missing 3)"``... when a category already carries that text (two leaves with one label
    could not be told apart, and the pivot could not be built).

    >>> missing_label(["a", None]), missing_label(["(missing)", None])
    ('(missing)', '(missing 2)')
    """
    taken = {str(v) for v in labels if not pd.isna(v)}
    label, k = MISSING, 1
    while label in taken:
        k += 1
        label = f"(missing {k})"
    return label


def pivot(cells: pd.DataFrame, table, *, index=None, columns=None,
          values: str = "value") -> pd.DataFrame:
    """``cells`` as a pivot: ``index`` dimensions down, ``columns`` across (by default the
    dimensions as the table was built: all but the last down, the last across), in the
    dimensions' own node order (leaves, sub-totals, total); a missing value's leaf is
    labelled :data:`MISSING` (:func:`missing_label`)."""
    dims = table.dimensions
    if index is None and columns is None:
        index, columns = dims[:-1] or dims, dims[-1:] if len(dims) > 1 else []
    index, columns = list(index or []), list(columns or [])
    if sorted(map(str, index + columns)) != sorted(map(str, dims)):
        raise InvalidInputError(f"pivot: index and columns must name each dimension {dims!r} "
                                f"once, got index={index!r}, columns={columns!r}")
    frame = cells[dims + [values]].copy()
    for d in table.dims:  # keep each dimension's node order (not alphabetical)
        labels = pd.Series(d.labels, dtype=object)
        if labels.isna().any():  # a missing value's leaf: a category needs a label
            text = missing_label(labels)
            frame[d.name] = frame[d.name].astype(object).where(frame[d.name].notna(), text)
            labels = labels.where(labels.notna(), text)
        frame[d.name] = pd.Categorical(frame[d.name], categories=pd.unique(labels),
                                       ordered=True)
    wide = frame.set_index(dims)[values]
    if columns:
        wide = wide.unstack(columns)
    out = wide if isinstance(wide, pd.DataFrame) else wide.to_frame(values)
    if isinstance(out.index, pd.CategoricalIndex):
        out.index = pd.Index(list(out.index), name=out.index.name, dtype=object)
    if isinstance(out.columns, pd.CategoricalIndex):
        out.columns = pd.Index(list(out.columns), name=out.columns.name, dtype=object)
    return out
