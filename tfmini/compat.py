"""The TF2 switches a TF1 script calls after ``import tensorflow.compat.v1 as tf``.

tfmini only has graph mode and resource variables, so switching to them changes nothing:
these are kept so a ported script runs unchanged.
"""

from __future__ import annotations


def disable_v2_behavior() -> None:
    """No-op: tfmini always behaves as TF1 graph mode."""


def disable_eager_execution() -> None:
    """No-op: tfmini has no eager mode."""


def enable_resource_variables() -> None:
    """No-op: ``tm.Variable`` is a resource variable unless ``use_resource=False``."""


def executing_eagerly() -> bool:
    """Always False: ops build graphs, which a Session runs."""
    return False


__all__ = [
    "disable_eager_execution",
    "disable_v2_behavior",
    "enable_resource_variables",
    "executing_eagerly",
]
