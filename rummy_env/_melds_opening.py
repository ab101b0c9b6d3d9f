"""The opening search (:func:`opening_possible`) and the melds of a hand with wild cards
(:func:`hand_melds`); both names are importable from :mod:`rummy_env.melds`.

A hand is held as face bits (:func:`rummy_env.melds._held`). Its melds come in *pieces*,
one per rank (sets) or suit (runs), built once per what the hand holds of that rank or
suit and wild cards (:class:`_MeldPieces`) and shared by every search under the same rules.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import compress

from rummy_env._native import checked
from rummy_env.cards import JOKER, NUM_RANKS
from rummy_env.melds import (
    _MEMO_SIZE,
    _SUIT_BITS,
    ACE_HIGH_POS,
    SPREAD,
    Catalogue,
    _face_values,
    _held,
    _pos_values,
    code_counts,
    code_faces,
    code_size,
    run3_bits,
    three_suit_ranks,
)

_C_API = 1  # the form of the compiled search's calls this file makes
#: the compiled opening search, when it was built (pyproject.toml's ext-modules)
try:
    from rummy_env import _open_c as _built
except ImportError:  # built without a C compiler
    _built = None
_compiled = checked(_built, _C_API, "the opening search runs in Python (slower)")


def hand_melds(
    cat: Catalogue, counts: tuple[int, ...] | list[int], ace_value: int, joker_value: int
):
    """Every meld formable from ``counts`` as ``(naturals, wilds, value, pure)`` with the
    catalogue's wild rules (naturals first, wild cards fill what is missing)."""
    held = sum(1 << f for f in compress(range(JOKER), counts))
    pieces = _hand_pieces(_meld_pieces(cat, ace_value, joker_value), held, counts[JOKER])
    return [
        (tuple([b + x for x in xs]), wu, value, pure)
        for _, _, _, _, shapes, b in pieces
        for xs, wu, value, pure in shapes
    ]


class _MeldPieces:
    """The melds of one rank (sets) or one suit (runs) of a hand, by what the hand holds
    of it: built once per (rank, suits held, wilds) and (suit, positions held, wilds).

    A piece is ``(moves, faces, wild, pure, shapes, b)``: ``moves`` its melds as
    ``(face bits, wilds, value, pure)``, ``faces`` a bit per face in some meld, ``wild``
    whether a meld takes a wild card, ``pure`` whether one is a pure run; ``shapes``
    the melds as :func:`hand_melds` gives them, less ``b`` on every face."""

    def __init__(self, cat: Catalogue, ace_value: int, joker_value: int, plain_rank: int = -1):
        self.cat, self.ace_value, self.joker_value = cat, ace_value, joker_value
        self.plain_rank = plain_rank  # sets of this rank take no wild card (-1: none)
        # no meld takes more wild cards than this (a run spans at most 13 positions)
        self.wild_cap = cat.max_wilds or NUM_RANKS
        self.sets: dict[int, tuple] = {}
        self.runs: dict[int, tuple] = {}
        self._run_shapes: dict[int, tuple] = {}
        # (faces held, melds without wild cards) of the hand an opening search began with last
        self.last_natural: tuple = (0, ())

    def rank(self, key: int, r: int, rm: int, w: int) -> tuple:
        """The sets of rank ``r`` from the suits ``rm`` and ``w`` wild cards."""
        cat, jv = self.cat, self.joker_value
        v = self.ace_value if r == 0 else min(r + 1, 10)
        shapes = []
        # sets of distinct suits (D-2)
        for k, wu in cat.sets_for(SPREAD[rm], 0 if r == self.plain_rank else w):
            nat = tuple(code_faces(cat.set_shapes[k][0], r))
            shapes.append((nat, wu, len(nat) * v + wu * (jv or v), False))
        moves, faces, wild, pure = _moves_of(shapes)
        piece = self.sets[key] = (moves, faces, wild, pure, tuple(shapes), 0)
        return piece

    def suit(self, key: int, su: int, pm: int, w: int) -> tuple:
        """The runs of suit ``su`` from the positions ``pm`` and ``w`` wild cards."""
        moves, faces, wild, pure, shapes = self._run_shapes.get(pm | w << 14) or self._runs_of(
            pm, w
        )
        b = su * NUM_RANKS
        piece = self.runs[key] = (
            tuple([(bits << b, wu, value, p) for bits, wu, value, p in moves]),
            faces << b,
            wild,
            pure,
            shapes,
            b,
        )
        return piece

    def _runs_of(self, pm: int, w: int) -> tuple:
        """A suit's runs with ranks in place of faces (the same for every suit)."""
        jv = self.joker_value
        pv = _pos_values(self.ace_value)
        segs = self.cat.segments
        shapes = []
        for k, wu in self.cat.runs_for(pm, w):
            lo, hi = segs[k]
            ranks = []
            value = 0
            for p in range(lo, hi + 1):
                if pm >> p & 1:
                    ranks.append(p % NUM_RANKS)
                    value += pv[p]
                else:
                    value += jv or pv[p]
            shapes.append((tuple(ranks), wu, value, wu == 0))
        out = self._run_shapes[pm | w << 14] = (*_moves_of(shapes), tuple(shapes))
        return out


