"""The TF1 RNN drivers of ``tf.compat.v1.nn`` (TensorFlow's ``tensorflow/python/ops/rnn.py``):
``static_rnn``, ``static_bidirectional_rnn``, ``static_state_saving_rnn``, ``dynamic_rnn``,
``bidirectional_dynamic_rnn`` and ``raw_rnn``.

``dynamic_rnn`` builds what TensorFlow builds: the batch-major input transposed to time-major,
unstacked into a TensorArray (``TensorArrayScatterV3``), a ``while_loop`` (bounded by
``maximum_iterations``) that reads step ``t``, calls the cell and writes the output into
another TensorArray, the outputs gathered (``TensorArrayGatherV3``) and transposed back. The loop
is tfmini's functional ``While`` (see docs/rnn.md for the op-name differences).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype, bool_, int32
from tfmini.core.graph import Output
from tfmini.core.scope import control_dependencies, name_scope
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.ops import array, math
from tfmini.ops.control_flow import (
    Assert,
    assert_same_structure,
    cond,
    flatten_structure,
    pack_structure,
    while_loop,
)
from tfmini.ops.data_flow import TensorArray
from tfmini.ops.variables import variable_scope
from tfmini.rnn.cells import concat_shape, is_nested
from tfmini.rnn.wrappers import assert_like_rnncell

__all__ = [
    "bidirectional_dynamic_rnn",
    "dynamic_rnn",
    "raw_rnn",
    "static_bidirectional_rnn",
    "static_rnn",
    "static_state_saving_rnn",
]


def _flatten(x: Any) -> list:
    return flatten_structure(x) if is_nested(x) else [x]


def _pack(structure: Any, flat: list) -> Any:
    return pack_structure(structure, flat) if is_nested(structure) else flat[0]


def _static_dims(shape: TensorShape) -> list:
    return shape.as_list() if shape.rank is not None else []


def _with_rank_at_least(shape: TensorShape, rank: int) -> TensorShape:
    if shape.rank is not None and shape.rank < rank:
        raise ValueError(f"Shape {shape} must have rank at least {rank}")
    return shape


def _transpose_batch_time(x: Output) -> Output:
    """Swaps the first two axes (batch-major <-> time-major); rank < 2 passes through."""
    shape = x.shape
    if shape.rank is not None and shape.rank < 2:
        return x
    rank = array.rank(x)
    perm = array.concat(([1, 0], array.range(2, rank)), axis=0)
    out = array.transpose(x, perm)
    if shape.rank is not None:
        dims = shape.as_list()
        out.set_shape([dims[1], dims[0], *dims[2:]])
    return out


def _best_effort_batch_size(flat_input: list) -> Any:
    """The static batch size (axis 1 of time-major inputs), else a tensor."""
    for x in flat_input:
        shape = x.shape
        if shape.rank is None:
            continue
        if shape.rank < 2:
            raise ValueError(
                f"Input tensor should have rank >= 2. Received input={x} of rank {shape.rank}"
            )
        if shape.as_list()[1] is not None:
            return shape.as_list()[1]
    return array.shape(flat_input[0])[1]


def _infer_state_dtype(explicit: Any, state: Any) -> Any:
    if explicit is not None:
        return as_dtype(explicit)
    if is_nested(state):
        dtypes = [s.dtype for s in _flatten(state)]
        if not dtypes:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if any(d != dtypes[0] for d in dtypes):
            raise ValueError(
                f"Argument state={state} has tensors of different inferred dtypes. Unable to "
                f"infer a single representative dtype. Dtypes received: {dtypes}"
            )
        return dtypes[0]
    return state.dtype


def _initial_state(cell: Any, initial_state: Any, batch_size: Any, dtype: Any) -> Any:
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _zeros(size: Any, batch_size: Any, dtype: Any) -> Output:
    shape = concat_shape(batch_size, size)
    if isinstance(shape, list):
        shape = array.stack(shape)
    return array.zeros(shape, dtype)


def _rnn_step(time: Any, sequence_length: Output, min_sequence_length: Output,
              max_sequence_length: Output, zero_output: Any, state: Any,
              call_cell: Callable, skip_conditionals: bool = False) -> tuple:
    """One step with ``sequence_length``: batch entries whose sequence has ended get a zero
    output and keep their state (TensorFlow's ``rnn._rnn_step``)."""
    flat_state = _flatten(state)
    flat_zero_output = _flatten(zero_output)
    copy_cond = math.greater_equal(time, sequence_length)

    def copy_one_through(old, new):
        if new.shape.rank == 0:
            return new
        return math.where(copy_cond, old, new)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(z, o) for z, o in zip(flat_zero_output, flat_new_output)]
                + [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def called():
        new_output, new_state = call_cell()
        assert_same_structure(zero_output, new_output)
        assert_same_structure(state, new_state)
        return _flatten(new_output), _flatten(new_state)

    if skip_conditionals:
        final = copy_some_through(*called())
    else:
        def maybe_copy_some_through():
            new_output, new_state = called()
            return cond(math.less(time, min_sequence_length),
                        lambda: new_output + new_state,
                        lambda: copy_some_through(new_output, new_state))

        final = cond(math.greater_equal(time, max_sequence_length),
                     lambda: flat_zero_output + flat_state, maybe_copy_some_through)
    n = len(flat_zero_output)
    final_output, final_state = list(final[:n]), list(final[n:])
    for out, zero in zip(final_output, flat_zero_output):
        out.set_shape(zero.shape)
    for new, old in zip(final_state, flat_state):
        new.set_shape(old.shape)
    return _pack(zero_output, final_output), _pack(state, final_state)


# ------------------------------------------------------------------------------------------
# dynamic_rnn


def dynamic_rnn(cell: Any, inputs: Any, sequence_length: Any = None, initial_state: Any = None,
                dtype: Any = None, parallel_iterations: int | None = None,
                swap_memory: bool = False, time_major: bool = False,
                scope: Any = None) -> tuple:
    """Runs ``cell`` over the time axis of ``inputs`` in a ``while_loop``.

    Args:
        cell: An RNN cell.
        inputs: A ``[batch, time, ...]`` tensor (``[time, batch, ...]`` when ``time_major``),
            or a nested structure of them.
        sequence_length: An int vector ``[batch]``: steps at or past an entry's length give
            zero outputs and copy the state through (checked at run time to be ``[batch]``).
        initial_state: The cell's initial state (default its zero state; then ``dtype`` is
            needed).
        dtype: The dtype of the initial state and outputs.
        parallel_iterations: Kept on the loop (default 32); iterations run in order.
        swap_memory: Accepted for compatibility; no effect.
        time_major: Whether ``inputs`` and the outputs are time-major.
        scope: Variable scope (default ``"rnn"``).

    Returns:
        ``(outputs, final_state)``: outputs shaped as ``inputs`` with the cell's output size
        as depth, and the state after each entry's last step.

    Raises:
        TypeError: ``cell`` is not an RNN cell.
        ValueError: inputs of rank < 3 or unknown depth, ``sequence_length`` not a vector, or
            no ``initial_state`` and no ``dtype``.
    """
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn"):
        flat_input = _flatten(inputs)
        if not time_major:
            flat_input = [_transpose_batch_time(convert_to_tensor(x)) for x in flat_input]
        else:
            flat_input = [convert_to_tensor(x) for x in flat_input]
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math.cast(sequence_length, int32)
            if sequence_length.shape.rank not in (None, 1):
                raise ValueError(
                    "Argument sequence_length must be a vector of length batch_size. Received "
                    f"sequence_length={sequence_length} of shape: {sequence_length.shape}"
                )
            sequence_length = array.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            x_shape = array.shape(sequence_length)
            packed = array.stack([batch_size])
            same = math.equal(
                math.reduce_min(math.cast(math.equal(x_shape, packed), int32)), 1)
            check = Assert(same, [f"Expected shape for Tensor {sequence_length.name} is ",
                                  packed, " but saw shape: ", x_shape])
            with control_dependencies([check]):
                sequence_length = array.identity(sequence_length, name="CheckSeqLen")
        inputs = _pack(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(
            cell, inputs, state, parallel_iterations, swap_memory, sequence_length, dtype)
        if not time_major:
            outputs = _pack(outputs, [_transpose_batch_time(o) for o in _flatten(outputs)])
        return outputs, final_state


def _dynamic_rnn_loop(cell: Any, inputs: Any, initial_state: Any, parallel_iterations: int,
                      swap_memory: bool, sequence_length: Any, dtype: Any) -> tuple:
    state = initial_state
    flat_input = _flatten(inputs)
    flat_output_size = _flatten(cell.output_size)
    time_steps = array.shape(flat_input[0])[0]
    batch_size = _best_effort_batch_size(flat_input)
    got_shapes = [_with_rank_at_least(x.shape, 3) for x in flat_input]
    const_time_steps, const_batch_size = _static_dims(got_shapes[0])[:2] or [None, None]
    for x, shape in zip(flat_input, got_shapes):
        dims = _static_dims(shape)
        if not dims or any(d is None for d in dims[2:]):
            raise ValueError(
                "Input size (depth of inputs) must be accessible via shape inference, but saw "
                f"value None for input={x}."
            )
        if dims[0] != const_time_steps:
            raise ValueError(
                "Time steps is not the same for all the elements in the input in a batch. "
                f"Received time steps={dims[0]} for input={x}."
            )
        if dims[1] != const_batch_size:
            raise ValueError(
                "Batch_size is not the same for all the elements in the input. Received batch "
                f"size={dims[1]} for input={x}."
            )
    out_dtype = _infer_state_dtype(dtype, state)
    flat_zero_output = [_zeros(size, batch_size, out_dtype) for size in flat_output_size]
    zero_output = _pack(cell.output_size, flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = math.reduce_min(sequence_length)
        max_sequence_length = math.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = array.constant(0, dtype=int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass

    def make_ta(name, element_shape, ta_dtype):
        return TensorArray(dtype=ta_dtype, size=time_steps, element_shape=element_shape,
                           tensor_array_name=base_name + name)

    output_ta = tuple(
        make_ta(f"output_{i}", TensorShape([const_batch_size]).concatenate(as_shape(size)),
                out_dtype)
        for i, size in enumerate(flat_output_size))
    input_ta = tuple(make_ta(f"input_{i}", x.shape[1:], x.dtype)
                     for i, x in enumerate(flat_input))
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for x, shape in zip(input_t, got_shapes):
            x.set_shape(shape[1:])
        input_t = _pack(inputs, list(input_t))

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length,
                                          max_sequence_length, zero_output, state, call_cell,
                                          skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, _flatten(output)))
        return time + 1, output_ta_t, new_state

    loop_bound = math.minimum(time_steps, math.maximum(1, max_sequence_length))
    _, final_ta, final_state = while_loop(
        cond=lambda time, *_: math.less(time, loop_bound), body=time_step,
        loop_vars=(time, output_ta, state), parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = [ta.stack() for ta in final_ta]
    for out, size in zip(final_outputs, flat_output_size):
        out.set_shape([const_time_steps, const_batch_size, *as_shape(size).as_list()])
    return _pack(cell.output_size, final_outputs), final_state


# ------------------------------------------------------------------------------------------
# Reversal helpers (as tensorflow/python/ops/rnn.py: ReverseSequence up to each length, or
# ReverseV2 along time when there are no lengths)


def _reverse(x: Any, lengths: Any, seq_axis: int, batch_axis: int) -> Output:
    """``x`` reversed along ``seq_axis``, per batch entry up to its length when ``lengths``
    is given (``tf.reverse_sequence``; entries past the length stay in place)."""
    if lengths is not None:
        return array.reverse_sequence(input=x, seq_lengths=lengths, seq_axis=seq_axis,
                                      batch_axis=batch_axis)
    return array.reverse(x, axis=[seq_axis])


def _reverse_seq(input_seq: list, lengths: Any) -> list:
    """Reverses a Python list of per-step tensors (structures), by ``lengths`` if given."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_seq = [_flatten(x) for x in input_seq]
    flat_results: list[list] = [[] for _ in input_seq]
    for sequence in zip(*flat_seq):
        # As TensorFlow: every step must be compatible with an unknown shape of the first
        # step's rank (the static shapes come back through stack/unstack).
        input_shape = TensorShape(None if sequence[0].shape.rank is None
                                  else [None] * sequence[0].shape.rank)
        for step in sequence:
            input_shape.assert_is_compatible_with(step.shape)
            step.set_shape(input_shape)
        reversed_ = array.reverse_sequence(array.stack(list(sequence)), lengths, 0, 1)
        for r, bucket in zip(array.unstack(reversed_), flat_results):
            r.set_shape(input_shape)
            bucket.append(r)
    return [_pack(x, flat) for x, flat in zip(input_seq, flat_results)]


def bidirectional_dynamic_rnn(cell_fw: Any, cell_bw: Any, inputs: Any,
                              sequence_length: Any = None, initial_state_fw: Any = None,
                              initial_state_bw: Any = None, dtype: Any = None,
                              parallel_iterations: int | None = None,
                              swap_memory: bool = False, time_major: bool = False,
                              scope: Any = None) -> tuple:
    """A forward and a backward :func:`dynamic_rnn` (scopes ``bidirectional_rnn/fw``, ``/bw``).

    The backward cell runs on the inputs reversed along time (up to each sequence's length);
    its outputs are reversed back.

    Returns:
        ``((output_fw, output_bw), (output_state_fw, output_state_bw))``.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            inputs_reverse = _pack(inputs, [
                _reverse(x, sequence_length, time_axis, batch_axis) for x in _flatten(inputs)])
            tmp, state_bw = dynamic_rnn(
                cell_bw, inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = _pack(tmp, [_reverse(o, sequence_length, time_axis, batch_axis)
                            for o in _flatten(tmp)])
    return (output_fw, output_bw), (state_fw, state_bw)


# ------------------------------------------------------------------------------------------
# static_rnn


def static_rnn(cell: Any, inputs: Any, initial_state: Any = None, dtype: Any = None,
               sequence_length: Any = None, scope: Any = None) -> tuple:
    """Runs ``cell`` over a Python list of per-step inputs, unrolled (one cell call per step,
    sharing the variables).

    Args:
        cell: An RNN cell.
        inputs: A non-empty list of ``[batch, input_size]`` tensors (or structures).
        initial_state: Default the cell's zero state (then ``dtype`` is needed).
        dtype: The dtype of the initial state.
        sequence_length: An int vector ``[batch]``: past an entry's length outputs are zero and
            the state is copied through (with TensorFlow's conds on the min and max length).
        scope: Variable scope (default ``"rnn"``).

    Returns:
        ``(outputs, state)``: a list of outputs, one per step, and the final state.

    Raises:
        TypeError: ``inputs`` is not a list/tuple, or ``cell`` is not an RNN cell.
        ValueError: ``inputs`` is empty, an input's depth is unknown, or no state/dtype.
    """
    assert_like_rnncell("cell", cell)
    if not is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        first = inputs
        while is_nested(first):
            first = first[0]
        first = convert_to_tensor(first)
        if first.shape.rank != 1:
            fixed_batch = _with_rank_at_least(first.shape, 2).as_list()[0] \
                if first.shape.rank is not None else None
            for x in _flatten(inputs):
                shape = _with_rank_at_least(convert_to_tensor(x).shape, 2)
                dims = _static_dims(shape)
                if dims and fixed_batch is not None and dims[0] is not None \
                        and dims[0] != fixed_batch:
                    raise ValueError(f"Dimensions {fixed_batch} and {dims[0]} are not compatible")
                for i, size in enumerate(dims[1:]):
                    if size is None:
                        raise ValueError(
                            f"Input size (dimension {i} of input {x}) must be accessible via "
                            "shape inference, but saw value None."
                        )
        else:
            fixed_batch = first.shape.as_list()[0]
        batch_size = fixed_batch if fixed_batch else array.shape(first)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.rank not in (None, 1):
                raise ValueError(
                    f"Argument `sequence_length` must be a vector of length {batch_size}. "
                    f"Received sequence_length={sequence_length}."
                )
            out_dtype = _infer_state_dtype(dtype, state)
            flat_zero = []
            for size in _flatten(cell.output_size):
                zero = _zeros(size, batch_size, out_dtype)
                zero.set_shape([fixed_batch or None, *as_shape(size).as_list()])
                flat_zero.append(zero)
            zero_output = _pack(cell.output_size, flat_zero)
            sequence_length = math.cast(sequence_length, int32)
            min_sequence_length = math.reduce_min(sequence_length)
            max_sequence_length = math.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length,
                                          max_sequence_length, zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def static_state_saving_rnn(cell: Any, inputs: Any, state_saver: Any, state_name: Any,
                            sequence_length: Any = None, scope: Any = None) -> tuple:
    """:func:`static_rnn` whose initial state comes from ``state_saver.state(name)`` and whose
    final state is saved with ``state_saver.save_state(name, value)`` before the last output.

    Raises:
        ValueError: ``state_name``'s structure does not match ``cell.state_size``.
    """
    state_size = cell.state_size
    state_is_tuple = is_nested(state_size)
    if state_is_tuple != is_nested(state_name):
        raise ValueError(
            "Argument `state_name` should be the same type as `cell.state_size`. Received: "
            f"state_name={state_name!s}, cell.state_size={state_size!s}."
        )
    if state_is_tuple:
        names = _flatten(state_name)
        sizes = _flatten(state_size)
        if len(names) != len(sizes):
            raise ValueError(
                "Number of elements in argument `state_name` and `cell.state_size` are "
                f"mismatched. Received state_name={state_name} with {len(names)} elements and "
                f"cell.state_size={state_size} with {len(sizes)} elements."
            )
        initial_state = _pack(state_size, [state_saver.state(s) for s in names])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    flat_state = _flatten(state)
    saves = [state_saver.save_state(n, s) for n, s in zip(_flatten(state_name), flat_state)]
    with control_dependencies(saves):
        last = outputs[-1]
        outputs[-1] = _pack(last, [array.identity(o) for o in _flatten(last)])
        state = _pack(state, [array.identity(s) for s in flat_state])
    return outputs, state


def static_bidirectional_rnn(cell_fw: Any, cell_bw: Any, inputs: Any,
                             initial_state_fw: Any = None, initial_state_bw: Any = None,
                             dtype: Any = None, sequence_length: Any = None,
                             scope: Any = None) -> tuple:
    """A forward and a backward :func:`static_rnn`; outputs are concatenated on depth.

    Returns:
        ``(outputs, output_state_fw, output_state_bw)``; ``outputs[t]`` is
        ``concat([fw_t, bw_t], 1)``.

    Raises:
        TypeError: ``inputs`` is not a list/tuple, or a cell is not an RNN cell.
        ValueError: ``inputs`` is empty.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(list(inputs), sequence_length)
            tmp, state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype,
                                       sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_fw, flat_bw = flatten_structure(output_fw), flatten_structure(output_bw)
    flat = [array.concat([fw, bw], 1) for fw, bw in zip(flat_fw, flat_bw)]
    return pack_structure(output_fw, flat), state_fw, state_bw


# ------------------------------------------------------------------------------------------
# raw_rnn


def raw_rnn(cell: Any, loop_fn: Callable, parallel_iterations: int | None = None,
            swap_memory: bool = False, scope: Any = None) -> tuple:
    """A ``while_loop`` around ``cell`` driven by ``loop_fn`` (TensorFlow's ``raw_rnn``).

    ``loop_fn(time, cell_output, cell_state, loop_state)`` returns ``(finished, next_input,
    next_cell_state, emit_output, next_loop_state)``; it is first called with
    ``cell_output=None`` and gives the initial input, state and (optionally) the emit
    structure and loop state. Finished entries emit zeros and keep their state.

    Returns:
        ``(emit_ta, final_state, final_loop_state)``: TensorArrays of the emitted outputs
        (``stack()`` them for ``[time, batch, ...]``), the final cell state and loop state
        (None when ``loop_fn`` gave none).

    Raises:
        TypeError: ``loop_fn`` is not callable or ``cell`` is not an RNN cell.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with variable_scope(scope or "rnn"):
        time = array.constant(0, dtype=int32)
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)
        flat_input = [convert_to_tensor(x) for x in _flatten(next_input)]
        next_input = _pack(next_input, flat_input)
        loop_state = init_loop_state if init_loop_state is not None else \
            array.constant(0, dtype=int32)
        const_batch = None
        for x in flat_input:
            dims = _static_dims(x.shape)
            b = dims[0] if dims else None
            if const_batch is not None and b is not None and b != const_batch:
                raise ValueError(f"Dimensions {const_batch} and {b} are not compatible")
            const_batch = const_batch if const_batch is not None else b
        batch_size = const_batch if const_batch is not None else array.shape(flat_input[0])[0]
        if is_nested(cell.state_size) or is_nested(initial_state):
            assert_same_structure(initial_state, cell.state_size)
        flat_state = [convert_to_tensor(s) for s in _flatten(initial_state)]
        state = _pack(initial_state, flat_state)
        if emit_structure is not None:
            flat_emit = _flatten(emit_structure)
            flat_emit_size = [e.shape if e.shape.is_fully_defined() else array.shape(e)
                              for e in flat_emit]
            flat_emit_dtypes = [e.dtype for e in flat_emit]
        else:
            emit_structure = cell.output_size
            flat_emit_size = _flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)

        def static_size(size):
            return as_shape(size) if not isinstance(size, Output) else TensorShape(None)

        flat_emit_ta = [
            TensorArray(dtype=d, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                        element_shape=TensorShape([const_batch]).concatenate(static_size(s)))
            for i, (d, s) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = _pack(emit_structure, flat_emit_ta)
        flat_zero_emit = [array.zeros(concat_shape(batch_size, s) if not isinstance(s, Output)
                                      else array.concat([array.stack([batch_size]), s], 0), d)
                          for s, d in zip(flat_emit_size, flat_emit_dtypes)]
        zero_emit = _pack(emit_structure, flat_zero_emit)

        def condition(unused_time, elements_finished, *_):
            # not reduce_all(finished): some entry is still running.
            running = math.cast(math.logical_not(elements_finished), int32)
            return math.greater(math.reduce_max(running), 0)

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            assert_same_structure(state, cell_state)
            next_time = time + 1
            (next_finished, next_input, next_state, emit_output,
             next_loop_state) = loop_fn(next_time, next_output, cell_state, loop_state)
            assert_same_structure(state, next_state)
            assert_same_structure(current_input, next_input)
            assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current, candidate):
                def copy(cur, cand):
                    if isinstance(cur, TensorArray) or cur.shape.rank == 0:
                        return cand
                    return math.where(elements_finished, cur, cand)
                return _pack(current, [copy(a, b) for a, b in
                                       zip(_flatten(current), _flatten(candidate))])

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = _pack(emit_ta, [ta.write(time, e) for ta, e in
                                      zip(_flatten(emit_ta), _flatten(emit_output))])
            elements_finished = math.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        finished = convert_to_tensor(finished, dtype=bool_)
        returned = while_loop(
            condition, body,
            loop_vars=[time, finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state

