"""Scenario tests for the ``canasta`` preset, written from the rule book (RULES.md 4
"canasta", decisions D-20 to D-32) and the contract of DESIGN.md "Canasta".

Every scenario is a crafted deal of the whole 108-card pack (two decks and four
jokers) with full hands (11 cards with 4 players, 13 with 3, 15 with 2), played
through the public AEC API (``raw_env``, ``encode``, ``step``, ``legal_actions``,
the action mask, ``state.to_dict()``, ``infos``). The outcome of each is worked out
by hand in its comments.

Conventions used in the comments:

* ``P0``..``P3`` are seats ``player_0``..``player_3``; the dealer is the last seat
  unless said otherwise, so ``P0`` plays first. With 4 players P0 and P2 are side 0,
  P1 and P3 side 1.
* Hands are written ``[KH KH KC]``; the pile bottom..top; the stock top first (the
  rest of the pack follows in card-id order, see :func:`deal`).
* Values (one table for melds, hands and the opening count): joker 50; 2 and A 20;
  K Q J T 9 8: 10; 7 6 5 4 and a black 3: 5. Red 3s are bonuses (100, 800 for all
  four, negative for a side that has not melded).
* The idle hands ``P1I``/``P2I``/``P3I`` hold one card of each of A, 4-K but Q (a
  spade, diamond or club one) and a black 3: each is worth 95 in hand, nothing in
  them melds, and every queen of the pack is left for the scenario.
* Moves name their cards; D-20: what counts is the rank and how many naturals,
  jokers and 2s, the engine taking the cards from the hand lowest suit first
  (S H D C). So the table's cards are compared as multisets.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env.cards import card_str
from rummy_env.moves import Discard, DrawStock, EndRound, LayOff, Meld, TakePile
from tests.helpers import assert_illegal, pack, places, play

# ======================================================================================
# The few API details assumed beyond DESIGN.md's names (fix them here if they differ)
# ======================================================================================

PRESET = "canasta"
BREAKDOWN_KEYS = {"melds", "canastas", "red_threes", "going_out", "hands"}


def make_env(num_players: int = 4, **overrides) -> rummy_env.raw_env:
    return rummy_env.raw_env(PRESET, num_players=num_players, **overrides)


def state(env) -> dict[str, Any]:
    """The full state (DESIGN.md: ``env.unwrapped.state.to_dict()``)."""
    return env.unwrapped.state.to_dict()


def info(env, seat: int = 0) -> dict[str, Any]:
    """The round-end ``infos`` of a seat."""
    return env.infos[f"player_{seat}"]


def view(env, seat: int) -> dict[str, Any]:
    """The decoded observation of a seat (``rummy_env.observation.decode``)."""
    from rummy_env.observation import decode

    return decode(env.observe(f"player_{seat}")["observation"], env.unwrapped.rules)


def cards_of(x) -> Counter:
    """A decoded card collection as a multiset: a list of card strings, or 53 counts."""
    if len(x) == 53 and all(not isinstance(c, str) for c in x):
        return Counter({card_str(f): int(k) for f, k in enumerate(x) if k})
    return Counter(x)


# ======================================================================================
# Cards, deals and checks
# ======================================================================================

P1I = "AS 4S 5S 6S 7S 8S 9S TS JS KS 3S"
P2I = "AD 4D 5D 6D 7D 8D 9D TD JD KD 3C"
P3I = "AC 4C 5C 6C 7C 8C 9C TC JC KC 3C"
# two players: P1's 15 cards, no K, Q or 2 among them
P1I_2P = "4S 5S 6S 7S 8S 9S TS JS AS 3S 4C 5C 6C 7C 8C"

RED_THREES = {"3H", "3D"}


def value(card: str) -> int:
    """The Canasta value of a card (RULES.md: one table for melds, hands and the opening)."""
    if card == "JK":
        return 50
    rank = card[0]
    if rank in "2A":
        return 20
    if rank in "KQJT98":
        return 10
    assert card not in RED_THREES, "a red 3 has no value in a meld or hand"
    return 5  # 7 6 5 4 and black 3s


def hand_value(cards) -> int:
    return sum(value(c) for c in (cards.split() if isinstance(cards, str) else cards))


def the_pack() -> Counter:
    return pack(rummy_env.make_rules("canasta", 4))


def cards(text: str | list[str]) -> list[str]:
    return text.split() if isinstance(text, str) else list(text)


def pad(text: str, n: int = 11) -> list[str]:
    """``text``'s cards and single hearts of ranks 4-K, A it does not hold (no Q), to ``n``."""
    hand = cards(text)
    held = {c[0] for c in hand if c != "JK"}
    for rank in "456789TJKA":
        if len(hand) == n:
            break
        if rank not in held:
            hand.append(rank + "H")
    assert len(hand) == n, f"cannot pad {text!r} to {n} cards"
    return hand


def rest_of_pack(*used) -> list[str]:
    """The pack's cards not in ``used``, in card-id order (AS AS 2S 2S .. KC KC JK x4).

    Fails (a bug in the test) when ``used`` holds a card more often than the pack."""
    left = the_pack()
    for group in used:
        for c in group:
            left[c] -= 1
            assert left[c] >= 0, f"the deal uses {c} more often than the pack holds it"
    return [card_str(f) for f in range(53) for _ in range(left[card_str(f)])]


def deal(
    env,
    hands,
    pile=(),
    stock=(),
    *,
    short_stock: bool = False,
    dealer: int | None = None,
    totals=None,
) -> None:
    """Reset ``env`` to a crafted deal of the whole pack.

    ``hands`` per seat (strings or lists), ``pile`` bottom..top. Normally ``stock``
    is the top of the stock and the rest of the pack follows it (card-id order); with
    ``short_stock`` the stock is exactly ``stock`` and the rest of the pack lies at the
    bottom of the pile, under ``pile``. The dealer defaults to the last seat (P0 plays
    first); ``totals`` (per seat) are the match totals at the start of the round."""
    n = env.unwrapped.rules.num_players
    hands = [cards(h) for h in hands]
    assert len(hands) == n
    pile, stock = cards(pile), cards(stock)
    rest = rest_of_pack(*hands, pile, stock)
    if short_stock:
        pile, stock = rest + pile, stock
    else:
        stock = stock + rest
    options: dict[str, Any] = {
        "hands": hands,
        "discard": pile,
        "stock": stock,
        "dealer": n - 1 if dealer is None else dealer,
    }
    if totals is not None:
        options["totals"] = list(totals)
    env.reset(seed=0, options=options)


def a(env, move) -> int:
    return env.unwrapped.encode(move)


def legal(env) -> set[int]:
    """The legal action ids of the player to act, checked against his action mask."""
    ids = set(env.unwrapped.legal_actions())
    mask = env.observe(env.agent_selection)["action_mask"]
    assert set(np.flatnonzero(mask).tolist()) == ids, "the mask is not the legal list"
    return ids


def can(env, move) -> bool:
    return a(env, move) in legal(env)


def only(env, *moves) -> None:
    """The legal moves are exactly ``moves``."""
    got = legal(env)
    want = {a(env, m) for m in moves}
    assert got == want, f"legal: {[str(env.unwrapped.decode(x)) for x in sorted(got)]}"


def draws(env) -> set[str]:
    """The legal moves of the draw kinds, by name."""
    names = set()
    for x in legal(env):
        m = env.unwrapped.decode(x)
        if isinstance(m, (DrawStock, TakePile, EndRound)):
            names.add(type(m).__name__)
    return names


def discards(env) -> set[int]:
    return {x for x in legal(env) if isinstance(env.unwrapped.decode(x), Discard)}


def sides_of(n: int) -> list[int]:
    return [0, 1, 0, 1] if n == 4 else list(range(n))


def meld_cards(env, i: int) -> Counter:
    return Counter(state(env)["table"][i]["cards"])


def hand(env, seat: int) -> Counter:
    return Counter(state(env)["hands"][seat])


def bd(melds=0, canastas=0, red_threes=0, going_out=0, hands=0) -> dict[str, int]:
    """One side's round breakdown (RULES.md scoring)."""
    return {
        "melds": melds,
        "canastas": canastas,
        "red_threes": red_threes,
        "going_out": going_out,
        "hands": hands,
    }


