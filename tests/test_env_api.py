"""The public env API (docs/design.md "Public API"): PettingZoo conformance, classic
behaviour of ``env()``, the raw env's errors, bad input, card notation, the
action codec, pinned sizes and the docs tables, observation decoding,
save/restore, rendering and state copies."""

from __future__ import annotations

import importlib
import json
import random
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import engine, observation
from rummy_env.cards import card_str, deck_faces, face_counts, parse_card, shuffle
from rummy_env.moves import (
    Discard,
    DrawDiscard,
    DrawStock,
    EndRound,
    Knock,
    LayOff,
    Meld,
    Pass,
    SwapJoker,
)
from rummy_env.observation import ObsLayout

# ------------------------------------------------------------------ configs
# A pruned product of players x jokers x ace x scoring: each player count gets
# one half of the 2x2x2 factorial (even counts one half, odd counts the other),
# so every option value appears with every player count and every pair of
# option values appears together.
_HALF_A = [
    (0, "low", "standard"),
    (0, "low_or_high", "winner_takes_all"),
    (2, "low", "winner_takes_all"),
    (2, "low_or_high", "standard"),
]
_HALF_B = [
    (0, "low", "winner_takes_all"),
    (0, "low_or_high", "standard"),
    (2, "low", "standard"),
    (2, "low_or_high", "winner_takes_all"),
]
API_CONFIGS = [
    dict(num_players=n, jokers=j, ace=ace, scoring=sc)
    for n in range(2, 7)
    for j, ace, sc in (_HALF_A if n % 2 == 0 else _HALF_B)
] + [
    dict(num_players=2, match=True),
    dict(num_players=3, jokers=2, scoring="winner_takes_all", match=True),
    dict(num_players=4, ace="low_or_high", match=True),
    dict(num_players=6, jokers=2, ace="low_or_high", scoring="winner_takes_all", match=True),
]


def config_id(kw: dict[str, Any]) -> str:
    parts = [f"{kw['num_players']}p"]
    if kw.get("jokers"):
        parts.append(f"jokers{kw['jokers']}")
    if kw.get("ace") == "low_or_high":
        parts.append("acehigh")
    if kw.get("scoring") == "winner_takes_all":
        parts.append("wta")
    if kw.get("match"):
        parts.append("match")
    return "-".join(parts)


MAKERS = [pytest.param(rummy_env.env, id="env"), pytest.param(rummy_env.raw_env, id="raw_env")]

# api_test warns about any dict observation (as for PettingZoo's own classic envs)
_EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def test_api_configs_cover_every_option():
    for key, values in [
        ("num_players", range(2, 7)),
        ("jokers", (0, 2)),
        ("ace", ("low", "low_or_high")),
        ("scoring", ("standard", "winner_takes_all")),
    ]:
        for v in values:
            counts = {
                kw["num_players"]
                for kw in API_CONFIGS
                if kw.get(key, 0 if key == "jokers" else None) == v
            }
            assert len(counts) >= (1 if key == "num_players" else 5), (key, v)
    assert len({config_id(kw) for kw in API_CONFIGS}) == len(API_CONFIGS)


# ------------------------------------------------------- PettingZoo api/seed
@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("kw", API_CONFIGS, ids=config_id)
def test_pettingzoo_api(make, kw):
    env = make("basic", **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=1000)
    unexpected = [
        str(w.message)
        for w in caught
        if "pettingzoo" in w.filename and not str(w.message).startswith(_EXPECTED_API_WARNINGS)
    ]
    assert not unexpected


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("kw", API_CONFIGS, ids=config_id)
def test_pettingzoo_seed(make, kw):
    seed_test(lambda: make("basic", **kw), num_cycles=500)


def test_shuffle_is_randoms_shuffle():
    # The engine's shuffle draws exactly as random.Random(seed).shuffle: the seeded deals
    # (stored tournaments, replays, duplicate deals) stay those of earlier versions.
    for seed in range(300):
        for n in (0, 1, 2, 52, 106, 162):
            want, got = list(range(n)), list(range(n))
            random.Random(seed).shuffle(want)
            shuffle(got, seed)
            assert got == want, (seed, n)


@pytest.mark.parametrize("preset", ["basic", "indian", "rummikub"])
def test_seeded_deal_is_the_shuffled_pack(preset):
    rules = rummy_env.make_rules(preset, 2)
    for seed in (0, 7, 123456):
        s = engine.new_game(rules, seed)
        pack = deck_faces(rules.decks, rules.jokers)
        random.Random(seed * 1_000_003).shuffle(pack)
        size = rules.hand_size
        dealt = pack[len(pack) - 2 * size :]  # dealt from the end, one at a time from seat 0
        for p in range(2):
            assert s.hands[p] == face_counts(dealt[len(dealt) - 1 - p :: -2]), (preset, seed)


def test_rummy_v1_alias():
    from rummy_env import rummy_v1

    assert rummy_v1.env is rummy_env.env and rummy_v1.raw_env is rummy_env.raw_env
    assert rummy_v1.env("basic").metadata["name"] == "rummy_v1"


