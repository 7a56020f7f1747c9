"""Perturbation: shuffling, randomization and keyed hashing of identifiers.

The pure functions here work on plain DataFrames / Series and explicit arguments (no roles);
``df.anon.shuffle``, ``df.anon.randomize``, ``df.anon.hash_identifiers`` and the classic
``Shuffler`` / ``ShufflerInBatches`` / ``RandomizationBaselineDepersonalizator`` /
``IdentifierHasher`` classes are thin faces over them.

Randomness: every function takes a :class:`numpy.random.Generator`; :func:`make_rng` builds one
from a user seed (reproducible) or, when the seed is ``None``, from 128 bits drawn from
:mod:`secrets` (the operating system's cryptographically secure source). The generated entropy is
never stored anywhere, so an unseeded shuffle cannot be replayed (and so undone) from the output.
A user seed is not stored either: ``info`` says only how randomness was sourced.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [30, 31, 40, 42], "disease": ["flu", "cold", "flu", "gout"]})
>>> out = shuffle_frame(df, ["disease"], rng=make_rng(0))
>>> sorted(out["disease"]) == sorted(df["disease"])
True
"""

from __future__ import annotations

import hashlib
import math
import numbers
import secrets
import warnings
from datetime import date, datetime
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError, UnknownColumnError
from pdanon.recode import publish_frame

KINDS = ("real", "ordered", "unordered")
HISTOGRAM_BINS = 30

__all__ = [
    "SecretKey",
    "canonical_text",
    "context_prefix",
    "derive_key",
    "drop_identifiers_by_roles",
    "hash_by_roles",
    "key_fingerprint",
    "randomize_by_roles",
    "shuffle_by_roles",
    "hmac_pseudonyms",
    "make_rng",
    "permutation_within",
    "randomize_frame",
    "randomize_series",
    "reference_sha256_rows",
    "resolve_key",
    "shuffle_frame",
]


# =========================================================================== randomness


def make_rng(seed=None) -> np.random.Generator:
    """A numpy Generator: reproducible from ``seed``, or cryptographically seeded when ``None``.

    ``seed`` may be ``None``, a non-negative int, a :class:`numpy.random.SeedSequence` or an
    existing :class:`numpy.random.Generator` (returned as is). With ``None`` the PCG64 state is
    seeded with 128 bits from :func:`secrets.randbits` and that entropy is not kept.

    Example
    -------
    >>> make_rng(7).integers(0, 100, 3).tolist() == make_rng(7).integers(0, 100, 3).tolist()
    True
    """
    if seed is None:
        return np.random.Generator(np.random.PCG64(secrets.randbits(128)))
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.Generator(np.random.PCG64(seed))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidInputError(
            f"seed must be None, a non-negative int or a numpy Generator, got {seed!r}"
        )
    return np.random.Generator(np.random.PCG64(int(seed)))


def _seed_info(seed):
    """How the randomness was sourced -- never the seed itself: ``info`` travels in
    ``df.attrs`` and so into Parquet files, and a published seed lets anyone replay (and so
    undo) a shuffle or subtract the noise of a randomization."""
    if seed is None:
        return {"random_source": "secrets"}
    if isinstance(seed, np.random.Generator):
        return {"random_source": "generator given"}
    return {"random_source": "seed given"}


# =========================================================================== shuffling


def permutation_within(labels, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation that moves rows only inside their group.

    ``labels`` is one integer group label per row (``None`` = one group). Returns ``perm`` such
    that ``values[perm]`` is the shuffled column: row ``i`` receives the value of row ``perm[i]``,
    and ``labels[perm] == labels``. Built with one random permutation followed by a stable sort
    by label, so every within-group order is equally likely (O(n log n), no Python loop).

    Example
    -------
    >>> labels = np.array([0, 1, 0, 1, 0])
    >>> perm = permutation_within(labels, make_rng(1))
    >>> bool((labels[perm] == labels).all())
    True
    """
    if labels is None:
        raise InvalidInputError("labels is None: use rng.permutation(n) for a whole-column shuffle")
    labels = np.asarray(labels)
    n = len(labels)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    scrambled = rng.permutation(n)
    # rows grouped by label, in random order inside each group
    donors = scrambled[np.argsort(labels[scrambled], kind="stable")]
    # the same group blocks, in row order: block positions line up label by label
    receivers = np.argsort(labels, kind="stable")
    perm = np.empty(n, dtype=np.intp)
    perm[receivers] = donors
    return perm


def _take(series: pd.Series, rows: np.ndarray) -> pd.Series:
    """``series`` values at positions ``rows``, keeping the original index, name and dtype."""
    return pd.Series(series.array.take(rows), index=series.index, name=series.name)


def shuffle_frame(df: pd.DataFrame, columns: Sequence, *, groups=None,
                  rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Permute each of ``columns`` independently (the reference's ``Shuffler``), or only inside
    the groups given by ``groups`` (integer labels per row; ``ShufflerInBatches`` when the labels
    are the equivalence classes).

    Every column gets its own permutation, so links between shuffled columns are broken too.
    Other columns, the index and the row order are unchanged; ``df`` is not modified; any dtype
    (including extension dtypes) is kept.

    Example
    -------
    >>> df = pd.DataFrame({"zip": ["A", "A", "B", "B"], "s": [1, 2, 3, 4]})
    >>> out = shuffle_frame(df, ["s"], groups=np.array([0, 0, 1, 1]), rng=make_rng(0))
    >>> sorted(out["s"][:2]), sorted(out["s"][2:])
    ([1, 2], [3, 4])
    """
    rng = make_rng() if rng is None else rng
    _check_columns(df, columns, "shuffle")
    n = len(df)
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape != (n,):
            raise InvalidInputError(f"groups has shape {groups.shape}; expected one label per row ({n})")
    out = df.copy(deep=False)
    for col in columns:
        perm = rng.permutation(n) if groups is None else permutation_within(groups, rng)
        out[col] = df[col].array.take(perm)
    return out


# =========================================================================== randomization


def _is_generalized(series: pd.Series) -> bool:
    return str(getattr(series.dtype, "name", "")).startswith("generalization")


def _is_integer_dtype(dtype) -> bool:
    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _check_real(series: pd.Series, what: str) -> None:
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        raise KindError(
            f"column {series.name!r} has dtype {dtype} but {what} needs numbers; convert it "
            f"(e.g. pd.to_numeric(df[{series.name!r}])) or declare its kind 'ordered' or "
            "'unordered'"
        )


def _numeric_result(series: pd.Series, valid: np.ndarray, values: np.ndarray) -> pd.Series:
    """Put new float ``values`` (for the non-missing rows) back into a column of the original
    dtype: integer columns are rounded to the nearest integer, missing cells stay missing."""
    full = np.full(len(series), np.nan)
    full[valid] = values
    dtype = series.dtype
    if _is_integer_dtype(dtype):
        full = np.rint(full)
        if isinstance(dtype, np.dtype):
            return pd.Series(full.astype(dtype), index=series.index, name=series.name)
    return pd.Series(full, index=series.index, name=series.name).astype(dtype)


def _apply_noise_function(func: Callable, x: np.ndarray, column) -> np.ndarray:
    """Call ``func`` once on the whole array; if it does not give back one number per value,
    treat it as a scalar function and call it once per value."""
    try:
        y = func(x.copy())
        y = np.asarray(y, dtype=np.float64)
        if y.shape == x.shape:
            return y
    except (TypeError, ValueError):
        pass
    try:
        return np.fromiter((func(v) for v in x.tolist()), dtype=np.float64, count=len(x))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"noise function for column {column!r} must map an array of values to an array of "
            f"numbers of the same length, or one number to one number: {exc}"
        ) from exc


