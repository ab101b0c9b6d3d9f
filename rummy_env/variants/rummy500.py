"""Rummy 500 and Persian rummy (RULES.md 4 rummy500): melded points minus the hand."""

from __future__ import annotations

from collections.abc import Callable


def configure(rules: RuleSet, g: Game) -> None:
    if rules.scoring != "rummy500":
        return
    g.score = _score_rummy500
    g.stuck_count = None  # a round nobody went out of scores as it stands


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


from rummy_env.engine.flow import _meld_value  # noqa: E402
from rummy_env.engine.game import Game  # noqa: E402
from rummy_env.engine.state import GameState  # noqa: E402
from rummy_env.rules import RuleSet  # noqa: E402
