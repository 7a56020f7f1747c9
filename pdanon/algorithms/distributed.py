"""The reference's class ``DistributedDataOwnerKAnonymityDepersonalizator`` (cp2025), as a
thin driver over :class:`~pdanon.parties.DataOwner` and its message protocol. It lives with the
classic layer (``pdanon.algorithms`` imports ``pdanon.parties``, never the reverse)."""

from __future__ import annotations

import numpy as np

from pdanon._errors import InvalidInputError
from pdanon.algorithms._base import block_frame, check_kinds
from pdanon.parties import DataOwner, WeakKeyWarning, check_secret, random_secret, run_local

__all__ = ["DistributedDataOwnerKAnonymityDepersonalizator", "WeakKeyWarning"]


def _block(values, n_rows: int | None, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=object)
    if arr.size == 0:
        return np.empty((n_rows or 0, 0), dtype=object)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise InvalidInputError(f"{what} must be a 2-D array (rows x columns), got "
                                f"{arr.ndim}-D")
    return arr


class _ClassicOwner(DataOwner):
    """A DataOwner whose published cells are the reference's object cells."""

    def __init__(self, frame, roles, cols, sens_values, *, key, **kw):
        super().__init__(frame, quasi_identifiers=dict(roles.quasi_identifiers),
                         sensitive=dict(roles.sensitive), **kw)
        self._secret = key  # checked (and warned about) once, by the classic class
        self._cols = cols
        self._sens_values = sens_values
        self._allow_duplicate_names = True

    def _publish(self, table, labels):
        import pandas as pd

        out = {}
        q = len(self._cols)
        for j, col in enumerate(self._cols):
            out[j] = col.decode(table.iloc[:, j], "aggregate", labels) if self.n else (
                np.empty(0, dtype=object))
        for j in range(self._sens_values.shape[1]):
            out[q + j] = self._sens_values[:, j]
        return pd.DataFrame(out, index=table.index, columns=list(range(table.shape[1])),
                            dtype=object)


class DistributedDataOwnerKAnonymityDepersonalizator:
    """One of two data owners holding different columns of the same rows (cp2025 API).

    ``a.set_other_data_owner(b)``, ``b.set_other_data_owner(a)``, ``a.exchange_data()``; then
    ``a.joined_data`` and ``b.joined_data`` hold the same object array: the aggregated
    quasi-identifiers of ``a``, its sensitive columns, the aggregated quasi-identifiers of
    ``b``, its sensitive columns. The table is k-anonymous over all quasi-identifiers.

    Differences from the reference (docs/parties.md): row ids are hashed to curve points with
    a per-session salt (the reference encrypts ``id·G``, which the other owner can undo by
    trying ids); ``encryption_key=None`` draws a random 256-bit key (small keys such as the
    reference's 7 and 8 are accepted with a :class:`WeakKeyWarning`); local groups are merged
    by their true aggregation losses; and the run is a sequence of serialized messages
    (:class:`~pdanon.parties.DataOwner`), so the owners may also live in two processes.

    Example
    -------
    >>> import numpy as np
    >>> qi1 = np.array([[1, 1], [1, 2], [5, 5], [5, 6]], dtype=object)
    >>> qi2 = np.array([[7], [7], [9], [10]], dtype=object)
    >>> a = DistributedDataOwnerKAnonymityDepersonalizator(qi1, np.array([]), 2, None,
    ...                                                    quasi_identifiers_types=["real"] * 2)
    >>> b = DistributedDataOwnerKAnonymityDepersonalizator(qi2, np.array([]), 2, None,
    ...                                                    quasi_identifiers_types=["real"])
    >>> a.set_other_data_owner(b); b.set_other_data_owner(a)
    >>> a.exchange_data()
    >>> a.joined_data.tolist()
    [[1, 1.5, 7], [1, 1.5, 7], [5, 5.5, 9.5], [5, 5.5, 9.5]]
    """

    def __init__(self, quasi_identifiers, sensitives, k, encryption_key,
                 quasi_identifiers_types=None, seed=None):

        qi = _block(quasi_identifiers, None, "quasi_identifiers")
        self._qi = qi
        self._sens = _block(sensitives, qi.shape[0], "sensitives")
        if self._sens.shape[0] != qi.shape[0]:
            raise InvalidInputError(
                f"sensitives has {self._sens.shape[0]} rows but quasi_identifiers has "
                f"{qi.shape[0]}; give one row per person")
        self.k = k
        self.quasi_identifiers_types = check_kinds(quasi_identifiers_types, qi.shape[1])
        if encryption_key is None:
            self._key = random_secret()
        else:
            self._key = check_secret(encryption_key, name="encryption_key",
                                            stacklevel=2)
        self.seed = seed
        self.other_data_owner = None
        self.joined_data = None
        self.stats = None
        self.backend = "auto"

    def set_other_data_owner(self, other_data_owner) -> None:
        """Tell this owner who the other one is."""
        if not isinstance(other_data_owner, DistributedDataOwnerKAnonymityDepersonalizator):
            raise InvalidInputError(
                "the other data owner must be a DistributedDataOwnerKAnonymityDepersonalizator")
        self.other_data_owner = other_data_owner

    def _owner(self) -> _ClassicOwner:

        frame, roles, cols = block_frame(self._qi, self._sens, self.quasi_identifiers_types)
        return _ClassicOwner(frame, roles, cols, self._sens, k=self.k, key=self._key,
                             seed=self.seed, backend=self.backend)

    def exchange_data(self) -> None:
        """Run the protocol with the other owner (this owner's columns come first) and set
        ``joined_data`` on both."""
        other = self.other_data_owner
        if other is None or other is self:
            raise InvalidInputError(
                "call set_other_data_owner(other) on both owners before exchange_data()")
        if other.other_data_owner is not None and other.other_data_owner is not self:
            raise InvalidInputError("the other owner is paired with a third owner")
        a, b = self._owner(), other._owner()
        run_local(a, b)
        # each owner's own view of the joined table (they are equal)
        self.joined_data = _as_array(a.tables)
        other.joined_data = _as_array(b.tables)
        self.stats, other.stats = a.stats, b.stats


def _as_array(tables) -> np.ndarray:
    first, second = tables
    width = first.shape[1] + second.shape[1]
    joined = np.empty((first.shape[0], width), dtype=object)
    j = 0
    for t in (first, second):
        for c in range(t.shape[1]):
            joined[:, j] = t.iloc[:, c].to_numpy(dtype=object)
            j += 1
    return joined