def randomize_series(series: pd.Series, kind: str, *, rng: np.random.Generator,
                     scale: float = 1.0, low=None, high=None, noise: Callable | None = None,
                     noise_mode: str = "add", histogram: str = "uniform",
                     clip: bool = True) -> tuple[pd.Series, str]:
    """Randomize one column; returns ``(new column, method name)``.

    Missing cells stay missing and are not used. Methods, in order of precedence:

    * ``noise`` (real columns): ``noise_mode="add"`` gives ``x + noise(x)``, ``"replace"`` gives
      ``noise(x)``. ``noise`` is first called once with the array of values (float64); if it
      does not return one number per value it is called once per value (a scalar function).
    * ``low``/``high`` (real columns): ``x + U(low, high)``.
    * default for the kind (the reference's ``RandomizationBaselineDepersonalizator``), with
      n = number of non-missing values:

      - ``unordered``: a fair coin per cell keeps the value or replaces it by the value of a
        uniformly drawn row of the column;
      - ``ordered``: with ``pos`` = first position of the value in the sorted column, take the
        sorted column's element at ``clip(pos + int(z·n·scale), 0, n−1)``, ``z ~ N(0, 1)``
        (``int`` truncates toward zero);
      - ``real``: draw n values from a 30-bin histogram of the column and sort them (``samples``);
        with ``pos`` = first position of the value in ``samples``, return ``samples`` linearly
        interpolated at ``pos + z·n·scale`` (clamped to the ends). ``histogram="edges"`` draws bin
        left edges as the reference does; ``"uniform"`` (default) draws uniformly inside the bin,
        which removes the reference's downward bias of half a bin width. A constant column is
        returned unchanged.

    Real results are clipped to the column's observed [min, max] when ``clip`` (the default
    methods never leave it anyway); integer columns are rounded to the nearest integer and keep
    their dtype. Ordered and unordered results are values of the column, so the dtype (e.g. an
    ordered Categorical with its categories) is kept exactly.

    Example
    -------
    >>> s = pd.Series([1, 2, 3, 4, 5])
    >>> out, how = randomize_series(s, "real", rng=make_rng(0), low=1, high=1)
    >>> out.tolist(), how
    ([2, 3, 4, 5, 5], 'uniform[1, 1]')
    """
    if kind not in KINDS:
        raise KindError(f"unknown kind {kind!r} for column {series.name!r}; use one of {list(KINDS)}")
    if noise_mode not in ("add", "replace"):
        raise InvalidInputError(f"noise_mode must be 'add' or 'replace', got {noise_mode!r}")
    if histogram not in ("uniform", "edges"):
        raise InvalidInputError(f"histogram must be 'uniform' or 'edges', got {histogram!r}")
    if _is_generalized(series):
        raise KindError(
            f"column {series.name!r} holds generalized cells; randomize plain values "
            "(before generalizing) instead"
        )
    valid = ~series.isna().to_numpy()
    idx = np.flatnonzero(valid)
    n = len(idx)
    uses_noise = noise is not None or low is not None or high is not None
    if uses_noise:
        _check_real(series, "noise")
        if kind != "real":
            raise KindError(
                f"noise applies to real columns; column {series.name!r} is {kind!r} (declare it "
                f"real, e.g. quasi_identifiers={{{series.name!r}: 'real'}}, or drop the noise)"
            )
        if noise is None and (low is None or high is None):
            raise InvalidInputError(
                f"give both low and high for uniform noise on column {series.name!r}"
            )
    if noise is not None:
        method = f"function ({noise_mode})"
    elif uses_noise:
        method = f"uniform[{low}, {high}]"
    else:
        method = f"default-{kind}"
    if n == 0:
        return series.copy(), method

    if kind == "real":
        _check_real(series, "real randomization")
        x = series.to_numpy(dtype=np.float64, na_value=np.nan)[idx]
        lo, hi = float(x.min()), float(x.max())
        if noise is not None:
            y = _apply_noise_function(noise, x, series.name)
            r = x + y if noise_mode == "add" else y
        elif uses_noise:
            low, high = float(low), float(high)
            if not (math.isfinite(low) and math.isfinite(high)) or low > high:
                raise InvalidInputError(
                    f"uniform noise on column {series.name!r} needs finite low <= high, "
                    f"got low={low}, high={high}"
                )
            r = x + rng.uniform(low, high, n)
        else:
            if lo == hi:
                return series.copy(), method
            r = _histogram_shift(x, rng, scale, histogram)
        if clip:
            r = np.clip(r, lo, hi)
        return _numeric_result(series, valid, r), method

    if kind == "ordered":
        codes = _order_codes(series, valid)
        sorted_rows = np.argsort(codes, kind="stable")
        sorted_codes = codes[sorted_rows]
        pos = np.searchsorted(sorted_codes, codes, side="left")
        shift = np.clip(rng.standard_normal(n) * (n * float(scale)), -(n + 1), n + 1)
        new_pos = np.clip(pos + shift.astype(np.int64), 0, n - 1)
        rows = np.arange(len(series))
        rows[idx] = idx[sorted_rows[new_pos]]
        return _take(series, rows), method

    # unordered
    replace = rng.random(n) < 0.5
    donors = rng.integers(0, n, n)
    rows = np.arange(len(series))
    rows[idx] = np.where(replace, idx[donors], idx)
    return _take(series, rows), method


