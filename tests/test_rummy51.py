"""Scenario and property tests for the ``rummy51`` preset (docs/rules.md, issue 3).

Every scenario is a small crafted deal (``hand_size`` overridden to keep it to a
handful of steps) whose outcome is worked out by hand in the comments, then
played through the public AEC API (``raw_env``, ``encode``, ``step``,
``legal_moves``, ``state.to_dict()``).

Conventions used in the comments:

* ``P0``/``P1``/... are seats ``player_0``/``player_1``/...; with ``dealer=n-1``
  (the default of :func:`deal`) ``P0`` starts.
* A hand is written ``[5H 6H 7H]``; the discard pile bottom..top (it starts
  empty in Rummy 51); the stock top first (the rest of the pack, 2 decks and 4
  jokers, follows in card-id order).
* Opening values: 2-10 face, J Q K 10, ace 1 low in A-2-3 and 11 in Q-K-A or
  in a set of aces, a joker the value of the card it stands for. The opening
  (the melds laid in one turn by a player not yet opened) needs >= 51 and a
  pure run (no joker).
* Penalties at the end of a round: hand value (ace 11, joker 20), a player who
  never opened 100 flat, the player who went out 0. Rewards are minus the
  penalties.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import engine
from rummy_env.cards import card_str
from rummy_env.moves import Discard, DrawDiscard, DrawStock, EndRound, LayOff, Meld, SwapJoker
from tests import helpers
from tests.helpers import assert_illegal, deal, hand, legal_strs, meld_moves, play, snapshot, table

# ----------------------------------------------------------------- helpers


def make_env(num_players: int = 2, **overrides) -> rummy_env.raw_env:
    return rummy_env.raw_env("rummy51", num_players=num_players, **overrides)


def layoff_swap_moves(env: rummy_env.raw_env) -> list[str]:
    return [s for s in legal_strs(env) if s.startswith(("lay off", "swap"))]


def only_discards(env: rummy_env.raw_env) -> bool:
    legal = legal_strs(env)
    return bool(legal) and all(s.startswith("discard") for s in legal)


def opened(env: rummy_env.raw_env) -> list[bool]:
    return snapshot(env)["opened"]


def assert_round_over(env, *, winner, reason, round_scores, totals=None):
    helpers.assert_round_over(
        env, winner=winner, reason=reason, round_scores=round_scores, totals=totals
    )
    # rummy51: every seat's reward is minus its penalty
    assert [env.rewards[a] for a in env.possible_agents] == [-x for x in round_scores]


_RANKS = "A23456789TJQK"

# P1's hand in two-player scenarios where he only draws and discards: nothing to
# open with (no run, no set).
IDLE = ["2S", "4S", "6D", "8D", "TC", "QC", "3H", "5H"]


def p0_drew(p0_hand: list[str], top: str, p1_hand: list[str] = IDLE) -> rummy_env.raw_env:
    """A two-player deal with ``hand_size=len(p0_hand)``: P0 ``p0_hand``, P1
    ``p1_hand``, the stock starting with ``top``, which P0 has drawn."""
    env = make_env(hand_size=len(p0_hand))
    deal(env, [p0_hand, p1_hand], stock_top=[top])
    play(env, DrawStock())
    return env


# ================================================================ the deal


@pytest.mark.parametrize("n", [2, 3, 4])
def test_deal_108_cards_14_each_pile_starts_empty(n):
    # Two decks and 4 jokers; 14 cards each; no up-card: the first player
    # (after the dealer) can only draw from the stock.
    env = make_env(n)
    assert env.rules.num_cards == 108
    assert env.rules.decks * env.rules.jokers == 4
    env.reset(seed=7)
    d = snapshot(env)
    assert [len(h) for h in d["hands"]] == [14] * n
    assert d["discard"] == []
    assert len(d["stock"]) == 108 - 14 * n
    assert d["current_player"] == 0
    assert legal_strs(env) == ["draw stock"]
    assert_illegal(env, DrawDiscard(0))


def test_player_count_out_of_range():
    with pytest.raises(ValueError, match="2-4"):
        make_env(5)


def test_crafted_deal_empty_pile_first_player_draws_from_stock():
    env = make_env(hand_size=8)
    deal(env, [["TH", "JH", "QH", "7S", "7D", "7C", "2C", "4D"], IDLE], stock_top=["5S"])
    assert snapshot(env)["discard"] == []
    assert legal_strs(env) == ["draw stock"]


def test_only_the_top_discard_may_be_taken():
    env = make_env()
    with pytest.raises(ValueError, match="depth 0"):
        env.encode(DrawDiscard(1))


# ============================================================= the opening


def test_opening_exactly_51_with_pure_run():
    # hand_size=8.  P0 [TH JH QH 7S 7D 7C 2C 4D]   stock: 5S ...
    # P0 draws 5S. TH JH QH (30, pure) + 7S 7D 7C (21) = 51: both melds legal.
    # After TH JH QH alone (30): not opened; 7S 7D 7C is the only legal move
    # (no discard in the middle of an opening). After it: opened at exactly 51,
    # and P0 may discard (anything left: 5S 2C 4D).
    env = p0_drew(["TH", "JH", "QH", "7S", "7D", "7C", "2C", "4D"], "5S")
    assert meld_moves(env) == ["meld 7S 7D 7C", "meld TH JH QH"]
    play(env, Meld(("TH", "JH", "QH")))
    assert opened(env) == [False, False] and snapshot(env)["turn_value"] == 30
    assert legal_strs(env) == ["meld 7S 7D 7C"]
    assert_illegal(env, Discard("2C"))
    play(env, Meld(("7S", "7D", "7C")))
    assert opened(env) == [True, False]
    assert helpers.discard_moves(env) == {"discard 5S", "discard 2C", "discard 4D"}
    play(env, Discard("5S"))
    assert env.agent_selection == "player_1"


def test_opening_at_50_fails_melds_masked():
    # As above with 9H TH JH (29) instead of TH JH QH: 29 + 21 = 50 < 51, and
    # nothing else melds ([2C 4D 5S]). No meld is legal, only discards.
    env = p0_drew(["9H", "TH", "JH", "7S", "7D", "7C", "2C", "4D"], "5S")
    assert meld_moves(env) == []
    assert only_discards(env)
    assert_illegal(env, Meld(("9H", "TH", "JH")))
    assert_illegal(env, Meld(("7S", "7D", "7C")))


@pytest.mark.parametrize(
    "melds",
    [
        # A-2-3 low (1+2+3 = 6, pure) + aces set (11*3 = 33) + 4s (12) = 51
        [("AH", "2H", "3H"), ("AS", "AD", "AC"), ("4S", "4D", "4C")],
        # Q-K-A (10+10+11 = 31, pure) + 2D..6D (20, pure) = 51
        [("QS", "KS", "AS"), ("2D", "3D", "4D", "5D", "6D")],
    ],
    ids=["ace-low-and-ace-set", "queen-king-ace"],
)
def test_opening_exactly_51_ace_values(melds):
    # hand_size=9: the melds, filled up with unrelated cards; stock: 8C ...
    # Each meld is legal in turn; the last one opens at exactly 51.
    cards = [c for m in melds for c in m]
    filler = ["9C", "JD", "KH", "6S", "8H", "TS"][: 9 - len(cards)]
    env = p0_drew(cards + filler, "8C", IDLE + ["7C"])
    for m in melds:
        assert opened(env)[0] is False
        play(env, Meld(m))
    assert snapshot(env)["turn_value"] == 51
    assert opened(env)[0] is True


def test_opening_exactly_50_with_ace_low_fails():
    # hand_size=9.  P0 [AH 2H 3H AS AD AC 3S 3D 3C]   stock: 8C ...
    # AH 2H 3H (the low ace is 1: 6, pure) + AS AD AC (33) + 3S 3D 3C (9) = 48
    # < 51 (were the low ace 11 it would be 58). The 4-set 3S 3H 3D 3C breaks
    # the only run; no Q-K-A. No meld is legal.
    env = p0_drew(["AH", "2H", "3H", "AS", "AD", "AC", "3S", "3D", "3C"], "8C", IDLE + ["7C"])
    assert meld_moves(env) == []


def test_joker_worth_the_card_it_stands_for():
    # hand_size=8.  P0 [QH KH JK 2S 3S 4S 5S 6S]   stock: 9C ...
    # 2S..6S (20, pure). QH KH JK with the joker as the high ace: 10+10+11 = 31
    # -> 51: legal. JK QH KH with the joker as JH: 30 -> 50: masked.
    # The shorter spade runs fall short too (2S-5S 14 + 31 = 45, ...).
    env = p0_drew(["QH", "KH", "JK", "2S", "3S", "4S", "5S", "6S"], "9C")
    assert meld_moves(env) == ["meld 2S 3S 4S 5S 6S", "meld QH KH JK"]
    assert_illegal(env, Meld(("JK", "QH", "KH")))
    play(env, Meld(("QH", "KH", "JK")), Meld(("2S", "3S", "4S", "5S", "6S")))
    assert opened(env)[0] is True and snapshot(env)["turn_value"] == 51
    assert table(env)[0] == (0, ["QH", "KH", "JK"])


@pytest.mark.parametrize(
    "cards",
    [
        # KS KD KC (30) + 7S 7D 7C (21) = 51 but no run at all
        ["KS", "KD", "KC", "7S", "7D", "7C", "2C", "4D"],
        # 9H JK JH (JK = TH: 29, not pure) + QS QD QC (30) = 59 but no pure run
        ["9H", "JK", "JH", "QS", "QD", "QC", "2C", "4D"],
    ],
    ids=["sets-only", "run-with-joker"],
)
def test_opening_needs_a_pure_run(cards):
    env = p0_drew(cards, "5S")
    assert meld_moves(env) == []
    assert only_discards(env)


def test_meld_masked_when_opening_could_no_longer_be_completed():
    # hand_size=8.  P0 [7H 8H 9H 7S 7D KS KD KC]   stock: 5S ...
    # The only opening: 7H 8H 9H (24, pure) + KS KD KC (30) = 54.
    # 7S 7D 7H (21) takes 7H out of the only run: the rest (8H 9H KS KD KC 5S)
    # has no pure run -> that meld is masked. KS KD KC and 7H 8H 9H are legal.
    # After KS KD KC (30, not opened yet): 7S 7D 7H would give 51 but still no
    # pure run -> masked; no discard either: the only move is 7H 8H 9H.
    # Then opened (54): 7S 7D with 5S left; discards legal.
    env = p0_drew(["7H", "8H", "9H", "7S", "7D", "KS", "KD", "KC"], "5S")
    assert meld_moves(env) == ["meld KS KD KC", "meld 7H 8H 9H"]
    assert_illegal(env, Meld(("7S", "7H", "7D")))
    play(env, Meld(("KS", "KD", "KC")))
    assert legal_strs(env) == ["meld 7H 8H 9H"]
    assert_illegal(env, Meld(("7S", "7H", "7D")))
    assert_illegal(env, Discard("5S"))
    play(env, Meld(("7H", "8H", "9H")))
    assert opened(env)[0] is True and snapshot(env)["turn_value"] == 54
    assert legal_strs(env) == ["discard 5S", "discard 7S", "discard 7D"]


def test_opening_with_joker_then_layoff_no_layoff_or_swap_before_opening():
    # hand_size=8.
    # P0 [JH QH KH 7S 7D JK TH 2C]   P1 [7H 9H 2S 3D 4C 5C 8S 9D]   stock: 5S KD 7C ...
    # t1 P0: draw 5S; meld JH QH KH (30, pure). Not opened: no lay-off of TH on
    #        his own run yet, no discard. Meld 7S 7D JK (JK as a 7: 7+7+7 = 21)
    #        -> 51 exactly: opened. Now TH may be laid off (meld 0 = TH-KH).
    #        Lay off TH, discard 5S -> P0 [2C].
    # t1 P1 (not opened): 5S on the pile is of no use for an opening: only the
    #        stock. Draw KD. He holds 9H (fits TH-KH) and 7H (fits the 7s, and
    #        is the card the joker stands for) but may neither lay off nor swap
    #        before opening: only discards. Discard KD.
    # t2 P0 (opened): draw 7C: lay off 7C on the 7s, or swap it for the joker.
    env = make_env(hand_size=8)
    deal(
        env,
        [
            ["JH", "QH", "KH", "7S", "7D", "JK", "TH", "2C"],
            ["7H", "9H", "2S", "3D", "4C", "5C", "8S", "9D"],
        ],
        stock_top=["5S", "KD", "7C"],
    )
    play(env, DrawStock(), Meld(("JH", "QH", "KH")))
    assert legal_strs(env) == ["meld 7S 7D JK"]
    assert_illegal(env, LayOff("TH", 0))
    play(env, Meld(("7S", "7D", "JK")))
    assert opened(env) == [True, False] and snapshot(env)["turn_value"] == 51
    assert layoff_swap_moves(env) == ["lay off TH on meld 0"]
    play(env, LayOff("TH", 0), Discard("5S"))
    assert table(env) == [(0, ["TH", "JH", "QH", "KH"]), (0, ["7S", "7D", "JK"])]
    assert legal_strs(env) == ["draw stock"]
    play(env, DrawStock())
    assert only_discards(env)
    assert_illegal(env, LayOff("9H", 0))
    assert_illegal(env, LayOff("7H", 1))
    assert_illegal(env, SwapJoker("7H", 1))
    play(env, Discard("KD"))
    play(env, DrawStock())
    assert layoff_swap_moves(env) == ["lay off 7C on meld 1", "swap 7C for the joker in meld 1"]
    play(env, SwapJoker("7C", 1))
    assert table(env)[1] == (0, ["7S", "7D", "7C"])
    assert hand(env, 0) == ["2C", "JK"]


def test_at_most_one_joker_per_meld():
    # hand_size=9.  P0 [TH JH QH KH 4S 4D JK JK 5C]   stock: 2S ...
    # Meld validity: 4S 4D JK JK (two jokers) is no meld in Rummy 51 (D-4),
    # though D-3 alone would allow it.
    # P0 draws 2S; opens with TH JH QH KH (40) + 4S 4D JK (12) = 52.
    # The second joker may go on the run (either end) but not on the 4s set,
    # which already holds a joker.
    env = make_env(hand_size=9)
    with pytest.raises(ValueError):
        env.encode(Meld(("4S", "4D", "JK", "JK")))
    other = rummy_env.raw_env("rummy51", max_wilds_per_meld=0)
    other.encode(Meld(("4S", "4D", "JK", "JK")))  # D-3 only: a valid meld
    deal(
        env,
        [["TH", "JH", "QH", "KH", "4S", "4D", "JK", "JK", "5C"], IDLE + ["6C"]],
        stock_top=["2S"],
    )
    play(env, DrawStock())
    assert all(m.split().count("JK") <= 1 for m in meld_moves(env))
    play(env, Meld(("TH", "JH", "QH", "KH")), Meld(("4S", "4D", "JK")))
    assert opened(env)[0] is True
    assert layoff_swap_moves(env) == [
        "lay off JK on meld 0 (low end)",
        "lay off JK on meld 0 (high end)",
    ]
    assert_illegal(env, LayOff("JK", 1))
    assert all(m.split().count("JK") <= 1 for m in meld_moves(env))


# ===================================================== the last card, going out


def test_last_card_layoff_masked():
    # hand_size=8.  P0 [TH JH QH 7S 7D 7C 9H 8H]   stock: 2C 4C ...
    # t1 P0: draw 2C; open (51); lay off 9H -> [8H 2C]; discard 2C -> [8H].
    # t1 P1: draw 4C, discard 4C.
    # t2 P0: draw 7H -> [8H 7H]. Lay off 8H (on 9H-QH) leaves [7H]: legal; then
    #        7H fits the run (7H-QH) and the 7s set, but it is the last card:
    #        both lay-offs are masked, only "discard 7H".
    env = make_env(hand_size=8)
    deal(
        env, [["TH", "JH", "QH", "7S", "7D", "7C", "9H", "8H"], IDLE], stock_top=["2C", "4C", "7H"]
    )
    play(
        env,
        DrawStock(),
        Meld(("TH", "JH", "QH")),
        Meld(("7S", "7D", "7C")),
        LayOff("9H", 0),
        Discard("2C"),
    )
    play(env, DrawStock(), Discard("4C"))
    play(env, DrawStock(), LayOff("8H", 0))
    assert hand(env, 0) == ["7H"]
    assert legal_strs(env) == ["discard 7H"]
    assert_illegal(env, LayOff("7H", 0))
    assert_illegal(env, LayOff("7H", 1))


@pytest.mark.parametrize(("preset", "legal"), [("rummy51", False), ("rummy500", True)])
def test_melding_the_last_cards_is_not_legal(preset, legal):
    # hand_size=8, 2 decks and 2 jokers per deck in both presets (rummy500 given the
    # rummy51 pack for the comparison).
    # t1 P0: draw 2C; open with TH JH QH + 7S 7D 7C (51); discard 2C -> [8S 9S]
    # t1 P1: draw 4C, discard 4C.
    # t2 P0: draw TS -> [8S 9S TS]: the run 8S 9S TS would empty the hand. Rummy 51:
    #        the last card must be discarded, so it is masked; Rummy 500 lets a
    #        player go out by a meld.
    kw = {} if preset == "rummy51" else {"decks": 2, "jokers": 2}
    env = rummy_env.raw_env(preset, num_players=2, hand_size=8, **kw)
    deal(
        env,
        [["TH", "JH", "QH", "7S", "7D", "7C", "8S", "9S"], IDLE],
        discard=["5C"],
        stock_top=["2C", "4C", "TS"],
    )
    play(env, DrawStock(), Meld(("TH", "JH", "QH")), Meld(("7S", "7D", "7C")), Discard("2C"))
    play(env, DrawStock(), Discard("4C"))
    play(env, DrawStock())
    assert ("meld 8S 9S TS" in legal_strs(env)) is legal
    if not legal:
        assert_illegal(env, Meld(("8S", "9S", "TS")))
        assert helpers.discard_moves(env) == {"discard 8S", "discard 9S", "discard TS"}


# ======================================================== taking the discard


@pytest.mark.parametrize(
    ("top", "legal"),
    [
        ("QH", True),  # TH JH QH (30) + 7S 7D 7C (21) = 51: opens with it
        ("9H", False),  # 9H TH JH (29) + 21 = 50: no opening
        ("7H", False),  # a 7s set with it, but TH JH makes no run: no opening
    ],
)
def test_unopened_player_takes_the_discard_only_to_open_with_it(top, legal):
    # hand_size=8.  P0 [TH JH 7S 7D 7C 2C 4D 8S]   pile: `top`
    # QH: after taking it the next meld must hold QH: only TH JH QH is legal
    # (not 7S 7D 7C, no discard); then 7S 7D 7C opens (51); then discards (not QH).
    env = make_env(hand_size=8)
    deal(env, [["TH", "JH", "7S", "7D", "7C", "2C", "4D", "8S"], IDLE], discard=[top])
    if not legal:
        assert legal_strs(env) == ["draw stock"]
        assert_illegal(env, DrawDiscard(0))
        return
    assert legal_strs(env) == ["draw stock", "draw discard"]
    play(env, DrawDiscard(0))
    assert snapshot(env)["must_use"] == "QH"
    assert legal_strs(env) == ["meld TH JH QH"]
    assert_illegal(env, Meld(("7S", "7D", "7C")))
    assert_illegal(env, Discard("2C"))
    play(env, Meld(("TH", "JH", "QH")))
    assert legal_strs(env) == ["meld 7S 7D 7C"]
    play(env, Meld(("7S", "7D", "7C")))
    assert opened(env)[0] is True
    assert helpers.discard_moves(env) == {"discard 2C", "discard 4D", "discard 8S"}


@pytest.mark.parametrize(
    ("p1_discard", "overrides", "legal"),
    [
        ("KH", {}, True),  # lays off on TH JH QH
        ("5D", {}, False),  # fits nothing
        ("TS", {}, False),  # 8S 9S TS would meld P0's last cards: nothing left to discard
        ("TS", {"go_out_requires_discard": False}, True),  # ... which this option allows
    ],
    ids=["KH-layoff", "5D-no-use", "TS-last-cards", "TS-out-by-meld-allowed"],
)
def test_opened_player_takes_the_discard_only_to_use_it(p1_discard, overrides, legal):
    # hand_size=8.
    # P0 [TH JH 7S 7D 7C 8S 9S 2C]   P1 [2S 3S 5D 6D 8C TS KH KD]   pile: QH   stock: 4C ...
    # t1 P0: take QH (opens with it): TH JH QH + 7S 7D 7C = 51; discard 2C -> [8S 9S]
    # t1 P1: draw 4C, discard `p1_discard`.
    # t2 P0: may take it only if he can use it this turn.
    env = make_env(hand_size=8, **overrides)
    deal(
        env,
        [
            ["TH", "JH", "7S", "7D", "7C", "8S", "9S", "2C"],
            ["2S", "3S", "5D", "6D", "8C", "TS", "KH", "KD"],
        ],
        discard=["QH"],
        stock_top=["4C"],
    )
    play(env, DrawDiscard(0), Meld(("TH", "JH", "QH")), Meld(("7S", "7D", "7C")), Discard("2C"))
    play(env, DrawStock(), Discard(p1_discard))
    if not legal:
        assert legal_strs(env) == ["draw stock"]
        return
    assert legal_strs(env) == ["draw stock", "draw discard"]
    play(env, DrawDiscard(0))
    if p1_discard == "KH":
        assert legal_strs(env) == ["lay off KH on meld 0"]  # the next play must hold KH
    else:
        assert legal_strs(env) == ["meld 8S 9S TS"]


# ================================================================ penalties


@pytest.mark.parametrize(
    ("p1_discard", "p1_penalty"),
    [
        ("4D", 31),  # keeps JK AD: 20 + 11
        ("AD", 24),  # keeps JK 4D: 20 + 4
        ("JK", 15),  # keeps AD 4D: 11 + 4
    ],
)
def test_penalties_hand_joker_ace_and_never_opened(p1_discard, p1_penalty):
    # 3 players, hand_size=9.
    # P0 [TH JH QH 7S 7D 7C 9H 2C 3C]
    # P1 [5S 6S 7S 8S KS KD KC JK AD]
    # P2 [2D 3H 4S 6D 8C 9D TC JD QS]  (hand value 62, never opens)
    # stock: KH 4D 5C 8H ...
    # t1 P0: draw KH; TH JH QH KH (40) + 7S 7D 7C (21) = 61: opened; discard 3C
    #        -> [9H 2C]
    # t1 P1: draw 4D; 5S 6S 7S 8S (26, pure) + KS KD KC (30) = 56: opened;
    #        discard `p1_discard` -> two of JK AD 4D
    # t1 P2: draw 5C, discard 5C.
    # t2 P0: draw 8H; lay off 9H and 8H on TH-KH; discard 2C -> out.
    # Penalties: P0 0; P1 `p1_penalty`; P2 100 flat (not his 62).
    env = make_env(3, hand_size=9)
    deal(
        env,
        [
            ["TH", "JH", "QH", "7S", "7D", "7C", "9H", "2C", "3C"],
            ["5S", "6S", "7S", "8S", "KS", "KD", "KC", "JK", "AD"],
            ["2D", "3H", "4S", "6D", "8C", "9D", "TC", "JD", "QS"],
        ],
        stock_top=["KH", "4D", "5C", "8H"],
    )
    play(env, DrawStock(), Meld(("TH", "JH", "QH", "KH")), Meld(("7S", "7D", "7C")), Discard("3C"))
    play(
        env,
        DrawStock(),
        Meld(("5S", "6S", "7S", "8S")),
        Meld(("KS", "KD", "KC")),
        Discard(p1_discard),
    )
    play(env, DrawStock(), Discard("5C"))
    assert opened(env) == [True, True, False]
    play(env, DrawStock(), LayOff("9H", 0), LayOff("8H", 0), Discard("2C"))
    assert table(env)[0] == (0, ["8H", "9H", "TH", "JH", "QH", "KH"])
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, p1_penalty, 100])


def test_never_opened_pays_100_even_with_a_small_hand():
    # 2 players, hand_size=8. P0 opens and goes out on his second turn; P1 holds
    # [2S 4S 6D 8D TC QC 3H 5H] (hand value 48) give or take his draws, never opens:
    # 100 flat, not the hand value.
    # t1 P0 [TH JH QH 7S 7D 7C 9H KD]: draw 2C, open (51), discard KD -> [9H 2C]
    # t1 P1: draw 4C, discard QC -> hand value 2+4+6+8+10+3+5+4 = 42
    # t2 P0: draw 8H; lay off 9H, 8H; discard 2C -> out.  Scores [0, 100].
    env = make_env(hand_size=8)
    deal(
        env, [["TH", "JH", "QH", "7S", "7D", "7C", "9H", "KD"], IDLE], stock_top=["2C", "4C", "8H"]
    )
    play(env, DrawStock(), Meld(("TH", "JH", "QH")), Meld(("7S", "7D", "7C")), Discard("KD"))
    play(env, DrawStock(), Discard("QC"))
    play(env, DrawStock(), LayOff("9H", 0), LayOff("8H", 0), Discard("2C"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 100])


# =================================================================== match


def _penalty_round(env, totals=None):
    """The 3-player round of the penalty test (P1 keeps JK AD: 31, P2 100).
    ``totals`` (optional) are set as the match totals before the round, through
    a save/restore of the crafted deal."""
    deal(
        env,
        [
            ["TH", "JH", "QH", "7S", "7D", "7C", "9H", "2C", "3C"],
            ["5S", "6S", "7S", "8S", "KS", "KD", "KC", "JK", "AD"],
            ["2D", "3H", "4S", "6D", "8C", "9D", "TC", "JD", "QS"],
        ],
        stock_top=["KH", "4D", "5C", "8H"],
    )
    if totals is not None:
        d = snapshot(env)
        d["totals"] = list(totals)
        env.reset(options={"state": d})
    play(env, DrawStock(), Meld(("TH", "JH", "QH", "KH")), Meld(("7S", "7D", "7C")), Discard("3C"))
    play(env, DrawStock(), Meld(("5S", "6S", "7S", "8S")), Meld(("KS", "KD", "KC")), Discard("4D"))
    play(env, DrawStock(), Discard("5C"))
    play(env, DrawStock(), LayOff("9H", 0), LayOff("8H", 0), Discard("2C"))


@pytest.mark.parametrize(("limit", "over"), [(100, True), (101, False)])
def test_match_ends_when_a_total_reaches_the_limit(limit, over):
    # match=True, elimination=False (preset), penalty_limit = `limit`.
    # Round totals [0, 31, 100]: 100 reaches 100 (>=, not "exceeds") -> the match
    # ends, lowest total (P0, 0) wins; with 101 nobody reaches it: next round,
    # nobody is eliminated, the deal passes to P0 and P1 starts.
    env = make_env(3, hand_size=9, match=True, penalty_limit=limit)
    _penalty_round(env)
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 31, 100])
    assert all(env.terminations.values()) is over
    if over:
        assert env.infos["player_0"]["match_winner"] == 0
    else:
        d = snapshot(env)
        assert d["round"] == 1 and d["dealer"] == 0 and d["current_player"] == 1
        assert d["active"] == [True, True, True] and d["opened"] == [False] * 3
        assert d["discard"] == [] and [len(h) for h in d["hands"]] == [9, 9, 9]
        assert env.agents == ["player_0", "player_1", "player_2"]


def test_match_lowest_total_wins_not_the_round_winner():
    # As above with totals [90, 10, 0] carried in (penalty_limit 100):
    # after the round [90, 41, 100]: P2 reaches 100; the lowest total is P1's 41,
    # so P1 wins the match although P0 went out.
    env = make_env(3, hand_size=9, match=True, penalty_limit=100)
    _penalty_round(env, totals=[90, 10, 0])
    assert_round_over(
        env, winner=0, reason="went_out", round_scores=[0, 31, 100], totals=[90, 41, 100]
    )
    assert all(env.terminations.values())
    assert env.infos["player_0"]["match_winner"] == 1


# ======================================================= save/restore, render


def test_save_restore_in_the_middle_of_an_opening():
    # The masked-meld scenario saved after KS KD KC (30, not yet opened): the
    # restored game still forbids discards and the 7s meld, and opens the same way.
    hands = [["7H", "8H", "9H", "7S", "7D", "KS", "KD", "KC"], IDLE]
    env = make_env(hand_size=8)
    deal(env, hands, stock_top=["5S"])
    play(env, DrawStock(), Meld(("KS", "KD", "KC")))
    saved = snapshot(env)
    assert saved["turn_value"] == 30 and saved["opened"] == [False, False]
    other = make_env(hand_size=8)
    other.reset(options={"state": saved})
    assert snapshot(other) == saved
    assert legal_strs(other) == ["meld 7H 8H 9H"]
    for e in (env, other):
        play(e, Meld(("7H", "8H", "9H")), Discard("5S"))
    assert snapshot(other) == snapshot(env)
    assert snapshot(other)["opened"] == [True, False]


def test_ansi_render():
    env = make_env(hand_size=8, render_mode="ansi")
    deal(env, [["TH", "JH", "QH", "7S", "7D", "7C", "2C", "4D"], IDLE], stock_top=["5S"])
    text = env.render()
    assert "rummy51" in text and "discard (top last): -" in text
    play(env, DrawStock(), Meld(("TH", "JH", "QH")), Meld(("7S", "7D", "7C")), Discard("5S"))
    text = env.render()
    assert "TH JH QH" in text and "discard (top last): 5S" in text


def test_bad_input():
    env = make_env()
    with pytest.raises(ValueError, match="EndRound"):
        env.encode(EndRound())
    with pytest.raises(ValueError, match="2-4"):
        make_env(1)
    # a crafted deal must be the 108-card pack: a fifth joker is one too many
    with pytest.raises(ValueError, match="JK"):
        env.reset(
            seed=0,
            options={"hands": [["JK"] * 5 + IDLE[:8] + ["9S"], IDLE + IDLE[:6]], "discard": []},
        )


# ============================ the opening search against an independent oracle
#
# A brute force written from docs/rules.md alone: every meld the hand can form
# (sets of distinct suits, runs with the ace low or high, at most one joker and
# no more jokers than naturals, naturals first), and a search over disjoint meld
# combinations. A meld is legal for a player who has not opened iff it holds the
# card that must be used (if any), and some melds from what is left complete the
# opening (>= 51 with the turn's earlier melds, a pure run among them) and leave
# a card that may be discarded (docs/rules.md 5.6: the last card must be discarded; the
# card taken from the pile may not be).

_SUITS = "SHDC"
_MAX_VALUE = {"JK": 11}  # a card's highest possible meld value (a joker: an ace high)


def _pos_value(pos: int) -> int:
    return 1 if pos == 0 else 11 if pos == 13 else min(pos + 1, 10)


def oracle_hand_melds(counts: Counter) -> list[tuple[tuple[str, ...], Counter, int, bool]]:
    """(cards as Meld shows them, cards used, value, pure) of every meld in ``counts``."""
    w = counts["JK"]
    out = []
    for r, rank in enumerate(_RANKS):
        suits = [s for s in _SUITS if counts[rank + s]]
        v = 11 if r == 0 else min(r + 1, 10)
        for k in range(2, 5):
            for sub in itertools.combinations(suits, k):
                for j in (0, 1):
                    if j <= w and 3 <= k + j <= 4:
                        cards = tuple(rank + s for s in sub) + ("JK",) * j
                        out.append((cards, Counter(cards), v * (k + j), False))
    for s in _SUITS:
        for lo in range(14):
            for hi in range(lo + 2, min(lo + 12, 13) + 1):
                cards = tuple(
                    c if counts[c] else "JK"
                    for c in (_RANKS[p % 13] + s for p in range(lo, hi + 1))
                )
                j = cards.count("JK")
                if j <= min(1, w) and len(cards) - j >= 2:
                    value = sum(_pos_value(p) for p in range(lo, hi + 1))
                    out.append((cards, Counter(cards), value, j == 0))
    return out


@lru_cache(maxsize=1 << 16)
def _completable(items: tuple[tuple[str, int], ...], need: int, need_pure: bool, forb: str) -> bool:
    counts = Counter(dict(items))
    if need <= 0 and not need_pure:
        return sum(counts.values()) > counts[forb]
    if (
        sum(
            c * _MAX_VALUE.get(f, 11 if f[0] == "A" else min(_RANKS.index(f[0]) + 1, 10))
            for f, c in counts.items()
        )
        < need
    ):
        return False
    for _, used, value, pure in oracle_hand_melds(counts):
        rest = counts - used
        if _completable(tuple(sorted(rest.items())), need - value, need_pure and not pure, forb):
            return True
    return False


def oracle_opening_melds(
    cards: list[str], turn_value: int, turn_pure: bool, must: str | None, forb: str | None
) -> set[str]:
    counts = Counter(cards)
    legal = set()
    for shown, used, value, pure in oracle_hand_melds(counts):
        if must and must not in shown:
            continue
        rest = counts - used
        if _completable(
            tuple(sorted(rest.items())),
            51 - turn_value - value,
            not (turn_pure or pure),
            forb or "",
        ):
            legal.add("meld " + " ".join(shown))
    return legal


# a pool rich in melds: high ranks of two suits, some low cards and the jokers
_POOL = (
    [r + s for r in "A789TJQK" for s in "SH"] * 2
    + ["2S", "3S", "4S", "2H", "3H", "4H"]
    + [r + s for r in "AKQ" for s in "DC"]
    + ["JK"] * 4
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=helpers.SEEDS, take=st.booleans())
def test_opening_search_matches_brute_force(seed, take):
    """Random meld-rich hands: the legal melds of a player who has not opened, before
    and during his opening (a random legal meld laid each time), are exactly those
    of the brute force; with ``take`` the top discard is offered first and may be
    taken iff the brute force finds an opening with it."""
    rng = random.Random(seed)
    pool = _POOL[:]
    rng.shuffle(pool)
    p0, top, pool_rest = pool[:14], pool[14], pool[15:]
    env = make_env()
    p1 = [c for c in helpers.rest_of_pack(env, p0, [top], pool_rest) if c != "JK"][
        :14
    ]  # off the pool
    stock = helpers.rest_of_pack(env, p0, p1, [top])
    rng.shuffle(stock)
    env.reset(
        seed=0,
        options={
            "hands": [p0, p1],
            "discard": [top] if take else [],
            "stock": stock if take else [top] + stock,
            "dealer": 1,
        },
    )
    if take:
        can = bool(oracle_opening_melds(p0 + [top], 0, False, top, top))
        assert ("draw discard" in legal_strs(env)) == can, (p0, top)
        play(env, DrawDiscard(0) if can else DrawStock())
    else:
        play(env, DrawStock())
    while not opened(env)[0]:
        d = snapshot(env)
        want = oracle_opening_melds(
            d["hands"][0], d["turn_value"], d["turn_pure"], d["must_use"], d["forbidden"]
        )
        got = set(meld_moves(env))
        assert got == want, (d["hands"][0], d["turn_value"], got - want, want - got)
        if not got:
            assert d["turn_value"] == 0  # a started opening can always be completed
            break
        play(env, Meld(tuple(sorted(got)[rng.randrange(len(got))].split()[1:])))


# ================================================ PettingZoo API and seeding

API_CONFIGS = [2, 3, 4]
CTORS = {"env": rummy_env.env, "raw_env": rummy_env.raw_env}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("ctor", list(CTORS))
@pytest.mark.parametrize("n", API_CONFIGS, ids=[f"{n}p" for n in API_CONFIGS])
def test_pettingzoo_api(n, ctor):
    api_test(CTORS[ctor]("rummy51", num_players=n), num_cycles=1000, verbose_progress=False)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("ctor", list(CTORS))
@pytest.mark.parametrize("n", API_CONFIGS, ids=[f"{n}p" for n in API_CONFIGS])
def test_pettingzoo_seed(n, ctor):
    seed_test(lambda: CTORS[ctor]("rummy51", num_players=n), num_cycles=500)


# ======================================== random play: invariants of issue 3


def meld_value(kind: str, cards: list[str]) -> int:
    """Opening value of a table meld as to_dict() writes it (independent of the
    engine): runs in rank order with JK where it stands, sets naturals then JK."""

    def val(pos: int) -> int:  # run position 0 = ace low .. 13 = ace high
        return 1 if pos == 0 else 11 if pos == 13 else min(pos + 1, 10)

    nat = [c for c in cards if c != "JK"]
    if kind == "set":
        r = _RANKS.index(nat[0][0])
        return len(cards) * (11 if r == 0 else min(r + 1, 10))
    i, c = next((i, c) for i, c in enumerate(cards) if c != "JK")
    lo = _RANKS.index(c[0]) - i
    if lo < 0 or (c[0] == "A" and i > 0):  # an ace after other cards stands high
        lo = 13 - i
    return sum(val(lo + k) for k in range(len(cards)))


def check_rules(env: rummy_env.raw_env, legal: list[int]) -> None:
    """Rule-level properties of the legal moves of the player to act (docs/rules.md 5, 6)."""
    s = env.state
    p = s.current
    moves = [env.decode(a) for a in legal]
    for m in s.table:
        assert m.n_wild <= 1, "a meld with two jokers"
    if s.phase == engine.Phase.DRAW:
        assert all(
            isinstance(m, (DrawStock, DrawDiscard)) and getattr(m, "depth", 0) == 0 for m in moves
        )
        return
    if not s.opened[p]:
        assert not any(isinstance(m, (LayOff, SwapJoker)) for m in moves), "lay-off before opening"
        if s.turn_value > 0:
            assert not any(isinstance(m, Discard) for m in moves), "discard mid-opening"
    for m in moves:
        # the last card must be discarded: no meld or lay-off empties the hand
        if isinstance(m, Meld):
            assert len(m.cards) < s.nhand[p], f"{m} melds the last card"
        elif isinstance(m, (LayOff,)):
            assert s.nhand[p] >= 2, f"{m} lays off the last card"
    if s.must_use >= 0:
        card = card_str(s.must_use)
        for m in moves:
            assert isinstance(m, (Meld, LayOff)), f"{m} legal while {card} awaits its use"
            cards = m.cards if isinstance(m, Meld) else (m.card,)
            # (a taken wild 2 may be laid as a wild card, spelled JK)
            assert card in cards or (s.rules.wild_deuces and card[0] == "2" and "JK" in cards)
    if s.forbidden >= 0:
        assert Discard(card_str(s.forbidden)) not in moves


def random_game(
    n: int, seed: int, stats: Counter | None = None, deep: bool = True, **overrides
) -> None:
    """Random masked play of one episode with the checks of
    :func:`tests.helpers.random_masked_game` (the deep ones when ``deep``) and
    :func:`check_rules`, and the opening values whenever a player opens."""
    env = make_env(n, **overrides)
    env.reset(seed=seed)
    assert env.state.discard == []
    turn_start = 0  # table length when the current turn began

    def step(a: int) -> None:
        nonlocal turn_start
        s = env.state
        p = s.current
        if s.phase == engine.Phase.DRAW:
            turn_start = len(s.table)
        was_open = s.opened[p]
        round_before = s.round
        env.step(a)
        if stats is not None:
            stats[type(env.decode(a)).__name__] += 1
        if s.round != round_before or engine.is_terminal(s):
            return
        if not was_open:
            d = s.to_dict()
            mine = d["table"][turn_start:]
            value = sum(meld_value(m["kind"], m["cards"]) for m in mine)
            pure = any(m["kind"] == "run" and "JK" not in m["cards"] for m in mine)
            assert s.opened[p] == (value >= 51 and pure), (
                f"seed {seed}: opened={s.opened[p]} after melds {mine} (value {value})"
            )
            if s.opened[p] and stats is not None:
                stats["openings"] += 1

    helpers.random_masked_game(
        env, make_env(n, **overrides), seed, check_rules, deep=deep, step=step
    )


RANDOM_CONFIGS = [
    (2, {}),
    (3, {}),
    (4, {}),
    (2, {"hand_size": 7}),  # short hands: more rounds end by going out
    (3, {"match": True, "penalty_limit": 150}),
]
RANDOM_IDS = [f"{n}p" + "".join(f"-{k}={v}" for k, v in kw.items()) for n, kw in RANDOM_CONFIGS]


@pytest.mark.parametrize(("n", "kw"), RANDOM_CONFIGS, ids=RANDOM_IDS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=helpers.SEEDS)
def test_random_play_invariants(n, kw, seed):
    random_game(n, seed, **kw)


def test_random_play_reaches_openings_and_takes():
    # The random games are meaningful only if openings, lay-offs and discard
    # takes happen in them; count over a few fixed seeds.
    stats: Counter = Counter()
    for seed in range(6):
        random_game(2, seed, stats, deep=False)
    assert stats["openings"] > 0 and stats["LayOff"] > 0 and stats["DrawDiscard"] > 0, stats


# ====================================================== wild 2s (RULES.md 4 wild deuces)


def test_wild_2_counts_as_the_card_it_stands_for_in_the_opening():
    # wild_deuces=True, hand_size=7.  P0 [7H 8H 9H KS KH 2D 4C]   stock: QC ...
    # P0 draws QC. 7H 8H 9H (pure, 24) + KS KH 2D (the 2 a third king: 30) = 54 >= 51:
    # he may open, either meld first. Counted at its face (2) the set would be worth 22
    # and the opening 46: no meld would be legal.
    env = make_env(hand_size=7, wild_deuces=True)
    deal(
        env,
        [["7H", "8H", "9H", "KS", "KH", "2D", "4C"], ["5S", "6D", "9C", "JC", "QD", "3C", "AS"]],
        stock_top=["QC"],
    )
    play(env, DrawStock())
    assert env.encode(Meld(("KS", "KH", "2D"))) == env.encode(Meld(("KS", "KH", "JK")))
    assert set(meld_moves(env)) == {"meld 7H 8H 9H", "meld KS KH JK"}
    play(env, Meld(("KS", "KH", "2D")))
    assert snapshot(env)["turn_value"] == 30 and not opened(env)[0]
    assert meld_moves(env) == ["meld 7H 8H 9H"]
    assert_illegal(env, Discard("4C"))  # mid-opening
    play(env, Meld(("7H", "8H", "9H")))
    assert opened(env) == [True, False]
    assert table(env) == [(0, ["KS", "KH", "2D"]), (0, ["7H", "8H", "9H"])]
    play(env, Discard("4C"))


@pytest.mark.parametrize("two", ["2S", "2D"])
def test_a_2_at_its_own_place_makes_a_pure_run_for_the_opening(two):
    # wild_deuces=True, hand_size=9.  P0 [AS two 3S KS KH KD 9S 9H 9D] + 9C. With 2S the
    # run AS 2S 3S is pure (the 2 at its own place is natural, D-13): 6 + 30 + 27 = 63
    # opens, 9C left to discard. With 2D (a wild 2S there) no pure run can be made: nothing opens, no meld.
    env = make_env(hand_size=9, wild_deuces=True)
    deal(
        env,
        [
            ["AS", two, "3S", "KS", "KH", "KD", "9S", "9H", "9D"],
            ["5S", "6D", "QD", "JC", "4D", "3C", "7S", "8C", "TD"],
        ],
        stock_top=["9C"],
    )
    play(env, DrawStock())
    if two == "2D":
        assert meld_moves(env) == []
        return
    play(env, Meld(("KS", "KH", "KD")), Meld(("9S", "9H", "9D")))
    assert not opened(env)[0]  # 57 points, no pure run yet
    play(env, Meld(("AS", "2S", "3S")))
    assert opened(env)[0] and snapshot(env)["table"][-1]["cards"] == ["AS", "2S", "3S"]


def test_a_wild_2_counts_towards_one_wild_card_a_meld():
    # wild_deuces=True (max_wilds_per_meld=1, D-4).  P0 [5H 6H 7H JK 2D 2C KS KH KD TS]:
    # no meld holds two wild cards (the joker and a 2, or two 2s), though D-3 alone
    # would allow 5H 6H 7H + two; 5H 6H 7H JK (8H or 4H) holds one.
    env = make_env(hand_size=10, wild_deuces=True)
    deal(
        env,
        [
            ["5H", "6H", "7H", "JK", "2D", "2C", "KS", "KH", "KD", "TS"],
            ["5S", "6D", "9D", "JC", "4D", "3C", "7S", "8C", "TD", "QC"],
        ],
        stock_top=["9C"],
    )
    play(env, DrawStock())
    melds = meld_moves(env)
    assert melds and all(m.split().count("JK") <= 1 for m in melds), melds
    assert "meld KS KH KD JK" in melds
    for spelled in (("5H", "6H", "7H", "JK", "2D"), ("KS", "KH", "2D", "2C")):
        with pytest.raises(ValueError, match="not a valid set or run"):
            env.encode(Meld(spelled))


def test_a_wild_2_is_no_wild_card_in_a_set_of_2s_of_the_opening():
    # wild_deuces=True.  P0 [AS 5S 8S 2H 7H 7H 8H 9H TH KH 5D 2C 2C JK] draws QD.
    # 5S 5D JK (15) would need 36 more with a pure run: 7H 8H 9H TH (34) and 2 more, which
    # only 2H 2C + the other 2C as a wild card would give; but in a set of 2s a 2 is
    # natural, and 2H 2C 2C repeats a suit: no meld (the opening search counted the second
    # 2C as a joker there). 2H 2C JK (6) + 7H 8H 9H TH (34) + 5S 5D 2C (the other 2C wild:
    # 15) = 55 opens: the 2C split between natural and wild.
    env = make_env(wild_deuces=True)
    p0 = ["AS", "5S", "8S", "2H", "7H", "7H", "8H", "9H", "TH", "KH", "5D", "2C", "2C", "JK"]
    p1 = ["3S", "4S", "6S", "9S", "JS", "3H", "4H", "5H", "6H", "3D", "4D", "6D", "9D", "JD"]
    deal(env, [p0, p1], stock_top=["QD"])
    play(env, DrawStock())
    got = set(meld_moves(env))
    assert "meld 5S 5D JK" not in got
    assert got == oracle_deuce_opening_melds([*p0, "QD"], 0, False)


@pytest.mark.parametrize("n", [2, 3])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=helpers.SEEDS)
def test_random_play_with_wild_2s(n, seed):
    """Random masked play with wild 2s: the masks are exactly what the engine accepts (the
    opening search with 2s natural or wild), no dead end, and the round ends."""
    env = make_env(n, wild_deuces=True)
    env.reset(seed=seed)
    helpers.random_masked_game(env, make_env(n, wild_deuces=True), seed, check_rules)


# The same oracle with wild 2s (RULES.md 4 wild deuces): a 2 is natural at its own place
# (its suit's run at rank 2; a set of 2s, whose wild card can then only be a joker) and
# wild anywhere else, worth the card it stands for. The oracle's melds name the physical
# cards they use, every wild card held being tried in a wild place; a move (the wild place
# spelled JK) lays the wild card the engine picks: a joker first, then 2s in suit order.
_WILDS = ("JK", "2S", "2H", "2D", "2C")


def deuce_melds(counts: Counter) -> list[tuple[tuple[str, ...], Counter, int, bool]]:
    """(cards as Meld shows them, physical cards used, value, pure) of every meld in
    ``counts`` with wild 2s, one entry per choice of wild card."""
    out = []
    for r, rank in enumerate(_RANKS):
        suits = [s for s in _SUITS if counts[rank + s]]
        v = 11 if r == 0 else min(r + 1, 10)
        for k in range(2, 5):
            for sub in itertools.combinations(suits, k):
                nat = tuple(rank + s for s in sub)
                if k >= 3:
                    out.append((nat, Counter(nat), v * k, False))
                if k == 4:
                    continue
                for w in ("JK",) if rank == "2" else _WILDS:
                    if counts[w] > nat.count(w):
                        out.append((nat + ("JK",), Counter(nat + (w,)), v * (k + 1), False))
    for s in _SUITS:
        for lo in range(14):
            for hi in range(lo + 2, min(lo + 12, 13) + 1):
                place = [_RANKS[p % 13] + s for p in range(lo, hi + 1)]
                nat = [c for c in place if counts[c]]
                if len(place) - len(nat) > 1 or len(nat) < 2:
                    continue  # (one wild card a meld, at least two naturals)
                value = sum(_pos_value(p) for p in range(lo, hi + 1))
                shown = tuple(c if counts[c] else "JK" for c in place)
                if len(nat) == len(place):
                    out.append((shown, Counter(nat), value, True))
                    continue
                for w in _WILDS:
                    if counts[w] > nat.count(w):
                        out.append((shown, Counter(nat + [w]), value, False))
    return out


@lru_cache(maxsize=1 << 16)
def _deuce_completable(items: tuple[tuple[str, int], ...], need: int, need_pure: bool) -> bool:
    counts = Counter(dict(items))
    if need <= 0 and not need_pure:
        return sum(counts.values()) > 0  # a card left to discard
    most = sum(
        c * (11 if f in _WILDS or f[0] == "A" else min(_RANKS.index(f[0]) + 1, 10))
        for f, c in counts.items()
    )
    if most < need:
        return False
    for _, used, value, pure in deuce_melds(counts):
        rest = counts - used
        if _deuce_completable(tuple(sorted(rest.items())), need - value, need_pure and not pure):
            return True
    return False


def oracle_deuce_opening_melds(cards: list[str], turn_value: int, turn_pure: bool) -> set[str]:
    """The melds legal for a player who has not opened, with wild 2s (nothing taken from
    the pile this turn)."""
    counts = Counter(cards)
    legal = set()
    for shown, used, value, pure in deuce_melds(counts):
        nat = Counter(c for c in shown if c != "JK")  # (a 2 at its own place is shown)
        left = counts - nat
        wild = used - nat
        if wild:  # the wild card the engine lays: a joker first, then 2s in suit order
            first = next(w for w in _WILDS if left[w])
            if first not in wild:
                continue  # another entry lays that one
        rest = counts - used
        if _deuce_completable(
            tuple(sorted(rest.items())), 51 - turn_value - value, not (turn_pure or pure)
        ):
            legal.add("meld " + " ".join(shown))
    return legal


# a pool rich in melds and wild cards: high ranks of two suits, low spades and hearts,
# every 2 twice and two jokers
_DEUCE_POOL = (
    [r + s for r in "A789TJQK" for s in "SH"] * 2
    + ["3S", "4S", "5S", "3H", "4H", "5H"]
    + [r + s for r in "KQ" for s in "DC"]
    + ["2S", "2H", "2D", "2C"] * 2
    + ["JK"] * 2
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=helpers.SEEDS)
def test_opening_search_with_wild_2s_matches_brute_force(seed):
    """Random hands rich in 2s: the legal melds of a player who has not opened, before and
    during his opening (a random legal meld laid each time), are exactly the brute force's."""
    rng = random.Random(seed)
    pool = _DEUCE_POOL[:]
    rng.shuffle(pool)
    p0 = pool[:14]
    env = make_env(wild_deuces=True)
    p1 = [c for c in helpers.rest_of_pack(env, p0, pool[14:]) if c != "JK" and c[0] != "2"][:14]
    stock = helpers.rest_of_pack(env, p0, p1)
    rng.shuffle(stock)
    env.reset(seed=0, options={"hands": [p0, p1], "discard": [], "stock": stock, "dealer": 1})
    play(env, DrawStock())

    def ids(melds: set[str]) -> set[int]:  # (a wild 2 may be spelled as JK or as what it is)
        return {env.encode(Meld(tuple(m.split()[1:]))) for m in melds}

    while not opened(env)[0]:
        d = snapshot(env)
        want = oracle_deuce_opening_melds(d["hands"][0], d["turn_value"], d["turn_pure"])
        got = set(meld_moves(env))
        assert ids(got) == ids(want), (d["hands"][0], d["turn_value"], got - want, want - got)
        if not got:
            assert d["turn_value"] == 0  # a started opening can always be completed
            break
        play(env, Meld(tuple(sorted(got)[rng.randrange(len(got))].split()[1:])))
