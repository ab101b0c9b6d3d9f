"""`basic-expert`: a rule-based agent for Basic Rummy that knows its scoring.

It reads only its observation: own hand, the discard pile, the table, the
cards each opponent is known to hold (taken from the discard pile), sizes and
flags. "Unseen" cards are the pack minus all of that; deadwood is the value
left over by the best arrangement of the hand (:mod:`rummy_env.melds`).

Strategy, phase by phase:

* **Draw.** Take the top discard when it can be laid off on the table, or when
  the hand with it (discarding the best other card) is worth clearly more than
  the hand after a blind stock draw. "Worth" is the discard score below
  (deadwood minus the expected value of near-melds), so a card that makes a
  strong pair or connector can be worth taking too. Otherwise draw from stock.
* **Meld and lay off.** Find the best arrangement of the hand. If the hand can
  go out this turn (every card melded or laid off, but at most one to
  discard), do it. Otherwise, how the rules score decides:

  - *standard scoring* (penalty = value of the hand): lay every meld of the best
    arrangement at once and lay off every leftover card that fits, since each
    card laid cuts the penalty if an opponent goes out first;
  - *winner_takes_all with a rummy bonus*: going out in one turn without
    having melded before pays ``rummy_multiplier`` times. The agent holds its
    melds back while that is cheap (no opponent is close to going out: all
    hold 5+ cards, and the stock still has 8+ cards), and lays everything as
    soon as the risk grows. Without the bonus it melds at once.

  Joker swaps are made when the natural card is deadwood (the joker it gets is
  wild and can be laid off or melded).
* **Discard.** Each legal discard ``c`` is scored and the lowest wins:
  ``deadwood(hand - c) - potential(hand - c) + danger(c)``.

  - *potential*: for each pair (same rank) and each connector (same suit, one
    or two ranks apart) among the leftover cards, the value of the two cards
    times the chance of completing the meld in the next few draws, from the
    number of unseen cards that complete it (dead cards, in the pile or on the
    table, do not count). The weight shrinks as the round gets short (an
    opponent with 3 cards or fewer, or a small stock): then high cards go.
  - *danger*: the next player can take the discard. A card that fits a table
    meld (he lays it off), or that matches the rank or is a near suit neighbour
    of a card he is known to have picked up, costs extra.
  - ties go to the higher card (less penalty if caught).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from agents.base import (
    COMMIT,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    MELD,
    PLAY_TILE,
    SWAP,
    View,
    float_option,
    move_cards,
    table_fits,
    unseen_counts,
)
from agents.greedy import GreedyAgent
from rummy_env.cards import JOKER, NUM_NATURAL, NUM_RANKS
from rummy_env.engine import Phase
from rummy_env.melds import best_arrangement
from rummy_env.rules import RuleSet


class BasicExpertAgent(GreedyAgent):
    """Rule-based Basic Rummy (see the module docstring).

    Args:
        rules: the rule set (any basic configuration).
        seat: the seat it plays.
        hold_back: ``"auto"`` (hold melds for a rummy in winner_takes_all when
            that is cheap), ``"never"`` or ``"always"``.
        potential_weight: weight of the near-meld potential in the discard score.
        danger_weight: weight of the danger of feeding the next player.
    """

    name = "basic-expert"

    #: the constants of the strategy, as attributes so that a trained model (`es:<model>`,
    #: :mod:`agents.tuned`) can set them; the class values are the hand-picked defaults.
    #: Each name maps to the scale of one step in the search (experiments/train_es.py).
    TUNABLE: dict[str, float] = {
        "potential_weight": 0.25,
        "danger_weight": 0.25,
        "take_margin": 1.0,
        "danger_fit": 2.0,
        "danger_rank": 1.5,
        "danger_adj": 1.0,
        "danger_gap": 0.75,
        "horizon_cap": 1.5,
        "high_card": 0.15,
    }
    take_margin = 2.0  # the up-card is taken when it improves the hand score by more
    danger_fit = 6.0  # danger of a discard that fits a table meld
    danger_rank = 4.0  # ... of the rank of a card the next player took
    danger_adj = 3.0  # ... a suit neighbour of one
    danger_gap = 1.5  # ... two ranks from one in its suit
    horizon_cap = 6.0  # most own draws the potential looks ahead
    high_card = 0.0  # extra urge to discard high cards (points per point of card value)

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        hold_back: str = "auto",
        potential_weight: float = 1.0,
        danger_weight: float = 1.0,
    ):
        super().__init__(rules, seat)
        if hold_back not in ("auto", "never", "always"):
            raise ValueError(
                f"hold_back={hold_back!r} is not allowed (allowed: 'auto', 'never', 'always')"
            )
        self.hold_back = hold_back
        self.potential_weight = float_option("potential_weight", potential_weight)
        self.danger_weight = float_option("danger_weight", danger_weight)
        self._played_this_turn = False
        self._arr_cache: dict[tuple[int, ...], tuple[int, list[tuple[int, ...]]]] = {}
        # the wild 2s (wild_deuces): evaluated as wild cards (wild_deadwood)
        self._deuces = [su * NUM_RANKS + 1 for su in range(4)] if rules.wild_deuces else []

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("hold_back", "potential_weight", "danger_weight")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._played_this_turn = False

    # --------------------------------------------------------------- helpers
    def deadwood(self, hand: list[int]) -> int:
        """Deadwood of the best arrangement; with wild 2s (``wild_deuces``) wild cards
        count: see :meth:`wild_deadwood`."""
        if not self.rules.wild_deuces:
            return self.arrangement(hand)[0]  # one search and one cache serve both
        return self.wild_deadwood(hand)

    def wild_deadwood(self, hand: list[int]) -> int:
        """Deadwood where the jokers and 2s are wild: the natural cards' best arrangement,
        then each wild card turns the most valuable pair of leftovers that one card
        would complete (same rank, or same suit within two ranks) into a meld; a wild
        card left over costs 1 (kept: it is worth more in a meld than its penalty)."""
        key = tuple(hand)
        cache = self.__dict__.setdefault("_wdw_cache", {})
        d = cache.get(key)
        if d is not None:
            return d
        h = list(hand)
        w = h[JOKER]
        h[JOKER] = 0
        for f in self._deuces:
            w += h[f]
            h[f] = 0
        d, melds = best_arrangement(h, self.values, self.rules.ace_high)
        if w:
            for m in melds:
                for f in m:
                    h[f] -= 1
            left = [f for f, c in enumerate(h) if c for _ in range(c)]
            pairs = []
            for i, a in enumerate(left):
                for j in range(i + 1, len(left)):
                    b = left[j]
                    ra, rb = a % NUM_RANKS, b % NUM_RANKS
                    if (
                        ra == rb
                        and a != b
                        or (a // NUM_RANKS == b // NUM_RANKS and 0 < abs(ra - rb) <= 2)
                    ):
                        pairs.append((self.values[a] + self.values[b], i, j))
            used: set[int] = set()
            for v, i, j in sorted(pairs, reverse=True):
                if not w:
                    break
                if i in used or j in used:
                    continue
                used.update((i, j))
                d -= v
                w -= 1
        d += w
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = d
        return d

    def arrangement(self, hand: list[int]) -> tuple[int, list[tuple[int, ...]]]:
        key = tuple(hand)
        r = self._arr_cache.get(key)
        if r is None:
            if len(self._arr_cache) > 100_000:
                self._arr_cache.clear()
            r = self._arr_cache[key] = best_arrangement(hand, self.values, self.rules.ace_high)
        return r

    def leftovers(self, hand: list[int]) -> list[int]:
        """Cards of ``hand`` outside its best arrangement (copies repeated)."""
        h = list(hand)
        for m in self.arrangement(hand)[1]:
            for f in m:
                h[f] -= 1
        return [f for f, c in enumerate(h) if c for _ in range(c)]

    def potential(self, hand: list[int], unseen: list[int], horizon: float) -> float:
        """Expected deadwood saved by completing pairs and connectors among the leftovers."""
        left = sorted(set(f for f in self.leftovers(hand) if f < NUM_NATURAL))
        if not left:
            return 0.0
        total_unseen = max(1, sum(unseen))
        wild_outs = unseen[JOKER] if self.rules.wilds else 0
        best_per_card: dict[int, float] = defaultdict(float)
        ace_high = self.rules.ace_high
        for i, a in enumerate(left):
            ra, sa = a % NUM_RANKS, a // NUM_RANKS
            for b in left[i + 1 :]:
                rb, sb = b % NUM_RANKS, b // NUM_RANKS
                outs = 0
                if ra == rb:
                    outs = sum(unseen[ra + s * NUM_RANKS] for s in range(4) if s not in (sa, sb))
                elif sa == sb and rb - ra in (1, 2):
                    if rb - ra == 1:
                        if ra > 0:
                            outs += unseen[a - 1]
                        if rb < NUM_RANKS - 1:
                            outs += unseen[b + 1]
                        elif ace_high:
                            outs += unseen[sa * NUM_RANKS]  # Q-K waits for the ace
                    else:
                        outs += unseen[a + 1]
                elif sa == sb and ace_high and ra == 0 and rb >= NUM_RANKS - 2:
                    outs += unseen[
                        sa * NUM_RANKS + (NUM_RANKS - 1 if rb == NUM_RANKS - 2 else NUM_RANKS - 2)
                    ]
                else:
                    continue
                outs += wild_outs
                if not outs:
                    continue
                p = min(1.0, outs * horizon / total_unseen)
                gain = p * (self.values[a] + self.values[b])
                # a card counts in its best near-meld only
                for f in (a, b):
                    if gain / 2 > best_per_card[f]:
                        best_per_card[f] = gain / 2
        return sum(best_per_card.values())

    def horizon(self, v: View) -> float:
        """Rough number of own draws left this round."""
        opp = [s for o, s in enumerate(v.hand_sizes) if o and v.active[o]]
        close = min(opp) if opp else 10
        turns = min(
            self.horizon_cap, max(0.5, close - 1.0), v.stock_size / max(1, len(opp) + 1) + 1
        )
        return turns

    def danger(self, v: View, f: int, fits: dict[int, int]) -> float:
        if f >= NUM_NATURAL:
            return 0.0
        d = 0.0
        if f in fits:
            d += self.danger_fit
        nxt = 1 % len(v.hand_sizes)
        if nxt and v.known:
            r, s = f % NUM_RANKS, f // NUM_RANKS
            for k, c in enumerate(v.known[nxt - 1][:NUM_NATURAL]):
                if not c:
                    continue
                rk, sk = k % NUM_RANKS, k // NUM_RANKS
                if rk == r:
                    d += self.danger_rank
                elif sk == s and abs(rk - r) <= 2:
                    d += self.danger_adj if abs(rk - r) == 1 else self.danger_gap
        return d

    def score_hand(self, hand: list[int], unseen: list[int], horizon: float) -> float:
        key = (tuple(hand), tuple(unseen), horizon, self.potential_weight)
        cache = self.__dict__.setdefault("_score_cache", {})
        r = cache.get(key)
        if r is None:
            if len(cache) > 50_000:
                cache.clear()
            r = cache[key] = self.deadwood(hand) - self.potential_weight * self.potential(
                hand, unseen, horizon
            )
        return r

    # ------------------------------------------------------------------- act
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, legal, kinds = self.choices(observation, action_mask)
        v = self.view(observation)
        if v.phase != Phase.PLAY:
            self._played_this_turn = False
        if len(legal) == 1:
            a = legal[0]
        elif kinds.get(PLAY_TILE) or kinds.get(COMMIT):  # Rummikub: as greedy
            a = self.tile_move(kinds)
        elif v.phase in (Phase.DRAW, Phase.UPCARD):
            a = self.expert_draw(v, kinds, legal)
        else:
            a = self.expert_play(v, kinds, legal)
        if self.moves[a][0] in (MELD, LAYOFF, SWAP):
            self._played_this_turn = True
        return a

    def expert_draw(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        takes = by_kind.get(DRAW_DISCARD, [])
        if not takes or not by_kind.get(DRAW_STOCK):
            return self.choose_draw(v, by_kind, legal)  # other draw rules: greedy's
        a = takes[0]
        depth = self.moves[a][2]
        if depth != 0:
            return self.choose_draw(v, by_kind, legal)
        t = v.discard[-1]
        if t == JOKER:
            return a
        fits = table_fits(v, self.rules) if v.table else {}
        if t in fits:
            return a
        unseen = unseen_counts(v, self.rules)
        hz = self.horizon(v)
        base = self.score_hand(list(v.hand), unseen, hz)
        best = self.score_taking(v.hand, t, unseen, hz)
        if best is not None and best < base - self.take_margin:
            return a
        return by_kind[DRAW_STOCK][0]

    def score_taking(
        self, hand: list[int], t: int, unseen: list[int], horizon: float
    ) -> float | None:
        """The best hand score after taking ``t`` and discarding another card (None: nothing else to discard)."""
        hand = list(hand)
        hand[t] += 1
        best = None
        for f, c in enumerate(hand):
            if c and f != t:
                hand[f] -= 1
                s = self.score_hand(hand, unseen, horizon)
                hand[f] += 1
                if best is None or s < best:
                    best = s
        return best

    def should_hold(self, v: View) -> bool:
        r = self.rules
        if self.hold_back == "never" or r.scoring != "winner_takes_all" or r.rummy_multiplier <= 1:
            return False
        if v.played[0] or self._played_this_turn:
            return False  # the bonus is gone (or we started laying this turn)
        if self.hold_back == "always":
            return True
        opp = [s for o, s in enumerate(v.hand_sizes) if o and v.active[o]]
        return (min(opp) if opp else 0) >= 5 and v.stock_size >= 8

    def can_go_out(self, v: View, fits: dict[int, int]) -> bool:
        """Whether every card can be melded or laid off this turn, but one to discard."""
        rest = self.leftovers(v.hand)
        stuck = [f for f in rest if f not in fits]
        # cards that chain onto a fitting card (7 then 8 on a run ending at 6)
        if stuck and fits:
            laid = set(f for f in rest if f in fits)
            changed = True
            while changed and stuck:
                changed = False
                for f in list(stuck):
                    r, s = f % NUM_RANKS, f // NUM_RANKS
                    if any(
                        g // NUM_RANKS == s and abs(g % NUM_RANKS - r) == 1
                        for g in laid
                        if g < NUM_NATURAL
                    ):
                        stuck.remove(f)
                        laid.add(f)
                        changed = True
        return len(stuck) <= 1

    def expert_play(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        hand = v.hand
        fits = table_fits(v, self.rules) if v.table else {}
        playing = by_kind.get(MELD) or by_kind.get(LAYOFF) or by_kind.get(SWAP)
        if playing and (not self.should_hold(v) or self.can_go_out(v, fits)):
            plan = [tuple(sorted(m)) for m in self.arrangement(hand)[1]]
            if by_kind.get(MELD):
                in_plan = [
                    a
                    for a in by_kind[MELD]
                    if tuple(sorted(move_cards(self.moves[a], hand))) in plan
                ]
                if in_plan:
                    return max(in_plan, key=lambda a: (len(self.moves[a][2]), -a))
                # melds outside the plan (wild cards, or a plan the rules block): greedy's choice if it helps
                now = self.deadwood(hand)
                best = min(
                    by_kind[MELD],
                    key=lambda a: (
                        self.deadwood_without(hand, move_cards(self.moves[a], hand)),
                        -len(self.moves[a][2]),
                        a,
                    ),
                )
                after = self.deadwood_without(hand, move_cards(self.moves[best], hand))
                # a meld with wild 2s: its pair already counts as melded in wild_deadwood
                if after < now or (self.rules.wild_deuces and after <= now):
                    return best
            in_melds = {f for m in plan for f in m}
            offs = [
                a
                for a in by_kind.get(LAYOFF, [])
                if self.moves[a][1] not in in_melds or hand[self.moves[a][1]] > 1
            ]
            if offs:
                return max(
                    offs,
                    key=lambda a: (self.moves[a][1] != JOKER, self.values[self.moves[a][1]], -a),
                )
            swaps = [a for a in by_kind.get(SWAP, []) if self.moves[a][1] not in in_melds]
            if swaps:
                return swaps[0]
        discards = by_kind.get(DISCARD)
        if not discards:
            return self.choose_play(v, by_kind, legal)
        return self.expert_discard(v, discards, fits)

    def expert_discard(self, v: View, discards: list[int], fits: dict[int, int]) -> int:
        return self.rank_discards(v, discards, fits)[0]

    def rank_discards(
        self, v: View, discards: list[int], fits: dict[int, int] | None = None
    ) -> list[int]:
        """Legal discards, best first, by the discard score of the module docstring."""
        if fits is None:
            fits = table_fits(v, self.rules) if v.table else {}
        unseen = unseen_counts(v, self.rules)
        hz = self.horizon(v)
        hand = list(v.hand)
        keyed = []
        for a in discards:
            f = self.moves[a][1]
            hand[f] -= 1
            s = self.score_hand(hand, unseen, hz)
            hand[f] += 1
            s += self.danger_weight * self.danger(v, f, fits) - self.high_card * self.values[f]
            keyed.append(((round(s, 6), -self.values[f], -f), a))
        keyed.sort()
        return [a for _, a in keyed]
