"""librosa functions that TF 1.x-era audio code called and librosa removed.

Audio models of the era (WaveNet, Tacotron, speech front ends) read and
wrote audio with librosa 0.5/0.6. Two of its functions they used are gone,
and Python finds out only when the line runs (AttributeError), often in a
reader thread that then leaves the training waiting on its queue:

- `librosa.feature.rmse(y, S, frame_length, hop_length, center, pad_mode)`
  was renamed `librosa.feature.rms` (0.7; `rmse` removed in 0.8), whose
  arguments are keyword-only (0.10) and whose `pad_mode` default became
  `'constant'` (0.10). `--fix` writes `rms` with each argument by its
  keyword, in the call's order, and `pad_mode='reflect'`, rmse's default,
  where the call passes none.
- `librosa.output.write_wav(path, y, sr, norm=False)` was removed (0.8).
  Its body was `scipy.io.wavfile.write(path, sr, wav)`, `wav` being `y`
  transposed when it held two channels first (librosa's stereo layout) and
  `y` itself when 1-D; `--fix` writes `scipy.io.wavfile.write(path, sr,
  y.T)` (a 1-D array's `.T` is itself; write_wav took only arrays) and
  imports `scipy.io.wavfile` unless the module names it already (`from
  scipy.io import wavfile`). The same samples, in the same WAV sample
  format (32-bit float for float32 audio), where `soundfile.write` would
  write 16-bit PCM.

Left for a hand rewrite, with the successor in the finding: a removed
function imported by name (`from librosa.feature import rmse`) or used as
a value, a call with `*args` or `**kwargs`, `write_wav(..., norm=...)`
other than `norm=False` (librosa normalized float audio to peak 1 first:
`librosa.util.normalize(y, norm=np.inf, axis=None)`), and a module whose
own `scipy` is not SciPy.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _imports
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "librosa-removed"
ANCHOR = "librosa-removed-functions"
RMSE = "librosa.feature.rmse"
WRITE_WAV = "librosa.output.write_wav"
WAVFILE = "scipy.io.wavfile"
# Each removed function's parameters, in librosa 0.6's order.
PARAMS = {
    RMSE: ("y", "S", "frame_length", "hop_length", "center", "pad_mode"),
    WRITE_WAV: ("path", "y", "sr", "norm"),
}
SUCCESSOR = {
    RMSE: "librosa.feature.rms(y=..., pad_mode='reflect', ...)",
    WRITE_WAV: "scipy.io.wavfile.write(path, sr, y.T)",
}
# Nodes `.T` binds to without parentheses.
_PRIMARY = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)


def _rule(api: str, why: str):
    how = "emg-migrate --fix writes it" if not why else f"by hand: {why}"
    return rule(
        RULE_ID,
        f"{api} was removed from librosa (AttributeError when the line runs)",
        f"{SUCCESSOR[api]} ({how})",
        ANCHOR,
        fixable=not why,
    )


def _arguments(call: ast.Call, params: tuple) -> tuple[list, str]:
    """[(parameter, value)] in the call's order, or why they cannot be named."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return [], "called with *args or **kwargs"
    if len(call.args) > len(params):
        return [], f"called with {len(call.args)} positional arguments"
    named = list(zip(params, call.args))
    for k in call.keywords:
        if k.arg not in params:
            return [], f"called with an unknown keyword {k.arg}="
        named.append((k.arg, k.value))
    return named, ""


def _wavfile(m: Module) -> tuple[str, bool, str]:
    """(how the module spells scipy.io.wavfile, whether it must import it,
    why it cannot)."""
    bindings = m.table.bindings
    for name, path in bindings.items():
        if path == WAVFILE and name not in m.table.assigned:
            return name, False, ""
    if bindings.get("scipy", "scipy") != "scipy" or "scipy" in m.uses.stored:
        return "", False, "the module binds `scipy` to something else"
    return WAVFILE, True, ""


def _why(m: Module, call: ast.Call, api: str) -> str:
    """Why the call cannot be rewritten, or ''."""
    if not isinstance(call.func, ast.Attribute):
        return f"{api.rsplit('.', 1)[1]} imported by name: call it on librosa"
    named, why = _arguments(call, PARAMS[api])
    if why or api == RMSE:
        return why
    given = dict(named)
    if not {"path", "y", "sr"} <= given.keys():
        return "called without path, y and sr"
    norm = given.get("norm")
    if norm is not None and not (
        isinstance(norm, ast.Constant) and norm.value is False
    ):
        return (
            "norm= normalized float audio first: write "
            "librosa.util.normalize(y, norm=np.inf, axis=None)"
        )
    return _wavfile(m)[2]


def _uses(m: Module) -> list[tuple[ast.AST, str, str]]:
    """(node, api, why it cannot be rewritten or '') per use of a removed
    function: the call where it is called, else the read."""
    out = []
    for node in _astutil.nodes(m.tree, ast.Name, ast.Attribute):
        api = m.uses.path(node)
        if api not in PARAMS or not isinstance(node.ctx, ast.Load):
            continue
        call = m.uses.call(node)
        if call is None:
            out.append((node, api, "used as a value, not called"))
        else:
            out.append((call, api, _why(m, call, api)))
    return out


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per use of a removed librosa function."""
    del ctx
    out = list(m.findings)
    if "librosa" not in m.source:
        return out
    for node, api, why in _uses(m):
        out.append(at(m, node, api, m.off.segment(node) or api, _rule(api, why)))
    return out


def _rms_text(m: Module, call: ast.Call) -> str:
    named, _ = _arguments(call, PARAMS[RMSE])
    words = [f"{k}={m.off.segment(v)}" for k, v in named]
    if "pad_mode" not in dict(named):
        words.append("pad_mode='reflect'")
    return f"{m.off.segment(call.func.value)}.rms({', '.join(words)})"


def _write_text(m: Module, call: ast.Call, wavfile: str) -> str:
    given = dict(_arguments(call, PARAMS[WRITE_WAV])[0])
    y = m.off.segment(given["y"])
    if not isinstance(given["y"], _PRIMARY):
        y = f"({y})"
    path, sr = m.off.segment(given["path"]), m.off.segment(given["sr"])
    return f"{wavfile}.write({path}, {sr}, {y}.T)"


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each fixable use's rewrite, and the import of
    scipy.io.wavfile a rewritten write_wav needs; one that overlaps an edit
    made before is left."""
    del ctx
    ours = [
        f
        for f in m.findings
        if f.rule.rule_id == RULE_ID and f.rule.fixable and not f.fixed
    ]
    if not ours:
        return m.edits
    wavfile, needs_import, _ = _wavfile(m)
    plans = []
    for f in ours:
        if f.api == RMSE:
            text = _rms_text(m, f.node)
        else:
            text = _write_text(m, f.node, wavfile)
        plans.append((m.off.replace(f.node, text), [f]))
    out = place(m.edits, plans)
    wrote = any(f.fixed and f.api == WRITE_WAV for f in ours)
    if wrote and needs_import:
        out.append(_imports.import_edit(m.tree, m.off, WAVFILE, WAVFILE))
    return out
