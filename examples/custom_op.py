"""A custom op in one short block: Swish, registered, built, run, inspected and round-tripped.

This is the code of docs/custom_ops.md (its first sections); tests/test_custom_ops.py checks
that the two stay the same. Run it with ``python examples/custom_op.py``.
"""

import json

import numpy as np

import tfmini as tm


def _swish_shape(ic):
    # Runs when the op is built, so a bad input fails at the user's line, not at run time.
    return [ic.input_shape("x")]


@tm.register_op(
    "Swish",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs={"T": "{half, float, double}", "beta": ("float", 1.0)},
    shape_fn=_swish_shape,  # optional: without it outputs have unknown shapes
)
def swish_kernel(x, *, beta):
    """y = x * sigmoid(beta * x)."""
    return x / (1 + np.exp(-beta * x))


@tm.RegisterGradient("Swish")  # optional: without it tm.gradients cannot pass through Swish
def _swish_grad(op, dy):
    x, beta = op.inputs[0], op.get_attr("beta")
    s = tm.sigmoid(beta * x)
    return dy * (s + beta * x * s * (1.0 - s))


def main() -> None:
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(None, 3), name="x")
        y = tm.raw_ops.Swish(x=x, beta=2.0, name="swish")  # TF's raw_ops: keyword names
        scope = tm.Scope(g).with_sub_scope("layer")
        z = tm.ops.Swish.create(scope, y)  # explicit scope; beta keeps its default 1.0
    print("built:", y, z.y())

    batch = np.array([[-1.0, 0.0, 2.0]], np.float32)
    with tm.Session(graph=g) as sess:
        out = sess.run(z.y(), feed_dict={x: batch})
    print("swish(swish(x, 2), 1) =", out)

    nxg = g.to_networkx()
    print("node 'swish':", nxg.nodes["swish"])
    print(g.to_dot())

    text = json.dumps(g.as_graph_def())
    g2 = tm.Graph()
    with g2.as_default():
        (z2,) = tm.import_graph_def(json.loads(text), return_elements=["layer/Swish:0"])
    with tm.Session(graph=g2) as sess:
        again = sess.run(z2, {"import/x:0": batch})
    np.testing.assert_allclose(again, out)
    print("imported graph gives the same values:", again)

    if hasattr(tm, "gradients"):
        with g.as_default():
            (dx,) = tm.gradients(y, [x])
        with tm.Session(graph=g) as sess:
            print("d swish(x, 2) / dx =", sess.run(dx, {x: batch}))


if __name__ == "__main__":
    main()
