"""The nn family: activations, softmax, cross entropy, bias add, batch norm, clipping.

* ``nn_ops``: Relu, Elu, Selu, Softplus, Softmax, LogSoftmax, BiasAdd, L2Loss, the cross
  entropies (``tm.nn.relu``, ``tm.nn.softmax``, ...);
* ``composite``: functions built from other families' ops
  (``sigmoid_cross_entropy_with_logits``);
* ``embedding_ops``: ``embedding_lookup`` over one table or sharded tables;
* ``sampled_losses``: ``nce_loss`` and ``sampled_softmax_loss``;
* ``dropout``: ``tm.nn.dropout`` (a seeded mask from the random family);
* ``clip_ops``: ``clip_by_value``, ``clip_by_norm``, ``global_norm``, ``clip_by_global_norm``
  (TensorFlow's ``clip_ops``, built on ``l2_loss``);
* ``nn_impl``: functions composed of other ops, as TensorFlow's ``nn_impl.py`` (``moments``,
  ``batch_normalization``, ``l2_normalize``, ``swish``, ``crelu``, ``xw_plus_b``, ...);
* ``lrn_ops``: LRN and LRNGrad (``local_response_normalization``/``lrn``);
* ``top_k_ops``: TopKV2 and InTopKV2 (``top_k``, ``in_top_k``);
* ``fused_batch_norm``: the FusedBatchNorm ops (OpDefs and shape functions), their kernels'
  arithmetic in ``fused_batch_norm_kernels`` and their gradients in ``fused_batch_norm_grad``;
* ``conv_ops``, ``pooling_ops``: Conv2D, DepthwiseConv2dNative, Conv3D, MaxPool, AvgPool and
  their backprops (arithmetic in ``conv_kernels``/``pooling_kernels``, geometry in
  ``window_geometry``, gradients in ``conv_grad``/``pooling_grad``); ``conv_functions``:
  ``tm.nn.conv2d``, ``max_pool``, ``convolution`` and the other TF1 functions.

* ``candidate_sampling_ops``: the candidate samplers and ComputeAccidentalHits
  (``log_uniform_candidate_sampler``, ..., ``compute_accidental_hits``).

Gradients of LRN and TopKV2 are in ``lrn_top_k_grad``, of the other ops in ``grad``.
"""

from __future__ import annotations

from tfmini.ops.nn import candidate_sampling_ops as _candidate_sampling_ops
from tfmini.ops.nn import clip_ops as _clip_ops
from tfmini.ops.nn import composite as _composite
from tfmini.ops.nn import conv_functions as _conv_functions
from tfmini.ops.nn import conv_ops as _conv_ops
from tfmini.ops.nn import dropout as _dropout
from tfmini.ops.nn import embedding_ops as _embedding_ops
from tfmini.ops.nn import fused_batch_norm_ops as _fused_batch_norm_ops
from tfmini.ops.nn import lrn_ops as _lrn_ops
from tfmini.ops.nn import nn_impl as _nn_impl
from tfmini.ops.nn import nn_ops as _nn_ops
from tfmini.ops.nn import pooling_ops as _pooling_ops
from tfmini.ops.nn import sampled_losses as _sampled_losses
from tfmini.ops.nn import top_k_ops as _top_k_ops
from tfmini.ops.nn.candidate_sampling_ops import *  # noqa: F403
from tfmini.ops.nn.clip_ops import *  # noqa: F403
from tfmini.ops.nn.composite import *  # noqa: F403
from tfmini.ops.nn.conv_functions import *  # noqa: F403
from tfmini.ops.nn.dropout import *  # noqa: F403
from tfmini.ops.nn.embedding_ops import *  # noqa: F403
from tfmini.ops.nn.fused_batch_norm_ops import *  # noqa: F403
from tfmini.ops.nn.lrn_ops import *  # noqa: F403
from tfmini.ops.nn.nn_impl import *  # noqa: F403
from tfmini.ops.nn.nn_ops import *  # noqa: F403
from tfmini.ops.nn.sampled_losses import *  # noqa: F403
from tfmini.ops.nn.top_k_ops import *  # noqa: F403

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_nn_ops, _composite, _dropout, _clip_ops, _fused_batch_norm_ops, _lrn_ops, _nn_impl,
          _top_k_ops, _conv_ops, _pooling_ops, _conv_functions, _candidate_sampling_ops,
          _embedding_ops, _sampled_losses)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
