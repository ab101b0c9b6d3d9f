"""``rummy_env.vector_env``: N games stepped together (DESIGN.md "Batched self-play env").

Each game of the batch is followed move by move by a ``raw_env`` restored from
``state_dict(i)``: the acting seat's observation and mask, the rewards of every seat and
the end of the game agree at every step, for every preset and several player counts.
Bad batches are refused whole and change no game."""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from rummy_env.vector_env import random_actions

CONFIGS = [
    ("basic", 2, {}),
    ("basic", 3, {"match": True}),
    ("deuces", 2, {}),
    ("rummy500", 3, {}),
    ("persian", 2, {}),
    ("rummy51", 2, {}),
    ("gin", 2, {}),
    ("gin", 2, {"match": True}),
    ("indian", 3, {}),
    ("contract", 3, {}),
    ("rummikub", 2, {}),
    ("canasta", 4, {}),
]


def _follower(venv, i):
    env = rummy_env.raw_env(venv.rules)
    env.reset(options={"state": venv.state_dict(i)})
    return env


def _check_row(env, venv, obs, mask, actor, i):
    agent = env.agent_selection
    assert agent == f"player_{actor[i]}"
    o = env.observe(agent)
    np.testing.assert_array_equal(obs[i], o["observation"], err_msg=f"game {i} observation")
    np.testing.assert_array_equal(mask[i], o["action_mask"], err_msg=f"game {i} mask")


@pytest.mark.parametrize("preset,n,overrides", CONFIGS, ids=str)
def test_games_follow_raw_env(preset, n, overrides):
    N = 3
    venv = rummy_env.vector_env(preset, num_envs=N, num_players=n, seed=7, **overrides)
    assert (venv.num_envs, venv.num_players) == (N, n)
    obs, mask, info = venv.reset()
    assert obs.shape == (N, venv.observation_size) and obs.dtype == np.float32
    assert mask.shape == (N, venv.num_actions)
    followers = [_follower(venv, i) for i in range(N)]
    for i in range(N):
        _check_row(followers[i], venv, obs, mask, info["actor"], i)
    rng = np.random.default_rng(1)
    ended = rounds = 0
    steps = 150 if preset == "rummikub" else 400
    for _ in range(steps):
        actions = random_actions(mask, rng)
        obs, mask, rewards, terminated, info = venv.step(actions)
        assert rewards.shape == (N, n) and rewards.dtype == np.float32
        for i in range(N):
            env = followers[i]
            env.step(int(actions[i]))
            want = [env.rewards.get(f"player_{q}", 0) for q in range(n)]
            np.testing.assert_array_equal(rewards[i], want, err_msg=f"game {i} rewards")
            done = all(env.terminations.values())
            assert terminated[i] == done, f"game {i}: terminated {terminated[i]}, raw_env {done}"
            if done:
                ended += 1
                followers[i] = env = _follower(venv, i)  # the new game dealt in its place
                assert venv.state_dict(i)["step_count"] == 0
            _check_row(env, venv, obs, mask, info["actor"], i)
            rounds = max(rounds, venv.state_dict(i)["round"])
    if overrides.get("match"):
        assert rounds >= 1, "no round ended: the test saw no second round of a match"
    else:
        assert ended >= 1, "no game ended: the test saw no automatic reset"


def test_same_seed_same_games():
    runs = []
    for _ in range(2):
        venv = rummy_env.vector_env("basic", num_envs=4, seed=3)
        obs, mask, _ = venv.reset()
        rng = np.random.default_rng(0)
        total = np.zeros((4, 2))
        for _ in range(200):
            obs, mask, r, _, _ = venv.step(random_actions(mask, rng))
            total += r
        runs.append((obs.copy(), total))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_deals_seed_each_game_and_equal_seeds_deal_equal_games():
    """``reset(deals=...)``: game i is ``engine.new_game(rules, deals[i])``; games dealt
    alike and played alike stay alike (duplicate play), other seeds deal other games."""
    from rummy_env import engine

    venv = rummy_env.vector_env("basic", num_envs=4, seed=0)
    obs, mask, _ = venv.reset(deals=[7, 7, 8, 7])
    for i, seed in enumerate([7, 7, 8, 7]):
        assert venv.state_dict(i) == engine.new_game(venv.rules, seed).to_dict()
    assert venv.state_dict(0)["hands"] != venv.state_dict(2)["hands"]
    rng = np.random.default_rng(0)
    for _ in range(30):  # games 0 and 1 play the same moves, game 3 others
        a = random_actions(mask, rng)
        a[1] = a[0]
        obs, mask, _, term, _ = venv.step(a)
        assert not term.any()
        assert venv.state_dict(0) == venv.state_dict(1)
    np.testing.assert_array_equal(obs[0], obs[1])
    assert venv.state_dict(0) != venv.state_dict(3)
    for bad in ([1, 2, 3], [1, 2, 3, -4], np.zeros(4), "abcd"):
        with pytest.raises(ValueError, match="4 non-negative integer seeds"):
            venv.reset(deals=bad)
    assert venv.state_dict(0) == venv.state_dict(1)  # a refused reset changed nothing


