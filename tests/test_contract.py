"""Scenario tests for the ``contract`` preset: Contract Rummy (seven deals, "may I" buying).

The rules are RULES.md section 4 "contract" (D-16; D-3 wild limits, D-8 empty stock) and
section 2 (melds): two decks and one joker a deck for 2-4 players (106 cards), three decks
and three jokers for 5-8 (159 cards); ace low or high, no wrap. Sets are 3+ cards of one
rank whose suits may repeat, with no size limit (a ``Meld`` lays 3 or 4, lay-offs grow it);
runs are 4+ cards of one suit (``min_run=4``); D-3: a meld holds at least two naturals and
no more wild cards than naturals. No joker swaps.

Each deal has its contract, the melds a player lays down together ("going down"):

====  =========================  =====
deal  contract                   cards
====  =========================  =====
1     2 sets                     10
2     1 set + 1 run              10
3     2 runs                     10
4     3 sets                     10
5     2 sets + 1 run             12
6     1 set + 2 runs             12
7     3 runs                     12
====  =========================  =====

Going down is a run of ``Meld`` moves in one turn making up exactly the contract (each
meld may be longer than the minimum, no extra meld); a first meld is legal only when the
rest can still be completed from the hand this turn; no discard once part of the contract
is laid and the player is not yet down. Once down (``to_dict()["opened"][seat]``) he lays
off on any meld, from that turn on, and makes no new meld; before that, no lay-off.
Deals 1-6 may end with a discard; in deal 7 every card is melded or laid off (no discard
may empty the hand, and no play may leave a single card that cannot be laid off).

Buying: a ``DrawStock`` while the discard pile is not empty (and the stock holds at least
2 cards) asks the others in turn order after the drawer, skipping the player who made
the last discard, players already down and players with no buys left (3 a deal). The
asked seat is ``agent_selection`` with only ``Buy``/``Pass`` in its mask;
``to_dict()["phase"] == "buy"``, ``["asked"]`` the asked seat, ``["current_player"]`` the
drawer. The first ``Buy`` takes the discard top and the stock top (a penalty card), then
the drawer draws the next stock card; if all pass the drawer draws the stock top.

Scoring is standard: the winner 0, each other player his hand: 2-9 5 points, T J Q K 10,
A 15, JK 25 (rewards: minus that). ``match=True`` plays deals ``contract_deal`` .. 7; the
lowest total wins.

These tests were written from the rule book and the agreed API (docs/design.md), before
the engine's contract code; every scenario is a crafted deal worked out by hand in the
comments and played through the public AEC API.

Conventions used in the comments:

* ``P0``/``P1``/... are ``player_0``/...; the dealer is the last seat, so P0 starts.
* A hand is written ``[7S 7H 7D]``; the stock top first. Sets read back from ``to_dict()``
  are in card-id order (suits S H D C), runs in rank order, ``JK`` where a joker stands.
* Unless a test is about buying, ``buy_limit=0`` switches buying off, so ``DrawStock``
  draws at once (the buying tests show what a question adds).
* Hand values: 2-9 = 5, T J Q K = 10, A = 15, JK = 25.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import seed_test

import rummy_env
from rummy_env import observation
from rummy_env.moves import Buy, Discard, DrawDiscard, DrawStock, LayOff, Meld, Pass
from tests import helpers
from tests.helpers import (
    assert_round_over,
    deal,
    hand,
    legal_strs,
    meld_moves,
    play,
    rest_of_pack,
    snapshot,
    table,
)

# ----------------------------------------------------------------- helpers


def make_env(num_players: int = 2, deal_no: int = 1, **overrides) -> rummy_env.raw_env:
    """An unwrapped contract env playing deal ``deal_no``."""
    return rummy_env.raw_env(
        "contract", num_players=num_players, contract_deal=deal_no, **overrides
    )


def quiet(num_players: int = 2, deal_no: int = 1, **overrides) -> rummy_env.raw_env:
    """A contract env with buying off (``buy_limit=0``): ``DrawStock`` draws at once."""
    return make_env(num_players, deal_no, buy_limit=0, **overrides)


def assert_illegal(env, move) -> None:
    helpers.assert_illegal(env, move, via="mask")


def same_cards(a, b) -> bool:
    return Counter(a) == Counter(b)


def opened(env) -> list[bool]:
    return snapshot(env)["opened"]


def asked(env) -> int | None:
    return snapshot(env)["asked"]


def mask_ids(env, agent: str) -> set[int]:
    return set(np.flatnonzero(env.observe(agent)["action_mask"]).tolist())


def assert_question(env, drawer: int, seat: int) -> None:
    """A buy question is open: ``seat`` is asked, ``drawer`` is still the player to play;
    only the asked agent has a mask, and it holds exactly Buy and Pass."""
    d = snapshot(env)
    assert (d["phase"], d["current_player"], d["asked"]) == ("buy", drawer, seat)
    assert env.agent_selection == f"player_{seat}"
    assert sorted(legal_strs(env)) == ["buy", "pass"]
    buy_pass = {env.unwrapped.encode(Buy()), env.unwrapped.encode(Pass())}
    for agent in env.agents:
        assert mask_ids(env, agent) == (buy_pass if agent == f"player_{seat}" else set()), agent


def assert_playing(env, seat: int) -> None:
    """No question: ``seat`` plays (meld, lay off, discard) after his draw."""
    d = snapshot(env)
    assert (d["phase"], d["current_player"], d["asked"]) == ("play", seat, None)
    assert env.agent_selection == f"player_{seat}"


def deal_short_stock(env, hands, stock, top) -> None:
    """A crafted deal whose stock is exactly ``stock`` (top first): every other card lies
    in the discard pile, ``top`` on top."""
    n = env.unwrapped.rules.num_players
    rest = rest_of_pack(env, *hands, stock, [top])
    env.reset(
        seed=0,
        options={
            "hands": [list(h) for h in hands],
            "discard": [*rest, top],
            "stock": list(stock),
            "dealer": n - 1,
        },
    )


def restored(env, num_players: int = 2, deal_no: int = 1, **overrides):
    """A fresh env of the same rules reset to ``env``'s saved state."""
    return helpers.restored(env, make_env(num_players, deal_no, **overrides))


def view_field(view, *names):
    """The first of ``names`` the observation View has (the contract fields' names were not
    fixed when this was written)."""
    for name in names:
        value = getattr(view, name, None)
        if value is not None:
            return value
    pytest.fail(f"the observation View has none of {names}: {sorted(vars(view))}")


# P1's junk hands (nothing here melds with anything in the tests that use them)
P1_10 = ["AS", "AH", "2D", "3S", "4H", "9C", "TS", "JD", "QS", "KH"]  # 30+20+40 = 90
P1_12 = ["AS", "AH", "2D", "2D", "3S", "4H", "9C", "9D", "TS", "JD", "QS", "KH"]  # 100


# ============================================================ 1. the preset


def test_preset_values():
    # RULES.md 4 contract: 2 decks with one joker each (2-4 players), ace low or high,
    # runs of 4+, sets repeat suits with no size limit (D-16), no joker swap, standard
    # scoring with A 15, JK 25, 2-9 5; deal 1 by default, 3 buys a deal, 10 cards.
    r = rummy_env.make_rules("contract", 3)
    assert "contract" in rummy_env.PRESETS
    assert (r.decks, r.jokers, r.num_cards) == (2, 1, 106)
    assert (r.ace, r.min_run, r.set_suits_distinct, r.max_set) == ("low_or_high", 4, False, 0)
    assert (r.joker_swap, r.scoring, r.meld_during_play) == (False, "standard", True)
    assert (r.ace_penalty, r.joker_penalty, r.low_card_penalty) == (15, 25, 5)
    assert (r.contract_deal, r.buy_limit, r.hand_size, r.match) == (1, 3, 10, False)
    # five or more players: three decks and three jokers, 159 cards
    r5 = rummy_env.make_rules("contract", 5)
    assert (r5.decks, r5.jokers, r5.num_cards) == (3, 1, 159)


