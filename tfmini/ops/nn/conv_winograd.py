"""Winograd's minimal filtering for 2-D convolutions with stride 1: F(2x2, 3x3) and
F(2x2, 5x5), forward and filter gradient, float32.

A stride-1 convolution of an ``r x r`` filter computes each 2x2 block of outputs from an
``a x a`` input tile (``a = r + 1``). Winograd (Lavin and Gray, "Fast Algorithms for
Convolutional Neural Networks", 2015) writes that block as

    Y = A^T [ (G g G^T) . (B^T d B) ] A

summed over input channels, where ``.`` is the elementwise product: the ``a*a`` products of
the transformed tile and filter replace the ``4*r*r`` of the direct sum. Summed over
channels, each of the ``a*a`` positions is one matrix product ``[tiles, C] x [C, O]``, so a
5x5 convolution does 36 products of C*O per tile where im2col does 100: 2.8x fewer
multiply-adds (2.25x for 3x3). The filter gradient is the adjoint of the same map in g:

    dg = sum over tiles of G^T [ (A dY A^T) . (B^T d B) ] G

one product ``[C, tiles] x [tiles, O]`` per position. The input gradient of a stride-1
convolution is the forward convolution of dy with the flipped filter, so it takes the
forward (``conv_kernels.conv_backprop_input``).

The matrices come from the Toom-Cook construction over the interpolation points below
plus the point at infinity: ``A^T`` and ``G`` are the Vandermonde and Lagrange matrices of
the points, and ``B^T`` is solved for so that the identity above is exact. For 5x5 the
points ``0, 1, -1, 1/2, -2`` (not the usual ``0, +-1, +-2``) halve the float32 error
(Barabasz et al., "Error Analysis and Improving the Accuracy of Winograd Convolution for
Deep Neural Networks", 2020): measured against a float64 direct convolution, 1.3e-6 of the
output's scale against 3.4e-6, where im2col + sgemm gives 1.0e-6. The filter transforms run
in float64 and are rounded once.

The tile transforms are compiled loops (C generated from the matrices, with no multiply
for a zero coefficient and none for +-1), vectorised over channels; the products are
NumPy's batched matmul a few images at a time, so each chunk's transformed tiles stay in
cache. Where the loops cannot run (``TFMINI_NATIVE=0``, no compiler), :func:`available`
is False and the caller takes its im2col path. Inputs with an inf or NaN also take that
path: a transform mixes a tile's values, so one inf would spread NaNs (inf - inf) to
outputs the direct sum leaves at inf.

This module is internal to the nn family: it exports nothing to ``tm.*``.
"""

from __future__ import annotations

import ctypes
from fractions import Fraction
from math import prod

import numpy as np

from tfmini.ops.common import native
from tfmini.ops.nn import batch_split

__all__: list[str] = []

OUT_TILE = 2  # outputs per tile side: F(2x2, r x r)
_POINTS = {3: (0, 1, -1), 5: (0, 1, -1, Fraction(1, 2), -2)}
KERNEL_SIZES = tuple(_POINTS)


