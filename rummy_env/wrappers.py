"""Single-agent Gymnasium view of the rummy env, with embedded opponents (for SB3).

```python
from rummy_env.wrappers import RummySingleAgentEnv, OpponentPool
env = RummySingleAgentEnv("basic", num_players=2, opponents="greedy")   # learner in a random seat
obs, info = env.reset(seed=0)
mask = env.action_masks()              # bool, exactly the legal moves (sb3-contrib's MaskablePPO reads it)
obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
```

The learner plays one seat; every other seat is played by an embedded opponent
inside ``step``. The learner sees only its own decisions (a turn is several of
them: draw, melds/lay-offs/swaps, discard), each observation from its own side
(the flat ``float32`` vector of :mod:`rummy_env.observation`). Its reward is its
*own* score, so the end of a round reaches it even when an opponent ends the
round (unlike PettingZoo's SB3 tutorial wrapper, where only the last mover is
rewarded and two seats' transitions mix in one trajectory).

The engine is driven directly (no PettingZoo API in between), so a step costs
about what the opponents' moves and one observation cost.

### Arguments

`RummySingleAgentEnv(preset="basic", num_players=2, opponents=None, seat=None,
reward="scaled", reward_scale=100.0, shaping=0.0, illegal="terminate",
illegal_reward=-1.0, duplicate_deals=None, first_deal=0, render_mode=None,
features=None, **rule_overrides)`:

* `opponents`, one of:
  - `None`: the built-in uniform random opponent (:class:`UniformRandomOpponent`);
  - a registry name (`"random"`, `"greedy"`, ...), built by the `make_agent` plugin
    (:func:`plugin`: `agents.make(name, rules, seat)`, which the `agents` package
    registers as an entry point; `rummy_env` itself never imports `agents`);
  - an agent object (`act(observation, action_mask) -> int`, `reset(seed)`),
    used for every opponent seat;
  - a callable `factory(rules, seat) -> agent` (an `agents` class works);
  - a list with one of the above per opponent, in turn order after the learner;
  - an :class:`OpponentPool`: opponents drawn each episode (self-play league).
* `seat`: the learner's seat, or `None` for a random seat each episode.
* `reward` (every option is the learner's own result, given on the step that
  ends the round; all other steps give 0, plus shaping):
  - `"scaled"` (default): the game's own points for the round from the learner's
    side (basic standard scoring: 0 for the winner, minus the cards left in hand
    for the others), divided by `reward_scale`;
  - `"raw"`: the same points, unscaled;
  - `"margin"`: own points minus the mean of the opponents' points, scaled
    (zero-sum; in basic 2p the winner gets the loser's penalty);
  - `"win"`: +1 for winning the round (the match with `match=True`), -1 for
    losing it, 0 when nobody wins (a void gin hand).
  With `match=True` an episode is the whole match and each round's reward comes
  on the learner's next step (or the last one).
* `shaping`: weight of a potential-based shaping term on own deadwood (the value
  of the cards in hand that no meld covers): each learner step adds
  `shaping * (phi(s') - phi(s))` with `phi = -deadwood / reward_scale` and `phi = 0`
  at the end, so the shaped return of an episode differs from the true one by a
  constant (`-phi(s0)`); it only densifies the signal. 0 turns it off.
* `illegal`: an action the mask does not mark either `"terminate"`s the episode
  with `illegal_reward` (as PettingZoo's classic envs do; the env checkers step
  with random actions) or `"raise"`s `IllegalActionError`.
* `duplicate_deals=N`: evaluation mode. Episode `k` plays deal `first_deal + k // P`
  with the learner in seat `k % P` (each deal once from every seat), cycling after
  `N * P` episodes; deal `i` is the deal `rummy_env.raw_env(...).reset(seed=i)` makes.
* `features`: `None` (the observation only), `"hand"`: the observation with
  :mod:`agents.features`' hand-evaluation features appended (deadwood after each
  discard, near-meld potential, danger, ...; computed from the observation alone),
  `"variant"`: the move the preset's rule-based agent would play (one-hot over the
  actions, from the observation and mask alone), or `"hand+variant"`: both.
* `rule_overrides`: any `RuleSet` field (`match=True`, `jokers=2`, ...).

`reset(seed, options)`: `options` may hold `"seat"` (the learner's seat for this
episode) and a crafted deal (`"hands"`, `"discard"`, `"stock"`, `"dealer"`, or
`"state"`) as in `rummy_env.raw_env`. Should the round end before the learner's
first decision (an opponent going out in his first turn), the deal is replaced
by a fresh one (counted in `info["redeals"]`); the learner always gets a move.

`info` at the end of an episode: `score` (the learner's own points), `margin`
(own minus opponents' mean), `is_success` (the learner won), `winner` (seat),
`round_scores`, `totals`, `reason`, `seat`, `opponents` (names), `deal`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from rummy_env import engine
from rummy_env.engine import IllegalActionError, Phase, acting_seat
from rummy_env.env import legal_moves
from rummy_env.melds import best_arrangement
from rummy_env.moves import Layout
from rummy_env.observation import OBS_BOUND, ObsLayout
from rummy_env.observation import encode as encode_obs
from rummy_env.render import render_text
from rummy_env.rules import RuleSet, rules_for

REWARDS = ("scaled", "raw", "margin", "win")


# ----------------------------------------------------------------- opponents
class UniformRandomOpponent:
    """Uniform over the legal moves (the built-in default; no `agents` needed)."""

    name = "random"

    def __init__(self, rules: RuleSet | None = None, seat: int = 0):
        self.rules = rules
        self.seat = seat
        self.rng = random.Random()

    def reset(self, seed: int | None = None) -> None:
        self.rng.seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_moves(action_mask)
        return int(legal[self.rng.randrange(len(legal))])


def make_opponent(spec: Any, rules: RuleSet, seat: int) -> Any:
    """An opponent agent from a spec (see the module docs, `opponents`).

    Raises:
        ValueError: an unknown registry name, or a spec of no known kind.
    """
    if spec is None:
        return UniformRandomOpponent(rules, seat)
    if isinstance(spec, str):
        make = plugin("make_agent")
        if make is None:
            if spec == "random":
                return UniformRandomOpponent(rules, seat)
            raise ValueError(
                f"opponent {spec!r} needs an agent registry (the `agents` package of "
                "rummy-env, found through its entry point), which is not installed; "
                "without it only 'random' is available"
            ) from None
        return make(spec, rules, seat)
    if _is_agent(spec):
        return spec
    if callable(spec):
        return spec(rules, seat)
    raise ValueError(
        f"opponent spec {spec!r} is neither None, a registry name, an agent "
        "(with act/reset), a factory(rules, seat) nor an OpponentPool"
    )


#: the entry-point group through which packages offer named agents and feature maps
PLUGIN_GROUP = "rummy_env.plugins"


@cache
def plugin(name: str) -> Callable[..., Any] | None:
    """The callable a package registered as ``name`` in the entry-point group
    ``rummy_env.plugins`` (``make_agent(spec, rules, seat)``, ``make_features(kind, rules)``),
    or None. This package names no other package: the agents register themselves
    (``pyproject.toml``), so the layers point one way, ``agents -> rummy_env``. Looked up once
    per process (scanning the installed packages takes milliseconds)."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=PLUGIN_GROUP):
        if ep.name == name:
            return ep.load()
    return None


