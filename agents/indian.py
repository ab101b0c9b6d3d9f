"""`indian-expert`: a rule-based agent for Indian Rummy (points rummy).

It reads only its observation: own hand, the discard pile, the cut card and the round's
wild rank, who has drawn and who has dropped. A loser pays the value of his cards
outside his melds only when he can show two runs, one of them pure (D-14), else every
card (capped at 80), so the hand's worth is that count, not plain deadwood.

* **Hand score.** The least count of the hand as a show would count it
  (:func:`rummy_env.melds.show_arrangement`, wild-rank cards and jokers worth 0),
  or, while the two runs are not there yet, the least count with one pure run plus
  ``one_run_penalty``, or with any melds plus ``no_pure_penalty``: a hand one run
  short is closer to a show than its raw count says, but not as close as a show.
* **Declare** whenever the mask allows it: a declaration wins the round whatever
  is discarded.
* **Draw.** Take the top discard when the best hand after taking it (and
  discarding another card) scores ``take_margin`` below the hand now; otherwise
  the stock.
* **Drop.** Before the first draw, drop (20) when the hand scores at least
  ``first_drop`` and holds no pure run and at most one wild card; later, drop (40)
  when the hand still scores at least ``middle_drop`` after ``middle_turns`` draws
  of its own (a loser pays up to 80).
* **Discard** the card whose removal leaves the best hand score; on ties the
  highest-valued card (it costs most if caught), never a wild card while another
  card scores as well.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from agents.base import (
    DECLARE,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    DROP,
    Agent,
    View,
    best_to_part_with,
)
from rummy_env.cards import JOKER, NUM_RANKS
from rummy_env.engine import Phase, card_values
from rummy_env.melds import catalogue_for, run3_bits, show_arrangement
from rummy_env.rules import RuleSet


class IndianExpertAgent(Agent):
    """Rule-based Indian rummy (see the module docstring)."""

    name = "indian-expert"

    one_run_penalty = 8.0
    no_pure_penalty = 20.0
    take_margin = 3.0
    first_drop = 70.0
    middle_drop = 75.0
    middle_turns = 6.0

    #: constants an ES run may tune (agents.tuned): name -> scale of a unit step
    TUNABLE: ClassVar[dict[str, float]] = {
        "one_run_penalty": 4.0,
        "no_pure_penalty": 8.0,
        "take_margin": 2.0,
        "first_drop": 10.0,
        "middle_drop": 10.0,
        "middle_turns": 3.0,
    }

    def __init__(self, rules: RuleSet, seat: int = 0):
        if rules.scoring != "indian":
            raise ValueError(
                f"indian-expert plays Indian rummy (scoring='indian'), not {rules.name!r}"
            )
        super().__init__(rules, seat)
        self.cat = catalogue_for(rules)
        self._cache: dict[tuple, float] = {}
        self._round_values: dict[int, list[int]] = {}  # wild rank -> the round's card values
        self._draws = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._draws = 0

    # ------------------------------------------------------------------ score
    def wild_faces(self, v: View) -> tuple[int, ...]:
        if v.wild_rank < 0:
            return ()
        return tuple(su * NUM_RANKS + v.wild_rank for su in range(4))

    def score(self, hand: list[int], wf: tuple[int, ...]) -> float:
        key = (bytes(hand), wf)
        got = self._cache.get(key)
        if got is not None:
            return got
        if len(self._cache) > 100_000:
            self._cache.clear()
        rank = wf[0] if wf else -1  # (the spade of the wild rank: its rank)
        vals = self._round_values.get(rank)
        if vals is None:
            vals = self._round_values[rank] = card_values(self.rules, rank)
        total = sum(c * v for c, v in zip(hand, vals))
        best = float(total)
        for runs, pure, extra in (
            (2, True, 0.0),
            (1, True, self.one_run_penalty),
            (0, False, self.no_pure_penalty),
        ):
            if extra >= best:
                continue
            found = show_arrangement(self.cat, hand, wf, vals, int(best - extra), runs, pure)
            if found is not None:
                best = min(best, found[0] + extra)
        best = min(best, 80.0)
        self._cache[key] = best
        return best

    def best_after_discard(self, hand: list[int], wf: tuple[int, ...], keep: int = -1):
        """``(score, face)`` of the best discard (not ``keep``): lowest score, then the
        highest value, never a wild card on a tie."""
        key, f = best_to_part_with(
            hand,
            lambda f: (self.score(hand, wf), f == JOKER or f in wf, -self.values[f], -f),
            keep,
        )
        return key[0], f

    # ------------------------------------------------------------------ act
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, legal, kinds = self.choices(observation, action_mask)
        if len(legal) == 1:
            return legal[0]
        if kinds.get(DECLARE):
            return kinds[DECLARE][0]
        v = self.view(observation)
        wf = self.wild_faces(v)
        hand = list(v.hand)
        if v.phase == Phase.DRAW:
            return self.draw(v, hand, wf, kinds, legal)
        discards = kinds.get(DISCARD)
        if not discards:
            return legal[0]
        allowed = {self.moves[a][1]: a for a in discards}
        keep = v.forbidden
        _, f = self.best_after_discard(hand, wf, keep)
        return allowed.get(f, discards[0])

    def draw(self, v: View, hand: list[int], wf, by_kind, legal: list[int]) -> int:
        now = self.score(hand, wf)
        drew = bool(v.drew and v.drew[0])
        if not drew:
            self._draws = 0  # a new round (a match goes on without reset())
        drops = by_kind.get(DROP)
        if drops:
            if not drew:
                wilds = hand[JOKER] + sum(hand[f] for f in wf)
                held = sum(1 << f for f in range(JOKER) if hand[f])
                no_pure = not run3_bits(held, self.cat.ace_high)  # three neighbouring naturals
                if now >= self.first_drop and no_pure and wilds <= 1:
                    return drops[0]
            elif self._draws >= self.middle_turns and now >= self.middle_drop:
                return drops[0]
        takes = by_kind.get(DRAW_DISCARD)
        if takes and v.discard:
            top = v.discard[-1]
            hand[top] += 1
            after, _ = self.best_after_discard(hand, wf, keep=top)
            hand[top] -= 1
            if after <= now - self.take_margin or top == JOKER or top in wf:
                self._draws += 1
                return takes[0]
        if by_kind.get(DRAW_STOCK):
            self._draws += 1
            return by_kind[DRAW_STOCK][0]
        return legal[0]
