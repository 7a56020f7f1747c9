"""Classic perturbation classes: identifier hashing, shuffling and randomization, thin wrappers
over :mod:`pdanon.perturb`.

Example
-------
>>> from pdanon.algorithms import Shuffler
>>> out = Shuffler(seed=0).depersonalize([[1, "a"], [2, "b"], [3, "c"]])[0]
>>> sorted(r[0] for r in out), sorted(r[1] for r in out)
([1, 2, 3], ['a', 'b', 'c'])
"""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Iterable

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.algorithms._base import Depersonalizator, check_kinds

__all__ = [
    "IdentifierHasher",
    "RandomOrdered",
    "RandomUnordered",
    "RandomizationBaselineDepersonalizator",
    "Shuffler",
    "ShufflerInBatches",
]


class IdentifierHasher(Depersonalizator):
    """Replace every identifier cell by the SHA-256 hex digest of its whole row of identifiers
    (the reference's output, kept for compatibility; quasi-identifiers and sensitive columns are
    unchanged). Returns ``(table,)``.

    **Unsafe**: the hash is unkeyed, so identifiers from small spaces (phone numbers, names)
    are recovered by hashing every candidate. Use ``df.anon.hash_identifiers()`` (keyed
    HMAC-SHA-256) for real releases; see docs/perturbation.md.

    Example
    -------
    >>> out = IdentifierHasher().depersonalize([["Ann", 30]], identifiers_ids=[0])[0]
    >>> out[0][0][:12], out[0][1]
    ('b14aacbcc2ac', 30)
    """

    def __init__(self):
        super().__init__([])

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        from pdanon.perturb import reference_sha256_rows

        return reference_sha256_rows(identifiers), quasi_identifiers


def _blocks_frame(identifiers, quasi, sensitives, ids, qis, sens):
    """The three blocks as one frame whose labels are the columns' original positions."""
    data = {}
    for block, positions in ((identifiers, ids), (quasi, qis), (sensitives, sens)):
        for j, pos in enumerate(positions):
            if pos not in data:
                data[pos] = block[:, j]
    return pd.DataFrame(data, dtype=object)


def _write_back(frame, identifiers, quasi, sensitives, ids, qis, sens) -> None:
    for block, positions in ((identifiers, ids), (quasi, qis), (sensitives, sens)):
        for j, pos in enumerate(positions):
            block[:, j] = frame[pos].to_numpy(dtype=object)


class Shuffler(Depersonalizator):
    """Permute each listed column independently (column positions in the input table; every
    column when ``columns_ids_to_shuffle`` is None). Identifier columns are kept (shuffled
    only if listed). Returns ``(table,)``.

    Engine: :func:`pdanon.perturb.shuffle_frame`. ``seed`` makes the permutation reproducible;
    without one it is drawn from the operating system's secure source.

    Example
    -------
    >>> out = Shuffler([1], seed=1).depersonalize([[1, "a"], [2, "b"]])[0]
    >>> [r[0] for r in out]
    [1, 2]
    """

    def __init__(self, columns_ids_to_shuffle=None, seed=None):
        super().__init__([0])
        self.columns_ids_to_shuffle = columns_ids_to_shuffle
        self.seed = seed

    def _groups(self, frame, qis):
        return None

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        from pdanon.perturb import make_rng, shuffle_frame

        ids, qis, sens = self.identifiers_ids, self.quasi_identifiers_ids, self.sensitives_ids
        frame = _blocks_frame(identifiers, quasi_identifiers, sensitives, ids, qis, sens)
        cols = self.columns_ids_to_shuffle
        if cols is None:
            cols = list(frame.columns)
        else:
            if isinstance(cols, numbers.Integral):
                cols = [cols]
            cols = [int(c) for c in cols]
            cols = [c for c in dict.fromkeys(cols) if c in frame.columns]
        out = shuffle_frame(frame, cols, groups=self._groups(frame, qis),
                            rng=make_rng(self.seed))
        _write_back(out, identifiers, quasi_identifiers, sensitives, ids, qis, sens)
        return identifiers, quasi_identifiers


class ShufflerInBatches(Shuffler):
    """As :class:`Shuffler`, but values move only between rows with identical
    quasi-identifier values (a *batch*: an equivalence class). Returns ``(table,)``.

    The reference's class returns the table unchanged (it shuffles copies of the batches);
    pdanon shuffles within the batches as documented.

    Example
    -------
    >>> out = ShufflerInBatches([1], seed=0).depersonalize(
    ...     [["x", 1], ["x", 2], ["y", 3]], sensitives_ids=[1])[0]
    >>> out[2], sorted(r[1] for r in out[:2])
    (['y', 3], [1, 2])
    """

    def _groups(self, frame, qis):
        from pdanon._groups import class_labels

        return class_labels(frame, list(dict.fromkeys(qis))) if qis else None

    def get_batches(self, quasi_identifiers):
        """The batches: row positions of each set of identical quasi-identifier rows, in
        order of first appearance."""
        from pdanon._groups import class_labels

        q = np.asarray(quasi_identifiers, dtype=object)
        q = q.reshape(len(q), -1)
        frame = pd.DataFrame({j: q[:, j] for j in range(q.shape[1])}, dtype=object)
        labels = class_labels(frame, list(frame.columns)) if q.shape[1] else np.zeros(len(q), int)
        batches = [[] for _ in range(int(labels.max()) + 1 if len(labels) else 0)]
        for i, g in enumerate(labels.tolist()):
            batches[g].append(i)
        return batches


