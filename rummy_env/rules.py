"""The frozen :class:`RuleSet` and the named presets.

Every rule knob of every variant is a field of one frozen dataclass; the env's
keyword arguments map onto it one to one (``rummy_env.env("basic",
jokers=2)`` is ``make_rules("basic", jokers=2)``). Fields left at ``0`` where
the docs say "by player count" are resolved in ``__post_init__`` from the
rule book (RULES.md section 4), so a ``RuleSet`` always holds concrete values.
Values are checked when the object is built; a bad value raises
``ValueError`` naming the field and the allowed values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rummy_env.cards import NUM_NATURAL

#: name -> (description, field overrides, (min players, max players))
_PRESETS: dict[str, tuple[str, dict[str, Any], tuple[int, int]]] = {
    "basic": (
        "Basic (Standard) Rummy, RULES.md 4 basic: 2-6 players, penalties, elimination at 100",
        {},
        (2, 6),
    ),
    "rummy500": (
        "Rummy 500, RULES.md 4 rummy500: 2-8 players, dig the spread discard pile, melded "
        "points minus hand, match to 500",
        {
            "ace": "low_or_high",
            "ace_penalty": 15,
            "scoring": "rummy500",
            "target": 500,
            "discard_pickup": "any",
            "discard_pickup_must_meld": "always",
            "empty_stock": "end_round",
            "ace_meld_value": 15,
        },
        (2, 8),
    ),
    "persian": (
        "Persian Rummy: Rummy 500 with 4 jokers, worth 20 in a meld and -20 in hand",
        {
            "ace": "low_or_high",
            "ace_penalty": 15,
            "scoring": "rummy500",
            "target": 500,
            "discard_pickup": "any",
            "discard_pickup_must_meld": "always",
            "empty_stock": "end_round",
            "ace_meld_value": 15,
            "jokers": 4,
            "joker_penalty": 20,
            "joker_meld_value": 20,
            "joker_swap": False,
            "joker_natural_first": True,
        },
        (2, 8),
    ),
    "rummy51": (
        "Rummy 51, RULES.md 4 rummy51: 2-4 players, 108 cards, open with 51 and a pure run",
        {
            "decks": 2,
            "jokers": 2,
            "hand_size": 14,
            "ace": "low_or_high",
            "ace_penalty": 11,
            "joker_penalty": 20,
            "max_wilds_per_meld": 1,
            "upcard": False,
            "go_out_requires_discard": True,
            "open_points": 51,
            "open_pure_run": True,
            "discard_pickup_must_meld": "always",
            "unopened_penalty": 100,
            "penalty_limit": 500,
            "elimination": False,
            "ace_meld_value": 11,
        },
        (2, 4),
    ),
    "deuces": (
        "Wild-card rummy, RULES.md 4 wild deuces: basic rummy with every 2 wild (a 2 may play as itself)",
        {"wild_deuces": True},
        (2, 6),
    ),
    "indian": (
        "Indian Rummy (points rummy), RULES.md 4 indian: 2-6 players, 13 cards from two decks "
        "with 2 jokers, a cut wild rank, declare with two runs one pure, drops, pool 101",
        {
            "decks": 2,
            "jokers": 1,
            "hand_size": 13,
            "ace": "low_or_high",
            "ace_penalty": 10,
            "joker_penalty": 0,
            "scoring": "indian",
            "meld_during_play": False,
            "wild_rank": "cut",
            "drop_penalties": (20, 40),
            "penalty_cap": 80,
            "penalty_limit": 100,
        },
        (2, 6),
    ),
    "contract": (
        "Contract Rummy, RULES.md 4 contract: 2-8 players, seven deals each with its contract "
        "of sets and runs of four, buying out of turn",
        {
            "decks": 0,
            "jokers": 1,
            "ace": "low_or_high",
            "ace_penalty": 15,
            "joker_penalty": 25,
            "low_card_penalty": 5,
            "min_run": 4,
            "set_suits_distinct": False,
            "max_set": 0,
            "joker_swap": False,
            "elimination": False,
            "contract_deal": 1,
            "buy_limit": 3,
        },
        (2, 8),
    ),
    "rummikub": (
        "Rummikub, RULES.md 4 rummikub: 2-4 players, 106 tiles (two decks with a joker each), "
        "14 each, the table one pool of tiles any turn may rearrange, an initial meld of 30",
        {
            "decks": 2,
            "jokers": 1,
            "hand_size": 14,
            "ace": "low",
            "ace_penalty": 1,
            "joker_penalty": 30,
            "scoring": "rummikub",
            "meld_during_play": False,
            "upcard": False,
            "open_points": 30,
            "joker_swap": False,
        },
        (2, 4),
    ),
    "gin": (
        "Gin Rummy, RULES.md 4 gin: 2 players, knock at 10, gin 25, undercut 25, match to 100",
        {
            "decks": 1,
            "jokers": 0,
            "hand_size": 10,
            "ace": "low",
            "ace_penalty": 1,
            "scoring": "gin",
            "meld_during_play": False,
            "knock_limit": 10,
            "upcard_offer": True,
            "wall": 2,
            "max_stock_rebuilds": 0,
        },
        (2, 2),
    ),
    "canasta": (
        "Canasta, RULES.md 4 canasta: 2-4 players (4: two partnerships), 108 cards, jokers "
        "and 2s wild, melds of one rank, canastas of seven, the frozen pile, match to 5000",
        {
            "decks": 2,
            "jokers": 2,
            "ace": "low",
            "ace_penalty": 20,
            "joker_penalty": 50,
            "scoring": "canasta",
            "max_wilds_per_meld": 3,
            "wilds_at_most_naturals": False,
            "target": 5000,
            "empty_stock": "end_round",
            "max_stock_rebuilds": 0,
            "joker_swap": False,
            "max_set": 0,
            "set_suits_distinct": False,
            "partnerships": True,
            "initial_meld": (15, 50, 90, 120),
            "canasta_bonus": (500, 300),
            "red_three_bonus": (100, 800),
            "out_bonus": (100, 200),
        },
        (2, 4),
    ),
}

#: Contract rummy: deal number -> (sets, runs) of its contract (RULES.md 4 contract)
CONTRACTS: dict[int, tuple[int, int]] = {
    1: (2, 0),
    2: (1, 1),
    3: (0, 2),
    4: (3, 0),
    5: (2, 1),
    6: (1, 2),
    7: (0, 3),
}

#: The named rule sets: preset name -> one-line description.
PRESETS: dict[str, str] = {name: desc for name, (desc, _, _) in _PRESETS.items()}

_CHOICES: dict[str, tuple[Any, ...]] = {
    "ace": ("low", "low_or_high"),
    "scoring": ("standard", "winner_takes_all", "gin", "rummy500", "indian", "rummikub", "canasta"),
    "wild_rank": ("none", "cut"),
    "discard_pickup": ("top", "any"),
    "discard_pickup_must_meld": ("never", "always", "below_top"),
    "empty_stock": ("rebuild", "end_round"),
}


#: tuple fields -> (length, what the numbers are)
_TUPLES: dict[str, tuple[int, str]] = {
    "drop_penalties": (
        2,
        "the first drop and the middle drop, e.g. (20, 40); (0, 0) = no dropping",
    ),
    "initial_meld": (4, "the minimum for side totals < 0, 0-1495, 1500-2995, >= 3000"),
    "canasta_bonus": (2, "natural and mixed canasta"),
    "red_three_bonus": (2, "one red 3, all four for one side"),
    "out_bonus": (2, "going out, going out concealed"),
}


@dataclass(frozen=True)
class RuleSet:
    """Every rule of a game of the rummy family (see RULES.md)."""

    name: str = "basic"
    """Preset this rule set derives from (sets the allowed player counts)."""
    num_players: int = 2
    """Seats at the table."""
    decks: int = 0
    """52-card decks shuffled together; 0 = by player count (1 for 2-4, 2 for 5+)."""
    jokers: int = 0
    """Jokers per deck (wild cards, RULES.md 1); 0 plays without wild cards."""
    hand_size: int = 0
    """Cards dealt to each player; 0 = by player count (RULES.md 4 basic). The pack must hold
    every deal (contract rummy's match: two more from the fifth deal) with an up-card and a
    stock card; Indian rummy deals at most 13."""
    ace: str = "low"
    """Ace placement in runs: "low" (A-2-3 only) or "low_or_high" (also Q-K-A, never K-A-2)."""
    ace_penalty: int = 1
    """Value of an ace left in hand (Parlett: 11 when Q-K-A is allowed)."""
    joker_penalty: int = 15
    """Value of a joker left in hand."""
    scoring: str = "standard"
    """"standard" (hand values are penalties, winner 0), "winner_takes_all", "gin"
    (knock scoring: the difference of deadwoods, gin and undercut bonuses) or "rummy500"
    (each player scores what he melded and laid off minus his hand) or "indian" (points
    rummy, D-15: a player wins by declaring, each loser pays his count, capped at
    ``penalty_cap``, or his drop penalty; zero-sum)."""
    rummy_multiplier: int = 2
    """winner_takes_all: factor when the winner goes out "rummy" (in one turn, nothing
    melded or laid off earlier in the round); 1 switches the bonus off."""
    penalty_limit: int = 100
    """standard scoring, match: a player whose total exceeds this is eliminated."""
    target: int = 100
    """winner_takes_all, match: the first player to reach this total wins."""
    match: bool = False
    """False: an episode is one round. True: one episode is the whole match."""
    rebuild_keeps_top: bool = True
    """Empty stock: True keeps the top discard and shuffles the rest into the stock
    (seed 000); False turns the whole pile over unshuffled and turns up its first
    card (Parlett, seed 001)."""
    max_stock_rebuilds: int = 2
    """D-8: after this many rebuilds, the next time the stock runs out the round
    ends and the lowest hand wins it."""
    go_out_requires_discard: bool = False
    """True: the last card must be discarded (melding or laying off the last card
    is not legal)."""
    wilds_at_most_naturals: bool = True
    """D-3: a meld holds at least two naturals and no more wild cards than naturals."""
    max_wilds_per_meld: int = 0
    """At most this many wild cards in one meld; 0 = no limit beyond D-3."""
    wild_deuces: bool = False
    """Every 2 is wild besides the jokers (RULES.md 4 wild deuces, D-13): a 2 at its own
    place (a set of 2s, its own suit's run through the 2) is natural, anywhere else it is
    a wild card; the engine lays a joker before a 2; a 2 left in hand costs
    ``joker_penalty``; it counts toward ``max_wilds_per_meld`` and, in an opening count, is
    worth the card it stands for (as a joker is). Games that meld during play only."""
    wild_rank: str = "none"
    """Indian rummy's cut joker: "cut" turns up the stock's top card after the deal and puts
    it at the bottom of the stock; every card of its rank (aces when it is a joker) is wild
    this round, except at its own place. "none": printed jokers are the only wild cards.
    Scoring "indian" only."""
    drop_penalties: tuple[int, int] = (0, 0)
    """Indian rummy's drop (``Drop()`` instead of drawing): what a player pays who leaves
    the round before his first draw, and after it; ``(0, 0)``: no dropping."""
    penalty_cap: int = 0
    """Indian rummy: the most a loser's count can be (80); 0 = no cap."""
    contract_deal: int = 0
    """Contract rummy (preset ``contract`` only): the deal played, 1-7, with its contract
    (:data:`CONTRACTS`: the sets and runs a player lays down together before he may lay
    off); ``match=True`` plays the deals from this one to the 7th. 0: not contract rummy."""
    buy_limit: int = 0
    """Contract rummy: buys a player may make per deal (3); 0 = no buying."""
    low_card_penalty: int = 0
    """Value of a 2-9 left in hand; 0 = its face value (contract rummy: 5)."""
    min_run: int = 3
    """Fewest cards in a run (contract rummy: 4). Games that meld during play only;
    a knocking game counts deadwood with runs of 3."""
    set_suits_distinct: bool = True
    """Whether the natural cards of a set must be of different suits (D-2). False (contract
    rummy, D-16): with several decks a set may repeat suits (``7S 7S 7H``). Games that meld
    during play only."""
    max_set: int = 4
    """Most cards in a set, wild cards included; 0 = no limit (contract rummy, D-16: a meld
    move lays a set of any size, with up to 3 wild cards). Meld moves and lay-offs hold a
    set to this."""
    max_turns: int = 500
    """A round reaching this many turns ends as when the stock runs out for good: the
    lowest hand wins (rummy500: scored as it stands; gin: void). Without it, players who
    keep taking the top discard never touch the stock and the round never ends.
    0 = no limit."""
    meld_during_play: bool = True
    """False: nobody melds during play; melds are shown only when a player knocks (gin)."""
    knock_limit: int = 0
    """Knocking: a player may discard and knock when his deadwood after the discard is at
    most this (gin: 10); 0 = no knocking."""
    oklahoma: bool = False
    """Gin, Oklahoma: the value of the first up-card sets the knock limit of the round."""
    upcard_offer: bool = False
    """Gin: the first up-card is offered to the non-dealer, then the dealer (Pass moves)."""
    wall: int = 0
    """Gin: when a discard without a knock leaves this many cards in the stock, the hand is
    void (no score); 0 = off."""
    gin_bonus: int = 25
    """Gin: bonus for knocking with no deadwood."""
    undercut_bonus: int = 25
    """Gin: bonus for the defender when the knocker's deadwood is not lower than his."""
    big_gin_bonus: int = 0
    """Gin: bonus for big gin (all 11 cards meld after the draw, knock without a discard);
    0 = big gin is not allowed (31 is the usual value)."""
    discard_pickup: str = "top"
    """"top": only the top discard may be taken; "any": any card of the spread pile together
    with every card above it (Rummy 500 digging)."""
    discard_pickup_must_meld: str = "never"
    """Whether a card taken from the discard pile must be used at once: the very next meld
    or lay-off must contain it (D-5, D-6): "never", "always", or "below_top" (only when dug
    from below the top)."""
    upcard: bool = True
    """Turn up a card to start the discard pile (rummy51: False, the pile starts empty)."""
    empty_stock: str = "rebuild"
    """An empty stock is "rebuild"-t from the discard pile (basic, rummy51) or the player
    to draw may "end_round" instead of digging (Rummy 500's EndRound move)."""
    open_points: int = 0
    """Opening (rummy51: 51): a player's first melds, laid in one turn, must be worth this
    much together; before opening he may neither lay off nor swap (D-7). 0 = no opening."""
    open_pure_run: bool = False
    """The opening must include a pure run (no wild card)."""
    ace_meld_value: int = 15
    """Value of an ace in a meld, except low in a run (A-2-3, worth 1): rummy500 15,
    rummy51 11 (opening count)."""
    joker_meld_value: int = 0
    """Value of a wild card in a meld (persian 20); 0 = the value of the card it stands for."""
    joker_swap: bool = True
    """Whether a natural card may replace the wild card standing for it (rules with jokers)."""
    joker_natural_first: bool = False
    """Persian (seed 003: a joker may not be added where the natural card it stands for is
    playable; D-12 here): a wild card may be melded or laid off only where the player holds
    no natural card that could take its place: a set takes one only if he holds no other
    card of its rank in a suit the set lacks, a run end only if he lacks that end's card
    (a run melded from the hand puts wild cards only on ranks he does not hold)."""
    unopened_penalty: int = 0
    """Flat penalty instead of the hand value for a player who never opened (rummy51 100)."""
    elimination: bool = True
    """Standard scoring, match: True: players above penalty_limit are eliminated, the last
    one left wins; False (D-10): the match ends when a total reaches penalty_limit, lowest
    total wins."""
    game_bonus: int = 100
    """Gin, match: bonus for winning the match."""
    line_bonus: int = 25
    """Gin, match: bonus per hand won, for both players, when the match ends."""
    partnerships: bool = False
    """Canasta with 4 players: seats 0 and 2 play against 1 and 3, sharing melds, red 3s
    and score (resolved to False with 2-3 players)."""
    canastas_to_go_out: int = 0
    """Canasta: canastas a side needs to go out; 0 = by player count (2 with 2 players, else 1)."""
    stock_draw: int = 0
    """Canasta: cards a ``DrawStock`` takes; 0 = by player count (2 with 2 players, else 1)."""
    initial_meld: tuple[int, int, int, int] = (0, 0, 0, 0)
    """Canasta: the initial meld minimum for a side whose total is below 0, 0-1495,
    1500-2995, 3000 or more (15, 50, 90, 120)."""
    canasta_bonus: tuple[int, int] = (0, 0)
    """Canasta: bonus per natural and per mixed canasta (500, 300)."""
    red_three_bonus: tuple[int, int] = (0, 0)
    """Canasta: bonus per red 3, and for all four with one side (100, 800)."""
    out_bonus: tuple[int, int] = (0, 0)
    """Canasta: bonus for going out, and for going out concealed (100, 200)."""

    def __post_init__(self) -> None:
        self._check_kinds()
        from rummy_env.variants import FAMILIES  # (each game checks its own fields)

        for family in reversed(FAMILIES):  # the most particular first: a 0 left is basic's
            if hasattr(family, "resolve_rules"):
                family.resolve_rules(self)
        for family in FAMILIES:
            if hasattr(family, "check_rules"):
                family.check_rules(self)

    def _check_kinds(self) -> None:
        """Every field of its type, every choice one of its values, a preset and a player
        count it allows."""
        for key, (size, what) in _TUPLES.items():
            v = getattr(self, key)
            if isinstance(v, list):
                v = tuple(v)
                object.__setattr__(self, key, v)
            if not (
                isinstance(v, tuple)
                and len(v) == size
                and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)
            ):
                raise ValueError(
                    f"{key}={v!r} is not allowed (allowed: {size} integers >= 0, {what})"
                )
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("int", int) and (isinstance(v, bool) or not isinstance(v, int)):
                raise ValueError(f"{f.name} must be an int, got {v!r}")
            if f.type in ("bool", bool) and not isinstance(v, bool):
                raise ValueError(f"{f.name} must be True or False, got {v!r}")
        for key, allowed in _CHOICES.items():
            if getattr(self, key) not in allowed:
                raise ValueError(
                    f"{key}={getattr(self, key)!r} is not allowed (allowed: {', '.join(map(repr, allowed))})"
                )
        if not isinstance(self.name, str) or self.name not in _PRESETS:
            raise ValueError(
                f"name={self.name!r} is not allowed (allowed: {', '.join(sorted(_PRESETS))})"
            )
        lo, hi = _PRESETS[self.name][2]
        if not lo <= self.num_players <= hi:
            raise ValueError(
                f"num_players={self.num_players} is not allowed for {self.name!r} "
                f"(allowed: {lo if lo == hi else f'{lo}-{hi}'})"
            )

    # ----------------------------------------------------------------- derived
    @property
    def num_cards(self) -> int:
        """Physical cards in the pack."""
        return self.decks * (NUM_NATURAL + self.jokers)

    @property
    def wilds(self) -> bool:
        """Whether the pack holds wild cards (jokers, or deuces with ``wild_deuces``)."""
        return self.jokers > 0 or self.wild_deuces or self.wild_rank != "none"

    @property
    def fixed_wild_rank(self) -> int:
        """The rank whose cards are wild in every round besides the jokers (1: the 2s), or
        -1 (Indian rummy's wild rank is the cut card's, per round: ``GameState.wild_faces``)."""
        return 1 if self.wild_deuces else -1

    @property
    def contract(self) -> bool:
        """Whether these are contract rummy's rules (deals with contracts, buying)."""
        return self.contract_deal > 0

    @property
    def meld_text(self) -> str:
        """The melds these rules allow, in words (for error messages)."""
        size = f"3-{self.max_set}" if self.max_set else "3 or more"
        suits = "different suits" if self.set_suits_distinct else "any suits"
        return (
            f"a set of {size} cards of one rank in {suits} or a run of {self.min_run}+ cards "
            "of one suit in rank order"
        )

    @property
    def ace_high(self) -> bool:
        """Whether Q-K-A runs are allowed."""
        return self.ace == "low_or_high"

    @property
    def max_melds(self) -> int:
        """Upper bound on melds on the table at once (every meld holds 3+ cards);
        0 when nobody melds during play."""
        return self.num_cards // 3 if self.meld_during_play else 0

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


RULE_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RuleSet))
#: the fields an override may set (``name`` and ``num_players`` are arguments of their own)
RULE_OPTIONS: tuple[str, ...] = tuple(f for f in RULE_FIELDS if f not in ("name", "num_players"))


