"""Cases for the string ops (tfmini/ops/io/string_ops.py, string_convert.py, split_ops.py),
shared by tools/record_goldens_sparse.py and tests/ops/io/test_strings.py.

Each case is a function of the module under test (``tensorflow.compat.v1`` when recording,
``tfmini`` when testing), which spell these calls the same way; see
tests/ops/math/complex_cases.py for the protocol. This module never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np

WORDS = ["hello", "", "tensorflow", "a" * 17, "b" * 31, "c" * 40, "d" * 64, "e" * 65,
         "fingerprint " * 20, "héllo wörld"]
NUMS = ["1.5", " 2.25 ", "-inf", "nan", "1e3", "0x10", "+3", ".5", "-0", "1e50", "7"]
INTS = ["12", " -7 ", "+3", "2147483647", "-2147483648", "0"]


def value_cases(tf) -> dict:
    """Named cases: each a thunk returning ``(fetches, feeds)``."""
    s = tf.strings
    c = {}
    c["split_v1"] = lambda: ({
        "default": tf.string_split(tf.constant(["a b  c", "", "de"])),
        "keep_empty": tf.string_split(tf.constant(["a b  c", "", "de"]), skip_empty=False),
        "chars": tf.string_split(tf.constant(["a,b;c", ";x"]), sep=",;"),
        "bytes": tf.string_split(tf.constant(["héllo", "ab"]), sep=""),
        "empty_batch": tf.string_split(tf.constant(["", ""])),
    }, {})
    c["split_v2"] = lambda: ({
        "whitespace": s.split(tf.constant(["a  b c ", " d", "\tx\ny"])),
        "sep": s.split(tf.constant(["a<>b<><>c", "<>"]), sep="<>"),
        "maxsplit": s.split(tf.constant(["a<>b<><>c"]), sep="<>", maxsplit=1),
        "ws_maxsplit": s.split(tf.constant(["  a b c d "]), maxsplit=2),
    }, {})

    def split_to_dense():
        sp = tf.string_split(tf.constant(["a b", "c", ""]))
        return {"default": tf.sparse.to_dense(sp),
                "pad": tf.sparse.to_dense(sp, default_value="<pad>")}, {}

    c["split_to_dense"] = split_to_dense

    def split_fed():
        x = tf.placeholder(tf.string, [None])
        return {"split": tf.string_split(x, sep="-")}, {x: np.array([b"a-b", b"c"], object)}

    c["split_fed"] = split_fed
    c["to_number"] = lambda: ({
        "float": tf.string_to_number(tf.constant(NUMS)),
        "double": s.to_number(tf.constant(NUMS), tf.float64),
        "int32": tf.string_to_number(tf.constant(INTS), tf.int32),
        "int64": s.to_number(tf.constant(["9223372036854775807", "-12", "3000000000"]),
                             tf.int64),
    }, {})
    f = np.array([1.5, -2.0, 1e10, np.nan, np.inf, 0.1], np.float32)
    c["as_string"] = lambda: ({
        "float": tf.as_string(tf.constant(f)),
        "double": tf.as_string(tf.constant(f.astype(np.float64)), precision=3),
        "zero_fill": tf.as_string(tf.constant(f[:2]), precision=2, width=8, fill="0"),
        "shortest": tf.as_string(tf.constant(f), shortest=True),
        "scientific": tf.as_string(tf.constant(f), scientific=True, precision=3),
        "bool": tf.as_string(tf.constant([True, False])),
        "complex": tf.as_string(tf.constant([1 + 2j, -0.5j], tf.complex64)),
        "int_width": tf.as_string(tf.constant([7, -3, 123456]), width=4),
        "int_left": tf.as_string(tf.constant([7, -3], tf.int64), width=4, fill="-"),
        "int8": tf.as_string(tf.constant([-128, 5], tf.int8)),
        "uint64": tf.as_string(tf.constant(np.array([2**64 - 1, 3], np.uint64))),
    }, {})
    c["format"] = lambda: ({
        "vector": s.format("x={} y={} s={}", [tf.constant(np.arange(10)),
                                               tf.constant([[1.5, 2.0], [3.0, 4.25]]),
                                               tf.constant(["ab", "c"])]),
        "scalar": s.format("x={}", tf.constant(3.5)),
        "cube": s.format("{}", tf.constant(np.arange(24).reshape(2, 3, 4)), summarize=2),
        "cube_elided": s.format("{}", tf.constant(np.arange(60).reshape(3, 4, 5)), summarize=1),
        "all": s.format("<{}>", tf.constant(np.arange(8)), summarize=-1),
        "floats": s.format("{} {}", [tf.constant([0.1, 1.0 / 3.0, 1e-7, 123456789.0]),
                                     tf.constant([1.0 / 3.0], tf.float64)]),
        "bools": s.format("{}", tf.constant([True, False])),
        "placeholder": s.format("a%sb", tf.constant(1), placeholder="%s"),
        "no_inputs": s.format("plain", []),
    }, {})
    c["length_case_strip"] = lambda: ({
        "len": s.length(tf.constant(["héllo", "", "abc"])),
        "len_chars": s.length(tf.constant(["héllo", "", "abc"]), unit="UTF8_CHAR"),
        "lower": s.lower(tf.constant(["HéLLO É", "MiXeD"])),
        "lower_utf8": s.lower(tf.constant(["HÉLLO"]), encoding="utf-8"),
        "upper": s.upper(tf.constant(["abc", "straße"])),
        "upper_utf8": s.upper(tf.constant(["straße é"]), encoding="utf-8"),
        "strip": s.strip(tf.constant(["  a b \t\n", "x", "   "])),
        "strip_v1": tf.string_strip(tf.constant([" y "])),
    }, {})
    c["regex"] = lambda: ({
        "replace": s.regex_replace(tf.constant(["aaa bab", "xyz"]), "a+", "X"),
        "replace_first": s.regex_replace(tf.constant(["aaa bab"]), "(a)(b)", r"\2\1\0",
                                         replace_global=False),
        "replace_tensor": tf.regex_replace(tf.constant(["aaa"]), tf.constant("a"),
                                           tf.constant("b")),
        "full_match": s.regex_full_match(tf.constant(["abc", "ab", "a1c"]), "a.c"),
        "full_match_tensor": s.regex_full_match(tf.constant(["abc", "ab"]), tf.constant("a.*")),
        "backslash": s.regex_replace(tf.constant(["a.b.c"]), r"\.", r"\\"),
        "missing_group": s.regex_replace(tf.constant(["a", "b"]), "a", r"<\1>"),
    }, {})
    c["substr"] = lambda: ({
        "basic": s.substr(tf.constant(["hello", "world"]), 1, 3),
        "negative": s.substr(tf.constant(["hello", "world"]), -2, 3),
        "per_element": s.substr(tf.constant(["hello", "world"]), tf.constant([0, 2]),
                                tf.constant([2, 9])),
        "broadcast": tf.substr(tf.constant([["hello", "world"], ["abc", "defg"]]),
                               tf.constant([1, 0]), tf.constant([1, 2])),
        "utf8": s.substr(tf.constant(["héllo"]), 1, 2, unit="UTF8_CHAR"),
        "at_end": s.substr(tf.constant(["abc"]), 3, 2),
        "int64": s.substr(tf.constant(["abcdef"]), tf.constant(2, tf.int64),
                          tf.constant(3, tf.int64)),
    }, {})
    m = [["a", "b", "c"], ["d", "e", "f"]]
    c["reduce_join"] = lambda: ({
        "axis0": s.reduce_join(tf.constant(m), axis=0, separator="-"),
        "all": s.reduce_join(tf.constant(m)),
        "reordered": s.reduce_join(tf.constant(m), axis=[0, 1], keepdims=True),
        "last": tf.reduce_join(tf.constant(m), axis=-1, separator=","),
        "keep_dims": tf.reduce_join(tf.constant(m), 1, keep_dims=True),
        "cube": s.reduce_join(tf.constant(np.array(list("abcdefghijkl")).reshape(2, 3, 2)),
                              axis=[2, 0], separator="."),
        "none": s.reduce_join(tf.constant(m), axis=[]),
    }, {})
    c["join"] = lambda: ({
        "join": s.join([tf.constant(["a", "b"]), tf.constant("x")], separator="-"),
        "string_join": tf.string_join([tf.constant("p"), tf.constant("q")]),
    }, {})
    c["hash"] = lambda: ({
        "fast": tf.string_to_hash_bucket_fast(tf.constant(WORDS), 1000),
        "fast_big": s.to_hash_bucket_fast(tf.constant(WORDS), 2 ** 62),
        "one": s.to_hash_bucket_fast(tf.constant(WORDS[:3]), 1),
        "hash64": tf.string_to_hash_bucket(tf.constant(WORDS), 1000),
        "hash64_big": s.to_hash_bucket(tf.constant(WORDS), 2 ** 62),
    }, {})
    raw = np.array([b"\x01\x00\x02\x00\x00\x80\xff\xff", b"\x03\x00\x04\x00\x10\x00\x00\x01"],
                   object)
    c["decode_raw"] = lambda: ({
        "int16": tf.decode_raw(tf.constant(raw), tf.int16),
        "int16_be": tf.decode_raw(tf.constant(raw), tf.int16, little_endian=False),
        "float": tf.decode_raw(tf.constant(raw), tf.float32),
        "uint8": tf.io.decode_raw(tf.constant(raw[:1]), tf.uint8),
        "float64": tf.decode_raw(tf.constant(raw[:1]), tf.float64),
        "uint16": tf.decode_raw(tf.constant(raw), tf.uint16),
    }, {})
    return c


def build_error_cases(tf) -> dict:
    """Thunks that raise TypeError/ValueError while building."""
    s = tf.strings
    return {
        "format_count": lambda: s.format("{} {}", [tf.constant(1)]),
        "split_rank": lambda: tf.string_split(tf.constant([["a"]])),
        "to_number_type": lambda: tf.string_to_number(tf.constant(["1"]), tf.int8),
        "substr_shapes": lambda: s.substr(tf.constant(["abc"]), tf.constant([1, 2]),
                                          tf.constant([1])),
        "reduce_join_axis": lambda: s.reduce_join(tf.constant([["a"]]), axis=2),
        "as_string_type": lambda: tf.as_string(tf.placeholder(tf.resource)),
    }


def run_error_cases(tf) -> dict:
    """Thunks returning ``(fetch, feeds)`` that fail when run."""
    s = tf.strings
    def num(x, t=None):
        return lambda: (tf.string_to_number(tf.constant([x]), t or tf.float32), {})

    return {
        "to_number_garbage": num("x1.5"),
        "to_number_underscore": num("1_0"),
        "to_number_empty": num(""),
        "to_number_int_float": num("3.7", tf.int32),
        "to_number_int_overflow": num("3000000000", tf.int32),
        "to_number_int64_hex": num("0x10", tf.int64),
        "substr_pos": lambda: (s.substr(tf.constant(["hello"]), 7, 1), {}),
        "substr_neg_pos": lambda: (s.substr(tf.constant(["hi", "hello"]), -3, 1), {}),
        "decode_raw_sizes": lambda: (tf.decode_raw(
            tf.constant([b"\x01\x00\x02\x00", b"\x03\x00"]), tf.int16), {}),
        "decode_raw_multiple": lambda: (tf.decode_raw(tf.constant([b"\x01\x00\x02"]),
                                                      tf.int16), {}),
        "as_string_both": lambda: (tf.as_string(tf.constant([1.0]), scientific=True,
                                                shortest=True), {}),
        "as_string_fill": lambda: (tf.as_string(tf.constant([1.0]), fill="ab"), {}),
        "as_string_fill_char": lambda: (tf.as_string(tf.constant([1.0]), fill="x"), {}),
        "as_string_precision_int": lambda: (tf.as_string(tf.constant([1]), precision=2), {}),
        "regex_bad": lambda: (s.regex_replace(tf.constant(["a"]), "(", "x"), {}),
        "full_match_bad": lambda: (s.regex_full_match(tf.constant(["a"]), "a)"), {}),
        "split_fed_matrix": lambda: _split_fed_matrix(tf),
    }


def _split_fed_matrix(tf):
    x = tf.placeholder(tf.string)
    return tf.string_split(x).values, {x: np.array([[b"a"]], object)}