def _make_features(kind: str | None, rules: RuleSet) -> Any:
    """The feature map of ``features=``, from the ``make_features`` plugin (:mod:`agents.features`)."""
    if kind is None:
        return None
    make = plugin("make_features")
    if make is None:
        raise ValueError(
            f"features={kind!r} needs a feature plugin (the `agents` package of rummy-env), "
            "which is not installed"
        )
    return make(kind, rules)


def _is_agent(spec: Any) -> bool:
    """An agent object (not a class or factory)."""
    return not isinstance(spec, type) and hasattr(spec, "act")


def spec_name(spec: Any) -> str:
    """A short name for logs (``info["opponents"]``)."""
    if spec is None:
        return "random"
    if isinstance(spec, str):
        return spec
    return str(
        getattr(spec, "name", None) or getattr(spec, "__name__", None) or type(spec).__name__
    )


class OpponentPool:
    """Opponents drawn per episode: fixed agents by weight, plus a self-play pool.

    The schedule (documented, and the one ``experiments/train_ppo.py`` uses):

    * each opponent seat draws independently at the start of every episode;
    * while the pool holds no snapshot, it draws among the fixed agents in
      proportion to their weights;
    * once it holds snapshots, with probability ``selfplay_frac`` it draws a
      snapshot: the latest one with probability ``latest_frac``, otherwise one
      uniformly among all kept snapshots; else a fixed agent by weight;
    * at most ``max_snapshots`` are kept; adding one more drops the oldest.

    Args:
        fixed: name -> weight (names are opponent specs: registry names such as
            ``"random"`` or ``"greedy"``), or name -> (spec, weight).
        selfplay_frac: probability of a snapshot once there is one.
        latest_frac: probability, within snapshot draws, of the newest snapshot.
        max_snapshots: snapshots kept.
    """

    def __init__(
        self,
        fixed: Mapping[str, Any] | None = None,
        selfplay_frac: float = 0.5,
        latest_frac: float = 0.5,
        max_snapshots: int = 10,
    ):
        fixed = dict(fixed if fixed is not None else {"random": 1.0})
        self.fixed: dict[str, tuple[Any, float]] = {}
        for name, v in fixed.items():
            spec, w = v if isinstance(v, tuple) else (name, v)
            if w < 0:
                raise ValueError(f"weight of {name!r} must be >= 0, got {w}")
            self.fixed[name] = (spec, float(w))
        if self.fixed and sum(w for _, w in self.fixed.values()) <= 0:
            raise ValueError("the fixed opponents' weights sum to 0")
        self.snapshots: dict[str, Any] = {}
        self.configure(
            selfplay_frac=selfplay_frac, latest_frac=latest_frac, max_snapshots=max_snapshots
        )

    def configure(
        self,
        selfplay_frac: float | None = None,
        latest_frac: float | None = None,
        max_snapshots: int | None = None,
    ) -> None:
        """Change the schedule's parameters (e.g. a ramp from the training script)."""
        if selfplay_frac is not None:
            if not 0 <= selfplay_frac <= 1:
                raise ValueError(f"selfplay_frac must be in [0, 1], got {selfplay_frac}")
            if selfplay_frac < 1 and not self.fixed:
                raise ValueError("selfplay_frac < 1 needs at least one fixed opponent")
            self.selfplay_frac = float(selfplay_frac)
        if latest_frac is not None:
            if not 0 <= latest_frac <= 1:
                raise ValueError(f"latest_frac must be in [0, 1], got {latest_frac}")
            self.latest_frac = float(latest_frac)
        if max_snapshots is not None:
            if max_snapshots < 1:
                raise ValueError(f"max_snapshots must be >= 1, got {max_snapshots}")
            self.max_snapshots = int(max_snapshots)
            self._trim()

    def add_snapshot(self, name: str, spec: Any) -> list[str]:
        """Add a frozen policy (a spec: agent factory or object); returns the names dropped."""
        self.snapshots.pop(name, None)
        self.snapshots[name] = spec
        return self._trim()

    def _trim(self) -> list[str]:
        dropped = []
        while len(self.snapshots) > self.max_snapshots:
            oldest = next(iter(self.snapshots))
            del self.snapshots[oldest]
            dropped.append(oldest)
        return dropped

    def sample(self, rng: np.random.Generator) -> tuple[str, Any]:
        """Draw one opponent: ``(name, spec)``."""
        if self.snapshots and (not self.fixed or rng.random() < self.selfplay_frac):
            names = list(self.snapshots)
            if rng.random() < self.latest_frac:
                name = names[-1]
            else:
                name = names[int(rng.integers(len(names)))]
            return name, self.snapshots[name]
        names = list(self.fixed)
        w = np.array([self.fixed[n][1] for n in names], dtype=np.float64)
        name = names[int(rng.choice(len(names), p=w / w.sum()))]
        return name, self.fixed[name][0]


