"""A damaged recoding JSON (keys dropped, types changed, lists cut, wrong numbers) is refused
with one of pdanon's errors naming the field's JSON path and the fix, never a bare KeyError /
TypeError / AttributeError (pdanon.republication.recoding_check), in Python and on the command line."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import subprocess
import sys
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon._errors import AnonymizationError, InvalidInputError
from pdanon.datasets import DISCHARGE_ROLES, make_discharges
from pdanon.hierarchy import intervals

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEEP_ROLES = {k: v for k, v in DISCHARGE_ROLES.items() if k != "quasi_identifiers"}
SMALL = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38, 41, 42, 44], "sex": list("FFFMMMFFF"),
                      "disease": ["flu", "cold", "flu", "cold", "flu", "cold", "flu", "cold",
                                  "asthma"]})


@functools.cache
def _documents():
    """(document, batch, roles): a global recoding (ranges, sets) and a local one (dates,
    classes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = SMALL.anon.k_anonymize(3, algorithm="optimal",
                                       hierarchies={"age": intervals([5, 10])},
                                       quasi_identifiers=["age", "sex"], sensitive=["disease"])
        jan = make_discharges(80, seed=3)
        local = jan.anon.k_anonymize(5, algorithm="mondrian", **DISCHARGE_ROLES)
    return [(small.anon.recoding.to_dict(), SMALL, {"sensitive": ["disease"]}),
            (local.anon.recoding.to_dict(), jan, KEEP_ROLES)]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:3]):
            yield from _paths(value, (*path, i))


def _at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


