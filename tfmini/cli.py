"""The ``tfmini`` command (also ``python -m tfmini``).

``tfmini demo`` builds a small regression model on synthetic data, differentiates its loss
with ``tm.gradients``, trains it in a Session, prints the loss as it falls, and writes the
graph as DOT. ``tfmini ops``
lists the registered op types. ``tfmini inspect-checkpoint PATH [--values] [--name NAME]``
lists a checkpoint's tensors; ``tfmini graph FILE`` writes a .json/.pb/.pbtxt graph as DOT
(``--format svg|png`` through Graphviz).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _build_demo_graph(tm, features: int, hidden: int):
    """A one-hidden-layer regression model trained by gradient descent with tm.gradients."""
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(None, features), name="x")
        t = tm.placeholder(tm.float32, shape=(None, 1), name="target")
        lr = tm.placeholder_with_default(np.float32(0.05), shape=(), name="learning_rate")
        rng = np.random.default_rng(1)
        with tm.name_scope("model"):
            w1 = tm.Variable(rng.normal(0, 0.5, (features, hidden)).astype(np.float32), name="w1")
            b1 = tm.Variable(np.zeros(hidden, np.float32), name="b1")
            w2 = tm.Variable(rng.normal(0, 0.5, (hidden, 1)).astype(np.float32), name="w2")
            b2 = tm.Variable(np.zeros(1, np.float32), name="b2")
            h = tm.nn.relu(tm.nn.bias_add(tm.matmul(x, w1), b1))
            y = tm.nn.bias_add(tm.matmul(h, w2), b2)
        with tm.name_scope("loss"):
            loss = tm.reduce_mean(tm.square(y - t), name="mse")
        params = [w1, b1, w2, b2]
        grads = tm.gradients(loss, params)
        with tm.name_scope("train"):
            train_op = tm.group(*[p.assign_sub(lr * g) for p, g in zip(params, grads)],
                                name="step")
        init = tm.global_variables_initializer()
    return g, x, t, loss, train_op, init


def demo(steps: int = 1000, batch: int = 64, dot_path: str | None = "demo_graph.dot",
         seed: int = 0, out=sys.stdout) -> float:
    """Trains the demo model; returns the final loss."""
    import tfmini as tm

    features, hidden = 8, 16
    rng = np.random.default_rng(seed)
    true_w = rng.normal(size=(features, 1)).astype(np.float32)
    data_x = rng.normal(size=(4096, features)).astype(np.float32)
    data_t = (np.tanh(data_x @ true_w) + 0.05 * rng.normal(size=(4096, 1))).astype(np.float32)

    g, x, t, loss, train_op, init = _build_demo_graph(tm, features, hidden)
    print(f"tfmini {tm.__version__} demo: {len(g.get_operations())} ops, "
          f"{data_x.shape[0]} synthetic samples, {features} features", file=out)
    start = time.perf_counter()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        step = sess.make_callable([loss, train_op], feed_list=[x, t])
        first = None
        value = float("nan")
        for i in range(steps):
            idx = rng.integers(0, data_x.shape[0], size=batch)
            value, _ = step(data_x[idx], data_t[idx])
            if first is None:
                first = float(value)
            if i % max(1, steps // 10) == 0 or i == steps - 1:
                print(f"step {i:5d}  loss {float(value):.5f}", file=out)
        final = float(sess.run(loss, {x: data_x, t: data_t}))
    elapsed = time.perf_counter() - start
    print(f"final loss on all data: {final:.5f} (first batch: {first:.5f}); "
          f"{steps} steps in {elapsed:.2f} s ({steps / elapsed:.0f} steps/s)", file=out)
    if dot_path:
        with open(dot_path, "w") as f:
            f.write(g.to_dot())
        print(f"graph written to {dot_path} (render with: dot -Tpng {dot_path} -o graph.png)",
              file=out)
    return final


def _list_ops(out=sys.stdout) -> None:
    from tfmini.core import registry

    for name, op_def in sorted(registry.registered_ops().items()):
        ins = ", ".join(a.spec() for a in op_def.inputs)
        outs = ", ".join(a.spec() for a in op_def.outputs)
        print(f"{name}({ins}) -> ({outs})", file=out)


def inspect_checkpoint(path: str, values: bool = False, name: str | None = None,
                       out=sys.stdout) -> int:
    """Prints a checkpoint's tensors (``name (DT_FLOAT) [2,3]``), optionally with values."""
    import tfmini as tm
    from tfmini.ops import io as io_family

    reader = tm.train.load_checkpoint(path)
    shapes = reader.get_variable_to_shape_map()
    names = [name] if name else sorted(shapes)
    for key in names:
        value = reader.get_tensor(key) if (values or name) else None
        dtype = reader.get_variable_to_dtype_map()[key]
        dims = ",".join(str(d) for d in shapes[key])
        print(f"{key} ({io_family.bundle.dtype_name(dtype.enum)}) [{dims}]", file=out)
        if value is not None:
            print(np.array2string(np.asarray(value), threshold=1000), file=out)
    return 0


