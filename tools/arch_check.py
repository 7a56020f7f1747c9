"""Static figures of pdanon's architecture: import cycles, private-name imports, file sizes and
repeated blocks. CI runs it; it exits 1 when a limit is broken.

    python tools/arch_check.py            # the figures and the verdict
    python tools/arch_check.py --verbose  # every cycle, import and repeated block

What it counts (standard library only, reading the source as text: nothing is imported):

* **import cycles** among ``pdanon`` modules, counting imports inside functions too; a package's
  ``__init__`` importing its own submodules is fine (a submodule's implicit import of its own
  package is not an edge), but importing ``pkg.sub`` from outside ``pkg`` is an edge to ``pkg``
  too (its ``__init__`` runs first);
  ``from pdanon.pkg import name`` is an edge to ``pdanon.pkg.name`` when that is a module, else
  to ``pdanon.pkg``. Cycles are the strongly connected components of more than one module.
* **private-name imports**: ``from pdanon.x import _name`` where ``_name`` is a function, class or
  variable (importing a private *module* such as ``pdanon.parties._curve`` is fine).
* **largest file** in lines, against ``MAX_LINES``.
* **repeated blocks**: six or more consecutive code lines that occur again elsewhere with only
  names, numbers and strings changed (blank lines, comments, docstrings, imports, annotated field
  declarations and lines of lone punctuation are skipped; a window whose lines are all
  trivially short is boilerplate).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import keyword
import sys
import tokenize
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "pdanon"
MAX_LINES = 1100
WINDOW = 6


# ============================================================================ modules


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """``{dotted module name: path}`` for every module of the package."""
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(module: str, path: Path, modules: dict) -> list[tuple[str, str | None, int]]:
    """``[(imported module, imported name or None, line)]`` for every pdanon import in a file,
    at any depth (functions included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    found.append((alias.name, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                target = _resolve_relative(module, is_package, node.level, node.module)
            else:
                target = node.module or ""
            if not (target == PACKAGE or target.startswith(PACKAGE + ".")):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    found.append((sub, None, node.lineno))
                else:
                    found.append((target, alias.name, node.lineno))
    return found


def import_graph(modules: dict) -> tuple[dict, list]:
    """Edges ``module -> imported modules`` and the private-name imports."""
    edges: dict[str, set] = defaultdict(set)
    private = []
    for mod, path in modules.items():
        for target, name, line in imports_of(mod, path, modules):
            if target not in modules:
                continue
            if name is not None and name.startswith("_") and not name.startswith("__"):
                if target != mod:
                    private.append((mod, line, target, name))
            if target == mod:
                continue
            edges[mod].add(target)
            # importing pkg.sub runs pkg/__init__ first: an edge to every enclosing package
            # that does not also enclose the importer
            parts = target.split(".")
            for cut in range(2, len(parts)):
                parent = ".".join(parts[:cut])
                if parent in modules and not (mod == parent or mod.startswith(parent + ".")):
                    edges[mod].add(parent)
    return edges, private


def cycles(edges: dict, nodes) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


# ============================================================================ repeated blocks


def _shape_lines(path: Path) -> list[tuple[int, str]]:
    """``[(line number, shape)]``: each code line with names, numbers and strings replaced by
    placeholders; comments, docstrings, blank lines, imports and lone punctuation dropped."""
    text = path.read_text(encoding="utf-8")
    lines: dict[int, list[str]] = defaultdict(list)
    prev_type = tokenize.NEWLINE
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in tokens:
        kind, string, (row, _), _, _ = tok
        if kind in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                    tokenize.DEDENT, tokenize.ENDMARKER, tokenize.ENCODING):
            if kind == tokenize.NEWLINE:
                prev_type = kind
            continue
        if kind == tokenize.STRING and prev_type in (tokenize.NEWLINE, tokenize.INDENT):
            prev_type = kind  # a docstring or bare string statement
            lines[row].append("\0doc")
            continue
        prev_type = kind
        if kind == tokenize.NAME:
            lines[row].append(string if keyword.iskeyword(string) else "N")
        elif kind == tokenize.NUMBER:
            lines[row].append("0")
        elif kind in (tokenize.STRING, getattr(tokenize, "FSTRING_START", -1)):
            lines[row].append("S")
        else:
            lines[row].append(string)
    out = []
    for row in sorted(lines):
        toks = lines[row]
        if "\0doc" in toks or not toks:
            continue
        if toks[0] in ("import", "from"):
            continue
        if toks[:2] == ["N", ":"]:
            continue  # a field declaration (dataclass or annotated attribute): boilerplate
        if all(not t.isalnum() and t not in ("N", "S", "0") for t in toks):
            continue  # lone punctuation
        out.append((row, " ".join(toks)))
    return out


def repeated_blocks(modules: dict, window: int = WINDOW) -> list[tuple]:
    """Pairs of places sharing ``window`` or more consecutive code lines of the same shape, as
    ``((module, first line, last line), (module, first line, last line))``."""
    seen: dict[str, list] = defaultdict(list)
    shapes_of = {}
    for mod, path in modules.items():
        shapes = shapes_of[mod] = _shape_lines(path)
        for i in range(len(shapes) - window + 1):
            block = shapes[i:i + window]
            if sum(len(s.split()) for _, s in block) < 6 * window:
                continue  # thin: short statements, keywords, punctuation
            key = hashlib.sha1("\n".join(s for _, s in block).encode()).hexdigest()
            seen[key].append((mod, i))
    hits = set()
    for places in seen.values():
        if len(places) < 2:
            continue
        if len(places) > 8 and len({m for m, _ in places}) > 4:
            continue  # a shape so common it is an idiom
        for a in range(len(places)):
            for b in range(a + 1, len(places)):
                (ma, ia), (mb, ib) = places[a], places[b]
                if ma == mb and abs(ia - ib) < window:
                    continue  # overlapping windows in one file
                hits.add((ma, ia, mb, ib))
    # consecutive windows of one pair of places form one block
    runs = []
    for ma, ia, mb, ib in sorted(hits):
        if (ma, ia - 1, mb, ib - 1) in hits:
            continue  # inside a run started earlier
        n = 0
        while (ma, ia + n + 1, mb, ib + n + 1) in hits:
            n += 1
        sa, sb = shapes_of[ma], shapes_of[mb]
        runs.append(((ma, sa[ia][0], sa[ia + n + window - 1][0]),
                     (mb, sb[ib][0], sb[ib + n + window - 1][0])))
    return sorted(runs)


# ============================================================================ report


# ============================================================================ layers

#: The layer map, bottom to top: a module may import only from its own layer and those below.
#: Each entry is a top-level unit of ``pdanon`` (a loose module or a package with everything
#: in it); ``pdanon`` itself (``__init__``, ``__main__``) belongs to the faces (a face may read
#: ``pdanon.__version__``). docs/architecture.md shows this map (a test checks they agree).
LAYERS = {
    "foundation": ["_errors", "keywords", "progress", "publisher_only", "sidefiles", "dtype"],
    "columns": ["encode", "_groups", "recode", "calendar", "screening", "roles",
                "distributions", "losses", "containment"],
    "engine": ["hierarchy", "models", "dp", "perturb", "partition", "metrics", "attacks",
               "tables", "engine"],
    "checks": ["checks"],
    "outputs": ["report", "io", "republication"],
    "release": ["release"],
    "faces": ["accessor", "cli", "dask", "algorithms", "parties", "compat", "datasets", "plot"],
}
#: at most this many loose modules in ``pdanon/`` (``__init__`` and ``__main__`` not counted)
MAX_LOOSE = 15


def unit_of(module: str) -> str:
    """``pdanon.screening.channels`` -> ``screening``; ``pdanon`` and ``pdanon.__main__`` ->
    ``pdanon``."""
    parts = module.split(".")
    return "pdanon" if len(parts) == 1 or parts[1] == "__main__" else parts[1]


def layer_rank() -> dict:
    return {u: i for i, (_, units) in enumerate(LAYERS.items()) for u in units}


def layer_problems(modules: dict, edges: dict) -> list[str]:
    """Imports that go up the layer map, and units the map does not place."""
    rank = layer_rank()
    top = rank["accessor"]  # pdanon itself: the faces' layer
    out = []
    units = {unit_of(m) for m in modules} - {"pdanon"}
    for u in sorted(units - set(rank)):
        out.append(f"pdanon.{u} is in no layer: add it to LAYERS in tools/arch_check.py "
                   f"(and to docs/architecture.md)")
    for mod, targets in edges.items():
        a = unit_of(mod)
        ra = top if a == "pdanon" else rank.get(a)
        for t in targets:
            b = unit_of(t)
            rb = top if b == "pdanon" else rank.get(b)
            if a != b and ra is not None and rb is not None and rb > ra:
                out.append(f"{mod} ({_layer_name(ra)}) imports {t} ({_layer_name(rb)}), "
                           f"a layer above")
    return sorted(set(out))


def _layer_name(rank: int) -> str:
    return list(LAYERS)[rank]


def loose_modules(root: Path = ROOT) -> list[str]:
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py")
                  if p.name not in ("__init__.py", "__main__.py"))


def undocumented_packages(root: Path = ROOT) -> list[str]:
    """Packages whose ``__init__`` has no docstring (each says what it is for and what it may
    import)."""
    out = []
    for init in sorted((root / PACKAGE).rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        if not ast.get_docstring(tree):
            out.append(".".join(init.relative_to(root).parent.parts))
    return out


def moved_paths(root: Path = ROOT) -> dict:
    """``{old dotted path: new}`` from ``_MOVED`` in ``pdanon/__init__.py`` (old import paths
    kept working for users; pdanon's own code uses the new ones)."""
    tree = ast.parse((root / PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "_MOVED" for t in targets):
                return ast.literal_eval(node.value)
    return {}


def old_path_imports(modules: dict, root: Path = ROOT) -> list[str]:
    """pdanon modules that import a module by its old (moved) path."""
    moved = moved_paths(root)
    out = []
    for mod, path in modules.items():
        for target, name, line in imports_of(mod, path, modules):
            for n in (target, f"{target}.{name}"):  # `import pdanon.old`, `from pdanon import old`
                if n in moved:
                    out.append(f"{mod}:{line} imports {n} (moved: {moved[n]})")
    return sorted(set(out))


def figures(root: Path = ROOT) -> dict:
    modules = module_files(root)
    edges, private = import_graph(modules)
    comps = cycles(edges, sorted(modules))
    sizes = {m: sum(1 for _ in p.open(encoding="utf-8")) for m, p in modules.items()}
    largest = max(sizes, key=sizes.get)
    return {
        "modules": len(modules),
        "cycles": comps,
        "modules_in_cycles": sum(len(c) for c in comps),
        "private_imports": private,
        "largest": (largest, sizes[largest]),
        "repeated": repeated_blocks(modules),
        "layers": layer_problems(modules, edges),
        "loose": loose_modules(root),
        "undocumented": undocumented_packages(root),
        "old_paths": old_path_imports(modules, root),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--root", default=str(ROOT), help="repository root")
    args = parser.parse_args(argv)
    f = figures(Path(args.root))
    largest, lines = f["largest"]
    print(f"modules                 {f['modules']}")
    print(f"import cycles           {len(f['cycles'])} (covering {f['modules_in_cycles']} modules)")
    print(f"private-name imports    {len(f['private_imports'])}")
    print(f"largest file            {lines} lines ({largest}; limit {MAX_LINES})")
    print(f"repeated blocks (>= {WINDOW} lines) {len(f['repeated'])}")
    print(f"layer map violations    {len(f['layers'])}")
    print(f"loose modules           {len(f['loose'])} (limit {MAX_LOOSE}: {' '.join(f['loose'])})")
    print(f"packages without docs   {len(f['undocumented'])}")
    print(f"imports by a moved path {len(f['old_paths'])}")
    if args.verbose or f["cycles"]:
        for comp in f["cycles"]:
            print("  cycle: " + " <-> ".join(comp))
    if args.verbose or f["private_imports"]:
        for mod, line, target, name in f["private_imports"]:
            print(f"  private: {mod}:{line} imports {target}.{name}")
    if args.verbose or f["repeated"]:
        for a, b in f["repeated"]:
            print(f"  repeated: {a[0]}:{a[1]}-{a[2]} ~ {b[0]}:{b[1]}-{b[2]}")
    for key in ("layers", "undocumented", "old_paths"):
        for problem in f[key] if (args.verbose or f[key]) else ():
            print(f"  {key}: {problem}")
    ok = (not f["cycles"] and not f["private_imports"] and lines <= MAX_LINES
          and not f["repeated"] and not f["layers"] and len(f["loose"]) <= MAX_LOOSE
          and not f["undocumented"] and not f["old_paths"])
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
