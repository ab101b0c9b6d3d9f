"""Scenario tests for the ``basic`` preset: crafted deals played through the env.

Every scenario is a small crafted deal (mostly ``hand_size=3`` or ``4`` so a
round is a handful of steps) whose outcome is worked out by hand in the
comments, following docs/rules.md sections 2-7, then played through the public AEC
API (``raw_env``, ``encode``, ``step``, ``legal_moves``, ``state.to_dict()``).

Conventions used in the comments:

* ``P0``/``P1``/... are seats ``player_0``/``player_1``/...; with ``dealer=n-1``
  (the helper's default) ``P0`` starts.
* A hand is written ``[5H 6H 7H]``; the stock is written top first.
* Penalty values (docs/rules.md 6): A=1 (``ace_penalty``), 2-10 face, J Q K=10,
  joker 15.
"""

from __future__ import annotations

import pytest

import rummy_env
from rummy_env import engine
from rummy_env.moves import Discard, DrawDiscard, DrawStock, LayOff, Meld, SwapJoker
from tests import helpers
from tests.helpers import assert_round_over, deal, hand, meld_moves, play, snapshot, table

# ----------------------------------------------------------------- helpers


def make_env(num_players: int = 2, **overrides) -> rummy_env.raw_env:
    """An unwrapped basic env; ``hand_size`` defaults to 3 to keep deals small."""
    overrides.setdefault("hand_size", 3)
    return rummy_env.raw_env("basic", num_players=num_players, **overrides)


def assert_illegal(env: rummy_env.raw_env, move) -> None:
    """``move`` is not legal (nor among the legal moves), and stepping it raises
    and leaves the state unchanged."""
    helpers.assert_illegal(env, move, via="moves")


# ===================================================== scoring: card values


@pytest.mark.parametrize(
    ("p1_hand", "overrides", "penalty"),
    [
        # A=1, 2 and 9 face value: 1 + 2 + 9
        (["AS", "2D", "9C"], {}, 12),
        # T J Q all count 10: 10 + 10 + 10
        (["TS", "JD", "QC"], {}, 30),
        # a set still in hand is penalised in full: K K K = 30
        (["KS", "KD", "KC"], {}, 30),
        # joker 15 (jokers=1): 15 + 1 + 5
        (["JK", "AD", "5C"], {"jokers": 1}, 21),
        # Parlett: aces count 11 when Q-K-A is allowed: 11 + 11 + 4
        (["AS", "AD", "4C"], {"ace": "low_or_high", "ace_penalty": 11}, 26),
    ],
    ids=["ace-2-9", "ten-jack-queen", "kings", "joker", "ace_penalty_11"],
)
def test_penalty_values(p1_hand, overrides, penalty):
    # P0 [5H 6H 7H]  stock: 8S ...          P1 = p1_hand (never gets to play)
    # P0 draws 8S, melds 5H 6H 7H, discards 8S -> out (went_out).
    # Standard scoring: P0 0, P1 pays his hand value = `penalty`.
    env = make_env(**overrides)
    deal(env, [["5H", "6H", "7H"], p1_hand], discard=["9H"], stock_top=["8S"])
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert all(env.terminations.values())
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, penalty],
        rewards={"player_0": 0, "player_1": -penalty},
    )


def test_penalties_three_players_each_pay_own_hand():
    # P0 [5H 6H 7H]   P1 [KS QD AC] = 10+10+1 = 21   P2 [2S 3D 4C] = 2+3+4 = 9
    # P0: draw 8S, meld 5H 6H 7H, discard 8S -> out.
    env = make_env(num_players=3)
    deal(
        env,
        [["5H", "6H", "7H"], ["KS", "QD", "AC"], ["2S", "3D", "4C"]],
        discard=["9H"],
        stock_top=["8S"],
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 21, 9],
        rewards={"player_0": 0, "player_1": -21, "player_2": -9},
    )


# ============================================= scoring: winner takes all


def test_winner_takes_all_rummy_first_turn_doubles():
    # scoring="winner_takes_all", 3 players.
    # P0 [5H 6H 7H]   P1 [KS KD 2C] = 22   P2 [AS 3D 9C] = 13      stock: 8S ...
    # P0 draws 8S, melds 5H 6H 7H, discards 8S: out in one turn, nothing laid
    # before -> "rummy", multiplier 2.
    # P0 scores (22 + 13) * 2 = 70; rewards P1 -44, P2 -26.
    env = make_env(num_players=3, scoring="winner_takes_all")
    deal(
        env,
        [["5H", "6H", "7H"], ["KS", "KD", "2C"], ["AS", "3D", "9C"]],
        discard=["9H"],
        stock_top=["8S"],
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[70, 0, 0],
        rummy=True,
        rewards={"player_0": 70, "player_1": -44, "player_2": -26},
    )


def test_winner_takes_all_rummy_on_a_later_turn_still_doubles():
    # A rummy is going out in one turn with nothing melded or laid off in an
    # EARLIER turn; plain draw/discard turns before do not spoil it.
    # P0 [5H 6H 9C]   P1 [KS KD 2C]     stock: QH 4D 7H ...
    # t1 P0: draw QH, discard QH          -> P0 [5H 6H 9C]
    # t1 P1: draw 4D, discard 4D          -> P1 [KS KD 2C] = 22
    # t2 P0: draw 7H, meld 5H 6H 7H, discard 9C -> out, rummy.
    # P0 scores 22 * 2 = 44; P1 reward -44.
    env = make_env(scoring="winner_takes_all")
    deal(
        env, [["5H", "6H", "9C"], ["KS", "KD", "2C"]], discard=["9H"], stock_top=["QH", "4D", "7H"]
    )
    play(env, DrawStock(), Discard("QH"))
    play(env, DrawStock(), Discard("4D"))
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("9C"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[44, 0],
        rummy=True,
        rewards={"player_0": 44, "player_1": -44},
    )


def test_winner_takes_all_rummy_multiplier_one_switches_bonus_off():
    # As the first-turn rummy above with 2 players and rummy_multiplier=1:
    # P1 [KS KD 2C] = 22 -> P0 +22, P1 -22 (still flagged a rummy).
    env = make_env(scoring="winner_takes_all", rummy_multiplier=1)
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9H"], stock_top=["8S"])
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[22, 0],
        rummy=True,
        rewards={"player_0": 22, "player_1": -22},
    )


