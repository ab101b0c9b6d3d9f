"""`rummy51-expert`: a rule-based agent for Rummy 51.

It reads only its observation: own hand, the discard pile, the table, the
cards each opponent is known to hold, the ``opened`` flags and the value
melded so far this turn (``turn_value``). Rummy 51 has two penalties: a
player who never opened pays a flat 100, one who opened pays his hand value
(a joker 20). So the first goal is to open (51 points in one turn, with a
pure run), the second to keep the hand small once open.

Strategy, phase by phase:

* **Draw.** Before opening, the top discard may only be taken to open with it
  this turn (the engine's mask, D-6, checks that with
  :func:`rummy_env.melds.opening_possible`); the agent takes it whenever it
  may: opening now beats any card. After opening it takes the discard when
  it can be laid off on the table or improves the hand score of
  `basic-expert` (deadwood minus near-meld potential) clearly; otherwise the
  stock.
* **Opening.** A meld is legal before opening only when the opening can still
  be completed this turn, so a legal meld means "open now". The agent opens
  at once, laying first the most valuable pure run (the opening needs one),
  then the melds without jokers, most valuable first, and jokers only where
  the count needs them: jokers are kept for later lay-offs and melds.
* **After opening.** Every meld of the best arrangement goes down and every
  card that fits a table meld is laid off (each card laid is a card that
  cannot be caught in hand), highest value first; a joker is laid off last.
  The last card must be discarded to go out; the engine masks plays that
  would leave no legal discard, so the agent cannot get stuck.
* **Discard.** `basic-expert`'s score: deadwood after the discard minus the
  near-meld potential, plus the danger of feeding the next player. High
  unconnected cards go early, which cuts the penalty once open; connected
  high cards are kept while they can still help reach 51. A joker is never
  discarded while another card can be.
"""

from __future__ import annotations

from agents.base import DRAW_DISCARD, MELD, View, move_cards
from agents.basic_rummy import BasicExpertAgent
from rummy_env.cards import JOKER
from rummy_env.rules import RuleSet


class Rummy51ExpertAgent(BasicExpertAgent):
    """Rule-based Rummy 51 (see the module docstring).

    Args:
        rules: a rule set with an opening requirement (``rummy51``).
        seat: the seat it plays.
        potential_weight, danger_weight: as in `basic-expert`'s discard score.
    """

    name = "rummy51-expert"

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
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

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("potential_weight", "danger_weight")

    def is_open(self, v: View) -> bool:
        return True if v.opened is None else bool(v.opened[0])

    # ------------------------------------------------------------------ draw
    def expert_draw(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        takes = by_kind.get(DRAW_DISCARD, [])
        if takes and not self.is_open(v):
            return takes[0]  # legal only when it opens this turn
        return super().expert_draw(v, by_kind, legal)

    # ------------------------------------------------------------------ play
    def expert_play(self, v: View, by_kind: dict[int, list[int]], legal: list[int]) -> int:
        melds = by_kind.get(MELD)
        if melds and not self.is_open(v):
            return min(melds, key=lambda a: self.opening_key(v, a))
        return super().expert_play(v, by_kind, legal)

    def opening_key(self, v: View, a: int) -> tuple:
        cards = move_cards(self.moves[a], v.hand)
        faces = self.moves[a][2]
        jokers = sum(f == JOKER for f in cards)
        is_run = len({f % 13 for f in faces if f != JOKER}) > 1
        pure_run = is_run and not jokers
        value = self._meld_value(faces, is_run)
        need_pure = v.turn_value == 0  # nothing laid this turn yet: the pure run comes first
        return (jokers, not (pure_run and need_pure), -value, a)

    def _meld_value(self, faces: tuple[int, ...], is_run: bool) -> int:
        ace = self.rules.ace_meld_value
        total = 0
        for i, f in enumerate(faces):
            r = f % 13
            if r == 0:
                low = is_run and i == 0  # an ace opening a run is low (A-2-3)
                total += 1 if low else ace
            else:
                total += min(r + 1, 10)
        return total

    # --------------------------------------------------------------- discard
    def expert_discard(self, v: View, discards: list[int], fits: dict[int, int]) -> int:
        naturals = [a for a in discards if self.moves[a][1] != JOKER]
        return self.rank_discards(v, naturals or discards, fits)[0]