def _snapshot(venv, obs, mask):
    return [venv.state_dict(i) for i in range(venv.num_envs)], obs.copy(), mask.copy()


@pytest.mark.parametrize(
    "bad,match",
    [
        (lambda legal: legal[:2], r"shape \(3,\)"),
        (lambda legal: legal.astype(np.float64), "integers"),
        (
            lambda legal: np.where(np.arange(3) == 1, 10**6, legal),
            "game 1: action 1000000 is out of range",
        ),
        (lambda legal: np.where(np.arange(3) == 2, -1, legal), "game 2: action -1 is out of range"),
    ],
)
def test_bad_batches_change_nothing(bad, match):
    venv = rummy_env.vector_env("gin", num_envs=3, seed=0)
    obs, mask, _ = venv.reset()
    legal = random_actions(mask, np.random.default_rng(0))
    before = _snapshot(venv, obs, mask)
    with pytest.raises(ValueError, match=match):
        venv.step(bad(legal))
    after = _snapshot(venv, obs, mask)
    assert before[0] == after[0]
    np.testing.assert_array_equal(before[1], after[1])
    np.testing.assert_array_equal(before[2], after[2])


def test_an_illegal_move_in_one_game_refuses_the_batch():
    venv = rummy_env.vector_env("basic", num_envs=4, seed=0)
    obs, mask, _ = venv.reset()
    actions = random_actions(mask, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(mask[2] == 0)[0])
    before = _snapshot(venv, obs, mask)
    with pytest.raises(ValueError, match=r"game 2: action \d+ \(.+\) is not legal for seat"):
        venv.step(actions)
    assert _snapshot(venv, obs, mask)[0] == before[0]
    # the same batch with a legal move there plays every game
    actions[2] = random_actions(mask[2:3], np.random.default_rng(1))[0]
    venv.step(actions)
    assert all(venv.state_dict(i)["step_count"] == 1 for i in range(4))


def test_step_part_of_the_batch():
    venv = rummy_env.vector_env("gin", num_envs=4, seed=0)
    obs, mask, _ = venv.reset()
    rows = obs[[0, 2]].copy()
    ids = np.array([1, 3])
    venv.step(random_actions(mask[ids], np.random.default_rng(0)), ids=ids)
    assert [venv.state_dict(i)["step_count"] for i in range(4)] == [0, 1, 0, 1]
    np.testing.assert_array_equal(obs[[0, 2]], rows)
    with pytest.raises(ValueError, match="more than once"):
        venv.step(np.array([0, 0]), ids=np.array([1, 1]))
    with pytest.raises(ValueError, match="game id 9 is not allowed"):
        venv.step(np.array([0]), ids=np.array([9]))


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        rummy_env.vector_env("gin", num_envs=0)
    with pytest.raises(ValueError, match="unknown rule option"):
        rummy_env.vector_env("gin", num_envs=2, nonsense=1)
    venv = rummy_env.vector_env("gin", num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, int))
    venv.reset()
    with pytest.raises(ValueError, match="game id 2 is not allowed"):
        venv.state_dict(2)


def test_returned_arrays_are_the_envs_own_and_read_only():
    """obs and mask are written in place each step; the caller cannot corrupt them."""
    venv = rummy_env.vector_env("gin", num_envs=2, seed=0)
    obs, mask, info = venv.reset()
    with pytest.raises(ValueError, match="read-only"):
        obs[0, 0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        mask[0, :] = 1
    obs2, mask2, *_ = venv.step(random_actions(mask, np.random.default_rng(0)))
    assert obs2 is obs and mask2 is mask
    info["actor"][:] = 1  # info's arrays are the caller's to keep


def test_observe_any_seat():
    venv = rummy_env.vector_env("basic", num_envs=2, num_players=3, seed=0)
    obs, mask, info = venv.reset()
    venv.step(random_actions(mask, np.random.default_rng(0)))
    for i in range(2):
        env = rummy_env.raw_env(venv.rules)
        env.reset(options={"state": venv.state_dict(i)})
        for seat in range(3):
            want = env.observe(f"player_{seat}")["observation"]
            np.testing.assert_array_equal(venv.observe(i, seat), want)
    with pytest.raises(ValueError, match="seat 3 is not allowed"):
        venv.observe(0, 3)


def test_random_actions_are_uniform_over_the_legal_moves():
    mask = np.zeros((3000, 10), np.int8)
    mask[:, [2, 5, 9]] = 1
    mask[0] = 0
    mask[0, 7] = 1
    a = random_actions(mask, np.random.default_rng(0))
    assert a[0] == 7 and set(a[1:].tolist()) == {2, 5, 9}
    counts = np.bincount(a[1:], minlength=10)[[2, 5, 9]]
    assert (abs(counts - 1000) < 120).all(), counts
    np.testing.assert_array_equal(a, random_actions(mask.astype(bool), np.random.default_rng(0)))
    mask[4] = 0
    with pytest.raises(ValueError, match="mask row 4 has no legal action"):
        random_actions(mask, np.random.default_rng(0))
