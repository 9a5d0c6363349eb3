"""Candidate samplers and ComputeAccidentalHits, bit for bit as TensorFlow's CPU kernels.

The ops (``tensorflow/core/ops/candidate_sampling_ops.cc``) and their kernels
(``tensorflow/core/kernels/candidate_sampler_ops.cc``, ``range_sampler.cc``) draw
``num_sampled`` class ids from a distribution over ``[0, range_max)`` and report, for those
ids and for the true classes, how many times each is expected to appear in a sample.

Each op keeps its state per Session (:class:`SamplerState`, in the session's resource
manager): TensorFlow's Philox stream, seeded from the ``seed``/``seed2`` attrs, of which every
run reserves ``2048 * num_sampled`` 32-bit words (``512 * num_sampled`` blocks), and, for the
learned unigram samplers, the counts of the true classes seen so far. A run reads the words of
its reservation in order, as ``random::SimplePhilox`` does (``xla/tsl/lib/random/
simple_philox.h``): ``RandDouble`` takes two words, ``Rand64`` two (low, high), ``RandFloat``
and ``Rand32`` one. The expected counts use glibc's float ``log1pf``/``expm1f`` (through
:mod:`tfmini.ops.random`'s ``libm``), as the kernel's ``std::log1p``/``std::expm1`` of a float.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops import random as _random
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random import PhiloxStream, get_seed

__all__ = [
    "all_candidate_sampler",
    "compute_accidental_hits",
    "fixed_unigram_candidate_sampler",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
]

libm = _random.libm
philox = _random.philox
_CONTAINER = "_candidate_samplers"
_KINT32MAX = 2**31 - 1
_U64_MAX = (1 << 64) - 1
# Blocks computed at a time while a run reads its words (rejection may need more).
_CHUNK_BLOCKS = 64


class _Words:
    """The 32-bit words of a Philox stream from one block on, read in order."""

    def __init__(self, key: tuple[int, int], base: int):
        self._key = key
        self._base = base
        self._words = np.empty(0, np.uint32)
        self._blocks = 0
        self.pos = 0

    def _ensure(self, n: int) -> None:
        while self._words.size < self.pos + n:
            more = max(_CHUNK_BLOCKS, (self.pos + n - self._words.size + 3) // 4)
            b = philox.blocks(self._key, self._base + self._blocks, more)
            self._blocks += more
            self._words = np.concatenate([self._words, b.reshape(-1)])

    def take(self, n: int) -> np.ndarray:
        """The next ``n`` words."""
        self._ensure(n)
        out = self._words[self.pos:self.pos + n]
        self.pos += n
        return out

    def rand32(self) -> int:
        self._ensure(1)
        w = int(self._words[self.pos])
        self.pos += 1
        return w


def _rand_doubles(words: _Words, n: int) -> np.ndarray:
    w = words.take(2 * n)
    return philox.uniform_float64(w[0::2], w[1::2])


def _rand64s(words: _Words, n: int) -> list[int]:
    w = words.take(2 * n).astype(np.uint64)
    return (w[0::2] | (w[1::2] << np.uint64(32))).tolist()


def _exact_uniform32(words: _Words, n: int) -> int:
    """``random::ExactUniformInt<uint32>``: uniform in [0, n) by rejection."""
    rem = (0xFFFFFFFF % n) + 1
    if rem == n:
        return words.rand32() & (n - 1)
    while True:
        rnd = words.rand32()
        if rnd >= rem:
            return rnd % n


def _rand_float(words: _Words) -> float:
    return float(philox.uniform_float32(np.array([words.rand32()], np.uint32))[0])


# ------------------------------------------------------------------------------------------
# The distributions (range_sampler.cc); each draws values one attempt at a time, in order.


class _LogUniform:
    def __init__(self, range_max: int):
        self.range = range_max
        self._log_range = math.log1p(range_max)

    def draws(self, words: _Words, n: int) -> list[int]:
        u = _rand_doubles(words, n)
        v = libm.exp(u * self._log_range).astype(np.int64) - 1
        return (v % self.range).tolist()

    def probability(self, values: np.ndarray) -> np.ndarray:
        v = values.astype(np.float64)
        return (libm.log((v + 2.0) / (v + 1.0)) / self._log_range).astype(np.float32)


class _Uniform:
    def __init__(self, range_max: int):
        self.range = range_max

    def draws(self, words: _Words, n: int) -> list[int]:
        r = self.range
        rem = (_U64_MAX % r) + 1
        if rem == r:  # a power of two: no rejection
            return [v & (r - 1) for v in _rand64s(words, n)]
        out: list[int] = []
        while len(out) < n:
            out.extend(v % r for v in _rand64s(words, n - len(out)) if v >= rem)
        return out

    def probability(self, values: np.ndarray) -> np.ndarray:
        return np.full(values.shape, np.float32(1.0 / self.range), np.float32)


class _Unigram:
    """``ThreadUnsafeUnigramSampler``: a ``WeightedPicker`` over counts that start at 1 and
    grow by one for each true class a run sees (``Update``)."""

    def __init__(self, range_max: int):
        self.range = range_max
        self.weights = np.ones(range_max, np.int64)
        self.total = range_max

    def draws(self, words: _Words, n: int) -> list[int]:
        cum = np.cumsum(self.weights)
        out = []
        for _ in range(n):
            if self.total == 0:
                out.append(-1)
                continue
            out.append(int(np.searchsorted(cum, _exact_uniform32(words, self.total), "right")))
        return out

    def probability(self, values: np.ndarray) -> np.ndarray:
        w = self.weights[np.clip(values, 0, self.range - 1)].astype(np.float32)
        return w / np.float32(self.total)

    def update(self, values: np.ndarray, ctx: Any) -> None:
        num = min(values.size, _KINT32MAX - self.total)
        if num <= 0:
            return
        before = (self.weights.copy(), self.total)

        def undo() -> None:
            self.weights, self.total = before
        ctx.on_failure(undo)
        np.add.at(self.weights, values[:num], 1)
        self.total += num


class _FixedUnigram:
    """``FixedUnigramSampler``: weights ``w ** distortion`` of this shard's ids (reserved ids
    weigh 0), drawn with ``random::DistributionSampler`` (Walker's alias method)."""

    def __init__(self, range_max: int, unigrams: list[float], vocab_file: str,
                 distortion: float, num_reserved_ids: int, num_shards: int, shard: int):
        if not vocab_file and not unigrams:
            raise invalid_argument("Must provide either vocab_file or unigrams.")
        if vocab_file and unigrams:
            raise invalid_argument("Must only provide one of vocab_file and unigrams.")
        self.range = range_max
        weights = [0.0 for i in range(num_reserved_ids) if i % num_shards == shard]
        raw = _read_vocab(vocab_file) if vocab_file else [float(np.float32(u)) for u in unigrams]
        word_id = len(weights)
        mine = []
        for w in raw:
            if word_id % num_shards == shard:
                mine.append(w)
            word_id += 1
        mine_arr = libm.powf(np.array(mine, np.float32), distortion)
        total = np.float32(0.0)
        for w in mine_arr:  # a float accumulator, in order, as the kernel's
            total = np.float32(total + w)
        self.weights = np.concatenate([np.array(weights, np.float32), mine_arr])
        self.total = total
        if range_max != self.weights.size:
            raise invalid_argument(
                f"range is {range_max} must be equal to weights size  {self.weights.size}")
        self._build_alias()

    def _build_alias(self) -> None:
        w = self.weights
        n = w.size
        total = 0.0
        for x in w:
            total += float(x)
        pr = (w * np.float32(n)).astype(np.float64) / total
        pr = pr.tolist()
        alt = [-1] * n
        high = [i for i in range(n) if pr[i] >= 1.0]
        low = [i for i in range(n) if pr[i] < 1.0]
        while high and low:
            lo_i = low.pop()
            hi_i = high.pop()
            alt[lo_i] = hi_i
            remaining = pr[hi_i] - (1.0 - pr[lo_i])
            pr[hi_i] = remaining
            (low if remaining < 1.0 else high).append(hi_i)
        prob = np.array(pr, np.float64).astype(np.float32)
        for i in high + low:
            prob[i] = 1.0
            alt[i] = i
        self._prob = prob.tolist()
        self._alt = alt

    def draws(self, words: _Words, n: int) -> list[int]:
        out = []
        num = len(self._prob)
        for _ in range(n):
            r = _rand_float(words)
            idx = _exact_uniform32(words, num)
            out.append(idx if r < self._prob[idx] else self._alt[idx])
        return out

    def probability(self, values: np.ndarray) -> np.ndarray:
        ok = (values >= 0) & (values < self.weights.size)
        p = np.zeros(values.shape, np.float32)
        p[ok] = self.weights[values[ok]] / self.total
        return p


def _read_vocab(path: str) -> list[float]:
    """The last comma-separated field of each line of a vocabulary file, as floats."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        from tfmini import errors

        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from e
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for line in lines:
        try:
            out.append(float(np.float32(line.split(",")[-1])))
        except ValueError:
            raise invalid_argument(f"Wrong vocabulary format at line: {line}") from None
    return out


class SamplerState:
    """An op's sampler in one Session: its Philox stream and its distribution."""

    def __init__(self, seed: int, seed2: int, sampler: Any):
        self.stream = PhiloxStream(seed, seed2)
        self.sampler = sampler
        self.lock = threading.Lock()


def _expected_counts(p: np.ndarray, num_sampled: int, num_tries: int) -> np.ndarray:
    """``ExpectedCountHelper`` (range_sampler.cc), in float32 as the kernel computes it."""
    p = np.asarray(p, np.float32)
    if num_tries == num_sampled:
        return p * np.float32(num_sampled)
    return -libm.expm1f(np.float32(num_tries) * libm.log1pf(-p))


def _sample(ctx, node, true_classes, *, num_true, num_sampled, unique, seed, seed2, make):
    tc = np.asarray(true_classes)
    if tc.ndim != 2:
        raise invalid_argument("true_classes must be a matrix")
    if tc.shape[1] != num_true:
        raise invalid_argument(
            f"true_classes must have num_true columns, expected: {tc.shape[1]} was: {num_true}")
    name = f"{node.name}@{id(node.graph):x}"
    state = ctx.resource_manager.lookup_or_create(
        _CONTAINER, name, lambda: SamplerState(int(seed), int(seed2), make()))
    sampler = state.sampler
    if unique and num_sampled > sampler.range:
        raise invalid_argument("Sampler's range is too small.")
    flat = tc.reshape(-1).astype(np.int64)
    bad = np.flatnonzero((flat < 0) | (flat >= sampler.range))
    if bad.size:
        raise invalid_argument(
            f"`true_candidate` out of range [0, {sampler.range}), received {flat[bad[0]]}")
    with state.lock:
        base = state.stream.reserve(512 * num_sampled, ctx)
        words = _Words(state.stream.key, base)
        if isinstance(sampler, _AllSampler):
            sampled = np.arange(num_sampled, dtype=np.int64)
            ones = np.float32(1.0)
            return (sampled, np.full(tc.shape, ones, np.float32),
                    np.full(num_sampled, ones, np.float32))
        if unique:
            picked: list[int] = []
            seen: set[int] = set()
            num_tries = 0
            while len(picked) < num_sampled:
                batch = sampler.draws(words, num_sampled - len(picked))
                for v in batch:
                    num_tries += 1
                    if v not in seen:
                        seen.add(v)
                        picked.append(v)
                        if len(picked) == num_sampled:
                            break
            sampled = np.array(picked, np.int64)
        else:
            sampled = np.array(sampler.draws(words, num_sampled), np.int64)
            num_tries = num_sampled
        sampled_count = _expected_counts(sampler.probability(sampled), num_sampled, num_tries)
        true_count = _expected_counts(sampler.probability(flat), num_sampled,
                                      num_tries).reshape(tc.shape)
        if isinstance(sampler, _Unigram):
            sampler.update(flat, ctx)
    return sampled, true_count, sampled_count


class _AllSampler:
    def __init__(self, num_sampled: int):
        self.range = num_sampled


def _sampler_shape(ic) -> list[TensorShape]:
    tc = shape_fns.with_rank(ic.input_shape("true_classes"), 2)
    n = ic.attrs["num_sampled"]
    return [TensorShape([n]), TensorShape([tc.dims[0], ic.attrs["num_true"]]),
            TensorShape([n])]


_OUTPUTS = ["sampled_candidates: int64", "true_expected_count: float",
            "sampled_expected_count: float"]
_BASE_ATTRS = ["num_true: int >= 1", "num_sampled: int >= 1", "unique: bool"]
_SEEDS = ["seed: int = 0", "seed2: int = 0"]


def _check_unigram_range(range_max: int) -> None:
    if range_max >= _KINT32MAX:
        raise invalid_argument(
            f"range_max must be less than {_KINT32MAX} for unigram samplers, got {range_max}")


def _simple_sampler(op_type: str, factory, unigram: bool = False) -> None:
    def kernel(ctx, true_classes, *, num_true, num_sampled, unique, range_max, seed, seed2,
               node):
        if unigram:
            _check_unigram_range(range_max)
        return _sample(ctx, node, true_classes, num_true=num_true, num_sampled=num_sampled,
                       unique=unique, seed=seed, seed2=seed2,
                       make=lambda: factory(range_max))

    kernel.__name__ = f"{op_type}_kernel"
    kernel.__doc__ = f"TensorFlow's {op_type} kernel."
    register_op(op_type, inputs=["true_classes: int64"], outputs=_OUTPUTS,
                attrs=[*_BASE_ATTRS, "range_max: int >= 1", *_SEEDS], stateful=True,
                shape_fn=_sampler_shape)(kernel)
    no_gradient(op_type)


# ------------------------------------------------------------------------------------------
# UniformCandidateSampler, LogUniformCandidateSampler, LearnedUnigramCandidateSampler,
# ThreadUnsafeUnigramCandidateSampler

_simple_sampler("UniformCandidateSampler", _Uniform)
_simple_sampler("LogUniformCandidateSampler", _LogUniform)
_simple_sampler("LearnedUnigramCandidateSampler", _Unigram, unigram=True)
_simple_sampler("ThreadUnsafeUnigramCandidateSampler", _Unigram, unigram=True)


# ------------------------------------------------------------------------------------------
# FixedUnigramCandidateSampler


@register_op(
    "FixedUnigramCandidateSampler",
    inputs=["true_classes: int64"],
    outputs=_OUTPUTS,
    attrs=[*_BASE_ATTRS, "range_max: int >= 1", "vocab_file: string = ''",
           "distortion: float = 1.0", "num_reserved_ids: int = 0",
           "num_shards: int >= 1 = 1", "shard: int >= 0 = 0", "unigrams: list(float) = []",
           *_SEEDS],
    stateful=True,
    shape_fn=_sampler_shape,
)
def fixed_unigram_candidate_sampler_kernel(ctx, true_classes, *, num_true, num_sampled, unique,
                                           range_max, vocab_file, distortion,
                                           num_reserved_ids, num_shards, shard, unigrams,
                                           seed, seed2, node):
    """Samples from fixed unigram weights (a list or the last column of a vocabulary file)."""
    vocab = vocab_file.decode() if isinstance(vocab_file, bytes) else str(vocab_file)
    return _sample(ctx, node, true_classes, num_true=num_true, num_sampled=num_sampled,
                   unique=unique, seed=seed, seed2=seed2,
                   make=lambda: _FixedUnigram(range_max, list(unigrams), vocab, distortion,
                                              num_reserved_ids, num_shards, shard))


no_gradient("FixedUnigramCandidateSampler")


# ------------------------------------------------------------------------------------------
# AllCandidateSampler


@register_op(
    "AllCandidateSampler",
    inputs=["true_classes: int64"],
    outputs=_OUTPUTS,
    attrs=[*_BASE_ATTRS, *_SEEDS],
    stateful=True,
    shape_fn=_sampler_shape,
)
def all_candidate_sampler_kernel(ctx, true_classes, *, num_true, num_sampled, unique, seed,
                                 seed2, node):
    """All the ids ``0 .. num_sampled-1``, each with expected count 1."""
    return _sample(ctx, node, true_classes, num_true=num_true, num_sampled=num_sampled,
                   unique=unique, seed=seed, seed2=seed2,
                   make=lambda: _AllSampler(num_sampled))


no_gradient("AllCandidateSampler")


# ------------------------------------------------------------------------------------------
# ComputeAccidentalHits


def _accidental_hits_shape(ic) -> list[TensorShape]:
    tc = shape_fns.with_rank(ic.input_shape("true_classes"), 2)
    if tc.dims[1] is not None and tc.dims[1] != ic.attrs["num_true"]:
        raise ValueError(
            f"Dimension 1 in both shapes must be equal, but are {tc.dims[1]} and "
            f"{ic.attrs['num_true']}")
    shape_fns.with_rank(ic.input_shape("sampled_candidates"), 1)
    return [TensorShape([None])] * 3


@register_op(
    "ComputeAccidentalHits",
    inputs=["true_classes: int64", "sampled_candidates: int64"],
    outputs=["indices: int32", "ids: int64", "weights: float"],
    attrs=["num_true: int", *_SEEDS],
    shape_fn=_accidental_hits_shape,
)
def compute_accidental_hits_kernel(true_classes, sampled_candidates, *, num_true):
    """(row, position in ``sampled_candidates``, -FLT_MAX) for each true class that was also
    sampled, row by row; a value sampled twice reports its last position."""
    tc = np.asarray(true_classes)
    if tc.ndim != 2 or tc.shape[1] != num_true:
        raise invalid_argument("true_candidates must be a batch_size * num_true matrix")
    sc = np.asarray(sampled_candidates)
    if sc.ndim != 1:
        raise invalid_argument(
            "sampled_candidates must be a vector, which is typically an output from "
            "CandidateSampler")
    pos = {int(v): i for i, v in enumerate(sc.tolist())}
    rows, ids = [], []
    for i, row in enumerate(tc.tolist()):
        for v in row:
            j = pos.get(int(v))
            if j is not None:
                rows.append(i)
                ids.append(j)
    n = len(rows)
    return (np.array(rows, np.int32), np.array(ids, np.int64),
            np.full(n, -np.finfo(np.float32).max, np.float32))


no_gradient("ComputeAccidentalHits")


# ------------------------------------------------------------------------------------------
# The Python functions (tensorflow/python/ops/candidate_sampling_ops.py)


def _build(op_type: str, true_classes: Any, attrs: dict, name: str | None):
    true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
    op = build_op(current_scope(), op_type, [true_classes], attrs, name=name)
    return tuple(op.outputs)


def _seeds(seed: int | None) -> dict:
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                              unique: bool, range_max: int, seed: int | None = None,
                              name: str | None = None):
    """Samples classes uniformly from ``[0, range_max)``
    (``tf.random.uniform_candidate_sampler``).

    Args:
        true_classes: int64 ``[batch_size, num_true]``, the target classes.
        num_true: Number of target classes per example.
        num_sampled: Number of classes to sample.
        unique: Whether the sampled classes are all distinct (rejection sampling).
        range_max: The number of possible classes.
        seed: Op-level seed (combined with the graph seed as ``get_seed`` does).
        name: Op name.

    Returns:
        ``(sampled_candidates, true_expected_count, sampled_expected_count)``.
    """
    return _build("UniformCandidateSampler", true_classes,
                  {"num_true": num_true, "num_sampled": num_sampled, "unique": unique,
                   "range_max": range_max, **_seeds(seed)}, name)


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                  unique: bool, range_max: int, seed: int | None = None,
                                  name: str | None = None):
    """Samples classes from the log-uniform (Zipfian) distribution
    ``P(c) = log((c+2)/(c+1)) / log(range_max+1)``
    (``tf.random.log_uniform_candidate_sampler``). Arguments as
    :func:`uniform_candidate_sampler`."""
    return _build("LogUniformCandidateSampler", true_classes,
                  {"num_true": num_true, "num_sampled": num_sampled, "unique": unique,
                   "range_max": range_max, **_seeds(seed)}, name)


