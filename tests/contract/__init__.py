"""Sample inputs for the registry-wide op contract test (tests/test_op_contract.py).

Each ``samples_<family>.py`` module defines ``SAMPLES``: op type -> a function
that, called inside a fresh default graph, returns ``(inputs, attrs)`` or
``(inputs, attrs, setup_ops)``. ``inputs`` has one entry per input argument
(NumPy values, Outputs, or lists for list arguments); ``setup_ops`` are run
once before the op (e.g. a variable's initializer). Every registered op must
have a sample, so a new op cannot skip the contract.
"""
