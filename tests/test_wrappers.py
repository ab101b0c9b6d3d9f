"""The single-agent training env (rummy_env.wrappers): checkers, masks, rewards, seats, pools."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import rummy_env
from rummy_env import engine
from rummy_env.observation import decode
from rummy_env.wrappers import (
    OpponentPool,
    RummySingleAgentEnv,
    UniformRandomOpponent,
    deal_game_seed,
    make_env_fn,
)

CHECK_CONFIGS = [
    ("default", {}),
    ("greedy-seat1", {"opponents": "greedy", "seat": 1}),
    ("match-win", {"match": True, "reward": "win", "penalty_limit": 30}),
    ("margin-shaping", {"reward": "margin", "shaping": 1.0}),
    ("3p-list", {"num_players": 3, "opponents": ["random", "greedy"]}),
    ("jokers-raw", {"jokers": 2, "reward": "raw"}),
]


def play(
    env: RummySingleAgentEnv, seed: int, rng: np.random.Generator, options: dict | None = None
):
    """One episode with random legal moves: (observations, rewards, last info)."""
    obs, info = env.reset(seed=seed, options=options)
    observations, rewards = [obs], []
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        observations.append(obs)
        rewards.append(r)
        done = term or trunc
    return observations, rewards, info


@pytest.mark.parametrize("kw", [c[1] for c in CHECK_CONFIGS], ids=[c[0] for c in CHECK_CONFIGS])
def test_env_checkers(kw):
    from gymnasium.utils.env_checker import check_env as gym_check

    env = RummySingleAgentEnv(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        gym_check(env, skip_render_check=True)
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(RummySingleAgentEnv(**kw), warn=True)


def test_spaces_match_the_env():
    env = RummySingleAgentEnv()
    raw = rummy_env.raw_env("basic", 2)
    assert (
        env.observation_space.shape
        == raw.observation_space("player_0")["observation"].shape
        == (3961,)
    )
    assert env.observation_space.dtype == np.float32
    assert env.action_space.n == raw.action_space("player_0").n == 1267


def test_mask_is_exactly_the_legal_moves():
    env = RummySingleAgentEnv(opponents="greedy")
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            assert set(np.flatnonzero(mask)) == set(engine.legal_actions(env.state))
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not env.action_masks().any()  # nothing to do once the episode is over


def test_learner_sees_only_its_own_turns():
    rng = np.random.default_rng(1)
    for kw in ({}, {"num_players": 3}, {"seat": 1, "opponents": "greedy"}):
        env = RummySingleAgentEnv(**kw)
        for seed in range(2):
            observations, _, _ = play(env, seed, rng)
            to_act = env.layout.slices["to_act"]
            for o in observations[:-1]:
                assert o[to_act].tolist().index(1.0) == 0  # offset 0 = the observer
            assert decode(observations[0], env.rules)["to_act"] == 0


@pytest.mark.parametrize("seat", [0, 1])
def test_terminal_reward_reaches_the_learner(seat):
    env = RummySingleAgentEnv(opponents="greedy", seat=seat, reward="raw")
    rng = np.random.default_rng(seat)
    lost = 0
    for seed in range(8):
        _, rewards, info = play(env, seed, rng)
        assert all(r == 0 for r in rewards[:-1])
        assert rewards[-1] == info["score"] == -info["round_scores"][seat]
        lost += info["winner"] != seat
    assert lost  # greedy went out against random moves: the learner still got its penalty


def test_reward_options():
    rng = np.random.default_rng(2)
    for mode in ("scaled", "raw", "margin", "win"):
        env = RummySingleAgentEnv(opponents="greedy", reward=mode, reward_scale=50.0)
        _, rewards, info = play(env, 7, rng)
        expected = {
            "raw": info["score"],
            "scaled": info["score"] / 50.0,
            "margin": info["margin"] / 50.0,
            "win": 1.0 if info["is_success"] else -1.0,
        }[mode]
        assert sum(rewards) == pytest.approx(expected)
    with pytest.raises(ValueError, match="reward="):
        RummySingleAgentEnv(reward="points")


def test_shaping_telescopes():
    """Potential-based shaping adds only -phi(s0) = deadwood(s0) / scale to the return."""
    rng = np.random.default_rng(3)
    env = RummySingleAgentEnv(opponents="greedy", reward="raw", shaping=1.0)
    for seed in range(4):
        env.reset(seed=seed)
        phi0 = env._potential()
        _, rewards, info = play(env, seed, rng)
        assert sum(rewards) == pytest.approx(info["score"] - phi0)


def test_match_rewards_sum_to_the_total():
    env = RummySingleAgentEnv(reward="raw", match=True, penalty_limit=40)
    rng = np.random.default_rng(4)
    for seed in range(3):
        _, rewards, info = play(env, seed, rng)
        assert sum(rewards) == pytest.approx(
            -info["totals"][info["seat"]]
        )  # penalties in standard scoring


def test_illegal_actions():
    env = RummySingleAgentEnv()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, term, trunc, info = env.step(illegal)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, illegal)
    with pytest.raises(RuntimeError):
        env.step(0)
    env = RummySingleAgentEnv(illegal="raise")
    env.reset(seed=0)
    with pytest.raises(rummy_env.IllegalActionError):
        env.step(illegal)


def test_determinism():
    def trajectory(seed):
        env = RummySingleAgentEnv(opponents="greedy")
        obs, rewards, info = play(env, seed, np.random.default_rng(seed))
        return np.stack(obs), rewards, info

    a, b = trajectory(11), trajectory(11)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1] and a[2] == b[2]


def test_seats():
    env = RummySingleAgentEnv()
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert seats == {0, 1}
    env = RummySingleAgentEnv(seat=1)
    assert {env.reset(seed=s)[1]["seat"] for s in range(5)} == {1}
    assert env.reset(seed=0, options={"seat": 0})[1]["seat"] == 0
    with pytest.raises(ValueError, match="seat"):
        RummySingleAgentEnv(seat=2)


def test_deal_i_is_raw_env_seed_i_and_duplicate_mode_swaps_seats():
    raw = rummy_env.raw_env("basic", 2)
    env = RummySingleAgentEnv(duplicate_deals=2, first_deal=5)
    seen = []
    for _ in range(5):
        _, info = env.reset()
        seen.append((info["deal"], info["seat"]))
        raw.reset(seed=info["deal"])
        assert env.state.seed == raw.state.seed == deal_game_seed(info["deal"])
    assert seen == [(5, 0), (5, 1), (6, 0), (6, 1), (5, 0)]
    # reset(seed=i) in the normal mode deals deal i too
    env = RummySingleAgentEnv(seat=0)
    env.reset(seed=42)
    raw.reset(seed=42)
    assert env.state.seed == raw.state.seed


def test_opponent_specs():
    rules = rummy_env.make_rules("basic", 2)

    class First:
        name = "first"

        def reset(self, seed=None):
            pass

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    rng = np.random.default_rng(5)
    for spec in (None, "random", "greedy", First(), UniformRandomOpponent, lambda r, s: First()):
        env = RummySingleAgentEnv(opponents=spec)
        _, _, info = play(env, 0, rng)
        assert len(info["opponents"]) == 1
    with pytest.raises(ValueError, match="unknown agent"):
        RummySingleAgentEnv(opponents="nobody")
    with pytest.raises(ValueError, match="one spec per opponent"):
        RummySingleAgentEnv(num_players=3, opponents=["random"])
    assert (
        UniformRandomOpponent(rules).act(np.zeros(3961, np.float32), np.eye(1267, dtype=np.int8)[5])
        == 5
    )


def test_opponent_pool_schedule():
    rng = np.random.default_rng(0)
    pool = OpponentPool(
        {"random": 1.0, "greedy": 3.0}, selfplay_frac=0.5, latest_frac=1.0, max_snapshots=2
    )
    names = [pool.sample(rng)[0] for _ in range(400)]
    assert set(names) == {"random", "greedy"} and 0.65 < names.count("greedy") / 400 < 0.85
    for k in range(3):
        pool.add_snapshot(f"s{k}", UniformRandomOpponent)
    assert list(pool.snapshots) == ["s1", "s2"]  # the oldest was dropped
    names = [pool.sample(rng)[0] for _ in range(400)]
    assert 0.4 < sum(n == "s2" for n in names) / 400 < 0.6 and "s1" not in names  # latest only
    pool.configure(selfplay_frac=1.0, latest_frac=0.0)
    assert {pool.sample(rng)[0] for _ in range(100)} == {"s1", "s2"}
    with pytest.raises(ValueError):
        pool.configure(selfplay_frac=1.5)


def test_pool_in_the_env_and_snapshots():
    pool = OpponentPool({"random": 1.0}, selfplay_frac=1.0, latest_frac=1.0)
    env = RummySingleAgentEnv(opponents=pool)
    assert env.reset(seed=0)[1]["opponents"] == ["random"]
    env.add_opponent("snap", UniformRandomOpponent)
    assert env.reset(seed=1)[1]["opponents"] == ["snap"]
    with pytest.raises(ValueError):
        RummySingleAgentEnv().add_opponent("x", UniformRandomOpponent)


def test_subproc_vec_env_and_action_masks():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import SubprocVecEnv

    pool_env = dict(opponents=OpponentPool({"random": 1.0, "greedy": 1.0}, selfplay_frac=0.5))
    venv = SubprocVecEnv([make_env_fn(i, 0, **pool_env) for i in range(2)], start_method="fork")
    try:
        assert is_masking_supported(venv)
        venv.seed(0)
        venv.reset()
        rng = np.random.default_rng(0)
        venv.env_method("add_opponent", "snap", UniformRandomOpponent)
        dones = 0
        for _ in range(150):
            masks = get_action_masks(venv)
            assert masks.shape == (2, 1267) and masks.any(axis=1).all()
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, rewards, done, infos = venv.step(acts)
            for d, info in zip(done, infos):
                if d:
                    dones += 1
                    assert "score" in info and "terminal_observation" in info
        assert dones > 0
    finally:
        venv.close()


def test_rummy_env_never_imports_torch():
    code = (
        "import sys, rummy_env, rummy_env.wrappers\n"
        "rummy_env.wrappers.RummySingleAgentEnv(opponents='greedy').reset(seed=0)\n"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hand_features_are_appended_and_read_only_the_observation():
    from gymnasium.utils.env_checker import check_env as gym_check

    from agents.features import PER_FACE, SIZE, HandFeatures
    from rummy_env.melds import best_arrangement

    env = RummySingleAgentEnv(opponents="greedy", features="hand")
    n = env.layout.size
    assert env.observation_space.shape == (n + SIZE,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check(env, skip_render_check=True)
    plain = RummySingleAgentEnv(opponents="greedy")
    hf = HandFeatures(env.rules)
    values = engine.card_values(env.rules)
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        ref, _ = plain.reset(seed=seed)
        done = False
        while not done:
            np.testing.assert_array_equal(obs[:n], ref)  # the observation itself is unchanged
            np.testing.assert_array_equal(obs[n:], hf(ref))  # and the features are a function of it
            hand = np.rint(ref[:53]).astype(int).tolist()
            dw_after = obs[n : n + 53] * 50
            for f, c in enumerate(hand):
                if c:  # deadwood after discarding f, by the meld search
                    h = list(hand)
                    h[f] -= 1
                    assert dw_after[f] == pytest.approx(best_arrangement(h, values)[0])
                else:
                    assert dw_after[f] == 0
            in_meld = obs[n + PER_FACE.index("in_meld") * 53 :][:53]
            # the cards in the best arrangement's melds: everything but the deadwood
            assert float(in_meld @ np.asarray(values)) == pytest.approx(
                sum(c * v for c, v in zip(hand, values)) - best_arrangement(hand, values)[0]
            )
            mask = env.action_masks()
            a = int(rng.choice(np.flatnonzero(mask)))
            obs, _, done, _, _ = env.step(a)
            ref, _, _, _, _ = plain.step(a)
    with pytest.raises(ValueError, match="features='deadwood' is not allowed"):
        RummySingleAgentEnv(features="deadwood")


@pytest.mark.parametrize("action", [0.9, "0", None, True, np.float32(3.0), np.array([0])])
def test_wrapper_rejects_actions_that_are_not_integers(action):
    """Issue 16: 0.9 and "0" used to be taken as action 0."""
    env = RummySingleAgentEnv(opponents="random")
    env.reset(seed=0)
    before = env.state.to_dict()
    with pytest.raises(ValueError, match="action must be an integer"):
        env.step(action)
    assert env.state.to_dict() == before  # the game is untouched


def test_wrapper_accepts_numpy_integers_and_0d_arrays():
    env = RummySingleAgentEnv(opponents="random")
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.array(legal))
    env.reset(seed=0)
    env.step(np.int64(legal))


@pytest.mark.parametrize(
    "kw",
    [
        {"shaping": float("nan")},
        {"shaping": float("inf")},
        {"reward_scale": float("nan")},
        {"illegal_reward": float("nan")},
        {"shaping": "1"},
    ],
)
def test_wrapper_rejects_non_finite_numbers(kw):
    with pytest.raises(ValueError, match="must be a finite number"):
        RummySingleAgentEnv(opponents="random", **kw)


def test_wrapper_takes_a_rule_set_of_any_player_count_and_refuses_name():
    """Issue 16: num_players defaulted to 2, so a 4-player RuleSet raised; name= was a TypeError."""
    rules = rummy_env.make_rules("basic", 4)
    env = RummySingleAgentEnv(rules, opponents="random")
    env.reset(seed=0)
    assert env.rules.num_players == 4
    with pytest.raises(ValueError, match="name='gin' is not a rule option"):
        RummySingleAgentEnv(name="gin")
