"""The known leaks of the release-safety issues, seen by the attacks (issue 51, point 5).

Each table is kept as a regression test: the leaky release (the behaviour before the fix,
rebuilt here on purpose) shows a high risk, the release today's path makes shows none beyond
what the model itself gives. The thresholds read the intervals, not a chosen number: the
leaky release's lower bound lies above one half (more likely than not, at 95 %) **and** above
the fixed release's upper bound (the two cannot be the same risk); the fixed one's interval
reaches 0, or matches the release without the leaking column. The weight table is in
tests/metrics/test_attacks.py (``test_a_weight_column_published_unchanged...``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pdanon import attacks
from tests.test_households import household_table

QI = ["age", "sex", "region"]


def _clearly_above(leaky, fixed):
    assert leaky.ci[0] > 0.5, leaky
    assert leaky.ci[0] > fixed.ci[1], (leaky, fixed)


def test_a_household_id_published_unchanged_shows_up_as_inference_and_linkability_risk():
    """Issue 47, point 2: the household id published as collected (a listing or case number
    the attacker also holds) finds a person's row among the few of their household. Before
    the fix it was published unchanged; ``household=`` now publishes it renumbered."""
    df = household_table(600, seed=1)
    rng = np.random.default_rng(0)
    ids = df["hh"].unique()
    held = rng.choice(ids, len(ids) // 2, replace=False)  # whole households held out
    control = df[df["hh"].isin(held)].reset_index(drop=True)
    original = df[~df["hh"].isin(held)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = original.anon.k_anonymize(3, household="hh", quasi_identifiers=QI,
                                          sensitive=["income"], algorithm="mondrian",
                                          row_order="input")
    leaky = fixed.assign(hh=original["hh"].to_numpy())  # the id as collected
    kw = dict(control=control, n_attacks=500, seed=0)
    inf = {name: attacks.inference(rel, original, aux_cols=["hh", *QI], secret="income", **kw)
           for name, rel in (("leaky", leaky), ("fixed", fixed))}
    _clearly_above(inf["leaky"], inf["fixed"])
    # the renumbered id adds nothing to what the k-anonymous classes give
    classes = attacks.inference(fixed, original, aux_cols=QI, secret="income", **kw)
    assert abs(inf["fixed"].risk - classes.risk) <= max(
        inf["fixed"].ci[1] - inf["fixed"].ci[0], classes.ci[1] - classes.ci[0]) / 2
    link = {name: attacks.linkability(rel, original, aux_cols=(["hh"], QI), **kw)
            for name, rel in (("leaky", leaky), ("fixed", fixed))}
    assert link["leaky"].ci[0] > link["fixed"].ci[1]  # halves joined through the id
    assert link["fixed"].ci[0] == 0.0


def test_an_export_sorted_on_a_hidden_column_gives_it_back_through_the_order():
    """Issue 47 (row order): an export sorted by ZIP, ZIP withheld, published in the input's
    order: the order says each row's ZIP to anyone who knows how many people live in each
    ZIP (public counts). The attacks read columns, not order, so the test writes what the
    order says as the column any reader can make (``zip``: the ZIP whose block of the
    sorted file holds the row); the same reading of a release in a random order (today's
    default) gives random ZIPs. The attacker knows a target's income (published as is)."""
    rng = np.random.default_rng(3)
    n = 1200
    df = pd.DataFrame({"zip": rng.choice(["02139", "02140", "02141", "04777", "04778"], n,
                                         p=[.3, .3, .2, .1, .1]),
                       "age": rng.integers(20, 90, n),
                       "dx": rng.choice(["flu", "cold", "hiv"], n),
                       "income": rng.lognormal(10, 1, n).round(0)})
    original, control = attacks.holdout(df, 0.5, seed=0)
    original = original.sort_values(["zip", "age"]).reset_index(drop=True)  # the export
    counts = original["zip"].value_counts().sort_index()  # the public counts per ZIP

    def read_by_position(release):
        return release.assign(zip=np.repeat(counts.index.to_numpy(), counts.to_numpy()))

    hidden = original.drop(columns="zip")
    kw = dict(quasi_identifiers=["age"], sensitive=["dx"], insensitive=["income"],
              allow_channels=["income"], algorithm="mondrian")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        leaky = read_by_position(hidden.anon.k_anonymize(5, row_order="input", **kw))
        fixed = read_by_position(hidden.anon.k_anonymize(5, **kw))
    found = {name: attacks.inference(rel, original, control=control, aux_cols=["income"],
                                     secret="zip", n_attacks=500, seed=0)
             for name, rel in (("leaky", leaky), ("fixed", fixed))}
    _clearly_above(found["leaky"], found["fixed"])
    assert found["fixed"].ci[0] == 0.0
