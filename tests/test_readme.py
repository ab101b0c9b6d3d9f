"""The README's Python snippets run as pasted, in order, in one interpreter; the outputs
they show are what they print; the tables and figures of the README and of docs/ state
what the code does.

Every ```python block of README.md is executed in turn in one shared namespace
(a later block may use what an earlier one made, as in a REPL session), in a
temporary working directory. A failure names the block, its first line in
README.md and the error, so a snippet cannot drift from the library. A line
``print(...)  # -> TEXT`` shows what it prints: the test checks the printed line is
TEXT (``...`` in TEXT stands for any text).

A block that imports torch, stable-baselines3 or sb3-contrib is skipped (with
the blocks after it) only where those are not installed; CI installs them.

Pinned against the code: the README's preset table (action count, observation size),
the observation table and the action-block table of every preset in docs/design.md,
the shapes in ``rummy_env.env``'s docstring, the preset x field table of docs/rules.md,
and the README's speed table (made from docs/speed.json by experiments/speed_table.py).
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import json
import re
import sys
import traceback
from pathlib import Path

import pytest

import rummy_env
from experiments import speed_table
from rummy_env.moves import ActionCodec, Layout
from rummy_env.observation import ObsLayout
from rummy_env.rules import RULE_FIELDS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RULES_DOC = ROOT / "docs" / "rules.md"
DESIGN_DOC = ROOT / "docs" / "design.md"
SPEED_DOC = ROOT / "docs" / "speed.md"
SPEED_JSON = ROOT / "docs" / "speed.json"

# modules of the `train` extra: a block importing one runs only where it is installed
OPTIONAL = ("torch", "stable_baselines3", "sb3_contrib")

_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first code line in the file, code)`` of every ```python block, in order."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


_SHOWN = re.compile(r"^\s*print\(.*\)\s*# -> (.*)$")


def shown_outputs(code: str) -> dict[int, str]:
    """``{line in the block: the output its comment shows}`` of ``print(...)  # -> TEXT``."""
    shown = {}
    for i, line in enumerate(code.splitlines(), 1):
        m = _SHOWN.match(line)
        if m:
            shown[i] = m.group(1).strip()
        elif "# -> " in line:
            raise AssertionError(
                f"block line {i}: '# -> ' shows an output but is not a print: {line}"
            )
    return shown


def output_matches(printed: str, shown: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, printed, re.S) is not None


class CheckedPrint:
    """``print`` for the snippets: prints, and keeps what each line of a block printed."""

    def __init__(self, filename: str):
        self.filename = filename
        self.printed: dict[int, str] = {}

    def __call__(self, *args, sep=" ", end="\n", **kw):
        frame = sys._getframe(1)
        if frame.f_code.co_filename == self.filename:
            self.printed[frame.f_lineno] = sep.join(map(str, args))
        builtins.print(*args, sep=sep, end=end, **kw)


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
        filename = f"README.md block {i} (line {line})"
        shown = shown_outputs(code)
        namespace["print"] = checked = CheckedPrint(filename)
        try:
            exec(compile(code, filename, "exec"), namespace)  # noqa: S102
        except Exception as e:  # noqa: BLE001 (any error of a snippet is the failure)
            error = f"{type(e).__name__}: {e}\n\n{code}\n{traceback.format_exc()}"
        if error:
            pytest.fail(
                f"README python block {i} (README.md line {line}) raised {error}", pytrace=False
            )
        for n, text in shown.items():
            printed = checked.printed.get(n)
            assert printed is not None, (
                f"README.md line {line + n - 1} shows an output but printed nothing"
            )
            assert output_matches(printed, text), (
                f"README.md line {line + n - 1} shows\n  {text}\nbut printed\n  {printed}"
            )
    namespace.pop("print", None)


