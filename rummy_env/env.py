"""# Rummy

| Import             | `from rummy_env import rummy_v1; env = rummy_v1.env("basic", num_players=2)` |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete                                                         |
| Parallel API       | No                                                               |
| Manual Control     | No                                                               |
| Agents             | `['player_0', 'player_1', ...]`: 2-6 basic/deuces/indian, 2-8 rummy500/persian/contract, 2-4 rummy51/rummikub, 2 gin |
| Action Shape       | Discrete(n), n per rule set (basic 2p: 1267, gin 2p: 108, indian 2p: 109, contract 3p: 7719, rummikub 2p: 56, canasta 4p: 1162) |
| Observation Shape  | (size,) per rule set (basic 2p: 3961, gin 2p: 2992, indian 2p: 5924, contract 3p: 7959, rummikub 2p: 343, canasta 4p: 6148) |
| Observation Values | counts, one-hots and scores in -10^4..10^4 (float32, clipped)    |

The rummy family (docs/rules.md) on one rules engine configured by a frozen
`RuleSet`. A turn is several AEC steps by the same agent: draw, then any number
of melds, lay-offs and joker swaps, then a discard that passes the turn. Contract
rummy's buy question is asked out of turn: `agent_selection` is then the asked seat.

### Arguments

`rummy_env.env(preset="basic", num_players=None, render_mode=None, **overrides)`:
`preset` names a rule set of `rummy_env.PRESETS` (or is a `RuleSet`); every
other keyword is a `RuleSet` field (`jokers=2`, `ace="low_or_high"`,
`scoring="winner_takes_all"`, `match=True`, ...). `num_players` defaults to 2
for a preset name and to the rule set's own for a `RuleSet`. A bad name or
value raises `ValueError`.

`reset(seed=None, options=None)`: `options` is None or a dict:
`{"state": d}` restores `state.to_dict()` data (checked: a `ValueError` names
the field that could not occur under the rules), or a crafted deal
`{"hands", "discard", "stock", "dealer"}` (`rummy_env.engine.new_game`; Indian
rummy also `"cut"`, the cut card at the stock's bottom).

### Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`; the
layout of the vector is the table in `rummy_env.observation` (what the player
knows at a real table: own hand, the discard pile in order, every meld with its
owner, cards known to be in opponents' hands, sizes, phase, scores; in Indian
rummy the cut card, the round's wild rank, who dropped and who has drawn; in contract
rummy the deal and each seat's buys left; in Rummikub the table's tiles, this turn's
played tiles and the passes in a row).
`rummy_env.observation.decode(obs, rules)` turns it back into a readable dict.

### Action Space

One flat `Discrete(n)`; blocks for draw, meld, lay-off, swap and discard, and the
variants' own moves (knock, pass, end round; Indian rummy's declare and drop; contract
rummy's buy; Rummikub's play tile and commit) (table
in `rummy_env.moves`). `env.unwrapped.encode(move)` / `decode(action)` convert
to and from readable `Move`s; the mask marks exactly the moves `step` accepts.

### Rewards

At the end of each round every seat gets the round's score from its side,
higher is better, by the rule set's `scoring`:

* `standard`: minus the penalty of the cards left in hand (the winner 0);
* `winner_takes_all`: the winner gets the sum of the others' hands (doubled for
  a "rummy") and each loser minus what he paid (zero-sum);
* `rummy500`: the value of one's melds and lay-offs minus the cards left in hand;
* `gin`: the hand's points to its winner (deadwood difference plus the gin,
  undercut and big-gin bonuses), the same negated to the other (zero-sum);
* `indian`: each loser minus his count (cards outside his best melds when he can
  show two runs, one pure, else all; at most 80) or his drop penalty, the winner
  the sum (zero-sum);
* `rummikub`: each other player minus his rack total less the winner's (a joker 30), the
  winner the sum (zero-sum).

All other steps give 0. `infos[agent]` then holds `round` (a 0-based index;
the rendered text counts from 1), `round_scores`, `totals` (penalties in
standard scoring, points otherwise), `winner`, `reason` (`went_out`,
`stock_exhausted`, a knock, `declared`, `dropped`, ...), `rummy`, and with `match=True` `match_winner`.

### Rendering

`render_mode="ansi"` returns the table as text seen by the seat to act,
`"human"` shows the picture in a window after every step where a display is
there (matplotlib) and prints the text otherwise, `"rgb_array"` returns a picture of the
table (an `(H, 1024, 3)` uint8 array, `rummy_env.picture`: hands, melds with
their owners, the discard pile, the stock, scores, whose turn it is; cards drawn
by the project). `env.unwrapped.render_view` picks whose view it draws: None
(the seat to act), a seat number, or `"all"` (every hand face up).

### Version History

* v1: changed encodings. Rummikub's observation holds the passes in a row (slice
  `passes`: 343 values for 2 players, 342 in v0); in contract rummy a set (suits may
  repeat, no size limit) may hold any number of cards, so the meld and lay-off blocks
  grow (7719 actions, 4950 in v0). Canasta (preset `canasta`, its own moves and
  observation) joins the family; the other presets' encodings are as before.
* v0: the rummy family of docs/rules.md (basic, deuces, rummy500, persian, rummy51, gin,
  indian, contract, rummikub).
"""

