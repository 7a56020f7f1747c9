"""Input checks every attack runs before any work (docs/attacks.md, "Errors")."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError, UnknownColumnError

MISSING_RULES = ("value", "wildcard")


def names(cols, what: str) -> list:
    if isinstance(cols, (str, int)) or (isinstance(cols, tuple) and len(cols) == 0):
        cols = [cols]
    cols = list(cols)
    if not cols:
        raise InvalidInputError(f"{what} is empty: name at least one column")
    if len(set(cols)) != len(cols):
        raise InvalidInputError(f"{what} names a column twice: {cols}")
    return cols


def check_frames(release, original, control, columns, *, what: str) -> None:
    """Frames, columns, kinds and the control set, or a clear error naming the fix."""
    from pdanon.roles import infer_kind

    for name, df in (("release", release), ("original", original), ("control", control)):
        if name == "control" and df is None:
            raise InvalidInputError(
                f"{what} needs control= rows: held-out records of the same population that the "
                "release was not made from. Without them a success rate cannot be told apart "
                "from what any table of that population gives (an attacker guessing from "
                "common values succeeds too), so no risk is reported. Split the original "
                "before anonymizing, e.g. control = df.sample(frac=0.2, random_state=0); "
                "df = df.drop(control.index); then anonymize df and attack with control=control")
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    for name, df in (("release", release), ("original", original), ("control", control)):
        missing = [c for c in columns if c not in set(df.columns)]
        if missing:
            raise UnknownColumnError(
                f"{what}: unknown column(s) {missing} in the {name}; it has columns "
                f"{list(df.columns)}. Name columns that the release, the original and the "
                f"control all hold")
    for c in columns:
        kinds = {name: infer_kind(df[c]) for name, df in
                 (("release", release), ("original", original), ("control", control))}
        if len(set(kinds.values())) > 1:
            raise KindError(
                f"{what}: column {c!r} has kind {kinds['release']!r} in the release, "
                f"{kinds['original']!r} in the original and {kinds['control']!r} in the "
                f"control; give it the same dtype in all three (e.g. "
                f"control[{c!r}] = control[{c!r}].astype(original[{c!r}].dtype); a release "
                f"read back from CSV: pdanon.read_csv with its schema)")
    for name, df in (("release", release), ("original", original), ("control", control)):
        if len(df) == 0:
            raise InvalidInputError(f"{what}: the {name} has no rows")
    check_disjoint(original, control, what=what)


def _row_hashes(df: pd.DataFrame, cols) -> np.ndarray:
    """One hash per row of its content over ``cols`` (pandas hashes a Categorical by its
    values, so equal rows hash equally whatever the categories' order)."""
    return pd.util.hash_pandas_object(df[cols], index=False).to_numpy()


def check_disjoint(original: pd.DataFrame, control: pd.DataFrame, *, what: str) -> None:
    """Refuse a control set that repeats the original's rows, by content (every column the two
    share; the index is ignored). A real held-out set repeats original rows about as often as
    the original repeats itself: refused when the share of control rows found in the original
    exceeds twice the original's own share of repeated rows plus 1%."""
    cols = [c for c in original.columns if c in set(control.columns)]
    if not cols:
        return
    h_orig = _row_hashes(original, cols)
    h_ctrl = _row_hashes(control, cols)
    _, counts = np.unique(h_orig, return_counts=True)
    self_share = float(counts[counts > 1].sum()) / max(len(h_orig), 1)
    shared = np.isin(h_ctrl, h_orig)
    share = float(shared.mean())
    if share > 2 * self_share + 0.01:
        raise InvalidInputError(
            f"{what}: {int(shared.sum())} of the control's {len(control)} rows "
            f"({share:.0%}) are rows of the original (by content); the original repeats its "
            f"own rows at {self_share:.1%}. The control must be held out: rows not used to make "
            f"the release (split before anonymizing)")


def check_attacks(n_attacks, rows: dict, *, what: str, default: int = 2000) -> int:
    """The number of attacks: ``n_attacks`` or ``min(default, rows...)``; refused when a
    table has fewer rows than the attacks need (targets are drawn without replacement)."""
    if n_attacks is None:
        return int(min([default] + list(rows.values())))
    if isinstance(n_attacks, bool) or not isinstance(n_attacks, (int, np.integer)) \
            or n_attacks < 1:
        raise InvalidInputError(f"{what}: n_attacks must be a positive integer, got {n_attacks!r}")
    for name, n in rows.items():
        if n_attacks > n:
            raise InvalidInputError(
                f"{what}: n_attacks={n_attacks} targets cannot be drawn from the {name}'s {n} "
                f"rows (without replacement); pass n_attacks <= {min(rows.values())} or give "
                f"more rows")
    return int(n_attacks)


def check_missing(missing: str) -> str:
    if missing not in MISSING_RULES:
        raise InvalidInputError(f"missing must be one of {MISSING_RULES}, got {missing!r}")
    return missing


def check_level(level: float) -> float:
    if not (isinstance(level, (int, float)) and 0 < level < 1):
        raise InvalidInputError(f"level must be a probability in (0, 1), got {level!r}")
    return float(level)


def aux_pair(aux_cols, *, what: str) -> tuple[list, list]:
    """The two column groups of a linkability attack, checked (two, non-empty, disjoint)."""
    if not isinstance(aux_cols, (tuple, list)) or len(aux_cols) != 2:
        raise InvalidInputError(
            f"{what}: aux_cols must be two groups of columns, (cols_a, cols_b), got {aux_cols!r}")
    a = names(aux_cols[0], f"{what}: aux_cols[0]")
    b = names(aux_cols[1], f"{what}: aux_cols[1]")
    both = [c for c in a if c in set(b)]
    if both:
        raise InvalidInputError(
            f"{what}: column(s) {both} are in both groups of aux_cols; the attacker holds two "
            f"disjoint halves of a target's record: put each column in one group only")
    return a, b


def aux_secret(aux_cols, secret, *, what: str) -> list:
    """The auxiliary columns of an inference attack, checked against the secret."""
    aux = names(aux_cols, f"{what}: aux_cols")
    if secret in set(aux):
        raise InvalidInputError(
            f"{what}: the secret {secret!r} is also an auxiliary column; the attacker would "
            f"know what it guesses. Remove it from aux_cols")
    return aux


def draw_targets(n_attacks, original, control, rng, *, what: str):
    """The number of attacks and the target rows drawn, without replacement, from the
    original and from the control."""
    n = check_attacks(n_attacks, {"original": len(original), "control": len(control)},
                      what=what)
    return n, rng.choice(len(original), n, replace=False), rng.choice(len(control), n,
                                                                       replace=False)
