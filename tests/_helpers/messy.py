"""Messy frames for the fuzz suite (``tests/test_fuzz_messy.py``, ``benchmarks/fuzz_messy.py``).

A messy frame is what real registers and CSV exports look like: missing cells of every kind
(NaN, None, pd.NA, NaT), infinities, object columns mixing ints and strings, Categoricals with
unused or unordered categories, tz-aware dates, the ``string`` dtype, duplicate and string
indexes, 0 to a dozen rows and up to 40 columns.

:func:`messy_frames` is a hypothesis strategy; :func:`call_cases` the anonymizer calls tried
on each frame; :func:`check_call` runs one call under a time limit and checks the contract:
the call returns a verified table (or raises a pdanon error), and the input is unchanged.
"""

from __future__ import annotations

import signal
import warnings
from contextlib import contextmanager

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import AnonymizationError

ALGORITHMS = ("auto", "nearest", "mondrian", "datafly", "equal_groups", "group_join", "exact",
              "optimal")
METHODS = ("generalize", "suppress", "aggregate")
MODELS = ("k", "l", "t")
#: seconds one anonymizer call may take on a messy frame of at most a dozen rows
CALL_SECONDS = 20


# ============================================================================ columns


def _cells(draw, n, values, markers=(None, np.nan, pd.NA)):
    """``n`` cells from ``values``, each missing (one of ``markers``) with some probability."""
    missing = draw(st.sampled_from(list(markers)))
    p_missing = draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
    flags = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    picks = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    return [missing if f < p_missing else v for f, v in zip(flags, picks)]


@st.composite
def messy_column(draw, n: int) -> pd.Series:
    """One column of ``n`` rows of a randomly chosen messy kind."""
    kind = draw(st.sampled_from([
        "float", "float_inf", "int", "Int64", "mixed", "string", "str", "category",
        "ordered_category", "datetime_tz", "bool",
    ]))
    if kind == "float":
        return pd.Series(_cells(draw, n, [0.5, 1.0, 2.5, 30.0], (np.nan, None)),
                         dtype="float64")
    if kind == "float_inf":
        return pd.Series(_cells(draw, n, [1.0, 2.0, np.inf, -np.inf], (np.nan, None)),
                         dtype="float64")
    if kind == "int":
        return pd.Series(draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n)),
                         dtype="int64")
    if kind == "Int64":
        return pd.Series(_cells(draw, n, [1, 2, 3, 10]), dtype="Int64")
    if kind == "mixed":  # a CSV column of codes: ints and strings side by side
        return pd.Series(_cells(draw, n, [1, "1", "a", 2, "b"]), dtype=object)
    if kind == "string":
        return pd.Series(_cells(draw, n, ["x", "y", "z"]), dtype="string")
    if kind == "str":
        return pd.Series(_cells(draw, n, ["x", "y", "z"]), dtype=object)
    if kind in ("category", "ordered_category"):
        cats = ["lo", "mid", "hi", "unused"]
        return pd.Series(pd.Categorical(_cells(draw, n, cats[:3]), categories=cats,
                                        ordered=kind == "ordered_category"))
    if kind == "datetime_tz":
        days = pd.date_range("2020-01-01", periods=4, freq="D", tz="Europe/Paris")
        cells = _cells(draw, n, list(days))
        return pd.Series(pd.to_datetime([pd.NaT if c is None or c is pd.NA or
                                         (isinstance(c, float) and np.isnan(c)) else c
                                         for c in cells], utc=True).tz_convert("Europe/Paris"))
    return pd.Series(_cells(draw, n, [True, False]), dtype=object)


