"""Contract samples for the string ops (tfmini/ops/io/string_ops.py, string_convert.py,
split_ops.py). None is differentiable (string inputs or outputs)."""

import numpy as np

import tfmini as tm


def _words():
    return np.array([b"Hello World", b"  a,b ", b""], dtype=object)


SAMPLES = {
    "RegexFullMatch": lambda: ([_words(), np.array(b".*o.*", dtype=object)], {}),
    "RegexReplace": lambda: ([_words(), np.array(b"o", dtype=object),
                              np.array(b"0", dtype=object)], {"replace_global": True}),
    "StaticRegexReplace": lambda: ([_words()], {"pattern": "l+", "rewrite": "L",
                                                "replace_global": False}),
    "StringLower": lambda: ([_words()], {"encoding": ""}),
    "StringUpper": lambda: ([_words()], {"encoding": "utf-8"}),
    "StringStrip": lambda: ([_words()], {}),
    "StringLength": lambda: ([_words()], {"unit": "UTF8_CHAR"}),
    "Substr": lambda: ([_words(), np.array([0, 1, 0], np.int32), np.array([3, 2, 0], np.int32)],
                       {"unit": "BYTE"}),
    "ReduceJoin": lambda: ([np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object),
                            np.array([1], np.int32)], {"keep_dims": False, "separator": "-"}),
    "StringToNumber": lambda: ([np.array([b"1.5", b"-2"], dtype=object)],
                               {"out_type": tm.float64}),
    "AsString": lambda: ([np.array([1.5, -2.0], np.float32)], {"precision": 2}),
    "StringFormat": lambda: ([[np.arange(4, dtype=np.int32), np.float32(2.5)]],
                             {"template": "{} and {}", "placeholder": "{}"}),
    "DecodeRaw": lambda: ([np.array([b"\x01\x00\x02\x00"], dtype=object)],
                          {"out_type": tm.int16}),
    "StringToHashBucketFast": lambda: ([_words()], {"num_buckets": 10}),
    "StringToHashBucket": lambda: ([_words()], {"num_buckets": 7}),
    "StringSplit": lambda: ([_words(), np.array(b" ,", dtype=object)], {"skip_empty": True}),
    "StringSplitV2": lambda: ([_words(), np.array(b"", dtype=object)], {"maxsplit": -1}),
}