def test_python_blocks_extraction():
    text = "x\n```python\na = 1\n```\n```bash\nls\n```\n\n```python\nb = a\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (10, "b = a\n")]
    assert missing_optional("import numpy\nx = 1") == []
    assert shown_outputs("x = 1\nprint(x)  # -> 1\n") == {2: "1"}
    with pytest.raises(AssertionError, match="not a print"):
        shown_outputs("x  # -> 1\n")
    assert output_matches("{'a': 1, 'b': 2}", "{'a': 1, ...}")
    assert not output_matches("[1, 2]", "[1, 3]")


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
def test_observation_table_matches_the_layout(preset, n, kw):
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
    rows = md_table(DESIGN_DOC, "slice")[1:]
    documented = [
        (r[0].strip("`"), eval(r[1].replace("x", "*"), {}, dict(symbols)))  # noqa: S307
        for r in rows
    ]
    layout = ObsLayout(rules)
    assert documented == [(name, sl.stop - sl.start) for name, sl in layout.slices.items()]


# the design doc's action-block columns and the Layout attribute where each block starts
BLOCKS = {
    "DrawStock": "DRAW_STOCK",
    "DrawDiscard": "DRAW_DISCARD",
    "TakePile": "TAKE_PILE",
    "Meld": "MELD",
    "LayOff": "LAYOFF",
    "SwapJoker": "SWAP",
    "Discard": "DISCARD",
    "Knock": "KNOCK",
    "Pass": "PASS",
    "EndRound": "END_ROUND",
    "Declare": "DECLARE",
    "Drop": "DROP",
    "Buy": "BUY",
    "PlayTile": "PLAY_TILE",
    "Commit": "COMMIT",
}


def _preset_cell(cell: str) -> tuple[str, dict]:
    """``"`basic`, `jokers=2`"`` -> ``("basic", {"jokers": 2})``."""
    preset, *overrides = [c.strip("`") for c in cell.split(", ")]
    return preset, {k: ast.literal_eval(v) for k, v in (o.split("=") for o in overrides)}


def test_design_action_sizes_match_the_layout():
    head, *rows = md_table(DESIGN_DOC, "preset", "DrawStock")
    assert head[1:] == [*BLOCKS, "total"], head
    seen = set()
    for row in rows:
        preset, kw = _preset_cell(row[0])
        seen.add(preset)
        L = Layout(rummy_env.make_rules(preset, 2, **kw))
        starts = [getattr(L, attr) for attr in BLOCKS.values()] + [L.size]
        sizes = [b - a for a, b in zip(starts, starts[1:])]
        assert [int(c or 0) for c in row[1:]] == sizes + [L.size], row[0]
        assert L.size == ActionCodec(rummy_env.make_rules(preset, 2, **kw)).num_actions
    assert seen == set(rummy_env.PRESETS), "the action table leaves out a preset"


def _player_range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def test_readme_preset_table_matches_the_code():
    head, *rows = md_table(README, "preset", "actions (2 players)")
    assert head == ["preset", "game", "players", "actions (2 players)", "observation (2 players)"]
    assert sorted(r[0].strip("`") for r in rows) == sorted(rummy_env.PRESETS)
    for name, _, players, actions, obs in rows:
        preset = name.strip("`")
        rules = rummy_env.make_rules(preset, 2)
        assert int(actions) == ActionCodec(rules).num_actions, preset
        assert int(obs) == ObsLayout(rules).size, preset
        lo, hi = _player_range(players)
        for n in (lo, hi):
            rummy_env.make_rules(preset, n)
        for n in (lo - 1, hi + 1):
            with pytest.raises(ValueError):
                rummy_env.make_rules(preset, n)


@pytest.mark.parametrize(
    "first, size_of",
    [
        ("actions", lambda r: ActionCodec(r).num_actions),
        ("observation", lambda r: ObsLayout(r).size),
    ],
    ids=["actions", "observation"],
)
def test_design_sizes_by_player_count_match_the_code(first, size_of):
    head, *rows = md_table(DESIGN_DOC, first, "8")
    counts = [int(c) for c in head[1:]]
    assert sorted(r[0].strip("`") for r in rows) == sorted(rummy_env.PRESETS)
    for row in rows:
        preset = row[0].strip("`")
        for n, cell in zip(counts, row[1:]):
            try:
                size = size_of(rummy_env.make_rules(preset, n))
            except ValueError:
                size = None
            assert (None if cell in ("", "-") else int(cell)) == size, (preset, n, cell)


