"""Registry-wide gradient contract: every built-in op has a gradient function or an explicit
``tm.no_gradient`` mark, and every gradient function agrees with central differences on the
op's contract sample (tests/contract/).

There is no allow-list for the first part: an op with neither is a failure. For the second, each
op is built from its sample with its floating inputs (and integer inputs whose type attr admits
floats) replaced by float64 placeholders (float32 where the op refuses float64), moved off the
sample point by a small random offset so that no input sits on a kink (relu at 0, ties of max).
Variables read by an op are perturbed through their initial value. Each floating output gets
random weights, passed as ``grad_ys``, so the gradient checked is that of
``sum_k reduce_sum(output_k * w_k)`` and no other op's gradient is involved.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tfmini as tm
from tests.test_op_contract import BUILTIN, SAMPLES
from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope

_FLOATS = (tm.float16, tm.float32, tm.float64)

# Ops whose gradient is, by TensorFlow's definition, not the derivative at the sample point.
NOT_CHECKED = {
    "OneHot": "TensorFlow's gradient is None for on_value/off_value, though the output moves "
              "with them",
    "RandomGamma": "TensorFlow's gradient for alpha is the implicit reparameterization "
                   "derivative (RandomGammaGrad), not the derivative of the sampler's path at "
                   "fixed random numbers (checked against TensorFlow in tests/ops/random)",
    "Cholesky": "TensorFlow's gradient is the symmetric one (the input is taken as symmetric), "
                "while the kernel reads one triangle; checked on a symmetric input against "
                "TensorFlow in tests/ops/math/test_breadth.py (grad case cholesky)",
    **{op: "TensorFlow's gradient raises NotImplementedError, and so does tfmini's (tested in "
           "tests/ops/array/test_sparse_more.py)"
       for op in ("SparseDenseCwiseAdd", "SparseSparseMaximum", "SparseSparseMinimum")},
    "PreventGradient": "its gradient is an error by definition (LookupError, as TensorFlow)",
    "WhileGrad": "second order through while_loop is refused with NotImplementedError (tested "
                 "in tests/test_control_flow_grad.py)",
}

# Ops whose sample point must stay as it is (no offset), with why.
KEEP_POINT = {
    "SoftmaxCrossEntropyWithLogits": "the logits' gradient (softmax - labels) assumes the labels "
                                     "sum to 1, as TensorFlow's kernel does",
}

# (op, input index) -> the outputs whose weights count for that input's gradient, with why.
OUTPUTS_FOR_INPUT = {
    # TensorFlow's gradient for the labels ignores the backprop output (softmax - labels),
    # whose derivative in the labels is -1: only the loss is differentiated for them.
    ("SoftmaxCrossEntropyWithLogits", 1): (0,),
}

_BN = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
_BN_GRAD = ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")

# op -> the only outputs differentiated, as TensorFlow's gradient reads only their gradients:
# batch norm's batch statistics and reserve spaces are bookkeeping for its gradient op.
CHECKED_OUTPUTS = {**{op: (0,) for op in _BN}, **{op: (0, 1, 2) for op in _BN_GRAD}}

# op -> {input index: why its gradient is, by TensorFlow's definition, None}.
UNCHECKED_INPUTS = {
    **{op: {3: "the population mean gets no gradient in TensorFlow",
            4: "the population variance gets no gradient in TensorFlow"} for op in _BN},
    **{op: {3: "reserve space / mean: no gradient in TensorFlow",
            4: "reserve space / variance: no gradient in TensorFlow",
            5: "reserve space 3: no gradient in TensorFlow"} for op in _BN_GRAD},
    "PadV2": {2: "the padding constant gets no gradient in TensorFlow"},
    "MatrixDiagV3": {4: "padding_value gets no gradient in TensorFlow"},
    "MatrixDiagPartV3": {2: "padding_value gets no gradient in TensorFlow"},
    "MatrixDiagV2": {4: "padding_value gets no gradient in TensorFlow"},
    "MatrixDiagPartV2": {2: "padding_value gets no gradient in TensorFlow"},
    "MatrixSolveLs": {2: "l2_regularizer gets no gradient in TensorFlow"},
    "Zeta": {0: "the exponent x gets no gradient in TensorFlow"},
    "Polygamma": {0: "the order a gets no gradient in TensorFlow"},
    "Betainc": {0: "a gets no gradient in TensorFlow", 1: "b gets no gradient in TensorFlow"},
}

# Samples used instead of the contract sample, with why.
GRAD_SAMPLES = {
    # The contract sample broadcasts (1, 3) labels against (2, 3) logits; TensorFlow's gradient
    # then fails its own shape check (labels' gradient is (2, 3)), so unbroadcast labels here.
    "SoftmaxCrossEntropyWithLogits": lambda: (
        [np.linspace(-3, 3, 6).reshape(2, 3), np.array([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]])], {}),
    # The contract sample casts to int32, which has no gradient; float to float has one.
    "Cast": lambda: ([np.linspace(-3, 3, 6).reshape(2, 3)], {"DstT": tm.float32,
                                                              "Truncate": False}),
}


def _has_gradient_fn(op_type: str) -> bool:
    return registry.get(op_type).grad_fn is not None


# ----------------------------------------------------------------------------------------
# Every op has a gradient or a mark


@pytest.mark.parametrize("op_type", BUILTIN)
def test_op_has_a_gradient_or_a_no_gradient_mark(op_type):
    op_def = registry.get(op_type)
    assert op_def.grad_fn is not None or op_def.no_gradient, (
        f"{op_type} (registered at {op_def.defined_at}) has neither a gradient function "
        f"(@tm.RegisterGradient) nor a tm.no_gradient mark"
    )
    assert not (op_def.grad_fn is not None and op_def.no_gradient)


# ----------------------------------------------------------------------------------------
# Building an op from its sample with differentiable inputs


def _float_target(op_def, attr_name: str | None, given: dict) -> tm.DType | None:
    """The float dtype the inputs of type attr ``attr_name`` are checked in (None: as given)."""
    if attr_name is None or attr_name in given:
        return None
    allowed = op_def.attr(attr_name).allowed_values
    for dt in (tm.float64, tm.float32):
        if allowed is None or dt in allowed:
            return dt
    return None


def _is_literal_number(v) -> bool:
    if isinstance(v, (Output, tm.Variable)) or isinstance(v, (list, tuple)):
        return False
    a = np.asarray(v)
    return a.dtype.kind in "fiu"


class _Case:
    """An op built from its sample, with the points where its gradient is checked."""

    def __init__(self, op_type: str):
        self.op_type = op_type
        self.rng = np.random.default_rng(zlib.crc32(op_type.encode()))
        self.graph = tm.Graph()
        self.xs: list[Output] = []  # what tm.gradients differentiates with respect to
        self.points: list[np.ndarray] = []
        self.feeds_for: list = []  # how a value of xs[i] is fed: the tensor to feed
        self.setup: list = []
        with self.graph.as_default():
            self._build()

    def _offset(self, value: np.ndarray) -> np.ndarray:
        if self.op_type in KEEP_POINT:
            return value
        # Positive, so domain edges (sqrt and log near 0) stay inside the domain.
        return np.asarray(value + self.rng.uniform(0.01, 0.03, value.shape), value.dtype)

    def _placeholder(self, value, dtype: tm.DType) -> Output:
        value = self._offset(np.asarray(value, dtype.np_dtype))
        ph = tm.placeholder(dtype, value.shape, name=f"x{len(self.xs)}")
        self.xs.append(ph)
        self.feeds_for.append(ph)
        self.points.append(value)
        return ph

    def _build(self) -> None:
        op_def = registry.get(self.op_type)
        built = GRAD_SAMPLES.get(self.op_type, SAMPLES[self.op_type])()
        inputs, attrs = list(built[0]), dict(built[1])
        self.setup = list(built[2]) if len(built) > 2 else []
        # Inputs sharing a type attr change dtype together, and only if all are literals.
        groups: dict[str, list] = {}
        for arg, value in zip(op_def.inputs, inputs):
            if arg.type_attr:
                values = value if arg.number_attr else [value]
                groups.setdefault(arg.type_attr, []).extend(values)
        targets = {
            name: _float_target(op_def, name, attrs)
            for name, values in groups.items()
            if all(_is_literal_number(v) for v in values)
        }
        new_inputs = []
        for arg, value in zip(op_def.inputs, inputs):
            target = targets.get(arg.type_attr) if arg.type_attr else None
            if arg.is_list:
                new_inputs.append([self._maybe_x(v, target) for v in value])
            else:
                new_inputs.append(self._maybe_x(value, target))
        self.op = build_op(current_scope(), self.op_type, new_inputs, attrs)
        self._add_variables()
        # Which input of the op each x is (exceptions above are keyed by it).
        self.input_position = [next(k for k, t in enumerate(self.op.inputs) if t is x)
                               for x in self.xs]

    def _maybe_x(self, value, target: tm.DType | None):
        """A placeholder for a floating value (or a number that may become one), else as is."""
        if isinstance(value, Output) or not _is_literal_number(value):
            return value
        a = np.asarray(value)
        if target is not None:
            return self._placeholder(a, target)
        if a.dtype.kind == "f":
            return self._placeholder(a, tm.as_dtype(a.dtype))
        return value

    def _add_variables(self) -> None:
        """Resource inputs initialised by a setup AssignVariableOp with a float value: the
        handle is differentiated, the value fed to the initializer is perturbed."""
        for t in self.op.inputs:
            if t.dtype != tm.resource:
                continue
            for init in self.setup:
                if (init.type == "AssignVariableOp" and init.inputs[0] is t
                        and init.inputs[1].dtype in _FLOATS):
                    value = np.asarray(self._run_plain(init.inputs[1]))
                    self.xs.append(t)
                    self.feeds_for.append(init.inputs[1])
                    self.points.append(self._offset(value))

    def _run_plain(self, fetch):
        with tm.Session(graph=self.graph) as sess:
            return sess.run(fetch)

    @property
    def float_outputs(self) -> list[Output]:
        return [o for o in self.op.outputs if o.dtype in _FLOATS]

    def run(self, sess, fetches, points):
        feeds = {f: p for f, p in zip(self.feeds_for, points) if f.op.type == "Placeholder"}
        for init in self.setup:
            sess.run(init, {f: p for f, p in zip(self.feeds_for, points)
                            if f.op.type != "Placeholder"})
        return sess.run(fetches, feeds)


def _checked_ops() -> list[str]:
    ops = []
    for op_type in BUILTIN:
        # An op without a sample stays in the list and fails: its gradient cannot go unchecked.
        if SAMPLES.get(op_type) == "feed" or not _has_gradient_fn(op_type):
            continue
        ops.append(op_type)
    return ops


def _dense(value, shape) -> np.ndarray:
    if isinstance(value, tm.IndexedSlicesValue):
        out = np.zeros(shape, np.float64)
        values = np.asarray(value.values, np.float64)
        indices = np.asarray(value.indices).reshape(-1)
        np.add.at(out, indices, values.reshape((len(indices),) + tuple(shape[1:])))
        return out
    return np.asarray(value, np.float64)


def _check(case: _Case) -> None:
    """Asserts that tm.gradients of the case's op agrees with central differences."""
    op_type = case.op_type
    outputs = case.float_outputs
    with case.graph.as_default(), tm.Session(graph=case.graph) as sess:
        values = case.run(sess, outputs, case.points)
        weights = [case.rng.uniform(-1, 1, np.shape(v)).astype(o.dtype.np_dtype)
                   for o, v in zip(outputs, values)]
        for i, point in enumerate(case.points):
            position = case.input_position[i]
            if position in UNCHECKED_INPUTS.get(op_type, {}):
                continue
            only = OUTPUTS_FOR_INPUT.get((op_type, position), CHECKED_OUTPUTS.get(op_type))
            w = [wk if only is None or k in only else np.zeros_like(wk)
                 for k, wk in enumerate(weights)]
            (grad,) = tm.gradients(outputs, [case.xs[i]], grad_ys=w)
            analytic = (np.zeros(point.shape) if grad is None
                        else _dense(case.run(sess, grad, case.points), point.shape))

            def objective(points, w=w) -> float:
                outs = case.run(sess, outputs, points)
                return sum(float(np.sum(np.asarray(o, np.float64) * wk))
                           for o, wk in zip(outs, w))

            # float32 anywhere (input or output) limits what central differences can resolve.
            double = point.dtype == np.float64 and all(o.dtype == tm.float64 for o in outputs)
            delta = 1e-6 if double else 1e-3
            numeric = np.zeros(point.shape)
            for j in np.ndindex(point.shape):
                plus = [p.copy() for p in case.points]
                minus = [p.copy() for p in case.points]
                plus[i][j] += delta
                minus[i][j] -= delta
                numeric[j] = (objective(plus) - objective(minus)) / (2 * delta)
            scale = max(1.0, float(np.max(np.abs(numeric), initial=0.0)))
            tol = (1e-5 if double else 2e-2) * scale
            error = float(np.max(np.abs(analytic - numeric), initial=0.0))
            assert error <= tol, (
                f"{op_type}: gradient w.r.t. input {case.xs[i].name} ({point.dtype}) is off by "
                f"{error:.3g} (tolerance {tol:.3g})\nat {point!r}\nanalytic {analytic!r}\n"
                f"numeric {numeric!r}"
            )


