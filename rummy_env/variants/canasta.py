"""Canasta (RULES.md 4 canasta): partnerships, melds of one rank, the frozen pile, canastas.

A turn is ``DrawStock`` or ``TakePile``, then any number of ``Meld`` and ``LayOff``, then
``Discard`` (or ``EndRound`` when the stock is out, D-30). Moves are identified by rank and
by how many naturals, jokers and 2s they lay (D-20); the engine takes the cards from the
hand lowest suit first (S H D C). Sides (partners share melds, red 3s and score) are
``seat % 2`` with partnerships, else each seat. The table lists :class:`CMeld` in the
order laid.

Masks are exact (D-29): a move is offered only when the turn can still end after it,
and during an opening only when the side's minimum stays reachable this turn
(:func:`reachable`, a search over the ranks of the hand).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from rummy_env.cards import JOKER, NUM_FACES, card_str
from rummy_env.engine.fields import FACES, FLAG, INT, Field, Kind
from rummy_env.engine.flow import _end_turn
from rummy_env.engine.game import Game, PhaseRules
from rummy_env.engine.saved import _MELD_KEYS, _Saved
from rummy_env.engine.scoring import _end_round
from rummy_env.engine.state import _PLAY, GameState
from rummy_env.rules import RuleSet
from rummy_env.variants.basic import own_scoring

# ------------------------------------------------------------------ cards
#: the natural ranks in rank-class order (A 4 5 6 7 8 9 T J Q K); class 11 = black 3s
NAT_RANKS = (0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
BLACK = 11  # the rank class of black 3s
RANK_LETTERS = "A456789TJQK3"
#: rank class -> its faces in suit order (S H D C); black 3s: 3S 3C
CLASS_FACES = tuple(tuple(su * 13 + r for su in range(4)) for r in NAT_RANKS) + ((2, 41),)
#: face -> rank class (-1: a wild card or a red 3)
CLASS_OF = [-1] * NUM_FACES
for _rc, _faces in enumerate(CLASS_FACES):
    for _f in _faces:
        CLASS_OF[_f] = _rc
DEUCES = (1, 14, 27, 40)
RED_THREES = (15, 28)
WILD = frozenset((JOKER, *DEUCES))
#: a card's value in melds, hands and the opening count (red 3s: bonuses only)
VALUE = [0] * NUM_FACES
for _f in range(52):
    _r = _f % 13
    VALUE[_f] = 20 if _r in (0, 1) else 10 if _r >= 7 else 5
VALUE[JOKER] = 50
for _f in RED_THREES:
    VALUE[_f] = 0
NAT_VALUE = tuple(VALUE[CLASS_FACES[rc][0]] for rc in range(12))

#: wild cards of a meld shape, in the layout's order: (jokers, deuces), j + t <= 3
WILD_SHAPES = ((0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (3, 0))
#: the meld shapes of one natural rank: (naturals, jokers, deuces), 69 of them
MELD_SHAPES = tuple((n, j, t) for n in range(2, 9) for j, t in WILD_SHAPES if n + j + t >= 3)
SHAPE_ID = {shape: i for i, shape in enumerate(MELD_SHAPES)}
MELD_BLOCK = 11 * len(MELD_SHAPES) + 2
TAKE_BLOCK = 1 + 11 * 3
LAYOFF_KINDS = 13  # natural A, 4..K (0-10), a joker 11, a 2 12


class CMeld(NamedTuple):
    """A meld on the Canasta table: the seat that laid it, its side, its rank class, how
    many naturals, jokers and 2s it holds, its cards as laid (naturals, jokers, 2s), and
    its size and wild cards (made by :meth:`of`)."""

    owner: int
    side: int
    rc: int
    nat: int
    jok: int
    deu: int
    cards: tuple[int, ...]
    size: int
    wild: int

    @classmethod
    def of(cls, owner: int, side: int, rc: int, cards: tuple[int, ...]) -> CMeld:
        nat, jok, deu = _kinds(cards)
        return cls(owner, side, rc, nat, jok, deu, cards, nat + jok + deu, jok + deu)

    #: (what a picture of the table asks of a meld: a set, its wild cards last)
    is_run = False

    @property
    def n_wild(self) -> int:
        return self.wild


# ------------------------------------------------------------------ rules
def sides_of(rules: RuleSet) -> tuple[int, ...]:
    """The side of each seat: ``seat % 2`` with partnerships, else the seat."""
    n = rules.num_players
    return tuple(p % 2 if rules.partnerships else p for p in range(n))


def num_sides(rules: RuleSet) -> int:
    return 2 if rules.partnerships else rules.num_players


#: the fields only Canasta uses, with the value they must hold elsewhere
CANASTA_ONLY = {
    "partnerships": False,
    "canastas_to_go_out": 0,
    "stock_draw": 0,
    "initial_meld": (0, 0, 0, 0),
    "canasta_bonus": (0, 0),
    "red_three_bonus": (0, 0),
    "out_bonus": (0, 0),
}


def resolve_rules(r: RuleSet) -> None:
    """Canasta's fields left 0 "by player count": the hand, canastas to go out, the draw."""
    if r.scoring != "canasta":
        return
    n = r.num_players
    if r.hand_size == 0:
        object.__setattr__(r, "hand_size", {2: 15, 3: 13}.get(n, 11))
    if r.canastas_to_go_out == 0:
        object.__setattr__(r, "canastas_to_go_out", 2 if n == 2 else 1)
    if r.stock_draw == 0:
        object.__setattr__(r, "stock_draw", 2 if n == 2 else 1)
    if n != 4 and r.partnerships:
        object.__setattr__(r, "partnerships", False)


