"""What the core asks of the game a rule set plays.

A :class:`Game` holds the hooks of one rule set: the rows of its phase table, its round
scoring, how its match ends, how a round nobody went out of is decided, and the
validity checks of its own state. The core never asks which game is played; it calls
these. Each module of :mod:`rummy_env.variants` fills in what is its own
(``configure(rules, game)``); :func:`game_of` builds the result once per rule set.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from rummy_env.rules import RuleSet

if TYPE_CHECKING:
    from rummy_env.engine.state import GameState

#: ``(state, field, what is wrong, what is allowed) -> None``: a failed check raises
Fail = Callable[[str, str, str], None]


class PhaseRules(NamedTuple):
    """How one phase plays: its legal actions, how an action applies (``(state, acting
    seat, action) -> whether the round ended``), and which seat acts. A variant with a
    phase of its own (an out-of-turn buy, a declaration) adds a row to the table."""

    legal: Callable[[GameState], list[int]]
    apply: Callable[[GameState, int, int], bool]
    actor: Callable[[GameState], int] = operator.attrgetter("current")


class Game:
    """The hooks of one rule set (see the module docstring); every field is set by the
    variant modules' ``configure``, the first of which (:mod:`rummy_env.variants.basic`)
    sets them all.

    * ``draw``, ``play``, ``upcard``, ``buy``, ``game_over``: :class:`PhaseRules` rows;
    * ``score(state, winner, rummy, hand values, knock points) -> (scores, rewards)``;
    * ``match_over(state, winner, eliminated) -> bool`` (sets ``match_winner``);
    * ``match_bonus(state, rewards) -> bonuses`` or None: paid when the match ends;
    * ``stuck_count(state, seat) -> int`` or None: the count that decides a round nobody
      went out of (lowest wins, D-8); None: such a round is void (scored as it stands);
    * ``penalties``: whether the totals are penalties (lowest best);
    * ``opening_ok(state, seat, naturals, wilds, value, pure, forbidden, meld=None) -> bool``:
      whether a seat not yet opened can still complete its opening this turn after this
      meld (``meld()`` makes it; None: nothing laid yet, whether the whole hand can);
    * ``opened_by(state, seat) -> bool``: whether the melds laid this turn open the seat;
    * ``opens_at_once``: the opening is laid whole in one turn, and nothing else is melded
      after it (contract rummy: the contract, and no new melds once down);
    * ``no_final_discard(state) -> bool``: whether going out must be without a discard;
    * ``on_meld(state, seat, new, old)`` or None: a meld laid (``old`` None) or grown;
    * ``knock(state, seat, action) -> bool`` or None: a knock ends the round;
    * ``on_deal(state, shuffled)`` or None: after the cards are dealt (``shuffled``: not
      a crafted deal);
    * ``deal_stock(options, stock, shuffled) -> stock``: a crafted deal's stock (bottom
      first) with the game's own deal options applied (the cut card), or an error;
    * ``blocks``: the moves the game adds to the common turn, by block of
      :class:`rummy_env.moves.Layout` (``"KNOCK"``, ``"PASS"``, ``"DECLARE"``, ``"DROP"``,
      ``"BUY"``, ``"PLAY_TILE"``, ``"COMMIT"``) -> its number of actions;
    * ``render_lines``: ``(state) -> list[str]`` functions, the lines of the game's own
      fields in the text render; ``table_lines(state) -> list[str]`` or None: the table
      drawn otherwise than as melds with owners (Rummikub's pool of tiles);
    * ``obs_slices``: the sizes of the observation slices the game fills, by name
      (:class:`rummy_env.observation.ObsLayout`; ``"buy_phase"``: one more phase);
      ``obs_writers``: ``(vector, layout, state, seat) -> None`` functions that write
      them; ``obs_view``: ``(reader, seats) -> dict`` functions that read them back;
    * ``pending(state) -> bool``: the seat to act has laid cards this turn that are not
      yet the table's (Rummikub's played tiles): its hand may be empty;
    * ``discard_pile``: whether the game has one (else: no rebuild, no crafted discards);
    * ``dump_table(state) -> list`` and ``read_table(saved, state)``: the table in
      ``to_dict`` data and back;
    * ``on_restore(state, saved)`` or None: after a saved state's fields are read;
    * ``one_card_turns``: a turn takes one card and gives one (no buys, no draws without
      a discard), so no hand outgrows the deal but by the card of the seat to act;
    * ``melds_owned``: table melds belong to the seat that laid them (not one pool);
    * ``check_standing(state, fail)``: the totals of a match in play have not ended it;
    * ``result_checks``: the same for a game that is over (its scores);
    * ``face_value(rules, rank) -> int``: a natural card's value in hand (penalty count);
    * ``hand_size(rules, round) -> int``: the cards dealt to each seat in a round;
    * ``checks``: ``(state, fail) -> None`` functions that check a restored state
      (``fail(field, what is wrong, what is allowed)`` raises);
    * ``check_opening(state, fail)``: a seat mid-way through its opening can complete it;
    * ``has_opening``: a first meld must reach a count (besides ``open_points``);
    * ``deal_totals(state, totals)``: a crafted deal's ``options["totals"]`` (None: not
      allowed); ``base_totals(state)`` or None: the totals a round started from when
      they need not be 0 in a single round (None: zeros);
    * ``held_cards(state)``: cards of the pack the game keeps outside hands, stock, pile,
      table and card-count fields (Canasta's red 3s);
    * ``dump_state(state, d)`` and ``load_state(d, rules) -> d`` or None: the game's own
      form of fields in ``to_dict`` data and back (Canasta's ``opened`` per side);
    * ``round_info(state) -> dict`` or None: what a round's end adds to ``infos``;
    * ``obs_full`` or None: an observation of the game's own slices, writer and view,
      in place of the common one (Canasta); ``codec`` or None: the game's own encoding
      of moves (Canasta's, D-20).
    """

    __slots__ = (
        "draw",
        "play",
        "upcard",
        "buy",
        "game_over",
        "score",
        "match_over",
        "match_bonus",
        "stuck_count",
        "penalties",
        "opening_ok",
        "opened_by",
        "opens_at_once",
        "no_final_discard",
        "on_meld",
        "knock",
        "on_deal",
        "discard_pile",
        "pending",
        "obs_slices",
        "obs_writers",
        "obs_view",
        "render_lines",
        "table_lines",
        "blocks",
        "deal_stock",
        "dump_table",
        "read_table",
        "on_restore",
        "checks",
        "result_checks",
        "face_value",
        "hand_size",
        "check_standing",
        "one_card_turns",
        "melds_owned",
        "check_opening",
        "has_opening",
        "deal_totals",
        "base_totals",
        "held_cards",
        "dump_state",
        "load_state",
        "round_info",
        "obs_full",
        "codec",
    )

    def phases(self) -> tuple[PhaseRules, ...]:
        """The rows indexed by :class:`~rummy_env.engine.state.Phase`."""
        return (self.draw, self.play, self.game_over, self.upcard, self.buy)


@cache
def game_of(rules: RuleSet) -> Game:
    """The :class:`Game` of ``rules``: each registered variant module configures it in
    the registry's order (:data:`rummy_env.variants.FAMILIES`)."""
    from rummy_env.variants import FAMILIES

    g = Game()
    for family in FAMILIES:
        if hasattr(family, "configure"):
            family.configure(rules, g)
    return g
