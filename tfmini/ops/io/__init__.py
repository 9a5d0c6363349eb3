"""The io family: TensorFlow's checkpoint ops and file formats.

* ``io_ops``: SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename, ShardedFilespec;
* ``string_ops``: StringJoin, the regex ops, case/strip/length, Substr, ReduceJoin (the text
  string ops; a sharded Saver's graph uses StringJoin and StaticRegexFullMatch);
* ``string_convert``: StringToNumber, AsString, StringFormat, DecodeRaw, StringToHashBucketFast
  (with ``farmhash``: TensorFlow's Fingerprint64);
* ``split_ops``: StringSplit, StringSplitV2 (strings to a SparseTensor of tokens);
* ``bundle``: the V2 checkpoint (``.index`` + ``.data-?????-of-?????``) reader and writer;
* ``table``: the sorted-table format of the ``.index`` file;
* ``protos``: TensorFlow's protobuf messages (GraphDef, MetaGraphDef, SaverDef, bundle
  entries, CheckpointState);
* ``summary_ops``: ScalarSummary, HistogramSummary, ImageSummary, AudioSummaryV2,
  TensorSummaryV2, MergeSummary and the ``tf.summary`` functions (``tm.summary``);
* ``encoders``: TensorFlow's histogram buckets, PNG and WAV for the summaries;
* ``events``: event files (``events.out.tfevents.*``): writing and reading records;
* ``graph_proto`` / ``graph_io``: GraphDef protobuf <-> tfmini graphs, ``write_graph``,
  ``import_graph_def`` of binary and text GraphDefs.

See ``docs/checkpoints.md`` and ``docs/summaries.md``.
"""

from __future__ import annotations

# For the train layer and tools (not part of tm.*): the formats themselves.
from tfmini.ops.io import (  # noqa: F401
    bundle,
    encoders,
    events,
    graph_proto,
    protos,
    summary_ops,  # noqa: F401  (tm.summary; its names stay out of tm.*)
)
from tfmini.ops.io import graph_io as _graph_io
from tfmini.ops.io import io_ops as _io_ops
from tfmini.ops.io import split_ops as _split_ops
from tfmini.ops.io import string_convert as _string_convert
from tfmini.ops.io import string_ops as _string_ops
from tfmini.ops.io.graph_io import *  # noqa: F403
from tfmini.ops.io.graph_io import (  # noqa: F401  (tm.io, tm.train, tm.graph_util)
    graph_def_to_proto,
    read_graph_def,
    write_graph,
)
from tfmini.ops.io.split_ops import *  # noqa: F403
from tfmini.ops.io.split_ops import strings_split  # noqa: F401  (tm.strings.split)
from tfmini.ops.io.string_convert import *  # noqa: F403
from tfmini.ops.io.string_convert import string_format  # noqa: F401  (tm.strings.format)
from tfmini.ops.io.string_ops import *  # noqa: F403
from tfmini.ops.io.string_ops import length, lower, regex_full_match, upper  # noqa: F401

_PARTS = (_io_ops, _string_ops, _string_convert, _split_ops, _graph_io)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