def test_rummy_v0_is_a_deprecated_alias():
    with pytest.warns(DeprecationWarning, match="rummy_v1"):
        rummy_v0 = importlib.reload(importlib.import_module("rummy_env.rummy_v0"))
    assert rummy_v0.env is rummy_env.env and rummy_v0.raw_env is rummy_env.raw_env


# --------------------------------------------------------------- helpers
def play_random(
    env, seed: int, until: Callable[[dict[str, Any]], bool] | None = None, max_steps: int = 100_000
) -> bool:
    """Random masked play from ``reset(seed=seed)`` until ``until(state.to_dict())``
    holds (True) or the game is over (False)."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(max_steps):
        if not env.agents:
            return False
        if until is not None and until(env.unwrapped.state.to_dict()):
            return True
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(legal.size)]))
    raise AssertionError("game did not end")


def find_state(kw: dict[str, Any], until: Callable[[dict[str, Any]], bool], make=rummy_env.raw_env):
    """An env paused at the first state of some seeded random game where ``until`` holds."""
    env = make("basic", **kw)
    for seed in range(200):
        if play_random(env, seed, until):
            return env
    raise AssertionError("no random game reached the wanted state")


def illegal_action(env) -> int:
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[len(np.flatnonzero(mask == 0)) // 2])


# ------------------------------------------------- env(): classic behaviour
@pytest.mark.parametrize("num_players", [2, 4])
@pytest.mark.parametrize("phase", ["draw", "play"])
def test_env_illegal_move_ends_game_with_minus_one(num_players, phase):
    env = find_state(
        dict(num_players=num_players),
        lambda d: d["phase"] == phase and d["step_count"] > 6,
        make=rummy_env.env,
    )
    offender = env.agent_selection
    env.step(illegal_action(env))
    assert all(env.terminations.values()) or all(env.truncations.values())
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        assert not env.observe(agent)["action_mask"].any()
        seen[agent] = reward
        env.step(None)
    assert seen == {a: (-1 if a == offender else 0) for a in env.possible_agents}
    assert env.agents == []


@pytest.mark.parametrize("bad", [1267, 5000, -1, 10**9])
def test_env_action_out_of_bounds_is_an_assertion_error(bad):
    env = rummy_env.env("basic", num_players=2)
    env.reset(seed=3)
    before = env.unwrapped.state.to_dict()
    with pytest.raises(AssertionError):
        env.step(bad)
    assert env.unwrapped.state.to_dict() == before


@pytest.mark.parametrize("make", MAKERS)
def test_step_before_reset_is_an_error(make):
    env = make("basic", num_players=2)
    with pytest.raises((AssertionError, RuntimeError), match="reset"):
        env.step(0)
    with pytest.raises((AssertionError, RuntimeError), match="reset"):
        env.observe("player_0")


def test_env_legal_play_is_not_penalised():
    env = rummy_env.env("basic", num_players=3)
    play_random(env, 5)
    assert env.agents == []
    assert env.unwrapped.state.last_result is not None


# ------------------------------------------------------ raw_env: illegal moves
def _check_illegal_raises(env, a: int) -> None:
    s = env.unwrapped.state
    before = s.to_dict()
    legal = list(env.legal_actions())
    agent = env.agent_selection
    move = str(env.decode(a))
    with pytest.raises(rummy_env.IllegalActionError) as err:
        env.step(a)
    assert isinstance(err.value, ValueError)
    msg = str(err.value)
    assert move in msg, msg
    assert before["phase"] in msg, msg
    assert env.unwrapped.state.to_dict() == before
    assert env.legal_actions() == legal
    assert env.agent_selection == agent


def test_raw_env_illegal_in_draw_phase():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=1)
    u = env.unwrapped
    hand = u.state.to_dict()["hands"][0]
    for move in (Discard(hand[0]), Meld(("AS", "2S", "3S")), LayOff("5H", 0)):
        _check_illegal_raises(env, env.encode(move))
    env.step(env.encode(DrawStock()))  # the game goes on


def test_raw_env_illegal_in_play_phase():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=1)
    d = env.unwrapped.state.to_dict()
    top = d["discard"][-1]
    env.step(env.encode(DrawDiscard()))
    hand = env.unwrapped.state.to_dict()["hands"][0]
    not_held = next(card_str(f) for f in range(52) if card_str(f) not in hand)
    for move in (DrawStock(), DrawDiscard(), Discard(top), Discard(not_held), LayOff(hand[0], 0)):
        _check_illegal_raises(env, env.encode(move))
    env.step(env.encode(Discard(next(c for c in hand if c != top))))
    assert env.unwrapped.state.current == 1


@pytest.mark.parametrize("bad", [1267, -1, 10**9, 1.5, "0", None, True])
def test_raw_env_rejects_non_actions(bad):
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=1)
    before = env.unwrapped.state.to_dict()
    with pytest.raises(rummy_env.IllegalActionError):
        env.step(bad)
    assert env.unwrapped.state.to_dict() == before


def test_raw_env_numpy_action_accepted():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=1)
    env.step(np.int64(env.legal_actions()[0]))
    assert env.unwrapped.state.to_dict()["phase"] == "play"


# ---------------------------------------------------------------- bad input
def _rules(preset, num_players=2, render_mode=None, **kw):
    return rummy_env.make_rules(preset, num_players, **kw)


_RANGE = r"\s*(-|–|\.\.|to)\s*"


@pytest.mark.parametrize("make", MAKERS + [pytest.param(_rules, id="make_rules")])
@pytest.mark.parametrize(
    "args, kwargs, wanted",
    [
        pytest.param(
            ("no_such_game",), {}, ["'no_such_game'"] + sorted(rummy_env.PRESETS), id="preset"
        ),
        pytest.param(
            ("basic",), {"colour": "red"}, ["colour", "jokers", "ace", "scoring"], id="override"
        ),
        pytest.param(("basic",), {"num_players": 9}, ["9", "2" + _RANGE + "6"], id="9-players"),
        pytest.param(("basic",), {"num_players": 1}, ["1", "2" + _RANGE + "6"], id="1-player"),
        pytest.param(("basic",), {"jokers": 7}, ["jokers", "7", "0" + _RANGE + "4"], id="jokers-7"),
        pytest.param(
            ("basic",), {"ace": "high"}, ["'high'", "'low'", "'low_or_high'"], id="ace-high"
        ),
        pytest.param(
            ("basic",),
            {"scoring": "golf"},
            ["'golf'", "'standard'", "'winner_takes_all'"],
            id="scoring",
        ),
    ],
)
def test_bad_config_names_value_and_allowed(make, args, kwargs, wanted):
    with pytest.raises(ValueError) as err:
        make(*args, **kwargs)
    msg = str(err.value)
    assert "allowed" in msg, msg
    for pattern in wanted:
        assert re.search(re.escape(pattern) if "\\s" not in pattern else pattern, msg), (
            pattern,
            msg,
        )


@pytest.mark.parametrize("make", MAKERS)
def test_bad_render_mode(make):
    with pytest.raises(ValueError) as err:
        make("basic", num_players=2, render_mode="rgb")
    msg = str(err.value)
    for word in ("'rgb'", "ansi", "human", "rgb_array"):
        assert word in msg, msg


def test_unknown_reset_options_are_ignored():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=4, options={"options": 1, "colour": "red"})
    a = env.unwrapped.state.to_dict()
    env.reset(seed=4)
    assert env.unwrapped.state.to_dict() == a


def test_restore_state_of_other_rules_is_refused():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=4)
    d = env.unwrapped.state.to_dict()
    other = rummy_env.raw_env("basic", num_players=2, jokers=2)
    with pytest.raises(ValueError):
        other.reset(options={"state": d})


# -------------------------------------------------------------------- cards
ALL_FACES = [r + s for s in "SHDC" for r in "A23456789TJQK"] + ["JK"]


def test_card_notation_round_trip_all_faces():
    assert [card_str(f) for f in range(53)] == ALL_FACES
    for f, text in enumerate(ALL_FACES):
        assert parse_card(text) == f
        assert parse_card(text.lower()) == f
        assert parse_card(f) == f  # ids pass through
        assert card_str(parse_card(text)) == text
    assert parse_card("TD") == 2 * 13 + 9
    assert card_str(22) == "TH"


@pytest.mark.parametrize(
    "text, card",
    [
        ("10D", "TD"),
        ("10h", "TH"),
        ("A♠", "AS"),
        ("k♥", "KH"),
        ("7♦", "7D"),
        ("Q♣", "QC"),
        ("jk", "JK"),
        (" 5C ", "5C"),
    ],
)
def test_card_notation_alternatives(text, card):
    assert card_str(parse_card(text)) == card


@pytest.mark.parametrize("bad", ["", "1S", "11S", "TX", "ZZ", "AS2", "A", "JKK", "10", "S5", "1OD"])
def test_bad_card_strings(bad):
    with pytest.raises(ValueError) as err:
        parse_card(bad)
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize("bad", [53, -1, 1.5, None, True, b"AS"])
def test_bad_card_values(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


@pytest.mark.parametrize("bad", [53, -1, 100])
def test_bad_card_ids(bad):
    with pytest.raises(ValueError):
        card_str(bad)


# ---------------------------------------------------------------- the codec
CODEC_CONFIGS = [
    dict(num_players=2),
    dict(num_players=2, jokers=2),
    dict(num_players=3, ace="low_or_high"),
    dict(num_players=5, jokers=2, ace="low_or_high"),
]
_CARD = r"(?:[A2-9TJQK][SHDC]|JK)"
MOVE_TEXT = re.compile(
    rf"draw stock|draw discard|meld(?: {_CARD}){{3,13}}"
    rf"|lay off {_CARD} on meld \d+(?: \((?:low|high) end\))?"
    rf"|swap {_CARD} for the joker in meld \d+|discard {_CARD}"
)


@pytest.mark.parametrize("kw", CODEC_CONFIGS, ids=config_id)
def test_codec_round_trip_every_action(kw):
    env = rummy_env.raw_env("basic", **kw)
    n = env.action_space("player_0").n
    for a in range(n):
        move = env.decode(a)  # before reset: no state
        assert env.encode(move) == a, (a, move)
        assert MOVE_TEXT.fullmatch(str(move)), str(move)
    for bad in (n, -1):
        with pytest.raises(ValueError):
            env.decode(bad)


@pytest.mark.parametrize("kw", CODEC_CONFIGS, ids=config_id)
def test_codec_round_trip_legal_moves_in_play(kw):
    env = rummy_env.raw_env("basic", **kw)
    env.reset(seed=2)
    rng = random.Random(2)
    while not engine.is_terminal(env.unwrapped.state):
        legal = env.legal_actions()
        moves = env.legal_moves()
        assert [env.encode(m) for m in moves] == legal
        assert all(MOVE_TEXT.fullmatch(str(m)) for m in moves)
        env.step(rng.choice(legal))


def test_codec_round_trip_every_action_mid_game():
    """``env.unwrapped.decode(a)`` mid-game must give a move that encodes back to
    ``a`` for every id, legal or not (basic 2p, no jokers, seed 0, first state:
    ``decode(67)`` gives ``meld JK JK JK``)."""
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=0)
    bad = []
    for a in range(env.action_space("player_0").n):
        move = env.decode(a)
        try:
            ok = env.encode(move) == a
        except ValueError:
            ok = False
        if not ok:
            bad.append(str(move))
    assert not bad, f"{len(bad)} ids do not round-trip, e.g. {bad[:3]}"


@pytest.mark.parametrize(
    "move, text",
    [
        (DrawStock(), "draw stock"),
        (DrawDiscard(), "draw discard"),
        (Meld(("5H", "6H", "7H")), "meld 5H 6H 7H"),
        (Meld("5h 6h 7h"), "meld 5H 6H 7H"),
        (Meld(("10H", "JH", "QH")), "meld TH JH QH"),
        (Meld(("5D", "5S", "5H")), "meld 5S 5H 5D"),
        (Meld(("AC", "2C", "3C", "4C")), "meld AC 2C 3C 4C"),
        (LayOff("8H", 0), "lay off 8H on meld 0"),
        (Discard("TD"), "discard TD"),
    ],
)
def test_move_text(move, text):
    env = rummy_env.raw_env("basic", num_players=2)
    assert str(env.decode(env.encode(move))) == text


def test_move_text_with_jokers():
    env = rummy_env.raw_env("basic", num_players=2, jokers=2, ace="low_or_high")
    for move, text in [
        (Meld(("5H", "JK", "7H")), "meld 5H 6H 7H"),  # without a state: the cards it represents
        (Meld(("QS", "KS", "AS")), "meld QS KS AS"),
        (Meld(("9C", "9D", "JK")), "meld 9D 9C JK"),
        (LayOff("JK", 3, "high"), "lay off JK on meld 3 (high end)"),
        (SwapJoker("6H", 2), "swap 6H for the joker in meld 2"),
        (Discard("JK"), "discard JK"),
    ]:
        assert str(env.decode(env.encode(move))) == text
    # a wild run and the natural run are one action: wild cards fill what the hand lacks
    assert env.encode(Meld(("5H", "JK", "7H"))) == env.encode(Meld(("5H", "6H", "7H")))
    assert env.encode(LayOff("JK", 3, "low")) == env.encode(LayOff("JK", 3))


@pytest.mark.parametrize(
    "kw, move",
    [
        (dict(), Meld(("5H", "6D", "7H"))),
        (dict(), Meld(("7H", "6H", "5H"))),
        (dict(), Meld(("5H", "6H"))),
        (dict(), Meld(("QS", "KS", "AS"))),  # aces low only
        (dict(ace="low_or_high"), Meld(("KS", "AS", "2S"))),  # never around the corner
        (dict(), Meld(("5H", "JK", "7H"))),  # no jokers in the pack
        (dict(jokers=2), Meld(("JK", "JK", "7H"))),  # D-3: wild cards at most the naturals
        (dict(), LayOff("5H", 17)),  # meld slots 0..16
        (dict(), LayOff("JK", 0)),
        (dict(), SwapJoker("5H", 0)),
        (dict(), Discard("JK")),
        (dict(), DrawDiscard(1)),
        (dict(), Knock("5H")),
        (dict(), Pass()),
        (dict(), EndRound()),
    ],
)
def test_encode_rejects_moves_outside_the_rules(kw, move):
    env = rummy_env.raw_env("basic", num_players=2, **kw)
    with pytest.raises(ValueError):
        env.encode(move)


# ---------------------------------------------- pinned sizes and docs tables
def expected_num_actions(rules: rummy_env.RuleSet) -> int:
    """The action count by moves.py's table, for basic (top-only discard draw)."""
    w = 1 if rules.jokers else 0
    m = rules.num_cards // 3
    sets = 13 * (21 if w else 5)  # per rank: 4 three-suit + 1 four-suit masks; D-3 adds wild shapes
    runs = 4 * (77 if rules.ace == "low_or_high" else 66)  # segments of 3..13 positions per suit
    return 1 + 1 + sets + runs + m * (52 + 2 * w) + w * m * 52 + 52 + w


