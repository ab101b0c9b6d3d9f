"""Indian rummy (RULES.md 4 indian): the cut wild rank, drops, declaring, the pool."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

from rummy_env.cards import (
    JOKER,
    NUM_FACES,
    NUM_NATURAL,
    NUM_RANKS,
    card_str,
)
from rummy_env.engine.deal import _parse
from rummy_env.engine.fields import CARD, FLAG, INT_OR_NONE, Field
from rummy_env.engine.flow import _apply_discard, _apply_draw, _end_turn
from rummy_env.engine.game import Game, PhaseRules
from rummy_env.engine.legal import _FACES, _legal_draw, held_faces
from rummy_env.engine.saved import _Saved
from rummy_env.engine.scoring import _end_round
from rummy_env.engine.state import GameState, Phase, _tables
from rummy_env.melds import (
    run3_bits,
    show_arrangement,
    show_discards,
)
from rummy_env.rules import RuleSet
from rummy_env.variants.basic import _match_by_elimination, _match_by_penalty_limit

#: Indian rummy's fields: the cut card (the stock's bottom card until drawn), the drop
#: penalty of each seat that left the round, whether each seat has drawn this round
FIELDS = (
    Field(
        "cut",
        CARD,
        -1,
        used=lambda r: r.wild_rank == "cut",
        unused="these rules have no cut card (wild_rank='none')",
    ),
    Field("dropped", INT_OR_NONE, -1, per_seat=True, lo=0),
    Field(
        "drew",
        FLAG,
        False,
        per_seat=True,
        used=lambda r: r.scoring == "indian",
        unused="draws are tracked in Indian rummy only",
    ),
)


def check_rules(r: RuleSet) -> None:
    """The cut wild rank, drops and the count cap are Indian rummy's, which goes out by
    declaring a hand of at most 13 cards."""
    off = [
        f"{k}={getattr(r, k)!r}"
        for k, v in (("wild_rank", "none"), ("drop_penalties", (0, 0)), ("penalty_cap", 0))
        if getattr(r, k) != v
    ]
    if r.scoring != "indian":
        if off:
            raise ValueError(
                f"{', '.join(off)} is not allowed with scoring={r.scoring!r} "
                "(allowed: wild_rank='none', drop_penalties=(0, 0), penalty_cap=0; the cut wild "
                "rank, drops and the count cap are Indian rummy's, scoring='indian')"
            )
        return
    if r.hand_size > 13:
        raise ValueError(
            f"hand_size={r.hand_size} is not allowed with scoring='indian' (allowed: "
            "1-13, Indian rummy's deal: a declaration is found by a search over the hand's "
            "arrangements in melds, whose cost grows too fast past it)"
        )
    if r.meld_during_play:
        raise ValueError(
            "scoring='indian' is not allowed with meld_during_play=True (allowed: "
            "meld_during_play=False: the melds are shown when a player declares)"
        )
    if r.open_points or r.knock_limit:
        raise ValueError(
            f"scoring='indian' is not allowed with open_points={r.open_points}, "
            f"knock_limit={r.knock_limit} (allowed: 0 for both: a player goes out by "
            "declaring)"
        )


def configure(rules: RuleSet, g: Game) -> None:
    """The cut card, drops before the draw, declaring instead of going out, and the pool
    scoring."""
    g.checks += (_check_drops, _check_indian)
    if rules.wild_rank == "cut":
        g.on_deal = _cut
        g.render_lines += (_cut_lines,)
        g.deal_stock = _cut_stock
        g.on_restore = _restore_cut
    if rules.scoring != "indian":
        return
    g.draw = PhaseRules(_legal_indian_draw, _apply_indian_draw)
    P = rules.num_players
    g.obs_slices = {**g.obs_slices, "cut": NUM_FACES, "wild_rank": NUM_RANKS}
    g.obs_slices.update(dropped=P, drew=P)
    g.obs_writers += (_write_obs,)
    g.obs_view += (_read_obs,)
    declare = NUM_NATURAL + (1 if rules.wilds else 0)  # Declare(card), as a discard
    g.blocks = {**g.blocks, "DECLARE": declare, "DROP": 1 if any(rules.drop_penalties) else 0}
    g.play = PhaseRules(_legal_declare_play, _apply_declare_play)
    g.score = _score_indian
    g.penalties = True
    g.match_over = _match_by_elimination if rules.elimination else _match_by_penalty_limit
    g.stuck_count = _indian_count


def _write_obs(o: Any, layout: Any, s: GameState, player: int) -> None:
    """The observation's cut card and wild rank, and who has dropped or drawn (seats from
    ``player`` on)."""
    if s.cut >= 0:
        o[layout.CUT + s.cut] = 1.0
        o[layout.WILD_RANK + s.wild_faces[0]] = 1.0  # (the spade of the wild rank)
    dropped, drew = s.dropped, s.drew
    P = len(dropped)
    for off in range(P):
        q = (player + off) % P
        if dropped[q] >= 0:
            o[layout.DROPPED + off] = 1.0
        if drew[q]:
            o[layout.DREW + off] = 1.0


def _read_obs(r: Any, P: int) -> dict[str, Any]:
    return {"dropped": r.flags("dropped"), "drew": r.flags("drew")}


def _cut_lines(s: GameState) -> list[str]:
    if s.cut < 0:
        return []
    rank = "A23456789TJQK"[s.wild_faces[0]]
    return [f"cut card: {card_str(s.cut)} · wild rank this round: {rank}"]


def _cut_stock(options: dict[str, Any], stock: list[int], shuffled: bool) -> list[int]:
    """A crafted deal's stock (bottom first) with its cut card at the bottom: put there when
    the stock is shuffled, else it must be the given stock's last card."""
    cut = options.get("cut")
    if cut is not None:
        cut = _parse(cut, "cut")
        if shuffled:
            if cut not in stock:
                raise ValueError(
                    f"cut={card_str(cut)}: every copy of it is dealt (allowed: a card of the stock)"
                )
            stock.remove(cut)
            stock.insert(0, cut)
        elif not stock or stock[0] != cut:
            raise ValueError(
                f"cut={card_str(cut)} is not the bottom of the stock "
                f"({card_str(stock[0]) if stock else 'empty'}) (allowed: "
                "the stock's last card, or omit the stock to have it shuffled with the cut "
                "at the bottom)"
            )
    if not stock:
        raise ValueError(
            "the deal leaves no stock to cut (allowed: at least one stock card with wild_rank='cut')"
        )
    return stock