def assert_round_end(env, *, reason, winner, concealed, breakdown, start_totals=None):
    """Every seat's round-end info and reward as computed by hand: per side the
    ``breakdown`` (exactly its five keys, summing to the side score); each seat's
    ``round_scores`` entry and reward its side's score; totals = start + score."""
    n = env.unwrapped.rules.num_players
    sides = sides_of(n)
    side_scores = [sum(b.values()) for b in breakdown]
    per_seat = [side_scores[sides[p]] for p in range(n)]
    start = [0] * n if start_totals is None else list(start_totals)
    for p in range(n):
        got = info(env, p)
        assert got["round"] == 0
        assert got["reason"] == reason
        assert got["winner"] == winner
        assert got["concealed"] is concealed
        assert [set(b) for b in got["breakdown"]] == [BREAKDOWN_KEYS] * len(breakdown)
        assert [dict(b) for b in got["breakdown"]] == breakdown
        assert list(got["side_scores"]) == side_scores
        assert list(got["round_scores"]) == per_seat
        assert list(got["totals"]) == [s + r for s, r in zip(start, per_seat)]
        assert got["breakdown"][sides[p]]["hands"] <= 0
    assert [env.rewards[f"player_{p}"] for p in range(n)] == per_seat


# ======================================================================================
# The preset
# ======================================================================================


@pytest.mark.parametrize(
    ("n", "hand_size", "partners", "to_go_out", "stock_draw", "n_actions"),
    [(2, 15, False, 2, 2, 1162), (3, 13, False, 1, 1, 1318), (4, 11, True, 1, 1, 1162)],
)
def test_preset_rule_fields(n, hand_size, partners, to_go_out, stock_draw, n_actions):
    """DESIGN.md "Preset and rule fields": concrete values by player count; the action
    layout 1 + 34 + 761 + 12*S*13 + 53 + 1 (S sides)."""
    assert PRESET in rummy_env.PRESETS
    r = rummy_env.make_rules(PRESET, num_players=n)
    assert r.scoring == "canasta"
    assert (r.decks, r.jokers) == (2, 2)
    assert r.hand_size == hand_size
    assert r.max_wilds_per_meld == 3
    assert r.wilds_at_most_naturals is False
    assert r.target == 5000
    assert r.partnerships is partners
    assert r.canastas_to_go_out == to_go_out
    assert r.stock_draw == stock_draw
    assert tuple(r.initial_meld) == (15, 50, 90, 120)
    assert tuple(r.canasta_bonus) == (500, 300)
    assert tuple(r.red_three_bonus) == (100, 800)
    assert tuple(r.out_bonus) == (100, 200)
    assert make_env(n).action_space("player_0").n == n_actions


def test_four_players_without_partnerships_are_four_sides():
    env = make_env(4, partnerships=False)
    assert env.unwrapped.rules.partnerships is False
    assert env.action_space("player_0").n == 1 + 34 + 761 + 48 * 13 + 53 + 1
    env.reset(seed=1)
    d = state(env)
    assert d["sides"] == [0, 1, 2, 3]
    assert len(d["red_threes"]) == 4


@pytest.mark.parametrize("n", [1, 5])
def test_player_count_out_of_range(n):
    with pytest.raises(ValueError, match=r"2\s*(-|\.\.|to)\s*4"):
        rummy_env.make_rules(PRESET, num_players=n)


@pytest.mark.parametrize(
    "override", [{"partnerships": True}, {"stock_draw": 2}, {"canastas_to_go_out": 2}]
)
def test_canasta_fields_refused_with_other_scoring(override):
    (field,) = override
    with pytest.raises(ValueError, match=field):
        rummy_env.make_rules("basic", num_players=4, **override)


# ======================================================================================
# The deal (D-21, D-22)
# ======================================================================================


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_random_deal(n, seed):
    """D-21, D-22: hands by player count, no red 3 in a hand (laid out, replaced), the
    up-card turned again while it is a wild card or a 3 (the turned cards stay in the
    pile), frozen by the one test, the player left of the dealer to play."""
    env = make_env(n)
    env.reset(seed=seed)
    d = state(env)
    size = {2: 15, 3: 13, 4: 11}[n]
    assert [len(h) for h in d["hands"]] == [size] * n
    assert not any(RED_THREES & set(h) for h in d["hands"])
    pile = d["discard"]
    assert pile and pile[-1] != "JK" and pile[-1][0] in "A456789TJQK"
    assert all(c == "JK" or c[0] in "23" for c in pile[:-1])
    assert d["frozen"] is any(c == "JK" or c[0] == "2" or c in RED_THREES for c in pile)
    assert places(d) == the_pack()
    assert d["current_player"] == (d["dealer"] + 1) % n == 0
    assert d["sides"] == sides_of(n)
    assert len(d["red_threes"]) == len(set(sides_of(n)))
    assert all(set(r) <= RED_THREES for r in d["red_threes"])
    laid = sum(len(r) for r in d["red_threes"])
    assert len(d["stock"]) == 108 - n * size - len(pile) - laid
    assert d["table"] == [] and d["pending"] == [] and d["opening_count"] == 0
    assert d["opened"] == [False] * len(set(sides_of(n)))
    assert d["played"] == [False] * n
    assert d["final_turn"] is False
    assert d["round_start_totals"] == [0] * n
    assert d["round"] == 0 and d["phase"] == "draw"


def test_to_dict_keys():
    env = make_env(4)
    deal(env, [pad("QH QD"), P1I, P2I, P3I], pile=["QC"])
    d = state(env)
    for key in (
        "hands",
        "stock",
        "discard",
        "table",
        "current_player",
        "phase",
        "round_scores",
        "totals",
        "sides",
        "red_threes",
        "frozen",
        "opened",
        "opening_count",
        "pending",
        "played",
        "final_turn",
        "round_start_totals",
        "dealer",
        "round",
    ):
        assert key in d, key
    assert d["discard"] == ["QC"] and d["dealer"] == 3
    assert Counter(d["hands"][0]) == Counter(pad("QH QD"))


@pytest.mark.parametrize(
    ("pile", "frozen"),
    [([], False), (["7C", "2C"], True), (["3H", "9C"], True), (["3S", "9C"], False)],
)
def test_crafted_pile_as_given(pile, frozen):
    """D-22: a crafted pile is the pile as given (no turning, empty allowed), frozen by
    the one test (a wild card or a red 3 in it; a black 3 does not freeze)."""
    env = make_env(4)
    deal(env, [pad("QH QD"), P1I, P2I, P3I], pile=pile)
    d = state(env)
    assert d["discard"] == pile
    assert d["frozen"] is frozen
    # P0 holds no pair: drawing from the stock is all he can do
    only(env, DrawStock())


@pytest.mark.parametrize(
    ("dealer", "p0_gets", "p1_gets"), [(3, ["9H", "6H"], ["5H"]), (0, ["6H", "5H"], ["9H"])]
)
def test_red_threes_dealt_laid_out_and_replaced(dealer, p0_gets, p1_gets):
    """D-21. P0 [3H 3D ...] and P1 [... 3H]; stock 9H 3D 6H 5H QC ...

    Dealer P3: P0 first lays out 3H 3D and draws 9H, then 3D (laid out, replaced at
    once by 6H); P1 lays out 3H and draws 5H.
    Dealer P0: P1 first (draws 9H); P0 then draws 3D (laid out, replaced by 6H) and 5H.
    Side 0 (P0) has 3H 3D 3D laid out, side 1 (P1) 3H; the stock then starts at QC."""
    p0 = "3H 3D 4H 7H 8H TH JH KH AH QS QD"
    p1 = "AS 4S 5S 6S 7S 8S 9S TS JS KS 3H"
    env = make_env(4)
    deal(env, [p0, p1, P2I, P3I], pile=["8C"], stock=["9H", "3D", "6H", "5H", "QC"], dealer=dealer)
    d = state(env)
    assert Counter(d["hands"][0]) == Counter(cards(p0)[2:] + p0_gets)
    assert Counter(d["hands"][1]) == Counter(cards(p1)[:-1] + p1_gets)
    assert Counter(d["red_threes"][0]) == Counter(["3H", "3D", "3D"])
    assert d["red_threes"][1] == ["3H"]
    assert d["stock"][0] == "QC"
    assert d["current_player"] == (dealer + 1) % 4
    assert places(d) == the_pack()


