"""Scenario tests for the ``indian`` preset: Indian Rummy, points rummy (pool 101 as a match).

The rules are RULES.md section 4 "indian" (D-14, D-15) and section 2 (melds): two decks
and two printed jokers, 13 cards each, ace low or high; the cut card (the stock's bottom)
makes its rank wild this round in every suit (a joker cut: aces); a wild-rank card in a
set of its own rank or at its own place in its suit's run is natural. No melding during
play: a turn is a draw and a discard, or ``Declare(c)`` (discard ``c``, show the other 13
in melds with at least two runs, one of them pure; D-3: at least two naturals and no more
wild cards than naturals per meld). ``Drop()`` instead of drawing costs 20 before the
player's first draw, 40 after. Each loser pays his count (D-14: the cards outside his
best arrangement with two runs, one pure; else every card; A K Q J T 10, 2-9 face value,
jokers and wild-rank cards 0; capped at 80); the winner gets the sum (D-15, zero-sum).

Every scenario is a crafted deal worked out by hand in the comments and played through
the public AEC API. The declare masks are also checked against a small brute-force
search written here (``brute_show``: every sub-multiset of a suit's or a rank's cards
plus the wild cards is tried as a meld), independent of ``rummy_env.melds``.

Conventions used in the comments:

* ``P0``/``P1``/... are ``player_0``/...; the dealer is the last seat, so P0 starts.
* A hand is written ``[5H 6H 7H]``; the stock top first; "cut 8C" is the stock's
  bottom card, so 8S 8H 8D 8C are wild.
* ``JK`` is a printed joker; ``5C=5H`` is the wild 5C standing for the 5H.
* Count values: A K Q J T = 10, 2-9 face value, JK and wild-rank cards 0.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import combinations

import numpy as np
import pytest
from pettingzoo.test import seed_test

import rummy_env
from rummy_env import melds, observation
from rummy_env.cards import JOKER, card_str, face_counts, parse_card, parse_cards
from rummy_env.moves import Declare, Discard, DrawDiscard, DrawStock, Drop
from tests import helpers
from tests.helpers import assert_round_over, legal_strs, pack, play, rest_of_pack, snapshot

# ======================================================== brute-force show search

INF = 10**9


def _places(face: int, window: range) -> list[int]:
    """Where a natural card may stand in a run spanning ``window`` (positions 0..13,
    13 = the ace above the king)."""
    r = face % 13
    return [q for q in ((0, 13) if r == 0 else (r,)) if q in window]


def meld_kind(cards: tuple[int, ...], wild: frozenset[int]) -> str | None:
    """``"pure"`` (a run with no wild card acting as one), ``"run"``, ``"set"`` or None.

    A set: 3-4 cards, its naturals of one rank in different suits (a wild-rank card of
    that rank is natural), the rest wild. A run: 3+ places in a row of one suit, A-2-3
    up to Q-K-A, each place one natural of that suit or one wild card. Both: at least
    two naturals, no more wild cards than naturals (D-3)."""
    n = len(cards)
    if n < 3:
        return None
    found = None
    if n <= 4:
        for r in {c % 13 for c in cards if c != JOKER}:
            suits, wilds, ok = [], 0, True
            for c in cards:
                if c != JOKER and c % 13 == r:
                    suits.append(c // 13)
                elif c == JOKER or c in wild:
                    wilds += 1
                else:
                    ok = False
            if ok and len(set(suits)) == len(suits) >= 2 and wilds <= len(suits):
                found = "set"
    # cards that can only be natural are placed first, then the wild-eligible ones:
    # at their own free place (natural), else as wild cards
    order = sorted(cards, key=lambda c: c == JOKER or c in wild)
    for s in {c // 13 for c in cards if c != JOKER}:
        for lo in range(14 - n + 1):
            window = range(lo, lo + n)
            filled: set[int] = set()
            wilds, ok = 0, True
            for c in order:
                free = []
                if c != JOKER and c // 13 == s:
                    free = [q for q in _places(c, window) if q not in filled]
                if free:
                    filled.add(free[0])
                elif c == JOKER or c in wild:
                    wilds += 1
                else:
                    ok = False
                    break
            if ok and len(filled) >= 2 and wilds <= len(filled):
                if wilds == 0:
                    return "pure"
                found = "run"
    return found


def card_value(face: int, wild: frozenset[int]) -> int:
    if face == JOKER or face in wild:
        return 0
    r = face % 13
    return 10 if r == 0 or r >= 9 else r + 1


def all_melds(cards: list[int], wild: frozenset[int]) -> dict[tuple[int, ...], str]:
    """Every meld (sorted faces -> kind) inside the multiset ``cards``: every
    sub-multiset of one suit's cards, or one rank's, plus the wild-eligible cards."""
    cards = sorted(cards)
    wildish = [c for c in cards if c == JOKER or c in wild]
    out: dict[tuple[int, ...], str] = {}
    pools = [[c for c in cards if c != JOKER and c // 13 == s] for s in range(4)]
    pools += [[c for c in cards if c != JOKER and c % 13 == r] for r in range(13)]
    for pool in pools:
        pool = sorted(pool + [c for c in wildish if c not in pool])
        for k in range(3, len(pool) + 1):
            for sub in combinations(pool, k):
                if sub not in out:
                    kind = meld_kind(sub, wild)
                    if kind:
                        out[sub] = kind
    return out


def brute_show(cards, wild_faces, *, everything: bool = False) -> int | None:
    """The least value left outside the melds over every arrangement of ``cards`` with
    at least two runs, one pure; None if there is none. ``everything``: every card must
    be in a meld (a declaration): 0 or None."""
    wild = frozenset(wild_faces)
    cards = sorted(parse_cards(cards))
    by_first: dict[int, list[tuple[Counter, str]]] = {}
    for m, kind in all_melds(cards, wild).items():
        by_first.setdefault(m[0], []).append((Counter(m), kind))

    @cache
    def go(rest: tuple[int, ...], runs: int, pure: bool) -> int:
        if not rest:
            return 0 if runs >= 2 and pure else INF
        first = rest[0]
        best = INF if everything else card_value(first, wild) + go(rest[1:], runs, pure)
        have = Counter(rest)
        for m, kind in by_first.get(first, ()):
            if all(have[c] >= k for c, k in m.items()):
                left = tuple(sorted((have - m).elements()))
                best = min(best, go(left, min(2, runs + (kind != "set")), pure or kind == "pure"))
        return best

    got = go(tuple(cards), 0, False)
    return None if got >= INF else got


def brute_count(cards, wild_faces, cap: int = 80) -> int:
    """A loser's count (D-14) by brute force: outside his best show, else every card."""
    found = brute_show(cards, wild_faces)
    if found is None:
        found = sum(card_value(c, frozenset(wild_faces)) for c in parse_cards(cards))
    return min(found, cap)


def wild_of(cut: str) -> tuple[int, ...]:
    """The four wild faces of a cut card (a joker cut: the aces)."""
    f = parse_card(cut)
    r = 0 if f == JOKER else f % 13
    return tuple(s * 13 + r for s in range(4))


