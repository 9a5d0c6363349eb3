"""Records TensorFlow's random streams into tests/goldens/random.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_random.py

Keys:

* ``raw/<Op>/<dtype>/<shape>/<seed>_<seed2>``: two consecutive runs of one stateful op
  (stacked), for RandomStandardNormal, RandomUniform and TruncatedNormal;
* ``int/<Tout>/<lo>_<hi>/<shape>/<seed>_<seed2>``: the same for RandomUniformInt;
* ``stateless/<Op>/<dtype>/<shape>/<s0>_<s1>`` and ``stateless_int/...``: one run;
* ``sampler/<name>``: the cases of ``programs.SAMPLER_CASES`` (shuffle, multinomial, gamma,
  Poisson, the stateless V2 ops; stateful ones run twice, stacked; ``.../out<j>`` for the
  outputs of the key-counter ops);
* ``program/<name>/<key>``: the TF1 programs of ``tests/ops/random/programs.py``.

Everything is seeded, so re-running gives the same file.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # the plain kernels: sums in a fixed order

import tensorflow.compat.v1 as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_v2_behavior()

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "goldens" / "random.npz"
spec = importlib.util.spec_from_file_location(
    "random_programs", ROOT / "tests" / "ops" / "random" / "programs.py")
P = importlib.util.module_from_spec(spec)
spec.loader.exec_module(P)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    records[key] = np.asarray(value)


# One intra-op thread for the whole process: the CPU device's thread pool is created by the
# first session and shared by the later ones. Multinomial and ParameterizedTruncatedNormal
# shard large inputs over that pool, and their bits then depend on its size; tfmini follows
# the one-thread order (equal to any thread count for inputs below the sharding cost).
with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1)):
    pass


def runs(op: str, n: int = P.RUNS, **kwargs) -> np.ndarray:
    """``n`` consecutive runs (stacked) of ``tf.raw_ops.<op>(**kwargs)`` in one session."""
    g = tf.Graph()
    with g.as_default():
        t = getattr(tf.raw_ops, op)(**kwargs)
        with tf.Session() as sess:
            return np.stack([sess.run(t) for _ in range(n)])


for op in P.FLOAT_OPS:
    for dt in P.FLOATS:
        for shape in P.SHAPES:
            for seed, seed2 in P.SEEDS:
                val = runs(op, shape=list(shape), dtype=dt, seed=seed, seed2=seed2)
                put(f"raw/{op}/{dt}/{P.shape_key(shape)}/{seed}_{seed2}", val)

for dt, lo, hi in P.INT_CASES:
    for shape in P.SHAPES:
        for seed, seed2 in P.SEEDS[:2]:
            val = runs("RandomUniformInt", shape=list(shape), minval=np.array(lo, dt),
                       maxval=np.array(hi, dt), seed=seed, seed2=seed2)
            put(f"int/{dt}/{lo}_{hi}/{P.shape_key(shape)}/{seed}_{seed2}", val)

for op in P.STATELESS_OPS:
    for dt in P.FLOATS:
        for shape in P.SHAPES:
            for s0, s1 in P.STATELESS_SEEDS:
                val = runs(op, 1, shape=list(shape), seed=np.array([s0, s1], np.int64),
                           dtype=dt)[0]
                put(f"stateless/{op}/{dt}/{P.shape_key(shape)}/{s0}_{s1}", val)

for dt, lo, hi in P.INT_CASES:
    for s0, s1 in P.STATELESS_SEEDS:
        val = runs("StatelessRandomUniformInt", 1, shape=[11], seed=np.array([s0, s1], np.int64),
                   minval=np.array(lo, dt), maxval=np.array(hi, dt))[0]
        put(f"stateless_int/{dt}/{lo}_{hi}/11/{s0}_{s1}", val)

def outputs(op: str, **kwargs) -> list:
    """One run of an op with several outputs (StatelessRandomGetKeyCounter...)."""
    g = tf.Graph()
    with g.as_default():
        t = getattr(tf.raw_ops, op)(**kwargs)
        with tf.Session() as sess:
            return sess.run(list(t))


for name, (op, kwargs) in P.SAMPLER_CASES.items():
    if op.startswith("StatelessRandomGetKeyCounter"):
        for j, val in enumerate(outputs(op, **kwargs)):
            put(f"sampler/{name}/out{j}", val)
    else:
        put(f"sampler/{name}", runs(op, 1, **kwargs)[0] if name.startswith("Stateless") else
            runs(op, **kwargs))

for name, program in P.PROGRAMS.items():
    for key, val in program(tf).items():
        put(f"program/{name}/{key}", val)

np.savez_compressed(OUT, **records)
print("wrote", OUT, len(records), "arrays,", OUT.stat().st_size, "bytes")
