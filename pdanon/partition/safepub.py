"""SafePub: (ε, δ)-differentially private microdata by sampling, safe k-anonymization and a
private search of the generalization lattice (Bild, Kuhn & Prasser, PoPETs 2018).

Changes: **sampling, partitioning and recoding** (a global recoding, as
:mod:`pdanon.partition.optimal`, of a random sample). Registered as ``algorithm="safepub"``
for the model :class:`pdanon.models.EDDifferentialPrivacy`; ``df.anon.dp_anonymize`` is its
face.

1. **Sample.** Every row is drawn independently with probability β = 1 - e^(-ε_anon),
   ε_anon = ε - ε_search (:mod:`pdanon.dp.params`).
2. **Search.** The lattice of hierarchy levels (every column, the sensitive ones too: DP
   protects every attribute) is searched for one node, in one of two ways.

   ``search="all"`` (the default for quality "loss" and "precision" on lattices of at most
   :data:`MAX_NODES_SCORED` nodes, unless ``steps`` is given): every node is scored on the
   **input** by :func:`pdanon.dp.scores.selection_score` — the granularity cost the release
   would have if each class of c rows gave β·c sampled rows, pessimistic near k and
   Lipschitz, so that one row moves every node's score within one interval of width 1 — and
   one exponential-mechanism draw with the whole of ε_search, P ∝ exp(ε_search · score),
   picks among all of them (ε_search-DP). The sample is drawn independently of the draw, so
   the release is the basic composition of that draw and step 3 for the node drawn
   (docs/differential_privacy.md has the proof). An exact argmax (ARX's choice of the output)
   is never taken.

   ``search="walk"`` (SafePub's search): the lattice is walked from its top node: at each of
   ``steps`` steps the direct specializations of the current node (one column one level
   lower) join the candidates, and the exponential mechanism draws the next node from all
   candidates so far (scores of :func:`pdanon.dp.scores.score` computed on the sample). The
   output node is drawn the same way from the nodes visited. Half of ε_search is split
   evenly over the walk's draws, the other half is the output draw's. (ARX returns the
   visited node with the best exact score instead; that choice reads the data outside any
   mechanism, so it is not covered by the proof.)
3. **Safe k-anonymization.** The sample is generalized by the chosen node; every class with
   fewer than k sampled rows, and the class of a node at the top of every column when each
   top is a single node by construction, is suppressed — left out of the release, as are
   the rows not sampled. The published rows
   come in a random order with a new index (their positions in the input are not
   published), and every cell is a function of its own row's value and the hierarchy
   (:func:`published_cells`), never of the other rows'.

The lattice, and every rule of the release, must be fixed before the data is seen
(:func:`public_structure`): a ``masking()`` hierarchy needs ``steps=`` and always ends at its
top; interval bands are integer ranges when the column's dtype is integer (not when its
values happen to be); dates publish their unit's label (``2024-12``), never bounds read at
the values' resolution; categories are listed in sorted order, never in the input's order.
When the walk can visit every node of the lattice in fewer than ``steps`` draws, its share
of ε is split over the draws it makes (the lattice's size is public).

Every draw comes from :class:`pdanon.dp.mechanism.RandomSource`: the operating system's
CSPRNG unless a seed is given (tests); the seed is never recorded.

Example
-------
>>> import pandas as pd, pdanon
>>> from pdanon.hierarchy import intervals
>>> from pdanon.models import EDDifferentialPrivacy
>>> people = pd.DataFrame({"age": list(range(18, 78)) * 300, "sex": ["F", "M", "M"] * 6000})
>>> out = people.anon.anonymize(EDDifferentialPrivacy(2.0, 1e-6), algorithm="safepub",
...                             hierarchies={"age": intervals([20])}, seed=11,
...                             options={"quality": "group_size", "steps": 4},
...                             quasi_identifiers=["age", "sex"])
>>> out.anon.info["dp"]["k"], out.anon.k_anonymity() >= 117, out.anon.info["algorithm"]
(117, True, 'safepub')
"""

from __future__ import annotations

import math
import time

