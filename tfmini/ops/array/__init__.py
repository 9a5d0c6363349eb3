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
  SparseReduceMax(Sparse), SparseTensorDenseMatMul, SparseDenseCwise*;
* ``sparse_layout``: SparseReorder, SparseConcat, SparseSlice(Grad), with ``sparse_transpose``,
  ``sparse_to_indicator`` and ``from_dense``;
* ``pad_ops``: PadV2, MirrorPad, MirrorPadGrad (``pad`` in every mode);
* ``where_mask``: Where, ``boolean_mask``, ``sequence_mask``;
* ``reverse_roll``: ReverseV2, ReverseSequence, Roll;
* ``sort_search``: LowerBound, UpperBound (``searchsorted``);
* ``diagonals``: MatrixBandPart, MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3, Diag, DiagPart;
* ``tensor_scatter``: TensorScatterUpdate/Add/Sub/Min/Max, ScatterNdNonAliasingAdd;
* ``counting``: UniqueWithCounts, ListDiff, Bincount, DenseBincount, HistogramFixedWidth,
  EnsureShape, ``meshgrid``;
* ``space_batch``: SpaceToBatch(ND), BatchToSpace(ND), SpaceToDepth, DepthToSpace,
  BroadcastArgs;
* ``partition_ops``: DynamicPartition, DynamicStitch, ShapeN, UnravelIndex, CheckNumerics,
  Bitcast, ``gather_nd``, ``repeat``, ``batch_gather``.

Gradients are in ``grad`` and ``sparse_grad`` (imported by ``tfmini.ops``, after every family).
"""

from __future__ import annotations

from tfmini.ops.array import basic as _basic
from tfmini.ops.array import concat_split as _concat_split
from tfmini.ops.array import counting as _counting
from tfmini.ops.array import diagonals as _diagonals
from tfmini.ops.array import filling as _filling
from tfmini.ops.array import gather_scatter as _gather_scatter
from tfmini.ops.array import pad_ops as _pad_ops
from tfmini.ops.array import partition_ops as _partition_ops
from tfmini.ops.array import partition_stitch as _partition_stitch
from tfmini.ops.array import reverse_roll as _reverse_roll
from tfmini.ops.array import segment_ops as _segment_ops
from tfmini.ops.array import shape_ops as _shape_ops
from tfmini.ops.array import slicing as _slicing
from tfmini.ops.array import sort_search as _sort_search
from tfmini.ops.array import space_batch as _space_batch
from tfmini.ops.array import sparse_layout as _sparse_layout
from tfmini.ops.array import sparse_math as _sparse_math
from tfmini.ops.array import sparse_ops as _sparse_ops
from tfmini.ops.array import tensor_scatter as _tensor_scatter
from tfmini.ops.array import where_mask as _where_mask
from tfmini.ops.array.basic import *  # noqa: F403
from tfmini.ops.array.concat_split import *  # noqa: F403
from tfmini.ops.array.counting import *  # noqa: F403
from tfmini.ops.array.diagonals import *  # noqa: F403
from tfmini.ops.array.filling import *  # noqa: F403
from tfmini.ops.array.gather_scatter import *  # noqa: F403
from tfmini.ops.array.pad_ops import *  # noqa: F403
from tfmini.ops.array.partition_ops import *  # noqa: F403
from tfmini.ops.array.partition_stitch import *  # noqa: F403
from tfmini.ops.array.partition_stitch import parallel_dynamic_stitch  # noqa: F401
from tfmini.ops.array.reverse_roll import *  # noqa: F403
from tfmini.ops.array.segment_ops import *  # noqa: F403
from tfmini.ops.array.shape_ops import *  # noqa: F403
from tfmini.ops.array.slicing import *  # noqa: F403
from tfmini.ops.array.sort_search import *  # noqa: F403
from tfmini.ops.array.space_batch import *  # noqa: F403
from tfmini.ops.array.sparse_layout import *  # noqa: F403
from tfmini.ops.array.sparse_layout import (  # noqa: F401  (tm.sparse only)
    from_dense,
    sparse_expand_dims,
    sparse_eye,
)
from tfmini.ops.array.sparse_math import *  # noqa: F403
from tfmini.ops.array.sparse_ops import *  # noqa: F403
from tfmini.ops.array.tensor_scatter import *  # noqa: F403
from tfmini.ops.array.where_mask import *  # noqa: F403

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_basic, _concat_split, _counting, _diagonals, _filling, _gather_scatter, _pad_ops,
          _partition_ops, _partition_stitch, _reverse_roll, _segment_ops, _shape_ops, _slicing,
          _sort_search, _space_batch, _sparse_ops, _sparse_math, _sparse_layout, _tensor_scatter,
          _where_mask)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