@pytest.mark.parametrize(
    ("num_players", "deal_no", "cards", "jokers", "size"),
    [
        (2, 1, 106, 2, 10),
        (3, 2, 106, 2, 10),
        (3, 3, 106, 2, 10),
        (4, 4, 106, 2, 10),
        (4, 5, 106, 2, 12),
        (5, 5, 159, 3, 12),
        (3, 6, 106, 2, 12),
        (8, 7, 159, 3, 12),
        (8, 1, 159, 3, 10),
    ],
)
def test_pack_and_hand_sizes_of_each_deal(num_players, deal_no, cards, jokers, size):
    # A seeded deal: every hand holds the deal's cards (10 for deals 1-4, 12 for 5-7), one
    # card turned up, the rest in the stock; every seat has 3 buys, nobody is down.
    env = make_env(num_players, deal_no)
    env.reset(seed=deal_no)
    d = snapshot(env)
    full = helpers.pack(env.unwrapped.rules)
    assert sum(full.values()) == cards and full["JK"] == jokers
    assert helpers.places(d) == full
    assert [len(h) for h in d["hands"]] == [size] * num_players
    assert len(d["discard"]) == 1
    assert len(d["stock"]) == cards - num_players * size - 1
    assert d["buys"] == [3] * num_players
    assert d["opened"] == [False] * num_players
    assert (d["phase"], d["asked"], d["round"]) == ("draw", None, 0)
    assert env.unwrapped.rules.contract_deal == deal_no


# ============================================================ 2. the contracts

# deal, P0's hand (the deal's size), the card he draws, then for each step the meld moves
# legal before it and the meld he lays (None: the last step, after going down).
CONTRACTS = [
    (
        # two sets: 7s and 9s; the clubs run 3C-6C is no part of deal 1's contract
        1,
        ["7S", "7H", "7D", "9S", "9H", "9D", "3C", "4C", "5C", "6C"],
        "2H",
        [
            (["meld 7S 7H 7D", "meld 9S 9H 9D"], "7S 7H 7D"),
            (["meld 9S 9H 9D"], "9S 9H 9D"),
            ([], None),
        ],
    ),
    (
        # the same hand in deal 2 (set + run): after a set only the run; after the set and
        # the run the second set (9s) is not legal
        2,
        ["7S", "7H", "7D", "9S", "9H", "9D", "3C", "4C", "5C", "6C"],
        "2H",
        [
            (["meld 7S 7H 7D", "meld 9S 9H 9D", "meld 3C 4C 5C 6C"], "7S 7H 7D"),
            (["meld 3C 4C 5C 6C"], "3C 4C 5C 6C"),
            ([], None),
        ],
    ),
    (
        # two runs of hearts (7H missing: two runs); the drawn KC makes a set of Ks, which
        # is no part of deal 3's contract
        3,
        ["3H", "4H", "5H", "6H", "8H", "9H", "TH", "JH", "KS", "KD"],
        "KC",
        [
            (["meld 3H 4H 5H 6H", "meld 8H 9H TH JH"], "8H 9H TH JH"),
            (["meld 3H 4H 5H 6H"], "3H 4H 5H 6H"),
            ([], None),
        ],
    ),
    (
        # three sets; the drawn 6D makes 6D 7D 8D 9D, a run, not legal in deal 4
        4,
        ["7S", "7H", "7D", "8D", "9S", "9H", "9D", "KS", "KH", "KD"],
        "6D",
        [
            (["meld 7S 7H 7D", "meld 9S 9H 9D", "meld KS KH KD"], "7S 7H 7D"),
            (["meld 9S 9H 9D", "meld KS KH KD"], "KS KH KD"),
            (["meld 9S 9H 9D"], "9S 9H 9D"),
            ([], None),
        ],
    ),
    (
        # two sets + a run; with three sets in hand, after two of them only the run, and
        # after going down the third set (Ks) is not legal
        5,
        ["7S", "7H", "7D", "9S", "9H", "9D", "3C", "4C", "5C", "6C", "KS", "KH"],
        "KD",
        [
            (
                ["meld 7S 7H 7D", "meld 9S 9H 9D", "meld KS KH KD", "meld 3C 4C 5C 6C"],
                "7S 7H 7D",
            ),
            (["meld 9S 9H 9D", "meld KS KH KD", "meld 3C 4C 5C 6C"], "9S 9H 9D"),
            (["meld 3C 4C 5C 6C"], "3C 4C 5C 6C"),
            ([], None),
        ],
    ),
    (
        # a set + two runs (the drawn KH makes no set: one K more is missing)
        6,
        ["7S", "7H", "7D", "3C", "4C", "5C", "6C", "8H", "9H", "TH", "JH", "KS"],
        "KH",
        [
            (["meld 7S 7H 7D", "meld 3C 4C 5C 6C", "meld 8H 9H TH JH"], "3C 4C 5C 6C"),
            (["meld 7S 7H 7D", "meld 8H 9H TH JH"], "7S 7H 7D"),
            (["meld 8H 9H TH JH"], "8H 9H TH JH"),
            ([], None),
        ],
    ),
    (
        # three runs; the drawn 9S gives 5S-8S, 6S-9S and 5S-9S: each completes (6S-9S
        # leaves the 5S, which lays off on its low end; 5S-8S leaves the 9S, high end)
        7,
        ["3C", "4C", "5C", "6C", "8H", "9H", "TH", "JH", "5S", "6S", "7S", "8S"],
        "9S",
        [
            (
                [
                    "meld 3C 4C 5C 6C",
                    "meld 8H 9H TH JH",
                    "meld 5S 6S 7S 8S",
                    "meld 6S 7S 8S 9S",
                    "meld 5S 6S 7S 8S 9S",
                ],
                "3C 4C 5C 6C",
            ),
            (
                [
                    "meld 8H 9H TH JH",
                    "meld 5S 6S 7S 8S",
                    "meld 6S 7S 8S 9S",
                    "meld 5S 6S 7S 8S 9S",
                ],
                "8H 9H TH JH",
            ),
            (["meld 5S 6S 7S 8S", "meld 6S 7S 8S 9S", "meld 5S 6S 7S 8S 9S"], "5S 6S 7S 8S"),
            ([], None),
        ],
    ),
]


@pytest.mark.parametrize(
    ("deal_no", "p0", "drawn", "steps"), CONTRACTS, ids=[f"deal-{c[0]}" for c in CONTRACTS]
)
def test_going_down_with_exactly_the_contract(deal_no, p0, drawn, steps):
    # P0 holds the deal's contract (and in most deals a meld of the wrong kind, or one meld
    # too many); P1 holds junk. After P0's draw the meld moves are exactly those listed:
    # melds of the kinds his contract still needs, each completable from his hand. Until
    # the last one he is not down and may not discard; then opened[0] is True and no meld
    # is legal any more.
    env = quiet(2, deal_no)
    p1 = P1_10 if deal_no <= 4 else P1_12
    deal(env, [p0, p1], discard=["QC"], stock_top=[drawn])
    assert len(hand(env, 0)) == (10 if deal_no <= 4 else 12)
    play(env, DrawStock())
    for i, (moves, meld) in enumerate(steps):
        assert sorted(meld_moves(env)) == sorted(moves), f"step {i}"
        if meld is None:
            break
        play(env, Meld(tuple(meld.split())))
        if steps[i + 1][1] is not None:  # part of the contract laid, not yet down
            assert opened(env) == [False, False]
            assert_illegal(env, Discard(hand(env, 0)[0]))
    assert opened(env) == [True, False]
    assert len(table(env)) == len(steps) - 1


