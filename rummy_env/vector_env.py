"""N games in one process, stepped together: the batched self-play env.

```python
import numpy as np
import rummy_env
from rummy_env.vector_env import random_actions

venv = rummy_env.vector_env("gin", num_envs=256, seed=0)
obs, mask, info = venv.reset()            # obs (256, obs_dim) float32, mask (256, n_actions) int8
rng = np.random.default_rng(0)
for _ in range(100):
    actions = random_actions(mask, rng)   # a uniform legal move per game
    obs, mask, rewards, terminated, info = venv.step(actions)
```

Every seat of every game is played by the caller (self-play, as in Pgx and EnvPool): row
``i`` of ``obs`` and ``mask`` is what the seat to act in game ``i`` (``info["actor"][i]``)
sees, exactly what :class:`rummy_env.raw_env` gives that seat in that state (the same
encoding, the same mask). ``obs`` and ``mask`` are the same two arrays at every call,
written in place by the env and read-only to the caller (the env builds the next
observations from them): copy them to keep or change them.

``step(actions)`` takes one action id per game (an integer array of shape ``(N,)``) and
returns ``rewards`` (float32 ``(N, num_players)``: what each seat received at this step,
a finished round's rewards as the AEC env gives them, else 0) and ``terminated`` (bool
``(N,)``: that game ended at this step; it was dealt again at once, from the vector's own
generator, so its row of ``obs``/``mask``/``actor`` is the new game's first). With
``match=True`` a game is a whole match (each round's rewards at its last step). A batch
with an illegal action, an action out of range or the wrong shape raises ``ValueError``
naming the game and the move, and changes no game.

``step(actions, ids=...)`` steps only the games ``ids`` (``actions`` then has one entry
per id): the other rows keep their observation and mask and get no reward. Opponents that
act on part of the batch use it (:mod:`rummy_env.sb3_vec_env`).

``reset(deals=seeds)`` deals game ``i`` by ``engine.new_game(rules, seeds[i])``: games
dealt from equal seeds and played alike stay alike (duplicate play: a deal from every
seat, or a deal's copies as one another's baseline in training).

``observe(i, seat)`` is what any seat of game ``i`` sees now (built anew). ``state_dict(i)``
is game ``i`` as ``GameState.to_dict()``: ``raw_env.reset(options={"state":
d})`` restores it, and gives the acting seat the same observation and mask.

Each game's row is kept between moves and updated by what each move changed, for the
seat to act (:class:`rummy_env.observation.LiveObservation`): no observation is built
from scratch or copied.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from rummy_env import engine
from rummy_env.env import as_bool
from rummy_env.moves import ActionCodec
from rummy_env.observation import OBS_BOUND, LiveObservation, ObsLayout, encode
from rummy_env.rules import RuleSet, rules_for

_GAME_OVER = engine.Phase.GAME_OVER
#: new games dealt in a row that are over before any move, before a reset gives up
_MAX_REDEALS = 100


class VectorEnv:
    """``num_envs`` games of one rule set, every seat played by the caller (module docs)."""

    def __init__(
        self,
        preset: str | RuleSet = "basic",
        num_envs: int = 64,
        num_players: int | None = None,
        seed: int | None = None,
        **overrides: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise ValueError(f"num_envs={num_envs!r} is not allowed (allowed: an int >= 1)")
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs} is not allowed (allowed: an int >= 1)")
        self.rules = rules_for(preset, num_players, overrides)
        self.num_envs = N = int(num_envs)
        self.num_players = self.rules.num_players
        self.codec = ActionCodec(self.rules)
        self.layout = ObsLayout(self.rules)
        self.num_actions = na = self.codec.num_actions
        self.observation_size = size = self.layout.size
        #: one game's spaces (a row of ``obs`` and of ``mask``)
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (size,), np.float32)
        self.action_space = spaces.Discrete(na)
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        # each game's observation (for the seat to act) and mask, updated in place
        self._obs = np.zeros((N, size), np.float32)
        self._live = [LiveObservation(self.layout, self._obs[i]) for i in range(N)]
        self._mask = np.zeros((N, na), np.int8)
        self._mrows = [memoryview(row) for row in self._mask]
        self._zero_row = memoryview(bytes(na)).cast("b")
        self._legal: list[list[int]] = [[] for _ in range(N)]
        self._actor = np.zeros(N, np.int64)
        self._states: list[engine.GameState] = []
        #: the arrays ``reset`` and ``step`` return: read-only views of the env's own
        self.obs = _read_only(self._obs)
        self.mask = _read_only(self._mask)
        #: the seat to act in each game (read-only view)
        self.actor = _read_only(self._actor)

    # ------------------------------------------------------------------ API
    def reset(
        self, seed: int | None = None, deals: Any = None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Deal every game anew (``seed`` reseeds the vector's generator). ``deals``: one
        engine seed per game (``N`` non-negative integers); game ``i`` is then
        ``engine.new_game(rules, deals[i])``, so equal seeds deal equal games (duplicate
        play). A deal over before any move is replaced by the next seed's."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if deals is not None:
            deals = self._deal_seeds(deals)
        self._states = [None] * self.num_envs  # type: ignore[list-item]
        self._mask.fill(0)
        self._legal = [[] for _ in range(self.num_envs)]
        for i in range(self.num_envs):
            self._deal(i, None if deals is None else deals[i])
            self._observe(i, self._states[i])
        return self.obs, self.mask, {"actor": self._actor.copy()}

    def step(
        self, actions: Any, ids: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action in each game (or in each game of ``ids``): module docs."""
        if not self._states:
            raise RuntimeError("step() called before reset() (call reset() first)")
        games, acts = self._checked(actions, ids)
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        terminated = np.zeros(self.num_envs, bool)
        states, apply, observe = self._states, engine.apply_legal_action, self._observe
        for i, a in zip(games, acts):
            s = states[i]
            if apply(s, a):
                rewards[i] = s.last_result["rewards"]
                if s.phase == _GAME_OVER:
                    terminated[i] = True
                    s = self._deal(i)
            observe(i, s)
        return self.obs, self.mask, rewards, terminated, {"actor": self._actor.copy()}

    def observe(self, i: int, seat: int) -> np.ndarray:
        """What ``seat`` sees in game ``i`` now (a new array; the seat need not be the one to
        act): a trainer's value of the seats waiting for their turn."""
        i = self._game(i, "observe")
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise ValueError(f"seat {seat!r} is not allowed (allowed: 0..{self.num_players - 1})")
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} is not allowed (allowed: 0..{self.num_players - 1})")
        return encode(self._states[i], int(seat), self.layout)

    def state_dict(self, i: int) -> dict[str, Any]:
        """Game ``i`` as ``GameState.to_dict()`` (restorable with ``raw_env.reset``)."""
        self._game(i, "state_dict")
        return self._states[i].to_dict()

    def close(self) -> None:
        """Nothing to release (the games live in this process); for API symmetry."""

    def __repr__(self) -> str:
        return (
            f"VectorEnv({self.rules.name!r}, num_envs={self.num_envs}, "
            f"num_players={self.num_players})"
        )

    # ------------------------------------------------------------- internals
    def _deal(self, i: int, seed: int | None = None) -> engine.GameState:
        """A new game in slot ``i`` from the vector's generator (as ``raw_env.reset`` deals:
        one seed drawn per game), or from ``seed`` (then ``seed + 1``, ... while a deal is
        over before any move)."""
        for k in range(_MAX_REDEALS):
            if seed is None:
                s = engine.new_game(self.rules, int(self._rng.integers(0, 2**31 - 1)))
            else:
                s = engine.new_game(self.rules, seed + k)
            if s.phase != _GAME_OVER:
                self._states[i] = s
                return s
        raise RuntimeError(
            f"{_MAX_REDEALS} deals in a row were over before any move: these rules "
            "leave nothing to play"
        )

    def _observe(self, i: int, s: engine.GameState) -> None:
        """Game ``i``'s actor, its seat vector and its mask row, after a move or a deal."""
        p = engine.acting_seat(s)
        self._actor[i] = p
        self._live[i].update(s, p)
        m = self._mrows[i]
        old = self._legal[i]
        if len(old) > 8:  # many to clear: the whole row at once
            m[:] = self._zero_row
        else:
            for a in old:
                m[a] = 0
        legal = engine.legal_actions(s)
        for a in legal:
            m[a] = 1
        self._legal[i] = legal

    def _deal_seeds(self, deals: Any) -> list[int]:
        a = np.asarray(deals)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu" or (a < 0).any():
            raise ValueError(
                f"deals {deals!r} is not allowed (allowed: {self.num_envs} non-negative "
                "integer seeds, one per game)"
            )
        return [int(v) for v in a]

    def _game(self, i: Any, what: str) -> int:
        if not self._states:
            raise RuntimeError(f"{what}() called before reset() (call reset() first)")
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise ValueError(f"game id {i!r} is not allowed (allowed: 0..{self.num_envs - 1})")
        if not 0 <= i < self.num_envs:
            raise ValueError(f"game id {i} is not allowed (allowed: 0..{self.num_envs - 1})")
        return int(i)

    def _checked(self, actions: Any, ids: Any) -> tuple[list[int], list[int]]:
        """The games and actions of a batch, every one checked before any game moves."""
        N, na = self.num_envs, self.num_actions
        if ids is None:
            idx = None
            k = N
        else:
            idx = np.asarray(ids)
            if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
                raise ValueError(
                    f"ids must be a 1-d array of game ids, got shape {idx.shape} dtype {idx.dtype}"
                )
            if idx.size and (idx.min() < 0 or idx.max() >= N):
                bad = int(idx[(idx < 0) | (idx >= N)][0])
                raise ValueError(f"game id {bad} is not allowed (allowed: 0..{N - 1})")
            if len(np.unique(idx)) != idx.size:
                raise ValueError("ids name a game more than once (one action a game a step)")
            k = idx.size
        a = np.asarray(actions)
        if a.shape != (k,):
            raise ValueError(
                f"actions must have shape ({k},) (one action id per game"
                f"{'' if idx is None else ' of ids'}), got shape {a.shape}"
            )
        if k and a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        games = np.arange(N) if idx is None else idx
        out = (a < 0) | (a >= na)
        if out.any():
            j = int(np.flatnonzero(out)[0])
            raise ValueError(
                f"game {int(games[j])}: action {int(a[j])} is out of range (allowed: 0..{na - 1})"
            )
        illegal = self._mask[games, a] == 0
        if illegal.any():
            j = int(np.flatnonzero(illegal)[0])
            g, act = int(games[j]), int(a[j])
            s = self._states[g]
            raise ValueError(
                f"game {g}: action {act} ({self.codec.decode(act, s)}) is not legal for seat "
                f"{engine.acting_seat(s)} now (legal: {len(self._legal[g])} actions, "
                f"see mask[{g}])"
            )
        return games.tolist(), a.tolist()


def _read_only(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` (``(N, n_actions)`` of 0/1, int8
    or bool, every row with at least one legal action), in one pass over the batch."""
    mask = np.asarray(mask)
    N, na = mask.shape
    legal = as_bool(mask)
    flat = np.flatnonzero(legal)
    counts = np.count_nonzero(legal, axis=1)
    if (counts == 0).any():
        raise ValueError(f"mask row {int(np.flatnonzero(counts == 0)[0])} has no legal action")
    starts = np.cumsum(counts) - counts
    return flat[starts + (rng.random(N) * counts).astype(np.intp)] - np.arange(N) * na


def vector_env(
    preset: str | RuleSet = "basic",
    num_envs: int = 64,
    num_players: int | None = None,
    seed: int | None = None,
    **overrides: Any,
) -> VectorEnv:
    """``num_envs`` games of ``preset`` (with the rule ``overrides``) stepped together
    (:class:`VectorEnv`; module docs). Call ``reset()`` first."""
    return VectorEnv(preset, num_envs, num_players, seed, **overrides)
