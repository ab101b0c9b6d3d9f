"""`rummikub-expert`, the Rummikub variant agent (``agents/rummikub.py``).

* the registry picks it as the ``rummikub`` preset's ``variant`` agent, and it refuses
  other presets;
* it only ever chooses moves the mask marks, over whole rounds with 2, 3 and 4 players;
* it plans the whole turn: on a crafted position where `greedy`'s highest-first order
  ends in a 2-tile commit, it lays the 3 tiles that can go, and it goes out whenever the
  whole rack can;
* of two commits of one size it plays the one that leaves the table closed to the
  opponent (fewer unseen tiles it could take alone);
* in the endgame (the opponent on 1 or 2 tiles) it weighs the chance that he goes out:
  his tiles are ones the table he left could not take (but a tile he has just drawn), and
  of two commits it plays the one that leaves him fewer ways out against its whole rack;
* it is deterministic: the same deal and seeds give the same game.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import rummy_env
from agents.rummikub import RummikubExpertAgent
from rummy_env import engine
from rummy_env.cards import parse_card
from rummy_env.moves import Commit, PlayTile
from rummy_env.observation import ObsLayout, encode
from tests.helpers import rest_of_pack, snapshot


def observe(s: engine.GameState, layout: ObsLayout) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros(s.layout.size, dtype=np.int8)
    mask[engine.legal_actions(s)] = 1
    return encode(s, s.current, layout), mask


def play_round(players: int, specs: list[str], seed: int) -> tuple[list[int], list[int]]:
    """One round on the engine, every move checked against the mask: (returns, moves)."""
    rules = rummy_env.make_rules("rummikub", players)
    layout = ObsLayout(rules)
    bots = [agents.make(specs[i % len(specs)], rules, i) for i in range(players)]
    for i, b in enumerate(bots):
        b.reset(seed=seed * 31 + i)
    s = engine.new_game(rules, seed)
    moves = []
    while not engine.is_terminal(s):
        obs, mask = observe(s, layout)
        a = bots[s.current].act(obs, mask)
        assert mask[a] == 1, f"{specs[s.current % len(specs)]} chose an illegal move {a}"
        engine.apply_action(s, a)
        moves.append(a)
    return engine.returns(s), moves


def crafted(rack: list[str], table: list[str], other: list[str]) -> rummy_env.raw_env:
    """A 2-player env, both opened, P0 to play ``rack`` on ``table`` (P1 holds ``other``)."""
    env = rummy_env.raw_env("rummikub", num_players=2)
    env.reset(seed=0)
    d = snapshot(env)
    d["hands"] = [list(rack), list(other)]
    d["table"] = [{"owner": None, "kind": None, "cards": list(table)}]
    d["stock"] = rest_of_pack(env, rack, other, table)
    d["discard"] = []
    d["opened"] = [True, True]
    d["current_player"] = 0
    d["dealer"] = 1
    env.reset(options={"state": d})
    return env


def turn_of(spec: str, env: rummy_env.raw_env) -> list[str]:
    """The tiles seat 0 plays in its turn (``spec`` deciding), the turn then committed."""
    bot = agents.make(spec, env.unwrapped.rules, 0)
    bot.reset(seed=0)
    tiles = []
    while env.agent_selection == "player_0":
        obs = env.observe("player_0")
        a = bot.act(obs["observation"], obs["action_mask"])
        move = env.unwrapped.decode(a)
        env.step(a)
        if isinstance(move, PlayTile):
            tiles.append(move.tile)
        elif isinstance(move, Commit):
            break
        else:
            raise AssertionError(f"expected tiles and a commit, got {move}")
    return sorted(tiles)


def test_registry():
    rules = rummy_env.make_rules("rummikub")
    assert agents.VARIANT_AGENTS["rummikub"] == "rummikub-expert"
    assert type(agents.make("variant", rules)) is RummikubExpertAgent
    assert "rummikub-expert" in agents.available()
    with pytest.raises(ValueError, match="Rummikub"):
        agents.make("rummikub-expert", rummy_env.make_rules("basic"))


@pytest.mark.parametrize(
    "players,specs",
    [
        (2, ["rummikub-expert", "greedy"]),
        (3, ["rummikub-expert", "random"]),
        (4, ["rummikub-expert", "greedy", "rummikub-expert", "random"]),
    ],
)
def test_only_legal_moves_over_whole_rounds(players, specs):
    decisions = 0
    for seed in range(3):
        returns, moves = play_round(players, specs, seed)
        assert sum(returns) == 0
        decisions += len(moves)
    assert decisions > 100


def test_lays_the_largest_commit_where_greedy_stops_short():
    # table 9H TH JH; rack QS QH KH KH QC. Greedy plays a KH first (the highest), which only
    # the run 9H-KH can take, with the QH: 2 tiles, and the QS QC are left. The group
    # QS QH QC lays 3.
    rack = ["QS", "QH", "KH", "KH", "QC"]
    table = ["9H", "TH", "JH"]
    other = ["AD", "2C", "4H"]
    assert turn_of("greedy", crafted(rack, table, other)) == sorted(["KH", "QH"])
    assert turn_of("rummikub-expert", crafted(rack, table, other)) == sorted(["QS", "QH", "QC"])


def test_goes_out_when_the_whole_rack_can_go():
    rack = ["5S", "6S", "7S", "7H", "7D", "7C"]
    env = crafted(rack, ["JS", "QS", "KS"], ["AD", "2C", "4H"])
    assert turn_of("rummikub-expert", env) == sorted(rack)
    assert env.terminations["player_0"] and env.rewards["player_0"] > 0


def test_of_two_commits_of_one_size_leaves_the_table_closed():
    # table JC QC KC; rack 5S 5H 5D 6D 7D AC: the 5D goes in one commit of three, the
    # run 5D 6D 7D (18 points: greedy's, the 7D first) or the group 5S 5H 5D (15). The run
    # leaves the table open at 4D and 8D, the group only to a 5C: the expert lays the group.
    rack = ["5S", "5H", "5D", "6D", "7D", "AC"]
    table = ["JC", "QC", "KC"]
    other = ["AD", "2C", "4S"]
    bot = RummikubExpertAgent(rummy_env.make_rules("rummikub"), 0)
    env = crafted(rack, table, other)
    v = bot.view(env.observe("player_0")["observation"])
    unseen = bot.unseen(v)

    def open_after(tiles):
        t = list(v.table_tiles)
        for x in tiles:
            t[parse_card(x)] += 1
        return bot.absorbency(t, unseen)

    assert open_after(["5S", "5H", "5D"]) < open_after(["5D", "6D", "7D"])
    assert turn_of("greedy", crafted(rack, table, other)) == sorted(["5D", "6D", "7D"])
    assert turn_of("rummikub-expert", env) == sorted(["5S", "5H", "5D"])


def test_out_chance_counts_the_tiles_he_may_hold():
    # he left JC QC KC: he holds no TC and no joker (the table would take them). Laying
    # 5D 6D 7D opens it to the 4D and 8D (4 of the 88 unseen tiles he may hold).
    rack = ["5S", "5H", "5D", "6D", "7D", "KS", "KH", "QS", "JH", "9D", "TD"]
    table = ["JC", "QC", "KC"]
    bot = RummikubExpertAgent(rummy_env.make_rules("rummikub"), 0)
    v = bot.view(crafted(rack, table, ["AD"]).observe("player_0")["observation"])
    unseen = bot.unseen(v)
    held = {u for u in range(len(unseen)) if unseen[u]} - {parse_card("TC"), 52}
    assert sum(unseen[u] for u in held) == 88
    t = list(v.table_tiles)
    assert bot.out_chance(list(t), unseen, held, 1) == 0.0
    for x in ["5D", "6D", "7D"]:
        t[parse_card(x)] += 1
    assert bot.out_chance(list(t), unseen, held, 1) == pytest.approx(4 / 88)
    assert bot.out_chance(list(t), unseen, held, 2) == pytest.approx((4 / 88) ** 2)
    bot._drew = True  # his tile is one just drawn: any of the 92 unseen tiles (+ TC, jokers)
    assert bot.out_chance(list(t), unseen, held, 1) == pytest.approx(8 / 92)


def test_in_the_endgame_keeps_him_from_going_out_rather_than_lay_more_value():
    # As above, with six high tiles that cannot go (68 points) on the rack. Against 3 tiles
    # the expert lays the group 5S 5H 5D (the table stays closed: only a 5C joins it). On
    # his last tile the run 5D 6D 7D lays 3 points more but opens the table to 4D and 8D
    # (4 of the 88 tiles he may hold, against the group's two 5C), which would cost the
    # 78 points left twice: it lays the group. With a low rack the run's value wins.
    rack = ["5S", "5H", "5D", "6D", "7D", "KS", "KH", "QS", "JH", "9D", "TD"]
    table = ["JC", "QC", "KC"]
    group = sorted(["5S", "5H", "5D"])
    for other in (["AD", "2C", "4S"], ["AD"]):
        assert turn_of("rummikub-expert", crafted(rack, table, other)) == group
    low = ["5S", "5H", "5D", "6D", "7D", "AS", "2H"]
    assert turn_of("rummikub-expert", crafted(low, table, ["AD"])) == sorted(["5D", "6D", "7D"])


def test_deterministic_given_the_seed():
    a = play_round(2, ["rummikub-expert", "greedy"], 7)
    b = play_round(2, ["rummikub-expert", "greedy"], 7)
    assert a == b
