"""``tm.strings``: the string functions of ``tf.compat.v1.strings``.

A thin namespace over the io family's string modules (``tfmini/ops/io/string_ops.py``,
``string_convert.py``, ``split_ops.py``). ``split`` is TF1's: it returns a SparseTensor.
"""

from __future__ import annotations

from tfmini.ops.io import (
    as_string,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    string_format,
    string_join,
    string_split,
    string_strip,
    string_to_hash_bucket,
    string_to_hash_bucket_fast,
    string_to_number,
    strings_split,
    substr,
    upper,
)

join = string_join
split = strings_split
to_number = string_to_number
format = string_format  # noqa: A001  (tf.strings.format)
strip = string_strip
to_hash_bucket_fast = string_to_hash_bucket_fast
to_hash_bucket = string_to_hash_bucket

__all__ = ["as_string", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
           "to_number",
           "upper"]

del string_split  # tm.string_split is the top-level TF1 name
