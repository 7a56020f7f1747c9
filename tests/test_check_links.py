"""tools/check_links.py: the documentation's relative links and anchors, on made-up pages and
on the repository's own README.md and docs/."""

import importlib.util
import pathlib
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_links", ROOT / "tools" / "check_links.py")
check_links = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_links)


def _tree(root: pathlib.Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_broken_files_and_anchors_are_found_and_code_is_not_a_link(tmp_path, capsys):
    _tree(tmp_path, {
        "README.md": """\
            # Title
            [guide](docs/guide.md), [gone](docs/gone.md), [web](https://example.org/x.md)
            [anchor](docs/guide.md#roles-and-kinds), [bad anchor](docs/guide.md#nowhere)
            ![figure](docs/img/plot.svg) and ![missing figure](docs/img/none.svg)
            `[not a link](nowhere.md)` in code
            ```
            [not a link either](nowhere.md)
            ```
            [ref]: docs/absent.md
            """,
        "docs/guide.md": """\
            # Guide
            ## Roles and kinds
            ## Why was this row changed? `out.anon.explain(df)`
            ## Again
            ## Again
            <a id="custom-spot"></a>
            ```bash
            # not a heading
            ```
            [self](#again-1) [self2](#why-was-this-row-changed-outanonexplaindf)
            [html](#custom-spot) [code comment](#not-a-heading) [up](../README.md#title)
            [β](#β-likeness) [folder](../docs/)
            """,
        "docs/img/plot.svg": "<svg/>",
    })
    found = sorted((str(w), n, t, why) for page in check_links.pages(tmp_path)
                   for w, n, t, why in check_links.broken(page, tmp_path))
    assert found == [
        ("README.md", 2, "docs/gone.md", "no such file"),
        ("README.md", 3, "docs/guide.md#nowhere", "no heading #nowhere in guide.md"),
        ("README.md", 4, "docs/img/none.svg", "no such file"),
        ("README.md", 9, "docs/absent.md", "no such file"),
        ("docs/guide.md", 11, "#not-a-heading", "no heading #not-a-heading in guide.md"),
        ("docs/guide.md", 12, "#β-likeness", "no heading #β-likeness in guide.md"),
    ]
    assert check_links.main([str(tmp_path)]) == 1
    assert "6 broken link(s)" in capsys.readouterr().out


def test_the_repositorys_docs_have_no_broken_links(capsys):
    """README.md and docs/*.md link only to files and headings that exist (CI runs this)."""
    code = check_links.main([str(ROOT)])
    assert code == 0, capsys.readouterr().out
    # the check looks at real links: the README's into the docs, with anchors
    readme = list(check_links.links((ROOT / "README.md").read_text(encoding="utf-8")))
    assert any(t == "docs/guide.md#publishing-a-release" for _, t in readme)