def _cut(s: GameState, shuffled: bool) -> None:
    """After the deal: the stock's top card turned and put at its bottom (a shuffled deal),
    the bottom card the cut (``Game.on_deal``)."""
    if shuffled:
        s.stock.insert(0, s.stock.pop())
    _set_cut(s, s.stock[0])


def _restore_cut(s: GameState, f: _Saved) -> None:
    """A restored state's cut card sets the wild rank and the card values."""
    if s.cut < 0:
        raise f.error("cut", f.d.get("cut"), "the round's cut card (wild_rank='cut')")
    _set_cut(s, s.cut)


def _set_cut(s: GameState, cut: int) -> None:
    """Indian rummy: the round's cut card, its wild rank (aces for a joker) and the card
    values (a wild card counts 0)."""
    s.cut = cut
    rank = 0 if cut == JOKER else cut % NUM_RANKS
    s.wild_faces = tuple(su * NUM_RANKS + rank for su in range(4))
    s.values = list(_tables(s.rules).values_by_rank[rank])


def _legal_indian_draw(s: GameState) -> list[int]:
    """Draw phase of Indian rummy: the stock or the top discard, or drop (leave the round)."""
    L = s.layout
    acts = _legal_draw(s)
    return [*acts, L.DROP] if L.size > L.DROP else acts


