"""Local TF_CONFIG cluster launcher: `python -m estimator_multigpu.launch`.

Every task (chief, workers, ps, evaluator) runs the user's command with its
own `TF_CONFIG`, as with tf.estimator: the launcher starts no TensorFlow
server itself; a `ps` task is the user's program, which serves the variables
when it sees `task.type == "ps"` (tf.estimator's `train_and_evaluate` and
`tf.distribute` do this).
"""

from estimator_multigpu.launch._plan import Task, plan_tasks
from estimator_multigpu.launch._supervisor import Supervisor

__all__ = ["Supervisor", "Task", "plan_tasks"]
