"""The ES recipe (experiments/train_es.py) and its models (agents/tuned.py): issue 11."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import agents
import rummy_env
from agents.tuned import build, read_model, write_model
from experiments import train_es
from experiments.tournament import play_out
from tests.cli_errors import usage_error

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "experiments" / "configs" / "es" / "smoke.toml"


def _games(make_bot, preset: str, deals: range) -> list[tuple[list[dict], list[int]]]:
    """``(round results, moves)`` of each deal, seat 0 ``make_bot(rules, 0)``, seat 1 the variant."""
    rules = rummy_env.make_rules(preset, num_players=2)
    env = rummy_env.raw_env(preset, num_players=2)
    bots = [make_bot(rules, 0), agents.make("variant", rules, 1)]
    out = []
    for d in deals:
        for b in bots:
            b.reset(seed=d)
        rounds, moves, _ = play_out(env, d, lambda k, o, m: bots[k].act(o, m))
        out.append((rounds, moves))
    return out


def _moves(make_bot, preset: str, deals: range) -> list[int]:
    """Every action of those games, in order."""
    return [a for _, moves in _games(make_bot, preset, deals) for a in moves]


@pytest.mark.parametrize("preset", ["basic", "gin", "rummy500", "rummy51"])
def test_the_default_constants_are_the_variant_agent(preset, tmp_path):
    """Iteration 0 of a run is the hand-written agent: the curve starts at it."""
    args = train_es.Args(preset=preset)
    cls, names, defaults, _ = train_es.space(args)
    f = write_model(
        tmp_path / "m.npz", dict(zip(names, defaults)), {"base": cls.name, "preset": preset}
    )
    tuned = _moves(lambda r, s: agents.make(f"es:{f}", r, s), preset, range(4))
    plain = _moves(lambda r, s: agents.make("variant", r, s), preset, range(4))
    assert tuned == plain


def test_a_changed_constant_changes_the_play():
    rules = rummy_env.make_rules("basic", num_players=2)
    cls = agents.agent_class("basic-expert")
    a = _moves(lambda r, s: build(cls, r, s, {"take_margin": -50.0}), "basic", range(3))
    b = _moves(lambda r, s: agents.make("variant", r, s), "basic", range(3))
    assert a != b
    with pytest.raises(ValueError, match="no tunable constant.*'bogus'.*allowed: potential"):
        build(cls, rules, 0, {"bogus": 1.0})


def test_model_files_are_checked_and_never_unpickled(tmp_path):
    rules = rummy_env.make_rules("basic", num_players=2)
    good = write_model(
        tmp_path / "g.npz", {"take_margin": 3.0}, {"base": "basic-expert", "preset": "basic"}
    )
    bot = agents.make(f"es:{good}", rules, 1)
    assert bot.inner.take_margin == 3.0 and bot.seat == 1
    # an object array needs pickle: refused, nothing runs
    np.savez(tmp_path / "p.npz", names=np.array(["x"], dtype=object), values=np.zeros(1), meta="{}")
    with pytest.raises(ValueError, match="not an es model file"):
        agents.make(f"es:{tmp_path / 'p.npz'}", rules)
    bad = write_model(tmp_path / "n.npz", {"take_margin": float("nan")}, {"base": "basic-expert"})
    with pytest.raises(ValueError, match="finite"):
        agents.make(f"es:{bad}", rules)
    unknown = write_model(tmp_path / "u.npz", {"rm -rf": 1.0}, {"base": "basic-expert"})
    with pytest.raises(ValueError, match="no tunable constant"):
        agents.make(f"es:{unknown}", rules)
    other = write_model(tmp_path / "o.npz", {}, {"base": "search"})
    with pytest.raises(ValueError, match="base agent 'search' is not allowed"):
        agents.make(f"es:{other}", rules)
    with pytest.raises(ValueError, match="plays 'basic', not 'gin'"):
        agents.make(f"es:{good}", rummy_env.make_rules("gin", num_players=2))
    with pytest.raises(ValueError, match="no model file"):
        agents.make("es:no-such-model", rules)
    with pytest.raises(ValueError, match="es needs a model"):
        agents.make("es", rules)
    assert read_model(good)[0] == {"take_margin": 3.0}


def _run(tmp_path: Path, name: str, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "experiments.train_es", "--config", str(SMOKE)]
    cmd += ["--run-dir", str(tmp_path), "--exp-name", name, *extra]
    return subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_smoke_recipe_trains_resumes_after_a_kill_and_draws_its_curve(tmp_path):
    """A run killed mid-way and started again ends where an uninterrupted run ends."""
    pytest.importorskip("torch", reason="its TensorBoard logs need the train extra")
    whole = _run(tmp_path, "whole")
    out, _ = whole.communicate(timeout=300)
    assert whole.returncode == 0, out
    assert "ETA" in out
    run = tmp_path / "whole__s1"
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "iter_0000.npz",
        "iter_0002.npz",
        "iter_0004.npz",
    ]
    assert list((run / "tb").iterdir()), "no TensorBoard events"

    killed = _run(tmp_path, "killed")
    state = tmp_path / "killed__s1" / "state.json"
    deadline = time.time() + 300
    while time.time() < deadline:
        if state.exists() and json.loads(state.read_text())["iteration"] >= 1:
            break
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.communicate()
    assert json.loads(state.read_text())["iteration"] < 4, "the run ended before the kill"
    resumed = _run(tmp_path, "killed")
    out, _ = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, out
    assert "resuming" in out
    a = json.loads((run / "state.json").read_text())
    b = json.loads(state.read_text())
    assert a["iteration"] == b["iteration"] == 4
    assert a["z"] == b["z"]
    assert (
        read_model(run / "final_model.npz")[0]
        == read_model(tmp_path / "killed__s1" / "final_model.npz")[0]
    )

    # the same run with other settings is refused rather than mixed
    clash = _run(tmp_path, "whole", "--sigma", "0.25")
    out, _ = clash.communicate(timeout=300)
    assert clash.returncode != 0 and "other settings (sigma)" in out

    cur = _run(tmp_path, "whole", "--stage", "curve")
    out, _ = cur.communicate(timeout=300)
    assert cur.returncode == 0, out
    res = json.loads((run / "curve" / "curve.json").read_text())
    assert [p["step"] for p in res["points"]] == [0, 2, 4]
    first = res["points"][0]["variant"]
    assert first["mean"] == 0.0 and first["n"] == 4  # iteration 0 is the variant agent itself
    assert set(res["last_minus_first"]) == {"greedy", "variant"}
    assert (run / "curve" / "curve.png").stat().st_size > 0

    args = train_es.parse_args(
        ["--config", str(SMOKE), "--run-dir", str(tmp_path), "--exp-name", "whole"]
    )
    shipped = train_es.ship(args, to=tmp_path / "shipped.npz")
    values, meta = read_model(shipped)
    assert values == read_model(run / "final_model.npz")[0] and meta["run"] == "whole__s1"
    rules = rummy_env.make_rules("basic", num_players=2)
    assert agents.make(f"es:{shipped}", rules, 0).inner.take_margin == values["take_margin"]


@pytest.mark.parametrize("preset", ["basic", "gin", "rummy500", "rummy51", "indian"])
def test_shipped_es_models_play_their_preset(preset):
    """es:<preset>-2p is the shipped es model, which learned something (issue 11)."""
    rules = rummy_env.make_rules(preset, num_players=2)
    bot = agents.make(f"es:{preset}-2p", rules, 1)
    assert bot.path.name == f"{preset}-2p.npz" and bot.meta["preset"] == preset
    assert f"es:{preset}-2p" in agents.available()
    default = agents.make("variant", rules, 1)
    assert type(bot.inner) is type(default)
    moved = [k for k, x in bot.values_used.items() if abs(x - getattr(default, k)) > 1e-6]
    assert moved, "the shipped constants are the defaults"
    # (Indian rounds often end in a drop at once, the same for both: more deals there)
    deals = range(40 if preset == "indian" else 8)
    games = _games(lambda r, s: agents.make(f"es:{preset}-2p", r, s), preset, deals)
    assert all(rounds for rounds, _ in games)  # every game reaches the referee's result
    plain = _games(lambda r, s: agents.make("variant", r, s), preset, deals)
    assert [m for _, m in games] != [m for _, m in plain], "plays exactly the variant's moves"


def test_a_process_pool_gives_the_same_run(tmp_path):
    """workers only spreads the games: the same directions, deals and result."""
    base = ["--config", str(SMOKE), "--iterations", "2", "--verbose", "0"]
    one = train_es.train(train_es.parse_args([*base, "--run-dir", str(tmp_path / "a")]))
    two = train_es.train(
        train_es.parse_args([*base, "--run-dir", str(tmp_path / "b"), "--workers", "2"])
    )
    assert one["z"] == two["z"] and one["iteration"] == two["iteration"] == 2
    with pytest.raises(ValueError, match="stage='fit' is not allowed"):
        train_es.parse_args([*base, "--stage", "fit"])
    with pytest.raises(ValueError, match="tune: bogus not allowed"):
        train_es.space(train_es.Args(tune=["bogus"]))


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    """Bad options or config, and run state the trainer did not write: one line, status 2."""
    run = ["--run-dir", str(tmp_path), "--exp-name", "x"]
    bad_type = tmp_path / "type.toml"
    bad_type.write_text('deals = "many"\n')
    cases = [
        (["--config", str(tmp_path / "none.toml")], "no such file"),
        (["--config", str(bad_type)], "deals = 'many' is not allowed (expected int)"),
        (["--stage", "nope"], "stage='nope' is not allowed"),
        (["--base", "random"], "has no TUNABLE constants"),
        (["--opponent", "nope"], "unknown agent 'nope'"),
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--stage", "ship"], "no final model"),
    ]
    for argv, message in cases:
        assert message in usage_error(train_es.main, [*run, *argv], capsys), argv
    folder = tmp_path / "x__s1"
    folder.mkdir()
    (folder / "state.json").write_text("{not json")
    assert "state.json is not JSON" in usage_error(train_es.main, run, capsys)
    (folder / "state.json").write_text(json.dumps({"iteration": 1, "z": [0.0]}))
    assert "not a state this trainer wrote" in usage_error(train_es.main, run, capsys)
    (folder / "args.json").write_text(json.dumps({"deals": 7}))
    assert "started with other settings (deals)" in usage_error(train_es.main, run, capsys)