def graph_to_dot_file(path: str, output: str | None = None, fmt: str = "dot",
                      out=sys.stdout) -> int:
    """Writes a graph file (.json, .pb, .pbtxt) as DOT, or SVG/PNG through Graphviz."""
    import shutil
    import subprocess

    import tfmini as tm

    g = tm.Graph()
    with g.as_default():
        tm.import_graph_def(tm.io.read_graph_def(path), name="")
    dot = g.to_dot()
    target = output or (path.rsplit(".", 1)[0] + "." + fmt)
    if fmt == "dot":
        with open(target, "w") as f:
            f.write(dot)
    else:
        exe = shutil.which("dot")
        if exe is None:
            raise SystemExit(f"tfmini graph: writing {fmt.upper()} needs Graphviz's 'dot' "
                             "program; install Graphviz (e.g. apt-get install graphviz) or "
                             "use --format dot")
        subprocess.run([exe, f"-T{fmt}", "-o", target], input=dot.encode(), check=True)
    print(f"{len(g.get_operations())} ops written to {target}", file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tfmini", description="tfmini: a TF1-style graph engine")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="train a small model and write its graph as DOT")
    p_demo.add_argument("--steps", type=int, default=1000)
    p_demo.add_argument("--batch", type=int, default=64)
    p_demo.add_argument("--seed", type=int, default=0)
    p_demo.add_argument("--dot", default="demo_graph.dot", help="where to write the DOT file")
    sub.add_parser("ops", help="list the registered op types")
    p_ins = sub.add_parser("inspect-checkpoint",
                           help="list a checkpoint's tensors (names, dtypes, shapes)")
    p_ins.add_argument("path", help="checkpoint prefix or directory")
    p_ins.add_argument("--values", action="store_true", help="also print the values")
    p_ins.add_argument("--name", help="only this tensor (with its value)")
    p_graph = sub.add_parser("graph", help="write a .json/.pb/.pbtxt graph as DOT (or SVG/PNG)")
    p_graph.add_argument("file")
    p_graph.add_argument("-o", "--output", help="output file (default: FILE with the format's "
                         "extension)")
    p_graph.add_argument("--format", choices=["dot", "svg", "png"], default="dot")
    args = parser.parse_args(argv)
    if args.command == "inspect-checkpoint":
        return inspect_checkpoint(args.path, values=args.values, name=args.name)
    if args.command == "graph":
        return graph_to_dot_file(args.file, args.output, args.format)
    if args.command == "demo":
        demo(steps=args.steps, batch=args.batch, dot_path=args.dot, seed=args.seed)
    elif args.command == "ops":
        _list_ops()
    return 0


if __name__ == "__main__":
    sys.exit(main())