def test_brute_force_helper_itself():
    # the independent checker on hand-sorted melds (8s wild)
    w = frozenset(wild_of("8C"))
    kind = lambda s: meld_kind(tuple(sorted(parse_cards(s))), w)  # noqa: E731
    assert kind("AS 2S 3S") == "pure"
    assert kind("QH KH AH") == "pure"
    assert kind("KS AS 2S") is None  # no wrap
    assert kind("7C 8C 9C") == "pure"  # a wild-rank card at its own place
    assert kind("7C 8D 9C") == "run"  # 8D=8C
    assert kind("7C JK 9C") == "run"
    assert kind("7C JK 8D") is None  # one natural, two wild cards (D-3)
    assert kind("QH KH JK 8S") == "run"  # J-Q-K-A: two and two
    assert kind("9S 9H JK") == "set"
    assert kind("9S 9S 9H") is None  # D-2: suits differ, also with two decks
    assert kind("8S 8H 8D") == "set"  # a set of the wild rank: all natural
    assert kind("9S 9H 9D 9C JK") is None  # a set holds at most four
    assert brute_show("AS 2S 3S 5H 6H 7H 9D 9C 9S JC JD JH 4H".split(), w, everything=True) == 0
    assert brute_show("AS 2S 3S 5H 6H 7H 9D 9C 9S JC JD JH QS".split(), w, everything=True) is None


# ============================================================= env helpers


def make_env(num_players: int = 2, **overrides) -> rummy_env.raw_env:
    return rummy_env.raw_env("indian", num_players=num_players, **overrides)


def deal(env, hands, discard=(), stock_top=(), cut="TD", dealer=None, fill_discard=False):
    """Reset ``env`` to a crafted deal with the cut card ``cut`` at the stock's bottom:
    the stock is ``stock_top``, then the rest of the pack in card-id order (with
    ``fill_discard`` the rest goes under ``discard`` instead), then the cut. A hand
    given as None gets the last 13 cards (in card-id order) of what is left."""
    n = env.unwrapped.rules.num_players
    hands = list(hands)
    for i, h in enumerate(hands):
        if h is None:  # 13 cards of no interest: the last ones of the pack left
            given = [g for g in hands if g is not None]
            hands[i] = rest_of_pack(env, *given, discard, stock_top, [cut])[-13:]
    rest = rest_of_pack(env, *hands, discard, stock_top, [cut])
    discard = [*rest, *discard] if fill_discard else list(discard)
    stock = [*stock_top, *([] if fill_discard else rest), cut]
    env.reset(
        seed=0,
        options={
            "hands": [list(h) for h in hands],
            "discard": discard,
            "stock": stock,
            "dealer": n - 1 if dealer is None else dealer,
            "cut": cut,
        },
    )
    assert snapshot(env)["cut"] == cut


def declares(env) -> set[str]:
    return {m.card for m in env.unwrapped.legal_moves() if isinstance(m, Declare)}


def brute_declares(env) -> set[str]:
    """The faces of the hand of the player to act whose discard leaves a show (every
    other card in melds, two runs, one pure), by brute force; the taken discard
    excluded."""
    d = snapshot(env)
    hand = d["hands"][d["current_player"]]
    wild = env.unwrapped.state.wild_faces
    out = set()
    for c in set(hand):
        rest = list(hand)
        rest.remove(c)
        if c != d["forbidden"] and brute_show(rest, wild, everything=True) == 0:
            out.add(c)
    return out


def decoded(env, agent: str) -> dict:
    return observation.decode(env.observe(agent)["observation"], env.unwrapped.rules)


def draw_and_discard(env) -> None:
    """The player to act draws the stock top and discards it again."""
    top = snapshot(env)["stock"][0]
    play(env, DrawStock(), Discard(top))


def restored(env, num_players: int = 2, **overrides):
    return helpers.restored(env, make_env(num_players, **overrides))


# P0's winning hand in the scoring deals (no 8 in it): runs AS-3S (pure) and 4H-7H
# (4H drawn; or 9H drawn: four 9s and 5H-7H), sets of 9s and Js; QS is the odd card he
# declares with.
WINNER = ["AS", "2S", "3S", "5H", "6H", "7H", "9D", "9C", "9S", "JC", "JD", "JH", "QS"]

# A loser's hand of picture cards and tens with no pure run (T J _ K of spades, T _ _ K
# of hearts): counts 10 each (with tens wild, 10 x 10 = 100), capped at 80.
P1_80 = ["KS", "KS", "QD", "QD", "JS", "JS", "TH", "TH", "KH", "KH", "QC", "QC", "TS"]


# ============================================================ 1. cut and wild rank


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_seeded_cut_is_the_stock_bottom(seed):
    # A seeded deal turns the stock's top card and puts it at the bottom: the cut is the
    # last card of to_dict()["stock"] (top first); its rank is wild in all four suits.
    env = make_env()
    env.reset(seed=seed)
    d = snapshot(env)
    assert d["cut"] == d["stock"][-1]
    assert len(d["stock"]) == 106 - 26 - 1
    assert env.state.cut == parse_card(d["cut"]) and card_str(env.state.cut) == d["cut"]
    assert tuple(sorted(env.state.wild_faces)) == wild_of(d["cut"])
    view = decoded(env, "player_1")
    assert view["cut"] == d["cut"]
    assert view["wild_rank"] == ("A" if d["cut"] == "JK" else d["cut"][0])


def test_cut_option_without_stock_goes_to_the_bottom():
    # hands and discard given, stock shuffled: the named cut 7H is put at the bottom,
    # 7S 7H 7D 7C are wild (faces 6, 19, 32, 45).
    env = make_env()
    deal(env, [WINNER, None], cut="8C")
    d = snapshot(env)
    env.reset(seed=5, options={"hands": d["hands"], "discard": d["discard"], "cut": "7H"})
    d = snapshot(env)
    assert d["cut"] == "7H" and d["stock"][-1] == "7H"
    assert sorted(env.state.wild_faces) == [6, 19, 32, 45]
    assert Counter(d["stock"]) + Counter(d["discard"]) + sum(
        (Counter(h) for h in d["hands"]), Counter()
    ) == pack(env.rules)
    view = decoded(env, "player_0")
    assert (view["cut"], view["wild_rank"]) == ("7H", "7")


def test_cut_option_must_be_the_given_stock_bottom():
    env = make_env()
    env.reset(seed=1)
    d = snapshot(env)
    bottom = d["stock"][-1]
    other = next(c for c in d["stock"] if c != bottom)
    opts = {"hands": d["hands"], "discard": d["discard"], "stock": d["stock"]}
    env.reset(options={**opts, "cut": bottom})  # the bottom card: accepted
    assert snapshot(env)["cut"] == bottom
    with pytest.raises(ValueError, match="cut"):
        env.reset(options={**opts, "cut": other})
    with pytest.raises(ValueError, match="cut.*'ZZ'"):  # an unknown card string
        env.reset(options={**opts, "cut": "ZZ"})


def test_cut_option_needs_a_card_of_the_stock_and_cut_rules():
    # both copies of 7H dealt: no 7H left to cut (stock shuffled)
    env = make_env()
    deal(env, [["7H", "7H", *WINNER[:3], *WINNER[6:], "KD"], None], cut="8C")
    hands = snapshot(env)["hands"]
    with pytest.raises(ValueError, match="cut"):
        env.reset(options={"hands": hands, "discard": [], "cut": "7H"})
    # no cut card where the wild rank is not the cut's
    plain = make_env(wild_rank="none")
    with pytest.raises(ValueError, match="cut"):
        plain.reset(options={"hands": hands, "discard": [], "cut": "8H"})