def _apply_indian_draw(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    if a == L.DROP:
        first, middle = s.rules.drop_penalties
        s.dropped[p] = middle if s.drew[p] else first
        left = [q for q in range(len(s.active)) if s.active[q] and s.dropped[q] < 0]
        if len(left) == 1:
            return _end_round(s, left[0], "dropped")
        return _end_turn(s, p)
    # the cut card lies face up at the bottom of the stock: whoever draws it is seen to
    last_cut = a == L.DRAW_STOCK and s.rebuilds == 0 and len(s.stock) == 1 and s.cut >= 0
    s.drew[p] = True
    ended = _apply_draw(s, p, a)
    if last_cut:
        s.known[p][s.cut] += 1
    return ended


def _legal_declare_play(s: GameState) -> list[int]:
    """Play phase of Indian rummy: discard a card, or declare with it (the other 13 cards
    in melds, two runs one pure); never the card taken from the discard pile."""
    p = s.current
    forb = s.forbidden
    faces = [f for f in compress(_FACES, s.hands[p]) if f != forb]
    b, d = s.layout.DISCARD, s.layout.DECLARE
    return [b + f for f in faces] + [d + f for f in _declarable(s, p, faces)]


def _apply_declare_play(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    if a < L.DECLARE:
        return _apply_discard(s, p, a)
    f = a - L.DECLARE
    s._remove(p, f)
    s.discard.append(f)
    found = show_arrangement(s.cat, s.hands[p], s.wild_faces, None, 0)
    melds = found[1] if found else []
    return _end_round(s, p, "declared", 0, {"declarer_melds": melds})


def _declarable(s: GameState, p: int, faces: list[int]) -> list[int]:
    """The faces among ``faces`` whose discard leaves player ``p`` a valid show: every
    other card in melds, at least two runs, one pure (D-14). A quick exit first: a pure
    run needs three neighbouring naturals of a suit."""
    if not run3_bits(held_faces(s.smask[p]), s.cat.ace_high):
        return []
    found = show_discards(s.cat, s.hands[p], s.wild_faces)
    return [f for f in faces if f in found]


def _indian_count(s: GameState, p: int) -> int:
    """What player ``p`` pays in Indian rummy: his drop penalty, or his cards counted
    (D-14: outside his melds when he can show two runs, one pure; else all of them),
    capped at ``penalty_cap``."""
    if s.dropped[p] >= 0:
        return s.dropped[p]
    total = s.hand_value(p)
    found = show_arrangement(s.cat, s.hands[p], s.wild_faces, s.values, total)
    count = total if found is None else found[0]
    cap = s.rules.penalty_cap
    return min(count, cap) if cap else count


def _score_indian(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    """D-15: each loser pays his count (or drop penalty) to the winner; the totals hold
    the counts as penalties."""
    n = s.rules.num_players
    scores = [_indian_count(s, p) if s.active[p] and p != winner else 0 for p in range(n)]
    rewards = [-v for v in scores]
    if winner is not None:
        rewards[winner] = sum(scores)
    return scores, rewards


def _check_drops(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Indian rummy's drops, in every phase: a drop penalty of the rules, by an active seat;
    while the round is in play, the player to act and at least one other still in it
    (every other preset: no drops at all)."""
    drops = s.rules.drop_penalties
    over = s.phase == Phase.GAME_OVER  # (the match's last round may eliminate a dropped seat)
    for p, d in enumerate(s.dropped):
        if d >= 0 and (d not in drops or not any(drops) or not (over or s.active[p])):
            fail(
                f"dropped[{p}]",
                f"={d}",
                f"None, or one of drop_penalties={drops} for an active seat "
                "(no drops when they are (0, 0))",
            )
    if over:
        return
    if s.dropped[s.current] >= 0:
        fail("current_player", f"={s.current} has dropped", "a seat still in the round")
    if sum(1 for p, d in enumerate(s.dropped) if d < 0 and s.active[p]) < 2:
        fail(
            "dropped", f"={s.dropped}", "at least two seats still in the round while it is in play"
        )


def _check_indian(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Indian rummy's fields of a round in play: draws and the cut card."""
    if s.phase == Phase.GAME_OVER:
        return
    if s.cut >= 0 and s.rebuilds == 0 and s.stock and s.stock[0] != s.cut:
        fail(
            "cut",
            f"={card_str(s.cut)} with the stock's bottom card {card_str(s.stock[0])}",
            "the bottom card of the stock until it is drawn",
        )
