"""The engines of ``df.anon.shuffle / randomize / hash_identifiers / drop_identifiers`` and of
the statistical offices' methods (``pram``, ``top_code`` / ``bottom_code``, ``rank_swap``,
``add_noise``): resolved roles in, ``(new frame, roles, info)`` out."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.perturb.common import as_column_list, check_columns
from pdanon.perturb.coding import code_series
from pdanon.perturb.noise import DEFAULT_NOISE, add_noise_frame
from pdanon.perturb.numeric import check_option_columns, per_column
from pdanon.perturb.pram import DEFAULT_KEEP, pram_series
from pdanon.perturb.pseudonyms import (SecretKey, column_contexts, hmac_pseudonyms, 
                                       key_fingerprint, resolve_key)
from pdanon.perturb.randomize import randomize_frame
from pdanon.perturb.randomness import make_rng, seed_info
from pdanon.perturb.shuffle import shuffle_frame
from pdanon.perturb.swap import rank_swap_series
from pdanon.recode import publish_frame


# The df.anon methods call these with resolved roles; they return (new frame, roles, info).


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
    >>> from pdanon.roles import resolve_roles
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
        within_cols = as_column_list(within)
        if not within_cols:
            raise InvalidInputError("within= names no column; give column names or "
                                    "'equivalence_classes'")
        check_columns(df, within_cols, "within=")
        within_desc = list(within_cols)
    groups = None if within_cols is None else class_labels(df, within_cols)

    cols = as_column_list(columns)
    if cols is None:
        skip = set(within_cols or ())
        cols = [c for c in df.columns
                if (c in roles.quasi_identifiers or c in roles.sensitive) and c not in skip]
        if not cols:
            raise InvalidInputError(
                "no column to shuffle: the frame has no quasi-identifier or sensitive column "
                "outside within=; name the columns (df.anon.shuffle(['col']))"
            )
    check_columns(df, cols, "shuffle", unique=True)
    _check_no_identifiers(cols, roles, "shuffle", keep_identifiers)

    rng = make_rng(seed)
    out = _drop_ids(shuffle_frame(df, cols, groups=groups, rng=rng), roles, keep_identifiers)
    info = {
        "operation": "shuffle",
        "columns": list(cols),
        "within": within_desc,
        "groups": None if groups is None else (int(groups.max()) + 1 if len(groups) else 0),
        "identifiers_dropped": [] if keep_identifiers else list(roles.identifiers),
        **seed_info(seed),
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


def _value_columns(df: pd.DataFrame, roles, columns, what: str, doing: str):
    """The columns a value-changing perturbation works on (default: the quasi-identifiers)
    and their kinds (roles' kinds; an insensitive column gets its inferred kind); identifiers
    are refused."""
    from pdanon.roles import infer_kind

    cols = as_column_list(columns)
    if cols is None:
        cols = roles.qi
        if not cols:
            raise InvalidInputError(
                f"no quasi-identifier column to {what}; name them (quasi_identifiers=[...]) "
                "or pass columns=[...]"
            )
    check_columns(df, cols, what, unique=True)
    ids = [c for c in cols if c in roles.identifiers]
    if ids:
        raise InvalidInputError(
            f"column(s) {ids} are identifiers; {doing} does not de-identify them: hash "
            "them (df.anon.hash_identifiers()) or drop them"
        )
    kinds = {c: roles.kind(c) if (c in roles.quasi_identifiers or c in roles.sensitive)
             else infer_kind(df[c]) for c in cols}
    return cols, kinds


def randomize_by_roles(df: pd.DataFrame, roles, columns=None, *, scale=1.0, low=None,
                       high=None, noise=None, seed=None, clip: bool = True,
                       keep_identifiers: bool = False):
    """The engine of ``df.anon.randomize``; returns ``(frame, roles, info)``.

    Default columns: the quasi-identifiers, with their kinds. Sensitive and insensitive columns
    can be named in ``columns`` (insensitive ones get their inferred kind); identifiers cannot
    (they are dropped unless ``keep_identifiers``).

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [20, 30, 40]})
    >>> out, _, info = randomize_by_roles(df, resolve_roles(df), low=0, high=0, seed=0)
    >>> out["age"].tolist(), info["cells_changed"]
    ([20, 30, 40], 0)
    """
    cols, kinds = _value_columns(df, roles, columns, "randomize", "randomizing")
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
        **seed_info(seed),
    }
    return publish_frame(out), roles.restricted_to(out.columns), info


def microaggregate_by_roles(df: pd.DataFrame, roles, k, *, columns=None, method="mdav",
                            gamma=None, block_size="auto", keep_identifiers: bool = False,
                            progress=None, allow_channels=None):
    """The engine of ``df.anon.microaggregate``; returns ``(frame, roles, info)``.

    Default columns: the quasi-identifiers, with their kinds. Sensitive and insensitive columns
    can be named in ``columns`` (insensitive ones get their inferred kind); identifiers cannot
    (they are dropped unless ``keep_identifiers``). See
    :func:`pdanon.perturb.microaggregation.microaggregate_frame`. A column published
    unchanged that gives an aggregated column's original value back is refused as by the
    anonymizers (:func:`pdanon.screening.channels.guard`; ``allow_channels=[...]`` for one
    judged safe).

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [20, 22, 40, 44]})
    >>> out, _, info = microaggregate_by_roles(df, resolve_roles(df), 2)
    >>> out["age"].tolist(), info["k_anonymity"]
    ([21.0, 21.0, 42.0, 42.0], 2)
    """
    from pdanon.perturb.microaggregation import microaggregate_frame

    _, kinds = _value_columns(df, roles, columns, "microaggregate", "microaggregating")
    out, info = microaggregate_frame(df, kinds, k, method=method, gamma=gamma,
                                     block_size=block_size, progress=progress)
    _k_of_declared(out, roles, kinds, k, info)
    out = _drop_ids(out, roles, keep_identifiers)
    info["identifiers_dropped"] = [] if keep_identifiers else list(roles.identifiers)
    _guard_channels(df, out, info["k_columns"], info, k, allow_channels, roles)
    return publish_frame(out), roles.restricted_to(out.columns), info


def _guard_channels(df: pd.DataFrame, out: pd.DataFrame, qi, info: dict, k: int,
                    allow_channels, roles, release_k: int | None = None) -> None:
    """The channel rule of every anonymizer (:func:`pdanon.screening.channels.guard`): a
    column ``out`` publishes unchanged (not a sensitive one) whose value pins a
    quasi-identifier cell it hid (aggregated, suppressed) is refused unless allowed."""
    from pdanon.screening import channels

    qi = [c for c in qi if c in out.columns]
    channels.guard(df, out, qi, info, k=int(k), allow_channels=allow_channels,
                   sensitive=roles.sensitive, release_k=release_k)


def _k_of_declared(out: pd.DataFrame, roles, kinds: dict, k: int, info: dict) -> None:
    """``info["k_anonymity"]`` is the k of the declared quasi-identifiers as published (the
    microaggregated ones and any left as they were), ``info["k_columns"]`` the columns it is
    measured on; ``info["k_microaggregated"]`` the k of the microaggregated columns alone.
    Declared quasi-identifiers left as they were draw a :class:`pdanon.RoleWarning` naming
    them and the k they leave."""
    import warnings

    from pdanon._errors import RoleWarning, user_stacklevel
    from pdanon._groups import class_labels

    declared = [c for c in roles.quasi_identifiers if c in out.columns]
    left = [c for c in declared if c not in kinds]
    columns = list(dict.fromkeys([*kinds, *declared]))
    info["k_microaggregated"] = info["k_anonymity"]
    info["k_columns"] = columns
    if not left or not len(out):
        return
    info["k_anonymity"] = int(np.bincount(class_labels(out, columns)).min())
    info["quasi_identifiers_left"] = left
    if info["k_anonymity"] < k:
        warnings.warn(
            f"microaggregation changed {list(kinds)} only; the declared quasi-identifier(s) "
            f"{left} were published as they were, so the release is {info['k_anonymity']}-"
            f"anonymous on the quasi-identifiers, not {k}-anonymous (check() fails it). "
            f"Microaggregate them too (columns={columns}), or anonymize them "
            f"(df.anon.k_anonymize(...)) first", RoleWarning, stacklevel=user_stacklevel())


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
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"phone": ["+7 900 1", "+7 900 2"], "age": [30, 40]})
    >>> out, r, info = hash_by_roles(df, resolve_roles(df, identifiers=["phone"]),
    ...                              key=b"0123456789abcdef0123456789abcdef", context="column")
    >>> len(out["phone"][0]), r.identifiers, info["key_source"], info["context"]
    (64, ('phone',), 'given', {'phone': 'phone'})
    """
    from pdanon.roles import Roles

    cols = as_column_list(columns)
    if cols is None:
        cols = list(roles.identifiers)
        if not cols:
            raise InvalidInputError(
                "no identifier column to hash; name them: "
                "df.anon.hash_identifiers(identifiers=['name', 'phone'])"
            )
    check_columns(df, cols, "hash_identifiers", unique=True)
    contexts = column_contexts(context, cols)
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
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"name": ["a", "b"], "age": [30, 40]})
    >>> out, r, info = drop_identifiers_by_roles(df, resolve_roles(df, identifiers="name"))
    >>> list(out.columns), info["dropped"]
    (['age'], ['name'])
    """
    out = df.drop(columns=list(roles.identifiers))
    info = {"operation": "drop_identifiers", "dropped": list(roles.identifiers)}
    return publish_frame(out), roles.restricted_to(out.columns), info


def _finish(out: pd.DataFrame, roles, keep_identifiers: bool, info: dict):
    """Drop the identifiers (unless kept), say so in ``info`` and publish the frame."""
    out = _drop_ids(out, roles, keep_identifiers)
    info["identifiers_dropped"] = [] if keep_identifiers else list(roles.identifiers)
    return publish_frame(out), roles.restricted_to(out.columns), info


def pram_by_roles(df: pd.DataFrame, roles, columns, *, matrix=None, p=None,
                  invariant: bool = True, seed=None, keep_identifiers: bool = False,
                  pd_=None, alpha=None):
    """The engine of ``df.anon.pram``; returns ``(frame, roles, info)``.

    ``matrix`` is one transition matrix for every column or ``{column: matrix}`` (columns not
    named use ``p``); ``p`` is one probability or ``{column: probability}`` (default 0.8);
    ``pd_`` and ``alpha`` (one value or per column) build sdcMicro's matrix instead. See
    :func:`pdanon.perturb.pram.pram_series`. Identifiers cannot be named.

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"sex": ["F", "M", "F", "M"]})
    >>> out, _, info = pram_by_roles(df, resolve_roles(df), ["sex"], p=1.0, seed=0)
    >>> out["sex"].tolist(), info["cells_changed"]
    (['F', 'M', 'F', 'M'], 0)
    """
    if columns is None:
        raise InvalidInputError("pram needs the columns to randomize: df.anon.pram(['sex'])")
    cols, _ = _value_columns(df, roles, columns, "pram", "PRAM")
    for name, option in (("matrix", matrix), ("p", p), ("pd", pd_), ("alpha", alpha)):
        check_option_columns(option, cols, name)
    rng = make_rng(seed)
    out = df.copy(deep=False)
    per = {}
    for c in cols:
        c_matrix, c_p = per_column(matrix, c), per_column(p, c)
        c_pd, c_alpha = per_column(pd_, c), per_column(alpha, c)
        if c_matrix is not None:  # a column's own matrix wins over p and pd
            c_p = c_pd = None
        elif c_pd is not None and c_p is not None:
            raise InvalidInputError(f"column {c!r}: pass p= (a fixed keep probability) or "
                                    f"pd= (sdcMicro's random diagonal), not p and pd")
        elif c_pd is None and c_p is None:
            c_p = DEFAULT_KEEP
        new, used = pram_series(df[c], rng=rng, matrix=c_matrix, p=c_p, invariant=invariant,
                                pd_=c_pd, alpha=c_alpha)
        out[c] = new.array
        counts = df[c].value_counts(dropna=True).reindex(used.index, fill_value=0).to_numpy()
        share = counts / counts.sum() if counts.sum() else counts.astype(float)
        kind = ("given" if c_matrix is not None else "sdcMicro pd" if c_pd is not None
                else "keep p")
        # the categories a published cell shows: a category PRAM moved every cell out of
        # (a rare value's) is not counted, so no figure says that it existed
        per[c] = {"categories": int(new.nunique(dropna=True)), "matrix": kind,
                  "p": float(c_p) if kind == "keep p" else None,
                  **({"pd": float(c_pd)} if c_pd is not None else {}),
                  **({"alpha": float(0.5 if c_alpha is None else c_alpha)}
                     if c_pd is not None or c_alpha is not None else {}),
                  "expected_kept": float(share @ np.diag(used.to_numpy())),
                  "cells_changed": _cells_changed(df[c], new)}
    info = {"operation": "pram", "columns": per, "invariant": bool(invariant),
            "cells_changed": sum(v["cells_changed"] for v in per.values()), **seed_info(seed)}
    return _finish(out, roles, keep_identifiers, info)


def code_by_roles(df: pd.DataFrame, roles, columns, side: str, *, threshold=None,
                  quantile=None, value=None, keep_identifiers: bool = False):
    """The engine of ``df.anon.top_code`` (``side="top"``) and ``df.anon.bottom_code``
    (``"bottom"``); returns ``(frame, roles, info)``. ``threshold``, ``quantile`` and
    ``value`` are one value or ``{column: value}``. See
    :func:`pdanon.perturb.coding.code_series`.

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"income": [10, 20, 500]})
    >>> out, _, info = code_by_roles(df, resolve_roles(df), "income", "top", threshold=100)
    >>> out["income"].tolist(), info["cells_changed"]
    ([10, 20, 100], 1)
    """
    if columns is None:
        raise InvalidInputError(
            f"{side}_code needs the columns to code: df.anon.{side}_code(['income'], ...)")
    cols, _ = _value_columns(df, roles, columns, f"{side}_code", f"{side} coding")
    for name, opt in (("threshold", threshold), ("quantile", quantile), ("value", value)):
        check_option_columns(opt, cols, name)
    out = df.copy(deep=False)
    per = {}
    for c in cols:
        new, per[c] = code_series(df[c], side, threshold=per_column(threshold, c),
                                  quantile=per_column(quantile, c), value=per_column(value, c))
        out[c] = new.array
    info = {"operation": f"{side}_code", "columns": per,
            "cells_changed": sum(v["cells_changed"] for v in per.values())}
    return _finish(out, roles, keep_identifiers, info)


def rank_swap_by_roles(df: pd.DataFrame, roles, columns, *, p=None, seed=None,
                       keep_identifiers: bool = False, rule: str = "blocks",
                       top_percent=0.0, bottom_percent=0.0, r0=None, k0=None):
    """The engine of ``df.anon.rank_swap``; returns ``(frame, roles, info)``. Each column is
    swapped on its own (:func:`pdanon.perturb.swap.rank_swap_series`); ``p``,
    ``top_percent`` and ``bottom_percent`` are one percentage or ``{column: percentage}``.

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"income": [1, 2, 3, 4, 5, 6]})
    >>> out, _, info = rank_swap_by_roles(df, resolve_roles(df), "income", p=0, seed=0)
    >>> out["income"].tolist(), info["columns"]["income"]["pairs"]
    ([1, 2, 3, 4, 5, 6], 0)
    """
    if columns is None:
        raise InvalidInputError("rank_swap needs the columns to swap: df.anon.rank_swap(['income'])")
    cols, _ = _value_columns(df, roles, columns, "rank_swap", "rank swapping")
    for name, option in (("p", p), ("top_percent", top_percent),
                         ("bottom_percent", bottom_percent), ("r0", r0), ("k0", k0)):
        check_option_columns(option, cols, name)
    rng = make_rng(seed)
    out = df.copy(deep=False)
    per = {}
    for c in cols:
        c_p, c_top, c_bottom = (per_column(p, c), per_column(top_percent, c),
                                per_column(bottom_percent, c))
        c_r0, c_k0 = per_column(r0, c), per_column(k0, c)
        new, per[c] = rank_swap_series(df[c], p=c_p, rng=rng, rule=rule,
                                       top_percent=c_top or 0.0,
                                       bottom_percent=c_bottom or 0.0, r0=c_r0, k0=c_k0)
        out[c] = new.array
    info = {"operation": "rank_swap", "columns": per,
            "cells_changed": sum(v["cells_changed"] for v in per.values()), **seed_info(seed)}
    return _finish(out, roles, keep_identifiers, info)


def add_noise_by_roles(df: pd.DataFrame, roles, columns, *, method="additive",
                       noise=DEFAULT_NOISE, seed=None, keep_identifiers: bool = False):
    """The engine of ``df.anon.add_noise``; returns ``(frame, roles, info)``. See
    :func:`pdanon.perturb.noise.add_noise_frame`.

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"income": [1.0, 2.0, 3.0]})
    >>> out, _, info = add_noise_by_roles(df, resolve_roles(df), "income", method="correlated",
    ...                                   noise=0.0, seed=0)
    >>> out["income"].tolist(), info["covariance_factor"]
    ([1.0, 2.0, 3.0], 1.0)
    """
    if columns is None:
        raise InvalidInputError("add_noise needs the columns: df.anon.add_noise(['income'])")
    cols, _ = _value_columns(df, roles, columns, "add_noise", "adding noise")
    out, details = add_noise_frame(df, cols, method=method, noise=noise, rng=make_rng(seed))
    factor = 1 + float(noise) if method == "correlated" else 1 + float(noise) ** 2
    info = {"operation": "add_noise", "method": method, "noise": float(noise),
            "columns": list(cols),
            "covariance_factor" if method == "correlated" else "variance_factor": factor,
            **details,
            "cells_changed": sum(_cells_changed(df[c], out[c]) for c in cols),
            **seed_info(seed)}
    return _finish(out, roles, keep_identifiers, info)


def local_suppression_by_roles(df: pd.DataFrame, roles, k, *, importance=None,
                               keep_identifiers: bool = False, allow_channels=None):
    """The engine of ``df.anon.local_suppression``; returns ``(frame, roles, info)``. Works on
    the quasi-identifiers; see :func:`pdanon.perturb.suppression.local_suppression_frame`.
    A column published unchanged that gives a suppressed cell back is refused as by the
    anonymizers (``allow_channels=[...]`` for one judged safe).

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"sex": ["F", "F", "M"], "zip": ["1", "1", "1"]})
    >>> out, _, info = local_suppression_by_roles(df, resolve_roles(df), 2)
    >>> out["sex"].isna().tolist(), info["cells_suppressed"]
    ([False, False, True], 1)
    """
    from pdanon.perturb.suppression import local_suppression_frame

    if not roles.qi:
        raise InvalidInputError(
            "local_suppression works on the quasi-identifiers; name them (quasi_identifiers=[...])"
        )
    out, details = local_suppression_frame(df, roles.qi, k, importance=importance)
    info = {"operation": "local_suppression", "k": int(k), "missing": "wildcard",
            "quasi_identifiers": list(roles.qi), **details}
    kept = _drop_ids(out, roles, keep_identifiers)
    # the release's own k is the wildcard k it verified (a blank matches any value)
    _guard_channels(df, kept, roles.qi, info, k, allow_channels, roles,
                    release_k=info.get("k_anonymity"))
    return _finish(out, roles, keep_identifiers, info)
