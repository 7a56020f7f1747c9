"""The one registry of the figures pdanon reports: each has one snake_case key, used the
same way everywhere a figure is printed or returned.

* the ``metric`` column of ``df.anon.metrics()`` (:func:`pdanon.metrics.metrics_table`,
  ``pdanon.dask``'s ``metrics``), next to the ``label`` column (the human text);
* the index of :func:`pdanon.metrics.risk_summary` (pandas and Dask) and of
  :func:`pdanon.metrics.perturbation_summary`;
* the keys of a release report's JSON (``privacy``, ``privacy["risk_summary"]``,
  ``utility``, ``utility["ml"]``, ``left_out``); its HTML page shows the labels;
* the ``name value`` lines the ``depersonalize`` command prints.

A :class:`Figure` has its ``key``, a short ``label`` for display, ``better`` ("higher" or
"lower": for a risk figure, safer; for a utility figure, more useful; None for a count that
is neither, such as ``rows``), its ``kind`` ("risk" or "utility") and a one-sentence
``meaning``. A meaning may hold ``{threshold}`` (the prosecutor risk above which a record
counts as at risk) or ``{target}`` (the column a model predicts), filled in by
:meth:`Figure.describe`.

The key of a figure that a function of :mod:`pdanon.metrics` computes is that function's
name (``k_anonymity``, ``changed_proportion``, ``il1s``, ...), with the variant after it
where the function has several (``l_diversity_distinct``, ``t_closeness_emd``); the
record-level risks end in ``_risk`` (``highest_prosecutor_risk``), the shares of rows name
the rows they count (``records_at_risk``, ``sample_uniques``). A journalist figure
estimated from a sampling fraction keeps its key; its label says "(estimate)".

Example
-------
>>> FIGURES["t_closeness_emd"].label
't-closeness (EMD)'
>>> figure("records_at_risk").describe(threshold=0.2)
'risk: share of rows with prosecutor risk > 0.2'
>>> figure("k_anonimity")
Traceback (most recent call last):
...
pdanon._errors.InvalidInputError: unknown figure 'k_anonimity'; did you mean 'k_anonymity' or 'k_anonymity_wildcard'? Every key is in pdanon.metrics.FIGURES
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from types import MappingProxyType

from pdanon._errors import InvalidInputError

__all__ = ["FIGURES", "Figure", "figure", "label", "row"]


@dataclass(frozen=True)
class Figure:
    """One figure: its ``key`` (snake_case), ``label`` (for display), ``better`` ("higher",
    "lower" or None), ``kind`` ("risk" or "utility") and ``meaning`` (one sentence)."""

    key: str
    label: str
    better: str | None
    kind: str
    meaning: str

    def describe(self, **values) -> str:
        """``"<kind>: <meaning>"`` with ``{threshold}`` / ``{target}`` filled from ``values``
        (left as written when not given)."""
        text = self.meaning
        for name, value in values.items():
            text = text.replace("{" + name + "}", f"{value!r}" if name == "target"
                                else f"{value:g}" if isinstance(value, float) else str(value))
        return f"{self.kind}: {text}"


#: the figures, one per entry: "key | label | better | kind" ("-": neither better), then
#: the meaning on the indented lines below it
_TABLE = """
k_anonymity | k-anonymity | higher | risk
    rows in the smallest equivalence class
k_anonymity_wildcard | k-anonymity (wildcard) | higher | risk
    fewest rows a row matches (a missing cell matches any value)
l_diversity_distinct | l-diversity (distinct) | higher | risk
    fewest distinct sensitive values in a class
l_diversity_entropy | l-diversity (entropy) | higher | risk
    exp(lowest class entropy of sensitive values)
t_closeness_emd | t-closeness (EMD) | lower | risk
    largest class-to-table distance (sensitive)
l_diversity_recursive | l-diversity (recursive) | higher | risk
    largest l of recursive (c, l)-diversity the classes meet
t_closeness_hierarchical | t-closeness (hierarchical EMD) | lower | risk
    largest class-to-table hierarchical distance (sensitive)
t_closeness_jensen_shannon | t-closeness (Jensen-Shannon) | lower | risk
    largest class-to-table Jensen-Shannon divergence (sensitive)
t_closeness_wasserstein | t-closeness (Wasserstein) | lower | risk
    largest class-to-table normalized Wasserstein distance (sensitive)
t_closeness_reference | t-closeness (reference) | lower | risk
    largest class-to-table distance as cp2025's find_t_close measures it