@pytest.mark.parametrize(
    ("n", "top", "gets", "red"),
    [
        (4, ["9D"], ["9D"], []),
        (4, ["3H", "9D"], ["9D"], ["3H"]),
        (2, ["9D", "8D"], ["9D", "8D"], []),
        (2, ["3H", "9D", "8D"], ["9D", "8D"], ["3H"]),
    ],
)
def test_draw_stock_and_red_three_drawn(n, top, gets, red):
    """D-31 and red 3s drawn: ``DrawStock`` takes 1 card (2 with two players, one after
    the other); a red 3 drawn is laid out at once and replaced from the stock."""
    if n == 4:
        hands = [pad("QH QD"), P1I, P2I, P3I]
    else:
        hands = ["QH QD QC 4H 5H 6H 7H 8H 9H TH JH KH AH 4D 5D", P1I_2P]
    env = make_env(n)
    deal(env, hands, pile=["QS"], stock=top + ["KD"])
    before = hand(env, 0)
    play(env, DrawStock())
    d = state(env)
    assert Counter(d["hands"][0]) == before + Counter(gets)
    assert d["red_threes"][0] == red
    assert d["stock"][0] == "KD"
    assert d["phase"] == "play"


# ======================================================================================
# Values and the initial meld (D-24, D-25)
# ======================================================================================


@pytest.mark.parametrize(
    ("meld", "count"),
    [
        ("7H 7H 7D", 15),
        ("4H 4H 4D 4C", 20),
        ("KH KH KC", 30),
        ("8H 8H 8D", 30),
        ("9H 9H 2C", 40),
        ("TH TH JK", 70),
        ("9H 9H 2C 2D JK", 110),  # 2 naturals, 3 wild cards: a meld
    ],
)
def test_meld_values_in_the_opening_count(meld, count):
    """Values (D-25: the opening count): 4-7 five, 8-K ten, 2 and A twenty, joker
    fifty. P0 holds ``meld`` and A A A (60) and draws QS; the minimum is 50. Below 50
    the meld is an opening in progress (``opening_count``), A A A completes it; from 50
    the meld opens alone."""
    env = make_env(4)
    deal(env, [pad(meld + " AH AH AC"), P1I, P2I, P3I], pile=["QC"], stock=["QS"])
    play(env, DrawStock(), Meld(cards(meld)))
    d = state(env)
    assert Counter(d["table"][0]["cards"]) == Counter(cards(meld))
    assert d["table"][0]["owner"] == 0 and d["table"][0]["side"] == 0
    if count < 50:
        assert d["opened"] == [False, False]
        assert d["opening_count"] == count
        assert_illegal(env, Discard("QS"))  # the turn cannot end before the minimum
        play(env, Meld(("AH", "AH", "AC")))
        assert state(env)["opened"] == [True, False]
    else:
        assert d["opened"] == [True, False]
    assert can(env, Discard("QS"))


@pytest.mark.parametrize(
    ("total", "melds", "ok"),
    [
        (-10, ["7H 7H 7D"], True),  # below 0: 15
        (-1, ["7H 7H 7D"], True),
        (0, ["7H 7H 7D"], False),  # 0 to 1495: 50
        (0, ["KH KH KC", "5H 5H 5D 5C"], True),  # 30 + 20 = 50
        (1495, ["KH KH KC", "5H 5H 5D 5C"], True),
        (1500, ["KH KH KC", "5H 5H 5D 5C"], False),  # 1500 to 2995: 90
        (1500, ["AH AH AC", "KH KH KC"], True),  # 60 + 30 = 90
        (2995, ["AH AH AC", "KH KH KC"], True),
        (3000, ["AH AH AC", "KH KH KC"], False),  # 3000 and more: 120
        (3000, ["AH AH JK", "KH KH KC"], True),  # 90 + 30 = 120
        (4200, ["AH AH JK", "KH KH KC"], True),
    ],
)
def test_initial_meld_minimum_by_side_total(total, melds, ok):
    """D-25: the minimum is read from the side's total at the start of the round
    (``options["totals"]``, partners equal). P0's hand holds ``melds`` and single hearts
    (nothing else melds); he draws QS. Every meld of an opening must leave the minimum
    reachable, and the turn cannot end before it is reached."""
    env = make_env(4)
    totals = [total, 0, total, 0]
    deal(env, [pad(" ".join(melds)), P1I, P2I, P3I], pile=["QC"], stock=["QS"], totals=totals)
    assert state(env)["round_start_totals"] == totals
    play(env, DrawStock())
    if not ok:
        for m in melds:
            assert_illegal(env, Meld(cards(m)))
        assert can(env, Discard("QS"))
        return
    laid = 0
    for i, m in enumerate(melds):
        play(env, Meld(cards(m)))
        laid += hand_value(m)
        d = state(env)
        if i < len(melds) - 1:
            assert d["opened"] == [False, False] and d["opening_count"] == laid
            assert_illegal(env, Discard("QS"))
    assert state(env)["opened"] == [True, False]
    assert can(env, Discard("QS"))


@pytest.mark.parametrize(
    ("total", "hand_melds", "opens"),
    [
        (1600, "6H 6H 6D KH KH KC 2H", False),  # 6-6-6 + K-K-K-2 = 65 < 90
        (1600, "6H 6H 6D AH AH AC 2H", True),  # 6-6-6 + A-A-A-2 = 95
        (1400, "6H 6H 6D KH KH KC 2H", True),  # 65 >= 50
    ],
)
def test_wikipedia_initial_meld_example(total, hand_melds, opens):
    """RULES.md (Wikipedia): at 1600 the minimum is 90: 6-6-6 + K-K-K-2 = 65 is not
    enough, 6-6-6 + A-A-A-2 = 95 is. At 1400 (minimum 50) 65 opens."""
    env = make_env(4)
    totals = [total, 0, total, 0]
    deal(env, [pad(hand_melds), P1I, P2I, P3I], pile=["QC"], stock=["QS"], totals=totals)
    play(env, DrawStock())
    six = Meld(("6H", "6H", "6D"))
    high = Meld(tuple(cards(hand_melds)[3:]))
    if not opens:
        assert_illegal(env, six)
        assert_illegal(env, high)
        assert_illegal(env, Meld(tuple(cards(hand_melds)[3:6])))
        return
    play(env, six)
    assert state(env)["opening_count"] == 15
    assert_illegal(env, Discard("QS"))
    play(env, high)
    assert state(env)["opened"] == [True, False]
    assert can(env, Discard("QS"))


def test_canasta_below_the_minimum_is_no_opening():
    """D-25, pagat: bonuses do not count; a natural canasta of queens (count 70) does
    not open at 1500 (minimum 90) when nothing else melds."""
    env = make_env(4)
    deal(
        env,
        [pad("QS QS QH QH QD QD QC"), P1I, P2I, P3I],
        pile=["8C"],
        stock=["9D"],
        totals=[1500, 0, 1500, 0],
    )
    play(env, DrawStock())
    assert_illegal(env, Meld(("QS", "QS", "QH", "QH", "QD", "QD", "QC")))
    assert can(env, Discard("9D"))


