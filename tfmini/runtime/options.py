"""RunOptions, RunMetadata and ConfigProto, with TensorFlow's field names."""

from __future__ import annotations

from attrs import define, field


@define
class RunOptions:
    """Per-run options (``tf.compat.v1.RunOptions``).

    Attributes:
        timeout_in_ms: Deadline for blocking steps of this run; 0 = the session default.
        trace_level: NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE or FULL_TRACE; any level
            above NO_TRACE records per-op timings into ``run_metadata.step_stats``.
    """

    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3

    trace_level: int = 0
    timeout_in_ms: int = 0
    inter_op_thread_pool: int = 0
    output_partition_graphs: bool = False
    report_tensor_allocations_upon_oom: bool = False


@define
class NodeExecStats:
    """Timing of one executed op (TensorFlow's NodeExecStats, simplified).

    ``all_start_micros`` is wall-clock time (microseconds since the epoch), as in TensorFlow;
    ``output_bytes`` the size of each output's data; ``thread_id`` the thread that ran it.
    """

    node_name: str
    op_type: str
    all_start_micros: int
    all_end_rel_micros: int
    output_shapes: list = field(factory=list)
    output_bytes: list = field(factory=list)
    output_dtypes: list = field(factory=list)
    thread_id: int = 0
    timeline_label: str = ""


@define
class DeviceStepStats:
    device: str
    node_stats: list[NodeExecStats] = field(factory=list)


@define
class StepStats:
    dev_stats: list[DeviceStepStats] = field(factory=list)


@define
class RunMetadata:
    """Filled by ``Session.run`` when tracing is requested."""

    step_stats: StepStats = field(factory=StepStats)
    partition_graphs: list = field(factory=list)


@define
class GPUOptions:
    allow_growth: bool = False
    per_process_gpu_memory_fraction: float = 0.0


@define
class OptimizerOptions:
    """``tf.compat.v1.OptimizerOptions``: the classic graph optimizer's switches.

    ``opt_level`` ``L0`` (-1) turns the plan-time rewrites off; ``L1`` (0, the default)
    leaves them to the two flags.
    """

    L1 = 0
    L0 = -1
    do_common_subexpression_elimination: bool = True
    do_constant_folding: bool = True
    opt_level: int = 0


@define
class RewriterConfig:
    """``tensorflow.RewriterConfig`` (Grappler): ``disable_meta_optimizer`` turns every
    rewrite off; ``constant_folding``, ``arithmetic_optimization``,
    ``common_subgraph_elimination``, ``dependency_optimization`` and ``remapping`` take the
    Toggle values ``DEFAULT`` (0), ``ON`` (1), ``OFF`` (2)."""

    DEFAULT = 0
    ON = 1
    OFF = 2
    disable_meta_optimizer: bool = False
    constant_folding: int = 0
    arithmetic_optimization: int = 0
    common_subgraph_elimination: int = 0
    dependency_optimization: int = 0
    remapping: int = 0


@define
class GraphOptions:
    """``tf.compat.v1.GraphOptions``: where the graph optimizer's switches live."""

    optimizer_options: OptimizerOptions = field(factory=OptimizerOptions)
    rewrite_options: RewriterConfig = field(factory=RewriterConfig)


@define
class ConfigProto:
    """Session configuration (``tf.compat.v1.ConfigProto``).

    ``operation_timeout_in_ms`` is the default deadline of blocking steps
    (0 = wait forever). ``plan_cache_size`` (a tfmini field, not TensorFlow's) bounds how
    many run signatures keep their compiled plan (0 = the default, 1024; see
    ``Session``). ``intra_op_parallelism_threads`` (when positive) fixes the number of
    BLAS threads per product (``runtime/threads.py``); ``inter_op_parallelism_threads`` is
    accepted for compatibility. ``graph_options`` switches the plan-time rewrites
    (``runtime/graph_rewrite.py``) as TensorFlow's do: ``graph_options.rewrite_options
    .disable_meta_optimizer = True`` or ``graph_options.optimizer_options.opt_level =
    OptimizerOptions.L0`` turns them all off. ``device_filters`` (device name prefixes, e.g.
    ``["/job:ps", "/job:worker/task:0"]``) is accepted for compatibility and not enforced: a
    distributed session only contacts the tasks its graph's ops are placed on.
    """

    operation_timeout_in_ms: int = 0
    inter_op_parallelism_threads: int = 0
    intra_op_parallelism_threads: int = 0
    allow_soft_placement: bool = False
    log_device_placement: bool = False
    device_count: dict = field(factory=dict)
    gpu_options: GPUOptions = field(factory=GPUOptions)
    graph_options: GraphOptions = field(factory=GraphOptions)
    plan_cache_size: int = 0
    device_filters: list = field(factory=list)
