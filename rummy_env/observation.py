"""Observation encoding for one player, and its decoding to a readable view.

The observation of player ``p`` is one flat ``float32`` vector of what ``p``
knows at a real table and nothing more. Seats in it are *relative*: offset 0 is
``p`` itself, offset 1 the next player in turn order, and so on. Card faces are
indexed as in :mod:`rummy_env.cards` (``suit * 13 + rank``; 52 = joker).

With ``P`` players, ``F = 53`` faces, ``D = rules.num_cards`` (longest
possible discard pile; 0 in Rummikub), ``M = rules.max_melds`` table slots, ``I`` = 1 in
Indian rummy (``scoring="indian"``), else 0, and ``C`` = 1 in contract rummy, else 0,
the slices, in order:

| name          | size          | content                                                            |
|---------------|---------------|--------------------------------------------------------------------|
| `hand`        | F             | count of each face in own hand                                     |
| `known`       | (P-1) x F     | per opponent (offset 1..P-1): cards known to be in his hand (taken from the discard pile, not yet played) |
| `discard`     | D x F         | discard pile, one-hot per position, row 0 = top card               |
| `table`       | M x (P+2+F+W) | per meld slot (order laid): owner one-hot (P), kind (set, run), cards: 1 = natural card (a set: the count of that card, 2 where suits repeat), 2 = a joker standing for that card in a run, 5-8 = a wild 2 of suit S/H/D/C standing there (`wild_deuces`); an ace played high: 3 natural, 4 a joker, 9-12 a wild 2; column 52 = jokers in the meld; W = 4 columns with `wild_deuces` (else 0): the wild 2s in it by suit |
| `hand_sizes`  | P             | cards in each player's hand                                        |
| `stock_size`  | 1             | cards in the stock                                                 |
| `phase`       | 4 + C         | one-hot: draw, play, game over, up-card offer (gin), buy question (contract rummy) |
| `to_act`      | P             | one-hot: who acts now (the asked seat during a buy question)      |
| `forbidden`   | F             | one-hot: the face that may not be discarded this turn              |
| `played`      | P             | 1 if the player melded or laid off in an earlier turn this round   |
| `active`      | P             | 1 if the player is still in the match                              |
| `totals`      | P             | match totals (variant convention, see the env docs)                |
| `dealer`      | P             | one-hot: the dealer of this round                                  |
| `rebuilds`    | 1             | times the stock was rebuilt this round                             |
| `knock_limit` | 1             | most deadwood a knock allows this round (0: no knocking)           |
| `must_use`    | F             | one-hot: the taken card the next meld or lay-off must contain      |
| `opened`      | P             | 1 if the player has opened (always 1 without an opening rule)     |
| `turn_value`  | 1             | opening: value melded this turn by the player to act, not yet opened |
| `credit`      | P             | rummy500: value melded and laid off this round                     |
| `cut`         | I x F         | Indian rummy: one-hot, the cut card (face up at the bottom of the stock) |
| `wild_rank`   | I x 13        | Indian rummy: one-hot, this round's wild rank (the cut card's; aces for a joker) |
| `dropped`     | I x P         | Indian rummy: 1 if the player dropped out of this round            |
| `drew`        | I x P         | Indian rummy: 1 if the player has drawn this round (a drop now is a middle drop) |
| `deal`        | C x 7         | contract rummy: one-hot, the deal played (1-7), which sets its contract |
| `buys`        | C x P         | contract rummy: buys each player has left this deal               |
| `turn`        | C x P         | contract rummy: one-hot, whose turn it is (during a buy question the drawer, while `to_act` is the asked seat) |
| `table_tiles` | R x F         | Rummikub (R = 1, else 0): count of each tile on the table (one pool, D-17) |
| `played_tiles`| R x F         | Rummikub: count of each tile played this turn, not yet committed    |
| `passes`      | R x 1         | Rummikub: passes in a row, the pool empty (when every player has passed, the round ends) |

The unbounded numbers (`totals`, `credit`, `turn_value`, `knock_limit`,
`rebuilds`) are clipped to `-OBS_BOUND..OBS_BOUND` (10^4), the bounds of the
env's observation space; real games stay far inside them (a match ends at its
target), so only extreme rule values or crafted totals are cut.

Size = PF + DF + M(P+2+F+W) + 2F + 8P + 8; e.g. basic, 2 players, one deck
without jokers: 106 + 2756 + 17*57 + 106 + 16 + 8 = 3961; gin (no table
slots): 106 + 2756 + 106 + 16 + 8 = 2992. Indian rummy adds F + 13 + 2P: 2 players, two
decks with 2 jokers: 106 + 5618 + 106 + 16 + 8 + 53 + 13 + 4 = 5924. Contract rummy adds
1 + 7 + 2P, Rummikub 2F + 1 (and no discard pile: D = 0).

:func:`decode` turns a vector back into a readable dict (cards as text).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from dataclasses import dataclass
from functools import cache
from itertools import compress
from operator import is_
from typing import Any

import numpy as np

from rummy_env._native import checked
from rummy_env.cards import JOKER, NUM_FACES, NUM_NATURAL, NUM_RANKS, card_str, counts_str
from rummy_env.engine import GameState, Phase, acting_seat
from rummy_env.engine.game import game_of
from rummy_env.melds import ACE_HIGH_POS, run_face, suit_code
from rummy_env.rules import RuleSet

F = NUM_FACES
_FACES = range(NUM_FACES)

_C_API = 3  # the form of the compiled update's calls this file makes
#: LiveObservation's update compiled (rummy_env/_obs_c.c), where it was built
#: (pyproject.toml's ext-modules; ``RUMMY_PURE_PYTHON=1`` asks for the Python one)
try:
    from rummy_env import _obs_c as _built
except ImportError:  # built without a C compiler
    _built = None
_compiled = checked(_built, _C_API, "observations are updated by the (slower) Python code")
OBS_BOUND = 10_000
"""Every entry of an observation lies in ``-OBS_BOUND..OBS_BOUND`` (larger numbers are clipped)."""


#: divisors that bring the count-valued slices near 0..1 for a network's input (every
#: other entry is 0/1 or a small count); a game with its own observation names its own
#: (:meth:`ObsLayout.count_scales`)
COUNT_SCALES = {
    "hand_sizes": 10.0,
    "stock_size": 10.0,
    "totals": 100.0,
    "turn_value": 50.0,
    "credit": 100.0,
    "knock_limit": 10.0,
}


def _clip(v: int) -> int:
    return OBS_BOUND if v > OBS_BOUND else -OBS_BOUND


class ObsLayout:
    """Offsets of the named slices for one rule set."""

    def __init__(self, rules: RuleSet):
        P = rules.num_players
        self.P = P
        game = game_of(rules)
        self.D = rules.num_cards if game.discard_pile else 0  # (Rummikub: no discard pile)
        self.M = rules.max_melds
        # wild_deuces: 4 more columns per slot, the wild 2s in the meld by suit
        self.wild2 = 4 if rules.fixed_wild_rank >= 0 else 0
        self.slot = P + 2 + F + self.wild2
        # the game's own slices, how they are written and read (rummy_env.variants)
        self.game_slices = game.obs_slices
        self.writers, self.views = game.obs_writers, game.obs_view
        #: a game's own whole observation (Canasta), else None
        self.full = game.obs_full
        self.slices: dict[str, slice] = {}
        off = 0
        sizes = self.full.sizes(rules) if self.full is not None else self._sizes(rules)
        for name, n in sizes:
            self.slices[name] = slice(off, off + n)
            off += n
        self.size = off
        # the count-valued slices and their divisors (a game's own, or the shared ones)
        own = self.full.scales if self.full is not None else COUNT_SCALES
        self.count_scales: list[tuple[slice, float]] = [
            (self.slices[k], float(v)) for k, v in own.items()
        ]
        # gin (no melding during play, no opening, one round, no credit): nobody ever has
        # "played", everyone is active and opened: those fields are constant, written into
        # the zeros once (encode skips them)
        self.seat_flags = bool(
            rules.meld_during_play
            or rules.open_points
            or rules.match
            or game.on_meld is not None  # (rummy500's credit)
        )
        self.zero_bytes = self._zeros()
        for name, sl in self.slices.items():
            setattr(self, name.upper(), sl.start)
        if self.full is not None:
            self.seat_flags = False
            return
        self.seat_offsets = (
            self.KNOWN,
            self.DISCARD,
            self.HAND_SIZES,
            self.PLAYED,
            self.ACTIVE,
            self.TOTALS,
            self.OPENED,
            self.CREDIT,
        )

    def _sizes(self, rules: RuleSet) -> list[tuple[str, int]]:
        """The named slices in vector order with their lengths (0: not in this rule set)."""
        P = self.P
        g = self.game_slices.get
        return [
            ("hand", F),
            ("known", (P - 1) * F),
            ("discard", self.D * F),
            ("table", self.M * self.slot),
            ("hand_sizes", P),
            ("stock_size", 1),
            ("phase", Phase.BUY + g("buy_phase", 0)),  # (BUY: contract rummy's)
            ("to_act", P),
            ("forbidden", F),
            ("played", P),
            ("active", P),
            ("totals", P),
            ("dealer", P),
            ("rebuilds", 1),
            ("knock_limit", 1),
            ("must_use", F),
            ("opened", P),
            ("turn_value", 1),
            ("credit", P),
            # Indian rummy: the cut card, the wild rank, drops and draws
            ("cut", g("cut", 0)),
            ("wild_rank", g("wild_rank", 0)),
            ("dropped", g("dropped", 0)),
            ("drew", g("drew", 0)),
            # contract rummy: the deal (its contract) and each seat's buys left
            ("deal", g("deal", 0)),
            ("buys", g("buys", 0)),
            ("turn", g("turn", 0)),
            # Rummikub: the table's tiles and this turn's played tiles
            ("table_tiles", g("table_tiles", 0)),
            ("played_tiles", g("played_tiles", 0)),
            ("passes", g("passes", 0)),
        ]

    def _zeros(self) -> bytes:
        """The bytes of a vector before anything is written: zeros, and the seat flags that
        never change where :attr:`seat_flags` is off (everyone active and opened)."""
        zeros = array("f", bytes(4 * self.size))
        if not self.seat_flags and self.full is None:
            for i in range(self.P):
                zeros[self.slices["active"].start + i] = 1.0
                zeros[self.slices["opened"].start + i] = 1.0
        return zeros.tobytes()


def encode(state: GameState, player: int, layout: ObsLayout) -> np.ndarray:
    """The observation vector of ``player`` (reads no hidden card), built from scratch
    (:class:`LiveObservation` keeps a vector and updates what a move changed)."""
    o = array("f", layout.zero_bytes)
    if layout.full is not None:
        layout.full.write(o, layout, state, player)
    else:
        _write(o, state, player, layout)
    return np.frombuffer(o, dtype=np.float32)


def _write(o: Any, state: GameState, player: int, layout: ObsLayout) -> None:
    """Write ``player``'s vector into ``o``, a zeroed buffer (``layout.zero_bytes``)."""
    # Written entry by entry: the vector is sparse (about a hundred non-zeros in
    # thousands), so this beats numpy fancy indexing. Offsets are read once into locals
    # (attribute look-ups are a third of the time).
    hand = state.hands[player]
    for f in compress(_FACES, hand):  # the faces held (a hand is mostly zeros)
        o[f] = hand[f]
    P = layout.P
    known = state.known
    KNOWN = layout.KNOWN
    for off in range(1, P):
        k = known[(player + off) % P]
        if any(k):
            b = KNOWN + (off - 1) * F
            for f in compress(_FACES, k):
                o[b + f] = k[f]
    _write_discard(o, state.discard, layout)
    if state.table:
        slot = layout.slot
        for i, m in enumerate(state.table):
            _encode_meld(o, m, layout.TABLE + i * slot, player, P)
    _write_tail(o, state, player, layout)