# ----------------------------------------------------------------------- env
def _check_env_args(
    P: int,
    seat: int | None,
    reward: str,
    reward_scale: float,
    shaping: float,
    illegal: str,
    illegal_reward: float,
    render_mode: str | None,
    duplicate_deals: int | None,
) -> None:
    """Raise ``ValueError`` on an argument of :class:`RummySingleAgentEnv` it does not allow."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < P):
        raise ValueError(f"seat={seat!r} is not allowed (allowed: None or 0..{P - 1})")
    if reward not in REWARDS:
        raise ValueError(
            f"reward={reward!r} is not allowed (allowed: {', '.join(map(repr, REWARDS))})"
        )
    for name, value in (
        ("reward_scale", reward_scale),
        ("shaping", shaping),
        ("illegal_reward", illegal_reward),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not math.isfinite(value)
        ):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not reward_scale > 0:
        raise ValueError(f"reward_scale must be > 0, got {reward_scale}")
    if illegal not in ("terminate", "raise"):
        raise ValueError(f"illegal={illegal!r} is not allowed (allowed: 'terminate', 'raise')")
    if render_mode not in (None, "ansi", "human"):
        raise ValueError(
            f"render_mode={render_mode!r} is not allowed (allowed: None, 'ansi', 'human')"
        )
    if duplicate_deals is not None and duplicate_deals < 1:
        raise ValueError(f"duplicate_deals must be >= 1 or None, got {duplicate_deals}")


class RummySingleAgentEnv(gym.Env):
    """One learner seat against embedded opponents (arguments: the module docs)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "rummy_single_v0"}

    def __init__(
        self,
        preset: str | RuleSet = "basic",
        num_players: int | None = None,
        opponents: Any = None,
        seat: int | None = None,
        reward: str = "scaled",
        reward_scale: float = 100.0,
        shaping: float = 0.0,
        illegal: str = "terminate",
        illegal_reward: float = -1.0,
        duplicate_deals: int | None = None,
        first_deal: int = 0,
        render_mode: str | None = None,
        features: str | None = None,
        **rule_overrides: Any,
    ):
        self.rules = rules_for(preset, num_players, rule_overrides)
        P = self.rules.num_players
        _check_env_args(
            P,
            seat,
            reward,
            reward_scale,
            shaping,
            illegal,
            illegal_reward,
            render_mode,
            duplicate_deals,
        )
        self.preset = preset
        self.seat = seat
        self.reward_mode = reward
        self.reward_scale = float(reward_scale)
        self.shaping = float(shaping)
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.duplicate_deals = duplicate_deals
        self.first_deal = int(first_deal)
        self.render_mode = render_mode

        self.layout = ObsLayout(self.rules)
        self.num_actions = Layout(self.rules).size
        self.features = _make_features(features, self.rules)
        n_obs = self.layout.size + (self.features.size if self.features is not None else 0)
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (n_obs,), np.float32)
        self.action_space = spaces.Discrete(self.num_actions)
        self._values = engine.card_values(self.rules)
        self._dw_cache: dict[tuple[int, ...], int] = {}

        self._take_opponents(opponents)
        self._agents_cache: dict[tuple[str, int], Any] = {}

        self.state: engine.GameState | None = None
        self._episode = 0
        self._me = 0
        self._opps: list[Any] = [None] * P
        self._opp_names: list[str] = []
        self._deal = 0
        self._redeals = 0
        self._phi = 0.0
        self._pending = 0.0
        self._done = True

    # ------------------------------------------------------------ opponents
    def _take_opponents(self, opponents: Any) -> None:
        """Keep the ``opponents`` argument: a self-play pool, or one spec per opponent seat
        (a list, or one spec for every seat), each name checked at once."""
        P = self.rules.num_players
        self.pool: OpponentPool | None = None
        self._fixed_specs: list[Any] | None = None
        if isinstance(opponents, OpponentPool):
            self.pool = opponents
        elif isinstance(opponents, (list, tuple)):
            if len(opponents) != P - 1:
                raise ValueError(
                    f"opponents: a list needs one spec per opponent ({P - 1}), got {len(opponents)}"
                )
            self._fixed_specs = list(opponents)
        else:
            self._fixed_specs = [opponents] * (P - 1)
        if self._fixed_specs is not None:  # fail early on bad names
            for k, spec in enumerate(self._fixed_specs):
                if isinstance(spec, str):
                    make_opponent(spec, self.rules, (k + 1) % P)

    def add_opponent(self, name: str, spec: Any) -> list[str]:
        """Add a snapshot to the self-play pool (via ``env_method`` under ``SubprocVecEnv``).

        Returns the names of snapshots dropped from the pool.
        """
        if self.pool is None:
            raise ValueError("this env has fixed opponents; pass opponents=OpponentPool(...)")
        dropped = self.pool.add_snapshot(name, spec)
        for key in [k for k in self._agents_cache if k[0] in dropped]:
            del self._agents_cache[key]
        return dropped

    def configure_pool(self, **kwargs: Any) -> None:
        """``OpponentPool.configure`` on this env's pool (works through ``env_method``)."""
        if self.pool is None:
            raise ValueError("this env has fixed opponents; pass opponents=OpponentPool(...)")
        self.pool.configure(**kwargs)

    def _opponent(self, key: str, spec: Any, seat: int) -> Any:
        if _is_agent(spec):
            return spec
        agent = self._agents_cache.get((key, seat))
        if agent is None:
            agent = self._agents_cache[(key, seat)] = make_opponent(spec, self.rules, seat)
        return agent

    def _pick_opponents(self, deal_seed: int) -> None:
        P = self.rules.num_players
        self._opps = [None] * P
        self._opp_names = []
        for k in range(1, P):
            q = (self._me + k) % P
            if self.pool is not None:
                name, spec = self.pool.sample(self.np_random)
            else:
                spec = self._fixed_specs[k - 1]
                name = spec_name(spec)
            key = f"fixed{k}:{name}" if self.pool is None else name
            agent = self._opponent(key, spec, q)
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset((deal_seed * 7919 + q) % 2**31)
            self._opps[q] = agent
            self._opp_names.append(name)

    # ------------------------------------------------------------ gym API
    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        options = dict(options or {})
        P = self.rules.num_players
        seat_opt = options.pop("seat", None)
        if self.duplicate_deals is not None:
            k = self._episode % (self.duplicate_deals * P)
            deal = self.first_deal + k // P
            me = k % P
            game_seed = deal_game_seed(deal)
        else:
            # the first draw from a fresh seed equals raw_env's: reset(seed=i) deals deal i
            game_seed = int(self.np_random.integers(0, 2**31 - 1))
            deal = game_seed
            me = self.seat if self.seat is not None else int(self.np_random.integers(P))
        if seat_opt is not None:
            if not (isinstance(seat_opt, (int, np.integer)) and 0 <= seat_opt < P):
                raise ValueError(
                    f"options['seat']={seat_opt!r} is not allowed (allowed: 0..{P - 1})"
                )
            me = int(seat_opt)
        self._episode += 1
        self._me = me
        self._deal = deal
        self._redeals = 0
        self._pick_opponents(deal)
        self.state = engine.new_game(self.rules, game_seed, options or None)
        self._done = False
        self._pending = 0.0
        while True:
            ended = self._advance()
            if not ended and self.state.phase != Phase.GAME_OVER and self._me_active():
                break
            if options:
                raise ValueError("the crafted deal ends before the learner's first decision")
            # the round ended before the learner acted: deal again (see module docs)
            self._redeals += 1
            self.state = engine.new_game(self.rules, (game_seed + 104729 * self._redeals) % 2**31)
            self._pending = 0.0
        self._phi = self._potential()
        info = {
            "seat": me,
            "opponents": list(self._opp_names),
            "deal": deal,
            "redeals": self._redeals,
        }
        if self.render_mode == "human":
            self.render()
        return self._obs(), info

    def _action(self, action: Any) -> int:
        """``action`` as an int: an integer or a 0-d integer array in the action space, nothing else
        (``0.9`` or ``"0"`` are errors, not action 0)."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < self.num_actions
        ):
            raise ValueError(
                f"action must be an integer in 0..{self.num_actions - 1}, got {action!r}"
            )
        return int(action)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.state is None or self._done:
            raise RuntimeError(
                "step() called before reset() or after the episode ended (call reset())"
            )
        s = self.state
        a = self._action(action)
        if a not in engine.legal_actions(s):
            if self.illegal == "raise":
                raise IllegalActionError(
                    f"action {a} is not legal for the learner (seat {self._me}, "
                    f"phase {s.phase.name.lower()})"
                )
            self._done = True
            return (
                self._obs(),
                self.illegal_reward,
                True,
                False,
                {"illegal_action": a, **self._end_info()},
            )
        ended = engine.apply_action(s, a)
        terminated = False
        if ended:
            terminated = self._on_round_end()
        if not terminated and acting_seat(s) != self._me:
            terminated = self._advance()
        if not terminated and (s.phase == Phase.GAME_OVER or not self._me_active()):
            terminated = True
        reward = self._pending
        self._pending = 0.0
        if self.shaping:
            phi = 0.0 if terminated else self._potential()
            reward += self.shaping * (phi - self._phi)
            self._phi = phi
        info: dict[str, Any] = {}
        if terminated:
            self._done = True
            info = self._end_info()
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over)."""
        m = np.zeros(self.num_actions, dtype=bool)
        if self.state is not None and not self._done:
            m[engine.legal_actions(self.state)] = True
        return m

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        text = render_text(self.state, viewer=self._me)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ internals
    def _obs(self) -> np.ndarray:
        obs = encode_obs(self.state, self._me, self.layout)
        if self.features is None:
            return obs
        return self.features.augment(
            obs, self.action_masks() if acting_seat(self.state) == self._me else None
        )

    def _me_active(self) -> bool:
        return bool(self.state.active[self._me])

    def _advance(self) -> bool:
        """Play the opponents until the learner is to act; True when the episode ended."""
        s = self.state
        n = self.num_actions
        while s.phase != Phase.GAME_OVER and acting_seat(s) != self._me:
            q = acting_seat(s)
            legal = engine.legal_actions(s)
            if len(legal) == 1:
                a = legal[0]
            else:
                mask = np.zeros(n, dtype=np.int8)
                mask[legal] = 1
                a = int(self._opps[q].act(encode_obs(s, q, self.layout), mask))
            if engine.apply_action(s, a) and self._on_round_end():
                return True
        return s.phase == Phase.GAME_OVER

    def _on_round_end(self) -> bool:
        """Add the round's reward to the pending reward; True when the episode is over."""
        res = self.state.last_result
        me = self._me
        P = self.rules.num_players
        rew = res["rewards"]
        over = bool(res["match_over"]) or me in res["eliminated"]
        if self.reward_mode == "win":
            if not self.rules.match:
                w = res["winner"]
                self._pending += 0.0 if w is None else (1.0 if w == me else -1.0)
            elif over:
                self._pending += 1.0 if res.get("match_winner") == me else -1.0
        else:
            r = float(rew[me])
            if self.reward_mode == "margin":
                r -= sum(rew[q] for q in range(P) if q != me) / (P - 1)
            if self.reward_mode != "raw":
                r /= self.reward_scale
            self._pending += r
        return over

    def _potential(self) -> float:
        if not self.shaping:
            return 0.0
        key = tuple(self.state.hands[self._me])
        d = self._dw_cache.get(key)
        if d is None:
            if len(self._dw_cache) > 100_000:
                self._dw_cache.clear()
            d = self._dw_cache[key] = best_arrangement(
                list(key), self._values, self.rules.ace_high
            )[0]
        return -d / self.reward_scale

    def _end_info(self) -> dict[str, Any]:
        s = self.state
        res = s.last_result
        me = self._me
        P = self.rules.num_players
        info: dict[str, Any] = {"seat": me, "opponents": list(self._opp_names), "deal": self._deal}
        if res is None:  # ended by an illegal action before any round was scored
            return info
        rew = res["rewards"]
        won = res.get("match_winner") if self.rules.match else res["winner"]
        info.update(
            {
                "score": float(rew[me]),
                "margin": float(rew[me] - sum(rew[q] for q in range(P) if q != me) / (P - 1)),
                "is_success": won == me,
                "winner": won,
                "round_scores": list(res["round_scores"]),
                "totals": list(res["totals"]),
                "reason": res["reason"],
            }
        )
        return info


def deal_game_seed(deal: int) -> int:
    """The engine seed of deal ``deal``: the one ``raw_env.reset(seed=deal)`` uses."""
    rng, _ = seeding.np_random(int(deal))
    return int(rng.integers(0, 2**31 - 1))


def make_env_fn(rank: int = 0, seed: int = 0, **kwargs: Any) -> Callable[[], RummySingleAgentEnv]:
    """A picklable thunk for ``SubprocVecEnv`` / ``DummyVecEnv`` (env ``rank`` seeded ``seed + rank``)."""

    def _thunk() -> RummySingleAgentEnv:
        env = RummySingleAgentEnv(**kwargs)
        env.reset(seed=seed + rank)
        return env

    return _thunk


__all__ = [
    "OpponentPool",
    "REWARDS",
    "RummySingleAgentEnv",
    "UniformRandomOpponent",
    "deal_game_seed",
    "make_env_fn",
    "make_opponent",
    "spec_name",
]
