"""The README's Python snippets run as pasted, in order, in one interpreter; the
tables of the README and of docs/ state what the code does.

Every ```python block of README.md is executed in turn in one shared namespace
(a later block may use what an earlier one made, as in a REPL session), in a
temporary working directory. A failure names the block, its first line in
README.md and the error, so a snippet cannot drift from the library.

A block that imports torch, stable-baselines3 or sb3-contrib is skipped (with
the blocks after it) only where those are not installed; CI installs them.

The observation tables (README.md, docs/design.md), the action sizes of
docs/design.md and the preset x field table of docs/rules.md are compared with
``ObsLayout``, ``Layout`` and ``make_rules``.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import traceback
from pathlib import Path

import pytest

import rummy_env
from rummy_env.engine import Layout
from rummy_env.observation import ObsLayout
from rummy_env.rules import RULE_FIELDS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RULES_DOC = ROOT / "docs" / "rules.md"
DESIGN_DOC = ROOT / "docs" / "design.md"

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
    assert len(blocks) >= 4, (
        f"README.md has {len(blocks)} ```python blocks; the extraction is broken"
    )


def test_readme_python_blocks_run_in_order(blocks, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    for i, (line, code) in enumerate(blocks, 1):
        missing = missing_optional(code)
        if missing:
            pytest.skip(
                f"README block {i} (README.md line {line}) needs {', '.join(missing)}, "
                f"not installed (pip install -e '.[train]'); blocks 1-{i - 1} ran"
            )
        error = None
        try:
            exec(compile(code, f"README.md block {i} (line {line})", "exec"), namespace)  # noqa: S102
        except Exception as e:  # noqa: BLE001 (any error of a snippet is the failure)
            error = f"{type(e).__name__}: {e}\n\n{code}\n{traceback.format_exc()}"
        if error:
            pytest.fail(
                f"README python block {i} (README.md line {line}) raised {error}", pytrace=False
            )


def test_python_blocks_extraction():
    text = "x\n```python\na = 1\n```\n```bash\nls\n```\n\n```python\nb = a\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (10, "b = a\n")]
    assert missing_optional("import numpy\nx = 1") == []


# ------------------------------------------------------------------ tables
def md_table(path: Path, first: str, has: str = "") -> list[list[str]]:
    """The rows (cells stripped, separator left out) of the first Markdown table in
    ``path`` whose header starts with the cell ``first`` and holds ``has``."""
    if not path.exists():
        pytest.skip(f"no {path.name} next to the package (installed from a wheel)")
    rows: list[list[str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
            continue
        if rows and rows[0][0] == first and (not has or has in rows[0]):
            return [r for r in rows if not set("".join(r)) <= set("-: ")]
        rows = []
    raise AssertionError(f"{path.name} has no table with header {first!r} ... {has!r}")


@pytest.mark.parametrize("path", [README, DESIGN_DOC], ids=["README", "design"])
@pytest.mark.parametrize(
    "preset, n, kw",
    [
        ("basic", 2, {}),
        ("basic", 5, {"jokers": 2}),
        ("gin", 2, {}),
        ("rummy51", 3, {}),
        ("deuces", 3, {}),
        ("indian", 4, {}),
        ("contract", 5, {}),
        ("rummikub", 3, {}),
    ],
)
def test_observation_tables_match_the_layout(path, preset, n, kw):
    rules = rummy_env.make_rules(preset, n, **kw)
    symbols = {
        "P": rules.num_players,
        "F": 53,
        "D": 0 if rules.scoring == "rummikub" else rules.num_cards,
        "M": rules.max_melds,
        "W": 4 if rules.wild_deuces else 0,
        "I": 1 if rules.scoring == "indian" else 0,
        "C": 1 if rules.contract else 0,
        "R": 1 if rules.scoring == "rummikub" else 0,
    }
    rows = md_table(path, "slice")[1:]
    documented = [
        (r[0].strip("`"), eval(r[1].replace("x", "*"), {}, dict(symbols)))  # noqa: S307
        for r in rows
    ]
    layout = ObsLayout(rules)
    assert documented == [(name, sl.stop - sl.start) for name, sl in layout.slices.items()]


def test_design_action_sizes_match_the_layout():
    head, *rows = md_table(DESIGN_DOC, "preset", "DrawStock")
    for row in rows:
        preset, *overrides = [c.strip("`") for c in row[0].split(", ")]
        kw = {k: ast.literal_eval(v) for k, v in (o.split("=") for o in overrides)}
        L = Layout(rummy_env.make_rules(preset, 2, **kw))
        starts = [
            L.DRAW_STOCK,
            L.DRAW_DISCARD,
            L.MELD,
            L.LAYOFF,
            L.SWAP,
            L.DISCARD,
            L.KNOCK,
            L.PASS,
            L.END_ROUND,
            L.size,
        ]
        sizes = [b - a for a, b in zip(starts, starts[1:])]
        assert [int(c or 0) for c in row[1:]] == sizes + [L.size], row[0]


def test_rules_preset_table_matches_the_presets():
    head, *rows = md_table(RULES_DOC, "field", "`gin`")
    presets = [c.strip("`") for c in head[1:-1]]
    assert sorted(presets) == sorted(rummy_env.PRESETS)
    fields = [r[0].strip("`") for r in rows]
    assert sorted(fields) == sorted(f for f in RULE_FIELDS if f not in ("name", "num_players"))
    for field, row in zip(fields, rows):
        for preset, cell in zip(presets, row[1:]):
            if cell.startswith("by count"):
                continue
            want = getattr(rummy_env.make_rules(preset, 2), field)
            assert ast.literal_eval(cell.split(" (")[0].strip("`")) == want, (field, preset, cell)
