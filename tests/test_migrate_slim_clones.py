"""slim model_deploy clones: --fix makes them emg.towers.create_clones, the optimizer chosen after."""

import ast

import pytest
from migrate_helpers import (
    CORPUS,
    RESET_GRAPH,
    TWO_DEVICES,
    parse_ok,
    same_step,
    script_lines,
)

from estimator_multigpu.migrate import (
    _fixer,
    _passes,
    _runner,
    _scanner,
)

SCRIPT = CORPUS / "slim_deploy_clones.py"

# What the rewritten script still uses of the user's deployment/model_deploy.py:
# the DeploymentConfig's device helpers (a stand-in, not slim's file).
_DEPLOY = """
class DeploymentConfig:
    def __init__(self, num_clones=1, clone_on_cpu=False):
        self.num_clones = num_clones

    def variables_device(self):
        return "/cpu:0"

    inputs_device = optimizer_device = variables_device
"""


def test_clones_become_emg_create_clones():
    result = _runner.process(str(SCRIPT))
    new = result.rewritten
    assert parse_ok(new)
    # The config stays for its device helpers; its finding too.
    assert [f.api for f in result.remaining] == ["model_deploy.DeploymentConfig"]
    assert (
        "        clones = emg.towers.create_clones(clone_fn, [batch_queue], "
        "devices=devices)"
    ) in new
    assert '        first_clone_scope = ""\n' in new
    assert (
        "        total_loss, grad_updates = clones.minimize(optimizer, "
        "var_list=variables_to_train, global_step=global_step)\n"
        '        summaries.add(tf.summary.scalar("total_loss", total_loss))\n'
        "        update_ops.append(grad_updates)\n"
    ) in new
    for gone in (
        "model_deploy.optimize_clones",
        "model_deploy.create_clones",
        "apply_gradients(",
    ):
        assert gone not in new
    # The config stays for its device helpers.
    assert "deploy_config = model_deploy.DeploymentConfig(" in new


@pytest.mark.parametrize(
    "old, new",
    [
        (
            "clones, optimizer, var_list=variables_to_train",
            "clones, optimizer, regularization_losses=[]",
        ),
        (
            "        update_ops.append(grad_updates)\n",
            "        print(clones_gradients)\n        update_ops.append(grad_updates)\n",
        ),
    ],
    ids=["other_arguments", "gradients_read_after"],
)
def test_other_clone_shapes_stay_reported(old, new):
    source = SCRIPT.read_text()
    assert old in source
    source = source.replace(old, new)
    tree = ast.parse(source)
    findings = _passes.scan(
        tree, source, "s.py", _scanner.scan_rules(tree, source, "s.py")
    )
    assert "create_clones(clone_fn" not in _fixer.fix(source, tree, findings).source
    assert not any(f.fixed for f in findings if f.rule.rule_id == "slim-clones")


@pytest.mark.slow
def test_rewritten_clones_take_the_one_device_step_on_two(tmp_path):
    (tmp_path / "deployment").mkdir()
    (tmp_path / "deployment" / "__init__.py").write_text("")
    (tmp_path / "deployment" / "model_deploy.py").write_text(_DEPLOY)
    fixed = tmp_path / "fixed.py"
    fixed.write_text(_runner.process(str(SCRIPT)).rewritten)
    runs = [(str(n), fixed, [f"{fixed}.work", n]) for n in (1, 2)]
    out = script_lines(runs, TWO_DEVICES, RESET_GRAPH, timeout=600, pythonpath=tmp_path)
    assert out["1"][3:5] == ["clones 1", "step 3"]
    assert out["2"][3] == "clones 2"
    # Two clones of 4 examples each take the step of one device on all 8.
    two, one = out["2"][:3] + out["2"][4:], out["1"][:3] + out["1"][4:]
    assert same_step(two, one), (two, one)
