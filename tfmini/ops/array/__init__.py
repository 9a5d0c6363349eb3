"""The array family: constants, placeholders, shapes, concatenation, slicing, filling, gathers.

One module per kind of op, each registering its ops (OpDef, shape function, kernel) and
listing its TF1-style functions in ``__all__``:

* ``basic``: literal conversion, Const, Placeholder(WithDefault), Identity(N), StopGradient,
  NoOp;
* ``shape``: Shape, Size, Rank, Reshape, ExpandDims, Squeeze, Transpose, InvertPermutation,
  Tile, BroadcastTo, BroadcastArgs, BroadcastGradientArgs;
* ``concat_split``: ConcatV2, ConcatOffset, Pack, Unpack, Split, SplitV;
* ``slicing``: Slice, StridedSlice, StridedSliceGrad, Pad and ``x[...]`` on tensors;
* ``filling``: Fill (``zeros``, ``ones``), ZerosLike, OnesLike, Range;
* ``gather_scatter``: GatherV2, GatherNd, ScatterNd, UnsortedSegmentSum, Unique, OneHot;
* ``partition_stitch``: DynamicPartition, DynamicStitch, ParallelDynamicStitch;
* ``segment_ops``: SegmentSum, SparseSegmentSum/Mean/SqrtN and their *Grad ops;
* ``sparse_ops``: SparseToDense, SparseFillEmptyRows(Grad), SparseReshape, Where and the
  functions over SparseTensor (``sparse_placeholder``, ``sparse_retain``, ...);
* ``sparse_math``: SparseAdd(Grad), SparseTensorDenseAdd, SparseReduceSum(Sparse),
  SparseTensorDenseMatMul;
* ``sparse_layout``: SparseReorder, SparseConcat, SparseSlice(Grad), with ``sparse_transpose``,
  ``sparse_to_indicator`` and ``from_dense``.

Gradients are in ``grad`` and ``sparse_grad`` (imported by ``tfmini.ops``, after every family).
"""

from __future__ import annotations

from tfmini.ops.array import basic as _basic
from tfmini.ops.array import concat_split as _concat_split
from tfmini.ops.array import filling as _filling
from tfmini.ops.array import gather_scatter as _gather_scatter
from tfmini.ops.array import partition_stitch as _partition_stitch
from tfmini.ops.array import segment_ops as _segment_ops
from tfmini.ops.array import shape_ops as _shape_ops
from tfmini.ops.array import slicing as _slicing
from tfmini.ops.array import sparse_layout as _sparse_layout
from tfmini.ops.array import sparse_math as _sparse_math
from tfmini.ops.array import sparse_ops as _sparse_ops
from tfmini.ops.array.basic import *  # noqa: F403
from tfmini.ops.array.concat_split import *  # noqa: F403
from tfmini.ops.array.filling import *  # noqa: F403
from tfmini.ops.array.gather_scatter import *  # noqa: F403
from tfmini.ops.array.partition_stitch import *  # noqa: F403
from tfmini.ops.array.partition_stitch import parallel_dynamic_stitch  # noqa: F401
from tfmini.ops.array.segment_ops import *  # noqa: F403
from tfmini.ops.array.shape_ops import *  # noqa: F403
from tfmini.ops.array.slicing import *  # noqa: F403
from tfmini.ops.array.sparse_layout import *  # noqa: F403
from tfmini.ops.array.sparse_layout import from_dense  # noqa: F401  (tm.sparse.from_dense)
from tfmini.ops.array.sparse_math import *  # noqa: F403
from tfmini.ops.array.sparse_ops import *  # noqa: F403

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_basic, _shape_ops, _concat_split, _slicing, _filling, _gather_scatter,
          _partition_stitch, _sparse_ops, _sparse_math, _sparse_layout, _segment_ops)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
