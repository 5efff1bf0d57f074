"""`TF_CONFIG` read into the cluster properties of a `RunConfig`, as tf.estimator.

RunConfig accepts what tf.estimator's accepted (custom job types, any
evaluator index, addresses it does not parse) and refuses the rest with
tf.estimator's message first, then the `TF_CONFIG` field and the fix. One
extension: a cluster without a `chief` job has worker 0 as its chief (the
launcher's layout). What a cluster cannot run is refused by
`train_and_evaluate` (`distributed.run`), before anything starts.
"""

from __future__ import annotations

import json
import os

import tensorflow as tf

from estimator_multigpu import cluster as cluster_lib

CHIEF, MASTER, WORKER, PS, EVALUATOR = "chief", "master", "worker", "ps", "evaluator"
_LOCAL_MASTER = ""
_GRPC = "grpc://"


def tf_config() -> dict:
    """`TF_CONFIG` parsed (an empty dict when unset).

    Raises:
      ValueError: for text that is not a JSON object, naming what is wrong.
    """
    text = os.environ.get("TF_CONFIG") or "{}"  # Empty is unset, as tf.estimator.
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{error} (TF_CONFIG is not valid JSON: {text!r}. Write it as "
            '\'{"cluster": {...}, "task": {"type": "worker", "index": 0}}\'.)'
        ) from None
    if not isinstance(config, dict):
        cluster_lib.parse_tf_config(text)  # Raises, naming the fault.
    if config:
        tf.get_logger().info("TF_CONFIG environment variable: %s", config)
    return config


def model_dir_from(config: dict, model_dir: str | None) -> str | None:
    """`model_dir`, or TF_CONFIG's; ValueError when both differ or one is empty."""
    if model_dir == "":
        raise ValueError(
            "model_dir should be non-empty (RunConfig `model_dir` must be a "
            "non-empty path; received '')."
        )
    from_env = config.get("model_dir")
    if from_env == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if from_env:
        if model_dir and from_env != model_dir:
            raise ValueError(
                "`model_dir` provided in RunConfig construct, if set, must have "
                "the same value as the model_dir in TF_CONFIG. model_dir: "
                f'{model_dir}\nTF_CONFIG["model_dir"]: {from_env}.\n'
            )
        tf.get_logger().info("Using model_dir in TF_CONFIG: %s", from_env)
    return model_dir or from_env


def properties(config: dict) -> dict:
    """The cluster properties (`is_chief`, `master`, ...) `config` describes."""
    service = config.get("service")
    if service is not None and not isinstance(service, dict):
        raise TypeError(
            f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}'
        )
    spec = tf.train.ClusterSpec(config.get("cluster", {}))
    task = config.get("task", {})
    if not spec:
        props = _local(config, task)
    elif MASTER in spec.jobs:
        props = _with_master(config, spec, task)
    else:
        props = _with_chief(config, spec, task)
    return dict(props, service=service)


def _local(config: dict, task: dict) -> dict:
    task_type = task.get("type", WORKER)
    task_id = _index(task.get("index", 0))
    if task_type != WORKER:
        raise _refuse(
            'If "cluster" is not set in TF_CONFIG, task type must be WORKER.',
            f"`task.type` is {task_type!r}; a TF_CONFIG without `cluster` "
            "describes one local worker: add the `cluster` its task belongs to",
        )
    if task_id != 0:
        raise _refuse(
            'If "cluster" is not set in TF_CONFIG, task index must be 0.',
            f"`task.index` is {task_id}; add the `cluster` it indexes, or use 0",
        )
    return {
        "cluster_spec": tf.train.ClusterSpec({}),
        "task_type": task_type,
        "task_id": task_id,
        "global_id_in_cluster": 0,
        "master": config.get("session_master", _LOCAL_MASTER),
        "evaluation_master": config.get("eval_session_master", _LOCAL_MASTER),
        "is_chief": True,
        "num_ps_replicas": 0,
        "num_worker_replicas": 1,
    }


