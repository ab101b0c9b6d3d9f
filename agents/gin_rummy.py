"""Gin rummy agents: `gin-simple` (OpenSpiel's simple bot) and `gin-expert`.

Both read only their observation: own hand, the discard pile, the cards the
opponent is known to hold (taken from the pile), the stock size and the knock
limit of the round. Deadwood is the value left over by the best arrangement of
the hand into sets and runs (:func:`rummy_env.melds.best_arrangement`).

`gin-simple` re-implements the policy of OpenSpiel's
``open_spiel/bots/gin_rummy/simple_gin_rummy_bot.cc`` (``SimpleGinRummyBot::Step``):

* **Draw** (the first up-card offer and every later draw). Take the top
  discard if the hand with it has ``MinDeadwood <= knock limit`` (OpenSpiel's
  11-card ``MinDeadwood``: the deadwood of the best meld group less the
  highest-ranked deadwood card), or if the card is *not* in the "best
  deadwood" of the 11 cards (the cards outside one best meld group), i.e. it
  lands in a best meld. Otherwise draw from the stock (pass the up-card).
* **Discard / knock.** With 11 cards: if ``MinDeadwood <= knock limit``, knock
  at once, discarding the highest-ranked card of the best deadwood (11-card
  gin: a card whose removal keeps deadwood 0). Otherwise discard the
  highest-ranked card of the best deadwood ("highest deadwood card"; ranks K >
  Q > J > T ... > A, ties by suit).
* **Lay-offs** after a knock: the engine arranges both hands optimally (D-11),
  so OpenSpiel's "never lay off" has no counterpart here; the bot's own melds
  are the engine's best arrangement, as in OpenSpiel (``BestMeldGroup``).
* Differences forced by our rules: at the wall OpenSpiel asks "knock or pass";
  here the hand is void as soon as a plain discard leaves 2 cards in the
  stock, so that case never reaches a draw. When the highest deadwood card is
  the up-card just taken (not discardable this turn), the next-highest
  deadwood card goes (OpenSpiel would fail there); when no deadwood card is
  discardable, the lowest legal action, as OpenSpiel's ``legal_actions[0]``.
  Ties between equally good meld groups may be broken differently.

`gin-expert` knows gin's scoring (knock: the deadwood difference; gin: 25 +
the opponent's deadwood; undercut: 25 + the difference to the defender):

* **Draw.** Take the top discard when it lets the agent knock this turn, or
  when the hand with it (discarding the best other card) scores clearly
  better (by ``take_margin``) than the hand now, with the hand score of
  `basic-expert`: deadwood minus the expected value of near-melds (pairs and
  connectors with live outs among the unseen cards). So the up-card is taken
  when it joins a meld or makes a strong draw, not for a one-point change.
  Taking a card shows it to the opponent, which the margin also pays for.
* **Knock timing.** The best knock is the legal one leaving the least
  deadwood (ties: discard the higher card, then the safer one). Gin is always
  taken. Otherwise the agent knocks when its deadwood is at most a threshold
  that falls as the hand goes on, since the opponent's deadwood shrinks and
  an undercut costs 25 + the difference: the knock limit while the stock
  holds 20+ cards, then 7, then 4 below 10 cards. Each card the opponent
  took from the pile (he is building melds) lowers the threshold by 1 (at
  least 1). It holds a 1-3 point knock to go for gin early in the hand (stock
  20+) when 4 or more unseen cards would complete gin.
* **Discard.** `basic-expert`'s discard score: deadwood after the discard,
  minus half the near-meld potential (``potential_weight=0.5``), plus the
  danger of feeding the opponent (a card of the same rank as, or a suit
  neighbour of, a card he took from the pile). Ties to the higher card.
  Hands in gin are short and an opponent who knocks early catches every
  point of deadwood, so potential counts for less than in basic rummy.
  Margin per hand against `gin-simple`, 2,000 duplicate deals (4,000 hands),
  95% CI: weight 1 -1.1 [-2.4, 0.1], 0.5 +2.3 [1.3, 3.4] (4,000 deals:
  +2.2 [1.5, 3.0]); with ``gin_hold=0``, 0.25 +1.9 and 0.75 +1.3.
"""

from __future__ import annotations

import numpy as np

from agents.base import (
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    Agent,
    View,
    float_option,
    unseen_counts,
)
from agents.basic_rummy import BasicExpertAgent
from agents.greedy import DeadwoodMixin
from rummy_env.cards import NUM_NATURAL, NUM_RANKS
from rummy_env.engine import Phase
from rummy_env.melds import best_arrangement
from rummy_env.rules import RuleSet


