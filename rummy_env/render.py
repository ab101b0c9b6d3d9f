"""Text rendering of a game, seen by one player (hidden cards stay hidden)."""

from __future__ import annotations

from rummy_env.cards import card_str
from rummy_env.engine import GameState, Phase


def render_text(state: GameState, viewer: int | None = None) -> str:
    """The table as text, seen by ``viewer`` (default: the player to act).

    Shows the viewer's hand, every meld with its owner and slot number, the
    discard pile (top last), the stock size, other hands as sizes plus the
    cards known to be in them, and the scores.
    """
    n = state.rules.num_players
    if viewer is None:
        viewer = state.current
    lines = []
    head = f"{state.rules.name} · round {state.round + 1} · dealer player_{state.dealer}"
    if state.phase == Phase.GAME_OVER:
        head += " · game over"
    else:
        head += f" · player_{state.current} to {state.phase.name.lower()}"
    lines.append(head)
    pile = " ".join(card_str(f) for f in state.discard)
    lines.append(f"stock: {len(state.stock)} cards · discard (top last): {pile or '-'}")
    if state.forbidden >= 0:
        lines.append(f"may not discard this turn: {card_str(state.forbidden)}")
    if state.must_use >= 0:
        lines.append(f"must use at once (next meld or lay-off): {card_str(state.must_use)}")
    rules = state.rules
    if rules.open_points:
        opened = ", ".join(f"player_{p}" for p in range(n) if state.opened[p]) or "nobody"
        lines.append(f"opened: {opened}" + (f" · melded this turn towards the opening: {state.turn_value}"
                                             if state.turn_value else ""))
    if rules.scoring == "rummy500":
        lines.append(f"melded and laid off this round: {state.credit}")
    if rules.knock_limit or rules.oklahoma:
        lines.append(f"knock limit: {state.knock_limit}")
    lines.append("table:" if state.table else "table: no melds")
    for i, m in enumerate(state.table):
        kind = "run" if m.is_run else "set"
        lines.append(f"  [{i:2d}] player_{m.owner} {kind}: {' '.join(card_str(f) for f in m.cards)}")
    for p in range(n):
        mark = ">" if p == state.current and state.phase != Phase.GAME_OVER else " "
        tag = "" if state.active[p] else " (eliminated)"
        if p == viewer:
            cards = " ".join(card_str(f) for f in state.hand_cards(p))
            lines.append(f"{mark} player_{p} hand ({state.nhand[p]}): {cards}{tag}")
        else:
            known = [card_str(f) for f, c in enumerate(state.known[p]) for _ in range(c)]
            extra = f", known: {' '.join(known)}" if known else ""
            lines.append(f"{mark} player_{p}: {state.nhand[p]} cards{extra}{tag}")
    lines.append(f"totals: {state.totals}")
    if state.last_result is not None:
        r = state.last_result
        lines.append(
            f"last round {r['round'] + 1}: winner player_{r['winner']} ({r['reason']}), "
            f"scores {r['round_scores']}" + (" · rummy!" if r["rummy"] else "")
        )
    return "\n".join(lines)
