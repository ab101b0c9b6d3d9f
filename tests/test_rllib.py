"""rummy-train-rllib (issue 13): self-play PPO with action masking on RLlib, exported to numpy."""

from __future__ import annotations

import csv
import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import agents  # noqa: E402
import rummy_env  # noqa: E402
from experiments import train_rllib  # noqa: E402
from experiments.tournament import play_out  # noqa: E402
from tests.cli_errors import usage_error  # noqa: E402
from tests.model_files import Payload  # noqa: E402

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

    tmp = tmp_path_factory.mktemp("rllib")
    before = os.environ.get("RUMMY_CHECKPOINT_KEY")
    os.environ["RUMMY_CHECKPOINT_KEY"] = str(tmp / "checkpoint.key")
    args = train_rllib.parse_args(["--run-dir", str(tmp), *SMALL])
    try:
        summary = train_rllib.train(args)
    finally:
        ray.shutdown()
    assert summary["iteration"] == 2
    yield args.run
    if before is None:
        os.environ.pop("RUMMY_CHECKPOINT_KEY", None)
    else:
        os.environ["RUMMY_CHECKPOINT_KEY"] = before


def test_training_writes_checkpoints_progress_and_a_policy(run):
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "iter_1",
        "iter_1.manifest.json",
        "iter_2",
        "iter_2.manifest.json",
    ]
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


def test_resume_restores_the_verified_checkpoint_and_goes_on(run, capsys):
    import ray

    argv = ["--run-dir", str(run.parent), "--resume", *SMALL, "--iterations", "3"]
    try:
        train_rllib.main(argv)
    finally:
        ray.shutdown()
    assert "resumed" in capsys.readouterr().out
    rows = list(csv.DictReader((run / "progress.csv").open()))
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3]
    assert (run / "checkpoints" / "iter_3.manifest.json").is_file()


# ------------------------------------------------------------------ resume runs no code
def _fake_checkpoint(run: Path, n: int = 2) -> Path:
    """A checkpoint folder as RLlib writes one (the files' content does not matter here)."""
    ckpt = run / "checkpoints" / f"iter_{n}"
    (ckpt / "learner_group").mkdir(parents=True)
    (ckpt / "algorithm_state.pkl").write_bytes(pickle.dumps({"iteration": n}))
    (ckpt / "rllib_checkpoint.json").write_text('{"type": "Algorithm"}')
    (ckpt / "learner_group" / "state.pt").write_bytes(b"weights")
    return ckpt


def _resume(tmp_path: Path, capsys) -> str:
    argv = ["--run-dir", str(tmp_path), "--exp-name", "r", "--resume", *SMALL]
    return usage_error(train_rllib.main, argv, capsys)


@pytest.fixture
def key(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "key" / "checkpoint.key"
    monkeypatch.setenv("RUMMY_CHECKPOINT_KEY", str(path))
    return path


def test_resume_refuses_a_crafted_checkpoint_before_unpickling_it(tmp_path, key, capsys):
    """A checkpoint planted in the run folder (no manifest, or one not signed with this user's
    key, or a file swapped after the run wrote it) is refused with status 2; nothing runs."""
    marker = tmp_path / "pwned"
    run = tmp_path / "r__s1"
    ckpt = _fake_checkpoint(run)
    (ckpt / "algorithm_state.pkl").write_bytes(pickle.dumps(Payload(marker)))
    assert "has a manifest" in _resume(tmp_path, capsys)

    forged = {"files": {"algorithm_state.pkl": "0" * 64}, "hmac": "0" * 64}
    train_rllib.manifest_path(ckpt).write_text(json.dumps(forged))
    assert "no checkpoint key" in _resume(tmp_path, capsys)
    train_rllib.write_manifest(_fake_checkpoint(tmp_path / "other", 1))  # this user's key exists
    assert "not signed with this user's key" in _resume(tmp_path, capsys)

    train_rllib.write_manifest(ckpt)  # the run's own manifest, then the pickle swapped
    (ckpt / "algorithm_state.pkl").write_bytes(pickle.dumps(Payload(marker)) + b" ")
    assert "changed since its run wrote it" in _resume(tmp_path, capsys)
    train_rllib.write_manifest(ckpt)
    (ckpt / "learner_group" / "extra.pkl").write_bytes(pickle.dumps(Payload(marker)))
    assert "added: learner_group/extra.pkl" in _resume(tmp_path, capsys)
    assert not marker.exists()


def test_a_checkpoint_the_run_wrote_is_copied_from_verified_bytes(tmp_path, key):
    ckpt = _fake_checkpoint(tmp_path / "r__s1", 3)
    train_rllib.write_manifest(ckpt)
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    args = train_rllib.parse_args(["--run-dir", str(tmp_path), "--exp-name", "r", "--resume"])
    assert train_rllib.resume_point(args) == (3, ckpt)
    dest = train_rllib.verified_copy(ckpt, tmp_path / "copy")
    for p in ckpt.rglob("*"):
        if p.is_file():
            assert (dest / p.relative_to(ckpt)).read_bytes() == p.read_bytes()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--policies", "both"], "policies='both' is not allowed"),
        (["--iterations", "0"], "iterations and checkpoint_every must be 1 or more"),
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--rules", "jokers=two"], "jokers='two'"),
    ],
)
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, argv, message):
    assert message in usage_error(train_rllib.main, ["--run-dir", str(tmp_path), *argv], capsys)
