"""Contract rummy (RULES.md 4 contract): deals with contracts, going down, buying."""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from rummy_env.cards import (
    JOKER,
    NUM_RANKS,
    card_str,
    plural,
)
from rummy_env.engine.fields import INT, SEAT_OR_NONE, Field
from rummy_env.engine.flow import _apply_draw
from rummy_env.engine.game import Game, PhaseRules
from rummy_env.engine.legal import _legal_draw
from rummy_env.engine.state import (
    GameState,
    Phase,
    TableMeld,
    _next_active,
    _previous_active,
    deal_number,
)
from rummy_env.melds import (
    ACE_HIGH_POS,
    Catalogue,
    code_faces,
)
from rummy_env.rules import CONTRACTS, RuleSet

#: contract rummy's fields: buys left this deal, the seat asked whether it buys (or -1)
FIELDS = (
    Field("buys", INT, lambda r: r.buy_limit, per_seat=True, lo=0, hi=lambda r: r.buy_limit),
    Field(
        "asked",
        SEAT_OR_NONE,
        -1,
        used=lambda r: r.contract,
        unused="only contract rummy asks for buys",
    ),
)


def resolve_rules(r: RuleSet) -> None:
    """Contract rummy's pack and deal by player count: two decks up to 4 players, three
    from 5; 10 cards, 12 from the fifth deal."""
    if r.name != "contract":
        return
    if r.decks == 0:
        object.__setattr__(r, "decks", 2 if r.num_players <= 4 else 3)
    if r.hand_size == 0:
        object.__setattr__(r, "hand_size", 10 if r.contract_deal <= 4 else 12)


def check_rules(r: RuleSet) -> None:
    """Contracts and buying are contract rummy's, with its standard scoring and turn."""
    if r.name != "contract":
        if r.contract_deal or r.buy_limit:
            raise ValueError(
                f"contract_deal={r.contract_deal}, buy_limit={r.buy_limit} is not allowed "
                f"with {r.name!r} (allowed: 0 for both; contracts and buying are the "
                "'contract' preset's)"
            )
        return
    if not 1 <= r.contract_deal <= 7:
        raise ValueError(
            f"contract_deal={r.contract_deal} is not allowed (allowed: 1-7, the deal "
            "whose contract is played)"
        )
    if r.scoring != "standard" or not r.meld_during_play or r.discard_pickup != "top":
        raise ValueError(
            f"scoring={r.scoring!r}, meld_during_play={r.meld_during_play}, "
            f"discard_pickup={r.discard_pickup!r} is not allowed with contract rummy "
            "(allowed: scoring='standard', meld_during_play=True, discard_pickup='top')"
        )


def configure(rules: RuleSet, g: Game) -> None:
    """Seven deals, each with its contract, and buying out of turn."""
    if not rules.contract:
        return
    g.match_over = _match_by_deals
    g.checks += (_check_contract,)
    g.check_standing = _no_standing  # (the match is seven deals, whatever the totals)
    g.hand_size = _hand_size
    P = rules.num_players
    g.obs_slices = {**g.obs_slices, "buy_phase": 1, "deal": 7, "buys": P, "turn": P}
    g.obs_writers += (_write_obs,)
    g.obs_view += (_read_obs,)
    g.render_lines += (_contract_lines,)
    g.one_card_turns = False  # (a buy takes two cards out of turn)
    g.opening_ok = _opening_ok
    g.opened_by = _down
    g.opens_at_once = True
    g.no_final_discard = _no_final_discard

    if rules.buy_limit:
        g.draw = PhaseRules(_legal_draw, _apply_contract_draw)
        # the asked seat decides out of turn
        g.buy = PhaseRules(_legal_buy, _apply_buy, operator.attrgetter("asked"))
        g.blocks = {**g.blocks, "PASS": 1, "BUY": 1}


def _contract_left(s: GameState, p: int) -> tuple[int, int]:
    """The sets and runs of his contract that seat ``p`` has still to lay this turn (before
    he is down, his melds on the table are this turn's)."""
    sets, runs = CONTRACTS[deal_number(s)]
    for m in s.table:
        if m.owner == p:
            if m.is_run:
                runs -= 1
            else:
                sets -= 1
    return sets, runs


def _contract_ok(
    s: GameState, p: int, nat, wu: int, meld: Callable[[], TableMeld] | None, forb: int
) -> bool:
    """Whether, after laying this meld (``meld()`` makes it; None: none, the whole hand),
    the rest of the contract can still be laid from the hand this turn, leaving a move."""
    sets, runs = _contract_left(s, p)
    new = meld() if meld is not None else None
    if new is not None:
        if new.is_run:
            runs -= 1
        else:
            sets -= 1
    if sets < 0 or runs < 0:
        return False
    rest = list(s.hands[p])
    for f in nat:
        rest[f] -= 1
    rest[JOKER] -= wu
    accepts = None
    if _no_final_discard(s):  # a single card left must then be laid off (this meld too)
        table = s.table if new is None else [*s.table, new]
        accepts = frozenset(f for m in table for f in m.accepts.values())
    return _contract_search(s.cat, tuple(rest), sets, runs, forb, accepts)


