"""rummy-train-rllib (issue 13): self-play PPO with action masking on RLlib, exported to numpy."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import agents  # noqa: E402
import rummy_env  # noqa: E402
from experiments import train_rllib  # noqa: E402
from experiments.tournament import play_out  # noqa: E402

SMALL = ["--iterations", "2", "--hidden", "32", "--train-batch-size", "400"]
SMALL += [
    "--minibatch-size",
    "100",
    "--num-epochs",
    "1",
    "--num-cpus",
    "1",
    "--checkpoint-every",
    "1",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    import ray

    args = train_rllib.parse_args(["--run-dir", str(tmp_path_factory.mktemp("rllib")), *SMALL])
    try:
        summary = train_rllib.train(args)
    finally:
        ray.shutdown()
    assert summary["iteration"] == 2
    return args.run


def test_training_writes_checkpoints_progress_and_a_policy(run):
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["iter_1", "iter_2"]
    rows = list(csv.DictReader((run / "progress.csv").open()))
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert (run / "policy.npz").is_file()


def test_exported_policy_is_the_trained_module_and_plays_legal_games(run):
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    rules = rummy_env.make_rules("basic", num_players=2)
    bot = agents.make(f"rllib:{run / 'policy.npz'}", rules, 0)
    module = RLModule.from_checkpoint(
        run / "checkpoints" / "iter_2" / "learner_group" / "learner" / "rl_module" / "shared"
    )
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    batch = {
        "obs": {
            "observations": torch.as_tensor(obs["observation"][None]),
            "action_mask": torch.as_tensor(obs["action_mask"][None].astype(np.float32)),
        }
    }
    with torch.no_grad():
        out = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
    legal = np.flatnonzero(obs["action_mask"])
    np.testing.assert_allclose(
        bot.logits(obs["observation"])[legal], out[legal], rtol=1e-4, atol=1e-4
    )
    assert bot.act(obs["observation"], obs["action_mask"]) == int(legal[np.argmax(out[legal])])
    # whole games against random, every move legal (the env raises on an illegal one)
    opp = agents.make("random", rules, 1)
    for deal in range(3):
        rounds, moves, _ = play_out(env, deal, lambda k, o, m: (bot if k == 0 else opp).act(o, m))
        assert rounds and moves


def test_an_rllib_policy_plays_in_a_tournament(run, tmp_path):
    from experiments import tournament

    policy = run / "policy.npz"
    args = tournament.Args(
        preset="basic",
        players=2,
        agents=f"rllib:{policy},random",
        deals=2,
        workers=1,
        db=str(tmp_path / "t.sqlite"),
        out=str(tmp_path / "out"),
        plots=False,
        quiet=True,
    )
    summary = tournament.run(args)
    assert summary is not None and sum(summary.games.values()) == 8


def test_bad_files_and_options_are_refused(tmp_path):
    rules = rummy_env.make_rules("basic", num_players=2)
    with pytest.raises(ValueError, match="exported policy file .* does not exist"):
        agents.make(f"rllib:{tmp_path / 'none.npz'}", rules)
    np.savez(tmp_path / "obj.npz", meta=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ValueError, match="not an exported RLlib policy"):
        agents.make(f"rllib:{tmp_path / 'obj.npz'}", rules)
    with pytest.raises(ValueError, match="policies='both' is not allowed"):
        train_rllib.parse_args(["--policies", "both"])