#: what Canasta's rules fix (RULES.md 4 canasta)
_FIXED = {
    "decks": 2,
    "jokers": 2,
    "upcard": True,
    "meld_during_play": True,
    "wild_deuces": False,
    "wild_rank": "none",
    "empty_stock": "end_round",
    "discard_pickup": "top",
}


def check_rules(r: RuleSet) -> None:
    """Canasta's fields belong to its scoring, which belongs to the preset."""
    why = "108 cards, an up-card, EndRound when the stock is out"
    if not own_scoring(r, "canasta", _FIXED, why):
        bad = [f"{k}={getattr(r, k)!r}" for k, v in CANASTA_ONLY.items() if getattr(r, k) != v]
        if bad:
            raise ValueError(
                f"{', '.join(bad)} is not allowed with scoring={r.scoring!r} (allowed: "
                "the defaults; these fields are Canasta's)"
            )
        return
    if not 1 <= r.canastas_to_go_out <= 8 or not 1 <= r.stock_draw <= 2:
        raise ValueError(
            f"canastas_to_go_out={r.canastas_to_go_out}, stock_draw={r.stock_draw} is not "
            "allowed (allowed: canastas_to_go_out 1-8, stock_draw 1-2, or 0 = by player count)"
        )
    if not 1 <= r.max_wilds_per_meld <= 3:
        raise ValueError(
            f"max_wilds_per_meld={r.max_wilds_per_meld} is not allowed with scoring='canasta' "
            "(allowed: 1-3; the action layout holds melds of up to 3 wild cards)"
        )


# ------------------------------------------------------------------ state fields
def _read_red_threes(f: Any, key: str, v: Any, lo: Any, hi: Any) -> tuple[tuple[int, ...], ...]:
    shape = "a list per side of the red 3s it laid out (3H, 3D)"
    if not isinstance(v, (list, tuple)):
        raise f.error(key, v, shape)
    out = []
    for i, cards in enumerate(v):
        faces = f.cards(f"{key}[{i}]", cards)
        if any(c not in RED_THREES for c in faces):
            raise f.error(f"{key}[{i}]", cards, "red 3s only (3H, 3D): " + shape)
        out.append(tuple(sorted(faces)))
    return tuple(out)


def _read_sides(f: Any, key: str, v: Any, lo: Any, hi: Any) -> tuple[int, ...]:
    want = sides_of(f.rules) if f.rules.scoring == "canasta" else ()
    if v is None or list(v) == list(want):
        return want
    raise f.error(key, v, f"{list(want)}: the side of each seat under these rules")


#: per side, the red 3s laid out (a tuple of faces per side; replaced, never changed)
RED3_KIND = Kind(lambda v: [[card_str(c) for c in cards] for cards in v], _read_red_threes)