@pytest.mark.parametrize(
    ("drawn", "moves"),
    [("2S", []), ("9D", ["meld 7S 7H 7C", "meld 9S 9H 9D"])],
    ids=["refused", "accepted"],
)
def test_first_meld_needs_the_rest_of_the_contract_this_turn(drawn, moves):
    # Deal 1. P0 [7S 7H 7C 9S 9H 4D 5D KC QC JD]: one set and a pair of 9s.
    # Drawing 2S: the set of 7s alone cannot be completed to two sets this turn, so it may
    # not be laid (nothing may). Drawing 9D: both sets complete, each may come first.
    env = quiet(2, 1)
    p0 = ["7S", "7H", "7C", "9S", "9H", "4D", "5D", "KC", "QC", "JD"]
    deal(env, [p0, P1_10], discard=["2C"], stock_top=[drawn])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == sorted(moves)
    if not moves:
        assert_illegal(env, Meld(("7S", "7H", "7C")))
        assert all(s.startswith("discard") for s in legal_strs(env))


def test_wild_limits_in_a_contract_d3():
    # Deal 2 (set + run), two jokers in the pack. P0 [7S 7H 5H 6H 8H JK JK KC QD 3S]
    # draws 2C. A meld names its cards, a joker standing only where the hand holds no
    # natural for the place (docs/design.md: wild cards are filled canonically, naturals
    # from hand first), so with the 7H in hand no heart run puts a JK on 7H. First melds:
    # - 7S 7H JK (two naturals, one joker): then 5H 6H JK=7H 8H completes: legal;
    # - 7S 7H JK JK (two and two): the run would be 5H 6H _ 8H with no joker: not legal;
    # - every heart run holding the 7H leaves 7S + JK JK for the set, one natural and two
    #   wild cards (D-3): not legal; JK JK 5H 6H (3H-6H) leaves 7S 7H and no joker: no.
    # So only 7S 7H JK; after it, only 5H 6H JK 8H (one joker left; 4H-7H or 6H-9H would
    # need two). P0 is down, discards 3S; P1 draws KH and discards it; P0 draws 7H: it
    # lays off on the set of 7s, not on the run (its 7H place holds the joker: no swap,
    # and the ends are 4H and 9H); no swap move exists (joker_swap=False).
    env = quiet(2, 2)
    p0 = ["7S", "7H", "5H", "6H", "8H", "JK", "JK", "KC", "QD", "3S"]
    deal(env, [p0, P1_10], discard=["2H"], stock_top=["2C", "KH", "7H"])
    play(env, DrawStock())
    assert meld_moves(env) == ["meld 7S 7H JK"]
    assert_illegal(env, Meld(("7S", "7H", "JK", "JK")))
    assert_illegal(env, Meld(("5H", "6H", "7H", "8H")))
    play(env, Meld(("7S", "7H", "JK")))
    assert meld_moves(env) == ["meld 5H 6H JK 8H"]
    play(env, Meld(("5H", "6H", "JK", "8H")))
    assert opened(env) == [True, False]
    assert table(env) == [(0, ["7S", "7H", "JK"]), (0, ["5H", "6H", "JK", "8H"])]
    play(env, Discard("3S"), DrawStock(), Discard("KH"), DrawStock())
    strs = legal_strs(env)
    assert "lay off 7H on meld 0" in strs
    assert "lay off 7H on meld 1" not in strs
    assert not [s for s in strs if s.startswith("swap")]


def test_ace_low_or_high_never_round_the_corner():
    # Deal 3 (two runs). P0 [JH QH KH AH AS 2S 3S 4S KS 9D] draws 5C. Runs: J-Q-K-A of
    # hearts (ace high) and A-2-3-4 of spades (ace low); K-A-2-3 of spades wraps: no run.
    # After going down, KS does not lay off below the AS either.
    env = quiet(2, 3)
    p0 = ["JH", "QH", "KH", "AH", "AS", "2S", "3S", "4S", "KS", "9D"]
    deal(env, [p0, P1_10], discard=["2C"], stock_top=["5C"])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == sorted(["meld JH QH KH AH", "meld AS 2S 3S 4S"])
    play(env, Meld(("AS", "2S", "3S", "4S")), Meld(("JH", "QH", "KH", "AH")))
    assert table(env) == [(0, ["AS", "2S", "3S", "4S"]), (0, ["JH", "QH", "KH", "AH"])]
    assert not [s for s in legal_strs(env) if s.startswith("lay off KS")]


# ================================================= 3. melds, lay-offs, going out


def test_going_out_by_discard_in_deal_1_scores_the_contract_values():
    # 3 players, deal 1, 6 cards each, default buying.
    # P0 [7S 7S 7H 9D 9C 9C]
    # P1 [AS 2H 9S TD JK QH] = 15 + 5 + 5 + 10 + 25 + 10 = 70
    # P2 [3C 4C 8H KD KH 5S] = 5 + 5 + 5 + 10 + 10 + 5 = 40
    # up-card 4D, stock: KC ...
    # P0 draws: the first draw of the deal asks P1, then P2; both pass; P0 gets KC. He
    # lays 7S 7S 7H and 9D 9C 9C (suits repeat, D-16), discards KC: out.
    env = make_env(3, 1, hand_size=6)
    p0 = ["7S", "7S", "7H", "9D", "9C", "9C"]
    p1 = ["AS", "2H", "9S", "TD", "JK", "QH"]
    p2 = ["3C", "4C", "8H", "KD", "KH", "5S"]
    deal(env, [p0, p1, p2], discard=["4D"], stock_top=["KC"])
    play(env, DrawStock())
    assert_question(env, drawer=0, seat=1)
    play(env, Pass())
    assert_question(env, drawer=0, seat=2)
    play(env, Pass())
    assert_playing(env, 0)
    assert same_cards(hand(env, 0), p0 + ["KC"])
    assert sorted(meld_moves(env)) == ["meld 7S 7S 7H", "meld 9D 9C 9C"]
    play(env, Meld(("7S", "7S", "7H")), Meld(("9D", "9C", "9C")))
    assert opened(env) == [True, False, False]
    play(env, Discard("KC"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 70, 40],
        rewards={"player_0": 0, "player_1": -70, "player_2": -40},
    )
    assert all(env.terminations.values())