@pytest.mark.parametrize("total", [0, 1500])
def test_pagat_opening_with_the_pile_pending(total):
    """D-24 (pagat): pile KD QC KC (K on top, K and Q buried), P0 [KH KH QH QH 2C ...].

    Minimum 50: TakePile(KH KH) lays K-K-K (count 30: the top card and the two from the
    hand); the rest of the pile (KD QC) waits in ``pending``; the turn cannot end. Then
    Q-Q-2 (40) brings the count to 70: opened, the pending cards join the hand.
    Minimum 90: 30 + 40 = 70 is all the hand can reach (the buried K and Q do not
    count), so taking the pile is not legal."""
    env = make_env(4)
    p0 = pad("KH KH QH QH 2C")
    totals = [total, 0, total, 0]
    deal(env, [p0, P1I, P2I, P3I], pile=["KD", "QC", "KC"], stock=["9C"], totals=totals)
    d = state(env)
    assert d["frozen"] is False  # the pile test; to P0's side (not melded) it is frozen
    # not melded: only two naturals, never a natural and a wild card, nor the top alone
    assert_illegal(env, TakePile(("KH", "2C")))
    assert_illegal(env, TakePile(()))
    if total == 1500:
        assert_illegal(env, TakePile(("KH", "KH")))
        assert draws(env) == {"DrawStock"}
        return
    play(env, TakePile(("KH", "KH")))
    d = state(env)
    assert len(d["table"]) == 1
    assert d["table"][0]["owner"] == 0 and d["table"][0]["side"] == 0
    assert Counter(d["table"][0]["cards"]) == Counter(["KC", "KH", "KH"])
    assert Counter(d["pending"]) == Counter(["KD", "QC"])
    assert d["discard"] == []
    assert d["opening_count"] == 30
    assert d["opened"] == [False, False]
    assert Counter(d["hands"][0]) == Counter(p0) - Counter(["KH", "KH"])
    assert places(d) == the_pack()
    assert_illegal(env, Discard("4H"))
    play(env, Meld(("QH", "QH", "2C")))
    d = state(env)
    assert d["opened"] == [True, False]
    assert d["pending"] == []
    assert Counter(d["hands"][0]) == Counter(p0) - Counter("KH KH QH QH 2C".split()) + Counter(
        ["KD", "QC"]
    )
    assert can(env, Discard("4H"))


def test_opening_with_the_pile_completed_by_a_layoff():
    """D-24: cards laid off this turn on this turn's melds count. As the pagat deal:
    TakePile(KH KH) (30) and the 2 laid off on the kings (20): 50, opened, and the
    pending KD QC join the hand; now QH QH QC melds without any minimum."""
    env = make_env(4)
    deal(env, [pad("KH KH QH QH 2C"), P1I, P2I, P3I], pile=["KD", "QC", "KC"], stock=["9C"])
    play(env, TakePile(("KH", "KH")), LayOff("2C", 0))
    d = state(env)
    assert d["opened"] == [True, False] and d["pending"] == []
    assert Counter(d["table"][0]["cards"]) == Counter(["KC", "KH", "KH", "2C"])
    assert {"KD", "QC"} <= set(d["hands"][0])
    play(env, Meld(("QH", "QH", "QC")), LayOff("KD", 0))
    assert len(state(env)["table"]) == 2
    assert can(env, Discard("4H"))


# ======================================================================================
# Melds, wild cards, suits (D-20, D-28)
# ======================================================================================


def test_wild_card_limits_and_what_the_layout_cannot_hold():
    """D-20, D-28: 9-9-2-2-JK is a meld (2 naturals, 3 wild cards; 110 opens). Then no wild card
    may be laid off on it (it holds 3), a natural may. The layout holds no meld with
    fewer than 2 naturals or 3 cards, of several ranks, with a red 3 or 4+ wild cards,
    no black 3s with a wild card, no TakePile but the three forms, no lay-off of a 3."""
    env = make_env(4)
    p0 = pad("9H 9H 2C 2D JK JK 9D")
    deal(env, [p0, P1I, P2I, P3I], pile=["QC"], stock=["QS"])
    play(env, DrawStock(), Meld(("9H", "9H", "2C", "2D", "JK")))
    d = state(env)
    assert Counter(d["table"][0]["cards"]) == Counter(["9H", "9H", "2C", "2D", "JK"])
    assert d["opened"] == [True, False]
    assert_illegal(env, LayOff("JK", 0))
    assert can(env, LayOff("9D", 0))
    u = env.unwrapped
    for bad in (
        Meld(("9H", "2C", "JK")),
        Meld(("2C", "2D", "JK")),
        Meld(("9H", "9D")),
        Meld(("9H", "9D", "8H")),
        Meld(("3H", "3H", "3D")),
        Meld(("9H", "9H", "2C", "2D", "JK", "JK")),
        Meld(("3S", "3C", "JK")),
        TakePile(("9H",)),
        TakePile(("9H", "8H")),
        TakePile(("JK", "2C")),
        TakePile(("2C", "2D")),
        TakePile(("3S", "3C")),
        LayOff("3S", 0),
        LayOff("9H", 24),  # M = 12 * 2 sides
    ):
        with pytest.raises(ValueError):
            u.encode(bad)
    # black 3s: melds of 3 and of 4 are in the layout (D-27), distinct
    assert u.encode(Meld(("3S", "3S", "3C"))) != u.encode(Meld(("3S", "3S", "3C", "3C")))


def test_suits_play_no_part():
    """D-20: moves are identified by rank and the numbers of naturals, jokers and 2s;
    the engine takes the cards from the hand lowest suit first (S H D C); ``decode``
    spells them; ``encode(decode(a)) == a``. P0 [7S 7H 7D 7C AH AH AC ...] draws 9H."""
    env = make_env(4)
    deal(env, [pad("7S 7H 7D 7C AH AH AC"), P1I, P2I, P3I], pile=["QC"], stock=["9H"])
    u = env.unwrapped
    assert a(env, Meld(("7S", "7H", "JK"))) == a(env, Meld(("7D", "7D", "JK")))
    assert a(env, Meld(("7S", "7H", "2C"))) == a(env, Meld(("7D", "7C", "2H")))
    assert a(env, Meld(("7S", "7H", "2C"))) != a(env, Meld(("7S", "7H", "JK")))
    assert a(env, TakePile(("7S", "7H"))) == a(env, TakePile(("7D", "7C")))
    assert a(env, TakePile(("7S", "JK"))) == a(env, TakePile(("JK", "7C")))
    assert a(env, TakePile(("7S", "JK"))) != a(env, TakePile(("7S", "2C")))
    assert a(env, LayOff("7S", 3)) == a(env, LayOff("7C", 3))
    assert a(env, LayOff("2C", 3)) == a(env, LayOff("2H", 3))
    assert a(env, LayOff("JK", 3)) != a(env, LayOff("2C", 3))
    assert a(env, Discard("7S")) != a(env, Discard("7H"))
    play(env, DrawStock())
    meld = Meld(("7C", "7D", "7H"))
    assert Counter(u.decode(a(env, meld)).cards) == Counter(["7S", "7H", "7D"])
    for x in legal(env):
        assert u.encode(u.decode(x)) == x
    play(env, meld)
    assert meld_cards(env, 0) == Counter(["7S", "7H", "7D"])
    assert "7C" in hand(env, 0)


def test_one_meld_per_rank_per_side_partner_lays_off_opponent_cannot():
    """D-20 (lay-offs by rank). Melds belong to the side: at most one per rank;
    either partner lays off on them, opponents never.

    P0 [AH AH AC 7H 7H 7C ...] draws 9H, melds A-A-A (meld 0, 60: opened) and 7-7-7
    (meld 1), discards 9H.
    P1 [AS AS JK 7S ...] draws QS: no lay-off on side 0's melds; his own A-A-JK (90)
    is a meld of side 1 (meld 2); still no lay-off on side 0's; discards KS.
    P2 [7S 7D JK AD ...] draws QH: no second meld of 7s for side 0 (7-7-JK), but a 7
    or JK on meld 1 and AD on meld 0, not on P1's aces; lays off a 7 (D-20: the engine
    takes 7S, the lowest suit) and AD."""
    env = make_env(4)
    p1 = "AS AS JK 7S 4S 5S 6S 8S 9S TS KS"
    p2 = "7S 7D JK AD 5D 6D 8D 9D TD JD KD"
    deal(
        env,
        [pad("AH AH AC 7H 7H 7C"), p1, p2, P3I],
        pile=["6C"],
        stock=["9H", "QS", "QH"],
    )
    play(env, DrawStock(), Meld(("AH", "AH", "AC")), Meld(("7H", "7H", "7C")), Discard("9H"))
    play(env, DrawStock())
    assert_illegal(env, LayOff("AS", 0))
    assert_illegal(env, LayOff("7S", 1))
    play(env, Meld(("AS", "AS", "JK")))
    d = state(env)
    assert [(m["owner"], m["side"]) for m in d["table"]] == [(0, 0), (0, 0), (1, 1)]
    assert d["opened"] == [True, True]
    assert_illegal(env, LayOff("7S", 1))
    play(env, Discard("KS"))
    play(env, DrawStock())
    assert_illegal(env, Meld(("7S", "7D", "JK")))
    assert can(env, LayOff("7S", 1)) and can(env, LayOff("JK", 1)) and can(env, LayOff("AD", 0))
    assert_illegal(env, LayOff("AD", 2))
    play(env, LayOff("7D", 1), LayOff("AD", 0))
    d = state(env)
    assert (d["table"][1]["owner"], d["table"][1]["side"]) == (0, 0)
    assert Counter(d["table"][1]["cards"]) == Counter(["7H", "7H", "7C", "7S"])
    assert "7D" in d["hands"][2]
    assert Counter(d["table"][0]["cards"]) == Counter(["AH", "AH", "AC", "AD"])
    play(env, Discard("QH"))
    assert state(env)["played"] == [True, True, True, False]