def test_winner_takes_all_after_earlier_meld_no_bonus():
    # hand_size=4.  P0 [5H 6H 7H 9S]   P1 [QS QD 3C 2D]   stock: KC AC 8H ...
    # t1 P0: draw KC, meld 5H 6H 7H, discard KC  -> P0 [9S]      (P0 melded: no rummy later)
    # t1 P1: draw AC, discard QS                 -> P1 [QD 3C 2D AC] = 10+3+2+1 = 16
    # t2 P0: draw 8H, lay off 8H on meld 0 (5H-8H), discard 9S -> out by discard.
    # P0 scores 16 (no doubling); P1 reward -16.
    env = make_env(hand_size=4, scoring="winner_takes_all")
    deal(
        env,
        [["5H", "6H", "7H", "9S"], ["QS", "QD", "3C", "2D"]],
        discard=["9H"],
        stock_top=["KC", "AC", "8H"],
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("KC"))
    play(env, DrawStock(), Discard("QS"))
    play(env, DrawStock(), LayOff("8H", 0), Discard("9S"))
    assert table(env) == [(0, ["5H", "6H", "7H", "8H"])]
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[16, 0],
        rummy=False,
        rewards={"player_0": 16, "player_1": -16},
    )


def test_winner_takes_all_earlier_layoff_only_spoils_rummy():
    # An earlier lay-off (no meld of one's own) also counts as "laid off earlier".
    # hand_size=4.  P0 [8H KS KD QC]   P1 [5H 6H 7H 9S]   stock: 2C 4C 3D 5C KH ...
    # t1 P0: draw 2C, discard QC                    -> P0 [8H KS KD 2C]
    # t1 P1: draw 4C, meld 5H 6H 7H, discard 9S      -> P1 [4C]
    # t2 P0: draw 3D, lay off 8H on P1's meld 0, discard 2C -> P0 [KS KD 3D]
    # t2 P1: draw 5C, discard 4C                     -> P1 [5C] = 5
    # t3 P0: draw KH, meld KS KD KH, discard 3D -> out; not a rummy (lay-off in t2).
    # P0 scores 5; P1 reward -5.
    env = make_env(hand_size=4, scoring="winner_takes_all")
    deal(
        env,
        [["8H", "KS", "KD", "QC"], ["5H", "6H", "7H", "9S"]],
        discard=["9H"],
        stock_top=["2C", "4C", "3D", "5C", "KH"],
    )
    play(env, DrawStock(), Discard("QC"))
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("9S"))
    play(env, DrawStock(), LayOff("8H", 0), Discard("2C"))
    play(env, DrawStock(), Discard("4C"))
    play(env, DrawStock(), Meld(("KS", "KD", "KH")), Discard("3D"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[5, 0],
        rummy=False,
        rewards={"player_0": 5, "player_1": -5},
    )


# ================================================================ going out


def test_go_out_by_discard():
    # P0 [5H 6H 7H]   P1 [KS KD 2C] = 22   stock: AS ...
    # P0: draw AS, meld 5H 6H 7H (hand [AS]), discard AS -> out by discard.
    env = make_env()
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9C"], stock_top=["AS"])
    play(env, DrawStock(), Meld(("5H", "6H", "7H")))
    assert helpers.legal_strs(env) == ["discard AS"]
    assert not any(env.terminations.values())
    play(env, Discard("AS"))
    assert snapshot(env)["discard"] == ["9C", "AS"]
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 22],
        rewards={"player_0": 0, "player_1": -22},
    )


def test_go_out_by_meld_without_discard():
    # P0 [5H 6H 7H]   P1 [KS KD 2C] = 22   stock: 8H ...
    # P0: draw 8H, meld 5H 6H 7H 8H -> hand empty: out by meld, nothing discarded.
    env = make_env()
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9C"], stock_top=["8H"])
    play(env, DrawStock(), Meld(("5H", "6H", "7H", "8H")))
    assert all(env.terminations.values())
    assert snapshot(env)["discard"] == ["9C"]
    assert table(env) == [(0, ["5H", "6H", "7H", "8H"])]
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 22],
        rewards={"player_0": 0, "player_1": -22},
    )


def test_go_out_by_layoff_on_opponents_meld_owner_unchanged():
    # hand_size=4.  P0 [KS KD KH 8H]   P1 [5H 6H 7H QC]   stock: 9C 2D 4H ...
    # t1 P0: draw 9C, meld KS KD KH (meld 0), discard 9C  -> P0 [8H]
    # t1 P1: draw 2D, meld 5H 6H 7H (meld 1), discard QC  -> P1 [2D] = 2
    # t2 P0: draw 4H; lay off 8H then 4H on P1's run (meld 1) -> hand empty,
    #        out by lay-off. Meld 1 is now 4H-8H and still belongs to P1.
    # Standard: P0 0, P1 pays 2.
    env = make_env(hand_size=4)
    deal(
        env,
        [["KS", "KD", "KH", "8H"], ["5H", "6H", "7H", "QC"]],
        discard=["9H"],
        stock_top=["9C", "2D", "4H"],
    )
    play(env, DrawStock(), Meld(("KS", "KD", "KH")), Discard("9C"))
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("QC"))
    play(env, DrawStock(), LayOff("8H", 1))
    assert table(env)[1] == (1, ["5H", "6H", "7H", "8H"])
    assert not any(env.terminations.values())
    play(env, LayOff("4H", 1))
    assert table(env) == [(0, ["KS", "KH", "KD"]), (1, ["4H", "5H", "6H", "7H", "8H"])]
    assert snapshot(env)["discard"] == ["9H", "9C", "QC"]
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 2],
        rewards={"player_0": 0, "player_1": -2},
    )


