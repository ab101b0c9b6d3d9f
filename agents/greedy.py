"""`greedy`: a one-step lookahead on deadwood, for every preset.

Strategy, phase by phase (deadwood = value of the cards left over by the best
arrangement of the hand into sets and runs, :func:`rummy_env.melds.best_arrangement`):

* **Draw** (and the gin up-card offer): take a discard when the card it must
  use completes or extends a meld: it can be laid off on the table, or the
  hand with it (less the best other card to discard) has lower deadwood than
  the hand now. Otherwise draw from the stock (or pass the up-card).
* **Play**: declare as soon as it may (Indian rummy: a declaration wins the round
  whatever the discard); knock as soon as a knock is legal (gin; the knock that leaves the
  least deadwood, big gin first); lay every meld it can, each time the one
  that leaves the least deadwood (larger melds on ties); lay off every card it
  can, highest value first. Joker swaps are not used.
* **Discard**: the card whose removal leaves the least deadwood; on ties the
  highest-valued card.
* **Rummikub**: plays the largest commit it finds: a tile at a time, the highest number
  first, while any tile is playable (the mask offers only tiles some commit can hold),
  then commits; draws (or passes) when no tile is playable.
* **Canasta**: the greedy play of :class:`agents.canasta.CanastaGreedyPolicy` (takes the
  pile when it may, melds the largest meld, lays off all, discards the rarest rank).
"""

from __future__ import annotations

import numpy as np

from agents.base import (
    COMMIT,
    DECLARE,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    END_ROUND,
    KNOCK,
    LAYOFF,
    MELD,
    PASS,
    PLAY_TILE,
    Agent,
    View,
    move_cards,
    table_fits,
)
from agents.canasta import CanastaGreedyPolicy
from rummy_env.cards import JOKER
from rummy_env.engine import Phase
from rummy_env.melds import best_arrangement


class DeadwoodMixin:
    """Cached deadwood of hands (count vectors) for one rule set."""

    _dw_cache: dict[tuple[int, ...], int]

    def deadwood(self, hand: list[int]) -> int:
        key = tuple(hand)
        cache = self.__dict__.setdefault("_dw_cache", {})
        d = cache.get(key)
        if d is None:
            if len(cache) > 200_000:
                cache.clear()
            d = cache[key] = best_arrangement(hand, self.values, self.rules.ace_high)[0]
        return d

    def deadwood_without(self, hand: list[int], cards: list[int]) -> int:
        h = list(hand)
        for f in cards:
            h[f] -= 1
        return self.deadwood(h)

    def best_discard_deadwood(self, hand: list[int], keep: int = -1) -> int:
        """Least deadwood after discarding one card other than ``keep``."""
        best = None
        for f, c in enumerate(hand):
            if c and f != keep:
                hand[f] -= 1
                d = self.deadwood(hand)
                hand[f] += 1
                if best is None or d < best:
                    best = d
        return self.deadwood(hand) if best is None else best


class GreedyAgent(DeadwoodMixin, Agent):
    """Greedy on deadwood (see the module docstring)."""

    name = "greedy"

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        if self.rules.scoring == "canasta":
            return self.canasta_policy().act(observation, action_mask)
        observation, legal, kinds = self.choices(observation, action_mask)
        if len(legal) == 1:
            return legal[0]
        if kinds.get(PLAY_TILE) or kinds.get(COMMIT):
            return self.tile_move(kinds)
        v = self.view(observation)
        if v.phase in (Phase.DRAW, Phase.UPCARD):
            return self.choose_draw(v, kinds, legal)
        return self.choose_play(v, kinds, legal)

    def canasta_policy(self) -> CanastaGreedyPolicy:
        """Canasta's greedy play (agents.canasta), made once."""
        policy = self.__dict__.get("_canasta")
        if policy is None:
            policy = self._canasta = CanastaGreedyPolicy(self.rules, self.seat)
        return policy

    def tile_move(self, kinds: dict[int, list[int]]) -> int:
        """Rummikub: the highest playable tile, or commit when none is left."""
        tiles = kinds.get(PLAY_TILE)
        if tiles:
            return max(tiles, key=lambda a: (self.values[self.moves[a][1]], a))
        return kinds[COMMIT][0]

    # ---------------------------------------------------------------- draw
    def choose_draw(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        hand = v.hand
        now = self.deadwood(hand)
        fits = table_fits(v, self.rules) if v.table else {}
        best, best_dw = None, None
        for a in by_kind.get(DRAW_DISCARD, ()):
            depth = self.moves[a][2]
            taken = v.discard[len(v.discard) - 1 - depth :]
            key = taken[0]
            h = list(hand)
            for f in taken:
                h[f] += 1
            dw = self.best_discard_deadwood(h, keep=key)
            if key in fits or key == JOKER or dw < now:
                if best is None or dw < best_dw:
                    best, best_dw = a, dw
        if best is not None:
            return best
        for kind in (DRAW_STOCK, PASS, END_ROUND):
            if by_kind.get(kind):
                return by_kind[kind][0]
        return legal[0]

    # ---------------------------------------------------------------- play
    def choose_play(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        hand = v.hand
        if by_kind.get(DECLARE):
            return by_kind[DECLARE][0]
        if by_kind.get(KNOCK):
            return min(
                by_kind[KNOCK],
                key=lambda a: (
                    self.moves[a][1] >= 0,
                    self.deadwood_without(hand, move_cards(self.moves[a], hand)),
                ),
            )
        if by_kind.get(MELD):

            def meld_key(a: int) -> tuple[int, int, int]:
                cards = move_cards(self.moves[a], hand)
                return (self.deadwood_without(hand, cards), -len(cards), a)

            return min(by_kind[MELD], key=meld_key)
        if by_kind.get(LAYOFF):
            return max(
                by_kind[LAYOFF],
                key=lambda a: (self.moves[a][1] != JOKER, self.values[self.moves[a][1]], -a),
            )
        if by_kind.get(DISCARD):
            return self.pick_discard(hand, by_kind[DISCARD])
        return legal[0]

    def pick_discard(self, hand: list[int], discards: list[int]) -> int:
        return min(discards, key=lambda a: self._discard_key(hand, a))

    def _discard_key(self, hand: list[int], a: int) -> tuple[int, int, int]:
        f = self.moves[a][1]
        return (self.deadwood_without(hand, [f]), -self.values[f], -f)

    def rank_discards(self, v: View, discards: list[int]) -> list[int]:
        """Legal discards, best first (used by the search agent to pick candidates)."""
        return sorted(discards, key=lambda a: self._discard_key(v.hand, a))