class RandomOrdered:
    """The reference's default randomizer for one ordered (``values_type='ordered'``) or real
    column, as a per-value callable: the value's first position in ``sorted_values`` is
    shifted by N(0, 1)·len·scale (truncated to an int for ordered; linear interpolation for
    real) and clipped to the ends. Uses numpy's global generator, as the reference.

    Example
    -------
    >>> RandomOrdered([1, 2, 3], scale=0)(2)
    2
    """

    def __init__(self, sorted_values, values_type="ordered", scale=0.25):
        self.sorted_values = list(sorted_values)
        self.scale = scale
        self.values_type = values_type

    def __call__(self, x):
        vals = self.sorted_values
        n = len(vals)
        pos = bisect.bisect_left(vals, x)
        z = float(np.random.normal(0, 1))
        if self.values_type == "ordered":
            return vals[int(np.clip(pos + int(z * n * self.scale), 0, n - 1))]
        new = pos + z * n * self.scale
        if new < 0:
            return vals[0]
        if new >= n - 1:
            return vals[-1]
        i = int(new)
        return vals[i] + (new - i) * (vals[i + 1] - vals[i])


class RandomUnordered:
    """The reference's default randomizer for one unordered column: keep the value or (fair
    coin) replace it by a uniformly drawn value of ``values`` (numpy's global generator).

    Example
    -------
    >>> RandomUnordered(["a"])("a")
    'a'
    """

    def __init__(self, values):
        self.values = list(values)

    def __call__(self, x):
        if np.random.random() < 0.5:
            return x
        return self.values[int(np.random.randint(len(self.values)))]


def _per_column(option, j):
    if isinstance(option, Iterable) and not isinstance(option, (str, bytes)):
        option = list(option)
        return option[j] if j < len(option) else None
    return option


class RandomizationBaselineDepersonalizator(Depersonalizator):
    """Randomize every quasi-identifier column (identifier columns are dropped, sensitive
    columns kept). Per column, in order of precedence:

    * ``rand_add`` (a function, or a list with one function or None per column): each value
      ``x`` becomes ``rand_add(x)`` (the reference replaces the value by the function's
      result);
    * ``min_rand`` / ``max_rand`` (numbers, or lists per column), real columns: ``x`` plus
      uniform noise in [min_rand, max_rand];
    * the default for the column's kind (``quasi_identifiers_types``, default unordered):
      unordered → keep or replace by a random value of the column (fair coin); ordered → the
      sorted column's value ``int(N(0,1)·n·scale)`` positions away (clipped); real → a sample of
      n values from a 30-bin histogram (bin left edges, as the reference), shifted by
      N(0,1)·n·scale positions with linear interpolation (clipped).

    Returns ``(table,)``. Engine: :func:`pdanon.perturb.randomize_series`; ``seed`` makes every
    draw reproducible (the reference's ordered/real draws are not).

    Example
    -------
    >>> out = RandomizationBaselineDepersonalizator(quasi_identifiers_types=["ordered"],
    ...                                             scale=0, seed=0).depersonalize([[1], [2]])
    >>> out
    ([[1], [2]],)
    """

    def __init__(self, *, min_rand=None, max_rand=None, seed=None, rand_add=None,
                 quasi_identifiers_types=None, scale=1):
        super().__init__([0])
        self.min_rand = min_rand
        self.max_rand = max_rand
        self.seed = seed
        self.rand_add = rand_add
        self.quasi_identifiers_types = quasi_identifiers_types
        self.scale = scale

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        from pdanon.algorithms._base import _Column
        from pdanon.perturb import make_rng, randomize_series

        q = quasi_identifiers.shape[1]
        kinds = check_kinds(self.quasi_identifiers_types, q)
        rng = make_rng(self.seed)
        out = quasi_identifiers.copy()
        for j, kind in enumerate(kinds):
            col = quasi_identifiers[:, j]
            pos = self.quasi_identifiers_ids[j] if self.quasi_identifiers_ids else j
            fn = _per_column(self.rand_add, j)
            if fn is not None:
                if not callable(fn):
                    raise InvalidInputError(
                        f"rand_add for column {pos} must be a function of one value, got {fn!r}")
                out[:, j] = [fn(x) for x in col.tolist()]
                continue
            low, high = _per_column(self.min_rand, j), _per_column(self.max_rand, j)
            noise = kind == "real" and low is not None and high is not None
            if kind == "real":
                series = pd.Series(np.asarray(_Column(col, "real", pos,
                                                      role="quasi-identifier").series,
                                              dtype=np.float64))
            else:
                series = pd.Series(col, dtype=object)
            new, _ = randomize_series(series, kind, rng=rng, scale=float(self.scale),
                                      low=low if noise else None, high=high if noise else None,
                                      histogram="edges")
            out[:, j] = new.to_numpy(dtype=object)
        return None, out
