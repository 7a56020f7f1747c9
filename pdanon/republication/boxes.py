"""Local recodings kept by their published classes: a decision tree rebuilt from the cells.

A local recoder (Mondrian) publishes classes whose cells overlap column by column: a ZIP code
sits in many classes' sets, a date in many ranges. Mondrian's classes are still *guillotine*
separable: at every cut of the algorithm one column splits them into two groups whose cells
in that column share no value. :func:`build_tree` finds such a split again from the published
boxes alone (a column where the groups' ranges leave a gap, or whose sets fall into groups
sharing no member), recursively, so the tree holds nothing but the published cells; no cut
value that the release did not show is needed.

:func:`route` sends each new row down the tree: at a range split to the side whose ranges
hold its value (a value in the gap between the sides goes to the nearer side), at a set split
to the side whose sets hold its value (an unseen value: the second side). At the leaf the row
takes that class's cells, each only if it holds the row's value (else the cell is published
missing, as an unseen value of a global recoding), so every published cell is truthful and
the model is verified on the batch as for a global recoding. A class whose cell in a column
was suppressed (its rows mixed missing and present values, ``method="suppress"``) is placed
where missing values go; a new row with a value there lands in a class whose cells hold it,
or gets missing cells. A cell that covers missing too (``[20, 29] or missing``) holds the
point ``inf`` as well (a range reaches up to it, a set holds the code -1), so a missing value
is routed to such a class and takes its cell. A recoding whose classes overlap in every column (the nearest-neighbour groupings)
is matched row by row instead: a row takes the first class whose cells hold all its
values, else the one holding most of them (the nearest enclosing class), within
``MAX_BAG_CHECKS`` checks.

Example
-------
>>> import numpy as np
>>> lo = {"age": np.array([20.0, 40.0, 20.0])}
>>> hi = {"age": np.array([29.0, 49.0, 29.0])}
>>> sets = {"sex": [{0}, {0, 1}, {1}]}
>>> tree = build_tree(lo, hi, sets)
>>> route(tree, {"age": np.array([25.0, 45.0, 22.0])}, {"sex": np.array([1, 0, 0])}).tolist()
[2, 1, 0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["NotSeparable", "build_tree", "route"]


class NotSeparable(Exception):
    """Classes that no column splits, too many to match the rows against one by one."""


def _best_class(classes, rows, values, codes, boxes) -> np.ndarray:
    """Per row the first of ``classes`` holding most of its values (all, when one does)."""
    lo, hi, sets = boxes
    if len(classes) * len(rows) > MAX_BAG_CHECKS:
        raise NotSeparable(
            f"{len(classes)} classes share a value in every column: placing {len(rows):,} rows "
            f"among them takes more than {MAX_BAG_CHECKS:,} checks")
    best = np.full(len(rows), -1, dtype=np.int64)
    score = np.full(len(rows), -1, dtype=np.int64)
    for g in classes:  # in class order: the first of equal scores wins
        held = np.zeros(len(rows), dtype=np.int64)
        for c in lo:
            v = values[c][rows]
            held += (lo[c][g] <= v) & (v <= hi[c][g])
        for c in sets:
            held += np.isin(codes[c][rows], np.fromiter(sets[c][g], dtype=np.int64))
        better = held > score
        best[better], score[better] = g, held[better]
    return best


def _range_split(idx, lo, hi):
    """The most balanced split of classes ``idx`` on one range column: (threshold low,
    threshold high, left, right) with every left range ending below every right range."""
    order = idx[np.argsort(lo[idx], kind="stable")]
    ends = np.maximum.accumulate(hi[order])
    gaps = np.flatnonzero(ends[:-1] < lo[order][1:]) + 1  # split before these positions
    if not len(gaps):
        return None
    cut = gaps[np.argmin(np.abs(gaps - len(order) / 2))]
    return float(ends[cut - 1]), float(lo[order][cut]), order[:cut], order[cut:]


def _set_split(idx, sets):
    """Two groups of classes whose sets share no member (union-find over the members)."""
    parent = {}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in idx:
        members = [("m", v) for v in sets[i]]
        parent.setdefault(("c", i), ("c", i))
        for m in members:
            parent.setdefault(m, m)
            a, b = find(("c", i)), find(m)
            if a != b:
                parent[a] = b
    number = {}
    roots = np.array([number.setdefault(find(("c", i)), len(number)) for i in idx])
    if len(number) < 2:
        return None
    left = idx[roots == 0]
    right = idx[roots != 0]
    members = set().union(*[sets[i] for i in left])
    return members, left, right


def build_tree(lo: dict, hi: dict, sets: dict, idx=None):
    """A tree separating the classes: ``lo``/``hi`` per range column (one float per class;
    a missing cell is the point ``inf``, after every value, as Mondrian orders missing
    values), ``sets`` per set column (one set of value codes per class; a missing cell holds
    the code -1). Leaves are class numbers."""
    if idx is None:
        n = len(next(iter(lo.values()))) if lo else len(next(iter(sets.values())))
        idx = np.arange(n)
    if len(idx) == 1:
        return int(idx[0])
    for c in lo:
        found = _range_split(idx, lo[c], hi[c])
        if found is not None:
            a, b, left, right = found
            return ("range", c, a, b, build_tree(lo, hi, sets, left),
                    build_tree(lo, hi, sets, right))
    for c in sets:
        found = _set_split(idx, sets[c])
        if found is not None:
            members, left, right = found
            return ("set", c, frozenset(members), None, build_tree(lo, hi, sets, left),
                    build_tree(lo, hi, sets, right))
    return ("bag", None, idx, None, None, None)  # no split: matched row by row (route)


#: a bag of classes that no column splits is matched row by class: at most this many checks
MAX_BAG_CHECKS = 50_000_000


def route(tree, values: dict, codes: dict, boxes=None) -> np.ndarray:
    """The leaf (class) of every row: ``values`` per range column (floats; a missing value
    is ``inf``), ``codes`` per set column (value codes; missing -1, unseen -2). ``boxes``:
    the ``(lo, hi, sets)`` the tree was built from, for its bags (classes no column splits,
    the groupings of nearest rows): a row there takes the first class whose cells hold all
    its values, else the one holding most of them."""
    n = len(next(iter(values.values()))) if values else len(next(iter(codes.values())))
    out = np.empty(n, dtype=np.int64)
    stack = [(tree, np.arange(n))]
    while stack:
        node, rows = stack.pop()
        if not len(rows):
            continue
        if not isinstance(node, tuple):
            out[rows] = node
            continue
        kind, c, a, b, left, right = node
        if kind == "bag":
            out[rows] = _best_class(a, rows, values, codes, boxes)
            continue
        if kind == "range":
            v = values[c][rows]
            go_left = v - a <= b - v  # the nearer side (inf - inf: nan, so right)
        else:
            go_left = np.isin(codes[c][rows], np.fromiter(a, dtype=np.int64))
        stack.append((left, rows[go_left]))
        stack.append((right, rows[~go_left]))
    return out


# ----------------------------------------------------------------------------- recodings


def class_table(release, columns: dict) -> list:
    """Per published class (a distinct row of the recoded columns, in order of first
    appearance) the position of its cell in each column's list of cells (-1: missing)."""
    import pandas as pd

    from pdanon.encode import is_generalized

    names = list(columns)
    texts = {}
    for c, col in columns.items():
        lookup = {t: i for i, t in enumerate(col.cells)}
        series = release[c]
        missing = np.asarray(series.isna(), dtype=bool)
        shown = (series.array.to_text(na_rep=None) if is_generalized(series)
                 else np.array([str(v) for v in series], dtype=object))
        texts[c] = np.array([-1 if m else lookup[t] for t, m in zip(shown, missing)],
                            dtype=np.int64)
    table = pd.DataFrame(texts)[names].drop_duplicates()
    return table.to_numpy(dtype=np.int64).tolist()