def test_longer_sets_and_a_set_of_five_by_lay_off():
    # Deal 1, 9 cards. P0 [7S 7S 7H 7D 9H 9H 9C 9C 9D] draws QC.
    # First melds: every set of 3 or more of the 7s {7S 7S 7H 7D} (4 of them) and of the
    # 9s {9H 9H 9D 9C 9C} (5 threes, 3 fours and the five: D-16, no size limit).
    # He lays 7S 7S 7H 7D and 9H 9H 9C 9C (down), lays off 9D on his set of 9s in the
    # same turn (5 cards), discards QC: out.
    # P1 [KS KH 2C 3D 4H 5S 6D 8C AC] = 10 + 10 + 6 x 5 + 15 = 65.
    env = quiet(2, 1, hand_size=9)
    p0 = ["7S", "7S", "7H", "7D", "9H", "9H", "9C", "9C", "9D"]
    p1 = ["KS", "KH", "2C", "3D", "4H", "5S", "6D", "8C", "AC"]
    deal(env, [p0, p1], discard=["2H"], stock_top=["QC"])
    play(env, DrawStock())
    sevens = ["7S 7S 7H", "7S 7S 7D", "7S 7H 7D", "7S 7S 7H 7D"]
    nines = ["9H 9H 9C", "9H 9H 9D", "9H 9C 9C", "9H 9D 9C", "9D 9C 9C"]
    nines += ["9H 9H 9C 9C", "9H 9H 9D 9C", "9H 9D 9C 9C", "9H 9H 9D 9C 9C"]
    assert sorted(meld_moves(env)) == sorted("meld " + m for m in sevens + nines)
    play(env, Meld(("7S", "7S", "7H", "7D")), Meld(("9H", "9H", "9C", "9C")))
    assert opened(env) == [True, False]
    assert "lay off 9D on meld 1" in legal_strs(env)
    play(env, LayOff("9D", 1))
    assert table(env) == [(0, ["7S", "7S", "7H", "7D"]), (0, ["9H", "9H", "9D", "9C", "9C"])]
    play(env, Discard("QC"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 65])


def test_a_set_of_five_in_one_meld_and_lay_offs_past_it():
    # D-16: with several decks a set may repeat suits and has no size limit.
    # Deal 1, 9 cards. P0 [7S 7S 7H 7H 7D 7C 5S 5H 5D] draws QC. 7S 7H 7D 7C 7S is one
    # legal Meld (marked in his mask), so is the set of all six 7s. He lays the five and
    # 5S 5H 5D (down), lays off the last 7H on the five (6 cards), discards QC: out.
    # P1 [KS KH 2C 3D 4H 5C 6D 8C AC] = 10 + 10 + 6 x 5 + 15 = 65.
    env = quiet(2, 1, hand_size=9)
    p0 = ["7S", "7S", "7H", "7H", "7D", "7C", "5S", "5H", "5D"]
    p1 = ["KS", "KH", "2C", "3D", "4H", "5C", "6D", "8C", "AC"]
    deal(env, [p0, p1], discard=["2H"], stock_top=["QC"])
    play(env, DrawStock())
    five = env.encode(Meld(("7S", "7H", "7D", "7C", "7S")))
    assert env.observe("player_0")["action_mask"][five]
    assert "meld 7S 7S 7H 7H 7D 7C" in meld_moves(env)
    play(env, Meld(("7S", "7H", "7D", "7C", "7S")), Meld(("5S", "5H", "5D")))
    assert opened(env) == [True, False]
    assert table(env)[0] == (0, ["7S", "7S", "7H", "7D", "7C"])
    play(env, LayOff("7H", 0))
    assert table(env)[0] == (0, ["7S", "7S", "7H", "7H", "7D", "7C"])
    play(env, Discard("QC"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 65])


def test_longer_run_and_a_set_repeating_a_suit():
    # Deal 2 (set + run), 9 cards. P0 [KS KD KD 2C 3C 4C 5C 6C 7C] draws 9H.
    # First melds: the set KS KD KD and every clubs run of 4+ inside 2C-7C: 2-5, 3-6, 4-7,
    # 2-6, 3-7, 2-7 (no run of 3). He lays KS KD KD and 2C-7C (6 cards), discards 9H: out.
    # P1 [AS AH QD QC TS 4S 5H 9S 3D] = 15 + 15 + 10 + 10 + 10 + 4 x 5 = 80.
    env = quiet(2, 2, hand_size=9)
    p0 = ["KS", "KD", "KD", "2C", "3C", "4C", "5C", "6C", "7C"]
    p1 = ["AS", "AH", "QD", "QC", "TS", "4S", "5H", "9S", "3D"]
    deal(env, [p0, p1], discard=["2H"], stock_top=["9H"])
    play(env, DrawStock())
    runs = ["2C 3C 4C 5C", "3C 4C 5C 6C", "4C 5C 6C 7C", "2C 3C 4C 5C 6C", "3C 4C 5C 6C 7C"]
    runs.append("2C 3C 4C 5C 6C 7C")
    assert sorted(meld_moves(env)) == sorted("meld " + m for m in ["KS KD KD", *runs])
    play(env, Meld(("KS", "KD", "KD")), Meld(("2C", "3C", "4C", "5C", "6C", "7C")))
    assert table(env) == [(0, ["KS", "KD", "KD"]), (0, ["2C", "3C", "4C", "5C", "6C", "7C"])]
    play(env, Discard("9H"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 80])


@pytest.mark.parametrize(
    "p0",
    [
        ["3H", "4H", "5H", "6H", "8H", "9H", "TH", "JH"],
        ["5S", "5S", "6S", "6S", "7S", "7S", "8S", "8S"],
    ],
    ids=["3H-6H+8H-JH", "5S-8S-twice"],
)
def test_two_runs_of_one_suit_in_deal_3(p0):
    # Deal 3, 8 cards. Two runs of one contract are separate melds and may be of one suit
    # (D-16): 3H-6H and 8H-JH, or (two decks) 5S-8S twice. P0 draws 2C, lays the two runs
    # one after the other (the second is legal after the first), discards 2C: out.
    # P1 [KS KH QD JC 9D 4C 3H AD] = 4 x 10 + 3 x 5 + 15 = 70.
    env = quiet(2, 3, hand_size=8)
    p1 = ["KS", "KH", "QD", "JC", "9D", "4C", "3H", "AD"]
    deal(env, [p0, p1], discard=["2H"], stock_top=["2C"])
    first, second = (p0[:4], p0[4:]) if p0[0] == "3H" else (p0[::2], p0[1::2])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == sorted(
        {"meld " + " ".join(first), "meld " + " ".join(second)}
    )
    play(env, Meld(tuple(first)))
    assert opened(env) == [False, False]
    assert meld_moves(env) == ["meld " + " ".join(second)]
    play(env, Meld(tuple(second)))
    assert opened(env) == [True, False]
    assert table(env) == [(0, first), (0, second)]
    play(env, Discard("2C"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 70])


def test_going_out_by_the_last_meld_in_deal_4():
    # Deal 4 (three sets), 8 cards. P0 [4S 4H 4D 8D 8C 8C QS QH] draws the second QS:
    # 4S 4H 4D, 8D 8C 8C, QS QS QH use all 9 cards; the last meld empties the hand: out
    # with no discard (a first meld that leaves nothing at all is fine).
    # P1 [AS 2H 3C 5D 6S TD JK KC] = 15 + 4 x 5 + 10 + 25 + 10 = 80.
    env = quiet(2, 4, hand_size=8)
    p0 = ["4S", "4H", "4D", "8D", "8C", "8C", "QS", "QH"]
    p1 = ["AS", "2H", "3C", "5D", "6S", "TD", "JK", "KC"]
    deal(env, [p0, p1], discard=["2D"], stock_top=["QS"])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == ["meld 4S 4H 4D", "meld 8D 8C 8C", "meld QS QS QH"]
    play(env, Meld(("4S", "4H", "4D")), Meld(("8D", "8C", "8C")), Meld(("QS", "QS", "QH")))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 80])


