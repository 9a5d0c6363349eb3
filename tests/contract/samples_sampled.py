"""Contract samples for the candidate samplers (tfmini/ops/nn/candidate_sampling_ops.py), the
partition/stitch ops (tfmini/ops/array/partition_stitch.py), the sparse ops
(tfmini/ops/array/sparse_ops.py) and the segment ops (tfmini/ops/array/segment_ops.py)."""

import numpy as np

_TC = np.array([[0, 3], [5, 1]], np.int64)
_SAMPLER = {"num_true": 2, "num_sampled": 4, "unique": True, "range_max": 8, "seed": 1,
            "seed2": 2}


def _data(shape, dtype=np.float64):
    n = int(np.prod(shape))
    return (np.linspace(-1.5, 2.0, n)[np.random.default_rng(3).permutation(n)]
            .reshape(shape).astype(dtype))


SAMPLES = {
    "UniformCandidateSampler": lambda: ([_TC], dict(_SAMPLER)),
    "LogUniformCandidateSampler": lambda: ([_TC], dict(_SAMPLER, unique=False)),
    "LearnedUnigramCandidateSampler": lambda: ([_TC], dict(_SAMPLER)),
    "ThreadUnsafeUnigramCandidateSampler": lambda: ([_TC], dict(_SAMPLER, unique=False)),
    "FixedUnigramCandidateSampler": lambda: (
        [_TC], dict(_SAMPLER, unigrams=[1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0],
                    distortion=0.5)),
    "AllCandidateSampler": lambda: (
        [_TC], {"num_true": 2, "num_sampled": 6, "unique": False, "seed": 0, "seed2": 0}),
    "ComputeAccidentalHits": lambda: (
        [_TC, np.array([3, 7, 0, 3], np.int64)], {"num_true": 2}),
    "DynamicPartition": lambda: (
        [_data((5, 2)), np.array([1, 0, 2, 1, 1], np.int32)], {"num_partitions": 3}),
    "DynamicStitch": lambda: (
        [[np.array([0, 3], np.int32), np.array([[1], [2]], np.int32)],
         [_data((2, 3)), _data((2, 1, 3))]], {}),
    "ParallelDynamicStitch": lambda: (
        [[np.array([2, 0], np.int32), np.array([1, 3], np.int32)],
         [_data((2, 2)), _data((2, 2))]], {}),
    "SparseToDense": lambda: (
        [np.array([[0, 1], [2, 0]], np.int64), np.array([3, 2], np.int64),
         _data((2,)), np.float64(0.5)], {"validate_indices": True}),
    "SparseFillEmptyRows": lambda: (
        [np.array([[2, 0], [0, 1], [2, 2]], np.int64), _data((3,)), np.array([4, 3], np.int64),
         np.float64(-1.0)], {}),
    "SparseFillEmptyRowsGrad": lambda: (
        [np.array([3, 0, 2], np.int64), _data((5,))], {}),
    "SparseReshape": lambda: (
        [np.array([[0, 1], [2, 3]], np.int64), np.array([3, 4], np.int64),
         np.array([2, -1], np.int64)], {}),
}

_SEG = [np.array([3, 0, 0, 2], np.int32), np.array([0, 0, 1, 3], np.int32)]
for _kind in ("Sum", "Mean", "SqrtN"):
    SAMPLES[f"SparseSegment{_kind}"] = lambda: ([_data((4, 3)), *_SEG], {})
    SAMPLES[f"SparseSegment{_kind}Grad"] = lambda: ([_data((4, 3)), *_SEG, np.int32(5)], {})
    SAMPLES[f"SparseSegment{_kind}GradV2"] = lambda: ([_data((4, 3)), *_SEG, np.int32(5)], {})