def place(df, columns: dict, classes: list) -> dict:
    """Per recoded column the cell position of every row of ``df`` (-1 missing, -2 a value
    its class's cell does not hold), found by routing the rows down the tree of the
    published classes. The batch's values are read as the global lookup reads them
    (:meth:`pdanon.republication.recoding.ColumnRecoding.range_axis` and ``value_positions``: the same
    checks). Raises :class:`NotSeparable` when a bag of classes no column splits would take
    more than ``MAX_BAG_CHECKS`` checks."""
    table = np.asarray(classes, dtype=np.int64).reshape(len(classes), len(columns))
    lo, hi, sets, values, codes, probes = {}, {}, {}, {}, {}, {}
    for j, (c, col) in enumerate(columns.items()):
        at = table[:, j]
        missing = np.asarray(df[c].isna(), dtype=bool)
        if col.form == "ranges":  # a missing cell, or value: the point inf (build_tree)
            cell_lo, cell_hi, v, probes[c] = col.range_axis(df[c])
            covers = (at >= 0) & np.asarray(col.cell_array().or_missing, dtype=bool)[
                np.maximum(at, 0)]  # "... or missing" reaches the missing point inf too
            lo[c] = np.where(at < 0, np.inf, cell_lo[np.maximum(at, 0)].astype(np.float64))
            hi[c] = np.where((at < 0) | covers, np.inf,
                             cell_hi[np.maximum(at, 0)].astype(np.float64))
            v = v.astype(np.float64)
            values[c] = np.where(missing | np.isnan(v), np.inf, v)
            continue
        if col.form == "values":
            members = [{i} for i in range(len(col.cell_array()))]
        else:
            cells = col.cell_array()
            offsets, flat = cells.members()
            members = [set(flat[a:b].tolist()) | ({-1} if m else set())
                       for a, b, m in zip(offsets[:-1], offsets[1:], cells.or_missing)]
        sets[c] = [{-1} if i < 0 else members[i] for i in at]
        known = col.value_positions(df[c])
        codes[c] = np.where(missing, -1, np.where(known < 0, -2, known))
    leaf = route(build_tree(lo, hi, sets), values, codes, (lo, hi, sets))
    out = {}
    for j, (c, col) in enumerate(columns.items()):
        cells = col.cell_array()
        at = table[leaf, j]
        missing = np.asarray(df[c].isna(), dtype=bool)
        if col.form == "values":
            holds = (codes[c] >= 0) & (codes[c] == at)
        else:
            probe = probes[c] if col.form == "ranges" else df[c].array
            holds = (at >= 0) & np.asarray(cells.take(np.maximum(at, 0)).contains(probe),
                                           dtype=bool)
        # a missing value takes a cell that covers missing, else stays missing
        out[c] = np.where(holds, at, np.where(missing, -1, -2))
    return out
