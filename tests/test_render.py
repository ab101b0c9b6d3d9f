"""What the text render, ``rummy-demo`` and the commands' ``--help`` tell a reader:
counts in words ("1 card"), a round's result explained (who won, why, each
score and reward and what the numbers mean), and what each command does."""

from __future__ import annotations

import importlib
import re
import sys

import numpy as np
import pytest

import rummy_env
from experiments.demo import play_rendered
from rummy_env.render import describe_result, render_text


def _state_with_one_card_left():
    """Basic, 2 players: player_0 to draw, player_1 holding 1 card, 1 card in the stock."""
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=0)
    d = env.unwrapped.state.to_dict()
    moved = d["hands"][1][1:] + d["stock"][1:]
    d["hands"][1], d["stock"] = d["hands"][1][:1], d["stock"][:1]
    d["discard"] = moved + d["discard"]
    env.reset(options={"state": d})
    return env.unwrapped.state


def test_counts_of_one_are_singular():
    text = render_text(_state_with_one_card_left(), viewer=0)
    assert "stock: 1 card ·" in text and "player_1: 1 card" in text
    assert not re.search(r"\b1 cards\b", text), text
    assert "totals (penalties, lower is better): [0, 0]" in text


def _standard_result():
    return {
        "round": 0,
        "round_scores": [0, 24],
        "totals": [0, 24],
        "winner": 0,
        "reason": "stock_exhausted",
        "rummy": False,
        "rewards": [0, -24],
        "eliminated": [],
        "match_over": True,
        "match_winner": 0,
    }


def test_a_round_result_says_who_won_why_and_what_the_numbers_mean():
    text = describe_result(_standard_result(), rummy_env.make_rules("basic", 2))
    assert text.startswith("round 1 over: the stock ran out")  # round index 0 is round 1
    assert "player_0 holds the lowest hand and wins" in text
    assert (
        "Penalties this round" in text and "lower is better" in text and "minus the penalty" in text
    )
    assert re.search(r"player_0: +0 +reward \+0 +\(winner\)", text), text
    assert re.search(r"player_1: +24 +reward -24$", text, re.M), text
    assert "match totals" not in text  # one round, no match
    match = describe_result(_standard_result(), rummy_env.make_rules("basic", 2, match=True))
    assert "match totals (a player over 100 is out): [0, 24]; match over, winner player_0" in match


def test_a_gin_knock_and_an_info_without_rewards():
    info = {
        "round": 2,
        "round_scores": [0, 13],
        "totals": [40, 13],
        "winner": 1,
        "reason": "undercut",
        "rummy": False,
        "showdown": {"knocker_deadwood": 8, "defender_deadwood": 5},
    }
    text = describe_result(info, rummy_env.make_rules("gin", 2))
    assert text.startswith(
        "round 3 over: player_1 undercut the knocker and wins the hand "
        "(deadwood: knocker 8, defender 5)."
    )
    assert "Points this round, gin scoring" in text and "reward" not in text.splitlines()[-1]


def test_a_canasta_round_result_says_how_sides_score():
    env = rummy_env.raw_env("canasta", num_players=4)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while env.state.last_result is None:
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    text = " ".join(describe_result(env.state.last_result, env.rules).split())
    assert "Points this round, canasta scoring: each side scores" in text, text
    assert "500 a natural and 300 a mixed canasta" in text


def test_the_demo_explains_the_result(capsys):
    play_rendered("basic", 2, 0)
    out = capsys.readouterr().out
    assert "=== round 1 ===" in out and "round 1 over: " in out
    assert "Penalties this round, standard scoring" in out
    assert re.search(r"player_\d: +0 +reward \+0 +\(winner\)", out)
    assert not re.search(r"\b1 cards\b", out)


@pytest.mark.parametrize(
    "module",
    ["train_ppo", "tournament", "benchmark", "demo", "eval_ppo", "ship_model", "learning_curve"],
)
def test_every_command_says_what_it_does(module, capsys, monkeypatch):
    """rummy-train, rummy-tournament, rummy-benchmark, rummy-demo and
    python -m experiments.eval_ppo: --help gives the module's one-line summary."""
    pytest.importorskip("tyro")
    mod = importlib.import_module(f"experiments.{module}")
    monkeypatch.setattr(sys, "argv", [module, "--help"])  # eval_ppo.main() reads sys.argv
    monkeypatch.setenv("COLUMNS", "200")  # the summary on one line
    with pytest.raises(SystemExit) as exit_:
        mod.main(*([] if module == "eval_ppo" else [["--help"]]))
    assert exit_.value.code == 0
    summary = mod.__doc__.splitlines()[0].replace("``", "")
    out = capsys.readouterr().out
    assert summary in out, out[:600]


