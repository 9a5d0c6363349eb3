"""Many private Philox streams read side by side: TensorFlow's per-sample generators for the
samplers with a variable cost per sample (gamma, Poisson, parameterized truncated normal).

Those kernels give output ``i`` its own copy of the op's generator, skipped to block
``base + 256 * i`` (``gen.Skip(kReservedSamplesPerOutput * output_idx)`` in
``tensorflow/core/kernels/random_op.cc`` and ``random_poisson_op.cc``), and read double
uniforms and normals from it through a two-element buffer that hands out the *last* element
first (the ``UNIFORM`` macro, ``SampleBuffer``). :class:`Lanes` keeps one such stream per
sample, and every draw is one vectorised step over the lanes that ask for a number.
"""

from __future__ import annotations

import numpy as np

from tfmini.ops.random import philox

__all__: list[str] = []


class _Buffer:
    """A ``ResultType`` of two doubles per lane and how many are left."""

    def __init__(self, n: int):
        self.values = np.zeros((n, 2), np.float64)
        self.left = np.zeros(n, np.int64)


class Lanes:
    """``n`` Philox streams; lane ``j`` starts at block ``base + first[j]``.

    Args:
        key: The Philox key.
        base: The 128-bit counter the offsets count from.
        first: uint64 block offset of each lane's first block.
    """

    def __init__(self, key, base: int, first: np.ndarray):
        self.key = key
        self.base = base
        self.next = np.asarray(first, np.uint64).copy()
        self._uniform = _Buffer(self.next.size)
        self._normal = _Buffer(self.next.size)

    def blocks(self, idx: np.ndarray) -> np.ndarray:
        """The next block of each lane in ``idx`` (``(len(idx), 4)`` uint32)."""
        w = philox.blocks_at(self.key, self.base, self.next[idx])
        self.next[idx] += np.uint64(1)
        return w

    def _take(self, buf: _Buffer, idx: np.ndarray, fill) -> np.ndarray:
        empty = idx[buf.left[idx] == 0]
        if empty.size:
            buf.values[empty] = fill(self.blocks(empty))
            buf.left[empty] = 2
        buf.left[idx] -= 1
        return buf.values[idx, buf.left[idx]]

    def uniform(self, idx: np.ndarray) -> np.ndarray:
        """The next double uniform of each lane in ``idx`` (UniformDistribution<double>:
        ``(U(w0, w1), U(w2, w3))`` per block, handed out last first)."""
        def fill(w):
            return np.stack([philox.uniform_float64(w[:, 0], w[:, 1]),
                             philox.uniform_float64(w[:, 2], w[:, 3])], axis=1)
        return self._take(self._uniform, idx, fill)

    def normal(self, idx: np.ndarray) -> np.ndarray:
        """The next double normal of each lane in ``idx`` (NormalDistribution<double>: one
        Box-Muller pair per block, handed out last first)."""
        def fill(w):
            return np.stack(philox.box_muller_float64(w[:, 0], w[:, 1], w[:, 2], w[:, 3]),
                            axis=1)
        return self._take(self._normal, idx, fill)
