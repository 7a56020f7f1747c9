"""pdanon: de-identification of pandas DataFrames.

Importing pdanon registers the ``df.anon`` accessor and the ``generalization[...]`` dtype.

Example
-------
>>> import pdanon
>>> df = pdanon.datasets.load_adult()
>>> out = df.anon.k_anonymize(5, quasi_identifiers=["age", "sex", "race"])
>>> out.anon.k_anonymity(quasi_identifiers=["age", "sex", "race"]) >= 5
True
"""

import sys

from pdanon._errors import (
    AnonymizationError,
    ChannelError,
    InfeasibleError,
    InvalidInputError,
    KindError,
    NoProgressError,
    KindWarning,
    PublisherOnlyError,
    PublisherOnlyWarning,
    RoleError,
    RoleWarning,
    SingleClassWarning,
    UnknownColumnError,
    VerificationError,
)

# ------------------------------------------------------------------ modules that moved

#: modules that moved into packages (docs/architecture.md, "Layout"): their old import paths
#: keep working for code written against them (``import pdanon.policy`` gives the module
#: ``pdanon.checks.policy`` itself, and a pickle that names an old path loads); pdanon's own
#: code uses the new paths (tools/arch_check.py refuses the old ones)
_MOVED = {
    "pdanon._keys": "pdanon.republication._keys",
    "pdanon.accessor_anonymize": "pdanon.accessor.anonymize",
    "pdanon.accessor_dp": "pdanon.accessor.dp",
    "pdanon.accessor_perturb": "pdanon.accessor.perturb",
    "pdanon.accessor_risk": "pdanon.accessor.risk",
    "pdanon.accessor_series": "pdanon.accessor.series",
    "pdanon.bounds": "pdanon.recode.bounds",
    "pdanon.channels": "pdanon.screening.channels",
    "pdanon.cli_anonymize": "pdanon.cli.anonymize",
    "pdanon.cli_common": "pdanon.cli.common",
    "pdanon.cli_config": "pdanon.cli.config",
    "pdanon.cli_household": "pdanon.cli.household",
    "pdanon.cli_plan": "pdanon.cli.plan",
    "pdanon.cli_survey": "pdanon.cli.survey",
    "pdanon.cli_words": "pdanon.cli.words",
    "pdanon.content": "pdanon.screening.content",
    "pdanon.csvcodes": "pdanon.io.csvcodes",
    "pdanon.csvsafe": "pdanon.io.csvsafe",
    "pdanon.difference": "pdanon.republication.difference",
    "pdanon.explain": "pdanon.report.explain",
    "pdanon.households": "pdanon.screening.households",
    "pdanon.invariance": "pdanon.republication.invariance",
    "pdanon.names": "pdanon.screening.names",
    "pdanon.plan": "pdanon.accessor.plan",
    "pdanon.policy": "pdanon.checks.policy",
    "pdanon.recoding": "pdanon.republication.recoding",
    "pdanon.recoding_boxes": "pdanon.republication.boxes",
    "pdanon.recoding_check": "pdanon.republication.recoding_check",
    "pdanon.releases": "pdanon.republication.releases",
    "pdanon.row_order": "pdanon.checks.row_order",
    "pdanon.schema_checks": "pdanon.dtype.schema_checks",
    "pdanon.valuesets": "pdanon.republication.valuesets",
}


class _MovedModules:
    """The finder and loader on ``sys.meta_path`` that answers an old path with the moved
    module (one module object under both names; its ``__spec__`` stays its own)."""

    _specs: dict = {}

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _MOVED:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, _MovedModules)

    @staticmethod
    def create_module(spec):
        import importlib

        module = importlib.import_module(_MOVED[spec.name])
        _MovedModules._specs[spec.name] = module.__spec__
        return module

    @staticmethod
    def exec_module(module):
        for old, new in _MOVED.items():  # the import machinery set the old path's spec
            if new == module.__name__ and old in _MovedModules._specs:
                module.__spec__ = _MovedModules._specs[old]


if _MovedModules.__qualname__ not in {type(f).__qualname__ if not isinstance(f, type)
                                      else f.__qualname__ for f in sys.meta_path}:
    sys.meta_path.append(_MovedModules)

from pdanon.recode.bounds import ExactBoundsWarning
from pdanon.dtype import GeneralizationArray, GeneralizationDtype, GeneralizationRange
from pdanon.accessor import frame as _frame  # noqa: F401  (registers df.anon)
from pdanon.accessor import series as _series  # noqa: F401  (registers s.anon)
from pdanon import datasets, hierarchy, io, models, plot
from pdanon.io import read_csv
from pdanon.checks.policy import Policy
from pdanon.republication.recoding import Recoding
from pdanon.republication.releases import ReleaseHistory, check_releases, release_keys
from pdanon.publisher_only import guard_pandas_writers as _guard_pandas_writers
from pdanon.roles import Roles, infer_schema, resolve_roles, schema, schema_from_yaml, schema_to_yaml

__version__ = "0.1.0"

_guard_pandas_writers()  # pandas' writers warn on a frame holding an explanation's columns

#: subpackages imported on first use (``pdanon.metrics.k_anonymity(...)`` works after
#: ``import pdanon`` without making ``import pdanon`` pay for them)
_LAZY = ("algorithms", "attacks", "compat", "csvsafe", "distributions", "engine", "metrics",
         "parties", "perturb", "release", "tables")


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f"pdanon.{name}")
        globals()[name] = module
        return module
    if f"pdanon.{name}" in _MOVED:  # a module that moved: its old attribute path still works
        import importlib

        return importlib.import_module(_MOVED[f"pdanon.{name}"])
    if name in ("publish", "Publication", "PublishError"):  # the one way out, on first use
        from pdanon import release

        return getattr(release, name)
    raise AttributeError(f"module 'pdanon' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"publish", "Publication", "PublishError"})

__all__ = [
    "AnonymizationError",
    "GeneralizationArray",
    "GeneralizationDtype",
    "GeneralizationRange",
    "InfeasibleError",
    "InvalidInputError",
    "KindError",
    "KindWarning",
    "ExactBoundsWarning",
    "NoProgressError",
    "Policy",
    "Publication",
    "PublishError",
    "Recoding",
    "ReleaseHistory",
    "PublisherOnlyError",
    "PublisherOnlyWarning",
    "ChannelError",
    "RoleError",
    "RoleWarning",
    "Roles",
    "SingleClassWarning",
    "UnknownColumnError",
    "VerificationError",
    "check_releases",
    "release_keys",
    "datasets",
    "hierarchy",
    "infer_schema",
    "io",
    "metrics",
    "models",
    "plot",
    "publish",
    "read_csv",
    "resolve_roles",
    "schema",
    "schema_from_yaml",
    "schema_to_yaml",
]