def _histogram_shift(x: np.ndarray, rng, scale: float, histogram: str) -> np.ndarray:
    n = len(x)
    counts, edges = np.histogram(x, bins=HISTOGRAM_BINS)
    # drawing a bin with probability count/n == the bin of a uniformly drawn value
    bin_of = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, HISTOGRAM_BINS - 1)
    bins = bin_of[rng.integers(0, n, n)]
    samples = edges[bins]
    if histogram == "uniform":
        samples = samples + rng.random(n) * (edges[bins + 1] - edges[bins])
    samples.sort()
    pos = np.searchsorted(samples, x, side="left")
    new_pos = pos + rng.standard_normal(n) * (n * float(scale))
    return np.interp(new_pos, np.arange(n, dtype=np.float64), samples)


def _order_codes(series: pd.Series, valid: np.ndarray) -> np.ndarray:
    """Codes of the non-missing cells that follow the value order (categories order for
    categoricals)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return np.asarray(series.cat.codes.to_numpy()[valid], dtype=np.int64)
    try:
        codes, _ = pd.factorize(series.iloc[np.flatnonzero(valid)], sort=True)
    except TypeError as exc:
        raise KindError(
            f"column {series.name!r} cannot be sorted ({exc}); convert it to one type "
            f"(e.g. df[{series.name!r}].astype(str)) or declare it 'unordered'"
        ) from exc
    return np.asarray(codes, dtype=np.int64)


def _per_column(option, column):
    if isinstance(option, Mapping):
        return option.get(column)
    return option


def randomize_frame(df: pd.DataFrame, kinds: Mapping[Hashable, str], *,
                    rng: np.random.Generator | None = None, scale: float = 1.0, low=None,
                    high=None, noise=None, noise_mode: str = "add", histogram: str = "uniform",
                    clip: bool = True) -> tuple[pd.DataFrame, dict]:
    """Randomize the columns named in ``kinds`` (``{column: kind}``) with
    :func:`randomize_series`; returns ``(new frame, {column: method})``.

    ``low``, ``high`` and ``noise`` are either one value for every column or ``{column: value}``.
    A single ``low``/``high``/``noise`` applies to the real columns only (as in the reference,
    other kinds get their default method); naming a non-real column in a dict is a
    :class:`~pdanon.KindError`. Columns are processed in the order of ``kinds``, each drawing
    from ``rng`` in turn.

    Example
    -------
    >>> df = pd.DataFrame({"age": [20, 30, 40], "sex": ["F", "M", "F"]})
    >>> out, how = randomize_frame(df, {"age": "real", "sex": "unordered"}, rng=make_rng(0),
    ...                            low=0, high=0)
    >>> out["age"].tolist(), how["age"], how["sex"]
    ([20, 30, 40], 'uniform[0, 0]', 'default-unordered')
    """
    rng = make_rng() if rng is None else rng
    _check_columns(df, list(kinds), "randomize")
    scale = float(scale)
    if not math.isfinite(scale) or scale < 0:
        raise InvalidInputError(f"scale must be a finite number >= 0, got {scale}")
    for name, opt in (("low", low), ("high", high), ("noise", noise)):
        if isinstance(opt, Mapping):
            _check_columns(df, list(opt), f"{name}=")
            stray = [c for c in opt if c not in kinds]
            if stray:
                raise InvalidInputError(
                    f"{name}= names column(s) {stray} that are not being randomized; "
                    f"add them to columns= or remove them from {name}="
                )
            wrong = [c for c in opt if kinds[c] != "real"]
            if wrong:
                raise KindError(
                    f"{name}= names column(s) {wrong} whose kind is not 'real'; noise applies "
                    "to real columns (declare them real or drop the noise)"
                )
        elif noise is not None and name == "noise" and not callable(noise):
            raise InvalidInputError("noise must be a function or {column: function}")
    out = df.copy(deep=False)
    methods = {}
    for col, kind in kinds.items():
        c_low, c_high, c_noise = (_per_column(o, col) for o in (low, high, noise))
        if kind != "real":
            c_low = c_high = c_noise = None
        if c_noise is not None and not callable(c_noise):
            raise InvalidInputError(f"noise for column {col!r} must be a function, got {c_noise!r}")
        new, methods[col] = randomize_series(
            df[col], kind, rng=rng, scale=scale, low=c_low, high=c_high, noise=c_noise,
            noise_mode=noise_mode, histogram=histogram, clip=clip)
        out[col] = new.array
    return out, methods


# =========================================================================== keyed hashing


class SecretKey(dict):
    """A secret HMAC key that does not leak when the frame holding it is saved or printed.

    It is what ``df.anon.hash_identifiers()`` returns in ``out.anon.info["key"]`` when it
    generated the key. ``bytes(key)`` (or ``key.hex()``) gives the raw key: store it in a secret
    manager to pseudonymize later data consistently. The repr/str never shows the key.

    Why a ``dict`` subclass: ``df.attrs`` travel with the frame and pandas writes them as JSON
    into Parquet files. An empty dict serializes as ``{}``, so the key is never written into a
    published file; pickling (``to_pickle``) withholds it too. Copies inside the process
    (``copy.deepcopy``, pandas propagating attrs) keep it.

    Example
    -------
    >>> k = SecretKey(b"0" * 32)
    >>> repr(k), bytes(k) == b"0" * 32
    ('SecretKey(<withheld, 32 bytes>)', True)
    """

    __slots__ = ("_secret",)

    def __init__(self, secret: bytes | None):
        super().__init__()
        object.__setattr__(self, "_secret", None if secret is None else bytes(secret))

    def __bytes__(self) -> bytes:
        if self._secret is None:
            raise InvalidInputError(
                "this SecretKey was withheld when its frame was pickled; use the key saved "
                "when it was generated"
            )
        return self._secret

    def hex(self) -> str:
        """The key as hexadecimal text (to store it safely, e.g. in a secret manager)."""
        return bytes(self).hex()

    @property
    def nbytes(self) -> int:
        return 0 if self._secret is None else len(self._secret)

    def __repr__(self) -> str:
        if self._secret is None:
            return "SecretKey(<withheld, not available>)"
        return f"SecretKey(<withheld, {len(self._secret)} bytes>)"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if not isinstance(other, SecretKey):
            return NotImplemented
        if self._secret is None or other._secret is None:
            return self._secret is other._secret
        return secrets.compare_digest(self._secret, other._secret)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self):
        return SecretKey(self._secret)

    def __deepcopy__(self, memo):
        return SecretKey(self._secret)

    def __reduce__(self):
        return (SecretKey, (None,))

    def _readonly(self, *args, **kwargs):
        raise TypeError("SecretKey is read-only")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _readonly


PASSPHRASE_MIN_CHARS = 12
"""The shortest ``str`` key (passphrase) :func:`resolve_key` accepts, in characters."""

KDF_SALT = b"pdanon.perturb.resolve_key passphrase v1"
"""The fixed domain salt of the passphrase derivation. It is public and never changes, so the
same passphrase gives the same key (and pseudonyms) in every release; it only separates
pdanon's keys from other uses of the same passphrase."""