def test_joker_cut_makes_aces_wild():
    # cut JK: the aces are wild (0, 13, 26, 39); the observation's wild rank is "A".
    # P0 [AS 2S 3S 5H 6H 7H 9D 9C 9S JC JD JH QS] draws AH: AH=4H (an ace away from
    # its place is wild) -> 4H..7H is impure but AS-3S is pure: Declare(QS) is legal
    # (AS at its own place in A-2-3 is natural).
    env = make_env()
    deal(
        env,
        [WINNER, ["KS", "KH", "KD", "KC", "QH", "QC", "QD", "TS", "TH", "TC", "TD", "8S", "8H"]],
        stock_top=["AH"],
        cut="JK",
    )
    assert sorted(env.state.wild_faces) == [0, 13, 26, 39]
    assert snapshot(env)["stock"][-1] == "JK"
    for agent in env.agents:
        view = decoded(env, agent)
        assert (view["cut"], view["wild_rank"]) == ("JK", "A")
    play(env, DrawStock())
    assert declares(env) == brute_declares(env) == {"QS"}
    play(env, Declare("QS"))
    assert env.infos["player_0"]["winner"] == 0


def test_observation_shows_drops_and_draws_and_the_cut():
    # 3 players, seeded. P0 draws and discards; P1 drops (first drop). P2's view
    # (offsets: 0 self, 1 = P0, 2 = P1): drew [F, T, F], dropped [F, F, T].
    env = make_env(3)
    env.reset(seed=3)
    draw_and_discard(env)
    play(env, Drop())
    view = decoded(env, "player_2")
    assert view["drew"] == [False, True, False]
    assert view["dropped"] == [False, False, True]
    assert view["cut"] == snapshot(env)["cut"]


