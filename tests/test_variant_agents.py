"""The variant agents: `gin-simple`, `gin-expert`, `rummy500-expert`, `rummy51-expert`.

* the registry picks them as each preset's ``variant`` agent;
* they only ever choose moves the mask marks (1000+ decisions per preset, with
  2 and 4 players where the preset allows);
* `gin-simple` follows OpenSpiel's simple bot policy on crafted hands: it
  takes the up-card iff it lands in a best meld or lets it knock, knocks as
  soon as it may, and otherwise discards the highest-ranked deadwood card;
* each variant agent beats `random` clearly over a few dozen duplicate deals.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

import agents
import rummy_env
from rummy_env import engine
from rummy_env.cards import parse_cards
from rummy_env.moves import Discard, DrawDiscard, DrawStock, Knock, Pass
from rummy_env.observation import ObsLayout, encode


def observe(s: engine.GameState, layout: ObsLayout) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros(s.layout.size, dtype=np.int8)
    mask[engine.legal_actions(s)] = 1
    return encode(s, s.current, layout), mask


def play(rules, specs: list[str], seed: int) -> tuple[list[int], int]:
    """One round straight on the engine; asserts every move is legal. (returns, decisions)"""
    layout = ObsLayout(rules)
    bots = [agents.make(specs[i % len(specs)], rules, i) for i in range(rules.num_players)]
    for i, b in enumerate(bots):
        b.reset(seed=seed * 31 + i)
    s = engine.new_game(rules, seed)
    n = 0
    while not engine.is_terminal(s):
        obs, mask = observe(s, layout)
        a = bots[s.current].act(obs, mask)
        assert mask[a] == 1, f"{specs[s.current % len(specs)]} chose an illegal move {a}"
        engine.apply_action(s, a)
        n += 1
    return engine.returns(s), n


# ------------------------------------------------------------------ registry
@pytest.mark.parametrize(
    "preset,name,cls",
    [
        ("gin", "gin-expert", "GinExpertAgent"),
        ("rummy500", "rummy500-expert", "Rummy500ExpertAgent"),
        ("persian", "rummy500-expert", "Rummy500ExpertAgent"),
        ("rummy51", "rummy51-expert", "Rummy51ExpertAgent"),
        ("deuces", "basic-expert", "BasicExpertAgent"),
    ],
)
def test_variant_registry(preset, name, cls):
    rules = rummy_env.make_rules(preset)
    assert agents.VARIANT_AGENTS[preset] == name
    assert type(agents.make("variant", rules)).__name__ == cls
    assert type(agents.make("gin-simple", rummy_env.make_rules("gin"))).__name__ == "GinSimpleAgent"


# ------------------------------------------------------------- legal moves
LEGAL_CASES = [
    ("gin", 2, ["gin-expert", "gin-simple"]),
    ("gin", 2, ["gin-simple", "random"]),
    ("rummy500", 2, ["rummy500-expert", "greedy"]),
    ("rummy500", 4, ["rummy500-expert", "random"]),
    ("persian", 2, ["rummy500-expert", "random"]),
    ("persian", 4, ["rummy500-expert", "greedy"]),
    ("rummy51", 2, ["rummy51-expert", "random"]),
    ("rummy51", 4, ["rummy51-expert", "greedy"]),
    ("deuces", 2, ["basic-expert", "greedy"]),
    ("deuces", 4, ["basic-expert", "random"]),
]


@pytest.mark.parametrize("preset,players,specs", LEGAL_CASES, ids=lambda x: str(x))
def test_variant_agents_choose_only_legal_moves(preset, players, specs):
    rules = rummy_env.make_rules(preset, num_players=players)
    decisions, seed = 0, 0
    while decisions < 1000:
        decisions += play(rules, specs, seed)[1]
        seed += 1
    assert decisions >= 1000


# --------------------------------------------------------- gin-simple rules
GIN = rummy_env.make_rules("gin")


def crafted(hand0: str, upcard: str, hand1: str | None = None) -> engine.GameState:
    """Player 0 (non-dealer) is offered ``upcard``; the dealer gets ``hand1`` (default:
    every third card left), the stock the rest of the pack."""
    h0, up = parse_cards(hand0), parse_cards(upcard)
    h1 = (
        parse_cards(hand1)
        if hand1
        else [f for f in range(52) if f not in set(h0) | set(up)][::3][:10]
    )
    used = set(h0) | set(h1) | set(up)
    stock = [f for f in range(52) if f not in used]
    return engine.new_game(GIN, 0, {"hands": [h0, h1], "discard": up, "stock": stock, "dealer": 1})


def step(bot, s: engine.GameState):
    obs, mask = observe(s, ObsLayout(GIN))
    a = bot.act(obs, mask)
    move = bot.moves.move(a)
    engine.apply_action(s, a)
    return move


@pytest.mark.parametrize(
    "hand,upcard,takes",
    [
        # 5H 6H + 7H: the up-card lands in a best meld
        ("5H 6H KS KC QD JD 9S 2C 3D 8C", "7H", True),
        # KH joins nothing (a pair with KS is no meld): pass
        ("5H 6H KS 4C QD JD 9S 2C 3D 8C", "KH", False),
        # 2C does not meld, but with it the hand can knock (discard KC: 2 deadwood)
        ("AS 2S 3S 4H 5H 6H 7D 8D 9D KC", "2C", True),
        # a card pairing with one (a "pair" is no meld): pass
        ("AS 3S 5S 7H 9H JH 2D 4D 6D 8C", "AC", False),
    ],
)
def test_gin_simple_takes_upcard_iff_in_best_meld_or_knock(hand, upcard, takes):
    s = crafted(hand, upcard)
    bot = agents.make("gin-simple", GIN, 0)
    move = step(bot, s)
    assert move == (DrawDiscard(0) if takes else Pass())


def test_gin_simple_knocks_as_soon_as_legal():
    #  AS 2S 3S | 4H 5H 6H | 7D 8D 9D | KC  + up-card 2C -> knock, discarding KC (deadwood 2)
    s = crafted("AS 2S 3S 4H 5H 6H 7D 8D 9D KC", "2C")
    bot = agents.make("gin-simple", GIN, 0)
    assert step(bot, s) == DrawDiscard(0)
    assert step(bot, s) == Knock("KC")


def test_gin_simple_discards_highest_deadwood_card():
    #  AS 2S 3S 4S | 5H 9D JC QD 4C 7H 8S: deadwood far above 10, highest rank is QD
    s = crafted("AS 2S 3S 5H 9D JC QD 4C 7H 8S", "4S")
    bot = agents.make("gin-simple", GIN, 0)
    assert step(bot, s) == DrawDiscard(0)
    assert step(bot, s) == Discard("QD")


def test_gin_simple_draws_stock_after_pass():
    s = crafted("5H 6H KS 4C QD JD 9S 2C 3D 8C", "KH", "2S 4H 7D 9C TS QH 3C 5D 7S AH")
    bot0, bot1 = agents.make("gin-simple", GIN, 0), agents.make("gin-simple", GIN, 1)
    assert step(bot0, s) == Pass()
    assert step(bot1, s) == Pass()  # the dealer: KH joins nothing in his hand
    assert step(bot0, s) == DrawStock()


# ----------------------------------------------------------- beats random
@pytest.mark.parametrize(
    "preset,name,deals",
    [
        ("gin", "gin-expert", 30),
        ("gin", "gin-simple", 30),
        ("rummy500", "rummy500-expert", 15),
        ("rummy51", "rummy51-expert", 12),
        ("deuces", "basic-expert", 15),
    ],
)
def test_variant_agent_beats_random(preset, name, deals):
    rules = rummy_env.make_rules(preset)
    diffs = []
    for seed in range(deals):
        r0, _ = play(rules, [name, "random"], seed)  # the agent in seat 0
        r1, _ = play(rules, ["random", name], seed)  # and in seat 1, same deal
        diffs.append((r0[0] - r0[1] + r1[1] - r1[0]) / 2)
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / len(diffs) ** 0.5
    assert mean > 2 * se and mean > 0, (mean, se)


def test_deuces_expert_keeps_its_wild_2s_and_melds_with_them():
    """wild_deuces: basic-expert counts a 2 as a wild card, not as 15 points of deadwood:
    it lays a meld with the 2 (7S 7H 2C, or 7S 2C-for-8S 9S) and discards a lone card."""
    rules = rummy_env.make_rules("deuces", 2, hand_size=5)
    hands = [parse_cards("7S 7H 2C KD 9S"), parse_cards("3D 4C 8H 9H JC")]
    used = {f for h in hands for f in h} | set(parse_cards("5D QC"))
    stock = [f for f in range(52) if f not in used] + parse_cards("QC")  # QC on top
    s = engine.new_game(
        rules, 0, {"hands": hands, "discard": parse_cards("5D"), "stock": stock, "dealer": 1}
    )
    bot = agents.make("variant", rules, 0)
    layout = ObsLayout(rules)
    engine.apply_action(s, 0)  # draws the stock top, QC
    played = []
    while s.current == 0 and not engine.is_terminal(s):
        obs, mask = observe(s, layout)
        a = bot.act(obs, mask)
        played.append(str(bot.moves.move(a)))
        engine.apply_action(s, a)
    assert played[0].startswith("meld") and "discard 2C" not in played, played
    assert s.table[0].wild_cards == tuple(parse_cards("2C"))