def test_layoff_fourth_suit_on_opponents_set():
    # hand_size=4.  P0 [9S 9D 9H QC]   P1 [9C 2D 3S KD]   stock: 4C 5D ...
    # t1 P0: draw 4C, meld 9S 9D 9H, discard QC           -> P0 [4C]
    # t1 P1: draw 5D, lay off 9C on P0's set (now 4 suits, owner P0), discard KD
    #        -> P1 [2D 3S 5D]. A full set accepts nothing more.
    env = make_env(hand_size=4)
    deal(
        env,
        [["9S", "9D", "9H", "QC"], ["9C", "2D", "3S", "KD"]],
        discard=["TH"],
        stock_top=["4C", "5D"],
    )
    play(env, DrawStock(), Meld(("9S", "9D", "9H")), Discard("QC"))
    play(env, DrawStock())
    assert "lay off 9C on meld 0" in helpers.legal_strs(env)
    play(env, LayOff("9C", 0), Discard("KD"))
    assert table(env) == [(0, ["9S", "9H", "9D", "9C"])]
    assert hand(env, 1) == ["3S", "2D", "5D"]
    assert env.agent_selection == "player_0"


# ============================================================ ace placement


def _meld_hand_and_go_out(env, hands, top, p1_penalty):
    """Dealt ``hands`` (pile 9H, stock ``top`` ...), P0 draws ``top``; his whole hand
    is the only legal meld: he melds it and goes out by discarding ``top``, and P1
    pays ``p1_penalty``."""
    deal(env, hands, discard=["9H"], stock_top=[top])
    play(env, DrawStock())
    assert meld_moves(env) == [" ".join(["meld", *hands[0]])]
    play(env, Meld(tuple(hands[0])))
    assert table(env) == [(0, hands[0])]
    play(env, Discard(top))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, p1_penalty])


def _assert_never_a_meld(env, hands, cards):
    """Dealt ``hands`` (pile 9H, stock 8C ...), P0 draws 8C and may meld nothing:
    ``cards`` are no meld at all, not even an action the env can encode."""
    deal(env, hands, discard=["9H"], stock_top=["8C"])
    play(env, DrawStock())
    assert meld_moves(env) == []
    with pytest.raises(ValueError):
        env.unwrapped.encode(Meld(cards))


def test_ace_low_forbids_queen_king_ace():
    # ace="low" (basic default): [QS KS AS] is no meld; P0 can only discard.
    _assert_never_a_meld(make_env(), [["QS", "KS", "AS"], ["KD", "QD", "2C"]], ("QS", "KS", "AS"))


def test_ace_low_or_high_allows_queen_king_ace():
    # ace="low_or_high": P0 [QS KS AS] draws 8C, melds Q-K-A, discards 8C -> out.
    # P1 [KD QD 2C] = 22.
    _meld_hand_and_go_out(
        make_env(ace="low_or_high"), [["QS", "KS", "AS"], ["KD", "QD", "2C"]], "8C", p1_penalty=22
    )


@pytest.mark.parametrize("ace", ["low", "low_or_high"])
def test_ace_low_run_always_legal(ace):
    # A-2-3 is a run under both ace options.
    env = make_env(ace=ace)
    deal(env, [["AS", "2S", "3S"], ["KD", "QD", "2C"]], discard=["9H"], stock_top=["8C"])
    play(env, DrawStock())
    assert meld_moves(env) == ["meld AS 2S 3S"]


@pytest.mark.parametrize("ace", ["low", "low_or_high"])
def test_king_ace_two_never_a_run(ace):
    # K-A-2 "round the corner" is never a run (docs/rules.md 3).
    _assert_never_a_meld(
        make_env(ace=ace), [["KS", "AS", "2S"], ["KD", "QD", "2C"]], ("KS", "AS", "2S")
    )


@pytest.mark.parametrize(("ace", "allowed"), [("low", False), ("low_or_high", True)])
def test_ace_layoff_on_jack_queen_king(ace, allowed):
    # hand_size=4.  P0 [JS QS KS AS]  stock: 8C ...
    # P0 draws 8C, melds J-Q-K; the ace extends it (high) only with low_or_high.
    env = make_env(hand_size=4, ace=ace)
    deal(
        env, [["JS", "QS", "KS", "AS"], ["KD", "QD", "2C", "3C"]], discard=["9H"], stock_top=["8C"]
    )
    play(env, DrawStock(), Meld(("JS", "QS", "KS")))
    if allowed:
        play(env, LayOff("AS", 0))
        assert table(env) == [(0, ["JS", "QS", "KS", "AS"])]
    else:
        assert_illegal(env, LayOff("AS", 0))


# ===================================================================== jokers


def test_joker_in_run_meld():
    # jokers=1.  P0 [5H JK 7H]   P1 [KS KD 2C] = 22   stock: 2D ...
    # P0 draws 2D; the only meld is the run 5H (JK=6H) 7H. Meld it, discard 2D -> out.
    _meld_hand_and_go_out(
        make_env(jokers=1), [["5H", "JK", "7H"], ["KS", "KD", "2C"]], "2D", p1_penalty=22
    )


def test_joker_in_set_meld():
    # jokers=2.  P0 [9S 9D JK]   P1 [KS JK 2C] = 10+15+2 = 27   stock: 2D ...
    # P0 draws 2D, melds 9S 9D JK (JK = a missing suit), discards 2D -> out.
    env = make_env(jokers=2)
    deal(env, [["9S", "9D", "JK"], ["KS", "JK", "2C"]], discard=["9H"], stock_top=["2D"])
    play(env, DrawStock())
    assert meld_moves(env) == ["meld 9S 9D JK"]
    play(env, Meld(("9S", "9D", "JK")), Discard("2D"))
    assert table(env) == [(0, ["9S", "9D", "JK"])]
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 27])


def test_wild_limit_one_natural_two_jokers_not_a_meld():
    # D-3: at least two naturals and wilds <= naturals.
    # jokers=2.  P0 [5H JK JK] draws 2D: 5H JK JK (1 natural) is no meld, nor 2D JK JK.
    env = make_env(jokers=2)
    deal(env, [["5H", "JK", "JK"], ["KS", "KD", "2C"]], discard=["9H"], stock_top=["2D"])
    play(env, DrawStock())
    assert meld_moves(env) == []
    for cards in (("5H", "JK", "JK"), ("JK", "5H", "JK"), ("9S", "JK", "JK")):
        with pytest.raises(ValueError):
            env.unwrapped.encode(Meld(cards))