import numpy as np

from pdanon._errors import InvalidInputError
from pdanon.partition import register
from pdanon.partition.lattice import hierarchy_map, lattice_bounds, prepare_columns
from pdanon.publisher_only import PublisherOnly
from pdanon.recode import Recoded

#: Steps of the search by default.
DEFAULT_STEPS = 100
#: The share of ε_search the walk spends on drawing the output node among the visited ones.
FINAL_SHARE = 0.5
#: The largest lattice ``search="all"`` scores node by node (the default search up to it).
MAX_NODES_SCORED = 50_000


def _check_steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise InvalidInputError(f"steps must be a positive int (draws of the search), got "
                                f"{steps!r}")
    return int(steps)


def public_structure(enc, hierarchies, frame=None) -> tuple[dict, dict, dict]:
    """The hierarchies as SafePub uses them, ``{column: is its top level a single node?}`` and
    ``{column: integer dtype?}``, from the hierarchies and the dtypes of ``frame``'s columns
    alone: the values never shape the lattice or the rules (one person would change them,
    and the release with them). Without ``frame`` no column counts as integer.

    A ``masking()`` without ``steps=`` is refused (its levels follow the longest value); with
    them it always ends at its top. Interval bands are integer ranges (``30-39``) when the
    column's dtype is integer (``int64``, ``Int64``: give an integer column with missing
    cells a nullable dtype, since a float dtype gives half-open bands ``[30, 40)``). A table
    or tree hierarchy's top is one node when its last level has one label; a rule
    hierarchy's when it has a ``top``; a column without a hierarchy (value → ``*``) has one.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_table
    >>> from pdanon.roles import resolve_roles
    >>> from pdanon.hierarchy import masking
    >>> df = pd.DataFrame({"zip": ["10001", "10002"]})
    >>> public_structure(encode_table(df, resolve_roles(df, quasi_identifiers=["zip"])),
    ...                  {"zip": masking()})
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: masking() for column 'zip' needs steps= under algorithm='safepub' (e.g. masking(steps=[1, 2, 3, 4, 5]) for 5-character codes; on the command line --hierarchy zip=mask:1,2,3,4,5): its default levels follow the longest value in the column, which one person can change, and the lattice would show it
    """
    import copy

    import pandas as pd

    from pdanon.hierarchy import as_hierarchy
    from pdanon.hierarchy.rules import IntervalHierarchy, MaskingHierarchy
    from pdanon.hierarchy.table import TableHierarchy

    out = hierarchy_map(hierarchies)
    single_top = {}
    integers = {col.name: col.kind == "real" and frame is not None and col.name in frame
                and pd.api.types.is_integer_dtype(frame[col.name].dtype) for col in enc.columns}
    for col in enc.columns:
        spec = out.get(col.name)
        if spec is None:
            single_top[col.name] = True  # value -> *
            continue
        h = copy.copy(as_hierarchy(spec, name=col.name))
        if isinstance(h, MaskingHierarchy):
            if h.steps is None:
                raise InvalidInputError(
                    f"masking() for column {col.name!r} needs steps= under "
                    f"algorithm='safepub' (e.g. masking(steps=[1, 2, 3, 4, 5]) for 5-character "
                    f"codes; on the command line --hierarchy {col.name}=mask:1,2,3,4,5): its "
                    f"default levels follow the longest value in the column, which one person "
                    f"can change, and the lattice would show it")
            h.always_top = True
        elif isinstance(h, IntervalHierarchy):
            h.integers = integers[col.name]
        if isinstance(h, TableHierarchy):
            single_top[col.name] = len(set(h.levels[-1].tolist())) == 1
        else:
            single_top[col.name] = getattr(h, "top", None) is not None
        out[col.name] = h
    return out, single_top, integers


