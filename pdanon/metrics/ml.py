"""Machine-learning metrics with gradient boosting (scikit-learn, imported lazily).

* :func:`prepare_data` - quasi-identifier columns (plain, generalized, suppressed) as a numeric
  feature matrix, the way the reference's ``prepare_data`` does: ranges become ``lo`` / ``hi``
  columns, sets a fractional one-hot (each member 1/|set|).
* :func:`boosting_utility` - how well a gradient-boosting model predicts a target from the
  anonymized quasi-identifiers compared with the original ones (utility).
* :func:`boosting_security_score` - the reference's linkage attack: a classifier learns to tell
  whether an (original row, anonymized row) pair is the same person, then tries to re-identify
  held-out rows; the score is 1 − re-identification accuracy (risk; higher is safer).

Everything is deterministic given ``random_state``.

Example
-------
>>> import pandas as pd
>>> train = pd.DataFrame({"age": [20.0, 30.0, None], "sex": ["F", "M", "F"]})
>>> X, _ = prepare_data(train, train, {"age": "real", "sex": "unordered"})
>>> X.columns.tolist()
['age', 'sex=F', 'sex=M']
>>> X["age"].tolist()
[20.0, 30.0, 25.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.metrics import _cells
from pdanon.metrics._common import aligned, check_frame, quasi_identifier_kinds

__all__ = ["boosting_security_score", "boosting_utility", "prepare_data"]


#: at most this many rows train and test the utility ratio (sampled, seeded, above it)
UTILITY_MAX_ROWS = 100_000
#: the utility ratio's held-out share of those rows
UTILITY_TEST_SHARE = 0.25
#: the linkage attack's training rows and held-out rows (scored against each other)
SECURITY_TRAIN_ROWS = 2000
SECURITY_TEST_ROWS = 200


def _interval_features(c, kind, tr: pd.Series, te: pd.Series) -> tuple[dict, dict]:
    a, b = _cells.interval_pair(tr, te, kind)
    ranged = a.is_range.any() or b.is_range.any()
    if ranged:
        # a missing (suppressed) cell stands for the whole column: [min, max] of the training lo/hi
        lo_fill = np.nanmin(a.lo) if (~a.na).any() else 0.0
        hi_fill = np.nanmax(a.hi) if (~a.na).any() else 0.0
        out = []
        for x in (a, b):
            lo = np.where(x.na, lo_fill, x.lo)
            hi = np.where(x.na, hi_fill, x.hi)
            out.append({f"{c}_lo": lo, f"{c}_hi": hi})
        return out[0], out[1]
    vals = a.lo[~a.na]
    if len(vals) == 0:
        fill = 0.0
    elif kind == "real":
        fill = float(vals.mean())
    else:  # ordered: the middle element of the sorted training values
        fill = float(np.sort(vals)[len(vals) // 2])
    return {c: np.where(a.na, fill, a.lo)}, {c: np.where(b.na, fill, b.lo)}


def _set_features(c, tr: pd.Series, te: pd.Series, max_categories: int) -> tuple[dict, dict]:
    a, b = _cells.set_pair(tr, te)
    C = len(a.categories)
    if C == 0:
        return {}, {}
    freq = a.frequencies()
    seen = np.flatnonzero(freq > 0)
    if len(seen) > max_categories:
        seen = seen[np.argsort(-freq[seen], kind="stable")[:max_categories]]
        seen.sort()
    out = []
    for x in (a, b):  # only the columns kept: never rows x categories
        m = x.member_rows(np.arange(len(x.codes)), seen).astype(np.float64)
        size = x.sizes().astype(np.float64)[:, None]
        frac = np.divide(m, size, out=np.zeros_like(m), where=size > 0)
        out.append({f"{c}={a.categories[j]}": frac[:, i] for i, j in enumerate(seen)})
    return out[0], out[1]


def prepare_data(train: pd.DataFrame, test: pd.DataFrame, kinds, *,
                 max_categories: int = 100) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Numeric feature matrices for a train and a test frame, fitted on the train frame.

    Per column (``kinds``: ``{column: kind}`` or a list of columns, kinds inferred):

    * real / ordered with ranges somewhere: two features ``<col>_lo``, ``<col>_hi`` (a plain
      value has lo = hi; a missing cell is [min of training lo, max of training hi]);
      ordered values are positions in the value order;
    * real / ordered without ranges: one feature; missing → training mean (real) or the middle
      of the sorted training values (ordered);
    * unordered: fractional one-hot ``<col>=<value>`` over the values seen in training (the
      ``max_categories`` most frequent); a set of m values puts 1/m on each member, a missing
      cell is all zeros.

    Differences from the reference: ordered lo/hi stay numeric positions (the reference one-hot
    encodes them, discarding the order) and train and test columns are always aligned (the
    reference stacks its test matrix in a different column order when it one-hot encodes).

    Example
    -------
    >>> tr = pd.DataFrame({"c": ["a", "b", "b"]})
    >>> prepare_data(tr, tr, {"c": "unordered"})[0].sum().tolist()
    [1.0, 2.0]
    """
    check_frame(train, "train")
    check_frame(test, "test")
    kinds = quasi_identifier_kinds(train, kinds)
    missing = [c for c in kinds if c not in test.columns]
    if missing:
        raise UnknownColumnError(f"test frame lacks column(s) {missing}")
    ftr, fte = {}, {}
    for c, k in kinds.items():
        if k == "unordered":
            a, b = _set_features(c, train[c], test[c], max_categories)
        else:
            a, b = _interval_features(c, k, train[c], test[c])
        ftr.update(a)
        fte.update(b)
    return (pd.DataFrame(ftr, index=train.index, dtype=np.float64),
            pd.DataFrame(fte, index=test.index, dtype=np.float64))