def test_wild_limit_two_naturals_two_jokers_is_a_meld():
    # jokers=2, hand_size=4.  P0 [5H 6H JK JK] draws 2D.
    # wilds (2) <= naturals (2): 5H 6H JK JK (run 5H-8H) is legal; every
    # legal meld offered holds >= 2 naturals and no more wilds than naturals.
    env = make_env(jokers=2, hand_size=4)
    deal(
        env, [["5H", "6H", "JK", "JK"], ["KS", "KD", "2C", "3C"]], discard=["9H"], stock_top=["2D"]
    )
    play(env, DrawStock())
    melds = meld_moves(env)
    assert "meld 5H 6H JK JK" in melds
    for m in melds:
        cards = m.split()[1:]
        wild = cards.count("JK")
        assert len(cards) - wild >= 2 and wild <= len(cards) - wild, m
    play(env, Meld(("5H", "6H", "JK", "JK")))
    assert table(env) == [(0, ["5H", "6H", "JK", "JK"])]
    assert hand(env, 0) == ["2D"]


def test_wild_limit_option_off_allows_one_natural():
    # wilds_at_most_naturals=False: one natural suffices, so 5H JK JK melds.
    env = make_env(jokers=2, wilds_at_most_naturals=False)
    deal(env, [["5H", "JK", "JK"], ["KS", "KD", "2C"]], discard=["9H"], stock_top=["2D"])
    play(env, DrawStock())
    assert "meld 5H JK JK" in meld_moves(env)


@pytest.mark.parametrize(
    ("end", "cards"), [("high", ["5H", "6H", "7H", "JK"]), ("low", ["JK", "5H", "6H", "7H"])]
)
def test_joker_layoff_on_run_names_its_end(end, cards):
    # jokers=1, hand_size=4.  P0 [5H 6H 7H JK]   P1 [KS KD 2C 3C] = 25   stock: 2D ...
    # P0: draw 2D, meld 5H 6H 7H, lay off JK at the named end (JK = 8H or 4H),
    # discard 2D -> out.
    env = make_env(jokers=1, hand_size=4)
    deal(
        env, [["5H", "6H", "7H", "JK"], ["KS", "KD", "2C", "3C"]], discard=["9H"], stock_top=["2D"]
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")))
    assert {"lay off JK on meld 0 (low end)", "lay off JK on meld 0 (high end)"} <= set(
        helpers.legal_strs(env)
    )
    play(env, LayOff("JK", 0, end))
    assert table(env) == [(0, cards)]
    play(env, Discard("2D"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 25])


def test_swap_joker_from_run_into_hand():
    # jokers=1, hand_size=4.
    # P0 [5H JK 7H QS]   P1 [6H 9S 9D KC]   stock: 2C 2D 8H ...
    # t1 P0: draw 2C, meld 5H JK 7H (JK = 6H), discard QS   -> P0 [2C]
    # t1 P1: draw 2D; swap 6H for the joker in P0's run: run 5H 6H 7H (owner P0),
    #        P1 [9S 9D KC 2D JK]; meld 9S 9D JK; discard KC  -> P1 [2D] = 2
    # t2 P0: draw 8H, lay off 8H (5H-8H), discard 2C -> out. P1 pays 2.
    env = make_env(jokers=1, hand_size=4)
    deal(
        env,
        [["5H", "JK", "7H", "QS"], ["6H", "9S", "9D", "KC"]],
        discard=["9H"],
        stock_top=["2C", "2D", "8H"],
    )
    play(env, DrawStock(), Meld(("5H", "JK", "7H")), Discard("QS"))
    play(env, DrawStock())
    assert "swap 6H for the joker in meld 0" in helpers.legal_strs(env)
    play(env, SwapJoker("6H", 0))
    assert table(env) == [(0, ["5H", "6H", "7H"])]
    assert sorted(hand(env, 1)) == sorted(["9S", "9D", "KC", "2D", "JK"])
    assert snapshot(env)["known"][1] == ["JK"]  # everyone saw the joker go to P1
    play(env, Meld(("9S", "9D", "JK")), Discard("KC"))
    play(env, DrawStock(), LayOff("8H", 0), Discard("2C"))
    assert table(env) == [(0, ["5H", "6H", "7H", "8H"]), (1, ["9S", "9D", "JK"])]
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 2])


def test_swap_joker_in_set_any_missing_suit():
    # jokers=1, hand_size=4.  P0 [9S 9D JK QS]   P1 [9H 9C 4D KC]   stock: 2C 2D ...
    # t1 P0: draw 2C, meld 9S 9D JK, discard QS. The joker stands for a missing
    # suit (H or C): P1 may swap with 9H or 9C, nothing else.
    env = make_env(jokers=1, hand_size=4)
    deal(
        env,
        [["9S", "9D", "JK", "QS"], ["9H", "9C", "4D", "KC"]],
        discard=["TH"],
        stock_top=["2C", "2D"],
    )
    play(env, DrawStock(), Meld(("9S", "9D", "JK")), Discard("QS"))
    play(env, DrawStock())
    swaps = {s for s in helpers.legal_strs(env) if s.startswith("swap")}
    assert swaps == {"swap 9H for the joker in meld 0", "swap 9C for the joker in meld 0"}
    play(env, SwapJoker("9C", 0))
    assert table(env) == [(0, ["9S", "9D", "9C"])]
    assert "JK" in hand(env, 1)


def test_swap_joker_never_leads_to_a_dead_end():
    """Regression: a swap could leave only undiscardable jokers (found by the scenario tests)."""
    # jokers=2 (pack 54), hand_size=5.
    # P0 [5H 5D 5C JK JK]   P1 [5S 9S 9D 9H 9C]   stock: KC ...
    # t1 P0: draw KC, meld 5H 5D 5C JK, discard JK          -> discard top JK
    # t1 P1: take the JK from the discard pile (now it may not be discarded),
    #        meld 9S 9D 9H 9C                                -> P1 [5S JK]
    # Now "discard 5S" goes out. "swap 5S" would leave P1 [JK JK]: both copies of
    # the card taken from the pile, no meld (no naturals), both sets full, so no
    # legal move at all. docs/rules.md 5.8: such a move must be masked.
    env = make_env(jokers=2, hand_size=5)
    deal(
        env,
        [["5H", "5D", "5C", "JK", "JK"], ["5S", "9S", "9D", "9H", "9C"]],
        discard=["2C"],
        stock_top=["KC"],
    )
    play(env, DrawStock(), Meld(("5H", "5D", "5C", "JK")), Discard("JK"))
    play(env, DrawDiscard(), Meld(("9S", "9D", "9H", "9C")))
    assert "discard 5S" in helpers.legal_strs(env)
    # every legal move from here leads to a finished round or a state with a legal move
    raw = env.unwrapped
    for a in list(raw.legal_actions()):
        state = raw.state.copy()
        engine.apply_action(state, a)
        assert engine.is_terminal(state) or engine.legal_actions(state), (
            f"{raw.decode(a)} leads to a dead end: {state.to_dict()['hands']}"
        )


