"""Canasta's views: its saved-state form and checks, the text render, the observation
vector (DESIGN.md "Canasta", Observation) and the action codec (D-20)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any, NamedTuple

import numpy as np

from rummy_env.cards import JOKER, NUM_FACES, card_str, counts_str, parse_card, plural
from rummy_env.engine.state import GameState, Phase
from rummy_env.moves import Discard, DrawStock, EndRound, LayOff, Meld, TakePile
from rummy_env.rules import RuleSet
from rummy_env.variants.canasta import (
    BLACK,
    CLASS_FACES,
    CLASS_OF,
    DEUCES,
    LAYOFF_KINDS,
    MELD_SHAPES,
    RANK_LETTERS,
    RED_THREES,
    SHAPE_ID,
    WILD,
    canastas,
    minimum,
    num_sides,
    pile_frozen,
    side,
)

Fail = Callable[[str, str, str], None]
_FACES = range(NUM_FACES)


# ------------------------------------------------------------------ saved state
def dump_state(s: GameState, d: dict[str, Any]) -> None:
    """``opened`` per side in ``to_dict`` (partners share it)."""
    d["opened"] = [bool(s.opened[sd]) for sd in range(num_sides(s.rules))]


def load_state(d: dict[str, Any], rules: RuleSet) -> dict[str, Any]:
    """Saved data with ``opened`` per seat, as the engine keeps it."""
    opened = d.get("opened")
    S = num_sides(rules)
    if isinstance(opened, (list, tuple)) and len(opened) == S and rules.num_players != S:
        d = dict(d)
        d["opened"] = [opened[p % 2] for p in range(rules.num_players)]
    elif opened is not None and (not isinstance(opened, (list, tuple)) or len(opened) != S):
        raise ValueError(
            f"saved state: opened={opened!r} is not allowed (allowed: a list of {S} flags, "
            "one per side)"
        )
    return d


def check_state(s: GameState, fail: Fail) -> None:
    """What a Canasta state cannot hold (DESIGN.md "Canasta", State)."""
    n = s.rules.num_players
    for p in range(n):
        held = [card_str(c) for c in RED_THREES if s.hands[p][c]]
        if held:
            fail(f"hands[{p}]", f"holds {', '.join(held)}", "no red 3: one is laid out at once")
        q = side(s, p)
        if s.totals[p] != s.totals[q] or s.opened[p] != s.opened[q]:
            fail(
                "totals, opened",
                f"differ between seats {q} and {p}",
                "partners equal: they share score and melds",
            )
        if s.round_start_totals[p] != s.round_start_totals[q]:
            fail("round_start_totals", f"={s.round_start_totals}", "partners equal")
    for i, m in enumerate(s.table):
        if not s.opened[m.owner] and (m.owner != s.current or s.phase != Phase.PLAY):
            fail(f"table[{i}]", "belongs to a side that has not opened", "melds of opened sides")
    if s.frozen != pile_frozen(s.discard):
        fail(
            "frozen",
            f"={s.frozen}",
            f"{pile_frozen(s.discard)}: a wild card or a red 3 in the pile",
        )
    playing = s.phase == Phase.PLAY
    p = s.current
    if (s.opening_count or any(s.pending)) and (not playing or s.opened[p]):
        fail(
            "opening_count, pending",
            f"={s.opening_count}, {counts_str(s.pending)}",
            "0 and [] except in the play phase of a seat whose side has not opened",
        )
    if s.opening_count and s.opening_count >= minimum(s, side(s, p)):
        fail("opening_count", f"={s.opening_count}", "below the side's minimum (else it opened)")
    if s.final_turn and not playing:
        fail("final_turn", "=True", "False outside the play phase")


# ------------------------------------------------------------------ render
def render_lines(s: GameState) -> list[str]:
    """The pile (its size, top, frozen), the opening in progress, the final turn, and
    each side: its seats, opened or its minimum, red 3s, canastas."""
    pile = s.discard
    top = card_str(pile[-1]) if pile else "-"
    state = "frozen" if s.frozen else "not frozen"
    lines = [f"pile: {plural(len(pile), 'card')}, top {top}, {state}"]
    if any(s.pending):
        lines.append(
            f"pending (opening count {s.opening_count}): {' '.join(counts_str(s.pending))}"
        )
    if s.final_turn:
        lines.append("final turn: the last stock card was a red 3 (no discard, end round)")
    n = s.rules.num_players
    for sd in range(num_sides(s.rules)):
        seats = ", ".join(f"player_{p}" for p in range(n) if side(s, p) == sd)
        opened = "opened" if s.opened[sd] else f"not opened (minimum {minimum(s, sd)})"
        reds = " ".join(card_str(c) for c in s.red_threes[sd]) or "none"
        lines.append(
            f"side {sd} ({seats}): {opened}, red 3s: {reds}, {plural(canastas(s, sd), 'canasta')}"
        )
    return lines


def table_lines(s: GameState) -> list[str]:
    """The melds side by side, with their slot numbers (canastas marked)."""
    lines = ["table:" if s.table else "table: no melds"]
    for i, m in enumerate(s.table):
        kind = ""
        if m.size >= 7:
            kind = " (natural canasta)" if not m.wild else " (mixed canasta)"
        cards = " ".join(card_str(c) for c in m.cards)
        lines.append(f"  [{i:2d}] side {m.side} (player_{m.owner}): {cards}{kind}")
    return lines


# ------------------------------------------------------------------ observation
class CanastaObs(NamedTuple):
    """Canasta's observation (DESIGN.md "Canasta", Observation): its slices, a writer,
    and the readable view."""

    sizes: Callable[[RuleSet], list[tuple[str, int]]]
    write: Callable[..., None]  # (vector, layout, state, seat, pile rows too?)
    decode: Callable[[np.ndarray, Any], dict[str, Any]]
    #: divisors bringing its count-valued slices near 0..1 for a network's input
    scales: dict[str, float]


def _sizes(rules: RuleSet) -> list[tuple[str, int]]:
    P = rules.num_players
    S = num_sides(rules)
    F = NUM_FACES
    return [
        ("hand", F),
        ("known", (P - 1) * F),
        ("discard", rules.num_cards * F),
        ("melds", S * 12 * 3),
        ("red_threes", S),
        ("opened", S),
        ("minimum", S),
        ("hand_sizes", P),
        ("stock_size", 1),
        ("pile_size", 1),
        ("pile_top", F),
        ("frozen", 1),
        ("opening_count", 1),
        ("final_turn", 1),
        ("pending", F),
        ("phase", 3),
        ("to_act", P),
        ("played", P),
        ("totals", P),
        ("dealer", P),
    ]


def _write(o: Any, L: Any, s: GameState, player: int, pile: bool = True) -> None:
    """``player``'s vector into the zeroed buffer ``o`` (sparse: only the non-zeros);
    ``pile=False`` leaves the pile's rows (the same for every viewer) as they are."""
    F = NUM_FACES
    P = L.P
    S = num_sides(s.rules)
    me = side(s, player)
    for base, counts in ((0, s.hands[player]), (L.PENDING, s.pending)):
        for f in compress(_FACES, counts):
            o[base + f] = counts[f]
    for off in range(1, P):
        k = s.known[(player + off) % P]
        if any(k):
            b = L.KNOWN + (off - 1) * F
            for f in compress(_FACES, k):
                o[b + f] = k[f]
    if pile:
        i = L.DISCARD + (len(s.discard) - 1) * F
        for f in s.discard:
            o[i + f] = 1.0
            i -= F
    for m in s.table:
        b = L.MELDS + (((m.side - me) % S) * 12 + m.rc) * 3
        o[b], o[b + 1], o[b + 2] = m.nat, m.jok, m.deu
    for off in range(S):
        sd = (me + off) % S
        o[L.RED_THREES + off] = len(s.red_threes[sd])
        o[L.OPENED + off] = s.opened[sd]
        o[L.MINIMUM + off] = minimum(s, sd)
    for off in range(P):
        q = (player + off) % P
        o[L.HAND_SIZES + off] = s.nhand[q]
        o[L.PLAYED + off] = s.played[q]
        t = s.totals[q]
        o[L.TOTALS + off] = t if -10_000 <= t <= 10_000 else max(-10_000, min(10_000, t))
    o[L.STOCK_SIZE] = len(s.stock)
    if s.discard:
        o[L.PILE_SIZE] = len(s.discard)
        o[L.PILE_TOP + s.discard[-1]] = 1.0
    o[L.FROZEN] = s.frozen
    o[L.OPENING_COUNT] = s.opening_count
    o[L.FINAL_TURN] = s.final_turn
    o[L.PHASE + min(int(s.phase), 2)] = 1.0
    o[L.TO_ACT + (s.current - player) % P] = 1.0
    o[L.DEALER + (s.dealer - player) % P] = 1.0


