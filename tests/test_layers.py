"""The layers point one way (docs/design.md): rummy_env imports neither agents, experiments nor
torch, not even by name at run time; the agents offer themselves through an entry point."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rummy_env

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out


def test_rummy_env_imports_no_upper_layer():
    for path in sorted((ROOT / "rummy_env").rglob("*.py")):
        bad = {
            m
            for m in imported_modules(path)
            if m.split(".")[0] in ("agents", "experiments", "torch")
        }
        assert not bad, f"{path.name} imports {sorted(bad)}"
        assert "import_module(" not in path.read_text(), f"{path.name} imports by name"


def test_named_opponents_come_through_the_plugin_entry_point():
    """The wrapper finds agents.make through the entry point; importing rummy_env loads no agents."""
    code = (
        "import sys, rummy_env, rummy_env.wrappers as w; assert 'agents' not in sys.modules; "
        "e = w.RummySingleAgentEnv(opponents='greedy'); e.reset(seed=0); "
        "assert 'agents' in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_only_the_engine_uses_private_engine_names():
    """Search, determinization and agents use the engine's public simulator API (issue 17):
    no `state._name` attribute outside the engine (rummy_env/engine/ and the games of
    rummy_env/variants/)."""
    import re

    private = re.compile(r"\b(?:s|state|self\._base|base)\._[a-z]\w*")
    for path in [
        *sorted((ROOT / "rummy_env").glob("*.py")),
        *sorted((ROOT / "agents").glob("*.py")),
    ]:
        hits = [m.group(0) for m in private.finditer(path.read_text())]
        assert not hits, f"{path.name} uses {sorted(set(hits))}"


def test_every_phase_dispatches_through_its_phase_rules_row():
    """engine.phase_table: one PhaseRules(legal, apply, actor) row per Phase; legal_actions
    and apply_legal_action go through the row of the state's phase, and acting_seat is the
    row's actor (an out-of-turn phase plugs in by its own row)."""
    from rummy_env import engine

    for preset in ("basic", "gin", "rummy500"):
        rules = rummy_env.make_rules(preset, 2)
        table = engine.phase_table(rules)
        assert len(table) == len(engine.Phase)
        s = engine.new_game(rules, seed=3)
        seen = set()
        while s.phase != engine.Phase.GAME_OVER:
            row = table[s.phase]
            seen.add(s.phase)
            assert engine.legal_actions(s) == row.legal(s.copy())
            assert engine.acting_seat(s) == row.actor(s) == s.current
            engine.apply_action(s, engine.legal_actions(s)[-1])
        assert engine.legal_actions(s) == []
        with pytest.raises(engine.IllegalActionError, match="over"):
            engine.apply_legal_action(s, 0)
        assert {engine.Phase.DRAW, engine.Phase.PLAY} <= seen
    # a row whose actor is not the turn seat decides who acts and whose mask is shown
    rules = rummy_env.make_rules("basic", 2)
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=1)
    s = env.state
    row = s.phases[s.phase]
    s.phases = tuple(
        r._replace(actor=lambda st: 1 - st.current) if i == s.phase else r
        for i, r in enumerate(s.phases)
    )
    assert engine.acting_seat(s) == 1 - s.current
    obs = env.observe(env.possible_agents[1 - s.current])
    assert obs["observation"][env.obs_layout.TO_ACT] == 1.0  # "to act" is the observer itself
    s.phases = engine.phase_table(rules)
    assert row == s.phases[s.phase]


def _function_sizes(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def test_modules_and_functions_a_reader_can_take_in():
    """docs/design.md: no module of rummy_env over 900 lines, no function over 80."""
    for path in sorted((ROOT / "rummy_env").rglob("*.py")):
        rel = path.relative_to(ROOT)
        assert path.read_text().count("\n") <= 900, f"{rel} is over 900 lines"
        for name, line, size in _function_sizes(path):
            assert size <= 80, f"{rel}:{line} {name} is {size} lines"


# a test of which game is being played: its scoring, or a game's own switch field
_WHICH_GAME = re.compile(
    r"\bscoring\s*(?:==|!=|in\b|not in\b)|\brules\.contract\b|\.wild_deuces\b"
    r"|\bwild_rank\s*(?:==|!=)|PENALTY_SCORING\b"
)


def test_only_the_game_modules_ask_which_game_is_played():
    """The engine asks the rule set's Game hooks; only rummy_env/variants/ tests which game
    it is (and rules.py, which defines the fields)."""
    asked = {}
    for path in sorted((ROOT / "rummy_env").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("rummy_env/variants/") or rel == "rummy_env/rules.py":
            continue
        code = [
            line
            for line in path.read_text().splitlines()
            if not line.lstrip().startswith(("#", "|", "``", "*"))
        ]
        hits = [line.strip() for line in code if _WHICH_GAME.search(line.split("#")[0])]
        if hits:
            asked[rel] = hits
    assert not asked, asked
