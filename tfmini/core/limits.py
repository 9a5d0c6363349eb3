"""Documented bounds on what one graph may ask for, so that input size bounds memory and time.

TensorFlow has few explicit limits (a protobuf of 2 GB, the allocator's memory); a 486-byte
graph_def asking for ``Split num_split=1000000`` would still make a million output tensors.
tfmini refuses such requests up front, with a message naming the node and the limit, before
it allocates for them. Each limit is a module constant; docs/reliability.md lists them with
their reasons.
"""

from __future__ import annotations

__all__ = [
    "MAX_ATTR_DEPTH",
    "MAX_FUNCTION_DEPTH",
    "MAX_OUTPUTS_PER_OP",
]

# Output tensors of one op (Split's num_split, Unpack's num, a list(type) output). Each output
# costs a few hundred bytes of graph structure even before anything runs; 65,536 outputs of
# one op is far beyond any real model (TensorFlow's own tests split into at most a few
# thousand pieces).
MAX_OUTPUTS_PER_OP = 1 << 16

# Nesting of library functions (a cond inside a while_loop inside a cond ...). The importer
# builds a function when the first node naming it is built, so nesting is also Python call
# depth; 64 keeps it far from the interpreter's recursion limit.
MAX_FUNCTION_DEPTH = 64

# Nesting of lists and dicts inside one attr value of a graph_def. The deepest legitimate
# encoding is a list of tensors holding bytes elements (list -> {"tensor"} -> tensor dict ->
# values -> {"bytes"}), five levels; "any" attrs of custom ops get some room beyond that.
MAX_ATTR_DEPTH = 16