def test_wild_cards_on_a_canasta_make_it_mixed():
    """D-28. P0 [QS QS QH QH QD QD QC JK JK 2H 2D] draws QC. A natural canasta of 7
    queens (70: opened); JK, JK, 2H laid off on it (a canasta takes wild cards while
    it holds at most 3); the 4th (2D) may not go on; QC laid off; P0 discards 2D (a
    wild card may be discarded) and goes out, concealed.
    Side 0: melds 8 x 10 + 50 + 50 + 20 = 200; the canasta now mixed 300; out 200;
    P2's hand -95. Side 1: -95 - 95."""
    env = make_env(4)
    deal(env, ["QS QS QH QH QD QD QC JK JK 2H 2D", P1I, P2I, P3I], pile=["8C"], stock=["QC"])
    play(env, DrawStock(), Meld(("QS", "QS", "QH", "QH", "QD", "QD", "QC")))
    play(env, LayOff("JK", 0), LayOff("JK", 0), LayOff("2H", 0))
    assert_illegal(env, LayOff("2D", 0))
    play(env, LayOff("QC", 0), Discard("2D"))
    assert all(env.terminations.values())
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(200, 300, 0, 200, -95), bd(hands=-190)],
    )


# ======================================================================================
# The pile: frozen, blocked, the three TakePile forms (D-23)
# ======================================================================================


@pytest.mark.parametrize(
    ("top", "frozen"), [("2C", True), ("JK", True), ("3S", False), ("3H", True)]
)
@pytest.mark.parametrize("p0_discard", ["AH", "3S"])
def test_blocked_top(top, frozen, p0_discard):
    """A black 3 or a wild card on top (a red 3 too: D-23, not a natural rank) blocks
    the pile until a discard covers it. Pile 7C + ``top``: P0 [7H 7H AH 3S ...] may
    only draw from the stock. He draws 9H and discards AH: P1 [AS AS ...] may take
    the pile with A-A (A-A-A = 60 opens; frozen or not, two naturals do). If P0
    discards the black 3 instead, P1 may not take it."""
    env = make_env(4)
    p1 = "AS AS 4S 5S 6S 7S 8S 9S TS JS KS"
    deal(env, [pad("7H 7H AH 3S"), p1, P2I, P3I], pile=["7C", top], stock=["9H", "QS"])
    assert state(env)["frozen"] is frozen
    only(env, DrawStock())
    play(env, DrawStock(), Discard(p0_discard))
    if p0_discard == "3S":
        only(env, DrawStock())
        return
    assert draws(env) == {"DrawStock", "TakePile"}
    play(env, TakePile(("AS", "AS")))
    d = state(env)
    assert [(m["owner"], m["side"]) for m in d["table"]] == [(1, 1)]
    assert Counter(d["table"][0]["cards"]) == Counter(["AH", "AS", "AS"])
    assert d["discard"] == [] and d["frozen"] is False and d["pending"] == []
    assert d["opened"] == [False, True]
    if top == "3H":  # a red 3 taken with the pile is laid out, not replaced
        assert d["red_threes"][1] == ["3H"]
        assert "3H" not in d["hands"][1]
    else:
        assert top in d["hands"][1]
    assert "7C" in d["hands"][1]


@pytest.mark.parametrize(
    ("init", "frozen"),
    [(["6C"], False), (["3S"], False), (["2H"], True), (["3H"], True), (["JK"], True)],
)
@pytest.mark.parametrize("form", ["two naturals", "natural and wild", "top alone"])
def test_take_pile_forms(init, frozen, form):
    """D-23. P0 [AH AH AC 7H 7H 7C ...] draws 9H, melds A-A-A (opened) and 7-7-7 (meld
    1), discards 9H; P1 draws QS and discards 7S. Pile: ``init`` 9H 7S.
    P2 [7S 7D JK ...] (side 0, melded) may take it with (a) two naturals 7S 7D: always;
    (b) a natural and a wild card: only if the pile is not frozen; (c) the top alone
    onto side 0's 7s: only if not frozen. (a) and (b) merge into meld 1, which keeps its
    index and owner (P0). In (b) the engine takes the natural lowest suit first: 7S.
    The rest of the pile joins P2's hand, a red 3 in it laid out unreplaced; a black 3
    never freezes the pile."""
    env = make_env(4)
    p2 = "7S 7D JK AD 5D 6D 8D 9D TD JD KD"
    deal(env, [pad("AH AH AC 7H 7H 7C"), P1I, p2, P3I], pile=init, stock=["9H", "QS", "QH"])
    play(env, DrawStock(), Meld(("AH", "AH", "AC")), Meld(("7H", "7H", "7C")), Discard("9H"))
    play(env, DrawStock(), Discard("7S"))
    d = state(env)
    assert d["discard"] == init + ["9H", "7S"]
    assert d["frozen"] is frozen
    forms = {
        "two naturals": (TakePile(("7S", "7D")), ["7S", "7S", "7D"]),
        "natural and wild": (TakePile(("7D", "JK")), ["7S", "7S", "JK"]),
        "top alone": (TakePile(()), ["7S"]),
    }
    for name, (move, _) in forms.items():
        assert can(env, move) is (name == "two naturals" or not frozen), name
    assert_illegal(env, TakePile(("7D", "2C")))  # P2 holds no 2
    move, joined = forms[form]
    if frozen and form != "two naturals":
        assert_illegal(env, move)
        return
    stock = d["stock"]
    play(env, move)
    d = state(env)
    assert len(d["table"]) == 2
    assert (d["table"][1]["owner"], d["table"][1]["side"]) == (0, 0)
    assert Counter(d["table"][1]["cards"]) == Counter(["7H", "7H", "7C"] + joined)
    assert d["discard"] == [] and d["frozen"] is False and d["pending"] == []
    assert d["stock"] == stock  # nothing drawn, nothing replaced
    taken = [c for c in init + ["9H"] if c not in RED_THREES]
    used = Counter(joined) - Counter(["7S"])  # the top card came from the pile
    assert Counter(d["hands"][2]) == Counter(cards(p2)) - used + Counter(taken)
    assert d["red_threes"][0] == [c for c in init if c in RED_THREES]
    assert places(d) == the_pack()


def test_take_pile_keeps_the_three_wild_limit():
    """D-23: the 3-wild limit holds. P0 opens with 7-7-2-2-JK (100; 3 wild cards);
    P1 discards 7S. P2 [7S 7D JK ...] may take with 7-7 or the top alone, not with 7-JK
    (the merged meld would hold 4 wild cards)."""
    env = make_env(4)
    p2 = "7S 7D JK AD 5D 6D 8D 9D TD JD KD"
    deal(env, [pad("7H 7H 2C 2D JK"), P1I, p2, P3I], pile=["6C"], stock=["9H", "QS"])
    play(env, DrawStock(), Meld(("7H", "7H", "2C", "2D", "JK")), Discard("9H"))
    play(env, DrawStock(), Discard("7S"))
    assert can(env, TakePile(("7S", "7D")))
    assert can(env, TakePile(()))
    assert_illegal(env, TakePile(("7D", "JK")))


