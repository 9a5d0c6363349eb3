"""The one op builder behind ``tm.ops.<Op>.create``, ``tm.raw_ops.<Op>`` and the TF1 functions.

It checks inputs and attrs against the OpDef, infers type and length attrs,
names the op from the scope, runs the shape function (so shape errors surface
at the user's line), records where the user built the op, and adds the
Operation to the graph.
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from typing import Any

from tfmini.core import registry
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.devices import DeviceSpec
from tfmini.core.dtypes import DType
from tfmini.core.graph import NAME_PATTERN_TEXT, VALID_OP_NAME_REGEX, Graph, Operation, Output
from tfmini.core.limits import MAX_OUTPUTS_PER_OP
from tfmini.core.opdef import OpDef, group_flat, normalize_attr_value
from tfmini.core.scope import Scope, apply_device_stack, scope_context
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.core.source import user_location


class InferenceContext:
    """What a shape function sees: input shapes, dtypes, static values and attrs.

    Inputs are addressed by argument name or index (a list argument gives a
    list). The shape function returns one shape per output, list outputs
    flattened, as TensorShapes or anything ``as_shape`` accepts.
    """

    def __init__(self, op_def: OpDef, name: str, inputs: list, attrs: Mapping[str, Any]):
        self.op_def = op_def
        self.op_type = op_def.name
        self.name = name
        self._inputs = inputs
        self.attrs = attrs

    def _index(self, key: int | str) -> int:
        if isinstance(key, int):
            return key
        for i, arg in enumerate(self.op_def.inputs):
            if arg.name == key:
                return i
        raise KeyError(f"{self.op_type} has no input named {key!r}")

    def input(self, key: int | str):
        return self._inputs[self._index(key)]

    def input_shape(self, key: int | str):
        v = self.input(key)
        return [o.shape for o in v] if isinstance(v, list) else v.shape

    def input_dtype(self, key: int | str):
        v = self.input(key)
        return [o.dtype for o in v] if isinstance(v, list) else v.dtype

    def input_value(self, key: int | str):
        """The input's value if it is known when the graph is built (a Const...), else None."""
        v = self.input(key)
        if isinstance(v, list):
            return [static_value(o) for o in v]
        return static_value(v)

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    @property
    def num_inputs(self) -> int:
        return len(self._inputs)


def static_value(output: Output):
    """The value of ``output`` when known at build time (through the op's ``value_fn``)."""
    fn = output.op.op_def.value_fn
    if fn is None:
        return None
    try:
        return fn(output)
    except Exception:  # a value function that cannot decide simply does not know
        return None


def _describe_inputs(inputs: list) -> str:
    parts = []
    for v in inputs:
        items = v if isinstance(v, list) else [v]
        for o in items:
            parts.append(o.shape.tf_str())
    return ", ".join(parts)


def _convert_symbolic(value: Any, graph: Graph, hint: DType | None, scope: Scope) -> Output:
    if isinstance(value, Output):
        out = value
    else:
        with scope_context(scope):
            out = None
            if hint is not None and hint.name == "resource":
                # Ask for the resource itself first: a variable then gives its handle instead
                # of building a read that nothing would use.
                try:
                    out = convert_to_tensor(value, dtype=hint)
                except (TypeError, ValueError):
                    out = None  # not a resource: the input check below says so
            if out is None:
                out = convert_to_tensor(value, dtype_hint=hint) if hint is not None else (
                    convert_to_tensor(value)
                )
    if out.graph is not graph:
        if out.graph._is_ancestor_of(graph):
            return graph._capture(out)
        raise ValueError(
            f"Tensor {out.name} must be from the same graph as the op being built "
            f"(it belongs to another graph)."
        )
    return out


def _convert_literal(
    value: Any, dtype: DType | None, scope: Scope, arg_name: str, op_type: str, const_name: str
):
    with scope_context(scope):
        try:
            return convert_to_tensor(value, dtype=dtype, name=const_name)
        except (TypeError, ValueError) as e:
            if dtype is None:
                raise TypeError(
                    f"Failed to convert {value!r} of type '{type(value).__name__}' for "
                    f"parameter '{arg_name}' of op '{op_type}' to a tensor. Error: {e}"
                ) from e
            # TensorFlow's op_def_library wording.
            raise TypeError(
                f"Expected {dtype.name} passed to parameter '{arg_name}' of op '{op_type}', got "
                f"{value!r} of type '{type(value).__name__}' instead. Error: {e}"
            ) from e


