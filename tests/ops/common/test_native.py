"""The compiled Adam loop gives the NumPy passes' bits; without it the kernel still runs."""

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.common import native
from tfmini.ops.variables import training_ops

needs_native = pytest.mark.skipif(not native.available(), reason="no C compiler here")


def _inputs(dtype, n=4099, seed=0):
    rng = np.random.default_rng(seed)
    x, m, v, g = [(rng.standard_normal(n) * 10.0 ** rng.integers(-30, 5, n)).astype(dtype)
                  for _ in range(4)]
    v = np.abs(v)
    v[:6] = [0, np.inf, np.nan, -1, 1e-30, 1e30]
    g[6:12] = [np.inf, -np.inf, np.nan, 0, -0.0, 1e-30]
    m[12:14] = [np.nan, -np.inf]
    return x, m, v, g


def _run(dtype, nesterov, use_native, monkeypatch):
    x, m, v, g = _inputs(dtype)
    one = np.ones((), dtype)
    b1, b2, eps = dtype(0.9), dtype(0.999), dtype(1e-8)
    alpha = dtype(1e-3) * np.sqrt(one - dtype(0.99)) / (one - dtype(0.8))
    outs = [np.empty_like(x) for _ in range(3)]
    with monkeypatch.context() as mp:
        if not use_native:
            mp.setattr(native, "adam", lambda *a: False)
        with np.errstate(all="ignore"):
            training_ops._adam_slice(x, m, v, g, *outs, None, one - b1, one - b2, alpha, b1,
                                     eps, nesterov)
    return outs


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_loop_bit_equal_to_numpy_passes(dtype, nesterov, monkeypatch):
    fast = _run(dtype, nesterov, True, monkeypatch)
    slow = _run(dtype, nesterov, False, monkeypatch)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a.view(bits), b.view(bits))
    assert np.isnan(fast[2][:3]).any()  # the special values did reach the output


def test_adam_loop_declines_what_it_cannot_do():
    x = np.ones(8, np.float16)
    assert not native.adam(x, x, x, x, x.copy(), x.copy(), x.copy(), 0.1, 0.1, 0.1, 0.9, 1e-8,
                           False)
    y = np.ones((4, 4), np.float32)[:, ::2]  # not contiguous
    outs = [np.empty((4, 2), np.float32) for _ in range(3)]
    assert not native.adam(y, y, y, y, *outs, 0.1, 0.1, 0.1, 0.9, 1e-8, False)


@needs_native
def test_adam_loop_with_aliased_outputs_is_elementwise():
    x, m, v, g = _inputs(np.float32, seed=1)
    f = np.float32
    args = (f(0.1), f(0.001), f(1e-3), f(0.9), f(1e-8), False)
    nm, nv, out = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    with np.errstate(all="ignore"):
        assert native.adam(x, m, v, g, nm, nv, out, *args)
        xi, mi, vi = x.copy(), m.copy(), v.copy()
        assert native.adam(xi, mi, vi, g, mi, vi, xi, *args)  # in place: the plain loop
    for a, b in ((nm, mi), (nv, vi), (out, xi)):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_in_place_loop_bit_equal_to_the_buffered_one(dtype, nesterov):
    x, m, v, g = _inputs(dtype, seed=2)
    one = np.ones((), dtype)
    args = (one - dtype(0.9), one - dtype(0.999), dtype(1e-3), dtype(0.9), dtype(1e-8),
            nesterov)
    outs = [np.empty_like(x) for _ in range(3)]
    with np.errstate(all="ignore"):
        assert native.adam(x, m, v, g, *outs, *args)
        assert native.adam_inplace_ok(x, m, v, g)
        native.adam_inplace(x, m, v, g, *args)  # x, m, v written over
    bits = np.uint32 if dtype == np.float32 else np.uint64
    for new, old in zip(outs, (m, v, x)):
        np.testing.assert_array_equal(old.view(bits), new.view(bits))


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_descent_in_place_bit_equal_to_numpy(dtype):
    x, _, _, d = _inputs(dtype, seed=3)
    alpha = dtype(0.37)
    with np.errstate(all="ignore"):
        want = np.subtract(x, np.multiply(d, alpha))
        assert native.gd_inplace_ok(x, d)
        native.gd_inplace(x, d, alpha)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    np.testing.assert_array_equal(x.view(bits), want.view(bits))
    assert not native.gd_inplace_ok(x, x[::-1])  # overlapping
    assert not native.gd_inplace_ok(x.astype(np.float16), d.astype(np.float16))