@pytest.mark.parametrize("p1_takes", [True, False])
def test_one_card_hand_may_not_take_a_one_card_pile(p1_takes):
    """Britannica: a player holding one card may not take a pile of one card.

    Two players; side 1's total is -100 (minimum 15). P0 [K x7 Q x7 9H] draws QC 7H,
    melds the kings and 7 queens (two canastas), lays off QC, discards 7H: P0 [9H].
    P1 [7S 7D KC ...] either takes the pile (7-7-7 = 15 opens) and discards KC: the
    pile is [KC], and P0 may not take it onto his kings; or draws 5H 6H and discards
    KC: the pile is 7H KC and P0 may (the top alone onto his kings; 7H joins his hand)."""
    env = make_env(2)
    p0 = "KS KS KH KH KD KD KC QS QS QH QH QD QD QC 9H"
    p1 = "7S 7D KC 4S 5S 6S 8S 9S TS JS AS 4C 5C 6C 8C"
    deal(env, [p0, p1], pile=[], stock=["QC", "7H", "5H", "6H"], totals=[0, -100])
    play(
        env,
        DrawStock(),
        Meld(("KS", "KS", "KH", "KH", "KD", "KD", "KC")),
        Meld(("QS", "QS", "QH", "QH", "QD", "QD", "QC")),
        LayOff("QC", 1),
        Discard("7H"),
    )
    assert state(env)["hands"][0] == ["9H"]
    if p1_takes:
        play(env, TakePile(("7S", "7D")))
        assert state(env)["opened"] == [True, True]
        play(env, Discard("KC"))
        assert state(env)["discard"] == ["KC"]
        assert_illegal(env, TakePile(()))
        assert draws(env) == {"DrawStock"}
        return
    play(env, DrawStock(), Discard("KC"))
    assert state(env)["discard"] == ["7H", "KC"]
    play(env, TakePile(()))
    d = state(env)
    assert Counter(d["table"][0]["cards"]) == Counter(cards(p0)[:7] + ["KC"])
    assert Counter(d["hands"][0]) == Counter(["9H", "7H"])


# ======================================================================================
# Going out (D-26, D-27, D-29)
# ======================================================================================

QK = "QS QS QH QH QD QD KS KH KH KD KC"  # 6 queens, 5 kings: 11 cards
SIX_Q = Meld(("QS", "QS", "QH", "QH", "QD", "QD"))
SEVEN_Q = Meld(("QS", "QS", "QH", "QH", "QD", "QD", "QC"))
FIVE_K = Meld(("KS", "KH", "KH", "KD", "KC"))
FOUR_K = Meld(("KS", "KH", "KH", "KD"))


def test_last_meld_masked_without_a_canasta():
    """D-29: after a meld the player must be able to end his turn; with one card left
    only if his side holds a canasta (or that card completes one). P0 [Q x6 K x5]
    draws 9H, melds the 6 queens (60: opened): the 5 kings would leave him 9H alone,
    with no canasta: masked; 4 kings (2 cards left) are legal."""
    env = make_env(4)
    deal(env, [QK, P1I, P2I, P3I], pile=["8C"], stock=["9H"])
    play(env, DrawStock(), SIX_Q)
    assert_illegal(env, FIVE_K)
    assert can(env, FOUR_K)
    assert can(env, Discard("9H"))


def test_last_card_that_completes_a_canasta():
    """D-29: the same with QC drawn: the 5 kings leave QC, which completes the queens
    to a canasta: legal. P0 lays it off and is out, concealed (D-26).
    Side 0: melds 70 + 50; natural canasta 500; out concealed 200; P2 -95."""
    env = make_env(4)
    deal(env, [QK, P1I, P2I, P3I], pile=["8C"], stock=["QC"])
    play(env, DrawStock(), SIX_Q, FIVE_K)
    assert state(env)["hands"][0] == ["QC"]
    play(env, LayOff("QC", 0))
    assert all(env.terminations.values())
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(120, 500, 0, 200, -95), bd(hands=-190)],
    )


@pytest.mark.parametrize("last", ["discard", "meld"])
def test_going_out_with_a_canasta(last):
    """D-26, D-29. P0 [Q x6 K x5] draws QC: 7 queens (a natural canasta), then either 4 kings and
    the discard of KC, or all 5 kings (out by a meld). Concealed: 200.
    Side 0: melds 70 + 40 (or 50); 500; 200; P2 -95."""
    env = make_env(4)
    deal(env, [QK, P1I, P2I, P3I], pile=["8C"], stock=["QC"])
    play(env, DrawStock(), SEVEN_Q)
    if last == "discard":
        play(env, FOUR_K)
        assert state(env)["hands"][0] == ["KC"]
        play(env, Discard("KC"))
        melds = 110
    else:
        play(env, FIVE_K)
        melds = 120
    assert state(env)["hands"][0] == []
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(melds, 500, 0, 200, -95), bd(hands=-190)],
    )


def test_meld_emptying_the_hand_masked_without_a_canasta():
    """Going out needs a canasta (D-29: with 0 cards only if the side holds it).
    P0 [Q x6 KS KH KH 9H 9H] draws 9D, melds the queens
    and the kings: 9-9-9 would empty his hand with no canasta on side 0: masked."""
    env = make_env(4)
    deal(env, ["QS QS QH QH QD QD KS KH KH 9H 9H", P1I, P2I, P3I], pile=["8C"], stock=["9D"])
    play(env, DrawStock(), SIX_Q, Meld(("KS", "KH", "KH")))
    assert_illegal(env, Meld(("9H", "9H", "9D")))
    assert can(env, Discard("9D"))


@pytest.mark.parametrize("second", ["8H", "QC"])
def test_two_players_need_two_canastas(second):
    """D-29, two players: ``canastas_to_go_out`` 2. P0 [K x7 Q x6 9H 9H] draws 9D and
    ``second``; melds 7 kings (one canasta) and 6 queens. 9-9-9 then leaves one card:
    with 8H masked (one canasta; 8H completes none); with QC legal (QC completes the
    queens, a second canasta), laid off: out, concealed.
    Side 0: melds 70 + 70 + 30; two natural canastas 1000; 200; nothing in hand.
    Side 1: P1's 15 cards, -115."""
    env = make_env(2)
    p0 = "KS KS KH KH KD KD KC QS QS QH QH QD QD 9H 9H"
    deal(env, [p0, P1I_2P], pile=["8C"], stock=["9D", second])
    play(env, DrawStock(), Meld(tuple(cards(p0)[:7])), SIX_Q)
    nines = Meld(("9H", "9H", "9D"))
    if second == "8H":
        assert_illegal(env, nines)
        return
    play(env, nines, LayOff("QC", 1))
    assert hand_value(P1I_2P) == 115
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(170, 1000, 0, 200, 0), bd(hands=-115)],
    )


def test_going_out_after_melding_in_an_earlier_turn_is_not_concealed():
    """D-26. P0 [K x5 Q x6] draws 9H, melds 5 kings (50: opened), discards 9H; the
    others draw and discard; P0 draws QC and melds 7 queens: out, not concealed (he
    had melded in an earlier turn): 100.
    Side 0: melds 50 + 70; 500; 100; P2 -95."""
    env = make_env(4)
    deal(
        env,
        ["KS KH KH KD KC QS QS QH QH QD QD", P1I, P2I, P3I],
        pile=["8C"],
        stock=["9H", "4H", "5H", "6H", "QC"],
    )
    play(env, DrawStock(), FIVE_K, Discard("9H"))
    assert state(env)["played"] == [True, False, False, False]
    for card in ("4H", "5H", "6H"):
        play(env, DrawStock(), Discard(card))
    play(env, DrawStock(), SEVEN_Q)
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=False,
        breakdown=[bd(120, 500, 0, 100, -95), bd(hands=-190)],
    )


