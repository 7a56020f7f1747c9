"""pdanon.attacks side by side with Anonymeter 1.1.0 on releases of plain values.

Anonymeter (Giomi et al., PoPETs 2023; ``pip install anonymeter==1.1.0``) is never imported
here nor by pdanon: it runs in its own virtualenv, through a subprocess, on the same tables
written to CSV files. Make the environment once::

    python3 -m venv /work/venvs/anonymeter
    /work/venvs/anonymeter/bin/pip install anonymeter==1.1.0

then run ``python benchmarks/compare_anonymeter.py`` (``--python`` names another interpreter;
``--attacks`` the attacks per configuration; ``--quick`` fewer configurations). For every
configuration (a release × an attack) it prints both tools' main and control success rates
and risks with their 95 % intervals, and whether the two tools' intervals overlap ("agree"):
on the main rate, on the control rate, and on the risk. Anonymeter's figures are its success
counts over the attacks it made ("n pd/am": singling out can make fewer predicates than asked,
and Anonymeter divides by those asked: its figures as it reports them are in "am as
reported", main/control/risk), with the same Wilson intervals pdanon uses. The docs
(docs/attacks.md) carry the table and say where and why the definitions differ.

Tables: ``numeric`` (6 correlated numeric columns and 2 categories: few ties, where the
two tools' nearest-neighbour searches see the same thing) and ``adult`` (Adult's columns as
text and age: many ties; de-duplicated before the split). Original and control are disjoint
halves of one table, the same size, so Anonymeter's control rescaling is not exercised here
(docs/attacks.md explains why pdanon re-fits it). Singling-out inputs are de-duplicated for both tools (Anonymeter drops
duplicate rows before counting).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pdanon  # noqa: E402
from pdanon import attacks  # noqa: E402
from _util import print_table  # noqa: E402

DEFAULT_PYTHON = "/work/venvs/anonymeter/bin/python"

RUNNER = r'''
import json, sys, time, warnings, logging
import pandas as pd
logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
from anonymeter.evaluators import SinglingOutEvaluator, LinkabilityEvaluator, InferenceEvaluator
spec = json.load(open(sys.argv[1]))
out = {}
frames = {}
def load(name):
    if name not in frames:
        frames[name] = pd.read_csv(spec["files"][name])
    return frames[name]
for cfg in spec["configs"]:
    ori, syn, ctrl = load(cfg["original"]), load(cfg["release"]), load(cfg["control"])
    t0 = time.perf_counter()
    kind = cfg["attack"]
    made = None
    if kind.startswith("singling"):
        # the predicates Anonymeter makes (it divides by those asked): the same generator
        # and seed as the evaluator's first draw
        import numpy as np
        import polars as pl
        from anonymeter.evaluators import singling_out_evaluator as so
        made = len(so._generate_singling_out_queries(
            df=pl.DataFrame(so._safe_column_names(syn)).unique(maintain_order=True),
            n_attacks=cfg["n"], n_cols=cfg.get("n_cols", 3), mode=cfg["mode"],
            max_attempts=cfg.get("max_attempts", 20 * cfg["n"]),
            rng=np.random.default_rng(cfg["seed"])))
        ev = SinglingOutEvaluator(ori=ori, syn=syn, control=ctrl, n_attacks=cfg["n"],
                                  n_cols=cfg.get("n_cols", 3), seed=cfg["seed"],
                                  max_attempts=cfg.get("max_attempts", 20 * cfg["n"]))
        ev.evaluate(mode=cfg["mode"])
    elif kind == "linkability":
        ev = LinkabilityEvaluator(ori=ori, syn=syn, control=ctrl, n_attacks=cfg["n"],
                                  aux_cols=tuple(cfg["aux_cols"]), n_neighbors=1)
        ev.evaluate(n_jobs=1)
    else:
        ev = InferenceEvaluator(ori=ori, syn=syn, control=ctrl, n_attacks=cfg["n"],
                                aux_cols=cfg["aux_cols"], secret=cfg["secret"],
                                regression=cfg["regression"])
        ev.evaluate(n_jobs=1)
    res = ev.results()
    risk = ev.risk()
    out[cfg["id"]] = {
        "main": [res.attack_rate.value, res.attack_rate.error],
        "control": [res.control_rate.value, res.control_rate.error],
        "baseline": [res.baseline_rate.value, res.baseline_rate.error],
        "risk": [risk.value, list(risk.ci)], "n_success": float(res.n_success),
        "n_control": float(res.n_control), "n_attacks": res.n_attacks_ori, "made": made,
        "seconds": time.perf_counter() - t0}
json.dump(out, open(sys.argv[2], "w"))
'''


def numeric_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3))
    df = pd.DataFrame({
        "x1": z[:, 0], "x2": 0.7 * z[:, 0] + 0.3 * rng.normal(size=n),
        "x3": z[:, 1], "x4": np.exp(0.5 * z[:, 2]) * 10,
        "x5": 0.5 * z[:, 1] + rng.normal(size=n), "x6": rng.uniform(0, 100, n),
        "c1": rng.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1]),
        "c2": np.where(z[:, 0] > 0, "hi", "lo"),
    })
    return df


def adult_table() -> pd.DataFrame:
    adult = pdanon.datasets.load_adult()
    adult["education"] = adult["education"].astype(str)  # a category for both tools
    return pd.DataFrame({c: adult[c].to_numpy() for c in adult.columns})


def independent(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A "synthetic" table: every column drawn from its own marginal, independently."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: df[c].to_numpy()[rng.integers(0, len(df), len(df))]
                         for c in df.columns})


def releases(original: pd.DataFrame, numeric: list, cats: list, seed: int) -> dict:
    plain = original.reset_index(drop=True)
    every = list(plain.columns)

    def rest(cols):  # the other columns are published unchanged, on purpose
        return [c for c in every if c not in cols]

    out = {
        "copy": plain,
        "noise 0.5": plain.anon.add_noise(numeric, noise=0.5, seed=seed,
                                          insensitive=rest(numeric)),
        "shuffle": plain.anon.shuffle(every, seed=seed, insensitive=every),
        "MDAV k=5": plain.anon.microaggregate(5, columns=numeric, quasi_identifiers=numeric,
                                              insensitive=rest(numeric)),
        "PRAM p=0.7": plain.anon.pram(cats, p=0.7, seed=seed, insensitive=rest(cats)),
        "independent": independent(plain, seed),
    }
    # every release as plain values with the original's dtypes (no roles, no attrs)
    return {k: pd.DataFrame({c: v[c].to_numpy() for c in plain.columns}).astype(
        plain.dtypes.to_dict()) for k, v in out.items() if v is not None}


def configs(table: str, cols: list, numeric: list, cats: list, n: int) -> list:
    half = len(cols) // 2
    if table == "adult":
        aux = (["age", "sex", "race", "marital-status"],
               ["education", "native-country", "workclass", "occupation"])
        inf = [("salary-class", ["age", "sex", "race", "marital-status", "education",
                                 "workclass", "occupation"], False)]
    else:
        aux = (cols[:half], cols[half:])
        inf = [("x6", [c for c in cols if c != "x6"], True),
               ("c1", [c for c in cols if c != "c1"], False)]
    out = [{"attack": "singling out", "mode": "multivariate", "n": n},
           {"attack": "singling out", "mode": "univariate", "n": n},
           {"attack": "linkability", "aux_cols": [list(aux[0]), list(aux[1])], "n": n}]
    for secret, aux_cols, regression in inf:
        out.append({"attack": "inference", "secret": secret, "aux_cols": aux_cols,
                    "regression": regression, "n": n})
    return out


def run_pdanon(cfg: dict, rel, ori, ctrl, seed: int):
    if cfg["attack"] == "singling out":
        return attacks.singling_out(rel, ori, control=ctrl, n_attacks=cfg["n"],
                                    mode=cfg["mode"], seed=seed,
                                    max_attempts=20 * cfg["n"])
    if cfg["attack"] == "linkability":
        return attacks.linkability(rel, ori, control=ctrl, aux_cols=tuple(cfg["aux_cols"]),
                                   n_attacks=cfg["n"], seed=seed)
    return attacks.inference(rel, ori, control=ctrl, aux_cols=cfg["aux_cols"],
                             secret=cfg["secret"], n_attacks=cfg["n"], seed=seed)


def overlap(a, b) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--python", default=DEFAULT_PYTHON)
    ap.add_argument("--attacks", type=int, default=500)
    ap.add_argument("--rows", type=int, default=3000, help="rows of original and of control")
    ap.add_argument("--quick", action="store_true", help="the numeric table only")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not Path(args.python).exists():
        print(f"no Anonymeter interpreter at {args.python}; make it as the docstring says")
        return 2
    tables = {"numeric": numeric_table(2 * args.rows, args.seed)}
    if not args.quick:
        # de-duplicated before the split: original and control share no row by content
        tables["adult"] = adult_table().drop_duplicates().sample(2 * args.rows,
                                                                 random_state=args.seed)
    rows, specs, files = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        work = {}
        for tname, df in tables.items():
            df = df.reset_index(drop=True)
            ori = df.iloc[:args.rows].reset_index(drop=True)
            ctrl = df.iloc[args.rows:].reset_index(drop=True)
            numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
            cats = [c for c in df.columns if c not in numeric]
            rels = releases(ori, numeric if tname == "numeric" else ["age"], cats, args.seed)
            for role, frame in (("original", ori), ("control", ctrl)):
                files[f"{tname}/{role}"] = frame
                files[f"{tname}/{role}/unique"] = frame.drop_duplicates().reset_index(drop=True)
            for rname, rel in rels.items():
                files[f"{tname}/{rname}"] = rel
                files[f"{tname}/{rname}/unique"] = rel.drop_duplicates().reset_index(drop=True)
                for i, cfg in enumerate(configs(tname, list(df.columns), numeric, cats,
                                                args.attacks)):
                    so = cfg["attack"] == "singling out"
                    sfx = "/unique" if so else ""
                    cid = f"{tname}|{rname}|{i}"
                    specs.append({**cfg, "id": cid, "seed": args.seed,
                                  "original": f"{tname}/original{sfx}",
                                  "control": f"{tname}/control{sfx}",
                                  "release": f"{tname}/{rname}{sfx}"})
                    work[cid] = (tname, rname, cfg, sfx)
        paths = {}
        for k, frame in files.items():
            p = Path(tmp) / (k.replace("/", "__").replace(" ", "_") + ".csv")
            frame.to_csv(p, index=False)
            paths[k] = str(p)
        spec_path, out_path = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec_path.write_text(json.dumps({"files": paths, "configs": specs}))
        runner = Path(tmp) / "runner.py"
        runner.write_text(RUNNER)
        t0 = time.perf_counter()
        subprocess.run([args.python, str(runner), str(spec_path), str(out_path)], check=True)
        anon_seconds = time.perf_counter() - t0
        theirs = json.loads(out_path.read_text())
        ours_seconds = 0.0
        for cid, (tname, rname, cfg, sfx) in work.items():
            ori, ctrl, rel = (files[f"{tname}/original{sfx}"], files[f"{tname}/control{sfx}"],
                              files[f"{tname}/{rname}{sfx}"])
            t1 = time.perf_counter()
            r = run_pdanon(cfg, rel, ori, ctrl, args.seed)
            ours_seconds += time.perf_counter() - t1
            a = theirs[cid]
            # Anonymeter's counts over the attacks it made (the paper's rates), read the way
            # pdanon reads its own: Wilson intervals and the same risk interval
            made = a["made"] if a["made"] is not None else a["n_attacks"]
            am = attacks.AttackResult("anonymeter", a["n_success"] / made if made else 0.0,
                                      a["n_control"] / made if made else 0.0, 0.0, made,
                                      a["n_success"], a["n_control"], 0)
            a_main, a_ctrl = am.main_ci, am.control_ci
            name = cfg["attack"] + (f" {cfg['mode'][:5]}" if "mode" in cfg else "") + (
                f" {cfg['secret']}" if "secret" in cfg else "")
            rows.append({
                "table": tname, "release": rname, "attack": name,
                "n pd/am": f"{r.n_attacks}/{made}",
                "main pd": _iv(r.main_rate, r.main_ci),
                "main am": _iv(am.main_rate, a_main),
                "control pd": _iv(r.control_rate, r.control_ci),
                "control am": _iv(am.control_rate, a_ctrl),
                "risk pd": _iv(r.risk, r.ci), "risk am": _iv(am.risk, am.ci),
                "am as reported": f"{a['main'][0]:.3f}/{a['control'][0]:.3f}/{a['risk'][0]:.3f}",
                "agree": "".join("y" if ok else "n" for ok in (
                    overlap(r.main_ci, a_main), overlap(r.control_ci, a_ctrl),
                    overlap(r.ci, am.ci))),
            })
    print_table(rows)
    agree = sum(r["agree"] == "yyy" for r in rows)
    print(f"\n{agree} of {len(rows)} configurations agree on main rate, control rate and risk "
          f"(95 % intervals overlap); 'agree' columns: main, control, risk")
    print(f"time: pdanon {ours_seconds:.1f} s, anonymeter {anon_seconds:.1f} s "
          f"(its process, imports included)")
    return 0


def _iv(value, ci) -> str:
    return f"{value:.2f} [{ci[0]:.2f},{ci[1]:.2f}]"


if __name__ == "__main__":
    raise SystemExit(main())
