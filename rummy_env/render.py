"""Text rendering of a game, seen by one player (hidden cards stay hidden), and
of a round's result (who won, why, and what each player's score means)."""

from __future__ import annotations

import textwrap
from typing import Any

from rummy_env.cards import card_str, counts_str, plural
from rummy_env.engine import GameState, Phase, acting_seat
from rummy_env.engine.game import game_of
from rummy_env.rules import RuleSet

#: why a round ended (the ``reason`` of the round's info), in words
REASONS = {
    "went_out": "went out",
    "stock_exhausted": "the stock ran out and may not be rebuilt again",
    "turn_limit": "the round reached its turn limit",
    "stock_empty": "the stock was empty and the player to draw ended the round",
    "wall": "only the wall was left in the stock",
    "knock": "knocked",
    "gin": "went gin",
    "big_gin": "went big gin",
    "undercut": "undercut the knocker",
    "declared": "declared (every other card in melds, two runs, one pure)",
    "dropped": "every other player dropped out",
    "all_passed": "the pool was empty and every player passed in a row",
}

#: what ``round_scores`` and the rewards mean, per ``RuleSet.scoring``: (the scores' name, meaning)
SCORE_MEANING = {
    "canasta": (
        "points",
        "each side scores the cards of its melds, 500 a natural and 300 a mixed canasta, "
        "100 a red 3 (800 for all four; negative for a side without a meld), 100 for "
        "going out (200 concealed), less the cards left in its hands; partners score "
        "alike; higher is better",
    ),
    "rummikub": (
        "points",
        "each other player pays the winner his rack total (a joker 30) less the "
        "winner's, zero-sum; higher is better",
    ),
    "standard": (
        "penalties",
        "the value of the cards left in each hand, the winner 0, added to the "
        "totals; lower is better; the reward is minus the penalty",
    ),
    "winner_takes_all": (
        "points",
        "the winner scores the value of the others' hands (times the rummy "
        "multiplier for a rummy), the others 0; the winner's reward is his "
        "points, each loser's minus the value of his hand",
    ),
    "rummy500": (
        "points",
        "the value melded and laid off this round minus the cards left in hand; "
        "higher is better; the reward is the points",
    ),
    "gin": (
        "points",
        "the winner of the hand scores his deadwood difference plus bonuses, the other "
        "0; the reward is the points for the winner and minus them for the loser",
    ),
    "indian": (
        "penalties",
        "each loser's count (his cards outside his melds if he can show two runs, one "
        "pure, else all of them; at most the cap) or his drop penalty, the winner 0, added "
        "to the totals; the winner's reward is the sum, each loser's minus his penalty",
    ),
}


def round_outcome(result: dict[str, Any]) -> str:
    """Who won the round and why, in one phrase: ``"player_1 went out"``,
    ``"the stock ran out and may not be rebuilt again: player_0 holds the lowest hand and wins"``."""
    w, reason = result["winner"], result["reason"]
    why = REASONS.get(reason, reason)
    if reason in ("declared", "dropped"):
        return f"player_{w} wins: {why}"
    if reason == "went_out":
        return f"player_{w} went out" + (" in one turn (a rummy)" if result.get("rummy") else "")
    if reason in ("knock", "gin", "big_gin", "undercut"):
        sd = result.get("showdown") or {}
        dead = (
            f" (deadwood: knocker {sd['knocker_deadwood']}, defender {sd['defender_deadwood']})"
            if "knocker_deadwood" in sd
            else ""
        )
        return f"player_{w} {why} and wins the hand{dead}"
    if w is None:
        return f"{why}: no winner"
    return f"{why}: player_{w} holds the lowest hand and wins"


def describe_result(result: dict[str, Any], rules: RuleSet) -> str:
    """A round's result in words: who won and why, each player's score and
    reward with what they mean under ``rules.scoring``, and the match totals.

    ``result`` is ``GameState.last_result`` (or the round's ``info``, then
    without the rewards).
    """
    n = len(result["round_scores"])
    penalties = game_of(rules).penalties
    name, meaning = SCORE_MEANING.get(rules.scoring, ("scores", ""))
    lines = [
        f"round {result['round'] + 1} over: {round_outcome(result)}.",
        *textwrap.wrap(f"{name.capitalize()} this round, {rules.scoring} scoring: {meaning}.", 88),
    ]
    rewards = result.get("rewards")
    for p in range(n):
        line = f"  player_{p}: {result['round_scores'][p]:>4}"
        if rewards is not None:
            line += f"   reward {rewards[p]:+d}"
        if p == result["winner"]:
            line += "   (winner)"
        lines.append(line)
    if rules.match:
        goal = (
            f"a player over {rules.penalty_limit} is out"
            if penalties and rules.elimination
            else f"the match ends at {rules.penalty_limit}, lowest total wins"
            if penalties
            else f"the first to {rules.target} wins"
        )
        lines.append(
            f"match totals ({goal}): {result['totals']}"
            + (
                f"; match over, winner player_{result['match_winner']}"
                if result.get("match_winner") is not None
                else ""
            )
        )
    return "\n".join(lines)


