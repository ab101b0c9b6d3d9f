"""The game state: hands as counts and masks, table melds, the per-rule-set tables every
state shares, and the blank state a deal starts from."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from functools import cache
from operator import mul
from typing import Any, NamedTuple

from rummy_env.cards import (
    JOKER,
    NUM_NATURAL,
    NUM_RANKS,
    card_str,
    counts_str,
)
from rummy_env.engine.fields import CARD, FLAG, INT, SEAT, TEXT, Field, copy_source, start_source
from rummy_env.melds import (
    ACE_HIGH_POS,
    SUIT_SHIFT,
    Catalogue,
    catalogue_for,
    code_faces,
    run_face,
)
from rummy_env.rules import RuleSet


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (the state is unchanged)."""


class Phase(IntEnum):
    DRAW = 0  # take one card (stock or discard)
    PLAY = 1  # meld / lay off / swap any number of times, then discard
    GAME_OVER = 2  # the episode is over (round, or match with match=True)
    UPCARD = 3  # gin: the first up-card is offered (take it or pass)
    BUY = 4  # contract rummy: another player is asked whether he buys the discard top


# the members as plain globals: reading Phase.X goes through the enum machinery (slow in hot paths)
_DRAW, _PLAY, _UPCARD = Phase.DRAW, Phase.PLAY, Phase.UPCARD


