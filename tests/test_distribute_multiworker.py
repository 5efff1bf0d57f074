"""emg.distribute under MultiWorkerMirroredStrategy: TF_CONFIG, sharding, 2 workers."""

import json
import subprocess
import sys

import pytest
import tensorflow as tf

import estimator_multigpu.distribute as ed

_WORKERS = {"worker": ["127.0.0.1:1", "127.0.0.1:2"]}

# One worker of the job: a tiny model trained on its pipeline's batches with
# ring all-reduce on the CPU; writes the ids it saw and the all-reduced count.
_TASK = r"""
import json, os, pathlib, sys
import tensorflow as tf
import estimator_multigpu.distribute as ed

out = pathlib.Path(sys.argv[1])
n, global_batch = int(sys.argv[2]), int(sys.argv[3])
index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
strategy = ed.multi_worker_strategy(communication="ring")

def examples(ctx):
    return tf.data.Dataset.range(n).map(lambda i: (i, tf.cast(i % 2, tf.float32)))

dataset = ed.distribute_dataset_fn(
    examples, strategy, global_batch_size=global_batch,
    shuffle_buffer_size=8, seed=3,
)
with strategy.scope():
    weight = tf.Variable(0.0)
optimizer = tf.keras.optimizers.SGD(0.1)

@tf.function
def step(ids, labels):
    def replica(ids, labels):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((weight - labels) ** 2)
        optimizer.apply_gradients([(tape.gradient(loss, weight), weight)])
        return tf.size(ids)
    count = strategy.run(replica, (ids, labels))
    return strategy.reduce("SUM", count, axis=None)

seen, total = [], 0
for ids, labels in dataset:
    total += int(step(ids, labels))
    for local in strategy.experimental_local_results(ids):
        seen.extend(local.numpy().tolist())
(out / f"worker{index}.json").write_text(json.dumps(
    {"seen": seen, "total": total, "weight": float(weight.numpy())}))
barrier = strategy.reduce("SUM", strategy.run(lambda: tf.constant(1)), axis=None)
print("done", index, int(barrier), flush=True)
"""


def _config(task_type="worker", index=0, jobs=_WORKERS):
    return json.dumps({"cluster": jobs, "task": {"type": task_type, "index": index}})


@pytest.mark.parametrize(
    "text, match",
    [
        ("", r"TF_CONFIG is not set: .*--workers=N"),
        (_config(index=2), r"`task.index` is 2, out of range"),
        (
            _config(jobs={**_WORKERS, "ps": ["127.0.0.1:3"]}),
            r"`cluster.ps` lists 1 task\(s\).*ParameterServerStrategy",
        ),
        (_config("evaluator"), r"`task.type` is 'evaluator'; only chief"),
        ("{", r"TF_CONFIG is not valid JSON"),
    ],
    ids=["unset", "index_out_of_range", "ps_job", "evaluator", "bad_json"],
)
def test_tf_config_checked_before_the_strategy(monkeypatch, text, match):
    monkeypatch.setenv("TF_CONFIG", text)
    with pytest.raises(ValueError, match=match):
        ed.multi_worker_strategy(communication="ring")


def test_bad_communication():
    with pytest.raises(ValueError, match=r"`communication` must be one of .*'grpc'"):
        ed.multi_worker_strategy(communication="grpc")


def test_valid_tf_config_parsed():
    parsed = ed.check_multi_worker_tf_config(_config(index=1))
    assert (parsed.task_type, parsed.task_index, parsed.is_chief) == (
        "worker",
        1,
        False,
    )


@pytest.mark.parametrize("policy", ["file", "data", "off", "hint"])
def test_auto_shard_policy_set_explicitly(policy):
    dataset = ed.with_auto_shard_policy(tf.data.Dataset.range(3), policy)
    chosen = dataset.options().experimental_distribute.auto_shard_policy
    assert chosen.name == policy.upper()


def test_auto_shard_policy_auto_refused():
    with pytest.raises(ValueError, match=r"`policy` must be one of .*got 'auto'"):
        ed.with_auto_shard_policy(tf.data.Dataset.range(3), "auto")


def _pipeline(strategy, examples):
    replica_fn = ed.per_replica_dataset_fn(examples, strategy, global_batch_size=4)
    context = tf.distribute.InputContext(1, 0, strategy.num_replicas_in_sync)
    return replica_fn(context)


def test_pipelines_shard_themselves_with_policy_off(strategy):
    dataset = _pipeline(strategy, lambda ctx: tf.data.Dataset.range(8))
    policy = dataset.options().experimental_distribute.auto_shard_policy
    assert policy == tf.data.experimental.AutoShardPolicy.OFF


def test_user_policy_kept(strategy):
    dataset = _pipeline(
        strategy,
        lambda ctx: ed.with_auto_shard_policy(tf.data.Dataset.range(8), "data"),
    )
    policy = dataset.options().experimental_distribute.auto_shard_policy
    assert policy == tf.data.experimental.AutoShardPolicy.DATA


def _launch(tmp_path, n, global_batch, workers=2):
    script = tmp_path / "task.py"
    script.write_text(_TASK)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", f"--workers={workers}"]
    argv += ["--grace-seconds=2", "--", sys.executable, str(script), str(tmp_path)]
    argv += [str(n), str(global_batch)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_two_workers_see_each_example_once_per_epoch(tmp_path):
    result = _launch(tmp_path, n=22, global_batch=4)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "[worker:1] done 1 2" in result.stdout
    runs = [json.loads((tmp_path / f"worker{i}.json").read_text()) for i in (0, 1)]
    assert sorted(runs[0]["seen"] + runs[1]["seen"]) == list(range(22))
    assert not set(runs[0]["seen"]) & set(runs[1]["seen"])
    assert sorted(runs[0]["seen"]) == list(range(0, 22, 2))  # Sharded by worker.
    assert runs[0]["total"] == runs[1]["total"] == 22  # All-reduced across workers.
    assert runs[0]["weight"] == pytest.approx(runs[1]["weight"])  # In sync.
    assert runs[0]["weight"] != 0.0


@pytest.mark.slow
def test_global_batch_checked_across_workers(tmp_path):
    result = _launch(tmp_path, n=8, global_batch=3)
    assert result.returncode == 1
    assert (
        "`global_batch_size` (3) must be divisible by `num_replicas_in_sync` (2)"
        in (result.stdout)
    )
    assert "[launch] worker:" in result.stdout