def _moves_of(shapes: list[tuple]) -> tuple:
    """``(moves, faces, wild, pure)`` of melds given as ``(naturals, wilds, value, pure)``."""
    moves = tuple((sum(1 << f for f in nat), wu, value, pure) for nat, wu, value, pure in shapes)
    faces = 0
    for m in moves:
        faces |= m[0]
    return moves, faces, any(m[1] for m in moves), any(m[3] for m in moves)


@cache
def _meld_pieces(
    cat: Catalogue, ace_value: int, joker_value: int, plain_rank: int = -1
) -> _MeldPieces:
    return _MeldPieces(cat, ace_value, joker_value, plain_rank)


def _hand_pieces(pc: _MeldPieces, held: int, w: int) -> list[tuple]:
    """The pieces of the hand holding the faces ``held`` (a bit per face) and ``w`` wild
    cards, in catalogue order: sets by rank, then runs by suit."""
    if w > pc.wild_cap:
        w = pc.wild_cap  # the same melds
    cat = pc.cat
    s0, s1, s2, s3 = held & _SUIT_BITS, held >> 13 & _SUIT_BITS, held >> 26 & _SUIT_BITS, held >> 39
    if not w:  # the ranks held in three suits or more: a set needs three naturals
        ranks = three_suit_ranks(s0, s1, s2, s3)
    elif cat.min_naturals >= 2:  # in two suits or more
        ranks = s0 & (s1 | s2 | s3) | s1 & (s2 | s3) | s2 & s3
    else:
        ranks = s0 | s1 | s2 | s3
    out = []
    if ranks:
        sets_get = pc.sets.get
        min_nat = cat.min_naturals
        while ranks:
            low = ranks & -ranks
            ranks ^= low
            r = low.bit_length() - 1
            rm = (s0 >> r & 1) | (s1 >> r & 1) << 1 | (s2 >> r & 1) << 2 | (s3 >> r & 1) << 3
            if rm.bit_count() >= min_nat:
                key = r | rm << 4 | w << 8
                out.append(sets_get(key) or pc.rank(key, r, rm, w))
    runs_get = pc.runs.get
    ace_high = cat.ace_high
    for su, pm in enumerate((s0, s1, s2, s3)):
        if pm:
            if ace_high and pm & 1:
                pm |= 1 << ACE_HIGH_POS
            if not w and not pm & pm >> 1 & pm >> 2:
                continue  # a run needs three neighbouring naturals
            key = su | pm << 2 | w << 16
            out.append(runs_get(key) or pc.suit(key, su, pm, w))
    return out