KDF_PARAMS = {"n": 2**15, "r": 8, "p": 1, "dklen": 32}
""":func:`hashlib.scrypt` cost parameters of the passphrase derivation (32 MiB of memory,
about 0.2 s per derivation), giving a 32-byte key."""

MIN_KEY_BYTES = 16
"""``bytes`` keys shorter than this give a warning."""


def derive_key(passphrase: str) -> bytes:
    """The 32-byte HMAC key of a passphrase: ``hashlib.scrypt(passphrase.encode("utf-8"),
    salt=KDF_SALT, n=2**15, r=8, p=1, dklen=32)``.

    A memory-hard derivation makes each guess of a passphrase cost about 0.2 s and 32 MiB, so
    offline guessing of a pseudonymized release is slow; it cannot make a short or common
    passphrase safe (hence :data:`PASSPHRASE_MIN_CHARS`). Deterministic: the same passphrase
    gives the same key on every machine and in every release.

    Example
    -------
    >>> derive_key("correct horse battery staple").hex()[:16]
    '68db446c57c05fbd'
    """
    if not isinstance(passphrase, str):
        raise InvalidInputError(f"a passphrase is a str, got {type(passphrase).__name__}")
    return hashlib.scrypt(passphrase.encode("utf-8"), salt=KDF_SALT, maxmem=64 * 1024 * 1024,
                          **KDF_PARAMS)