@pytest.mark.parametrize("drawn", ["QC", "9C"])
def test_concealed_needs_only_melds_started_that_turn(drawn):
    """D-26. P2 [Q x7 AD 5D 6D 7D] opens with a natural canasta of queens in his first
    turn. P0 [KS KH KH KD KC JK 2H 9H 9H 9D 8H] drew 6H and discarded 8H in his first
    turn. In his second he draws ``drawn``, melds K-K-K-K-K-JK-2 (a mixed canasta) and
    9-9-9:
    QC: lays QC off on P2's queens (a meld from before his turn) and discards 6H:
    out, not concealed (100). Side 0: melds 80 + 120 + 30; 500 + 300; 100; P2 -35.
    9C: melds 9-9-9-9 and discards 6H: every card went into melds he started, one a
    canasta; he had not melded before: concealed (200). Melds 70 + 120 + 40."""
    env = make_env(4)
    p0 = "KS KH KH KD KC JK 2H 9H 9H 9D 8H"
    p2 = "QS QS QH QH QD QD QC AD 5D 6D 7D"
    deal(env, [p0, P1I, p2, P3I], pile=["8C"], stock=["6H", "4H", "TH", "JH", drawn])
    play(env, DrawStock(), Discard("8H"))
    play(env, DrawStock(), Discard("4H"))
    play(env, DrawStock(), SEVEN_Q, Discard("TH"))
    play(env, DrawStock(), Discard("JH"))
    assert state(env)["played"] == [False, False, True, False]
    play(env, DrawStock(), Meld(("KS", "KH", "KH", "KD", "KC", "JK", "2H")))
    if drawn == "QC":
        play(env, Meld(("9H", "9H", "9D")), LayOff("QC", 0), Discard("6H"))
        concealed, melds, out = False, 230, 100
    else:
        play(env, Meld(("9H", "9H", "9D", "9C")), Discard("6H"))
        concealed, melds, out = True, 230, 200
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=concealed,
        breakdown=[bd(melds, 800, 0, out, -35), bd(hands=-190)],
    )


def test_minimum_applies_to_a_concealed_going_out():
    """D-25: the minimum applies to every opening, concealed going out included. At
    3000 (minimum 120) P0 [Q x6 K x5] draws QC and melds 7 queens (70) and 4 kings
    (110): the discard of KC would take him out at 110: masked; laying KC off on the
    kings makes 120 and takes him out, concealed."""
    env = make_env(4)
    deal(env, [QK, P1I, P2I, P3I], pile=["8C"], stock=["QC"], totals=[3000, 0, 3000, 0])
    play(env, DrawStock(), SEVEN_Q)
    assert state(env)["opened"] == [False, False]
    play(env, FOUR_K)
    assert state(env)["opening_count"] == 110
    assert_illegal(env, Discard("KC"))
    play(env, LayOff("KC", 1))
    assert all(env.terminations.values())
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(120, 500, 0, 200, -95), bd(hands=-190)],
        start_totals=[3000, 0, 3000, 0],
    )


def test_black_threes_melded_only_to_go_out():
    """D-27. Idle hands without black 3s. P0 [KS KH KH KD KC JK JK 3S 3S 3C 9H] draws
    2H. The black 3s cannot be melded before a canasta; he melds K-K-K-K-K-JK-JK (150,
    a mixed canasta); the black 3s still not (they would leave 2 cards); 2H laid off on
    the canasta; now 3S 3S 3C leaves 9H alone: legal, and then he must go out: the
    discard of 9H is his only move. Concealed.
    Side 0: melds 170 + 15; 300; 200; P2 -100. Side 1: -100 - 100."""
    p1 = "AS 4S 5S 6S 7S 8S 9S TS JS KS QS"
    p2 = "AD 4D 5D 6D 7D 8D 9D TD JD KD QD"
    p3 = "AC 4C 5C 6C 7C 8C 9C TC JC KC QC"
    env = make_env(4)
    deal(env, ["KS KH KH KD KC JK JK 3S 3S 3C 9H", p1, p2, p3], pile=["8C"], stock=["2H"])
    threes = Meld(("3S", "3S", "3C"))
    play(env, DrawStock())
    assert_illegal(env, threes)
    play(env, Meld(("KS", "KH", "KH", "KD", "KC", "JK", "JK")))
    assert_illegal(env, threes)
    play(env, LayOff("2H", 0), threes)
    only(env, Discard("9H"))
    play(env, Discard("9H"))
    assert hand_value(p2) == 100
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(185, 300, 0, 200, -100), bd(hands=-200)],
    )


# ======================================================================================
# End of the stock (D-30, D-31)
# ======================================================================================


def test_end_of_stock_values_of_the_hands():
    """D-30 and the values table. The stock holds one card (5H), the rest of the pack
    is the pile (top QD). P0 [JK 2S AH KH QH JH TH 9H 8H 7H 3S] draws 5H and discards
    it. P1 to draw: the stock is empty: ``EndRound`` (no ``DrawStock``).
    P0's hand: 50 + 20 + 20 + 6 x 10 + 5 + 5 = 160. No melds: the hands only.
    Side 0: -(160 + 95); side 1: -(95 + 95)."""
    p0 = "JK 2S AH KH QH JH TH 9H 8H 7H 3S"
    assert hand_value(p0) == 160
    env = make_env(4)
    deal(env, [p0, P1I, P2I, P3I], pile=["QD"], stock=["5H"], short_stock=True)
    play(env, DrawStock(), Discard("5H"))
    assert state(env)["stock"] == []
    assert draws(env) == {"EndRound"}
    play(env, EndRound())
    assert all(env.terminations.values())
    assert_round_end(
        env,
        reason="stock_exhausted",
        winner=None,
        concealed=False,
        breakdown=[bd(hands=-255), bd(hands=-190)],
    )


@pytest.mark.parametrize("melded", [True, False])
def test_four_red_threes_and_the_end_of_the_stock(melded):
    """D-21, D-30; red 3s: 800 for all four, negative for a side with no meld. P0 [3H 3D AH AH AC
    4H 5H 6H 8H 9H TH] and P2 [3H 3D AD 5D-KD] lay them out at the deal and draw JH KH
    and QH QH; the stock then holds QS only. P0 draws it (the stock is empty), melds
    A-A-A (60) or not, discards QS; P1 ends the round.
    P0's hand: 4H 5H 6H 8H 9H TH JH KH = 65 (+ 60 with the aces); P2's 105.
    Side 0: 60 + 800 - 170 = 690, or -800 - 230 = -1030. Side 1: -190."""
    p0 = "3H 3D AH AH AC 4H 5H 6H 8H 9H TH"
    p2 = "3H 3D AD 5D 6D 7D 8D 9D TD JD KD"
    env = make_env(4)
    deal(
        env, [p0, P1I, p2, P3I], pile=["4C"], stock=["JH", "KH", "QH", "QH", "QS"], short_stock=True
    )
    d = state(env)
    assert Counter(d["red_threes"][0]) == Counter(["3H", "3H", "3D", "3D"])
    assert d["red_threes"][1] == [] and d["stock"] == ["QS"]
    play(env, DrawStock())
    if melded:
        play(env, Meld(("AH", "AH", "AC")))
    play(env, Discard("QS"))
    assert "DrawStock" not in draws(env) and "EndRound" in draws(env)
    play(env, EndRound())
    if melded:
        side0 = bd(60, 0, 800, 0, -(65 + 105))
    else:
        side0 = bd(0, 0, -800, 0, -(125 + 105))
    assert_round_end(
        env,
        reason="stock_exhausted",
        winner=None,
        concealed=False,
        breakdown=[side0, bd(hands=-190)],
    )


@pytest.mark.parametrize("melds", [True, False])
def test_last_stock_card_a_red_three_final_turn(melds):
    """D-30: the last stock card is a red 3: laid out unreplaced; the round ends after
    that turn: P0 may meld (an opening he starts must be complete) but not discard,
    and ends it with ``EndRound``. P0 [7H 7H 7D AH AH AC 4H 5H 6H 8H 9H] draws 3H.
    Melding 7-7-7 (15) and A-A-A (60): side 0 75 + 100 - (35 + 95) = 45.
    Not melding: the red 3 counts -100: -100 - (110 + 95) = -305. Side 1: -190."""
    env = make_env(4)
    deal(
        env, [pad("7H 7H 7D AH AH AC"), P1I, P2I, P3I], pile=["QS"], stock=["3H"], short_stock=True
    )
    play(env, DrawStock())
    d = state(env)
    assert d["final_turn"] is True
    assert d["red_threes"][0] == ["3H"] and d["stock"] == []
    assert len(d["hands"][0]) == 11
    assert not discards(env)
    assert can(env, EndRound())
    if melds:
        play(env, Meld(("7H", "7H", "7D")))
        assert_illegal(env, EndRound())  # the opening is not complete
        assert not discards(env)
        play(env, Meld(("AH", "AH", "AC")))
        side0 = bd(75, 0, 100, 0, -(35 + 95))
    else:
        side0 = bd(0, 0, -100, 0, -(110 + 95))
    play(env, EndRound())
    assert all(env.terminations.values())
    assert_round_end(
        env,
        reason="stock_exhausted",
        winner=None,
        concealed=False,
        breakdown=[side0, bd(hands=-190)],
    )