def learned_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                      unique: bool, range_max: int, seed: int | None = None,
                                      name: str | None = None):
    """Samples classes in proportion to how often they were seen as true classes (each count
    starts at 1; every run adds its true classes after sampling)
    (``tf.random.learned_unigram_candidate_sampler``). Arguments as
    :func:`uniform_candidate_sampler`."""
    return _build("LearnedUnigramCandidateSampler", true_classes,
                  {"num_true": num_true, "num_sampled": num_sampled, "unique": unique,
                   "range_max": range_max, **_seeds(seed)}, name)


def fixed_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                    unique: bool, range_max: int, vocab_file: str = "",
                                    distortion: float = 1.0, num_reserved_ids: int = 0,
                                    num_shards: int = 1, shard: int = 0,
                                    unigrams: Any = (), seed: int | None = None,
                                    name: str | None = None):
    """Samples classes in proportion to fixed weights raised to ``distortion``
    (``tf.random.fixed_unigram_candidate_sampler``).

    Args:
        vocab_file: A file whose lines end in a weight (CSV); or give ``unigrams``.
        distortion: Power applied to each weight.
        num_reserved_ids: Ids ``0 .. num_reserved_ids-1`` get weight 0.
        num_shards, shard: Keep only ids ``i`` with ``i % num_shards == shard``.
        unigrams: The weights, one per id after the reserved ones.
        Other arguments as :func:`uniform_candidate_sampler`.
    """
    return _build("FixedUnigramCandidateSampler", true_classes,
                  {"num_true": num_true, "num_sampled": num_sampled, "unique": unique,
                   "range_max": range_max, "vocab_file": vocab_file,
                   "distortion": float(distortion), "num_reserved_ids": num_reserved_ids,
                   "num_shards": num_shards, "shard": shard,
                   "unigrams": [float(u) for u in unigrams], **_seeds(seed)}, name)


def all_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                          seed: int | None = None, name: str | None = None):
    """All classes ``0 .. num_sampled-1``, each expected once (``tf.random.all_candidate_
    sampler``; for testing)."""
    return _build("AllCandidateSampler", true_classes,
                  {"num_true": num_true, "num_sampled": num_sampled, "unique": unique,
                   **_seeds(seed)}, name)


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int,
                            seed: int | None = None, name: str | None = None):
    """The sampled candidates that are also true classes (``tf.nn.compute_accidental_hits``).

    Returns:
        ``(indices, ids, weights)``: the example row (int32), the position in
        ``sampled_candidates`` (int64) and ``-FLT_MAX`` for each hit.
    """
    true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
    sampled = convert_to_tensor(sampled_candidates, dtype=dtypes.int64,
                                name="sampled_candidates")
    op = build_op(current_scope(), "ComputeAccidentalHits", [true_classes, sampled],
                  {"num_true": num_true, **_seeds(seed)}, name=name)
    return tuple(op.outputs)