def test_a_finished_game_shows_no_turn_restrictions():
    """After the last discard, "may not discard this turn" describes no turn."""
    env = rummy_env.env("basic", num_players=2, render_mode="ansi")
    env.reset(seed=7)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.state
    assert state.forbidden >= 0  # this game ends with a restriction left in the state
    text = env.render()
    assert "game over" in text and "may not discard" not in text and "must use" not in text


# ------------------------------------------------------------------ pictures
def test_rgb_array_render_is_a_picture_of_the_table():
    env = rummy_env.env("deuces", num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    assert "rgb_array" in env.metadata["render_modes"]
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[1:] == (1024, 3)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert not np.array_equal(img, env.render())  # the picture follows the game


def test_a_picture_shows_no_hidden_card():
    """Seen by player 0, two states that differ only in cards player 0 cannot see (player 1's
    hidden hand and the stock, swapped) draw the very same picture; "all" draws them apart."""
    from rummy_env.engine import from_dict
    from rummy_env.picture import draw_table

    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=9)
    d = env.state.to_dict()
    other = dict(d)
    other["hands"] = [d["hands"][0], d["stock"][: len(d["hands"][1])]]
    other["stock"] = d["hands"][1] + d["stock"][len(d["hands"][1]) :]
    a, b = from_dict(d, env.rules), from_dict(other, env.rules)
    assert np.array_equal(draw_table(a, viewer=0), draw_table(b, viewer=0))
    assert not np.array_equal(draw_table(a, omniscient=True), draw_table(b, omniscient=True))


def _rummikub_with_a_table(seed: int = 1):
    """A 2-player Rummikub state after the first commit (greedy plays both seats)."""
    import agents

    env = rummy_env.raw_env("rummikub", num_players=2)
    env.reset(seed=seed)
    players = [agents.make("greedy", env.rules, seat=i) for i in range(2)]
    while not any(env.state.tiles):
        seat = env.state.current
        obs = env.observe(env.agent_selection)
        env.step(players[seat].act(obs["observation"], obs["action_mask"]))
    return env


def test_rummikub_picture_draws_the_table_tiles():
    # Rummikub's table is one pool of tiles: the picture draws a split of it (its tiles'
    # white faces), which an empty table does not have.
    from rummy_env.picture import WHITE, draw_table

    env = _rummikub_with_a_table()
    s = env.state
    bare = s.copy()
    bare.tiles = [0] * 53

    def white(img) -> int:
        return int(np.all(img == WHITE, axis=2).sum())

    assert white(draw_table(s, viewer=0)) > white(draw_table(bare, viewer=0))


def test_rummikub_picture_shows_no_hidden_tile():
    from rummy_env.engine import from_dict
    from rummy_env.picture import draw_table

    env = _rummikub_with_a_table()
    d = env.state.to_dict()
    other = dict(d)
    n = len(d["hands"][1])
    other["hands"] = [d["hands"][0], d["stock"][:n]]
    other["stock"] = d["hands"][1] + d["stock"][n:]
    a, b = from_dict(d, env.rules), from_dict(other, env.rules)
    assert np.array_equal(draw_table(a, viewer=0), draw_table(b, viewer=0))
    assert not np.array_equal(draw_table(a, omniscient=True), draw_table(b, omniscient=True))


def test_render_view_picks_whose_picture_it_is():
    env = rummy_env.raw_env("basic", num_players=2, render_mode="rgb_array")
    env.reset(seed=2)
    to_act = env.render()
    env.render_view = 1 - env.state.current
    other = env.render()
    env.render_view = "all"
    everyone = env.render()
    assert not np.array_equal(to_act, other) and not np.array_equal(to_act, everyone)


def test_human_render_without_a_display_prints_the_table(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    env = rummy_env.raw_env("basic", num_players=2, render_mode="human")
    env.reset(seed=1)
    out = capsys.readouterr().out
    assert "player_0" in out and "stock" in out  # the text table, no window
    assert env._figure is False
    env.close()
