"""experiments/train_ppo.py and the PPO agent: configs, a short run, resume, reload, learning.

The short runs go through the command line in a subprocess (CleanRL's smoke
tests) with tiny budgets; the learning test is marked ``slow``.
"""

from __future__ import annotations

import csv
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("tyro")

import agents  # noqa: E402
import rummy_env  # noqa: E402
from experiments.train_ppo import Args, parse_args, rule_overrides  # noqa: E402
from tests.cli_errors import usage_error  # noqa: E402
from tests.model_files import Payload, tiny_sb3_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "experiments" / "configs").glob("*.toml"))

TINY = {
    "--n-envs": "2",
    "--vec-env": "dummy",
    "--n-steps": "64",
    "--batch-size": "64",
    "--n-epochs": "1",
    "--features-dim": "32",
    "--net-arch": "32",
    "--opponents": ["random=1", "greedy=1"],
    "--eval-deals": "2",
    "--verbose": "1",
}


#: a recipe's own settings with its budgets cut to a few hundred decisions
SMOKE = {
    "--n-envs": "1",
    "--vec-env": "dummy",
    "--n-steps": "64",
    "--batch-size": "64",
    "--n-epochs": "1",
    "--total-timesteps": "128",
    "--eval-every": "128",
    "--eval-deals": "1",
    "--checkpoint-every": "128",
    "--selfplay-every": "64",
    "--selfplay-start": "64",
}


def train_cmd(tmp: Path, *extra: str, base: dict = TINY) -> list[str]:
    """The script's command line: ``base``'s flags, those in ``extra`` (flag, value... pairs) replacing them."""
    flags: dict[str, list[str]] = {k: v if isinstance(v, list) else [v] for k, v in base.items()}
    key = None
    for tok in extra:
        if tok.startswith("--"):
            key = tok
            flags[key] = []
        else:
            flags[key].append(tok)
    cmd = [sys.executable, "-m", "experiments.train_ppo", "--run-dir", str(tmp)]
    for k, v in flags.items():
        cmd += [k, *v]
    return cmd


def train_cli(tmp: Path, *extra: str) -> str:
    """Run the script with TINY settings; flags in ``extra`` replace them."""
    out = subprocess.run(
        train_cmd(tmp, *extra), cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def play_raw(agent_for_seat, games: int, opponent: str = "greedy") -> int:
    """Play the raw env (which raises on an illegal action); returns the decisions made by the agent."""
    env = rummy_env.raw_env("basic", 2)
    rules = env.rules
    n = 0
    for g in range(games):
        seat = g % 2
        me = agent_for_seat(seat)
        other = agents.make(opponent, rules, 1 - seat)
        me.reset(g)
        other.reset(g)
        env.reset(seed=g)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            bot = me if env.agent_name_mapping[name] == seat else other
            a = bot.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][a] == 1
            n += bot is me
            env.step(a)
    return n


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_files_parse(path):
    args = parse_args(["--config", str(path), "--seed", "7"])
    assert args.seed == 7 and args.config == str(path)
    rummy_env.make_rules(args.preset, args.num_players, **rule_overrides(args.rules))
    # a config never ships into the package (issue 15): runs write under runs/
    assert args.save_path is None