def test_lay_offs_only_after_going_down_on_anyones_meld():
    # Deal 1, 10 cards, buying off.
    # P0 [7S 7H 7C 9S 9H 9D KS KH KD 4C]  P1 [7D 8S 8H 8D QH QD QC JS 3S 3H]
    # up-card 2C; stock: 2H 5S 9C ...
    # P0 draws 2H: any of his three sets may come first. After 7S 7H 7C he may not discard;
    # after 9S 9H 9D he is down and KS KH KD is no longer legal; he discards 4C.
    # P1 draws 5S: not down, he may not lay 7D off on P0's 7s (meld 0), also not after his
    # first set; after 8S 8H 8D and QH QD QC (melds 2, 3) he is down and lays 7D off on
    # P0's meld 0 in the same turn, then discards 5S.
    # P0 draws 9C: still no new meld (his Ks stay in hand); he lays 9C off on his meld 1.
    env = quiet(2, 1)
    p0 = ["7S", "7H", "7C", "9S", "9H", "9D", "KS", "KH", "KD", "4C"]
    p1 = ["7D", "8S", "8H", "8D", "QH", "QD", "QC", "JS", "3S", "3H"]
    deal(env, [p0, p1], discard=["2C"], stock_top=["2H", "5S", "9C"])
    play(env, DrawStock())
    assert sorted(meld_moves(env)) == ["meld 7S 7H 7C", "meld 9S 9H 9D", "meld KS KH KD"]
    play(env, Meld(("7S", "7H", "7C")))
    assert sorted(meld_moves(env)) == ["meld 9S 9H 9D", "meld KS KH KD"]
    assert_illegal(env, Discard("4C"))
    play(env, Meld(("9S", "9H", "9D")))
    assert opened(env) == [True, False]
    assert meld_moves(env) == []
    assert_illegal(env, Meld(("KS", "KH", "KD")))
    play(env, Discard("4C"))

    play(env, DrawStock())
    assert_illegal(env, LayOff("7D", 0))
    play(env, Meld(("8S", "8H", "8D")))
    assert_illegal(env, LayOff("7D", 0))
    assert_illegal(env, Discard("5S"))
    play(env, Meld(("QH", "QD", "QC")))
    assert opened(env) == [True, True]
    assert "lay off 7D on meld 0" in legal_strs(env)
    play(env, LayOff("7D", 0), Discard("5S"))
    assert table(env) == [
        (0, ["7S", "7H", "7D", "7C"]),
        (0, ["9S", "9H", "9D"]),
        (1, ["8S", "8H", "8D"]),
        (1, ["QH", "QD", "QC"]),
    ]
    assert same_cards(hand(env, 1), ["JS", "3S", "3H"])

    play(env, DrawStock())
    assert meld_moves(env) == []
    play(env, LayOff("9C", 1))
    assert table(env)[1] == (0, ["9S", "9H", "9D", "9C"])
    play(env, Discard("2H"))
    assert same_cards(hand(env, 0), ["KS", "KH", "KD"])


def test_taken_discard_may_not_be_discarded_and_opens_no_question():
    # 3 players, deal 1, default buying. P0 takes the up-card 9D (DrawDiscard): no question,
    # he plays on at once; discarding the 9D this turn is illegal, any other card is fine.
    env = make_env(3, 1, hand_size=3)
    deal(env, [["AS", "3S", "5S"], ["2H", "4H", "6H"], ["3D", "5D", "7D"]], discard=["9D"])
    play(env, DrawDiscard())
    assert_playing(env, 0)
    assert_illegal(env, Discard("9D"))
    play(env, Discard("AS"))
    assert snapshot(env)["discard"] == ["AS"]


# ====================================================================== 4. deal 7


def test_deal_7_going_down_that_would_leave_a_dead_card_is_refused():
    # Deal 7 (three runs), 12 cards, buying off.
    # P0 [3C 4C 5C 6C 8H 9H TH JH 5S 6S 7S 8S]  P1 junk = 100. Stock: QD KC 9S ...
    # Turn 1: P0 draws QD. Laying the three runs would leave the QD alone: it lays off
    # nowhere and may not be discarded (a discard may not empty the hand in deal 7): a
    # dead end, so no meld is legal (not even the first: the contract could not be
    # finished). Only discards are legal; he discards QD.
    # P1 draws KC, discards KC.
    # Turn 2: P0 draws 9S: he lays the three runs of 4, keeps the 9S: now the only legal
    # move is to lay it off on 5S-8S (meld 2), not to discard it: out.
    env = quiet(2, 7)
    p0 = ["3C", "4C", "5C", "6C", "8H", "9H", "TH", "JH", "5S", "6S", "7S", "8S"]
    deal(env, [p0, P1_12], discard=["2H"], stock_top=["QD", "KC", "9S"])
    play(env, DrawStock())
    assert meld_moves(env) == []
    assert sorted(legal_strs(env)) == sorted(f"discard {c}" for c in p0 + ["QD"])
    assert_illegal(env, Meld(("3C", "4C", "5C", "6C")))
    play(env, Discard("QD"), DrawStock(), Discard("KC"), DrawStock())
    play(env, Meld(("3C", "4C", "5C", "6C")), Meld(("8H", "9H", "TH", "JH")))
    play(env, Meld(("5S", "6S", "7S", "8S")))
    assert opened(env) == [True, False]
    assert hand(env, 0) == ["9S"]
    assert legal_strs(env) == ["lay off 9S on meld 2"]
    assert_illegal(env, Discard("9S"))
    play(env, LayOff("9S", 2))
    assert table(env)[2] == (0, ["5S", "6S", "7S", "8S", "9S"])
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 100])


def test_deal_7_a_lay_off_leaving_a_dead_card_is_refused():
    # Deal 7 with 13 cards (hand_size=13), buying off.
    # P0 [3C 4C 5C 6C 8H 9H TH JH 5S 6S 7S 8S QD]  P1 junk + KD = 110. Stock: 9S KC TS ...
    # Turn 1: P0 draws 9S, lays the three runs and keeps [9S QD]: laying off 9S would
    # leave QD alone (dead: no lay-off, no emptying discard), so it is illegal; he may
    # discard either card. He discards QD.
    # P1 draws KC, discards it.
    # Turn 2: P0 [9S] draws TS. Laying off 9S is legal now (TS then follows it); with
    # [TS] left he may not discard it (the hand would empty), only lay it off: out.
    env = quiet(2, 7, hand_size=13)
    p0 = ["3C", "4C", "5C", "6C", "8H", "9H", "TH", "JH", "5S", "6S", "7S", "8S", "QD"]
    deal(env, [p0, [*P1_12, "KD"]], discard=["2H"], stock_top=["9S", "KC", "TS"])
    play(env, DrawStock())
    play(env, Meld(("3C", "4C", "5C", "6C")), Meld(("8H", "9H", "TH", "JH")))
    play(env, Meld(("5S", "6S", "7S", "8S")))
    assert same_cards(hand(env, 0), ["9S", "QD"])
    assert sorted(legal_strs(env)) == ["discard 9S", "discard QD"]
    assert_illegal(env, LayOff("9S", 2))
    play(env, Discard("QD"), DrawStock(), Discard("KC"), DrawStock())
    assert same_cards(hand(env, 0), ["9S", "TS"])
    assert "lay off 9S on meld 2" in legal_strs(env)
    play(env, LayOff("9S", 2))
    assert legal_strs(env) == ["lay off TS on meld 2"]
    assert_illegal(env, Discard("TS"))
    play(env, LayOff("TS", 2))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 110])


# ======================================================================= 5. buying

# 4 players, deal 1, 7 cards each; up-card 5H; stock KH QD JC 9H 8D 7C ...
BUY_HANDS = [
    ["AS", "3S", "5S", "7S", "9S", "JS", "KS"],
    ["2H", "4H", "6H", "8H", "TH", "QH", "AH"],
    ["3D", "5D", "7D", "9D", "JD", "KD", "2D"],
    ["4C", "6C", "8C", "TC", "QC", "AC", "3C"],
]
BUY_STOCK = ["KH", "QD", "JC", "9H", "8D", "7C"]


