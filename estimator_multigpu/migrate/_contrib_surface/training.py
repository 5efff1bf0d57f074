"""tf.contrib.training of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "no fate given"
ADVICE = "tf.data for the input helpers, tf.compat.v1.train for the rest"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "FeedingQueueRunner": ("none", "", ""),
    "GreedyLoadBalancingStrategy": (
        "emg",
        "emg.estimator.GreedyLoadBalancingStrategy",
        "emg.estimator.GreedyLoadBalancingStrategy "
        "(contrib's, for "
        "tf.compat.v1.train.replica_device_setter(ps_strategy=...); "
        "emg-migrate --fix writes it)",
    ),
    "HParams": (
        "emg",
        "emg.estimator.HParams",
        "emg.estimator.HParams(**values) (TF 1.x's parse/types; an "
        "HParamDef protocol buffer is not supported)",
    ),
    "NextQueuedSequenceBatch": ("none", "", ""),
    "RandomStrategy": ("none", "", ""),
    "SequenceQueueingStateSaver": ("none", "", ""),
    "StopAfterNEvalsHook": ("none", "", ""),
    "SummaryAtEndHook": ("none", "", ""),
    "add_gradients_summaries": ("none", "", ""),
    "batch_sequences_with_states": ("none", "", ""),
    "bucket": ("none", "", ""),
    "bucket_by_sequence_length": ("none", "", ""),
    "byte_size_load_fn": (
        "emg",
        "emg.estimator.byte_size_load_fn",
        "emg.estimator.byte_size_load_fn (contrib's, for "
        "tf.compat.v1.train.replica_device_setter(ps_strategy=...); "
        "emg-migrate --fix writes it)",
    ),
    "checkpoints_iterator": ("exact", "tf.compat.v1.train.checkpoints_iterator", ""),
    "clip_gradient_norms": ("none", "", ""),
    "clip_gradient_norms_fn": ("none", "", ""),
    "create_train_op": ("none", "", ""),
    "evaluate_once": ("none", "", ""),
    "evaluate_repeatedly": ("none", "", ""),
    "get_or_create_eval_step": ("none", "", ""),
    "multiply_gradients": ("none", "", ""),
    "parse_values": ("none", "", ""),
    "rejection_sample": ("none", "", ""),
    "resample_at_rate": ("none", "", ""),
    "stratified_sample": ("none", "", ""),
    "train": ("none", "", ""),
    "wait_for_new_checkpoint": ("none", "", ""),
    "weighted_resample": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.training.python.training.bucket_ops": {
        "bucket": "bucket",
        "bucket_by_sequence_length": "bucket_by_sequence_length",
    },
    "tf.contrib.training.python.training.device_setter": {
        "GreedyLoadBalancingStrategy": "GreedyLoadBalancingStrategy",
        "RandomStrategy": "RandomStrategy",
        "byte_size_load_fn": "byte_size_load_fn",
    },
    "tf.contrib.training.python.training.evaluation": {
        "SummaryAtEndHook": "SummaryAtEndHook",
        "checkpoints_iterator": "checkpoints_iterator",
        "evaluate_repeatedly": "evaluate_repeatedly",
        "wait_for_new_checkpoint": "wait_for_new_checkpoint",
    },
    "tf.contrib.training.python.training.hparam": {
        "HParams": "HParams",
        "parse_values": "parse_values",
    },
    "tf.contrib.training.python.training.resample": {
        "resample_at_rate": "resample_at_rate",
        "weighted_resample": "weighted_resample",
    },
    "tf.contrib.training.python.training.sampling_ops": {
        "rejection_sample": "rejection_sample",
        "stratified_sample": "stratified_sample",
    },
    "tf.contrib.training.python.training.sequence_queueing_state_saver": {
        "NextQueuedSequenceBatch": "NextQueuedSequenceBatch",
        "SequenceQueueingStateSaver": "SequenceQueueingStateSaver",
        "batch_sequences_with_states": "batch_sequences_with_states",
    },
    "tf.contrib.training.python.training.training": {
        "add_gradients_summaries": "add_gradients_summaries",
        "clip_gradient_norms": "clip_gradient_norms",
        "clip_gradient_norms_fn": "clip_gradient_norms_fn",
        "create_train_op": "create_train_op",
        "multiply_gradients": "multiply_gradients",
        "train": "train",
    },
}