def _with_chief(config: dict, spec, task: dict) -> dict:
    """A cluster with a `chief`, or of workers whose worker 0 is the chief."""
    chief = CHIEF if CHIEF in spec.jobs or WORKER not in spec.jobs else WORKER
    task_type, task_id = _task(spec, task, chief)
    props = {
        "task_type": task_type,
        "task_id": task_id,
        "evaluation_master": _eval_master(task_type, config),
        "is_chief": task_type == chief and (chief == CHIEF or task_id == 0),
    }
    if task_type == EVALUATOR:
        return dict(
            props,
            cluster_spec=tf.train.ClusterSpec({}),
            master=_LOCAL_MASTER,
            num_ps_replicas=0,
            num_worker_replicas=0,
            global_id_in_cluster=None,
        )
    return dict(props, **_member(config, spec, task_type, task_id, chief))


def _with_master(config: dict, spec, task: dict) -> dict:
    if CHIEF in spec.jobs:
        raise _refuse(
            "If `master` node exists in `cluster`, job `chief` is not supported.",
            "`cluster` lists both `master` and `chief`; keep one of them",
        )
    task_type, task_id = _task(spec, task, MASTER)
    if task_type == EVALUATOR:
        raise _refuse(
            "If `master` node exists in `cluster`, task_type `evaluator` is not "
            "supported.",
            "an evaluator goes with a `chief` job: rename `master` to `chief`",
        )
    props = _member(config, spec, task_type, task_id, MASTER)
    return dict(
        props,
        task_type=task_type,
        task_id=task_id,
        evaluation_master=_eval_master(task_type, config),
        is_chief=task_type == MASTER,
    )


def _member(config: dict, spec, task_type: str, task_id: int, chief: str) -> dict:
    """Properties of a task that trains (not an evaluator)."""
    jobs = spec.as_dict()
    return {
        "cluster_spec": spec,
        "master": _session_master(spec, task_type, task_id, config),
        "num_ps_replicas": len(jobs.get(PS, [])),
        "num_worker_replicas": len(jobs.get(WORKER, []))
        + (len(jobs.get(chief, [])) if chief != WORKER else 0),
        "global_id_in_cluster": _global_id(spec, task_type, task_id, chief),
    }


def _refuse(tf_text: str, hint: str) -> ValueError:
    """tf.estimator's message, then the TF_CONFIG field at fault and the fix."""
    return ValueError(f"{tf_text} (TF_CONFIG field {hint}.)")


def _index(value) -> int:
    """`task.index` as tf.estimator read it (`int(...)`)."""
    try:
        return int(value)
    except (TypeError, ValueError) as error:
        raise _refuse(
            str(error), f"`task.index` must be an integer, got {value!r}"
        ) from None


def _task(spec, task: dict, chief: str) -> tuple[str, int]:
    """The validated `(task_type, task_id)` of TF_CONFIG's `task`.

    `chief` is the job of the chief (`'chief'`, `'master'`, or `'worker'` for
    a cluster of workers, whose worker 0 is the chief).
    """
    if chief not in spec.jobs:
        raise _refuse(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief}" node.',
            f"`cluster` has the jobs {list(spec.jobs)} but no `{chief}` or "
            "`worker` job; add a training task",
        )
    if chief != WORKER and len(spec.job_tasks(chief)) > 1:
        raise _refuse(
            f'The "cluster" in TF_CONFIG must have only one "{chief}" node.',
            f"`cluster.{chief}` has {len(spec.job_tasks(chief))} addresses; a "
            f"cluster has one {chief}, the others are workers",
        )
    task_type, task_id = task.get("type"), task.get("index")
    example = 'add e.g. "task": {"type": "worker", "index": 0}'
    if not task_type:
        raise _refuse(
            'If "cluster" is set in TF_CONFIG, task type must be set.',
            f"`task.type` is missing; {example}",
        )
    if task_id is None:
        raise _refuse(
            'If "cluster" is set in TF_CONFIG, task index must be set.',
            f"`task.index` is missing; {example}",
        )
    task_id = _index(task_id)
    if task_id < 0:
        raise _refuse(
            "Task index must be non-negative number.",
            f"`task.index` is {task_id}; use 0 or more",
        )
    if task_type != EVALUATOR:
        _check_member(spec, task_type, task_id)
    return task_type, task_id