#: Canasta's fields (used only with scoring="canasta")
FIELDS = (
    Field(
        "red_threes",
        RED3_KIND,
        lambda r: ((),) * num_sides(r) if r.scoring == "canasta" else (),
    ),
    Field("frozen", FLAG, False),
    Field("opening_count", INT, 0, lo=0),
    Field("pending", FACES, lambda r: [0] * NUM_FACES),
    Field("final_turn", FLAG, False),
    Field("round_start_totals", INT, 0, per_seat=True),
    Field("turn_on_old", FLAG, False),  # this turn laid a card on a meld older than the turn
    Field(
        "sides", Kind(list, _read_sides), lambda r: sides_of(r) if r.scoring == "canasta" else ()
    ),
)


# ------------------------------------------------------------------ hooks
def configure(rules: RuleSet, g: Game) -> None:
    """Canasta's turn, table, scoring, state and views (RULES.md 4 canasta)."""
    if rules.scoring != "canasta":
        return
    from rummy_env.variants import _canasta_moves as moves
    from rummy_env.variants import _canasta_view as view

    g.draw = PhaseRules(moves.legal_draw, apply_draw)
    g.play = PhaseRules(moves.legal_play, apply_play)
    g.blocks = {
        **g.blocks,
        "TAKE_PILE": TAKE_BLOCK,
        "MELD": MELD_BLOCK,
        "MELD_SLOTS": 12 * num_sides(rules),
        "LAYOFF_WIDTH": LAYOFF_KINDS,
        "SWAP": 0,
    }
    g.has_opening = True
    g.one_card_turns = False  # (a pile taken grows the hand)
    g.on_deal = _on_deal
    g.deal_totals = _deal_totals
    g.dump_table, g.read_table = _dump_table, _read_table
    g.dump_state, g.load_state = view.dump_state, view.load_state
    g.held_cards = _held_cards
    g.base_totals = _base_totals
    g.score = _score
    g.stuck_count = None  # (a round cut at max_turns is scored as it stands, nobody out)
    g.round_info = round_info
    g.match_over = _match_over
    g.check_standing = _check_standing
    g.check_opening = moves.check_opening
    g.checks += (view.check_state,)
    g.face_value = _face_value
    g.pending = _has_pending
    g.render_lines = (view.render_lines,)
    g.table_lines = view.table_lines
    g.obs_full = view.OBS
    g.codec = view.CODEC


def _face_value(rules: RuleSet, rank: int) -> int:
    return NAT_VALUE[0] if rank in (0, 1) else 10 if rank >= 7 else 5


def _has_pending(s: GameState) -> bool:
    return any(s.pending)


def _held_cards(s: GameState) -> list[int]:
    return [c for cards in s.red_threes for c in cards]


def _base_totals(s: GameState) -> list[int]:
    return s.round_start_totals


# ------------------------------------------------------------------ facts of a state
def side(s: GameState, p: int) -> int:
    return p % 2 if s.rules.partnerships else p


def minimum(s: GameState, sd: int) -> int:
    """The side's initial meld minimum this round (by its total at the round's start)."""
    seat = sd  # (a side's lowest seat is its number)
    t = s.round_start_totals[seat]
    i = 0 if t < 0 else 1 if t < 1500 else 2 if t < 3000 else 3
    return s.rules.initial_meld[i]


def side_melds(s: GameState, sd: int) -> dict[int, int]:
    """Rank class -> table index of the side's meld of it."""
    return {m.rc: i for i, m in enumerate(s.table) if m.side == sd}


def canastas(s: GameState, sd: int) -> int:
    return sum(1 for m in s.table if m.side == sd and m.size >= 7)


def pile_frozen(pile: list[int]) -> bool:
    """A wild card or a red 3 in the pile freezes it (D-22)."""
    return any(c in WILD or c in RED_THREES for c in pile)


def hand_classes(hand: list[int]) -> tuple[list[int], int, int, int]:
    """Naturals per rank class (11), jokers, 2s, black 3s of a hand of counts."""
    nat = [hand[a] + hand[b] + hand[c] + hand[d] for a, b, c, d in CLASS_FACES[:BLACK]]
    return nat, hand[JOKER], hand[1] + hand[14] + hand[27] + hand[40], hand[2] + hand[41]


def _opening(s: GameState, p: int) -> bool:
    """The seat to act is laying its side's initial meld this turn, not yet complete."""
    return not s.opened[p] and (s.opening_count > 0 or any(s.pending))


