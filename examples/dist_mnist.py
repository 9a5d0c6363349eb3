"""Distributed MNIST training with model replicas, on a tfmini cluster.

TensorFlow's own program (tensorflow/tools/dist_test/python/mnist_replica.py), written again
for tfmini with ``import tfmini as tf`` as its only tfmini-specific line. A softmax model
with one hidden layer: its parameters live on the ps task(s), placed there by
``replica_device_setter``; every worker runs its own copy of the graph (between-graph
replication) and, with ``--sync_replicas``, its gradients are aggregated by
``SyncReplicasOptimizer`` before one update per round.

Changes from TensorFlow's program, all said here rather than hidden:

* Data: no download. ``--data_dir`` is gone; the images are a seeded NumPy array of 28x28
  pictures (ten noisy class patterns) with one-hot labels, so the model has something to
  learn and every run sees the same data.
* Session: TensorFlow's own code path, ``tf.train.Supervisor(is_chief=, logdir=,
  init_op=, local_init_op=, ready_for_local_init_op=, recovery_wait_secs=1, global_step=)``,
  ``prepare_or_wait_for_session``, the chief's ``get_init_tokens_op`` and chief queue
  runner, and a loop that ends once the global step reaches ``--train_steps``, runs with
  ``--use_supervisor``. It then stops the Supervisor and closes the session (TensorFlow's
  program ends its process there). Without the flag, the default is
  ``tf.train.MonitoredTrainingSession`` with the optimizer's ``make_session_run_hook`` and a
  ``StopAtStepHook``, as TensorFlow's later distributed examples do.
  The global step is added to the ``GLOBAL_STEP`` collection, where the session's hooks
  look for it (TensorFlow 2.x resource variables need this too).
* Each worker records its losses and returns them from :func:`train` (``main`` calls it and
  prints the cross entropy of the first and last steps), and the validation cross entropy
  is computed on a plain ``tf.Session`` after the training session ends; ``--run_timeout_ms``
  bounds every step's run, ``--data_seed`` seeds the data, and ``--num_init_tokens`` (-1,
  TensorFlow's default, unless given) is the chief's initial sync tokens.

How to run it, one command line per task, as TensorFlow's program runs (each process
creates its own ``tf.train.Server``; the ps task's process starts the cluster's Ray
instance at its own address and the workers join it, see docs/distributed.md)::

    python examples/dist_mnist.py --job_name=ps --task_index=0 \\
        --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224 --sync_replicas
    python examples/dist_mnist.py --job_name=worker --task_index=0 ...   # same hosts
    python examples/dist_mnist.py --job_name=worker --task_index=1 ...   # same hosts

The workers exit when the global step reaches ``--train_steps``; the ps serves until it is
ended (``kill <pid>``), and its Ray instance ends with it, so start the ps first and end it
last. A non-chief worker polls for the chief's initialisation every second with
``--use_supervisor`` (as TensorFlow's program), every 30 s without it (the
MonitoredTrainingSession's wait): then start it once the chief prints "Session
initialization complete".
tests/distribute/test_launch.py runs it so, as three OS processes, with and without
``--use_supervisor``.

With ``--existing_servers`` the tasks are a tfmini cluster already running in the caller's
Ray instance (``tf.test.create_local_cluster``), and each worker's program connects to
``grpc://<worker host>``: tests/distribute/test_dist_mnist.py runs the two workers as two
threads of one client process that way.
"""

from __future__ import annotations

import math
import tempfile
import time

import numpy as np

import tfmini as tf

flags = tf.app.flags
flags.DEFINE_integer("task_index", None,
                     "Worker task index, should be >= 0. task_index=0 is the chief worker "
                     "task that performs the variable initialization")
flags.DEFINE_integer("num_gpus", 0, "Total number of gpus for each machine (0: CPU only)")
flags.DEFINE_integer("replicas_to_aggregate", None,
                     "Number of replicas to aggregate before parameter update is applied "
                     "(For sync_replicas mode only; default: num_workers)")
flags.DEFINE_integer("hidden_units", 100, "Number of units in the hidden layer of the NN")
flags.DEFINE_integer("train_steps", 200, "Number of (global) training steps to perform")
flags.DEFINE_integer("batch_size", 100, "Training batch size")
flags.DEFINE_float("learning_rate", 0.01, "Learning rate")
flags.DEFINE_boolean("sync_replicas", False,
                     "Use the sync_replicas (synchronized replicas) mode, wherein the parameter "
                     "updates from workers are aggregated before applied to avoid stale "
                     "gradients")
flags.DEFINE_boolean("existing_servers", False,
                     "Whether servers already exist. If True, will use the worker hosts via "
                     "their GRPC URLs (one client process per worker host). Otherwise, will "
                     "create an in-process server.")
