"""The facts of a release report, gathered from the published frame, its ``info`` and, when
given, the original frame: plain dicts, lists and DataFrames that :mod:`pdanon.report.html`
renders and :meth:`ReleaseReport.to_json` serializes.

The report may travel with the release, so no fact here lets a recipient recompute a value
the release hides. Nothing copies a cell of the original frame; the original is compared with
the release only for figures that cannot be solved for a hidden value: counts of changed
cells, and the machine-learning figures asked for with ``target=``, rounded to two decimals
(:data:`ROUNDED`). Figures measuring how far hidden values lie from the published ones (mean,
sd, quantile, covariance changes, IL1s, by-element distance ...) or how they group (the
original's entropy) are left out: with a handful of hidden values and the rest of the table
published, each is an equation in those values.
There is no unkeyed digest of the original either: the original's other cells are published,
so the few hidden ones could be enumerated against it; :func:`digest` with the publisher's
``key`` is an HMAC only the key verifies.

Example
-------
>>> import hashlib, pandas as pd
>>> text = '[["a", "int64"]]\\n,a\\n0,1\\n1,2\\n'
>>> digest(pd.DataFrame({"a": [1, 2]})) == hashlib.sha256(text.encode()).hexdigest()
True
>>> len(digest(pd.DataFrame({"a": [1, 2]}), key=b"the publisher's own 32-byte key!"))
64
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import sys

import numpy as np
import pandas as pd

#: how :func:`digest` serializes a frame (also written in the report)
DIGEST_RULE = ("SHA-256 of the UTF-8 bytes of: the JSON list of [column, dtype] pairs, a "
               "newline, then the frame as CSV (pandas to_csv: index and header included, "
               "comma-separated, '\\n' line ends, missing cells empty, generalized cells in "
               "their text form)")
#: how the keyed digest of the original is made (also written in the report)
KEYED_DIGEST_RULE = ("HMAC-SHA-256 under the publisher's digest_key (bytes as given; a "
                     "passphrase through scrypt, as hash_identifiers) of the UTF-8 bytes of "
                     "'pdanon report digest', a zero byte, then the serialization above; "
                     "recompute it with pdanon.report.facts.digest(original, key=...)")
_DIGEST_DOMAIN = b"pdanon report digest\x00"

#: info keys that are counts or timings (shown elsewhere, or not deterministic)
_NOT_OPTIONS = {"rows", "groups", "changed_cells", "cells_changed", "suppressed_rows",
                "suppressed_cells", "partitions", "achieved", "model", "params", "algorithm",
                "operation", "method", "quasi_identifiers", "levels", "heights",
                "random_source", "dropped_identifiers", "identifiers_dropped"}
#: info keys never copied into a report, whatever their value
_NEVER = ("key", "seed", "secret", "fingerprint", "salt", "password")
#: info entries measured against the original (losses over hidden values and the original's
#: span): left out of the report
FROM_ORIGINAL = ("objective_value", "loss", "sse", "sst", "sse_sst", "il1s", "publisher_only")
_LOSS_IN_NOTE = re.compile(r",?\s*\bloss=[-+0-9.eE]+|\bloss=[-+0-9.eE]+,?\s*")

#: comparison figures the report prints (keys of :data:`pdanon.metrics.FIGURES`), rounded to
#: two decimals: the machine-learning figures you ask for with target= (a model's accuracy
#: over held-out rows: shares of rows, which a far hidden value weighs no more in than a near
#: one). ``changed_proportion`` (a count) is printed as it is; every other figure computed
#: against the original is left out (:func:`left_out_names`), the entropy information loss
#: too (the entropy of the original's combinations: a fact about how the hidden values group)
#: and the RMSE ratio of a regression target (one far hidden target value dominates an RMSE).
ROUNDED = ("boosting_security_score", "boosting_accuracy_ratio")
EXACT = ("changed_proportion",)


def digest(df: pd.DataFrame, key=None) -> str:
    """SHA-256 (hex) of a frame's canonical serialization (:data:`DIGEST_RULE`); with
    ``key`` (bytes, or a passphrase of 12 characters or more), the HMAC-SHA-256 of
    :data:`KEYED_DIGEST_RULE` instead, which only the key's holder can recompute or check."""
    head = json.dumps([[str(c), str(t)] for c, t in df.dtypes.items()], ensure_ascii=False)
    body = (head + "\n" + _as_text(df).to_csv(lineterminator="\n", na_rep="")).encode("utf-8")
    if key is None:
        return hashlib.sha256(body).hexdigest()
    from pdanon.perturb.pseudonyms import resolve_key

    raw, _ = resolve_key(key)
    return hmac.new(raw, _DIGEST_DOMAIN + body, hashlib.sha256).hexdigest()


