"""A dry run (pdanon/accessor/plan.py, pdanon/cli/plan.py): ``df.anon.plan(...)`` and ``pdanon
anonymize --dry-run`` show the roles, the refusals, the algorithm, the hierarchies and levels,
and the classes and suppressed rows the real call gives — writing nothing."""

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.__main__ import main
from pdanon.hierarchy import intervals


def people(n=300, seed=4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": np.arange(n), "age": rng.integers(18, 90, n),
                         "sex": rng.choice(["F", "M"], n),
                         "zip": rng.choice(["02139", "02140", "10001", "10002"], n),
                         "diagnosis": rng.choice(["flu", "hiv", "cold"], n)})


ROLES = dict(quasi_identifiers=["age", "sex", "zip"], identifiers=["id"],
             sensitive=["diagnosis"])


@pytest.mark.parametrize("keywords", [
    dict(k=5),
    dict(k=5, l=2, algorithm="mondrian"),
    dict(k=10, algorithm="datafly", max_suppressed_rows=0.05),
    dict(k=5, algorithm="optimal", hierarchies={"age": intervals([5, 10, 20])},
         levels={"age": (1, 3)}, max_suppressed_rows=10),
])
def test_the_plan_gives_the_real_calls_figures(keywords):
    df = people()
    before = df.copy()
    p = df.anon.plan(**keywords, **ROLES)
    out = df.anon.k_anonymize(keywords.pop("k"), **keywords, **ROLES)
    pd.testing.assert_frame_equal(df, before)  # the input is not touched
    assert p.ok and p.refusals == []
    assert p.algorithm == out.anon.info["algorithm"]
    assert p.expected_classes == out.anon.info["groups"] == out.anon.equivalence_classes(
    ).nunique()
    assert p.expected_suppressed == out.anon.info["suppressed_rows"]
    if "hierarchies" in keywords:  # the levels searched and the one chosen
        assert p.hierarchies["age"]["levels"] == (1, 3)
        assert p.hierarchies["age"]["chosen"] == out.anon.info["levels"]["age"]
        assert p.nodes_searched[1] == out.anon.info["nodes_total"]


def test_auto_is_resolved_as_the_engine_resolves_it():
    df = people()
    for keywords in (dict(k=5), dict(k=5, l=2)):
        p = df.anon.plan(**keywords, **ROLES)
        out = df.anon.k_anonymize(keywords.pop("k"), **keywords, **ROLES)
        assert p.requested == "auto" and p.algorithm == out.anon.info["algorithm"]


def test_roles_given_and_inferred_and_refusals_collected():
    df = people().assign(patient_name=[f"name {i}" for i in range(300)])
    p = df.anon.plan(k=5, quasi_identifiers={"age": "real", "sex": "unordered"},
                     sensitive=["diagnosis"])
    assert p.roles["age"] == ("quasi_identifier", "real", "given")
    assert p.roles["zip"][0] == "insensitive" and p.roles["zip"][2] == "inferred"
    assert not p.ok and p.expected_classes is None
    assert any("patient_name" in r and "identifiers=" in r for r in p.refusals)
    text = p.to_text()
    assert "refused" in text and "patient_name" in text and "zip (inferred)" in text
    # an infeasible request is a refusal too, with the engine's reason
    bad = people().anon.plan(k=1000, **ROLES)
    assert not bad.ok and "1000" in " ".join(bad.refusals)
    with pytest.raises(TypeError, match="did you mean"):
        people().anon.plan(k=5, max_supressed_rows=3, **ROLES)


def test_dry_run_writes_nothing_and_prints_the_plan(tmp_path, capsys):
    df = people()
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    outputs = [tmp_path / name for name in ("r.csv", "r.html", "c.toml", "s.yaml")]
    code = main(["anonymize", str(path), "-o", str(outputs[0]), "--report", str(outputs[1]),
                 "--write-config", str(outputs[2]), "--schema", str(outputs[3]),
                 "--qi", "age:real,sex,zip", "--identifiers", "id", "--sensitive",
                 "diagnosis", "-k", "5", "-a", "optimal", "--hierarchy",
                 "age=intervals:5,10,20", "--levels", "age=1:3", "--max-suppressed", "10",
                 "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not any(p.exists() for p in outputs)
    python = df.anon.k_anonymize(5, algorithm="optimal",
                                 hierarchies={"age": intervals([5, 10, 20])},
                                 levels={"age": (1, 3)}, max_suppressed_rows=10,
                                 quasi_identifiers={"age": "real", "sex": "unordered",
                                                    "zip": "unordered"},
                                 identifiers=["id"], sensitive=["diagnosis"]).anon.info
    assert f"classes           {python['groups']:,} expected" in out
    assert f"suppressed rows   {python['suppressed_rows']:,} expected of 300" in out
    assert f"age: levels 1..3 of 0..{python['heights']['age']}, chosen " \
           f"{python['levels']['age']}" in out
    assert "quasi-identifiers age real, sex unordered, zip unordered" in out


def test_dry_run_refusal_speaks_in_flags(tmp_path, capsys):
    df = people().assign(patient_name=[f"name {i}" for i in range(300)])
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    code = main(["anonymize", str(path), "--qi", "age,sex,zip", "--identifiers", "id",
                 "--sensitive", "diagnosis", "-k", "5", "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "refused" in out and "--identifiers patient_name" in out
    assert "identifiers=[" not in out
    code = main(["anonymize", str(path), "--qi", "age", "--epsilon", "1", "--dp-delta",
                 "1e-5", "--dry-run"])
    assert code == 2 and "--dry-run" in capsys.readouterr().err


def test_a_household_column_declared_with_household_is_planned_not_refused():
    # household= takes the column out of the screening and puts it back renumbered: the plan
    # refused it as an undecided grouping column where the real call publishes
    rng = np.random.default_rng(3)
    hh = np.repeat(np.arange(150), 2)
    df = people(300).assign(hh=[f"H{h:04d}" for h in hh], zip=rng.choice(["02139"], 300))
    p = df.anon.plan(k=2, household="hh", **ROLES)
    out = df.anon.k_anonymize(2, household="hh", **ROLES)
    assert p.ok and p.refusals == [], p.refusals
    assert p.expected_classes == out.anon.info["groups"]
    with pytest.raises(pdanon.RoleError):  # without household= the column is refused
        df.anon.k_anonymize(2, **ROLES)
    assert not df.anon.plan(k=2, **ROLES).ok
