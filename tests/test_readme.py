"""The README's Python snippets run as pasted, in order, in one interpreter.

Every ```python block of README.md is executed in turn in one shared namespace
(a later block may use what an earlier one made, as in a REPL session), in a
temporary working directory. A failure names the block, its first line in
README.md and the error, so a snippet cannot drift from the library.

A block that imports torch, stable-baselines3 or sb3-contrib is skipped (with
the blocks after it) only where those are not installed; CI installs them.
"""

from __future__ import annotations

import importlib.util
import re
import traceback
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

# modules of the `train` extra: a block importing one runs only where it is installed
OPTIONAL = ("torch", "stable_baselines3", "sb3_contrib")

_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first code line in the file, code)`` of every ```python block, in order."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def missing_optional(code: str) -> list[str]:
    """The optional modules ``code`` imports that are not installed."""
    wanted = set(re.findall(r"^\s*(?:from|import)\s+(\w+)", code, re.M))
    return [m for m in OPTIONAL if m in wanted and importlib.util.find_spec(m) is None]


@pytest.fixture(scope="module")
def blocks() -> list[tuple[int, str]]:
    if not README.exists():
        pytest.skip("no README next to the package (installed from a wheel)")
    return python_blocks(README.read_text(encoding="utf-8"))


def test_readme_has_python_blocks(blocks):
    assert len(blocks) >= 4, f"README.md has {len(blocks)} ```python blocks; the extraction is broken"


def test_readme_python_blocks_run_in_order(blocks, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    for i, (line, code) in enumerate(blocks, 1):
        missing = missing_optional(code)
        if missing:
            pytest.skip(f"README block {i} (README.md line {line}) needs {', '.join(missing)}, "
                        f"not installed (pip install -e '.[train]'); blocks 1-{i - 1} ran")
        name = f"README.md block {i} (line {line})"
        try:
            exec(compile(code, name, "exec"), namespace)  # noqa: S102
        except Exception as e:  # noqa: BLE001 (any error of a snippet is the failure)
            pytest.fail(f"README python block {i} (README.md line {line}) raised "
                        f"{type(e).__name__}: {e}\n\n{code}\n{traceback.format_exc()}", pytrace=False)


def test_python_blocks_extraction():
    text = "x\n```python\na = 1\n```\n```bash\nls\n```\n\n```python\nb = a\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (10, "b = a\n")]
    assert missing_optional("import numpy\nx = 1") == []
