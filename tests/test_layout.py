"""The package layout (issue 49, docs/architecture.md "Layers"): every path a user was shown
still imports, every moved module answers to its old path as the same module, and the layer
table of the docs is the map tools/arch_check.py enforces."""

import importlib
import importlib.util
import pathlib
import pickle
import re

import pytest

import pdanon

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("arch_check", ROOT / "tools" / "arch_check.py")
arch_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(arch_check)

DOCUMENTED = sorted(set(re.findall(
    r"`(pdanon(?:\.[A-Za-z_][A-Za-z0-9_]*)+)", "\n".join(
        p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted(
            (ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*.py"))]))) -
    {"pdanon.generalization"})  # the name of the Arrow extension type, not a Python path


def resolve(path: str):
    """The object a dotted path names: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as err:
            if err.name and not err.name.startswith("pdanon"):  # an optional extra (dask, ...)
                pytest.skip(f"{path} needs {err.name!r}, an optional extra not installed")
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(path)


def test_the_docs_name_some_hundred_paths():
    assert len(DOCUMENTED) > 100, len(DOCUMENTED)


@pytest.mark.parametrize("path", DOCUMENTED)
def test_every_documented_path_resolves(path):
    resolve(path)


def test_the_public_names_and_console_scripts_resolve():
    for name in pdanon.__all__:
        assert getattr(pdanon, name) is not None
    from pdanon.__main__ import main as pdanon_main
    from pdanon.cli import main as cli_main
    from pdanon.cli.depersonalize import main as depersonalize_main

    assert callable(pdanon_main) and callable(cli_main) and callable(depersonalize_main)
    scripts = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for target in re.findall(r'^\w+ = "([\w.]+):(\w+)"', scripts, flags=re.M):
        assert callable(getattr(importlib.import_module(target[0]), target[1]))


@pytest.mark.parametrize("old", sorted(pdanon._MOVED))
def test_a_moved_module_answers_to_its_old_path(old):
    new = importlib.import_module(pdanon._MOVED[old])
    assert importlib.import_module(old) is new
    assert new.__spec__.name == new.__name__ == pdanon._MOVED[old]
    assert getattr(pdanon, old.split(".")[1]) is new


def test_a_pickle_naming_an_old_path_loads():
    from pdanon.checks.policy import Policy

    blob = pickle.dumps(Policy(k=5), protocol=0).replace(b"pdanon.checks.policy",
                                                         b"pdanon.policy")
    assert b"pdanon.policy" in blob and pickle.loads(blob) == Policy(k=5)


def test_the_docs_layer_table_is_the_enforced_map():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d) (\w+) \| ([^|]+) \|", text, flags=re.M)
    shown = {name: [u for u in re.findall(r"`(\w+)`", units) if u != "pdanon"]
             for _, name, units in rows}
    assert shown == arch_check.LAYERS
    assert arch_check.main([]) == 0