def render_text(state: GameState, viewer: int | None = None) -> str:
    """The table as text, seen by ``viewer`` (default: the player to act).

    Shows the viewer's hand, every meld with its owner and slot number, the
    discard pile (top last), the stock size, other hands as sizes plus the
    cards known to be in them, and the scores. Rounds are numbered from 1
    here ("round 1"); ``state.round`` and the round's ``info["round"]`` are
    0-based indices (0 for round 1).
    """
    if viewer is None:
        viewer = acting_seat(state)
    lines = _head_lines(state)
    lines += _variant_lines(state)
    lines += _table_lines(state)
    lines += _seat_lines(state, viewer)
    lines += _score_lines(state)
    return "\n".join(lines)


def _head_lines(state: GameState) -> list[str]:
    """The game, round, dealer and who acts; the stock and the discard pile; the turn's
    constraints on discarding and melding."""
    head = f"{state.rules.name} · round {state.round + 1} · dealer player_{state.dealer}"
    if state.phase == Phase.GAME_OVER:
        head += " · game over"
    else:
        head += f" · player_{acting_seat(state)} to {state.phase.name.lower()}"
    pile = " ".join(card_str(f) for f in state.discard)
    lines = [
        head,
        f"stock: {plural(len(state.stock), 'card')} · discard (top last): {pile or '-'}",
    ]
    playing = state.phase != Phase.GAME_OVER
    if state.forbidden >= 0 and playing:
        lines.append(f"may not discard this turn: {card_str(state.forbidden)}")
    if state.must_use >= 0 and playing:
        lines.append(f"must use at once (next meld or lay-off): {card_str(state.must_use)}")
    return lines


def _variant_lines(state: GameState) -> list[str]:
    """What the game adds (its ``render_lines`` hooks): the opening, the contract and buys,
    the credit, the knock limit, the cut card and wild rank."""
    return [line for lines in state.game.render_lines for line in lines(state)]


def _table_lines(state: GameState) -> list[str]:
    """The table's melds with owners and slot numbers (Rummikub: one pool of tiles, shown
    as one valid split of it, with the tiles played this turn and the pool)."""
    if state.game.table_lines is not None:  # (Rummikub's pool of tiles, Canasta's sides)
        return state.game.table_lines(state)
    lines = ["table:" if state.table else "table: no melds"]
    for i, m in enumerate(state.table):
        kind = "run" if m.is_run else "set"
        lines.append(
            f"  [{i:2d}] player_{m.owner} {kind}: {' '.join(card_str(f) for f in m.cards)}"
        )
    return lines


def _seat_lines(state: GameState, viewer: int) -> list[str]:
    """A line per seat: the viewer's hand, the others' sizes and known cards."""
    lines = []
    for p in range(state.rules.num_players):
        mark = ">" if p == acting_seat(state) and state.phase != Phase.GAME_OVER else " "
        tag = "" if state.active[p] else " (eliminated)"
        if state.dropped[p] >= 0:
            tag += f" (dropped, pays {state.dropped[p]})"
        if p == viewer:
            cards = " ".join(card_str(f) for f in state.hand_cards(p))
            lines.append(f"{mark} player_{p} hand ({state.nhand[p]}): {cards}{tag}")
        else:
            known = counts_str(state.known[p])
            extra = f", known: {' '.join(known)}" if known else ""
            lines.append(f"{mark} player_{p}: {plural(state.nhand[p], 'card')}{extra}{tag}")
    return lines


def _score_lines(state: GameState) -> list[str]:
    """The totals and what they mean, and the last round's result."""
    rules = state.rules
    name = SCORE_MEANING.get(rules.scoring, ("scores",))[0]
    better = "lower" if state.game.penalties else "higher"
    lines = [f"totals ({name}, {better} is better): {state.totals}"]
    if state.last_result is not None:
        r = state.last_result
        lines.append(
            f"round {r['round'] + 1} result: {round_outcome(r)}; {name} {r['round_scores']}"
        )
    return lines