flags.DEFINE_string("ps_hosts", "localhost:2222", "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("worker_hosts", "localhost:2223,localhost:2224",
                    "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("job_name", None, "job name: worker or ps")
flags.DEFINE_integer("num_init_tokens", -1,
                     "Tokens the chief puts in the sync token queue at the start (sync_replicas "
                     "only; -1: replicas_to_aggregate, TensorFlow's default). 0 makes the first "
                     "round wait for a gradient of every replica")
flags.DEFINE_integer("data_seed", 0, "Seed of the synthetic MNIST-shaped data")
flags.DEFINE_boolean("use_supervisor", False,
                     "Prepare the session with tf.train.Supervisor (TensorFlow's program) "
                     "instead of tf.train.MonitoredTrainingSession")
flags.DEFINE_integer("run_timeout_ms", 60000,
                     "Deadline of each training step's run (no wait is unbounded)")

FLAGS = flags.FLAGS

IMAGE_PIXELS = 28
NUM_CLASSES = 10


class SyntheticMnist:
    """MNIST-shaped data without a download: ten seeded pixel patterns plus noise.

    Images are float32 ``[n, 784]`` in [0, 1]; labels are one-hot float32 ``[n, 10]``, as
    ``input_data.read_data_sets(..., one_hot=True)`` gives them.
    """

    def __init__(self, num_train: int = 2000, num_validation: int = 500, seed: int = 0):
        rng = np.random.RandomState(seed)
        # Like MNIST's digits, each class lights about a fifth of the pixels; every image
        # is its class's pattern with a tenth of the pixels flipped and random intensities.
        pixels = IMAGE_PIXELS * IMAGE_PIXELS
        prototypes = rng.rand(NUM_CLASSES, pixels) < 0.2

        def make(n):
            labels = rng.randint(0, NUM_CLASSES, size=n)
            flips = rng.rand(n, pixels) < 0.1
            ink = prototypes[labels] ^ flips
            images = ink * (0.5 + 0.5 * rng.rand(n, pixels))
            return images.astype(np.float32), np.eye(NUM_CLASSES, dtype=np.float32)[labels]

        self.train_images, self.train_labels = make(num_train)
        self.validation_images, self.validation_labels = make(num_validation)
        self._rng = rng
        self._pos = 0

    def next_batch(self, batch_size: int):
        """The next ``batch_size`` training examples, wrapping round at the end."""
        n = self.train_images.shape[0]
        idx = (self._pos + np.arange(batch_size)) % n
        self._pos = (self._pos + batch_size) % n
        return self.train_images[idx], self.train_labels[idx]


def train(flag_values=FLAGS) -> dict:
    """Builds this task's graph and trains; returns the worker's per-step record.

    Args:
        flag_values: The parsed flags (``FLAGS``; anything with the same attributes).

    Returns:
        For a worker: ``{"losses": [...], "global_steps": [...], "validation_xent": x,
        "final_global_step": n}``: the cross entropy of each of its steps and the global
        step its run read, then the validation cross entropy and global step at the end. A ps task
        without ``--existing_servers`` serves until its server ends (``server.join()``).
    """
    if flag_values.job_name is None or flag_values.job_name == "":
        raise ValueError("Must specify an explicit `job_name`")
    if flag_values.task_index is None or flag_values.task_index == "":
        raise ValueError("Must specify an explicit `task_index`")
    print(f"job name = {flag_values.job_name}")
    print(f"task index = {flag_values.task_index}")

    # Construct the cluster and start the server.
    ps_spec = flag_values.ps_hosts.split(",")
    worker_spec = flag_values.worker_hosts.split(",")
    num_workers = len(worker_spec)
    cluster = tf.train.ClusterSpec({"ps": ps_spec, "worker": worker_spec})

    server = None
    if not flag_values.existing_servers:
        # Not using existing servers: create this task's server.
        server = tf.train.Server(cluster, job_name=flag_values.job_name,
                                 task_index=flag_values.task_index)
        if flag_values.job_name == "ps":
            server.join()
            return {}
    elif flag_values.job_name == "ps":
        return {}  # an existing ps task already serves its variables

    mnist = SyntheticMnist(seed=flag_values.data_seed)
    is_chief = flag_values.task_index == 0
    if flag_values.num_gpus > 0:
        if flag_values.num_gpus < num_workers:
            raise ValueError("number of gpus is less than number of workers")
        gpu = flag_values.task_index % flag_values.num_gpus
        worker_device = f"/job:worker/task:{flag_values.task_index}/gpu:{gpu}"
    else:
        worker_device = f"/job:worker/task:{flag_values.task_index}/cpu:0"

    # The device setter places the variables on the ps task(s) and the other ops on this
    # worker.
    with tf.device(tf.train.replica_device_setter(
            worker_device=worker_device, ps_device="/job:ps/cpu:0", cluster=cluster)):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        # The hooks find the step through this collection (a resource variable's tensor
        # "global_step:0" is its handle, not an integer, in TF 2.x as here).
        tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, global_step)

        # Variables of the hidden layer
        hid_w = tf.Variable(
            tf.truncated_normal([IMAGE_PIXELS * IMAGE_PIXELS, flag_values.hidden_units],
                                stddev=1.0 / IMAGE_PIXELS),
            name="hid_w")
        hid_b = tf.Variable(tf.zeros([flag_values.hidden_units]), name="hid_b")

        # Variables of the softmax layer
        sm_w = tf.Variable(
            tf.truncated_normal([flag_values.hidden_units, NUM_CLASSES],
                                stddev=1.0 / math.sqrt(flag_values.hidden_units)),
            name="sm_w")
        sm_b = tf.Variable(tf.zeros([NUM_CLASSES]), name="sm_b")

        # Ops: located on the worker specified with task_index
        x = tf.placeholder(tf.float32, [None, IMAGE_PIXELS * IMAGE_PIXELS])
        y_ = tf.placeholder(tf.float32, [None, NUM_CLASSES])

        hid_lin = tf.nn.xw_plus_b(x, hid_w, hid_b)
        hid = tf.nn.relu(hid_lin)

        y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
        cross_entropy = -tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0)))

        opt = tf.train.AdamOptimizer(flag_values.learning_rate)

        if flag_values.sync_replicas:
            replicas_to_aggregate = (num_workers if flag_values.replicas_to_aggregate is None
                                     else flag_values.replicas_to_aggregate)
            opt = tf.train.SyncReplicasOptimizer(
                opt, replicas_to_aggregate=replicas_to_aggregate,
                total_num_replicas=num_workers, name="mnist_sync_replicas")

        train_step = opt.minimize(cross_entropy, global_step=global_step)

        if flag_values.use_supervisor:
            # TensorFlow's program: the Supervisor runs the sync-replicas local init once
            # the model is ready for it (ready_for_local_init_op).
            local_init_op = ready_for_local_init_op = None
            if flag_values.sync_replicas:
                local_init_op = opt.local_step_init_op
                if is_chief:
                    local_init_op = opt.chief_init_op
                ready_for_local_init_op = opt.ready_for_local_init_op
                # Initial token and chief queue runners required by the sync_replicas mode
                chief_queue_runner = opt.get_chief_queue_runner()
                sync_init_op = opt.get_init_tokens_op(flag_values.num_init_tokens)
            init_op = tf.global_variables_initializer()

    model = (x, y_, global_step, cross_entropy, train_step)
    if flag_values.use_supervisor:
        return _train_with_supervisor(
            flag_values, server, mnist, is_chief, worker_spec, model,
            init_op, local_init_op, ready_for_local_init_op,
            (chief_queue_runner, sync_init_op) if flag_values.sync_replicas else None)

    hooks = [tf.train.StopAtStepHook(last_step=flag_values.train_steps)]
    if flag_values.sync_replicas:
        # Sets up the local step, the chief's queue runner and the initial tokens.
        hooks.append(opt.make_session_run_hook(is_chief,
                                               num_tokens=flag_values.num_init_tokens))
    train_dir = tempfile.mkdtemp() if is_chief else None

    sess_config = _session_config(flag_values, is_chief)
    master = _master(flag_values, server, worker_spec)

    record = {"losses": [], "global_steps": []}
    run_options = tf.RunOptions(timeout_in_ms=flag_values.run_timeout_ms)
    with tf.train.MonitoredTrainingSession(
            master=master, is_chief=is_chief, checkpoint_dir=train_dir, hooks=hooks,
            config=sess_config, stop_grace_period_secs=1, max_wait_secs=60) as sess:
        print(f"Worker {flag_values.task_index}: Session initialization complete.")

        _training_loop(sess, flag_values, mnist, model, run_options, record,
                       lambda step: sess.should_stop())

    # Validation feed, on a plain session: the parameters live on the ps task(s) and outlast
    # the training session (which refuses runs once its stop hook has fired).
    val_feed = {x: mnist.validation_images, y_: mnist.validation_labels}
    with tf.Session(master, config=sess_config) as sess:
        val_xent, final_step = sess.run([cross_entropy, global_step], feed_dict=val_feed,
                                        options=run_options)
    record["validation_xent"] = float(val_xent)
    record["final_global_step"] = int(final_step)
    print(f"After {final_step} training step(s), validation cross entropy = {val_xent:g}")
    return record