def _refuse_numbers_read_as_categories(cols, frame) -> None:
    """An ordered column of numbers is published as ranges of numbers, unless a value lies
    beyond float precision (2**53), when it would be read as categories instead — a form that
    one value, published or not, would choose. Refused: the publisher sees it, nothing is
    released."""
    import pandas as pd

    if frame is None:
        return
    for col in cols:
        dtype = frame[col.name].dtype if col.name in frame else None
        if col.kind == "ordered" and col.categories is not None and dtype is not None and \
                pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            raise InvalidInputError(
                f"column {col.name!r} holds numbers beyond 2**53, which pdanon reads as "
                f"categories, not numbers; under algorithm='safepub' the published form must "
                f"not depend on one value: convert the column to text "
                f"(df[{col.name!r}].astype(str)) with a table or tree hierarchy, or scale it")


def public_loss_costs(col, level: int, *, listed: bool) -> np.ndarray:
    """The loss of a cell in each node of ``col`` at ``level``, from the hierarchy alone:
    ``(m - 1) / (M - 1)`` for a node holding ``m`` of the ``M`` leaves a table or tree
    hierarchy lists (``listed``), ``level / height`` for a hierarchy that does not list its
    values (intervals, dates, masking, and the value → ``*`` of a column without one). The
    column's own values, span and number of distinct values are never read: they change when
    one person comes or goes, and a score built on them would not have the sensitivity
    :mod:`pdanon.dp.scores` gives. A node holding only missing cells loses nothing."""
    b = col.bound
    nodes = b.nodes(level)
    if level == 0:
        return np.zeros(nodes)
    if listed and len(b.member_values) > 1:
        codes = np.asarray(b.member_codes[level], dtype=np.int64)
        m = np.bincount(codes[codes >= 0], minlength=nodes).astype(np.float64)
        return np.clip((m - 1.0) / (len(b.member_values) - 1.0), 0.0, 1.0)
    cost = np.full(nodes, level / col.height)
    if b.na:
        cost[b.only_missing(level)] = 0.0
    return cost


def published_cells(col, level: int, *, mask, listed: bool, by_label: bool = False) -> object:
    """The published column at ``level``: the values themselves at level 0; the sets and
    ranges of the leaves a table or tree hierarchy lists under a node (``listed``); the
    bands an interval hierarchy declares; otherwise — for dates (``by_label``: a unit's
    bounds would be read at the values' resolution) and for ordered columns read against
    categories — the hierarchy's labels (``*``, ``12***``, ``2024-12``, ``Primary school``).
    Categories are listed in an order of their own (:func:`_sorted_categories`).
    A set or range read off the data would show which values the *other* rows of the node
    hold — a cell that changes when one person comes or goes, which the proof of the
    guarantee does not allow: every cell must be a function of its own row's value and of
    the public hierarchy."""
    b = col.bound
    if level == 0:
        return _sorted_categories(col.cells(level, mask=mask))
    if by_label:
        return col.label_cells(level, mask=mask)
    if col.kind == "ordered" and col.categories is not None and col.unit_positions is None:
        # a range is read against the column's categories, which a release lists from lo to
        # hi: values of rows that were never published would show there
        return col.label_cells(level, mask=mask)
    if listed or (not b.enumerated and b.is_declared(level)):
        return _sorted_categories(col.cells(level, mask=mask))
    return _sorted_categories(col.label_cells(level, mask=mask))


def _sorted_categories(cells):
    """``cells`` (a Categorical or a generalization array) whose unordered categories are
    sorted (:func:`pdanon.recode.category_sort_key`): the encoder lists them in the input's
    order of first appearance, which shows the first rows' values whether or not they were
    sampled. Ordered categories keep their order (the hierarchy's or the column's, not the
    input's). A release's generalization dtypes are sorted again when it is published
    (:func:`pdanon.recode.sorted_categories`); a Categorical is sorted here only."""
    import pandas as pd

    from pdanon.recode import category_sort_key, sorted_categories

    if isinstance(cells, pd.Categorical):
        if cells.ordered:
            return cells
        return cells.set_categories(sorted(cells.categories, key=category_sort_key))
    if hasattr(cells, "dtype"):
        return sorted_categories(pd.Series(cells)).array
    return cells