def parse_overrides(items: Iterable[str]) -> dict[str, Any]:
    """``["jokers=2", "match=true", "ace=low_or_high"]`` -> ``{"jokers": 2, "match": True, ...}``:
    command-line ``field=value`` rule options, each value read as its field's type (int, bool:
    ``true``/``false``/``1``/``0``, or text). The one parser of the tournament's ``--set``,
    the trainer's ``rules`` and the benchmark's ``--set``.

    Raises:
        ValueError: not ``field=value``, an unknown field (or ``name``/``num_players``, which
            have their own arguments), a field given twice, or a value not of the field's type.
    """
    types = {f.name: type(f.default) for f in dataclasses.fields(RuleSet)}
    out: dict[str, Any] = {}
    for item in items:
        key, eq, text = (x.strip() for x in str(item).partition("="))
        if not eq or not key:
            raise ValueError(
                f"rule option {item!r} is not field=value (fields: {', '.join(RULE_OPTIONS)})"
            )
        if key not in RULE_OPTIONS:
            raise ValueError(f"unknown rule option {key!r} (allowed: {', '.join(RULE_OPTIONS)})")
        if key in out:
            raise ValueError(f"rule option {key!r} given twice")
        kind = types[key]
        if kind is bool:
            low = text.lower()
            if low not in ("true", "false", "1", "0"):
                raise ValueError(f"rule option {key}={text!r}: expected true or false")
            out[key] = low in ("true", "1")
        elif kind is tuple:
            parts = text.strip("()[] ").replace(",", " ").split()
            try:
                out[key] = tuple(int(x) for x in parts)
            except ValueError:
                raise ValueError(
                    f"rule option {key}={text!r}: expected integers such as 20,40"
                ) from None
        elif kind is int:
            try:
                out[key] = int(text)
            except ValueError:
                raise ValueError(f"rule option {key}={text!r}: expected an integer") from None
        else:
            out[key] = text
    return out


