"""`rummy500-expert`: a rule-based agent for Rummy 500 (and `persian`).

It reads only its observation: own hand, the whole spread discard pile, the
table (every meld, whoever laid it), the cards each opponent is known to hold,
the stock size and each player's round credit. Rummy 500 scores a round as
the value of the cards a player melded or laid off minus the value of the
cards left in his hand, so every card is worth points twice: once when laid,
once (negative) when caught in hand. "Leftover" below means the cards outside
the best arrangement of the hand (:func:`rummy_env.melds.best_arrangement`)
that also cannot be laid off on the table.

Strategy, phase by phase:

* **Draw (dig).** Every legal pick-up (the card at depth ``d`` and the ``d``
  cards above it; the chosen card must be used at once, which the engine's
  mask enforces) is valued as *gain* = value of the cards that meld or lay off
  after the pick-up minus before, less ``risk`` times the growth of the
  leftover, the points of picked-up cards that would stay in hand. ``risk``
  is 0.6 while the round is young and 1.0 once an opponent is close to going
  out (3 cards or fewer) or the stock is short: then cards left in hand are
  likely to be counted against the agent. A joker is worth its meld value.
  The best pick-up is taken when its gain is positive; otherwise the stock.
  Digs of more than ``max_dig`` cards are not considered (they rarely pay and
  the arrangement search grows with the hand).
* **Empty stock.** When the stock is empty the player to draw may dig or end
  the round. The agent ends the round when its round score (credit minus
  hand) is ahead of every opponent's estimate (credit minus 7 points per
  card in hand), and otherwise digs if a pick-up has positive gain.
* **Meld and lay off.** Everything profitable goes down at once: the melds
  of the best arrangement, then every leftover card that fits any meld on the
  table (lay-off credit goes to the layer, so opponents' melds are as good as
  one's own), highest value first, jokers last. A card on the table scores
  for good and can no longer be caught in hand. Going out ends the round
  while the opponents still hold their cards, so the agent goes out whenever
  it can (which laying everything does).
* **Discard.** `basic-expert`'s score: deadwood after the discard minus the
  near-meld potential, plus the danger of feeding an opponent (a card that
  fits a table meld is laid off for his credit; one matching cards he took
  from the pile). The whole pile can be dug, so the danger counts for every
  opponent. High unmeldable cards go first; a joker is never discarded while
  another card can be.
"""

from __future__ import annotations

from agents.base import (
    DRAW_DISCARD,
    DRAW_STOCK,
    END_ROUND,
    View,
    int_option,
    table_fits,
)
from agents.basic_rummy import BasicExpertAgent
from rummy_env.cards import JOKER, NUM_NATURAL, NUM_RANKS
from rummy_env.rules import RuleSet


