"""`--upgrade-v2` keeps each file's encoding, BOM and line endings, never takes
an empty or failed tf_upgrade_v2 output, and takes any number of files.

Most cases run a stand-in `tensorflow` package whose upgrader renames
`tf.placeholder` (or returns nothing, or fails, when the text asks it to), so
they test this tool's handling and start in milliseconds; the last one runs
the real tf_upgrade_v2.
"""

import pytest
from migrate_helpers import run_cli

SOURCE = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None])\n"
_FAKE_EDITS = """
class ASTCodeUpgrader:
    def __init__(self, spec):
        pass

    def update_string_pasta(self, text, in_filename):
        if "MAKE-EMPTY" in text:
            return 1, "", [], []
        if "MAKE-FAIL" in text:
            return 0, "", ["ERROR: Failed to parse.\\nSyntaxError: bad"], []
        if "\\r" in text or text.startswith("\\ufeff"):
            return 0, "", ["ERROR: Failed to parse.\\nraw bytes leaked"], []
        return 1, text.replace("tf.placeholder", "tf.compat.v1.placeholder"), [], []
"""


@pytest.fixture
def fake_tf(tmp_path):
    """A PYTHONPATH entry holding a stand-in `tensorflow` upgrader."""
    pkg = tmp_path / "fake" / "tensorflow" / "tools" / "compatibility"
    pkg.mkdir(parents=True)
    for folder in (pkg, pkg.parent, pkg.parent.parent):
        (folder / "__init__.py").write_text("")
    (pkg / "ast_edits.py").write_text(_FAKE_EDITS)
    (pkg / "tf_upgrade_v2.py").write_text("class TFAPIChangeSpec:\n    pass\n")
    return str(tmp_path / "fake")


def _cli(args, pythonpath, timeout=300):
    return run_cli(
        *args, pythonpath=pythonpath, timeout=timeout, TF_CPP_MIN_LOG_LEVEL="3"
    )


def _write(path, data: bytes):
    path.write_bytes(data)
    return str(path)


def test_bom_crlf_and_latin1_files_keep_their_bytes_format(tmp_path, fake_tf):
    bom = _write(tmp_path / "bom.py", b"\xef\xbb\xbf" + SOURCE.encode())
    crlf = _write(tmp_path / "crlf.py", SOURCE.replace("\n", "\r\n").encode())
    latin = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + SOURCE
    lat = _write(tmp_path / "lat.py", latin.encode("latin-1"))
    proc = _cli(["--upgrade-v2", "--fix", "--no-backup", bom, crlf, lat], fake_tf)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("tf_upgrade_v2 renamed TF 1.x names first") == 3
    new_bom = (tmp_path / "bom.py").read_bytes()
    assert new_bom.startswith(b"\xef\xbb\xbfimport tensorflow as tf")
    assert b"tf.compat.v1.placeholder(" in new_bom
    new_crlf = (tmp_path / "crlf.py").read_bytes()
    assert b"tf.compat.v1.placeholder(" in new_crlf
    assert new_crlf.count(b"\n") == new_crlf.count(b"\r\n") > 2
    new_lat = (tmp_path / "lat.py").read_bytes()
    assert new_lat.startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    assert b"tf.compat.v1.placeholder(" in new_lat


MIXED = (
    b"import tensorflow as tf\r\n"
    b"# an LF line\n"
    b"x = tf.placeholder(tf.float32, [None])\r\n"
    b"y = tf.placeholder(tf.float32, [None])\n"
    b"z = 1\r\n"
)


def test_mixed_line_endings_are_kept_line_by_line(tmp_path, fake_tf):
    """Each line keeps its own ending; a renamed line keeps the one it had."""
    mixed = _write(tmp_path / "mixed.py", MIXED)
    proc = _cli(["--upgrade-v2", "--fix", "--no-backup", mixed], fake_tf)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "mixed.py").read_bytes() == (
        b"import tensorflow as tf\r\n"
        b"tf.compat.v1.disable_v2_behavior()\r\n"
        b"# an LF line\n"
        b"x = tf.compat.v1.placeholder(tf.float32, [None])\r\n"
        b"y = tf.compat.v1.placeholder(tf.float32, [None])\n"
        b"z = 1\r\n"
    )


@pytest.mark.parametrize(
    "marker, reason",
    [
        ("MAKE-EMPTY", "tf_upgrade_v2 returned an empty text"),
        ("MAKE-FAIL", "tf_upgrade_v2 failed on this file: ERROR: Failed to parse"),
    ],
    ids=["empty_output", "failed_output"],
)
def test_an_empty_or_failed_upgrade_keeps_the_file(tmp_path, fake_tf, marker, reason):
    original = f"# {marker}\n{SOURCE}".encode()
    script = _write(tmp_path / "train.py", original)
    proc = _cli(["--upgrade-v2", "--fix", script], fake_tf)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert reason in proc.stdout
    assert "file left unchanged" in proc.stdout
    assert "run without --upgrade-v2" in proc.stdout
    assert (tmp_path / "train.py").read_bytes() == original
    assert not (tmp_path / "train.py.bak").exists()


@pytest.mark.slow
def test_two_thousand_files_with_long_names_are_upgraded(tmp_path, fake_tf):
    top = tmp_path / "project"
    tree = top / ("deeply_nested_package_folder_" * 3) / "sub"
    tree.mkdir(parents=True)
    for i in range(2000):
        (tree / f"module_with_a_rather_long_name_{i:04d}.py").write_text(SOURCE)
    proc = _cli(["--upgrade-v2", str(top)], fake_tf, timeout=600)
    assert "Argument list too long" not in proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("tf_upgrade_v2 renamed TF 1.x names first") == 2000


@pytest.mark.slow
def test_the_real_upgrader_keeps_bom_crlf_and_latin1(tmp_path):
    bom = _write(tmp_path / "bom.py", b"\xef\xbb\xbf" + SOURCE.encode())
    crlf = _write(tmp_path / "crlf.py", SOURCE.replace("\n", "\r\n").encode())
    latin = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + SOURCE
    lat = _write(tmp_path / "lat.py", latin.encode("latin-1"))
    proc = _cli(["--upgrade-v2", "--fix", "--no-backup", bom, crlf, lat], "")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("tf_upgrade_v2 renamed TF 1.x names first") == 3
    assert (tmp_path / "bom.py").read_bytes().startswith(b"\xef\xbb\xbfimport")
    new_crlf = (tmp_path / "crlf.py").read_bytes()
    assert new_crlf.count(b"\n") == new_crlf.count(b"\r\n") > 2
    new_lat = (tmp_path / "lat.py").read_bytes()
    assert new_lat.startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    for name in ("bom.py", "crlf.py", "lat.py"):
        assert b"tf.compat.v1.placeholder(" in (tmp_path / name).read_bytes()
