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
* it is deterministic: the same deal and seeds give the same game;
* the search (2 players, the opponent on 5 tiles or fewer): its play-outs use `greedy`'s
  exact policy, its deals keep the observation and fit what greedy's last turn says of
  his rack (where plain determinizations often do not), and it runs only where it should.
  The crafted positions above that it would search are played with ``search_h=0``: they
  check the weights it falls back on.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import rummy_env
from agents.rummikub import RummikubExpertAgent, greedy_move
from rummy_env import cover, engine
from rummy_env.cards import parse_card
from rummy_env.determinize import Determinizer
from rummy_env.moves import Commit, Layout, PlayTile
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


def turn_of(spec: str, env: rummy_env.raw_env, **options) -> list[str]:
    """The tiles seat 0 plays in its turn (``spec`` deciding, with ``options``), the turn
    then committed. ``HEURISTIC``: the expert's options without the search (the endgame
    positions below would be searched, the opponent holding 5 tiles or fewer)."""
    bot = agents.make(spec, env.unwrapped.rules, 0, **options)
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


HEURISTIC = {"search_h": 0}


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
    assert turn_of("rummikub-expert", crafted(rack, table, other), **HEURISTIC) == sorted(
        ["QS", "QH", "QC"]
    )


def test_goes_out_when_the_whole_rack_can_go():
    rack = ["5S", "6S", "7S", "7H", "7D", "7C"]
    env = crafted(rack, ["JS", "QS", "KS"], ["AD", "2C", "4H"])
    assert turn_of("rummikub-expert", env) == sorted(rack)  # (searched: he holds 3 tiles)
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
    assert turn_of("rummikub-expert", env, **HEURISTIC) == sorted(["5S", "5H", "5D"])


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
        assert turn_of("rummikub-expert", crafted(rack, table, other), **HEURISTIC) == group
    low = ["5S", "5H", "5D", "6D", "7D", "AS", "2H"]
    assert turn_of("rummikub-expert", crafted(low, table, ["AD"]), **HEURISTIC) == sorted(
        ["5D", "6D", "7D"]
    )


def test_deterministic_given_the_seed():
    a = play_round(2, ["rummikub-expert", "greedy"], 7)
    b = play_round(2, ["rummikub-expert", "greedy"], 7)
    assert a == b


# ------------------------------------------------------------------ the search (version 3)
def test_search_options_are_checked():
    rules = rummy_env.make_rules("rummikub")
    assert agents.make("rummikub-expert", rules, 0, search_h="0").search_h == 0
    assert agents.make("rummikub-expert", rules, 0, simulations=4).simulations == 4
    for name, bad in (
        ("search_h", -1),
        ("simulations", 0),
        ("simulations", "x"),
        ("search_h", 2.5),
    ):
        with pytest.raises(ValueError, match=f"{name}=.* is not allowed"):
            agents.make("rummikub-expert", rules, 0, **{name: bad})


def test_greedys_policy_on_the_engine_is_greedy():
    # the playouts' policy is `greedy`'s own move at every decision of whole rounds
    rules = rummy_env.make_rules("rummikub", 2)
    layout = ObsLayout(rules)
    L = Layout(rules)
    for seed in range(3):
        bots = [agents.make("greedy", rules, i) for i in range(2)]
        s = engine.new_game(rules, seed)
        n = 0
        while not engine.is_terminal(s):
            obs, mask = observe(s, layout)
            a = bots[s.current].act(obs, mask)
            assert greedy_move(s, L) == a
            engine.apply_action(s, a)
            n += 1
        assert n > 30


def turn_starts(seed: int, bot: RummikubExpertAgent):
    """Play a round, ``bot`` (seat 0) against `greedy`; at each of seat 0's turn starts after
    the bot has chosen its first move there, yield ``(state, obs, mask, last)``: ``last`` is
    what greedy's last turn says of his rack, ``None`` before he has had one, else
    ``(table, opened, opened_now, drew)`` (the table he left; whether he had opened before
    that turn, whether he opened in it, and whether he drew)."""
    rules = bot.rules
    layout = ObsLayout(rules)
    other = agents.make("greedy", rules, 1)
    bot.reset(seed=seed)
    s = engine.new_game(rules, seed)
    before = None  # his (rack size, opened) at the bot's last turn start
    while not engine.is_terminal(s):
        obs, mask = observe(s, layout)
        if s.current == 0:
            start = not any(s.played_tiles)
            a = bot.act(obs, mask)
            if start:
                last = None
                if before is not None:
                    n, was_open = before
                    last = (
                        list(s.tiles),
                        was_open,
                        s.opened[1] and not was_open,
                        s.nhand[1] == n + 1,
                    )
                yield s.copy(), obs, mask, last
                before = (s.nhand[1], s.opened[1])
        else:
            a = other.act(obs, mask)
        engine.apply_action(s, a)