@cache
def _rank_values(ace_value: int) -> list[int]:
    """Total value (an ace: ``ace_value``) of the ranks in each 13-bit rank mask."""
    fv = _face_values(ace_value)[:NUM_RANKS]
    out = [0] * (1 << NUM_RANKS)
    for m in range(1, 1 << NUM_RANKS):
        low = m & -m
        out[m] = out[m ^ low] + fv[low.bit_length() - 1]
    return out


class _Opening:
    """What an opening search needs beside the hand: the meld pieces and the rules."""

    def __init__(
        self,
        cat: Catalogue,
        ace_value: int,
        joker_value: int,
        forb: int,
        allow_empty: bool,
        plain_rank: int = -1,
    ):
        self.pieces = _meld_pieces(cat, ace_value, joker_value, plain_rank)
        self.forb = forb
        self.allow_empty = allow_empty
        self.values = _rank_values(ace_value)
        self.joker_best = max(joker_value, ace_value, 10)  # the most a wild card is worth
        self.ace_high = cat.ace_high
        self.memo: dict[tuple, bool] = {}  # (once, twice, wilds, need, need_pure) -> found
        #: the compiled search of these rules with a memo of its own (None: the Python one)
        self.compiled = None if _compiled is None else _compiled_opening(_compiled, self)

    def possible(self, counts, need: int, need_pure: bool, less=(), less_wilds: int = 0) -> bool:
        """:func:`opening_possible` in Python (the compiled search's ``possible``)."""
        if less or less_wilds:
            counts = list(counts)
            for f in less:
                counts[f] -= 1
            counts[JOKER] -= less_wilds
        once, twice = _held(counts)
        memo = self.memo
        w = counts[JOKER]
        key = (once, twice, w, need, need_pure)
        found = memo.get(key)
        if found is None:
            if len(memo) > _MEMO_SIZE:
                memo.clear()
            # the engine asks about a hand, then about that hand less each meld: the natural
            # melds of the hand asked first serve (see _open_search) while it holds this one
            pc = self.pieces
            last = pc.last_natural
            if once & ~last[0]:
                last = pc.last_natural = (once, _moves(pc, once, 0)[0])
            found = memo[key] = _open_search(self, *key, last[1])
        return found


def _compiled_opening(module, o: _Opening):
    """The compiled search (``module.Opening``: ``rummy_env._open_c``) of ``o``'s rules."""
    pc = o.pieces
    cat, ace_value = pc.cat, pc.ace_value
    # the set shapes of distinct suits (those the search lays): suit mask, wilds, naturals
    shapes = [
        (sum(1 << su for su, c in enumerate(code_counts(code)) if c), wu, code_size(code))
        for code, wu in cat.set_shapes
        if max(code_counts(code)) <= 1
    ]
    return module.Opening(
        cat.ace_high,
        cat.max_pos,
        cat.min_run,
        pc.wild_cap,
        cat.max_wilds,
        cat.min_naturals,
        cat.at_most_naturals,
        cat.wilds,
        shapes,
        _face_values(ace_value)[:NUM_RANKS],
        _pos_values(ace_value),
        o.values,
        pc.joker_value,
        o.joker_best,
        o.forb,
        o.allow_empty,
        pc.plain_rank,
    )


#: the shared :class:`_Opening` of these arguments (its memo kept between searches)
_opening = cache(_Opening)


@lru_cache(maxsize=1 << 15)
def _moves(pc: _MeldPieces, held: int, w: int) -> tuple:
    """``(moves, faces, wild, pure)`` of a hand (see :class:`_MeldPieces`)."""
    moves: list = []
    faces = 0
    wild = pure = False
    for piece in _hand_pieces(pc, held, w):
        moves += piece[0]
        faces |= piece[1]
        wild = wild or piece[2]
        pure = pure or piece[3]
    return moves, faces, wild, pure


