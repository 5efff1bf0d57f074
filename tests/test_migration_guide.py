"""migration_guide.md cannot rot: its runnable blocks run, its anchors exist."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
GUIDE = ROOT / "migration_guide.md"
FENCE = re.compile(
    r"^```python runnable(?P<attrs>[^\n]*)\n(?P<code>.*?)^```", re.M | re.S
)
# Anchors agreed with the `migrate` tool and used by the queues' warnings.
ANCHORS = (
    "queue-api-table", "producers", "readers", "batchers", "remainder-semantics",
    "determinism", "shared-name", "capacity", "queue-runners", "supervisor",
    "estimator", "replicate-model-fn", "tower-loops", "tf-contrib", "legacy-layers",
    "device-lib", "shard-after-shuffle", "prefetch-to-device", "graph-constants",
    "tf-distribute-keras",
)  # fmt: skip
QUEUE_APIS = (
    "string_input_producer", "slice_input_producer", "range_input_producer",
    "input_producer", "limit_epochs", "batch", "batch_join", "shuffle_batch",
    "shuffle_batch_join", "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
    "maybe_shuffle_batch_join", "FixedLengthRecordReader", "TFRecordReader",
    "TextLineReader", "WholeFileReader", "QueueRunner", "start_queue_runners",
    "Coordinator",
)  # fmt: skip


def _text():
    return GUIDE.read_text(encoding="utf-8")


def _blocks():
    """(block id, code, attributes) of every ```python runnable block."""
    blocks = []
    for match in FENCE.finditer(_text()):
        attrs = dict(re.findall(r"(\w+)=(\S+)", match["attrs"]))
        blocks.append((attrs.get("id"), match["code"], attrs))
    return blocks


def _anchors():
    text = _text()
    explicit = set(re.findall(r'<a id="([\w-]+)"></a>', text))
    headings = {
        re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", text, re.M)
    }
    return explicit | headings


BLOCKS = _blocks()


def _fresh(attrs):
    """Blocks that set up TensorFlow themselves need a new process."""
    return attrs.get("process") == "fresh"


# Blocks that train for tens of seconds in the shared process (kept in CI).
SLOW_BLOCKS = {"compat-v1-port"}


def _params(fresh):
    return [
        pytest.param(
            code,
            id=bid,
            marks=[pytest.mark.slow] if fresh or bid in SLOW_BLOCKS else [],
        )
        for bid, code, attrs in BLOCKS
        if _fresh(attrs) == fresh
    ]


@pytest.mark.parametrize("code", _params(fresh=False))
def test_runnable_block_runs(tmp_path, monkeypatch, code):
    """Runs the block in a namespace of its own (the process is shared)."""
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "<migration_guide.md>", "exec"), {"__name__": "__guide__"})


@pytest.mark.parametrize("code", _params(fresh=True))
def test_runnable_block_runs_in_fresh_process(tmp_path, code):
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("TF_USE_LEGACY_KERAS", None)
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]


def test_blocks_have_unique_ids():
    ids = [bid for bid, _, _ in BLOCKS]
    assert len(ids) >= 8 and None not in ids
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("anchor", ANCHORS)
def test_anchor_exists(anchor):
    assert anchor in _anchors()


def test_migrate_tool_links_resolve():
    from estimator_multigpu.migrate import _rules

    assert set(_rules.ANCHORS.values()) <= _anchors()


def test_library_warnings_link_to_existing_sections():
    from estimator_multigpu.inputs.queues import _common

    assert set(_common.SECTIONS) <= _anchors()


@pytest.mark.parametrize("api", QUEUE_APIS)
def test_queue_api_in_table(api):
    table = _text().split('<a id="queue-api-table"></a>')[1].split("\n### ")[0]
    assert re.search(rf"`(tf\.compat\.v1\.)?(train\.)?{api}\b", table)