from __future__ import annotations

import os
from array import array
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from rummy_env import engine
from rummy_env.moves import ActionCodec, Move
from rummy_env.observation import OBS_BOUND, LiveObservation, ObsLayout
from rummy_env.render import render_text
from rummy_env.rules import rules_for

_GAME_OVER = engine.Phase.GAME_OVER  # a global: enum attribute look-ups are slow


class raw_env(AECEnv, EzPickle):
    """The unwrapped AEC env: illegal actions raise ``IllegalActionError``."""

    metadata = {
        "name": "rummy_v1",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    #: env() sets this: behave like PettingZoo's classic wrapper stack
    _classic = False

    def __init__(
        self,
        preset: str = "basic",
        num_players: int | None = None,
        render_mode: str | None = None,
        **overrides: Any,
    ):
        EzPickle.__init__(self, preset, num_players, render_mode, **overrides)
        super().__init__()
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed (allowed: None, 'ansi', 'human', 'rgb_array')"
            )
        self.rules = rules_for(preset, num_players, overrides)
        self.render_mode = render_mode
        #: whose view ``render()`` draws (rgb_array): None the seat to act, a seat number, or
        #: "all" (every hand face up)
        self.render_view: int | str | None = None
        self._figure: Any = None  # render_mode="human": the window, or False when none can open
        self.codec = ActionCodec(self.rules)
        self.obs_layout = ObsLayout(self.rules)
        self._live = LiveObservation(self.obs_layout)  # kept between moves, updated by them
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        na = self.codec.num_actions
        self._action_space = spaces.Discrete(na)
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -OBS_BOUND, OBS_BOUND, (self.obs_layout.size,), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (na,), np.int8),
            }
        )
        self.state: engine.GameState | None = None
        self._zero_mask_bytes = bytes(na)
        self._illegal_end = False
        self._gone: dict[str, tuple[bool, bool, dict]] = {}  # last() of agents already removed

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ------------------------------------------------------------------- moves
    def encode(self, move: Move) -> int:
        """Action id of a ``Move`` (``ValueError`` if it has none in this rule set), read in the
        current state (``ActionCodec.encode``: a lay-off may name a wild 2 itself)."""
        return self.codec.encode(move, self.state)

    def decode(self, action: int) -> Move:
        """The ``Move`` of an action id (runs show ``JK`` where a wild card would stand).

        Raises:
            ValueError: ``action`` is not an integer in ``0..num_actions - 1``.
        """
        a = _integer(action)
        if a is None:
            raise ValueError(
                f"action must be an integer in 0..{self.codec.num_actions - 1}, got {action!r}"
            )
        return self.codec.decode(a, self.state)

    def legal_moves(self) -> list[Move]:
        """The legal moves of the agent to act."""
        return [self.codec.decode(a, self.state) for a in self.legal_actions()]

    def legal_actions(self) -> list[int]:
        """The legal action ids of the agent to act."""
        self._need_reset("legal_actions")
        return engine.legal_actions(self.state)

    # --------------------------------------------------------------- AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        kept = getattr(self, "_np_random", None)
        kept_state = None if kept is None else kept.bit_generator.state
        if seed is not None or kept is None:
            self._np_random, _ = seeding.np_random(seed)
        try:
            game_seed = int(self._np_random.integers(0, 2**31 - 1))
            state = engine.new_game(self.rules, game_seed, options)
        except BaseException:  # bad options: the generator is as if this reset never was
            self._np_random = kept
            if kept is not None:
                kept.bit_generator.state = kept_state
            raise
        self.state = state
        s = self.state
        self.agents = [a for i, a in enumerate(self.possible_agents) if s.active[i]]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        done = s.phase == _GAME_OVER
        self.terminations = {a: done for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._illegal_end = False
        self._gone = {}
        if done:
            self._round_infos(s.last_result)
        self.agent_selection = self.possible_agents[engine.acting_seat(s)]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self.state
        if s is None:
            self._need_reset("observe")
        i = self.agent_name_mapping.get(agent)
        if i is None:
            raise ValueError(f"agent {agent!r} is not allowed (allowed: {self.possible_agents})")
        obs = self._live.update(s, i).copy()
        m = array("b", self._zero_mask_bytes)
        if agent == self.agent_selection and s.phase != _GAME_OVER and not self._illegal_end:
            for a in engine.legal_actions(s):
                m[a] = 1
        mask = np.frombuffer(m, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        if self.state is None:
            self._need_reset("step")
        if not self.agents:
            # the game is over and every agent took its last step (None): as PettingZoo's
            # OrderEnforcingWrapper, a warning and nothing else
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        a = action if type(action) is int else _integer(action)  # numpy ints, 0-d int arrays
        if self._classic:
            if a is None or not 0 <= a < self.codec.num_actions:
                raise AssertionError("action is not in action space")
            if a not in engine.legal_actions(s):
                self._terminate_illegal(agent)
                return
        if a is None:
            raise engine.IllegalActionError(
                f"action must be an int in 0..{self.codec.num_actions - 1}, got {action!r}"
            )
        if s.phase == _GAME_OVER:
            raise engine.IllegalActionError("step() after the game is over (call reset())")
        try:
            ended = engine.apply_action(s, a)
        except engine.IllegalActionError as e:
            what = (
                str(self.codec.decode(a, s)) if 0 <= a < self.codec.num_actions else "out of range"
            )
            raise engine.IllegalActionError(f"{agent}: {what} ({e})") from None
        self._cumulative_rewards[agent] = 0
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0
        if ended:
            res = s.last_result
            for a in self.agents:
                rewards[a] = res["rewards"][self.agent_name_mapping[a]]
            self._round_infos(res)
            self._accumulate_rewards()
            if res["match_over"]:
                for a in self.agents:
                    self.terminations[a] = True
            else:
                for p in res["eliminated"]:
                    self.terminations[self.possible_agents[p]] = True
                self.agent_selection = self.possible_agents[engine.acting_seat(s)]
                if res["eliminated"]:
                    self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[engine.acting_seat(s)]
        if self.render_mode == "human":
            self.render()

    def _round_infos(self, res: dict[str, Any] | None) -> None:
        if res is None:
            return
        info = {k: res[k] for k in ("round", "round_scores", "totals", "winner", "reason", "rummy")}
        info.update(res.get("info", {}))  # (the game's own: Canasta's sides and breakdown)
        if self.rules.match and res["match_over"]:  # a single-round game has no match winner
            info["match_winner"] = res["match_winner"]
        for a in self.agents:
            self.infos[a] = dict(info)

    def _terminate_illegal(self, agent: str) -> None:
        """PettingZoo's TerminateIllegalWrapper(-1) behaviour, built in."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = {a: True for a in self.agents}
        self.truncations = {a: True for a in self.agents}
        self.rewards = {a: 0 for a in self.agents}
        self.rewards[agent] = -1
        self._accumulate_rewards()
        self._illegal_end = True
        self._deads_step_first()

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict]:
        """Observation, cumulative reward, terminated, truncated and info of the agent
        to act. After the game, once every agent has stepped None and left
        ``agents``, the last agent's final values (reward 0, as stepped)."""
        if self.state is None:
            self._need_reset("last")
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        if agent in self._cumulative_rewards:
            return (
                obs,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        term, trunc, info = self._gone.get(agent, (True, False, {}))
        return obs, 0, term, trunc, info

    def agent_iter(self, max_iter: int = 2**63):
        self._need_reset("agent_iter")
        return super().agent_iter(max_iter)

    def _was_dead_step(self, action: None) -> None:
        agent = self.agent_selection
        if action is None:
            self._gone[agent] = (
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        super()._was_dead_step(action)

    def _need_reset(self, what: str) -> None:
        """Raise unless reset() was called: PettingZoo's AssertionError for env() (as its
        OrderEnforcingWrapper), a RuntimeError for the raw env."""
        if self.state is None:
            if self._classic:
                raise AssertionError(f"reset() needs to be called before {what}().")
            raise RuntimeError(f"{what}() called before reset() (call reset() first)")

    def render(self) -> str | None:
        if self.render_mode is None:
            EnvLogger.warn_calling_render_without_render_mode() if hasattr(
                EnvLogger, "warn_calling_render_without_render_mode"
            ) else None
            return None
        self._need_reset("render")
        if self.render_mode == "rgb_array":
            return self._picture()
        if self.render_mode == "human" and self._window():
            return None
        text = render_text(self.state)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _picture(self) -> np.ndarray:
        from rummy_env.picture import draw_table

        view = self.render_view
        return draw_table(
            self.state, viewer=view if isinstance(view, int) else None, omniscient=view == "all"
        )

    def _window(self) -> bool:
        """render_mode="human": draw the picture in a window (matplotlib) when a display and
        an interactive backend are there; False (the text is printed) otherwise."""
        if self._figure is False:
            return False
        if self._figure is None:
            try:
                import matplotlib

                if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
                    raise RuntimeError("no display")
                import matplotlib.pyplot as plt

                if matplotlib.get_backend().lower() in ("agg", "pdf", "svg", "ps", "template"):
                    raise RuntimeError("no interactive backend")
                plt.ion()
                fig, ax = plt.subplots(num="rummy")
                ax.axis("off")
                self._figure = (plt, fig, ax, ax.imshow(self._picture()))
            except Exception:  # no window here: the text instead, from now on
                self._figure = False
                return False
        plt, fig, ax, im = self._figure
        im.set_data(self._picture())
        fig.canvas.draw_idle()
        plt.pause(0.001)
        return True

    def close(self) -> None:
        if self._figure:
            self._figure[0].close(self._figure[1])
        self._figure = None


def legal_moves(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of an action mask, ascending: ``np.flatnonzero(action_mask)``,
    several times faster on the env's int8 masks (numpy finds the non-zero entries of a
    bool array far faster than of an int8 one: 1.6 against 8.8 us for Rummy 51's 4,374
    actions). A one-dimensional mask of one-byte items (the env's) takes the short way:
    a bool view and ``nonzero`` (``flatnonzero``'s own checks cost more than the search
    on gin's 108 actions)."""
    m = action_mask
    if type(m) is np.ndarray and m.ndim == 1 and m.dtype.char in "bB?":
        return m.view(np.bool_).nonzero()[0]
    return np.flatnonzero(as_bool(m))


def as_bool(mask: Any) -> np.ndarray:
    """A mask as a bool array: a view of a C-contiguous one-byte mask (int8, uint8, bool;
    numpy reads a non-zero byte as true), else ``mask != 0``."""
    m = np.asarray(mask)
    if m.dtype.kind in "iub" and m.itemsize == 1 and m.flags.c_contiguous:
        return m.view(bool)
    return m != 0


def _integer(action: Any) -> int | None:
    """``action`` as an int when it is an integer (a Python or numpy int, or a 0-d
    integer array, as ``Discrete.contains`` accepts), else None; bools are not actions."""
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    return None


class _ClassicEnv(raw_env):
    """``env()``: raw_env with PettingZoo's classic wrapper behaviour built in
    (an illegal move ends the game with -1 for the offender, an action out of
    bounds is an error, stepping before reset is an error) without the cost of
    three wrapper layers."""

    _classic = True


def env(
    preset: str = "basic",
    num_players: int | None = None,
    render_mode: str | None = None,
    **overrides: Any,
) -> raw_env:
    """The AEC env users get by default (see the module docs)."""
    return _ClassicEnv(preset, num_players, render_mode, **overrides)
