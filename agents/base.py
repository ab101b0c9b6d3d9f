"""The agent interface, and what every agent needs to read its observation.

An agent is created for one rule set and one seat, may be ``reset(seed)`` before
a game, and is asked ``act(observation, action_mask) -> int`` whenever its seat
is to act. It sees only what the env's ``observe`` returns: the float vector
``obs["observation"]`` (layout: :mod:`rummy_env.observation`) and the int8
``obs["action_mask"]``. Nothing here reads the env's state.

* :class:`Policy` is the Protocol (OpenSpiel's ``Bot``: ``Step``/``GetPolicy``);
  :class:`Agent` is the base class the shipped agents derive from.
* :func:`read_observation` turns the vector into a :class:`View` with integer
  faces (the same content as :func:`rummy_env.observation.decode`, which gives
  text; this one is several times faster, which matters in tournaments).
* :class:`MoveTable` decodes action ids once per rule set into small tuples
  (:func:`rummy_env.moves.ActionCodec.decode` underneath).
* Card helpers shared by the heuristic agents: :func:`table_fits`,
  :func:`unseen_counts`, :func:`move_cards`.

Seats in a :class:`View` are *offsets* from the observer (0 = self, 1 = the next
player in turn order), as in the observation.
"""

from __future__ import annotations

import functools
import math
import random
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rummy_env.cards import JOKER, NUM_FACES, NUM_RANKS, deck_faces, face_counts, parse_card
from rummy_env.engine import card_values
from rummy_env.env import legal_moves
from rummy_env.melds import ACE_HIGH_POS, SUIT_SHIFT, run_face
from rummy_env.moves import (
    ActionCodec,
    Buy,
    Commit,
    Declare,
    Discard,
    DrawDiscard,
    DrawStock,
    Drop,
    EndRound,
    Knock,
    LayOff,
    Meld,
    Pass,
    PlayTile,
    SwapJoker,
)
from rummy_env.observation import ObsLayout, View, read
from rummy_env.rules import RuleSet

F = NUM_FACES