# ==================================================== no-rediscard rule


def test_drawn_discard_may_not_be_discarded():
    # P0 [5H 6H 9C]  discard pile: 7D (top).
    # P0 takes 7D: legal discards are 5H 6H 9C only; discarding 7D raises and
    # changes nothing.
    env = make_env()
    deal(env, [["5H", "6H", "9C"], ["KS", "KD", "2C"]], discard=["7D"])
    play(env, DrawDiscard())
    assert hand(env, 0) == ["5H", "6H", "7D", "9C"]
    assert snapshot(env)["forbidden"] == "7D"
    assert helpers.discard_moves(env) == {"discard 5H", "discard 6H", "discard 9C"}
    assert_illegal(env, Discard("7D"))
    play(env, Discard("9C"))
    assert snapshot(env)["discard"] == ["9C"]


def test_no_rediscard_applies_to_every_copy_two_decks():
    # decks=2 (D-1): P0 [7D 5H 9C]  discard pile: 7D. After taking the 7D the
    # other copy of 7D may not be discarded either.
    env = make_env(decks=2)
    deal(env, [["7D", "5H", "9C"], ["KS", "KD", "2C"]], discard=["7D"])
    play(env, DrawDiscard())
    assert hand(env, 0) == ["5H", "7D", "7D", "9C"]
    assert helpers.discard_moves(env) == {"discard 5H", "discard 9C"}
    assert_illegal(env, Discard("7D"))


def test_taking_discard_illegal_when_hand_only_copies_of_it():
    # decks=2, hand_size=1.  P0 [7D]  discard pile: 7D. Taking it would leave
    # nothing discardable: only the stock may be drawn.
    env = make_env(decks=2, hand_size=1)
    deal(env, [["7D"], ["KS"]], discard=["7D"])
    assert helpers.legal_strs(env) == ["draw stock"]
    assert_illegal(env, DrawDiscard())


def test_meld_leaving_only_the_drawn_discard_is_illegal():
    # P0 [5H 6H 7H]  discard pile: KC.  P0 takes KC (may not discard it).
    # meld 5H 6H 7H would leave only KC -> illegal; only 5H 6H 7H may be discarded.
    env = make_env()
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["KC"])
    play(env, DrawDiscard())
    assert meld_moves(env) == []
    assert set(helpers.legal_strs(env)) == {"discard 5H", "discard 6H", "discard 7H"}
    assert_illegal(env, Meld(("5H", "6H", "7H")))


def test_meld_with_drawn_discard_choices():
    # P0 [5H 6H 7H]  discard pile: 8H.  P0 takes 8H (may not discard it).
    #   meld 5H 6H 7H    leaves [8H]  -> illegal
    #   meld 6H 7H 8H    leaves [5H]  -> legal
    #   meld 5H 6H 7H 8H leaves []    -> legal (out)
    env = make_env()
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["8H"])
    play(env, DrawDiscard())
    assert set(meld_moves(env)) == {"meld 6H 7H 8H", "meld 5H 6H 7H 8H"}
    assert_illegal(env, Meld(("5H", "6H", "7H")))


def test_layoff_of_last_other_card_next_to_drawn_discard_is_illegal():
    # hand_size=4.  P0 [5H 6H 7H QS]   P1 [8H 9C 9D 9S]   discard: 2D; stock 3C ...
    # t1 P0: draw 3C, meld 5H 6H 7H, discard QS   -> P0 [3C], pile 2D QS
    # t1 P1: take QS (forbidden), meld 9C 9D 9S   -> P1 [8H QS]
    #   lay off 8H would leave only QS, which may not be discarded -> illegal;
    #   the only legal move is discarding 8H.
    env = make_env(hand_size=4)
    deal(
        env, [["5H", "6H", "7H", "QS"], ["8H", "9C", "9D", "9S"]], discard=["2D"], stock_top=["3C"]
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("QS"))
    play(env, DrawDiscard(), Meld(("9S", "9D", "9C")))
    assert hand(env, 1) == ["QS", "8H"]
    assert helpers.legal_strs(env) == ["discard 8H"]
    assert_illegal(env, LayOff("8H", 0))


# ================================================== go_out_requires_discard


def test_go_out_requires_discard():
    # go_out_requires_discard=True.  P0 [5H 6H 7H]  P1 [KS KD 2C] = 22  stock: 8H ...
    # After drawing 8H: meld 5H 6H 7H 8H would empty the hand -> illegal;
    # meld 5H 6H 7H / 6H 7H 8H leave a card -> legal.
    # After meld 5H 6H 7H: laying off 8H would empty the hand -> illegal; the
    # only move is discard 8H, which goes out.
    env = make_env(go_out_requires_discard=True)
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9C"], stock_top=["8H"])
    play(env, DrawStock())
    assert set(meld_moves(env)) == {"meld 5H 6H 7H", "meld 6H 7H 8H"}
    assert_illegal(env, Meld(("5H", "6H", "7H", "8H")))
    play(env, Meld(("5H", "6H", "7H")))
    assert helpers.legal_strs(env) == ["discard 8H"]
    assert_illegal(env, LayOff("8H", 0))
    play(env, Discard("8H"))
    assert_round_over(env, winner=0, reason="went_out", round_scores=[0, 22])


# ================================================================ empty stock


def _discard_pile_cards(env, hands, stock_top):
    """Every card not in the hands or the stock top, for a pile that holds the rest."""
    return helpers.rest_of_pack(env, *hands, stock_top)


