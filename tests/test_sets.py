"""Scenario tests for the set limits of a rule set (issue 17): ``set_suits_distinct``
and ``max_set``.

docs/rules.md 3: a set is 3 or more cards of one rank. D-2 (the default,
``set_suits_distinct=True``): its natural cards are of different suits, so at most 4
naturals. D-16 (contract rummy, ``set_suits_distinct=False``): with several decks a
set may repeat suits (``7S 7S 7H``). ``max_set`` caps a set's cards, wild cards
included (4 by default, 0 = no limit). A meld move lays a set of 3 or 4 cards; lay-offs
grow it up to ``max_set``.

Crafted two-player deals of basic rummy with two decks (so every card exists twice),
played through the public AEC API; P0 starts (dealer = seat 1). P1 holds cards
that meld nothing (:func:`p1`).
"""

from __future__ import annotations

from collections import Counter

import pytest

import rummy_env
from rummy_env import observation
from rummy_env.moves import Discard, DrawStock, LayOff, Meld
from tests import helpers
from tests.helpers import assert_round_over, deal, hand, meld_moves, play, snapshot, table

P1_24 = ["KS", "QD", "4C"]


def p1(n: int) -> list[str]:
    """P1's hand of ``n`` cards that meld nothing: 3 cards 24 points, 5: 35, 6: 41."""
    return ["KS", "QD", "4C", "9H", "2D", "6C"][:n]


def make_env(hand_size: int = 3, **overrides) -> rummy_env.raw_env:
    return rummy_env.raw_env("basic", num_players=2, decks=2, hand_size=hand_size, **overrides)


def repeats(hand_size: int = 3, **overrides) -> rummy_env.raw_env:
    """Two decks, suits may repeat in a set, no size limit (contract rummy's sets)."""
    overrides.setdefault("max_set", 0)
    return make_env(hand_size, set_suits_distinct=False, **overrides)


def layoff_strs(env) -> list[str]:
    return [s for s in helpers.legal_strs(env) if s.startswith("lay off")]


# ================================================== D-2 stays the default


def test_default_sets_have_distinct_suits():
    # P0 [7S 7S 7H] draws 8C: with D-2 two 7S are not a set; no meld is legal, and
    # naming it is an error that says what a set is.
    env = make_env()
    assert env.unwrapped.rules.set_suits_distinct and env.unwrapped.rules.max_set == 4
    deal(env, [["7S", "7S", "7H"], P1_24], discard=["9D"], stock_top=["8C"])
    play(env, DrawStock())
    assert meld_moves(env) == []
    with pytest.raises(ValueError, match="different suits"):
        env.unwrapped.encode(Meld(("7S", "7S", "7H")))


# ================================================== D-16: suits repeat


def test_repeated_suit_set_melds_and_goes_out():
    # P0 [7S 7S 7H] draws 8C, melds 7S 7S 7H, discards 8C: out. P1 pays 24.
    env = repeats()
    deal(env, [["7S", "7S", "7H"], P1_24], discard=["9D"], stock_top=["8C"])
    play(env, DrawStock())
    assert meld_moves(env) == ["meld 7S 7S 7H"]
    play(env, Meld(("7S", "7S", "7H")))
    assert table(env) == [(0, ["7S", "7S", "7H"])]
    assert hand(env, 0) == ["8C"]
    play(env, Discard("8C"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 24],
        rewards={"player_0": 0, "player_1": -24},
    )


def test_repeated_suit_set_choices_keep_the_run():
    # P0 [7S 7S 7H 7D 8S 9S] draws KC. Sets of 7s: every 3 or 4 of the four 7s
    # (7S 7S 7H, 7S 7S 7D, 7S 7H 7D, 7S 7S 7H 7D); the run 7S 8S 9S too. Laying
    # 7S 7H 7D keeps a 7S for the run: both melds go down, KC is discarded: out.
    env = repeats(hand_size=6)
    deal(env, [["7S", "7S", "7H", "7D", "8S", "9S"], p1(6)], discard=["9D"], stock_top=["KC"])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == sorted(
        [
            "meld 7S 7S 7H",
            "meld 7S 7S 7D",
            "meld 7S 7H 7D",
            "meld 7S 7S 7H 7D",
            "meld 7S 8S 9S",
        ]
    )
    play(env, Meld(("7S", "7H", "7D")), Meld(("7S", "8S", "9S")), Discard("KC"))
    assert table(env) == [(0, ["7S", "7H", "7D"]), (0, ["7S", "8S", "9S"])]
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 41])


def test_set_grows_past_four_without_limit():
    # P0 [7S 7S 7H 7H 7D] draws KC: 7S 7S 7H 7H 7D is one meld (no size limit, D-16); he
    # melds 7S 7S 7H 7H instead, lays off 7D on it (5 cards), discards KC: out.
    env = repeats(hand_size=5)
    deal(env, [["7S", "7S", "7H", "7H", "7D"], p1(5)], discard=["9D"], stock_top=["KC"])
    play(env, DrawStock())
    assert "meld 7S 7S 7H 7H 7D" in meld_moves(env)
    play(env, Meld(("7S", "7S", "7H", "7H")))
    assert layoff_strs(env) == ["lay off 7D on meld 0"]
    play(env, LayOff("7D", 0))
    assert table(env) == [(0, ["7S", "7S", "7H", "7H", "7D"])]
    play(env, Discard("KC"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 35])


