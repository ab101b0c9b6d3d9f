"""The turn flow: an action is checked and applied through the phase table, melds and
lay-offs go down, turns pass, the stock is rebuilt or the round ends when it cannot be."""

from __future__ import annotations

from functools import cache

from rummy_env.cards import (
    JOKER,
    NUM_NATURAL,
    shuffle,
)
from rummy_env.melds import (
    code_faces,
    run_face,
    run_value,
    set_value,
)
from rummy_env.rules import RuleSet


def apply_action(s: GameState, a: int) -> bool:
    """Apply legal action ``a`` for the player to act.

    Returns:
        True when this action ended a round (``s.last_result`` describes it).

    Raises:
        IllegalActionError: ``a`` is not legal now; the state is unchanged.
    """
    legal = s._legal if s._legal is not None else legal_actions(s)
    if a not in legal:
        raise IllegalActionError(_illegal_message(s, a))
    return apply_legal_action(s, a)


def apply_legal_action(s: GameState, a: int) -> bool:
    """:func:`apply_action` without the legality check, for callers that took ``a``
    from :func:`legal_actions` (or :func:`discard_only`): rollouts. An illegal ``a``
    corrupts the state."""
    s._legal = None
    s.step_count += 1
    ph = s.phases[s.phase]
    return ph.apply(s, ph.actor(s), a)


def _apply_draw(s: GameState, p: int, a: int) -> bool:
    """Draw phase: the stock, the discard pile (at a depth), or end a stuck round."""
    if a == 0:
        f = s.stock.pop()
        s._add(p, f)
        s.forbidden = -1
        s.phase = _PLAY
        s.upcard_stage = -1
        return False
    L = s.layout
    if a < L.MELD:
        _draw_discard(s, p, a - L.DRAW_DISCARD)
        return False
    # END_ROUND (rummy500): stock empty, no dig wanted
    return _end_stuck_round(s, "stock_empty")


def _apply_play(s: GameState, p: int, a: int) -> bool:
    """Play phase: a meld, lay-off or joker swap (the turn goes on), or a discard or knock."""
    L = s.layout
    if a >= L.DISCARD:
        return _apply_discard(s, p, a) if a < L.KNOCK else s.game.knock(s, p, a)
    on_meld = s.game.on_meld
    if a < L.LAYOFF:
        _apply_meld(s, p, a - L.MELD)
    elif a < L.SWAP:
        mi, k = divmod(a - L.LAYOFF, L.layoff_width)
        m = s.table[mi]
        f = m.accepts[k]
        if f == JOKER:
            f = _wild_for(s, s.hands[p], m, k)
        s._remove(p, f)
        new = m.laid_off(k, s.cat, f)
        s.table[mi] = new
        s.turn_played = True
        if on_meld is not None:
            on_meld(s, p, new, m)
    else:
        mi, f = divmod(a - L.SWAP, NUM_NATURAL)
        m = s.table[mi]
        s._remove(p, f)
        new, taken = m.swapped(f, s.cat)
        s._add(p, taken)
        s.known[p][taken] += 1
        s.table[mi] = new
        s.turn_played = True
        if on_meld is not None:
            on_meld(s, p, new, m)
    s.must_use = -1
    if s.nhand[p] == 0:
        return _end_round(s, p, "went_out")
    return False


def _apply_after_game(s: GameState, p: int, a: int) -> bool:
    raise IllegalActionError(_illegal_message(s, a))


@cache
def phase_table(rules: RuleSet) -> tuple[PhaseRules, ...]:
    """The :class:`PhaseRules` of each :class:`Phase` under ``rules`` (indexed by phase)."""
    return game_of(rules).phases()


def _meld_value(m: TableMeld, rules: RuleSet) -> int:
    """Value of a table meld (rummy500 credit, rummy51 opening count)."""
    if m.is_run:
        return run_value(m.lo, m.hi, m.wild, rules.ace_meld_value, rules.joker_meld_value)
    return set_value(
        m.key, len(m.cards) - m.n_wild, m.n_wild, rules.ace_meld_value, rules.joker_meld_value
    )


def _apply_discard(s: GameState, p: int, a: int) -> bool:
    """A discard ends the turn (or the round: out, or the gin wall reached)."""
    f = a - s.layout.DISCARD
    s._remove(p, f)
    s.discard.append(f)
    if s.nhand[p] == 0:
        return _end_round(s, p, "went_out")
    wall = s.rules.wall
    if wall and len(s.stock) <= wall:
        return _end_stuck_round(s, "wall")
    return _end_turn(s, p)