def test_stock_rebuild_keeps_top():
    # 2 players, hand 3: 52 - 6 = 46 cards outside the hands.
    # Stock: AS 2S (2 cards); discard pile: the other 44 cards, in id order.
    # t1 P0: draw AS, discard AS       (stock 1)
    # t1 P1: draw 2S, discard 2S       (stock 0) -> P0 to draw: rebuild.
    # Rebuild (seed 000): the pile minus its top (2S) -> 45 cards shuffled into
    # the stock; the pile is just [2S]. rebuilds = 1.
    env = make_env()
    hands = [["5H", "6H", "9C"], ["KS", "KD", "3C"]]
    pile = _discard_pile_cards(env, hands, ["AS", "2S"])
    assert len(pile) == 44
    deal(env, hands, discard=pile, stock_top=["AS", "2S"])
    play(env, DrawStock(), Discard("AS"))
    play(env, DrawStock(), Discard("2S"))
    d = snapshot(env)
    assert d["rebuilds"] == 1
    assert d["discard"] == ["2S"]
    assert sorted(d["stock"]) == sorted(pile + ["AS"])
    assert len(d["stock"]) == 45
    assert d["current_player"] == 0 and d["phase"] == "draw"
    assert env.unwrapped.legal_actions() == [0, 1]  # stock and the kept top both drawable


def test_stock_rebuild_parlett_turns_pile_over():
    # rebuild_keeps_top=False (Parlett): the whole pile is turned over, unshuffled,
    # and its (new) top card is turned up.
    # Pile before (bottom..top): d0 d1 ... d43 AS 2S  ->  new stock (top first)
    # d1 d2 ... d43 AS 2S; new pile [d0].
    env = make_env(rebuild_keeps_top=False)
    hands = [["5H", "6H", "9C"], ["KS", "KD", "3C"]]
    pile = _discard_pile_cards(env, hands, ["AS", "2S"])
    deal(env, hands, discard=pile, stock_top=["AS", "2S"])
    play(env, DrawStock(), Discard("AS"))
    play(env, DrawStock(), Discard("2S"))
    d = snapshot(env)
    assert d["rebuilds"] == 1
    assert d["discard"] == [pile[0]]
    assert d["stock"] == pile[1:] + ["AS", "2S"]
    # P0 draws the first card of the new stock
    play(env, DrawStock())
    assert pile[1] in hand(env, 0)


def _draw_and_discard_until_over(env, limit=500):
    """Each turn: draw the stock top and discard that very card (hands never change).

    Returns the number of turns played and the rebuild count seen after each turn.
    """
    turns, rebuilds = 0, []
    while not any(env.terminations.values()):
        assert turns < limit
        top = snapshot(env)["stock"][0]
        play(env, DrawStock(), Discard(top))
        turns += 1
        rebuilds.append(snapshot(env)["rebuilds"])
    return turns, rebuilds


def _exhaust_stock(env, hands, stock_top):
    """Deal ``hands`` with ``stock_top`` the whole stock and every other card in the
    discard pile, then :func:`_draw_and_discard_until_over` (its result returned)."""
    deal(env, hands, discard=_discard_pile_cards(env, hands, stock_top), stock_top=stock_top)
    return _draw_and_discard_until_over(env)


def test_stock_exhausted_after_two_rebuilds_lowest_hand_wins():
    # Defaults: rebuild_keeps_top=True, max_stock_rebuilds=2.
    # P0 [KS QD 9C] = 29   P1 [AS 2D 3C] = 6   stock: 4S (1 card); pile: the other 45.
    # Every turn draws the stock top and discards it, so hands never change.
    # turn 1 (P0) empties the stock -> rebuild 1: 45 cards (pile 46 minus top)
    # turns 2..46 empty it again    -> rebuild 2: 45 cards
    # turns 47..91 empty it again   -> P1 to draw, limit reached: round over,
    # "stock_exhausted". Lowest hand: P1 (6) wins; P0 pays 29.
    env = make_env()
    turns, rebuilds = _exhaust_stock(env, [["KS", "QD", "9C"], ["AS", "2D", "3C"]], ["4S"])
    assert turns == 91
    assert rebuilds[0] == 1 and rebuilds[45] == 2 and rebuilds[89] == 2
    assert_round_over(
        env,
        winner=1,
        reason="stock_exhausted",
        round_scores=[29, 0],
        rewards={"player_0": -29, "player_1": 0},
    )


def test_stock_exhausted_without_rebuilds():
    # max_stock_rebuilds=0: the round ends the first time the stock is empty.
    # P0 [KS QD 9C] = 29   P1 [AS 2D 3C] = 6   stock: 4S only.
    # t1 P0: draw 4S, discard 4S -> P1 to draw, stock empty: P1 (6) wins.
    env = make_env(max_stock_rebuilds=0)
    turns, _ = _exhaust_stock(env, [["KS", "QD", "9C"], ["AS", "2D", "3C"]], ["4S"])
    assert turns == 1
    assert_round_over(env, winner=1, reason="stock_exhausted", round_scores=[29, 0])


def test_stock_exhausted_winner_takes_all():
    # winner_takes_all, max_stock_rebuilds=0, same deal as above:
    # P1 (6) wins and collects P0's 29 (no rummy: he did not go out).
    env = make_env(max_stock_rebuilds=0, scoring="winner_takes_all")
    _exhaust_stock(env, [["KS", "QD", "9C"], ["AS", "2D", "3C"]], ["4S"])
    assert_round_over(
        env,
        winner=1,
        reason="stock_exhausted",
        round_scores=[0, 29],
        rummy=False,
        rewards={"player_0": -29, "player_1": 29},
    )


def test_stock_exhausted_tie_goes_nearest_to_drawer():
    # 3 players, hand 3: 43 cards outside the hands. Stock: 4S (1); pile: 42.
    # turn 1 (P0) empties the stock; P1 to draw -> rebuild 1 (43 - 1 = 42 cards)
    # turns 2..43 (P1 P2 P0 ... turn 43 = P0) -> P1 to draw, rebuild 2 (42)
    # turns 44..85 (turn 85 = P0) -> P1 to draw, limit reached: round over.
    # P0 [AS 2D 4C] = 7   P1 [KS QD 9C] = 29   P2 [AH 2S 4D] = 7
    # Tie at 7 between P0 and P2: nearest in turn order from the drawer P1 is P2.
    # Standard: P0 pays 7, P1 pays 29, P2 (winner) 0.
    env = make_env(num_players=3)
    hands = [["AS", "2D", "4C"], ["KS", "QD", "9C"], ["AH", "2S", "4D"]]
    turns, _ = _exhaust_stock(env, hands, ["4S"])
    assert turns == 85
    assert_round_over(
        env,
        winner=2,
        reason="stock_exhausted",
        round_scores=[7, 29, 0],
        rewards={"player_0": -7, "player_1": -29, "player_2": 0},
    )