def opening_possible(
    cat: Catalogue,
    counts: tuple[int, ...] | list[int],
    need: int,
    need_pure: bool,
    forb: int,
    ace_value: int,
    joker_value: int,
    allow_empty: bool,
    plain_rank: int = -1,
    less: tuple[int, ...] | list[int] = (),
    less_wilds: int = 0,
) -> bool:
    """Whether disjoint melds from ``counts`` can add ``need`` points (and a pure run when
    ``need_pure``) while leaving a card that may be discarded (not face ``forb``), or
    nothing when ``allow_empty``. Exhaustive over the melds formable at each step, with
    a bound (the value of every card that is in some meld) and memoised: hands repeat
    within a turn. ``counts`` holds at most two of a natural face (two decks). Sets of
    ``plain_rank`` (-1: none) are made of naturals only (wild 2s: a 2 in a set of 2s is
    natural, so the wild cards the search counts cannot stand there). The hand searched
    is ``counts`` less one of each natural face in ``less`` and ``less_wilds`` wild cards
    (a meld about to be laid)."""
    o = _opening(cat, ace_value, joker_value, forb, allow_empty, plain_rank)
    if o.compiled is not None:
        return o.compiled.possible(counts, need, need_pure, less, less_wilds)
    return o.possible(counts, need, need_pure, less, less_wilds)


def _open_search(
    o: _Opening, once: int, twice: int, w: int, need: int, need_pure: bool, natural: list
) -> bool:
    """:func:`opening_possible` on a hand held as bits: ``once`` the natural faces held,
    ``twice`` those held twice, ``w`` the wild cards; ``natural`` the melds without wild
    cards of a hand that holds this one."""
    if need <= 0 and not need_pure:
        n = once.bit_count() + twice.bit_count() + w
        forb = o.forb
        nforb = 0 if forb < 0 else w if forb == JOKER else (once >> forb & 1) + (twice >> forb & 1)
        return n > nforb or (o.allow_empty and n == 0)
    # quick exits before listing the melds: no pure run of three, or no meld at all
    # (without wild cards a meld is a pure run or a set of three suits)
    pure = run3_bits(once, o.ace_high)
    if not pure and (
        need_pure
        or not w
        and not three_suit_ranks(
            once & _SUIT_BITS, once >> 13 & _SUIT_BITS, once >> 26 & _SUIT_BITS, once >> 39
        )
    ):
        return False
    if w:
        moves, faces, wild, pure = _moves(o.pieces, once, w)
    else:  # without wild cards, the melds of part of a hand are those of the hand it still holds
        moves = natural = [m for m in natural if m[0] & once == m[0]]
        faces = 0
        for m in moves:
            faces |= m[0]
        wild = False  # (and pure as found above: a pure run is three neighbouring naturals)
    if not moves or (need_pure and not pure):
        return False
    # bound: each card in some meld at its best value, jokers at the best they can be worth
    v = o.values
    a, b = once & faces, twice & faces
    bound = (
        v[a & _SUIT_BITS]
        + v[a >> 13 & _SUIT_BITS]
        + v[a >> 26 & _SUIT_BITS]
        + v[a >> 39]
        + v[b & _SUIT_BITS]
        + v[b >> 13 & _SUIT_BITS]
        + v[b >> 26 & _SUIT_BITS]
        + v[b >> 39]
    )
    if w and wild:
        bound += w * o.joker_best
    if bound < need:
        return False
    if need_pure and not o.allow_empty:
        # some pure run must be laid: lay it first. The other melds then take the same
        # cards, and stopping sooner leaves more in hand, so a card to discard if they did
        moves = [m for m in moves if m[3]]
    memo = o.memo
    for bits, wu, value, mpure in moves:
        keep = ~bits
        key = (
            once & keep | twice & bits,
            twice & keep,
            w - wu,
            need - value,
            need_pure and not mpure,
        )
        found = memo.get(key)
        if found is None:
            found = memo[key] = _open_search(o, *key, natural)
        if found:
            return True
    return False