def _training_loop(sess, flag_values, mnist, model, run_options, record, done) -> None:
    """TensorFlow's training loop (mnist_replica.py): steps until ``done(global_step)``,
    each step's loss and global step appended to ``record``."""
    x, y_, global_step, cross_entropy, train_step = model
    # Perform training
    time_begin = time.time()
    print(f"Training begins @ {time_begin:f}")
    local_step = 0
    step = None
    while not done(step):
        # Training feed
        batch_xs, batch_ys = mnist.next_batch(flag_values.batch_size)
        train_feed = {x: batch_xs, y_: batch_ys}
        _, step, xent = sess.run([train_step, global_step, cross_entropy],
                                 feed_dict=train_feed, options=run_options)
        local_step += 1
        record["losses"].append(float(xent))
        record["global_steps"].append(int(step))
        now = time.time()
        print(f"{now:f}: Worker {flag_values.task_index}: training step {local_step} done "
              f"(global step: {step})")

    time_end = time.time()
    print(f"Training ends @ {time_end:f}")
    print("Training elapsed time: %f s" % (time_end - time_begin))


def _session_config(flag_values, is_chief):
    """TensorFlow's program's session config; says who prepares the session."""
    sess_config = tf.ConfigProto(
        allow_soft_placement=True, log_device_placement=False,
        device_filters=["/job:ps", f"/job:worker/task:{flag_values.task_index}"])
    # The chief worker (task_index==0) session will prepare the session,
    # while the remaining workers will wait for the preparation to complete.
    if is_chief:
        print(f"Worker {flag_values.task_index}: Initializing session...")
    else:
        print(f"Worker {flag_values.task_index}: Waiting for session to be initialized...")
    return sess_config


