"""Scenario tests for the ``rummikub`` preset: Rummikub, the table one pool of tiles.

The rules are RULES.md section 4 "rummikub" (D-17, D-18, D-19; D-3 wild limits; D-8 ties)
and the agreed API (docs/design.md). 106 tiles: a two-deck pack with one joker a deck;
a tile's colour is the suit (S H D C), its number the rank (A = 1 .. T = 10, J = 11,
Q = 12, K = 13). Groups: 3-4 tiles of one number in different colours; runs: 3+
consecutive numbers of one colour, 1 low only, no wrap (Q K A is no run). D-3: every meld
holds at least two natural tiles and no more jokers than naturals.

A turn is ``DrawStock()`` (only before any tile is played; draws the pool top, ends the
turn), ``Pass()`` (only with an empty pool and nothing played), or one or more
``PlayTile(t)`` then ``Commit()``. ``PlayTile(t)`` is legal exactly when some set of rack
tiles holding ``t`` and the tiles already played can be committed (D-18: no dead ends);
``Commit()`` exactly when something was played and, once opened, the table's tiles plus
the played tiles split into valid melds (D-17: any rearrangement), or, for the initial
meld, the played tiles alone split into melds worth at least 30 (the highest-valued
split; a joker worth the tile it stands for; D-19: the table is not used that turn).

Round end: whoever commits his last tile wins: each other player scores minus his rack
(joker 30), the winner their sum. With an empty pool and n consecutive passes since the
last commit, the lowest rack wins (ties: nearest in turn order to the player to play),
each other player paying him the difference. ``match=True``: one round per player.

These tests were written from the rule book and the agreed API, before the engine's
Rummikub code; every scenario is a crafted deal or state worked out by hand in the
comments and played through the public AEC API.

Conventions used in the comments:

* ``P0``/``P1``/... are ``player_0``/...; the dealer is the last seat, so P0 starts.
* A rack is written ``[5H KS]``; the pool (stock) top first. The table is one multiset of
  tiles, written ``{3H 4H 5H}``; a split of it is written ``3H-5H + 7S 7H 7D``.
  ``JK=6S`` is a joker standing for the 6S.
* "playable" is the set of tiles ``t`` with ``PlayTile(t)`` legal.
* Tile values: the number (A 1 .. K 13); a joker in a meld counts as the tile it stands
  for, on a rack 30.
* A "full table" (for an empty pool) is every tile not on a rack: each colour's two
  copies of A-K are two runs; a rack tile numbered 4-10 taken from one copy leaves two
  runs of 3+; a joker fills the gap of a taken tile (``AD-6D JK=7D 8D-KD``) or ends a
  run cut from a whole copy (``AC-5C JK=6C`` + ``6C-KC``). Each such test says where.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from pettingzoo.test import seed_test

import rummy_env
from rummy_env import observation
from rummy_env.cards import parse_card
from rummy_env.determinize import Determinizer
from rummy_env.moves import Commit, DrawStock, Pass, PlayTile
from tests import helpers
from tests.helpers import (
    assert_illegal,
    deal,
    hand,
    legal_strs,
    pack,
    places,
    play,
    rest_of_pack,
    snapshot,
)

# ----------------------------------------------------------------- helpers


def make_env(num_players: int = 2, **overrides) -> rummy_env.raw_env:
    return rummy_env.raw_env("rummikub", num_players=num_players, **overrides)


def craft(env, hands, table=(), *, opened=None, stock=None, stock_top=(), current=0) -> None:
    """Restore ``env`` to a crafted state: the racks ``hands``, the table tiles ``table``
    (one entry, no owner), the pool ``stock`` if given, else ``stock_top`` then the rest of
    the pack in card-id order; ``opened`` per seat (default nobody); ``current`` to play."""
    n = env.unwrapped.rules.num_players
    env.reset(seed=0)
    d = snapshot(env)
    if stock is None:
        stock = list(stock_top) + rest_of_pack(env, *hands, table, stock_top)
    d["hands"] = [list(h) for h in hands]
    d["table"] = [{"owner": None, "kind": None, "cards": list(table)}] if table else []
    d["stock"] = list(stock)
    d["discard"] = []
    d["opened"] = list(opened) if opened is not None else [False] * n
    d["current_player"] = current
    d["dealer"] = (current - 1) % n
    env.reset(options={"state": d})
    assert places(snapshot(env)) == pack(env.unwrapped.rules), "test state loses tiles"
    assert env.agent_selection == f"player_{current}"


def full_table(env, hands, stock=()) -> list[str]:
    """Every tile not on a rack nor in ``stock`` (for an empty or tiny pool)."""
    return rest_of_pack(env, *hands, stock)


def playable(env) -> set[str]:
    return {s[len("play ") :] for s in legal_strs(env) if s.startswith("play ")}


def can_commit(env) -> bool:
    return "commit" in legal_strs(env)


def table_tiles(env) -> Counter:
    t = snapshot(env)["table"]
    assert len(t) <= 1, "the table is one pool of tiles"
    return Counter(t[0]["cards"]) if t else Counter()


def played(env) -> Counter:
    return Counter(snapshot(env)["played_tiles"])


def restored(env, num_players: int = 2, **overrides):
    return helpers.restored(env, make_env(num_players, **overrides))


def assert_round_over(env, *, winner, reason, round_scores, totals=None) -> None:
    """The round ended as worked out: infos of every agent and the rewards (= the round's
    points) agree; zero-sum."""
    assert sum(round_scores) == 0
    for agent in env.possible_agents:
        info = env.infos[agent]
        assert info["winner"] == winner
        assert info["reason"] == reason
        assert info["round_scores"] == round_scores
        assert info["totals"] == (round_scores if totals is None else totals)
    assert [env.rewards[a] for a in env.possible_agents] == round_scores


JUNK2 = ["AD", "9C"]  # a rack that plays nothing in the tests that use it


# ============================================================ 1. the preset


def test_preset_values():
    # RULES.md 4 rummikub: 2-4 players, 106 tiles (two decks, one joker a deck), 14 tiles a
    # rack, 1 low only, no up-card, no melding during play (tiles are played and
    # committed), an initial meld of 30, a joker on a rack 30.
    assert "rummikub" in rummy_env.PRESETS
    r = rummy_env.make_rules("rummikub", 2)
    assert (r.decks, r.jokers, r.num_cards, r.hand_size) == (2, 1, 106, 14)
    assert (r.ace, r.upcard, r.scoring, r.meld_during_play) == ("low", False, "rummikub", False)
    assert (r.open_points, r.joker_penalty, r.match) == (30, 30, False)
    assert make_env(4).unwrapped.rules.num_players == 4
    full = helpers.pack(r)
    assert sum(full.values()) == 106 and full["JK"] == 2 and full["7H"] == 2
    # the moves as text
    assert [str(m) for m in (PlayTile("7H"), PlayTile("JK"), Commit(), DrawStock(), Pass())] == [
        "play 7H",
        "play JK",
        "commit",
        "draw stock",
        "pass",
    ]


@pytest.mark.parametrize("num_players", [1, 5])
def test_player_count_out_of_range(num_players):
    with pytest.raises(ValueError, match="num_players"):
        rummy_env.make_rules("rummikub", num_players)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_seeded_deal_racks_and_pool(num_players):
    # 14 tiles a rack, the rest in the pool, no discard pile, an empty table, nobody opened,
    # nothing played. P0 may draw; with a pool he may not pass, and with nothing played
    # he may not commit.
    env = make_env(num_players)
    env.reset(seed=11)
    d = snapshot(env)
    assert helpers.places(d) == pack(env.unwrapped.rules)
    assert [len(h) for h in d["hands"]] == [14] * num_players
    assert len(d["stock"]) == 106 - 14 * num_players
    assert (d["discard"], d["table"], d["played_tiles"]) == ([], [], [])
    assert d["opened"] == [False] * num_players
    assert env.agent_selection == "player_0"
    legal = legal_strs(env)
    assert "draw stock" in legal
    assert "pass" not in legal and "commit" not in legal


# ===================================================== 2. the initial meld (30)


def test_initial_meld_of_29_is_refused():
    # P0 [5S 5H 5D 5C 2H 3H 4H]: all seven tiles are worth 20 + 9 = 29 (as 5S-5C + 2H-4H or
    # as 5S 5D 5C + 2H-5H: 15 + 14), so no split of any of them reaches 30: no tile is
    # playable (D-18: a tile is playable only when a commit with it exists) and P0 can only
    # draw.
    env = make_env(hand_size=7)
    p0 = ["5S", "5H", "5D", "5C", "2H", "3H", "4H"]
    p1 = ["AD", "3S", "6C", "9S", "JH", "KD", "8C"]
    deal(env, [p0, p1])
    assert legal_strs(env) == ["draw stock"]
    assert_illegal(env, PlayTile("5S"))
    assert_illegal(env, Commit())


def test_initial_meld_of_30_from_two_melds():
    # P0 [7S 7H 7D 2C 3C 4C KD]: 7S 7H 7D (21) + 2C 3C 4C (9) = 30, the only commit; KD melds
    # with nothing. Playable: the six; each play keeps the same single commit, so the rest
    # of the six stay playable; 7S 7H 7D alone (21) and the five without 4C (26) do not
    # commit. After the sixth tile: commit; the table holds the six, P0 is opened, his
    # rack [KD], P1 to play.
    env = make_env(hand_size=7)
    p0 = ["7S", "7H", "7D", "2C", "3C", "4C", "KD"]
    p1 = ["AD", "3S", "6C", "9S", "JH", "KH", "8C"]
    deal(env, [p0, p1])
    six = ["7S", "7H", "7D", "2C", "3C", "4C"]
    assert set(legal_strs(env)) == {"draw stock"} | {f"play {t}" for t in six}
    for i, t in enumerate(six):
        play(env, PlayTile(t))
        assert playable(env) == set(six[i + 1 :])
        assert can_commit(env) is (i == 5)
        assert sorted(hand(env, 0)) == sorted(["KD", *six[i + 1 :]])  # the rack loses it at once
    play(env, Commit())
    d = snapshot(env)
    assert table_tiles(env) == Counter(six)
    assert d["opened"] == [True, False]
    assert d["played_tiles"] == []
    assert d["hands"][0] == ["KD"]
    assert env.agent_selection == "player_1"


def test_initial_meld_counts_a_joker_as_the_tile_it_stands_for():
    # P0 [TS QS JK 2D]: TS JK=JS QS = 10 + 11 + 12 = 33 >= 30: playable TS QS JK (2D melds
    # with nothing); TS QS alone is no meld; after the three, commit; P0 opened, rack [2D].
    env = make_env(hand_size=4)
    deal(env, [["TS", "QS", "JK", "2D"], ["AH", "5C", "9D", "KH"]])
    assert playable(env) == {"TS", "QS", "JK"}
    play(env, PlayTile("TS"), PlayTile("QS"))
    assert not can_commit(env)
    assert playable(env) == {"JK"}
    play(env, PlayTile("JK"), Commit())
    assert table_tiles(env) == Counter(["TS", "QS", "JK"])
    assert snapshot(env)["opened"] == [True, False]
    assert hand(env, 0) == ["2D"]

    # P0 [9H 9D JK 2C 3C]: 9H 9D JK=9S/9C = 27; 2C 3C JK (6 or 9) leaves 9H 9D unmelded; one
    # joker only: nothing reaches 30 (a joker counted at its rack value 30 would make
    # 9H 9D JK worth 48). P0 can only draw.
    env = make_env(hand_size=5)
    deal(env, [["9H", "9D", "JK", "2C", "3C"], ["AH", "5C", "9S", "KH", "6D"]])
    assert legal_strs(env) == ["draw stock"]


def test_initial_meld_highest_valued_split_counts():
    # P0 [9S TS JK 3D]: the run 9S TS JK splits two ways: JK=8S (8+9+10 = 27) or JK=JS
    # (9+10+11 = 30). The highest-valued split counts: 30, the initial meld is made.
    env = make_env(hand_size=4)
    deal(env, [["9S", "TS", "JK", "3D"], ["AH", "5C", "9D", "KH"]])
    assert playable(env) == {"9S", "TS", "JK"}
    play(env, PlayTile("JK"), PlayTile("9S"))
    assert not can_commit(env)
    play(env, PlayTile("TS"))
    assert can_commit(env)
    play(env, Commit())
    assert snapshot(env)["opened"] == [True, False]
    assert hand(env, 0) == ["3D"]


def test_d3_every_meld_holds_two_naturals():
    # P0 [KS JK JK 9D 2C]: no two naturals meld together (KS 9D 2C: three colours, three
    # numbers), and KS JK JK has one natural: nothing to play, only a draw.
    env = make_env(hand_size=5)
    deal(env, [["KS", "JK", "JK", "9D", "2C"], ["AH", "5C", "9S", "KH", "6D"]])
    assert legal_strs(env) == ["draw stock"]

    # P0 [QS KS JK JK 2C]: JK=JS QS KS (36) or JK=TS JK=JS QS KS (46, two naturals and two
    # jokers: D-3 allows it). Playable QS KS JK. Playing both jokers first: JK JK alone or
    # with QS only (one natural) does not commit, and only QS KS stay playable; after both,
    # commit (46).
    env = make_env(hand_size=5)
    deal(env, [["QS", "KS", "JK", "JK", "2C"], ["AH", "5C", "9S", "KH", "6D"]])
    assert playable(env) == {"QS", "KS", "JK"}
    play(env, PlayTile("JK"))
    assert playable(env) == {"QS", "KS", "JK"}
    play(env, PlayTile("JK"))
    assert not can_commit(env)
    assert playable(env) == {"QS", "KS"}
    play(env, PlayTile("QS"))
    assert not can_commit(env)
    assert playable(env) == {"KS"}
    play(env, PlayTile("KS"))
    assert can_commit(env) and playable(env) == set()
    play(env, Commit())
    assert table_tiles(env) == Counter(["QS", "KS", "JK", "JK"])
    assert hand(env, 0) == ["2C"]


@pytest.mark.parametrize(
    ("rack", "opened", "want"),
    [
        # 7S only fits the table's run (4S-7S): unopened, not playable (D-19); opened, yes
        (["7S", "2D", "KC"], False, set()),
        (["7S", "2D", "KC"], True, {"7S"}),
        # 7S 8S 9S alone is 24 < 30; with the table it would be 4S-9S (39), which an
        # unopened player may not use: nothing; opened, the three are playable
        (["7S", "8S", "9S", "2D"], False, set()),
        (["7S", "8S", "9S", "2D"], True, {"7S", "8S", "9S"}),
    ],
)
def test_table_is_not_used_before_the_initial_meld(rack, opened, want):
    # Table {4S 5S 6S}; P1 (opened) holds junk.
    env = make_env()
    craft(env, [rack, JUNK2], ["4S", "5S", "6S"], opened=[opened, True])
    assert playable(env) == want
    assert "draw stock" in legal_strs(env)


def test_initial_meld_turn_adds_own_melds_and_the_table_opens_next_turn():
    # Table {4S 5S 6S}, P1 opened. P0 (not opened) [7S TH TD TC], P1 [AH 5C 9D KS], pool 2D ...
    # P0: playable TH TD TC (30); 7S (table only) not, not even after TH TD TC are played
    # (D-19: the opening turn adds melds of his own). Commit: table {4S 5S 6S TH TD TC},
    # P0 opened, rack [7S].
    # P1: nothing of his rack fits (AH, 5C: one 5 on the table, 9D, KS): only a draw (2D).
    # P0: now 7S is playable (4S-7S); playing and committing it, his last tile, he goes
    # out. P1's rack AH 5C 9D KS 2D = 1 + 5 + 9 + 13 + 2 = 30: scores [30, -30].
    env = make_env()
    craft(
        env,
        [["7S", "TH", "TD", "TC"], ["AH", "5C", "9D", "KS"]],
        ["4S", "5S", "6S"],
        opened=[False, True],
        stock_top=["2D"],
    )
    assert playable(env) == {"TH", "TD", "TC"}
    play(env, PlayTile("TH"), PlayTile("TD"))
    assert not can_commit(env)
    assert playable(env) == {"TC"}
    play(env, PlayTile("TC"))
    assert can_commit(env) and playable(env) == set()
    play(env, Commit())
    assert table_tiles(env) == Counter(["4S", "5S", "6S", "TH", "TD", "TC"])
    assert snapshot(env)["opened"] == [True, True]
    assert hand(env, 0) == ["7S"]
    assert legal_strs(env) == ["draw stock"]
    play(env, DrawStock())
    assert sorted(hand(env, 1)) == sorted(["AH", "5C", "9D", "KS", "2D"])
    assert set(legal_strs(env)) == {"draw stock", "play 7S"}
    play(env, PlayTile("7S"), Commit())
    assert all(env.terminations.values())
    assert_round_over(env, winner=0, reason="went_out", round_scores=[30, -30])


# ============================================================ 3. melds


def test_ace_is_low_only_and_a_group_needs_different_colours():
    # P0 opened, empty table, rack [QH KH AH 2H 3H 7S 7S 7H]: AH 2H 3H is a run (1 low);
    # QH KH AH is not (no wrap); 7S 7S 7H repeats a colour: no group. Playable AH 2H 3H.
    env = make_env()
    craft(env, [["QH", "KH", "AH", "2H", "3H", "7S", "7S", "7H"], JUNK2], opened=[True, False])
    assert playable(env) == {"AH", "2H", "3H"}


def test_a_group_holds_at_most_four():
    # P0 opened, empty table, rack [7S 7S 7H 7D 7C]: 7S 7H 7D 7C is a group; the second 7S
    # has no place (a colour twice, or a group of five). After 7S: the other 7S is not
    # playable; after all four colours: commit, nothing more playable; rack [7S].
    env = make_env()
    craft(env, [["7S", "7S", "7H", "7D", "7C"], JUNK2], opened=[True, False])
    assert playable(env) == {"7S", "7H", "7D", "7C"}
    play(env, PlayTile("7S"))
    assert playable(env) == {"7H", "7D", "7C"}
    play(env, PlayTile("7H"), PlayTile("7D"))
    assert can_commit(env)  # 7S 7H 7D: an opened player has no minimum
    play(env, PlayTile("7C"))
    assert can_commit(env) and playable(env) == set()
    play(env, Commit())
    assert hand(env, 0) == ["7S"]
    assert table_tiles(env) == Counter(["7S", "7H", "7D", "7C"])


# ============================================== 4. the table is one pool (D-17)


def test_split_a_run_and_rejoin():
    # Table {3H 4H 5H 6H 7H}, P0 opened [5H KS]: 3H-5H + 5H-7H, so 5H is playable and
    # commits. Table after: {3H 4H 5H 5H 6H 7H}; P0's rack [KS].
    env = make_env()
    run = ["3H", "4H", "5H", "6H", "7H"]
    craft(env, [["5H", "KS"], JUNK2], run, opened=[True, True])
    assert set(legal_strs(env)) == {"draw stock", "play 5H"}
    play(env, PlayTile("5H"))
    assert hand(env, 0) == ["KS"] and played(env) == Counter(["5H"])
    assert can_commit(env)
    play(env, Commit())
    assert table_tiles(env) == Counter([*run, "5H"])
    assert hand(env, 0) == ["KS"]

    # the same table and [5D KS]: 5D needs two more 5s of other colours: nothing
    craft(env, [["5D", "KS"], JUNK2], run, opened=[True, True])
    assert legal_strs(env) == ["draw stock"]


def test_a_group_from_the_middle_of_a_run():
    # Table {2H 3H 4H 5H 6H 7H 8H}, P0 opened [5D 5C KS]: 2H-4H + 5H 5D 5C + 6H-8H. 5D alone
    # does not commit (it needs a third 5), so after 5D only 5C is playable; after both,
    # commit.
    env = make_env()
    run = ["2H", "3H", "4H", "5H", "6H", "7H", "8H"]
    craft(env, [["5D", "5C", "KS"], JUNK2], run, opened=[True, True])
    assert playable(env) == {"5D", "5C"}
    play(env, PlayTile("5D"))
    assert not can_commit(env)
    assert playable(env) == {"5C"}
    play(env, PlayTile("5C"))
    assert can_commit(env)
    play(env, Commit())
    assert table_tiles(env) == Counter([*run, "5D", "5C"])

    # Table {3H 4H 5H 6H 7H}: taking 5H into 5H 5D 5C would leave 3H 4H and 6H 7H, two
    # tiles each: no split holds every table tile, nothing is playable.
    craft(env, [["5D", "5C", "KS"], JUNK2], ["3H", "4H", "5H", "6H", "7H"], opened=[True, True])
    assert legal_strs(env) == ["draw stock"]


def test_extending_a_group_and_a_run():
    # Table {7S 7H 7D AC 2C 3C}, P0 opened [7C 4C 9H 7S]: 7C makes the group of four, 4C
    # extends AC-3C; the second 7S fits neither (7S twice in a group), 9H nothing.
    # After 7C: commit; 4C still playable, 7S not. After 4C: commit, nothing playable.
    env = make_env()
    start = ["7S", "7H", "7D", "AC", "2C", "3C"]
    craft(env, [["7C", "4C", "9H", "7S"], JUNK2], start, opened=[True, True])
    assert playable(env) == {"7C", "4C"}
    play(env, PlayTile("7C"))
    assert can_commit(env) and playable(env) == {"4C"}
    play(env, PlayTile("4C"))
    assert can_commit(env) and playable(env) == set()
    play(env, Commit())
    assert table_tiles(env) == Counter([*start, "7C", "4C"])
    assert sorted(hand(env, 0)) == ["7S", "9H"]


def test_a_joker_moved_by_rearranging():
    # Table {4S JK 6S} (JK=5S), P0 opened [5S 8H 8D 2C].
    # 5S alone commits: 4S 5S 6S JK=7S (or JK=3S). 8H 8D commit only with the joker:
    # 8H 8D JK, with 5S taking the joker's place in 4S 5S 6S. 2C melds with nothing.
    # Playable 5S 8H 8D. After 8H: 8H JK has one natural, so 5S and 8D are both needed:
    # no commit, playable 5S 8D. After 8D: 4S 6S would be left without the joker: no
    # commit, playable 5S. After 5S: commit; the table {4S 5S 6S 8H 8D JK}; the joker
    # stays on the table (it never returns to a rack); rack [2C].
    env = make_env()
    craft(env, [["5S", "8H", "8D", "2C"], JUNK2], ["4S", "JK", "6S"], opened=[True, True])
    assert playable(env) == {"5S", "8H", "8D"}
    alone = restored(env)
    play(alone, PlayTile("5S"))
    assert can_commit(alone)
    play(env, PlayTile("8H"))
    assert not can_commit(env)
    assert playable(env) == {"5S", "8D"}
    play(env, PlayTile("8D"))
    assert not can_commit(env)
    assert playable(env) == {"5S"}
    play(env, PlayTile("5S"))
    assert can_commit(env)
    play(env, Commit())
    assert table_tiles(env) == Counter(["4S", "5S", "6S", "8H", "8D", "JK"])
    assert hand(env, 0) == ["2C"]


# ========================================== 5. PlayTile exactness (D-18)


def test_play_tile_exactness_after_one_tile():
    # P0 opened, empty table, rack [3S 4S 5S 5H 5D KC]: the commits are 3S 4S 5S and
    # 5S 5H 5D (one 5S: never both). Playable 3S 4S 5S 5H 5D; KC not.
    # After 5H (the rack loses it at once; played [5H]): only 5S 5D stay playable (3S and
    # 4S would need the 5S in the run too), no commit, no draw. After 5D: playable 5S.
    # After 5S: commit; 3S 4S are still not playable (the 5S is in the group).
    env = make_env()
    craft(env, [["3S", "4S", "5S", "5H", "5D", "KC"], JUNK2], opened=[True, False])
    assert playable(env) == {"3S", "4S", "5S", "5H", "5D"}
    other = restored(env)
    play(env, PlayTile("5H"))
    assert sorted(hand(env, 0)) == sorted(["3S", "4S", "5S", "5D", "KC"])
    assert played(env) == Counter(["5H"])
    assert playable(env) == {"5S", "5D"}
    assert not can_commit(env)
    assert_illegal(env, DrawStock())
    assert_illegal(env, PlayTile("3S"))
    play(env, PlayTile("5D"))
    assert playable(env) == {"5S"} and not can_commit(env)
    play(env, PlayTile("5S"))
    assert can_commit(env) and playable(env) == set()
    play(env, Commit())
    assert table_tiles(env) == Counter(["5S", "5H", "5D"])
    assert sorted(hand(env, 0)) == ["3S", "4S", "KC"]

    # the other way: after 3S, only 4S 5S (the run); 5H 5D would need the 5S twice
    play(other, PlayTile("3S"))
    assert playable(other) == {"4S", "5S"}
    assert not can_commit(other)


SCENARIOS = {
    # (racks, table, opened): each worked out in a test above
    "group or run": ([["3S", "4S", "5S", "5H", "5D", "KC"], JUNK2], [], [True, False]),
    "joker moved": ([["5S", "8H", "8D", "2C"], JUNK2], ["4S", "JK", "6S"], [True, True]),
    "initial meld": (
        [["7S", "7H", "7D", "2C", "3C", "4C", "KD"], ["AD", "3S", "6C", "9S", "JH", "KH", "8C"]],
        [],
        [False, False],
    ),
    "two jokers": ([["QS", "KS", "JK", "JK", "2C"], JUNK2], [], [False, False]),
    "middle group": (
        [["5D", "5C", "KS"], JUNK2],
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H"],
        [True, True],
    ),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_dead_ends_every_play_leads_to_a_commit(name):
    # D-18, the property behind the scenarios: from every reachable set of played tiles
    # (every order of legal PlayTile moves), either a commit is legal or another tile is
    # playable; so a turn that starts playing always ends with a commit. Each playable
    # tile is on the rack.
    racks, table, opened = SCENARIOS[name]
    env = make_env()
    craft(env, racks, table, opened=opened)
    seen: set[tuple[str, ...]] = set()

    def explore(d) -> None:
        key = tuple(sorted(d["played_tiles"]))
        if key in seen:
            return
        seen.add(key)
        env.reset(options={"state": d})
        tiles = playable(env)
        assert tiles or can_commit(env), f"dead end after playing {key}"
        assert tiles <= set(hand(env, 0))
        for t in sorted(tiles):
            env.reset(options={"state": d})
            play(env, PlayTile(t))
            explore(snapshot(env))

    explore(snapshot(env))
    assert len(seen) > 1


# =========================================================== 6. draw and pass


def test_draw_only_before_a_tile_is_played():
    # P0 [7S 7H 7D 2C 3C 4C KD], pool 9C ...: drawing takes the 9C and ends the turn (P1 to
    # play, the pool one smaller). After playing 7S instead, no draw.
    env = make_env(hand_size=7)
    p0 = ["7S", "7H", "7D", "2C", "3C", "4C", "KD"]
    p1 = ["AD", "3S", "6C", "9S", "JH", "KH", "8C"]
    deal(env, [p0, p1], stock_top=["9C"])
    drawn = restored(env, hand_size=7)
    pool = len(snapshot(drawn)["stock"])
    play(drawn, DrawStock())
    assert sorted(hand(drawn, 0)) == sorted([*p0, "9C"])
    assert len(snapshot(drawn)["stock"]) == pool - 1
    assert drawn.agent_selection == "player_1"
    play(env, PlayTile("7S"))
    assert "draw stock" not in legal_strs(env)
    assert_illegal(env, DrawStock())


# three racks and a full table for an empty pool (the jokers: one on P1's rack, one
# filling the 7D's place, AD-6D JK=7D 8D-KD). Spades: 4S 8S from one copy (A-3, 5-7,
# 9-K), 5S from the other (A-4, 6-K); hearts: 9H 4H from one (A-3, 5-8, T-K), 6H from
# the other (A-5, 7-K); clubs whole.
STUCK3 = [["4S", "9H", "7D"], ["5S", "6H", "JK"], ["8S", "4H"]]  # 20, 41, 12


def test_pass_only_with_an_empty_pool():
    # With a pool, no pass. With an empty pool and a rack that plays nothing (P0 not
    # opened, [4S 9H 7D]): only a pass, no draw; the pass hands the turn to P1.
    env = make_env(hand_size=3)
    deal(env, [["4S", "9H", "7D"], ["8S", "4H", "5S"]])
    assert_illegal(env, Pass())
    env = make_env(3)
    craft(env, STUCK3, full_table(env, STUCK3), stock=[])
    assert snapshot(env)["stock"] == []
    assert legal_strs(env) == ["pass"]
    assert_illegal(env, DrawStock())
    play(env, Pass())
    assert env.agent_selection == "player_1"
    assert not any(env.terminations.values())


def test_stuck_pool_all_pass_lowest_rack_wins():
    # STUCK3, nobody opened, empty pool: P0 [4S 9H 7D] = 20, P1 [5S 6H JK] = 5 + 6 + 30 = 41,
    # P2 [8S 4H] = 12. P0, P1, P2 pass: three passes in a row, the round ends. P2 has the
    # lowest rack: P0 pays 20 - 12 = 8, P1 41 - 12 = 29, P2 gets 37: [-8, -29, 37].
    env = make_env(3)
    craft(env, STUCK3, full_table(env, STUCK3), stock=[])
    play(env, Pass(), Pass())
    assert not any(env.terminations.values())
    play(env, Pass())
    assert all(env.terminations.values())
    assert_round_over(env, winner=2, reason="all_passed", round_scores=[-8, -29, 37])


def test_stuck_pool_tie_goes_nearest_in_turn_order():
    # Empty pool, nobody opened, P1 to play. P0 [4S 8H] = 12, P1 [9S TH 6D] = 25,
    # P2 [5S 7H] = 12. Full table: spades 4S 9S from one copy (A-3, 5-8, T-K), 5S from the
    # other (A-4, 6-K); hearts TH from one (A-9, J-K), 7H 8H from the other (A-6, 9-K);
    # diamonds AD-5D JK=6D 7D-KD and a whole copy; clubs AC-5C JK=6C + 6C-KC and a whole
    # copy. P1, P2, P0 pass: the round ends with P1 to play. P0 and P2 tie at 12; in turn
    # order from P1, P2 comes first (D-8): P2 wins. P0 pays 0, P1 pays 13: [0, -13, 13].
    env = make_env(3)
    racks = [["4S", "8H"], ["9S", "TH", "6D"], ["5S", "7H"]]
    craft(env, racks, full_table(env, racks), stock=[], current=1)
    play(env, Pass(), Pass(), Pass())
    assert all(env.terminations.values())
    assert_round_over(env, winner=2, reason="all_passed", round_scores=[0, -13, 13])


def test_a_commit_restarts_the_pass_count():
    # STUCK3 with P1 opened. P0 passes; P1 plays 6H (the hearts copy without it becomes
    # whole again, AH-KH) and commits: rack [5S JK] = 35. P2 and P0 pass: two passes since
    # the commit, the round goes on; P1 (who could play more) passes: three, the end.
    # (Once P1 has played a tile he may not pass that turn.)
    # P0 20, P1 35, P2 12: P2 wins, P0 pays 8, P1 23: [-8, -23, 31].
    env = make_env(3)
    craft(env, STUCK3, full_table(env, STUCK3), stock=[], opened=[False, True, False])
    play(env, Pass())
    assert "pass" in legal_strs(env) and "6H" in playable(env)
    play(env, PlayTile("6H"))
    assert_illegal(env, Pass())  # a tile is played: no pass (nor a draw) this turn
    play(env, Commit())
    assert sorted(hand(env, 1)) == ["5S", "JK"]
    play(env, Pass(), Pass())
    assert not any(env.terminations.values())
    assert env.agent_selection == "player_1"
    assert "pass" in legal_strs(env)
    play(env, Pass())
    assert all(env.terminations.values())
    assert_round_over(env, winner=2, reason="all_passed", round_scores=[-8, -23, 31])


def test_observation_counts_the_passes_in_a_row():
    # The passes in a row are public and decide when the round ends: every seat sees them
    # (0, 1, 2 after STUCK3's first two passes), and a determinised state carries them.
    env = make_env(3)
    rules = env.unwrapped.rules
    craft(env, STUCK3, full_table(env, STUCK3), stock=[])
    for n in range(3):
        views = [observation.read(env.observe(a), rules) for a in env.agents]
        assert [v.passes for v in views] == [n] * 3
        if n == 2:
            break
        play(env, Pass())
    assert observation.decode(env.observe("player_2")["observation"], rules)["passes"] == 2
    obs = env.observe(env.agent_selection)["observation"]
    sampled = Determinizer(obs, rules, env.unwrapped.state.current).sample(random.Random(0))
    assert sampled.passes == 2
    play(env, Pass())
    assert_round_over(env, winner=2, reason="all_passed", round_scores=[-8, -29, 37])


def test_drawing_the_last_tile_then_both_pass():
    # Pool [9C] only. P0 [4S 9H], P1 [5S 6H], nobody opened. Full table: spades 4S from one
    # copy (A-3, 5-K), 5S from the other (A-4, 6-K); hearts 9H (A-8, T-K), 6H (A-5, 7-K);
    # clubs 9C (A-8, T-K) and a whole copy; each diamonds copy AD-5D JK=6D + 6D-KD.
    # P0 draws the 9C: the pool is empty. P1 can only pass, then P0 can only pass: two
    # passes in a row, the end. P0 4 + 9 + 9 = 22, P1 11: P1 wins, P0 pays 11.
    env = make_env()
    racks = [["4S", "9H"], ["5S", "6H"]]
    craft(env, racks, full_table(env, racks, ["9C"]), stock=["9C"])
    play(env, DrawStock())
    assert snapshot(env)["stock"] == []
    assert legal_strs(env) == ["pass"]
    play(env, Pass())
    assert legal_strs(env) == ["pass"]
    play(env, Pass())
    assert all(env.terminations.values())
    assert_round_over(env, winner=1, reason="all_passed", round_scores=[-11, 11])


# ================================================================ 7. going out


def test_going_out_scores_zero_sum():
    # Table {2H 3H 4H}, P0 opened [5H]; P1 [JK 7S KD] = 30 + 7 + 13 = 50; P2 [AS 2D] = 3.
    # P0 plays 5H (2H-5H) and commits his last tile: he goes out. P1 -50, P2 -3, P0 +53.
    env = make_env(3)
    craft(
        env,
        [["5H"], ["JK", "7S", "KD"], ["AS", "2D"]],
        ["2H", "3H", "4H"],
        opened=[True, False, False],
    )
    play(env, PlayTile("5H"), Commit())
    assert all(env.terminations.values())
    assert_round_over(env, winner=0, reason="went_out", round_scores=[53, -50, -3])
    assert table_tiles(env) == Counter(["2H", "3H", "4H", "5H"])


# ================================================================== 8. the match


def test_match_of_two_rounds():
    # match=True, 2 players, 3 tiles a rack (dealer P1: P0 starts round 0).
    # Round 0: P0 [TS JS QS] (33) plays and commits all three: out. P1 [AH 2D 3C] = 6:
    # [6, -6]. Round 1: the deal rotates: dealer P0, P1 starts, nobody opened, an empty
    # table. Crafted: P1 [KH KD KC] (39) goes out at once; P0 [5S 6H 8C] = 19: [-19, 19].
    # Totals [-13, 13]: P1 has the highest total and wins the match.
    env = make_env(match=True, hand_size=3)
    deal(env, [["TS", "JS", "QS"], ["AH", "2D", "3C"]])
    play(env, PlayTile("TS"), PlayTile("JS"), PlayTile("QS"), Commit())
    info = env.infos["player_0"]
    assert (info["winner"], info["reason"], info["round"]) == (0, "went_out", 0)
    assert info["round_scores"] == [6, -6] and info["totals"] == [6, -6]
    assert [env.rewards[a] for a in env.possible_agents] == [6, -6]
    assert not any(env.terminations.values())
    assert "match_winner" not in info
    d = snapshot(env)
    assert (d["round"], d["dealer"], d["current_player"]) == (1, 0, 1)
    assert (d["opened"], d["table"], d["played_tiles"], d["totals"]) == (
        [False, False],
        [],
        [],
        [6, -6],
    )
    assert [len(h) for h in d["hands"]] == [3, 3]
    assert env.agent_selection == "player_1"

    q0, q1 = ["5S", "6H", "8C"], ["KH", "KD", "KC"]
    d["hands"] = [q0, q1]
    d["stock"] = rest_of_pack(env, q0, q1)
    env.reset(options={"state": d})
    play(env, PlayTile("KH"), PlayTile("KD"), PlayTile("KC"), Commit())
    assert_round_over(env, winner=1, reason="went_out", round_scores=[-19, 19], totals=[-13, 13])
    assert env.infos["player_0"]["round"] == 1
    assert all(env.terminations.values())
    assert env.infos["player_0"]["match_winner"] == 1


# ========================================= 9. observation and save/restore


def test_observation_shows_table_played_tiles_and_racks():
    # Table {3H 4H 5H 6H 7H}, both opened, P0 [5H KS], P1 [AD 9C]; 9 tiles out of the pool:
    # 97 in it. P0 plays 5H: his view shows 5H played (not yet on the table), his rack
    # [KS], rack sizes 1 (his) and 2. P1's view: table the same, sizes 2 (his) and 1.
    # After the commit the table holds the 5H twice.
    env = make_env()
    rules = env.unwrapped.rules
    run = ["3H", "4H", "5H", "6H", "7H"]
    craft(env, [["5H", "KS"], JUNK2], run, opened=[True, True])
    play(env, PlayTile("5H"))
    f = parse_card
    v0 = observation.read(env.observe("player_0"), rules)
    assert v0.table_tiles == [1 if i in {f(t) for t in run} else 0 for i in range(53)]
    assert v0.played_tiles == [1 if i == f("5H") else 0 for i in range(53)]
    assert v0.hand == [1 if i == f("KS") else 0 for i in range(53)]
    assert v0.hand_sizes == [1, 2]
    assert v0.stock_size == 97
    assert v0.opened == [True, True]
    assert v0.totals == [0, 0]
    v1 = observation.read(env.observe("player_1"), rules)
    assert v1.table_tiles == v0.table_tiles
    assert v1.hand_sizes == [2, 1]
    play(env, Commit())
    v1 = observation.read(env.observe("player_1"), rules)
    assert v1.table_tiles[f("5H")] == 2
    assert sum(v1.table_tiles) == 6
    assert sum(v1.played_tiles) == 0


def test_save_restore_mid_turn_continues_identically():
    # P0 opened [3S 4S 5S 5H 5D KC], empty table; after 5H is played (not committed) the
    # state is saved and restored: the played tile, the rack and the legal moves come back,
    # and 5D 5S Commit play out identically on both.
    env = make_env()
    craft(env, [["3S", "4S", "5S", "5H", "5D", "KC"], JUNK2], opened=[True, False])
    play(env, PlayTile("5H"))
    other = restored(env)
    assert snapshot(other)["played_tiles"] == ["5H"]
    assert sorted(legal_strs(other)) == sorted(legal_strs(env))
    helpers.play_both([env, other], PlayTile("5D"), PlayTile("5S"), Commit())
    assert table_tiles(other) == Counter(["5S", "5H", "5D"])
    assert other.agent_selection == "player_1"


# ============================================================ 10. bad input


def test_deal_with_a_discard_pile_is_refused():
    env = make_env(hand_size=3)
    with pytest.raises(ValueError):
        deal(env, [["4S", "9H", "7D"], ["8S", "4H", "5S"]], discard=["9C"])


@pytest.mark.parametrize(
    "bad",
    [
        ["4S", "5S", "7S"],  # a gap
        ["5S", "JK", "JK"],  # D-3: one natural, two jokers
        ["QH", "KH", "AH"],  # no wrap
        ["7S", "7S", "7H"],  # a colour twice in a group
        ["4S", "5S"],  # too short
    ],
)
def test_state_with_an_invalid_table_is_refused(bad):
    env = make_env()
    with pytest.raises(ValueError):
        craft(env, [["KD"], ["AD"]], bad, opened=[True, True])
    craft(env, [["KD"], ["AD"]], ["4S", "JK", "6S"], opened=[True, True])  # valid: accepted
    assert table_tiles(env) == Counter(["4S", "JK", "6S"])


def test_play_of_a_tile_not_held_and_an_empty_commit_are_illegal():
    # P0 opened [5H KS], table {3H-7H}: 9C is not on his rack; Commit with nothing played;
    # after 5H, a second 5H (none left on the rack) is illegal too.
    env = make_env()
    craft(env, [["5H", "KS"], JUNK2], ["3H", "4H", "5H", "6H", "7H"], opened=[True, True])
    assert_illegal(env, PlayTile("9C"))
    assert_illegal(env, Commit())
    play(env, PlayTile("5H"))
    assert_illegal(env, PlayTile("5H"))
    assert_illegal(env, Pass())


# ========================================================== 11. PettingZoo checks


@pytest.mark.parametrize("num_players", [2, 3])
def test_pettingzoo_api(num_players):
    env = rummy_env.env("rummikub", num_players=num_players)
    assert not helpers.api_test_warnings(env, num_cycles=100)


@pytest.mark.parametrize("num_players", [2, 3])
def test_pettingzoo_seed(num_players):
    seed_test(lambda: rummy_env.env("rummikub", num_players=num_players), num_cycles=100)
