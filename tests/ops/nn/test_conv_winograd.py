"""tfmini/ops/nn/conv_winograd.py: the F(2x2, 3x3) and F(2x2, 5x5) kernels agree with a
float64 direct convolution to float32 rounding on every geometry they take (paddings,
odd sizes, channel counts off the vector width, batch parts on two threads), the
transforms' identity holds exactly, and the kernels are taken exactly where they apply
(never for non-finite operands, where a tile transform would turn inf into NaN)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.nn import batch_split
from tfmini.ops.nn import conv_kernels as ck
from tfmini.ops.nn import conv_winograd as cw

needs_native = pytest.mark.skipif(not cw.available(),
                                  reason="compiled loops off (TFMINI_NATIVE=0) or no compiler")

ONE = (1, 1)

CASES = [  # r, batch, (h, w), C, O, pads
    (5, 3, (14, 14), 32, 64, "SAME"),
    (5, 2, (7, 9), 16, 24, "SAME"),  # odd outputs: the last tiles half outside
    (5, 2, (11, 6), 20, 17, "VALID"),  # channels off the 8-lane vectors
    (5, 1, (5, 5), 9, 16, ((1, 3), (0, 2))),  # explicit, asymmetric
    (3, 3, (14, 14), 32, 64, "SAME"),
    (3, 2, (9, 4), 8, 11, "SAME"),
    (3, 2, (6, 13), 24, 8, "VALID"),
    (3, 1, (3, 3), 8, 8, ((0, 2), (2, 0))),
]


def _case(case, seed=0):
    r, n, (h, wd), c, o, pads = case
    if pads == "SAME":
        pads = ((r // 2, r // 2), (r // 2, r // 2))
    elif pads == "VALID":
        pads = ((0, 0), (0, 0))
    outs = (h + sum(pads[0]) - r + 1, wd + sum(pads[1]) - r + 1)
    rng = np.random.default_rng(seed + r + h + c)
    x = rng.standard_normal((n, h, wd, c)).astype(np.float32)
    w = (rng.standard_normal((r, r, c, o)) * 0.2).astype(np.float32)
    dy = rng.standard_normal((n, *outs, o)).astype(np.float32)
    return x, w, dy, pads, outs


def _direct64(fn, *arrays_and_rest):
    """A conv_kernels entry point on float64 operands (which never take Winograd)."""
    return fn(*[a.astype(np.float64) if isinstance(a, np.ndarray) else a
                for a in arrays_and_rest])


def _close(got, want, factor=1e-5):
    # Winograd's float32 error, measured: up to 1.5e-6 of the result's largest magnitude
    # for the forward and 4.8e-6 for the filter gradient (im2col + sgemm: up to 5e-7);
    # elementwise relative error is no measure for sums that cancel.
    assert got.dtype == np.float32 and got.shape == want.shape
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(got, want, rtol=0, atol=factor * scale)


@pytest.mark.parametrize("r", cw.KERNEL_SIZES)
def test_the_transforms_compute_a_1d_correlation_exactly(r):
    at, g, bt = cw.transforms(r)
    a = r + 1
    rng = np.random.default_rng(r)
    for _ in range(5):
        gg = [Fraction(int(v)) for v in rng.integers(-9, 9, r)]
        d = [Fraction(int(v)) for v in rng.integers(-9, 9, a)]
        u = [sum(g[j][k] * gg[k] for k in range(r)) for j in range(a)]
        v = [sum(bt[j][k] * d[k] for k in range(a)) for j in range(a)]
        y = [sum(at[i][j] * u[j] * v[j] for j in range(a)) for i in range(cw.OUT_TILE)]
        assert y == [sum(gg[k] * d[i + k] for k in range(r)) for i in range(cw.OUT_TILE)]


@needs_native
@pytest.mark.parametrize("case", CASES)
def test_forward_and_filter_gradient_match_a_float64_direct_convolution(case):
    x, w, dy, pads, outs = _case(case)
    _close(cw.forward(x, w, pads, outs),
           _direct64(ck.conv_forward, x, w, ONE, ONE, pads, outs))
    _close(cw.backprop_filter(x, w.shape, dy, pads, outs),
           _direct64(ck.conv_backprop_filter, x, w.shape, dy, ONE, ONE, pads, outs))


@needs_native
@pytest.mark.parametrize("case", CASES)
def test_the_kernels_take_winograd_and_agree_with_im2col(case, monkeypatch):
    """Through conv_kernels (the ops' kernels): the three convolutions take Winograd when
    it applies, and give what the im2col path gives, to float32 rounding."""
    x, w, dy, pads, outs = _case(case, seed=1)
    monkeypatch.setattr(cw, "MIN_MACS", 0)
    taken = []
    for name in ("forward", "backprop_filter"):
        real = getattr(cw, name)
        monkeypatch.setattr(cw, name, lambda *a, _real=real, _name=name: (
            taken.append(_name), _real(*a))[1])
    calls = [lambda: ck.conv_forward(x, w, ONE, ONE, pads, outs),
             lambda: ck.conv_backprop_filter(x, w.shape, dy, ONE, ONE, pads, outs),
             lambda: ck.conv_backprop_input(x.shape, w, dy, ONE, ONE, pads, outs)]
    fast = [f() for f in calls]
    assert taken == ["forward", "backprop_filter", "forward"]
    monkeypatch.setattr(cw, "_ENABLED", False)
    for got, want in zip(fast, [f() for f in calls]):
        _close(got, want)
    assert len(taken) == 3


@needs_native
def test_batch_parts_on_two_threads_give_the_whole_batch(widths, monkeypatch):
    x, w, dy, pads, outs = _case(CASES[0], seed=2)
    whole = cw.forward(x, w, pads, outs), cw.backprop_filter(x, w.shape, dy, pads, outs)
    widths(2, 1)
    monkeypatch.setattr(batch_split, "MIN_PART_MACS", 1)
    monkeypatch.setattr(cw, "CHUNK_BYTES", 1)  # one image a chunk: several chunks a part
    assert len(batch_split.parts(3, 10 ** 9)) == 2
    split = cw.forward(x, w, pads, outs), cw.backprop_filter(x, w.shape, dy, pads, outs)
    # Per image the same products, but not always bit for bit: which sgemm kernel and
    # blocking BLAS picks depends on the number of tiles (OpenBLAS's Haswell kernels on a
    # Zen 5 gave a few ulps apart for 1 against 3 images a product).
    _close(split[0], whole[0])
    _close(split[1], whole[1])  # the sums over images in another order


@needs_native
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf * a padding zero
@pytest.mark.parametrize("operand", ["x", "w", "dy"])
def test_non_finite_operands_take_the_direct_sums(operand, monkeypatch):
    """An inf in a tile would reach outputs the direct sum does not give it to, as inf -
    inf = NaN: such operands take the im2col path, so the results are TF's."""
    x, w, dy, pads, outs = _case(CASES[0], seed=3)
    monkeypatch.setattr(cw, "MIN_MACS", 0)
    {"x": x, "w": w, "dy": dy}[operand].flat[7] = np.inf
    got = [ck.conv_forward(x, w, ONE, ONE, pads, outs),
           ck.conv_backprop_filter(x, w.shape, dy, ONE, ONE, pads, outs),
           ck.conv_backprop_input(x.shape, w, dy, ONE, ONE, pads, outs)]
    monkeypatch.setattr(cw, "_ENABLED", False)
    want = [ck.conv_forward(x, w, ONE, ONE, pads, outs),
            ck.conv_backprop_filter(x, w.shape, dy, ONE, ONE, pads, outs),
            ck.conv_backprop_input(x.shape, w, dy, ONE, ONE, pads, outs)]
    uses = [("x", "w"), ("x", "dy"), ("w", "dy")]  # forward, filter, input gradient
    for g, e, operands in zip(got, want, uses):
        if operand in operands:
            np.testing.assert_array_equal(g, e)
            assert np.isinf(g).any()
        else:
            _close(g, e)


@needs_native
def test_applies_only_to_what_the_kernels_compute():
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    big = 1 << 30
    assert cw.applies(f32, (5, 5), ONE, ONE, 32, 64, big)
    assert cw.applies(f32, (3, 3), ONE, ONE, 8, 8, cw.MIN_MACS)
    refused = [
        (f64, (5, 5), ONE, ONE, 32, 64, big),  # float32 only
        (np.dtype(np.float16), (3, 3), ONE, ONE, 32, 64, big),
        (f32, (5, 3), ONE, ONE, 32, 64, big),  # square filters
        (f32, (7, 7), ONE, ONE, 32, 64, big),
        (f32, (1, 1), ONE, ONE, 32, 64, big),
        (f32, (3, 3, 3), (1, 1, 1), (1, 1, 1), 32, 64, big),  # 2-D
        (f32, (3, 3), (2, 1), ONE, 32, 64, big),  # stride 1
        (f32, (3, 3), ONE, (1, 2), 32, 64, big),  # no dilation
        (f32, (3, 3), ONE, ONE, 4, 64, big),  # enough channels in and out
        (f32, (3, 3), ONE, ONE, 64, 4, big),
        (f32, (3, 3), ONE, ONE, 32, 64, cw.MIN_MACS - 1),
    ]
    for args in refused:
        assert not cw.applies(*args), args


def test_compiled_loops_off_means_no_winograd(monkeypatch):
    """Without the compiled transforms (TFMINI_NATIVE=0, no compiler) nothing applies and
    a large convolution runs the im2col path."""
    monkeypatch.setattr(cw, "_fn", lambda r, which: None)
    assert not cw.available()
    assert not cw.applies(np.dtype(np.float32), (5, 5), ONE, ONE, 32, 64, 1 << 30)


@needs_native
def test_a_session_convolution_and_its_gradients_take_winograd(monkeypatch):
    """The ops, through a Session: Conv2D and both gradients of the small convnet's second
    layer match a float64 direct convolution, with Winograd on the path."""
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((4, 14, 14, 32)).astype(np.float32)
    wv = (rng.standard_normal((5, 5, 32, 64)) * 0.1).astype(np.float32)
    calls = []
    real = cw.forward
    monkeypatch.setattr(cw, "forward", lambda *a: (calls.append(1), real(*a))[1])
    g = tm.Graph()
    with g.as_default():
        x = tm.constant(xv)
        w = tm.constant(wv)
        y = tm.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
        dx, dw = tm.gradients(tm.reduce_sum(y * y), [x, w])
    with tm.Session(graph=g) as sess:
        got_y, got_dx, got_dw = sess.run([y, dx, dw])
    pads = ((2, 2), (2, 2))
    want_y = _direct64(ck.conv_forward, xv, wv, ONE, ONE, pads, (14, 14))
    dyv = 2 * want_y
    _close(got_y, want_y)
    _close(got_dw, _direct64(ck.conv_backprop_filter, xv, wv.shape, dyv, ONE, ONE, pads,
                             (14, 14)))
    _close(got_dx, _direct64(ck.conv_backprop_input, xv.shape, wv, dyv, ONE, ONE, pads,
                             (14, 14)))
    assert len(calls) >= 2  # the forward and the input gradient


def test_generated_source_has_no_multiply_by_zero_or_one():
    """The transforms skip zero coefficients and add or subtract for +-1, so a tile's
    exact values (the copies in B^T's unit rows) stay exact."""
    src = cw.SOURCE
    for bad in (" 0.0f * ", " 1.0f * ", "-1.0f * "):
        assert bad not in src
    assert all(f"tfmini_wino{r}_{k}_f32" in src for r, k in itertools.product(
        cw.KERNEL_SIZES, ("input", "output", "dy", "filter", "filter_grad")))