def build_op(
    scope: Scope,
    op_type: str | OpDef,
    inputs: Sequence[Any] = (),
    attrs: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> Operation:
    """Builds one op into ``scope.graph`` and returns the Operation.

    Args:
        scope: Where to build (graph, name prefix, control dependencies, device).
        op_type: The registered type string, or an OpDef.
        inputs: One entry per input argument of the OpDef; a list for list arguments.
            Entries are Outputs, operands, variables or Python/NumPy literals.
        attrs: Attr values by name; inferred attrs (T, N) may be omitted.
        name: Explicit op name (made unique); default ``scope.make_op_name(op_type)``.

    Raises:
        NotFoundError: unknown op type.
        TypeError: wrong number of inputs, wrong input dtypes, unknown or missing attrs.
        ValueError: invalid attr values, invalid names, or shapes rejected by the shape function.
    """
    op_def = op_type if isinstance(op_type, OpDef) else registry.get(op_type)
    graph = scope.graph
    if graph._finalized:
        raise RuntimeError("Graph is finalized and cannot be modified.")
    if name is not None and (not isinstance(name, str) or not VALID_OP_NAME_REGEX.match(name)):
        raise ValueError(
            f"'{name}' is not a valid node name: it must match the regular expression "
            f"{NAME_PATTERN_TEXT}"
        )
    # Literal inputs become Consts before the op itself can fail (shape function, a later
    # input's dtype): on any failure the graph goes back to how it was, names included.
    with graph._lock:
        checkpoint = graph._checkpoint()
        try:
            return _build(scope, op_def, inputs, attrs, name)
        except BaseException:
            graph._rollback(checkpoint)
            raise
        finally:
            graph._end_build()


def _build(
    scope: Scope, op_def: OpDef, inputs: Sequence[Any], attrs: Mapping[str, Any] | None,
    name: str | None,
) -> Operation:
    op_type = op_def.name
    attrs = dict(attrs or {})
    graph = scope.graph
    if len(inputs) != len(op_def.inputs):
        arg_names = ", ".join(a.name for a in op_def.inputs) or "none"
        raise TypeError(
            f"{op_type} takes {len(op_def.inputs)} input(s) ({arg_names}), got {len(inputs)}"
        )
    # The op's name comes first, as in TensorFlow: its inputs that must be built (constants
    # from literals, variable reads) are named inside it ("Add/y"). A failed build gives the
    # name back (build_op rolls the graph back).
    exact = name is not None and name.endswith("/")
    if exact:
        # TensorFlow's name_from_scope_name: "foo/" is the absolute name "foo", not uniquified.
        op_name = name[:-1]
        if op_name in graph:
            raise ValueError(f"Duplicate node name in graph: '{op_name}'")
        # Reserve the name if nothing has used it yet; a name scope that already reserved it
        # (TF's `with name_scope(name, "default") as name: ... op(name=name)` idiom) keeps
        # its count, so the next scope of that name is "<name>_1", as in TensorFlow.
        if graph.unique_name(op_name, mark_as_used=False) == op_name:
            graph.unique_name(op_name)
    elif name is not None:
        full = f"{scope.name_prefix}/{name}" if scope.name_prefix else name
        op_name = graph.unique_name(full)
    else:
        # Internal ops (_Send, _Recv) default to a name without the underscore: node names
        # may not start with one.
        op_name = scope.make_op_name(op_type.lstrip("_") or op_type)
    inner = Scope(graph, op_name, scope.control_dependencies, scope.device,
                  device_stack=scope.device_stack, colocate_op=scope.colocate_op)

    norm: dict[str, Any] = {}
    for key, value in attrs.items():
        attr = op_def.attr(key)
        if attr is None:
            known = ", ".join(op_def.attr_names) or "none"
            raise TypeError(f"{op_type} got an unexpected attr '{key}' (its attrs: {known})")
        norm[key] = normalize_attr_value(attr, value, op_type)

    # Pass 1: inputs that are already symbolic fix the type attrs.
    converted: list[Any] = [None] * len(inputs)
    type_source: dict[str, str] = {}

    def note_type(attr_name: str, dt: DType, arg_name: str) -> None:
        have = norm.get(attr_name)
        if have is None:
            norm[attr_name] = dt
            type_source[attr_name] = arg_name
        elif have != dt:
            other = type_source.get(attr_name)
            if other is None:
                raise TypeError(
                    f"Input '{arg_name}' of '{op_type}' Op has type {dt.name} that does "
                    f"not match the attr {attr_name}={have.name}"
                )
            raise TypeError(
                f"Input '{arg_name}' of '{op_type}' Op has type {dt.name} that does not "
                f"match type {have.name} of argument '{other}'."
            )

    for i, (arg, value) in enumerate(zip(op_def.inputs, inputs)):
        if arg.is_list:
            if not isinstance(value, (list, tuple)):
                raise TypeError(
                    f"Expected list for '{arg.name}' argument to '{op_type}' Op, not {value!r}."
                )
            items = list(value)
            if arg.number_attr:
                n = len(items)
                if arg.number_attr in norm and norm[arg.number_attr] != n:
                    raise ValueError(
                        f"List argument '{arg.name}' to '{op_type}' Op with length {n} must match "
                        f"length {norm[arg.number_attr]} of argument '{arg.number_attr}'."
                    )
                norm[arg.number_attr] = n
                mn = op_def.attr(arg.number_attr).minimum
                if mn is not None and n < mn:
                    raise ValueError(
                        f"List argument '{arg.name}' to '{op_type}' Op with length {n} shorter "
                        f"than minimum length {mn}."
                    )
            out_items: list = []
            for v in items:
                if is_symbolic(v):
                    hint = arg.dtype or (norm.get(arg.type_attr) if arg.type_attr else None)
                    o = _convert_symbolic(v, graph, hint, inner)
                    if arg.type_attr:
                        note_type(arg.type_attr, o.dtype, arg.name)
                    out_items.append(o)
                else:
                    out_items.append(v)
            converted[i] = out_items
        else:
            if is_symbolic(value):
                hint = arg.dtype or (norm.get(arg.type_attr) if arg.type_attr else None)
                o = _convert_symbolic(value, graph, hint, inner)
                if arg.type_attr:
                    note_type(arg.type_attr, o.dtype, arg.name)
                converted[i] = o
            else:
                converted[i] = value

    # Pass 2: literals, converted with the dtype the op now expects.
    for i, arg in enumerate(op_def.inputs):
        want = arg.dtype or (norm.get(arg.type_attr) if arg.type_attr else None)
        if arg.is_list:
            items = converted[i]
            for j, v in enumerate(items):
                if not isinstance(v, Output):
                    want_j = want
                    if arg.type_list_attr and arg.type_list_attr in norm:
                        want_j = norm[arg.type_list_attr][j]
                    o = _convert_literal(v, want_j, inner, arg.name, op_type, f"{arg.name}_{j}")
                    if arg.type_attr:
                        note_type(arg.type_attr, o.dtype, arg.name)
                        want = norm[arg.type_attr]
                    items[j] = o
            if arg.type_list_attr:
                types_ = tuple(o.dtype for o in items)
                if arg.type_list_attr in norm and tuple(norm[arg.type_list_attr]) != types_:
                    raise TypeError(
                        f"Input '{arg.name}' of '{op_type}' Op has types "
                        f"{[t.name for t in types_]} that do not match the attr "
                        f"{arg.type_list_attr}={[t.name for t in norm[arg.type_list_attr]]}"
                    )
                norm[arg.type_list_attr] = types_
        elif not isinstance(converted[i], Output):
            value = converted[i]
            if want is None and arg.type_attr and isinstance(value, (list, tuple)) and not value:
                # An empty list has no element type: TensorFlow gives it the type attr's
                # default (Sum's axis=[] is int32, not the float32 of a bare []).
                default = op_def.attr(arg.type_attr).default
                want = default if isinstance(default, DType) else None
            o = _convert_literal(value, want, inner, arg.name, op_type, arg.name)
            if arg.type_attr:
                note_type(arg.type_attr, o.dtype, arg.name)
            converted[i] = o

    # Fixed-dtype arguments and allowed type-attr values.
    for i, arg in enumerate(op_def.inputs):
        items = converted[i] if arg.is_list else [converted[i]]
        if arg.dtype is not None:
            for o in items:
                if o.dtype != arg.dtype:
                    raise TypeError(
                        f"Input '{arg.name}' of '{op_type}' Op has type {o.dtype.name} "
                        f"that does not match expected type of {arg.dtype.name}."
                    )
        if arg.type_attr:
            ad = op_def.attr(arg.type_attr)
            dt = norm.get(arg.type_attr)
            if ad.allowed_values is not None and dt is not None and dt not in ad.allowed_values:
                allowed = ", ".join(a.name for a in ad.allowed_values)
                raise TypeError(
                    f"Value passed to parameter '{arg.name}' has DataType {dt.name} not "
                    f"in list of allowed values: {allowed}"
                )
        if arg.type_list_attr:
            # Inferred type lists get the checks an explicit attr value gets (minimum length,
            # allowed types): IdentityN of no tensors is refused as in TensorFlow.
            ad = op_def.attr(arg.type_list_attr)
            norm[arg.type_list_attr] = normalize_attr_value(ad, norm[arg.type_list_attr], op_type)

    # Defaults and required attrs.
    for ad in op_def.attrs:
        if ad.name in norm:
            continue
        if ad.has_default:
            norm[ad.name] = ad.default
        else:
            raise TypeError(f"No argument found for attr {ad.name} for {op_type}")

    # Output dtypes, after the count is known to be sane: every output costs graph memory.
    n_outputs = sum(
        len(norm[a.type_list_attr]) if a.type_list_attr
        else norm[a.number_attr] if a.number_attr else 1
        for a in op_def.outputs
    )
    if n_outputs > MAX_OUTPUTS_PER_OP:
        raise ValueError(
            f"{op_type} '{op_name}' would have {n_outputs} outputs, more than the limit of "
            f"{MAX_OUTPUTS_PER_OP} outputs per op (tfmini.core.limits.MAX_OUTPUTS_PER_OP)"
        )
    out_dtypes: list[DType] = []
    for arg in op_def.outputs:
        if arg.type_list_attr:
            out_dtypes.extend(norm[arg.type_list_attr])
            continue
        dt = arg.dtype if arg.dtype is not None else norm[arg.type_attr]
        count = norm[arg.number_attr] if arg.number_attr else 1
        out_dtypes.extend([dt] * count)

    frozen_attrs = types.MappingProxyType(norm)
    data_inputs: list[Output] = []
    for v in converted:
        if isinstance(v, list):
            data_inputs.extend(v)
        else:
            data_inputs.append(v)

    location = user_location()

    if op_def.shape_fn is not None:
        ic = InferenceContext(op_def, op_name, converted, frozen_attrs)
        try:
            shapes = op_def.shape_fn(ic)
        except (ValueError, TypeError, IndexError, OverflowError) as e:
            # OverflowError: dims or counts past int64 (2**63) reach NumPy or math in a
            # shape function; that is a bad value, so it surfaces as ValueError too.
            raise ValueError(
                f"{e} for '{{{{node {op_name}}}}} = {op_type}[]' with input shapes: "
                f"{_describe_inputs(converted)} (defined at {location})"
            ) from e
        shapes = [as_shape(s) for s in shapes]
        if len(shapes) != len(out_dtypes):
            raise ValueError(
                f"Shape function of {op_type} returned {len(shapes)} shapes for "
                f"{len(out_dtypes)} outputs"
            )
    else:
        shapes = [unknown_shape()] * len(out_dtypes)

    producers = {o.op for o in data_inputs}
    control = [c for c in scope.control_dependencies if c not in producers and c.graph is graph]
    device = scope.device
    if not device and op_def.only_devices:
        device = f"/device:{op_def.only_devices[0]}:0"
    op = Operation(
        graph=graph,
        name=op_name,
        type=op_type,
        op_def=op_def,
        inputs=tuple(data_inputs),
        control_inputs=control,
        attrs=frozen_attrs,
        device=device,
        defined_at=location,
        id=graph._next_id(),
    )
    op.outputs = tuple(
        Output(op, i, dt, shp if isinstance(shp, TensorShape) else as_shape(shp))
        for i, (dt, shp) in enumerate(zip(out_dtypes, shapes))
    )
    if scope.device_stack or scope.colocate_op is not None:
        op.device = apply_device_stack(scope, op)
        op.colocation_op = scope.colocate_op
    if op_def.only_devices and op.device:
        # A device that names a task but no device type (`/job:worker` from a
        # replica_device_setter): TensorFlow's placer picks the task's device that has the
        # kernel; the op's only device type stands in for that choice.
        spec = DeviceSpec.from_string(op.device)
        if spec.device_type is None:
            op.device = spec.replace(device_type=op_def.only_devices[0],
                                     device_index=0).to_string()
    graph._add_op(op)
    return op


def group_outputs(op: Operation) -> list:
    """The op's outputs grouped per output argument (a list for list arguments)."""
    return group_flat(op.op_def.outputs, op.attrs, op.outputs)
