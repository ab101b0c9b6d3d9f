"""`contract-expert`: a rule-based agent for Contract Rummy.

It reads only its observation: own hand, the discard pile, the table, the deal (so the
contract) and who is down. Before going down a hand is judged by how far it is from
its contract; after, by what it would pay.

* **Distance to the contract.** The fewest cards the hand lacks to hold the contract's
  sets (3 cards of a rank, suits may repeat) and runs (4 neighbouring cards of a suit)
  at once, each joker standing in for one missing card (at most one in a set and two in
  a run, a meld keeping two naturals): the best choice among the most complete windows
  of each kind (:func:`contract_distance`).
* **Draw and buy.** Take the discard top (or buy it, out of turn, while buys are left)
  when it brings the hand nearer the contract, or, once down, when it can be laid off;
  a joker always. A buy also costs a hidden penalty card, so the agent buys only when
  the card lowers the distance and the distance is at most ``buy_below``.
* **Going down and laying off.** Lay down the contract as soon as the mask allows,
  the meld with the most cards first (the engine offers a meld only while the rest of
  the contract can follow); once down, lay off every card it can, highest value first.
* **Discard.** Before going down: the card whose removal leaves the least distance;
  on ties one that no table meld takes (it would help a player who is down), then the
  highest value, never a joker. Once down: the highest-valued card no meld takes.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from agents.base import (
    BUY,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    MELD,
    PASS,
    Agent,
    View,
    best_to_part_with,
    move_cards,
    table_fits,
)
from rummy_env.cards import JOKER, NUM_RANKS
from rummy_env.engine import Phase
from rummy_env.rules import CONTRACTS

#: windows of each kind kept for the search of :func:`contract_distance` (the most complete)
_KEEP = 7


def contract_distance(
    hand: list[int] | tuple[int, ...], sets: int, runs: int, ace_high: bool, min_run: int = 4
) -> int:
    """The fewest cards ``hand`` (counts per face) lacks to hold ``sets`` sets of three and
    ``runs`` runs of ``min_run`` at once, jokers filling what they may (see the module
    docstring). A heuristic: the choice is made among the ``_KEEP`` most complete windows
    of each kind, and cards two windows both want count once."""
    span = NUM_RANKS + 1 if ace_high else NUM_RANKS
    run_c = []
    for su in range(4):
        b = su * NUM_RANKS
        held = [1 if hand[b + q % NUM_RANKS] else 0 for q in range(span)]
        for lo in range(span - min_run + 1):
            nat = sum(held[lo : lo + min_run])
            if nat:
                faces = tuple(b + q % NUM_RANKS for q in range(lo, lo + min_run) if held[q])
                run_c.append((min_run - nat, faces))
    run_c.sort()
    run_c = run_c[:_KEEP]
    rank_n = [sum(hand[r : 4 * NUM_RANKS : NUM_RANKS]) for r in range(NUM_RANKS)]
    set_c = sorted(((max(0, 3 - n), r) for r, n in enumerate(rank_n) if n), reverse=False)
    set_c = set_c[:_KEEP]
    jokers = hand[JOKER]
    best = 3 * sets + min_run * runs
    for rs in combinations(run_c, runs) if runs <= len(run_c) else ():
        used = {}
        miss_r = []
        clash = 0
        for m, faces in rs:
            extra = 0
            for f in faces:
                used[f] = used.get(f, 0) + 1
                if used[f] > hand[f]:
                    extra += 1  # a card both runs want, held once
            miss_r.append(m + extra)
            clash += extra
        left = list(rank_n)
        for f, k in used.items():
            left[f % NUM_RANKS] -= min(k, hand[f])
        for ss in combinations(set_c, sets) if sets <= len(set_c) else ():
            miss = list(miss_r)
            caps = [min(2, min_run - 2)] * runs
            for _, r in ss:
                miss.append(max(0, 3 - left[r]))
                caps.append(1)
            # jokers: each meld takes what its cap allows, keeping two naturals
            total = sum(miss)
            j = jokers
            for m, cap in sorted(zip(miss, caps), reverse=True):
                use = min(j, cap, m)
                total -= use
                j -= use
            best = min(best, total)
    return best


class ContractExpertAgent(Agent):
    """Rule-based contract rummy (see the module docstring)."""

    name = "contract-expert"

    buy_below = 4

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._cache: dict[tuple, int] = {}

    def distance(self, hand: list[int], deal: int) -> int:
        key = (tuple(hand), deal)
        cache = self.__dict__.setdefault("_cache", {})
        d = cache.get(key)
        if d is None:
            if len(cache) > 100_000:
                cache.clear()
            sets, runs = CONTRACTS[deal]
            d = cache[key] = contract_distance(
                hand, sets, runs, self.rules.ace_high, self.rules.min_run
            )
        return d

    def best_discard(self, hand: list[int], deal: int, fits, keep: int = -1) -> tuple[int, int]:
        """``(distance, face)`` of the best card to part with (not ``keep``)."""
        key, f = best_to_part_with(
            hand,
            lambda f: (self.distance(hand, deal), f == JOKER, f in fits, -self.values[f], -f),
            keep,
        )
        return key[0], f

    # ------------------------------------------------------------------ act
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, legal, kinds = self.choices(observation, action_mask)
        if len(legal) == 1:
            return legal[0]
        v = self.view(observation)
        hand = list(v.hand)
        down = bool(v.opened and v.opened[0])
        fits = table_fits(v, self.rules) if v.table else {}
        if v.phase == Phase.BUY:
            return self.buy(v, hand, kinds)
        if v.phase == Phase.DRAW:
            return self.draw(v, hand, down, fits, kinds, legal)
        if kinds.get(MELD):
            return max(
                kinds[MELD],
                key=lambda a: (
                    len(move_cards(self.moves[a], hand)),
                    sum(self.values[f] for f in move_cards(self.moves[a], hand)),
                ),
            )
        if kinds.get(LAYOFF):
            return max(
                kinds[LAYOFF],
                key=lambda a: (self.moves[a][1] != JOKER, self.values[self.moves[a][1]], -a),
            )
        discards = kinds.get(DISCARD)
        if not discards:
            return legal[0]
        allowed = {self.moves[a][1]: a for a in discards}
        if down:
            f = max(allowed, key=lambda f: (f not in fits, f != JOKER, self.values[f], f))
            return allowed[f]
        _, f = self.best_discard(hand, v.deal, fits, keep=v.forbidden)
        return allowed.get(f, discards[0])

    def _wants(self, v: View, hand: list[int], down: bool, fits) -> bool:
        """Whether the discard top would help: nearer the contract (after the best discard),
        or, once down, a card that can be laid off."""
        top = v.discard[-1]
        if top == JOKER:
            return True
        if down:
            return top in fits
        now = self.distance(hand, v.deal)
        hand[top] += 1
        after, _ = self.best_discard(hand, v.deal, fits, keep=top)
        hand[top] -= 1
        return after < now

    def draw(self, v: View, hand, down: bool, fits, kinds, legal: list[int]) -> int:
        if kinds.get(DRAW_DISCARD) and v.discard and self._wants(v, hand, down, fits):
            return kinds[DRAW_DISCARD][0]
        if kinds.get(DRAW_STOCK):
            return kinds[DRAW_STOCK][0]
        return legal[0]

    def buy(self, v: View, hand: list[int], kinds) -> int:
        top = v.discard[-1]
        if kinds.get(BUY) and (top == JOKER or self.distance(hand, v.deal) <= self.buy_below):
            now = self.distance(hand, v.deal)
            hand[top] += 1
            after = self.distance(hand, v.deal)
            hand[top] -= 1
            if after < now or top == JOKER:
                return kinds[BUY][0]
        return kinds[PASS][0]