def test_env_docstring_shapes_match_the_code():
    doc = importlib.import_module("rummy_env.env").__doc__
    for label, size_of in (
        ("Action Shape", lambda r: ActionCodec(r).num_actions),
        ("Observation Shape", lambda r: ObsLayout(r).size),
    ):
        line = next(ln for ln in doc.splitlines() if ln.startswith(f"| {label}"))
        pairs = re.findall(r"(\w+) (\d)p: (\d+)", line)
        assert len(pairs) >= 4, line
        for preset, n, size in pairs:
            assert int(size) == size_of(rummy_env.make_rules(preset, int(n))), (label, preset, n)


def test_readme_speed_table_is_made_from_the_benchmark_file():
    if not SPEED_JSON.exists():
        pytest.skip("no docs/speed.json next to the package (installed from a wheel)")
    want = speed_table.table(json.loads(SPEED_JSON.read_text(encoding="utf-8")))
    for path in (README, SPEED_DOC):
        assert speed_table.marked_table(path) == want, (
            f"{path.name}'s speed table is not the one docs/speed.json gives: run "
            "python -m experiments.speed_table docs/speed.json --write README.md docs/speed.md"
        )


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


def test_speed_table_script(tmp_path, capsys):
    runs = [
        {"preset": "gin", "players": 2, "mode": "raw", "decisions_per_s": 43631.7},
        {"preset": "gin", "players": 2, "mode": "vector", "decisions_per_s": 49427.1},
        {"preset": "gin", "state_bytes": 1778, "copy_us": 7.2},
        {"preset": "rummikub", "players": 2, "mode": "raw", "decisions_per_s": 6623.4},
    ]
    want = (
        "| preset | raw AEC env | `vector_env` |\n|---|---|---|\n"
        "| `gin` | 43,600 | 49,400 |\n| `rummikub` | 6,620 |  |"
    )
    assert speed_table.table(runs) == want
    doc = tmp_path / "doc.md"
    doc.write_text(f"a\n{speed_table.BEGIN}\nold\n{speed_table.END}\nb\n", encoding="utf-8")
    speed_table.write_into(doc, want)
    assert speed_table.marked_table(doc) == want
    assert doc.read_text(encoding="utf-8").startswith("a\n") and doc.read_text().endswith("b\n")
    with pytest.raises(ValueError, match="no benchmark runs"):
        speed_table.table([{"preset": "gin", "state_bytes": 1}])
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        speed_table.main([str(bad)])
    assert exit_.value.code == 2 and "speed_table: error" in capsys.readouterr().err


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_relative_links_resolve():
    """Every relative link of the README, CHANGELOG and docs/ names a file that exists, and
    its #anchor a heading of that file."""
    docs = [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    if not all(p.exists() for p in docs[:1]):
        pytest.skip("no README next to the package (installed from a wheel)")
    broken = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                broken.append(f"{doc.name}: {target} (no such file)")
                continue
            if anchor and file.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", file.read_text(encoding="utf-8"), re.M)
                if anchor not in {_slug(h) for h in headings}:
                    broken.append(f"{doc.name}: {target} (no such heading)")
    assert not broken, broken


def test_moves_block_table_totals_are_the_layouts():
    """rummy_env/moves.py's docstring states the action counts of basic, gin, indian,
    Rummikub and contract rummy: they are the layout's sizes (its block names are checked
    by tests/test_env_api.py)."""
    from rummy_env import moves

    doc = moves.__doc__
    text = " ".join(doc.split())
    for stated in ("= 1267 actions", "= 108;", "= 109;", "= 56;", "(2 decks): 7,719", "= 1162"):
        assert stated in text, stated
    sizes = {"basic": 1267, "gin": 108, "indian": 109, "rummikub": 56, "contract": 7719}
    for preset, size in sizes.items():
        assert Layout(rummy_env.make_rules(preset)).size == size, preset
    assert Layout(rummy_env.make_rules("canasta", 4)).size == 1162