def obs_doc_table() -> list[tuple[str, str]]:
    rows = re.findall(r"^\| `(\w+)`\s*\|\s*([^|]+?)\s*\|", observation.__doc__, re.M)
    assert rows, "observation.py no longer documents its slices in a table"
    return rows


def moves_doc_table() -> list[tuple[str, str]]:
    import rummy_env.moves as moves

    rows = re.findall(r"^\| `(\w+)`\s*\|\s*([^|]+?)\s*\|", moves.__doc__, re.M)
    assert rows, "moves.py no longer documents its blocks in a table"
    return rows


@pytest.mark.parametrize(
    "kw, actions, obs",
    [
        (dict(num_players=2), 1267, 3961),
        (dict(num_players=2, jokers=2), 2500, 4124),
        (dict(num_players=5, ace="low_or_high"), 2195, 7971),
        (dict(num_players=6, jokers=2, ace="low_or_high"), 4452, 8400),
    ],
)
def test_pinned_sizes(kw, actions, obs):
    """Pinned: a change of the action or observation layout must be deliberate
    (and the docs updated). The first design's layout had 3901 observation values
    for basic 2p; the gin/rummy500/rummy51 slices grew it to 3961 (docs/design.md)."""
    env = rummy_env.raw_env("basic", **kw)
    for agent in env.possible_agents:
        assert env.action_space(agent).n == actions
        assert env.observation_space(agent)["observation"].shape == (obs,)
        assert env.observation_space(agent)["action_mask"].shape == (actions,)
    assert expected_num_actions(env.rules) == actions
    env.reset(seed=0)
    o = env.observe("player_0")
    assert o["observation"].shape == (obs,) and o["observation"].dtype == np.float32
    assert o["action_mask"].shape == (actions,) and o["action_mask"].dtype == np.int8


