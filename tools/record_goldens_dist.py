"""Records TensorFlow 2.21's device placements and ClusterSpec results into tests/goldens/dist.json.

The cases live in tests/distribute/placement_cases.py, shared with the tests that replay them
under tfmini: graphs built under ``tf.train.replica_device_setter``, ``tf.device`` (strings and
functions) and ``tf.colocate_with``, with every op's device recorded, and the ClusterSpec and
DeviceSpec API's results and errors.

Run:  /tmp/tfenv/bin/python tools/record_goldens_dist.py
"""

from __future__ import annotations

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from tests.distribute.placement_cases import CASES  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "dist.json")


def main() -> None:
    import tensorflow as tf_root

    warnings.filterwarnings("ignore")
    tf = tf_root.compat.v1
    tf.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    out = {}
    for name, case in CASES.items():
        with tf.Graph().as_default():
            out[name] = case(tf)
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(out)} cases to {os.path.normpath(GOLDEN)}", file=sys.stderr)


if __name__ == "__main__":
    main()