def _check_member(spec, task_type: str, task_id: int) -> None:
    note = (
        "Note that these values may be coming from the TF_CONFIG environment variable."
    )
    if task_type not in spec.jobs:
        raise _refuse(
            f"{task_type} is not a valid task_type in the cluster_spec:\n{spec}\n\n"
            + note,
            f"`task.type` is {task_type!r}; use a job of `cluster` "
            f"{list(spec.jobs)} or 'evaluator'",
        )
    size = len(spec.job_tasks(task_type))
    if not 0 <= task_id < size:
        raise _refuse(
            f"{task_id} is not a valid task_id for task_type {task_type} in the "
            f"cluster_spec:\n{spec}\n\n" + note,
            f"`task.index` is {task_id}, out of range for {size} {task_type!r} "
            f"task(s); use 0..{size - 1}",
        )


def _session_master(spec, task_type: str, task_id: int, config: dict) -> str:
    if "session_master" in config:
        return config["session_master"]
    jobs = spec.jobs
    if len(jobs) == 1 and len(spec.job_tasks(jobs[0])) == 1:
        return _LOCAL_MASTER
    return _GRPC + spec.job_tasks(task_type)[task_id]


def _eval_master(task_type: str, config: dict) -> str:
    if task_type == EVALUATOR:
        return config.get("eval_session_master", _LOCAL_MASTER)
    return _LOCAL_MASTER


def _global_id(spec, task_type: str, task_id: int, chief: str) -> int:
    order = [chief] + [t for t in sorted(spec.jobs) if t not in (chief, PS)]
    if PS in spec.jobs:
        order.append(PS)
    next_id = 0
    for job in order:
        if job == task_type:
            return next_id + task_id
        next_id += len(spec.job_tasks(job))
    raise RuntimeError(f"`task_type` ({task_type}) is not in cluster_spec ({spec}).")


_DEVICE_FILTERS = {
    MASTER: ["/job:ps", "/job:master"],
    CHIEF: ["/job:ps", "/job:chief"],
    PS: ["/job:ps", "/job:worker", "/job:chief", "/job:master"],
}


def distributed_session_config(task_type: str, task_id: int, default):
    """tf.estimator's session config for a task of a cluster (None elsewhere).

    Args:
      default: the local default `ConfigProto`, which this one extends with
        device filters so the task talks to the parameter servers only.
    """
    if task_type == WORKER:
        filters = ["/job:ps", f"/job:worker/task:{task_id}"]
    else:
        filters = _DEVICE_FILTERS.get(task_type)
    if filters is None:
        return None
    config = type(default)()
    config.CopyFrom(default)
    config.device_filters.extend(filters)
    return config


def check_trainable_here(config) -> None:
    """Raises unless this process alone is the whole training cluster.

    `Estimator.train` trains in this one process; on a cluster a worker, a
    parameter server or a chief with peers would otherwise train alone,
    silently. `train_and_evaluate` runs each task of a cluster instead.

    Raises:
      ValueError: for a non-chief task or a cluster with more than one
        training task.
    """
    hint = (
        "Estimator.train trains in this one process; run "
        "emg.estimator.train_and_evaluate in every task of the cluster (each "
        "with its TF_CONFIG), or unset TF_CONFIG."
    )
    if config.task_type in (EVALUATOR, PS):
        raise ValueError(
            "Train has been called wrong configuration. Please use "
            "tf.estimator.train_and_evaluate which calls proper API according "
            f"to given configuration. Current configuration: {config}. "
            f"(task_type {config.task_type!r} does not train. {hint})"
        )
    if not config.is_chief:
        raise ValueError(
            f"TF_CONFIG names this process task_type={config.task_type!r}, "
            f"task_id={config.task_id}: not the chief. {hint}"
        )
    if config.num_worker_replicas > 1 or config.num_ps_replicas > 0:
        raise ValueError(
            f"TF_CONFIG describes a cluster with {config.num_worker_replicas} "
            f"worker(s) and {config.num_ps_replicas} parameter server(s): "
            f"{config.cluster_spec.as_dict()}. {hint}"
        )