def _threads(n_threads):
    """Context limiting the OpenMP threads of scikit-learn's boosting (None: its default)."""
    import contextlib

    if n_threads is None:
        return contextlib.nullcontext()
    if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
        raise InvalidInputError(f"n_threads must be a positive integer or None, got {n_threads!r}")
    import sklearn.ensemble  # noqa: F401  (load the OpenMP runtime so the limit reaches it)
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=n_threads, user_api="openmp")


def _task_of(y: pd.Series) -> str:
    numeric = (pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype)
               and not isinstance(y.dtype, pd.CategoricalDtype))
    return "regression" if numeric else "classification"


def boosting_utility(original: pd.DataFrame, anonymized: pd.DataFrame, *, target,
                     quasi_identifiers=None, test_size: float = UTILITY_TEST_SHARE,
                     random_state: int = 0, max_rows: int = UTILITY_MAX_ROWS,
                     task: str | None = None,
                     n_threads: int | None = None) -> dict:
    """Train scikit-learn's ``HistGradientBoosting`` on the original and on the anonymized
    quasi-identifiers (same rows, same train/test split) to predict ``target`` (taken from the
    original frame), and compare the test scores.

    Classification (accuracy) when the target is not numeric, regression (RMSE) otherwise
    (``task=`` overrides). ``ratio`` is anonymized accuracy / original accuracy, or original
    RMSE / anonymized RMSE, so that in both cases 1.0 means no utility lost and lower is worse.
    Tables above ``max_rows`` rows are sampled (seeded) to bound the work. ``n_threads`` limits
    scikit-learn's OpenMP threads (default: all cores; use 1 on a machine whose cores are busy,
    where oversubscribed OpenMP threads slow boosting down many times).

    Returns ``{"task", "metric", "original", "anonymized", "ratio", "rows"}``.

    Example
    -------
    >>> import pdanon
    >>> df = pdanon.datasets.load_adult(nrows=2000)
    >>> r = boosting_utility(df, df, target="salary-class")
    >>> r["ratio"]
    1.0
    """
    original = aligned(original, anonymized)
    if target not in original.columns:
        raise UnknownColumnError(f"unknown target column {target!r}; the original frame has "
                                 f"columns {list(original.columns)}")
    kinds = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    kinds = {c: k for c, k in kinds.items() if c != target}
    if not kinds:
        raise InvalidInputError("no quasi-identifier columns left to predict the target from")
    y_all = original[target]
    keep = np.flatnonzero(~y_all.isna().to_numpy())
    rng = np.random.default_rng(random_state)
    if len(keep) > max_rows:
        keep = np.sort(rng.choice(keep, max_rows, replace=False))
    n = len(keep)
    if n < 4:
        raise InvalidInputError(f"boosting utility needs at least 4 rows with a target, got {n}")
    perm = rng.permutation(keep)
    n_test = max(1, int(round(n * test_size)))
    test_rows, train_rows = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    task = task or _task_of(y_all)
    if task not in ("classification", "regression"):
        raise InvalidInputError(f"task must be 'classification' or 'regression', got {task!r}")
    if task == "classification":
        y = pd.factorize(y_all.to_numpy())[0]
    else:
        y = y_all.to_numpy(dtype=np.float64)
    scores = {}
    with _threads(n_threads):
        _fit_score(original, anonymized, kinds, task, y, train_rows, test_rows, random_state,
                   scores)
    if task == "classification":
        ratio = scores["anonymized"] / scores["original"] if scores["original"] else np.nan
    else:
        ratio = (scores["original"] / scores["anonymized"] if scores["anonymized"]
                 else (1.0 if scores["original"] == 0 else np.nan))
    return {"task": task, "metric": "accuracy" if task == "classification" else "rmse",
            "original": scores["original"], "anonymized": scores["anonymized"],
            "ratio": float(ratio), "rows": n}