def _write_discard(o: Any, discard: list[int], layout: ObsLayout) -> None:
    """The discard pile's rows into a zeroed discard slice (row 0 = the top card)."""
    i = layout.DISCARD + (len(discard) - 1) * F
    for f in discard:  # bottom first
        o[i + f] = 1.0
        i -= F


def _write_tail(o: Any, state: GameState, player: int, layout: ObsLayout) -> None:
    """Everything from ``hand_sizes`` to the end, into a slice holding the layout's zeros."""
    P = layout.P
    (_, _, HAND_SIZES, PLAYED, ACTIVE, TOTALS, OPENED, CREDIT) = layout.seat_offsets
    nhand, totals = state.nhand, state.totals
    for off in range(P):
        q = (player + off) % P
        o[HAND_SIZES + off] = nhand[q]
        t = totals[q]
        if t:
            o[TOTALS + off] = t if -OBS_BOUND <= t <= OBS_BOUND else _clip(t)
    if layout.seat_flags:  # the per-seat fields these rules can change (the rest is in zeros)
        played, active, opened, credit = state.played, state.active, state.opened, state.credit
        for off in range(P):
            q = (player + off) % P
            if played[q]:
                o[PLAYED + off] = 1.0
            if active[q]:
                o[ACTIVE + off] = 1.0
            if opened[q]:
                o[OPENED + off] = 1.0
            c = credit[q]
            if c:
                o[CREDIT + off] = c if -OBS_BOUND <= c <= OBS_BOUND else _clip(c)
    o[layout.STOCK_SIZE] = len(state.stock)
    o[layout.PHASE + state.phase] = 1.0
    o[layout.TO_ACT + (acting_seat(state) - player) % P] = 1.0
    o[layout.DEALER + (state.dealer - player) % P] = 1.0
    if state.forbidden >= 0:
        o[layout.FORBIDDEN + state.forbidden] = 1.0
    if state.rebuilds:  # (these three are never negative)
        o[layout.REBUILDS] = min(state.rebuilds, OBS_BOUND)
    if state.knock_limit:
        o[layout.KNOCK_LIMIT] = min(state.knock_limit, OBS_BOUND)
    if state.turn_value:
        o[layout.TURN_VALUE] = min(state.turn_value, OBS_BOUND)
    if state.must_use >= 0:
        o[layout.MUST_USE + state.must_use] = 1.0
    for write in layout.writers:  # the game's own slices
        write(o, layout, state, player)