@pytest.mark.parametrize("kw", [kw for kw in API_CONFIGS if not kw.get("match")], ids=config_id)
def test_action_count_matches_moves_docs(kw):
    env = rummy_env.raw_env("basic", **kw)
    assert env.action_space("player_0").n == expected_num_actions(env.rules)


@pytest.mark.parametrize("kw", CODEC_CONFIGS, ids=config_id)
def test_action_blocks_follow_moves_docs_table(kw):
    """Decoding every id gives the blocks of moves.py's table, in its order, with
    its sizes (blocks a rule set cannot use have size 0)."""
    import rummy_env.moves as moves

    names = [name for name, _ in moves_doc_table()]
    assert names == [
        "DrawStock",
        "DrawDiscard",
        "TakePile",
        "Meld",
        "LayOff",
        "SwapJoker",
        "Discard",
        "Knock",
        "Pass",
        "EndRound",
        "Declare",
        "Drop",
        "Buy",
        "PlayTile",
        "Commit",
    ]
    env = rummy_env.raw_env("basic", **kw)
    rules = env.rules
    w = 1 if rules.jokers else 0
    m = rules.num_cards // 3
    kinds = [type(env.decode(a)).__name__ for a in range(env.action_space("player_0").n)]
    blocks: list[tuple[str, int]] = []
    for k in kinds:
        if blocks and blocks[-1][0] == k:
            blocks[-1] = (k, blocks[-1][1] + 1)
        else:
            blocks.append((k, 1))
    want = {
        "DrawStock": 1,
        "DrawDiscard": 1,
        "TakePile": 0,
        "Meld": expected_num_actions(rules) - 2 - m * (52 + 2 * w) - w * m * 52 - 52 - w,
        "LayOff": m * (52 + 2 * w),
        "SwapJoker": w * m * 52,
        "Discard": 52 + w,
        "Knock": 0,
        "Pass": 0,
        "EndRound": 0,
        "Declare": 0,
        "Drop": 0,
        "Buy": 0,
        "PlayTile": 0,
        "Commit": 0,
    }
    assert blocks == [(name, want[name]) for name in names if want[name]]
    assert all(isinstance(getattr(moves, name), type) for name in names)


