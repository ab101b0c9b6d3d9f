"""The layers point one way (docs/design.md): rummy_env imports neither agents, experiments nor
torch, not even by name at run time; the agents offer themselves through an entry point."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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
    for path in sorted((ROOT / "rummy_env").glob("*.py")):
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
    no `state._name` attribute outside rummy_env/engine.py."""
    import re

    private = re.compile(r"\b(?:s|state|self\._base|base)\._[a-z]\w*")
    for path in [
        *sorted((ROOT / "rummy_env").glob("*.py")),
        *sorted((ROOT / "agents").glob("*.py")),
    ]:
        if path.name == "engine.py":
            continue
        hits = [m.group(0) for m in private.finditer(path.read_text())]
        assert not hits, f"{path.name} uses {sorted(set(hits))}"