def _decode(obs: np.ndarray, L: Any) -> dict[str, Any]:
    o = np.asarray(obs)
    P = L.P
    S = L.slices["opened"].stop - L.slices["opened"].start
    F = NUM_FACES

    def part(name: str) -> list[int]:
        return [round(float(x)) for x in o[L.slices[name]]]

    known = part("known")
    rows = np.asarray(o[L.slices["discard"]]).reshape(-1, F)
    discard = [int(np.argmax(r)) for r in rows if r.any()][::-1]
    melds_raw = part("melds")
    melds = []
    for off in range(S):
        d = {}
        for rc in range(12):
            b = (off * 12 + rc) * 3
            if any(melds_raw[b : b + 3]):
                d[RANK_LETTERS[rc]] = melds_raw[b : b + 3]
        melds.append(d)
    top = part("pile_top")
    return {
        "hand": counts_str(part("hand")),
        "known": [counts_str(known[i * F : (i + 1) * F]) for i in range(P - 1)],
        "discard": [card_str(f) for f in discard],
        "melds": melds,
        "red_threes": part("red_threes"),
        "opened": [bool(x) for x in part("opened")],
        "minimum": part("minimum"),
        "hand_sizes": part("hand_sizes"),
        "stock_size": part("stock_size")[0],
        "pile_size": part("pile_size")[0],
        "pile_top": card_str(top.index(1)) if 1 in top else None,
        "frozen": bool(part("frozen")[0]),
        "opening_count": part("opening_count")[0],
        "final_turn": bool(part("final_turn")[0]),
        "pending": counts_str(part("pending")),
        "phase": ("draw", "play", "game_over")[part("phase").index(1)],
        "to_act": part("to_act").index(1),
        "played": [bool(x) for x in part("played")],
        "totals": part("totals"),
        "dealer": part("dealer").index(1),
    }