# ------------------------------------------------------------------ interface
@runtime_checkable
class Policy(Protocol):
    """What a tournament or an env loop needs from an agent."""

    rules: RuleSet
    seat: int

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (a seed fixes every random choice of the agent)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action id to play; ``action_mask[a] == 1`` for every legal ``a``."""


class Agent(ABC):
    """Base class of the shipped agents: holds the rules, the seat and an RNG.

    Every subclass's ``act`` is checked (:func:`checked_act`): an observation or a mask
    whose length does not fit the rules is a ``ValueError`` naming both lengths, and
    the move returned is always one the mask marks (or a ``ValueError`` is raised).

    Args:
        rules: the rule set of the game.
        seat: the seat this agent plays (0-based); observations are seen from it.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "act" in cls.__dict__:
            cls.act = checked_act(cls.__dict__["act"])

    #: registry name (set by subclasses)
    name: str = "agent"
    #: behaviour version, raised when a change makes the agent play differently, so that a
    #: tournament store does not reuse games of the old behaviour (experiments.tournament)
    version: int = 1

    def __init__(self, rules: RuleSet, seat: int = 0, **kwargs: Any):
        if kwargs:
            raise ValueError(
                f"{type(self).__name__} got unknown option(s) {', '.join(map(repr, kwargs))} "
                f"(allowed: {', '.join(self.options()) or 'none'})"
            )
        if not 0 <= seat < rules.num_players:
            raise ValueError(f"seat={seat} is not allowed (allowed: 0..{rules.num_players - 1})")
        self.rules = rules
        self.seat = seat
        self.rng = random.Random()
        self.moves = MoveTable.of(rules)
        self.values = card_values(rules)
        #: (number of actions, observation length) under these rules (what ``act`` checks)
        self.sizes = (self.moves.num_actions, obs_size(rules))

    def choices(
        self, observation: Any, action_mask: Any = None
    ) -> tuple[Any, list[int], dict[int, list[int]]]:
        """What ``act`` starts from: the observation vector, the legal ids of the seat to act
        (a ValueError for an empty mask) and, when there are two or more, the ids by kind."""
        observation, action_mask = split_obs(observation, action_mask)
        legal = legal_to_act(action_mask)
        return observation, legal, by_kind(self.moves, legal) if len(legal) > 1 else {}

    @classmethod
    def options(cls) -> tuple[str, ...]:
        """Keyword options this agent accepts (for error messages and the CLI)."""
        return ()

    @classmethod
    def model_file(cls, **options: Any) -> Path | None:
        """The file the agent plays from with these options (a trained model), or None."""
        return None

    @classmethod
    def for_rules(cls, options: dict[str, Any], rules: RuleSet) -> dict[str, Any]:
        """The options with any name that stands for a rule set's model made concrete
        (``neural:rummy500`` is the shipped ``rummy500-2p``); the same options by default."""
        return options

    @classmethod
    def content_id(cls, **options: Any) -> str:
        """What else identifies this agent's play beyond its name, options and ``version``:
        for agents backed by a file (a trained model), a hash of the file's content, so that
        a tournament store never reuses games of a different file at the same path."""
        path = cls.model_file(**options)
        if path is None:
            return ""
        from agents.model_io import file_digest

        return file_digest(path)

    def reset(self, seed: int | None = None) -> None:
        self.rng.seed(seed)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action to play (always one that ``action_mask`` marks)."""

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """A distribution over actions; deterministic agents put all mass on ``act``."""
        p = np.zeros(len(action_mask), dtype=np.float64)
        p[self.act(observation, action_mask)] = 1.0
        return p

    def view(self, observation: np.ndarray | dict) -> View:
        return read_observation(observation, self.rules)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seat={self.seat})"


@cache
def obs_size(rules: RuleSet) -> int:
    """The length of an observation vector under ``rules``."""
    return ObsLayout(rules).size


def check_input(agent: Agent, observation: Any, action_mask: Any) -> np.ndarray:
    """``action_mask`` as an array, after checking both lengths against the agent's rules.

    Raises:
        ValueError: no mask, or a length that does not fit (both lengths named).
    """
    if action_mask is None:
        raise ValueError("act() needs the action mask (act(observation, action_mask))")
    mask = action_mask if isinstance(action_mask, np.ndarray) else np.asarray(action_mask)
    n, size = agent.sizes
    rules = agent.rules
    if mask.shape != (n,):
        raise ValueError(
            f"action mask of shape {mask.shape} does not fit {rules.name!r} with "
            f"{rules.num_players} players: {n} actions expected"
        )
    shape = observation.shape if isinstance(observation, np.ndarray) else np.shape(observation)
    if shape != (size,):
        raise ValueError(
            f"observation of shape {shape} does not fit {rules.name!r} with "
            f"{rules.num_players} players: {size} values expected"
        )
    return mask


def checked_act(act: Callable) -> Callable:
    """``act`` wrapped so that its input fits the rules (:func:`check_input`) and the move
    it returns is one the mask marks."""
    if getattr(act, "checked", False):
        return act

    @functools.wraps(act)
    def checked(self: Agent, observation: Any, action_mask: Any = None) -> int:
        if isinstance(observation, dict):
            observation, action_mask = observation["observation"], observation["action_mask"]
        mask = check_input(self, observation, action_mask)
        a = act(self, observation, action_mask)
        if not 0 <= a < len(mask) or not mask[a]:
            raise ValueError(
                f"{type(self).__name__} chose action {a}, which the mask does not mark legal"
            )
        return a

    checked.checked = True
    return checked


def int_option(name: str, value: Any, least: int = 0) -> int:
    """An agent's whole-number option of at least ``least``, else a ValueError naming it."""
    try:
        n = int(value)
        ok = not isinstance(value, bool) and n == float(value) and n >= least
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed (allowed: an integer >= {least})")
    return n


def float_option(name: str, value: Any) -> float:
    """An agent's finite number option, else a ValueError naming it."""
    try:
        x = float(value)
        ok = not isinstance(value, bool) and math.isfinite(x)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed (allowed: a finite number)")
    return x