@pytest.mark.parametrize("kw", [{}, {"drop_penalties": (0, 0)}], ids=["drops", "no-drops"])
def test_indian_action_blocks_follow_moves_docs(kw):
    """moves.py: "indian: 1 + 1 + 53 + 53 + 1 = 109": draw stock, draw the top discard,
    discard each card (jokers too), declare with each card, drop (when drops are on)."""
    import rummy_env.moves as moves

    assert "indian: 1 + 1 + 53 + 53 + 1 = 109" in " ".join(moves.__doc__.split())
    env = rummy_env.raw_env("indian", num_players=3, **kw)
    kinds = [type(env.decode(a)).__name__ for a in range(env.action_space("player_0").n)]
    drops = 1 if kw == {} else 0
    assert (
        kinds
        == ["DrawStock", "DrawDiscard"] + ["Discard"] * 53 + ["Declare"] * 53 + ["Drop"] * drops
    )
    for a in range(len(kinds)):
        assert env.encode(env.decode(a)) == a


def test_meld_catalogue_matches_moves_docs():
    """moves.py: "C = ... 65 sets + 264 runs without wild cards and with aces low"."""
    import rummy_env.moves as moves

    sets_runs = re.search(r"(\d+) sets \+ (\d+) runs", " ".join(moves.__doc__.split()))
    assert sets_runs, "moves.py no longer states the catalogue size"
    env = rummy_env.raw_env("basic", num_players=2)
    melds = [
        env.decode(a).cards
        for a in range(env.action_space("player_0").n)
        if isinstance(env.decode(a), Meld)
    ]
    sets = [c for c in melds if len({x[0] for x in c}) == 1]
    assert (len(sets), len(melds) - len(sets)) == tuple(map(int, sets_runs.groups()))