def _opening_ok(s: GameState, p: int, nat, wu: int, value: int, pure: bool, forb: int, meld=None):
    """``Game.opening_ok``: the rest of the contract can still be laid this turn."""
    return _contract_ok(s, p, nat, wu, meld, forb)


def _write_obs(o: Any, layout: Any, s: GameState, player: int) -> None:
    """The observation's deal, each seat's buys left and whose turn it is (seats from
    ``player`` on)."""
    o[layout.DEAL + deal_number(s) - 1] = 1.0
    buys = s.buys
    P = len(buys)
    for off in range(P):
        o[layout.BUYS + off] = buys[(player + off) % P]
    o[layout.TURN + (s.current - player) % P] = 1.0


def _read_obs(r: Any, P: int) -> dict[str, Any]:
    return {"deal": r.one_hot("deal") + 1, "buys": r.counts("buys", P), "turn": r.one_hot("turn")}


def _contract_lines(s: GameState) -> list[str]:
    """The deal and its contract, who is down, the buys left, the seat asked to buy."""
    rules = s.rules
    deal = deal_number(s)
    sets, runs = CONTRACTS[deal]
    down = ", ".join(f"player_{p}" for p in range(rules.num_players) if s.opened[p]) or "nobody"
    lines = [
        f"deal {deal} of 7 · contract: {plural(sets, 'set')} of 3+ and "
        f"{plural(runs, 'run')} of {rules.min_run}+ · down: {down} · buys left: {s.buys}"
    ]
    if s.asked >= 0:
        lines.append(
            f"player_{s.asked} is asked whether he buys "
            f"{card_str(s.discard[-1])} (player_{s.current} draws from the stock)"
        )
    return lines


def _hand_size(rules: RuleSet, round_: int) -> int:
    """Two more cards from the fifth deal on when the match began before it (10 then 12)."""
    size = rules.hand_size
    if rules.contract_deal < 5 <= rules.contract_deal + round_:
        size += 2
    return size


def _no_standing(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Contract rummy's match ends after its seventh deal (``_check_contract`` checks the
    deal), whatever the totals."""


def _down(s: GameState, p: int) -> bool:
    """Down with the whole contract."""
    return _contract_left(s, p) == (0, 0)


def _no_final_discard(s: GameState) -> bool:
    """Contract rummy's seventh deal: a discard may not empty the hand."""
    return s.rules.contract and deal_number(s) == 7


@lru_cache(maxsize=1 << 16)
def _contract_search(
    cat: Catalogue, counts: tuple, sets: int, runs: int, forb: int, accepts: frozenset | None
) -> bool:
    """Whether ``sets`` sets and ``runs`` runs can be laid from ``counts`` (as meld moves lay
    them: sets of the catalogue's shapes, runs with the naturals held and wild cards for the
    rest), one after another, leaving nothing, or something other than the forbidden face
    ``forb`` to discard; with ``accepts`` (the seventh deal: the faces the table's melds take) a single
    card left must be one the table or a meld laid here takes."""
    return _contract_dfs(cat, list(counts), sets, runs, forb, accepts, [], 0)


def _contract_dfs(cat, c, sets, runs, forb, accepts, laid, start) -> bool:
    w = c[JOKER]
    if sets:  # sets first, in rank order (two of one rank allowed)
        for r in range(start, NUM_RANKS):
            nh = c[r] + c[r + NUM_RANKS] + c[r + 2 * NUM_RANKS] + c[r + 3 * NUM_RANKS]
            if nh < cat.min_naturals or nh + w < 3:
                continue
            for k, wu in cat.sets_for(cat.held_code(c, r), w):
                faces = code_faces(cat.set_shapes[k][0], r)
                meld = (False, r, k, wu)
                if _contract_with(cat, c, faces, meld, sets - 1, runs, forb, accepts, laid, r):
                    return True
        return False
    if runs:  # then runs, by suit and segment
        for su in range(start if laid and laid[-1][0] else 0, 4):
            b = su * NUM_RANKS
            pm = sum(1 << q for q in range(NUM_RANKS) if c[b + q])
            if cat.ace_high and pm & 1:
                pm |= 1 << ACE_HIGH_POS
            for k, wu in cat.runs_for(pm, w):
                lo, hi = cat.segments[k]
                faces = [b + q % NUM_RANKS for q in range(lo, hi + 1) if pm >> q & 1]
                meld = (True, su, k, wu)
                if _contract_with(cat, c, faces, meld, sets, runs - 1, forb, accepts, laid, su):
                    return True
        return False
    return _contract_rest_ok(cat, c, forb, accepts, laid)


def _contract_with(cat, c, faces, meld, sets, runs, forb, accepts, laid, start) -> bool:
    """:func:`_contract_dfs` after laying ``meld`` (``(is_run, key, shape, wilds)``: the
    naturals ``faces`` and jokers) from ``c``, which is left as it was."""
    wu = meld[3]
    for f in faces:
        c[f] -= 1
    c[JOKER] -= wu
    laid.append(meld)
    ok = _contract_dfs(cat, c, sets, runs, forb, accepts, laid, start)
    laid.pop()
    for f in faces:
        c[f] += 1
    c[JOKER] += wu
    return ok