def _master(flag_values, server, worker_spec) -> str:
    if flag_values.existing_servers:
        master = "grpc://" + worker_spec[flag_values.task_index]
        print(f"Using existing server at: {master}")
        return master
    return server.target


def _train_with_supervisor(flag_values, server, mnist, is_chief, worker_spec, model, init_op,
                           local_init_op, ready_for_local_init_op, sync) -> dict:
    """TensorFlow's session code path: ``tf.train.Supervisor`` and its own step loop."""
    x, y_, global_step, cross_entropy, train_step = model
    train_dir = tempfile.mkdtemp()
    if flag_values.sync_replicas:
        sv = tf.train.Supervisor(
            is_chief=is_chief,
            logdir=train_dir,
            init_op=init_op,
            local_init_op=local_init_op,
            ready_for_local_init_op=ready_for_local_init_op,
            recovery_wait_secs=1,
            global_step=global_step)
    else:
        sv = tf.train.Supervisor(
            is_chief=is_chief,
            logdir=train_dir,
            init_op=init_op,
            recovery_wait_secs=1,
            global_step=global_step)

    sess_config = _session_config(flag_values, is_chief)
    master = _master(flag_values, server, worker_spec)
    sess = sv.prepare_or_wait_for_session(master, config=sess_config)
    print(f"Worker {flag_values.task_index}: Session initialization complete.")

    if flag_values.sync_replicas and is_chief:
        # Chief worker will start the chief queue runner and call the init op.
        chief_queue_runner, sync_init_op = sync
        sess.run(sync_init_op)
        sv.start_queue_runners(sess, [chief_queue_runner])

    record = {"losses": [], "global_steps": []}
    run_options = tf.RunOptions(timeout_in_ms=flag_values.run_timeout_ms)
    try:
        _training_loop(sess, flag_values, mnist, model, run_options, record,
                       lambda step: step is not None and step >= flag_values.train_steps)

        # Validation feed
        val_feed = {x: mnist.validation_images, y_: mnist.validation_labels}
        val_xent, final_step = sess.run([cross_entropy, global_step], feed_dict=val_feed,
                                        options=run_options)
    finally:
        # TensorFlow's program ends its process here. This one returns, so it stops the
        # Supervisor's threads: closing the session first ends the chief queue runner's
        # wait for the next round's gradients.
        sv.request_stop()
        sess.close()
        sv.stop()
    record["validation_xent"] = float(val_xent)
    record["final_global_step"] = int(final_step)
    print(f"After {final_step} training step(s), validation cross entropy = {val_xent:g}")
    return record


def main(unused_argv):
    record = train(FLAGS)
    if record:  # a worker: its cross entropy at the start and at the end of its training
        losses = record["losses"]
        print(f"Worker {FLAGS.task_index}: {len(losses)} steps, cross entropy of the first "
              f"3: {np.mean(losses[:3]):g}, of the last 3: {np.mean(losses[-3:]):g}")


if __name__ == "__main__":
    tf.app.run()