@pytest.mark.parametrize(
    "kw",
    CODEC_CONFIGS
    + [dict(num_players=6), dict(num_players=4, jokers=2), dict(num_players=3, wild_deuces=True)],
    ids=config_id,
)
def test_observation_slices_follow_docs_table(kw):
    """observation.py's table, sizes evaluated with its symbols, is the layout."""
    rules = rummy_env.make_rules("basic", **kw)
    symbols = {
        "P": rules.num_players,
        "F": 53,
        "D": 0 if rules.scoring == "rummikub" else rules.num_cards,
        "M": rules.num_cards // 3,
        "W": 4 if rules.wild_deuces else 0,
        "I": 1 if rules.scoring == "indian" else 0,
        "C": 1 if rules.contract else 0,
        "R": 1 if rules.scoring == "rummikub" else 0,
    }
    documented = [
        (name, eval(size.replace("x", "*"), {}, dict(symbols)))  # noqa: S307
        for name, size in obs_doc_table()
    ]
    layout = ObsLayout(rules)
    assert documented == [(name, sl.stop - sl.start) for name, sl in layout.slices.items()]
    assert layout.size == sum(n for _, n in documented)


def _doc_sum(text: str, pattern: str) -> tuple[int, int]:
    """(value of the sum written before '=', the number after it)."""
    hit = re.search(pattern, " ".join(text.split()))
    assert hit, f"the docs no longer match {pattern!r}"
    return eval(hit.group("expr")), int(hit.group("n"))  # noqa: S307


def test_moves_docs_example_count():
    import rummy_env.moves as moves

    expr, n = _doc_sum(
        moves.__doc__,
        r"basic with one deck, no jokers and aces low: "
        r"(?P<expr>[\d+* ]+?) = (?P<n>\d+) actions",
    )
    assert expr == n == rummy_env.raw_env("basic").action_space("player_0").n


def test_observation_docs_example_size():
    expr, n = _doc_sum(
        observation.__doc__,
        r"basic, 2 players, one deck without jokers: "
        r"(?P<expr>[\d+* ]+?) = (?P<n>\d+)",
    )
    size = rummy_env.raw_env("basic").observation_space("player_0")["observation"].shape[0]
    assert expr == n == size


README = Path(rummy_env.__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize(
    "source, pattern, what",
    [
        ("env.py", r"Action Shape\s*\|[^|\n]*basic 2p: (\d+)", "actions"),
        ("env.py", r"Observation Shape\s*\|[^|\n]*basic 2p: (\d+)", "obs"),
        ("README.md", r"\| `basic` \|[^\n]*\| (\d+) \| \d+ \|\n", "actions"),
        ("README.md", r"\| `basic` \|[^\n]*\| \d+ \| (\d+) \|\n", "obs"),
    ],
)
def test_docs_state_the_sizes(source, pattern, what):
    if source == "README.md":
        if not README.exists():
            pytest.skip("no README next to the package (installed from a wheel)")
        text = README.read_text(encoding="utf-8")
    else:
        text = importlib.import_module("rummy_env.env").__doc__  # (rummy_env.env is the function)
    hit = re.search(pattern, text)
    assert hit, f"{source} no longer matches {pattern!r}"
    env = rummy_env.raw_env("basic", num_players=2)
    code = (
        env.action_space("player_0").n
        if what == "actions"
        else env.observation_space("player_0")["observation"].shape[0]
    )
    assert int(hit.group(1)) == code


# --------------------------------------------------------- observation decode
def check_decoded(env, agent: str) -> None:
    """decode(observe(agent)) gives back that player's view of ``state.to_dict()``."""
    d = env.unwrapped.state.to_dict()
    p = env.unwrapped.agent_name_mapping[agent]
    n = env.unwrapped.rules.num_players
    view = observation.decode(env.observe(agent)["observation"], env.unwrapped.rules)
    assert view["hand"] == d["hands"][p]
    assert view["known"] == [d["known"][(p + o) % n] for o in range(1, n)]
    assert view["discard"] == d["discard"]
    assert view["table"] == [
        {"owner": (m["owner"] - p) % n, "kind": m["kind"], "cards": m["cards"]} for m in d["table"]
    ]
    assert view["hand_sizes"] == [len(d["hands"][(p + o) % n]) for o in range(n)]
    assert view["stock_size"] == len(d["stock"])
    assert view["phase"] == d["phase"]
    assert view["to_act"] == (d["current_player"] - p) % n
    assert view["forbidden"] == d["forbidden"]
    assert view["played"] == [d["played"][(p + o) % n] for o in range(n)]
    assert view["active"] == [d["active"][(p + o) % n] for o in range(n)]
    assert view["totals"] == [d["totals"][(p + o) % n] for o in range(n)]
    assert view["dealer"] == (d["dealer"] - p) % n
    assert view["rebuilds"] == d["rebuilds"]


@pytest.mark.parametrize(
    "kw",
    [
        dict(num_players=2),
        dict(num_players=3, jokers=2, ace="low_or_high"),
        dict(num_players=5, jokers=2),
        dict(num_players=4, ace="low_or_high", scoring="winner_takes_all", match=True, target=60),
        dict(num_players=3, wild_deuces=True, jokers=1),
    ],
    ids=config_id,
)
def test_observation_decodes_to_the_state(kw):
    env = rummy_env.raw_env("basic", **kw)
    seen_table = seen_jokers = seen_known = seen_twos = 0
    for seed in range(3):
        env.reset(seed=seed)
        rng = random.Random(seed)
        for i, agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if i % 3 == 0:
                viewers = env.agents if i % 9 == 0 else [agent]
                for viewer in viewers:
                    check_decoded(env, viewer)
                d = env.unwrapped.state.to_dict()
                seen_table += bool(d["table"])
                seen_jokers += any("JK" in m["cards"] for m in d["table"])
                seen_twos += any(c[0] == "2" for m in d["table"] for c in m["cards"]) and bool(
                    kw.get("wild_deuces")
                )
                seen_known += any(d["known"])
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(legal.size)]))
        check_decoded(env, "player_0")  # game over
    assert seen_table and seen_known
    assert seen_jokers or not kw.get("jokers")
    assert seen_twos or not kw.get("wild_deuces")