def _solve_exact(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """The unique solution of the full-rank, possibly overdetermined system, in fractions
    (Gauss-Jordan; raises if it is inconsistent)."""
    n = len(rows[0])
    aug = [list(r) + [b] for r, b in zip(rows, rhs)]
    pivots = []
    r = 0
    for col in range(n):
        pivot = next((i for i in range(r, len(aug)) if aug[i][col] != 0), None)
        if pivot is None:
            continue
        aug[r], aug[pivot] = aug[pivot], aug[r]
        inv = 1 / aug[r][col]
        aug[r] = [v * inv for v in aug[r]]
        for i in range(len(aug)):
            if i != r and aug[i][col] != 0:
                f = aug[i][col]
                aug[i] = [a - f * b for a, b in zip(aug[i], aug[r])]
        pivots.append(col)
        r += 1
    if len(pivots) != n or any(row[-1] != 0 for row in aug[r:]):
        raise ArithmeticError("Winograd transform: no exact solution")
    return [aug[i][-1] for i in range(n)]


def transforms(r: int) -> tuple[list[list[Fraction]], list[list[Fraction]],
                                 list[list[Fraction]]]:
    """``(A^T [m x a], G [a x r], B^T [a x a])`` of F(2, r), exact, such that for any 1-D
    filter g and tile d: ``A^T ((G g) . (B^T d)) == [sum_k g[k] d[i + k] for i < 2]``."""
    points = [Fraction(p) for p in _POINTS[r]]
    m, a = OUT_TILE, len(points) + 1
    at = [[p ** i for p in points] + [Fraction(int(i == m - 1))] for i in range(m)]
    g = []
    for p in points:
        f = prod((p - q for q in points if q != p), start=Fraction(1))
        g.append([p ** k / f for k in range(r)])
    g.append([Fraction(int(k == r - 1)) for k in range(r)])
    # sum_j AT[i][j] G[j][k] BT[j][l] == [l == i + k]: linear in the a*a unknowns of B^T.
    rows, rhs = [], []
    for i in range(m):
        for k in range(r):
            for col in range(a):
                row = [Fraction(0)] * (a * a)
                for j in range(a):
                    row[j * a + col] = at[i][j] * g[j][k]
                rows.append(row)
                rhs.append(Fraction(int(col == i + k)))
    sol = _solve_exact(rows, rhs)
    bt = [sol[j * a:(j + 1) * a] for j in range(a)]
    return at, g, bt


# ----------------------------------------------------------------------------------------
# The compiled tile transforms, generated from the matrices


def _literal(c: Fraction) -> str:
    return repr(float(c)) + "f"


def _combination(coeffs, names) -> str:
    """``sum coeffs[i] * names[i]`` as C, without the zero terms and with no multiply for
    +-1 (the sums are then exact copies or adds where the direct formula has them)."""
    terms = []
    for c, name in zip(coeffs, names):
        if c == 0:
            continue
        if c == 1:
            terms.append(("+", name))
        elif c == -1:
            terms.append(("-", name))
        elif c < 0:
            terms.append(("-", f"{_literal(-c)} * {name}"))
        else:
            terms.append(("+", f"{_literal(c)} * {name}"))
    if not terms:
        return "0.0f"
    sign, first = terms[0]
    out = first if sign == "+" else f"-{first}"
    for sign, term in terms[1:]:
        out += f" {sign} {term}"
    return out


def _two_sided(left, right, src: str, rows: int, cols: int, inner: int, store) -> list[str]:
    """C statements computing ``dst[i][j] = sum_pq left[i][p] src_p_q right[j][q]`` (left
    ``rows x inner``, right ``cols x inner``): first over p into ``h``, then over q;
    ``store(i, j, expr)`` gives the statement that writes one result."""
    lines = []
    for i in range(rows):
        for q in range(inner):
            expr = _combination(left[i], [f"{src}{p}_{q}" for p in range(inner)])
            lines.append(f"const T h{i}_{q} = {expr};")
    for i in range(rows):
        for j in range(cols):
            lines.append(store(i, j, _combination(right[j],
                                                  [f"h{i}_{q}" for q in range(inner)])))
    return lines


def _lanes(body: list[str], width: str) -> str:
    """The loop over the last dim ``width``: the body on vectors of 8 lanes, then on the
    remaining lanes one at a time (``T``, ``LD`` and ``ST`` bound for each)."""
    text = "\n".join("            " + line for line in body)
    return f"""        ptrdiff_t k = 0;
#define T vec
#define LD(p) ld8(p)
#define ST(p, v) st8(p, v)
#define ZERO ((vec){{0}})
        for (; k + 8 <= {width}; k += 8) {{
{text}
        }}
#undef T
#undef LD
#undef ST
#undef ZERO
#define T float
#define LD(p) (*(p))
#define ST(p, v) (*(p) = (v))
#define ZERO 0.0f
        for (; k < {width}; ++k) {{
{text}
        }}
#undef T
#undef LD
#undef ST
#undef ZERO
"""


def _guarded(i: int, j: int, code: str, otherwise: str | None = None) -> str:
    """``code`` for the output (i, j) of a tile, under the test that it lies inside the
    output (row 0 and column 0 always do): a guarded statement, or with ``otherwise`` a
    conditional expression."""
    conds = [c for c, edge in (("full_i", i), ("full_j", j)) if edge]
    if not conds:
        return code
    test = " && ".join(conds)
    return f"({test}) ? {code} : {otherwise}" if otherwise else f"if ({test}) {code}"


_PRELUDE = """#include <stddef.h>
#include <string.h>

/* Eight lanes of the last (channel) dim; GCC and clang lower these to the machine's SIMD
   registers, where the scalar loops were left unvectorised (too many live values). */
typedef float vec __attribute__((vector_size(32)));
static inline vec ld8(const float *p) { vec v; memcpy(&v, p, sizeof v); return v; }
static inline void st8(float *p, vec v) { memcpy(p, &v, sizeof v); }
"""


def _kernels(r: int) -> list[str]:
    """The C of the five transforms of F(2x2, r x r)."""
    parts = []
    at, _, bt = transforms(r)
    a, m = r + 1, OUT_TILE
    a_t = [[at[i][j] for i in range(m)] for j in range(a)]  # A, a x m
    body = [f"const T d{p}_{q} = LD(src + ({p} * wp + {q}) * c + k);"
            for p in range(a) for q in range(a)]
    body += _two_sided(bt, bt, "d", a, a, a,
                       lambda i, j, e: f"ST(v + ({i * a + j}) * plane + k, {e});")
    parts.append(f"""
/* B^T d B of each {a}x{a} tile at stride {m} of the padded input xp [nb, hp, wp, c] into
   v [{a * a}][nb*th*tw][c]. */
void tfmini_wino{r}_input_f32(const float *restrict xp, float *restrict v0, ptrdiff_t nb,
                              ptrdiff_t hp, ptrdiff_t wp, ptrdiff_t c, ptrdiff_t th,
                              ptrdiff_t tw) {{
    const ptrdiff_t plane = nb * th * tw * c;
    for (ptrdiff_t n = 0; n < nb; ++n)
    for (ptrdiff_t ti = 0; ti < th; ++ti)
    for (ptrdiff_t tj = 0; tj < tw; ++tj) {{
        const float *restrict src = xp + ((n * hp + {m} * ti) * wp + {m} * tj) * c;
        float *restrict v = v0 + ((n * th + ti) * tw + tj) * c;
{_lanes(body, "c")}    }}
}}
""")
    body = [f"const T s{p}_{q} = LD(src + ({p * a + q}) * plane + k);"
            for p in range(a) for q in range(a)]
    body += _two_sided(at, at, "s", m, m, a,
                       lambda i, j, e: f"const T y{i}_{j} = {e};")
    body += [_guarded(i, j, f"ST(dst + ({i} * ow + {j}) * o + k, y{i}_{j});")
             for i in range(m) for j in range(m)]
    parts.append(f"""
/* A^T M A of each tile's {a}x{a} products m [{a * a}][nb*th*tw][o] into the
   {m}x{m} outputs it covers of y [nb, oh, ow, o] (those past oh, ow dropped). */
void tfmini_wino{r}_output_f32(const float *restrict m0, float *restrict y, ptrdiff_t nb,
                               ptrdiff_t th, ptrdiff_t tw, ptrdiff_t o, ptrdiff_t oh,
                               ptrdiff_t ow) {{
    const ptrdiff_t plane = nb * th * tw * o;
    for (ptrdiff_t n = 0; n < nb; ++n)
    for (ptrdiff_t ti = 0; ti < th; ++ti)
    for (ptrdiff_t tj = 0; tj < tw; ++tj) {{
        const float *restrict src = m0 + ((n * th + ti) * tw + tj) * o;
        float *restrict dst = y + ((n * oh + {m} * ti) * ow + {m} * tj) * o;
        const int full_i = {m} * ti + 1 < oh, full_j = {m} * tj + 1 < ow;
{_lanes(body, "o")}    }}
}}
""")
    body = [f"const T g{i}_{j} = "
            + _guarded(i, j, f"LD(src + ({i} * ow + {j}) * o + k)", otherwise="ZERO")
            + ";" for i in range(m) for j in range(m)]
    body += _two_sided(a_t, a_t, "g", a, a, m,
                       lambda i, j, e: f"ST(w + ({i * a + j}) * plane + k, {e});")
    parts.append(f"""
/* A dY A^T of each tile's {m}x{m} block of dy [nb, oh, ow, o] (zero past oh, ow) into
   w [{a * a}][nb*th*tw][o]: the filter gradient's transformed output gradient. */
void tfmini_wino{r}_dy_f32(const float *restrict dy, float *restrict w0, ptrdiff_t nb,
                           ptrdiff_t th, ptrdiff_t tw, ptrdiff_t o, ptrdiff_t oh,
                           ptrdiff_t ow) {{
    const ptrdiff_t plane = nb * th * tw * o;
    for (ptrdiff_t n = 0; n < nb; ++n)
    for (ptrdiff_t ti = 0; ti < th; ++ti)
    for (ptrdiff_t tj = 0; tj < tw; ++tj) {{
        const float *restrict src = dy + ((n * oh + {m} * ti) * ow + {m} * tj) * o;
        float *restrict w = w0 + ((n * th + ti) * tw + tj) * o;
        const int full_i = {m} * ti + 1 < oh, full_j = {m} * tj + 1 < ow;
{_lanes(body, "o")}    }}
}}
""")
    g = transforms(r)[1]
    g_t = [[g[i][j] for i in range(a)] for j in range(r)]
    body = [f"const T w{p}_{q} = LD(src + ({p * r + q}) * n + k);"
            for p in range(r) for q in range(r)]
    body += _two_sided(g, g, "w", a, a, r,
                       lambda i, j, e: f"ST(u + ({i * a + j}) * n + k, {e});")
    parts.append(f"""
/* G w G^T: the filter w [{r}][{r}][n] (n = C*O) transformed into u [{a * a}][n]. */
void tfmini_wino{r}_filter_f32(const float *restrict src, float *restrict u,
                               ptrdiff_t n) {{
{_lanes(body, "n")}}}
""")
    body = [f"const T p{i}_{j} = LD(src + ({i * a + j}) * n + k);"
            for i in range(a) for j in range(a)]
    body += _two_sided(g_t, g_t, "p", r, r, a,
                       lambda i, j, e: f"ST(dw + ({i * r + j}) * n + k, {e});")
    parts.append(f"""
/* G^T P G: the summed products P [{a * a}][n] back to the filter's gradient dw
   [{r}][{r}][n]. */
void tfmini_wino{r}_filter_grad_f32(const float *restrict src, float *restrict dw,
                                    ptrdiff_t n) {{
{_lanes(body, "n")}}}
""")
    return parts


def _source() -> str:
    return _PRELUDE + "".join("".join(_kernels(r)) for r in KERNEL_SIZES)


SOURCE = _source()
_fns: dict = {}


def _fn(r: int, which: str):
    key = (r, which)
    fn = _fns.get(key)
    if fn is None:
        lib = native.library(SOURCE)
        if lib is None:
            return None
        fn = getattr(lib, f"tfmini_wino{r}_{which}_f32")
        fn.restype = None
        sizes = 1 if which.startswith("filter") else 6
        fn.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_ssize_t] * sizes
        _fns[key] = fn
    return fn