BAD_VALUES = [None, "x", -1, 10 ** 9, 0.5, float("nan"), True, [], {}, [1], {"dtype": "int64"}]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 1), st.data())
def test_every_damaged_recoding_fails_with_a_pdanon_error_naming_the_field(which, data):
    doc, batch, roles = _documents()[which]
    doc = copy.deepcopy(doc)
    paths = [p for p in _paths(doc) if p]
    path = data.draw(st.sampled_from(paths))
    parent, last = _at(doc, path[:-1]), path[-1]
    action = data.draw(st.sampled_from(["drop", "replace", "truncate"]))
    if action == "drop":
        del parent[last]
    elif action == "truncate" and isinstance(parent[last], list) and parent[last]:
        del parent[last][len(parent[last]) // 2:]
    else:
        parent[last] = data.draw(st.sampled_from(BAD_VALUES))
    text = json.dumps(doc)
    try:
        recoding = pdanon.Recoding.from_json(text)
    except Exception as exc:  # noqa: BLE001 - the point: which exception
        assert isinstance(exc, AnonymizationError), repr(exc)
        message = str(exc)
        assert "recoding field" in message or "not a pdanon recoding" in message, message
        if "recoding field" in message:  # a JSON path into the document, and the fix
            # (the damaged field, or one it no longer agrees with: a class's cell position
            # past a column whose cells were cut)
            assert re.search(r"recoding field (columns|classes|models|sensitive|algorithm|"
                             r"method)\b", message), (path, message)
            assert path[0] in message or path[0] == "columns", (path, message)
            assert "write it again from the release" in message
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            batch.anon.apply_recoding(recoding, max_suppressed_rows=0.95, **roles)
    except Exception as exc:  # noqa: BLE001
        assert isinstance(exc, AnonymizationError), (path, action, repr(exc))


def _valid():
    return copy.deepcopy(_documents()[0][0])


@pytest.mark.parametrize("damage, field", [
    (lambda d: d["columns"][0].pop("lo"), "columns[0].lo (column 'age'): missing"),
    (lambda d: d["columns"][0]["lo"].__setitem__(1, "35"),
     "columns[0].lo[1] (column 'age'): expected an integer, got str '35'"),
    (lambda d: d["columns"][0]["hi"].pop(), "columns[0].hi (column 'age'): 2 entries, "
                                           "expected 3"),
    (lambda d: d["columns"][0]["closed"].__setitem__(0, "open"),
     "columns[0].closed[0] (column 'age'): 'open' is not one of left, right, both, neither"),
    (lambda d: d["columns"][0].__setitem__("lo", [36, 35, 40]),
     "columns[0].lo[0] (column 'age'): 36 is above hi[0] = 34"),
    (lambda d: d["columns"][1]["members"].__setitem__(1, [2]),
     "columns[1].members[1][0] (column 'sex'): expected a category position 0 .. 1, got 2"),
    (lambda d: d["columns"][1]["categories"].pop("dtype"),
     "columns[1].categories.dtype (column 'sex'): missing"),
    (lambda d: d["columns"][1].__setitem__("kind", "nominal"),
     "columns[1].kind (column 'sex'): 'nominal' is not one of real, ordered, unordered"),
    (lambda d: d.__setitem__("columns", {}), "columns: expected a list of columns, got dict"),
    (lambda d: d["models"].__setitem__(0, "KAnonymity"),
     "models[0]: expected an object {model, params}, got str"),
    (lambda d: d.__setitem__("classes", [[0]]),
     "classes[0]: expected a list of 2 cell positions"),
])
def test_hand_made_damage_names_the_field(damage, field):
    doc = _valid()
    damage(doc)
    with pytest.raises(InvalidInputError) as caught:
        pdanon.Recoding.from_json(json.dumps(doc))
    assert f"recoding field {field}" in str(caught.value)


def test_a_model_with_a_missing_parameter_names_it():
    doc = _valid()
    doc["models"][0]["params"] = {"kay": 3}
    recoding = pdanon.Recoding.from_json(json.dumps(doc))
    with pytest.raises(InvalidInputError, match=r"KAnonymity.*has no parameter 'k'"):
        SMALL.anon.apply_recoding(recoding, sensitive=["disease"])


def test_cli_prints_one_line_naming_the_field(tmp_path):
    doc = _valid()
    del doc["columns"][0]["lo"]
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(doc))
    table = tmp_path / "in.csv"
    SMALL.to_csv(table, index=False)
    done = subprocess.run([sys.executable, "-m", "pdanon", "anonymize", str(table), "-o",
                           str(tmp_path / "out.csv"), "--recoding", str(damaged),
                           "--sensitive", "disease"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("pdanon anonymize: error: recoding field columns[0].lo "
                                  "(column 'age'): missing; the recoding file is damaged")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("text, message", [
    ("model = 5", "model = 5: expected a table ([model] with one key = value a line)"),
    ('[model]\nk = "five"', "model.k = 'five': expected an integer; correct it in the file "
                            "(or give -k on the command line)"),
    ('quasi_identifiers = ["age"]', "quasi_identifiers = ['age']: expected a table"),
    ("[hierarchies]\nage = 5", "hierarchies.age = 5: expected text"),
    ('hierarchies = "x"', "hierarchies = 'x': expected a table"),
    ("calendar = 1", "calendar = 1: expected a table"),
    ("input = 5", "input = 5: expected text"),
    ("sep = 5", "sep = 5: expected text; correct it in the file (or give --sep"),
    ('[anonymize]\nlabels = "yes"', "anonymize.labels = 'yes': expected true or false"),
    ('[anonymize]\nalgorithm = "fast"', "anonymize.algorithm = 'fast': expected one of auto"),
])
def test_a_damaged_config_names_the_field(tmp_path, capsys, text, message):
    from pdanon.__main__ import main

    (tmp_path / "c.toml").write_text(text + "\n")
    SMALL.to_csv(tmp_path / "in.csv", index=False)
    code = main(["anonymize", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o.csv"),
                 "--qi", "age:real", "-k", "2", "--config", str(tmp_path / "c.toml")])
    err = capsys.readouterr().err
    assert code == 2 and f"c.toml': {message}" in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content, message", [
    ('[1, 2]', "the file holds a list; write a table of criteria"),
    ('{"policy": 3}', "policy is a int; write a table of criteria"),
    ('{"k": "x"}', "k must be an integer >= 1, got 'x'"),
])
def test_a_damaged_policy_file_names_the_field(tmp_path, content, message):
    from pdanon.cli.config import ConfigError, parse_policy

    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_policy(str(path))


@pytest.mark.parametrize("models, message", [
    ([{"model": "KAnonymity", "params": {}}], "KeyError: 'k'"),
    ([5], "AttributeError"),
])
def test_a_release_with_damaged_models_is_refused_by_the_policy(models, message):
    from pdanon.checks.policy import Policy

    with pytest.raises(InvalidInputError, match=r"info\['models'\] is damaged \(" + message):
        Policy.of_release({"models": models})