def _apply_meld(s: GameState, p: int, mid: int) -> None:
    cat = s.cat
    if mid < cat.n_sets:
        rank, k = divmod(mid, len(cat.set_shapes))
        code, w = cat.set_shapes[k]
        for f in code_faces(code, rank):
            s._remove(p, f)
        fill = _wild_fill(s, s.hands[p], w)
        for f in fill:
            s._remove(p, f)
        s.table.append(TableMeld(p, False, rank, 0, 0, 0, code, w, cat, tuple(fill)))
    else:
        su, k = divmod(mid - cat.n_sets, len(cat.segments))
        lo, hi = cat.segments[k]
        hand = s.hands[p]
        wild = 0
        nw = 0
        for pos in range(lo, hi + 1):  # naturals from hand first
            f = run_face(su, pos)
            if hand[f]:
                s._remove(p, f)
            else:
                wild |= 1 << pos
                nw += 1
        fill = _wild_fill(s, hand, nw)
        for f in fill:
            s._remove(p, f)
        s.table.append(TableMeld(p, True, su, lo, hi, wild, 0, nw, cat, tuple(fill)))
    s.turn_played = True
    rules = s.rules
    game = s.game
    m = s.table[-1]
    if game.on_meld is not None:
        game.on_meld(s, p, m, None)
    if not s.opened[p]:
        s.turn_value += _meld_value(m, rules)
        s.turn_pure = s.turn_pure or (m.is_run and not m.n_wild)
        s.opened[p] = game.opened_by(s, p)


def _end_turn(s: GameState, p: int) -> bool:
    if s.turn_played:
        s.played[p] = True
    s.turn_played = False
    s.forbidden = -1
    s.must_use = -1
    s.turn_value = 0
    s.turn_pure = False
    s.current = _next_active(s, p)
    s.phase = _DRAW
    s.turns += 1
    if s.turns >= s.rules.max_turns > 0:
        return _end_stuck_round(s, "turn_limit")
    return False if s.stock else _begin_draw(s)


def _begin_draw(s: GameState) -> bool:
    """Rebuild an empty stock, or end the round when it cannot be (D-8).

    Returns True when the round ended."""
    rules = s.rules
    if s.stock or not s.game.discard_pile:  # (Rummikub: an empty pool, players pass)
        return False
    if rules.empty_stock == "end_round":
        return False  # the player digs or ends the round (EndRound)
    if s.rebuilds < rules.max_stock_rebuilds:
        if rules.rebuild_keeps_top and len(s.discard) >= 2:
            top = s.discard[-1]
            new = s.discard[:-1]
            shuffle(new, s.seed * 1_000_003 + s.round * 101 + s.rebuilds + 7)
            s.stock = new
            s.discard = [top]
            s.rebuilds += 1
            return False
        if not rules.rebuild_keeps_top and len(s.discard) >= 2:
            # turned over: the first discard becomes the top of the stock (list end)
            s.stock = s.discard[::-1]
            s.discard = [s.stock.pop()]
            s.rebuilds += 1
            return False
    return _end_stuck_round(s, "stock_exhausted")


def _end_stuck_round(s: GameState, reason: str) -> bool:
    """End a round nobody went out of (D-8; also the gin wall and rummy500's EndRound,
    under any scoring): the lowest hand wins, ties to the player to act and then the
    nearest after him in turn order; rummy500 scores as it stands, gin is void."""
    count = s.game.stuck_count
    if count is None:
        return _end_round(s, None, reason)
    best, bv = s.current, count(s, s.current)
    q = _next_active(s, s.current)
    while q != s.current:
        v = count(s, q)
        if v < bv:
            best, bv = q, v
        q = _next_active(s, q)
    return _end_round(s, best, reason)


def is_terminal(s: GameState) -> bool:
    return s.phase == Phase.GAME_OVER


def returns(s: GameState) -> list[int]:
    """Rewards of the last finished round, per seat (zeros before any)."""
    if s.last_result is None:
        return [0] * s.rules.num_players
    return list(s.last_result["rewards"])


def _illegal_message(s: GameState, a: int) -> str:
    from_phase = s.phase.name.lower()
    if s.phase == Phase.GAME_OVER:
        return f"action {a} after the game is over (call reset() to start a new one)"
    return f"action {a} is not legal for player {s.current} in phase {from_phase!r} (legal: {legal_actions(s)})"


from rummy_env.engine.game import PhaseRules, game_of  # noqa: E402
from rummy_env.engine.legal import (  # noqa: E402
    _draw_discard,
    _wild_fill,
    _wild_for,
    legal_actions,
)
from rummy_env.engine.scoring import _end_round  # noqa: E402
from rummy_env.engine.state import (  # noqa: E402
    _DRAW,
    _PLAY,
    GameState,
    IllegalActionError,
    Phase,
    TableMeld,
    _next_active,
)