def test_config_errors_and_overrides(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('exp_name = "x"\nlearning_rat = 1e-3\n')
    with pytest.raises(ValueError, match="learning_rat"):
        parse_args(["--config", str(bad)])
    good = tmp_path / "good.toml"
    good.write_text(
        'opponents = {greedy = 3, random = 1}\nrules = {jokers = 2, ace = "low_or_high"}\n'
    )
    args = parse_args(["--config", str(good), "--n-steps", "32"])
    assert args.opponents == ["greedy=3", "random=1"] and args.n_steps == 32
    assert rule_overrides(args.rules) == {"jokers": 2, "ace": "low_or_high"}
    assert Args().config is None


@pytest.mark.slow
def test_short_run_saves_reloads_and_plays_legal_moves(tmp_path):
    ship = tmp_path / "ship" / "tiny.npz"
    log = train_cli(
        tmp_path,
        "--run-name",
        "short",
        "--total-timesteps",
        "256",
        "--selfplay-every",
        "128",
        "--eval-every",
        "128",
        "--checkpoint-every",
        "128",
        "--imitate",
        "greedy",
        "--imitate-steps",
        "64",
        "--imitate-batch",
        "64",
        "--reward",
        "margin",
        "--shaping",
        "0.5",
        "--save-path",
        str(ship),
    )
    run = tmp_path / "short"
    for f in (
        "final_model.zip",
        "best_model.zip",
        "imitation_model.zip",
        "args.json",
        "progress.csv",
        "model.npz",
        "model.json",
        "checkpoints/step_128.zip",
        "checkpoints/step_128.json",
        "pool/step_128.npz",
    ):
        assert (run / f).exists(), f
    assert list(run.glob("events.out.tfevents.*"))
    assert "[league] step_128 joined the pool" in log and "[eval] step 256" in log
    with open(run / "progress.csv") as fh:
        cols = set(next(csv.reader(fh)))
    for c in (
        "charts/episode_score",
        "charts/win_rate",
        "eval/greedy/margin",
        "eval/random/win_rate_ci95",
        "losses/entropy",
        "losses/value_loss",
        "imitation/accuracy",
    ):
        assert c in cols, c
    assert any(c.startswith("charts/win_rate_vs/") for c in cols)
    card = json.loads(ship.with_suffix(".json").read_text())
    assert card["preset"] == "basic" and card["timesteps"] == 256
    rules = rummy_env.make_rules("basic", 2)
    # the registry spec; the torch backend (MaskablePPO.predict) on the run's final zip and the
    # shipped .npz in numpy play the same legal moves
    assert play_raw(lambda seat: agents.make(f"ppo:{ship}", rules, seat), 2) > 0
    torch_bot = agents.make(f"ppo:{run / 'final_model.zip'}", rules, 0, backend="torch")
    np_bot = agents.make(f"ppo:{ship}", rules, 0)
    from rummy_env.wrappers import RummySingleAgentEnv

    env = RummySingleAgentEnv(opponents="greedy")
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks().astype(np.int8)
            a = torch_bot.act(obs, mask)
            assert a == np_bot.act(obs, mask) and mask[a]
            np.testing.assert_allclose(
                torch_bot.action_probs(obs, mask), np_bot.action_probs(obs, mask), atol=1e-5
            )
            obs, _, done, _, _ = env.step(a)
    # a pool snapshot (.npz) plays without torch
    snap = agents.make(f"ppo:{run / 'pool' / 'step_128.npz'}", rules, 1, deterministic=False)
    snap.reset(0)
    assert play_raw(lambda seat: snap, 1, opponent="random") > 0


@pytest.mark.slow
def test_hand_features_model_reads_them_at_play_time(tmp_path):
    """A model trained with ``features="hand"`` records it; every way of playing it appends them."""
    from agents.features import SIZE
    from experiments.eval_ppo import evaluate_file

    ship = tmp_path / "feat.npz"
    train_cli(
        tmp_path,
        "--run-name",
        "feat",
        "--features",
        "hand",
        "--total-timesteps",
        "128",
        "--selfplay-every",
        "128",
        "--eval-every",
        "128",
        "--checkpoint-every",
        "128",
        "--imitate",
        "basic-expert",
        "--imitate-steps",
        "64",
        "--imitate-batch",
        "64",
        "--save-path",
        str(ship),
    )
    rules = rummy_env.make_rules("basic", 2)
    torch_bot = agents.make(
        f"ppo:{tmp_path / 'feat' / 'final_model.zip'}", rules, 0, backend="torch"
    )
    np_bot = agents.make(f"ppo:{ship}", rules, 0)
    snap = agents.make(f"ppo:{tmp_path / 'feat' / 'pool' / 'step_128.npz'}", rules, 0)
    assert torch_bot.model.observation_space.shape == (
        rummy_env.observation.ObsLayout(rules).size + SIZE,
    )
    for bot in (torch_bot, np_bot, snap):
        assert bot.features is not None
    env = rummy_env.raw_env("basic", 2)
    env.reset(seed=5)
    for _ in range(60):  # plain env observations in, the same legal moves out of every backend
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        a = torch_bot.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] and a == np_bot.act(obs["observation"], obs["action_mask"])
        env.step(a)
    res = evaluate_file(ship, ["random"], n_deals=2)
    assert res["random"]["games"] == 4


