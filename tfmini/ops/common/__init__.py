"""Helpers shared by every op family (not a family: it registers no op).

* ``shape_fns``: shape-function building blocks;
* ``kernel_util``: kernel-side checks and error constructors;
* ``build_util``: build-side helpers (operands, autopacking, name scopes);
* ``constant_folding``: build-time values of small constant subgraphs;
* ``indexed_slices``: :class:`IndexedSlices`, the sparse gradient value;
* ``resources``: :class:`ResourceHandle` and finding the resource a handle names;
* ``memory``: the per-allocation cap kernels check before allocating a requested size;
* ``segment_reduce``: row sums by id, stable integer sorts and ``Unique``'s arithmetic;
* ``parallel``: work sharing for large kernels, as wide as the runtime's thread policy allows.
* ``native``: fused elementwise loops (Adam's update) compiled on first use, NumPy otherwise.

Families import these modules directly (``from tfmini.ops.common.kernel_util import ...``).
"""