class _Scorer:
    """Scores of lattice nodes on the sample (cached per node)."""

    def __init__(self, search, quality: str, n: int, k: int, listed, single_top, targets=(),
                 beta: float | None = None):
        # beta: the one-draw search's scores on the input (pdanon.dp.scores.selection_score)
        self.search, self.quality, self.n, self.k = search, quality, n, k
        self.beta = beta
        # classes below ``floor`` rows count only through n in the score (withheld, or in
        # the selection score a class of under k - 1 expected rows)
        self.floor = k if beta is None else (k - 1) / beta
        self.q = search.q
        self.targets = list(targets)
        if quality == "loss":
            self.costs = [[public_loss_costs(col, j, listed=lst) for j in range(col.height + 1)]
                          for col, lst in zip(search.columns, listed)]
        elif quality == "precision":
            self.costs = [[np.full(col.bound.nodes(j), j / col.height)
                           for j in range(col.height + 1)] for col in search.columns]
        # columns whose top level is one node by construction (public_structure): a class
        # there in every column is suppressed
        self.single_top = [bool(single_top[col.name]) and hi == col.height
                           for col, (_, hi) in zip(search.columns, search.bounds)]
        self.cache: dict[int, float] = {}

    def all_top(self, levels) -> bool:
        """Does the node ``levels`` generalize every column to its single top node (one
        class, suppressed)?"""
        return all(self.single_top[c] and int(levels[c]) == self.search.bounds[c][1]
                   for c in range(self.q))

    def __call__(self, idx: int) -> float:
        from pdanon.dp.scores import score, selection_score

        if idx in self.cache:
            return self.cache[idx]
        s = self.search
        cl = s.classes(idx)
        value = self.of_classes(s.L[idx], cl.codes, cl.counts)
        self.cache[idx] = value
        return value

    def of_classes(self, levels, codes, counts) -> float:
        """The score of the node ``levels`` whose classes have node ``codes`` (one array per
        column) and ``counts`` rows."""
        from pdanon.dp.scores import score, selection_score

        s = self.search
        top = self.all_top(levels)
        if self.quality == "classification":
            from pdanon.dp.scores import classification_score

            return classification_score(
                counts=counts, codes=codes, targets=self.targets,
                levels=[int(v) for v in levels], heights=[col.height for col in s.columns],
                k=self.k, suppress_all=top)
        else:
            # a class under k sampled rows is withheld and counts only through n (in every
            # score below): the others alone are passed on
            big = np.flatnonzero(counts >= self.floor)
            cost = np.zeros(len(big))
            if self.quality in ("loss", "precision"):
                for c in range(self.q):
                    cost += self.costs[c][int(levels[c])][codes[c][big]]
            if self.beta is None:
                return score(self.quality, counts=counts[big], cost=cost, n=self.n,
                             k=self.k, columns=self.q, suppress_all=top)
            return selection_score(self.quality, counts=counts[big], cost=cost, n=self.n,
                                   k=self.k, columns=self.q, beta=self.beta,
                                   suppress_all=top)


def _walk(search, scorer, *, steps: int, epsilon_step: float, epsilon_final: float, source):
    """SafePub's search (module docstring, step 2): the drawn output node, the walk's draws
    and the number of nodes visited."""
    from pdanon.dp.mechanism import exponential_mechanism

    top = search.index([hi for _, hi in search.bounds])
    pivot, visited, draws = top, [top], 0
    candidates: dict[int, float] = {}
    seen = {top}
    for _ in range(steps):
        row = search.L[pivot]
        for c in range(search.q):
            if int(row[c]) > search.bounds[c][0]:
                nxt = pivot - int(search.strides[c])
                if nxt not in seen:
                    seen.add(nxt)
                    candidates[nxt] = scorer(nxt)
        candidates.pop(pivot, None)
        if not candidates:
            break
        keys = list(candidates)
        pivot = keys[exponential_mechanism([candidates[i] for i in keys], epsilon=epsilon_step,
                                           source=source)]
        draws += 1
        visited.append(pivot)
    final = visited[exponential_mechanism([scorer(i) for i in visited], epsilon=epsilon_final,
                                          source=source)]
    return final, draws, len(visited)


