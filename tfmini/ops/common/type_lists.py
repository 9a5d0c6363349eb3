"""The dtype lists that op families write into their OpDefs' type attrs.

TensorFlow spells them ``realnumbertypes``, ``numbertypes``, ``floatingpointtypes``
(``tensorflow/core/framework/types.h``); these are the same lists restricted to the dtypes
tfmini has, in one place so that the families cannot drift apart.
"""

FLOAT_TYPES = "bfloat16, half, float, double"
INT_TYPES = "int8, int16, int32, int64, uint8"
NUMERIC_TYPES = f"{FLOAT_TYPES}, {INT_TYPES}"
SIGNED_TYPES = f"{FLOAT_TYPES}, int8, int16, int32, int64"  # Neg, Abs, Sign, Pow: no uint8
REAL_TYPES = NUMERIC_TYPES  # comparisons, Maximum/Minimum, reductions, FloorMod
INDEX_TYPES = "{int32, int64}"
COMPLEX_TYPES = "complex64, complex128"
NUMBER_TYPES = f"{NUMERIC_TYPES}, {COMPLEX_TYPES}"  # TensorFlow's numbertypes: real and complex
FLOAT_COMPLEX_TYPES = f"{FLOAT_TYPES}, {COMPLEX_TYPES}"  # Sqrt, Exp, Log, ...: no integers
SIGNED_COMPLEX_TYPES = f"{SIGNED_TYPES}, {COMPLEX_TYPES}"  # Neg, Sign, Pow, Reciprocal