@pytest.mark.slow
def test_resume_continues_from_checkpoint(tmp_path):
    train_cli(
        tmp_path,
        "--run-name",
        "r",
        "--total-timesteps",
        "128",
        "--checkpoint-every",
        "128",
        "--selfplay-every",
        "128",
        "--eval-every",
        "0",
    )
    ckpt = tmp_path / "r" / "checkpoints" / "step_128.zip"
    state = json.loads(ckpt.with_suffix(".json").read_text())
    assert [p[0] for p in state["pool"]] == ["step_128"]
    log = train_cli(
        tmp_path,
        "--resume",
        str(ckpt),
        "--total-timesteps",
        "384",
        "--checkpoint-every",
        "128",
        "--selfplay-every",
        "128",
        "--eval-every",
        "0",
    )
    from agents.model_io import load_ppo

    final = load_ppo(tmp_path / "r" / "final_model.zip")
    assert final.num_timesteps == 384
    assert "[checkpoint]" in log and (tmp_path / "r" / "checkpoints" / "step_384.zip").exists()
    state = json.loads((tmp_path / "r" / "checkpoints" / "step_384.json").read_text())
    assert [p[0] for p in state["pool"]] == [
        "step_128",
        "step_256",
        "step_384",
    ]  # the pool came back
    assert (tmp_path / "r" / "progress_before_step_128.csv").exists()


def test_ppo_agent_errors(tmp_path):
    rules = rummy_env.make_rules("basic", 2)
    with pytest.raises(ValueError, match="no model file"):
        agents.make("ppo:no-such-model", rules)
    with pytest.raises(ValueError, match="backend"):
        agents.make("ppo:basic-2p", rules, backend="jax")


def test_shipped_basic_2p_loads_and_plays_legal_moves():
    rules = rummy_env.make_rules("basic", 2)
    assert play_raw(lambda seat: agents.make("ppo:basic-2p", rules, seat), 2) > 0
    assert (ROOT / "agents" / "trained" / "basic-2p.npz").stat().st_size < 8e6
    with pytest.raises(ValueError):
        agents.make("ppo:basic-2p", rummy_env.make_rules("gin", 2))


@pytest.mark.slow
def test_a_few_minutes_of_training_beats_random(tmp_path):
    """PPO from scratch (no imitation) against random, then 100 duplicate deals: the margin's
    95% CI lies clearly above zero (an untrained, uniform policy scores about 0 against random)."""
    from experiments.eval_ppo import evaluate_file

    train_cli(
        tmp_path,
        "--run-name",
        "learn",
        "--total-timesteps",
        "16384",
        "--n-steps",
        "512",
        "--batch-size",
        "256",
        "--n-epochs",
        "4",
        "--features-dim",
        "128",
        "--net-arch",
        "128",
        "--opponents",
        "random=1",
        "--reward",
        "margin",
        "--shaping",
        "1.0",
        "--learning-rate",
        "5e-4",
        "--ent-coef",
        "0.003",
        "--eval-every",
        "0",
        "--checkpoint-every",
        "0",
    )
    res = evaluate_file(
        tmp_path / "learn" / "final_model.zip",
        ["random"],
        n_deals=100,
        first_deal=10_000,
        workers=1,
    )["random"]
    assert res["margin"]["lo"] > 5.0, res
    assert res["win_rate"]["mean"] > 0.6, res


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_directory(tmp_path):
    """SIGKILL part-way (after the first checkpoint), then ``--resume <run dir>`` finishes it."""
    import os
    import signal
    import time

    cmd = train_cmd(
        tmp_path,
        "--run-name",
        "k",
        "--n-envs",
        "1",
        "--opponents",
        "random=1",
        "--eval-every",
        "0",
        "--checkpoint-every",
        "64",
        "--total-timesteps",
        "100000",
    )
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpts = tmp_path / "k" / "checkpoints"
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(list(ckpts.glob("step_*.json"))) < 2:
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    done = sorted(int(p.stem[5:]) for p in ckpts.glob("step_*.json"))
    assert len(done) >= 2, "no checkpoint before the kill"
    latest = done[-1]
    log = train_cli(
        tmp_path,
        "--resume",
        str(tmp_path / "k"),
        "--n-envs",
        "1",
        "--total-timesteps",
        str(latest + 128),
        "--checkpoint-every",
        "64",
        "--eval-every",
        "0",
    )
    from agents.model_io import load_ppo

    assert load_ppo(tmp_path / "k" / "final_model.zip").num_timesteps == latest + 128
    assert (tmp_path / "k" / "model.npz").exists() and "[train] done" in log


