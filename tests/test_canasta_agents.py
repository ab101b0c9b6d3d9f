"""The Canasta agents: `random`, `greedy` and `canasta-expert` play whole games through
the AEC env, `variant` is the expert, and the expert's choices in crafted deals (a pile
that completes a canasta is taken; going out is held back while its side is behind)."""

from __future__ import annotations

from collections import Counter

import pytest

import agents
import rummy_env
from agents.canasta import CanastaExpertAgent
from rummy_env.cards import card_str, deck_faces
from rummy_env.moves import Discard, DrawStock, Meld, TakePile


def play_game(names: list[str], n: int, seed: int) -> dict:
    """One round through the AEC env; every move is checked against the mask."""
    env = rummy_env.env("canasta", num_players=n)
    rules = rummy_env.make_rules("canasta", num_players=n)
    bots = [agents.make(names[i % len(names)], rules, seat=i) for i in range(n)]
    for b in bots:
        b.reset(seed)
    env.reset(seed=seed)
    steps = 0
    info = {}
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = int(name.split("_")[1])
        a = bots[seat].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        env.step(a)
        steps += 1
        assert steps < 5000
    return info


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize(
    "names",
    [["greedy"], ["random"], ["canasta-expert"], ["canasta-expert", "greedy", "random"]],
)
def test_agents_play_whole_games(names, n):
    for seed in range(3):
        info = play_game(names, n, seed)
        assert info["reason"] in ("went_out", "stock_exhausted")


def test_variant_is_the_expert():
    rules = rummy_env.make_rules("canasta", num_players=4)
    bot = agents.make("variant", rules, seat=1)
    assert isinstance(bot, CanastaExpertAgent)
    assert agents.VARIANT_AGENTS["canasta"] == "canasta-expert"
    assert "canasta-expert" in agents.available()


def test_greedy_delegates_to_the_canasta_policy():
    rules = rummy_env.make_rules("canasta", num_players=2)
    bot = agents.make("greedy", rules)
    env = rummy_env.env("canasta", num_players=2)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    a = bot.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1
    assert bot.canasta_policy() is bot.canasta_policy()


# ---------------------------------------------------------------- crafted deals
def rest_of_pack(*used: list[str]) -> list[str]:
    left = Counter(card_str(f) for f in deck_faces(2, 2))
    for group in used:
        for c in group:
            left[c] -= 1
            assert left[c] >= 0, c
    return [card_str(f) for f in range(53) for _ in range(left[card_str(f)])]


def deal(env, hands: list[str], pile: list[str], stock: list[str], dealer: int) -> None:
    hands_ = [h.split() for h in hands]
    assert all(len(h) == 11 for h in hands_)
    options = {
        "hands": hands_,
        "discard": pile,
        "stock": stock + rest_of_pack(*hands_, pile, stock),
        "dealer": dealer,
    }
    env.reset(seed=0, options=options)


def step(env, move) -> None:
    a = env.unwrapped.encode(move)
    assert a in set(env.unwrapped.legal_actions()), str(move)
    env.step(a)


def to_act(env) -> int:
    return int(env.agent_selection.split("_")[1])


def test_expert_takes_a_pile_that_completes_a_canasta():
    env = rummy_env.raw_env("canasta", num_players=4)
    deal(
        env,
        [
            "KS KH KD KC KS KH 4H 5H 6H 7H 8H",
            "AS 4S 5S 6S 7S 8S 9S TS JS QS 3S",
            "AD 4D 5D 6D 7D 8D 9D TD JD QD 3C",
            "AC 4C 5C 6C 7C 8C 9C TC JC KD 3C",
        ],
        pile=[],
        stock=["QH", "QC", "4S", "JH", "QD"],
        dealer=3,
    )
    # P0 opens with six kings (60), P1-P2 draw and discard, P3 throws a king
    step(env, DrawStock())
    step(env, Meld(("KS", "KH", "KD", "KC", "KS", "KH")))
    step(env, Discard("8H"))
    for card in ("QC", "4S"):
        step(env, DrawStock())
        step(env, Discard(card))
    step(env, DrawStock())
    step(env, Discard("KD"))
    assert to_act(env) == 0
    bot = agents.make("canasta-expert", env.unwrapped.rules, seat=0)
    obs = env.observe("player_0")
    a = bot.act(obs["observation"], obs["action_mask"])
    assert env.unwrapped.decode(a) == TakePile(())
    env.step(a)
    table = env.unwrapped.state.to_dict()["table"]
    assert len(table) == 1 and len(table[0]["cards"]) == 7


def _behind_position(env) -> None:
    """P1 and P3 (side 1) each meld a natural canasta; P0 (side 0) could then meld seven
    kings and four nines and go out with a discard, its side far behind."""
    deal(
        env,
        [
            "KS KH KD KC KS KH KD 9H 9S 9C 4H",
            "QS QH QD QC QS QH QD 5S 6S 7S 8S",
            "AD 4D 5D 6D 7D 8D TD 3C 5C 6C 7C",
            "JS JH JD JC JS JH JD AH 5H 6H 7H",
        ],
        pile=[],
        stock=["TS", "TC", "TH", "9D"],
        dealer=0,
    )
    step(env, DrawStock())  # P1
    step(env, Meld(("QS", "QH", "QD", "QC", "QS", "QH", "QD")))
    step(env, Discard("5S"))
    step(env, DrawStock())  # P2
    step(env, Discard("AD"))
    step(env, DrawStock())  # P3
    step(env, Meld(("JS", "JH", "JD", "JC", "JS", "JH", "JD")))
    step(env, Discard("AH"))
    assert to_act(env) == 0


def _play_turn(env, bot) -> None:
    while to_act(env) == 0 and not any(env.terminations.values()):
        obs = env.observe("player_0")
        env.step(bot.act(obs["observation"], obs["action_mask"]))


def test_expert_holds_back_going_out_while_behind():
    env = rummy_env.raw_env("canasta", num_players=4)
    rules = env.unwrapped.rules
    _behind_position(env)
    _play_turn(env, agents.make("canasta-expert", rules, seat=0))
    assert not any(env.terminations.values())
    d = env.unwrapped.state.to_dict()
    assert len(d["hands"][0]) >= 1
    assert any(len(m["cards"]) >= 7 for m in d["table"] if m["side"] == 0)
    # the same position with no holding back: it goes out
    _behind_position(env)
    _play_turn(env, agents.make("canasta-expert", rules, seat=0, hold_margin=1e9))
    assert all(env.terminations.values())
    assert env.infos["player_0"]["winner"] == 0
