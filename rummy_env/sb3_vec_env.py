"""The batched env as a stable-baselines3 ``VecEnv``: one learner against fixed opponents.

```python
from sb3_contrib import MaskablePPO
from rummy_env.sb3_vec_env import RummyVecEnv

venv = RummyVecEnv("gin", num_envs=64, opponents="random", seed=0)
model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=512, verbose=0)
model.learn(4096)
```

``num_envs`` games of :class:`rummy_env.vector_env.VectorEnv` in one process. In each game
the learner plays one seat (``seat``, or a random seat drawn for every game with
``seat=None``); the other seats are played by ``opponents``, and their moves are batched:
after the learner's actions, every game where an opponent is to act is stepped together
(``VectorEnv.step(actions, ids=...)``), until the learner is to act in every game again.
So each row of the observation is the learner's own view (the float vector of
:mod:`rummy_env.observation`), and ``action_masks()`` (what sb3-contrib's ``MaskablePPO``
reads) marks its legal moves.

Arguments: ``preset``, ``num_envs``, ``num_players`` and rule ``overrides`` as for
``rummy_env.vector_env``; ``opponents``: ``None`` or ``"random"`` (a uniform legal move,
drawn for the whole batch at once), or any spec ``rummy_env.wrappers.make_opponent`` takes
(a registry name such as ``"greedy"``, an agent, a factory): one agent per opponent seat,
asked ``act(observation, action_mask)`` for each game where that seat is to act (agents
decide from what they are shown alone); ``reward_scale``: the learner's reward is its own
points for each finished round (as ``RummySingleAgentEnv``'s ``"scaled"``: the game's score
from the learner's side) divided by it; ``seed``: seeds the games and the seats.

A game ends (``dones[i]``) when the underlying game does; ``infos[i]`` then holds
``score`` (the learner's points in that game) and ``seat``, and the row already shows the
next game. Games never end by a time limit, so no ``terminal_observation`` is given (SB3
reads it only for truncated episodes). Should a new game end before the learner's first
move (an opponent going out at once), its result is not the learner's and is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from rummy_env.observation import OBS_BOUND
from rummy_env.vector_env import VectorEnv, random_actions
from rummy_env.wrappers import make_opponent


class RummyVecEnv(VecEnv):
    """One learner seat per game against batched opponents (module docs)."""

    render_mode = None

    def __init__(
        self,
        preset: str = "basic",
        num_envs: int = 64,
        num_players: int | None = None,
        opponents: Any = None,
        seat: int | None = 0,
        reward_scale: float = 100.0,
        seed: int | None = None,
        **overrides: Any,
    ):
        self.venv = VectorEnv(preset, num_envs, num_players, seed, **overrides)
        P = self.venv.num_players
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < P
        ):
            raise ValueError(f"seat={seat!r} is not allowed (allowed: None or 0..{P - 1})")
        if not (isinstance(reward_scale, (int, float)) and reward_scale > 0):
            raise ValueError(f"reward_scale={reward_scale!r} is not allowed (allowed: > 0)")
        self.fixed_seat = seat
        self.reward_scale = float(reward_scale)
        self._rng = np.random.default_rng(seed)
        rules = self.venv.rules
        self._random = opponents is None or opponents == "random"
        self._opponents = (
            None if self._random else [make_opponent(opponents, rules, q) for q in range(P)]
        )
        self.seats = np.zeros(num_envs, np.int64)
        self._score = np.zeros(num_envs, np.float64)
        self._acted = np.zeros(num_envs, bool)  # the learner has moved in this game
        self._actions: np.ndarray | None = None
        super().__init__(
            num_envs,
            spaces.Box(-OBS_BOUND, OBS_BOUND, (self.venv.observation_size,), np.float32),
            spaces.Discrete(self.venv.num_actions),
        )

    # -------------------------------------------------------------- VecEnv
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._seeds = [None] * self.num_envs
        self.venv.reset(seed=None if seed is None else int(self._rng.integers(2**31)))
        self.seats[:] = self._new_seats(self.num_envs)
        self._score[:] = 0
        self._acted[:] = False
        dones = np.zeros(self.num_envs, bool)
        self._opponents_move(np.zeros(self.num_envs, np.float64), dones, [{}] * self.num_envs)
        self._score[:] = 0  # (a deal over before the learner moved is not its game)
        return self.venv.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async() (call step_async first)")
        actions, self._actions = self._actions, None
        rewards = np.zeros(self.num_envs, np.float64)
        dones = np.zeros(self.num_envs, bool)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        _, _, r, term, _ = self.venv.step(actions.astype(np.int64, copy=False))
        self._acted[:] = True
        self._settle(np.arange(self.num_envs), r, term, rewards, dones, infos)
        self._opponents_move(rewards, dones, infos)
        return (
            self.venv.obs.copy(),
            (rewards / self.reward_scale).astype(np.float32),
            dones,
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """The learner's legal moves in every game, ``(num_envs, num_actions)`` bool."""
        return self.venv.mask.astype(bool)

    def env_method(
        self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"RummyVecEnv has no per-game method {method_name!r}")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def close(self) -> None:
        self.venv.close()

    # ------------------------------------------------------------ internals
    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def _new_seats(self, n: int) -> np.ndarray:
        if self.fixed_seat is not None:
            return np.full(n, self.fixed_seat)
        return self._rng.integers(0, self.venv.num_players, n)

    def _settle(self, ids, r, term, rewards, dones, infos) -> None:
        """Credit the learner's seat of each stepped game with what it received; close
        the games that ended and draw the learner's seat of the new ones."""
        got = r[ids, self.seats[ids]]
        mine = self._acted[ids] & ~dones[ids]  # (nothing after its game ended this step)
        rewards[ids] += np.where(mine, got, 0.0)
        self._score[ids] += np.where(mine, got, 0.0)
        ended = ids[term[ids]]
        for i in ended.tolist():
            if self._acted[i] and not dones[i]:
                dones[i] = True
                infos[i] = {"score": float(self._score[i]), "seat": int(self.seats[i])}
            self._score[i] = 0.0
            self._acted[i] = False
        if len(ended):
            self.seats[ended] = self._new_seats(len(ended))

    def _opponents_move(self, rewards, dones, infos) -> None:
        """Step every game where an opponent is to act, batched, until the learner is to
        act in all of them."""
        venv = self.venv
        while True:
            ids = np.flatnonzero(venv.actor != self.seats)
            if not len(ids):
                return
            if self._random:
                actions = random_actions(venv.mask[ids], self._rng)
            else:
                actions = np.array(
                    [
                        self._opponents[venv.actor[i]].act(venv.obs[i], venv.mask[i])
                        for i in ids.tolist()
                    ],
                    np.int64,
                )
            _, _, r, term, _ = venv.step(actions, ids=ids)
            self._settle(ids, r, term, rewards, dones, infos)