def resolve_key(key) -> tuple[bytes, bool]:
    """``(HMAC key bytes, generated?)`` from a user key or ``None``.

    * ``None``: a new random 256-bit key from :func:`secrets.token_bytes` (``generated`` is
      True);
    * ``bytes`` (or a :class:`SecretKey`): used as is; shorter than :data:`MIN_KEY_BYTES` (16)
      gives a warning, empty is an error;
    * ``str``: a passphrase of at least :data:`PASSPHRASE_MIN_CHARS` (12) characters, turned
      into a 32-byte key by :func:`derive_key` (scrypt with a fixed salt). A shorter passphrase
      is refused.

    Example
    -------
    >>> resolve_key("a long and secret passphrase")[0] == derive_key("a long and secret passphrase")
    True
    >>> k, generated = resolve_key(None); len(k), generated
    (32, True)
    """
    if key is None:
        return secrets.token_bytes(32), True
    if isinstance(key, SecretKey):
        raw = bytes(key)
    elif isinstance(key, (bytes, bytearray, memoryview)):
        raw = bytes(key)
    elif isinstance(key, str):
        if len(key) < PASSPHRASE_MIN_CHARS:
            raise InvalidInputError(
                f"key is a passphrase of {len(key)} character(s); a str key needs at least "
                f"{PASSPHRASE_MIN_CHARS} (a short passphrase can be guessed offline). Use a "
                "random key, key=secrets.token_bytes(32), or a longer passphrase"
            )
        return derive_key(key), False
    else:
        raise InvalidInputError(
            f"key must be bytes, str or a SecretKey, got {type(key).__name__}; e.g. "
            "key=secrets.token_bytes(32)"
        )
    if not raw:
        raise InvalidInputError("key is empty; use a secret of at least 32 random bytes "
                                "(secrets.token_bytes(32)) or leave key=None to generate one")
    if len(raw) < MIN_KEY_BYTES:
        warnings.warn(
            f"the HMAC key is only {len(raw)} bytes; a short or guessable key lets an attacker "
            "rebuild the pseudonyms by trying keys. Use secrets.token_bytes(32).",
            UserWarning, stacklevel=3,
        )
    return raw, False


def canonical_text(value) -> str:
    """The text form of a cell that is hashed (UTF-8 encoded) by :func:`hmac_pseudonyms`.

    * strings: themselves;
    * booleans: ``"True"`` / ``"False"``;
    * integers, and floats with an integral value (``42.0``, as pandas stores an integer column
      that has missing cells): decimal digits (``"42"``);
    * other floats: Python's shortest round-trip form (``"0.1"``, ``"1e-07"``, ``"inf"``);
    * timestamps, datetimes and dates: ISO 8601 (``"2024-05-01T00:00:00"``);
    * bytes: decoded as UTF-8 (with backslash escapes for invalid bytes);
    * anything else: ``str(value)``.

    So ``42``, ``42.0`` and ``"42"`` get the same pseudonym, which keeps joins working between
    frames that store the same identifier with different dtypes.

    Example
    -------
    >>> canonical_text(42.0), canonical_text(0.1), canonical_text("Ann")
    ('42', '0.1', 'Ann')
    """
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isfinite(v) and v.is_integer():
            return str(int(v))
        return repr(v)
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.isoformat()
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value).isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    return str(value)


def _texts(uniques) -> list:
    """Canonical texts of distinct values (vectorized for numpy integer arrays)."""
    if isinstance(uniques, np.ndarray) and uniques.dtype.kind in "iu":
        return uniques.astype(str).tolist()
    if isinstance(getattr(uniques, "dtype", None), pd.StringDtype):
        return uniques.to_numpy(dtype=object).tolist()
    return [canonical_text(v) for v in uniques]