def buy_deal(**overrides):
    env = make_env(4, 1, hand_size=7, **overrides)
    deal(env, BUY_HANDS, discard=["5H"], stock_top=BUY_STOCK)
    return env


def test_buy_question_asks_the_others_in_turn_order():
    # P0's first draw of the deal from the stock (up-card 5H showing): nobody has discarded
    # yet, so P1, P2, P3 are asked in turn, each the agent to act with only Buy/Pass in
    # its mask (the others' masks all zero), P0 still the current player. All pass: P0
    # draws KH and plays on; the 5H stays; buys unchanged.
    env = buy_deal()
    assert snapshot(env)["buys"] == [3, 3, 3, 3]
    play(env, DrawStock())
    assert_question(env, drawer=0, seat=1)
    assert len(hand(env, 0)) == 7 and snapshot(env)["stock"][0] == "KH"
    assert_illegal(env, DrawStock())
    play(env, Pass())
    assert_question(env, drawer=0, seat=2)
    play(env, Pass())
    assert_question(env, drawer=0, seat=3)
    play(env, Pass())
    assert_playing(env, 0)
    d = snapshot(env)
    assert same_cards(d["hands"][0], BUY_HANDS[0] + ["KH"])
    assert all(same_cards(d["hands"][p], BUY_HANDS[p]) for p in (1, 2, 3))
    assert (d["discard"], d["stock"][0], d["buys"]) == (["5H"], "QD", [3, 3, 3, 3])


def test_first_buy_takes_discard_and_penalty_then_the_drawer_draws():
    # P0 draws: P1 passes, P2 buys: P2 takes the 5H and the stock top KH (9 cards), P3 is
    # not asked, P2's buys 3 -> 2; P0 then draws the next card, QD, and plays on.
    # P0 discards AS. P1 draws: P0 made the last discard and P1 draws, so P2 then P3 are
    # asked; both pass; P1 gets JC, discards it.
    # P2 draws: asked are P3 then P0 (P1 the last discarder is skipped); P3 passes, P0
    # buys the JC and the penalty 9H (buys [2, 3, 2, 3]); P2 draws 8D.
    env = buy_deal()
    play(env, DrawStock(), Pass())
    assert_question(env, drawer=0, seat=2)
    play(env, Buy())
    assert_playing(env, 0)
    d = snapshot(env)
    assert same_cards(d["hands"][2], BUY_HANDS[2] + ["5H", "KH"])
    assert same_cards(d["hands"][0], BUY_HANDS[0] + ["QD"])
    assert (d["discard"], d["stock"][0], d["buys"]) == ([], "JC", [3, 3, 2, 3])
    assert d["known"][2] == ["5H"]  # the bought card was face up: everyone knows it

    play(env, Discard("AS"), DrawStock())
    assert_question(env, drawer=1, seat=2)
    play(env, Pass())
    assert_question(env, drawer=1, seat=3)
    play(env, Pass())
    assert_playing(env, 1)
    assert same_cards(hand(env, 1), BUY_HANDS[1] + ["JC"])
    play(env, Discard("JC"), DrawStock())
    assert_question(env, drawer=2, seat=3)
    play(env, Pass())
    assert_question(env, drawer=2, seat=0)
    play(env, Buy())
    assert_playing(env, 2)
    d = snapshot(env)
    assert same_cards(d["hands"][0], [*BUY_HANDS[0][1:], "QD", "JC", "9H"])
    assert same_cards(d["hands"][2], BUY_HANDS[2] + ["5H", "KH", "8D"])
    assert (d["discard"], d["stock"][0], d["buys"]) == (["AS"], "7C", [2, 3, 2, 3])


def test_players_down_or_out_of_buys_are_not_asked():
    # 4 players, deal 1, 7 cards, buy_limit=1.
    # P0 [7S 7H 7D 9S 9H 9C KD]; up-card 5S; stock KH QS JC 9D 8D ...
    # 1. P0 draws: P1 buys (5S + KH; P1 has no buy left); P0 draws QS, goes down with
    #    7S 7H 7D + 9S 9H 9C, discards KD.
    # 2. P1 draws: P2, P3 asked (P0 is the last discarder), both pass; P1 gets JC, discards.
    # 3. P2 draws: P3 asked and passes; P0 is down and P1 the last discarder: P2 gets 9D.
    # 4. P3 draws: P0 down, P1 without buys, P2 the last discarder: no question at all,
    #    P3 gets 8D at once.
    env = make_env(4, 1, hand_size=7, buy_limit=1)
    hands = [
        ["7S", "7H", "7D", "9S", "9H", "9C", "KD"],
        ["2H", "4H", "6H", "8H", "TH", "QH", "AH"],
        ["3D", "5D", "7C", "9D", "JD", "KC", "2D"],
        ["4C", "6C", "8C", "TC", "QC", "AC", "3C"],
    ]
    deal(env, hands, discard=["5S"], stock_top=["KH", "QS", "JC", "9D", "8D"])
    assert snapshot(env)["buys"] == [1, 1, 1, 1]
    play(env, DrawStock())
    assert_question(env, drawer=0, seat=1)
    play(env, Buy())
    assert snapshot(env)["buys"] == [1, 0, 1, 1]
    assert same_cards(hand(env, 1), hands[1] + ["5S", "KH"])
    play(env, Meld(("7S", "7H", "7D")), Meld(("9S", "9H", "9C")), Discard("KD"))
    assert opened(env) == [True, False, False, False]
    play(env, DrawStock())
    assert_question(env, drawer=1, seat=2)
    play(env, Pass(), Pass())
    assert_playing(env, 1)
    play(env, Discard("JC"), DrawStock())
    assert_question(env, drawer=2, seat=3)
    play(env, Pass())
    assert_playing(env, 2)
    assert "9D" in hand(env, 2)
    play(env, Discard("9D"), DrawStock())
    assert_playing(env, 3)
    assert same_cards(hand(env, 3), hands[3] + ["8D"])


SHORT_HANDS = [["AS", "3S", "5S"], ["2H", "4H", "6H"], ["3D", "5D", "7D"]]


@pytest.mark.parametrize("case", ["buy_limit=0", "empty-pile", "stock-of-one", "two-players"])
def test_draws_that_open_no_question(case):
    # DrawStock draws at once (no question) when buying is off (buy_limit=0: no seat has a
    # buy), when the discard pile is empty, when the stock holds a single card, and with
    # two players once the other one has discarded (the last discarder is not asked).
    if case == "buy_limit=0":
        env = make_env(3, 1, hand_size=3, buy_limit=0)
        deal(env, SHORT_HANDS, discard=["9D"], stock_top=["KC"])
        assert snapshot(env)["buys"] == [0, 0, 0]
    elif case == "empty-pile":
        env = make_env(3, 1, hand_size=3)
        deal(env, SHORT_HANDS, discard=[], stock_top=["KC"])
    elif case == "stock-of-one":
        env = make_env(3, 1, hand_size=3)
        deal_short_stock(env, SHORT_HANDS, ["KC"], "9D")
        assert snapshot(env)["stock"] == ["KC"]
    else:
        env = make_env(2, 1, hand_size=3)
        deal(env, SHORT_HANDS[:2], discard=["9D"], stock_top=["QC", "KC"])
        play(env, DrawStock())
        assert_question(env, drawer=0, seat=1)
        play(env, Pass(), Discard("AS"))  # P1 to draw; P0 made the last discard
        play(env, DrawStock())
        assert_playing(env, 1)
        assert "KC" in hand(env, 1)
        return
    play(env, DrawStock())
    assert_playing(env, 0)
    assert same_cards(hand(env, 0), SHORT_HANDS[0] + ["KC"])
    assert not {"buy", "pass"} & set(legal_strs(env))