def rules_for(preset: str | RuleSet, num_players: int | None, overrides: dict[str, Any]) -> RuleSet:
    """:func:`make_rules` for the envs, whose first argument is the preset: a ``name=``
    among the keyword options is refused with that explanation (not a ``TypeError``)."""
    if "name" in overrides:
        raise ValueError(
            f"name={overrides['name']!r} is not a rule option: the preset is the first "
            f"argument, here preset={preset!r} (allowed options: {', '.join(RULE_OPTIONS)})"
        )
    return make_rules(preset, num_players, **overrides)


def make_rules(
    name: str | RuleSet = "basic", num_players: int | None = None, **overrides: Any
) -> RuleSet:
    """Build the rule set of preset ``name`` with ``overrides`` applied.

    ``name`` may also be a ``RuleSet``: the overrides are applied to it. Its
    player count is fixed (the deck count and hand size were derived from it), so
    ``num_players`` must then be None or equal to it.
    ``num_players`` defaults to 2 for a preset name.

    Raises:
        ValueError: unknown preset, an override that is not a RuleSet field, or
            a value out of range; the message names the allowed values.
    """
    unknown = sorted(set(overrides) - set(RULE_OPTIONS))
    if unknown:
        raise ValueError(
            f"unknown rule option(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(RULE_OPTIONS)})"
        )
    if isinstance(name, RuleSet):
        if num_players is not None and num_players != name.num_players:
            raise ValueError(
                f"num_players={num_players!r} does not match the RuleSet's {name.num_players} players "
                f"(allowed: None or {name.num_players}; for another player count use "
                f"make_rules({name.name!r}, {num_players!r}, ...), which derives decks and hand size anew)"
            )
        return name.replace(**overrides) if overrides else name
    if not isinstance(name, str) or name not in _PRESETS:
        raise ValueError(
            f"unknown preset {name!r} (allowed: {', '.join(sorted(_PRESETS))}, or a RuleSet)"
        )
    if num_players is None:
        num_players = 2
    fields = dict(_PRESETS[name][1])
    if name == "persian" and isinstance(num_players, int) and num_players > 4:
        fields["jokers"] = 2  # 4 jokers in all: two decks of 2
    fields.update(overrides)
    return RuleSet(name=name, num_players=num_players, **fields)