def _select_all(search, scorer, *, epsilon: float, source) -> int:
    """The one-draw search (module docstring, step 2): every node of the lattice scored on
    the input (:func:`pdanon.dp.scores.selection_score`), one exponential-mechanism draw
    among all of them with the whole of ε_search (spread 1: the scores' changes between
    neighbouring inputs have a range of 1). Nodes are scored from the bottom of the lattice
    up, so that each rolls up from a cached specialization with few classes."""
    from pdanon.dp.mechanism import exponential_mechanism

    scores = _scan_scores(search, scorer)
    return exponential_mechanism(scores, epsilon=epsilon, source=source, spread=1.0)


def _scan_scores(search, scorer) -> np.ndarray:
    """Every node's score, the nodes taken in index order (the last column fastest): node
    ``y`` rolls up from ``y`` minus one level in its last column above its lowest level — the
    node scored just before it, or one kept since — by mapping that one column's codes up a
    level and regrouping. Class keys are sums of codes times fixed place values (each column's
    largest node count), so only the changed column's term moves. At most one table per
    column and level is kept. Lattices whose keys would overflow 62 bits are scored node by
    node with the optimal search's roll-up (:meth:`LatticeSearch.classes`)."""
    import pandas as pd

    q, bounds, cols = search.q, search.bounds, search.columns
    lows = [lo for lo, _ in bounds]
    dims = [max(max(int(cols[c].bound.nodes(j)) for j in range(lo, hi + 1)), 1)
            for c, (lo, hi) in enumerate(bounds)]
    scores = np.empty(len(search.L))
    if math.prod(dims) >= 2 ** 62:
        for i in range(len(search.L)):
            scores[i] = scorer(i)
        return scores
    place = np.cumprod([1] + dims[:-1]).astype(np.int64)
    heights = np.array([hi - lo for lo, hi in bounds])
    strides = [int(x) for x in search.strides]
    bottom = search.from_rows(search.L[0])
    # a table is (counts, key) per class: a column's codes are read off the key when needed
    first = (np.asarray(bottom.counts, dtype=np.float64),
             sum(np.asarray(bottom.codes[c], dtype=np.int64) * place[c] for c in range(q)))
    kept = {0: first}
    for i in range(len(search.L)):
        levels = search.L[i]
        rel = levels.astype(np.int64) - lows
        if i == 0:
            counts, key = first
        else:
            t = int(np.flatnonzero(rel)[-1])
            src = i - strides[t]
            s_counts, s_key = kept[src]
            # the source's last dependent is the one raising its lowest column still below
            # its top at or after its own last raised column
            s_rel = rel.copy()
            s_rel[t] -= 1
            nz = np.flatnonzero(s_rel)
            start = int(nz[-1]) if len(nz) else 0
            last = next(j for j in range(start, q) if s_rel[j] < heights[j])
            if last == t:
                del kept[src]
            was = (s_key // place[t]) % dims[t]
            up = cols[t].bound.step(int(levels[t]) - 1, int(levels[t]))[was]
            moved = s_key + (up - was) * place[t]
            labels, uniq = pd.factorize(moved, sort=False)
            counts = np.bincount(labels, weights=s_counts, minlength=len(uniq))
            key = np.asarray(uniq, dtype=np.int64)
        # only the classes at or above the scorer's floor count one by one
        big = np.flatnonzero(counts >= scorer.floor)
        codes = [(key[big] // place[c]) % dims[c] for c in range(q)]
        scores[i] = scorer.of_classes(levels, codes, counts[big])
        if i == 0 or any(rel[j] < heights[j] for j in range(int(np.flatnonzero(rel)[-1])
                                                           if rel.any() else 0, q)):
            kept[i] = (counts, key)
    return scores


def _targets(target, quality: str, names: list) -> list:
    """Positions of the ``target`` column(s) among the published ``names``."""
    if quality != "classification":
        if target is not None:
            raise InvalidInputError(f"target= is read by quality='classification' only, not "
                                    f"quality={quality!r}")
        return []
    if target is None:
        wanted = []
    elif isinstance(target, str) or not hasattr(target, "__iter__"):
        wanted = [target]
    else:
        wanted = list(target)
    if not wanted:
        raise InvalidInputError("quality='classification' needs target= (the column, or "
                                "columns, a classifier will predict from the others)")
    twice = sorted({str(t) for t in wanted if wanted.count(t) > 1})
    if twice:
        raise InvalidInputError(f"target names {twice} more than once; name each column once")
    unknown = [t for t in wanted if t not in names]
    if unknown:
        raise InvalidInputError(f"target {unknown} is not a published column; choose from "
                                f"{names}")
    return [names.index(t) for t in wanted]


def _check_search(search, steps, nodes: int, quality: str) -> str:
    """The search to run: ``"all"`` (one draw among every node) or ``"walk"`` (SafePub's
    walk of ``steps`` draws). By default ``"all"`` for the qualities it ranks by
    (:data:`pdanon.dp.scores.SELECTION_QUALITIES`) when ``steps`` is not given and the
    lattice has at most :data:`MAX_NODES_SCORED` nodes (its size is public: the hierarchies
    fix it), else the walk."""
    from pdanon.dp.scores import SELECTION_QUALITIES

    if search is None:
        return "all" if steps is None and nodes <= MAX_NODES_SCORED and \
            quality in SELECTION_QUALITIES else "walk"
    if search not in ("all", "walk"):
        raise InvalidInputError(f"search must be 'all' (one draw among every lattice node) or "
                                f"'walk' (SafePub's walk of steps= draws), got {search!r}")
    if search == "all" and steps is not None:
        raise InvalidInputError("steps= is read by search='walk' only; search='all' makes one "
                                "draw among every lattice node")
    if search == "all" and quality not in SELECTION_QUALITIES:
        raise InvalidInputError(
            f"search='all' ranks nodes for quality in {list(SELECTION_QUALITIES)}, not "
            f"{quality!r}: use search='walk' (or leave search= unset) for {quality!r}")
    if search == "all" and nodes > MAX_NODES_SCORED:
        raise InvalidInputError(
            f"search='all' scores every node of the lattice, and this one has {nodes:,} "
            f"(more than {MAX_NODES_SCORED:,}): use search='walk', or fewer levels")
    return search


@register("safepub", options=("hierarchies", "quality", "target", "steps", "seed", "search"),
          supports=("mechanism",))
def safepub(enc, model, *, method: str = "generalize", hierarchies=None, quality: str = "loss",
            target=None, steps: int | None = None, seed=None, search=None, context=None,
            frame=None) -> Recoded:
    """SafePub (module docstring) for ``model``, an
    :class:`~pdanon.models.EDDifferentialPrivacy`.

    Options: ``hierarchies`` ({column: hierarchy}, as for ``algorithm="optimal"``; fixed
    before the data is seen), ``quality`` (:data:`pdanon.dp.scores.QUALITIES`), ``target``
    (the column or columns ``quality="classification"`` predicts), ``search`` (``"all"``
    or ``"walk"``, :func:`_check_search`), ``steps`` (draws of the walk, default 100),
    ``seed`` (tests only).
    """
    from pdanon.dp.mechanism import RandomSource
    from pdanon.dp.scores import QUALITIES
    from pdanon.hierarchy.rules import DateHierarchy
    from pdanon.models import EDDifferentialPrivacy, KAnonymity
    from pdanon.partition.optimal import LatticeSearch

    started = time.perf_counter()
    if not isinstance(model, EDDifferentialPrivacy):
        raise InvalidInputError(
            f"algorithm='safepub' publishes under EDDifferentialPrivacy(epsilon, delta), not "
            f"{model!r}: use df.anon.dp_anonymize(epsilon, delta, ...)")
    if method != "generalize":
        raise InvalidInputError(f"algorithm='safepub' recodes by hierarchies "
                                f"(method='generalize'); got method={method!r}")
    if quality not in QUALITIES:
        raise InvalidInputError(f"unknown quality {quality!r}; use one of {list(QUALITIES)}")
    if steps is not None:
        steps = _check_steps(steps)
    n, k = enc.n, model.k
    source = RandomSource(seed)
    sampled = source.uniform(n) < model.beta
    hierarchies, single_top, integers = public_structure(enc, hierarchies, frame)
    cols = prepare_columns(enc, hierarchies, algorithm="safepub", integers=integers)
    _refuse_numbers_read_as_categories(cols, frame)
    targets = _targets(target, quality, [col.name for col in cols])
    # a table or tree the publisher gave lists its leaves; the value -> * of a column without
    # a hierarchy is built from the column's own values, so it lists nothing public
    listed = [col.bound.enumerated and col.name in (hierarchies or {}) for col in cols]
    bounds = lattice_bounds(cols, None)
    nodes = math.prod(hi - lo + 1 for lo, hi in bounds)
    how = _check_search(search, steps, nodes, quality)
    # the walk scores nodes on the sample (its rows weigh 1, the others 0); search="all"
    # on the input, independently of the sample (module docstring)
    lattice = LatticeSearch(cols, KAnonymity(1), [], budget=n,
                            objective="precision" if quality == "precision" else "loss",
                            bounds=bounds,
                            weights=None if how == "all" else sampled.astype(np.int64))
    scorer = _Scorer(lattice, quality, n, k, listed, single_top, targets,
                     beta=model.beta if how == "all" else None)
    if how == "all":
        draws, epsilon_step, epsilon_final = 0, 0.0, model.epsilon_search
        chosen_idx = _select_all(lattice, scorer, epsilon=epsilon_final, source=source)
        visited = nodes
    else:
        # the walk visits a new node at every draw, so it ends after the lattice's size - 1
        # draws (public: the hierarchies fix it); its share of epsilon goes to the draws made
        draws = min(DEFAULT_STEPS if steps is None else steps, nodes - 1)
        epsilon_walk = model.epsilon_search * (1.0 - FINAL_SHARE) if draws else 0.0
        epsilon_step = epsilon_walk / draws if draws else 0.0
        epsilon_final = model.epsilon_search - epsilon_walk
        chosen_idx, made, visited = _walk(lattice, scorer, steps=draws,
                                          epsilon_step=epsilon_step,
                                          epsilon_final=epsilon_final, source=source)
        if made != draws:  # pragma: no cover - the walk's length is fixed by the lattice
            raise AssertionError(f"the walk made {made} draws, not {draws}")
    search = lattice
    chosen = search.L[chosen_idx]
    final = search.from_rows(chosen)
    # sampled rows per class (the counts of search="all"'s lattice are the input's)
    kept_class = np.bincount(final.rows, weights=sampled,
                             minlength=len(final.counts)) >= k
    if scorer.all_top(chosen):
        kept_class[:] = False
    released = sampled & kept_class[final.rows]
    by_label = [isinstance(hierarchies.get(col.name), DateHierarchy) for col in cols]
    out_cols = {col.name: published_cells(col, int(chosen[c]), mask=~released,
                                          listed=listed[c], by_label=by_label[c])
                for c, col in enumerate(cols)}
    rows = np.flatnonzero(released)
    order = rows[source.permutation(len(rows))]
    info = {
        "levels": {col.name: int(chosen[c]) for c, col in enumerate(cols)},
        "quality": quality,
        "search": how,
        "heights": {col.name: col.height for col in cols},
        "dp": model.accounting(steps=draws, epsilon_per_step=epsilon_step,
                               epsilon_final_choice=epsilon_final),
        "random_source": source.describe(),
        # counts of the input and the sample: not differentially private, never published
        "publisher_only": PublisherOnly({
            "input_rows": n, "sampled_rows": int(sampled.sum()),
            "withheld_sampled_rows": int(sampled.sum()) - len(rows),
            "nodes_scored": len(scorer.cache), "nodes_visited": visited,
            "score": scorer(chosen_idx), "search_seconds": time.perf_counter() - started}),
    }
    out = Recoded(out_cols, 0, 0, suppressed=None, info=info)
    out.release_rows = order
    return out
