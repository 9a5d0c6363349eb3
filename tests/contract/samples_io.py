"""Contract samples for the io family (tfmini/ops/io/): checkpoint and string ops."""

import os
import tempfile

import numpy as np

import tfmini as tm
from tfmini.ops.io import bundle

R = tm.raw_ops


def _prefix(name: str) -> str:
    return os.path.join(tempfile.mkdtemp(prefix="tfmini_io_contract_"), name)


def _saved(name: str = "ckpt") -> str:
    prefix = _prefix(name)
    bundle.write_bundle(prefix, [("a", np.arange(6, dtype=np.float32).reshape(2, 3)),
                                 ("b", np.int64(7))])
    return prefix


def _merge_sample():
    first, second = _prefix("part-0"), _prefix("part-1")
    bundle.write_bundle(first, [("a", np.ones(2, np.float32))])
    bundle.write_bundle(second, [("b", np.zeros(3, np.float64))])
    return ([tm.constant([first, second]), tm.constant(_prefix("merged"))], {})


SAMPLES = {
    "SaveV2": lambda: ([tm.constant(_prefix("saved")), tm.constant(["x", "y"]),
                        tm.constant(["", ""]),
                        [tm.constant([1.0, 2.0]), tm.constant(3, tm.int64)]], {}),
    "RestoreV2": lambda: ([tm.constant(_saved()), tm.constant(["a", "b"]),
                           tm.constant(["", ""])], {"dtypes": [tm.float32, tm.int64]}),
    "MergeV2Checkpoints": _merge_sample,
    "ShardedFilename": lambda: ([tm.constant("m"), tm.constant(1), tm.constant(3)], {}),
    "ShardedFilespec": lambda: ([tm.constant("m"), tm.constant(3)], {}),
    "StringJoin": lambda: ([[tm.constant(["a", "b"]), tm.constant("-")]], {"separator": "+"}),
    "StaticRegexFullMatch": lambda: ([tm.constant(["s3://x", "/tmp/x"])],
                                     {"pattern": "^s3://.*"}),
}
