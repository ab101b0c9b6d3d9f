"""Rummy 500 and Persian rummy (RULES.md 4 rummy500): melded points minus the hand."""

from __future__ import annotations

from collections.abc import Callable

from rummy_env.engine.fields import INT, Field
from rummy_env.engine.flow import _meld_value
from rummy_env.engine.game import Game
from rummy_env.engine.state import (
    GameState,
    TableMeld,
)
from rummy_env.rules import RuleSet

#: rummy500's fields: the value each seat melded and laid off this round
FIELDS = (
    Field(
        "credit",
        INT,
        0,
        per_seat=True,
        used=lambda r: r.scoring == "rummy500",
        unused="credit is scored in rummy500 only",
    ),
)


def resolve_rules(r: RuleSet) -> None:
    """Rummy 500's deal: 13 cards with 2 players, 7 with more."""
    if r.scoring == "rummy500" and r.hand_size == 0:
        object.__setattr__(r, "hand_size", 13 if r.num_players == 2 else 7)


def configure(rules: RuleSet, g: Game) -> None:
    if rules.scoring != "rummy500":
        return
    g.score = _score_rummy500
    g.on_meld = _credit
    g.render_lines += (_credit_lines,)
    g.checks += (_check_credit,)
    g.stuck_count = None  # a round nobody went out of scores as it stands


def _credit_lines(s: GameState) -> list[str]:
    return [f"melded and laid off this round: {s.credit}"]


def _credit(s: GameState, p: int, new: TableMeld, old: TableMeld | None) -> None:
    """Melded points are the melder's; a lay-off's or swap's gain is the player's who made it."""
    rules = s.rules
    s.credit[p] += _meld_value(new, rules) - (_meld_value(old, rules) if old is not None else 0)


def _score_rummy500(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    scores = [s.credit[p] - vals[p] if s.active[p] else 0 for p in range(s.rules.num_players)]
    return scores, list(scores)


def _check_credit(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Rummy 500's credit: what each seat melded and laid off this round, so never
    negative, and together the value of the table's melds."""
    for p, c in enumerate(s.credit):
        if c < 0:
            fail(
                f"credit[{p}]",
                f"={c}",
                "0 or more: the value of the cards the seat melded and laid off this round",
            )
    value = sum(_meld_value(m, s.rules) for m in s.table)
    if sum(s.credit) != value:
        fail(
            "credit",
            f"={s.credit} (sum {sum(s.credit)})",
            f"credits summing to {value}, the value of the table's melds: each card on the "
            "table is credited to the seat that melded or laid it off",
        )