def test_observation_decodes_a_full_run_with_the_ace_high():
    """``table: [0] player_0 run: 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS``."""
    env = rummy_env.raw_env("basic", num_players=2, ace="low_or_high")
    env.reset(seed=3)
    d = env.unwrapped.state.to_dict()
    run = [r + "S" for r in "23456789TJQKA"]
    for c in run:
        for place in d["hands"] + [d["stock"], d["discard"]]:
            if c in place:
                place.remove(c)
                break
    for h in d["hands"]:
        while len(h) < 10:
            h.append(d["stock"].pop())
    d["table"] = [{"owner": 0, "kind": "run", "cards": run}]
    d["known"] = [[], []]
    env.reset(options={"state": d})
    assert env.unwrapped.state.to_dict()["table"][0]["cards"] == run
    check_decoded(env, "player_0")


def test_decode_rejects_wrong_shape():
    rules = rummy_env.make_rules("basic", 2)
    with pytest.raises(ValueError):
        observation.decode(np.zeros(10, dtype=np.float32), rules)


# ------------------------------------------------------------- save/restore
SAVE_POINTS = {
    "start": lambda d: True,
    "play-phase": lambda d: d["phase"] == "play" and d["step_count"] > 20,
    "after-taking-the-discard": lambda d: d["forbidden"] is not None and d["step_count"] > 10,
    "melds-on-table": lambda d: len(d["table"]) >= 2 and d["phase"] == "play",
    "stock-rebuilt": lambda d: d["rebuilds"] >= 1,
}
SAVE_CONFIGS = [
    dict(num_players=2),
    dict(num_players=4, jokers=2, ace="low_or_high", scoring="winner_takes_all"),
    dict(num_players=3, match=True, penalty_limit=40),
]


def _trace_rest(env, rng: random.Random, actions: list | None = None) -> tuple[list, list]:
    """Play to the end (random masked actions, or ``actions``); per step the agent,
    action, state, legal ids and rewards after it."""
    trace, taken = [], []
    for i, agent in enumerate(env.agent_iter()):
        _, _, term, trunc, _ = env.last()
        if actions is not None:
            a = actions[i]
        elif term or trunc:
            a = None
        else:
            a = rng.choice(env.legal_actions())
        legal = None if term or trunc else env.legal_actions()
        env.step(a)
        taken.append(a)
        trace.append((agent, legal, env.unwrapped.state.to_dict(), dict(env.rewards)))
    return trace, taken


@pytest.mark.parametrize("point", SAVE_POINTS)
@pytest.mark.parametrize("kw", SAVE_CONFIGS, ids=config_id)
def test_save_restore_continues_identically(kw, point):
    env = find_state(kw, SAVE_POINTS[point])
    saved = json.loads(json.dumps(env.unwrapped.state.to_dict()))  # JSON-able
    for key in (
        "hands",
        "stock",
        "discard",
        "table",
        "current_player",
        "phase",
        "round_scores",
        "totals",
    ):
        assert key in saved
    want, actions = _trace_rest(env, random.Random(7))

    restored = rummy_env.raw_env("basic", **kw)
    restored.reset(seed=12345, options={"state": saved})
    assert restored.unwrapped.state.to_dict() == saved
    assert restored.agent_selection == f"player_{saved['current_player']}"
    got, _ = _trace_rest(restored, random.Random(7), actions)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"step {k} after restoring differs"
    assert restored.agents == []