def test_empty_stock_the_pile_may_still_be_taken():
    """D-30: with the stock empty a player may take the pile (if allowed) or end the
    round. Stock: 5D only; the rest of the pack is the pile (every red 3 in it).
    P0 draws 5D, discards AH. P1 [AS AS ...]: TakePile(AS AS) (A-A-A = 60 opens) or
    EndRound, no DrawStock. He takes it: the four red 3s in it are laid out for side 1
    (nothing to replace them with). He discards KS; P2 may only end the round (or take
    a pile of one card he cannot match). Side 1: red 3s +800 (it has melded)."""
    env = make_env(4)
    p1 = "AS AS 4S 5S 6S 7S 8S 9S TS JS KS"
    deal(env, [pad("AH QD"), p1, P2I, P3I], pile=["QS"], stock=["5D"], short_stock=True)
    play(env, DrawStock(), Discard("AH"))
    assert draws(env) == {"TakePile", "EndRound"}
    play(env, TakePile(("AS", "AS")))
    d = state(env)
    assert d["opened"] == [False, True] and d["pending"] == [] and d["stock"] == []
    assert Counter(d["red_threes"][1]) == Counter(["3H", "3H", "3D", "3D"])
    assert not RED_THREES & set(d["hands"][1])
    assert places(d) == the_pack()
    play(env, Discard("KS"))
    assert draws(env) == {"EndRound"}
    play(env, EndRound())
    b = info(env)["breakdown"]
    assert b[1]["red_threes"] == 800 and b[1]["melds"] == 60
    d = state(env)
    assert b[1]["hands"] == -hand_value(d["hands"][1] + d["hands"][3])
    assert b[0] == bd(hands=-hand_value(d["hands"][0] + d["hands"][2]))
    assert info(env)["reason"] == "stock_exhausted"


def test_two_players_last_stock_card_drawn_alone():
    """D-31: with one card left in the stock, the two-player draw takes it and play
    goes on; the next player can only end the round."""
    env = make_env(2)
    p0 = "QH QD QC 4H 5H 6H 7H 8H 9H TH JH KH AH 4D 5D"
    deal(env, [p0, P1I_2P], pile=["QS"], stock=["9D"], short_stock=True)
    play(env, DrawStock())
    d = state(env)
    assert d["stock"] == [] and len(d["hands"][0]) == 16 and d["final_turn"] is False
    play(env, Discard("9D"))
    assert draws(env) == {"EndRound"}
    play(env, EndRound())
    assert info(env)["reason"] == "stock_exhausted"
    assert info(env)["side_scores"] == [-hand_value(p0), -hand_value(P1I_2P)]


# ======================================================================================
# Totals and the match (D-25, D-32)
# ======================================================================================


def _quick_out(env, totals) -> None:
    """P0 [Q x6 K x5] draws QC, melds 7 queens and 5 kings (120) and is out, concealed:
    side 0 120 + 500 + 200 - 95 = 725, side 1 -190."""
    deal(env, [QK, P1I, P2I, P3I], pile=["8C"], stock=["QC"], totals=totals)
    play(env, DrawStock(), SEVEN_Q, FIVE_K)


def test_totals_option_sets_the_start_of_the_round():
    """D-25: ``options["totals"]`` are the totals at the start of the round; the round's
    scores are added to them (also with ``match=False``)."""
    env = make_env(4)
    _quick_out(env, [1000, 200, 1000, 200])
    assert_round_end(
        env,
        reason="went_out",
        winner=0,
        concealed=True,
        breakdown=[bd(120, 500, 0, 200, -95), bd(hands=-190)],
        start_totals=[1000, 200, 1000, 200],
    )


def test_unequal_partner_totals_refused():
    """D-25 (DESIGN.md crafted deals): totals per seat, partners equal."""
    env = make_env(4)
    with pytest.raises(ValueError, match="totals"):
        _quick_out(env, [0, 10, 5, 10])


def test_crafted_deal_of_the_wrong_size_refused():
    env = make_env(4)
    with pytest.raises(ValueError):
        deal(env, [pad("QH QD", 10), P1I, P2I, P3I + " QS"], pile=["QC"])


@pytest.mark.parametrize(
    ("t0", "t1", "over", "winner"),
    [
        (4900, 0, True, 0),  # 5625 v -190
        (4900, 5200, True, 0),  # 5625 v 5010: both reach 5000, side 0 higher
        (4900, 6000, True, 1),  # 5625 v 5810
        (4900, 5815, False, None),  # 5625 v 5625: level at the top, another round
        (4000, 0, False, None),  # 4725: below the target
    ],
)
def test_match_to_target(t0, t1, over, winner):
    """D-32: a round whose end leaves a side at or above ``target`` (5000) ends the
    match if one side is highest; level totals at the top play another round (dealt
    by the next dealer, P0; P1 plays first). Every minimum here is 120."""
    env = make_env(4, match=True)
    totals = [t0, t1, t0, t1]
    _quick_out(env, totals)
    end = [t0 + 725, t1 - 190] * 2
    assert list(info(env)["totals"]) == end
    assert list(info(env)["round_scores"]) == [725, -190, 725, -190]
    assert all(env.terminations.values()) is over
    if over:
        assert info(env)["match_winner"] == winner
        return
    assert info(env).get("match_winner") is None
    d = state(env)
    assert d["round"] == 1 and d["dealer"] == 0 and d["current_player"] == 1
    assert d["round_start_totals"] == end and d["totals"] == end
    assert [len(h) for h in d["hands"]] == [11] * 4
    assert d["table"] == [] and d["pending"] == []
    assert places(d) == the_pack()


# ======================================================================================
# Observation, restore, PettingZoo API
# ======================================================================================


def test_observation_shows_the_canasta_fields():
    """DESIGN.md observation: seats and sides as offsets from the observer (own side
    first). The pagat opening at 50 with side 1 at -100 (minimum 15): after
    TakePile(KH KH) everyone sees the pending KD QC, side 0's K meld, the minimums."""
    env = make_env(4)
    deal(
        env,
        [pad("KH KH QH QH 2C"), P1I, P2I, P3I],
        pile=["KD", "QC", "KC"],
        stock=["9C"],
        totals=[0, -100, 0, -100],
    )
    v = view(env, 0)
    assert v["pile_size"] == 3 and v["pile_top"] == "KC" and v["frozen"] is False
    play(env, TakePile(("KH", "KH")))
    for seat, own in ((0, True), (1, False)):
        v = view(env, seat)
        mine, theirs = (0, 1) if own else (1, 0)
        assert {k: list(x) for k, x in v["melds"][mine].items()} == {"K": [3, 0, 0]}
        assert dict(v["melds"][theirs]) == {}
        assert cards_of(v["pending"]) == Counter(["KD", "QC"])
        assert list(v["minimum"]) == ([50, 15] if own else [15, 50])
        assert list(v["opened"]) == [False, False]
        assert list(v["red_threes"]) == [0, 0]
        assert v["pile_size"] == 0 and v["pile_top"] is None


def test_restore_mid_opening_with_pending():
    """DESIGN.md: ``reset(options={"state": d})`` restores ``to_dict()``; mid-way
    through the pagat opening (pending cards, count 30) the restored game has the same
    state and mask and plays on the same."""
    env = make_env(4)
    deal(env, [pad("KH KH QH QH 2C"), P1I, P2I, P3I], pile=["KD", "QC", "KC"], stock=["9C"])
    play(env, TakePile(("KH", "KH")))
    other = make_env(4)
    other.reset(options={"state": state(env)})
    assert state(other) == state(env)
    assert other.agent_selection == env.agent_selection
    assert legal(other) == legal(env)
    for e in (env, other):
        play(e, Meld(("QH", "QH", "2C")), Discard("4H"))
    assert state(other) == state(env)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_and_seed(n):
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make_env(n), num_cycles=200, verbose_progress=False)
        seed_test(lambda: make_env(n), num_cycles=200)