def test_question_with_a_stock_of_two():
    # The stock holds exactly two cards (KC QC), the rest lies in the discard pile under
    # the top 9D: a question opens; P1 buys 9D and KC, P0 draws QC.
    env = make_env(3, 1, hand_size=3)
    deal_short_stock(env, SHORT_HANDS, ["KC", "QC"], "9D")
    play(env, DrawStock())
    assert_question(env, drawer=0, seat=1)
    play(env, Buy())
    assert_playing(env, 0)
    assert same_cards(hand(env, 1), SHORT_HANDS[1] + ["9D", "KC"])
    assert same_cards(hand(env, 0), SHORT_HANDS[0] + ["QC"])


def test_buy_and_pass_outside_a_question_are_illegal():
    # Buy() and Pass() are legal only while a question is open: not in the draw phase, not
    # after the draw; an IllegalActionError leaves the state unchanged.
    env = make_env(3, 1, hand_size=3)
    deal(env, SHORT_HANDS, discard=["9D"], stock_top=["KC"])
    assert_illegal(env, Buy())
    assert_illegal(env, Pass())
    play(env, DrawStock(), Pass(), Pass())
    assert_playing(env, 0)
    assert_illegal(env, Buy())
    assert_illegal(env, Pass())


def test_observation_shows_buys_gone_down_and_the_deal():
    # 3 players, deal 3 (two runs). P0 [3H 4H 5H 6H 8H 9H TH JH KS KD]; up-card 2C;
    # stock 7C QD ... P0 draws: P1 buys (2C + 7C), P0 gets QD, lays both runs (down).
    # P0's view (offsets 0 self, 1 P1, 2 P2): buys [3, 2, 3], down [T, F, F], deal 3;
    # P1's view (self, P2, P0): buys [2, 3, 3], down [F, F, T].
    env = make_env(3, 3)
    p0 = ["3H", "4H", "5H", "6H", "8H", "9H", "TH", "JH", "KS", "KD"]
    p1 = ["AS", "AH", "2D", "3S", "4H", "9C", "TS", "JD", "QS", "KH"]
    p2 = ["AD", "AC", "2S", "3D", "4D", "9S", "TD", "JC", "QC", "5D"]
    deal(env, [p0, p1, p2], discard=["2C"], stock_top=["7C", "QD"])
    rules = env.unwrapped.rules
    play(env, DrawStock(), Buy())
    play(env, Meld(("3H", "4H", "5H", "6H")), Meld(("8H", "9H", "TH", "JH")))
    assert snapshot(env)["buys"] == [3, 2, 3]
    v0 = observation.read(env.observe("player_0"), rules)
    v1 = observation.read(env.observe("player_1"), rules)
    assert list(view_field(v0, "buys", "buys_left")) == [3, 2, 3]
    assert list(view_field(v1, "buys", "buys_left")) == [2, 3, 3]
    assert v0.opened == [True, False, False]
    assert v1.opened == [False, False, True]
    assert view_field(v0, "deal", "contract_deal") == 3
    assert v1.hand_sizes[0] == 12  # P1: 10 + the 2C and the penalty 7C


# ============================================================== 6. save and restore


def test_save_restore_mid_question_continues_identically():
    # 4 players (BUY_HANDS). P0 draws; P1 is asked. The saved state restores to the same
    # question (P1 to act, only Buy/Pass); both games then go on identically: P1 passes,
    # P2 buys, P0 discards, P1 draws (P2 asked), ...
    env = buy_deal()
    play(env, DrawStock())
    other = restored(env, 4, 1, hand_size=7)
    assert_question(other, drawer=0, seat=1)
    helpers.play_both([env, other], Pass(), Buy(), Discard("AS"), DrawStock())
    assert_question(other, drawer=1, seat=2)
    third = restored(other, 4, 1, hand_size=7)
    helpers.play_both([env, other, third], Pass(), Pass(), Discard("2H"))
    assert snapshot(third)["buys"] == [3, 3, 2, 3]


def test_save_restore_mid_contract_keeps_the_turn_rules():
    # Deal 1, P0 [7S 7H 7C 9S 9H 9D KS KH KD 4C] has laid 7S 7H 7C (not yet down): the
    # restored game still refuses a discard and offers the same melds; both go on alike.
    env = quiet(2, 1)
    p0 = ["7S", "7H", "7C", "9S", "9H", "9D", "KS", "KH", "KD", "4C"]
    deal(env, [p0, P1_10], discard=["2C"], stock_top=["2H"])
    play(env, DrawStock(), Meld(("7S", "7H", "7C")))
    other = restored(env, 2, 1, buy_limit=0)
    assert_illegal(other, Discard("4C"))
    assert sorted(meld_moves(other)) == ["meld 9S 9H 9D", "meld KS KH KD"]
    helpers.play_both([env, other], Meld(("KS", "KH", "KD")), Discard("4C"))
    assert snapshot(other)["opened"] == [True, False]


# =================================================================== 7. the match


def test_match_of_deals_6_and_7_accumulates_totals():
    # match=True, contract_deal=6, 2 players (dealer P1: P0 starts deal 6).
    # Deal 6 (set + two runs), 12 cards:
    #   P0 [7S 7H 7D 7C 3C 4C 5C 6C 8H 9H TH JH]
    #   P1 [KS KS QD QD JC 9S 9S 2H 4D AD 5S 8C] = 5 x 10 + 6 x 5 + 15 = 95
    #   up-card TD; stock AH KD ...
    #   P0 draws; P1 (asked: nobody discarded yet) buys TD + AH: 95 + 10 + 15 = 120,
    #   buys [3, 2]; P0 draws KD, lays 7S 7H 7D 7C (a set of four), 3C-6C and 8H-JH,
    #   discards KD: out. Round 0: [0, 120], totals [0, 120].
    # Deal 7 (round 1): the dealer moves to P0, P1 starts; 12 cards each (the match began
    # at deal 6: no growth); buys back to [3, 3]. Crafted by restoring the state:
    #   P1 [3C 4C 5C 6C 8H 9H TH JH 5S 6S 7S 8S]
    #   P0 [AS AC KH KC QS QH JD JD 2S 3D 4H 6D] = 30 + 60 + 20 = 110
    #   up-card 2C; stock 9S ...
    #   P1 draws: P0 is asked and passes; P1 gets 9S and lays 3C-6C, 8H-JH and 5S-9S: out
    #   by his last meld (no discard in deal 7). Round 1: [110, 0], totals [110, 120].
    # The match is over after deal 7: the lowest total, P0, wins it.
    env = make_env(2, 6, match=True)
    p0 = ["7S", "7H", "7D", "7C", "3C", "4C", "5C", "6C", "8H", "9H", "TH", "JH"]
    p1 = ["KS", "KS", "QD", "QD", "JC", "9S", "9S", "2H", "4D", "AD", "5S", "8C"]
    deal(env, [p0, p1], discard=["TD"], stock_top=["AH", "KD"])
    play(env, DrawStock())
    assert_question(env, drawer=0, seat=1)
    play(env, Buy())
    assert snapshot(env)["buys"] == [3, 2]
    play(env, Meld(("7S", "7H", "7D", "7C")))
    play(env, Meld(("3C", "4C", "5C", "6C")), Meld(("8H", "9H", "TH", "JH")))
    play(env, Discard("KD"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 120],
        rewards={"player_0": 0, "player_1": -120},
    )
    assert env.infos["player_0"]["round"] == 0
    assert not any(env.terminations.values())
    assert "match_winner" not in env.infos["player_0"]
    d = snapshot(env)
    assert (d["round"], d["dealer"], d["current_player"], d["phase"]) == (1, 0, 1, "draw")
    assert [len(h) for h in d["hands"]] == [12, 12]
    assert (d["buys"], d["opened"], d["table"], d["totals"]) == (
        [3, 3],
        [False, False],
        [],
        [0, 120],
    )
    assert env.agent_selection == "player_1"

    q1 = ["3C", "4C", "5C", "6C", "8H", "9H", "TH", "JH", "5S", "6S", "7S", "8S"]
    q0 = ["AS", "AC", "KH", "KC", "QS", "QH", "JD", "JD", "2S", "3D", "4H", "6D"]
    d["hands"] = [q0, q1]
    d["discard"] = ["2C"]
    d["stock"] = ["9S", *rest_of_pack(env, q0, q1, ["2C", "9S"])]
    d["known"] = [[], []]
    env.reset(options={"state": d})
    play(env, DrawStock())
    assert_question(env, drawer=1, seat=0)
    play(env, Pass())
    assert_playing(env, 1)
    play(env, Meld(("3C", "4C", "5C", "6C")), Meld(("8H", "9H", "TH", "JH")))
    play(env, Meld(("5S", "6S", "7S", "8S", "9S")))
    assert_round_over(
        env,
        winner=1,
        reason="went_out",
        round_scores=[110, 0],
        totals=[110, 120],
        rewards={"player_0": -110, "player_1": 0},
    )
    assert env.infos["player_0"]["round"] == 1
    assert all(env.terminations.values())
    assert env.infos["player_1"]["match_winner"] == 0