def test_stock_exhausted_tie_with_drawer_goes_to_drawer():
    # As above (drawer P1) but P1 [AC 2H 4S] = 7 ties P0 and P2: the drawer
    # himself is nearest. Stock: 3S.
    env = make_env(num_players=3)
    hands = [["AS", "2D", "4C"], ["AC", "2H", "4S"], ["AH", "2S", "4D"]]
    turns, _ = _exhaust_stock(env, hands, ["3S"])
    assert turns == 85
    assert_round_over(env, winner=1, reason="stock_exhausted", round_scores=[7, 0, 7])


# ========================================================== match play


def test_dealer_starts_left_of_dealer():
    # dealer=0 with 2 players: player_1 (left of the dealer) starts.
    env = make_env()
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9C"], dealer=0)
    assert env.agent_selection == "player_1"
    assert snapshot(env)["dealer"] == 0


def test_match_dealer_rotates_left():
    # match=True, 3 players, dealer=2 -> P0 starts.
    # P0 [5H 6H 7H]  P1 [KS KD 2C] = 22  P2 [AS 4D 5C] = 10   stock: 8S ...
    # P0 draws 8S, melds, discards 8S -> out. Totals [0, 22, 10] (< 100).
    # Round 2: the deal rotates left: dealer P0, P1 starts.
    env = make_env(num_players=3, match=True)
    deal(
        env,
        [["5H", "6H", "7H"], ["KS", "KD", "2C"], ["AS", "4D", "5C"]],
        discard=["9C"],
        stock_top=["8S"],
        dealer=2,
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert_round_over(
        env,
        winner=0,
        reason="went_out",
        round_scores=[0, 22, 10],
        rewards={"player_0": 0, "player_1": -22, "player_2": -10},
    )
    assert env.infos["player_0"]["round"] == 0
    assert not any(env.terminations.values())
    d = snapshot(env)
    assert d["round"] == 1 and d["dealer"] == 0 and d["current_player"] == 1
    assert d["phase"] == "draw" and d["table"] == []
    assert [len(h) for h in d["hands"]] == [3, 3, 3]
    assert d["totals"] == [0, 22, 10]
    assert env.agent_selection == "player_1"


def test_match_elimination_and_last_player_wins():
    # match=True, 3 players, penalty_limit=10, dealer=2 -> P0 starts.
    # Round 1:  P0 [5H 6H 7H]   P1 [KS KD 2C] = 22   P2 [AS 4D 5C] = 10
    #   P0 draws 8S, melds 5H 6H 7H, discards 8S -> out.
    #   Totals [0, 22, 10]: P1 exceeds 10 -> eliminated; P2 at exactly 10 stays.
    # Round 2: dealer rotates to P0; the player left of P0 still in is P2.
    env = make_env(num_players=3, match=True, penalty_limit=10)
    deal(
        env,
        [["5H", "6H", "7H"], ["KS", "KD", "2C"], ["AS", "4D", "5C"]],
        discard=["9C"],
        stock_top=["8S"],
        dealer=2,
    )
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert env.terminations == {"player_0": False, "player_1": True, "player_2": False}
    assert env.rewards == {"player_0": 0, "player_1": -22, "player_2": -10}
    d = snapshot(env)
    assert d["active"] == [True, False, True]
    assert d["totals"] == [0, 22, 10]
    assert d["dealer"] == 0 and d["current_player"] == 2
    assert [len(h) for h in d["hands"]] == [3, 0, 3]
    # PettingZoo: the dead agent is stepped out with None first.
    assert env.agent_selection == "player_1"
    env.step(None)
    assert env.agents == ["player_0", "player_2"]
    assert env.agent_selection == "player_2"

    # Round 2, crafted through a save/restore of the state (the engine deals it
    # from the seed otherwise): P2 [5S 6S 7S]  P0 [KH QH 3D] = 23   stock: 8D ...
    # P2 draws 8D, melds 5S 6S 7S, discards 8D -> out. P0 total 0 + 23 > 10:
    # eliminated; P2 is the last player left and wins the match.
    hands = [["KH", "QH", "3D"], [], ["5S", "6S", "7S"]]
    d["hands"] = hands
    d["discard"] = ["9C"]
    d["stock"] = ["8D"] + helpers.rest_of_pack(env, *hands, ["9C", "8D"])
    env.reset(options={"state": d})
    assert env.agents == ["player_0", "player_2"]
    assert env.agent_selection == "player_2"
    play(env, DrawStock(), Meld(("5S", "6S", "7S")), Discard("8D"))
    assert all(env.terminations.values())
    info = env.infos["player_2"]
    assert info["round"] == 1
    assert info["winner"] == 2 and info["reason"] == "went_out"
    assert info["round_scores"] == [23, 0, 0]
    assert info["totals"] == [23, 22, 10]
    assert info["match_winner"] == 2
    assert env.rewards == {"player_0": -23, "player_2": 0}
    assert env.unwrapped.legal_actions() == []


@pytest.mark.parametrize(("target", "over"), [(44, True), (45, False)])
def test_match_winner_takes_all_first_to_target(target, over):
    # match=True, winner_takes_all.  P0 [5H 6H 7H]   P1 [KS KD 2C] = 22  stock: 8S ...
    # P0 goes out in one turn: rummy, 22 * 2 = 44.
    # target 44: reached -> match over, P0 wins. target 45: next round, dealer rotates.
    env = make_env(match=True, scoring="winner_takes_all", target=target)
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9C"], stock_top=["8S"])
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("8S"))
    assert env.rewards == {"player_0": 44, "player_1": -44}
    assert env.infos["player_0"]["totals"] == [44, 0]
    helpers.assert_match_end(env, over=over, winner=0)


# ============================================================ crafted deals


