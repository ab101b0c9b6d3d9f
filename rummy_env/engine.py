"""Game state and transitions: pure game logic, no RL API.

The engine works on integer actions laid out by :class:`Layout` (the
``Move`` classes of :mod:`rummy_env.moves` are a readable view of the same
ints). Its functions:

* :func:`new_game` deals a round (seeded) or sets up a crafted deal;
* :func:`legal_actions` lists the legal action ids of the player to act;
* :func:`apply_action` checks an action and applies it (:func:`apply_legal_action`
  without the check, :func:`discard_only`, a quick answer for the usual play
  phase, and :func:`legal_play_to_first_meld` serve the search agent's rollouts);
* :func:`is_terminal`, :func:`returns` and ``GameState.to_dict`` /
  :func:`from_dict` for saving and restoring.

A turn is several actions: draw (``Phase.DRAW``), then any number of melds,
lay-offs and joker swaps and finally a discard (``Phase.PLAY``). The round ends
the moment a player has no cards, or when the stock runs out for good (D-8).
Every shuffle derives from the state's ``seed``, so a game replays exactly
from (seed, actions) and a restored state continues identically.

Rule decisions taken here (documented in the README too):

* No dead ends (DESIGN.md invariant 2). A meld or lay-off that would leave
  only cards that may not be discarded this turn is not legal; taking the top
  discard is not legal when every card in hand is a copy of it (two decks).
* A natural ace laid off on a run 2..K is placed high.
* Stock rebuilds happen when a player is to draw and the stock is empty. When
  the stock cannot be rebuilt (limit reached, or too few discards) the round
  ends and the lowest hand wins it (D-8).
* A player who goes out wins the round; hand sizes stay those of the rule set
  when players are eliminated from a match.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from difflib import get_close_matches
from enum import IntEnum
from functools import cache, lru_cache
from itertools import compress, product
from operator import add, mul
from typing import Any, NamedTuple

from rummy_env import cover
from rummy_env.cards import (
    JOKER,
    NUM_FACES,
    NUM_NATURAL,
    NUM_RANKS,
    card_str,
    counts_str,
    deck_faces,
    face_counts,
    parse_card,
    shuffle,
)
from rummy_env.melds import (
    ACE_HIGH_POS,
    SPREAD,
    SUIT_SHIFT,
    Catalogue,
    catalogue_for,
    classify_wild,
    code_faces,
    code_size,
    deadwood,
    deadwood_after_discard,
    gin_showdown,
    opening_possible,
    run3_bits,
    run_face,
    run_value,
    set_value,
    show_arrangement,
    show_discards,
    three_suit_ranks,
)
from rummy_env.rules import CONTRACTS, RuleSet


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


# ------------------------------------------------------------------ layout
class Layout:
    """The flat action space of one rule set (ids are documented in moves.py)."""

    def __init__(self, rules: RuleSet):
        cat = catalogue_for(rules)
        self.max_melds = rules.max_melds
        self.layoff_width = NUM_NATURAL + (2 if rules.wilds else 0)
        self.discard_width = NUM_NATURAL + (1 if rules.wilds else 0)
        self.DRAW_STOCK = 0
        self.DRAW_DISCARD = 1
        # DrawDiscard(depth): only the top, or (digging) any depth of the pile
        tiles = rules.scoring == "rummikub"  # no discard pile: draw, play tiles, commit
        self.max_depth = 0 if tiles else rules.num_cards if rules.discard_pickup == "any" else 1
        self.MELD = self.DRAW_DISCARD + self.max_depth
        self.LAYOFF = self.MELD + (cat.size if rules.meld_during_play else 0)
        self.SWAP = self.LAYOFF + self.max_melds * self.layoff_width
        self.DISCARD = self.SWAP + (self.max_melds * NUM_NATURAL if rules.wilds else 0)
        self.KNOCK = self.DISCARD + (0 if tiles else self.discard_width)
        # Knock(card) for each natural card, then Knock(None) (big gin)
        self.PASS = self.KNOCK + (NUM_NATURAL + 1 if rules.scoring == "gin" else 0)
        buying = rules.buy_limit > 0
        # Pass: gin's up-card refused, contract rummy's buy declined
        self.END_ROUND = self.PASS + (1 if rules.upcard_offer or buying or tiles else 0)
        indian = rules.scoring == "indian"
        # Indian rummy: Declare(card) for each card, then Drop()
        self.DECLARE = self.END_ROUND + (1 if rules.empty_stock == "end_round" else 0)
        self.DROP = self.DECLARE + (self.discard_width if indian else 0)
        self.BUY = self.DROP + (1 if indian and any(rules.drop_penalties) else 0)
        self.PLAY_TILE = self.BUY + (1 if buying else 0)  # contract rummy: Buy()
        # Rummikub: PlayTile(tile) for each face, then Commit()
        self.COMMIT = self.PLAY_TILE + (NUM_FACES if tiles else 0)
        self.size = self.COMMIT + (1 if tiles else 0)


# ------------------------------------------------------------- table melds
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


# -------------------------------------------------------------- game state
class GameState:
    """Everything about one game in progress (mutated in place; ``copy()`` is cheap).

    Hands are count vectors over the 53 faces; ``smask[p][s]`` is the bit mask of
    ranks of suit ``s`` and ``rmask[p][r]`` the suit mask of rank ``r`` in
    player ``p``'s hand (kept in step with the counts). The stock is a list with
    its top at the end; the discard pile lists bottom to top.
    """

    __slots__ = (
        "rules",
        "phases",
        "layout",
        "cat",
        "values",
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
        "forbidden",
        "turn_played",
        "played",
        "rebuilds",
        "seed",
        "round",
        "totals",
        "round_scores",
        "active",
        "winner",
        "reason",
        "step_count",
        "match_winner",
        "last_result",
        "_legal",
        "knock_limit",
        "upcard_stage",
        "hands_won",
        "must_use",
        "opened",
        "turn_value",
        "turn_pure",
        "credit",
        "turns",
        "wild_faces",
        "cut",
        "dropped",
        "drew",
        "buys",
        "asked",
        "tiles",
        "played_tiles",
        "passes",
        "last_tile",
    )

    def copy(self) -> GameState:
        c = GameState.__new__(GameState)
        c.rules, c.layout, c.cat, c.values = self.rules, self.layout, self.cat, self.values
        c.phases, c.wild_faces = self.phases, self.wild_faces
        c.hands = list(map(list, self.hands))  # (a copy of each list)
        c.nhand = self.nhand[:]
        c.smask = list(map(list, self.smask))
        c.rmask = list(map(list, self.rmask))
        c.known = list(map(list, self.known))
        c.stock = self.stock[:]
        c.discard = self.discard[:]
        c.table = self.table[:]
        c.current, c.phase, c.dealer = self.current, self.phase, self.dealer
        c.forbidden, c.turn_played = self.forbidden, self.turn_played
        c.played = self.played[:]
        c.rebuilds, c.seed, c.round = self.rebuilds, self.seed, self.round
        c.totals = self.totals[:]
        c.round_scores = self.round_scores[:]
        c.active = self.active[:]
        c.winner, c.reason, c.step_count = self.winner, self.reason, self.step_count
        c.match_winner, c.last_result, c._legal = self.match_winner, self.last_result, self._legal
        c.knock_limit, c.upcard_stage, c.hands_won = (
            self.knock_limit,
            self.upcard_stage,
            self.hands_won[:],
        )
        c.must_use, c.opened, c.turn_value = self.must_use, self.opened[:], self.turn_value
        c.turn_pure, c.credit, c.turns = self.turn_pure, self.credit[:], self.turns
        c.cut, c.dropped, c.drew = self.cut, self.dropped[:], self.drew[:]
        c.buys, c.asked = self.buys[:], self.asked
        c.tiles, c.played_tiles, c.passes = self.tiles[:], self.played_tiles[:], self.passes
        c.last_tile = self.last_tile
        return c

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
        return {
            "rules": {  # (JSON-able: a tuple field as a list)
                k: list(v) if isinstance(v, tuple) else v
                for k, v in ((k, getattr(self.rules, k)) for k in self.rules.__dataclass_fields__)
            },
            "hands": [[card_str(f) for f in self.hand_cards(p)] for p in range(len(self.hands))],
            "stock": [card_str(f) for f in reversed(self.stock)],
            "discard": [card_str(f) for f in self.discard],
            "table": [
                {
                    "owner": m.owner,
                    "kind": "run" if m.is_run else "set",
                    "cards": [card_str(f) for f in m.cards],
                }
                for m in self.table
            ]
            # Rummikub: the table is one pool of tiles, no meld its own
            + (
                [{"owner": None, "kind": None, "cards": counts_str(self.tiles)}]
                if any(self.tiles)
                else []
            ),
            "current_player": self.current,
            "phase": self.phase.name.lower(),
            "dealer": self.dealer,
            "forbidden": card_str(self.forbidden) if self.forbidden >= 0 else None,
            "turn_played": self.turn_played,
            "played": list(self.played),
            "known": [counts_str(k) for k in self.known],
            "rebuilds": self.rebuilds,
            "seed": self.seed,
            "round": self.round,
            "round_scores": list(self.round_scores),
            "totals": list(self.totals),
            "active": list(self.active),
            "winner": self.winner,
            "match_winner": self.match_winner,
            "reason": self.reason,
            "step_count": self.step_count,
            "knock_limit": self.knock_limit,
            "upcard_stage": self.upcard_stage,
            "hands_won": list(self.hands_won),
            "must_use": card_str(self.must_use) if self.must_use >= 0 else None,
            "opened": list(self.opened),
            "turn_value": self.turn_value,
            "turn_pure": self.turn_pure,
            "credit": list(self.credit),
            "turns": self.turns,
            "cut": card_str(self.cut) if self.cut >= 0 else None,
            "dropped": [None if d < 0 else d for d in self.dropped],
            "drew": list(self.drew),
            "buys": list(self.buys),
            "asked": None if self.asked < 0 else self.asked,
            "played_tiles": counts_str(self.played_tiles),
            "passes": self.passes,
        }


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
        elif rules.scoring == "rummikub":  # a tile's number: 1-13
            vals.append(r + 1)
        elif 1 <= r <= 8 and rules.low_card_penalty:  # a 2-9 (contract rummy: 5)
            vals.append(rules.low_card_penalty)
        else:
            vals.append(rules.ace_penalty if r == 0 else min(r + 1, 10))
    vals.append(rules.joker_penalty)
    for su in range(4) if wild_rank >= 0 else ():
        vals[su * NUM_RANKS + wild_rank] = 0
    return tuple(vals)


class _Tables(NamedTuple):
    layout: Layout
    phases: tuple
    cat: Catalogue
    wild_faces: tuple[int, ...]
    values: tuple[int, ...]
    values_by_rank: tuple[tuple[int, ...], ...]  # with each rank wild (a cut's), 0 = aces


def _tables(rules: RuleSet) -> _Tables:
    """What every state of ``rules`` shares, looked up once per deal: the action layout,
    the phase table, the meld catalogue, the wild-rank cards (wild_deuces: the four 2s, in
    the order the engine lays them), the card values, and those with each rank wild (a
    cut's). Found by the rule set's instance, which the table keeps alive, so a deal does
    not hash the rule set's fields."""
    hit = _TABLES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    wr = rules.fixed_wild_rank
    wild_faces = tuple(su * NUM_RANKS + wr for su in range(4)) if wr >= 0 else ()
    by_rank = tuple(_card_values(rules, r) for r in range(NUM_RANKS))
    found = _Tables(
        Layout(rules),
        phase_table(rules),
        catalogue_for(rules),
        wild_faces,
        _card_values(rules, -1),
        by_rank,
    )
    if len(_TABLES) >= 256:
        _TABLES.clear()
    _TABLES[id(rules)] = (rules, found)
    return found


_TABLES: dict[int, tuple[RuleSet, _Tables]] = {}


def _blank(rules: RuleSet) -> GameState:
    s = GameState.__new__(GameState)
    n = rules.num_players
    s.rules = rules
    t = _tables(rules)
    s.layout, s.phases, s.cat, s.wild_faces = t.layout, t.phases, t.cat, t.wild_faces
    s.values = list(t.values)
    s.hands = [[0] * 53 for _ in range(n)]
    s.nhand = [0] * n
    s.smask = [[0] * 4 for _ in range(n)]
    s.rmask = [[0] * NUM_RANKS for _ in range(n)]
    s.known = [[0] * 53 for _ in range(n)]
    s.stock, s.discard, s.table = [], [], []
    s.current, s.phase, s.dealer = 0, Phase.DRAW, n - 1
    s.forbidden, s.turn_played = -1, False
    s.played = [False] * n
    s.rebuilds, s.seed, s.round = 0, 0, 0
    s.totals = [0] * n
    s.round_scores = [0] * n
    s.active = [True] * n
    s.winner, s.reason, s.step_count, s.match_winner = None, None, 0, None
    s.last_result, s._legal = None, None
    s.knock_limit = rules.knock_limit
    s.upcard_stage = -1  # gin: 0 offered to the non-dealer, 1 to the dealer, 2 both passed
    s.hands_won = [0] * n
    s.must_use = -1  # face the next meld or lay-off must contain (D-5, D-6)
    s.opened = [_open_from_start(rules)] * n
    s.turn_value = 0  # opening: value melded this turn by a player not yet opened
    s.turn_pure = False  # opening: a pure run laid this turn
    s.credit = [0] * n  # rummy500: value melded and laid off this round
    s.turns = 0  # turns completed this round
    s.cut = -1  # Indian rummy: the cut card (the stock's bottom card until drawn), or -1
    s.dropped = [-1] * n  # Indian rummy: the drop penalty of a seat that left the round
    s.drew = [False] * n  # Indian rummy: whether the seat has drawn this round
    s.buys = [rules.buy_limit] * n  # contract rummy: buys left this deal
    s.asked = -1  # contract rummy: the seat asked whether it buys (Phase.BUY), or -1
    s.tiles = [0] * NUM_FACES  # Rummikub: the table's tiles (counts per face)
    s.played_tiles = [0] * NUM_FACES  # Rummikub: the tiles played this turn
    s.passes = 0  # Rummikub: passes in a row since the last commit (the pool empty)
    s.last_tile = -1  # Rummikub: the tile played last this turn (a hint for the search), or -1
    return s


def _open_from_start(rules: RuleSet) -> bool:
    """Whether a player may lay off from the start of a round: not where he must first
    open (rummy51's count) or go down with his contract (contract rummy)."""
    return not (rules.open_points or rules.contract)  # (Rummikub: open_points, the initial meld)


def deal_number(s: GameState) -> int:
    """Contract rummy: the deal being played, 1-7 (``contract_deal`` + rounds played)."""
    return s.rules.contract_deal + s.round


def round_hand_size(rules: RuleSet, round_: int) -> int:
    """Cards dealt to each player in round ``round_`` (0-based): ``hand_size``; in contract
    rummy two more from deal 5 on when the match began before it (10 then 12)."""
    size = rules.hand_size
    if rules.contract and rules.contract_deal < 5 <= rules.contract_deal + round_:
        size += 2
    return size


def _next_active(s: GameState, p: int) -> int:
    """The next seat after ``p`` still in the match and in the round (not dropped)."""
    n = len(s.active)
    q = (p + 1) % n
    while not s.active[q] or s.dropped[q] >= 0:
        q = (q + 1) % n
    return q


def _start_round(s: GameState, dealer: int, deal: dict[str, Any] | None = None) -> None:
    """Deal a round: from ``deal`` (validated) or shuffled from the seed."""
    rules = s.rules
    n = rules.num_players
    s.dealer = dealer
    for p in range(n):
        s.hands[p] = [0] * 53
        s.nhand[p] = 0
        s.smask[p] = [0] * 4
        s.rmask[p] = [0] * NUM_RANKS
        s.known[p] = [0] * 53
    s.table = []
    s.played = [False] * n
    s.turn_played = False
    s.forbidden = -1
    s.must_use = -1
    s.opened = [_open_from_start(rules)] * n
    s.turn_value = 0
    s.turn_pure = False
    s.credit = [0] * n
    s.buys = [rules.buy_limit] * n
    s.asked = -1
    s.tiles = [0] * NUM_FACES
    s.played_tiles = [0] * NUM_FACES
    s.passes = 0
    s.last_tile = -1
    s.turns = 0
    s.dropped = [-1] * n
    s.drew = [False] * n
    s.rebuilds = 0
    s.round_scores = [0] * n
    s.winner = s.reason = None
    if deal is None:
        pack = deck_faces(rules.decks, rules.jokers)
        shuffle(pack, s.seed * 1_000_003 + s.round)
        hands: list[list[int]] = [[] for _ in range(n)]
        order = []
        p = _next_active(s, dealer)
        for _ in range(sum(s.active)):
            order.append(p)
            p = _next_active(s, p)
        k = len(order)
        dealt = pack[len(pack) - k * round_hand_size(rules, s.round) :]
        del pack[len(pack) - len(dealt) :]
        dealt.reverse()  # one at a time from the top (the end), the first seat first
        for i, p in enumerate(order):
            hands[p] = dealt[i::k]
        discard = [pack.pop()] if rules.upcard else []
        stock = pack  # top at the end
        if rules.wild_rank == "cut":  # the top card turned and put at the bottom
            stock.insert(0, stock.pop())
    else:
        hands, discard, stock = deal["hands"], deal["discard"], list(deal["stock"])
    for p in range(n):
        s.add_cards(p, hands[p])
    s.discard = list(discard)
    s.stock = stock
    if rules.wild_rank == "cut":
        _set_cut(s, s.stock[0])
    s.current = _next_active(s, dealer)
    s.phase = Phase.DRAW
    s._legal = None
    s.upcard_stage = -1
    if rules.oklahoma and s.discard:
        s.knock_limit = s.values[s.discard[-1]]  # the up-card's value (ace 1, faces 10)
    if rules.upcard_offer and s.discard:
        s.phase = Phase.UPCARD
        s.upcard_stage = 0
    _begin_draw(s)


def _set_cut(s: GameState, cut: int) -> None:
    """Indian rummy: the round's cut card, its wild rank (aces for a joker) and the card
    values (a wild card counts 0)."""
    s.cut = cut
    rank = 0 if cut == JOKER else cut % NUM_RANKS
    s.wild_faces = tuple(su * NUM_RANKS + rank for su in range(4))
    s.values = list(_tables(s.rules).values_by_rank[rank])


#: the keys of a crafted deal in ``reset(options=...)`` / :func:`new_game` (``cut``:
#: Indian rummy's cut card, the bottom of the stock)
DEAL_KEYS = ("hands", "discard", "stock", "dealer", "cut")
#: every key :func:`new_game` reads from ``options``
OPTION_KEYS = ("state", *DEAL_KEYS)


def _check_options(options: Any) -> dict[str, Any]:
    """The reset options, checked. Unknown keys are ignored (PettingZoo's api_test
    passes ``{"options": 1}``) unless the options also hold a deal or a state, or a
    key is close to a known one (a typo such as ``"hand"``): then a ValueError names
    the allowed keys."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(
            f"options must be None or a dict, got {_short(options)} "
            f"(allowed keys: {', '.join(map(repr, OPTION_KEYS))})"
        )
    known = [k for k in options if k in OPTION_KEYS]
    unknown = [k for k in options if k not in OPTION_KEYS]
    typos = [
        k for k in unknown if isinstance(k, str) and get_close_matches(k, OPTION_KEYS, 1, 0.75)
    ]
    if (known and unknown) or typos:
        raise ValueError(
            f"unknown reset option(s) {', '.join(map(repr, typos or unknown))} "
            f"(allowed: {', '.join(map(repr, OPTION_KEYS))})"
        )
    if options.get("state") is not None:
        if not isinstance(options["state"], dict):
            raise ValueError(
                f"options['state'] must be a dict from GameState.to_dict(), got "
                f"{_short(options['state'])}"
            )
        if len(known) > 1:
            raise ValueError(
                f"options['state'] restores a whole state: it cannot be combined with "
                f"{', '.join(repr(k) for k in known if k != 'state')} (allowed: 'state' alone)"
            )
    elif ("discard" in options or "stock" in options) and "hands" not in options:
        raise ValueError(
            "a crafted deal needs 'hands' (a list of card lists, one per seat; "
            f"allowed keys: {', '.join(map(repr, DEAL_KEYS))})"
        )
    return options


def _short(value: Any) -> str:
    """``repr(value)``, cut short for an error message."""
    r = repr(value)
    return r if len(r) <= 80 else r[:77] + "..."


def _card_list(value: Any, where: str, *, none: str = "") -> list[int]:
    """Cards given as a list (strings or ids) or a space-separated string, as faces;
    a ValueError naming ``where`` otherwise (``none`` says what None means, if allowed)."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)):
        raise ValueError(
            f"{where}={_short(value)} is not allowed (allowed: a list of cards such as "
            f"['AS', 'TD', 'JK'] or a string 'AS TD JK'{none})"
        )
    return [_parse(c, where) for c in value]


def _parse(card: Any, where: str) -> int:
    """A card as its face; a ValueError naming ``where`` otherwise."""
    try:
        return parse_card(card)
    except ValueError as e:
        raise ValueError(
            f"{where}: {e}; allowed: cards as text ('AS', 'TD', 'JK') or ids 0..52"
        ) from None


def _pack_counts(rules: RuleSet) -> list[int]:
    """Copies of each face in the pack."""
    return face_counts(deck_faces(rules.decks, rules.jokers))


def _pack_text(rules: RuleSet) -> str:
    return f"{rules.decks} deck(s) and {rules.jokers * rules.decks} joker(s)"


def _validate_deal(rules: RuleSet, options: dict[str, Any], rng_seed: int) -> dict[str, Any]:
    n = rules.num_players
    hands_in = options["hands"]
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != n:
        raise ValueError(
            f"hands={_short(hands_in)} is not allowed (allowed: a list of {n} card lists, "
            "one per seat)"
        )
    hands = []
    for p, h in enumerate(hands_in):
        cards = _card_list(h, f"hands[{p}]")
        if len(cards) != rules.hand_size:
            raise ValueError(
                f"hand of seat {p} has {len(cards)} cards (allowed: exactly {rules.hand_size})"
            )
        hands.append(cards)
    discard = _card_list(options.get("discard", []), "discard", none="; omit it for an empty pile")
    if discard and rules.scoring == "rummikub":
        raise ValueError(
            f"discard={_short(options['discard'])} is not allowed in Rummikub (allowed: [] or "
            "omitted: there is no discard pile)"
        )
    left = _pack_counts(rules)
    used = [f for h in hands for f in h] + discard
    if options.get("stock") is not None:
        stock_top_first = _card_list(options["stock"], "stock", none="; None or omitted: shuffled")
        used = used + stock_top_first
    else:
        stock_top_first = None
    for f in used:
        left[f] -= 1
    over = sorted({card_str(f) for f in range(53) if left[f] < 0})
    if over:
        raise ValueError(
            f"cards dealt more often than the pack holds them: {', '.join(over)} "
            f"(pack: {_pack_text(rules)})"
        )
    cut = options.get("cut")
    if cut is not None:
        if rules.wild_rank != "cut":
            raise ValueError(
                f"cut={_short(cut)} is not allowed with wild_rank={rules.wild_rank!r} "
                "(allowed: a cut card only where the cut card sets the wild rank, wild_rank='cut')"
            )
        cut = _parse(cut, "cut")
    if stock_top_first is None:
        rest = [f for f in range(53) for _ in range(left[f])]
        shuffle(rest, rng_seed)
        if cut is not None:
            if cut not in rest:
                raise ValueError(
                    f"cut={card_str(cut)}: every copy of it is dealt (allowed: a card of the stock)"
                )
            rest.remove(cut)
            rest.insert(0, cut)  # the bottom of the stock
        stock = rest
    else:
        if cut is not None and (not stock_top_first or stock_top_first[-1] != cut):
            raise ValueError(
                f"cut={card_str(cut)} is not the bottom of the stock "
                f"({card_str(stock_top_first[-1]) if stock_top_first else 'empty'}) (allowed: "
                "the stock's last card, or omit the stock to have it shuffled with the cut "
                "at the bottom)"
            )
        missing = sorted({card_str(f) for f in range(53) if left[f] > 0})
        if missing:
            raise ValueError(
                f"cards missing from the deal (hands + discard + stock must be the whole pack): "
                f"{', '.join(missing)}"
            )
        stock = stock_top_first[::-1]
    if rules.wild_rank == "cut" and not stock:
        raise ValueError(
            "the deal leaves no stock to cut (allowed: at least one stock card with wild_rank='cut')"
        )
    return {"hands": hands, "discard": discard, "stock": stock}


def new_game(rules: RuleSet, seed: int = 0, options: dict[str, Any] | None = None) -> GameState:
    """A new game: a seeded deal, or the deal/state given in ``options``.

    Args:
        rules: the rule set.
        seed: fixes every shuffle of the game (deals and stock rebuilds).
        options: ``{"hands", "discard", "stock", "dealer"}`` for a crafted deal
            (cards as strings or ids; ``stock`` top first, shuffled from the
            seed when omitted) or ``{"state": d}`` to restore ``to_dict()`` data.

    Raises:
        ValueError: malformed options, deal or state, naming what is wrong and
            what is allowed.
    """
    options = _check_options(options)
    if options.get("state") is not None:
        return from_dict(options["state"], rules)
    s = _blank(rules)
    s.seed = int(seed)
    dealer = options.get("dealer", rules.num_players - 1)
    if (
        isinstance(dealer, bool)
        or not isinstance(dealer, int)
        or not 0 <= dealer < rules.num_players
    ):
        raise ValueError(f"dealer={dealer!r} is not allowed (allowed: 0..{rules.num_players - 1})")
    deal = _validate_deal(rules, options, s.seed) if "hands" in options else None
    _start_round(s, dealer, deal)
    return s


# ------------------------------------------------------------ legal moves
def legal_actions(s: GameState) -> list[int]:
    """Legal action ids of the seat to act (:func:`acting_seat`), ascending (cached until
    the next action)."""
    if s._legal is None:
        s._legal = s.phases[s.phase].legal(s)
    return s._legal


def acting_seat(s: GameState) -> int:
    """The seat that decides now. ``s.current`` is the seat whose turn it is; the two
    differ in a phase whose :class:`PhaseRules` say so (an out-of-turn decision)."""
    return s.phases[s.phase].actor(s)


def _legal_upcard(s: GameState) -> list[int]:
    """gin's first up-card: take it when a draw of it would be legal (a card that must be
    used at once, two decks), or pass."""
    L = s.layout
    return [L.DRAW_DISCARD, L.PASS] if L.DRAW_DISCARD in _legal_draw(s) else [L.PASS]


def _nothing_legal(s: GameState) -> list[int]:
    return []


def _legal_draw(s: GameState) -> list[int]:
    rules = s.rules
    p = s.current
    acts = []
    if s.stock:
        acts.append(0)
    pile = s.discard
    if pile and s.upcard_stage != 2:
        mode = rules.discard_pickup_must_meld
        hand = s.hands[p]
        n = s.nhand[p]
        depths = range(len(pile)) if rules.discard_pickup == "any" else (0,)
        # the cards above depth d (they come along), gathered as d grows: suit masks of
        # their ranks, rank masks of their suits, and their jokers
        above_s, above_r, above_jokers = [0] * 4, [0] * NUM_RANKS, 0
        for d in depths:
            c = pile[-1 - d]
            if d:
                f = pile[-d]  # the card just above c
                if f == JOKER:
                    above_jokers += 1
                else:
                    above_s[f // NUM_RANKS] |= 1 << (f % NUM_RANKS)
                    above_r[f % NUM_RANKS] |= 1 << (f // NUM_RANKS)
            if mode == "always" or (mode == "below_top" and d > 0):
                # the card must be used at once: legal only if some meld or lay-off
                # containing it is legal after the draw (which also rules out dead ends);
                # the first legal meld settles it (no discard is legal before it is used)
                if _may_use(s, p, c, above_s, above_r, above_jokers) and _legal_play_moves(
                    _drawn(s, p, d), first_meld=True
                ):
                    acts.append(1 + d)
            elif n + d > hand[c] + (d and sum(f == c for f in pile[len(pile) - d :])):
                acts.append(1 + d)  # something other than the taken face to discard
    if not s.stock and rules.empty_stock == "end_round":
        acts.append(s.layout.END_ROUND)
    return acts


def _may_use(
    s: GameState, p: int, c: int, above_s: list[int], above_r: list[int], above_jokers: int
) -> bool:
    """Quick necessary condition for using card ``c`` of the discard pile after taking it
    with the cards above it (``above_s``: per suit, the mask of their ranks; ``above_r``:
    per rank, the mask of their suits; ``above_jokers``): two other cards related to it
    (same rank, or same suit within two ranks, or wild) or a table meld accepting it."""
    if c == JOKER or c in s.wild_faces:
        return True
    hand = s.hands[p]
    wilds = hand[JOKER] + sum([hand[f] for f in s.wild_faces]) + above_jokers
    r, su = c % NUM_RANKS, c // NUM_RANKS
    sm = s.smask[p][su] | above_s[su]
    rm = s.rmask[p][r] | above_r[r]
    near = (sm & _NEAR[r]).bit_count() + (rm & ~(1 << su)).bit_count()
    # a meld holding c needs two more cards, at least min_naturals - 1 of them natural
    if near >= 2 or (near >= s.cat.min_naturals - 1 and wilds and near + wilds >= 2):
        return True
    return s.opened[p] and any(c in m.accepts.values() for m in s.table)


# ranks within two of each rank (an ace is near 2, 3 and, for Q-K-A, Q and K)
_NEAR = [
    sum(1 << q for q in range(NUM_RANKS) if 0 < min(abs(q - r), NUM_RANKS - abs(q - r)) <= 2)
    for r in range(NUM_RANKS)
]


def _drawn(s: GameState, p: int, d: int) -> GameState:
    t = s.copy()
    _draw_discard(t, p, d)
    t._legal = None
    return t


def _draw_discard(s: GameState, p: int, d: int) -> None:
    """Take the discard at depth ``d`` and every card above it."""
    rules = s.rules
    taken = s.discard[len(s.discard) - 1 - d :]
    del s.discard[len(s.discard) - 1 - d :]
    for f in taken:
        s._add(p, f)
        s.known[p][f] += 1
    c = taken[0]
    s.forbidden = c
    mode = rules.discard_pickup_must_meld
    s.must_use = c if mode == "always" or (mode == "below_top" and d > 0) else -1
    s.phase = _PLAY
    s.upcard_stage = -1


def _opening_ok(
    s: GameState,
    p: int,
    nat,
    wu: int,
    value: int,
    pure: bool,
    forb: int,
    meld: Callable[[], TableMeld] | None = None,
) -> bool:
    """Whether the opening (contract rummy: the contract) can still be completed this turn
    after this meld (``nat`` and ``wu`` wild cards; ``meld()`` makes it; None: nothing laid
    yet, whether the whole hand can)."""
    rules = s.rules
    if rules.contract:
        return _contract_ok(s, p, nat, wu, meld, forb)
    need = rules.open_points - s.turn_value - value
    need_pure = rules.open_pure_run and not s.turn_pure and not pure
    if need <= 0 and not need_pure:
        return True
    rest = list(s.hands[p])
    for f in nat:
        rest[f] -= 1
    if s.wild_faces:
        return _opening_with_deuces(s, rest, wu, need, need_pure, forb)
    rest[JOKER] -= wu
    return opening_possible(
        s.cat,
        tuple(rest),
        need,
        need_pure,
        forb,
        rules.ace_meld_value,
        rules.joker_meld_value,
        not rules.go_out_requires_discard,
    )


def _opening_with_deuces(
    s: GameState, rest: list[int], wu: int, need: int, need_pure: bool, forb: int
) -> bool:
    """:func:`_opening_ok`'s search with wild 2s (D-13), ``rest`` the hand less the meld's
    naturals: the meld's ``wu`` wild cards are taken from it as :func:`_apply_meld` takes
    them; then each 2 left plays as a natural 2 or as a wild card. The search counts wild
    cards as jokers, so it is asked of every split of the 2s held, with no wild card in a
    set of 2s (a 2 there is natural: :func:`opening_possible`'s ``plain_rank``); the sets of
    2s that hold jokers are laid first (:func:`_deuce_sets_first`). A taken 2 that may not
    be discarded plays wild with all its copies or none; wild, no wild card left counts as
    a discard (the engine may leave that very 2)."""
    for f in _wild_fill(s, rest, wu):
        rest[f] -= 1
    return _deuce_sets_first(s, rest, need, need_pure, forb)


def _deuce_sets_first(s: GameState, rest: list[int], need: int, need_pure: bool, forb: int) -> bool:
    """:func:`_opening_with_deuces` after its meld: with no set of 2s holding a joker laid
    first, or with one (then again)."""
    if _deuce_splits(s, rest, need, need_pure, forb):
        return True
    cat, rules = s.cat, s.rules
    jokers = rest[JOKER]
    two = s.rules.fixed_wild_rank
    if not jokers:
        return False
    for k, wu in cat.sets_for(cat.held_code(rest, two), jokers):
        if not wu:
            continue  # (a set of natural 2s: the search lays those itself)
        nat = code_faces(cat.set_shapes[k][0], two)
        value = set_value(two, len(nat), wu, rules.ace_meld_value, rules.joker_meld_value)
        for f in nat:
            rest[f] -= 1
        rest[JOKER] -= wu
        ok = _deuce_sets_first(s, rest, need - value, need_pure, forb)
        for f in nat:
            rest[f] += 1
        rest[JOKER] += wu
        if ok:
            return True
    return False


def _deuce_splits(s: GameState, rest: list[int], need: int, need_pure: bool, forb: int) -> bool:
    """:func:`_opening_with_deuces`'s search over the splits of the 2s held into natural 2s
    and wild cards."""
    rules = s.rules
    args = (rules.ace_meld_value, rules.joker_meld_value, not rules.go_out_requires_discard)
    two = rules.fixed_wild_rank
    deuces = [f for f in s.wild_faces if rest[f]]
    for split in product(*(range(rest[f] + 1) for f in deuces)):
        counts = list(rest)
        fb = forb
        for f, k in zip(deuces, split):
            if f == forb and 0 < k < rest[f]:
                break
            counts[f] -= k
            counts[JOKER] += k
            if f == forb and k:
                fb = JOKER
        else:
            if opening_possible(s.cat, tuple(counts), need, need_pure, fb, *args, two):
                return True
    return False


# ------------------------------------------------------------- contract rummy
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


def discard_only(s: GameState) -> list[int] | None:
    """The faces the player to act may discard (ascending), when a quick test shows
    that discarding is all he may do (play phase of a game with melding during play);
    else None. When a list, ``legal_actions`` lists exactly ``Discard`` of these faces.

    The test: no taken card to use, and either contract rummy before going down with a
    contract that cannot be laid (no meld, no lay-off), or: no wild card in hand, opened,
    no rank held in three suits (three cards where suits repeat), no three neighbouring
    ranks of a suit (so no meld), no held card that a table meld accepts, and no wild
    card on the table (no swap).
    """
    p = s.current
    hand = s.hands[p]
    if s.must_use >= 0:
        return None
    a, b, c, d = s.smask[p]
    if not s.opened[p]:
        if not s.rules.contract or s.turn_value or _opening_ok(s, p, (), 0, 0, False, s.forbidden):
            return None
    else:
        if hand[JOKER] or (_no_final_discard(s) and s.nhand[p] == 1):
            return None
        for f in s.wild_faces:
            if hand[f]:
                return None
        if three_suit_ranks(a, b, c, d):
            return None
        if not s.cat.distinct and _ranks_of_three(hand):  # suits repeat (D-16)
            return None
        held = a | b << 13 | c << 26 | d << 39  # the hand's natural faces, a bit each
        if run3_bits(held, s.cat.ace_high):
            return None
        for tm in s.table:
            if tm.lay_bits & held or tm.swaps:  # (a meld with a wild card: not tested further)
                return None
    lo, hi = _LOW_FACES, _HIGH_FACES  # the held faces, ascending, from the suit masks
    faces = [
        *lo[0][a & 127],
        *hi[0][a >> 7],
        *lo[1][b & 127],
        *hi[1][b >> 7],
        *lo[2][c & 127],
        *hi[2][c >> 7],
        *lo[3][d & 127],
        *hi[3][d >> 7],
    ]
    if hand[JOKER]:  # (contract rummy before going down)
        faces.append(JOKER)
    if s.forbidden >= 0 and hand[s.forbidden]:
        faces.remove(s.forbidden)
    return faces


# the faces of suit su whose ranks are the bits of the suit mask m:
# ranks 0..6 in _LOW_FACES[su][m & 127], ranks 7..12 in _HIGH_FACES[su][m >> 7]
_LOW_FACES = [
    [tuple(su * NUM_RANKS + r for r in range(7) if m >> r & 1) for m in range(1 << 7)]
    for su in range(4)
]
_HIGH_FACES = [
    [
        tuple(su * NUM_RANKS + r for r in range(7, NUM_RANKS) if m >> (r - 7) & 1)
        for m in range(1 << 6)
    ]
    for su in range(4)
]


def _wild_fill(s: GameState, hand: list[int], n: int, used: tuple[int, ...] = ()) -> list[int]:
    """The physical cards that fill ``n`` wild places of a meld from ``hand``, in the order
    of :func:`_wild_order` (D-13: a joker before a 2, a 2 being the more useful card to
    keep); ``used``: cards of the same meld laid as naturals (not available)."""
    out: list[int] = []
    need = n
    for f in _wild_order(s):
        if not need:
            break
        c = min(hand[f] - used.count(f), need)
        if c > 0:
            out += [f] * c
            need -= c
    return out


def _wild_order(s: GameState) -> tuple[int, ...]:
    """The order in which the engine lays wild cards: a 2 taken from the pile that must be
    used now first (the rule asks for it in this meld), the jokers, then a 2 taken from the
    pile this turn (it may not be discarded, so laying it never leaves a player stuck where
    another 2 would), then the 2s by suit."""
    if not s.wild_faces:
        return (JOKER,)
    must, forb = s.must_use, s.forbidden
    first = (must,) if must in s.wild_faces else ()
    taken = (forb,) if forb in s.wild_faces and forb != must else ()
    return (*first, JOKER, *taken, *(g for g in s.wild_faces if g not in first + taken))


def _wild_for(s: GameState, hand: list[int], m: TableMeld, k: int) -> int:
    """The card a wild lay-off into slot ``k`` of meld ``m`` lays (:func:`_wild_order`): a
    joker or a wild-rank card that would not stand at its own place there (that one is a
    natural lay-off), or -1."""
    set_of_2s = not m.is_run and m.key == s.rules.fixed_wild_rank  # a 2 on it is natural
    own = m.stands_for(k)
    for f in _wild_order(s):
        if hand[f] and (f == JOKER or (not set_of_2s and f != own)):
            return f
    return -1


def _legal_play(s: GameState) -> list[int]:
    """Legal actions of the play phase (melding during play)."""
    faces = discard_only(s)
    if faces:  # the common case
        b = s.layout.DISCARD
        return [b + f for f in faces]
    return _legal_play_moves(s) or _lapsed_play(s)


def _lapsed_play(s: GameState) -> list[int]:
    """The discards left to a player who has no legal move: only in a restored state
    that could not occur in play (a taken card that cannot be used, an opening that
    cannot be completed, only cards that may not be discarded, e.g. when the hidden
    cards were shuffled). The obligations lapse rather than leave a dead end
    (DESIGN.md invariant 2): any card but the forbidden one, or any card."""
    hand = s.hands[s.current]
    b = s.layout.DISCARD
    faces = [f for f in compress(_FACES, hand) if f != s.forbidden] or list(compress(_FACES, hand))
    return [b + f for f in faces]


def legal_play_to_first_meld(s: GameState) -> list[int]:
    """The legal actions of the play phase (melding during play), ascending, cut short
    after the first meld when there is one: enough for a policy that melds first (the
    search agent's rollouts). Not cached."""
    return _legal_play_moves(s, first_meld=True)


def _legal_play_moves(s: GameState, first_meld: bool = False) -> list[int]:
    """:func:`_legal_play` without the ``discard_only`` shortcut; with ``first_meld``
    only the first (lowest) action when it is a meld: the list is cut short there."""
    p = s.current
    hand = s.hands[p]
    n = s.nhand[p]
    w = jokers = hand[JOKER]
    wf = s.wild_faces
    if wf:  # wild 2s: wild anywhere but at their own place
        w += sum([hand[f] for f in wf])
    wrank = s.rules.fixed_wild_rank
    cat = s.cat
    L = s.layout
    rules = s.rules
    forb = s.forbidden
    nforb = hand[forb] if forb >= 0 else 0
    can_out = not rules.go_out_requires_discard
    must = s.must_use
    opened = s.opened[p]
    av, jv = rules.ace_meld_value, rules.joker_meld_value
    acts: list[int] = []
    # --- melds: sets then runs (ids ascend in this order)
    may_meld = not (opened and rules.contract)  # contract rummy: no new melds once down
    # contract rummy, going down: the contract search judges what each meld leaves
    going_down = rules.contract and not opened
    if not opened:
        if rules.open_pure_run and not s.turn_pure:
            # no opening without a pure run of three in hand
            a, b, c, d = s.smask[p]
            may_meld = bool(run3_bits(a | b << 13 | c << 26 | d << 39, cat.ace_high))
        # no meld is legal unless the whole hand can still complete the opening
        may_meld = may_meld and _opening_ok(s, p, (), 0, 0, False, forb)
    rmask = s.rmask[p]
    nshapes = len(cat.set_shapes)
    shapes = cat.set_shapes
    sizes = cat.set_sizes
    base = L.MELD
    # a taken natural card that must be used: only its rank's sets and its suit's runs
    nat_must = 0 <= must < NUM_NATURAL and must not in wf
    distinct = cat.distinct
    if not may_meld:
        ranks: Any = ()
    elif nat_must:
        ranks = (must % NUM_RANKS,)
    elif w:
        ranks = range(NUM_RANKS)
    elif distinct:  # without wild cards only the ranks held in three suits or more
        three = three_suit_ranks(*s.smask[p])
        ranks = [r for r in range(NUM_RANKS) if three >> r & 1] if three else ()
    else:  # or three natural cards
        ranks = _ranks_of_three(hand)
    nat_first = rules.joker_natural_first
    min_nat = cat.min_naturals
    for r in ranks:
        if distinct:
            rm = rmask[r]
            held = SPREAD[rm]
            nh = rm.bit_count()
        else:
            held = cat.held_code(hand, r)
            nh = code_size(held)
        wr_ = jokers if r == wrank else w  # in a set of 2s every 2 is natural
        if nh >= min_nat and nh + wr_ >= 3:
            fr = 0 <= forb < NUM_NATURAL and forb % NUM_RANKS == r
            for k, wu in cat.sets_for(held, wr_):
                code = shapes[k][0]
                if wu and nat_first and held != code:
                    continue  # a card of this rank in hand could take the wild card's place
                if forb == JOKER:
                    used_f = min(wu, jokers)
                elif wu and forb in wf and r != wrank:
                    used_f = _wild_fill(s, hand, wu).count(forb)
                else:
                    used_f = code >> SUIT_SHIFT * (forb // NUM_RANKS) & 15 if fr else 0
                holds_must = must < 0 or (
                    bool(wu)
                    if must == JOKER or (must in wf and r != wrank)  # the first wild laid
                    else must % NUM_RANKS == r and code >> SUIT_SHIFT * (must // NUM_RANKS) & 15
                )
                if not (
                    going_down or _may_play(n - sizes[k], can_out, forb, nforb, used_f, holds_must)
                ):
                    continue
                if not opened:
                    nat = code_faces(code, r)
                    value = set_value(r, len(nat), wu, av, jv)

                    def meld(r=r, code=code, wu=wu) -> TableMeld:
                        return TableMeld(p, False, r, 0, 0, 0, code, wu, cat)

                    if not _opening_ok(s, p, nat, wu, value, False, forb, meld):
                        continue
                if first_meld:
                    return [base + r * nshapes + k]
                acts.append(base + r * nshapes + k)
    smask = s.smask[p]
    nseg = len(cat.segments)
    base = L.MELD + cat.n_sets
    ace_high = cat.ace_high
    segs = cat.segments
    for su in () if not may_meld else (must // NUM_RANKS,) if nat_must else range(4):
        pm = smask[su]
        if not pm:
            continue
        if ace_high and pm & 1:
            pm |= 1 << ACE_HIGH_POS
        if not w and not pm & (pm >> 1) & (pm >> 2):
            continue  # no three neighbouring positions: no run (runs_for would be empty)
        if wf:
            # this suit's 2 is natural in a run through its place (not wild there too);
            # every other 2, and this one in any other run, is wild
            own = su * NUM_RANKS + wrank
            through = [
                o for o in cat.runs_for(pm, w - (hand[own] > 0)) if _covers(segs[o[0]], wrank)
            ]
            other = [o for o in cat.runs_for(pm, w) if not _covers(segs[o[0]], wrank)]
            runs = sorted(through + other)
        else:
            runs = cat.runs_for(pm, w)
        for k, wu in runs:
            lo, hi = segs[k]
            if forb == JOKER:
                used_f = min(wu, jokers)
            else:
                used_f = 1 if forb >= 0 and _run_holds(su, lo, hi, forb) else 0
                if wu and forb in wf:
                    nat_own = (own,) if hand[own] and lo <= wrank <= hi else ()
                    used_f += _wild_fill(s, hand, wu, nat_own).count(forb)
            holds_must = (
                must < 0
                or _run_holds(su, lo, hi, must)
                or (bool(wu) and (must == JOKER or must in wf))  # the first wild laid
            )
            rest = n - (hi - lo + 1)
            if not (going_down or _may_play(rest, can_out, forb, nforb, used_f, holds_must)):
                continue
            if not opened:
                wild = 0
                nat = []
                for q in range(lo, hi + 1):
                    if pm >> q & 1:
                        nat.append(su * NUM_RANKS + q % NUM_RANKS)
                    else:
                        wild |= 1 << q
                value = run_value(lo, hi, wild, av, jv)

                def meld(su=su, lo=lo, hi=hi, wild=wild) -> TableMeld:
                    return TableMeld.run(p, su, lo, hi, wild, cat)

                if not _opening_ok(s, p, nat, wu, value, wu == 0, forb, meld):
                    continue
            if first_meld:
                return [base + su * nseg + k]
            acts.append(base + su * nseg + k)
    # --- lay-offs and swaps (only once opened, D-7)
    last7 = _no_final_discard(s)
    if s.table and opened:
        lw = L.layoff_width
        rest = n - 1
        for mi, m in enumerate(s.table):
            b = L.LAYOFF + mi * lw
            for k, f in m.accepts.items():
                if f == JOKER and wf:
                    f = _wild_for(s, hand, m, k)
                    if f < 0:
                        continue
                if hand[f] and (must < 0 or f == must):
                    if k >= NUM_NATURAL and nat_first and _natural_playable(m, k, hand):
                        continue
                    if last7 and rest == 1:  # no final discard: the last card must fit
                        if _last_card_fits(s, hand, f, mi, m.laid_off(k, s.cat, f)):
                            acts.append(b + k)
                    elif _may_play(rest, can_out, forb, nforb, f == forb, True):
                        acts.append(b + k)
        if L.SWAP < L.DISCARD and rules.joker_swap and must < 0:
            for mi, m in enumerate(s.table):
                if m.swaps:
                    b = L.SWAP + mi * NUM_NATURAL
                    for f in m.swaps:
                        # the swap gives f and takes a wild card: keep something discardable
                        if hand[f] and (
                            forb < 0
                            or n > nforb + (forb == m.wild_cards[m.swap_index(f)]) - (forb == f)
                        ):
                            acts.append(b + f)
        acts.sort()
    # --- discards: not while a taken card awaits its meld, nor in the middle of an opening
    if must < 0 and (opened or s.turn_value == 0) and not (last7 and n == 1):
        b = L.DISCARD
        acts += [b + f for f in compress(_FACES, hand) if f != forb]
    return acts


def _last_card_fits(s: GameState, hand: list[int], f: int, mi: int, new: TableMeld) -> bool:
    """Contract rummy's seventh deal: whether, after ``f`` is laid off making table meld
    ``mi`` into ``new``, the one card left in ``hand`` can be laid off too."""
    y = next(g for g in compress(_FACES, hand) if g != f or hand[g] == 2)
    return any(y in (new if i == mi else m).accepts.values() for i, m in enumerate(s.table))


def _ranks_of_three(hand: list[int]) -> list[int]:
    """The ranks of which ``hand`` holds three natural cards or more (any suits)."""
    return [r for r in range(NUM_RANKS) if sum(hand[r:NUM_NATURAL:NUM_RANKS]) >= 3]


def _may_play(
    rest: int, can_out: bool, forb: int, nforb: int, used_forb: int, holds_must: bool
) -> bool:
    """The one "may this be played" check of a meld or lay-off that leaves ``rest`` cards
    in hand: going out only where the rules allow it without a discard (``can_out``), no dead
    end (what is left must hold a card other than the forbidden one: ``nforb`` copies of it in
    hand, ``used_forb`` of them played here), and a taken card that must be used is in it."""
    if not holds_must:
        return False
    if rest == 0:
        return can_out
    return forb < 0 or rest > nforb - used_forb


def _covers(seg: tuple[int, int], pos: int) -> bool:
    return seg[0] <= pos <= seg[1]


def _run_holds(suit: int, lo: int, hi: int, f: int) -> bool:
    """Whether the run of ``suit`` over positions ``lo..hi`` has face ``f``'s place (an ace at
    either end)."""
    if f // NUM_RANKS != suit:
        return False
    q = f % NUM_RANKS
    return lo <= q <= hi or (q == 0 and hi == ACE_HIGH_POS)


def _natural_playable(m: TableMeld, k: int, hand: list[int]) -> bool:
    """Whether the hand holds a natural card that meld ``m`` would take in place of a
    wild card laid off into slot ``k`` (52: a set, or a run's low end; 53: a run's high end)."""
    if not m.is_run:
        return any(hand[f] for f in m.accepts.values() if f != JOKER)
    return bool(hand[run_face(m.key, m.lo - 1 if k == NUM_NATURAL else m.hi + 1)])


_FACES = range(53)  # compress(_FACES, hand): the faces held, ascending


def _legal_knock_play(s: GameState) -> list[int]:
    """Play phase of a knocking game (gin): discard, or discard and knock."""
    p = s.current
    hand = s.hands[p]
    forb = s.forbidden
    L = s.layout
    faces = list(compress(_FACES, hand))
    cand = [f for f in faces if f != forb] if forb >= 0 else faces
    b = L.DISCARD
    acts = [b + f for f in cand]
    limit = s.knock_limit
    vals = s.values
    rules = s.rules
    if rules.decks == 1:  # one of each face
        total = sum(map(vals.__getitem__, faces))
    else:
        total = sum(vals[f] * hand[f] for f in faces)
    exact = rules.ace_high or rules.ace_penalty != 1  # the bound assumes aces low, worth 1
    # Lower bound first: cards that sit in no possible meld are deadwood for sure.
    cover, drop = (0, 0) if exact else _knock_cover(s, p, cand)
    if exact or total - drop - cover <= limit:
        after = deadwood_after_discard(hand, vals, rules.ace_high)
        acts += [L.KNOCK + f for f in cand if after[f] <= limit]
    if (
        rules.big_gin_bonus
        and (exact or total - cover <= 0)
        and deadwood(hand, vals, rules.ace_high) == 0
    ):
        acts.append(L.KNOCK + NUM_NATURAL)
    return acts


def _knock_cover(s: GameState, p: int, cand: list[int]) -> tuple[int, int]:
    """``(cover, drop)`` for the knock bound of player ``p`` (aces low, worth 1): no
    discard of ``cand`` leaves less deadwood than the hand's value minus ``cover`` and
    ``drop``. ``cover``: the value of the cards that lie in some set or run of 3+;
    ``drop``: the most a discard outside those cards takes away (a covered discard
    takes its value off ``cover`` too). With several decks (copies): ``cover`` counts
    a card for its sets and its runs, and ``drop`` is the highest discard."""
    smask = s.smask[p]
    vals = s.values
    if s.rules.decks > 1:
        cover = 0
        for r, rm in enumerate(s.rmask[p]):
            if rm.bit_count() >= 3:
                cover += vals[r] * rm.bit_count()
        for m in smask:
            cover += _RANK_VALUES[_RUN_COVER[m]]
        return cover, max(vals[f] for f in cand)
    a, b, c, d = smask
    three = three_suit_ranks(a, b, c, d)
    rc, rv, tv = _RUN_COVER, _RANK_VALUES, _TOP_VALUE
    ca, cb, cc, cd = rc[a] | a & three, rc[b] | b & three, rc[c] | c & three, rc[d] | d & three
    cover = rv[ca] + rv[cb] + rv[cc] + rv[cd]
    # the highest card outside the covered ones among the candidates (all held cards but
    # the forbidden one): per suit, the table of a mask's highest value (unrolled: hot path)
    fa, fb, fc, fd = a & ~ca, b & ~cb, c & ~cc, d & ~cd
    forb = s.forbidden
    if 0 <= forb < JOKER:
        bit = ~(1 << forb % NUM_RANKS)
        su = forb // NUM_RANKS
        if su == 0:
            fa &= bit
        elif su == 1:
            fb &= bit
        elif su == 2:
            fc &= bit
        else:
            fd &= bit
    drop = max(tv[fa], tv[fb], tv[fc], tv[fd])
    if s.hands[p][JOKER] > (forb == JOKER):  # a joker among the candidates
        drop = max(drop, vals[JOKER])
    return cover, drop


def _run_cover(mask: int) -> int:
    """The ranks of ``mask`` lying in a run of 3+ (aces low)."""
    below, above = mask << 1, mask >> 1  # bit r: rank r - 1 held; rank r + 1 held
    return mask & (below & (mask << 2) | below & above | above & (mask >> 2))


_RUN_COVER = [_run_cover(m) for m in range(1 << NUM_RANKS)]
# value (ace 1, faces 10) of the ranks of a suit mask
_RANK_VALUES = [
    sum(min(r + 1, 10) for r in range(NUM_RANKS) if m >> r & 1) for m in range(1 << NUM_RANKS)
]
# value of the highest rank of a suit mask (0 for none)
_TOP_VALUE = [min(m.bit_length(), 10) for m in range(1 << NUM_RANKS)]


# ------------------------------------------------------------ Indian rummy
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
        return _apply_discard_knock(s, p, a)
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
    a, b, c, d = s.smask[p]
    if not run3_bits(a | b << 13 | c << 26 | d << 39, s.cat.ace_high):
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


# ------------------------------------------------------------- transitions
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


def _previous_active(s: GameState, p: int) -> int:
    """The seat in play before ``p`` in turn order."""
    q = p
    while (nxt := _next_active(s, q)) != p:
        q = nxt
    return q


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


# ------------------------------------------------------------------- Rummikub
def _legal_tiles(s: GameState) -> list[int]:
    """Rummikub's turn: before any tile is played, draw (or pass, the pool empty); a tile
    of the rack is playable when some commit can hold it with the tiles played (D-18: the
    exact-cover search of :mod:`rummy_env.cover`); commit when the tiles played can lie
    down: with the table's (D-17), or alone and worth ``open_points`` (the initial meld,
    D-19)."""
    L = s.layout
    p = s.current
    played = s.played_tiles
    started = any(played)
    opened = s.opened[p]
    down = list(map(add, s.tiles, played)) if opened else played
    t = s.last_tile
    commit, ok = tile_choices(
        down, s.hands[p], opened, s.rules.open_points, started, t if t >= 0 and played[t] else None
    )
    acts = [] if started else [L.DRAW_STOCK if s.stock else L.PASS]
    acts += [L.PLAY_TILE + f for f in sorted(ok)]
    if commit:
        acts.append(L.COMMIT)
    return acts  # (ascending: draw or pass, the tiles, commit)


def tile_choices(
    down: list[int],
    rack: list[int],
    opened: bool,
    need: int,
    started: bool,
    last: int | None = None,
    previous: Iterable[int] | None = None,
) -> tuple[bool, set[int]]:
    """Rummikub's mask as count vectors: ``(Commit legal, the playable faces)`` for a
    player holding ``rack`` with ``down`` on the table: the table's tiles and those played
    this turn once he has ``opened``, before it the tiles played alone (the initial meld:
    worth ``need``). ``started``: a tile is played this turn; ``last``: the tile played
    just now and ``previous`` the playable faces before it, if known (the answer narrows:
    :func:`rummy_env.cover.playable_after`). Agents planning a turn ask it too."""
    if not opened:
        values = cover.playable_values(down, rack, check=False)  # (a rack's tiles only)
        ok = {f for f, v in values.items() if v >= need}
        return started and (cover.best_cover(down) or 0) >= need, ok
    if not started:  # the table as it stands: no commit before a tile is played
        return False, cover.playable(down, rack)
    # the one search also says whether the table may be left as it stands (Commit)
    return cover.cover_and_playable(down, rack, last, previous)


def _apply_tiles(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    if a == L.DRAW_STOCK:
        s._add(p, s.stock.pop())
        s.passes = 0
        return _end_turn(s, p)
    if a == L.PASS:  # the pool is empty: the round ends when everyone passed in a row
        s.passes += 1
        if s.passes >= sum(s.active):  # ties go to the nearest to the player to play next
            s.current = _next_active(s, p)
            return _end_stuck_round(s, "all_passed")
        return _end_turn(s, p)
    if a < L.COMMIT:  # PlayTile
        f = a - L.PLAY_TILE
        s._remove(p, f)
        s.played_tiles[f] += 1
        s.last_tile = f
        s.phase = _PLAY
        return False
    for f, c in enumerate(s.played_tiles):  # Commit
        s.tiles[f] += c
    s.played_tiles = [0] * NUM_FACES
    s.last_tile = -1
    s.opened[p] = True
    s.turn_played = True
    s.passes = 0
    if s.nhand[p] == 0:
        return _end_round(s, p, "went_out")
    return _end_turn(s, p)


def _apply_upcard(s: GameState, p: int, a: int) -> bool:
    """gin's up-card: take it (a draw) or pass (to the dealer, then the non-dealer draws
    from the stock)."""
    if a != s.layout.PASS:
        return _apply_draw(s, p, a)
    if s.upcard_stage == 0:
        s.current = s.dealer
        s.upcard_stage = 1
    else:
        s.current = _next_active(s, s.dealer)
        s.upcard_stage = 2  # the non-dealer must draw from the stock
        s.phase = _DRAW
    return False


def _apply_play(s: GameState, p: int, a: int) -> bool:
    """Play phase: a meld, lay-off or joker swap (the turn goes on), or a discard or knock."""
    L = s.layout
    if a >= L.DISCARD:
        return _apply_discard_knock(s, p, a)
    rules = s.rules
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
        if rules.scoring == "rummy500":  # lay-off credit goes to the player laying off
            s.credit[p] += _meld_value(new, rules) - _meld_value(m, rules)
    else:
        mi, f = divmod(a - L.SWAP, NUM_NATURAL)
        m = s.table[mi]
        s._remove(p, f)
        new, taken = m.swapped(f, s.cat)
        s._add(p, taken)
        s.known[p][taken] += 1
        s.table[mi] = new
        s.turn_played = True
        if rules.scoring == "rummy500":
            s.credit[p] += _meld_value(new, rules) - _meld_value(m, rules)
    s.must_use = -1
    if s.nhand[p] == 0:
        return _end_round(s, p, "went_out")
    return False


def _apply_after_game(s: GameState, p: int, a: int) -> bool:
    raise IllegalActionError(_illegal_message(s, a))


class PhaseRules(NamedTuple):
    """How one phase plays: its legal actions, how an action applies (``(state, acting
    seat, action) -> whether the round ended``), and which seat acts. A variant with a
    phase of its own (an out-of-turn buy, a declaration) adds a row to the table."""

    legal: Callable[[GameState], list[int]]
    apply: Callable[[GameState, int, int], bool]
    actor: Callable[[GameState], int] = operator.attrgetter("current")


@cache
def phase_table(rules: RuleSet) -> tuple[PhaseRules, ...]:
    """The :class:`PhaseRules` of each :class:`Phase` under ``rules`` (indexed by phase)."""
    if rules.scoring == "indian":
        draw = PhaseRules(_legal_indian_draw, _apply_indian_draw)
        play = PhaseRules(_legal_declare_play, _apply_declare_play)
    elif rules.scoring == "rummikub":  # a turn: draw or pass, or play tiles and commit
        draw = play = PhaseRules(_legal_tiles, _apply_tiles)
    else:
        draw = PhaseRules(_legal_draw, _apply_contract_draw if rules.buy_limit else _apply_draw)
        legal = _legal_play if rules.meld_during_play else _legal_knock_play
        play = PhaseRules(legal, _apply_play)
    table = {
        Phase.DRAW: draw,
        Phase.PLAY: play,
        Phase.GAME_OVER: PhaseRules(_nothing_legal, _apply_after_game),
        Phase.UPCARD: PhaseRules(_legal_upcard, _apply_upcard),
        # contract rummy: the asked seat decides out of turn
        Phase.BUY: PhaseRules(_legal_buy, _apply_buy, operator.attrgetter("asked")),
    }
    return tuple(table[ph] for ph in sorted(table))


def _meld_value(m: TableMeld, rules: RuleSet) -> int:
    """Value of a table meld (rummy500 credit, rummy51 opening count)."""
    if m.is_run:
        return run_value(m.lo, m.hi, m.wild, rules.ace_meld_value, rules.joker_meld_value)
    return set_value(
        m.key, len(m.cards) - m.n_wild, m.n_wild, rules.ace_meld_value, rules.joker_meld_value
    )


def _apply_discard_knock(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    rules = s.rules
    if a < L.KNOCK:  # discard
        f = a - L.DISCARD
        s._remove(p, f)
        s.discard.append(f)
        if s.nhand[p] == 0:
            return _end_round(s, p, "went_out")
        if rules.wall and len(s.stock) <= rules.wall:
            return _end_stuck_round(s, "wall")
        return _end_turn(s, p)
    # knock
    f = a - L.KNOCK
    if f < NUM_NATURAL:
        s._remove(p, f)
        s.discard.append(f)
    q = _next_active(s, p)
    res = gin_showdown(
        s.hands[p],
        s.hands[q],
        s.values,
        s.knock_limit,
        rules.gin_bonus,
        rules.undercut_bonus,
        rules.big_gin_bonus,
        rules.ace_high,
    )
    winner = p if res["points"] > 0 else q
    return _end_round(s, winner, res["kind"], abs(res["points"]), res)


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
    if rules.scoring == "rummy500" or not s.opened[p]:
        m = s.table[-1]
        v = _meld_value(m, rules)
        if rules.scoring == "rummy500":
            s.credit[p] += v
        if not s.opened[p]:
            s.turn_value += v
            s.turn_pure = s.turn_pure or (m.is_run and not m.n_wild)
            if rules.contract:  # down with the whole contract
                s.opened[p] = _contract_left(s, p) == (0, 0)
            elif s.turn_value >= rules.open_points and (s.turn_pure or not rules.open_pure_run):
                s.opened[p] = True


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
    if s.stock or rules.scoring == "rummikub":  # (Rummikub: an empty pool, players pass)
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
    if s.rules.scoring in ("gin", "rummy500"):
        return _end_round(s, None, reason)
    count = _indian_count if s.rules.scoring == "indian" else GameState.hand_value
    best, bv = s.current, count(s, s.current)
    q = _next_active(s, s.current)
    while q != s.current:
        v = count(s, q)
        if v < bv:
            best, bv = q, v
        q = _next_active(s, q)
    return _end_round(s, best, reason)


# ----------------------------------------------------------------- scoring
# One function per RuleSet.scoring: (state, winner, rummy, hand values, knock points) ->
# (scores added to the totals, rewards), and one per way a match ends.


def _score_gin(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    n = s.rules.num_players
    scores, rewards = [0] * n, [0] * n
    if winner is not None:  # None: a void hand (the wall)
        scores[winner] = points
        s.hands_won[winner] += 1
        rewards = [points if p == winner else -points for p in range(n)]
    return scores, rewards


def _score_rummy500(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    scores = [s.credit[p] - vals[p] if s.active[p] else 0 for p in range(s.rules.num_players)]
    return scores, list(scores)


def _score_standard(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    rules = s.rules
    if rules.unopened_penalty:
        vals = [
            rules.unopened_penalty if s.active[p] and not s.opened[p] else v
            for p, v in enumerate(vals)
        ]
    vals = [0 if p == winner else v for p, v in enumerate(vals)]
    return list(vals), [-v for v in vals]


def _score_winner_takes_all(
    s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int
):
    mult = s.rules.rummy_multiplier if rummy else 1
    vals = [0 if p == winner else v for p, v in enumerate(vals)]
    scores = [0] * s.rules.num_players
    rewards = [-v * mult for v in vals]
    scores[winner] = rewards[winner] = sum(vals) * mult
    return scores, rewards


def _score_indian(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    """D-15: each loser pays his count (or drop penalty) to the winner; the totals hold
    the counts as penalties."""
    n = s.rules.num_players
    scores = [_indian_count(s, p) if s.active[p] and p != winner else 0 for p in range(n)]
    rewards = [-v for v in scores]
    if winner is not None:
        rewards[winner] = sum(scores)
    return scores, rewards


def _score_rummikub(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    """Rummikub: each other player pays the winner his rack total less the winner's (the
    winner's is 0 when he went out; a joker 30); zero-sum, the winner positive."""
    n = s.rules.num_players
    scores = [0] * n
    for q in range(n):
        if q != winner and s.active[q]:
            scores[q] = vals[winner] - vals[q]
    scores[winner] = -sum(scores)
    return scores, list(scores)


SCORING = {
    "rummikub": _score_rummikub,
    "indian": _score_indian,
    "gin": _score_gin,
    "rummy500": _score_rummy500,
    "standard": _score_standard,
    "winner_takes_all": _score_winner_takes_all,
}
"""RuleSet.scoring -> the round's scoring function (see the comment above)."""


def _match_by_elimination(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Standard scoring with elimination: a total past the limit leaves; the last one in wins."""
    for p in range(s.rules.num_players):
        if s.active[p] and s.totals[p] > s.rules.penalty_limit:
            s.active[p] = False
            eliminated.append(p)
    left = [p for p in range(s.rules.num_players) if s.active[p]]
    if len(left) <= 1:
        s.match_winner = left[0] if left else winner
    return len(left) <= 1


def _match_by_penalty_limit(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Standard scoring (D-10): over when a total reaches the limit; the lowest total wins."""
    over = max(s.totals) >= s.rules.penalty_limit
    if over:
        low = min(s.totals)
        s.match_winner = winner if s.totals[winner] == low else s.totals.index(low)
    return over


def _match_by_target(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Points scoring: over when a total reaches the target; the highest total wins."""
    top = max(s.totals)
    over = top >= s.rules.target
    if over:
        s.match_winner = (
            winner if winner is not None and s.totals[winner] == top else s.totals.index(top)
        )
    return over


def _match_by_deals(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Contract rummy: over after the seventh deal; the lowest total wins."""
    if deal_number(s) < 7:
        return False
    low = min(s.totals)
    s.match_winner = winner if s.totals[winner] == low else s.totals.index(low)
    return True


def _match_by_rounds(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Rummikub: one round per player (each starts one); the highest total wins."""
    if s.round + 1 < s.rules.num_players:
        return False
    top = max(s.totals)
    s.match_winner = winner if s.totals[winner] == top else s.totals.index(top)
    return True


def _match_end(rules: RuleSet):
    if rules.contract:
        return _match_by_deals
    if rules.scoring == "rummikub":
        return _match_by_rounds
    if rules.scoring in PENALTY_SCORING:
        return _match_by_elimination if rules.elimination else _match_by_penalty_limit
    return _match_by_target


#: the scorings whose totals are penalties (lowest best; a match by elimination or limit)
PENALTY_SCORING = ("standard", "indian")


def _gin_bonuses(s: GameState, rewards: list[int]) -> list[int]:
    """Gin match end: the game bonus to the winner, the line bonus per hand won to both (zero-sum)."""
    n = s.rules.num_players
    bonus = [s.rules.line_bonus * s.hands_won[p] for p in range(n)]
    bonus[s.match_winner] += s.rules.game_bonus
    for p in range(n):
        rewards[p] += bonus[p] - sum(bonus[q] for q in range(n) if q != p)
    return bonus


def _end_round(
    s: GameState, winner: int | None, reason: str, points: int = 0, showdown: dict | None = None
) -> bool:
    """Score the round that just ended; deal the next one if the match goes on.

    ``winner`` is None for a void hand (gin wall); ``points`` and ``showdown``
    are the knock result in a knocking game.
    """
    rules = s.rules
    n = rules.num_players
    rummy = reason == "went_out" and winner is not None and not s.played[winner]
    vals = [s.hand_value(p) if s.active[p] else 0 for p in range(n)]
    scores, rewards = SCORING[rules.scoring](s, winner, rummy, vals, points)
    for p in range(n):
        s.totals[p] += scores[p]
    s.round_scores = scores
    s.winner = winner
    s.reason = reason
    eliminated: list[int] = []
    bonus = None
    if rules.match:
        over = _match_end(rules)(s, winner, eliminated)
        if over and rules.scoring == "gin":
            bonus = _gin_bonuses(s, rewards)
    else:
        over = True
        s.match_winner = winner
    s.last_result = {
        "round": s.round,
        "round_scores": list(scores),
        "totals": list(s.totals),
        "winner": winner,
        "reason": reason,
        "rummy": rummy,
        "rewards": rewards,
        "eliminated": eliminated,
        "match_over": over,
        "match_winner": s.match_winner if over else None,
    }
    if showdown is not None:
        s.last_result["showdown"] = showdown
    if bonus is not None:
        s.last_result["bonuses"] = bonus
    if over:
        s.phase = Phase.GAME_OVER
        s._legal = []
    else:
        s.round += 1
        s.dropped = [-1] * n  # (the deal passes to the next seat in the match)
        _start_round(s, _next_active(s, s.dealer))
    return True


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


# --------------------------------------------------------------- restoring
#: the fields of ``GameState.to_dict()``; :func:`from_dict` requires the first seven
STATE_KEYS = (
    "hands",
    "stock",
    "discard",
    "table",
    "current_player",
    "phase",
    "dealer",
    "rules",
    "forbidden",
    "turn_played",
    "played",
    "known",
    "rebuilds",
    "seed",
    "round",
    "round_scores",
    "totals",
    "active",
    "winner",
    "match_winner",
    "reason",
    "step_count",
    "knock_limit",
    "upcard_stage",
    "hands_won",
    "must_use",
    "opened",
    "turn_value",
    "turn_pure",
    "credit",
    "turns",
    "cut",
    "dropped",
    "drew",
    "buys",
    "asked",
    "played_tiles",
    "passes",
)
_REQUIRED = STATE_KEYS[:7]
_MELD_KEYS = ("owner", "kind", "cards")


def _range_text(lo: int | None, hi: int | None) -> str:
    if lo is None:
        return "an integer" if hi is None else f"an integer <= {hi}"
    if hi is None:
        return f"an integer >= {lo}"
    return f"{lo}" if lo == hi else f"an integer in {lo}..{hi}"


class _Saved:
    """Reads the fields of a saved state ``d`` for ``n`` seats, each checked for type
    and range: a ValueError names the field and what is allowed."""

    def __init__(self, d: dict[str, Any], n: int):
        self.d = d
        self.n = n

    @staticmethod
    def error(key: str, value: Any, allowed: str) -> ValueError:
        return ValueError(f"saved state: {key}={_short(value)} is not allowed (allowed: {allowed})")

    def integer(self, key: str, v: Any, lo: int | None = None, hi: int | None = None) -> int:
        try:
            if isinstance(v, bool):
                raise TypeError
            i = operator.index(v)
        except TypeError:
            raise self.error(key, v, _range_text(lo, hi)) from None
        if (lo is not None and i < lo) or (hi is not None and i > hi):
            raise self.error(key, v, _range_text(lo, hi))
        return i

    def flag(self, key: str, v: Any) -> bool:
        if not isinstance(v, bool):
            raise self.error(key, v, "True or False")
        return v

    def seat(self, key: str, v: Any, none: bool = False) -> int | None:
        if none and v is None:
            return None
        return self.integer(key, v, 0, self.n - 1)

    def card(self, key: str, v: Any) -> int:
        """A face (-1 for None)."""
        return -1 if v is None else _parse(v, f"saved state: {key} (or None)")

    def field(self, key: str, default: Any, read: Callable[[str, Any], Any]) -> Any:
        return read(key, self.d.get(key, default))

    def per_seat(self, key: str, default: Any, read: Callable[[str, Any], Any]) -> list:
        v = self.d.get(key, default)
        if not isinstance(v, (list, tuple)) or len(v) != self.n:
            raise self.error(key, v, f"a list of {self.n} values, one per seat")
        return [read(f"{key}[{p}]", x) for p, x in enumerate(v)]

    def cards(self, key: str, v: Any) -> list[int]:
        return _card_list(v, f"saved state: {key}")


def from_dict(d: dict[str, Any], rules: RuleSet, *, check: bool = True) -> GameState:
    """Restore a state written by :meth:`GameState.to_dict`.

    Every field is checked for its type and range (a missing optional field takes
    its start-of-round value). With ``check`` (the default) the state must also be
    one that could occur under ``rules`` (:func:`_check_state`): exactly the pack's
    cards across hands, stock, discard pile and table, valid table melds, an active
    player to act who holds cards, per-turn fields that fit the phase, and a player
    mid-way through his opening holding cards that can complete it.
    ``check=False`` skips that (for partial states the caller completes, as
    :mod:`rummy_env.determinize` does).

    Raises:
        ValueError: naming the field and what is allowed.
    """
    if not isinstance(d, dict):
        raise ValueError(f"a saved state must be a dict (GameState.to_dict()), got {_short(d)}")
    unknown = [k for k in d if k not in STATE_KEYS]
    if unknown:
        raise ValueError(
            f"saved state: unknown field(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(STATE_KEYS)})"
        )
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise ValueError(
            f"saved state: missing field(s) {', '.join(map(repr, missing))} "
            f"(required: {', '.join(_REQUIRED)})"
        )
    saved = d.get("rules")
    if saved is not None:
        mine = {k: getattr(rules, k) for k in rules.__dataclass_fields__}
        if not isinstance(saved, dict) or set(saved) - set(mine):
            raise _Saved.error("rules", saved, "a dict of RuleSet fields, as to_dict() writes")
        diff = sorted(  # (a tuple field comes back from JSON as a list)
            k
            for k in saved
            if (tuple(saved[k]) if isinstance(saved[k], list) else saved[k]) != mine[k]
        )
        if diff:
            raise ValueError(
                f"saved state was made with other rules: {', '.join(diff)} differ "
                f"(allowed: the rules of this env, e.g. {diff[0]}={mine[diff[0]]!r})"
            )
    n = rules.num_players
    f = _Saved(d, n)
    s = _blank(rules)
    for p, h in enumerate(f.per_seat("hands", None, f.cards)):
        s.add_cards(p, h)
    s.stock = f.cards("stock", d["stock"])[::-1]
    s.discard = f.cards("discard", d["discard"])
    if rules.scoring == "rummikub":
        s.table = []
        s.tiles = _read_tiles(f, n)
        s.played_tiles = face_counts(f.field("played_tiles", [], f.cards))
        s.passes = f.integer("passes", d.get("passes", 0), 0, n - 1)
    else:
        s.table = _read_table(f, s)
    phases = [
        ph.name.lower()
        for ph in Phase
        if (ph != Phase.UPCARD or rules.upcard_offer) and (ph != Phase.BUY or rules.buy_limit)
    ]
    phase = d["phase"]
    if not isinstance(phase, str) or phase.lower() not in phases:
        raise f.error("phase", phase, ", ".join(map(repr, phases)))
    s.phase = Phase[phase.upper()]
    s.current = f.seat("current_player", d["current_player"])
    s.dealer = f.seat("dealer", d["dealer"])
    s.forbidden = f.field("forbidden", None, f.card)
    s.turn_played = f.field("turn_played", False, f.flag)
    s.played = f.per_seat("played", [False] * n, f.flag)
    for p, k in enumerate(f.per_seat("known", [[]] * n, f.cards)):
        for c in k:
            s.known[p][c] += 1
    s.rebuilds = f.integer("rebuilds", d.get("rebuilds", 0), 0, rules.max_stock_rebuilds)
    s.seed = f.field("seed", 0, f.integer)
    s.round = f.integer("round", d.get("round", 0), 0, None if rules.match else 0)
    s.round_scores = f.per_seat("round_scores", [0] * n, f.integer)
    s.totals = f.per_seat("totals", [0] * n, f.integer)
    s.active = f.per_seat("active", [True] * n, f.flag)
    s.winner = f.seat("winner", d.get("winner"), none=True)
    s.match_winner = f.seat("match_winner", d.get("match_winner"), none=True)
    s.reason = d.get("reason")
    if s.reason is not None and not isinstance(s.reason, str):
        raise f.error("reason", s.reason, "None or a string (why the round ended)")
    s.step_count = f.integer("step_count", d.get("step_count", 0), 0)
    s.knock_limit = f.integer("knock_limit", d.get("knock_limit", rules.knock_limit), 0)
    s.upcard_stage = f.integer("upcard_stage", d.get("upcard_stage", -1), -1, 2)
    s.hands_won = f.per_seat("hands_won", [0] * n, lambda k, v: f.integer(k, v, 0))
    s.must_use = f.field("must_use", None, f.card)
    s.opened = f.per_seat("opened", [_open_from_start(rules)] * n, f.flag)
    s.turn_value = f.integer("turn_value", d.get("turn_value", 0), 0)
    s.turn_pure = f.field("turn_pure", False, f.flag)
    s.credit = f.per_seat("credit", [0] * n, f.integer)
    s.turns = f.integer("turns", d.get("turns", 0), 0)
    cut = f.field("cut", None, f.card)
    if rules.wild_rank == "cut":
        if cut < 0:
            raise f.error("cut", d.get("cut"), "the round's cut card (wild_rank='cut')")
        _set_cut(s, cut)
    elif cut >= 0:
        raise f.error("cut", d.get("cut"), "None: these rules have no cut card (wild_rank='none')")
    s.dropped = f.per_seat(
        "dropped", [None] * n, lambda k, v: -1 if v is None else f.integer(k, v, 0)
    )
    s.drew = f.per_seat("drew", [False] * n, f.flag)
    s.buys = f.per_seat(
        "buys", [rules.buy_limit] * n, lambda k, v: f.integer(k, v, 0, rules.buy_limit)
    )
    s.asked = f.field("asked", None, lambda k, v: -1 if v is None else f.seat(k, v))
    if check:
        _check_state(s)
    return s


def _read_tiles(f: _Saved, n: int) -> list[int]:
    """Rummikub: the table's tiles from saved state data ([] or one entry without owner)."""
    table = f.d["table"]
    shape = "[] or [{'owner': None, 'kind': None, 'cards': [...]}] (the table's tiles)"
    if not isinstance(table, (list, tuple)) or len(table) > 1:
        raise f.error("table", table, shape)
    if not table:
        return [0] * NUM_FACES
    m = table[0]
    if not isinstance(m, dict) or set(m) - set(_MELD_KEYS) or "cards" not in m:
        raise f.error("table[0]", m, shape)
    if m.get("owner") is not None or m.get("kind") is not None:
        raise f.error("table[0]", m, "owner None and kind None: " + shape)
    tiles = face_counts(f.cards("table[0]['cards']", m["cards"]))
    if not cover.can_cover(tiles):
        raise f.error(
            "table[0]['cards']",
            m["cards"],
            "tiles that split into valid melds (groups of 3-4 of one number in different "
            "colours, runs of 3+ of one colour, 1 low only; D-3 for jokers)",
        )
    return tiles


def _read_table(f: _Saved, s: GameState) -> list[TableMeld]:
    """The table melds of saved state data, each classified under the rules."""
    rules = s.rules
    table = f.d["table"]
    if not isinstance(table, (list, tuple)) or len(table) > rules.max_melds:
        raise f.error(
            "table",
            table,
            f"a list of at most {rules.max_melds} melds (dicts with "
            f"{', '.join(map(repr, _MELD_KEYS))})"
            + ("" if rules.meld_during_play else ": empty, nobody melds during play"),
        )
    out = []
    for i, m in enumerate(table):
        key = f"table[{i}]"
        if (
            not isinstance(m, dict)
            or set(m) - set(_MELD_KEYS)
            or "owner" not in m
            or "cards" not in m
        ):
            raise f.error(key, m, "a dict {'owner': seat, 'kind': 'set' or 'run', 'cards': [...]}")
        owner = f.seat(f"{key}['owner']", m["owner"])
        kind = m.get("kind")
        if kind not in (None, "set", "run"):
            raise f.error(f"{key}['kind']", kind, "'set', 'run' or None")
        cards = f.cards(f"{key}['cards']", m["cards"])
        desc, wild_at = classify_wild(cards, s.cat, rules.fixed_wild_rank, kind)
        if desc is None:
            raise f.error(
                f"{key}['cards']",
                m["cards"],
                (
                    f"a valid {kind or 'meld'} under these rules: {rules.meld_text}, JK where a "
                    f"wild card stands (ace={rules.ace!r}, jokers={rules.jokers}, "
                    f"wilds_at_most_naturals={rules.wilds_at_most_naturals}, "
                    f"max_wilds_per_meld={rules.max_wilds_per_meld})"
                ),
            )
        wild_cards = tuple(cards[i] for i in wild_at)
        if desc[0] == "set":
            out.append(
                TableMeld(owner, False, desc[1], 0, 0, 0, desc[2], desc[3], s.cat, wild_cards)
            )
        else:
            _, su, lo, hi = desc
            wild = sum(1 << (lo + i) for i in wild_at)
            out.append(TableMeld.run(owner, su, lo, hi, wild, s.cat, wild_cards))
    return out


def _check_state(s: GameState) -> None:
    """Raise a ValueError naming the field unless ``s`` could occur under its rules:
    the pack, the seats in play, the per-turn fields of the phase, the match
    standing (DESIGN.md invariant 1; a player to act who holds a card always has a
    legal move, invariant 2: see :func:`_lapsed_play`)."""
    rules = s.rules
    n = rules.num_players
    phase = s.phase.name.lower()
    over = s.phase == Phase.GAME_OVER

    def fail(key: str, what: str, allowed: str) -> None:
        raise ValueError(
            f"saved state: {key}{'' if what[0] == '=' else ' '}{what} (allowed: {allowed})"
        )

    pack = _pack_counts(rules)
    held = [0] * 53
    for h in s.hands:
        for c, k in enumerate(h):
            held[c] += k
    for c in s.stock + s.discard + [c for m in s.table for c in m.cards]:
        held[c] += 1
    for c in range(NUM_FACES):  # Rummikub: the table's tiles and this turn's played tiles
        held[c] += s.tiles[c] + s.played_tiles[c]
    if held != pack:
        extra = [f"{card_str(c)} x{k - pack[c]}" for c, k in enumerate(held) if k > pack[c]]
        lack = [f"{card_str(c)} x{pack[c] - k}" for c, k in enumerate(held) if k < pack[c]]
        fail(
            "hands + stock + discard + table",
            "do not hold exactly the pack: "
            + "; ".join(
                ([f"extra {', '.join(extra)}"] if extra else [])
                + ([f"missing {', '.join(lack)}"] if lack else [])
            ),
            f"each card of the pack exactly once, {_pack_text(rules)}",
        )
    for p in range(n):
        for c, k in enumerate(s.known[p]):
            if k > s.hands[p][c]:
                fail(
                    f"known[{p}]",
                    f"lists {card_str(c)} x{k} but hands[{p}] holds {s.hands[p][c]}",
                    f"cards in hands[{p}] (known cards are held by their owner)",
                )
    for key, c in (("forbidden", s.forbidden), ("must_use", s.must_use)):
        if c >= 0 and not pack[c]:
            fail(
                key, f"={card_str(c)} is not in the pack", f"None or a card of {_pack_text(rules)}"
            )
    elim = rules.match and rules.scoring in PENALTY_SCORING and rules.elimination
    if not elim and not all(s.active):
        fail(
            "active",
            f"={s.active} drops a seat",
            "every seat active: only an elimination match "
            "(match=True, scoring='standard', elimination=True) drops players",
        )
    if not any(s.active):
        fail("active", f"={s.active} has no active seat", "at least one active seat")
    if _open_from_start(rules) and not all(s.opened):
        fail("opened", f"={s.opened}", "all True: these rules have no opening (open_points=0)")
    _check_drops(s, fail)  # (before anything walks the seats in turn order)
    if rules.scoring == "rummikub":
        _check_tiles(s, fail)
    if rules.contract:
        _check_contract(s, fail)
    elif s.asked >= 0:
        fail("asked", f"={s.asked}", "None: only contract rummy asks for buys")
    if rules.scoring != "rummy500" and any(s.credit):
        fail("credit", f"={s.credit}", "zeros: credit is scored in rummy500 only")
    if rules.scoring != "gin" and any(s.hands_won):
        fail("hands_won", f"={s.hands_won}", "zeros: hands won are counted in gin only")
    if not rules.oklahoma and s.knock_limit != rules.knock_limit:
        fail(
            "knock_limit",
            f"={s.knock_limit}",
            f"{rules.knock_limit}, the rules' knock_limit "
            "(only oklahoma=True sets it from the up-card)",
        )
    if not rules.upcard_offer and s.upcard_stage != -1:
        fail("upcard_stage", f"={s.upcard_stage}", "-1: these rules have no up-card offer")
    if (s.phase == Phase.UPCARD) != (s.upcard_stage in (0, 1)):
        fail(
            "upcard_stage",
            f"={s.upcard_stage} in phase {phase!r}",
            "0 or 1 (offered to the "
            "non-dealer, then the dealer) exactly in phase 'upcard'; -1 or 2 otherwise",
        )
    if rules.scoring == "rummy500":
        _check_credit(s, fail)
    if over:
        _check_result(s, fail)
        return
    # ------------------------------------------------- a round in play
    if elim and sum(s.active) < 2:
        fail(
            "active",
            f"={s.active} leaves fewer than two players",
            "at least two active seats while the match goes on (phase 'game_over' otherwise)",
        )
    for key, p in (("current_player", s.current), ("dealer", s.dealer)):
        if not s.active[p]:
            fail(
                key,
                f"={p} is an eliminated seat",
                f"an active seat: {[q for q in range(n) if s.active[q]]}",
            )
    for p in range(n):
        # (Rummikub: the player to act may have played his whole rack, not yet committed)
        if s.active[p] and not s.nhand[p] and not (p == s.current and any(s.played_tiles)):
            fail(
                f"hands[{p}]",
                "is empty while the round is in play",
                "at least one card for an active seat: the round ends when a player has none",
            )
        if not s.active[p] and s.nhand[p]:
            fail(f"hands[{p}]", "holds cards of an eliminated seat", "no cards")
    for key in ("winner", "match_winner", "reason"):
        if getattr(s, key) is not None:
            fail(
                key, f"={getattr(s, key)!r} while the game goes on", "None until phase 'game_over'"
            )
    if any(s.round_scores):
        fail("round_scores", f"={s.round_scores} while the round is in play", "zeros until it ends")
    _check_indian(s, fail)
    _check_standing(s, fail)
    if rules.discard_pickup == "top" and not rules.contract and rules.scoring != "rummikub":
        # a turn draws one card and ends with a discard (rummy500's digging and contract
        # rummy's buys take more): no hand holds more than the deal, the player to act one
        # more between his draw and his discard; exactly that where nobody melds (gin, Indian)
        size = round_hand_size(rules, s.round)
        exact = not rules.meld_during_play
        for p in range(n):
            want = size + (p == s.current and s.phase == Phase.PLAY)
            if s.active[p] and (s.nhand[p] > want or exact and s.nhand[p] < want):
                fail(
                    f"hands[{p}]",
                    f"holds {s.nhand[p]} cards in phase {phase!r}",
                    f"{'' if exact else 'at most '}{want}: {size} dealt, one more for the player "
                    "to act between his draw and his discard"
                    + (" (nobody melds during play)" if exact else ""),
                )
    if rules.open_points and rules.scoring != "rummikub":
        owners = {m.owner for m in s.table}
        for p in range(n):
            if s.opened[p] and p not in owners:
                fail(
                    f"opened[{p}]",
                    f"=True with no meld of seat {p} on the table",
                    "False until the seat has laid its opening, whose melds stay on the table",
                )
    if rules.max_turns and s.turns >= rules.max_turns:
        fail(
            "turns",
            f"={s.turns}",
            f"0..{rules.max_turns - 1}: the round ends at max_turns={rules.max_turns}",
        )
    for i, m in enumerate(s.table):
        if not s.active[m.owner]:
            fail(f"table[{i}]['owner']", f"={m.owner} is an eliminated seat", "an active seat")
        if not s.opened[m.owner] and (m.owner != s.current or s.phase != Phase.PLAY):
            fail(
                f"table[{i}]['owner']",
                f"={m.owner} has not opened (opened[{m.owner}]=False)",
                "the seat of a player who has opened, or the player to act in his opening turn",
            )
    if s.phase != Phase.PLAY:
        for key, v in (
            ("forbidden", s.forbidden >= 0),
            ("must_use", s.must_use >= 0),
            ("turn_played", s.turn_played),
            ("turn_value", s.turn_value),
            ("turn_pure", s.turn_pure),
        ):
            if v:
                fail(
                    key,
                    f"is set in phase {phase!r}",
                    "None, False or 0 outside phase 'play': it is reset at the end of each turn",
                )
        if (
            s.phase == Phase.DRAW
            and not s.stock
            and rules.empty_stock == "rebuild"
            and rules.scoring != "rummikub"  # (an empty pool: players pass)
        ):
            fail(
                "stock",
                "is empty in phase 'draw'",
                "at least one card: an empty stock is rebuilt, "
                "or the round ends, before a draw (empty_stock='rebuild')",
            )
    if s.upcard_stage >= 0:
        want = s.dealer if s.upcard_stage == 1 else _next_active(s, s.dealer)
        if s.current != want or (s.upcard_stage == 2 and s.phase != Phase.DRAW):
            fail(
                "upcard_stage",
                f"={s.upcard_stage} with current_player={s.current}, dealer={s.dealer}, "
                f"phase {phase!r}",
                f"current_player={want}, the {'dealer' if s.upcard_stage == 1 else 'non-dealer'}"
                + (", in phase 'draw'" if s.upcard_stage == 2 else ""),
            )
    if s.must_use >= 0:
        taken = card_str(s.must_use)
        if rules.discard_pickup_must_meld == "never":
            fail(
                "must_use",
                f"={taken}",
                "None: taken cards need not be used (discard_pickup_must_meld='never')",
            )
        if s.must_use != s.forbidden or not s.known[s.current][s.must_use]:
            fail(
                "must_use",
                f"={taken} with forbidden="
                f"{card_str(s.forbidden) if s.forbidden >= 0 else None}, known[{s.current}]="
                f"{[card_str(c) for c, k in enumerate(s.known[s.current]) for _ in range(k)]}",
                "the card the player to act took from the discard pile: the forbidden card, "
                "known to be in his hand",
            )
    if s.phase == Phase.PLAY and not s.opened[s.current]:
        mine = [m for m in s.table if m.owner == s.current]
        value = sum(_meld_value(m, rules) for m in mine)
        pure = any(m.is_run and not m.n_wild for m in mine)
        if (s.turn_value, s.turn_pure) != (value, pure):
            fail(
                "turn_value, turn_pure",
                f"={s.turn_value}, {s.turn_pure}",
                f"{value}, {pure}: the value of the melds laid this turn by the player to act, who "
                "has not opened, and whether one is a pure run",
            )
        if mine and not _opening_ok(s, s.current, (), 0, 0, False, s.forbidden):
            fail(
                f"hands[{s.current}]",
                f"={counts_str(s.hands[s.current])} cannot complete the opening begun this turn",
                "cards that can still complete it this turn, as in play (a first meld is "
                "laid only then): else the turn would end with melds down and no opening",
            )
    elif s.turn_value and _open_from_start(rules):
        fail("turn_value", f"={s.turn_value}", "0: these rules have no opening (open_points=0)")


def _check_tiles(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Rummikub: no discard pile; tiles played only in phase 'play', by the player to act
    (phase 'draw' before his first); passes only with an empty pool."""
    if s.discard:
        fail(
            "discard", f"={counts_str(face_counts(s.discard))}", "[]: Rummikub has no discard pile"
        )
    if s.phase in (Phase.DRAW, Phase.PLAY) and (s.phase == Phase.PLAY) != any(s.played_tiles):
        fail(
            "played_tiles",
            f"={counts_str(s.played_tiles)} in phase {s.phase.name.lower()!r}",
            "tiles exactly in phase 'play' (phase 'draw' before the turn's first tile)",
        )
    if s.passes and s.stock:
        fail("passes", f"={s.passes} with a pool of {len(s.stock)}", "0 while the pool has tiles")
    rules = s.rules
    n = rules.num_players
    on_table = sum(s.tiles)
    # Racks grow only by draws from the pool. Between two draws of one seat every other seat
    # had a turn, while the pool held tiles: a draw or a commit (tiles that are on the table
    # now). So n * draws <= all draws + tiles on the table + n - 1. (A crafted state may
    # hold a pool larger than the deal leaves, with smaller racks: no draw made then.)
    dealt = rules.hand_size
    draws = max(0, rules.num_cards - n * dealt - len(s.stock))
    most = dealt + (draws + on_table + n - 1) // n
    for p in range(n):
        size = s.nhand[p] + (sum(s.played_tiles) if p == s.current else 0)
        if size > most:
            fail(
                f"hands[{p}]",
                f"holds {s.nhand[p]} tiles"
                + (f" (and {size - s.nhand[p]} played this turn)" if size > s.nhand[p] else ""),
                f"at most {most}: the {dealt} dealt plus {most - dealt} drawn at most, for "
                "between two draws of a seat each other seat drew or committed tiles "
                f"({draws} drawn in all, {on_table} on the table)",
            )
    if s.phase == Phase.PLAY and not _legal_tiles(s):
        p = s.current
        fail(
            "played_tiles",
            f"={counts_str(s.played_tiles)} with hands[{p}]={counts_str(s.hands[p])}, "
            f"opened[{p}]={s.opened[p]}",
            "tiles that some commit can hold with tiles of the rack"
            + (
                " and the table's"
                if s.opened[p]
                else f": the initial meld, alone and worth {rules.open_points}"
            )
            + " (each was legal when played)",
        )


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
    rules = s.rules
    if rules.scoring != "indian" and any(s.drew):
        fail("drew", f"={s.drew}", "all False: draws are tracked in Indian rummy only")
    if s.cut >= 0 and s.rebuilds == 0 and s.stock and s.stock[0] != s.cut:
        fail(
            "cut",
            f"={card_str(s.cut)} with the stock's bottom card {card_str(s.stock[0])}",
            "the bottom card of the stock until it is drawn",
        )


def _check_credit(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Rummy 500's credit: what each seat melded and laid off this round, so never
    negative, and together the value of the table's melds."""
    for p, c in enumerate(s.credit):
        if c < 0:
            fail(
                f"credit[{p}]",
                f"={c}",
                "0 or more: the value of the cards the seat melded and laid off this round",
            )
    value = sum(_meld_value(m, s.rules) for m in s.table)
    if sum(s.credit) != value:
        fail(
            "credit",
            f"={s.credit} (sum {sum(s.credit)})",
            f"credits summing to {value}, the value of the table's melds: each card on the "
            "table is credited to the seat that melded or laid it off",
        )


def _check_result(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """The fields of a game that is over: the winners, the scores they come from."""
    rules = s.rules
    w = s.winner
    if w is not None and not s.active[w]:
        fail("winner", f"={w} is an eliminated seat", "an active seat or None")
    if not rules.match:
        if (s.totals, s.match_winner) != (s.round_scores, w):
            fail(
                "totals, match_winner",
                f"={s.totals}, {s.match_winner} with round_scores={s.round_scores}, winner={w}",
                "the round's: one round is the whole game (match=False)",
            )
    elif s.match_winner is None:
        fail("match_winner", "=None in phase 'game_over'", "the seat that won the match")
    if rules.scoring != "gin":
        return
    won = [p == w for p in range(rules.num_players)]
    if [x > 0 for x in s.round_scores] != won or any(x < 0 for x in s.round_scores):
        fail(
            "round_scores",
            f"={s.round_scores} with winner={w}",
            "the winner's points (more than 0) and 0 for the other seat; all 0 for a void "
            "hand (winner None)",
        )
    if not rules.match and s.hands_won != [int(x) for x in won]:
        fail("hands_won", f"={s.hands_won} with winner={w}", "1 for the winner, 0 otherwise")
    for p in range(rules.num_players):
        if (s.totals[p] > 0) != (s.hands_won[p] > 0) or s.totals[p] < s.round_scores[p]:
            fail(
                f"totals[{p}]",
                f"={s.totals[p]} with hands_won[{p}]={s.hands_won[p]}, "
                f"round_scores[{p}]={s.round_scores[p]}",
                "the points of the hands the seat won: more than 0 exactly when it won one, "
                "at least this round's",
            )


def _check_standing(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """The match totals of a game in play: none has ended the match yet."""
    rules = s.rules
    if not rules.match:
        if any(s.totals):
            fail("totals", f"={s.totals}", "zeros: one round, not scored yet (match=False)")
    elif rules.scoring in PENALTY_SCORING and rules.elimination:
        for p, t in enumerate(s.totals):
            if s.active[p] != (t <= rules.penalty_limit):
                fail(
                    f"totals[{p}]",
                    f"={t} with active[{p}]={s.active[p]}",
                    f"<= penalty_limit ({rules.penalty_limit}) exactly for the active seats",
                )
    elif rules.scoring == "rummikub":  # one round per player, whatever the totals
        if s.round >= rules.num_players:
            fail(
                "round",
                f"={s.round}",
                f"0..{rules.num_players - 1}: a Rummikub match is one round per player",
            )
    elif not rules.contract:  # (contract rummy: the match is seven deals)
        key = "penalty_limit" if rules.scoring in PENALTY_SCORING else "target"
        limit = getattr(rules, key)
        if max(s.totals) >= limit:
            fail("totals", f"={s.totals}", f"all below {key}={limit} while the match goes on")