def _fit_score(original, anonymized, kinds, task, y, train_rows, test_rows, random_state,
               scores) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    for which, frame in (("original", original), ("anonymized", anonymized)):
        tr, te = prepare_data(frame.iloc[train_rows], frame.iloc[test_rows], kinds)
        if task == "classification":
            model = HistGradientBoostingClassifier(random_state=random_state)
            model.fit(tr.to_numpy(), y[train_rows])
            scores[which] = float((model.predict(te.to_numpy()) == y[test_rows]).mean())
        else:
            model = HistGradientBoostingRegressor(random_state=random_state)
            model.fit(tr.to_numpy(), y[train_rows])
            err = model.predict(te.to_numpy()) - y[test_rows]
            scores[which] = float(np.sqrt(np.mean(err ** 2)))


def boosting_security_score(original: pd.DataFrame, anonymized: pd.DataFrame,
                            quasi_identifiers=None, *,
                            train_rows: int = SECURITY_TRAIN_ROWS,
                            test_rows: int = SECURITY_TEST_ROWS, random_state: int = 0,
                            n_threads: int | None = None) -> float:
    """Linkage attack by gradient boosting [reference: ``get_boosting_security_score``].

    The rows are split (seeded) into a training and a held-out part. A classifier
    (``HistGradientBoostingClassifier``) is trained on pairs (original row, anonymized row):
    each training row with its own anonymized row (a match) and with the anonymized row of
    another training row at a random shift (no match). Then, for every held-out anonymized
    row, all held-out original rows are scored and the most likely match is taken; the attack
    is right when that is the row's own original. Returns 1 − accuracy: 1.0 = no row
    re-identified (safe), 0.0 = every row re-identified. Guessing blindly scores
    1 − 1/``test_rows``.

    Bounded work: at most ``train_rows`` training rows (2·train_rows pairs) and ``test_rows``
    held-out rows (test_rows² scored pairs) are sampled, whatever the table size (the
    reference uses 80 % / 20 % of all rows, i.e. O(n²) predictions). Ties in the predicted
    probability are broken uniformly at random in expectation (a row tied with t others counts
    1/t), not in favour of the first row as in the reference. ``n_threads`` as in
    :func:`boosting_utility`.

    Example
    -------
    >>> import pdanon
    >>> df = pdanon.datasets.load_adult(nrows=600)[["age", "sex", "race"]]
    >>> boosting_security_score(df, df, train_rows=300, test_rows=50) < 1.0
    True
    """
    from sklearn.ensemble import HistGradientBoostingClassifier

    original = aligned(original, anonymized)
    kinds = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    if not kinds:
        raise InvalidInputError("no quasi-identifier columns to link on")
    n = len(anonymized)
    n_test = min(int(test_rows), n // 5)
    n_train = min(int(train_rows), n - n_test)
    if n_test < 2 or n_train < 2:
        raise InvalidInputError(
            f"the linkage attack needs at least 10 rows (it holds out a fifth), got {n}"
        )
    rng = np.random.default_rng(random_state)
    perm = rng.permutation(n)
    te_rows, tr_rows = perm[:n_test], perm[n_test:n_test + n_train]
    o_tr, o_te = prepare_data(original.iloc[tr_rows], original.iloc[te_rows], kinds)
    a_tr, a_te = prepare_data(anonymized.iloc[tr_rows], anonymized.iloc[te_rows], kinds)
    o_tr, o_te, a_tr, a_te = (x.to_numpy() for x in (o_tr, o_te, a_tr, a_te))
    shift = rng.integers(1, n_train, size=n_train)
    other = (np.arange(n_train) + shift) % n_train
    X = np.vstack([np.hstack([o_tr, a_tr]), np.hstack([o_tr, a_tr[other]])])
    y = np.concatenate([np.ones(n_train), np.zeros(n_train)])
    # every held-out anonymized row i against every held-out original row j
    pairs = np.hstack([np.tile(o_te, (n_test, 1)), np.repeat(a_te, n_test, axis=0)])
    with _threads(n_threads):
        model = HistGradientBoostingClassifier(random_state=random_state)
        model.fit(X, y)
        prob = model.predict_proba(pairs)[:, 1].reshape(n_test, n_test)  # [i, j]
    best = prob.max(axis=1, keepdims=True)
    tied = prob == best
    own = np.diag(tied)
    accuracy = float(np.mean(np.where(own, 1.0 / tied.sum(axis=1), 0.0)))
    return 1.0 - accuracy