def test_match_hands_grow_from_deal_5():
    # match=True from deal 4 (three sets), 10 cards: P0 [4S 4S 4H 4D 8D 8C 8C QS QH QD]
    # draws KC, lays 4S 4S 4H 4D, 8D 8C 8C, QS QH QD, discards KC: out. P1 (P1_10) pays
    # 90. Deal 5 (round 1) deals 12 cards each (the match began before deal 5).
    env = make_env(2, 4, match=True)
    p0 = ["4S", "4S", "4H", "4D", "8D", "8C", "8C", "QS", "QH", "QD"]
    deal(env, [p0, P1_10], discard=["2C"], stock_top=["KC"])
    play(env, DrawStock(), Pass())
    play(env, Meld(("4S", "4S", "4H", "4D")), Meld(("8D", "8C", "8C")), Meld(("QS", "QH", "QD")))
    play(env, Discard("KC"))
    assert env.infos["player_0"]["round_scores"] == [0, 90]
    d = snapshot(env)
    assert d["round"] == 1
    assert [len(h) for h in d["hands"]] == [12, 12]


# ================================================================= 8. bad input


@pytest.mark.parametrize(
    ("preset", "overrides", "words"),
    [
        ("contract", {"contract_deal": 8}, ["contract_deal", "1-7"]),
        ("contract", {"contract_deal": 0}, ["contract_deal", "1-7"]),
        ("contract", {"buy_limit": -1}, ["buy_limit"]),
        ("basic", {"contract_deal": 2}, ["contract_deal"]),
        ("basic", {"buy_limit": 2}, ["buy_limit"]),
        ("indian", {"contract_deal": 3}, ["contract_deal"]),
    ],
)
def test_bad_rules_are_clear_errors(preset, overrides, words):
    with pytest.raises(ValueError) as err:
        rummy_env.make_rules(preset, 3, **overrides)
    for w in words:
        assert w in str(err.value)


@pytest.mark.parametrize("num_players", [1, 9])
def test_player_count_out_of_range(num_players):
    with pytest.raises(ValueError, match="num_players"):
        rummy_env.make_rules("contract", num_players)


# ============================================================ 9. PettingZoo checks


@pytest.mark.parametrize("num_players", [3, 4])
def test_pettingzoo_api(num_players):
    env = rummy_env.env("contract", num_players=num_players)
    assert not helpers.api_test_warnings(env, num_cycles=100)


@pytest.mark.parametrize("num_players", [3, 4])
def test_pettingzoo_seed(num_players):
    seed_test(lambda: rummy_env.env("contract", num_players=num_players), num_cycles=100)


# ===================================================== the variant agent


def expert_move(env, seat: int) -> str:
    """What contract-expert plays for ``seat`` (the agent to act) now."""
    import agents

    bot = agents.make("variant", env.unwrapped.rules, seat)
    assert bot.name == "contract-expert"
    obs = env.observe(f"player_{seat}")
    return str(env.unwrapped.decode(bot.act(obs["observation"], obs["action_mask"])))


def test_contract_distance_counts_missing_cards_and_jokers():
    from agents.contract import contract_distance
    from rummy_env.cards import parse_card

    def dist(cards: str, sets: int, runs: int) -> int:
        counts = [0] * 53
        for c in cards.split():
            counts[parse_card(c)] += 1
        return contract_distance(counts, sets, runs, ace_high=True)

    assert dist("7S 7S 7H 9D 9C 9C", 2, 0) == 0  # two sets, a suit repeated in each
    assert dist("7S 7H 9D 9C KS", 2, 0) == 2  # each set lacks one card
    assert dist("7S 7H 9D 9C JK", 2, 0) == 1  # a joker fills one of them
    assert dist("5H 6H 8H 2C", 0, 1) == 1  # 5-8H lacks the 7H
    assert dist("QS KS AS 2S", 0, 1) == 1  # no wrap: Q-K-A needs the J
    assert dist("5H 6H 7H 8H 9H TH JH QH", 0, 2) == 0  # two runs of one suit


def test_expert_goes_down_and_buys_what_it_needs():
    # 3 players, deal 1 (two sets), 7 cards, buying on. P1 holds 7S 7H 9D 9C KS QD 2C:
    # each set lacks one card. P0 draws from the stock with the 9H up: P1, asked first,
    # buys it (9D 9C 9H is a set), taking the penalty KD; P2 is not asked; P0 draws 5S and
    # discards AS. P1 draws from the stock: P2 is asked about the AS (P0 discarded it) and
    # passes (it helps no set of his); P1 gets 7D and goes down at once.
    env = make_env(3, 1, hand_size=7)
    hands = [
        ["AS", "3D", "5C", "8S", "TD", "JC", "4H"],
        ["7S", "7H", "9D", "9C", "KS", "QD", "2C"],
        ["2S", "4D", "6C", "8H", "TS", "QC", "3H"],
    ]
    deal(env, hands, discard=["9H"], stock_top=["KD", "5S", "7D"])
    play(env, DrawStock())
    assert asked(env) == 1
    assert expert_move(env, 1) == "buy"
    play(env, Buy())
    assert asked(env) is None
    play(env, Discard("AS"), DrawStock())
    assert asked(env) == 2
    assert expert_move(env, 2) == "pass"
    play(env, Pass())
    assert same_cards(hand(env, 1), hands[1] + ["9H", "KD", "7D"])
    assert expert_move(env, 1).startswith("meld")
    assert meld_moves(env) == ["meld 7S 7H 7D", "meld 9H 9D 9C"]  # (suit order S H D C)
