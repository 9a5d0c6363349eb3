"""``tm.io``: TensorFlow's ``tf.io`` functions for graph files.

``write_graph`` (binary ``.pb`` / text ``.pbtxt``), ``read_graph_def``, ``graph_def_to_proto``
(a tfmini Graph as TensorFlow's ``GraphDef`` message) and ``import_graph_def``.
"""

from __future__ import annotations

from tfmini.ops.io import (
    graph_def_to_proto,
    import_graph_def,
    read_graph_def,
    write_graph,
)

__all__ = ["graph_def_to_proto", "import_graph_def", "read_graph_def", "write_graph"]
