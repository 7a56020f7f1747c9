"""The k-anonymity / l-diversity / t-closeness tutorial, end to end with pdanon.

The tutorial (docs/tutorial.md) builds 300 synthetic patient records (zip code, age, gender,
disease), generalizes age into 10-year bands and zip codes to 3 digits + "XX" by hand,
suppresses classes smaller than k, checks distinct and entropy l-diversity and EMD
t-closeness, then runs k = 3, l = 2 and t = 0.2 in turn and reports the record-retention rate.
Here every step is one pdanon call, and the hand-picked generalization levels are replaced by
the optimal ones where the tutorial widened bands by trial.

Run: python examples/tutorial.py [--plot out.png]
"""

from __future__ import annotations

import argparse

import pandas as pd

import pdanon
from pdanon.hierarchy import intervals, masking

QIS = ["zipcode", "age"]
ROLES = dict(quasi_identifiers=QIS, sensitive=["disease"])
#: the tutorial's rules as hierarchies: age 10-year bands (then 20, 40, *), zip 100XX (then *)
HIERARCHIES = {"age": intervals([10, 20, 40]), "zipcode": masking(char="X", steps=[2])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot", help="save the privacy/utility trade-off figure to this PNG")
    args = ap.parse_args(argv)
    pd.set_option("display.width", 120)

    # 1. data
    df = pdanon.datasets.make_patients(300, seed=42)
    print(f"data: {df.shape[0]} rows, columns {list(df.columns)}")
    print("disease distribution:")
    print(df["disease"].value_counts(normalize=True).round(3).to_string())

    # 2. generalization by the tutorial's rules, and the k-anonymity check
    gen = df.anon.generalize({"age": 1, "zipcode": 1}, hierarchies=HIERARCHIES, labels=True,
                             **ROLES)
    print("\ngeneralized by rule (age 10-year bands, zip 100XX):")
    print(gen.head(5).to_string())
    k_rule = gen.anon.k_anonymity(**ROLES)
    print(f"k-anonymity after the rules: k = {k_rule}  (3-anonymous: {k_rule >= 3})")

    # 3. suppress the classes smaller than k = 3 at these levels: retention rate
    k3_rule = df.anon.k_anonymize(3, algorithm="optimal", hierarchies=HIERARCHIES,
                                  max_suppressed_rows=len(df),
                                  levels={"age": 1, "zipcode": 1}, labels=True,
                                  **ROLES)
    kept = k3_rule.dropna(subset=QIS)
    print(f"suppressing classes < 3 at the rule's levels keeps {len(kept)} of {len(df)} rows "
          f"(record-retention rate {len(kept) / len(df):.1%})")

    # 4. l-diversity checks: distinct and entropy
    l_distinct = kept.anon.l_diversity(**ROLES)
    l_entropy = kept.anon.l_diversity(variant="entropy", **ROLES)
    print(f"l-diversity of the 3-anonymous release: distinct l = {l_distinct}, "
          f"entropy l = {l_entropy:.2f}  (2-diverse: {l_distinct >= 2 and l_entropy >= 2})")

    # 5. t-closeness check (EMD; equal distance between diseases)
    t_now = kept.anon.t_closeness(**ROLES)
    print(f"t-closeness of the 3-anonymous release: t = {t_now:.3f}  (0.2-close: {t_now <= 0.2})")

    # 6. the pipeline: k = 3, then l = 2, then t = 0.2, each with the optimal levels and at
    #    most 5% of the rows suppressed
    budget = 0.05
    steps = [
        ("k=3", df.anon.k_anonymize(3, algorithm="optimal", hierarchies=HIERARCHIES,
                                    max_suppressed_rows=budget, labels=True,
                                    **ROLES)),
        ("k=3, l=2", df.anon.l_diversify(2, k=3, algorithm="optimal", hierarchies=HIERARCHIES,
                                         max_suppressed_rows=budget,
                                         labels=True, **ROLES)),
        ("k=3, t=0.2", df.anon.t_close(0.2, k=3, algorithm="optimal", hierarchies=HIERARCHIES,
                                       max_suppressed_rows=budget, labels=True,
                                       **ROLES)),
    ]
    print("\npipeline (optimal levels, <= 5% rows suppressed):")
    print(f"{'step':<12} {'levels':<22} {'retained':>9} {'k':>3} {'l':>3} {'entropy l':>9} "
          f"{'t':>6} {'loss':>6}")
    for name, out in steps:
        info = out.anon.info
        released = out.dropna(subset=QIS)
        k = released.anon.k_anonymity(**ROLES)
        ld = released.anon.l_diversity(**ROLES)
        le = released.anon.l_diversity(variant="entropy", **ROLES)
        t = released.anon.t_closeness(**ROLES)
        levels = ", ".join(f"{c} {v}" for c, v in info["levels"].items())
        print(f"{name:<12} {levels:<22} {len(released) / len(df):>9.1%} {k:>3} {ld:>3} "
              f"{le:>9.2f} {t:>6.3f} {info['publisher_only']['objective_value']:>6.3f}")
    final = steps[-1][1].dropna(subset=QIS)

    # 7. the final checks, as the tutorial prints them
    print("\nfinal release:")
    print(f"record-retention rate: {len(final) / len(df):.1%}")
    print(f"k-anonymity (k=3): {final.anon.k_anonymity(**ROLES) >= 3}")
    print(f"l-diversity (l=2): {final.anon.l_diversity(**ROLES) >= 2}")
    print(f"t-closeness (t=0.2): {final.anon.t_closeness(**ROLES) <= 0.2}")
    print(final.sample(5, random_state=0).to_string())

    # 8. the trade-off the tutorial recommends watching
    if args.plot:
        from pdanon.plot import tradeoff

        fig, table = tradeoff(df, t=[0.3, 0.25, 0.2, 0.15, 0.1], k=3,
                              hierarchies=HIERARCHIES, max_suppressed_rows=budget, **ROLES)
        fig.savefig(args.plot, dpi=110)
        print(f"\ntrade-off (saved to {args.plot}):")
        print(table.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
