"""`search`: determinized Monte Carlo search (information-set Monte Carlo).

At each decision that matters the agent

1. lists a few **candidate** actions, from a guide: the preset's rule-based
   agent (``agents.VARIANT_AGENTS``) or ``greedy`` where there is none:
   every legal draw (stock, discard, pass); in the play phase the guide's own
   choice plus the guide's best ``candidates - 1`` discards (and knocks).
   Melds, lay-offs and joker swaps follow the guide without search;
2. samples **determinizations**: full game states consistent with its
   observation (:mod:`rummy_env.determinize`: the hidden cards are dealt at
   random to the opponents, on top of the cards they are known to hold, and to
   the stock);
3. plays every candidate in every determinization and **rolls out** the rest
   of the round with a fast engine-level policy for all players (below), with
   the same random stream for every candidate of a determinization (common
   random numbers, so differences between candidates are not noise from the
   deal);
4. plays the candidate with the best mean **return** for its seat: the round's
   reward minus the mean reward of the other players (``objective="relative"``,
   what a head-to-head comparison measures) or its own reward (``"own"``).
   Round scores are noisy, so the guide's choice is kept unless the best
   candidate's gain over it, paired by determinization, exceeds
   ``confidence`` standard errors (default 2). The rollout policy is weaker
   than the guide, so small gains it finds are often its own bias: on basic
   with 2 players, 2,000 duplicate deals, search beat `basic-expert` by
   +0.54 [0.32, 0.76] points a round at ``confidence=2`` and was level,
   -0.13 [-0.49, 0.22], at 0.5.

Budget per decision: ``simulations`` determinizations, each played out once
per candidate, or as many as fit in ``time_budget`` seconds when that is set
(at least 2). A fixed ``simulations`` budget makes the agent deterministic for
a given ``reset(seed)``, so tournaments replay exactly.

Rollout policy (engine level, on the sampled state, a few microseconds a move):
take the top discard when it pairs with a card of its rank, sits next to or
one gap from two cards of its suit, or fits a table meld (gin: the same test
decides the up-card); lay every legal meld and lay-off at once; knock at once;
discard the card with the highest value less a bonus for each card of its rank
and near neighbour of its suit in hand, with a little random noise.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict

import numpy as np

from agents.base import (
    DISCARD,
    KNOCK,
    LAYOFF,
    MELD,
    SWAP,
    Agent,
    float_option,
    int_option,
    legal_ids,
    split_obs,
)
from agents.rummikub import greedy_move
from rummy_env import engine
from rummy_env.cards import JOKER, NUM_RANKS
from rummy_env.determinize import Determinizer
from rummy_env.engine import Phase
from rummy_env.engine.game import game_of
from rummy_env.moves import Layout
from rummy_env.rules import RuleSet

_PLAY = Phase.PLAY  # a global: reading Phase.X is slow in the rollout loop
_RANK = [f % NUM_RANKS for f in range(JOKER)]
_SUIT = [f // NUM_RANKS for f in range(JOKER)]
# the pairs of suit neighbours that make a run with rank r (bit 13: the ace played high)
_PAIRS = [
    tuple(1 << r + a | 1 << r + b for a, b in ((-1, 1), (-2, -1), (1, 2)) if r + a >= 0)
    for r in range(NUM_RANKS)
]


def _near_bonus(r: int, m: int) -> int:
    """Keep bonus of a card of rank ``r`` for its suit neighbours in the suit mask ``m``:
    4 per card one rank away, 2 per card two ranks away."""
    return 4 * ((m >> (r + 1) & 1) + (r > 0 and m >> (r - 1) & 1)) + 2 * (
        (m >> (r + 2) & 1) + (r > 1 and m >> (r - 2) & 1)
    )


_SAME_RANK = [
    6 * (m.bit_count() - 1) for m in range(16)
]  # keep bonus for the suit mask m of the rank
_NEAR = [
    bytes(_near_bonus(r, m) for m in range(1 << NUM_RANKS)) for r in range(NUM_RANKS)
]  # [rank][suit mask]


class FastPolicy:
    """The rollout policy: cheap heuristics on an engine state (see the module docstring)."""

    def __init__(self, rules: RuleSet):
        L = Layout(rules)
        self.L = L
        self.rules = rules
        self.meld_lo, self.meld_hi = L.MELD, L.LAYOFF
        self.layoff_hi = L.SWAP
        self.swap_hi = L.DISCARD
        self.discard_hi = getattr(L, "KNOCK", L.size)
        self.knock_hi = getattr(L, "PASS", self.discard_hi)
        self.values = engine.card_values(rules)
        self.meld_during_play = rules.meld_during_play
        self.ace_high = rules.ace_high

    def useful(self, s: engine.GameState, p: int, t: int) -> bool:
        """Whether card ``t`` would pair, connect or lay off for player ``p``."""
        if t == JOKER:
            return True
        r = _RANK[t]
        if s.rmask[p][r].bit_count() >= 2:
            return True
        m = s.smask[p][_SUIT[t]]
        if self.ace_high and m & 1:
            m |= 1 << NUM_RANKS
            if r == 0 and (m >> 11 & 3) == 3:
                return True
        for pair in _PAIRS[r]:  # both neighbours, or two ranks below, or two above
            if m & pair == pair:
                return True
        bit = 1 << t  # the card's bit in TableMeld.lay_bits
        for tm in s.table:
            if tm.lay_bits & bit:
                return True
        return False

    def __call__(self, s: engine.GameState, rng: random.Random) -> int:
        L = self.L
        if L.COMMIT > L.PLAY_TILE:  # Rummikub: as greedy, the highest playable tile
            return greedy_move(s, L)
        if s.phase != _PLAY:  # draw, or the gin up-card offer
            legal = engine.legal_actions(s)
            if len(legal) == 1:
                return legal[0]
            L = self.L
            if L.DRAW_DISCARD in legal and self.useful(s, s.current, s.discard[-1]):
                return L.DRAW_DISCARD
            return legal[0] if legal[0] != L.DRAW_DISCARD else legal[-1]
        swap_hi = self.swap_hi  # the first discard id
        faces = engine.discard_only(s) if self.meld_during_play else None
        if faces and len(faces) == 1:  # the only legal action
            return swap_hi + faces[0]
        if not faces:  # from the legal actions (with melding, the list is cut after its first meld)
            legal = (
                engine.legal_play_to_first_meld(s)
                if self.meld_during_play
                else engine.legal_actions(s)
            )
            if len(legal) == 1:
                return legal[0]
            # melds and lay-offs first (ids ascend by block), then knock, then discard
            if legal[0] < self.layoff_hi:
                return legal[0]
            discard_hi = self.discard_hi
            if discard_hi <= legal[-1] < self.knock_hi:  # a knock is legal: take the first
                for a in legal:
                    if a >= discard_hi:
                        return a
            faces = [a - swap_hi for a in legal if swap_hi <= a < discard_hi]
            if not faces:
                return legal[-1]
        # discard the face with the highest score (one random draw per natural card, in order)
        p = s.current
        hand = s.hands[p]
        rm, sm = s.rmask[p], s.smask[p]
        vals, near, same_rank, rank, suit = self.values, _NEAR, _SAME_RANK, _RANK, _SUIT
        random_ = rng.random
        best, best_score = faces[0], -math.inf
        for f in faces:
            if f == JOKER:
                score = -100.0
            else:
                r = rank[f]
                score = vals[f] - (same_rank[rm[r]] + near[r][sm[suit[f]]]) + 3.0 * random_()
                if hand[f] > 1:
                    score -= 2.0
            if score > best_score:
                best, best_score = f, score
        return swap_hi + best


class SearchAgent(Agent):
    """Determinized Monte Carlo search (see the module docstring).

    Args:
        rules: the rule set.
        seat: the seat it plays.
        simulations: determinizations per decision (each rolled out once per candidate).
        time_budget: seconds per decision instead of a fixed ``simulations`` (None: off).
        candidates: most discards considered per decision.
        objective: ``"relative"`` (own reward minus the others' mean) or ``"own"``.
        guide: registry name of the agent proposing candidates (default: the
            preset's variant agent, else ``greedy``).
        max_rollout_steps: a rollout longer than this is scored by hand values.
        confidence: another candidate replaces the guide's choice only when its
            mean gain over it (paired by determinization) exceeds this many
            standard errors (0: plain best mean).
    """

    name = "search"
    version = 2  # 2: confidence 2 (was 0.5)

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        simulations: int = 48,
        time_budget: float | None = None,
        candidates: int = 4,
        objective: str = "relative",
        guide: str | None = None,
        max_rollout_steps: int = 600,
        confidence: float = 2.0,
    ):
        super().__init__(rules, seat)
        import agents  # the registry imports this module lazily

        if game_of(rules).codec is not None:
            raise ValueError(
                f"search does not play {rules.name!r}: its rollouts and determinization cover "
                "the games of the common meld catalogue (allowed: every other preset)"
            )

        if objective not in ("relative", "own"):
            raise ValueError(f"objective={objective!r} is not allowed (allowed: 'relative', 'own')")
        self.simulations = int_option("simulations", simulations, 1)
        self.time_budget = (
            None if time_budget in (None, 0, "none") else float_option("time_budget", time_budget)
        )
        if self.time_budget is not None and self.time_budget < 0:
            raise ValueError(
                f"time_budget={time_budget!r} is not allowed (allowed: seconds >= 0, or none)"
            )
        self.n_candidates = int_option("candidates", candidates, 1)
        self.objective = objective
        self.max_rollout_steps = int_option("max_rollout_steps", max_rollout_steps, 1)
        self.confidence = float_option("confidence", confidence)
        if guide is None:
            guide = agents.VARIANT_AGENTS.get(rules.name, "greedy")
        self.guide = agents.make(guide, rules, seat)
        self.policy = FastPolicy(rules)
        self._played_this_turn = False
        self.searched = 0  # decisions that were searched (for reports)
        self.last_search: tuple[list[int], list[float]] | None = None

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return (
            "simulations",
            "time_budget",
            "candidates",
            "objective",
            "guide",
            "max_rollout_steps",
            "confidence",
        )

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.guide.reset(seed)
        self._played_this_turn = False

    # ------------------------------------------------------------------- act
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, action_mask = split_obs(observation, action_mask)
        legal = legal_ids(action_mask)
        if not legal:
            raise ValueError("act() called with an empty action mask (this seat is not to act)")
        v = self.view(observation)
        if v.phase != Phase.PLAY:
            self._played_this_turn = False
        if len(legal) == 1:
            a = legal[0]
            self.guide.act(observation, action_mask)  # keeps the guide's own turn memory in step
        else:
            cands = self.candidates(v, legal, observation, action_mask)
            a = cands[0] if len(cands) == 1 else self.search(observation, action_mask, cands)
        if self.moves[a][0] in (MELD, LAYOFF, SWAP):
            self._played_this_turn = True
        return a

    def candidates(
        self, v, legal: list[int], observation: np.ndarray, action_mask: np.ndarray
    ) -> list[int]:
        g = self.guide.act(observation, action_mask)
        kind = self.moves[g][0]
        if v.phase != Phase.PLAY:
            others = [a for a in legal if a != g]
            return [g] + others[:7]
        if kind in (MELD, LAYOFF, SWAP):
            return [g]
        by_kind: dict[int, list[int]] = defaultdict(list)
        for a in legal:
            by_kind[self.moves[a][0]].append(a)
        out = [g]
        discards = by_kind.get(DISCARD, [])
        rank = getattr(self.guide, "rank_discards", None)
        ranked = rank(v, discards) if rank is not None else discards
        knocks = by_kind.get(KNOCK, [])
        if knocks and kind != KNOCK:
            out.append(knocks[0])
        for a in ranked:
            if len(out) >= self.n_candidates + (1 if knocks else 0):
                break
            if a not in out:
                out.append(a)
        return out

    def search(self, observation: np.ndarray, action_mask: np.ndarray, cands: list[int]) -> int:
        self.searched += 1
        det = Determinizer(
            observation,
            self.rules,
            self.seat,
            action_mask=action_mask,
            turn_played=self._played_this_turn,
        )
        values: list[list[float]] = [[] for _ in cands]
        rng = self.rng
        t0 = time.perf_counter()
        n = 0
        rollout_rng = random.Random()
        while True:
            if self.time_budget is None:
                if n >= self.simulations:
                    break
            elif n >= 2 and time.perf_counter() - t0 >= self.time_budget:
                break
            d = det.sample(rng)
            seed = rng.randrange(1 << 30)
            for j, a in enumerate(cands):
                rollout_rng.seed(seed)  # the same stream as random.Random(seed)
                values[j].append(
                    self.rollout(d.copy() if j < len(cands) - 1 else d, a, rollout_rng)
                )
            n += 1
        # the search's estimates, for callers that learn from them (experiments/distill.py):
        # the candidates and each one's mean return over the determinizations
        self.last_search = (list(cands), [sum(v) / len(v) for v in values])
        return cands[self.pick(values)]

    def pick(self, values: list[list[float]]) -> int:
        """Index of the candidate to play: the best mean, but a candidate replaces
        the guide's choice (index 0) only when its paired mean gain over it
        exceeds ``confidence`` standard errors."""
        n = len(values[0])
        means = [sum(v) / n for v in values]
        best = max(range(len(values)), key=lambda j: (means[j], -j))
        if best == 0 or n < 2 or self.confidence <= 0:
            return best
        diffs = [a - b for a, b in zip(values[best], values[0])]
        md = sum(diffs) / n
        sd = (sum((x - md) ** 2 for x in diffs) / (n - 1)) ** 0.5
        return best if md > self.confidence * sd / n**0.5 else 0

    def rollout(self, s: engine.GameState, a: int, rng: random.Random) -> float:
        """Play ``a`` then the fast policy to the end of the round; the return for this seat."""
        ended = engine.apply_action(s, a)
        steps = 0
        policy = self.policy
        apply = engine.apply_legal_action  # the policy only plays legal actions
        max_steps = self.max_rollout_steps
        while not ended and steps < max_steps:
            ended = apply(s, policy(s, rng))
            steps += 1
        me = self.seat
        n = self.rules.num_players
        if ended:
            r = s.last_result["rewards"]
        else:  # cut off: minus hand values as a stand-in
            r = [-s.hand_value(p) for p in range(n)]
        if self.objective == "own":
            return float(r[me])
        others = [r[p] for p in range(n) if p != me and s.active[p]]
        return float(r[me]) - (sum(others) / len(others) if others else 0.0)