OBS = CanastaObs(
    _sizes,
    _write,
    _decode,
    {
        "hand_sizes": 10.0,
        "stock_size": 50.0,
        "pile_size": 20.0,
        "minimum": 100.0,
        "opening_count": 100.0,
        "totals": 1000.0,
    },
)


# ------------------------------------------------------------------ codec
class CanastaCodec(NamedTuple):
    """Canasta's moves <-> action ids (DESIGN.md "Canasta", Action layout)."""

    encode: Callable[[Any, Any, GameState | None], int]
    decode: Callable[[Any, int, GameState | None], Any]
    names: tuple[str, ...]


def _not_in_layout(move: Any, why: str) -> ValueError:
    return ValueError(f"{move}: {why} (not in Canasta's action layout)")


def _encode(codec: Any, move: Any, state: GameState | None) -> int:
    L = codec.layout
    if isinstance(move, DrawStock):
        return L.DRAW_STOCK
    if isinstance(move, EndRound):
        return L.END_ROUND
    if isinstance(move, Discard):
        return L.DISCARD + parse_card(move.card)
    if isinstance(move, TakePile):
        return L.TAKE_PILE + _take_id(move)
    if isinstance(move, Meld):
        return L.MELD + _meld_id(move)
    if isinstance(move, LayOff):
        if move.end is not None:
            raise _not_in_layout(move, "a lay-off has no end in Canasta (end=None)")
        if not 0 <= move.meld < L.max_melds:
            raise _not_in_layout(move, f"meld number out of range 0..{L.max_melds - 1}")
        f = parse_card(move.card)
        if f % 13 == 2 and f != JOKER:
            raise _not_in_layout(move, "a 3 is never laid off")
        kind = 11 if f == JOKER else 12 if f in DEUCES else CLASS_OF[f]
        return L.LAYOFF + move.meld * LAYOFF_KINDS + kind
    raise ValueError(f"{move!r}: not a move of 'canasta' (allowed: {', '.join(CODEC.names)})")


