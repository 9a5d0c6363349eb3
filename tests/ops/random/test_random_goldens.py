"""tfmini's random streams against TensorFlow 2.21's (tests/goldens/random.npz, recorded by
tools/record_goldens_random.py): bit for bit for the ops that claim it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tfmini as tm
from tests.ops.random import programs as P

GOLDENS = np.load(Path(__file__).resolve().parents[2] / "goldens" / "random.npz")


def _keys(prefix: str) -> list[str]:
    return sorted(k for k in GOLDENS.files if k.startswith(prefix))


def _parse_shape(text: str) -> list[int]:
    return [] if text == "scalar" else [int(d) for d in text.split("x")]


def _runs(build, n=P.RUNS):
    g = tm.Graph()
    with g.as_default():
        t = build()
    with tm.Session(graph=g) as sess:
        return np.stack([sess.run(t) for _ in range(n)])


def assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("key", _keys("raw/"))
def test_stateful_float_ops_bit_exact(key):
    _, op, dt, shape, seeds = key.split("/")
    seed, seed2 = (int(s) for s in seeds.split("_"))
    got = _runs(lambda: getattr(tm.raw_ops, op)(
        shape=_parse_shape(shape), dtype=dt, seed=seed, seed2=seed2))
    assert_bits(got, GOLDENS[key])


@pytest.mark.parametrize("key", _keys("int/"))
def test_random_uniform_int_bit_exact(key):
    _, dt, bounds, shape, seeds = key.split("/")
    lo, hi = (int(b) for b in bounds.rsplit("_", 1)) if bounds.count("_") == 1 else (
        _split_bounds(bounds))
    seed, seed2 = (int(s) for s in seeds.split("_"))
    got = _runs(lambda: tm.raw_ops.RandomUniformInt(
        shape=_parse_shape(shape), minval=np.array(lo, dt), maxval=np.array(hi, dt), seed=seed,
        seed2=seed2))
    assert_bits(got, GOLDENS[key])


def _split_bounds(text: str) -> tuple[int, int]:
    # "-7_1000", "-2147483648_2147483647": the separator is the "_" not at the start.
    i = text.index("_", 1)
    return int(text[:i]), int(text[i + 1:])


@pytest.mark.parametrize("key", _keys("stateless/"))
def test_stateless_ops_bit_exact(key):
    _, op, dt, shape, seeds = key.split("/")
    s0, s1 = _split_bounds(seeds)
    got = _runs(lambda: getattr(tm.raw_ops, op)(
        shape=_parse_shape(shape), seed=np.array([s0, s1], np.int64), dtype=dt), 1)[0]
    assert_bits(got, GOLDENS[key])


@pytest.mark.parametrize("key", _keys("stateless_int/"))
def test_stateless_uniform_int_bit_exact(key):
    _, dt, bounds, shape, seeds = key.split("/")
    lo, hi = _split_bounds(bounds)
    s0, s1 = _split_bounds(seeds)
    got = _runs(lambda: tm.raw_ops.StatelessRandomUniformInt(
        shape=_parse_shape(shape), seed=np.array([s0, s1], np.int64), minval=np.array(lo, dt),
        maxval=np.array(hi, dt)), 1)[0]
    assert_bits(got, GOLDENS[key])


@pytest.mark.parametrize("name", sorted(set(P.PROGRAMS) - {"mlp", "gamma_grad"}))
def test_graph_programs_equal_tensorflow(name):
    got = P.PROGRAMS[name](tm)
    want = {k.split("/", 2)[2]: GOLDENS[k] for k in _keys(f"program/{name}/")}
    assert sorted(got) == sorted(want)
    for k in want:
        assert_bits(np.asarray(got[k]), want[k])


def test_mlp_losses_equal_tensorflow():
    got = P.mlp(tm)["losses"]
    np.testing.assert_allclose(got, GOLDENS["program/mlp/losses"], rtol=1e-5)


@pytest.mark.parametrize("name", sorted(P.SAMPLER_CASES))
def test_samplers_bit_exact(name):
    op, kwargs = P.SAMPLER_CASES[name]
    if op.startswith("StatelessRandomGetKeyCounter"):
        with tm.Graph().as_default():
            t = getattr(tm.raw_ops, op)(**kwargs)
            with tm.Session() as sess:
                got = sess.run(list(t))
        for j, val in enumerate(got):
            assert_bits(val, GOLDENS[f"sampler/{name}/out{j}"])
        return
    stateless = name.startswith("Stateless")
    got = _runs(lambda: getattr(tm.raw_ops, op)(**kwargs), 1 if stateless else P.RUNS)
    assert_bits(got[0] if stateless else got, GOLDENS[f"sampler/{name}"])


def test_every_sampler_case_is_recorded():
    recorded = {k.split("/")[1] for k in _keys("sampler/")}
    assert recorded == set(P.SAMPLER_CASES)


def test_random_gamma_and_its_gradient_equal_tensorflow():
    got = P.gamma_grad(tm)
    want = {k.split("/", 2)[2]: GOLDENS[k] for k in _keys("program/gamma_grad/")}
    assert sorted(got) == sorted(want)
    for dt in ("float32", "float64"):
        assert_bits(got[f"sample/{dt}"], want[f"sample/{dt}"])  # the samples: bit for bit
    # The derivative is a series evaluated in double here; TensorFlow's float kernel sums it
    # in float, so float agrees to a few ulps of its own error, double to about 1e-10.
    for key, rtol in (("dalpha/float64", 1e-9), ("grid/float64", 1e-9), ("dalpha/float32", 5e-5),
                      ("grid/float32", 5e-5)):
        assert got[key].dtype == want[key].dtype
        np.testing.assert_allclose(got[key], want[key], rtol=rtol, atol=0, err_msg=key)
    np.testing.assert_allclose(got["edges"], want["edges"], rtol=1e-9, atol=0)
    assert np.signbit(got["edges"][2]) and np.signbit(want["edges"][2])  # -0 at infinity