def test_drawing_the_last_stock_card_shows_the_cut_in_hand():
    # cut 8C, stock [KC 8C], the other 78 cards in the discard pile (top TS).
    # P0 draws KC, discards KC; P1 draws the last stock card, the face-up cut 8C: P0's
    # observation now lists 8C among P1's known cards (P1's own view knows nothing of
    # P0). P1 discards the 8C: known again empty; the stock is rebuilt from the pile
    # under the top 8C: 80 - 1 = 79 cards, rebuilds 1.
    env = make_env()
    p1 = ["2C", "JK", "4C", "6D", "8S", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"]
    deal(env, [WINNER, p1], discard=["TS"], stock_top=["KC"], cut="8C", fill_discard=True)
    assert snapshot(env)["stock"] == ["KC", "8C"]
    play(env, DrawStock(), Discard("KC"))
    assert decoded(env, "player_0")["known"] == [[]]
    play(env, DrawStock())
    assert decoded(env, "player_0")["known"] == [["8C"]]
    assert decoded(env, "player_1")["known"] == [[]]
    assert snapshot(env)["known"] == [[], ["8C"]]
    play(env, Discard("8C"))
    d = snapshot(env)
    assert d["known"] == [[], []] and decoded(env, "player_0")["known"] == [[]]
    assert (len(d["stock"]), d["discard"], d["rebuilds"]) == (79, ["8C"], 1)
    assert d["cut"] == "8C"  # the round's wild rank stays


# ============================================================ 2. declare mask


DECLARE_CASES = [
    # id, P0's 13 cards, stock top (drawn) or None, discard top (taken) or None, cut,
    # the Declare cards expected (worked out by hand)
    (
        # runs AS-3S, 5H-8H (pure), sets 9D 9C 9S and JC JD JH: only the drawn 4D is odd
        "one-odd-card",
        "AS 2S 3S 5H 6H 7H 8H 9D 9C 9S JC JD JH",
        "4D",
        None,
        "TD",
        {"4D"},
    ),
    (
        # + KH: 5H-9H, 9D 9C 9S, KC KD KH, AS-3S. Discard 5H (6H-9H), 9H (5H-8H),
        # 8H (5H-7H + four 9s), any of 9S 9D 9C (9H joins the other two); not 6H/7H
        # (a lone 5H or 5H 6H), not a K, not a spade.
        "several",
        "AS 2S 3S 5H 6H 7H 8H 9H 9D 9C 9S KC KD",
        "KH",
        None,
        "TD",
        {"5H", "8H", "9H", "9S", "9D", "9C"},
    ),
    (
        # AS-3S and sets of 5s, 8s and four Ks (KD drawn): 13 cards in melds with QD
        # out, but only one run -> no declaration
        "one-run-only",
        "AS 2S 3S 5H 5D 5C 8S 8H 8D KS KH KC QD",
        "KD",
        None,
        "6D",
        set(),
    ),
    (
        # two runs 4S JK 6S and 8H 9H JK, sets of four Qs and 3s; 7C odd: no pure run
        # (no three neighbouring naturals of a suit) -> no declaration
        "no-pure-run",
        "4S JK 6S 8H 9H JK QD QC QS QH 3C 3D 3H",
        "7C",
        None,
        "KS",
        set(),
    ),
    (
        # cut 5D: 4H 5H 6H is pure (5H natural at its own place); 8C 9C JK the second
        # run; KS KH KD and four 2s: the drawn 9D goes
        "wild-rank-natural-in-pure-run",
        "4H 5H 6H 8C 9C JK KS KH KD 2S 2D 2C 2H",
        "9D",
        None,
        "5D",
        {"9D"},
    ),
    (
        # cut 5D: 4H 5C=5H 6H is a run (the 5C is wild there), AS-3S and 9D-QD pure,
        # KC KD KH: the drawn 8S goes
        "wild-rank-as-wild",
        "4H 5C 6H AS 2S 3S 9D TD JD QD KC KD KH",
        "8S",
        None,
        "5D",
        {"8S"},
    ),
    (
        # cut 5D: AS-3S, 6D-8D pure, four 7s; QH with JK and 5C would be one natural
        # and two wild cards (D-3); no other Q, no heart near it (7H is 5 away), and
        # the drawn KC has no natural partner either: both odd -> no declaration
        "d3-one-natural",
        "AS 2S 3S 6D 7D 8D 7S 7H 7D 7C QH JK 5C",
        "KC",
        None,
        "5D",
        set(),
    ),
    (
        # cut 5D: QH KH JK 5C is J-Q-K-A of hearts with two naturals, two wild cards
        # (D-3 holds) -> discard KC; or KH KC JK 5C (a set, two and two) -> discard QH
        "d3-two-naturals-two-wilds",
        "AS 2S 3S 6D 7D 8D 9C 9H 9S QH KH JK 5C",
        "KC",
        None,
        "5D",
        {"KC", "QH"},
    ),
    (
        # 7S 7H JK (a set with a joker), AS-3S, 9C-QC, KD KH KS: the drawn 4D goes
        "set-with-joker",
        "7S 7H JK AS 2S 3S 9C TC JC QC KD KH KS",
        "4D",
        None,
        "5C",
        {"4D"},
    ),
    (
        # Q-K-A of hearts (ace high) and 4C-6C pure, 8S 8D 8H, four Js: 2D goes
        "ace-high-run",
        "QH KH AH 4C 5C 6C 8S 8D 8H JS JD JC JH",
        "2D",
        None,
        "TD",
        {"2D"},
    ),
    (
        # K-A-2 of spades is no run (no wrap): KS, AS, 2S and the drawn 2D are odd
        "king-ace-two-no-run",
        "KS AS 2S 4C 5C 6C 8S 8D 8H JS JD JC JH",
        "2D",
        None,
        "TD",
        set(),
    ),
    (
        # P0 takes 8H from the discard pile: 5H-8H is a run, 4D goes
        "taken-card-used",
        "AS 2S 3S 5H 6H 7H 4D 9D 9C 9S JC JD JH",
        None,
        "8H",
        "TD",
        {"4D"},
    ),
    (
        # P0 takes the second 8H: discarding an 8H would leave a show, but the taken
        # face may not be discarded nor declared (any copy) -> no declaration
        "taken-card-not-declarable",
        "AS 2S 3S 5H 6H 7H 8H 9D 9C 9S JC JD JH",
        None,
        "8H",
        "TD",
        set(),
    ),
    (
        # The quick exit that counts cards in no meld of naturals (at most 4 per wild card,
        # plus the discard) must let this through: 5H 6H 8H 9H and QD are in no natural
        # meld, one joker; 5H 6H JK=7H 8H 9H holds four of them, QD is discarded; AS-5S
        # pure, JS JD JC. Cut KC (kings wild; none in hand).
        "four-naturals-on-one-joker",
        "AS 2S 3S 4S 5S 5H 6H 8H 9H JK JS JD JC",
        "QD",
        None,
        "KC",
        {"QD"},
    ),
    (
        # one more such card (TC) than the joker can hold with the discard: no declaration
        "five-naturals-on-one-joker",
        "AS 2S 3S 4S 5S 5H 6H 8H 9H JK JS JD TC",
        "QD",
        None,
        "KC",
        set(),
    ),
]


@pytest.mark.parametrize(
    ("p0", "drawn", "taken", "cut", "expected"),
    [c[1:] for c in DECLARE_CASES],
    ids=[c[0] for c in DECLARE_CASES],
)
def test_declare_mask_is_exact(p0, drawn, taken, cut, expected):
    # P1 holds 13 other cards (no effect on P0's mask). After P0's draw, the Declare
    # moves are exactly the expected ones, and exactly those the brute force finds.
    env = make_env()
    deal(
        env,
        [p0.split(), None],
        discard=[taken] if taken else ["2H"],
        stock_top=[drawn] if drawn else [],
        cut=cut,
    )
    play(env, DrawStock() if drawn else DrawDiscard())
    got = declares(env)
    assert got == expected
    assert brute_declares(env) == expected
    hand = snapshot(env)["hands"][0]
    mask = env.observe("player_0")["action_mask"]
    for c in set(hand):
        a = env.encode(Declare(c))
        assert bool(mask[a]) == (c in expected), c
    if taken:
        helpers.assert_illegal(env, Declare(taken))
        helpers.assert_illegal(env, Discard(taken))
    for c in sorted(set(hand) - expected - {taken}):
        helpers.assert_illegal(env, Declare(c))


def _random_hand(rng: random.Random, left: Counter, size: int) -> list[str]:
    """``size`` cards taken from ``left``: mostly pieces of runs and sets (some with a
    joker), then random cards, so that many hands are near a show."""
    out: list[str] = []

    def take(c: str) -> bool:
        if left[c] > 0 and len(out) < size:
            left[c] -= 1
            out.append(c)
            return True
        return False

    ranks, suits = "A23456789TJQK", "SHDC"
    for _ in range(40):
        if len(out) >= size:
            break
        kind = rng.random()
        if kind < 0.55:
            su = rng.choice(suits)
            lo = rng.randrange(0, 12)
            n = rng.choice((3, 3, 4, 5))
            for i in range(lo, min(lo + n, 14)):
                if rng.random() < 0.12:
                    take("JK")
                else:
                    take(ranks[i % 13] + su)
        elif kind < 0.9:
            r = rng.choice(ranks)
            for su in rng.sample(suits, rng.choice((3, 3, 4))):
                take(r + su)
        else:
            take(rng.choice(list(left.elements())))
    while len(out) < size:
        take(rng.choice(list(left.elements())))
    return out


@pytest.mark.parametrize("one_natural", [False, True])
def test_declare_with_a_meld_of_one_natural_where_the_rules_allow(one_natural):
    # With wilds_at_most_naturals off a meld may hold one natural and three wild cards:
    # KC JK 6S 6H (cut 6C: the sixes wild) then completes the show, so Declare(2D) is
    # legal; under D-3 (two naturals a meld) it is not. Either way the mask is what the
    # show search says of each discard.
    env = make_env(wilds_at_most_naturals=not one_natural)
    p0 = ["3H", "4H", "5H", "7S", "8S", "9S", "TD", "JD", "QD", "KC", "JK", "6S", "6H"]
    p1 = ["2S", "4S", "AD", "8D", "9C", "TC", "3C", "5C", "AH", "JS", "KH", "7D", "TH"]
    deal(env, [p0, p1], stock_top=["2D"], cut="6C")
    play(env, DrawStock())
    got = declares(env)
    assert ("2D" in got) == one_natural
    s = env.unwrapped.state
    want = set()
    for c in set(p0 + ["2D"]):
        rest = list(s.hands[0])
        rest[parse_card(c)] -= 1
        if melds.show_arrangement(s.cat, rest, s.wild_faces, None, 0) is not None:
            want.add(c)
    assert got == want


@pytest.mark.parametrize("num_players", [2, 6])
def test_card_bound_never_changes_the_least_count(num_players):
    # The show search prunes on a lower bound (cards no meld can hold, needy naturals
    # beyond what the wild cards serve): with it and without it, the least number of
    # cards left out is the same, with and without the two-runs rule, on random hands.
    rng = random.Random(10 + num_players)
    env = make_env(num_players)
    cat = melds.catalogue_for(env.rules)
    checked = 0
    for _ in range(60):
        left = pack(env.rules)
        hand = face_counts(parse_cards(_random_hand(rng, left, rng.choice([13, 14]))))
        wild = wild_of(rng.choice(sorted(left.elements())))
        jokers, hand[JOKER] = hand[JOKER], 0
        for runs, pure in ((2, True), (0, False)):
            got = []
            for bound in (True, False):
                search = melds._ShowSearch(cat, [1] * 53, runs, pure, wild)
                assert search.bound
                search.bound = bound
                found = search.run(list(hand), jokers, None)
                got.append(None if found is None else found[0])
            assert got[0] == got[1], (hand, wild, runs)
            checked += got[0] is not None
    assert checked > 60


def test_wild_rank_split_bound_on_wild_rich_hands():
    # Hands of 3-6 wild-rank cards (and jokers) beside pieces of runs and sets: there the
    # card bound is tightened by bounding each split of the wild-rank cards into wild
    # cards and naturals apart. The least count (with and without the two-runs rule) is
    # the same with the bound on and off, and the discards that leave a show are those
    # the search without the bound finds one by one.
    rng = random.Random(77)
    env = make_env()
    cat = melds.catalogue_for(env.rules)
    ranks, suits = "A23456789TJQK", "SHDC"
    shows = 0
    for _ in range(40):
        left = pack(env.rules)
        r = rng.choice(ranks)
        wild = wild_of(r + "S")
        hand = []
        for _ in range(rng.choice((3, 4, 5, 6))):
            c = rng.choice([r + su for su in suits] + ["JK"])
            if left[c]:
                left[c] -= 1
                hand.append(c)
        hand += _random_hand(rng, left, 14 - len(hand))
        counts = face_counts(parse_cards(hand))
        nat, jokers = list(counts), counts[JOKER]
        nat[JOKER] = 0
        for runs, pure in ((2, True), (0, False)):
            got = []
            for bound in (True, False):
                search = melds._ShowSearch(cat, [1] * 53, runs, pure, wild)
                search.bound = bound
                found = search.run(list(nat), jokers, None)
                got.append(None if found is None else found[0])
            assert got[0] == got[1], (hand, r, runs)
        plain = melds._ShowSearch(cat, [1] * 53, 2, True, wild)
        plain.bound = False
        want = {f for f in set(parse_cards(hand)) if plain.shows_without(nat, jokers, f)}
        assert melds.show_discards(cat, counts, wild) == want, (hand, r)
        shows += bool(want)
    assert shows >= 5


@pytest.mark.parametrize("num_players", [2, 6])
def test_show_discards_matches_brute_force(num_players):
    # melds.show_discards finds every discard that leaves a show in one search (branch
    # and bound with a stranded-card bound); the brute force asks each discard alone.
    rng = random.Random(num_players)
    env = make_env(num_players)
    cat = melds.catalogue_for(env.rules)
    hits = 0
    for _ in range(30):
        left = pack(env.rules)
        hand = _random_hand(rng, left, 14)
        wild = wild_of(rng.choice(sorted(left.elements())))
        want = set()
        for c in set(hand):
            rest = list(hand)
            rest.remove(c)
            if brute_show(rest, wild, everything=True) == 0:
                want.add(parse_card(c))
        assert melds.show_discards(cat, face_counts(parse_cards(hand)), wild) == want, hand
        hits += bool(want)
    assert hits >= 8  # the generator makes shows too, not only misses


@pytest.mark.parametrize("seed", range(6))
def test_declare_mask_matches_brute_force_on_random_hands(seed):
    # Random near-show hands (pieces of runs and sets, jokers, a random cut): after the
    # draw, Declare(c) is marked exactly for the c the brute-force search accepts.
    rng = random.Random(seed)
    env = make_env()
    hits = 0
    for _ in range(8):
        left = pack(env.rules)
        p0 = _random_hand(rng, left, 14)
        drawn = p0.pop()
        p1 = _random_hand(rng, left, 13)
        cut = rng.choice(sorted(left.elements()))
        deal(env, [p0, p1], stock_top=[drawn], cut=cut)
        play(env, DrawStock())
        want = brute_declares(env)
        assert declares(env) == want, (p0, drawn, cut)
        hits += bool(want)
    assert hits  # the generator finds shows too, not only misses


# Found by the brute-force comparison (a bug of the first search, fixed): a meld in which
# one wild-rank card stands at its own place (natural) while another wild-rank card of a
# HIGHER face id (suit order S H D C) acts as its wild card was never found; the search
# settles the wild-rank faces first, in face order, and now lets a natural one borrow the
# wild-rank cards not settled yet.

# P0's other ten cards: AS-3S pure, 9D 9C 9S, four Js (no 8, no 5, no heart near 8H)
BASE = ["AS", "2S", "3S", "9D", "9C", "9S", "JS", "JD", "JC", "JH"]


@pytest.mark.parametrize(
    ("run", "cut"),
    [
        # cut 5S: 4D 5D 5H=6D (5D natural, face 30; 5H wild, face 17)
        pytest.param(["4D", "5D", "5H"], "5S", id="4D-5D-5H=6D"),
        # cut 8C: 6D 8H=7D 8D (8D natural, 33; 8H wild, 20)
        pytest.param(["6D", "8D", "8H"], "8C", id="6D-8H=7D-8D"),
        # cut JK: AD 2D AH=3D (AD natural at the low place, 26; AH wild, 13)
        pytest.param(["AD", "2D", "AH"], "JK", id="AD-2D-AH=3D"),
        # cut 8C: 7H 8H JK=9H (a joker as the wild card)
        pytest.param(["7H", "8H", "JK"], "8C", id="7H-8H-JK=9H"),
        pytest.param(
            ["4H", "5H", "5D"],
            "5S",
            id="4H-5H-5D=6H",
        ),
        pytest.param(
            ["7H", "8H", "8D"],
            "8C",
            id="7H-8H-8D=9H",
        ),
        pytest.param(
            ["AH", "2H", "AD"],
            "JK",
            id="AH-2H-AD=3H",
        ),
    ],
)
def test_natural_wild_rank_card_with_another_as_wild(run, cut):
    # P0 run + BASE draws 2D (3C when 2D is in the run): the run is a valid meld (two
    # naturals, one wild card), AS-3S is pure, the sets take the rest: Declare(2D)
    # (or 3C) is legal; the full mask equals the brute-force one.
    env = make_env()
    drawn = "3C" if "2D" in run else "2D"
    deal(env, [run + BASE, None], stock_top=[drawn], cut=cut)
    play(env, DrawStock())
    assert drawn in brute_declares(env)
    assert declares(env) == brute_declares(env)


@pytest.mark.parametrize(
    "p1",
    [
        # cut JK (aces wild): 7S-9S pure; AH=QD KD AD (AD natural at its high place,
        # face 26; AH wild, 13): out 2C 6H TC 4D 3S 8D JH = 2+6+10+4+3+8+10 = 43
        pytest.param(
            ["7S", "8S", "9S", "KD", "AD", "AH", "2C", "6H", "TC", "4D", "3S", "8D", "JH"],
            id="KD-AD-AH=QD",
        ),
        pytest.param(
            # the same with hearts and diamonds swapped: AD=QH KH AH (AH natural, 13;
            # AD wild, 26): 43 too (the engine once gave 77: a wild-rank card of a lower
            # face could not take a higher one as its wild card)
            ["7S", "8S", "9S", "KH", "AH", "AD", "2C", "6D", "TC", "4H", "3S", "8H", "JD"],
            id="KH-AH-AD=QH",
        ),
    ],
)
def test_loser_count_with_a_natural_ace_and_a_wild_ace(p1):
    # cut JK. P0 WINNER draws 9H (four 9s) and declares discarding QS; P1 pays 43.
    env = make_env()
    deal(env, [WINNER, p1], discard=["2H"], stock_top=["9H"], cut="JK")
    assert brute_count(p1, env.state.wild_faces) == 43
    play(env, DrawStock(), Declare("QS"))
    assert env.infos["player_1"]["round_scores"] == [0, 43]


# ================================================================== 3. scores


@pytest.mark.parametrize(
    ("p1", "count"),
    [
        # 2C-4C pure, 6D JK 8D (8D natural at its place, JK=7D); out: KS KH 5S 9H QD
        # TC 3H = 10+10+5+9+10+10+3 = 57 (the JK in a set of Ks would leave one run)
        (["2C", "3C", "4C", "6D", "JK", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"], 57),
        # no pure run (2C JK 4C and 6D 8S=7D 8D are impure; no three neighbouring
        # naturals): every card counts, JK 8S 8D 0: 2+4+6+10+10+5+9+10+10+3 = 69
        (["2C", "JK", "4C", "6D", "8S", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"], 69),
        # 13 cards of 10 points and no pure run: 130, capped at 80
        (["AS", "AH", "AH", "TS", "QS", "TH", "KH", "AD", "JD", "KD", "TC", "QC", "AC"], 80),
        # the least count: 7C 8C 9C is the only pure run (8C natural); the wild cards
        # JK and 8H each join two naturals: AS 3S (+2S, saves 13), 4D 5D (+6D, 9),
        # 6H 8H JK (8H natural, JK=7H, saves 6), or both to TD KD (T J Q K, 20).
        # Best: AS 8H=2S 3S and 4D 5D JK=6D: out KD 2H 6H TD = 10+2+6+10 = 28.
        (["7C", "8C", "9C", "4D", "5D", "8H", "AS", "KD", "2H", "JK", "3S", "6H", "TD"], 28),
    ],
    ids=["two-runs-deadwood", "no-pure-run-all-count", "capped-at-80", "least-count"],
)
def test_loser_count_after_a_declaration(p1, count):
    # cut 8C.  P0 WINNER draws 4H and declares discarding QS. P1 pays his count:
    # round_scores [0, count], rewards zero-sum.
    env = make_env()
    deal(env, [WINNER, p1], discard=["2D"], stock_top=["4H"], cut="8C")
    assert brute_count(p1, env.state.wild_faces) == count
    play(env, DrawStock())
    assert declares(env) == {"QS"}
    play(env, Declare("QS"))
    assert_round_over(
        env,
        winner=0,
        reason="declared",
        round_scores=[0, count],
        rewards={"player_0": count, "player_1": -count},
    )
    assert env.state.last_result["reason"] == "declared"
    assert all(env.terminations.values())
    assert snapshot(env)["discard"][-1] == "QS"


@pytest.mark.parametrize("seed", range(3))
def test_loser_count_matches_brute_force_on_random_hands(seed):
    # P0 WINNER declares at once (cut random); P1 holds a random near-show hand: his
    # count is the brute-force one, capped at 80.
    rng = random.Random(100 + seed)
    env = make_env()
    for _ in range(6):
        left = pack(env.rules)
        left.subtract(WINNER + ["4H"])
        p1 = _random_hand(rng, left, 13)
        cut = rng.choice(sorted(left.elements()))
        deal(env, [WINNER, p1], stock_top=["4H"], cut=cut)
        want = brute_count(p1, env.state.wild_faces)
        play(env, DrawStock(), Declare("QS"))
        assert env.infos["player_1"]["round_scores"] == [0, want], (p1, cut)
        assert env.rewards == {"player_0": want, "player_1": -want}


@pytest.mark.parametrize("middle", [False, True], ids=["first-drop", "middle-drop"])
def test_three_players_one_dropped_pays_the_drop(middle):
    # cut 8C, dealer P2, P0 starts. P0 [KS QD ...], P1 WINNER, P2 the 57 hand above.
    # first drop:  P0 drops (20); P1 draws 4H, declares discarding QS.
    # middle drop: P0, P1, P2 each draw and discard the card drawn (KC, 2D, 3D); P0
    #              drops (40); P1 draws 4H, declares.
    # round_scores [drop, 0, 57]; rewards P0 -drop, P2 -57, P1 +drop+57.
    env = make_env(3)
    p0 = ["KS", "QD", "4C", "7S", "TH", "JS", "2H", "6C", "9H", "5D", "KD", "AC", "QC"]
    p2 = ["2C", "3C", "4C", "6D", "JK", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"]
    top = ["KC", "2D", "3D", "4H"] if middle else ["4H"]
    deal(env, [p0, WINNER, p2], discard=["6S"], stock_top=top, cut="8C")
    if middle:
        for _ in range(3):
            draw_and_discard(env)
    play(env, Drop())
    drop = 40 if middle else 20
    assert env.agent_selection == "player_1"
    assert not env.observe("player_0")["action_mask"].any()
    play(env, DrawStock(), Declare("QS"))
    assert_round_over(
        env,
        winner=1,
        reason="declared",
        round_scores=[drop, 0, 57],
        rewards={"player_0": -drop, "player_1": drop + 57, "player_2": -57},
    )
    assert sum(env.rewards.values()) == 0
    assert snapshot(env)["hands"][0] == sorted(p0, key=parse_card)


# =================================================================== 4. drops


def test_first_drop_two_players_ends_the_round():
    # P0 drops before drawing: 20; P1, the only one left, wins at once.
    env = make_env()
    env.reset(seed=2)
    assert "drop" in legal_strs(env)
    play(env, Drop())
    assert_round_over(
        env,
        winner=1,
        reason="dropped",
        round_scores=[20, 0],
        rewards={"player_0": -20, "player_1": 20},
    )
    assert all(env.terminations.values())
    assert env.state.last_result["reason"] == "dropped"


def test_middle_drop_costs_40_and_a_first_drop_20_for_the_other():
    # P0 draws and discards, P1 draws and discards, P0 drops: 40 (he has drawn).
    env = make_env()
    env.reset(seed=2)
    draw_and_discard(env)
    draw_and_discard(env)
    play(env, Drop())
    assert_round_over(
        env,
        winner=1,
        reason="dropped",
        round_scores=[40, 0],
        rewards={"player_0": -40, "player_1": 40},
    )
    # P0 draws and discards, P1 (not drawn yet) drops: a first drop, 20.
    env.reset(seed=2)
    draw_and_discard(env)
    play(env, Drop())
    assert_round_over(env, winner=0, reason="dropped", round_scores=[0, 20])


def test_drop_only_instead_of_drawing():
    # Drop is a draw-phase move: after drawing it is illegal (marked nowhere).
    env = make_env()
    env.reset(seed=4)
    play(env, DrawStock())
    assert "drop" not in legal_strs(env)
    helpers.assert_illegal(env, Drop())


def test_no_drop_when_penalties_are_zero():
    env = make_env(drop_penalties=(0, 0))
    env.reset(seed=4)
    assert legal_strs(env) == ["draw stock", "draw discard"]
    with pytest.raises(ValueError, match="Drop"):
        env.encode(Drop())


def test_dropped_seat_is_skipped_and_keeps_its_hand():
    # 3 players, seeded. P0 drops (20): P1 and P2 play on; P0 is never to act again,
    # his mask stays all zero, his 13 cards stay in hands[0].
    env = make_env(3)
    env.reset(seed=6)
    p0_hand = snapshot(env)["hands"][0]
    play(env, Drop())
    assert snapshot(env)["dropped"] == [20, None, None]
    order = []
    for _ in range(4):
        order.append(env.agent_selection)
        assert not env.observe("player_0")["action_mask"].any()
        draw_and_discard(env)
    assert order == ["player_1", "player_2", "player_1", "player_2"]
    assert snapshot(env)["hands"][0] == p0_hand
    assert not env.terminations["player_0"]


def test_four_players_three_drop_last_one_wins():
    # 4 players, seeded, dealer P3. P0 drops (20); P1 plays; P2 plays; P3 drops (20, not
    # drawn); P1 plays; P2 drops (40, has drawn) -> only P1 left: he wins 80.
    env = make_env(4)
    env.reset(seed=8)
    assert snapshot(env)["current_player"] == 0
    play(env, Drop())
    draw_and_discard(env)
    draw_and_discard(env)
    play(env, Drop())
    draw_and_discard(env)
    assert env.agent_selection == "player_2"
    play(env, Drop())
    assert_round_over(
        env,
        winner=1,
        reason="dropped",
        round_scores=[20, 0, 40, 20],
        rewards={"player_0": -20, "player_1": 80, "player_2": -40, "player_3": -20},
    )


# ================================================================ 5. pool 101


def _match_env(totals, num_players=2, seed=0):
    env = make_env(num_players, match=True)
    env.reset(seed=seed)
    d = snapshot(env)
    d["totals"] = list(totals)
    env.reset(options={"state": d})
    assert snapshot(env)["totals"] == list(totals)
    return env


def test_match_total_above_100_is_eliminated():
    # totals [95, 10]; P0 drops (20) -> 115 > 100: eliminated, P1 wins the match.
    env = _match_env([95, 10])
    play(env, Drop())
    info = env.infos["player_0"]
    assert info["round_scores"] == [20, 0] and info["totals"] == [115, 10]
    assert info["match_winner"] == 1
    assert env.state.last_result["eliminated"] == [0]
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -20, "player_1": 20}


def _drop_seat(env, seat: int) -> None:
    """The players before ``seat`` draw and discard; then ``seat`` drops (not drawn yet
    this round: a first drop)."""
    while snapshot(env)["current_player"] != seat:
        draw_and_discard(env)
    play(env, Drop())


def test_match_totals_accumulate_and_100_is_not_out():
    # totals [80, 10]. Round 0: P0 drops (20) -> [100, 10]: 100 is not above 100, the
    # match goes on; round 1: P1 drops before drawing (20) -> [100, 30]; round 2: P0
    # drops before drawing -> [120, 30]: P0 out, P1 wins the match.
    env = _match_env([80, 10])
    play(env, Drop())
    assert not any(env.terminations.values())
    assert env.infos["player_1"]["totals"] == [100, 10]
    assert "match_winner" not in env.infos["player_1"]
    d = snapshot(env)
    assert d["round"] == 1 and d["totals"] == [100, 10]
    assert d["dropped"] == [None, None] and d["drew"] == [False, False]
    _drop_seat(env, 1)
    d = snapshot(env)
    assert d["round"] == 2 and d["totals"] == [100, 30]
    assert env.infos["player_0"]["round_scores"] == [0, 20]
    assert not any(env.terminations.values())
    _drop_seat(env, 0)
    assert env.infos["player_0"]["round_scores"] == [20, 0]
    assert env.infos["player_0"]["totals"] == [120, 30]
    assert env.infos["player_0"]["match_winner"] == 1
    assert all(env.terminations.values())


def test_match_dealer_rotates_after_a_declaration():
    # match, cut 8C, dealer P1: P0 WINNER draws 4H and declares (P1: the 57 hand).
    # Round 1 is dealt by P0 (the deal rotates left), P1 starts; totals [0, 57].
    env = make_env(match=True)
    p1 = ["2C", "3C", "4C", "6D", "JK", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"]
    deal(env, [WINNER, p1], discard=["2D"], stock_top=["4H"], cut="8C")
    play(env, DrawStock(), Declare("QS"))
    helpers.assert_match_end(env, over=False, winner=None, totals=[0, 57])


@pytest.mark.parametrize("num_players", [2, 3])
def test_match_dealer_rotates_after_a_drop(num_players):
    # (a bug found by this test: the next dealer was chosen while the finished round's
    # drops were still set, so a seat that dropped was skipped by the deal rotation)
    # match, seeded, dealer = the last seat, P0 starts. 2p: P0 drops, P1 wins the round.
    # 3p: P0 and P1 drop, P2 wins. The deal rotates left each round (RULES.md 4
    # basic; indian keeps the one turn loop): round 1 is dealt by P0 and P1 starts.
    # The bug: the dropped P0 was skipped -> dealer P1 (2p: P0 starts again) / dealer
    # P2 again (3p: P0 starts again).
    env = make_env(num_players, match=True)
    env.reset(seed=0, options={"dealer": num_players - 1})
    assert snapshot(env)["dealer"] == num_players - 1
    play(env, *[Drop()] * (num_players - 1))
    d = snapshot(env)
    assert d["round"] == 1
    assert (d["dealer"], d["current_player"]) == (0, 1)


def test_match_two_eliminated_at_once_three_players():
    # totals [95, 99, 0], dealer P2. P0 drops (20), P1 drops (20): P2 wins the round;
    # totals [115, 119, 0]: both out, P2 wins the match.
    env = _match_env([95, 99, 0], num_players=3)
    play(env, Drop(), Drop())
    info = env.infos["player_2"]
    assert info["totals"] == [115, 119, 0] and info["winner"] == 2
    assert info["match_winner"] == 2
    assert sorted(env.state.last_result["eliminated"]) == [0, 1]
    assert all(env.terminations.values())


def test_match_one_eliminated_the_others_play_on():
    # totals [95, 0, 0], 3 players. P0 drops (20) -> 115; P1 drops (20); P2 wins the
    # round. P0 is out, the match goes on between P1 and P2 with totals [115, 20, 0].
    env = _match_env([95, 0, 0], num_players=3)
    play(env, Drop(), Drop())
    assert env.state.last_result["eliminated"] == [0]
    assert env.terminations["player_0"]
    assert not env.terminations["player_1"] and not env.terminations["player_2"]
    if env.agent_selection == "player_0":
        env.step(None)  # the eliminated agent's last step
    d = snapshot(env)
    assert d["round"] == 1 and d["active"] == [False, True, True]
    assert d["totals"] == [115, 20, 0] and d["hands"][0] == []
    assert env.agent_selection in ("player_1", "player_2")


# ================================================================ 6. empty stock


@pytest.mark.parametrize(
    ("p0", "p1", "p1_discard", "winner", "scores"),
    [
        # P0 57 (two runs one pure + deadwood, as above); P1 draws the cut 8C (wild, 0),
        # discards KS: no pure run, all count 69 - 10 = 59 -> P0 wins, P1 pays 59
        (
            ["2C", "3C", "4C", "6D", "JK", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"],
            ["2C", "JK", "4C", "6D", "8S", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"],
            "KS",
            0,
            [0, 59],
        ),
        # P0 130 -> 80 capped; P1 draws 8C, discards 9H: 69 - 9 = 60 -> P1 wins
        (
            ["AS", "AH", "AH", "TS", "QS", "TH", "KH", "AD", "JD", "KD", "TC", "QC", "AC"],
            ["2C", "JK", "4C", "6D", "8S", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"],
            "9H",
            1,
            [80, 0],
        ),
        # both capped at 80: a tie goes to the player to act, P0
        (
            ["AS", "AH", "AH", "TS", "QS", "TH", "KH", "AD", "JD", "KD", "TC", "QC", "AC"],
            ["AS", "KS", "KS", "JS", "JH", "QH", "QH", "TD", "QD", "AD", "JC", "KC", "KC"],
            "KS",
            0,
            [0, 80],
        ),
    ],
    ids=["lowest-wins", "cap-counts", "tie-to-player-to-act"],
)
def test_empty_stock_lowest_count_wins(p0, p1, p1_discard, winner, scores):
    # max_stock_rebuilds=0, cut 8C. Stock [2H 8C]; the other 78 cards in the discard
    # pile (top 6S). P0 draws 2H and discards it; P1 draws the cut 8C and discards:
    # the stock is empty and may not be rebuilt -> "stock_exhausted", each hand counted
    # as a loser's, the lowest wins.
    env = make_env(max_stock_rebuilds=0)
    deal(env, [p0, p1], discard=["6S"], stock_top=["2H"], cut="8C", fill_discard=True)
    play(env, DrawStock(), Discard("2H"), DrawStock(), Discard(p1_discard))
    loser = 1 - winner
    assert_round_over(
        env,
        winner=winner,
        reason="stock_exhausted",
        round_scores=scores,
        rewards={f"player_{winner}": scores[loser], f"player_{loser}": -scores[loser]},
    )


def test_turn_limit_lowest_count_wins():
    # max_turns=4, cut 8C. P0 the 57 hand, P1 the 69 hand (no pure run); each draws the
    # stock top and discards it twice -> "turn_limit": P0 (57) wins, P1 pays 69.
    env = make_env(max_turns=4)
    p0 = ["2C", "3C", "4C", "6D", "JK", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"]
    p1 = ["2C", "JK", "4C", "6D", "8S", "8D", "KS", "KH", "5S", "9H", "QD", "TC", "3H"]
    deal(env, [p0, p1], discard=["6S"], cut="8C")
    for _ in range(4):
        draw_and_discard(env)
    assert_round_over(
        env,
        winner=0,
        reason="turn_limit",
        round_scores=[0, 69],
        rewards={"player_0": 69, "player_1": -69},
    )


# ============================================================== 7. save/restore


def _same_future(env, other, seed: int, max_steps: int = 400) -> None:
    """Random legal play, the same actions on both envs: identical states, masks,
    observations and results at every step."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        if all(env.terminations.values()):
            break
        assert env.agent_selection == other.agent_selection
        legal = env.legal_actions()
        assert other.legal_actions() == legal
        for agent in env.agents:
            a, b = env.observe(agent), other.observe(agent)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
        a = rng.choice(legal)
        env.step(a)
        other.step(a)
        assert snapshot(env) == snapshot(other)
        assert env.rewards == other.rewards
    assert all(env.terminations.values()) and all(other.terminations.values())
    assert env.infos == other.infos


@pytest.mark.parametrize("seed", [11, 12])
def test_save_restore_after_a_drop_three_players(seed):
    # 3 players: P0 drops, P1 draws -> saved and restored; random play continues alike.
    env = make_env(3, max_turns=60)
    env.reset(seed=seed)
    play(env, Drop(), DrawStock())
    other = restored(env, 3, max_turns=60)
    assert other.agent_selection == env.agent_selection == "player_1"
    _same_future(env, other, seed)


def test_save_restore_after_taking_a_discard():
    # "taken-card-used": P0 takes 8H; restored, 8H is still forbidden and Declare(4D)
    # still the only declaration; declaring gives the same result on both.
    env = make_env()
    deal(env, ["AS 2S 3S 5H 6H 7H 4D 9D 9C 9S JC JD JH".split(), P1_80], discard=["8H"])
    play(env, DrawDiscard())
    other = restored(env)
    assert snapshot(other)["forbidden"] == "8H"
    assert other.legal_actions() == env.legal_actions()
    assert declares(other) == {"4D"}
    for e in (env, other):
        play(e, Declare("4D"))
    assert env.infos == other.infos and env.rewards == other.rewards
    # P1_80: no pure run -> everything counts (TH TH TS wild: 0): 10 x 10 = 100 -> 80
    assert env.infos["player_0"]["round_scores"] == [0, 80]


def test_save_restore_match_state_with_totals():
    # a pool match with totals [60, 45]: saved mid-round (after a draw), restored, plays on
    env = _match_env([60, 45], seed=4)
    play(env, DrawStock())
    other = restored(env, match=True)
    _same_future(env, other, 5, max_steps=1500)


# ================================================================ 8. bad input


def test_bad_rules():
    with pytest.raises(ValueError, match="num_players"):
        rummy_env.make_rules("indian", 7)
    with pytest.raises(ValueError, match="wild_rank"):
        rummy_env.make_rules("basic", wild_rank="cut")
    with pytest.raises(ValueError, match="drop_penalties"):
        rummy_env.make_rules("indian", 2, drop_penalties=(20,))
    for n in range(2, 7):
        r = rummy_env.make_rules("indian", n)
        assert (r.decks, r.jokers, r.hand_size, r.ace) == (2, 1, 13, "low_or_high")
        assert (r.scoring, r.meld_during_play, r.wild_rank) == ("indian", False, "cut")
        assert (r.drop_penalties, r.penalty_cap, r.penalty_limit) == ((20, 40), 80, 100)
        assert (r.ace_penalty, r.joker_penalty) == (10, 0)


def test_illegal_declare_raises_and_leaves_the_state():
    # "one-odd-card" after the draw: Declare(5H) leaves 4D outside every meld
    env = make_env()
    deal(env, ["AS 2S 3S 5H 6H 7H 8H 9D 9C 9S JC JD JH".split(), P1_80], stock_top=["4D"])
    helpers.assert_illegal(env, Declare("4D"))  # not before drawing
    play(env, DrawStock())
    before = snapshot(env)
    with pytest.raises(rummy_env.IllegalActionError):
        env.step(env.encode(Declare("5H")))
    assert snapshot(env) == before
    helpers.assert_illegal(env, Declare("5H"))
    play(env, Declare("4D"))
    assert env.infos["player_0"]["reason"] == "declared"


# =================================================================== 9. PettingZoo


def test_pettingzoo_api():
    assert not helpers.api_test_warnings(rummy_env.env("indian", num_players=2), num_cycles=300)


def test_pettingzoo_seed():
    seed_test(lambda: rummy_env.env("indian", num_players=4), num_cycles=200)


# =================================================================== the expert agent


def test_expert_counts_its_draws_per_round_of_a_match():
    """indian-expert's middle drop waits for ``middle_turns`` draws of its own in the
    round; in a match (no reset() between rounds) the count restarts with each round. It
    once carried over: with the drop threshold at 0 the expert then dropped at its second
    draw of a new round."""
    import agents

    env = make_env(match=True)
    env.reset(seed=3)
    rules = env.unwrapped.rules
    bot = agents.make("indian-expert", rules, seat=0)
    other = agents.make("greedy", rules, seat=1)
    bot.reset(seed=0)
    bot.first_drop, bot.middle_drop = 1e9, 0.0  # never a first drop; a middle drop at once
    bot._draws = 50  # as after a long first round of the match
    draws = 0
    while draws < 2:
        agent = env.agent_selection
        obs = env.observe(agent)
        me = agent == "player_0"
        a = (bot if me else other).act(obs["observation"], obs["action_mask"])
        move = env.unwrapped.decode(a)
        if me and env.unwrapped.state.phase.name == "DRAW":
            draws += 1
            assert not isinstance(move, Drop), f"dropped at draw {draws} of the round"
        env.step(a)
    assert bot._draws == 2
