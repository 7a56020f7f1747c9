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
from pdanon.algorithms._base import DEFAULT_LEFT, Depersonalizator

__all__ = [
    "IdentifierHasher",
    "KeyedIdentifierHasher",
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


class KeyedIdentifierHasher(Depersonalizator):
    """Replace every identifier cell by its keyed pseudonym, HMAC-SHA-256 (hex) of the cell's
    text (:func:`pdanon.perturb.hmac_pseudonyms`; missing cells stay missing); quasi-identifier
    and sensitive columns are unchanged. Returns ``(table,)``. The safe counterpart of
    :class:`IdentifierHasher` (what ``depersonalize -a hasher --key-file`` runs).

    ``key``: bytes (e.g. ``secrets.token_bytes(32)``), a passphrase str of at least 12
    characters, or a :class:`pdanon.perturb.SecretKey` (see :func:`pdanon.perturb.resolve_key`).
    ``context``: ``None`` (equal values get equal pseudonyms in every column), ``"column"``
    (each column's label -- its position when the input has no labels -- separates the
    columns), or one str for every column.

    Example
    -------
    >>> import hmac
    >>> out = KeyedIdentifierHasher(b"k" * 32).depersonalize([["Ann", 30]], identifiers_ids=[0])[0]
    >>> out[0][0] == hmac.new(b"k" * 32, b"Ann", "sha256").hexdigest(), out[0][1]
    (True, 30)
    """

    def __init__(self, key, *, context=None):
        from pdanon.perturb import SecretKey, context_prefix, resolve_key

        super().__init__([])
        if key is None:
            raise InvalidInputError("KeyedIdentifierHasher needs a key, e.g. "
                                    "key=secrets.token_bytes(32); keep it secret")
        self._key = SecretKey(resolve_key(key)[0])
        if context is not None and not isinstance(context, str):
            raise InvalidInputError(f"context must be None, 'column' or a str, got {context!r}")
        if context != "column":
            context_prefix(context)  # refuses an empty context now
        self.context = context
        self._labels = None

    def __repr__(self) -> str:
        return f"KeyedIdentifierHasher(key=<withheld>, context={self.context!r})"

    def depersonalize(self, df, identifiers_ids=None, quasi_identifiers_ids=DEFAULT_LEFT,
                      sensitives_ids=None):
        self._labels = list(df.columns) if isinstance(df, pd.DataFrame) else None
        try:
            return super().depersonalize(df, identifiers_ids, quasi_identifiers_ids,
                                         sensitives_ids)
        finally:
            self._labels = None

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        from pdanon.perturb import hmac_pseudonyms

        ids = list(self.identifiers_ids or [])
        out = np.empty(identifiers.shape, dtype=object)
        for j, pos in enumerate(ids):
            name = self._labels[pos] if self._labels is not None else pos
            hashed = hmac_pseudonyms(pd.Series(identifiers[:, j], dtype=object), self._key,
                                     context=self.context, name=name)
            out[:, j] = hashed.to_numpy(dtype=object, na_value=None)
        return out, quasi_identifiers


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


class _OwnGenerator:
    """A per-object :class:`numpy.random.Generator` built from ``seed`` on first use
    (:func:`pdanon.perturb.make_rng`: reproducible from a seed, from :mod:`secrets` when
    ``seed`` is None). Setting ``seed`` starts a new generator. numpy's global generator is
    neither read nor changed."""

    _seed = None
    _rng = None

    @property
    def seed(self):
        """The seed of this object's generator (None: fresh randomness from secrets)."""
        return self._seed

    @seed.setter
    def seed(self, value):
        from pdanon.perturb import make_rng

        if value is not None:
            make_rng(value)  # refuses a bad seed now, not at the first draw
        self._seed = value
        self._rng = None

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            from pdanon.perturb import make_rng

            self._rng = make_rng(self._seed)
        return self._rng


class RandomOrdered(_OwnGenerator):
    """The reference's default randomizer for one ordered (``values_type='ordered'``) or real
    column, as a per-value callable: the value's first position in ``sorted_values`` is
    shifted by N(0, 1)·len·scale (truncated to an int for ordered; linear interpolation for
    real) and clipped to the ends.

    Draws come from the object's own generator, not numpy's global one: set ``r.seed = 3``
    (the constructor keeps the reference's signature) for reproducible draws; without a seed
    the generator is seeded from :mod:`secrets`.

    Example
    -------
    >>> RandomOrdered([1, 2, 3], scale=0)(2)
    2
    >>> a, b = RandomOrdered(range(100), scale=0.1), RandomOrdered(range(100), scale=0.1)
    >>> a.seed = b.seed = 5
    >>> [a(50) for _ in range(3)] == [b(50) for _ in range(3)]
    True
    """

    def __init__(self, sorted_values, values_type="ordered", scale=0.25):
        self.sorted_values = list(sorted_values)
        self.scale = scale
        self.values_type = values_type

    def __call__(self, x):
        vals = self.sorted_values
        n = len(vals)
        pos = bisect.bisect_left(vals, x)
        z = float(self.rng.standard_normal())
        if self.values_type == "ordered":
            return vals[int(np.clip(pos + int(z * n * self.scale), 0, n - 1))]
        new = pos + z * n * self.scale
        if new < 0:
            return vals[0]
        if new >= n - 1:
            return vals[-1]
        i = int(new)
        return vals[i] + (new - i) * (vals[i + 1] - vals[i])


class RandomUnordered(_OwnGenerator):
    """The reference's default randomizer for one unordered column: keep the value or (fair
    coin) replace it by a uniformly drawn value of ``values``.

    Draws come from the object's own generator (set ``r.seed`` for reproducible draws; from
    :mod:`secrets` otherwise), never numpy's global one.

    Example
    -------
    >>> RandomUnordered(["a"])("a")
    'a'
    >>> r = RandomUnordered(["a", "b", "c"]); r.seed = 1
    >>> first = [r("x") for _ in range(6)]
    >>> r.seed = 1  # a new generator from the same seed
    >>> [r("x") for _ in range(6)] == first
    True
    """

    def __init__(self, values):
        self.values = list(values)

    def __call__(self, x):
        rng = self.rng
        if rng.random() < 0.5:
            return x
        return self.values[int(rng.integers(len(self.values)))]


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
        from pdanon.algorithms._base import BlockColumn
        from pdanon.perturb import make_rng, randomize_series

        q = quasi_identifiers.shape[1]
        kinds = self._block_kinds(self.quasi_identifiers_types, q)
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
                series = pd.Series(np.asarray(BlockColumn(col, "real", pos,
                                                      role="quasi-identifier").series,
                                              dtype=np.float64))
            else:
                series = pd.Series(col, dtype=object)
            new, _ = randomize_series(series, kind, rng=rng, scale=float(self.scale),
                                      low=low if noise else None, high=high if noise else None,
                                      histogram="edges")
            out[:, j] = new.to_numpy(dtype=object)
        return None, out
