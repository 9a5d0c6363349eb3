"""``tm.random``: random functions, as ``tf.compat.v1.random``.

A thin namespace over :mod:`tfmini.ops.random` (where the ops and functions live), with
TensorFlow's short names (``normal``, ``uniform``, ``categorical``, ...).
"""

from __future__ import annotations

from typing import Any

from tfmini.ops.nn import (  # tf.random.*_candidate_sampler are tf.nn's
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from tfmini.ops.random import *  # noqa: F401,F403
from tfmini.ops.random import __all__ as _ops_all
from tfmini.ops.random import (
    multinomial,
    random_gamma,
    random_normal,
    random_poisson,
    random_shuffle,
    random_uniform,
    set_random_seed,
    stateless_categorical,
    stateless_multinomial,
    stateless_random_normal,
    stateless_random_uniform,
    stateless_truncated_normal,
    truncated_normal,
)

normal = random_normal
uniform = random_uniform
shuffle = random_shuffle
gamma = random_gamma
poisson = random_poisson
stateless_normal = stateless_random_normal
stateless_uniform = stateless_random_uniform
set_seed = set_random_seed
# truncated_normal, multinomial, stateless_truncated_normal, stateless_categorical,
# stateless_multinomial keep their names.
_ = (truncated_normal, stateless_truncated_normal, stateless_categorical, stateless_multinomial)


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: int | None = None,
                name: str | None = None):
    """``tf.random.categorical``: :func:`multinomial` with ``dtype`` (int64 by default)."""
    return multinomial(logits, num_samples, seed=seed, name=name or "categorical",
                       output_dtype=dtype)


__all__ = [*_ops_all, "all_candidate_sampler", "categorical", "fixed_unigram_candidate_sampler",
           "learned_unigram_candidate_sampler", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler", "gamma", "normal", "poisson", "set_seed", "shuffle",
           "stateless_normal", "stateless_uniform", "uniform"]
