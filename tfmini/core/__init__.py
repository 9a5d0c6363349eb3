"""The graph IR: dtypes, shapes, Graph/Operation/Output, Scope, OpDef registry and builder.

This layer knows no op by name and never imports ``tfmini.ops`` or ``tfmini.runtime``.
"""