def _contract_rest_ok(cat, c, forb, accepts, laid) -> bool:
    """Whether the cards ``c`` left once the contract is down leave a move (see
    :func:`_contract_search`)."""
    n = sum(c)
    if n == 0:
        return True
    if accepts is not None and n == 1:  # no final discard: the card must be laid off
        y = c.index(1)
        return y in accepts or any(y in m.accepts.values() for m in _laid_melds(cat, laid, c))
    return forb < 0 or c[forb] < n


def _laid_melds(cat: Catalogue, laid: list, rest: list[int]) -> list[TableMeld]:
    """The melds of :func:`_contract_dfs`'s ``laid`` as table melds (jokers as wild cards)."""
    out = []
    for is_run, key, k, wu in laid:
        if is_run:
            lo, hi = cat.segments[k]
            wild = 0  # (which positions are wild does not change what the run takes)
            for q in range(lo, lo + wu):
                wild |= 1 << q
            out.append(TableMeld.run(0, key, lo, hi, wild, cat))
        else:
            out.append(TableMeld(0, False, key, 0, 0, 0, cat.set_shapes[k][0], wu, cat))
    return out


def _apply_contract_draw(s: GameState, p: int, a: int) -> bool:
    """Contract rummy's draw: a draw from the stock first asks the others, in turn order,
    whether they buy the discard top (:data:`Phase.BUY`); the draw follows the question."""
    if a == 0 and s.discard and len(s.stock) >= 2:
        q = _next_to_ask(s, p)
        if q >= 0:
            s.asked = q
            s.phase = Phase.BUY
            return False
    return _apply_draw(s, p, a)


def _next_to_ask(s: GameState, after: int) -> int:
    """The next seat after ``after`` (in turn order, before the drawer comes round) that may
    buy: not down, buys left, and not the seat whose discard it is; -1 if none."""
    p = s.current
    last = _previous_active(s, p) if s.turns else -1  # who discarded (nobody: the up-card)
    q = _next_active(s, after)
    while q != p:
        if q != last and s.buys[q] > 0 and not s.opened[q]:
            return q
        q = _next_active(s, q)
    return -1


def _legal_buy(s: GameState) -> list[int]:
    L = s.layout
    return [L.PASS, L.BUY]


def _apply_buy(s: GameState, q: int, a: int) -> bool:
    """The asked seat ``q`` buys (the discard top, and the stock top as a penalty) or
    passes (the next seat is asked); then the drawer draws from the stock."""
    if a == s.layout.BUY:
        f = s.discard.pop()
        s._add(q, f)
        s.known[q][f] += 1
        s._add(q, s.stock.pop())
        s.buys[q] -= 1
        nxt = -1
    else:
        nxt = _next_to_ask(s, q)
    s.asked = nxt
    if nxt >= 0:
        return False
    return _apply_draw(s, s.current, 0)


def _match_by_deals(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Contract rummy: over after the seventh deal; the lowest total wins."""
    if deal_number(s) < 7:
        return False
    low = min(s.totals)
    s.match_winner = winner if s.totals[winner] == low else s.totals.index(low)
    return True


def _check_contract(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Contract rummy's deal number and buy question."""
    if deal_number(s) > 7:
        fail(
            "round",
            f"={s.round} with contract_deal={s.rules.contract_deal}",
            f"at most {7 - s.rules.contract_deal}: the seventh deal is the last",
        )
    if s.phase == Phase.GAME_OVER:
        return
    for p in range(len(s.opened)):
        sets, runs = _contract_left(s, p)
        if s.opened[p] != ((sets, runs) == (0, 0)) and not (
            not s.opened[p] and p == s.current and s.phase == Phase.PLAY and (sets or runs)
        ):
            fail(
                f"opened[{p}]",
                f"={s.opened[p]} with {sets} set(s) and {runs} run(s) of the contract not laid",
                "True exactly for the seats whose melds on the table make up the contract "
                "(while going down, the player to act may hold part of it)",
            )
        if sets < 0 or runs < 0:
            fail(
                "table",
                f"holds more melds of seat {p} than the contract "
                f"{CONTRACTS[deal_number(s)]} (sets, runs)",
                "each seat's melds: its contract exactly, or part of it while it goes down",
            )
    if (s.phase == Phase.BUY) != (s.asked >= 0):
        fail("asked", f"={s.asked} in phase {s.phase.name.lower()!r}", "a seat exactly in 'buy'")
    if s.asked >= 0:
        a = s.asked
        last = _previous_active(s, s.current) if s.turns else -1
        if a in (s.current, last) or s.opened[a] or not s.buys[a]:
            fail(
                "asked",
                f"={a}",
                "a seat that may buy: not the drawer nor the last discarder, not down, buys left",
            )
        if len(s.stock) < 2 or not s.discard:
            fail("stock", "holds fewer than 2 cards during a buy question", "2 or more")