class LogitsAgent(Agent):
    """An agent that plays from a policy network's logits (:meth:`logits`, read from its
    model file ``path``): the most probable legal move, or with ``deterministic`` False a
    sample of the policy over the legal moves."""

    path: Any = None
    #: what a model spec looks like, for the error when none is given
    model_hint: str = "<path>.npz"

    def __init__(self, rules: RuleSet, seat: int = 0, model: Any = "", deterministic: bool = True):
        super().__init__(rules, seat)
        self.deterministic = check_flag("deterministic", deterministic)
        if not model:
            raise ValueError(f"{self.name} needs a model file ({self.name}:{self.model_hint})")

    @abstractmethod
    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The policy's logits over every action (before the mask)."""

    def legal_logits(self, observation: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``logits(observation)[legal]``; a network may compute only those."""
        return self.logits(observation)[legal]

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, action_mask = split_obs(observation, action_mask)
        legal = legal_moves(action_mask)
        if not len(legal):
            raise ValueError("act() called with an empty action mask (this seat is not to act)")
        z = self.legal_logits(observation, legal)
        if not np.all(np.isfinite(z)):
            raise ValueError(f"{self.path}: the policy's outputs are not finite (NaN or inf)")
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        return int(self.rng.choices(list(legal), weights=list(p / p.sum()))[0])


def check_flag(name: str, value: Any) -> bool:
    """An agent's on/off option: True/False (or 1/0), else a ValueError naming the allowed."""
    if isinstance(value, (bool, np.bool_)) or value in (0, 1):
        return bool(value)
    raise ValueError(f"{name}={value!r} is not allowed (allowed: true, false)")


def split_obs(observation: Any, action_mask: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Accept ``act(obs_dict)`` as well as ``act(vector, mask)``."""
    if isinstance(observation, dict):
        return observation["observation"], observation["action_mask"]
    return observation, action_mask


# ------------------------------------------------------------------ the view
# one decoder of observations, in rummy_env.observation (read); agents use it under this name
read_observation = read


# ------------------------------------------------------------------ moves
# move kinds (a MoveTable entry is (kind, card, extra))
DRAW_STOCK, DRAW_DISCARD, MELD, LAYOFF, SWAP, DISCARD, KNOCK, PASS, END_ROUND, OTHER = range(10)
DECLARE, DROP = 10, 11  # Indian rummy
BUY = 12  # contract rummy
PLAY_TILE, COMMIT = 13, 14  # Rummikub


class MoveTable:
    """Action id -> ``(kind, card, extra)``, decoded once per rule set.

    ``card`` is the face the move is about (discarded, laid off, swapped in,
    -1 for none); ``extra`` is the depth of a ``DrawDiscard``, the meld slot of a
    lay-off or swap, and for a ``Meld`` the tuple of faces it represents
    (runs: the natural card of every position; sets: naturals then jokers).
    """

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.codec = ActionCodec(rules)
        self.num_actions = self.codec.num_actions
        self._cache: dict[int, tuple[int, int, Any]] = {}

    @staticmethod
    @cache
    def of(rules: RuleSet) -> MoveTable:
        return MoveTable(rules)

    def __getitem__(self, a: int) -> tuple[int, int, Any]:
        e = self._cache.get(a)
        if e is None:
            e = self._cache[a] = self._decode(int(a))
        return e

    def move(self, a: int):
        return self.codec.decode(int(a))

    def _decode(self, a: int) -> tuple[int, int, Any]:
        m = self.codec.decode(a)
        if isinstance(m, DrawStock):
            return (DRAW_STOCK, -1, None)
        if isinstance(m, DrawDiscard):
            return (DRAW_DISCARD, -1, m.depth)
        if isinstance(m, Meld):
            return (MELD, -1, tuple(parse_card(c) for c in m.cards))
        if isinstance(m, LayOff):
            return (LAYOFF, parse_card(m.card), m.meld)
        if isinstance(m, SwapJoker):
            return (SWAP, parse_card(m.card), m.meld)
        if isinstance(m, Discard):
            return (DISCARD, parse_card(m.card), None)
        if isinstance(m, Knock):
            return (KNOCK, -1 if m.card is None else parse_card(m.card), None)
        if isinstance(m, Pass):
            return (PASS, -1, None)
        if isinstance(m, EndRound):
            return (END_ROUND, -1, None)
        if isinstance(m, Declare):
            return (DECLARE, parse_card(m.card), None)
        if isinstance(m, Drop):
            return (DROP, -1, None)
        if isinstance(m, Buy):
            return (BUY, -1, None)
        if isinstance(m, PlayTile):
            return (PLAY_TILE, parse_card(m.tile), None)
        if isinstance(m, Commit):
            return (COMMIT, -1, None)
        return (OTHER, -1, None)


def best_to_part_with(
    hand: list[int], key: Callable[[int], Any], keep: int = -1
) -> tuple[Any, int]:
    """``(key, face)`` of the card of ``hand`` (not ``keep``) with the least ``key(face)``,
    each key computed while ``hand`` lacks one copy of that face (the hand is restored)."""
    best = None
    for f, c in enumerate(hand):
        if not c or f == keep:
            continue
        hand[f] -= 1
        k = key(f)
        hand[f] += 1
        if best is None or k < best[0]:
            best = (k, f)
    return best


def move_cards(entry: tuple[int, int, Any], hand: list[int]) -> list[int]:
    """Faces that leave ``hand`` when the move of ``entry`` is played.

    A meld uses naturals from hand first and wild cards where the hand lacks
    the natural (the engine's canonical filling, README "Moves")."""
    kind, card, extra = entry
    if kind == MELD:
        out = []
        for f in extra:
            out.append(f if f != JOKER and hand[f] else JOKER)
        return out
    if kind in (LAYOFF, DISCARD, DECLARE) or (kind == KNOCK and card >= 0):
        return [card]
    if kind == SWAP:
        return [card]  # the joker comes back
    return []


# ------------------------------------------------------------------ card helpers
def table_fits(view: View, rules: RuleSet) -> dict[int, int]:
    """Natural faces that can be laid off on the table now: face -> meld index."""
    fits: dict[int, int] = {}
    max_pos = ACE_HIGH_POS if rules.ace_high else NUM_RANKS - 1
    for i, m in enumerate(view.table):
        if m.is_run:
            if m.hi - m.lo >= 12:
                continue
            if m.lo > 0:
                fits.setdefault(run_face(m.key, m.lo - 1), i)
            if m.hi < max_pos:
                fits.setdefault(run_face(m.key, m.hi + 1), i)
        elif len(m.cards) < (rules.max_set or len(m.cards) + 1):
            for s in range(4):
                if not rules.set_suits_distinct or not m.suits >> (SUIT_SHIFT * s) & 15:
                    fits.setdefault(m.key + s * NUM_RANKS, i)
    return fits


@cache
def _pack_counts(decks: int, jokers: int) -> tuple[int, ...]:
    return tuple(face_counts(deck_faces(decks, jokers)))


def unseen_counts(view: View, rules: RuleSet) -> list[int]:
    """Per face, copies the observer has not seen (in the stock or hidden in
    opponents' hands): the pack minus own hand, discard pile, table and the
    opponents' known cards."""
    u = list(_pack_counts(rules.decks, rules.jokers))
    for f, c in enumerate(view.hand):
        u[f] -= c
    for k in view.known:
        for f, c in enumerate(k):
            u[f] -= c
    for f in view.discard:
        u[f] -= 1
    for m in view.table:
        for f in m.cards:
            u[f] -= 1
    return u


def legal_ids(action_mask: np.ndarray) -> list[int]:
    return [int(a) for a in legal_moves(action_mask)]


def legal_to_act(action_mask: np.ndarray) -> list[int]:
    """The legal ids of a seat asked to act (a ValueError for an empty mask)."""
    legal = legal_ids(action_mask)
    if not legal:
        raise ValueError("act() called with an empty action mask (this seat is not to act)")
    return legal


def by_kind(moves: MoveTable, legal: list[int]) -> dict[int, list[int]]:
    """The legal ids grouped by move kind (``DISCARD``, ``MELD``, ...), ascending."""
    out: dict[int, list[int]] = defaultdict(list)
    for a in legal:
        out[moves[a][0]].append(a)
    return out
