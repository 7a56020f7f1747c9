"""tools/arch_check.py finds what it promises on a small made-up package."""

import importlib.util
import pathlib
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("arch_check", ROOT / "tools" / "arch_check.py")
arch_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(arch_check)


def write(root: pathlib.Path, files: dict) -> None:
    for name, text in files.items():
        path = root / "pdanon" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_cycles_private_imports_and_repeats(tmp_path):
    block = """
        def {name}(frame, columns):
            missing = [c for c in columns if c not in frame.columns]
            total = sum(len(str(c)) for c in columns) + len(frame.index)
            ratio = float(total) / max(len(frame.columns), 1) + frame.shape[0]
            label = "cols:" + ",".join(str(c) for c in columns) + str(ratio)
            result = dict(missing=missing, total=total, ratio=ratio, label=label)
            return result, missing, total, ratio, label
    """
    write(tmp_path, {
        "__init__.py": "from pdanon import a\n",
        "a.py": "def f():\n    from pdanon.b import g\n    return g()\n",
        "b.py": "from pdanon.a import f\n\n\ndef g():\n    return 1\n",
        "c.py": "from pdanon.d import _helper\n" + textwrap.dedent(block.format(name="one")),
        "d.py": "def _helper():\n    return 2\n" + textwrap.dedent(block.format(name="two")),
        "pkg/__init__.py": "from pdanon.pkg import sub\n",
        "pkg/sub.py": "x = 1\n",
    })
    f = arch_check.figures(tmp_path)
    assert f["cycles"] == [["pdanon.a", "pdanon.b"]]  # a function-level import counts
    assert [(m, t, n) for m, _, t, n in f["private_imports"]] == [("pdanon.c", "pdanon.d",
                                                                    "_helper")]
    assert [(a[0], b[0]) for a, b in f["repeated"]] == [("pdanon.c", "pdanon.d")]
    assert arch_check.main(["--root", str(tmp_path)]) == 1


def test_a_clean_package_passes(tmp_path, monkeypatch):
    monkeypatch.setattr(arch_check, "LAYERS", {"low": ["a"], "faces": ["accessor"]})
    write(tmp_path, {"__init__.py": '"""doc"""\nfrom pdanon import a\n',
                     "a.py": "def f():\n    return 1\n"})
    f = arch_check.figures(tmp_path)
    assert not f["cycles"] and not f["private_imports"] and not f["repeated"]
    assert arch_check.main(["--root", str(tmp_path)]) == 0


def test_layers_loose_modules_docstrings_and_moved_paths(tmp_path, monkeypatch):
    """An import up the layer map, a unit the map does not place, a package without a
    docstring, more loose modules than allowed and an import by a moved path all fail."""
    monkeypatch.setattr(arch_check, "LAYERS", {"low": ["low"], "high": ["high"],
                                               "faces": ["accessor"]})
    monkeypatch.setattr(arch_check, "MAX_LOOSE", 2)
    write(tmp_path, {
        "__init__.py": '"""doc"""\n_MOVED = {"pdanon.old": "pdanon.high.mod"}\n',
        "low/__init__.py": '"""low"""\n',
        "low/a.py": "def f():\n    from pdanon.high.mod import g\n    return g()\n",
        "high/__init__.py": "",
        "high/mod.py": "def g():\n    return 1\n",
        "stray.py": "from pdanon.old import g\n",
        "x.py": "", "y.py": "",
    })
    f = arch_check.figures(tmp_path)
    assert any("pdanon.low.a (low) imports pdanon.high.mod (high)" in p for p in f["layers"])
    assert any(p.startswith("pdanon.stray is in no layer") for p in f["layers"])
    assert f["undocumented"] == ["pdanon.high"]
    assert f["loose"] == ["stray", "x", "y"]
    assert f["old_paths"] == ["pdanon.stray:1 imports pdanon.old (moved: pdanon.high.mod)"]
    assert arch_check.main(["--root", str(tmp_path)]) == 1


def test_the_repository_passes():
    assert arch_check.main([]) == 0
