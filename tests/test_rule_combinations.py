"""Option combinations that pass RuleSet validation play by DESIGN.md's invariants.

Hypothesis draws a preset, a player count and any RuleSet fields with values from
their allowed ranges (not only the presets); ``make_rules`` either refuses the
combination with a ValueError naming a field and the reason, or random masked
games under it hold the six invariants (``tests.helpers.random_masked_game``:
card conservation, no dead ends, mask exactness, no leaks, every round ends;
determinism by replaying the same seed). Invariant 4 is per round: a match of
such rules need not end (a gin match of void hands, a Rummy 500 match whose
totals only fall), so matches are played for a few rounds.

Crashes the combinations found, each with a crafted deal:

* ``wall`` and ``empty_stock="end_round"`` (EndRound) under standard scoring ended
  the round with no winner (``TypeError`` in ``_end_round``): the lowest hand now
  wins, as when the stock runs out for good (D-8).
* The gin up-card offer with a taken card that must be used at once offered an
  up-card nobody could use: a dead end after taking it.
* Rules that cannot work are refused: no melding without knocking, jokers or
  digging in gin, gin with 3+ players, a must-use rule without melding.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rummy_env
from rummy_env import engine
from rummy_env.moves import Discard, DrawDiscard, DrawStock, EndRound, Meld, Pass
from rummy_env.observation import encode
from rummy_env.rules import RULE_OPTIONS
from tests.helpers import (
    SEEDS,
    deal,
    digs_by_definition,
    legal_strs,
    play,
    random_masked_game,
)

# allowed values of every rule option (0 where 0 means "by player count" or "off")
FIELD_VALUES: dict[str, list[Any]] = {
    "decks": [0, 1, 2],
    "jokers": [0, 1, 2, 4],
    "hand_size": [0, 0, 1, 3, 7, 10, 13],
    "ace": ["low", "low_or_high"],
    "ace_penalty": [0, 1, 11, 15],
    "joker_penalty": [0, 15, 20],
    "scoring": ["standard", "winner_takes_all", "gin", "rummy500", "indian"],
    "rummy_multiplier": [1, 2, 3],
    "penalty_limit": [1, 50, 100, 500],
    "target": [1, 50, 100, 500],
    "match": [False, True],
    "rebuild_keeps_top": [True, False],
    "max_stock_rebuilds": [0, 1, 2, 5],
    "go_out_requires_discard": [False, True],
    "wilds_at_most_naturals": [True, False],
    "max_wilds_per_meld": [0, 1, 2],
    "min_run": [3, 3, 4, 5],
    "contract_deal": [0, 0, 1, 7, 8],
    "buy_limit": [0, 3],
    "low_card_penalty": [0, 5],
    "set_suits_distinct": [True, False],
    "max_set": [4, 4, 0, 3, 5],
    "wild_rank": ["none", "none", "cut"],
    "drop_penalties": [(0, 0), (20, 40), (0, 40)],
    "penalty_cap": [0, 0, 80],
    "wild_deuces": [False, False, True],
    "max_turns": [0, 1, 5, 50, 500],
    "meld_during_play": [True, False],
    "knock_limit": [0, 1, 10, 25],
    "oklahoma": [False, True],
    "upcard_offer": [False, True],
    "wall": [0, 1, 2, 5],
    "gin_bonus": [0, 25],
    "undercut_bonus": [0, 25],
    "big_gin_bonus": [0, 31],
    "discard_pickup": ["top", "any"],
    "discard_pickup_must_meld": ["never", "always", "below_top"],
    "upcard": [True, False],
    "empty_stock": ["rebuild", "end_round"],
    "open_points": [0, 30, 51],
    "open_pure_run": [False, True],
    "ace_meld_value": [1, 11, 15],
    "joker_meld_value": [0, 20],
    "joker_swap": [True, False],
    "joker_natural_first": [False, True],
    "unopened_penalty": [0, 100],
    "elimination": [True, False],
    "game_bonus": [0, 100],
    "line_bonus": [0, 25],
    "partnerships": [False, True],
    "canastas_to_go_out": [0, 0, 1, 2],
    "stock_draw": [0, 0, 1, 2],
    "initial_meld": [(0, 0, 0, 0), (15, 50, 90, 120), (0, 15, 30, 45)],
    "canasta_bonus": [(0, 0), (500, 300)],
    "red_three_bonus": [(0, 0), (100, 800), (100, 400)],
    "out_bonus": [(0, 0), (100, 200)],
}
MATCH_ROUNDS = 3  # rounds of a match played


def test_every_rule_option_is_drawn():
    assert set(FIELD_VALUES) == set(RULE_OPTIONS)


@st.composite
def rule_options(draw) -> tuple[str, int, dict[str, Any]]:
    preset = draw(st.sampled_from(sorted(rummy_env.PRESETS)))
    players = draw(st.integers(2, 6))
    fields = draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=7, unique=True))
    return preset, players, {f: draw(st.sampled_from(FIELD_VALUES[f])) for f in fields}


class _Enough(Exception):
    """Raised by the step callback once a match has played MATCH_ROUNDS rounds."""


def play_checked(rules: rummy_env.RuleSet, seed: int, deep: bool) -> dict[str, Any]:
    """A random masked game under ``rules`` with the invariant checks (a match cut
    after MATCH_ROUNDS rounds); the state where it stopped."""
    env = rummy_env.raw_env(rules)
    env.reset(seed=seed)

    def step(a: int) -> None:
        env.step(a)
        if env.state.round >= MATCH_ROUNDS and not engine.is_terminal(env.state):
            raise _Enough

    def in_space(env: rummy_env.raw_env, legal: list[int]) -> None:
        if env.state.step_count % 7 == 0:
            agent = env.agent_selection
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs)
            # the vector kept between moves (compiled where built) is the one built anew
            seat = env.agent_name_mapping[agent]
            want = encode(env.state, seat, env.obs_layout)
            assert np.array_equal(obs["observation"], want), rules

    try:
        random_masked_game(env, rummy_env.raw_env(rules), seed, in_space, deep=deep, step=step)
    except _Enough:
        assert rules.match
    return env.state.to_dict()


def combination_test(n_examples: int):
    """The test: a drawn combination is refused with a reason naming a field, or
    games under it keep the invariants and replay identically."""

    @settings(max_examples=n_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(options=rule_options(), seed=SEEDS)
    def test(options, seed):
        preset, players, over = options
        try:
            rules = rummy_env.make_rules(preset, players, **over)
        except ValueError as e:
            msg = str(e)
            assert "allowed" in msg, msg
            assert any(f in msg for f in [*over, "num_players", "hand_size"]), msg
            return
        end = play_checked(rules, seed, deep=True)
        assert play_checked(rules, seed, deep=False) == end, "the same seed and actions diverged"

    return test


test_valid_rule_combinations_keep_the_invariants = combination_test(30)
test_valid_rule_combinations_keep_the_invariants_many = pytest.mark.slow(combination_test(150))


# ------------------------------------------------------------- refused rules
@pytest.mark.parametrize(
    "preset, players, over, words",
    [
        ("basic", 2, {"meld_during_play": False}, ["meld_during_play", "scoring='gin'"]),
        ("rummy500", 3, {"meld_during_play": False}, ["meld_during_play"]),
        ("gin", 2, {"jokers": 1}, ["jokers", "gin"]),
        ("gin", 2, {"discard_pickup": "any"}, ["discard_pickup", "'top'"]),
        ("gin", 2, {"discard_pickup_must_meld": "always"}, ["discard_pickup_must_meld", "'never'"]),
        (
            "basic",
            3,
            {"scoring": "gin", "knock_limit": 10, "meld_during_play": False},
            ["scoring='gin'", "3 players", "2 players"],
        ),
    ],
)
def test_unworkable_combinations_are_refused_with_a_reason(preset, players, over, words):
    with pytest.raises(ValueError) as err:
        rummy_env.make_rules(preset, players, **over)
    msg = str(err.value)
    assert "allowed" in msg, msg
    for word in words:
        assert word in msg, (word, msg)


# ---------------------------------------------------- crashes, crafted deals
PACK = [r + s for s in "SHDC" for r in "A23456789TJQK"]


def _deal(
    env: rummy_env.raw_env,
    hands: list[list[str]],
    stock: list[str],
    dealer: int = 1,
    discard: list[str] | None = None,
) -> None:
    """Reset to a deal whose discard pile holds every card not in ``hands`` and ``stock``
    (unless given), so that the stock is exactly ``stock`` (top first)."""
    used = {c for h in hands for c in h} | set(stock)
    pile = [c for c in PACK if c not in used] if discard is None else discard
    env.reset(seed=0, options={"hands": hands, "stock": stock, "discard": pile, "dealer": dealer})


def test_wall_under_standard_scoring_gives_the_round_to_the_lowest_hand():
    # basic, wall=2: P0 [KS QS JS] draws 5C and discards KS, leaving 2 cards in the
    # stock: the round ends ("wall"). Hands: P0 [QS JS 5C] 25, P1 [AH 2H 4D] 7: P1 wins,
    # P0 pays 25. (Was a TypeError: a round with no winner under standard scoring.)
    env = rummy_env.raw_env("basic", hand_size=3, wall=2)
    _deal(env, [["KS", "QS", "JS"], ["AH", "2H", "4D"]], ["5C", "6C", "7C"])
    play(env, DrawStock(), Discard("KS"))
    info = env.infos["player_0"]
    assert (info["winner"], info["reason"], info["round_scores"]) == (1, "wall", [25, 0])
    assert env.rewards == {"player_0": -25, "player_1": 0}


def test_end_round_under_standard_scoring_gives_the_round_to_the_lowest_hand():
    # basic, empty_stock="end_round": P0 draws the last stock card 5C, discards KS; P1
    # finds the stock empty and ends the round (or takes KS). Hands as above: P1 wins.
    env = rummy_env.raw_env(
        "basic", hand_size=3, empty_stock="end_round", scoring="winner_takes_all"
    )
    _deal(env, [["KS", "QS", "JS"], ["AH", "2H", "4D"]], ["5C"])
    play(env, DrawStock(), Discard("KS"))
    assert set(legal_strs(env)) == {"draw discard", "end round"}
    play(env, EndRound())
    info = env.infos["player_0"]
    assert (info["winner"], info["reason"], info["round_scores"]) == (1, "stock_empty", [0, 25])
    assert env.rewards == {"player_0": -25, "player_1": 25}


def test_upcard_offer_only_offers_a_card_that_can_be_used():
    # rummy500 (a taken card must be used at once) with the gin up-card offer. The
    # up-card 5C is offered to P0 [KS 2H 9D], who cannot use it: only Pass. Then the
    # dealer P1 [5H 5D 9S] may take it (meld 5C 5H 5D) or pass. (Taking it was legal
    # for P0 and left him no move.)
    env = rummy_env.raw_env("rummy500", hand_size=3, upcard_offer=True)
    hands = [["KS", "2H", "9D"], ["5H", "5D", "9S"]]
    stock = [c for c in PACK if c not in hands[0] + hands[1] + ["5C"]]
    _deal(env, hands, stock, discard=["5C"])
    assert env.state.phase == engine.Phase.UPCARD and env.agent_selection == "player_0"
    assert legal_strs(env) == ["pass"]
    play(env, Pass())
    assert env.agent_selection == "player_1"
    assert legal_strs(env) == ["draw discard", "pass"]
    play(env, DrawDiscard(), Meld(("5H", "5D", "5C")))
    assert legal_strs(env) == ["discard 9S"]


def test_a_rummikub_match_goes_on_whatever_the_totals():
    # Found by the combination test: a Rummikub match is one round per player, whatever
    # the totals (zero-sum, no target); here a total passes 100 after the second of three
    # rounds. The saved-state check asked for totals below `target`, as in other
    # matches, and refused the game's own state mid-match.
    rules = rummy_env.make_rules(
        "rummikub", 3, match=True, ace_meld_value=1, ace_penalty=0, big_gin_bonus=0
    )
    end = play_checked(rules, 1, deep=True)
    assert end["phase"] == "game_over" and end["round"] == 2
    assert max(end["totals"]) >= rules.target


# --------------------------------------------- digging: the quick tests of the mask


@pytest.mark.parametrize(
    ("preset", "over", "hands", "pile", "meld"),
    [
        # a wild 2 above the chosen card comes along and completes its set: KS KD 2H
        ("deuces", {}, ["KD", "5H", "9C", "7S"], ["KS", "2H"], "KS"),
        # a joker above it, in Rummy 500 with jokers
        ("rummy500", {"jokers": 2}, ["KD", "5H", "9C", "7S"], ["KS", "JK"], "KS"),
        # Persian as dealt: 2S JK JK 5S, the natural three places away (two naturals
        # carry the two jokers)
        ("persian", {}, ["2S", "JK", "JK", "9C"], ["5S", "KD"], "5S"),
        # two decks, suits repeating in a set (D-16): KS KS KD
        ("rummy500", {"decks": 2, "set_suits_distinct": False}, ["KD", "KS", "9C", "7S"],
         ["KS", "4H"], "KS"),
    ],
)  # fmt: skip
def test_a_dig_whose_card_a_meld_can_use_is_offered(preset, over, hands, pile, meld):
    # "always": the card taken from under the top must go into a meld this turn (D-5);
    # here it can, with the card taken above it or a copy of its face in hand
    env = rummy_env.raw_env(
        preset, num_players=2, hand_size=4, discard_pickup="any",
        discard_pickup_must_meld="always", **over,
    )  # fmt: skip
    deal(env, [hands, ["AS", "9D", "TD", "QC"]], discard=pile)
    assert "draw discard at depth 1" in legal_strs(env)
    play(env, DrawDiscard(1))
    melds = [m for m in legal_strs(env) if m.startswith("meld")]
    assert melds and all(meld in m.split() for m in melds)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=rule_options(),
    mode=st.sampled_from(["always", "below_top"]),
    seed=SEEDS,
)
def test_digs_are_marked_exactly_where_the_taken_card_can_be_used(options, mode, seed):
    # every draw decision of a random game under drawn rules that let a player take from
    # anywhere in the pile: a depth is marked iff, once taken, some meld or lay-off
    # holding the card is legal (the mask's quick tests decide most depths without it)
    preset, players, over = options
    over = {**over, "discard_pickup": "any", "discard_pickup_must_meld": mode}
    try:
        rules = rummy_env.make_rules(preset, players, **over)
    except ValueError:
        assume(False)
    env = rummy_env.raw_env(rules)
    env.reset(seed=seed)
    s, rng = env.state, random.Random(seed)
    draws = 0  # draw decisions with a pile to take from: the checks below ran
    for _ in range(600):
        if engine.is_terminal(s):
            break
        draws += s.phase == engine.Phase.DRAW and bool(s.discard)
        marked, usable = digs_by_definition(s)
        assert marked == usable, (rules, s.to_dict())
        legal = engine.legal_actions(s)
        engine.apply_action(s, legal[rng.randrange(len(legal))])
    assert draws, "no draw from a pile was checked"


@pytest.mark.parametrize(
    ("over", "hand", "offered"),
    [
        # 5H 6H 7H leaves no card: going out by melding is allowed in Rummy 500 ...
        ({}, ["5H", "6H"], True),
        # ... but not where going out needs a discard
        ({"go_out_requires_discard": True}, ["5H", "6H"], False),
        # it leaves 7H, the taken card's face, which may not be discarded this turn
        ({"decks": 2}, ["5H", "6H", "7H"], False),
        # it leaves 7H and 9C: 9C is discarded
        ({"decks": 2}, ["5H", "6H", "7H", "9C"], True),
    ],
)
def test_a_dig_is_offered_only_where_the_meld_leaves_a_legal_end(over, hand, offered):
    env = rummy_env.raw_env(
        "rummy500", num_players=2, hand_size=len(hand), discard_pickup="any", **over
    )
    # the pile is 7H alone; taking it, it must be used at once ("always")
    deal(env, [hand, ["AS", "9D", "TD", "QC"][: len(hand)]], discard=["7H"])
    assert (DrawDiscard(0) in env.unwrapped.legal_moves()) is offered
