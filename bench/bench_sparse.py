"""Complex math, SparseTensor ops and string ops in a Session against the same work done
directly in NumPy (or plain Python, for strings) in this process.

* complex64 MatMul 256x256 with its gradients (TensorFlow's conjugate convention) against
  NumPy's ``a @ b``, ``g @ b.conj().T`` and ``a.conj().T @ g``.
* tm.sparse.sparse_dense_matmul of a 2000x2000 SparseTensor (40 000 entries) by a dense
  2000x64 matrix against the same ``np.add.at`` scatter.
* tm.sparse.add of two row-major SparseTensors (40 000 entries each, 2000x2000) against the
  same merge in NumPy (stable argsort of linear keys, summing the pairs).
* tm.string_split of 10 000 sentences then StringToHashBucketFast of the tokens against
  Python's ``bytes.split`` and the same FarmHash function.

Prints medians (milliseconds) and the ratios. On a shared machine run it with one BLAS thread
(``OPENBLAS_NUM_THREADS=1``) for stable numbers.

    .venv/bin/python bench/bench_sparse.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import tfmini as tm
from tfmini.ops.io.farmhash import fingerprint64


def _median(fn, repeat: int = 11) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _report(what: str, t_tm: float, t_np: float) -> None:
    print(f"{what}: tfmini {t_tm * 1e3:.2f} ms, direct {t_np * 1e3:.2f} ms, "
          f"ratio {t_tm / t_np:.2f}")


def bench_complex_matmul() -> None:
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(256, 256)) + 1j * rng.normal(size=(256, 256))).astype(np.complex64)
    b = (rng.normal(size=(256, 256)) + 1j * rng.normal(size=(256, 256))).astype(np.complex64)
    g = np.ones((256, 256), np.complex64)
    with tm.Graph().as_default():
        ta, tb = tm.constant(a), tm.constant(b)
        y = tm.matmul(ta, tb)
        grads = tm.gradients(y, [ta, tb], grad_ys=tm.constant(g))
        with tm.Session() as sess:
            t_tm = _median(lambda: sess.run([y, *grads]))

    def direct():
        return a @ b, g @ b.conj().T, a.conj().T @ g

    _report("complex64 matmul 256x256 + gradients", t_tm, _median(direct))


def _random_sparse(rng, n, nnz):
    flat = np.sort(rng.choice(n * n, size=nnz, replace=False))
    idx = np.stack(np.unravel_index(flat, (n, n)), axis=1).astype(np.int64)
    return idx, rng.normal(size=nnz).astype(np.float32)


def bench_sparse_dense_matmul() -> None:
    rng = np.random.default_rng(1)
    n, nnz = 2000, 40_000
    idx, vals = _random_sparse(rng, n, nnz)
    dense = rng.normal(size=(n, 64)).astype(np.float32)
    with tm.Graph().as_default():
        sp = tm.SparseTensor(idx, vals, [n, n])
        out = tm.sparse.sparse_dense_matmul(sp, tm.constant(dense))
        with tm.Session() as sess:
            t_tm = _median(lambda: sess.run(out))

    def direct():
        res = np.zeros((n, 64), np.float32)
        np.add.at(res, idx[:, 0], vals[:, None] * dense[idx[:, 1]])
        return res

    _report(f"sparse_dense_matmul {n}x{n} ({nnz} entries) by {n}x64", t_tm, _median(direct))


def bench_sparse_add() -> None:
    rng = np.random.default_rng(2)
    n, nnz = 2000, 40_000
    ia, va = _random_sparse(rng, n, nnz)
    ib, vb = _random_sparse(rng, n, nnz)
    with tm.Graph().as_default():
        s = tm.sparse.add(tm.SparseTensor(ia, va, [n, n]), tm.SparseTensor(ib, vb, [n, n]))
        with tm.Session() as sess:
            t_tm = _median(lambda: sess.run(s))

    def direct():
        idx = np.concatenate([ia, ib])
        vals = np.concatenate([va, vb])
        keys = idx[:, 0] * n + idx[:, 1]
        order = np.argsort(keys, kind="stable")
        idx, vals, keys = idx[order], vals[order].copy(), keys[order]
        dup = np.flatnonzero(keys[1:] == keys[:-1])
        vals[dup] += vals[dup + 1]
        keep = np.ones(len(keys), bool)
        keep[dup + 1] = False
        return idx[keep], vals[keep]

    _report(f"sparse.add two {n}x{n} with {nnz} entries each", t_tm, _median(direct))


def bench_split_and_hash() -> None:
    rng = np.random.default_rng(3)
    words = [f"w{i}".encode() for i in range(500)]
    lines = np.empty(10_000, dtype=object)
    lines[:] = [b" ".join(words[j] for j in rng.integers(0, 500, size=8)) for _ in range(10_000)]
    with tm.Graph().as_default():
        x = tm.placeholder(tm.string, [None])
        sp = tm.string_split(x)
        buckets = tm.string_to_hash_bucket_fast(sp.values, 1000)
        with tm.Session() as sess:
            t_tm = _median(lambda: sess.run([sp, buckets], {x: lines}), repeat=5)

    def direct():
        toks = [line.split(b" ") for line in lines]
        flat = [t for ts in toks for t in ts]
        return [fingerprint64(t) % 1000 for t in flat]

    _report("string_split 10 000 lines + hash buckets of 80 000 tokens", t_tm,
            _median(direct, repeat=5))


if __name__ == "__main__":
    bench_complex_matmul()
    bench_sparse_dense_matmul()
    bench_sparse_add()
    bench_split_and_hash()
