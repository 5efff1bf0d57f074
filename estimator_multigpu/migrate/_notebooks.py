"""Jupyter notebooks: their code cells are scanned as one script, never rewritten."""

from __future__ import annotations

import json

NOTE = (
    "a Jupyter notebook: its code cells were scanned as one script (lines count "
    "in that script: a `# In[n]:` line and a blank line before each cell; IPython "
    "magics and shell lines are commented out); --fix does not rewrite "
    "notebooks: convert it with `jupyter nbconvert --to script NOTEBOOK.ipynb`, "
    "run emg-migrate --fix on the .py, and paste the cells back"
)
_MAGIC = ("%", "!")


def is_notebook(path: str) -> bool:
    return path.endswith(".ipynb")


def _lines(cell: dict) -> list[str]:
    source = cell.get("source", [])
    text = "".join(source) if isinstance(source, list) else str(source)
    lines = text.splitlines()
    if lines and lines[0].startswith("%%"):  # a cell magic: the cell is not Python
        return ["# " + line for line in lines]
    return [
        "# " + line if line.lstrip().startswith(_MAGIC) or line.endswith("?") else line
        for line in lines
    ]


def script(text: str) -> str:
    """The notebook's code cells as one Python script.

    Args:
      text: the notebook file's text (nbformat 4 JSON).

    Raises:
      ValueError: `text` is not a notebook (the message says what was found).
    """
    try:
        cells = json.loads(text)["cells"]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(
            f"not a Jupyter notebook (nbformat 4 JSON with `cells`): {e}"
        ) from e
    out = []
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    for number, cell in enumerate(code, start=1):
        count = cell.get("execution_count") or " "
        out += ["", "", f"# In[{count if count != ' ' else number}]:", ""]
        out += _lines(cell)
    return "\n".join(out).lstrip("\n") + "\n"