class TableMeld:
    """One meld on the table. Immutable: a lay-off or swap makes a new one.

    ``accepts`` maps a lay-off slot ``k`` (0..51 a natural card, 52 a wild card on a
    set or the low end of a run, 53 a wild card on the high end) to the face laid
    (``JOKER`` for a wild slot: any wild card the player holds, :func:`_wild_for`).
    ``swaps`` lists the natural faces that may replace a wild card in it.
    ``lay_bits`` has bit ``f`` set for each natural card ``f`` that it accepts
    (see :func:`discard_only`). ``wild_cards`` are the physical cards standing as wild
    cards (a run's in position order): ``JOKER``, or a 2 with ``wild_deuces``;
    ``cards`` lists every card where it stands, the wild cards as themselves.
    """

    __slots__ = (
        "owner",
        "is_run",
        "key",
        "lo",
        "hi",
        "wild",
        "suits",
        "n_wild",
        "cards",
        "accepts",
        "swaps",
        "lay_bits",
        "wild_cards",
    )

    @classmethod
    def run(
        cls,
        owner: int,
        suit: int,
        lo: int,
        hi: int,
        wild: int,
        cat: Catalogue,
        wild_cards: tuple[int, ...] | None = None,
    ) -> TableMeld:
        """A run of ``suit`` over positions ``lo..hi`` (13 = an ace high) with wild cards at
        the positions of the bit mask ``wild`` (the physical ones ``wild_cards``, default
        jokers)."""
        return cls(owner, True, suit, lo, hi, wild, 0, wild.bit_count(), cat, wild_cards)

    def __init__(
        self,
        owner: int,
        is_run: bool,
        key: int,
        lo: int,
        hi: int,
        wild: int,
        suits: int,
        n_wild: int,
        cat: Catalogue,
        wild_cards: tuple[int, ...] | None = None,
    ):
        # key: suit (run) or rank (set); wild: run position mask of wild cards;
        # suits: a set's suit code of natural cards (melds.suit_code: a count per suit).
        self.owner = owner
        self.is_run = is_run
        self.key = key
        self.lo = lo
        self.hi = hi
        self.wild = wild
        self.suits = suits
        self.n_wild = n_wild
        if wild_cards is None:
            wild_cards = (JOKER,) * n_wild
        self.wild_cards = wild_cards
        accepts: dict[int, int] = {}
        if is_run:
            b = key * NUM_RANKS  # the face at position p is run_face(key, p) = b + p % NUM_RANKS
            if wild:
                it = iter(wild_cards)
                self.cards = tuple(
                    next(it) if wild >> p & 1 else b + p % NUM_RANKS for p in range(lo, hi + 1)
                )
                self.swaps = tuple(b + p % NUM_RANKS for p in range(lo, hi + 1) if wild >> p & 1)
            else:
                self.cards = tuple([b + p % NUM_RANKS for p in range(lo, hi + 1)])
                self.swaps = ()
            nat = hi - lo + 1 - n_wild
            add_wild = cat.wilds and cat.wild_ok(nat, n_wild + 1)
            if lo > 0 and hi - lo < 12:
                f = b + (lo - 1) % NUM_RANKS
                accepts[f] = f
                if add_wild:
                    accepts[NUM_NATURAL] = JOKER
            if hi < cat.max_pos and hi - lo < 12:
                f = b + (hi + 1) % NUM_RANKS
                accepts[f] = f  # ace both ends: high
                if add_wild:
                    accepts[NUM_NATURAL + 1] = JOKER
        else:
            nat_faces = code_faces(suits, key)
            nat = len(nat_faces)
            self.cards = tuple(nat_faces) + wild_cards
            # the naturals it may take: a suit it lacks, or any suit where suits repeat
            fits = tuple(
                key + s * NUM_RANKS
                for s in range(4)
                if not cat.distinct or not suits >> (SUIT_SHIFT * s) & 15
            )
            if nat + n_wild < cat.set_cap:
                for f in fits:
                    accepts[f] = f
                if cat.wilds and cat.wild_ok(nat, n_wild + 1):
                    accepts[NUM_NATURAL] = JOKER
            self.swaps = fits if n_wild else ()
        self.accepts = accepts
        bits = 0
        for f in accepts.values():
            if f != JOKER:
                bits |= 1 << f
        self.lay_bits = bits

    def stands_for(self, k: int) -> int:
        """The natural face a wild card laid off into slot ``k`` (52, 53) would stand for
        (a set: -1, any missing suit)."""
        if not self.is_run:
            return -1
        return run_face(self.key, self.lo - 1 if k == NUM_NATURAL else self.hi + 1)

    def laid_off(self, k: int, cat: Catalogue, card: int = JOKER) -> TableMeld:
        """The meld after laying off into slot ``k`` of :attr:`accepts` (``card``: the
        physical card of a wild slot)."""
        if self.is_run:
            if k == NUM_NATURAL or (
                k < NUM_NATURAL
                and self.lo > 0
                and k == run_face(self.key, self.lo - 1)
                and not (self.hi < cat.max_pos and k == run_face(self.key, self.hi + 1))
            ):
                lo, hi = self.lo - 1, self.hi
                pos = lo
                wc = (card, *self.wild_cards)
            else:
                lo, hi = self.lo, self.hi + 1
                pos = hi
                wc = (*self.wild_cards, card)
            is_w = k >= NUM_NATURAL
            return TableMeld(
                self.owner,
                True,
                self.key,
                lo,
                hi,
                self.wild | (is_w << pos),
                0,
                self.n_wild + is_w,
                cat,
                wc if is_w else self.wild_cards,
            )
        if k == NUM_NATURAL:
            return TableMeld(
                self.owner,
                False,
                self.key,
                0,
                0,
                0,
                self.suits,
                self.n_wild + 1,
                cat,
                (*self.wild_cards, card),
            )
        return TableMeld(
            self.owner,
            False,
            self.key,
            0,
            0,
            0,
            self.suits + (1 << SUIT_SHIFT * (k // NUM_RANKS)),
            self.n_wild,
            cat,
            self.wild_cards,
        )

    def swap_index(self, face: int) -> int:
        """Index in :attr:`wild_cards` of the wild card natural ``face`` would replace (a run:
        the one at its place; a set: a joker before a 2)."""
        wc = self.wild_cards
        if self.is_run:
            return (self.wild & ((1 << self._place(face)) - 1)).bit_count()  # wilds below it
        return wc.index(JOKER) if JOKER in wc else len(wc) - 1

    def _place(self, face: int) -> int:
        """The run position where a wild card stands for natural ``face``."""
        pos = face % NUM_RANKS
        return pos if self.wild >> pos & 1 else ACE_HIGH_POS  # else an ace standing high

    def swapped(self, face: int, cat: Catalogue) -> tuple[TableMeld, int]:
        """The meld after natural ``face`` replaces the wild card standing for it, and that
        wild card (:meth:`swap_index`)."""
        wc = list(self.wild_cards)
        taken = wc.pop(self.swap_index(face))
        if self.is_run:
            pos = self._place(face)
            return TableMeld(
                self.owner,
                True,
                self.key,
                self.lo,
                self.hi,
                self.wild & ~(1 << pos),
                0,
                self.n_wild - 1,
                cat,
                tuple(wc),
            ), taken
        return TableMeld(
            self.owner,
            False,
            self.key,
            0,
            0,
            0,
            self.suits + (1 << SUIT_SHIFT * (face // NUM_RANKS)),
            self.n_wild - 1,
            cat,
            tuple(wc),
        ), taken


#: the fields of the core every game has (:mod:`rummy_env.engine.fields`); each game's own
#: are in its module's ``FIELDS``
CORE_FIELDS: tuple[Field, ...] = (
    Field("forbidden", CARD, -1),  # the card that may not be discarded this turn, or -1
    Field("turn_played", FLAG, False),  # a meld or lay-off this turn
    Field("played", FLAG, False, per_seat=True),  # has melded or laid off this round
    Field("rebuilds", INT, 0, lo=0, hi=lambda r: r.max_stock_rebuilds),
    Field("seed", INT, 0, scope="game"),
    Field("round", INT, 0, scope="game", lo=0, hi=lambda r: None if r.match else 0),
    Field("round_scores", INT, 0, per_seat=True),
    Field("totals", INT, 0, per_seat=True, scope="game"),
    Field("active", FLAG, True, per_seat=True, scope="game"),  # not eliminated
    Field("winner", SEAT, None),
    Field("match_winner", SEAT, None, scope="game"),
    Field("reason", TEXT, None),  # why the round ended
    Field("step_count", INT, 0, scope="game", lo=0),
    Field("must_use", CARD, -1),  # face the next meld or lay-off must contain (D-5, D-6)
    Field("opened", FLAG, lambda r: _open_from_start(r), per_seat=True),
    Field("turn_value", INT, 0, lo=0),  # opening: value melded this turn by a seat not opened
    Field("turn_pure", FLAG, False),  # opening: a pure run laid this turn
    Field("turns", INT, 0, lo=0),  # turns completed this round
)


class GameState:
    """Everything about one game in progress (mutated in place; ``copy()`` is cheap).

    Hands are count vectors over the 53 faces; ``smask[p][s]`` is the bit mask of
    ranks of suit ``s`` and ``rmask[p][r]`` the suit mask of rank ``r`` in
    player ``p``'s hand (kept in step with the counts). The stock is a list with
    its top at the end; the discard pile lists bottom to top. The other fields are
    declared (:data:`CORE_FIELDS`, each game's ``FIELDS``); a state is an instance of
    the subclass :func:`state_class` makes with all of them, whose ``copy`` (lists
    copied, immutable parts shared) is written from the declarations.
    """

    __slots__ = (
        "rules",
        "phases",
        "game",
        "layout",
        "cat",
        "values",
        "wild_faces",
        "hands",
        "nhand",
        "smask",
        "rmask",
        "known",
        "stock",
        "discard",
        "table",
        "current",
        "phase",
        "dealer",
        "last_result",
        "_legal",
        *(f.name for f in CORE_FIELDS),
    )
    #: every declared field (the core's and every game's): set on :func:`state_class`
    FIELDS: tuple[Field, ...] = CORE_FIELDS

    # ------------------------------------------------------------ card moves
    def add_cards(self, p: int, faces: Iterable[int]) -> None:
        """Put the ``faces`` into player ``p``'s hand (the masks follow): a deal, or
        simulators that deal hidden cards into a state (:mod:`rummy_env.determinize`)."""
        h, smask, rmask = self.hands[p], self.smask[p], self.rmask[p]
        n = 0
        for f in faces:
            if not h[f] and f < NUM_NATURAL:
                r, su = f % NUM_RANKS, f // NUM_RANKS
                smask[su] |= 1 << r
                rmask[r] |= 1 << su
            h[f] += 1
            n += 1
        self.nhand[p] += n

    def add_card(self, p: int, f: int) -> None:
        """Put face ``f`` into player ``p``'s hand (:meth:`add_cards`)."""
        self.add_cards(p, (f,))

    _add = add_card  # the engine's own name for it

    def _remove(self, p: int, f: int) -> None:
        h = self.hands[p]
        h[f] -= 1
        self.nhand[p] -= 1
        if h[f] == 0 and f < NUM_NATURAL:
            r, s = f % NUM_RANKS, f // NUM_RANKS
            self.smask[p][s] &= ~(1 << r)
            self.rmask[p][r] &= ~(1 << s)
        # every removal is public (meld, lay-off, swap, discard): a card known to be
        # held is assumed to be the one played, so 'known' never reveals hidden copies
        if self.known[p][f]:
            self.known[p][f] -= 1

    def hand_cards(self, p: int) -> list[int]:
        """Player ``p``'s cards as a sorted list of faces (copies repeated)."""
        return [f for f, c in enumerate(self.hands[p]) for _ in range(c)]

    def hand_value(self, p: int) -> int:
        return sum(map(mul, self.hands[p], self.values))

    # ------------------------------------------------------------ save/load
    def to_dict(self) -> dict[str, Any]:
        """The full state as JSON-able data; ``from_dict`` restores it exactly."""
        d = {
            "rules": {  # (JSON-able: a tuple field as a list)
                k: list(v) if isinstance(v, tuple) else v
                for k, v in ((k, getattr(self.rules, k)) for k in self.rules.__dataclass_fields__)
            },
            "hands": [[card_str(f) for f in self.hand_cards(p)] for p in range(len(self.hands))],
            "stock": [card_str(f) for f in reversed(self.stock)],
            "discard": [card_str(f) for f in self.discard],
            "table": self.game.dump_table(self),
            "current_player": self.current,
            "phase": self.phase.name.lower(),
            "dealer": self.dealer,
            "known": [counts_str(k) for k in self.known],
        }
        for f in self.FIELDS:
            if f.saved:
                d[f.name] = f.dump(getattr(self, f.name))
        if self.game.dump_state is not None:
            self.game.dump_state(self, d)
        return d


_COPY = """
def copy(self):
    c = new(cls)
    c.rules, c.layout, c.cat, c.values = self.rules, self.layout, self.cat, self.values
    c.phases, c.game, c.wild_faces = self.phases, self.game, self.wild_faces
    c.hands = list(map(list, self.hands))  # (a copy of each list)
    c.nhand = self.nhand[:]
    c.smask = list(map(list, self.smask))
    c.rmask = list(map(list, self.rmask))
    c.known = list(map(list, self.known))
    c.stock = self.stock[:]
    c.discard = self.discard[:]
    c.table = self.table[:]
    c.current, c.phase, c.dealer = self.current, self.phase, self.dealer
    c.last_result, c._legal = self.last_result, self._legal
{fields}
    return c
"""


@cache
def state_class() -> type[GameState]:
    """The class of every state: :class:`GameState` with a slot for each game's fields
    (:data:`rummy_env.variants.FAMILIES`) and a ``copy`` written from the declarations."""
    from rummy_env.variants import FAMILIES

    extra = tuple(f for family in FAMILIES for f in getattr(family, "FIELDS", ()))
    fields = CORE_FIELDS + extra
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise RuntimeError(f"a state field is declared twice: {sorted(names)}")
    cls = type(
        "GameState",
        (GameState,),
        {"__slots__": tuple(f.name for f in extra), "FIELDS": fields, "__module__": __name__},
    )
    scope = {"new": object.__new__, "cls": cls}
    source = "\n\n".join(
        [
            _COPY.format(fields=copy_source(fields)),
            start_source(fields, "start_game"),
            start_source(tuple(f for f in fields if f.scope == "round"), "start_round"),
        ]
    )
    exec(source, scope)  # noqa: S102 (code written here from the declarations)
    cls.copy = scope["copy"]
    cls.copy.__doc__ = "A copy of the state: lists copied, immutable parts shared."
    cls.start_game = scope["start_game"]  # (state, start values, seats): every field
    cls.start_round = scope["start_round"]  # (state, start values, seats): a round's
    return cls


def card_values(rules: RuleSet, wild_rank: int = -1) -> list[int]:
    """Value of each face left in hand (RULES.md 4: penalty values); the cards of a
    round's ``wild_rank`` (Indian rummy's cut, 0 = aces; -1: none) count 0."""
    return list(_card_values(rules, wild_rank))


@cache
def _card_values(rules: RuleSet, wild_rank: int) -> tuple[int, ...]:
    """:func:`card_values`, with the cards of ``wild_rank`` (a round's, -1: none) worth 0."""
    vals = []
    for f in range(NUM_NATURAL):
        r = f % NUM_RANKS
        if r == rules.fixed_wild_rank:  # a wild 2 costs what a joker does
            vals.append(rules.joker_penalty)
        else:
            vals.append(game_of(rules).face_value(rules, r))
    vals.append(rules.joker_penalty)
    for su in range(4) if wild_rank >= 0 else ():
        vals[su * NUM_RANKS + wild_rank] = 0
    return tuple(vals)


class _Tables(NamedTuple):
    layout: Layout
    phases: tuple
    game: Game
    cat: Catalogue
    wild_faces: tuple[int, ...]
    values: tuple[int, ...]
    values_by_rank: tuple[tuple[int, ...], ...]  # with each rank wild (a cut's), 0 = aces
    cls: type[GameState]  # state_class()
    starts: tuple[Any, ...]  # every field's start value (cls.FIELDS order)
    round_starts: tuple[Any, ...]  # those of the fields a round starts anew


def _tables(rules: RuleSet) -> _Tables:
    """What every state of ``rules`` shares, looked up once per deal: the action layout,
    the phase table, the game's hooks, the meld catalogue, the wild-rank cards (wild_deuces: the four 2s, in
    the order the engine lays them), the card values, and those with each rank wild (a
    cut's). Found by the rule set's instance, which the table keeps alive, so a deal does
    not hash the rule set's fields."""
    hit = _TABLES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    wr = rules.fixed_wild_rank
    wild_faces = tuple(su * NUM_RANKS + wr for su in range(4)) if wr >= 0 else ()
    by_rank = tuple(_card_values(rules, r) for r in range(NUM_RANKS))
    cls = state_class()
    starts = tuple(f.start_value(rules) for f in cls.FIELDS)
    found = _Tables(
        Layout(rules),
        phase_table(rules),
        game_of(rules),
        catalogue_for(rules),
        wild_faces,
        _card_values(rules, -1),
        by_rank,
        cls,
        starts,
        tuple(v for f, v in zip(cls.FIELDS, starts, strict=True) if f.scope == "round"),
    )
    if len(_TABLES) >= 256:
        _TABLES.clear()
    _TABLES[id(rules)] = (rules, found)
    return found


_TABLES: dict[int, tuple[RuleSet, _Tables]] = {}


def _blank(rules: RuleSet) -> GameState:
    """A state of ``rules`` before the deal: no cards anywhere, every field at its start."""
    t = _tables(rules)
    s = t.cls.__new__(t.cls)
    n = rules.num_players
    s.rules = rules
    s.layout, s.phases, s.cat, s.wild_faces = t.layout, t.phases, t.cat, t.wild_faces
    s.game = t.game
    s.values = list(t.values)
    s.hands = [[0] * 53 for _ in range(n)]
    s.nhand = [0] * n
    s.smask = [[0] * 4 for _ in range(n)]
    s.rmask = [[0] * NUM_RANKS for _ in range(n)]
    s.known = [[0] * 53 for _ in range(n)]
    s.stock, s.discard, s.table = [], [], []
    s.current, s.phase, s.dealer = 0, Phase.DRAW, n - 1
    s.last_result, s._legal = None, None
    s.start_game(t.starts, n)
    return s


def _new_round_fields(s: GameState) -> None:
    """Every field a round starts anew at its start value."""
    s.start_round(_tables(s.rules).round_starts, s.rules.num_players)


def _open_from_start(rules: RuleSet) -> bool:
    """Whether a player may lay off from the start of a round: not where he must first
    open (rummy51's count) or go down with his contract (contract rummy)."""
    g = game_of(rules)
    return not (rules.open_points or g.opens_at_once or g.has_opening)  # (Rummikub: open_points)


def deal_number(s: GameState) -> int:
    """Contract rummy: the deal being played, 1-7 (``contract_deal`` + rounds played)."""
    return s.rules.contract_deal + s.round


def round_hand_size(rules: RuleSet, round_: int) -> int:
    """Cards dealt to each player in round ``round_`` (0-based): ``hand_size``; in contract
    rummy two more from deal 5 on when the match began before it (10 then 12)."""
    return game_of(rules).hand_size(rules, round_)


def _next_active(s: GameState, p: int) -> int:
    """The next seat after ``p`` still in the match and in the round (not dropped)."""
    n = len(s.active)
    q = (p + 1) % n
    while not s.active[q] or s.dropped[q] >= 0:
        q = (q + 1) % n
    return q


def _previous_active(s: GameState, p: int) -> int:
    """The seat in play before ``p`` in turn order."""
    q = p
    while (nxt := _next_active(s, q)) != p:
        q = nxt
    return q


from rummy_env.engine.flow import phase_table  # noqa: E402
from rummy_env.engine.game import Game, game_of  # noqa: E402
from rummy_env.moves import Layout  # noqa: E402
