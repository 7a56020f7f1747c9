"""The difference attack on releases made with one recoding, and m-invariance against it
(pdanon.republication.releases, pdanon.republication.difference, pdanon.republication.recoding; docs/republication.md).

The attacker here is written independently of pdanon: it reads only the published frames
(cells, sensitive values, the published number of counterfeit rows per class) and the
persons' presence (the strongest attacker of check_releases), and decides exactly, by an
integer program per (group of persons, value), which values every person can still hold."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

import pdanon
from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.hierarchy import intervals

AGES = {"age": intervals([5])}


# ----------------------------------------------------------------------------- the attacker


def _published(release, keys, qi, sensitive):
    """Per published row: (person or None for a counterfeit, class text, value), and per
    class the published number of counterfeit rows (0 when the release says none)."""
    cells = release[qi[0]].astype(object).where(release[qi[0]].notna(), "<blank>")
    for c in qi[1:]:
        cells = cells + "|" + release[c].astype(object).where(release[c].notna(), "<blank>")
    cells = cells.astype(str).to_numpy()
    values = release[sensitive].astype(str).to_numpy()
    person = pdanon.release_keys(release, keys)  # counterfeit rows: None
    fakes = (release.anon.info.get("invariance") or {}).get("counterfeits_by_class", {})
    return list(zip(person, cells, values)), fakes


def exact_candidates(releases, keys, qi=("age",), sensitive="d"):
    """Per person the values some world consistent with every published class count gives
    them: persons grouped by the classes they sit in (absent: no constraint), counterfeit
    rows free, one value per person in every release. Exact, by an integer program per
    (group, value)."""
    qi = list(qi)
    rows, fakes = [], []
    for i, (r, k) in enumerate(zip(releases, keys)):
        published, fake = _published(r, k, qi, sensitive)
        rows.append(published)
        fakes.append(fake)
    values = sorted({v for rel in rows for _, _, v in rel})
    where = {}  # person -> {release: class}
    count = {}  # (release, class) -> {value: count}
    for i, rel in enumerate(rows):
        for p, c, v in rel:
            count.setdefault((i, c), {}).setdefault(v, 0)
            count[(i, c)][v] += 1
            if p is not None:
                where.setdefault(p, {})[i] = c
    groups = {}
    for p, at in where.items():
        groups.setdefault(tuple(sorted(at.items())), []).append(p)
    gkeys = list(groups)
    classes = list(count)
    nv = len(values)
    # variables: x[g, v] (persons of group g holding v), y[c, v] (counterfeits of c holding v)
    nx, ny = len(gkeys) * nv, len(classes) * nv
    a_rows, lo, hi = [], [], []
    for gi, g in enumerate(gkeys):  # every person of a group holds one value
        row = np.zeros(nx + ny)
        row[gi * nv:(gi + 1) * nv] = 1
        a_rows.append(row), lo.append(len(groups[g])), hi.append(len(groups[g]))
    for ci, (i, c) in enumerate(classes):
        n_fake = int(fakes[i].get(c, 0))
        row = np.zeros(nx + ny)
        row[nx + ci * nv:nx + (ci + 1) * nv] = 1
        a_rows.append(row), lo.append(n_fake), hi.append(n_fake)
        for vi, v in enumerate(values):  # the published count of v in the class
            row = np.zeros(nx + ny)
            for gi, g in enumerate(gkeys):
                if dict(g).get(i) == c:
                    row[gi * nv + vi] = 1
            row[nx + ci * nv + vi] = 1
            n = count[(i, c)].get(v, 0)
            a_rows.append(row), lo.append(n), hi.append(n)
    cons = LinearConstraint(np.array(a_rows), lo, hi)
    possible = np.zeros((len(gkeys), nv), dtype=bool)  # shown by some world found so far
    for gi in range(len(gkeys)):
        for vi in range(nv):
            if possible[gi, vi]:
                continue
            low = np.zeros(nx + ny)
            low[gi * nv + vi] = 1
            res = milp(np.zeros(nx + ny), constraints=[cons, LinearConstraint(low, 1, np.inf)],
                       integrality=np.ones(nx + ny), bounds=Bounds(0, np.inf))
            if res.status == 0:  # a world: every value it gives a group is possible for it
                possible |= np.round(res.x[:nx]).reshape(len(gkeys), nv) > 0
    return {p: {v for vi, v in enumerate(values) if possible[gi, vi]}
            for gi, g in enumerate(gkeys) for p in groups[g]}


def subtraction_attack(first, second, keys_first, keys_second):
    """The attack of issue 47: a class's published counts in January minus February's give
    the values of the persons who left it (and the other way round, of those who came),
    when everyone who stayed is known. Returns {person: value} for the persons pinned."""
    pinned = {}
    a, _ = _published(first, keys_first, ["age"], "d")
    b, _ = _published(second, keys_second, ["age"], "d")
    in_b = {p for p, _, _ in b if p is not None}
    in_a = {p for p, _, _ in a if p is not None}
    for mine, other, present in ((a, b, in_b), (b, a, in_a)):
        for c in {c for _, c, _ in mine}:
            here = pd.Series([v for _, cc, v in mine if cc == c]).value_counts()
            there = pd.Series([v for _, cc, v in other if cc == c], dtype=object).value_counts()
            moved = [p for p, cc, _ in mine if cc == c and p is not None and p not in present]
            diff = here.sub(there, fill_value=0)
            diff = diff[diff > 0]
            if moved and len(diff) == 1 and int(diff.iloc[0]) == len(moved):
                pinned.update({p: diff.index[0] for p in moved})
    return pinned


# ----------------------------------------------------------------------------- issue 47


def _scenario():
    """January: class [30, 34] holds 7 hiv, 2 flu, 2 cold, 2 asthma, class [35, 39] 1 hiv
    and 2 of each other; February: the 6 hiv patients 0-5 left [30, 34], 6 new hiv
    patients 20-25 came to [35, 39]."""
    d_a = ["hiv"] * 7 + ["flu", "flu", "cold", "cold", "asthma", "asthma"]
    d_b = ["hiv", "flu", "flu", "cold", "cold", "asthma", "asthma"]
    jan = pd.DataFrame({"pid": range(20),
                        "age": [30, 31, 32, 33, 34, 30, 31, 32, 33, 34, 30, 31, 32,
                                35, 36, 37, 38, 39, 35, 36],
                        "d": d_a + d_b})
    feb = pd.concat([jan.iloc[6:],
                     pd.DataFrame({"pid": range(20, 26), "age": [35, 36, 37, 38, 39, 35],
                                   "d": ["hiv"] * 6})], ignore_index=True)
    return jan, feb


def _roles():
    return dict(identifiers=["pid"], quasi_identifiers=["age"], sensitive=["d"])


def test_the_12_of_12_scenario_is_measured():
    jan, feb = _scenario()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = jan.anon.k_anonymize(5, l=3, algorithm="optimal", hierarchies=AGES, **_roles())
    assert sorted(first["age"].astype(str).unique()) == ["[30, 34]", "[35, 39]"]
    history = pdanon.ReleaseHistory()
    history.add(first, keys=jan["pid"], sensitive="d")
    # February with the old rule's keywords and no history: the same recoding, k 7, 4 values
    second = feb.anon.apply_recoding(first.anon.recoding, identifiers=["pid"])
    keys = [jan["pid"], feb["pid"]]
    pinned = subtraction_attack(first, second, *keys)
    assert pinned == {p: "hiv" for p in list(range(6)) + list(range(20, 26))}
    exact = exact_candidates([first, second], keys)
    assert all(exact[p] == {"hiv"} for p in pinned)
    res = pdanon.check_releases([first, second], keys=keys, sensitive="d")
    assert res.combined_k == 6
    assert (res.intersected == 4).all()          # the value sets alone leave 4 values each
    assert res.candidates[list(pinned)].tolist() == [1] * 12    # the counts leave one
    assert res.attacked[list(pinned)].tolist() == [1] * 12      # and the attack finds it
    assert res.summary()["persons_disclosed"] == 12 and res.summary()["exact_share"] == 1.0
    assert not res.passes(l=3) and res.persons_below_l(3) == 12
    assert res.summary()["min_candidates"] == 1
    # never more than the exact attacker leaves (sound), here exactly as many
    assert all(res.candidates[p] <= len(exact[p]) for p in exact)


def test_beyond_the_triples_bound_the_attack_is_not_run_and_candidates_still_are(
        monkeypatch):
    from pdanon.republication import difference

    jan, feb = _scenario()
    first = jan.anon.k_anonymize(5, l=3, algorithm="optimal", hierarchies=AGES, **_roles())
    second = feb.anon.apply_recoding(first.anon.recoding, identifiers=["pid"])
    monkeypatch.setattr(difference, "MAX_TRIPLES_PER_ROW", 0)
    monkeypatch.setattr(difference, "MIN_TRIPLES", 0)
    res = pdanon.check_releases([first, second], keys=[jan["pid"], feb["pid"]],
                                sensitive="d")
    assert res.attacked is None and "persons_disclosed" not in res.summary()
    assert res.summary()["persons_one_value"] == 12 and not res.passes(l=2)


def test_the_12_of_12_scenario_under_m_invariance():
    jan, feb = _scenario()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = jan.anon.k_anonymize(5, l=3, algorithm="optimal", hierarchies=AGES, **_roles())
    rec = first.anon.recoding
    # a history whose January was not published m-invariant: refused, with the reason
    old = pdanon.ReleaseHistory()
    old.add(first, keys=jan["pid"], sensitive="d")
    with pytest.raises(InvalidInputError, match="not m-invariant"):
        feb.anon.apply_recoding(rec, history=old, keys="pid", invariance=3, identifiers=["pid"])
    # m-invariance from the first release on
    history = pdanon.ReleaseHistory()
    jan_out = jan.anon.apply_recoding(rec, history=history, keys="pid", invariance=3,
                                      identifiers=["pid"])
    history.add(jan_out, keys=jan["pid"], sensitive="d")
    feb_out = feb.anon.apply_recoding(rec, history=history, keys="pid", invariance=3,
                                      identifiers=["pid"])
    history.add(feb_out, keys=feb["pid"], sensitive="d")
    # January [30, 34]: 7 hiv, so 5 counterfeit flu, cold and asthma each; [35, 39]: 1 hiv
    info = jan_out.anon.info["invariance"]
    assert info["counterfeit_rows"] == 16 and info["m"] == 3
    assert info["counterfeits_by_class"] == {"[30, 34]": 15, "[35, 39]": 1}
    assert len(jan_out) == 20 + 16
    assert feb_out.anon.info["invariance"]["counterfeit_rows"] == 1 + 15
    for out in (jan_out, feb_out):  # every class shows each of its values equally often
        counts = out.groupby(out["age"].astype(str))["d"].value_counts().unstack(fill_value=0)
        assert (counts.nunique(axis=1) == 1).all() and (counts.gt(0).sum(axis=1) >= 3).all()
    keys = [jan["pid"], feb["pid"]]
    assert subtraction_attack(jan_out, feb_out, *keys) == {}
    exact = exact_candidates([jan_out, feb_out], keys)
    assert min(len(v) for v in exact.values()) >= 3
    res = pdanon.check_releases([jan_out, feb_out], keys=keys, sensitive="d")
    assert res.summary()["persons_disclosed"] == 0 and res.summary()["min_candidates"] >= 3
    assert all(res.candidates[p] <= len(exact[p]) for p in exact)
    # the counterfeit rows are no persons: 26 persons, combined classes of real rows only
    assert len(res.combined) == 26 and res.combined_k == 6


# ----------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 14), values=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_property_candidates_never_exceed_the_exact_attackers(n, values, seed):
    """On any two or three releases: what check_releases counts is left, an exact attacker
    leaves at least (sound), and no more than the value sets' intersection."""
    rng = np.random.default_rng(seed)
    value = rng.choice(list("abcd")[:values], n)
    frames, keys = [], []
    for _ in range(int(rng.integers(2, 4))):
        present = np.flatnonzero(rng.random(n) < 0.75)
        rng.shuffle(present)
        frames.append(pd.DataFrame({"age": rng.integers(0, 2, len(present)).astype(str),
                                    "d": value[present]}))
        keys.append(present)
    if not any(len(k) for k in keys):
        return
    res = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["age"]] * len(frames),
                                sensitive="d")
    exact = exact_candidates(frames, keys)
    for p, left in exact.items():
        assert 1 <= res.candidates[p] <= len(left) <= res.attacked[p] <= res.intersected[p]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(releases=st.integers(2, 3), m=st.integers(2, 3), seed=st.integers(0, 10**6))