def _take_id(move: TakePile) -> int:
    cards = [parse_card(c) for c in move.cards]
    if not cards:
        return 0
    nat = [c for c in cards if c not in WILD]
    wild = [c for c in cards if c in WILD]
    classes = {CLASS_OF[c] for c in nat}
    if len(cards) != 2 or not nat or len(classes) != 1 or -1 in classes or BLACK in classes:
        raise _not_in_layout(
            move, "TakePile takes (), two naturals of one rank (A, 4-K), or one and a wild card"
        )
    form = 0 if not wild else 1 if wild[0] == JOKER else 2
    return 1 + classes.pop() * 3 + form


def _meld_id(move: Meld) -> int:
    cards = [parse_card(c) for c in move.cards]
    nat = [c for c in cards if c not in WILD]
    j = cards.count(JOKER)
    t = len(cards) - len(nat) - j
    classes = {CLASS_OF[c] for c in nat}
    if len(classes) != 1 or -1 in classes:
        raise _not_in_layout(move, "naturals of one rank (A, 4-K, or black 3s), no red 3")
    rc = classes.pop()
    if rc == BLACK:
        if j or t or len(cards) not in (3, 4):
            raise _not_in_layout(move, "black 3s meld as 3 or 4 of them without wild cards")
        return 11 * len(MELD_SHAPES) + len(cards) - 3
    if len(nat) < 2 or len(cards) < 3 or j + t > 3 or (len(nat), j, t) not in SHAPE_ID:
        raise _not_in_layout(move, "2-8 naturals, at most 3 wild cards, 3+ cards")
    return rc * len(MELD_SHAPES) + SHAPE_ID[(len(nat), j, t)]


def _spell(faces: tuple[int, ...], k: int, hand: list[int] | None) -> list[int]:
    """``k`` cards of ``faces``: from ``hand`` lowest suit first, else suits in turn."""
    out: list[int] = []
    if hand is not None:
        left = list(hand)
        for f in faces:
            while len(out) < k and left[f]:
                out.append(f)
                left[f] -= 1
    i = 0
    while len(out) < k:
        out.append(faces[i % len(faces)])
        i += 1
    return out


def _decode_action(codec: Any, a: int, state: GameState | None) -> Any:
    L = codec.layout
    hand = state.hands[state.current] if state is not None else None
    if a == L.DRAW_STOCK:
        return DrawStock()
    if a < L.MELD:
        k = a - L.TAKE_PILE
        if k == 0:
            return TakePile(())
        rc, form = divmod(k - 1, 3)
        n, wild = ((2, ()), (1, (JOKER,)), (1, DEUCES[:1]))[form]
        cards = _spell(CLASS_FACES[rc], n, hand)
        if form == 2:
            cards += _spell(DEUCES, 1, hand)
        else:
            cards += list(wild)
        return TakePile(tuple(card_str(c) for c in cards))
    if a < L.LAYOFF:
        k = a - L.MELD
        if k >= 11 * len(MELD_SHAPES):
            cards = _spell(CLASS_FACES[BLACK], 3 + k - 11 * len(MELD_SHAPES), hand)
        else:
            rc, i = divmod(k, len(MELD_SHAPES))
            n, j, t = MELD_SHAPES[i]
            cards = _spell(CLASS_FACES[rc], n, hand) + [JOKER] * j + _spell(DEUCES, t, hand)
        return Meld(tuple(card_str(c) for c in cards))
    if a < L.SWAP:
        mi, kind = divmod(a - L.LAYOFF, LAYOFF_KINDS)
        faces = (JOKER,) if kind == 11 else DEUCES if kind == 12 else CLASS_FACES[kind]
        return LayOff(card_str(_spell(faces, 1, hand)[0]), mi)
    if a < L.KNOCK:
        return Discard(card_str(a - L.DISCARD))
    return EndRound()


CODEC = CanastaCodec(
    _encode,
    _decode_action,
    ("DrawStock", "TakePile", "Meld", "LayOff", "Discard", "EndRound"),
)
