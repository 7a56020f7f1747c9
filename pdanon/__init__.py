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
from pdanon.bounds import ExactBoundsWarning
from pdanon.dtype import GeneralizationArray, GeneralizationDtype, GeneralizationRange
from pdanon import accessor as _accessor  # noqa: F401  (registers df.anon)
from pdanon import accessor_series as _accessor_series  # noqa: F401  (registers s.anon)
from pdanon import datasets, hierarchy, io, models, plot
from pdanon.io import read_csv
from pdanon.policy import Policy
from pdanon.recoding import Recoding
from pdanon.releases import ReleaseHistory, check_releases, release_keys
from pdanon.publisher_only import guard_pandas_writers as _guard_pandas_writers
from pdanon.roles import Roles, infer_schema, resolve_roles, schema, schema_from_yaml, schema_to_yaml

__version__ = "0.1.0"

_guard_pandas_writers()  # pandas' writers warn on a frame holding an explanation's columns

#: subpackages imported on first use (``pdanon.metrics.k_anonymity(...)`` works after
#: ``import pdanon`` without making ``import pdanon`` pay for them)
_LAZY = ("algorithms", "compat", "csvsafe", "distributions", "engine", "metrics", "parties",
         "perturb", "release")


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f"pdanon.{name}")
        globals()[name] = module
        return module
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