@st.composite
def messy_frames(draw, *, max_rows: int = 12, max_columns: int = 6, wide: bool = True):
    """A messy frame: 0 to ``max_rows`` rows (often 0-3), 1 to ``max_columns`` columns (or,
    sometimes, 40 when ``wide``), a RangeIndex, a duplicate index or a string index."""
    n = draw(st.one_of(st.integers(0, 3), st.integers(4, max_rows)))
    ncols = 40 if wide and draw(st.integers(0, 19)) == 0 else draw(st.integers(1, max_columns))
    columns = {f"c{j}": draw(messy_column(n)).reset_index(drop=True) for j in range(ncols)}
    df = pd.DataFrame(columns)
    index = draw(st.sampled_from(["range", "duplicate", "string"]))
    if index == "duplicate" and n:
        df.index = [i // 2 for i in range(n)]
    elif index == "string":
        df.index = [f"r{i}" for i in range(n)]
    return df


# ============================================================================ calls


@st.composite
def call_cases(draw, df: pd.DataFrame):
    """An anonymizer call on ``df``: ``(model, k, algorithm, method, quasi_identifiers,
    sensitive)``."""
    cols = list(df.columns)
    model = draw(st.sampled_from(MODELS))
    sensitive = []
    if model != "k" and len(cols) >= 2:
        sensitive = [draw(st.sampled_from(cols))]
    rest = [c for c in cols if c not in sensitive]
    qi = draw(st.lists(st.sampled_from(rest), min_size=1, max_size=min(len(rest), 4),
                       unique=True)) if rest else []
    kinds = {c: draw(st.sampled_from([None, "real", "ordered", "unordered"])) for c in qi}
    quasi = {c: k for c, k in kinds.items() if k is not None}
    qi_arg = quasi if len(quasi) == len(qi) else qi
    return (model, draw(st.integers(1, 3)), draw(st.sampled_from(ALGORITHMS)),
            draw(st.sampled_from(METHODS)), qi_arg, sensitive)


@contextmanager
def time_limit(seconds: int, what: str):
    """Fail (instead of hanging) when the block runs longer than ``seconds``."""
    def alarm(signum, frame):
        raise TimeoutError(f"{what} took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_call(df: pd.DataFrame, case) -> pd.DataFrame:
    model, k, algorithm, method, qi, sensitive = case
    roles = {"quasi_identifiers": qi}
    if sensitive:
        roles["sensitive"] = sensitive
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model == "k" or not sensitive:
            return df.anon.k_anonymize(k, algorithm=algorithm, method=method, **roles)
        if model == "l":
            return df.anon.l_diversify(2, k=k, algorithm=algorithm, method=method, **roles)
        return df.anon.t_close(0.5, k=k, algorithm=algorithm, method=method, **roles)


def _gist(message: str) -> str:
    """A pdanon error message without its column names and numbers (to count refusals by
    reason)."""
    import re

    return re.sub(r"'[^']*'|\d+(\.\d+)?", "_", message)[:90]


def check_call(df: pd.DataFrame, case) -> str:
    """Run one call; return ``"ok"`` (a table came back and holds) or ``"refused: <reason>"``
    (a pdanon error). Anything else - another exception, a time-out, a mutated input, a published table
    that does not meet k - raises."""
    before = df.copy(deep=True)
    attrs = dict(df.attrs)
    try:
        with time_limit(CALL_SECONDS, f"{case!r}"):
            out = run_call(df, case)
    except AnonymizationError as exc:
        assert str(exc), "a pdanon error must say what is wrong"
        outcome = "refused: " + _gist(str(exc))
    else:
        outcome = "ok"
        _check_output(df, out, case)
    pd.testing.assert_frame_equal(df, before)
    assert df.attrs == attrs
    return outcome


def _check_output(df: pd.DataFrame, out: pd.DataFrame, case) -> None:
    from pdanon._groups import class_labels

    _, k, _, _, qi, _ = case
    qi = list(qi)
    # a fresh index: no label of the input's; rows matched through the publisher-only way back
    assert len(out) == len(df) and not out.index.isin(df.index).any()
    if not len(out):
        return
    from pdanon.metrics._common import aligned

    df = aligned(df, out)
    blank = out[qi].isna().all(axis=1).to_numpy()
    labels = class_labels(out.loc[~blank], qi)
    if len(labels):
        assert np.bincount(labels).min() >= k, f"{case!r}: a class smaller than k"
    for c in qi:  # a missing cell is never published as a value (but as a cell "or missing")
        covers = np.asarray(out[c].array.or_missing, dtype=bool) \
            if isinstance(out[c].dtype, pdanon.GeneralizationDtype) else False
        assert (out[c].isna().to_numpy() | ~df[c].isna().to_numpy() | covers).all(), c