@pytest.mark.parametrize("op_type", _checked_ops())
def test_gradient_agrees_with_finite_differences(op_type):
    if op_type in NOT_CHECKED:
        pytest.skip(NOT_CHECKED[op_type])
    if op_type not in SAMPLES:
        pytest.fail(f"{op_type} has a gradient function but no sample in tests/contract/ to "
                    "check it on")
    case = _Case(op_type)
    if op_type in _BN_GRAD and case.op.attrs["is_training"]:
        # Not a partial derivative of the op: TensorFlow's second-order gradient recomputes the
        # batch statistics from x, which the op itself takes as fixed reserve-space inputs.
        pytest.skip(f"{op_type} with is_training: its gradient differentiates through the "
                    "batch statistics; sample it with is_training=False")
    if not case.xs or not case.float_outputs:
        pytest.skip(f"{op_type}: no floating input or output in the sample")
    _check(case)


# ----------------------------------------------------------------------------------------
# The check itself can fail


@pytest.fixture
def wrong_op():
    """A custom op (y = x^2, with a gradient missing the factor 2), unregistered afterwards."""
    tm.register_op("GcHalfGrad", inputs=["x: T"], outputs=["y: T"],
                   attrs=["T: {float, double, int32}"],
                   shape_fn=lambda ic: [ic.input_shape(0)])(lambda x: x * x)
    tm.RegisterGradient("GcHalfGrad")(
        lambda op, dy: build_op(current_scope(), "Mul", [dy, op.inputs[0]]).outputs[0])
    SAMPLES["GcHalfGrad"] = lambda: ([np.arange(3, dtype=np.int32)], {})
    yield
    del SAMPLES["GcHalfGrad"]
    registry.unregister("GcHalfGrad")


def test_the_check_catches_a_wrong_gradient(wrong_op):
    # The int32 sample becomes a float64 placeholder, and the halved gradient is caught.
    case = _Case("GcHalfGrad")
    assert [x.dtype for x in case.xs] == [tm.float64]
    with pytest.raises(AssertionError, match="GcHalfGrad: gradient w.r.t. input x0:0"):
        _check(case)