def _good_deal():
    return {"hands": [["5H", "6H", "7H"], ["KS", "KD", "2C"]], "discard": ["9C"], "dealer": 1}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # the same card twice (5H in both hands)
        (lambda o: o["hands"][1].__setitem__(0, "5H"), ["5H", "more often"]),
        # a card the pack does not hold (no jokers in this pack)
        (lambda o: o["hands"][1].__setitem__(0, "JK"), ["JK"]),
        # wrong hand size: seat 0 gets 2 cards, 3 needed
        (lambda o: o["hands"][0].pop(), ["seat 0", "2 cards", "3"]),
        # unknown card strings
        (lambda o: o["hands"][1].__setitem__(2, "ZZ"), ["ZZ"]),
        (lambda o: o["discard"].__setitem__(0, "1C"), ["1C"]),
        # wrong number of hands
        (lambda o: o["hands"].pop(), ["hands", "list of 2"]),
    ],
    ids=["duplicate", "joker-not-in-pack", "hand-size", "unknown-ZZ", "unknown-1C", "hands-count"],
)
def test_crafted_deal_errors(change, words):
    env = make_env()
    options = _good_deal()
    change(options)
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options=options)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_crafted_deal_missing_card_in_full_stock():
    # A stock given explicitly must complete the pack exactly: leave out KC.
    env = make_env()
    hands = [["5H", "6H", "7H"], ["KS", "KD", "2C"]]
    stock = [c for c in helpers.rest_of_pack(env, *hands, ["9C"]) if c != "KC"]
    with pytest.raises(ValueError, match="missing.*KC"):
        env.reset(seed=0, options={"hands": hands, "discard": ["9C"], "stock": stock})


def test_crafted_deal_duplicate_in_stock():
    env = make_env()
    hands = [["5H", "6H", "7H"], ["KS", "KD", "2C"]]
    stock = helpers.rest_of_pack(env, *hands, ["9C"]) + ["5H"]
    with pytest.raises(ValueError, match="5H"):
        env.reset(seed=0, options={"hands": hands, "discard": ["9C"], "stock": stock})


def test_crafted_deal_stock_omitted_is_shuffled_rest():
    # Without "stock" the remaining 45 cards are shuffled from the seed: same
    # seed, same stock; every card present once.
    env = make_env()
    env.reset(seed=5, options=_good_deal())
    a = snapshot(env)["stock"]
    env.reset(seed=5, options=_good_deal())
    assert snapshot(env)["stock"] == a
    assert sorted(a) == sorted(helpers.rest_of_pack(env, *_good_deal()["hands"], ["9C"]))


def test_two_decks_set_suits_must_differ():
    # D-2: with two decks a set still needs different suits: 7S 7S 7D is no meld.
    _assert_never_a_meld(
        make_env(decks=2), [["7S", "7S", "7D"], ["KS", "KD", "2C"]], ("7S", "7S", "7D")
    )


# ====================================================== after the game ended


def test_step_after_game_over_raises():
    # P0 goes out on the first turn (as in test_go_out_by_discard); the episode
    # is over: no legal moves, and any further step with an action raises.
    env = make_env()
    deal(env, [["5H", "6H", "7H"], ["KS", "KD", "2C"]], discard=["9C"], stock_top=["AS"])
    play(env, DrawStock(), Meld(("5H", "6H", "7H")), Discard("AS"))
    assert all(env.terminations.values())
    assert env.unwrapped.legal_actions() == []
    assert env.unwrapped.legal_moves() == []
    for agent in env.agents:
        assert not env.observe(agent)["action_mask"].any()
    before = snapshot(env)
    for a in (0, env.unwrapped.encode(Discard("KS"))):
        with pytest.raises(ValueError):
            env.step(a)
    assert snapshot(env) == before


# ================================================================ min_run


def test_min_run_four_refuses_a_run_of_three_and_takes_four():
    # min_run=4 (contract rummy's runs).  P0 [5H 6H 7H 8H 9C]  stock: 2D ...
    # 5-6-7H is no meld any more; 5-6-7-8H is, and 9C is not.
    env = make_env(hand_size=5, min_run=4)
    deal(
        env,
        [["5H", "6H", "7H", "8H", "9C"], ["KD", "QD", "2C", "3C", "4S"]],
        discard=["9H"],
        stock_top=["2D"],
    )
    play(env, DrawStock())
    assert meld_moves(env) == ["meld 5H 6H 7H 8H"]
    with pytest.raises(ValueError, match="run of 4"):
        env.unwrapped.encode(Meld(("5H", "6H", "7H")))
    play(env, Meld(("5H", "6H", "7H", "8H")))
    assert table(env) == [(0, ["5H", "6H", "7H", "8H"])]


def test_min_run_four_with_a_joker_and_a_layoff():
    # min_run=4, jokers=1.  P0 [5H JK 7H 8H 4H 2C]  P1 [KD QD ...]  stock: 9S ...
    # 5H JK(6H) 7H is 3 cards: no meld; 5H JK 7H 8H is one; 4H then lays off low.
    env = make_env(hand_size=6, min_run=4, jokers=1)
    deal(
        env,
        [["5H", "JK", "7H", "8H", "4H", "2C"], ["KD", "QD", "2D", "3D", "4S", "5S"]],
        discard=["9H"],
        stock_top=["9S"],
    )
    play(env, DrawStock())
    melds = meld_moves(env)
    assert "meld 5H JK 7H" not in melds and "meld 5H JK 7H 8H" in melds
    assert all(len(m.split()) - 1 >= 4 for m in melds if "H" in m.split()[1]), melds
    play(env, Meld(("5H", "JK", "7H", "8H")), LayOff("4H", 0))
    assert table(env) == [(0, ["4H", "5H", "JK", "7H", "8H"])]


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"min_run": 2}, ["min_run=2", "3-13"]),
        ({"min_run": 14}, ["min_run=14", "3-13"]),
        ({"min_run": "4"}, ["min_run", "int"]),
    ],
)
def test_min_run_bad_values_are_clear_errors(overrides, words):
    with pytest.raises(ValueError) as err:
        rummy_env.make_rules("basic", 2, **overrides)
    for w in words:
        assert w in str(err.value)
    with pytest.raises(ValueError, match="meld_during_play=False"):
        rummy_env.make_rules("gin", 2, min_run=4)