def available() -> bool:
    """Whether the compiled transforms run here (compiling them if not tried yet)."""
    return _fn(3, "input") is not None


# ----------------------------------------------------------------------------------------
# The kernels

# A chunk's transformed tiles and their products together take about this many bytes
# (whole images). The convnet's 5x5x32x64 layer, one thread, warm memory, medians of three
# sweeps (2026-12-06): 0.5 MB 4.96 / 5.38 ms (forward / filter gradient), 1.5 MB 4.57 /
# 4.89, 3 MB 3.86 / 4.65, 6 MB 3.88 / 4.35. Each position's product is [tiles, C] x [C, O],
# and BLAS runs those at 108-110 GFLOP/s for 98-392 tiles against 69 for 1568.
CHUNK_BYTES = 3 << 20

# The products of one position are [tiles, C] x [C, O]: thinner than this they are left
# to the im2col product's fewer, deeper calls.
MIN_CHANNELS = 8

# Below this many multiply-adds (of the direct convolution) the im2col path is kept. With
# warm memory (as in a Session) Winograd's time over im2col's was 0.45-0.98 for 3x3 and 5x5
# filters, 1-32 images of 7x7 to 56x56, 8-64 channels, from 1.2M multiply-adds up, except a
# 5x5 filter on an 8x8 image (3.3M: 1.03-1.35, the tiles' cover wasted at the borders).
MIN_MACS = 1 << 22