# ------------------------------------------------------------------ applying moves
def _take_cards(s: GameState, p: int, rc: int, n: int, j: int, t: int) -> list[int]:
    """Take ``n`` naturals of rank class ``rc``, ``j`` jokers and ``t`` 2s from the hand,
    lowest suit first (D-20)."""
    hand = s.hands[p]
    out = []
    for faces, k in ((CLASS_FACES[rc], n), ((JOKER,), j), (DEUCES, t)):
        for f in faces:
            while k and hand[f]:
                s._remove(p, f)
                out.append(f)
                k -= 1
    return out


def _draw_one(s: GameState, p: int) -> bool:
    """Draw the stock's top card; a red 3 is laid out and replaced (D-21). Returns False
    when a red 3 was the last card (the final turn, D-30)."""
    while s.stock:
        c = s.stock.pop()
        if c in RED_THREES:
            _lay_red(s, p, c)
            continue
        s._add(p, c)
        return True
    return False


def _lay_red(s: GameState, p: int, c: int) -> None:
    sd = side(s, p)
    reds = list(s.red_threes)
    reds[sd] = tuple(sorted((*reds[sd], c)))
    s.red_threes = tuple(reds)


def apply_draw(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    if a == L.DRAW_STOCK:
        for _ in range(s.rules.stock_draw):
            if not s.stock:
                break
            if not _draw_one(s, p):
                s.final_turn = True
                break
        s.phase = _PLAY
        return False
    if a == L.END_ROUND:
        return _end_round(s, None, "stock_exhausted")
    _apply_take(s, p, a - L.TAKE_PILE)
    if s.nhand[p] == 0 and not any(s.pending):
        return _end_round(s, p, "went_out")
    s.phase = _PLAY
    return False


def _apply_take(s: GameState, p: int, k: int) -> None:
    """Take the pile (D-23): the top card melded with the cards of form ``k``, the rest
    into the hand (pending until an opening's count is reached, D-24)."""
    top = s.discard[-1]
    rc = CLASS_OF[top]
    n, j, t = (0, 0, 0) if k == 0 else ((2, 0, 0), (1, 1, 0), (1, 0, 1))[(k - 1) % 3]
    laid = [top, *_take_cards(s, p, rc, n, j, t)]
    rest = s.discard[:-1]
    s.discard = []
    s.frozen = False
    _meld(s, p, rc, laid)
    for c in rest:
        if c in RED_THREES:
            _lay_red(s, p, c)
        elif s.opened[p]:
            s._add(p, c)
            s.known[p][c] += 1
        else:
            s.pending[c] += 1
    _count(s, p, sum(VALUE[c] for c in laid))


def _meld(s: GameState, p: int, rc: int, laid: list[int]) -> None:
    """Put ``laid`` on the side's meld of ``rc`` (a new meld when it has none)."""
    sd = side(s, p)
    for i, m in enumerate(s.table):
        if m.side == sd and m.rc == rc:
            s.table[i] = CMeld.of(m.owner, sd, rc, _laid_out(m.cards, laid))
            if m.owner != p:
                s.turn_on_old = True
            break
    else:
        s.table.append(CMeld.of(p, sd, rc, _laid_out((), laid)))
    s.turn_played = True


def _count(s: GameState, p: int, value: int) -> None:
    """An opening's count grows by ``value``; at the minimum the side has opened and the
    pile's cards waiting join the hand (D-24)."""
    if s.opened[p]:
        return
    s.opening_count += value
    sd = side(s, p)
    if s.opening_count >= minimum(s, sd):
        for q in range(s.rules.num_players):
            if side(s, q) == sd:
                s.opened[q] = True
        s.opening_count = 0
        for c in range(NUM_FACES):
            for _ in range(s.pending[c]):
                s._add(p, c)
                s.known[p][c] += 1
        s.pending = [0] * NUM_FACES


def apply_play(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    if a >= L.DISCARD:
        if a >= L.KNOCK:  # EndRound in the final turn
            return _end_round(s, None, "stock_exhausted")
        f = a - L.DISCARD
        s._remove(p, f)
        s.discard.append(f)
        if f in WILD:
            s.frozen = True
        if s.nhand[p] == 0:
            return _end_round(s, p, "went_out")
        s.opening_count = 0
        s.turn_on_old = False
        return _end_turn(s, p)
    if a < L.LAYOFF:
        k = a - L.MELD
        if k >= 11 * len(MELD_SHAPES):
            rc, laid = BLACK, _take_cards(s, p, BLACK, 3 + k - 11 * len(MELD_SHAPES), 0, 0)
        else:
            rc, i = divmod(k, len(MELD_SHAPES))
            laid = _take_cards(s, p, rc, *MELD_SHAPES[i])
        s.table.append(CMeld.of(p, side(s, p), rc, _laid_out((), laid)))
        s.turn_played = True
    else:
        mi, kind = divmod(a - L.LAYOFF, LAYOFF_KINDS)
        m = s.table[mi]
        if kind < 11:
            laid = _take_cards(s, p, kind, 1, 0, 0)
        else:
            laid = _take_cards(s, p, m.rc, 0, kind == 11, kind == 12)
        _meld(s, p, m.rc, laid)
    _count(s, p, sum(VALUE[c] for c in laid))
    if s.nhand[p] == 0 and not any(s.pending):
        return _end_round(s, p, "went_out")
    return False


def _laid_out(cards: tuple[int, ...], more: list[int]) -> tuple[int, ...]:
    """A meld's cards as it shows them: naturals, then jokers, then 2s."""
    return tuple(sorted((*cards, *more), key=lambda c: (c in WILD, c in DEUCES, c)))


def _kinds(cards: list[int] | tuple[int, ...]) -> tuple[int, int, int]:
    """Naturals, jokers and 2s among ``cards``."""
    jok = sum(1 for c in cards if c == JOKER)
    deu = sum(1 for c in cards if c in DEUCES)
    return len(cards) - jok - deu, jok, deu


# ------------------------------------------------------------------ the deal
def _on_deal(s: GameState, shuffled: bool) -> None:
    """The pile's first card (turned again while a wild card or a 3, D-22, when
    shuffled), red 3s laid out and replaced in turn order (D-21), the totals the minimum
    is read from."""
    if shuffled:
        while s.discard and (s.discard[-1] in WILD or s.discard[-1] % 13 == 2) and s.stock:
            s.discard.append(s.stock.pop())
    s.frozen = pile_frozen(s.discard)
    s.round_start_totals = s.totals[:]
    n = s.rules.num_players
    p = (s.dealer + 1) % n
    for _ in range(n):
        _lay_out_reds(s, p)
        p = (p + 1) % n


def _lay_out_reds(s: GameState, p: int) -> None:
    reds = [c for c in RED_THREES for _ in range(s.hands[p][c])]
    for c in reds:
        s._remove(p, c)
        _lay_red(s, p, c)
    for _ in reds:
        if not _draw_one(s, p):
            break


def _deal_totals(s: GameState, totals: Any) -> None:
    """``options["totals"]`` of a crafted deal: the match totals at the round's start."""
    n = s.rules.num_players
    ok = (
        isinstance(totals, (list, tuple))
        and len(totals) == n
        and all(isinstance(t, int) and not isinstance(t, bool) for t in totals)
    )
    if ok:
        ok = all(totals[p] == totals[side(s, p)] for p in range(n))
    if not ok:
        raise ValueError(
            f"totals={totals!r} is not allowed (allowed: a list of {n} integers, one per "
            "seat, partners equal: the match totals at the start of this round)"
        )
    s.totals = list(totals)
    s.round_start_totals = list(totals)


# ------------------------------------------------------------------ scoring
def breakdown(s: GameState, winner: int | None) -> list[dict[str, int]]:
    """Each side's score by part (RULES.md 4 canasta, Scoring)."""
    r = s.rules
    n = r.num_players
    out = []
    for sd in range(num_sides(r)):
        melds = [m for m in s.table if m.side == sd]
        value = sum(VALUE[c] for m in melds for c in m.cards)
        bonus = sum(
            r.canasta_bonus[0] if m.wild == 0 else r.canasta_bonus[1] for m in melds if m.size >= 7
        )
        k = len(s.red_threes[sd])
        reds = r.red_three_bonus[1] if k == 4 else k * r.red_three_bonus[0]
        if not melds:
            reds = -reds
        out_b = 0
        if winner is not None and side(s, winner) == sd:
            out_b = r.out_bonus[1] if concealed(s, winner) else r.out_bonus[0]
        hands = -sum(s.hand_value(p) for p in range(n) if side(s, p) == sd)
        out.append(
            {
                "melds": value,
                "canastas": bonus,
                "red_threes": reds,
                "going_out": out_b,
                "hands": hands,
            }
        )
    return out


def concealed(s: GameState, p: int) -> bool:
    """D-26: nothing melded in an earlier turn, nothing on a meld older than this turn,
    and a canasta among the melds laid."""
    return (
        not s.played[p] and not s.turn_on_old and any(m.owner == p and m.size >= 7 for m in s.table)
    )


def _score(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    parts = breakdown(s, winner)
    per_side = [sum(d.values()) for d in parts]
    scores = [per_side[side(s, p)] for p in range(s.rules.num_players)]
    return scores, list(scores)


def round_info(s: GameState) -> dict[str, Any]:
    """What a round's end adds to ``infos``: sides' scores, their breakdown, concealed."""
    parts = breakdown(s, s.winner)
    return {
        "side_scores": [sum(d.values()) for d in parts],
        "breakdown": parts,
        "concealed": s.winner is not None and concealed(s, s.winner),
    }


def _match_over(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """D-32: over when a side reaches the target and one side is highest."""
    top = max(s.totals)
    if top < s.rules.target:
        return False
    leaders = {side(s, p) for p in range(s.rules.num_players) if s.totals[p] == top}
    if len(leaders) > 1:
        return False
    s.match_winner = leaders.pop()
    return True


def _check_standing(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    top = max(s.totals)
    leaders = {side(s, p) for p in range(s.rules.num_players) if s.totals[p] == top}
    if top >= s.rules.target and len(leaders) == 1:
        fail("totals", f"={s.totals}", f"below target={s.rules.target} for a match in play")


# ------------------------------------------------------------------ the table in data
def _dump_table(s: GameState) -> list[dict[str, Any]]:
    return [
        {"owner": m.owner, "side": m.side, "cards": [card_str(c) for c in m.cards]} for m in s.table
    ]


def _read_table(f: _Saved, s: GameState) -> None:
    """The table from saved data: melds of one rank class each, checked (RULES 4 canasta)."""
    table = f.d["table"]
    M = s.layout.max_melds
    shape = "a list of {'owner': seat, 'side': side, 'cards': [...]}"
    if not isinstance(table, (list, tuple)) or len(table) > M:
        raise f.error("table", table, f"{shape}, at most {M}")
    s.table = []
    seen: set[tuple[int, int]] = set()
    for i, d in enumerate(table):
        key = f"table[{i}]"
        if not isinstance(d, dict) or set(d) - set(_MELD_KEYS) - {"side"} or "cards" not in d:
            raise f.error(key, d, shape)
        owner = f.seat(f"{key}['owner']", d.get("owner"))
        sd = side(s, owner)
        if d.get("side", sd) != sd:
            raise f.error(f"{key}['side']", d.get("side"), f"{sd}, the side of seat {owner}")
        cards = f.cards(f"{key}['cards']", d["cards"])
        rc = _meld_class(cards, s.rules.max_wilds_per_meld)
        if rc is None:
            raise f.error(
                f"{key}['cards']",
                d["cards"],
                "3+ cards of one rank (A, 4-K) with at least 2 naturals and at most "
                f"{s.rules.max_wilds_per_meld} wild cards, or 3-4 black 3s",
            )
        if (sd, rc) in seen:
            raise f.error(f"{key}['cards']", d["cards"], "one meld per rank and side")
        seen.add((sd, rc))
        s.table.append(CMeld.of(owner, sd, rc, _laid_out((), cards)))


def _meld_class(cards: list[int], cap: int) -> int | None:
    """The rank class of a valid Canasta meld, else None."""
    nat = [c for c in cards if c not in WILD]
    classes = {CLASS_OF[c] for c in nat}
    if len(cards) < 3 or len(nat) < 2 or len(classes) != 1 or -1 in classes:
        return None
    rc = classes.pop()
    wild = len(cards) - len(nat)
    if rc == BLACK:
        return rc if wild == 0 and len(cards) <= 4 else None
    return rc if wild <= cap else None


from rummy_env.variants import _canasta_moves, _canasta_view  # noqa: E402,F401  (its hooks)
