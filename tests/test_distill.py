"""experiments/distill.py: search distillation, collected in resumable shards, fitted in resumable epochs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("tyro")

import agents  # noqa: E402
import rummy_env  # noqa: E402
from experiments import distill  # noqa: E402
from experiments.learning_curve import checkpoints  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "experiments" / "configs" / "distill").glob("*.toml"))


def smoke(tmp: Path, *extra: str) -> list[str]:
    return [
        "--run-dir",
        str(tmp),
        "--exp-name",
        "d",
        "--teacher",
        "search:simulations=2",
        "--games",
        "4",
        "--shard-games",
        "2",
        "--features-dim",
        "32",
        "--net-arch",
        "16",
        "--batch-size",
        "64",
        "--epochs",
        "1",
        *extra,
    ]


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_distill_configs_parse(path):
    args = distill.parse_args(["--config", str(path), "--seed", "3"])
    assert args.seed == 3 and args.run.name.endswith("__s3")
    rummy_env.make_rules(args.preset, args.num_players)
    agents.parse_spec(args.teacher, args.make_rules())


def test_bad_config_and_stage_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("gamez = 3\n")
    with pytest.raises(ValueError, match="gamez"):
        distill.parse_args(["--config", str(bad)])
    with pytest.raises(ValueError, match="stage"):
        distill.parse_args(["--stage", "train"])


def test_collect_is_deterministic_and_resumes_at_the_missing_shard(tmp_path):
    args = distill.parse_args(smoke(tmp_path, "--stage", "collect"))
    distill.collect(args)
    first = distill.shard_path(args, 0)
    second = distill.shard_path(args, 1)
    before = dict(np.load(second))
    stamp = first.stat().st_mtime_ns
    second.unlink()  # as if the run had been killed while writing shard 1
    distill.collect(args)
    assert first.stat().st_mtime_ns == stamp  # not played again
    after = dict(np.load(second))
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(before[k], after[k])
    z = np.load(second)
    cands, values, labels = z["cands"], z["values"], z["labels"]
    searched = cands[:, 0] >= 0
    assert searched.any() and cands.shape == values.shape == (len(labels), distill.MAX_CANDS)
    for c, v, a in zip(cands[searched], values[searched], labels[searched]):
        assert a in c  # the teacher plays one of the candidates it compared
        assert np.isfinite(v[c >= 0]).all() and np.isnan(v[c < 0]).all()
    buf, game = distill.load_data(args)
    assert buf.size == len(game) and sorted(set(game)) == [0, 1, 2, 3]
    obs, masks, labels, returns, _ = buf.batch(np.arange(buf.size))
    assert masks[np.arange(buf.size), labels].all()  # every label is a legal move
    assert (masks.sum(1) > 1).all()  # forced moves are not recorded
    # zero-sum margins in 2-player games: the two seats' value targets of a game are opposite
    seat = np.concatenate([np.load(distill.shard_path(args, k))["seat"] for k in (0, 1)])
    for g in set(game):
        r0 = returns[(game == g) & (seat == 0)]
        r1 = returns[(game == g) & (seat == 1)]
        assert len(set(r0)) == 1 and len(set(r1)) == 1 and r0[0] == pytest.approx(-r1[0])


def test_fit_needs_the_whole_collection(tmp_path):
    args = distill.parse_args(smoke(tmp_path, "--stage", "fit"))
    with pytest.raises(FileNotFoundError, match="--stage collect"):
        distill.fit(args)


@pytest.mark.slow
def test_fit_writes_a_curve_of_checkpoints_resumes_and_ships_a_playable_model(tmp_path):
    cmd = [sys.executable, "-m", "experiments.distill", *smoke(tmp_path)]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    run = tmp_path / "d__s1"
    assert [c[1].split()[0] for c in checkpoints(run)][0] == "0"
    assert len(checkpoints(run)) == 2 and (run / "model.npz").exists()
    # a second epoch resumes from the first one's checkpoint and optimizer
    out = subprocess.run(
        cmd + ["--epochs", "2", "--stage", "fit"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "epoch 1/2" in out.stdout and "epoch 2:" in out.stdout and "epoch 1:" not in out.stdout
    assert len(checkpoints(run)) == 3
    rules = rummy_env.make_rules("basic", 2)
    bot = agents.make(f"ppo:{run / 'model.npz'}", rules, 0)
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=5)
    obs, *_ = env.last()
    assert obs["action_mask"][bot.act(obs["observation"], obs["action_mask"])]


@pytest.mark.slow
def test_the_untrained_distilled_policy_plays_the_variant_agents_moves(tmp_path):
    """Step 0 of the curve is the rule-based agent itself: the residual network's untrained
    argmax is its move on every recorded decision (the input carries it one-hot)."""
    args = distill.parse_args(smoke(tmp_path, "--games", "2", "--epochs", "0"))
    distill.collect(args)
    distill.fit(args)
    bot = agents.make(f"ppo:{args.run / 'model.npz'}", args.make_rules(), 0)
    buf, _ = distill.load_data(args)
    obs, masks, *_ = buf.batch(np.arange(buf.size))
    expert_moves = obs[:, -masks.shape[1] :].argmax(1)
    played = [bot.np_policy.probs(o, m).argmax() for o, m in zip(obs, masks)]
    np.testing.assert_array_equal(played, expert_moves)
