"""Freeze pycanon's outputs for β-likeness, δ-disclosure and (α, k)-anonymity on a few tables,
for tests/test_models_disclosure.py (which then needs no pycanon).

Run from the repository root, with pdanon importable and pycanon installed in a separate
virtualenv (``python3 -m venv /tmp/pycanon_venv && /tmp/pycanon_venv/bin/pip install
pycanon``)::

    PYTHONPATH=. python tools/make_pycanon_disclosure_fixture.py /tmp/pycanon_venv/bin/python

Stage one (this interpreter, with pdanon) builds the tables - hand-made ones and k-anonymized
samples of the embedded Adult data - as aggregated rows ``[cell, ..., count]`` (``null`` for a
missing cell); stage two (``--pycanon``, run by the pycanon interpreter, without pdanon)
expands them and calls pycanon. The fixture ``tests/data/pycanon_disclosure.json`` holds the
rows, pycanon's version and outputs (``"inf"`` / ``"nan"`` for those floats, or the error it
raised) and pdanon's outputs at the time.
"""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "pycanon_disclosure.json"


def number(x):
    x = float(x)
    return "inf" if math.isinf(x) and x > 0 else "nan" if math.isnan(x) else x


def hand_cases() -> list:
    def case(name, note, columns, rows, qis, sensitive):
        return {"name": name, "note": note, "columns": columns,
                "rows": [list(r) + [1] for r in rows], "qis": qis, "sensitive": sensitive}

    return [
        case("two_classes", "table a 4/6, b 2/6; classes (a, b) and (a, a, a, b)",
             ["zip", "d"], zip([1, 1, 2, 2, 2, 2], "abaaab"), ["zip"], ["d"]),
        case("absent_value", "class 2 holds no a", ["zip", "d"],
             zip([1, 1, 2], "aab"), ["zip"], ["d"]),
        case("enhanced_cap", "a (p = 3/4) fills class 1: gain 1/3 > -ln(3/4) = 0.288",
             ["zip", "d"], zip([1] * 4 + [2] * 4, "aaaaaabb"), ["zip"], ["d"]),
        case("one_class", "one class: q = p everywhere", ["zip", "d"],
             zip([1] * 5, "aabbc"), ["zip"], ["d"]),
        case("two_sensitive", "two sensitive columns: the worst of the two",
             ["zip", "d", "e"], zip([1, 1, 1, 2, 2, 2], "abcabc", "xxyyyy"), ["zip"],
             ["d", "e"]),
        case("missing_sensitive", "a missing sensitive cell (None)", ["zip", "d"],
             zip([1, 1, 2, 2], ["a", None, "a", "b"]), ["zip"], ["d"]),
        case("missing_qi", "a missing quasi-identifier cell (None)", ["zip", "d"],
             zip([1, 1, None, 2, 2], "abaab"), ["zip"], ["d"]),
    ]


def adult_cases() -> list:
    """Outputs of pdanon's anonymizers on Adult samples. Only the classes matter to these
    measures, so the quasi-identifier cells of a class are replaced by its number
    (``class``) and the fixture stays small."""
    import pdanon
    from pdanon.models import AlphaKAnonymity, BetaLikeness, DeltaDisclosure, KAnonymity

    qis = ["age", "sex", "race", "education"]
    specs = [("adult_salary_k10", "salary-class", 3000, KAnonymity(10)),
             ("adult_salary_enhanced_beta", "salary-class", 3000,
              BetaLikeness(0.5, variant="enhanced")),
             ("adult_salary_delta", "salary-class", 3000, DeltaDisclosure(0.5)),
             ("adult_salary_alpha_k", "salary-class", 3000, AlphaKAnonymity(0.8, 5)),
             ("adult_occupation_k5", "occupation", 1500, KAnonymity(5))]
    out = []
    for name, sens, nrows, model in specs:
        adult = pdanon.datasets.load_adult(nrows=nrows)[qis + [sens]]
        anon = adult.anon.anonymize(model, algorithm="mondrian", quasi_identifiers=qis,
                                    sensitive=[sens])
        keys = anon[qis].astype(str).agg("|".join, axis=1)
        frame = pd.DataFrame({"class": pd.factorize(keys)[0], sens: anon[sens].astype(str)})
        counts = frame.groupby(["class", sens]).size().reset_index()
        out.append({"name": name, "columns": ["class", sens],
                    "note": f"first {nrows} Adult rows, {model!r} by Mondrian on {qis}",
                    "rows": counts.values.tolist(), "qis": ["class"], "sensitive": [sens]})
    return out


def frame_of(case):
    rows = []
    for r in case["rows"]:
        rows.extend([r[:-1]] * int(r[-1]))
    return pd.DataFrame(rows, columns=case["columns"])


def run_pycanon() -> None:
    """Stage two: read the cases on stdin, print pycanon's outputs."""
    import pycanon
    from pycanon import anonymity as a

    cases = json.load(sys.stdin)
    results = {}
    for case in cases:
        df = frame_of(case)
        got = {}
        calls = {"basic_beta": a.basic_beta_likeness, "enhanced_beta": a.enhanced_beta_likeness,
                 "delta": a.delta_disclosure, "alpha_k": a.alpha_k_anonymity}
        for key, fn in calls.items():
            try:
                v = fn(df, case["qis"], case["sensitive"])
                got[key] = [number(v[0]), int(v[1])] if key == "alpha_k" else number(v)
            except Exception as e:  # record what pycanon does, errors included
                got[key] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        results[case["name"]] = got
    json.dump({"version": pycanon.__version__, "results": results}, sys.stdout)


def pdanon_outputs(case) -> dict:
    from pdanon import models

    df = frame_of(case)
    q, s = case["qis"], case["sensitive"]
    ak = models.alpha_k_anonymity(df, q, s)
    return {"basic_beta": number(models.beta_likeness(df, q, s)),
            "enhanced_beta": number(models.beta_likeness(df, q, s, variant="enhanced")),
            "delta": number(models.delta_disclosure(df, q, s)),
            "alpha_k": [number(ak.alpha), ak.k]}


def main() -> None:
    if sys.argv[1:] == ["--pycanon"]:
        run_pycanon()
        return
    interpreter = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pycanon_venv/bin/python"
    cases = hand_cases() + adult_cases()
    proc = subprocess.run([interpreter, __file__, "--pycanon"], input=json.dumps(cases),
                          capture_output=True, text=True, check=True)
    ref = json.loads(proc.stdout)
    for case in cases:
        case["pycanon"] = ref["results"][case["name"]]
        case["pdanon"] = pdanon_outputs(case)
    lines = [json.dumps({k: v for k, v in c.items() if k != "rows"})[:-1]
             + ', "rows": ' + json.dumps(c["rows"], separators=(",", ":")) + "}"
             for c in cases]
    OUT.write_text('{"pycanon_version": %s, "cases": [\n%s\n]}\n'
                   % (json.dumps(ref["version"]), ",\n".join(lines)))
    print(f"wrote {OUT} ({len(cases)} cases, pycanon {ref['version']})")


if __name__ == "__main__":
    main()