def test_adam_in_place_declines_what_it_cannot_do():
    x, m, v, g = (np.ones(8, np.float32) for _ in range(4))
    assert not native.adam_inplace_ok(x, m, v, x[::-1])  # the gradient overlaps x
    assert not native.adam_inplace_ok(x.astype(np.float16), m, v, g)
    x.flags.writeable = False
    assert not native.adam_inplace_ok(x, m, v, g)


def test_adam_training_same_with_and_without_loop(monkeypatch):
    def train(use_native):
        with monkeypatch.context() as mp:
            if not use_native:
                mp.setattr(native, "adam", lambda *a: False)
                mp.setattr(native, "adam_inplace_ok", lambda *a: False)
            g = tm.Graph()
            with g.as_default():
                w = tm.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
                loss = tm.reduce_sum(tm.square(tm.matmul(tm.ones([2, 3]), w) - 0.5))
                train_op = tm.train.AdamOptimizer(0.01).minimize(loss)
                with tm.Session() as sess:
                    sess.run(tm.global_variables_initializer())
                    for _ in range(5):
                        sess.run(train_op)
                    return sess.run(w)

    np.testing.assert_array_equal(train(True), train(False))


def test_no_working_compiler_means_no_library(monkeypatch, tmp_path):
    monkeypatch.setenv("TFMINI_NATIVE_DIR", str(tmp_path))
    monkeypatch.setenv("CC", "/bin/false")
    assert native._load() is None
    assert not any(tmp_path.iterdir())  # no half-written library left behind


@needs_native
def test_compiles_into_the_cache_dir_and_reuses_it(monkeypatch, tmp_path):
    monkeypatch.setenv("TFMINI_NATIVE_DIR", str(tmp_path))
    lib = native._load()
    assert lib is not None and hasattr(lib, "tfmini_adam_f32")
    built = sorted(tmp_path.iterdir())
    assert len(built) == 1 and built[0].suffix == ".so"
    mtime = built[0].stat().st_mtime_ns
    assert native._load() is not None
    assert built[0].stat().st_mtime_ns == mtime  # loaded, not compiled again


def test_a_cache_others_may_write_is_not_used(monkeypatch, tmp_path):
    # Whoever can write the cache could put code in this process: such a cache is refused
    # before anything is compiled or loaded.
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv("TFMINI_NATIVE_DIR", str(cache))
    assert native._load() is None
    assert not any(cache.iterdir())
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("TFMINI_NATIVE_DIR", str(fresh))
    assert native._private_dir(str(fresh))  # made private (0700) when missing
    assert fresh.stat().st_mode & 0o777 == 0o700


@needs_native
def test_each_source_gets_its_own_library_once(monkeypatch, tmp_path):
    # Families keep their own C sources; each is compiled once and kept for the process.
    monkeypatch.setenv("TFMINI_NATIVE_DIR", str(tmp_path))
    source = "int tfmini_test_twice(int a) { return 2 * a; }\n"
    lib = native.library(source)
    assert lib is not None and lib.tfmini_test_twice(21) == 42
    assert native.library(source) is lib
    assert len(list(tmp_path.iterdir())) == 1


def test_native_off_switch_gives_no_library(monkeypatch):
    monkeypatch.setenv("TFMINI_NATIVE", "0")
    assert native.library("int tfmini_test_off(void) { return 1; }\n") is None
