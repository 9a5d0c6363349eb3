"""The ``tfmini`` command (also ``python -m tfmini``).

* ``tfmini demo`` builds a small regression model on synthetic data, differentiates its loss
  with ``tm.gradients``, trains it in a Session, prints the loss as it falls and writes the
  graph as DOT; into its log directory (``--logdir``, default ``demo_logs``) it writes a
  TensorBoard event file (the graph and the loss at every step) and a checkpoint.
* ``tfmini ops`` lists the registered op types.
* ``tfmini dist-demo [--workers 4] [--ps 2] [--mode sync|async] [--staleness 2] [--steps 40]``
  trains across worker and ps processes on a local Ray cluster kept on 127.0.0.1
  (:mod:`tfmini.distribute.demo`).
* ``tfmini inspect-checkpoint PATH [--values] [--name NAME]`` lists a checkpoint's tensors.
* ``tfmini graph FILE`` writes a .json/.pb/.pbtxt graph as DOT (``--format svg|png``
  through Graphviz).
* ``tfmini trace [--out PATH] [--merge] SCRIPT [ARGS...]`` runs a Python script with every
  ``Session.run`` traced (``tm.client.timeline.tracing``) and writes Chrome traces.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from tfmini import errors


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
         seed: int = 0, out=sys.stdout, log_dir: str | None = "demo_logs") -> float:
    """Trains the demo model; returns the final loss.

    Args:
        steps: Training steps.
        batch: Examples per step.
        dot_path: Where to write the graph as DOT (None: nowhere).
        seed: Seed of the synthetic data and the batches.
        out: Where the progress goes.
        log_dir: Where the event file (graph + loss per step) and the checkpoint
            ``model.ckpt-<steps>`` go (None: nowhere).
    """
    import tfmini as tm

    features, hidden = 8, 16
    rng = np.random.default_rng(seed)
    true_w = rng.normal(size=(features, 1)).astype(np.float32)
    data_x = rng.normal(size=(4096, features)).astype(np.float32)
    data_t = (np.tanh(data_x @ true_w) + 0.05 * rng.normal(size=(4096, 1))).astype(np.float32)

    g, x, t, loss, train_op, init = _build_demo_graph(tm, features, hidden)
    print(f"tfmini {tm.__version__} demo: {len(g.get_operations())} ops, "
          f"{data_x.shape[0]} synthetic samples, {features} features", file=out)
    fetches = [loss, train_op]
    writer = saver = None
    if log_dir:
        with g.as_default():  # built after the count above: the model's op count stays put
            fetches.append(tm.summary.scalar("training_loss", loss))
            saver = tm.train.Saver(tm.global_variables(), max_to_keep=1)
        writer = tm.summary.FileWriter(log_dir, g)
    start = time.perf_counter()
    try:
        with tm.Session(graph=g) as sess:
            sess.run(init)
            step = sess.make_callable(fetches, feed_list=[x, t])
            first = None
            value = float("nan")
            for i in range(steps):
                idx = rng.integers(0, data_x.shape[0], size=batch)
                value, _, *summary = step(data_x[idx], data_t[idx])
                if writer is not None:
                    writer.add_summary(summary[0], i)
                if first is None:
                    first = float(value)
                if i % max(1, steps // 10) == 0 or i == steps - 1:
                    print(f"step {i:5d}  loss {float(value):.5f}", file=out)
            final = float(sess.run(loss, {x: data_x, t: data_t}))
            ckpt = (saver.save(sess, os.path.join(log_dir, "model.ckpt"), global_step=steps)
                    if saver is not None else None)
    finally:
        if writer is not None:
            writer.close()
    elapsed = time.perf_counter() - start
    print(f"final loss on all data: {final:.5f} (first batch: {first:.5f}); "
          f"{steps} steps in {elapsed:.2f} s ({steps / elapsed:.0f} steps/s)", file=out)
    if dot_path:
        with open(dot_path, "w") as f:
            f.write(g.to_dot())
        print(f"graph written to {dot_path} (render with: dot -Tpng {dot_path} -o graph.png)",
              file=out)
    if log_dir:
        print(f"event file (graph, loss per step) in {log_dir}/ "
              f"(view with: tensorboard --logdir {log_dir})", file=out)
        print(f"checkpoint written to {ckpt} (list with: tfmini inspect-checkpoint {ckpt})",
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


def trace_script(script: str, script_args: list[str], out_path: str | None = None,
                 merge: bool = False, out=sys.stdout) -> int:
    """Runs ``script`` as ``__main__`` with every Session.run traced; writes Chrome traces.

    Args:
        script: The Python file to run.
        script_args: Its command-line arguments (``sys.argv[1:]`` inside it).
        out_path: The directory of per-run traces (default ``tfmini_traces``), or with
            ``merge`` the one trace file (default ``tfmini_trace.json``).
        merge: One file for all runs.
        out: Where the summary goes.

    Returns:
        The script's exit status (0 when it returns normally).
    """
    import runpy

    from tfmini.client import timeline

    if not os.path.isfile(script):
        raise SystemExit(f"tfmini trace: no such script: {script}")
    path = out_path or ("tfmini_trace.json" if merge else "tfmini_traces")
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [script, *script_args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python SCRIPT` does
    status = 0
    try:
        with timeline.tracing(path, merge=merge) as tracer:
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as e:  # the script's own exit: the traces are still written
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = saved_argv
        if sys.path and sys.path[0] != saved_path0:
            del sys.path[0]
    where = path if merge else f"{path}/ ({len(tracer.files)} files)"
    print(f"tfmini trace: {tracer.runs} Session.run calls traced; Chrome trace in {where} "
          "(open in chrome://tracing or https://ui.perfetto.dev)", file=out)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tfmini", description="tfmini: a TF1-style graph engine")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="train a small model and write its graph as DOT")
    p_demo.add_argument("--steps", type=int, default=1000)
    p_demo.add_argument("--batch", type=int, default=64)
    p_demo.add_argument("--seed", type=int, default=0)
    p_demo.add_argument("--dot", default="demo_graph.dot", help="where to write the DOT file")
    p_demo.add_argument("--logdir", default="demo_logs",
                        help="where to write the event file and the checkpoint")
    sub.add_parser("ops", help="list the registered op types")
    p_dist = sub.add_parser("dist-demo", help="train across worker and ps processes on a "
                            "local Ray cluster (127.0.0.1; needs the dist extra)")
    p_dist.add_argument("--workers", type=int, default=4)
    p_dist.add_argument("--ps", type=int, default=2)
    p_dist.add_argument("--mode", choices=["sync", "async"], default="sync")
    p_dist.add_argument("--staleness", type=int, default=2,
                        help="async: the oldest gradient (in global steps) still applied")
    p_dist.add_argument("--steps", type=int, default=40, help="steps per worker")
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
    p_trace = sub.add_parser(
        "trace", help="run a Python script with every Session.run traced (Chrome traces)")
    p_trace.add_argument("--out", help="directory of per-run traces (default tfmini_traces), "
                         "or the file with --merge (default tfmini_trace.json)")
    p_trace.add_argument("--merge", action="store_true", help="one trace file for all runs")
    p_trace.add_argument("script", help="the Python script to run")
    p_trace.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    args = parser.parse_args(argv)
    if args.command == "trace":
        return trace_script(args.script, args.args, args.out, args.merge)
    try:
        if args.command == "inspect-checkpoint":
            return inspect_checkpoint(args.path, values=args.values, name=args.name)
        if args.command == "graph":
            return graph_to_dot_file(args.file, args.output, args.format)
    except (errors.OpError, OSError, ValueError) as e:
        # A file the user named that is missing or not what the command reads: one clear
        # line, not a traceback.
        message = e.message if isinstance(e, errors.OpError) else str(e)
        print(f"tfmini {args.command}: error: {message}", file=sys.stderr)
        return 1
    if args.command == "dist-demo":
        from tfmini.distribute.demo import dist_demo

        dist_demo(workers=args.workers, ps=args.ps, mode=args.mode, staleness=args.staleness,
                  steps=args.steps)
        return 0
    if args.command == "demo":
        demo(steps=args.steps, batch=args.batch, dot_path=args.dot, seed=args.seed,
             log_dir=args.logdir)
    elif args.command == "ops":
        _list_ops()
    return 0


if __name__ == "__main__":
    sys.exit(main())
