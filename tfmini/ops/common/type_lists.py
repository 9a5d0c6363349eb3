"""The dtype lists that op families write into their OpDefs' type attrs.

TensorFlow spells them ``realnumbertypes``, ``numbertypes``, ``floatingpointtypes``
(``tensorflow/core/framework/types.h``); these are the same lists restricted to the dtypes
tfmini has, in one place so that the families cannot drift apart.
"""

FLOAT_TYPES = "half, float, double"
INT_TYPES = "int8, int16, int32, int64, uint8"
NUMERIC_TYPES = f"{FLOAT_TYPES}, {INT_TYPES}"
SIGNED_TYPES = f"{FLOAT_TYPES}, int8, int16, int32, int64"  # Neg, Abs, Sign, Pow: no uint8
REAL_TYPES = NUMERIC_TYPES  # comparisons, Maximum/Minimum, reductions, FloorMod
INDEX_TYPES = "{int32, int64}"
