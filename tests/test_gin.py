"""Scenario tests for the ``gin`` preset: crafted deals played through the env.

Each scenario is a crafted deal (``reset(options={"hands", "discard",
"stock", "dealer"})``) whose outcome is worked out by hand in the comments,
following docs/rules.md 6.4, then played through the public AEC API
(``raw_env("gin")``, ``encode``, ``step``, ``legal_moves``, ``observe``,
``state.last_result``, ``infos``).

Conventions used in the comments:

* ``P0``/``P1`` are ``player_0``/``player_1``. The helper deals with
  ``dealer=1`` unless told otherwise, so ``P0`` is the non-dealer and is
  offered the up-card first.
* Card values (docs/rules.md 6): A=1, 2-10 face value, J Q K=10.
* ``dw`` is deadwood: the value of the cards left out of the best melds.
* A knock: the knocker scores (defender's dw - knocker's dw); when that is not
  positive the defender undercuts and scores the difference + 25; gin (dw 0)
  scores 25 + the defender's dw and the defender may not lay off.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import engine
from rummy_env.cards import card_str, parse_card
from rummy_env.melds import deadwood
from rummy_env.moves import Discard, DrawDiscard, DrawStock, Knock, Pass

DECK = [card_str(f) for f in range(52)]


# ----------------------------------------------------------------- helpers
def gin_env(**overrides) -> rummy_env.raw_env:
    return rummy_env.raw_env("gin", **overrides)


def deal(
    env,
    hands: Sequence[Sequence[str] | str],
    up: str,
    stock_top: Sequence[str] = (),
    dealer: int = 1,
    seed: int = 0,
) -> None:
    """Reset ``env`` to a crafted deal: ``hands`` (10 cards each, as lists or
    one string), the up-card ``up``, the stock starting with ``stock_top`` (top
    first) and then the rest of the deck in card-id order (AS..KS AH..KH AD..KD
    AC..KC), so that the whole deck is accounted for."""
    hands = [h.split() if isinstance(h, str) else list(h) for h in hands]
    top = list(stock_top)
    used = [c for h in hands for c in h] + [up] + top
    assert len(set(used)) == len(used), (
        f"test deal uses a card twice: {Counter(used).most_common(1)}"
    )
    stock = top + [c for c in DECK if c not in used]
    env.reset(
        seed=seed, options={"hands": hands, "discard": [up], "stock": stock, "dealer": dealer}
    )


def play(env, *moves) -> None:
    for m in moves:
        env.step(env.unwrapped.encode(m))


def legal(env) -> set[str]:
    return {str(m) for m in env.unwrapped.legal_moves()}


def knock_cards(env) -> list[str | None]:
    """The cards the player to act may knock with (None: big gin)."""
    ks = [m.card for m in env.unwrapped.legal_moves() if isinstance(m, Knock)]
    return sorted(ks, key=lambda c: (c is None, c or ""))


def mask_moves(env, agent: str) -> set[str]:
    mask = env.observe(agent)["action_mask"]
    return {str(env.unwrapped.decode(int(a))) for a in mask.nonzero()[0]}


def result(env) -> dict:
    return env.unwrapped.state.last_result


def assert_zero_sum(env) -> None:
    assert sum(env.rewards.values()) == 0, env.rewards


def hand(env, p: int) -> list[str]:
    return sorted(env.unwrapped.state.to_dict()["hands"][p])


# The knocker's hand used by several scenarios (P0, non-dealer):
#
#   P0 holds 7H 8H 9H TH JH  4D 4C  AC 9D KC        up-card 4H
#   after taking 4H:
#     run  7H 8H 9H TH JH
#     set  4D 4C 4H
#     dead AC(1) 9D(9) KC(10)                      dw 20 with 11 cards
#   discard KC -> dw 1 + 9 = 10  <= 10: may knock  (the boundary)
#   discard 9D -> dw 1 + 10 = 11 > 10: may not
#   discard AC -> 19; a run or set card -> 20 or more: may not
KNOCKER = "7H 8H 9H TH JH 4D 4C AC 9D KC"
KNOCKER_UP = "4H"


# ------------------------------------------------------------ crafted deals
def test_crafted_deal_must_be_the_whole_deck():
    env = gin_env()
    rest = [c for c in DECK if c not in KNOCKER.split() + ["4H"]]
    p1, stock = rest[:10], rest[10:]
    with pytest.raises(ValueError, match="missing"):
        env.reset(options={"hands": [KNOCKER.split(), p1], "discard": ["4H"], "stock": stock[1:]})
    with pytest.raises(ValueError, match="more often"):
        env.reset(
            options={"hands": [KNOCKER.split(), p1], "discard": ["4H"], "stock": stock + ["AC"]}
        )
    with pytest.raises(ValueError, match="exactly 10"):
        env.reset(options={"hands": [KNOCKER.split()[:9], p1], "discard": ["4H"]})


def test_crafted_deal_without_stock_shuffles_the_rest():
    env = gin_env()
    rest = [c for c in DECK if c not in KNOCKER.split() + ["4H"]]
    opts = {"hands": [KNOCKER.split(), rest[:10]], "discard": ["4H"], "dealer": 1}
    env.reset(seed=3, options=opts)
    d = env.unwrapped.state.to_dict()
    assert sorted(d["stock"]) == sorted(rest[10:]) and len(d["stock"]) == 31
    env.reset(seed=3, options=opts)
    assert env.unwrapped.state.to_dict()["stock"] == d["stock"]


# ------------------------------------------------------------ up-card offer
def test_upcard_offer_both_pass_then_only_stock():
    """Non-dealer may take the up-card or pass; then the dealer; if both pass
    the non-dealer must draw from the stock (the up-card stays on the pile)."""
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="KD", stock_top=["3H"])
    assert env.agent_selection == "player_0"
    assert env.unwrapped.state.phase == engine.Phase.UPCARD
    assert legal(env) == {"draw discard", "pass"}
    assert mask_moves(env, "player_0") == {"draw discard", "pass"}
    assert mask_moves(env, "player_1") == set()  # not his turn
    play(env, Pass())
    assert env.agent_selection == "player_1"  # the dealer is offered it
    assert legal(env) == {"draw discard", "pass"}
    assert mask_moves(env, "player_0") == set()
    play(env, Pass())
    assert env.agent_selection == "player_0"
    assert legal(env) == {"draw stock"}  # both passed: no up-card for anyone
    assert mask_moves(env, "player_0") == {"draw stock"}
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, DrawDiscard())
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, Pass())
    play(env, DrawStock())
    assert "3H" in hand(env, 0)
    assert env.unwrapped.state.to_dict()["discard"] == ["KD"]
    # after the first turn the discard pile may be drawn as usual
    play(env, Discard("3H"))
    assert env.agent_selection == "player_1"
    assert legal(env) == {"draw stock", "draw discard"}


def test_upcard_non_dealer_takes_it_and_may_not_rediscard_it():
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="KD")
    play(env, DrawDiscard())
    assert env.agent_selection == "player_0"
    assert "KD" in hand(env, 0)
    moves = legal(env)
    assert "discard KD" not in moves and "knock discarding KD" not in moves
    assert "discard KC" in moves
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, Discard("KD"))
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, Knock("KD"))


def test_upcard_dealer_takes_it_after_a_pass():
    """Non-dealer passes, the dealer takes the up-card, may not discard it,
    discards; the non-dealer then draws normally. A card taken from the
    discard pile later may not be discarded in the same turn either."""
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="KD")
    play(env, Pass())
    assert env.agent_selection == "player_1"
    play(env, DrawDiscard())
    assert env.agent_selection == "player_1"
    assert "KD" in hand(env, 1)
    assert "discard KD" not in legal(env)
    assert env.unwrapped.state.to_dict()["discard"] == []
    play(env, Discard("5C"))
    assert env.agent_selection == "player_0"
    assert legal(env) == {"draw stock", "draw discard"}
    play(env, DrawDiscard())  # P0 takes 5C
    assert "discard 5C" not in legal(env) and "knock discarding 5C" not in legal(env)
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, Discard("5C"))
    play(env, Discard("9D"))
    assert env.agent_selection == "player_1"


# ------------------------------------------------------------ knock legality
def test_knock_legal_exactly_when_deadwood_after_discard_at_most_10():
    """See KNOCKER above: after taking 4H only Knock(KC) leaves dw <= 10
    (exactly 10); Knock(9D) would leave 11. The mask marks exactly that."""
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up=KNOCKER_UP)
    play(env, DrawDiscard())
    assert knock_cards(env) == ["KC"]
    mask = env.observe("player_0")["action_mask"]
    enc = env.unwrapped.encode
    for c in DECK:
        assert mask[enc(Knock(c))] == (c == "KC"), c
        assert mask[enc(Discard(c))] == (c in KNOCKER.split()), c
    assert mask[enc(Knock(None))] == 0  # big gin is off by default
    # the engine's own search agrees, card by card
    s = env.unwrapped.state
    for c in KNOCKER.split():
        h = s.hands[0][:]
        h[parse_card(c)] -= 1
        assert (deadwood(h, s.values) <= 10) == (c == "KC"), c


def test_knock_needs_a_draw_first():
    """No knocking before drawing (10 cards): the draw phase offers only draws."""
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="KD")
    play(env, Pass(), Pass())
    assert not any(isinstance(m, Knock) for m in env.unwrapped.legal_moves())


# --------------------------------------------------------------------- gin
def test_gin_scores_25_plus_defender_deadwood_without_layoffs():
    """
    P0 (knocker)                        up-card QH
      run  AS 2S 3S
      run  7H 8H 9H
      set  QD QC QS (+QH)
      dead KC                           knock discarding KC: dw 0 = gin
      (discarding QC, QD or QS leaves dw 10 (KC): a knock too; QH, the
      up-card just taken, may not be discarded)
    P1 (defender) 4S 6H TH 5C 5D 5H 2D 3D 8C 9C
      set  5C 5D 5H
      dead 4S(4) 6H(6) TH(10) 2D(2) 3D(3) 8C(8) 9C(9)  = 42
      (4S, 6H, TH would lay off on P0's runs, but not after gin)
    P0 scores 25 + 42 = 67.
    """
    env = gin_env()
    deal(env, ["AS 2S 3S 7H 8H 9H QD QC QS KC", "4S 6H TH 5C 5D 5H 2D 3D 8C 9C"], up="QH")
    play(env, DrawDiscard())
    assert knock_cards(env) == ["KC", "QC", "QD", "QS"]
    play(env, Knock("KC"))
    res = result(env)
    assert res["reason"] == "gin" and res["winner"] == 0
    sd = res["showdown"]
    assert sd["kind"] == "gin" and sd["points"] == 67
    assert (sd["knocker_deadwood"], sd["defender_deadwood"]) == (0, 42)
    assert env.rewards == {"player_0": 67, "player_1": -67}
    assert res["round_scores"] == [67, 0] and res["totals"] == [67, 0]
    assert all(env.terminations.values())
    for a in env.agents:
        info = env.infos[a]
        assert info["winner"] == 0 and info["reason"] == "gin" and info["round"] == 0
        assert info["round_scores"] == [67, 0] and info["totals"] == [67, 0]
    assert "bonuses" not in res  # only a match pays bonuses


# ------------------------------------------------------------- knock scores
def test_knock_with_defender_layoffs():
    """
    P0 (knocker) = KNOCKER, takes 4H, knocks discarding KC:
      run  7H 8H 9H TH JH  set 4D 4C 4H   dead AC 9D   dw 10
    P1 (defender) 6H QH KH 4S 2S 2D 2C 8S 9S 5C
      set      2S 2D 2C
      lay off  6H (below 7H), QH KH (above JH), 4S (4th four)
      dead     8S(8) 9S(9) 5C(5)                         dw 22
      (without lay-offs: 6+10+10+4+8+9+5 = 52)
    P0 scores 22 - 10 = 12.
    """
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up=KNOCKER_UP)
    play(env, DrawDiscard(), Knock("KC"))
    res = result(env)
    sd = res["showdown"]
    assert sd["kind"] == "knock" and sd["points"] == 12
    assert (sd["knocker_deadwood"], sd["defender_deadwood"]) == (10, 22)
    assert res["reason"] == "knock" and res["winner"] == 0
    laid_off = sorted(card_str(f) for g in sd["defender_groups"] if len(g) < 3 for f in g)
    assert laid_off == ["4S", "6H", "KH", "QH"]
    assert env.rewards == {"player_0": 12, "player_1": -12}
    assert res["round_scores"] == [12, 0]
    assert env.unwrapped.state.to_dict()["discard"][-1] == "KC"


def test_undercut_after_layoffs():
    """
    P0 = KNOCKER, knocks discarding KC: dw 10 (AC 9D)
    P1 6H QH KH 2S 2D 2C 5S 6S 7S 3D
      set 2S 2D 2C, run 5S 6S 7S, lay off 6H, QH KH   dead 3D  dw 3
    10 >= 3: P1 undercuts and scores (10 - 3) + 25 = 32.
    """
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 2S 2D 2C 5S 6S 7S 3D"], up=KNOCKER_UP)
    play(env, DrawDiscard(), Knock("KC"))
    res = result(env)
    sd = res["showdown"]
    assert sd["kind"] == "undercut" and sd["points"] == -32
    assert (sd["knocker_deadwood"], sd["defender_deadwood"]) == (10, 3)
    assert res["winner"] == 1 and res["reason"] == "undercut"
    assert env.rewards == {"player_0": -32, "player_1": 32}
    assert res["round_scores"] == [0, 32] and res["totals"] == [0, 32]


def test_equal_deadwood_is_an_undercut():
    """
    P0 = KNOCKER: dw 10. P1 6H QH KH 2S 2D 2C 5S 6S 7S TD: as above but
    dead TD: dw 10. The knocker's dw is not lower: undercut, P1 scores
    (10 - 10) + 25 = 25.
    """
    env = gin_env()
    deal(env, [KNOCKER, "6H QH KH 2S 2D 2C 5S 6S 7S TD"], up=KNOCKER_UP)
    play(env, DrawDiscard(), Knock("KC"))
    sd = result(env)["showdown"]
    assert sd["kind"] == "undercut" and sd["points"] == -25
    assert env.rewards == {"player_0": -25, "player_1": 25}


def test_knocker_arrangement_tie_broken_in_his_favour():
    """
    P0 3H 4H 5H 4S 4D 9C TC JC QC KS, up-card KC; takes KC, knocks with KS.
      4H sits in a run and in a set, both worth 12:
        A  run 3H 4H 5H + run 9C..KC, dead 4S 4D  dw 8
        B  set 4H 4S 4D + run 9C..KC, dead 3H 5H  dw 8
    P1 2H 6H 7S 7D 7C 8S 9S TS KD AD
      set 7S 7D 7C, run 8S 9S TS; dead 2H 6H KD AD = 19
      against A he lays off 2H and 6H on 3H-5H: dw 11 -> P0 scores 3
      against B nothing lays off (no 4C, no 8C):  dw 19 -> P0 scores 11
    Both have the least deadwood; the engine takes the one best for the
    knocker (D-11): B, 11 points.
    """
    env = gin_env()
    deal(env, ["3H 4H 5H 4S 4D 9C TC JC QC KS", "2H 6H 7S 7D 7C 8S 9S TS KD AD"], up="KC")
    play(env, DrawDiscard(), Knock("KS"))
    sd = result(env)["showdown"]
    assert sd["kind"] == "knock" and sd["points"] == 11
    assert (sd["knocker_deadwood"], sd["defender_deadwood"]) == (8, 19)
    melds = sorted(sorted(card_str(f) for f in m) for m in sd["knocker_melds"])
    assert ["4D", "4H", "4S"] in melds
    assert env.rewards == {"player_0": 11, "player_1": -11}


@pytest.mark.parametrize(("gin_bonus", "undercut_bonus"), [(20, 10), (0, 0)])
def test_bonus_options(gin_bonus, undercut_bonus):
    """gin_bonus / undercut_bonus options: the gin deal above scores
    gin_bonus + 42, the undercut deal (10 - 3) + undercut_bonus."""
    env = gin_env(gin_bonus=gin_bonus, undercut_bonus=undercut_bonus)
    deal(env, ["AS 2S 3S 7H 8H 9H QD QC QS KC", "4S 6H TH 5C 5D 5H 2D 3D 8C 9C"], up="QH")
    play(env, DrawDiscard(), Knock("KC"))
    assert env.rewards["player_0"] == gin_bonus + 42
    deal(env, [KNOCKER, "6H QH KH 2S 2D 2C 5S 6S 7S 3D"], up=KNOCKER_UP)
    play(env, DrawDiscard(), Knock("KC"))
    assert env.rewards["player_1"] == 7 + undercut_bonus


# ------------------------------------------------- knock limit and Oklahoma
# P0 7H 8H 9H TH JH 4D 4C AC 5D KC, up-card 4H: after taking it and
# discarding KC: run + set, dead AC(1) 5D(5) -> dw 6; discarding 5D -> 11.
LIMIT6 = "7H 8H 9H TH JH 4D 4C AC 5D KC"


@pytest.mark.parametrize(("limit", "can_knock"), [(5, False), (6, True), (10, True)])
def test_knock_limit_option(limit, can_knock):
    env = gin_env(knock_limit=limit)
    deal(env, [LIMIT6, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="4H")
    assert env.unwrapped.state.knock_limit == limit
    play(env, DrawDiscard())
    assert knock_cards(env) == (["KC"] if can_knock else [])


@pytest.mark.parametrize(
    ("up", "limit"), [("4H", 4), ("7C", 7), ("TD", 10), ("KS", 10), ("2S", 2), ("AS", 1)]
)
def test_oklahoma_upcard_sets_the_limit(up, limit):
    """The up-card's value is the limit (README: an ace gives 1; OpenSpiel and
    some rule books make an ace mean gin only)."""
    env = gin_env(oklahoma=True)
    others = [c for c in DECK if c != up]
    deal(env, [others[:10], others[10:20]], up=up)
    assert env.unwrapped.state.knock_limit == limit
    assert env.unwrapped.state.to_dict()["knock_limit"] == limit


def test_oklahoma_knock():
    """
    Oklahoma, up-card 4H: limit 4.
    LIMIT6 (dw 6 after discarding KC) may not knock though 6 <= 10.
    P0 7H 8H 9H TH JH 4D 4C AC 3D KC: after 4H, discard KC -> dead AC 3D,
    dw 4 <= 4: may knock. P1 (the lay-off defender) 6H QH KH 4S 2S 2D 2C 8S 9S 5C:
    dw 22 after laying off 6H, QH KH, 4S  ->  P0 scores 22 - 4 = 18.
    """
    env = gin_env(oklahoma=True)
    deal(env, [LIMIT6, "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="4H")
    play(env, DrawDiscard())
    assert knock_cards(env) == []
    deal(env, ["7H 8H 9H TH JH 4D 4C AC 3D KC", "6H QH KH 4S 2S 2D 2C 8S 9S 5C"], up="4H")
    play(env, DrawDiscard())
    assert knock_cards(env) == ["KC"]
    play(env, Knock("KC"))
    sd = result(env)["showdown"]
    assert sd["kind"] == "knock" and (sd["knocker_deadwood"], sd["defender_deadwood"]) == (4, 22)
    assert env.rewards == {"player_0": 18, "player_1": -18}


def test_oklahoma_limit_follows_each_rounds_upcard():
    """In a match every round's up-card sets that round's limit."""
    env = gin_env(oklahoma=True, match=True)
    deal(env, ["AS 2S 3S 7H 8H 9H QD QC QS KC", "4S 6H TH 5C 5D 5H 2D 3D 8C 9C"], up="QH")
    assert env.unwrapped.state.knock_limit == 10
    play(env, DrawDiscard(), Knock("KC"))  # gin, 67: the match goes on
    s = env.unwrapped.state
    assert s.round == 1 and s.phase == engine.Phase.UPCARD
    assert s.knock_limit == s.values[s.discard[-1]]


# ------------------------------------------------------------------ big gin
# P0 AS 2S 3S 4S 7H 8H 9H QD QC QS, up-card QH: after taking it
#   run AS 2S 3S 4S, run 7H 8H 9H, set QD QC QS QH: all 11 cards meld.
# P1 5S 6H TH 5C 5D 5H 2D 3D 8C 9C
#   set 5S 5C 5D 5H; dead 6H(6) TH(10) 2D(2) 3D(3) 8C(8) 9C(9) = 38
#   (6H and TH would lay off on 7H-9H, not after gin)
BIG_GIN = ["AS 2S 3S 4S 7H 8H 9H QD QC QS", "5S 6H TH 5C 5D 5H 2D 3D 8C 9C"]


def test_big_gin_scores_31_plus_defender_deadwood():
    """Big gin (big_gin_bonus=31): Knock(None) keeps all 11 cards, no
    discard; P0 scores 31 + 38 = 69. Knocking with a discard instead: AS,
    4S or a queen (not QH, just taken) leaves gin; 2S leaves AS 3S 4S dead
    (dw 8), 3S leaves AS 2S 4S (dw 7): plain knocks; a heart leaves 15+."""
    env = gin_env(big_gin_bonus=31)
    deal(env, BIG_GIN, up="QH")
    play(env, DrawDiscard())
    assert knock_cards(env) == ["2S", "3S", "4S", "AS", "QC", "QD", "QS", None]
    play(env, Knock(None))
    res = result(env)
    sd = res["showdown"]
    assert sd["kind"] == "big_gin" and sd["points"] == 69 and sd["defender_deadwood"] == 38
    assert res["reason"] == "big_gin" and res["winner"] == 0
    assert env.rewards == {"player_0": 69, "player_1": -69}
    assert len(hand(env, 0)) == 11
    assert env.unwrapped.state.to_dict()["discard"] == []


def test_big_gin_discarding_is_plain_gin():
    env = gin_env(big_gin_bonus=31)
    deal(env, BIG_GIN, up="QH")
    play(env, DrawDiscard(), Knock("4S"))  # AS 2S 3S, 7H 8H 9H, 4 queens: gin, 25 + 38
    sd = result(env)["showdown"]
    assert sd["kind"] == "gin" and sd["points"] == 63


def test_big_gin_not_legal_when_off_or_not_all_cards_meld():
    env = gin_env()  # big_gin_bonus=0: off
    deal(env, BIG_GIN, up="QH")
    play(env, DrawDiscard())
    assert None not in knock_cards(env)
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, Knock(None))
    env = gin_env(big_gin_bonus=31)  # on, but KC does not meld
    deal(env, ["AS 2S 3S 7H 8H 9H QD QC QS KC", "4S 6H TH 5C 5D 5H 2D 3D 8C 9C"], up="QH")
    play(env, DrawDiscard())
    assert knock_cards(env) == ["KC", "QC", "QD", "QS"]
    with pytest.raises(rummy_env.IllegalActionError):
        play(env, Knock(None))


# --------------------------------------------------------------------- wall
# P0 7H 8H 9H TH JH 4S 4D 4C AC KC     run + set, dead AC KC (dw 11)
# P1 KS KD QS QD TS TC 9D 9C 8S 8D     no meld, dw 94
# up-card 5C; both pass; then each player draws from the stock and
# discards the card drawn. 31 cards in the stock; after the 29th draw
# (P0's, 15th of his) 2 remain. Stock card 29 is 2D.
WALL_HANDS = ["7H 8H 9H TH JH 4S 4D 4C AC KC", "KS KD QS QD TS TC 9D 9C 8S 8D"]


def _wall_deal(env) -> None:
    used = set(" ".join(WALL_HANDS).split()) | {"5C", "2D"}
    rest = [c for c in DECK if c not in used]
    deal(env, WALL_HANDS, up="5C", stock_top=rest[:28] + ["2D"])
    play(env, Pass(), Pass())


def _draw_and_discard_until_29(env) -> None:
    for k in range(1, 30):
        p = env.agent_selection
        assert p == ("player_0" if k % 2 else "player_1")
        play(env, DrawStock())
        drawn = env.unwrapped.state.to_dict()["hands"][int(p[-1])]
        if k < 29:
            new = next(c for c in drawn if c not in WALL_HANDS[int(p[-1])].split())
            play(env, Discard(new))
            assert not any(env.terminations.values())
    assert len(env.unwrapped.state.stock) == 2


def test_wall_voids_the_hand():
    """After the 29th draw P0 discards without knocking: 2 cards left in the
    stock, the hand is void: no score, reason "wall", rewards 0."""
    env = gin_env()
    _wall_deal(env)
    _draw_and_discard_until_29(env)
    assert env.agent_selection == "player_0"
    play(env, Discard("2D"))
    res = result(env)
    assert res["reason"] == "wall" and res["winner"] is None
    assert res["round_scores"] == [0, 0] and res["totals"] == [0, 0]
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert all(env.terminations.values())
    for a in env.agents:
        assert env.infos[a]["reason"] == "wall" and env.infos[a]["winner"] is None


def test_wall_knock_still_allowed():
    """Same position, but P0 knocks discarding KC: run + set, dead AC 2D,
    dw 3. P1 has no meld and nothing to lay off (no 6H/QH, no 4H): dw 94.
    P0 scores 94 - 3 = 91."""
    env = gin_env()
    _wall_deal(env)
    _draw_and_discard_until_29(env)
    assert "KC" in knock_cards(env)
    play(env, Knock("KC"))
    sd = result(env)["showdown"]
    assert sd["kind"] == "knock" and (sd["knocker_deadwood"], sd["defender_deadwood"]) == (3, 94)
    assert env.rewards == {"player_0": 91, "player_1": -91}


def test_wall_in_a_match_deals_again():
    env = gin_env(match=True)
    _wall_deal(env)
    _draw_and_discard_until_29(env)
    play(env, Discard("2D"))
    s = env.unwrapped.state
    assert result(env)["reason"] == "wall"
    assert not any(env.terminations.values())
    assert s.round == 1 and s.totals == [0, 0] and s.hands_won == [0, 0]
    assert s.dealer == 0 and env.agent_selection == "player_1"  # deal rotates
    assert env.rewards == {"player_0": 0, "player_1": 0}


# -------------------------------------------------------------------- match
def test_match_to_100_with_game_and_line_bonuses():
    """
    Round 1 (dealer P1): the undercut deal above, P1 scores 32.
        totals [0, 32], hands won [0, 1]; the match goes on.
    Round 2 (dealer P0, so P1 is offered the up-card first; deal set by
    restoring the state with new hands):
      P0 AS 2S 3S 7H 8H 9H QD QC QS KC     up-card QH
      P1 KS KD JH JD TS TC 9D 9C 8S 8D     no meld:
         10+10+10+10+10+10+9+9+8+8 = 94
      P1 passes, P0 (dealer) takes QH and knocks discarding KC: gin,
      25 + 94 = 119 -> totals [119, 32]: P0 reaches 100 and wins the match.
    Bonuses: P0 game 100 + line 25 x 1 hand = 125; P1 line 25 x 1 = 25.
    Round 2 rewards (zero-sum): P0 119 + 125 - 25 = 219, P1 -219.
    """
    env = gin_env(match=True)
    deal(env, [KNOCKER, "6H QH KH 2S 2D 2C 5S 6S 7S 3D"], up=KNOCKER_UP)
    play(env, DrawDiscard(), Knock("KC"))
    assert env.rewards == {"player_0": -32, "player_1": 32}
    assert not any(env.terminations.values())
    res = result(env)
    assert res["totals"] == [0, 32] and not res["match_over"] and "bonuses" not in res
    assert env.infos["player_0"]["round"] == 0 and env.infos["player_0"]["totals"] == [0, 32]
    s = env.unwrapped.state
    assert s.round == 1 and s.dealer == 0 and s.hands_won == [0, 1]
    assert env.agent_selection == "player_1"

    d = s.to_dict()
    p0, p1, up = (
        "AS 2S 3S 7H 8H 9H QD QC QS KC".split(),
        "KS KD JH JD TS TC 9D 9C 8S 8D".split(),
        "QH",
    )
    d["hands"] = [p0, p1]
    d["discard"] = [up]
    d["stock"] = [c for c in DECK if c not in p0 + p1 + [up]]
    d["known"] = [[], []]
    assert d["phase"] == "upcard" and d["current_player"] == 1 and d["totals"] == [0, 32]
    env.reset(options={"state": d})
    play(env, Pass())
    assert env.agent_selection == "player_0"
    play(env, DrawDiscard(), Knock("KC"))
    res = result(env)
    assert res["showdown"]["kind"] == "gin" and res["showdown"]["points"] == 119
    assert res["totals"] == [119, 32] and res["round_scores"] == [119, 0]
    assert res["match_over"] and res["match_winner"] == 0
    assert res["bonuses"] == [125, 25]
    assert env.rewards == {"player_0": 219, "player_1": -219}
    assert all(env.terminations.values())
    for a in env.agents:
        assert env.infos[a]["match_winner"] == 0 and env.infos[a]["round"] == 1
        assert env.infos[a]["totals"] == [119, 32]


# ------------------------------------------------ properties under play
def _greedy_gin_action(env, rng: random.Random) -> int:
    """Knock when allowed, else draw at random and discard the card whose
    loss leaves the least deadwood (so rounds end by knocks, not only walls)."""
    u = env.unwrapped
    acts = u.legal_actions()
    L = u.state.layout
    knocks = [a for a in acts if L.KNOCK <= a < L.PASS]
    if knocks:
        return rng.choice(knocks)
    discards = [a for a in acts if L.DISCARD <= a < L.KNOCK]
    if not discards:
        return rng.choice(acts)
    s = u.state
    h = s.hands[s.current][:]
    best = None
    for a in discards:
        f = a - L.DISCARD
        h[f] -= 1
        dw = deadwood(h, s.values)
        h[f] += 1
        if best is None or dw < best[0]:
            best = (dw, a)
    return best[1]


def _check_knock_mask(env) -> None:
    """The knock mask is exactly the discards leaving dw <= the limit."""
    s = env.unwrapped.state
    if s.phase != engine.Phase.PLAY:
        return
    L = s.layout
    legal = set(engine.legal_actions(s))
    h = s.hands[s.current][:]
    for f in range(52):
        if not h[f]:
            continue
        h[f] -= 1
        ok = f != s.forbidden and deadwood(h, s.values) <= s.knock_limit
        h[f] += 1
        assert (L.KNOCK + f in legal) == ok, (card_str(f), s.to_dict())


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"oklahoma": True},
        {"match": True},
        {"big_gin_bonus": 31},
        {"match": True, "oklahoma": True},
    ],
)
def test_rewards_zero_sum_and_cards_conserved_under_play(overrides):
    """Greedy-knocking play: every reward is zero-sum, the deck is always
    whole, the knock mask is exact; a match ends with its bonuses paid."""
    env = gin_env(**overrides)
    rng = random.Random(5)
    kinds: Counter = Counter()
    for game in range(3 if overrides.get("match") else 20):
        env.reset(seed=game)
        last = None
        for _ in range(20_000):
            if all(env.terminations.values()):
                break
            _check_knock_mask(env)
            env.step(_greedy_gin_action(env, rng))
            assert_zero_sum(env)
            d = env.unwrapped.state.to_dict()
            cards = d["hands"][0] + d["hands"][1] + d["stock"] + d["discard"]
            assert sorted(cards) == sorted(DECK)
            if result(env) is not last:  # a round just ended
                last = result(env)
                kinds[last["reason"]] += 1
                assert sum(last["rewards"]) == 0
        else:
            pytest.fail("episode did not end")
        res = result(env)
        assert sum(env._cumulative_rewards.values()) == 0
        if overrides.get("match"):
            assert res["match_over"] and max(res["totals"]) >= 100
            b = res["bonuses"]
            won = env.unwrapped.state.hands_won
            assert b[res["match_winner"]] == 100 + 25 * won[res["match_winner"]]
            assert b[1 - res["match_winner"]] == 25 * won[1 - res["match_winner"]]
    assert kinds["knock"] + kinds["gin"] + kinds["undercut"] + kinds.get("big_gin", 0) > 0


# ------------------------------------------------------- PettingZoo tests
@pytest.mark.parametrize("make", [rummy_env.env, rummy_env.raw_env])
@pytest.mark.parametrize("overrides", [{}, {"match": True}, {"oklahoma": True}])
def test_pettingzoo_api(make, overrides):
    api_test(make("gin", **overrides), num_cycles=300)


@pytest.mark.parametrize("make", [rummy_env.env, rummy_env.raw_env])
@pytest.mark.parametrize("overrides", [{}, {"match": True}, {"oklahoma": True}])
def test_pettingzoo_seed(make, overrides):
    seed_test(lambda: make("gin", **overrides), num_cycles=300)


def test_action_space_size():
    """gin: DrawStock, DrawDiscard, 52 Discard, 53 Knock, Pass = 108 actions."""
    env = gin_env()
    assert env.action_space("player_0").n == 108
    assert env.unwrapped.encode(Pass()) == 107
    assert env.unwrapped.encode(Knock(None)) == 106