def test_save_restore_in_the_middle_of_a_match_keeps_the_next_deals():
    """Restoring in round 2 of a match: the later rounds are dealt exactly as in
    the original game (the seed travels in the saved state)."""
    kw = dict(num_players=3, match=True, penalty_limit=60)
    env = find_state(kw, lambda d: d["round"] >= 1 and d["phase"] == "play")
    saved = env.unwrapped.state.to_dict()
    want, actions = _trace_rest(env, random.Random(1))
    assert want[-1][2]["round"] >= 2, "the match should go on for another round"
    restored = rummy_env.raw_env("basic", **kw)
    restored.reset(options={"state": saved})
    got, _ = _trace_rest(restored, random.Random(1), actions)
    assert got == want


# --------------------------------------------------------------- rendering
def test_render_ansi_shows_hand_and_melds():
    env = find_state(dict(num_players=3), lambda d: len(d["table"]) >= 2, make=rummy_env.raw_env)
    d = env.unwrapped.state.to_dict()
    ansi = rummy_env.raw_env("basic", num_players=3, render_mode="ansi")
    ansi.reset(options={"state": d})
    text = ansi.render()
    assert isinstance(text, str)
    cur = d["current_player"]
    assert " ".join(d["hands"][cur]) in text
    for m in d["table"]:
        assert " ".join(m["cards"]) in text
    # other hands appear as sizes (plus the cards known to all), not as cards
    for q, hand in enumerate(d["hands"]):
        if q == cur:
            continue
        hidden = [c for c in hand if c not in d["known"][q]]
        lines = [
            ln
            for ln in text.splitlines()
            if f"player_{q}" in ln and " run:" not in ln and " set:" not in ln
        ]
        assert lines
        for ln in lines:
            assert not any(re.search(rf"\b{c}\b", ln) for c in hidden), ln


def test_render_modes():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None
    wrapped = rummy_env.env("basic", num_players=2, render_mode="ansi")
    wrapped.reset(seed=0)
    hand = " ".join(wrapped.unwrapped.state.to_dict()["hands"][0])
    assert hand in wrapped.render()


def test_render_human_prints(capsys):
    env = rummy_env.raw_env("basic", num_players=2, render_mode="human")
    env.reset(seed=0)
    capsys.readouterr()
    assert env.render() is None
    out = capsys.readouterr().out
    assert " ".join(env.unwrapped.state.to_dict()["hands"][0]) in out


# ------------------------------------------------------------- state.copy()
def test_state_copy_is_independent():
    env = rummy_env.raw_env("basic", num_players=3, jokers=2)
    play_random(env, 9, lambda d: len(d["table"]) >= 1 and d["phase"] == "play")
    s = env.unwrapped.state
    before, legal = s.to_dict(), list(engine.legal_actions(s))
    c = s.copy()
    assert c.to_dict() == before
    rng = random.Random(0)
    while not engine.is_terminal(c):  # play the copy to the end
        engine.apply_action(c, rng.choice(engine.legal_actions(c)))
    assert s.to_dict() == before
    assert engine.legal_actions(s) == legal
    copy_end = c.to_dict()
    while not engine.is_terminal(s):  # and the original, differently
        engine.apply_action(s, engine.legal_actions(s)[0])
    assert c.to_dict() == copy_end


@pytest.mark.parametrize("match", [False, True])
def test_match_winner_only_in_matches(match):
    """Issue 15: info held match_winner after a single round with match=False."""
    env = rummy_env.env("basic", num_players=2, match=match, target=30)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    last_info = {}
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if info.get("round_scores") is not None:
            last_info = info
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert last_info and ("match_winner" in last_info) == match


def test_observing_an_unknown_agent_names_the_agents():
    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"agent 'bob' is not allowed \(allowed: \['player_0', 'player_1'\]\)"
    ):
        env.observe("bob")


@pytest.mark.parametrize("preset", sorted(rummy_env.PRESETS))
def test_legal_moves_are_the_masks_nonzero_entries(preset):
    env = rummy_env.raw_env(preset, num_players=2)
    env.reset(seed=7)
    rng = random.Random(0)
    for _ in range(150):
        if not env.agents or all(env.terminations.values()):
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = rummy_env.legal_moves(mask)
        np.testing.assert_array_equal(legal, np.flatnonzero(mask))
        env.step(int(legal[rng.randrange(len(legal))]))


def test_legal_moves_of_any_mask():
    m = np.zeros(300, np.int8)
    m[[3, 40, 299]] = 1
    m[7], m[8] = 2, -1  # (a mask is 0/1; any non-zero byte counts)
    want = [3, 7, 8, 40, 299]
    for mask in (m, m.astype(np.uint8), m.astype(bool), m.astype(np.float32), list(m)):
        assert rummy_env.legal_moves(mask).tolist() == want
    for view in (m[::2], m[1::3].astype(np.uint8), m.reshape(3, 100), m.reshape(3, 100).T):
        np.testing.assert_array_equal(rummy_env.legal_moves(view), np.flatnonzero(view))
