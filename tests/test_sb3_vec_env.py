"""``rummy_env.sb3_vec_env.RummyVecEnv``: the batched env as an SB3 ``VecEnv`` for one
learner seat against batched opponents."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import rummy_env  # noqa: E402
from rummy_env.sb3_vec_env import RummyVecEnv  # noqa: E402
from rummy_env.vector_env import random_actions  # noqa: E402


def _learner_views(venv: RummyVecEnv, obs: np.ndarray) -> None:
    """Every row is the learner's own observation, and its mask the learner's moves."""
    masks = venv.action_masks()
    for i in range(venv.num_envs):
        env = rummy_env.raw_env(venv.venv.rules)
        env.reset(options={"state": venv.venv.state_dict(i)})
        seat = int(venv.seats[i])
        assert env.agent_selection == f"player_{seat}", f"game {i}: not the learner's turn"
        o = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs[i], o["observation"])
        np.testing.assert_array_equal(masks[i], o["action_mask"].astype(bool))


@pytest.mark.parametrize(
    "preset,n,opponents,seat",
    [("gin", 2, None, 0), ("basic", 3, "random", None), ("rummy500", 2, "greedy", 1)],
)
def test_the_learner_sees_only_its_own_turns(preset, n, opponents, seat):
    if opponents == "greedy":
        pytest.importorskip("agents")
    venv = RummyVecEnv(preset, num_envs=4, num_players=n, opponents=opponents, seat=seat, seed=0)
    obs = venv.reset()
    _learner_views(venv, obs)
    rng = np.random.default_rng(0)
    summed, done_games = np.zeros(4), 0
    for _ in range(120):
        obs, rewards, dones, infos = venv.step(random_actions(venv.action_masks(), rng))
        summed += rewards * venv.reward_scale
        for i in np.flatnonzero(dones):
            assert infos[i]["score"] == pytest.approx(summed[i], abs=1e-3)
            assert infos[i]["seat"] in range(n)
            summed[i] = 0
            done_games += 1
        if seat is not None:
            assert (venv.seats == seat).all()
    _learner_views(venv, obs)
    assert done_games >= 1


def test_maskable_ppo_trains_on_it():
    """MaskablePPO runs rollouts and updates on it, and its weights change (an update
    happened on the masks the env gave)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = RummyVecEnv("gin", num_envs=8, seed=0)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, verbose=0
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert model.num_timesteps >= 256
    after = list(model.policy.parameters())
    assert any(not (a == b).all() for a, b in zip(after, before))


def test_bad_arguments():
    with pytest.raises(ValueError, match="seat=5"):
        RummyVecEnv("gin", num_envs=2, seat=5)
    with pytest.raises(ValueError, match="reward_scale"):
        RummyVecEnv("gin", num_envs=2, reward_scale=0)
