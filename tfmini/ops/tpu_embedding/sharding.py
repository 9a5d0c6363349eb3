"""How a TPU embedding table's rows are sharded across the simulated cores.

DIV_DEFAULT gives each shard one contiguous block of rows (the first ``vocab % n`` shards one
row more); MOD puts id ``i`` on shard ``i % n``. Pure arithmetic on sizes and id arrays, used
by the device state and the Load/Retrieve ops. Re-exported by
``tfmini.ops.tpu_embedding.config``.
"""

from __future__ import annotations

import numpy as np


def _check_shard(vocabulary_size: int, num_shards: int, shard_id: int) -> None:
    if num_shards < 1:
        raise ValueError(f"num_shards must be >= 1, got {num_shards}")
    if not 0 <= shard_id < num_shards:
        raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id}")
    if vocabulary_size < 0:
        raise ValueError(f"vocabulary_size must be >= 0, got {vocabulary_size}")


def shard_size(vocabulary_size: int, num_shards: int, shard_id: int) -> int:
    """Rows on ``shard_id``: ``vocab // n`` plus one on the first ``vocab % n`` shards.

    DIV and MOD give every shard the same count, so the strategy does not matter here.
    """
    _check_shard(vocabulary_size, num_shards, shard_id)
    base, extra = divmod(vocabulary_size, num_shards)
    return base + (1 if shard_id < extra else 0)


def shard_row_range(vocabulary_size: int, num_shards: int, shard_id: int) -> range:
    """The global row ids held by ``shard_id`` under DIV_DEFAULT: one contiguous block.

    Example: 13 ids on 5 shards -> [0,1,2], [3,4,5], [6,7,8], [9,10], [11,12].
    """
    _check_shard(vocabulary_size, num_shards, shard_id)
    base, extra = divmod(vocabulary_size, num_shards)
    start = shard_id * base + min(shard_id, extra)
    return range(start, start + base + (1 if shard_id < extra else 0))


def shard_row_ids(
    vocabulary_size: int, num_shards: int, shard_id: int, strategy: str = "DIV_DEFAULT"
) -> np.ndarray:
    """The global row ids held by ``shard_id``, in the shard's local row order (int64).

    Example: 13 ids on 5 shards, MOD -> [0,5,10], [1,6,11], [2,7,12], [3,8], [4,9].
    """
    if strategy == "MOD":
        _check_shard(vocabulary_size, num_shards, shard_id)
        return np.arange(shard_id, vocabulary_size, num_shards, dtype=np.int64)
    if strategy != "DIV_DEFAULT":
        raise ValueError(f"sharding strategy must be 'DIV_DEFAULT' or 'MOD', got {strategy!r}")
    r = shard_row_range(vocabulary_size, num_shards, shard_id)
    return np.arange(r.start, r.stop, dtype=np.int64)


def shard_of_ids(
    ids: np.ndarray, vocabulary_size: int, num_shards: int, strategy: str = "DIV_DEFAULT"
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised: for global ids in [0, vocab), their (shard, local row) as int64 arrays."""
    ids = np.asarray(ids, dtype=np.int64)
    if num_shards < 1:
        raise ValueError(f"num_shards must be >= 1, got {num_shards}")
    if strategy == "MOD":
        return ids % num_shards, ids // num_shards
    if strategy != "DIV_DEFAULT":
        raise ValueError(f"sharding strategy must be 'DIV_DEFAULT' or 'MOD', got {strategy!r}")
    base, extra = divmod(vocabulary_size, num_shards)
    # The first `extra` shards hold base+1 rows, the rest base rows (base may be 0).
    boundary = extra * (base + 1)
    big = ids < boundary
    shard = np.where(big, ids // (base + 1), extra + (ids - boundary) // max(base, 1))
    local = np.where(big, ids % (base + 1), (ids - boundary) % max(base, 1))
    return shard.astype(np.int64), local.astype(np.int64)