_ENABLED = True  # False: never (tests compare both paths)


def applies(dtype: np.dtype, ksizes, strides, dilations, c: int, o: int, macs: int) -> bool:
    """Whether a convolution of this geometry takes the Winograd kernels: float32, 2-D,
    a square 3x3 or 5x5 filter, stride and dilation 1, at least ``MIN_CHANNELS`` in and
    out, at least ``MIN_MACS`` multiply-adds, and the compiled transforms available."""
    return (_ENABLED and np.dtype(dtype) == np.float32 and len(ksizes) == 2
            and ksizes[0] == ksizes[1] and ksizes[0] in _POINTS
            and all(s == 1 for s in strides) and all(d == 1 for d in dilations)
            and c >= MIN_CHANNELS and o >= MIN_CHANNELS and macs >= MIN_MACS
            and available())


def _geometry(in_shape, r: int, pads, outs):
    (oh, ow), m = outs, OUT_TILE
    th, tw = -(-oh // m), -(-ow // m)
    return th, tw, m * th + r - 1, m * tw + r - 1


def _tile_padded(x: np.ndarray, r: int, pads, outs) -> np.ndarray:
    """``x`` padded as the convolution pads it and then with zeros up to whole tiles (the
    outputs of the extra tiles are dropped), C-contiguous."""
    n, h, wd, c = x.shape
    _, _, hp, wp = _geometry(x.shape, r, pads, outs)
    (pt, _), (pl, _) = pads
    xp = np.empty((n, hp, wp, c), np.float32)
    xp[:, :pt] = 0
    xp[:, pt + h:] = 0
    xp[:, pt:pt + h, :pl] = 0
    xp[:, pt:pt + h, pl + wd:] = 0
    xp[:, pt:pt + h, pl:pl + wd] = x
    return xp


def _chunk_images(th: int, tw: int, a: int, width: int) -> int:
    per_image = a * a * th * tw * width * 4
    return max(1, CHUNK_BYTES // max(1, per_image))


def forward(x: np.ndarray, w: np.ndarray, pads, outs) -> np.ndarray:
    """``y[n, i, j, f] = sum x_pad[n, i + p, j + q, c] * w[p, q, c, f]`` by F(2x2, r x r),
    the batch in parts on the cores. Call only where :func:`applies`."""
    r, o = w.shape[0], w.shape[-1]
    n, c = x.shape[0], x.shape[-1]
    a = r + 1
    th, tw, hp, wp = _geometry(x.shape, r, pads, outs)
    wc = np.ascontiguousarray(w, np.float32)
    u = np.empty((a * a, c, o), np.float32)
    _fn(r, "filter")(wc.ctypes.data, u.ctypes.data, c * o)
    xp = _tile_padded(x, r, pads, outs)
    y = np.empty((n, *outs, o), np.float32)
    into, back = _fn(r, "input"), _fn(r, "output")
    step = _chunk_images(th, tw, a, c + o)

    def part(sl: slice) -> None:
        tiles_max = min(step, sl.stop - sl.start) * th * tw
        v, prods = np.empty(a * a * tiles_max * c, np.float32), np.empty(
            a * a * tiles_max * o, np.float32)
        for start in range(sl.start, sl.stop, step):
            nb = min(step, sl.stop - start)
            vv = v[:a * a * nb * th * tw * c].reshape(a * a, nb * th * tw, c)
            pp = prods[:a * a * nb * th * tw * o].reshape(a * a, nb * th * tw, o)
            into(xp[start].ctypes.data, vv.ctypes.data, nb, hp, wp, c, th, tw)
            np.matmul(vv, u, out=pp)
            back(pp.ctypes.data, y[start].ctypes.data, nb, th, tw, o, outs[0], outs[1])

    batch_split.run(part, batch_split.parts(n, n * prod(outs) * r * r * c * o))
    return y


def backprop_filter(x: np.ndarray, filter_shape, dy: np.ndarray, pads, outs) -> np.ndarray:
    """``dw[p, q, c, f] = sum x_pad[n, i + p, j + q, c] * dy[n, i, j, f]``: the adjoint of
    :func:`forward` in the filter, the batch in parts on the cores. Call only where
    :func:`applies`."""
    r, c, o = filter_shape[0], filter_shape[-2], filter_shape[-1]
    n = x.shape[0]
    a = r + 1
    th, tw, hp, wp = _geometry(x.shape, r, pads, outs)
    xp = _tile_padded(x, r, pads, outs)
    dyc = np.ascontiguousarray(dy, np.float32)
    into, dy_fn = _fn(r, "input"), _fn(r, "dy")
    step = _chunk_images(th, tw, a, c + o)

    def part(sl: slice) -> np.ndarray:
        tiles_max = min(step, sl.stop - sl.start) * th * tw
        v, t = np.empty(a * a * tiles_max * c, np.float32), np.empty(
            a * a * tiles_max * o, np.float32)
        sums = np.zeros((a * a, c, o), np.float32)
        scratch = np.empty_like(sums)
        for start in range(sl.start, sl.stop, step):
            nb = min(step, sl.stop - start)
            vv = v[:a * a * nb * th * tw * c].reshape(a * a, nb * th * tw, c)
            tt = t[:a * a * nb * th * tw * o].reshape(a * a, nb * th * tw, o)
            into(xp[start].ctypes.data, vv.ctypes.data, nb, hp, wp, c, th, tw)
            dy_fn(dyc[start].ctypes.data, tt.ctypes.data, nb, th, tw, o, outs[0], outs[1])
            np.matmul(vv.transpose(0, 2, 1), tt, out=scratch)
            sums += scratch
        return sums

    sums = batch_split.run(part, batch_split.parts(n, n * prod(outs) * r * r * c * o))
    total = sums[0]
    for s in sums[1:]:
        total += s
    dw = np.empty(tuple(filter_shape), np.float32)
    _fn(r, "filter_grad")(total.ctypes.data, dw.ctypes.data, c * o)
    return dw