class Rummy500ExpertAgent(BasicExpertAgent):
    """Rule-based Rummy 500 (see the module docstring).

    Args:
        rules: a rummy500-scored rule set (``rummy500``, ``persian``).
        seat: the seat it plays.
        max_dig: most cards taken in one pick-up that the agent considers.
        potential_weight, danger_weight: as in `basic-expert`'s discard score.
    """

    name = "rummy500-expert"

    TUNABLE: dict[str, float] = {
        **{k: v for k, v in BasicExpertAgent.TUNABLE.items() if k != "take_margin"},
        "danger_rank": 1.0,
        "danger_adj": 0.75,
        "danger_gap": 0.5,
        "risk_early": 0.2,
        "risk_late": 0.2,
        "opp_card_value": 2.0,
        "dig_margin": 1.0,
    }
    danger_rank = 3.0  # danger of the rank of a card an opponent took
    danger_adj = 2.0  # ... a suit neighbour of one
    danger_gap = 1.0  # ... two ranks from one in its suit
    risk_early = 0.6  # weight of the leftover a pick-up adds, while the round is young
    risk_late = 1.0  # ... once an opponent is close to going out or the stock is short
    opp_card_value = 7.0  # points an opponent's card in hand is guessed to be worth
    dig_margin = 0.0  # the best pick-up is taken when its gain is above this

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        max_dig: int = 8,
        potential_weight: float = 1.0,
        danger_weight: float = 1.0,
    ):
        super().__init__(
            rules,
            seat,
            hold_back="never",
            potential_weight=potential_weight,
            danger_weight=danger_weight,
        )
        self.max_dig = int_option("max_dig", max_dig)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("max_dig", "potential_weight", "danger_weight")

    # --------------------------------------------------------------- valuing
    def laid_and_left(self, hand: list[int], fits: dict[int, int]) -> tuple[int, int]:
        """(value that melds or lays off, value left in hand) of ``hand``."""
        total = sum(c * self.values[f] for f, c in enumerate(hand))
        # a joker melds with almost any pair or connector, or lays off on a table meld:
        # it counts as laid
        dead = sum(self.values[f] for f in self.leftovers(hand) if f != JOKER and f not in fits)
        return total - dead, dead

    def risk(self, v: View) -> float:
        opp = [s for o, s in enumerate(v.hand_sizes) if o and v.active[o]]
        if (opp and min(opp) <= 3) or v.stock_size <= 2 * len(v.hand_sizes):
            return self.risk_late
        return self.risk_early

    def dig_gain(
        self, v: View, depth: int, fits: dict[int, int], base: tuple[int, int], risk: float
    ) -> float:
        taken = v.discard[len(v.discard) - 1 - depth :]
        hand = list(v.hand)
        for f in taken:
            hand[f] += 1
        laid, left = self.laid_and_left(hand, fits)
        return (laid - base[0]) - risk * (left - base[1])

    def best_dig(self, v: View, takes: list[int]) -> tuple[int | None, float]:
        fits = table_fits(v, self.rules) if v.table else {}
        base = self.laid_and_left(v.hand, fits)
        risk = self.risk(v)
        best, best_gain = None, 0.0
        for a in takes:
            depth = self.moves[a][2]
            if depth + 1 > self.max_dig:
                continue
            g = self.dig_gain(v, depth, fits, base, risk)
            if g > best_gain or (
                best is not None and g == best_gain and depth < self.moves[best][2]
            ):
                best, best_gain = a, g
        return best, best_gain

    # ------------------------------------------------------------------ draw
    def expert_draw(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        takes = by_kind.get(DRAW_DISCARD, [])
        ends = by_kind.get(END_ROUND, [])
        best, gain = self.best_dig(v, takes) if takes else (None, 0.0)
        if ends:
            if self.ahead(v) or best is None:
                return ends[0]
            return best
        if best is not None and gain > self.dig_margin:
            return best
        if by_kind.get(DRAW_STOCK):
            return by_kind[DRAW_STOCK][0]
        return best if best is not None else legal[0]

    def ahead(self, v: View) -> bool:
        credit = v.credit or [0] * len(v.hand_sizes)
        mine = credit[0] - sum(c * self.values[f] for f, c in enumerate(v.hand))
        others = [
            credit[o] - self.opp_card_value * v.hand_sizes[o]
            for o in range(1, len(v.hand_sizes))
            if v.active[o]
        ]
        return not others or mine > max(others)

    # --------------------------------------------------------------- discard
    def danger(self, v: View, f: int, fits: dict[int, int]) -> float:
        if f >= NUM_NATURAL:
            return 0.0
        d = self.danger_fit if f in fits else 0.0
        r, s = f % NUM_RANKS, f // NUM_RANKS
        for known in v.known:
            for k, c in enumerate(known[:NUM_NATURAL]):
                if not c:
                    continue
                rk, sk = k % NUM_RANKS, k // NUM_RANKS
                if rk == r:
                    d += self.danger_rank
                elif sk == s and abs(rk - r) <= 2:
                    d += self.danger_adj if abs(rk - r) == 1 else self.danger_gap
        return d

    def expert_discard(self, v: View, discards: list[int], fits: dict[int, int]) -> int:
        naturals = [a for a in discards if self.moves[a][1] != JOKER]
        return self.rank_discards(v, naturals or discards, fits)[0]
