"""``evaluate=`` and ``control=`` of the anonymizers (issue 51, point 3): the control set is held
out before anonymizing, the release is made from the other rows only, the attacks run once and
every verdict, report and publication of the release shows them; the held-out rows and the
figures never leave the process."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon import attacks
from pdanon._errors import InvalidInputError
from pdanon.checks.attack_risks import as_dicts

QI = ["age", "zip"]


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 70, n), "zip": rng.integers(0, 9, n),
                         "d": np.repeat(["flu", "hiv", "cold", "gout"], n // 4)})


def _evaluated(df, **kw):
    return df.anon.k_anonymize(5, quasi_identifiers=QI, sensitive=["d"], algorithm="mondrian",
                               evaluate={"seed": 0, "n_attacks": 150, **kw})


def test_the_release_is_made_from_the_rows_not_held_out_only():
    df = _table()
    before = df.copy()
    out = _evaluated(df)
    pd.testing.assert_frame_equal(df, before)  # the input is not modified
    # the documented split: a half, stratified on the sensitive column, seeded
    part, control = attacks.holdout(df, 0.5, stratify=["d"], seed=0)
    assert len(out) == len(part) == 200 and len(control) == 200
    assert out.anon.info["evaluate"] == {"share": 0.5, "released_from_rows": 200,
                                         "control_rows": 200, "held_out": True,
                                         "attacks": ["inference", "linkability",
                                                     "singling_out"]}
    # every published row is a row of the part (the way back points into df)
    came_from = out.anon.input_rows(df)
    assert set(came_from.index) == set(part.index)
    assert sorted(out["d"]) == sorted(part["d"])
    assert (out["age"].array.contains(came_from["age"].to_numpy())).all()
    # equal sizes: singling out needs no rescaling (docs/attacks.md, why one half)
    found = out.anon.check().attacks
    assert not any("rescaled" in note for note in found["singling_out"].notes)


def test_check_report_and_publish_show_the_anonymizers_own_draws(tmp_path):
    import json

    df = _table()
    out = _evaluated(df)
    result = out.anon.check()
    found = result.attacks
    assert set(found) == {"singling_out", "linkability", "inference"}
    again = out.anon.check(original=df)  # the full frame: the way back points into it
    assert as_dicts(again.attacks) == as_dicts(found)
    policy = pdanon.Policy(k=5, max_linkability=0.9, max_inference=0.99)
    verdict = out.anon.check(policy)  # criteria without a control: the stored attacks
    measured = verdict.criteria.set_index("criterion")["measured"]
    assert measured["linkability_risk"] == pytest.approx(found["linkability"].ci[1])
    assert out.anon.report(df).attacks == json.loads(json.dumps(as_dicts(found)))
    done = out.anon.publish(tmp_path / "rel", original=df, policy=policy)
    with open(tmp_path / "rel" / "report.json", encoding="utf-8") as fh:
        assert json.load(fh)["attacks"] == json.loads(json.dumps(as_dicts(found)))
    assert as_dicts(done.verdict.attacks) == as_dicts(found)
    # the figures and the held-out rows stay with the publisher: the file holds none
    raw = (tmp_path / "rel" / "release.parquet").read_bytes()
    for word in (b"main_rate", b"control_rate", b"attacks_of", b"AttackResult"):
        assert word not in raw
    back = pd.read_parquet(tmp_path / "rel" / "release.parquet")
    assert back.anon.check(quasi_identifiers=QI, sensitive=["d"]).attacks == {}
    with pytest.raises(InvalidInputError, match="control="):
        back.anon.check(policy, quasi_identifiers=QI, sensitive=["d"])


def test_a_release_edited_after_the_attacks_is_not_judged_by_them():
    df = _table()
    out = _evaluated(df)
    policy = pdanon.Policy(k=5, max_linkability=0.9)
    out.anon.check(policy)
    edited = out.assign(d="flu")  # pandas carries the attrs; the content is another
    with pytest.raises(InvalidInputError, match="control="):
        edited.anon.check(policy)
    # the same rows in another order are the same release
    assert out.anon.in_random_order(seed=1).anon.check().attacks


def test_control_given_to_the_anonymizer_anonymizes_every_row():
    df = _table()
    part, control = attacks.holdout(df, 0.3, seed=2)
    out = part.anon.k_anonymize(5, quasi_identifiers=QI, sensitive=["d"],
                                algorithm="mondrian", control=control,
                                evaluate={"seed": 0, "n_attacks": 100})
    assert len(out) == len(part)
    info = out.anon.info["evaluate"]
    assert info["held_out"] is False and info["share"] is None
    assert info["control_rows"] == len(control)
    assert out.anon.check().attacks["linkability"].n_attacks == 100


def test_the_other_faces_take_evaluate():
    df = _table()
    for out in (df.anon.l_diversify(2, quasi_identifiers=QI, sensitive=["d"],
                                    evaluate={"seed": 0, "n_attacks": 100}),
                df.anon.t_close(0.5, k=3, quasi_identifiers=QI, sensitive=["d"],
                                evaluate={"seed": 0, "n_attacks": 100}),
                df.anon.anonymize(pdanon.models.KAnonymity(4), quasi_identifiers=QI,
                                  sensitive=["d"], evaluate={"seed": 0, "n_attacks": 100})):
        assert len(out) == 200
        assert set(out.anon.check().attacks) == {"singling_out", "linkability", "inference"}


def test_an_impossible_split_is_refused_with_the_reason_and_the_fix():
    df = _table()
    with pytest.raises(InvalidInputError, match="fewer than .* rows.*control="):
        _evaluated(df.iloc[:8])
    rare = df.assign(d=["ebola"] + df["d"].tolist()[1:])  # one row: all of it on one side
    with pytest.raises(InvalidInputError, match="too small to split.*control="):
        _evaluated(rare)
    _evaluated(rare, stratify=None)  # at random: possible
    with pytest.raises(InvalidInputError, match="did you mean 'share'"):
        _evaluated(df, shares=0.2)
    with pytest.raises(InvalidInputError, match="strictly between 0 and 1"):
        _evaluated(df, share=1.5)
    with pytest.raises(InvalidInputError, match="pass one of them"):
        df.anon.k_anonymize(5, quasi_identifiers=QI, control=df.iloc[:10],
                            evaluate={"share": 0.2})
    households = df.assign(hh=np.arange(len(df)) // 2)
    with pytest.raises(InvalidInputError, match="households"):
        households.anon.k_anonymize(5, quasi_identifiers=QI, sensitive=["d"],
                                    household="hh", evaluate=True)
    with pytest.raises(InvalidInputError, match="two quasi-identifiers"):
        df.anon.k_anonymize(5, quasi_identifiers=["age"], insensitive=["zip"],
                            sensitive=["d"], evaluate={"seed": 0, "n_attacks": 50}
                            ).anon.check(pdanon.Policy(k=5, max_linkability=0.5))