def _rank_key(f: int) -> tuple[int, int]:
    """OpenSpiel's ``RankComparator``: by rank (A low .. K high), then suit."""
    return (f % NUM_RANKS, f // NUM_RANKS)


class GinSimpleAgent(DeadwoodMixin, Agent):
    """OpenSpiel's simple gin rummy bot policy (see the module docstring)."""

    name = "gin-simple"

    # ----------------------------------------------------- OpenSpiel helpers
    def best_deadwood(self, hand: list[int]) -> list[int]:
        """Cards outside one best meld group (``GetBestDeadwood``), copies repeated."""
        h = list(hand)
        for m in best_arrangement(hand, self.values, self.rules.ace_high)[1]:
            for f in m:
                h[f] -= 1
        return [f for f, c in enumerate(h) if c for _ in range(c)]

    def min_deadwood(self, hand: list[int]) -> int:
        """OpenSpiel's ``MinDeadwood``: with 11 cards, less the highest-ranked deadwood card."""
        dead = self.best_deadwood(hand)
        if sum(hand) == self.rules.hand_size + 1 and dead:
            dead.remove(max(dead, key=_rank_key))
        return sum(self.values[f] for f in dead)

    def get_discard(self, hand: list[int], forbidden: int = -1) -> int:
        """``GetDiscard``: the highest-ranked best-deadwood card (11-card gin: one keeping gin)."""
        dead = [f for f in self.best_deadwood(hand) if f != forbidden]
        if dead:
            return max(dead, key=_rank_key)
        for f in sorted((f for f, c in enumerate(hand) if c and f != forbidden), key=_rank_key):
            if self.deadwood_without(hand, [f]) == 0:
                return f
        return -1

    # ------------------------------------------------------------------ act
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, legal, kinds = self.choices(observation, action_mask)
        if len(legal) == 1:
            return legal[0]
        v = self.view(observation)
        if v.phase in (Phase.DRAW, Phase.UPCARD):
            return self.simple_draw(v, kinds, legal)
        return self.simple_play(v, kinds, legal)

    def simple_draw(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        takes = by_kind.get(DRAW_DISCARD)
        if takes and v.discard:
            up = v.discard[-1]
            h = list(v.hand)
            h[up] += 1
            if self.min_deadwood(h) <= v.knock_limit or up not in self.best_deadwood(h):
                return takes[0]
        for kind in (DRAW_STOCK, PASS):
            if by_kind.get(kind):
                return by_kind[kind][0]
        return legal[-1]

    def simple_play(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        hand = v.hand
        knock_by_card = {self.moves[a][1]: a for a in by_kind.get(KNOCK, ())}
        discard_by_card = {self.moves[a][1]: a for a in by_kind.get(DISCARD, ())}
        if knock_by_card and self.min_deadwood(hand) <= v.knock_limit:
            f = self.get_discard(hand, v.forbidden)
            if f in knock_by_card:
                return knock_by_card[f]
            # the shortcut's card is not a legal knock discard: the knock leaving least deadwood
            return min(
                knock_by_card.values(),
                key=lambda a: (self.deadwood_without(hand, [self.moves[a][1]]), a),
            )
        f = self.get_discard(hand, v.forbidden)
        if f in discard_by_card:
            return discard_by_card[f]
        return legal[0]


class GinExpertAgent(BasicExpertAgent):
    """Rule-based gin rummy that knows its scoring (see the module docstring).

    Args:
        rules: a gin rule set.
        seat: the seat it plays.
        potential_weight, danger_weight: as in `basic-expert`'s discard score.
        take_margin: how much better (hand score) the up-card must make the hand.
        gin_hold: the most deadwood at which it holds a knock to go for gin (0: never).
    """

    name = "gin-expert"
    version = 2  # 2: potential_weight 0.5 (was 1)

    TUNABLE: dict[str, float] = {
        **{k: v for k, v in BasicExpertAgent.TUNABLE.items() if k != "danger_fit"},
        "potential_weight": 0.15,
        "gin_hold": 1.0,
        "knock_mid": 1.5,
        "knock_late": 1.5,
        "knock_stock_early": 3.0,
        "knock_stock_late": 3.0,
        "knock_per_pickup": 0.5,
        "gin_outs_min": 1.0,
    }
    knock_mid = 7.0  # most deadwood it knocks with while the stock holds 10-19 cards
    knock_late = 4.0  # ... below knock_stock_late cards
    knock_stock_early = 20.0  # from this stock size on it knocks at the knock limit
    knock_stock_late = 10.0
    knock_per_pickup = 1.0  # the threshold falls this much per card the opponent took
    gin_outs_min = 4.0  # unseen gin cards needed to hold a knock for gin

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        potential_weight: float = 0.5,
        danger_weight: float = 1.0,
        take_margin: float = 2.0,
        gin_hold: int = 3,
        knock_schedule: str = "tight",
    ):
        super().__init__(
            rules,
            seat,
            hold_back="never",
            potential_weight=potential_weight,
            danger_weight=danger_weight,
        )
        self.take_margin = float_option("take_margin", take_margin)
        self.gin_hold = float_option("gin_hold", gin_hold)
        if knock_schedule not in ("tight", "asap"):
            raise ValueError(
                f"knock_schedule={knock_schedule!r} is not allowed (allowed: 'tight', 'asap')"
            )
        self.knock_schedule = knock_schedule

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("potential_weight", "danger_weight", "take_margin", "gin_hold", "knock_schedule")

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, legal, kinds = self.choices(observation, action_mask)
        if len(legal) == 1:
            return legal[0]
        v = self.view(observation)
        if v.phase in (Phase.DRAW, Phase.UPCARD):
            return self.gin_draw(v, kinds, legal)
        return self.gin_play(v, kinds, legal)

    # ---------------------------------------------------------------- draw
    def gin_draw(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        takes = by_kind.get(DRAW_DISCARD)
        other = by_kind.get(DRAW_STOCK) or by_kind.get(PASS) or [legal[-1]]
        if not takes or not v.discard:
            return other[0]
        up = v.discard[-1]
        hand = list(v.hand)
        hand[up] += 1
        after = [self.deadwood_without(hand, [f]) for f, c in enumerate(hand) if c and f != up]
        if after and min(after) <= v.knock_limit and self.knock_threshold(v) >= min(after):
            return takes[0]
        hand[up] -= 1
        unseen = unseen_counts(v, self.rules)
        unseen[up] = 0
        hz = self.horizon(v)
        base = self.score_hand(hand, unseen, hz)
        hand[up] += 1
        best = None
        for f, c in enumerate(hand):
            if c and f != up:
                hand[f] -= 1
                s = self.score_hand(hand, unseen, hz)
                hand[f] += 1
                if best is None or s < best:
                    best = s
        if best is not None and best < base - self.take_margin:
            return takes[0]
        return other[0]

    # ------------------------------------------------------------- knocking
    def knock_threshold(self, v: View) -> float:
        """Most deadwood the agent knocks with now (see the module docstring)."""
        limit = v.knock_limit
        if self.knock_schedule == "asap":
            return limit
        if v.stock_size >= self.knock_stock_early:
            t = limit
        elif v.stock_size >= self.knock_stock_late:
            t = min(limit, self.knock_mid)
        else:
            t = min(limit, self.knock_late)
        picked = sum(v.known[0][:NUM_NATURAL]) if v.known else 0
        return max(min(1, limit), t - self.knock_per_pickup * picked)

    def gin_outs(self, hand: list[int], unseen: list[int]) -> int:
        """Unseen cards that would make the hand (10 cards) gin after one draw and discard."""
        n = 0
        for c in range(NUM_NATURAL):
            if unseen[c] > 0:
                hand[c] += 1
                if self.best_discard_deadwood(hand, keep=-1) == 0:
                    n += unseen[c]
                hand[c] -= 1
        return n

    def gin_play(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        hand = v.hand
        knocks = [a for a in by_kind.get(KNOCK, ())]
        discards = by_kind.get(DISCARD, [])
        if knocks:

            def knock_key(a: int) -> tuple[int, int]:
                f = self.moves[a][1]
                return (
                    self.deadwood_without(hand, [f]) if f >= 0 else 0,
                    -(self.values[f] if f >= 0 else 99),
                )

            best = min(knocks, key=knock_key)
            k = knock_key(best)[0]
            if k == 0 or not discards:
                return best
            if k <= self.knock_threshold(v):
                if self.gin_hold and k <= self.gin_hold and v.stock_size >= self.knock_stock_early:
                    rest = list(hand)
                    rest[self.moves[best][1]] -= 1
                    same = [a for a in discards if self.moves[a][1] == self.moves[best][1]]
                    if (
                        same
                        and self.gin_outs(rest, unseen_counts(v, self.rules)) >= self.gin_outs_min
                    ):
                        return same[0]
                return best
        if not discards:
            return legal[0]
        return self.rank_discards(v, discards)[0]