@pytest.mark.slow
@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_recipe_runs_a_smoke_version(tmp_path, path):
    """Each shipped recipe (experiments/configs/*.toml), its budgets cut to a few hundred
    decisions: warm start, PPO, evaluation, checkpoint and the playable model.npz."""
    args = parse_args(["--config", str(path)])
    cmd = train_cmd(tmp_path, "--config", str(path), "--run-name", "smoke", base=SMOKE)
    if args.imitate:
        cmd += ["--imitate-steps", "64", "--imitate-batch", "64", "--imitate-final-epochs", "1"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    run = tmp_path / "smoke"
    for f in ("model.npz", "model.json", "checkpoints/step_128.zip", "final_model.zip"):
        assert (run / f).exists(), f
    rules = rummy_env.make_rules(args.preset, args.num_players, **rule_overrides(args.rules))
    bot = agents.make(f"ppo:{run / 'model.npz'}", rules, 0)
    env = rummy_env.raw_env(args.preset, num_players=args.num_players, **rule_overrides(args.rules))
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["action_mask"][bot.act(obs["observation"], obs["action_mask"])]


def test_residual_policy_starts_at_the_expert_and_exports_exactly(tmp_path):
    """features="hand+variant": the untrained ResidualPolicy's most probable move is basic-expert's,
    and the .npz export (numpy) and the safely reloaded .zip (torch) give the same probabilities.
    The MLP has SB3's default Tanh: the numpy export applied it to the extractor's ReLU layer too."""
    from sb3_contrib import MaskablePPO

    from agents.model_io import load_ppo
    from agents.ppo_agent import save_numpy_policy
    from agents.ppo_net import ResidualPolicy, feature_kwargs
    from rummy_env.wrappers import RummySingleAgentEnv

    rules = rummy_env.make_rules("basic", 2)
    env = RummySingleAgentEnv(opponents="greedy", features="hand+variant")
    from agents.ppo_net import RummyFeatures

    model = MaskablePPO(
        ResidualPolicy,
        env,
        n_steps=64,
        batch_size=64,
        device="cpu",
        policy_kwargs={
            "net_arch": [32],
            "features_extractor_class": RummyFeatures,
            "features_extractor_kwargs": feature_kwargs(rules, 32, "hand+variant"),
        },
    )
    model.save(tmp_path / "r.zip")
    save_numpy_policy(model.policy, tmp_path / "r.npz")
    zbot = agents.make(f"ppo:{tmp_path / 'r.zip'}", rules, 0, backend="torch")
    nbot = agents.make(f"ppo:{tmp_path / 'r.npz'}", rules, 0)
    expert = agents.make("basic-expert", rules, 0)
    assert isinstance(load_ppo(tmp_path / "r.zip").policy, ResidualPolicy)
    raw = rummy_env.raw_env("basic", 2)
    n = 0
    for g in range(3):
        raw.reset(seed=g)
        for _name in raw.agent_iter():
            obs, _, term, trunc, _ = raw.last()
            if term or trunc:
                raw.step(None)
                continue
            o, m = obs["observation"], obs["action_mask"]
            a = expert.act(o, m)
            np.testing.assert_allclose(zbot.action_probs(o, m), nbot.action_probs(o, m), atol=1e-5)
            assert nbot.act(o, m) == zbot.act(o, m) == a
            n += 1
            raw.step(a)
    assert n > 50


def test_ship_is_the_explicit_step_into_the_package(tmp_path):
    """rummy-ship writes a run's checkpoint as <name>.npz + card, never over a model by accident."""
    from experiments.ship_model import Args as ShipArgs
    from experiments.ship_model import ship

    train_cli(
        tmp_path,
        "--run-name",
        "s",
        "--total-timesteps",
        "128",
        "--checkpoint-every",
        "128",
        "--eval-every",
        "128",
    )
    out_dir = tmp_path / "trained"
    out_dir.mkdir()
    for which in ("best", "final", "step_128"):
        path = ship(
            ShipArgs(
                run=str(tmp_path / "s"), name=f"m-{which}", checkpoint=which, out_dir=str(out_dir)
            )
        )
        card = json.loads(path.with_suffix(".json").read_text())
        assert card["preset"] == "basic" and card["run"] == "s"
        assert card["timesteps"] == (128 if which != "best" else card["timesteps"])
        bot = agents.make(f"ppo:{path}", rummy_env.make_rules("basic", 2), 0)
        assert bot.np_policy is not None
    with pytest.raises(ValueError, match="exists"):
        ship(ShipArgs(run=str(tmp_path / "s"), name="m-best", out_dir=str(out_dir)))
    with pytest.raises(ValueError, match="no checkpoint"):
        ship(ShipArgs(run=str(tmp_path / "s"), name="x", checkpoint="step_9", out_dir=str(out_dir)))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.ship_model",
            "--run",
            str(tmp_path / "nope"),
            "--name",
            "x",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "not a run directory" in r.stderr


def test_learning_curve_evaluates_every_checkpoint_on_the_same_held_out_deals(tmp_path):
    """experiments/learning_curve.py: one row per checkpoint (the warm start as step 0), each
    against each opponent on the same deals, the paired last-minus-first difference, and a
    cache that makes a rerun play nothing."""
    from experiments import learning_curve as LC

    train_cli(
        tmp_path,
        "--run-name",
        "c",
        "--imitate",
        "greedy",
        "--imitate-steps",
        "64",
        "--imitate-batch",
        "64",
        "--total-timesteps",
        "256",
        "--checkpoint-every",
        "128",
        "--eval-every",
        "0",
    )
    run = tmp_path / "c"
    steps = [c[0] for c in LC.checkpoints(run)]
    assert steps == [0, 128, 256]
    res = LC.curve(run, ["random", "greedy"], deals=3, first=2_000_000, verbose=False)
    assert [p["step"] for p in res["points"]] == steps
    for p in res["points"]:
        for opp in ("random", "greedy"):
            assert p[opp]["n"] == 3 and p[opp]["lo"] <= p[opp]["mean"] <= p[opp]["hi"]
    first = LC.per_deal(
        json.loads(next((run / "curve" / "cache").glob("*imitation_model__greedy*")).read_text())
    )
    last = LC.per_deal(
        json.loads(next((run / "curve" / "cache").glob("*step_256__greedy*")).read_text())
    )
    assert sorted(first) == sorted(last) == [2_000_000, 2_000_001, 2_000_002]
    want = np.mean([last[d] - first[d] for d in first])
    assert res["last_minus_first"]["greedy"]["mean"] == pytest.approx(want)
    assert [
        p["step"] for p in LC.curve(run, ["greedy"], 3, 2_000_000, False, every=256)["points"]
    ] == [0, 256]
    assert "| 256 |" in LC.table(res) and "Last checkpoint minus first" in LC.table(res)


# ------------------------------------------------------------------ bad input, refused resumes
@pytest.fixture(scope="module")
def checkpoint_run(tmp_path_factory) -> Path:
    """A run folder with one genuine (untrained, tiny) checkpoint and its league state."""
    run = tmp_path_factory.mktemp("run")
    (run / "checkpoints").mkdir()
    tiny_sb3_model(run / "checkpoints" / "step_8.zip")
    league = {"pool": [], "next_pool": None, "next_eval": None, "next_ckpt": 16, "best": 0.0}
    (run / "checkpoints" / "step_8.json").write_text(json.dumps(league))
    return run


def _copy_run(src: Path, dst: Path, extra: dict[str, bytes] | None = None, league=None) -> Path:
    import zipfile

    (dst / "checkpoints").mkdir(parents=True)
    with (
        zipfile.ZipFile(src / "checkpoints" / "step_8.zip") as zin,
        zipfile.ZipFile(dst / "checkpoints" / "step_8.zip", "w") as zout,
    ):
        for name in zin.namelist():
            zout.writestr(name, (extra or {}).get(name, zin.read(name)))
        for name, raw in (extra or {}).items():
            if name not in zin.namelist():
                zout.writestr(name, raw)
    side = (src / "checkpoints" / "step_8.json").read_text() if league is None else league
    (dst / "checkpoints" / "step_8.json").write_text(side)
    return dst


def _exit_2(argv: list[str], capsys) -> str:
    from experiments import train_ppo

    return usage_error(train_ppo.main, argv, capsys)


def test_bad_configs_exit_2_with_one_line(tmp_path, capsys):
    cases = {
        "missing": (None, "no such file"),
        "syntax": ("n_envs = \n", "is not valid TOML"),
        "type": ('n_envs = "four"\n', "n_envs = 'four' is not allowed (expected int)"),
        "unknown": ("bogus = 1\n", "unknown key(s) bogus"),
        "rules": ('rules = ["jokers=two"]\n', "jokers='two'"),
        "opponents": ('opponents = ["greedy=lots"]\n', "the weight must be a number"),
        "vec": ('vec_env = "threads"\n', "vec_env='threads' is not allowed"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name}.toml"
        if text is not None:
            path.write_text(text)
        assert message in _exit_2(["--config", str(path)], capsys), name


def test_resume_refuses_what_the_trainer_did_not_write(checkpoint_run, tmp_path, capsys):
    """``--resume`` of a checkpoint with an unexpected entry (a pickle, a torch payload in
    ``policy.pt``), weights that are not plain tensors, or league state that is not the
    trainer's: status 2 and one line, and nothing unpickled."""
    import io

    import torch

    marker = tmp_path / "pwned"
    pickled = pickle.dumps(Payload(marker))
    buf = io.BytesIO()
    torch.save({"x": Payload(marker)}, buf)
    pool_fifo = tmp_path / "fifo.npz"
    os.mkfifo(pool_fifo)
    cases = [
        ({"evil.pkl": pickled}, None, "unexpected entries 'evil.pkl'"),
        ({"policy.pt": buf.getvalue()}, None, "unexpected entries 'policy.pt'"),
        ({"policy.pth": buf.getvalue()}, None, "could not be loaded"),
        (None, "{not json", "is not JSON"),
        (None, json.dumps({"pool": [], "hook": 1}), "unexpected entry 'hook'"),
        (None, json.dumps({"pool": [["a", str(tmp_path / "none.npz")]]}), "no model file"),
        (None, json.dumps({"pool": [["a", str(pool_fifo)]]}), "is not a regular file"),
        (None, json.dumps({"pool": "x"}), "pool='x' is not of the right type"),
    ]
    for i, (extra, league, message) in enumerate(cases):
        run = _copy_run(checkpoint_run, tmp_path / f"r{i}", extra, league)
        assert message in _exit_2(["--resume", str(run)], capsys), message
    assert "no such checkpoint" in _exit_2(["--resume", str(tmp_path / "none")], capsys)
    empty = tmp_path / "empty"
    (empty / "checkpoints").mkdir(parents=True)
    assert "has no checkpoints yet" in _exit_2(["--resume", str(empty)], capsys)
    assert not marker.exists()
