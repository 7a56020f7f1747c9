"""The facts of a release report, gathered from the published frame, its ``info`` and, when
given, the original frame: plain dicts, lists and DataFrames that :mod:`pdanon.report.html`
renders and :meth:`ReleaseReport.to_json` serializes.

Nothing here copies a cell of the original frame: the original is only compared with the
release (changed and suppressed cells, information loss, ML utility) and digested.

Example
-------
>>> import hashlib, pandas as pd
>>> text = '[["a", "int64"]]\\n,a\\n0,1\\n1,2\\n'
>>> digest(pd.DataFrame({"a": [1, 2]})) == hashlib.sha256(text.encode()).hexdigest()
True
"""

from __future__ import annotations

import hashlib
import json
import math
import sys

import numpy as np
import pandas as pd

#: how :func:`digest` serializes a frame (also written in the report)
DIGEST_RULE = ("SHA-256 of the UTF-8 bytes of: the JSON list of [column, dtype] pairs, a "
               "newline, then the frame as CSV (pandas to_csv: index and header included, "
               "comma-separated, '\\n' line ends, missing cells empty, generalized cells in "
               "their text form)")

#: info keys that are counts or timings (shown elsewhere, or not deterministic)
_NOT_OPTIONS = {"rows", "groups", "changed_cells", "cells_changed", "suppressed_rows",
                "suppressed_cells", "partitions", "achieved", "model", "params", "algorithm",
                "operation", "method", "quasi_identifiers", "levels", "heights",
                "random_source", "dropped_identifiers", "identifiers_dropped"}
#: info keys never copied into a report, whatever their value
_NEVER = ("key", "seed", "secret", "fingerprint", "salt", "password")


def digest(df: pd.DataFrame) -> str:
    """SHA-256 (hex) of a frame's canonical serialization (:data:`DIGEST_RULE`)."""
    head = json.dumps([[str(c), str(t)] for c, t in df.dtypes.items()], ensure_ascii=False)
    body = df.to_csv(lineterminator="\n", na_rep="")
    return hashlib.sha256((head + "\n" + body).encode("utf-8")).hexdigest()


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
        if key in _NOT_OPTIONS or _secret_name(key) or str(key).endswith("seconds"):
            continue
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if not _secret_name(k)}
        out[str(key)] = plain(value)
    return out


def parameters(anonymized, original, roles, info: dict, title: str) -> dict:
    """Roles and kinds, what was asked (model, algorithm and its options, hierarchy levels),
    where randomness came from, the pdanon version and the digests."""
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
        "digest_anonymized": digest(anonymized),
        "digest_original": None if original is None else digest(original),
        "digest_rule": DIGEST_RULE,
    })


def privacy(anonymized, qis: list, sensitive: dict, table: pd.DataFrame, threshold: float,
            info: dict) -> dict:
    """k, l, t, the record-level risk summary and the class sizes."""
    from pdanon import models
    from pdanon.metrics.reidentification import record_risk, risk_summary

    values = dict(zip(table["metric"], table["value"]))
    k = models.k_anonymity(anonymized, qis) if qis else None
    summary = risk_summary(anonymized, qis, threshold=threshold) if qis else pd.Series()
    risk = record_risk(anonymized, qis) if qis else None
    sizes = (np.bincount(risk["class_id"].to_numpy()) if risk is not None and len(risk)
             else np.zeros(0, dtype=np.int64))
    return plain({
        "k": k,
        "l_distinct": values.get("l-diversity (distinct)") if sensitive else None,
        "l_entropy": values.get("l-diversity (entropy)") if sensitive else None,
        "t_emd": values.get("t-closeness (EMD)") if sensitive else None,
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
    information loss and the ML figures of ``table``."""
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
        out["changed_share"] = changed / (n * len(qis)) if n else 0.0
        out["information_loss"] = _information_loss(orig, anonymized, list(qis))
    else:
        count = info.get("changed_cells", info.get("cells_changed"))
        out["changed_cells"] = count
        out["changed_share"] = (count / (n * len(qis)) if count is not None and n and qis
                                else None)
        out["information_loss"] = None
    classes = values.get("equivalence classes")
    classes = None if classes is None else int(classes)
    out["classes"] = classes
    out["average_class_size"] = values.get("average class size")
    k = params.get("k") if isinstance(params, dict) else None
    out["normalized_average_class_size"] = (
        n / (classes * k) if classes and isinstance(k, (int, float)) and k > 0 else None)
    out["discernibility"] = _discernibility(anonymized, list(qis), suppressed) if qis else None
    ml = {m: v for m, v in values.items() if m.startswith("boosting")
          or m == "linkage attack security"}
    out["ml"] = ml
    return plain(out)


def _information_loss(orig, anonymized, qis) -> float | None:
    from pdanon.plot import information_loss

    try:
        return information_loss(orig, anonymized, qis)
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