beta_likeness | beta-likeness | lower | risk
    largest relative gain of a sensitive value's share in a class
delta_disclosure | delta-disclosure | lower | risk
    largest |ln(class share / table share)| of a sensitive value
suppressed_share | suppressed rows | lower | utility
    share of rows whose every quasi-identifier was suppressed
random_row_order | rows in a random order | higher | risk
    1 when the rows were published in a random order under a fresh index, 0 in the input's
adversarial_knowledge_gain | adversarial knowledge gain | lower | risk
    mean class-to-table total variation
adversarial_accuracy_gain | adversarial accuracy gain | lower | risk
    gain in guessing a sensitive value by class
highest_prosecutor_risk | highest prosecutor risk | lower | risk
    1 / smallest class; 1.0 as soon as one row is unique
average_prosecutor_risk | average prosecutor risk | lower | risk
    mean over rows of 1 / class size (= classes / rows)
median_prosecutor_risk | median prosecutor risk | lower | risk
    the typical row's 1 / class size
records_at_risk | records at risk | lower | risk
    share of rows with prosecutor risk > {threshold}
sample_uniques | sample uniques | lower | risk
    share of rows unique on the quasi-identifiers
household_k | household k | higher | risk
    fewest households sharing a signature (size and members' published quasi-identifiers)
difference_disclosed | persons disclosed by the difference attack | lower | risk
    persons to whom the classes' published counts across releases may leave one sensitive value
channel_share | channel share | lower | risk
    largest share of a quasi-identifier's hidden cells a column published unchanged gives back
singling_out_risk | singling-out risk | lower | risk
    upper bound of the singling-out attack's risk beyond the control set (pdanon.attacks)
linkability_risk | linkability risk | lower | risk
    upper bound of the linkability attack's risk beyond the control set (pdanon.attacks)
inference_risk | inference risk | lower | risk
    upper bound of the inference attack's risk beyond the control set, worst sensitive column
marketer_risk | marketer risk | lower | risk
    expected share of rows re-identified when all are matched
highest_journalist_risk | highest journalist risk | lower | risk
    1 / smallest population class met by the table
average_journalist_risk | average journalist risk | lower | risk
    mean over rows of 1 / population class size
median_journalist_risk | median journalist risk | lower | risk
    the typical row's 1 / population class size
records_at_journalist_risk | records at journalist risk | lower | risk
    share of rows with journalist risk > {threshold}
population_uniques | population uniques (estimate) | lower | risk
    estimated share of the population unique on the QIs (Dankar's rule)
global_risk | global risk (survey weights) | lower | risk
    mean individual risk from the sampling weights (sdcMicro's measure_risk)
expected_reidentifications | expected re-identifications | lower | risk
    sum of the individual risks: rows an attacker is expected to re-identify
highest_individual_risk | highest individual risk (survey weights) | lower | risk
    the highest individual risk of a row from the sampling weights
household_global_risk | household risk (mean) | lower | risk
    mean over rows of 1 - prod(1 - r) over the row's household
household_expected_reidentifications | expected household re-identifications | lower | risk
    sum over rows of the household risk
interval_disclosure | interval disclosure | lower | risk
    share of rows whose every original value lies within k sd of its perturbed value (dRisk)
record_linkage | distance-based record linkage | lower | risk
    expected share of rows whose nearest original record is their own (ties shared)
rmd_interval_risk | RMD interval disclosure | lower | risk
    share of rows with a perturbed value within k robust-Mahalanobis widths (dRiskRMD risk1)
rmd_isolated_risk | RMD isolated records | lower | risk
    share of those whose nearest other perturbed record is farther than k2 (risk2)
rmd_interval_weighted | RMD interval disclosure (weighted) | lower | risk
    sdcMicro's wrisk1: rows at interval risk x the sum of their distances / n
rmd_isolated_weighted | RMD isolated records (weighted) | lower | risk
    sdcMicro's wrisk2: isolated rows x the sum of their distances / n
boosting_security_score | linkage attack security | higher | risk
    1 - accuracy of a model matching rows to originals on a small held-out sample (misleads:
    guessing scores high; read records_at_risk)
rows | rows | - | utility
    rows published
equivalence_classes | equivalence classes | higher | utility
    distinct quasi-identifier combinations
average_class_size | average class size | lower | utility
    rows per equivalence class
normalized_average_class_size | normalized average class size (C_AVG) | lower | utility
    rows / (classes x k); 1 is the best possible
distinctness | distinctness | higher | utility
    distinct published rows / rows
non_uniform_entropy | non-uniform entropy | higher | utility
    entropy (bits) of quasi-identifier rows
discernibility | discernibility | lower | utility
    sum of squared class sizes (Bayardo & Agrawal); a release report costs each row
    published with every quasi-identifier blank the row count instead
group_size | group size | higher | risk
    rows per group the algorithm formed
changed_cells | changed quasi-identifier cells | lower | utility
    quasi-identifier cells that differ from the original
changed_proportion | changed proportion | lower | utility
    changed quasi-identifier cells / all
information_loss | information loss | lower | utility
    mean generalized information loss per quasi-identifier cell, 0 = none, 1 = all
entropy_information_loss | entropy information loss | lower | utility
    1 - entropy(anonymized) / entropy(original)
by_element_distance | by-element distance | lower | utility
    mean cell distance to the original, 0..1
boosting_accuracy_ratio | boosting accuracy ratio | higher | utility
    accuracy of gradient boosting predicting {target}, anonymized / original
boosting_rmse_ratio | boosting RMSE ratio | higher | utility
    RMSE of gradient boosting predicting {target}, original / anonymized
il1s | IL1s | lower | utility
    mean |x - x'| / (sqrt(2) sd) over perturbed numeric cells
eigenvalue_loss | eigenvalue loss | lower | utility
    sum |e - e'| / e of the correlation matrix's eigenvalues
correlation_difference | correlation difference (max abs) | lower | utility
    largest change of a Pearson correlation
covariance_difference | covariance difference (relative) | lower | utility
    ||C' - C|| / ||C||, covariances of sd-scaled columns
max_mean_change | mean change (max, in sd) | lower | utility
    largest |mean' - mean| / sd of a perturbed column
max_sd_change | sd change (max relative) | lower | utility
    largest |sd' / sd - 1| of a perturbed column
max_quantile_change | quantile change (max, in sd) | lower | utility
    largest |q' - q| / sd, q = 5, 25, 50, 75, 95%
category_share_distance | category share distance (max) | lower | utility
    largest total variation between a column's category shares
"""


def _parse(table: str) -> dict:
    out, entry = {}, None
    for line in table.strip("\n").splitlines():
        if not line.startswith(" "):
            key, text, better, kind = (part.strip() for part in line.split("|"))
            assert key not in out, f"figure {key!r} listed twice"
            entry = out[key] = [key, text, None if better == "-" else better, kind, []]
        else:
            entry[4].append(line.strip())
    return {k: Figure(k, t, b, kind, " ".join(m)) for k, t, b, kind, m in out.values()}


#: every figure pdanon reports, by key (read-only; in the order of this module)
FIGURES = MappingProxyType(_parse(_TABLE))


def figure(key: str) -> Figure:
    """The :class:`Figure` of ``key``; an unknown key is an InvalidInputError naming the
    closest keys."""
    try:
        return FIGURES[key]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(key), list(FIGURES), n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ";"
        raise InvalidInputError(f"unknown figure {key!r}{hint} Every key is in "
                                f"pdanon.metrics.FIGURES") from None


def label(key: str) -> str:
    """The display label of ``key`` (the key itself for a name that is not a figure).

    Example
    -------
    >>> label("sample_uniques"), label("not_a_figure")
    ('sample uniques', 'not_a_figure')
    """
    f = FIGURES.get(key)
    return f.label if f is not None else str(key)


def row(key: str, value, *, estimate: bool | str = False, **values) -> tuple:
    """One row of a metrics table: ``(key, label, value as float, better, meaning)``;
    ``estimate``: the figure is estimated (its label and meaning say so and how: ``True`` or
    ``"fraction"``, F = f / the sampling fraction; ``"weights"``, F = the sum of the class's
    sampling weights); ``values`` fill the meaning (:meth:`Figure.describe`).

    Example
    -------
    >>> row("k_anonymity", 2)
    ('k_anonymity', 'k-anonymity', 2.0, 'higher', 'risk: rows in the smallest equivalence class')
    >>> row("marketer_risk", 0.01, estimate="weights")[4].split(", ")[-1]
    'F = the sum of the sampling weights of the class'
    """
    f = figure(key)
    text, meaning = f.label, f.describe(**values)
    if estimate:
        how = ("F = the sum of the sampling weights of the class" if estimate == "weights"
               else "F = f / sampling fraction")
        text, meaning = f"{text} (estimate)", f"{meaning}, {how}"
    return (f.key, text, float(value), f.better, meaning)