def _encode_meld(o: Any, m: Any, mb: int, player: int, P: int) -> None:
    """One table slot at ``mb`` (zeroed): owner (seat offset), kind, and the meld's cards."""
    o[mb + (m.owner - player) % P] = 1.0
    o[mb + P + m.is_run] = 1.0
    cb = mb + P + 2
    if m.is_run:
        wild = m.wild
        wc = iter(m.wild_cards)
        for pos in range(m.lo, m.hi + 1):
            if wild >> pos & 1:  # 2: a joker; 5-8: a wild 2 (wild rank) of suit 0-3
                c = next(wc)
                code = 2.0 if c == JOKER else 5.0 + c // NUM_RANKS
            else:
                code = 1.0
            if pos == ACE_HIGH_POS:
                code += 2.0 if code < 5 else 4.0  # an ace played high
            o[cb + run_face(m.key, pos)] = code
    else:
        for f in m.cards[: len(m.cards) - m.n_wild]:  # a count per face (suits may repeat)
            o[cb + f] += 1.0
    if m.n_wild:
        for c in m.wild_cards:  # column 52: jokers; 53..56: wild 2s by suit
            o[cb + (JOKER if c == JOKER else F + c // NUM_RANKS)] += 1.0


class LiveObservation:
    """One observation vector kept up to date between moves, for whichever seat asks.

    :meth:`update` compares the state and the seat with what the vector shows and rewrites
    only the difference: the faces of the hand and of the opponents' known cards whose
    counts differ (a card drawn or played, or another seat's hand after a change of
    viewer), the discard pile's rows (shifted by a discard or a draw from it, not
    rewritten), the table slots whose meld changed (melds are immutable: a slot holding
    the same object is unchanged; a new viewer moves only each slot's owner column), and
    the short tail of counts and flags (sizes, phase, ...), which is rewritten whole. The
    vector equals :func:`encode`'s at every update (tests/test_observation_incremental.py
    replays random games of every preset). The discard rows, most of the vector, are the
    same for every viewer, so one vector serves the seat to act as turns pass.

    ``out`` (a C-contiguous float32 vector of ``layout.size``) is where the vector lives;
    a new array by default.

    ``update(state, p)`` makes the vector ``p``'s observation of ``state`` and returns
    :attr:`array`. It is compiled (``rummy_env/_obs_c.c``, the same steps) where the
    extension was built, for the shared layout; ``compiled=False`` (or
    ``RUMMY_PURE_PYTHON=1``) asks for the Python update, which gives the same vectors.
    """

    __slots__ = (
        "update",
        "compiled",
        "layout",
        "array",
        "_o",
        "_zero",
        "_tail",
        "_zero_tail",
        "_state",
        "_seat",
        "_hand",
        "_known",
        "_discard",
        "_table",
    )

    def __init__(
        self, layout: ObsLayout, out: np.ndarray | None = None, compiled: bool | None = None
    ):
        if out is None:
            out = np.zeros(layout.size, np.float32)
        self.layout = layout
        #: the vector (a numpy view of the buffer :meth:`update` writes)
        self.array = out
        self._o = memoryview(out)
        self._zero = memoryview(array("f", layout.zero_bytes))  # slices to copy zeros from
        t = layout.HAND_SIZES  # the tail (hand_sizes to the end) is rewritten whole
        self._tail = self._o[t:]
        self._zero_tail = self._zero[t:]
        self._state: GameState | None = None
        self._seat = -1
        self._hand = 0  # the hand shown, packed (:func:`_packed`)
        self._known: list[list[int]] = []  # the known cards shown, per seat offset 1..P-1
        self._discard: list[int] = []
        self._table: list[Any] = []
        if compiled is None:
            compiled = _compiled is not None and layout.full is None
        elif compiled and (_compiled is None or layout.full is not None):
            raise ValueError(
                "compiled=True needs rummy_env/_obs_c built (pip install with a C compiler) "
                "and the shared layout (not a game's own observation)"
            )
        #: whether :meth:`update` is the compiled one
        self.compiled = compiled
        if compiled:
            live = _compiled.Live(out, layout.zero_bytes, layout, acting_seat, self._o)
            self.update = live.update
        else:
            self.update = self._update_py

    def _update_py(self, state: GameState, p: int) -> np.ndarray:
        """Make the vector ``p``'s observation of ``state``; returns :attr:`array`."""
        o = self._o
        L = self.layout
        if L.full is not None:  # (a game's own observation: written whole but the pile's rows)
            return self._update_full(state, p)
        if state is not self._state:  # a new game (a reset, a restore): built anew
            self._state = state
            o[:] = self._zero
            _write(o, state, p, L)
            P = L.P
            self._seat = p
            self._hand = _packed(state.hands[p])
            self._known = [state.known[(p + off) % P][:] for off in range(1, P)]
            self._discard = state.discard[:]
            self._table = state.table[:]
            return self.array
        hand = state.hands[p]
        new = _packed(hand)
        if p != self._seat:  # another seat's hand: rewritten (a diff would touch most faces)
            _write_counts(o, 0, hand, self._zero)
        elif new != self._hand:  # the same seat's: only the faces a move changed
            _write_changed(o, 0, hand, new ^ self._hand)
        self._hand = new
        P = L.P
        known, olds = state.known, self._known
        for off in range(1, P):
            k, old = known[(p + off) % P], olds[off - 1]
            if k != old:  # (a card taken from the discard pile or played, another viewer)
                _write_counts(o, L.KNOWN + (off - 1) * F, k, self._zero)
                old[:] = k
        discard, old = state.discard, self._discard
        if discard != old:
            _shift_discard(o, discard, old, L, self._zero)
            self._discard = discard[:]
        table, old = state.table, self._table
        if p != self._seat:
            if old:
                _move_owners(o, old, self._seat, p, L)
            self._seat = p
        if (table or old) and (len(table) != len(old) or not all(map(is_, table, old))):
            _update_table(o, table, old, p, L, self._zero)
            self._table = table[:]
        self._tail[:] = self._zero_tail
        _write_tail(o, state, p, L)
        return self.array

    def _update_full(self, state: GameState, p: int) -> np.ndarray:
        """A game's own observation: everything rewritten but the pile's rows, which are
        shifted as the pile changed (the same for every viewer)."""
        o, L, zero = self._o, self.layout, self._zero
        pile = L.slices["discard"]
        o[: pile.start] = zero[: pile.start]
        o[pile.stop :] = zero[pile.stop :]
        L.full.write(o, L, state, p, False)
        if state is not self._state:
            self._state = state
            o[pile] = zero[pile]
            _write_discard(o, state.discard, L)
            self._discard = state.discard[:]
        elif state.discard != self._discard:
            _shift_discard(o, state.discard, self._discard, L, zero)
            self._discard = state.discard[:]
        return self.array


def _move_owners(o: memoryview, table: list, was: int, p: int, L: ObsLayout) -> None:
    """The owner columns of the slots shown, for viewer ``p`` instead of ``was``."""
    P, b = L.P, L.TABLE
    for m in table:
        o[b + (m.owner - was) % P] = 0.0
        o[b + (m.owner - p) % P] = 1.0
        b += L.slot


def _packed(counts: list[int]) -> int:
    """Per-face counts as one integer, a byte a face: two are compared, and their changed
    faces found (:func:`_write_changed`), in a few C calls."""
    return int.from_bytes(bytes(counts), "little")


def _write_counts(o: memoryview, base: int, counts: list[int], zero: memoryview) -> None:
    """Rewrite the ``F`` counts at ``base``."""
    o[base : base + F] = zero[base : base + F]
    for f in compress(_FACES, counts):
        o[base + f] = counts[f]


def _write_changed(o: memoryview, base: int, counts: list[int], changed: int) -> None:
    """Write ``counts[f]`` at ``base + f`` for each face ``f`` whose byte is set in
    ``changed`` (the XOR of two :func:`_packed` counts)."""
    while changed:
        f = ((changed & -changed).bit_length() - 1) >> 3
        o[base + f] = counts[f]
        changed &= ~(0xFF << (f << 3))


def _shift_discard(
    o: memoryview, new: list[int], old: list[int], L: ObsLayout, zero: memoryview
) -> None:
    """The discard rows after the pile went from ``old`` to ``new`` (both bottom..top): a
    pile grown or shrunk at the top only shifts its rows; anything else is rewritten."""
    D = L.DISCARD
    n, m = len(new), len(old)
    if n > m and new[:m] == old:  # cards discarded on top: rows move down
        k = n - m
        o[D + k * F : D + n * F] = o[D : D + m * F]
        o[D : D + k * F] = zero[D : D + k * F]
        i = D + (k - 1) * F
        for f in new[m:]:
            o[i + f] = 1.0
            i -= F
    elif n < m and old[:n] == new:  # cards taken from the top: rows move up
        k = m - n
        o[D : D + n * F] = o[D + k * F : D + m * F]
        o[D + n * F : D + m * F] = zero[D + n * F : D + m * F]
    else:
        o[D : D + m * F] = zero[D : D + m * F]
        _write_discard(o, new, L)


def _update_table(
    o: memoryview, table: list, old: list, p: int, L: ObsLayout, zero: memoryview
) -> None:
    """Rewrite the table slots whose meld is not the one the vector shows."""
    slot, TABLE = L.slot, L.TABLE
    for i in range(max(len(table), len(old))):
        m = table[i] if i < len(table) else None
        if i < len(old) and m is old[i]:
            continue
        b = TABLE + i * slot
        o[b : b + slot] = zero[b : b + slot]
        if m is not None:
            _encode_meld(o, m, b, p, L.P)


#: run code -> (the wild card standing there: -1 none, JOKER, or the suit 0-3 of a wild-rank
#: card as 100 + suit; an ace played high)
_RUN_CODES = {
    1: (-1, False),
    2: (JOKER, False),
    3: (-1, True),
    4: (JOKER, True),
    **{5 + su: (100 + su, False) for su in range(4)},
    **{9 + su: (100 + su, True) for su in range(4)},
}


# ------------------------------------------------------------------ decoding
@dataclass
class TableMeldView:
    """One meld on the table as the observation shows it."""

    owner: int  # seat offset from the observer
    is_run: bool
    cards: tuple[
        int, ...
    ]  # runs in rank order with JOKER where a wild card stands; sets naturals then jokers
    key: int  # run: suit; set: rank
    lo: int = 0  # run: lowest position (0 = ace low .. 13 = ace high)
    hi: int = 0
    suits: int = 0  # set: suit code of the naturals (melds.suit_code: a count per suit)
    n_wild: int = 0
    #: the physical wild cards (JOKER, or a wild 2): a run's in place order, a set's jokers first
    wild_cards: tuple[int, ...] = ()

    def physical(self) -> tuple[int, ...]:
        """The cards as they lie: each wild card as itself (a joker or a wild 2)."""
        wc = iter(self.wild_cards)
        return tuple(next(wc, JOKER) if f == JOKER else f for f in self.cards)


@dataclass
class View:
    """Integer view of one observation (seats as offsets, 0 = the observer)."""

    hand: list[int]  # count per face (53)
    known: list[list[int]]  # per opponent offset 1..P-1 (index 0 = offset 1): counts per face
    discard: list[int]  # faces, bottom .. top
    table: list[TableMeldView]
    hand_sizes: list[int]
    stock_size: int
    phase: Phase
    to_act: int
    forbidden: int  # face, or -1
    played: list[bool]
    active: list[bool]
    totals: list[int]
    dealer: int
    rebuilds: int
    knock_limit: int = 0
    must_use: int = -1  # face the next meld or lay-off must contain, or -1
    opened: list[bool] | None = None  # per offset (None: the layout has no opening flags)
    turn_value: int = 0
    credit: list[int] | None = None  # rummy500: value melded and laid off this round, per offset
    cut: int = -1  # Indian rummy: the cut card's face, or -1
    wild_rank: int = -1  # Indian rummy: this round's wild rank (0 = aces), or -1
    dropped: list[bool] | None = None  # Indian rummy: per offset, dropped out of the round
    drew: list[bool] | None = None  # Indian rummy: per offset, has drawn this round
    deal: int = 0  # contract rummy: the deal played (1-7: its contract), else 0
    buys: list[int] | None = None  # contract rummy: per offset, buys left this deal
    turn: int = -1  # contract rummy: offset of the seat whose turn it is (the drawer in a buy)
    table_tiles: list[int] | None = None  # Rummikub: the table's tiles, counts per face
    played_tiles: list[int] | None = None  # Rummikub: the tiles played this turn
    passes: int = 0  # Rummikub: passes in a row, the pool empty

    @property
    def hand_cards(self) -> list[int]:
        return [f for f, c in enumerate(self.hand) if c for _ in range(c)]


def read(observation: np.ndarray | dict, rules: RuleSet) -> View:
    """Parse an observation vector (or the env's observation dict) into a :class:`View`: the
    one decoder of observations (agents read it as ``agents.base.read_observation``; :func:`decode`
    is its readable form)."""
    if isinstance(observation, dict):
        observation = observation["observation"]
    L = _layout(rules)
    o = np.asarray(observation)
    if o.shape != (L.size,):
        raise ValueError(f"observation has shape {o.shape}, expected ({L.size},) for these rules")
    if L.full is not None:
        raise ValueError(
            f"{rules.name!r} has an observation of its own: read it with "
            "rummy_env.observation.decode(obs, rules)"
        )
    r = _Sparse(o, L)
    P = L.P
    sl = L.slices
    kn = r.counts("known", (P - 1) * F)
    return View(
        hand=r.counts("hand", F),
        known=[kn[i * F : (i + 1) * F] for i in range(P - 1)],
        discard=r.discard(),
        table=r.table(rules.fixed_wild_rank),
        hand_sizes=r.counts("hand_sizes", P),
        stock_size=r.scalar("stock_size"),
        phase=Phase(r.one_hot("phase", 0)),
        to_act=r.one_hot("to_act", 0),
        forbidden=r.one_hot("forbidden"),
        played=r.flags("played"),
        active=r.flags("active"),
        totals=r.counts("totals", P),
        dealer=r.one_hot("dealer", 0),
        rebuilds=r.scalar("rebuilds"),
        knock_limit=r.scalar("knock_limit") if "knock_limit" in sl else 0,
        must_use=r.one_hot("must_use") if "must_use" in sl else -1,
        opened=r.flags("opened") if "opened" in sl else None,
        turn_value=r.scalar("turn_value") if "turn_value" in sl else 0,
        credit=r.counts("credit", P) if "credit" in sl else None,
        cut=r.one_hot("cut"),
        wild_rank=r.one_hot("wild_rank"),
        **_game_view(r, L),
    )


#: the view's fields of the games' own slices where the game has none
_NO_GAME_VIEW = {
    "dropped": None,
    "drew": None,
    "deal": 0,
    "buys": None,
    "turn": -1,
    "table_tiles": None,
    "played_tiles": None,
    "passes": 0,
}


def _game_view(r: _Sparse, L: ObsLayout) -> dict[str, Any]:
    view = dict(_NO_GAME_VIEW)
    for read_slices in L.views:
        view.update(read_slices(r, L.P))
    return view


class _Sparse:
    """An observation vector's slices read from its non-zeros (the vector is sparse: one
    pass over them, then plain Python per slice)."""

    def __init__(self, o: np.ndarray, layout: ObsLayout):
        nz = np.flatnonzero(o)
        self.idx = nz.tolist()
        self.val = o[nz].tolist()
        self.layout = layout

    def part(self, name: str) -> tuple[int, list[int], list[float]]:
        """The slice's start, and the indexes and values of its non-zeros."""
        s = self.layout.slices[name]
        idx = self.idx
        i, j = bisect_left(idx, s.start), bisect_left(idx, s.stop)
        return s.start, idx[i:j], self.val[i:j]

    def counts(self, name: str, n: int) -> list[int]:
        out = [0] * n
        start, ii, vv = self.part(name)
        for i, v in zip(ii, vv):
            out[i - start] = round(v)
        return out

    def flags(self, name: str) -> list[bool]:
        out = [False] * self.layout.P
        start, ii, _ = self.part(name)
        for i in ii:
            out[i - start] = True
        return out

    def one_hot(self, name: str, default: int = -1) -> int:
        start, ii, _ = self.part(name)
        return ii[0] - start if ii else default

    def scalar(self, name: str) -> int:
        _, _, vv = self.part(name)
        return round(vv[0]) if vv else 0

    def discard(self) -> list[int]:
        """The discard pile's faces, bottom .. top."""
        start, ii, _ = self.part("discard")
        # row 0 = top: ascending index order is top first
        return [(i - start) % F for i in reversed(ii)]

    def table(self, wild_rank: int) -> list[TableMeldView]:
        """The table's melds, slot by slot (:func:`_table_meld`)."""
        L = self.layout
        table: list[TableMeldView] = []
        if L.M:
            start, ii, vv = self.part("table")
            slots: dict[int, dict[int, float]] = {}
            for i, v in zip(ii, vv):
                k, c = divmod(i - start, L.slot)
                slots.setdefault(k, {})[c] = v
            for k in range(L.M):
                cols = slots.get(k)
                if not cols or not any(c < L.P for c in cols):
                    break  # melds fill the slots in order
                table.append(_table_meld(cols, L.P, wild_rank))
        return table


def _table_meld(cols: dict[int, float], P: int, wild_rank: int) -> TableMeldView:
    """One table slot from its non-zero columns (owner one-hot, kind, cards; :func:`encode`)."""
    owner = min(c for c in cols if c < P)
    is_run = P + 1 in cols
    b = P + 2
    cards = {c - b: v for c, v in cols.items() if c >= b}
    nz = sorted(f for f in cards if f < NUM_NATURAL)
    twos = [round(cards.get(F + su, 0)) for su in range(4)]
    jokers = round(cards.get(JOKER, 0))
    n_wild = jokers + sum(twos)
    if is_run:
        suit = nz[0] // NUM_RANKS
        placed = []
        for f in nz:  # codes: _RUN_CODES
            card, high = _RUN_CODES[round(cards[f])]
            if card >= 100:
                card = (card - 100) * NUM_RANKS + wild_rank
            placed.append((f % NUM_RANKS + (ACE_HIGH_POS if high else 0), card))
        placed.sort()
        pos = [q for q, _ in placed]
        faces = tuple(JOKER if c >= 0 else run_face(suit, q) for q, c in placed)
        wild = tuple(c for _, c in placed if c >= 0)
        return TableMeldView(owner, True, faces, suit, pos[0], pos[-1], 0, n_wild, wild)
    rank = nz[0] % NUM_RANKS
    nat = tuple(f for f in nz for _ in range(round(cards[f])))
    wild = (JOKER,) * jokers + tuple(
        su * NUM_RANKS + wild_rank for su in range(4) for _ in range(twos[su])
    )
    return TableMeldView(
        owner,
        False,
        nat + (JOKER,) * n_wild,
        rank,
        0,
        0,
        suit_code(f // NUM_RANKS for f in nat),
        n_wild,
        wild,
    )


@cache
def _layout(rules: RuleSet) -> ObsLayout:
    return ObsLayout(rules)


def decode(obs: np.ndarray, rules: RuleSet) -> dict[str, Any]:
    """A readable view of an observation vector (seats as offsets from the observer).

    Returns a dict with ``hand``, ``known`` (per opponent offset 1..P-1),
    ``discard`` (bottom to top), ``table`` (list of ``{"owner", "kind",
    "cards"}``, runs in rank order, each wild card as itself where it stands: ``JK``, or
    a wild 2),
    ``hand_sizes``, ``stock_size``, ``phase``, ``to_act``, ``forbidden``,
    ``played``, ``active``, ``totals``, ``dealer``, ``rebuilds``, ``knock_limit``,
    ``must_use``, ``opened``, ``turn_value``, ``credit`` and, in Indian rummy, ``cut``,
    ``wild_rank`` (a rank letter), ``dropped`` and ``drew``, in contract rummy ``deal``,
    ``buys`` and ``turn``, in Rummikub ``table_tiles``, ``played_tiles`` and ``passes`` (empty lists, 0,
    -1 or None, where the rule set's layout has no such slice).
    """
    L = _layout(rules)
    if L.full is not None:  # (a game's own slices: Canasta)
        o = np.asarray(obs["observation"] if isinstance(obs, dict) else obs)
        if o.shape != (L.size,):
            raise ValueError(f"observation has shape {o.shape}, expected ({L.size},)")
        return L.full.decode(o, L)
    v = read(obs, rules)

    def card_or_none(f: int) -> str | None:
        return card_str(f) if f >= 0 else None

    return {
        "hand": counts_str(v.hand),
        "known": [counts_str(k) for k in v.known],
        "discard": [card_str(f) for f in v.discard],
        "table": [
            {
                "owner": m.owner,
                "kind": "run" if m.is_run else "set",
                "cards": [card_str(f) for f in m.physical()],
            }
            for m in v.table
        ],
        "hand_sizes": v.hand_sizes,
        "stock_size": v.stock_size,
        "phase": v.phase.name.lower(),
        "to_act": v.to_act,
        "forbidden": card_or_none(v.forbidden),
        "played": v.played,
        "active": v.active,
        "totals": v.totals,
        "dealer": v.dealer,
        "rebuilds": v.rebuilds,
        "knock_limit": v.knock_limit,
        "must_use": card_or_none(v.must_use),
        "opened": v.opened if v.opened is not None else [],
        "turn_value": v.turn_value,
        "credit": v.credit if v.credit is not None else [],
        "cut": card_or_none(v.cut),
        "wild_rank": "A23456789TJQK"[v.wild_rank] if v.wild_rank >= 0 else None,
        "dropped": v.dropped if v.dropped is not None else [],
        "drew": v.drew if v.drew is not None else [],
        "deal": v.deal,
        "buys": v.buys if v.buys is not None else [],
        "turn": v.turn,
        "table_tiles": counts_str(v.table_tiles) if v.table_tiles is not None else [],
        "played_tiles": counts_str(v.played_tiles) if v.played_tiles is not None else [],
        "passes": v.passes,
    }