def _as_text(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with each generalized column as its text form, each distinct cell formatted once
    (``to_csv`` would format every cell: minutes for a large release of long sets). The CSV
    text is the same: ``to_csv`` writes a generalized cell as ``str(cell)``, which
    ``to_text`` gives."""
    from pdanon.dtype import GeneralizationDtype

    generalized = [i for i, t in enumerate(df.dtypes) if isinstance(t, GeneralizationDtype)]
    if not generalized:
        return df
    out = df.copy(deep=False)
    for i in generalized:
        col = df.iloc[:, i]
        out.isetitem(i, pd.Series(col.array.to_text(na_rep=np.nan), index=df.index,
                                  dtype=object, name=col.name))
    return out


def left_out_names() -> list:
    """The figures :func:`pdanon.metrics.metrics_table` computes against the original that a
    report never prints (any other such figure is left out too): always the same list, so
    that which of them a table happened to hold tells nothing either (a column missing from
    the perturbation rows would say that no hidden value of it differs from the release)."""
    from pdanon.metrics.perturbation import SUMMARY_KEYS

    from pdanon.metrics.linkage import LINKAGE_KEYS

    return ["entropy_information_loss", "by_element_distance", *SUMMARY_KEYS,
            *LINKAGE_KEYS, "boosting_rmse_ratio"]


def comparison_rows(release: pd.DataFrame, compared: pd.DataFrame | None, *,
                    every: bool = False) -> pd.DataFrame:
    """The metrics of the release (``release``: the rows of
    :func:`pdanon.metrics.metrics_table` without the original) followed by the rows of
    ``compared`` (the table with the original) that compare with it and may be printed:
    :data:`EXACT` as they are, :data:`ROUNDED` rounded to two decimals; the others are left
    out. With ``every`` (the internal report, which stays with the publisher), every row of
    ``compared`` is kept, as computed.

    Example
    -------
    >>> release = pd.DataFrame({"metric": ["k_anonymity"], "value": [2.0]})
    >>> compared = pd.DataFrame({"metric": ["k_anonymity", "changed_proportion",
    ...                                     "boosting_security_score", "il1s"],
    ...                          "value": [2.0, 0.25, 0.123456, 0.5]})
    >>> comparison_rows(release, compared)["value"].tolist()
    [2.0, 0.25, 0.12]
    """
    table = pd.DataFrame(release).reset_index(drop=True)
    if compared is None:
        return table
    extra = pd.DataFrame(compared)
    extra = extra[~extra["metric"].isin(set(table["metric"]))]
    if every:
        return pd.concat([table, extra[table.columns]], ignore_index=True)
    keep = []
    for row in extra.to_dict(orient="records"):
        name = str(row["metric"])
        if name in EXACT:
            keep.append(row)
        elif name in ROUNDED:
            keep.append({**row, "value": round(float(row["value"]), 2),
                         **({"meaning": f"{row['meaning']} (rounded to 2 decimals)"}
                            if "meaning" in row else {})})
    if keep:
        table = pd.concat([table, pd.DataFrame(keep, columns=table.columns)],
                          ignore_index=True)
    return table


def plain(value):
    """A JSON-safe copy of ``value``: numpy scalars to Python numbers, NaN and infinities to
    None, tuples to lists, dict keys to strings; other objects to their type name."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if math.isfinite(f) else None
    if value is None or isinstance(value, str):
        return value
    return f"<{type(value).__name__}>"


def _secret_name(key) -> bool:
    low = str(key).lower()
    return low not in ("key_source", "key_generated") and any(w in low for w in _NEVER)


def _options(info: dict) -> dict:
    """The settings recorded in ``info`` that are neither counts, timings nor secrets."""
    out = {}
    for key, value in info.items():
        if (key in _NOT_OPTIONS or key in FROM_ORIGINAL or _secret_name(key)
                or str(key).endswith("seconds")):
            continue
        if isinstance(value, dict):
            value = {k: v for k, v in value.items()
                     if not _secret_name(k) and k not in FROM_ORIGINAL}
        elif isinstance(value, str):  # e.g. group_join's note repeats its loss
            value = _LOSS_IN_NOTE.sub("", value)
        out[str(key)] = plain(value)
    return out


def parameters(anonymized, original, roles, info: dict, title: str,
               digest_key=None) -> dict:
    """Roles and kinds, what was asked (model, algorithm and its options, hierarchy levels),
    where randomness came from, the pdanon version and the digests: of the release, and of
    the original only keyed (``digest_key``), else none."""
    version = getattr(sys.modules.get("pdanon"), "__version__", "unknown")
    kinds = {**roles.quasi_identifiers, **roles.sensitive}
    table = []
    for c in anonymized.columns:
        role = ("quasi-identifier" if c in roles.quasi_identifiers else "sensitive"
                if c in roles.sensitive else "identifier" if c in roles.identifiers
                else "insensitive")
        table.append({"column": str(c), "role": role, "kind": kinds.get(c, ""),
                      "dtype": str(anonymized[c].dtype)})
    dropped = list(info.get("dropped_identifiers") or info.get("identifiers_dropped") or [])
    for c in dropped:
        table.append({"column": str(c), "role": "identifier (dropped)", "kind": "",
                      "dtype": ""})
    levels = info.get("levels") or {}
    heights = info.get("heights") or {}
    return plain({
        "title": title,
        "pdanon_version": version,
        "rows": len(anonymized),
        "columns": anonymized.shape[1],
        "roles": table,
        "operation": info.get("algorithm") or info.get("operation") or "not recorded",
        "method": info.get("method"),
        "model": info.get("model"),
        "model_params": info.get("params") or {},
        "options": _options(info),
        "hierarchy_levels": [{"column": str(c), "level": lv, "height": heights.get(c)}
                             for c, lv in levels.items()],
        "randomness": info.get("random_source")
        or "not recorded (pdanon never stores a seed)",
        "channels_allowed": [str(c) for c in info.get("channels_allowed") or []],
        "household": dict(info.get("household") or {}),
        "digest_anonymized": digest(anonymized),
        "digest_original": (None if original is None or digest_key is None
                            else digest(original, key=digest_key)),
        "digest_rule": DIGEST_RULE,
        "digest_original_rule": (None if original is None or digest_key is None
                                 else KEYED_DIGEST_RULE),
    })


def privacy(anonymized, qis: list, sensitive: dict, table: pd.DataFrame, threshold: float,
            info: dict, weights=None, household=None) -> dict:
    """k, l, t (keyed as in :data:`pdanon.metrics.FIGURES`), the record-level risk summary
    (as :func:`pdanon.metrics.risk_summary`) and the class sizes."""
    from pdanon import models
    from pdanon.metrics.reidentification import record_risk, risk_summary

    values = dict(zip(table["metric"], table["value"]))
    missing = info.get("missing", "value")  # the rule the release was made under
    k = models.k_anonymity(anonymized, qis, missing=missing) if qis else None
    summary = (risk_summary(anonymized, qis, threshold=threshold, weights=weights,
                            household=household, missing=missing) if qis else pd.Series())
    risk = record_risk(anonymized, qis, missing=missing) if qis else None
    # with missing cells as wildcards rows form no classes (only frequencies)
    sizes = (np.bincount(risk["class_id"].to_numpy()) if risk is not None and len(risk)
             and "class_id" in risk else np.zeros(0, dtype=np.int64))
    return plain({
        "k_anonymity": k,
        "l_diversity_distinct": values.get("l_diversity_distinct") if sensitive else None,
        "l_diversity_entropy": values.get("l_diversity_entropy") if sensitive else None,
        "t_closeness_emd": values.get("t_closeness_emd") if sensitive else None,
        "achieved": info.get("achieved") or {},
        "requested": info.get("params") or {m: info[m] for m in ("k", "l", "t")
                                             if isinstance(info.get(m), (int, float))},
        "threshold": threshold,
        "risk_summary": {str(k_): float(v) for k_, v in summary.items()},
        "class_sizes": sizes.tolist(),
        "prosecutor": ([] if risk is None else risk["prosecutor"].to_numpy().tolist()),
    })


def utility(anonymized, original, qis: dict, table: pd.DataFrame, info: dict,
            suppressed: np.ndarray, params: dict) -> dict:
    """Changed cells, average class size (and C_AVG when k was asked), discernibility,
    information loss and the ML figures of ``table``, keyed as in
    :data:`pdanon.metrics.FIGURES`."""
    n = len(anonymized)
    values = dict(zip(table["metric"], table["value"]))
    out = {"rows": n}
    if original is not None and qis:
        from pdanon.metrics import _cells
        from pdanon.metrics._common import aligned

        orig = aligned(original, anonymized)
        changed = 0
        for c, kind in qis.items():
            changed += int((~_cells.equal_cells(orig[c], anonymized[c], kind)).sum())
        out["changed_cells"] = changed
        out["changed_proportion"] = changed / (n * len(qis)) if n else 0.0
        out["information_loss"] = _information_loss(orig, anonymized, qis)
    else:
        count = info.get("changed_cells", info.get("cells_changed"))
        out["changed_cells"] = count
        out["changed_proportion"] = (count / (n * len(qis)) if count is not None and n
                                     and qis else None)
        out["information_loss"] = None
    classes = values.get("equivalence_classes")
    classes = None if classes is None else int(classes)
    out["equivalence_classes"] = classes
    out["average_class_size"] = values.get("average_class_size")
    k = params.get("k") if isinstance(params, dict) else None
    out["normalized_average_class_size"] = (
        n / (classes * k) if classes and isinstance(k, (int, float)) and k > 0 else None)
    out["discernibility"] = _discernibility(anonymized, list(qis), suppressed) if qis else None
    ml = {m: v for m, v in values.items() if m.startswith("boosting_")}
    out["ml"] = ml
    return plain(out)


def _information_loss(orig, anonymized, qis: dict) -> float | None:
    from pdanon.metrics.published_loss import published_loss

    try:
        return published_loss(anonymized, orig, qis)
    except (ValueError, TypeError):  # a column the loss cannot price (e.g. mixed types)
        return None


def _discernibility(anonymized, qis: list, suppressed: np.ndarray) -> int:
    """Σ |class|² over the published classes, each suppressed row (``suppressed``: a mask)
    costing the row count instead (Bayardo and Agrawal's discernibility metric)."""
    from pdanon._groups import class_labels

    n = len(anonymized)
    kept = anonymized.loc[~suppressed] if suppressed.any() else anonymized
    if len(kept) == 0:
        return int(suppressed.sum()) * n
    sizes = np.bincount(class_labels(kept, qis)).astype(np.int64)
    return int((sizes ** 2).sum()) + int(suppressed.sum()) * n