def test_lay_off_a_repeated_suit_on_a_set_of_the_other_player():
    # P1 owns 9S 9H 9D on the table; P0 [9S 9D 5C] draws 6C: both 9s lay off on it
    # (suits repeat), then P0 discards 5C and still holds 6C (no going out here).
    env = repeats(hand_size=3)
    d = _table_state(env, [["9S", "9D", "5C"], P1_24], [{"owner": 1, "cards": ["9S", "9H", "9D"]}])
    env.reset(options={"state": d})
    play(env, DrawStock())
    assert layoff_strs(env) == ["lay off 9S on meld 0", "lay off 9D on meld 0"]
    play(env, LayOff("9S", 0), LayOff("9D", 0))
    assert table(env) == [(1, ["9S", "9S", "9H", "9D", "9D"])]


def test_max_set_caps_lay_offs():
    # With max_set=4 the 7S 7S 7H 7H set takes nothing more: P0 must keep 7D.
    env = repeats(hand_size=5, max_set=4)
    deal(env, [["7S", "7S", "7H", "7H", "7D"], p1(5)], discard=["9D"], stock_top=["KC"])
    play(env, DrawStock(), Meld(("7S", "7S", "7H", "7H")))
    assert layoff_strs(env) == []
    helpers.assert_illegal(env, LayOff("7D", 0))
    # and a meld of 3 takes one more, the fourth
    env = repeats(hand_size=5, max_set=4)
    deal(env, [["7S", "7S", "7H", "7H", "7D"], p1(5)], discard=["9D"], stock_top=["KC"])
    play(env, DrawStock(), Meld(("7S", "7S", "7H")))
    assert layoff_strs(env) == ["lay off 7H on meld 0", "lay off 7D on meld 0"]
    play(env, LayOff("7D", 0))
    assert layoff_strs(env) == []


def test_sets_of_three_only():
    # max_set=3 with distinct suits: no set of four is laid, and a set of three takes
    # no lay-off.
    env = make_env(hand_size=4, max_set=3)
    deal(env, [["7S", "7H", "7D", "7C"], p1(4)], discard=["9D"], stock_top=["KC"])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == sorted(
        ["meld 7S 7H 7D", "meld 7S 7H 7C", "meld 7S 7D 7C", "meld 7H 7D 7C"]
    )
    play(env, Meld(("7S", "7H", "7D")))
    assert layoff_strs(env) == []


def test_wild_cards_in_repeated_suit_sets():
    # With one joker a deck: 7S 7S JK is a set (D-3: two naturals carry one joker);
    # the set takes another 7S and a joker by lay-off; 7S JK JK is refused (D-3).
    env = repeats(hand_size=5, jokers=1)
    deal(env, [["7S", "7S", "JK", "JK", "5C"], p1(5)], discard=["9D"], stock_top=["KC"])
    play(env, DrawStock())
    assert meld_moves(env) == ["meld 7S 7S JK", "meld 7S 7S JK JK"]
    play(env, Meld(("7S", "7S", "JK")))
    assert layoff_strs(env) == ["lay off JK on meld 0"]
    play(env, LayOff("JK", 0))
    assert table(env) == [(0, ["7S", "7S", "JK", "JK"])]


# ================================================== state, observation, errors


def _table_state(env, hands, melds) -> dict:
    """A saved state of ``env``'s rules: a crafted deal with ``melds`` on the table."""
    deal(env, hands, discard=["2H"])
    d = snapshot(env)
    left = Counter(d["stock"])
    for m in melds:
        for c in m["cards"]:
            left[c] -= 1
            assert left[c] >= 0
    d["stock"] = list(left.elements())
    d["table"] = [dict(m, kind="set") for m in melds]
    return d


def test_saved_state_and_observation_hold_repeated_suits():
    # A 6-card set 5S 5S 5H 5D 5D JK on the table (no limit): to_dict restores it,
    # the observation counts 2 for 5S and 5D and decodes the same cards.
    env = repeats(hand_size=3, jokers=1)
    cards = ["5S", "5S", "5H", "5D", "5D", "JK"]
    d = _table_state(env, [["2C", "3C", "KD"], P1_24], [{"owner": 0, "cards": cards}])
    env.reset(options={"state": d})
    assert table(env) == [(0, cards)]
    other = repeats(hand_size=3, jokers=1)
    other.reset(options={"state": snapshot(env)})
    assert snapshot(other) == snapshot(env)
    view = observation.read(env.observe("player_1"), env.unwrapped.rules)
    (m,) = view.table
    assert m.physical() == tuple(rummy_env.cards.parse_card(c) for c in cards)
    assert (
        observation.decode(env.observe("player_0"), env.unwrapped.rules)["table"][0]["cards"]
        == cards
    )
    # with max_set=5 the same table is refused, naming the rule
    capped = repeats(hand_size=3, jokers=1, max_set=5)
    d = _table_state(capped, [["2C", "3C", "KD"], P1_24], [{"owner": 0, "cards": cards}])
    with pytest.raises(ValueError, match="3-5 cards of one rank in any suits"):
        capped.reset(options={"state": d})


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (dict(max_set=2), "max_set=2 is not allowed"),
        (dict(max_set=-1), "max_set=-1 is not allowed"),
        (dict(preset="gin", set_suits_distinct=False), "meld_during_play=False"),
        (dict(preset="rummy51", set_suits_distinct=False), "opening"),
    ],
)
def test_bad_set_limits_are_refused(overrides, message):
    preset = overrides.pop("preset", "basic")
    with pytest.raises(ValueError, match=message):
        rummy_env.make_rules(preset, 2, **overrides)
