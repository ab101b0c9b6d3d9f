"""Canasta's legal moves: the search that keeps every opening completable and every
turn endable (D-24, D-25, D-29), and the masks of the draw and the play."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import compress
from typing import Any, NamedTuple

from rummy_env.cards import NUM_FACES, counts_str, face_counts
from rummy_env.engine.state import _PLAY, GameState
from rummy_env.variants.canasta import (
    BLACK,
    CLASS_OF,
    LAYOFF_KINDS,
    MELD_SHAPES,
    NAT_VALUE,
    RED_THREES,
    VALUE,
    _opening,
    canastas,
    hand_classes,
    minimum,
    side,
)


@lru_cache(maxsize=65536)
def reachable(
    nat: tuple[int, ...],
    jokers: int,
    deuces: int,
    black: int,
    melds: tuple[tuple[int, int] | None, ...],
    count: int,
    need: int,
    pending: int,
    to_go: int,
    final: bool,
    wild_cap: int = 3,
) -> bool:
    """Whether a player can still end his turn from this position (D-29), with his
    side's count at least ``need`` (the opening, D-24/25; 0 once opened).

    ``nat``: naturals per rank class in hand; ``melds``: per rank class the side's meld
    as (cards, wild cards) or None; ``count``: the opening count so far; ``pending``: the
    cards that join the hand once the count is reached; ``to_go``: canastas needed to go
    out; ``final``: the last turn of D-30 (no discard, ``EndRound``). Laying more never
    lowers the count, so per rank it tries all the naturals, one or two held back, or
    (no meld yet) none, and any number of wild cards the meld can take; the state is the
    wild cards used, the cards kept (0, 1, 2+) and the canastas (0..to_go)."""
    wilds = jokers + deuces
    states: dict[tuple[int, int, int], int] = {(0, 0, 0): 0}
    for rc in range(BLACK):
        n, m = nat[rc], melds[rc]
        if m is None and n < 2:
            if n:
                states = _keep(states, n)
            continue
        options = _rank_options(n, m, wild_cap)
        nxt: dict[tuple[int, int, int], int] = {}
        value = NAT_VALUE[rc]
        for (w, kept, can), v in states.items():
            for k, add_w, size in options:
                w2 = w + add_w
                if w2 > wilds:
                    continue
                kept2 = kept + n - k
                can2 = can + 1 if size >= 7 and can < to_go else can
                key = (w2, kept2 if kept2 < 2 else 2, can2)
                nv = v + k * value
                if nxt.get(key, -1) < nv:
                    nxt[key] = nv
        states = nxt
    for (w, kept, can), v in states.items():
        laid_j = min(w, jokers)
        total = count + v + 50 * laid_j + 20 * (w - laid_j)
        left = kept + wilds - w + pending
        if total >= need and _ends(left + black, can, to_go, final):
            return True
        for m3 in (3, 4) if black >= 3 and can >= to_go else ():
            if m3 <= black and total + 5 * m3 >= need and left + black - m3 <= 1:
                return True
    return False


def _keep(states: dict, n: int) -> dict:
    out: dict[tuple[int, int, int], int] = {}
    for (w, kept, can), v in states.items():
        key = (w, min(2, kept + n), can)
        if out.get(key, -1) < v:
            out[key] = v
    return out


@lru_cache(maxsize=4096)
def _rank_options(
    n: int, m: tuple[int, int] | None, wild_cap: int
) -> tuple[tuple[int, int, int], ...]:
    """(naturals laid, wild cards laid, the meld's size) choices for one rank class."""
    out = []
    ks = {k for k in (n, n - 1, n - 2) if k >= 0}
    if m is None:
        out.append((0, 0, 0))
        for k in ks:
            if k >= 2:
                for w in range(max(0, 3 - k), wild_cap + 1):
                    out.append((k, w, k + w))
    else:
        size, ew = m
        for k in ks:
            for w in range(0, wild_cap - ew + 1):
                out.append((k, w, size + k + w))
    return tuple(out)


def _ends(left: int, can: int, to_go: int, final: bool) -> bool:
    """Whether a turn can end with ``left`` cards in hand: a discard (2+ cards), going
    out with the canastas (a last discard, or none left), ``EndRound`` in the final turn."""
    return left >= 2 or can >= to_go or (final and left >= 1)


class Position(NamedTuple):
    """The seat to act's position as :func:`reachable` reads it (mutable copies)."""

    nat: list[int]
    jokers: int
    deuces: int
    black: int
    melds: list[tuple[int, int] | None]
    count: int
    need: int
    pending: tuple[int, ...]  # the pile's cards waiting (D-24): naturals per class, J, 2s, 3s


def position(s: GameState, p: int) -> Position:
    sd = side(s, p)
    nat, j, t, b = hand_classes(s.hands[p])
    melds: list[tuple[int, int] | None] = [None] * 12
    for m in s.table:
        if m.side == sd:
            melds[m.rc] = (m.size, m.wild)
    if s.opened[p]:
        return Position(nat, j, t, b, melds, 0, 0, ())
    return Position(nat, j, t, b, melds, s.opening_count, minimum(s, sd), _kinds_of(s.pending))


def _kinds_of(counts: list[int]) -> tuple[int, ...]:
    """Cards as :func:`hand_classes` counts them, flat: naturals per class, J, 2s, 3s."""
    if not any(counts):
        return ()
    nat, j, t, b = hand_classes(counts)
    return (*nat, j, t, b)


def _ok(s: GameState, pos: Position, **change: Any) -> bool:
    """:func:`reachable` from ``pos`` changed by a move; where it says no while the pile's
    cards wait, :func:`exact` decides (they may complete the canastas to go out)."""
    q = pos._replace(**change)
    args = (
        tuple(q.nat),
        q.jokers,
        q.deuces,
        q.black,
        tuple(q.melds[:BLACK]),
        q.count,
        q.need,
    )
    rules = s.rules
    to_go, final, cap = rules.canastas_to_go_out, s.final_turn, rules.max_wilds_per_meld
    waiting = sum(q.pending)
    if reachable(*args, waiting, to_go, final, cap):
        return True
    if not waiting or not reachable(*args, waiting, 0, final, cap):
        return False  # (the count cannot be reached at all)
    return exact(*args, q.pending, to_go, final, cap)


@lru_cache(maxsize=65536)
def exact(
    nat: tuple[int, ...],
    jokers: int,
    deuces: int,
    black: int,
    melds: tuple[tuple[int, int] | None, ...],
    count: int,
    need: int,
    pending: tuple[int, ...],
    to_go: int,
    final: bool,
    cap: int,
) -> bool:
    """:func:`reachable` by trying every meld and lay-off in turn: the pile's waiting
    cards join the hand once the count is reached and may then be laid too."""
    n = sum(nat) + jokers + deuces + black
    cans = sum(1 for m in melds if m is not None and m[0] >= 7)
    if count >= need:
        if pending:
            nat = tuple(a + b for a, b in zip(nat, pending))
            jokers, deuces, black = jokers + pending[11], deuces + pending[12], black + pending[13]
            return exact(nat, jokers, deuces, black, melds, count, need, (), to_go, final, cap)
        if _ends(n, cans, to_go, final):
            return True
    left = n + sum(pending)
    for m3 in (3, 4) if black >= 3 and cans >= to_go else ():  # (the last meld, D-27)
        if m3 <= black and left - m3 <= 1 and count + 5 * m3 >= need:
            return True
    for rc, n_, j, t, add, wild in _exact_moves(nat, jokers, deuces, melds, cap):
        nat2 = nat[:rc] + (nat[rc] - n_,) + nat[rc + 1 :]
        melds2 = melds[:rc] + ((add, wild),) + melds[rc + 1 :]
        count2 = count + n_ * NAT_VALUE[rc] + 50 * j + 20 * t if count < need else count
        if left == n_ + j + t and not pending:  # the hand laid out: going out
            if count2 >= need and cans + (add >= 7 and (melds[rc] or (0,))[0] < 7) >= to_go:
                return True
            continue
        if exact(
            nat2, jokers - j, deuces - t, black, melds2, count2, need, pending, to_go, final, cap
        ):
            return True
    return False


def _exact_moves(
    nat: tuple[int, ...], jokers: int, deuces: int, melds: tuple, cap: int
) -> list[tuple[int, int, int, int, int, int]]:
    """Every meld and lay-off of a hand: (class, naturals, jokers, 2s, the meld's size
    and wild cards after it)."""
    out = []
    for rc in range(BLACK):
        m, have = melds[rc], nat[rc]
        if m is not None:
            size, wild = m
            if have:
                out.append((rc, 1, 0, 0, size + 1, wild))
            if wild < cap:
                if jokers:
                    out.append((rc, 0, 1, 0, size + 1, wild + 1))
                if deuces:
                    out.append((rc, 0, 0, 1, size + 1, wild + 1))
        elif have >= 2:
            for _, n, j, t in _shapes(have, jokers, deuces, cap):
                out.append((rc, n, j, t, n + j + t, j + t))
    return out


# ------------------------------------------------------------------ legal moves
def legal_draw(s: GameState) -> list[int]:
    """Draw from the stock (``EndRound`` when it is out, D-30), or take the pile."""
    L = s.layout
    acts = [L.DRAW_STOCK] if s.stock else []
    acts += _legal_takes(s, s.current)
    if not s.stock:
        acts.append(L.END_ROUND)
    return acts


def _legal_takes(s: GameState, p: int) -> list[int]:
    """The ``TakePile`` forms allowed (D-23) after which the turn can end (D-29)."""
    pile = s.discard
    if not pile:
        return []
    top = pile[-1]
    rc = CLASS_OF[top]
    if rc < 0 or rc == BLACK or (s.nhand[p] == 1 and len(pile) == 1):
        return []  # (a wild card, a 3 on top: blocked)
    pos = position(s, p)
    sd = side(s, p)
    opened = s.opened[p]
    frozen = s.frozen or not opened
    m = pos.melds[rc]
    cap = s.rules.max_wilds_per_meld
    rest = pile[:-1]
    base = s.layout.TAKE_PILE
    acts = []
    forms = ((0, 2, 0, 0), (1, 1, 1, 0), (2, 1, 0, 1))  # (form, naturals, jokers, 2s)
    if not frozen and m is not None:
        forms = ((-1, 0, 0, 0), *forms)
    for form, n, j, t in forms:
        if form > 0 and frozen:
            continue
        if pos.nat[rc] < n or pos.jokers < j or pos.deuces < t:
            continue
        wild = (m[1] if m else 0) + j + t
        if wild > cap:
            continue
        if not _take_ok(s, pos, rc, n, j, t, top, rest, opened, sd):
            continue
        acts.append(base if form < 0 else base + 1 + rc * 3 + form)
    return acts


def _take_ok(
    s: GameState,
    pos: Position,
    rc: int,
    n: int,
    j: int,
    t: int,
    top: int,
    rest: list[int],
    opened: bool,
    sd: int,
) -> bool:
    """Whether the turn can end after taking the pile this way."""
    kept = [c for c in rest if c not in RED_THREES]
    if opened and s.nhand[s.current] - n - j - t + len(kept) >= 2:
        return True  # (a discard ends the turn)
    m = pos.melds[rc]
    meld = (m[0] if m else 0) + 1 + n + j + t, (m[1] if m else 0) + j + t
    if not opened:  # (the rest of the pile waits until the count is reached)
        return _lay_ok(s, pos, rc, (n, j, t), meld, VALUE[top], _kinds_of(face_counts(kept)))
    nat = pos.nat[:]
    nat[rc] -= n
    melds = pos.melds[:]
    melds[rc] = meld
    knat, kj, kt, kb = hand_classes(face_counts(kept))  # (the rest joins the hand)
    return _ok(
        s,
        pos,
        nat=[a + b for a, b in zip(nat, knat)],
        jokers=pos.jokers - j + kj,
        deuces=pos.deuces - t + kt,
        black=pos.black + kb,
        melds=melds,
    )


def _lay_ok(
    s: GameState,
    pos: Position,
    rc: int,
    lay: tuple[int, int, int],
    meld: tuple[int, int],
    base: int = 0,
    pending: tuple[int, ...] | None = None,
) -> bool:
    """:func:`reachable` after ``lay`` = (naturals of ``rc``, jokers, 2s) left the hand
    for the side's meld of ``rc``, which becomes ``meld`` (cards, wild cards); the count
    grows by their values and ``base`` (a pile's top card)."""
    n, j, t = lay
    melds = pos.melds[:]
    melds[rc] = meld
    nat = pos.nat[:]
    nat[rc] -= n
    count = pos.count + base + n * NAT_VALUE[rc] + 50 * j + 20 * t
    more = {} if pending is None else {"pending": pending}
    return _ok(
        s,
        pos,
        nat=nat,
        jokers=pos.jokers - j,
        deuces=pos.deuces - t,
        melds=melds,
        count=count,
        **more,
    )


def legal_play(s: GameState) -> list[int]:
    """Melds, lay-offs and discards after which the turn can end (D-29), the opening's
    minimum still reachable (D-24, D-25); ``EndRound`` in the final turn (D-30)."""
    L = s.layout
    p = s.current
    pos = position(s, p)
    sd = side(s, p)
    acts = _legal_melds(s, p, pos) + _legal_layoffs(s, p, sd, pos)
    opening = _opening(s, p)
    if s.final_turn:
        if not opening:
            acts.append(L.END_ROUND)
        return acts
    if not opening:
        hand = s.hands[p]
        last = s.nhand[p] == 1
        if not last or canastas(s, sd) >= s.rules.canastas_to_go_out:
            b = L.DISCARD
            acts += [b + f for f in compress(range(NUM_FACES), hand)]
    return acts


def _legal_melds(s: GameState, p: int, pos: Position) -> list[int]:
    acts = []
    base = s.layout.MELD
    nat, J, T = pos.nat, pos.jokers, pos.deuces
    size = s.nhand[p]
    fast = s.opened[p] and not s.final_turn
    cap = s.rules.max_wilds_per_meld
    nshapes = len(MELD_SHAPES)
    for rc in range(BLACK):
        have = nat[rc]
        if have < 2 or pos.melds[rc] is not None:
            continue
        for i, n, j, t in _shapes(have, J, T, cap):
            left = size - n - j - t
            if fast and left >= 2:
                acts.append(base + rc * nshapes + i)
                continue
            if _lay_ok(s, pos, rc, (n, j, t), (n + j + t, j + t)):
                acts.append(base + rc * nshapes + i)
    if pos.black >= 3 and pos.melds[BLACK] is None:
        acts += _legal_black(s, p, pos)
    return acts


@lru_cache(maxsize=1024)
def _shapes(have: int, jokers: int, deuces: int, cap: int) -> tuple[tuple[int, ...], ...]:
    """The meld shapes (index, naturals, jokers, 2s) a hand can lay of one rank."""
    return tuple(
        (i, n, j, t)
        for i, (n, j, t) in enumerate(MELD_SHAPES)
        if n <= have and j <= jokers and t <= deuces and j + t <= cap
    )


def _legal_black(s: GameState, p: int, pos: Position) -> list[int]:
    """Black 3s (D-27): 3 or 4 of them without wild cards as the last meld of a player
    going out: at most one card left, the side's canastas held, the count reached."""
    acts = []
    sd = side(s, p)
    base = s.layout.MELD + 11 * len(MELD_SHAPES)
    if canastas(s, sd) < s.rules.canastas_to_go_out:
        return acts
    for m3 in (3, 4):
        left = s.nhand[p] - m3 + sum(pos.pending)
        if m3 <= pos.black and left <= 1 and pos.count + 5 * m3 >= pos.need:
            acts.append(base + m3 - 3)
    return acts


def _legal_layoffs(s: GameState, p: int, sd: int, pos: Position) -> list[int]:
    acts = []
    L = s.layout
    size = s.nhand[p]
    fast = s.opened[p] and not s.final_turn and size >= 3
    cap = s.rules.max_wilds_per_meld
    for i, m in enumerate(s.table):
        if m.side != sd or m.rc == BLACK:
            continue
        rc = m.rc
        kinds = []
        if pos.nat[rc]:
            kinds.append((rc, 1, 0, 0))
        if m.wild < cap:
            if pos.jokers:
                kinds.append((11, 0, 1, 0))
            if pos.deuces:
                kinds.append((12, 0, 0, 1))
        for kind, n, j, t in kinds:
            if fast:
                acts.append(L.LAYOFF + i * LAYOFF_KINDS + kind)
                continue
            if _lay_ok(s, pos, rc, (n, j, t), (m.size + 1, m.wild + j + t)):
                acts.append(L.LAYOFF + i * LAYOFF_KINDS + kind)
    return acts


def check_opening(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """An opening in progress can still be completed this turn."""
    p = s.current
    if s.phase == _PLAY and _opening(s, p) and not _ok(s, position(s, p)):
        fail(
            f"hands[{p}]",
            f"={counts_str(s.hands[p])} cannot complete the opening begun this turn "
            f"(count {s.opening_count} of {minimum(s, side(s, p))})",
            "cards that can still reach the side's minimum this turn and end it",
        )
