"""The end of a round: its scoring (the game's, :mod:`rummy_env.engine.game`), the
match's end and bonuses, and the next deal."""

from __future__ import annotations


def _match_by_target(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Points scoring: over when a total reaches the target; the highest total wins."""
    top = max(s.totals)
    over = top >= s.rules.target
    if over:
        s.match_winner = (
            winner if winner is not None and s.totals[winner] == top else s.totals.index(top)
        )
    return over


def _end_round(
    s: GameState, winner: int | None, reason: str, points: int = 0, showdown: dict | None = None
) -> bool:
    """Score the round that just ended; deal the next one if the match goes on.

    ``winner`` is None for a void hand (gin wall); ``points`` and ``showdown``
    are the knock result in a knocking game.
    """
    rules = s.rules
    n = rules.num_players
    rummy = reason == "went_out" and winner is not None and not s.played[winner]
    vals = [s.hand_value(p) if s.active[p] else 0 for p in range(n)]
    game = s.game
    scores, rewards = game.score(s, winner, rummy, vals, points)
    for p in range(n):
        s.totals[p] += scores[p]
    s.round_scores = scores
    s.winner = winner
    s.reason = reason
    eliminated: list[int] = []
    bonus = None
    if rules.match:
        over = game.match_over(s, winner, eliminated)
        if over and game.match_bonus is not None:
            bonus = game.match_bonus(s, rewards)
    else:
        over = True
        s.match_winner = winner
    s.last_result = {
        "round": s.round,
        "round_scores": list(scores),
        "totals": list(s.totals),
        "winner": winner,
        "reason": reason,
        "rummy": rummy,
        "rewards": rewards,
        "eliminated": eliminated,
        "match_over": over,
        "match_winner": s.match_winner if over else None,
    }
    if game.round_info is not None:
        s.last_result["info"] = game.round_info(s)
    if showdown is not None:
        s.last_result["showdown"] = showdown
    if bonus is not None:
        s.last_result["bonuses"] = bonus
    if over:
        s.phase = Phase.GAME_OVER
        s._legal = []
    else:
        s.round += 1
        s.dropped = [-1] * n  # (the deal passes to the next seat in the match)
        _start_round(s, _next_active(s, s.dealer))
    return True


from rummy_env.engine.deal import _start_round  # noqa: E402
from rummy_env.engine.state import GameState, Phase, _next_active  # noqa: E402
