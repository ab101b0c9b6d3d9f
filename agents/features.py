"""Hand-evaluation features for learning agents (``features="hand"``).

A plain MLP on the observation's card one-hots has to rediscover meld search
(which cards are deadwood, what a discard leaves) from scratch. These features
hand it that evaluation; they are computed from the observation alone (so
they leak nothing the observation does not show) with the same meld search
and estimates the rule-based agents use (:mod:`rummy_env.melds`,
:class:`agents.basic_rummy.BasicExpertAgent`).

:class:`HandFeatures` maps an observation to ``SIZE`` floats, appended to the
observation by :class:`rummy_env.wrappers.RummySingleAgentEnv` (``features=
"hand"``) and by :class:`agents.ppo_agent.PPOAgent` for a model trained so.
Per face ``f`` (53 slots each, 0 when ``f`` is not in hand unless noted):

=============  ==================================================================
slice          value
=============  ==================================================================
``dw_after``   deadwood of the hand without one ``f`` / 50
``eval_after`` that deadwood minus the near-meld potential (basic-expert's hand
               score: pairs and connectors weighted by their live outs) / 50
``danger``     risk of feeding the next player ``f`` (fits a table meld, or near
               a card he picked up) / 10
``in_meld``    copies of ``f`` in the hand's best arrangement
``fits``       ``f`` can be laid off on the table now (any face)
``unseen``     copies of ``f`` not seen by the player (stock or hidden) / 2
=============  ==================================================================

Then 5 scalars: deadwood of the hand / 50, its score / 50, the gain in score
from taking the top discard (and discarding the best other card) / 50 in the
draw phase (else 0), the expected number of own draws left / 6, and whether
the top discard fits the table.
"""

from __future__ import annotations

import numpy as np

from agents.base import read_observation, table_fits, unseen_counts
from agents.basic_rummy import BasicExpertAgent
from rummy_env.cards import NUM_FACES
from rummy_env.engine import Phase
from rummy_env.rules import RuleSet

F = NUM_FACES
PER_FACE = ("dw_after", "eval_after", "danger", "in_meld", "fits", "unseen")
SCALARS = ("deadwood", "eval", "take_gain", "horizon", "top_fits")
SIZE = len(PER_FACE) * F + len(SCALARS)
#: the names a model records (``features`` in its metadata) and the wrapper accepts
KINDS = ("hand", "variant", "hand+variant")


class HandFeatures:
    """``obs -> float32[SIZE]`` (module docs). Picklable; one per rule set."""

    size = SIZE

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self._eval = BasicExpertAgent(rules, 0)
        self._cache: dict[bytes, np.ndarray] = {}

    def __getstate__(self) -> dict:
        return {"rules": self.rules}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["rules"])

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation, dtype=np.float32)
        key = obs.tobytes()
        out = self._cache.get(key)
        if out is None:
            if len(self._cache) > 20_000:
                self._cache.clear()
            out = self._cache[key] = self._compute(obs)
        return out

    def augment(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """The observation with the features appended (what the model reads; the mask is not used)."""
        obs = np.asarray(observation, dtype=np.float32)
        return np.concatenate([obs, self(obs)])

    def _compute(self, obs: np.ndarray) -> np.ndarray:
        ev = self._eval
        v = read_observation(obs, self.rules)
        out = np.zeros(SIZE, dtype=np.float32)
        per = out[: len(PER_FACE) * F].reshape(len(PER_FACE), F)
        hand = list(v.hand)
        fits = table_fits(v, self.rules) if v.table else {}
        unseen = unseen_counts(v, self.rules)
        hz = ev.horizon(v)
        for f in fits:
            per[4, f] = 1.0
        per[5] = np.asarray(unseen, dtype=np.float32) / 2.0
        for m in ev.arrangement(hand)[1]:
            for f in m:
                per[3, f] += 1.0
        for f, c in enumerate(hand):
            if not c:
                continue
            hand[f] -= 1
            per[0, f] = ev.deadwood(hand) / 50.0
            per[1, f] = ev.score_hand(hand, unseen, hz) / 50.0
            hand[f] += 1
            per[2, f] = ev.danger(v, f, fits) / 10.0
        base = ev.score_hand(hand, unseen, hz)
        s = len(PER_FACE) * F
        out[s] = ev.deadwood(hand) / 50.0
        out[s + 1] = base / 50.0
        if v.phase == Phase.DRAW and v.discard:
            t = v.discard[-1]
            best = ev.score_taking(hand, t, unseen, hz)
            if best is not None:
                out[s + 2] = (base - best) / 50.0
            out[s + 4] = float(t in fits)
        out[s + 3] = hz / 6.0
        return out


class VariantFeatures:
    """The move the preset's rule-based agent (``variant``) would play, one-hot over the
    action space, after the hand features when ``hand`` is set (kinds ``"variant"`` and
    ``"hand+variant"``).

    A policy that reads it starts, after a short imitation, exactly at the expert's play, and
    reinforcement learning then learns where to deviate from it (residual policy learning on
    top of a heuristic). The expert sees the observation and the mask only, like any agent, so
    nothing hidden enters. It keeps its small per-turn state (what it played this turn), so
    calls must follow the game's decisions in order: the wrapper and ``PPOAgent`` do.
    """

    def __init__(self, rules: RuleSet, hand: bool):
        from agents import make
        from rummy_env.moves import Layout

        self.rules = rules
        self.hand = HandFeatures(rules) if hand else None
        self.expert = make("variant", rules, 0)
        if (
            self.hand is not None
        ):  # one memo of hand deadwood and arrangements for both (pure functions)
            for name in ("_dw_cache", "_arr_cache", "_score_cache"):
                self.hand._eval.__dict__[name] = self.expert.__dict__.setdefault(name, {})
        self.n_actions = Layout(rules).size
        self.size = self.n_actions + (SIZE if hand else 0)

    def __getstate__(self) -> dict:
        return {"rules": self.rules, "hand": self.hand is not None}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["rules"], state["hand"])

    def augment(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """The observation, the hand features (``hand+variant``) and the expert's move one-hot
        (all zeros when nothing is legal: the episode's last observation)."""
        obs = np.asarray(observation, dtype=np.float32)
        onehot = np.zeros(self.n_actions, dtype=np.float32)
        if action_mask is not None and np.any(action_mask):
            onehot[self.expert.act(obs, action_mask)] = 1.0
        parts = [obs] if self.hand is None else [obs, self.hand(obs)]
        return np.concatenate([*parts, onehot])


def make_features(kind: str | None, rules: RuleSet) -> HandFeatures | VariantFeatures | None:
    """The feature map named ``kind`` (``None``: no features)."""
    if kind is None:
        return None
    if kind not in KINDS:
        raise ValueError(
            f"features={kind!r} is not allowed (allowed: None, {', '.join(map(repr, KINDS))})"
        )
    if kind == "hand":
        return HandFeatures(rules)
    return VariantFeatures(rules, hand=kind.startswith("hand+"))
