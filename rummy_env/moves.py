"""Move types and the action layout (Move <-> int).

One flat ``Discrete(n)`` action space per rule set, the same for every seat.
Ids are laid out in blocks, in this order (``M`` = ``rules.max_melds``, the
most melds that fit on the table, ``num_cards // 3``; ``C`` = the meld
catalogue of :mod:`rummy_env.melds`, 65 sets + 264 runs without wild cards
and with aces low):

| block          | size                         | id within the block                          |
|----------------|------------------------------|----------------------------------------------|
| `DrawStock`    | 1                            | -                                            |
| `DrawDiscard`  | 1, or num_cards when digging | depth (0 = the top card)                     |
| `TakePile`     | 34 in Canasta                | 0: onto the side's meld; then rank x (2 naturals, natural + joker, natural + 2) |
| `Meld`         | len(C)                       | catalogue id (sets by rank, then runs by suit)|
| `LayOff`       | M x (52 + 2 if wild cards)   | meld * width + card; joker: 52 set/low end, 53 high end |
| `SwapJoker`    | M x 52 if wild cards, else 0 | meld * 52 + natural card                     |
| `Discard`      | 52 (+1 joker if wild cards)  | card                                         |
| `Knock`        | 53 in knocking games (gin)   | card discarded; 52 = big gin (no discard)    |
| `Pass`         | 1 with the up-card offer, buying, or Rummikub | -                           |
| `EndRound`     | 1 when an empty stock ends the round (rummy500) | -                         |
| `Declare`      | 52 (+1 joker) in Indian rummy | card discarded                               |
| `Drop`         | 1 in Indian rummy with drops | -                                            |
| `Buy`          | 1 in contract rummy with buys | -                                           |
| `PlayTile`     | 53 in Rummikub               | tile (52 = a joker)                          |
| `Commit`       | 1 in Rummikub                | -                                            |

Canasta lays out its own `Meld` (per rank: naturals, jokers and 2s; 761), `LayOff`
(table slot x 13 kinds) and `TakePile` blocks, with no `DrawDiscard` or `SwapJoker`
(DESIGN.md "Canasta"): 1 + 34 + 761 + 24*13 + 53 + 1 = 1162 with 4 players.
Which of the last blocks a rule set has is its game's (``Game.blocks``,
:mod:`rummy_env.variants`). Blocks that a rule set cannot use have size 0 (no
melds, lay-offs or swaps in gin, no swaps without wild cards; Rummikub has no
discard pile, so no `DrawDiscard` or `Discard`). For basic with one deck, no jokers
and aces low: 1 + 1 + 329 + 17*52 + 0 + 52 = 1267 actions; gin: 1 + 1 + 52 + 53 + 1
= 108; indian: 1 + 1 + 53 + 53 + 1 = 109; Rummikub: 1 + 1 (Pass) + 53 + 1 = 56;
contract rummy (2 decks): 7,719, its last id `Buy`. A card id is ``suit * 13 + rank`` (:mod:`rummy_env.cards`).

Moves are small frozen dataclasses holding cards as text; ``str(move)`` is
human readable (``"meld 5H 6H 7H"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rummy_env.cards import JOKER, NUM_NATURAL, NUM_RANKS, card_str, parse_card
from rummy_env.melds import catalogue_for, classify_wild, code_faces, run_face
from rummy_env.rules import RuleSet

if TYPE_CHECKING:
    from rummy_env.engine.state import GameState


def _norm(card: str | int) -> str:
    return card_str(parse_card(card))


@dataclass(frozen=True)
class DrawStock:
    """Take the top card of the stock."""

    def __str__(self) -> str:
        return "draw stock"


@dataclass(frozen=True)
class DrawDiscard:
    """Take the discard at ``depth`` (0 = top) and every card above it."""

    depth: int = 0

    def __str__(self) -> str:
        return "draw discard" if self.depth == 0 else f"draw discard at depth {self.depth}"


@dataclass(frozen=True)
class TakePile:
    """Canasta: take the whole discard pile, melding its top card at once with ``cards``
    from the hand: ``()`` (onto the side's meld of its rank), two naturals of its rank,
    or one such natural and a wild card (RULES.md 4 canasta, D-23)."""

    cards: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        cards = self.cards.split() if isinstance(self.cards, str) else self.cards
        object.__setattr__(self, "cards", tuple(_norm(c) for c in cards))

    def __str__(self) -> str:
        return "take pile" + (" with " + " ".join(self.cards) if self.cards else "")


@dataclass(frozen=True)
class Meld:
    """Lay a new meld: runs in rank order, ``JK`` where a wild card stands."""

    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        cards = self.cards.split() if isinstance(self.cards, str) else self.cards
        object.__setattr__(self, "cards", tuple(_norm(c) for c in cards))

    def __str__(self) -> str:
        return "meld " + " ".join(self.cards)


@dataclass(frozen=True)
class LayOff:
    """Add ``card`` to table meld number ``meld``; ``end`` ("low"/"high") for a wild card on a run."""

    card: str
    meld: int
    end: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", _norm(self.card))
        if self.end not in (None, "low", "high"):
            raise ValueError(
                f"LayOff end={self.end!r} is not allowed (allowed: None, 'low', 'high')"
            )

    def __str__(self) -> str:
        return f"lay off {self.card} on meld {self.meld}" + (
            f" ({self.end} end)" if self.end else ""
        )


@dataclass(frozen=True)
class SwapJoker:
    """Put natural ``card`` in place of the wild card it stands for in meld ``meld``."""

    card: str
    meld: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", _norm(self.card))

    def __str__(self) -> str:
        return f"swap {self.card} for the joker in meld {self.meld}"


@dataclass(frozen=True)
class Discard:
    """Discard ``card``, ending the turn."""

    card: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", _norm(self.card))

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True)
class Knock:
    """Gin: discard ``card`` and knock (``None``: big gin, no discard)."""

    card: str | None = None

    def __post_init__(self) -> None:
        if self.card is not None:
            object.__setattr__(self, "card", _norm(self.card))

    def __str__(self) -> str:
        return f"knock discarding {self.card}" if self.card else "knock (big gin)"


@dataclass(frozen=True)
class Pass:
    """Gin: refuse the first up-card."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class EndRound:
    """Rummy 500: end the round when the stock is empty."""

    def __str__(self) -> str:
        return "end round"


@dataclass(frozen=True)
class Declare:
    """Indian rummy: discard ``card`` and show the other 13 cards in melds (at least two
    runs, one of them pure), winning the round."""

    card: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", _norm(self.card))

    def __str__(self) -> str:
        return f"declare discarding {self.card}"


@dataclass(frozen=True)
class Drop:
    """Indian rummy: leave the round instead of drawing (a first or a middle drop)."""

    def __str__(self) -> str:
        return "drop"


@dataclass(frozen=True)
class PlayTile:
    """Rummikub: put one more tile of the rack into this turn's play (``"7H"``, ``"JK"``)."""

    tile: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile", _norm(self.tile))

    def __str__(self) -> str:
        return f"play {self.tile}"


@dataclass(frozen=True)
class Commit:
    """Rummikub: end the turn with the tiles played (the table re-splits into melds)."""

    def __str__(self) -> str:
        return "commit"


@dataclass(frozen=True)
class Buy:
    """Contract rummy, out of turn: take the discard top and a penalty card from the stock
    (``Pass()`` declines)."""

    def __str__(self) -> str:
        return "buy"


Move = (
    DrawStock
    | DrawDiscard
    | TakePile
    | Meld
    | LayOff
    | SwapJoker
    | Discard
    | Knock
    | Pass
    | EndRound
    | Declare
    | Drop
    | Buy
    | PlayTile
    | Commit
)


class Layout:
    """The flat action space of one rule set: where each block of ids starts (the table above)."""

    def __init__(self, rules: RuleSet):
        from rummy_env.engine.game import game_of  # (the engine lays its states out by this)

        game = game_of(rules)
        blocks = game.blocks  # the moves the game adds to the common turn, by block
        cat = catalogue_for(rules)
        # (Canasta: its own meld block, table slots and lay-off kinds, TakePile, no swaps)
        self.max_melds = blocks.get("MELD_SLOTS", rules.max_melds)
        self.layoff_width = blocks.get("LAYOFF_WIDTH", NUM_NATURAL + (2 if rules.wilds else 0))
        self.discard_width = NUM_NATURAL + (1 if rules.wilds else 0)
        self.DRAW_STOCK = 0
        self.DRAW_DISCARD = 1
        # DrawDiscard(depth): only the top, or (digging) any depth of the pile
        pile = game.discard_pile and "TAKE_PILE" not in blocks  # (Rummikub has none)
        self.max_depth = 0 if not pile else rules.num_cards if rules.discard_pickup == "any" else 1
        self.TAKE_PILE = self.DRAW_DISCARD + self.max_depth  # Canasta: TakePile forms
        self.MELD = self.TAKE_PILE + blocks.get("TAKE_PILE", 0)
        melds = blocks.get("MELD", cat.size if rules.meld_during_play else 0)
        self.LAYOFF = self.MELD + melds
        self.SWAP = self.LAYOFF + self.max_melds * self.layoff_width
        swaps = self.max_melds * NUM_NATURAL if rules.wilds else 0
        self.DISCARD = self.SWAP + blocks.get("SWAP", swaps)
        self.KNOCK = self.DISCARD + (self.discard_width if game.discard_pile else 0)
        # gin: Knock(card) for each natural card, then Knock(None) (big gin)
        self.PASS = self.KNOCK + blocks.get("KNOCK", 0)
        # Pass: gin's up-card refused, contract rummy's buy declined, Rummikub's turn passed
        self.END_ROUND = self.PASS + blocks.get("PASS", 0)
        self.DECLARE = self.END_ROUND + (1 if rules.empty_stock == "end_round" else 0)
        # Indian rummy: Declare(card) for each card, then Drop()
        self.DROP = self.DECLARE + blocks.get("DECLARE", 0)
        self.BUY = self.DROP + blocks.get("DROP", 0)
        self.PLAY_TILE = self.BUY + blocks.get("BUY", 0)  # contract rummy: Buy()
        # Rummikub: PlayTile(tile) for each face, then Commit()
        self.COMMIT = self.PLAY_TILE + blocks.get("PLAY_TILE", 0)
        self.size = self.COMMIT + blocks.get("COMMIT", 0)


class ActionCodec:
    """Encodes moves to action ids and back for one rule set."""

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.layout = Layout(rules)
        self.cat = catalogue_for(rules)
        self.num_actions = self.layout.size
        L = self.layout
        # move type, whether the rule set has its block, and its encoder (an id where the
        # block is one action)
        blocks = (
            (DrawStock, True, L.DRAW_STOCK),
            (DrawDiscard, L.max_depth, ActionCodec._encode_draw_discard),
            (Meld, L.LAYOFF > L.MELD, ActionCodec._encode_meld),
            (LayOff, L.max_melds, ActionCodec._encode_layoff),
            (SwapJoker, L.max_melds, ActionCodec._encode_swap),
            (Discard, L.KNOCK > L.DISCARD, ActionCodec._encode_discard),
            (Knock, L.PASS > L.KNOCK, ActionCodec._encode_knock),
            (Pass, L.END_ROUND > L.PASS, L.PASS),
            (EndRound, L.DECLARE > L.END_ROUND, L.END_ROUND),
            (Declare, L.DROP > L.DECLARE, ActionCodec._encode_declare),
            (Drop, L.BUY > L.DROP, L.DROP),
            (Buy, L.PLAY_TILE > L.BUY, L.BUY),
            (PlayTile, L.COMMIT > L.PLAY_TILE, ActionCodec._encode_play_tile),
            (Commit, L.size > L.COMMIT, L.COMMIT),
        )
        #: move type -> its encoder or id, for the blocks this rule set has
        self._encoders: dict[type, Any] = {cls: enc for cls, has, enc in blocks if has}
        #: the game's own encoding of moves (Canasta's, D-20), or None
        from rummy_env.engine.game import game_of

        self._own = game_of(rules).codec

    def encode(self, move: Move, state: GameState | None = None) -> int:
        """The action id of ``move``. With ``state``, a lay-off written with a wild 2 and no
        ``end`` where that 2 would not stand at its own place is the wild lay-off (D-13:
        ``LayOff("2C", m)`` on a set of 7s is ``LayOff("JK", m)``), as ``decode`` reads
        a run with the state.

        Raises:
            ValueError: the move does not exist in this rule set's action space.
        """
        if self._own is not None:
            return self._own.encode(self, move, state)
        enc = self._encoders.get(type(move))
        if enc is None:  # a subclass of a move type, or a move this rule set lacks
            enc = next((e for cls, e in self._encoders.items() if isinstance(move, cls)), None)
            if enc is None:
                raise ValueError(
                    f"{move!r}: not a move of {self.rules.name!r} "
                    f"(allowed: {', '.join(self._move_names())})"
                )
        return enc if type(enc) is int else enc(self, move, state)

    def _move_names(self) -> list[str]:
        """The names of the move types of this rule set's action space."""
        if self._own is not None:
            return list(self._own.names)
        L = self.layout
        allowed = ["DrawStock"] + (["DrawDiscard"] if L.max_depth else [])
        if L.LAYOFF > L.MELD:
            allowed += ["Meld", "LayOff"]
        if L.DISCARD > L.SWAP:
            allowed.append("SwapJoker")
        if L.KNOCK > L.DISCARD:
            allowed.append("Discard")
        if L.PASS > L.KNOCK:
            allowed.append("Knock")
        if L.END_ROUND > L.PASS:
            allowed.append("Pass")
        if L.DECLARE > L.END_ROUND:
            allowed.append("EndRound")
        if L.DROP > L.DECLARE:
            allowed.append("Declare")
        if L.BUY > L.DROP:
            allowed.append("Drop")
        if L.PLAY_TILE > L.BUY:
            allowed.append("Buy")
        if L.size > L.COMMIT:
            allowed += ["PlayTile", "Commit"]
        return allowed

    # ------------------------------------- an encoder per move type of several ids
    def _encode_draw_discard(self, move: DrawDiscard, state: GameState | None) -> int:
        L = self.layout
        if not 0 <= move.depth < L.max_depth:
            allowed = (
                "only the top discard (depth 0)"
                if L.max_depth == 1
                else f"depth 0..{L.max_depth - 1}"
            )
            raise ValueError(f"{move}: {allowed} may be taken in {self.rules.name!r}")
        return L.DRAW_DISCARD + move.depth

    def _encode_meld(self, move: Meld, state: GameState | None) -> int:
        cards = [parse_card(c) for c in move.cards]
        d, _ = classify_wild(cards, self.cat, self.rules.fixed_wild_rank)
        if d is None:
            raise ValueError(
                f"{move}: not a valid set or run under these rules ({self.rules.meld_text}; "
                f"ace={self.rules.ace!r}, jokers={self.rules.jokers})"
            )
        if d[0] == "set":
            if (d[2], d[3]) not in self.cat.set_shapes:
                raise ValueError(
                    f"{move}: a meld lays a set of 3 or 4 cards (allowed: meld 3 or 4 of "
                    "them, then lay off the others)"
                )
            return self.layout.MELD + self.cat.set_id(d[1], d[2], d[3])
        return self.layout.MELD + self.cat.run_id(d[1], d[2], d[3])

    def _check_meld_number(self, move: LayOff | SwapJoker) -> None:
        if not 0 <= move.meld < self.layout.max_melds:
            raise ValueError(
                f"{move}: meld number out of range (allowed: 0..{self.layout.max_melds - 1})"
            )

    def _encode_swap(self, move: SwapJoker, state: GameState | None) -> int:
        L = self.layout
        self._check_meld_number(move)
        f = parse_card(move.card)
        if f == JOKER or L.SWAP == L.DISCARD:
            raise ValueError(f"{move}: a swap needs a natural card and a rule set with wild cards")
        return L.SWAP + move.meld * NUM_NATURAL + f

    def _encode_layoff(self, move: LayOff, state: GameState | None) -> int:
        L = self.layout
        self._check_meld_number(move)
        f = parse_card(move.card)
        k = f
        if f % NUM_RANKS == self.rules.fixed_wild_rank:  # a 2 laid as a wild card?
            if move.end is not None:  # at a run's end: as JK there
                k = JOKER
            elif state is not None and move.meld < len(state.table):
                m = state.table[move.meld]
                wild = [j for j in (NUM_NATURAL, NUM_NATURAL + 1) if j in m.accepts]
                if f not in m.accepts and len(wild) == 1:  # a set, or a run open at one end
                    k = wild[0]
        if k == JOKER:
            if not self.rules.wilds:
                raise ValueError(f"{move}: this rule set has no jokers")
            k = NUM_NATURAL + (1 if move.end == "high" else 0)
        return L.LAYOFF + move.meld * L.layoff_width + k

    def _discarded_face(self, move: Discard | Declare) -> int:
        """The face of the card a discard or a declaration discards."""
        f = parse_card(move.card)
        if f >= self.layout.discard_width:
            raise ValueError(f"{move}: this rule set has no jokers")
        return f

    def _encode_discard(self, move: Discard, state: GameState | None) -> int:
        return self.layout.DISCARD + self._discarded_face(move)

    def _encode_knock(self, move: Knock, state: GameState | None) -> int:
        if move.card is None:
            return self.layout.KNOCK + NUM_NATURAL
        f = parse_card(move.card)
        if f == JOKER:
            raise ValueError(f"{move}: this rule set has no jokers")
        return self.layout.KNOCK + f

    def _encode_declare(self, move: Declare, state: GameState | None) -> int:
        return self.layout.DECLARE + self._discarded_face(move)

    def _encode_play_tile(self, move: PlayTile, state: GameState | None) -> int:
        return self.layout.PLAY_TILE + parse_card(move.tile)

    def decode(self, action: int, state: GameState | None = None) -> Move:
        """The move of action id ``action``. With ``state``, a run meld shows
        ``JK`` where the player to act would use a wild card."""
        L = self.layout
        if isinstance(action, bool) or not 0 <= int(action) < L.size:
            raise ValueError(f"action {action!r} out of range (allowed: 0..{L.size - 1})")
        a = int(action)
        if self._own is not None:
            return self._own.decode(self, a, state)
        if a == L.DRAW_STOCK:
            return DrawStock()
        if a < L.MELD:
            return DrawDiscard(a - L.DRAW_DISCARD)
        if a < L.LAYOFF:
            d = self.cat.describe(a - L.MELD)
            if d[0] == "set":
                _, rank, code, w = d
                cards = code_faces(code, rank) + [JOKER] * w
            else:
                _, suit, lo, hi = d
                cards = [run_face(suit, p) for p in range(lo, hi + 1)]
                if state is not None and self.rules.wilds:
                    # show JK where the player to act would use a wild card, when he can
                    hand = state.hands[state.current]
                    missing = sum(1 for f in cards if not hand[f])
                    wild = hand[JOKER] + sum(
                        hand[f] for f in state.wild_faces if f not in cards
                    )  # a 2 of this run at its own place is natural
                    if (
                        missing
                        and missing <= wild
                        and self.cat.wild_ok(len(cards) - missing, missing)
                    ):
                        cards = [f if hand[f] else JOKER for f in cards]
            return Meld(tuple(card_str(f) for f in cards))
        if a < L.SWAP:
            mi, k = divmod(a - L.LAYOFF, L.layoff_width)
            if k < NUM_NATURAL:
                return LayOff(card_str(k), mi)
            end = "high" if k == NUM_NATURAL + 1 else None
            if state is not None and mi < len(state.table) and state.table[mi].is_run:
                end = end or "low"
            return LayOff("JK", mi, end)
        if a < L.DISCARD:
            mi, f = divmod(a - L.SWAP, NUM_NATURAL)
            return SwapJoker(card_str(f), mi)
        if a < L.KNOCK:
            return Discard(card_str(a - L.DISCARD))
        if a < L.PASS:
            f = a - L.KNOCK
            return Knock(None if f == NUM_NATURAL else card_str(f))
        if a < L.END_ROUND:
            return Pass()
        if a < L.DECLARE:
            return EndRound()
        if a < L.DROP:
            return Declare(card_str(a - L.DECLARE))
        if a < L.BUY:
            return Drop()
        if a < L.PLAY_TILE:
            return Buy()
        if a < L.COMMIT:
            return PlayTile(card_str(a - L.PLAY_TILE))
        return Commit()
