"""The tfmini-written checkpoint that TensorFlow's verdict is recorded on.

``python -m tests.ops.io.fixture DIR`` writes it (``tools/record_goldens_io.py`` runs this
with tfmini, then checks the files under TensorFlow); ``test_interop.py`` writes it again and
checks the bytes are the same as the committed ``tests/goldens/io/tfmini_ckpt``.
"""

from __future__ import annotations

import os
import sys

import numpy as np

# Fixed values (the recorder computes the same formulas under TensorFlow).
VALUES = {
    "dense/kernel": np.arange(12, dtype=np.float32).reshape(3, 4) / 8 - 0.5,
    "dense/bias": np.array([0.25, -1.5, 3.0, 0.0], np.float32),
    "global_step": np.int64(17),
    "dense/kernel/Adam": np.full((3, 4), 0.125, np.float32),
    "counts": np.array([[1, -2], [3, 4]], np.int32),
    "weights64": np.linspace(-1, 1, 5).astype(np.float64),
}


def write(directory: str) -> str:
    """Builds a graph holding VALUES as variables (ref and resource), saves it with
    ``tm.train.Saver`` to ``directory/model.ckpt`` and returns the prefix."""
    import tfmini as tm

    g = tm.Graph()
    with g.as_default():
        made = []
        for i, (name, value) in enumerate(VALUES.items()):
            made.append(tm.Variable(value, name=name, use_resource=bool(i % 2)))
        saver = tm.train.Saver(made)
        with tm.Session(graph=g) as sess:
            sess.run(tm.global_variables_initializer())
            return saver.save(sess, os.path.join(directory, "model.ckpt"),
                              write_meta_graph=False, write_state=False)


if __name__ == "__main__":
    print(write(sys.argv[1]))