def fits_greedys_turn(rack: list[int], last: tuple, need: int) -> bool:
    """Whether `greedy` could end the turn ``last`` (see :func:`turn_starts`) holding
    ``rack``: no tile the table takes (no initial meld before he opened, no meld of the
    rack's own in the turn he opened), but for one tile he drew."""
    table, opened, opened_now, drew = last

    def fits(r: list[int]) -> bool:
        if opened:
            return not cover.playable(list(table), r)
        values = cover.playable_values([0] * 53, r, check=False)
        return all(x < (0 if opened_now else need) for x in values.values())

    if not drew:
        return fits(rack)
    for f, c in enumerate(rack):
        if c:
            r = list(rack)
            r[f] -= 1
            if fits(r):
                return True
    return False


def test_the_sampled_deals_fit_the_opponents_last_turn():
    # the search deals the opponent a rack `greedy` could end his turn with (he lays every
    # tile he can, opens as soon as he can; a tile drawn since is any); the plain
    # determinization often does not; both keep the observation and the tiles
    rules = rummy_env.make_rules("rummikub", 2)
    layout = ObsLayout(rules)
    bot = RummikubExpertAgent(rules, 0, search_h=0)
    bot.redeal_tries = 500
    checked = plain_misfits = opened_now = table_takes = 0
    for seed in range(3):
        for _s, obs, mask, last in turn_starts(seed, bot):
            if last is None:
                continue
            opened_now += last[2]
            v = bot.view(obs)
            det = Determinizer(obs, rules, 0, action_mask=mask)
            draw = bot.sampler(det, v)
            for _ in range(5):
                for d, inferred in ((draw(), True), (det.sample(bot.rng), False)):
                    assert encode(d, 0, layout).tolist() == obs.tolist()
                    assert sorted(d.hand_cards(1) + d.stock) == sorted(det.hidden)
                    ok = fits_greedys_turn(d.hands[1], last, rules.open_points)
                    if inferred:
                        assert ok, f"seed {seed}: the sampled rack does not fit his last turn"
                        checked += 1
                        # in the turn he opened the table was not his: it may take his tiles
                        table_takes += last[2] and bool(cover.playable(list(last[0]), d.hands[1]))
                    else:
                        plain_misfits += not ok
    assert checked > 50 and opened_now > 0 and table_takes > 0
    assert plain_misfits > checked // 10


def test_the_dealt_cards_of_a_determinization_are_given_and_checked():
    rules = rummy_env.make_rules("rummikub", 2)
    env = rummy_env.raw_env("rummikub", num_players=2)
    env.reset(seed=3)
    obs = env.observe("player_0")
    det = Determinizer(obs["observation"], rules, 0, action_mask=obs["action_mask"])
    rack = sorted(det.hidden)[:14]
    d = det.sample(np.random.default_rng(0), {1: rack})
    assert d.hand_cards(1) == rack
    assert sorted(d.hand_cards(1) + d.stock) == sorted(det.hidden)
    with pytest.raises(ValueError, match="has 13 cards; seat 1 has 14 hidden"):
        det.sample(np.random.default_rng(0), {1: rack[:13]})
    # one copy more of a tile than is hidden (a tile of seat 0's rack: at most one hidden)
    mine = env.unwrapped.state.hand_cards(0)[0]
    extra = [mine] * (det.hidden.count(mine) + 1)
    spare = [f for f in rack if f != mine][: 14 - len(extra)]
    with pytest.raises(ValueError, match="is not among the hidden cards"):
        det.sample(np.random.default_rng(0), {1: spare + extra})
    with pytest.raises(ValueError, match="2 is not a seat"):
        det.sample(np.random.default_rng(0), {2: rack})


def test_searches_only_two_player_endgames():
    # the search runs once the opponent holds search_h tiles or fewer, in 2-player games
    def searched(players: int, search_h: int) -> int:
        rules = rummy_env.make_rules("rummikub", players)
        layout = ObsLayout(rules)
        bot = RummikubExpertAgent(rules, 0, search_h=search_h, simulations=2)
        others = [agents.make("greedy", rules, i) for i in range(players)]
        for seed in range(3):
            bot.reset(seed=seed)
            s = engine.new_game(rules, seed)
            while not engine.is_terminal(s):
                obs, mask = observe(s, layout)
                p = s.current
                engine.apply_action(s, (bot if p == 0 else others[p]).act(obs, mask))
        return bot.searched

    assert searched(2, 5) > 0
    assert searched(2, 0) == 0
    assert searched(3, 5) == 0