def _hmac_sha256_hex(key: bytes, messages: Iterable[bytes], prefix: bytes = b"") -> list:
    """HMAC-SHA-256 (RFC 2104) of ``prefix + m`` for many messages ``m`` with one key, as
    lowercase hex. The keyed inner state (after ``prefix``) and the outer state are computed
    once and copied per message (equal to ``hmac.new(key, prefix + m, "sha256")``)."""
    block = 64
    if len(key) > block:
        key = hashlib.sha256(key).digest()
    key = key.ljust(block, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    inner.update(prefix)
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    icopy, ocopy = inner.copy, outer.copy
    out = []
    append = out.append
    for m in messages:
        h = icopy()
        h.update(m)
        o = ocopy()
        o.update(h.digest())
        append(o.hexdigest())
    return out


def key_fingerprint(key: bytes) -> str:
    """A short fingerprint of a key (first 16 hex digits of HMAC(key, "pdanon key
    fingerprint")): tells which key was used without revealing a *random* key.

    ``hash_identifiers`` records it in ``info`` only for the keys it generates (32 random
    bytes). Do not publish the fingerprint of a key chosen by a person (a passphrase, a word):
    anyone can try candidate keys against it offline.

    Example
    -------
    >>> len(key_fingerprint(b"k" * 32))
    16
    """
    return _hmac_sha256_hex(_key_bytes(key), [b"pdanon key fingerprint"])[0][:16]


def _key_bytes(key) -> bytes:
    if isinstance(key, SecretKey):
        return bytes(key)
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    if isinstance(key, str):
        raise InvalidInputError(
            "this function takes the key bytes; turn a passphrase into key bytes with "
            "pdanon.perturb.resolve_key(passphrase)[0], or use df.anon.hash_identifiers(key=...)"
        )
    raise InvalidInputError(f"key must be bytes or a SecretKey, got {type(key).__name__}")


def context_prefix(context) -> bytes:
    """The bytes put before every value's text in the HMAC message for a context:
    ``len(c).to_bytes(4, "big") + c`` with ``c = context.encode("utf-8")``, or ``b""`` for
    ``None`` (no context: the message is the value's text alone).

    The length prefix makes ``(context, value)`` → message one-to-one: ``("a", "bc")`` and
    ``("ab", "c")`` give different messages.

    Example
    -------
    >>> context_prefix("ab"), context_prefix(None)
    (b'\\x00\\x00\\x00\\x02ab', b'')
    """
    if context is None:
        return b""
    if not isinstance(context, str):
        raise InvalidInputError(
            f"a hashing context must be a str (or None), got {type(context).__name__} "
            f"{context!r}"
        )
    if not context:
        raise InvalidInputError("a hashing context must not be empty; use None for no context")
    c = context.encode("utf-8")
    return len(c).to_bytes(4, "big") + c


def hmac_pseudonyms(values, key: bytes, *, context=None, name=None, index=None) -> pd.Series:
    """HMAC-SHA-256 pseudonym (64 lowercase hex digits) of every cell, keyed by ``key``.

    ``key`` is the key bytes (or a :class:`SecretKey`); a passphrase goes through
    :func:`resolve_key` first. Each distinct value is hashed once (``pd.factorize``), using its
    :func:`canonical_text`. Missing cells stay missing. The result has pandas' string dtype.

    The HMAC message is ``context_prefix(context) + text`` (UTF-8; see :func:`context_prefix`):

    * ``context=None`` (default): the text alone. The same key gives the same pseudonym for the
      same value in *any* column and any frame (a phone number in ``patient_phone`` and in
      ``emergency_phone`` gets one pseudonym), which keeps cross-column linkage possible;
    * ``context="..."``: a domain label (e.g. the column name); the same value in two contexts
      gets unrelated pseudonyms, while the same key and context still give the same pseudonyms
      in every release. ``context="column"`` uses ``name`` (the Series name).

    Without the key the pseudonyms cannot be recomputed, so a dictionary of candidate values
    (all phone numbers, all names) is useless.

    Example
    -------
    >>> import hmac
    >>> s = hmac_pseudonyms(pd.Series(["ann", None, "ann"]), b"k" * 32)
    >>> s[0] == hmac.new(b"k" * 32, b"ann", "sha256").hexdigest(), s.isna().tolist()
    (True, [False, True, False])
    >>> c = hmac_pseudonyms(pd.Series(["ann"]), b"k" * 32, context="name")
    >>> c[0] == hmac.new(b"k" * 32, b"\\x00\\x00\\x00\\x04nameann", "sha256").hexdigest()
    True
    """
    if isinstance(values, pd.Series):
        index = values.index if index is None else index
        name = values.name if name is None else name
        values = values.array
    if isinstance(context, str) and context == "column":
        if name is None:
            raise InvalidInputError(
                "context='column' uses the column's name, but these values have none; pass "
                "name= or an explicit context='...'"
            )
        context = canonical_text(name)
    prefix = context_prefix(context)
    raw = _key_bytes(key)
    import pyarrow as pa

    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    texts = _texts(uniques)
    digests = pa.array(_hmac_sha256_hex(raw, (t.encode("utf-8") for t in texts), prefix),
                       type=pa.string())
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes < 0
    taken = digests.take(pa.array(np.where(missing, 0, codes), mask=missing))
    return pd.Series(pd.array(taken, dtype="str"), index=index, name=name)


def _column_contexts(context, columns: list) -> dict:
    """``{column: context str or None}`` from ``context=`` (None, "column", a str, or a dict
    naming every hashed column)."""
    if context is None:
        return {c: None for c in columns}
    if isinstance(context, str):
        if context == "column":
            return {c: canonical_text(c) for c in columns}
        context_prefix(context)  # validates
        return {c: context for c in columns}
    if isinstance(context, Mapping):
        stray = [c for c in context if c not in columns]
        if stray:
            raise InvalidInputError(
                f"context= names column(s) {stray} that are not being hashed (hashed: "
                f"{columns}); remove them or add them to columns="
            )
        missing = [c for c in columns if c not in context]
        if missing:
            raise InvalidInputError(
                f"context= gives no context for column(s) {missing}; name every hashed column "
                "(use None for no context), or pass context='column' / one str for all"
            )
        out = {}
        for c in columns:
            v = context[c]
            if isinstance(v, str) and v == "column":
                v = canonical_text(c)
            context_prefix(v)  # validates
            out[c] = v
        return out
    raise InvalidInputError(
        f"context must be None, 'column', a str or {{column: str}}, got {type(context).__name__}"
    )


def reference_sha256_rows(identifiers):
    """The reference ``IdentifierHasher`` output (UNSAFE, for compatibility only).

    For every row, ``hashlib.sha256(str(row).encode()).hexdigest()`` where ``row`` is the row of
    identifier cells as a numpy object array (so the text is numpy's array form, e.g.
    ``"[1 'Ann']"``), written into *every* identifier cell of that row. Unkeyed: anyone can hash
    candidate values (every phone number, every name) and recover the identifiers by a
    dictionary attack. Use :func:`hmac_pseudonyms` (``df.anon.hash_identifiers``) instead.

    ``identifiers`` is a 2-D array-like or a DataFrame (converted as the reference does:
    ``np.array(df.to_numpy(), dtype=object)``). For byte-exact compatibility the classic API
    passes the identifier columns sliced from the object array of the *whole* input table, as
    the reference does (a frame whose columns are all numeric turns integers into floats there).
    Returns the same type: an object array, or a DataFrame with the same index and columns.

    Example
    -------
    >>> out = reference_sha256_rows(np.array([[1, "Ann"]], dtype=object))
    >>> out[0, 0] == out[0, 1] == hashlib.sha256(b"[1 'Ann']").hexdigest()
    True
    """
    frame = identifiers if isinstance(identifiers, pd.DataFrame) else None
    if frame is not None:
        arr = np.array(frame.to_numpy(), dtype=object)
    else:
        arr = np.array(identifiers, dtype=object)
    if arr.ndim != 2:
        raise InvalidInputError(f"identifiers must be 2-D (rows x identifier columns), got {arr.ndim}-D")
    out = np.empty(arr.shape, dtype=object)
    if arr.shape[1]:
        for i in range(arr.shape[0]):
            out[i, :] = hashlib.sha256(str(arr[i]).encode()).hexdigest()
    if frame is not None:
        return pd.DataFrame(out, index=frame.index, columns=frame.columns, dtype=object)
    return out


# =========================================================================== accessor faces
# The df.anon methods call these with resolved roles; they return (new frame, roles, info).


def _as_list(columns) -> list | None:
    if columns is None:
        return None
    if isinstance(columns, (str, numbers.Integral)) and not isinstance(columns, bool):
        return [columns]
    return list(columns)


def _drop_ids(df: pd.DataFrame, roles, keep_identifiers: bool) -> pd.DataFrame:
    if keep_identifiers or not roles.identifiers:
        return df
    return df.drop(columns=list(roles.identifiers))


def _check_no_identifiers(cols, roles, what: str, keep_identifiers: bool) -> None:
    ids = [c for c in cols if c in roles.identifiers]
    if ids and not keep_identifiers:
        raise InvalidInputError(
            f"column(s) {ids} are identifiers, which {what} drops; hash them "
            "(df.anon.hash_identifiers()) or pass keep_identifiers=True to keep and "
            f"{what} them"
        )


def shuffle_by_roles(df: pd.DataFrame, roles, columns=None, *, within=None, seed=None,
                     keep_identifiers: bool = False):
    """The engine of ``df.anon.shuffle``; returns ``(frame, roles, info)``.

    Default columns: the quasi-identifier and sensitive columns minus the grouping columns,
    which a within-group shuffle cannot change (so within equivalence classes the default is
    the sensitive columns). ``within`` is ``None`` (whole
    columns), ``"equivalence_classes"`` (rows with identical quasi-identifier values, NaN equal
    to NaN) or one or more column names defining the groups.

    Example
    -------
    >>> from pdanon.schema import resolve_roles
    >>> df = pd.DataFrame({"zip": ["A", "A", "B"], "s": [1, 2, 3]})
    >>> out, _, info = shuffle_by_roles(df, resolve_roles(df, sensitive=["s"]),
    ...                                 within="equivalence_classes", seed=0)
    >>> out["s"].tolist()[2], info["groups"]
    (3, 2)
    """
    from pdanon._groups import class_labels

    within_cols = None
    within_desc = within
    if within is None:
        pass
    elif isinstance(within, str) and within == "equivalence_classes":
        if not roles.qi:
            raise InvalidInputError(
                "within='equivalence_classes' needs quasi-identifier columns; name them "
                "(quasi_identifiers=[...]) or pass within=[columns]"
            )
        within_cols = roles.qi
    else:
        within_cols = _as_list(within)
        if not within_cols:
            raise InvalidInputError("within= names no column; give column names or "
                                    "'equivalence_classes'")
        _check_columns(df, within_cols, "within=")
        within_desc = list(within_cols)
    groups = None if within_cols is None else class_labels(df, within_cols)

    cols = _as_list(columns)
    if cols is None:
        skip = set(within_cols or ())
        cols = [c for c in df.columns
                if (c in roles.quasi_identifiers or c in roles.sensitive) and c not in skip]
        if not cols:
            raise InvalidInputError(
                "no column to shuffle: the frame has no quasi-identifier or sensitive column "
                "outside within=; name the columns (df.anon.shuffle(['col']))"
            )
    _check_columns(df, cols, "shuffle")
    if len(set(cols)) != len(cols):
        raise InvalidInputError(f"columns {cols} names a column twice")
    _check_no_identifiers(cols, roles, "shuffle", keep_identifiers)

    rng = make_rng(seed)
    out = _drop_ids(shuffle_frame(df, cols, groups=groups, rng=rng), roles, keep_identifiers)
    info = {
        "operation": "shuffle",
        "columns": list(cols),
        "within": within_desc,
        "groups": None if groups is None else (int(groups.max()) + 1 if len(groups) else 0),
        "identifiers_dropped": [] if keep_identifiers else list(roles.identifiers),
        **_seed_info(seed),
    }
    return publish_frame(out), roles.restricted_to(out.columns), info


def _cells_changed(old: pd.Series, new: pd.Series) -> int:
    a_na = old.isna().to_numpy()
    b_na = new.isna().to_numpy()
    both = ~a_na & ~b_na
    if isinstance(old.dtype, pd.CategoricalDtype):
        a, b = old.cat.codes.to_numpy(), new.cat.codes.to_numpy()
    else:
        a, b = old.to_numpy(), new.to_numpy()
    diff = (a_na != b_na)
    diff[both] = a[both] != b[both]
    return int(diff.sum())


def randomize_by_roles(df: pd.DataFrame, roles, columns=None, *, scale=1.0, low=None,
                       high=None, noise=None, seed=None, clip: bool = True,
                       keep_identifiers: bool = False):
    """The engine of ``df.anon.randomize``; returns ``(frame, roles, info)``.

    Default columns: the quasi-identifiers, with their kinds. Sensitive and insensitive columns
    can be named in ``columns`` (insensitive ones get their inferred kind); identifiers cannot
    (they are dropped unless ``keep_identifiers``).

    Example
    -------
    >>> from pdanon.schema import resolve_roles
    >>> df = pd.DataFrame({"age": [20, 30, 40]})
    >>> out, _, info = randomize_by_roles(df, resolve_roles(df), low=0, high=0, seed=0)
    >>> out["age"].tolist(), info["cells_changed"]
    ([20, 30, 40], 0)
    """
    from pdanon.schema import infer_kind

    cols = _as_list(columns)
    if cols is None:
        cols = roles.qi
        if not cols:
            raise InvalidInputError(
                "no quasi-identifier column to randomize; name them (quasi_identifiers=[...]) "
                "or pass columns=[...]"
            )
    _check_columns(df, cols, "randomize")
    if len(set(cols)) != len(cols):
        raise InvalidInputError(f"columns {cols} names a column twice")
    ids = [c for c in cols if c in roles.identifiers]
    if ids:
        raise InvalidInputError(
            f"column(s) {ids} are identifiers; randomizing does not de-identify them: hash "
            "them (df.anon.hash_identifiers()) or drop them"
        )
    kinds = {}
    for c in cols:
        if c in roles.quasi_identifiers or c in roles.sensitive:
            kinds[c] = roles.kind(c)
        else:
            kinds[c] = infer_kind(df[c])
    rng = make_rng(seed)
    out, methods = randomize_frame(df, kinds, rng=rng, scale=scale, low=low, high=high,
                                   noise=noise, clip=clip)
    changed = sum(_cells_changed(df[c], out[c]) for c in cols)
    out = _drop_ids(out, roles, keep_identifiers)
    info = {
        "operation": "randomize",
        "columns": {c: {"kind": kinds[c], "method": methods[c]} for c in cols},
        "scale": float(scale),
        "clip": bool(clip),
        "cells_changed": changed,
        "identifiers_dropped": [] if keep_identifiers else list(roles.identifiers),
        **_seed_info(seed),
    }
    return publish_frame(out), roles.restricted_to(out.columns), info


def hash_by_roles(df: pd.DataFrame, roles, columns=None, *, key=None, context=None):
    """The engine of ``df.anon.hash_identifiers``; returns ``(frame, roles, info)``.

    Default columns: the identifiers. Columns named in ``columns`` that had another role become
    identifiers (they now hold pseudonyms). ``key`` goes through :func:`resolve_key`;
    ``context`` (None, ``"column"``, one str, or ``{column: str or None}`` naming every hashed
    column) separates the columns' pseudonyms (see :func:`hmac_pseudonyms`).

    ``info`` never holds a given key or anything derived from it (``"key_source": "given"``).
    A generated key is returned as a :class:`SecretKey` in ``info["key"]``, with its
    :func:`key_fingerprint` (``"key_source": "generated"``).

    Example
    -------
    >>> from pdanon.schema import resolve_roles
    >>> df = pd.DataFrame({"phone": ["+7 900 1", "+7 900 2"], "age": [30, 40]})
    >>> out, r, info = hash_by_roles(df, resolve_roles(df, identifiers=["phone"]),
    ...                              key=b"0123456789abcdef0123456789abcdef", context="column")
    >>> len(out["phone"][0]), r.identifiers, info["key_source"], info["context"]
    (64, ('phone',), 'given', {'phone': 'phone'})
    """
    from pdanon.schema import Roles

    cols = _as_list(columns)
    if cols is None:
        cols = list(roles.identifiers)
        if not cols:
            raise InvalidInputError(
                "no identifier column to hash; name them: "
                "df.anon.hash_identifiers(identifiers=['name', 'phone'])"
            )
    _check_columns(df, cols, "hash_identifiers")
    if len(set(cols)) != len(cols):
        raise InvalidInputError(f"columns {cols} names a column twice")
    contexts = _column_contexts(context, cols)
    raw, generated = resolve_key(key)
    out = df.copy(deep=False)
    for c in cols:
        out[c] = hmac_pseudonyms(df[c], raw, context=contexts[c]).array
    ids = set(roles.identifiers) | set(cols)
    new_roles = Roles(
        identifiers=tuple(c for c in df.columns if c in ids),
        quasi_identifiers={c: k for c, k in roles.quasi_identifiers.items() if c not in ids},
        sensitive={c: k for c, k in roles.sensitive.items() if c not in ids},
        insensitive=tuple(c for c in roles.insensitive if c not in ids),
    )
    info = {
        "operation": "hash_identifiers",
        "algorithm": "HMAC-SHA-256",
        "columns": list(cols),
        "text_form": "pdanon.perturb.canonical_text, UTF-8",
        "context": None if context is None else contexts,
        "key_generated": generated,
        "key_source": "generated" if generated else "given",
    }
    if generated:
        # a fingerprint of 32 random bytes reveals nothing; of a chosen key it would let
        # anyone test guesses offline, so given keys get none
        info["key_fingerprint"] = key_fingerprint(raw)
        info["key"] = SecretKey(raw)
    return publish_frame(out), new_roles, info


def drop_identifiers_by_roles(df: pd.DataFrame, roles):
    """The engine of ``df.anon.drop_identifiers``; returns ``(frame, roles, info)``.

    Example
    -------
    >>> from pdanon.schema import resolve_roles
    >>> df = pd.DataFrame({"name": ["a", "b"], "age": [30, 40]})
    >>> out, r, info = drop_identifiers_by_roles(df, resolve_roles(df, identifiers="name"))
    >>> list(out.columns), info["dropped"]
    (['age'], ['name'])
    """
    out = df.drop(columns=list(roles.identifiers))
    info = {"operation": "drop_identifiers", "dropped": list(roles.identifiers)}
    return publish_frame(out), roles.restricted_to(out.columns), info


# =========================================================================== helpers


def _check_columns(df: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise UnknownColumnError(
            f"unknown column(s) {missing} for {what}; the frame has columns {list(df.columns)}"
        )