def test_property_m_invariance_over_random_sequences(releases, m, seed):
    rng = np.random.default_rng(seed)
    people = pd.DataFrame({"pid": np.arange(24), "age": rng.integers(20, 60, 24),
                           "d": rng.choice(list("abcde"), 24)})  # one value per person
    batches = [people.iloc[np.flatnonzero(rng.random(24) < 0.7)].reset_index(drop=True)
               for _ in range(releases)]
    hier = {"age": intervals([10, 20, 40])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rec = people.anon.k_anonymize(2, algorithm="optimal", hierarchies=hier,
                                          **_roles()).anon.recoding
        except InfeasibleError:
            return
    history = pdanon.ReleaseHistory()
    outs, keys = [], []
    for batch in batches:
        try:
            out = batch.anon.apply_recoding(rec, history=history, keys="pid", invariance=m,
                                            withhold=True, max_suppressed_rows=len(batch),
                                            identifiers=["pid"], model=None)
        except InfeasibleError:
            return
        history.add(out, keys=batch["pid"], sensitive="d")
        outs.append(out)
        keys.append(batch["pid"])
    signature = {}
    for out, key in zip(outs, keys):
        cells = out["age"].astype(object).where(out["age"].notna(), "<blank>").astype(
            str).to_numpy()
        counts = out.groupby(cells)["d"].value_counts().unstack(fill_value=0)
        shows = counts[counts > 0].stack().reset_index()
        assert (counts.replace(0, np.nan).nunique(axis=1) == 1).all()  # values equally often
        assert (counts.gt(0).sum(axis=1) >= m).all()                    # at least m of them
        sets = {c: frozenset(counts.columns[counts.loc[c] > 0]) for c in counts.index}
        for p, c in zip(pdanon.release_keys(out, key), cells):
            if p is not None:   # the same signature in every release that holds p
                assert signature.setdefault(p, sets[c]) == sets[c]
        assert len(shows) >= 1
    exact = exact_candidates(outs, keys)
    res = pdanon.check_releases(outs, keys=keys, sensitive="d")
    for p, left in exact.items():
        assert len(left) >= m and m <= res.candidates[p] <= len(left) <= res.attacked[p]


@pytest.mark.parametrize("kind", ["category", "int64", "str"])
def test_counterfeit_values_keep_the_columns_dtype(kind):
    """A counterfeit row may need a value only an earlier release showed (3 below, held in
    January by person 2): it is rebuilt from the history's text in the column's dtype."""
    jan = pd.DataFrame({"pid": range(6), "age": [31, 32, 33, 36, 37, 38],
                        "d": pd.Series([1, 2, 3, 1, 2, 2]).astype(str).astype(kind)})
    feb = pd.DataFrame({"pid": [0, 1, 9], "age": [31, 32, 33],
                        "d": pd.Series([1, 2, 1]).astype(str).astype(kind)})
    first = jan.anon.k_anonymize(3, algorithm="optimal", hierarchies=AGES, **_roles())
    history = pdanon.ReleaseHistory()
    jan_out = jan.anon.apply_recoding(first.anon.recoding, history=history, keys="pid",
                                      invariance=2, identifiers=["pid"])
    history.add(jan_out, keys=jan["pid"], sensitive="d")
    feb_out = feb.anon.apply_recoding(first.anon.recoding, history=history, keys="pid",
                                      invariance=2, identifiers=["pid"],
                                      model=pdanon.models.KAnonymity(1))
    # [30, 34]'s signature is {1, 2, 3}: 1 twice, so one more 2 and two 3s
    assert feb_out.anon.info["invariance"]["counterfeits_by_class"] == {"[30, 34]": 3}
    assert str(feb_out["d"].dtype) == str(jan["d"].dtype)
    assert sorted(feb_out["d"].astype(str)) == ["1", "1", "2", "2", "3", "3"]
    res = pdanon.check_releases([jan_out, feb_out], keys=[jan["pid"], feb["pid"]],
                                sensitive="d")
    assert res.combined_l == 2 and res.summary()["persons_disclosed"] == 0


# ----------------------------------------------------------------------------- the criterion


def test_check_fails_the_12_of_12_scenario_on_the_difference_criterion():
    jan, feb = _scenario()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = jan.anon.k_anonymize(5, l=3, algorithm="optimal", hierarchies=AGES, **_roles())
        second = feb.anon.apply_recoding(first.anon.recoding, identifiers=["pid"])
    keys = [jan["pid"], feb["pid"]]
    policy = pdanon.Policy(k=5, l=3, max_difference_disclosed=0)
    # each release alone passes: the leak is between them
    assert second.anon.check(pdanon.Policy(k=5, l=3)).passed
    result = second.anon.check(policy, earlier=[first], keys=keys)
    row = result.criteria.set_index("criterion").loc["difference_disclosed"]
    assert not result.passed and row["measured"] == 12 and not row["passed"]
    assert "difference_disclosed" in repr(result)
    assert second.anon.check(pdanon.Policy(k=5, l=3, max_difference_disclosed=12),
                             earlier=[first], keys=keys).passed
    # without a policy's limit, the criterion is measured whenever earlier= is given (0)
    default = second.anon.check(earlier=[first], keys=keys)
    assert not default.passed and default.criteria["criterion"].tolist()[-1] == \
        "difference_disclosed"
    # a limit without the earlier releases is refused, naming the keywords
    with pytest.raises(InvalidInputError, match="earlier="):
        second.anon.check(policy)
    with pytest.raises(InvalidInputError, match="one key array per release"):
        second.anon.check(policy, earlier=[first], keys=[jan["pid"]])
    from pdanon.keywords import UnknownKeywordError

    with pytest.raises(UnknownKeywordError, match="did you mean max_difference_disclosed"):
        pdanon.Policy(max_diference_disclosed=0)
    with pytest.raises(InvalidInputError, match="number of persons"):
        pdanon.Policy(max_difference_disclosed=-1)


def test_m_invariant_releases_pass_the_difference_criterion():
    jan, feb = _scenario()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = jan.anon.k_anonymize(5, l=3, algorithm="optimal", hierarchies=AGES,
                                   **_roles()).anon.recoding
        history = pdanon.ReleaseHistory()
        jan_out = jan.anon.apply_recoding(rec, history=history, keys="pid", invariance=3,
                                          identifiers=["pid"])
        history.add(jan_out, keys=jan["pid"], sensitive="d")
        feb_out = feb.anon.apply_recoding(rec, history=history, keys="pid", invariance=3,
                                          identifiers=["pid"])
    result = feb_out.anon.check(pdanon.Policy(max_difference_disclosed=0), earlier=[jan_out],
                                keys=[jan["pid"], feb["pid"]])
    assert result.passed
    assert result.criteria.set_index("criterion").loc["difference_disclosed", "measured"] == 0


def test_cli_policy_reads_max_difference_disclosed():
    from pdanon.cli.config import parse_policy

    assert parse_policy("k=5,max_difference_disclosed=0") == pdanon.Policy(
        k=5, max_difference_disclosed=0)


def test_the_report_shows_the_difference_criterion():
    jan, feb = _scenario()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = jan.anon.k_anonymize(5, l=3, algorithm="optimal", hierarchies=AGES, **_roles())
        second = feb.anon.apply_recoding(first.anon.recoding, identifiers=["pid"])
        report = second.anon.report(earlier=[first], keys=[jan["pid"], feb["pid"]])
    verdict = {c["criterion"]: c for c in report.verdict["criteria"]}
    assert verdict["difference_disclosed"]["measured"] == 12
    assert not report.verdict["passed"] and "difference_disclosed" in report.to_html()
