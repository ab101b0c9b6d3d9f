"""Agents (``agents``) and the determinization helper (``rummy_env.determinize``).

* the registry: names, specs with options, ``variant``, clear errors;
* agents only ever choose moves the mask marks, over thousands of decisions
  in several configurations of every preset (``raw_env`` raises on an illegal
  move, and the tests also check the mask directly);
* ``read_observation`` agrees with ``rummy_env.observation.decode``;
* sampled states re-encode to exactly the observation they came from,
  conserve the pack, keep known cards, agree on the legal moves of the player
  to act, vary the hidden cards, and equal the states ``from_dict`` builds
  from the same random draws.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import agents
import rummy_env
from agents.base import read_observation
from rummy_env import engine
from rummy_env.cards import card_str, deck_faces, parse_card
from rummy_env.determinize import Determinizer, _fill, _fix_table, observed, sample_state
from rummy_env.engine.legal import _legal_play_moves
from rummy_env.observation import ObsLayout, decode, encode

# (preset, players, overrides): every preset, plus the basic house rules
CONFIGS = [
    ("basic", 2, {}),
    ("basic", 2, {"jokers": 2, "ace": "low_or_high", "scoring": "winner_takes_all"}),
    ("basic", 4, {"jokers": 2}),
    ("basic", 3, {"match": True, "penalty_limit": 30}),
    ("basic", 6, {"jokers": 1, "wilds_at_most_naturals": False}),
    ("indian", 4, {}),
    ("indian", 3, {"drop_penalties": (0, 0), "match": True}),
    ("contract", 3, {}),  # buy questions out of turn
    ("contract", 4, {"contract_deal": 7}),  # runs only, no final discard
] + [(p, 2, {}) for p in sorted(rummy_env.PRESETS) if p != "basic"]
#: the games of the common meld catalogue and observation, which the search agent, its
#: rollout shortcuts, determinization and ``read_observation`` cover (not Canasta's)
CARD_CONFIGS = [c for c in CONFIGS if c[0] != "canasta"]


def _ids(cfg):
    preset, n, over = cfg
    return f"{preset}-{n}p" + "".join(f"-{k}={v}" for k, v in over.items())


def play(
    preset: str, players: int, specs: list[str], seed: int, on_decision=None, **overrides
) -> int:
    """One game through ``raw_env`` (which raises on any illegal move); decisions made."""
    env = rummy_env.raw_env(preset, num_players=players, **overrides)
    bots = [agents.make(specs[i % len(specs)], env.rules, i) for i in range(players)]
    for i, b in enumerate(bots):
        b.reset(seed=seed * 31 + i)
    env.reset(seed=seed)
    n = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        if on_decision is not None:
            on_decision(env, seat, obs)
        a = bots[seat].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1, (
            f"{specs[seat % len(specs)]} chose illegal {env.unwrapped.decode(a)}"
        )
        env.step(a)
        n += 1
    return n


# ------------------------------------------------------------------ registry
def test_registry_names_and_errors():
    rules = rummy_env.make_rules("basic")
    names = agents.available()
    for n in ("random", "greedy", "basic-expert", "search", "variant"):
        assert n in names
    assert type(agents.make("variant", rules)).__name__ == "BasicExpertAgent"
    assert agents.resolve("variant", rules) == agents.VARIANT_AGENTS["basic"]
    with pytest.raises(ValueError, match=r"unknown agent 'nope' \(allowed: .*greedy.*random"):
        agents.make("nope", rules)
    with pytest.raises(ValueError, match="simulations"):
        agents.make("search", rules, bogus=1)
    with pytest.raises(ValueError, match="seat"):
        agents.make("greedy", rules, seat=2)
    bot = agents.make("search:simulations=3:candidates=2", rules, 1)
    assert (bot.simulations, bot.n_candidates, bot.seat) == (3, 2, 1)
    assert agents.parse_spec("search:5", rules) == ("search", {"simulations": 5})
    assert isinstance(bot, agents.Policy)
    for preset in rummy_env.PRESETS:
        r = rummy_env.make_rules(preset)
        if preset in agents.VARIANT_AGENTS:
            assert agents.resolve("variant", r) == agents.VARIANT_AGENTS[preset]
        else:
            with pytest.raises(ValueError, match="no variant agent"):
                agents.resolve("variant", r)


# ------------------------------------------------------------------ legality
@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_agents_choose_only_legal_moves(cfg):
    preset, players, over = cfg
    decisions = 0
    seed = 0
    expert = "variant" if preset == "canasta" else "basic-expert"  # (its own observation)
    lineups = [["random", "greedy"], [expert, "random", "greedy"]]
    while decisions < 1500 and seed < 150:  # (random drops out of Indian rummy early)
        decisions += play(preset, players, lineups[seed % 2], seed, **over)
        seed += 1
    assert decisions >= 1000


# Indian rummy's search rollouts run long (greedy hands near a show keep the declaration
# check busy): its rounds are cut to 30 turns here
_SEARCH_CONFIGS = [CONFIGS[0], CONFIGS[2]] + [
    (p, n, {**o, "max_turns": 30} if p == "indian" else o) for p, n, o in CARD_CONFIGS[5:]
]


def test_search_and_determinization_refuse_canasta_by_name():
    rules = rummy_env.make_rules("canasta", 4)
    with pytest.raises(ValueError, match="search does not play 'canasta'"):
        agents.make("search", rules)
    env = rummy_env.raw_env("canasta", num_players=4)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    with pytest.raises(ValueError, match="not 'canasta'"):
        observed(obs, rules, 0)


@pytest.mark.parametrize("cfg", _SEARCH_CONFIGS, ids=_ids)
def test_search_agent_chooses_only_legal_moves(cfg):
    preset, players, over = cfg
    n = play(preset, players, ["search:simulations=2:candidates=2", "greedy"], 0, **over)
    assert n > 0


@pytest.mark.parametrize("cfg", CARD_CONFIGS, ids=_ids)
def test_rollout_shortcuts_agree_with_legal_actions(cfg):
    """The engine shortcuts of the search rollouts, over random play: when
    ``discard_only`` answers, the legal actions are exactly those discards, and
    ``_legal_play_moves(first_meld=True)`` is the whole legal list or, when that
    starts with a meld, just that meld."""
    preset, players, over = cfg
    rules = rummy_env.make_rules(preset, players, **over)
    rng = random.Random(3)
    answered = cut = 0  # the states each shortcut decides
    for seed in range(4):
        s = engine.new_game(rules, seed)
        for _ in range(300):
            if engine.is_terminal(s):
                break
            legal = list(engine.legal_actions(s))
            if s.phase == engine.Phase.PLAY and rules.meld_during_play:
                faces = engine.discard_only(s)
                if faces is not None:
                    answered += 1
                    assert [s.layout.DISCARD + f for f in faces] == legal
                head = _legal_play_moves(s, first_meld=True)
                if head != legal:
                    cut += 1
                    assert head == legal[:1] and legal[0] < s.layout.LAYOFF
            engine.apply_action(s, rng.choice(legal))
    assert not rules.meld_during_play or answered + cut > 10


def test_agents_are_deterministic_given_seed():
    rules = rummy_env.make_rules("basic")
    env = rummy_env.raw_env("basic")
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    for spec in ("random", "greedy", "basic-expert", "search:simulations=3"):
        a, b = agents.make(spec, rules, 0), agents.make(spec, rules, 0)
        a.reset(1)
        b.reset(1)
        assert a.act(obs["observation"], obs["action_mask"]) == b.act(obs)  # dict form works too
        p = a.action_probs(obs["observation"], obs["action_mask"])
        assert p.shape == obs["action_mask"].shape and abs(p.sum() - 1) < 1e-9
        assert np.all(p[obs["action_mask"] == 0] == 0)


# ------------------------------------------------------------------ reading
@pytest.mark.parametrize("cfg", CARD_CONFIGS, ids=_ids)
def test_read_observation_matches_decode(cfg):
    preset, players, over = cfg
    rules = rummy_env.make_rules(preset, players, **over)
    checked = 0

    def check(env, seat, obs):
        nonlocal checked
        v = read_observation(obs["observation"], rules)
        d = decode(obs["observation"], rules)
        assert [card_str(f) for f in v.hand_cards] == d["hand"]
        assert [[card_str(f) for f, c in enumerate(k) for _ in range(c)] for k in v.known] == d[
            "known"
        ]
        assert [card_str(f) for f in v.discard] == d["discard"]
        assert [
            {
                "owner": m.owner,
                "kind": "run" if m.is_run else "set",
                "cards": [card_str(f) for f in m.physical()],
            }
            for m in v.table
        ] == d["table"]
        assert (v.hand_sizes, v.stock_size, v.phase.name.lower(), v.to_act) == (
            d["hand_sizes"],
            d["stock_size"],
            d["phase"],
            v.to_act,
        )
        assert v.forbidden == (parse_card(d["forbidden"]) if d["forbidden"] else -1)
        assert (v.played, v.active, v.totals, v.dealer, v.rebuilds) == (
            d["played"],
            d["active"],
            d["totals"],
            d["dealer"],
            d["rebuilds"],
        )
        checked += 1

    for seed in range(2):
        play(preset, players, ["greedy", "basic-expert"], seed, on_decision=check, **over)
    assert checked > 20


# ------------------------------------------------------------------ determinization
def _pack(rules) -> Counter:
    return Counter(deck_faces(rules.decks, rules.jokers))


def _cards_of(s: engine.GameState) -> Counter:
    c = Counter()
    for p in range(s.rules.num_players):
        c.update(s.hand_cards(p))
    c.update(s.stock)
    c.update(s.discard)
    for m in s.table:
        c.update(m.cards)
    for f in range(53):  # Rummikub: the table's tiles and the tiles played this turn
        c[f] += s.tiles[f] + s.played_tiles[f]
    return +c


@pytest.mark.parametrize("cfg", CARD_CONFIGS, ids=_ids)
def test_determinization_never_contradicts_the_observation(cfg):
    preset, players, over = cfg
    rules = rummy_env.make_rules(preset, players, **over)
    L = ObsLayout(rules)
    rng = random.Random(7)
    pack = _pack(rules)
    checked = 0

    def check(env, seat, obs):
        nonlocal checked
        s = env.unwrapped.state
        for q in range(players):  # every seat's view, the player to act and the others
            if not s.active[q]:
                continue
            o = encode(s, q, L)
            mask = obs["action_mask"] if q == seat else None
            before = rng.getstate()
            t = sample_state(
                o,
                rules,
                q,
                rng,
                action_mask=mask,
                turn_played=s.turn_played if q == seat else False,
            )
            # the fast sample is the state the plain path builds, with the same draws
            slow_rng = random.Random()
            slow_rng.setstate(before)
            template, hidden, need = observed(o, rules, q, mask)
            d = _fill(template, hidden, need, slow_rng, s.turn_played if q == seat else False, None)
            # (an opponent mid-way through his opening holds dealt cards, which may not
            # complete it, nor may a Rummikub rack dealt to an opponent who has played tiles
            # this turn hold a commit of them: from_dict refuses such a saved state, the
            # sample skips that check)
            mid_opening = (
                s.phase == engine.Phase.PLAY
                and not s.opened[s.current]
                and any(m.owner == s.current for m in s.table)
            ) or any(s.played_tiles)
            slow = engine.from_dict(d, rules, check=not (mid_opening and q != s.current))
            _fix_table(slow, d)
            assert t.to_dict() == slow.to_dict() and slow_rng.getstate() == rng.getstate()
            assert np.array_equal(encode(t, q, L), o), "sample re-encodes differently"
            assert _cards_of(t) == pack, "cards not conserved"
            for r in range(players):  # opponents keep the cards they are known to hold
                assert all(t.hands[r][f] >= c for f, c in enumerate(t.known[r]))
            if q == seat:
                assert engine.legal_actions(t) == engine.legal_actions(s)
            checked += 1

    play(preset, players, ["greedy", "random"], 1, on_decision=check, **over)
    assert checked > 20


def test_determinization_varies_hidden_cards():
    rules = rummy_env.make_rules("basic", 2)
    s = engine.new_game(rules, seed=3)
    o = encode(s, 0, ObsLayout(rules))
    det = Determinizer(o, rules, 0)
    rng = np.random.default_rng(0)  # numpy generators work as well as random.Random
    samples = [det.sample(rng) for _ in range(20)]
    opp_hands = {tuple(t.hand_cards(1)) for t in samples}
    stocks = {tuple(t.stock) for t in samples}
    assert len(opp_hands) > 15 and len(stocks) > 15
    assert all(t.hand_cards(0) == s.hand_cards(0) for t in samples)
    assert all(t.discard == s.discard for t in samples)
    # the real hidden cards are one of the possibilities: every sample uses exactly them
    hidden = Counter(s.hand_cards(1)) + Counter(s.stock)
    assert all(Counter(t.hand_cards(1)) + Counter(t.stock) == hidden for t in samples)


def test_determinization_rejects_inconsistent_observation():
    rules = rummy_env.make_rules("basic", 2)
    s = engine.new_game(rules, seed=0)
    o = encode(s, 0, ObsLayout(rules)).copy()
    L = ObsLayout(rules)
    o[L.slices["stock_size"].start] += 5  # more cards than the pack holds
    with pytest.raises(ValueError, match="inconsistent"):
        sample_state(o, rules, 0, random.Random(0))


def test_trained_alias_plays_the_shipped_model_of_the_preset():
    """``trained:<preset>`` is the stable name of the strongest shipped model (issue 11)."""
    rules = rummy_env.make_rules("basic", num_players=2)
    for preset, model in agents.TRAINED_MODELS.items():
        assert f"trained:{preset}" in agents.available()
        r = rummy_env.make_rules(preset, num_players=2)
        kind, name = model.split(":")
        assert model in agents.available()  # the model under its own name too
        assert agents.parse_spec(f"trained:{preset}", r) == (kind, {"model": name})
        assert agents.parse_spec("trained", r) == (kind, {"model": name})
        assert agents.make(f"trained:{preset}", r, 1).path.name == f"{name}.npz"
    assert agents.parse_spec("ppo:basic-2p:deterministic=false", rules)[1]["deterministic"] is False
    missing = sorted({"gin", "rummy500", "rummy51", "persian"} - set(agents.TRAINED_MODELS))
    for preset in missing:
        with pytest.raises(ValueError, match="no trained model for preset"):
            agents.make(f"trained:{preset}", rummy_env.make_rules(preset, num_players=2))
    with pytest.raises(ValueError, match="cannot play"):
        agents.make("trained:basic", rummy_env.make_rules("gin", num_players=2))
    with pytest.raises(ValueError, match="trained picks the model"):
        agents.make("trained:basic:model=x", rules)


def test_expert_searches_each_hand_once_for_deadwood_and_arrangement(monkeypatch):
    """basic-expert (and the agents built on it) asked the meld search twice per hand,
    once for the deadwood and once for the arrangement; one search serves both."""
    import agents.basic_rummy as br
    import agents.greedy as gr

    calls = []
    real = br.best_arrangement
    for mod in (br, gr):
        monkeypatch.setattr(mod, "best_arrangement", lambda *a: calls.append(1) or real(*a))
    rules = rummy_env.make_rules("gin", num_players=2)
    bot = agents.make("gin-expert", rules)
    hand = [0] * len(bot.values)
    for f in (0, 1, 2, 16, 29, 42, 7, 8, 33, 51):
        hand[f] += 1
    assert bot.deadwood(hand) == bot.arrangement(hand)[0]
    bot.leftovers(hand)
    bot.deadwood_without(hand, [])
    assert len(calls) == 1


# ------------------------------------------------------------------ every agent kind
def _kind_preset(spec: str) -> str:
    """The preset an agent spec plays here: its model's or its variant's, else basic."""
    inverse = {v: k for k, v in reversed(list(agents.VARIANT_AGENTS.items()))}
    name, _, model = spec.partition(":")
    if name in inverse:
        return inverse[name]
    if name == "gin-simple":
        return "gin"
    if name in ("es", "trained") or (name == "neural" and "/" not in model):
        return model.split("-")[0]
    return "basic"


def _kind_players(spec: str) -> int:
    """The table an agent spec plays here: a shipped model's (``...-4p``), else 2."""
    tail = spec.rpartition("-")[2]
    return int(tail[:-1]) if tail[:-1].isdigit() and tail.endswith("p") else 2


def _rllib_file(tmp_path, preset: str = "basic") -> str:
    """A small random exported RLlib policy of ``preset`` (2 players)."""
    rules = rummy_env.make_rules(preset, 2)
    n_obs, n_act = ObsLayout(rules).size, agents.base.MoveTable.of(rules).num_actions
    rng = np.random.default_rng(0)
    path = tmp_path / "rllib.npz"
    np.savez(
        path,
        meta=np.array(json.dumps({"preset": preset, "num_players": 2, "layers": 2})),
        w0=rng.normal(0, 0.1, (16, n_obs)).astype(np.float32),
        b0=np.zeros(16, np.float32),
        w1=rng.normal(0, 0.1, (n_act, 16)).astype(np.float32),
        b1=np.zeros(n_act, np.float32),
    )
    return f"rllib:{path}"


def _neural_file(tmp_path, preset: str = "basic") -> str:
    """A small random self-play network of ``preset`` (2 players), as rummy-selfplay exports."""
    from agents.neural import Compress

    rules = rummy_env.make_rules(preset, 2)
    n_in, n_act = Compress(rules, 3).size, agents.base.MoveTable.of(rules).num_actions
    rng = np.random.default_rng(0)
    path = tmp_path / "neural.npz"
    meta = {"preset": preset, "num_players": 2, "overrides": [], "pile_rows": 3}
    np.savez(
        path,
        meta=np.array(json.dumps(meta)),
        w0=rng.normal(0, 0.1, (16, n_in)).astype(np.float32),
        b0=np.zeros(16, np.float32),
        w1=rng.normal(0, 0.1, (16, 16)).astype(np.float32),
        b1=np.zeros(16, np.float32),
        w_pi=rng.normal(0, 0.1, (n_act, 16)).astype(np.float32),
        b_pi=np.zeros(n_act, np.float32),
    )
    return f"neural:{path}"


def _every_kind() -> list[str]:
    names = [a for a in agents.available() if a not in ("ppo", "es", "rllib", "neural", "variant")]
    return [("search:simulations=2:candidates=2" if a == "search" else a) for a in names] + [
        "RLLIB",
        "NEURAL",
    ]


@pytest.mark.parametrize("spec", _every_kind())
def test_every_agent_kind_plays_only_legal_moves_and_checks_its_input(spec, tmp_path):
    files = {"RLLIB": _rllib_file, "NEURAL": _neural_file}
    spec = files[spec](tmp_path) if spec in files else spec
    preset, players = _kind_preset(spec), _kind_players(spec)
    over = {"max_turns": 30} if preset == "indian" else {}
    assert play(preset, players, [spec, "random"], 0, **over) > 0  # asserts every move is legal
    env = rummy_env.raw_env(preset, num_players=players)
    env.reset(seed=1)
    obs, *_ = env.last()
    o, m = obs["observation"], obs["action_mask"]
    bot = agents.make(spec, env.rules, env.agent_name_mapping[env.agent_selection])
    n = len(m)
    for bad in (m[:-1], np.append(m, 1), np.ones(n + 40, np.int8)):
        with pytest.raises(ValueError, match=rf"action mask of shape \({len(bad)},\).*{n} actions"):
            bot.act(o, bad)
    with pytest.raises(
        ValueError, match=rf"observation of shape \({len(o) - 1},\).*{len(o)} values"
    ):
        bot.act(o[:-1], m)
    assert m[bot.act(o, m)]


def test_an_agent_that_picks_an_illegal_move_is_stopped():
    class Zero(agents.Agent):
        def act(self, observation, action_mask=None):
            return 0

    env = rummy_env.raw_env("basic", num_players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    mask = obs["action_mask"].copy()
    mask[0] = 0
    mask[1] = 1
    with pytest.raises(ValueError, match="Zero chose action 0, which the mask does not mark legal"):
        Zero(env.rules).act(obs["observation"], mask)


@pytest.mark.parametrize(
    "preset, spec, message",
    [
        (
            "basic",
            "search:simulations=abc",
            "simulations='abc' is not allowed (allowed: an integer",
        ),
        ("basic", "search:candidates=0", "candidates=0 is not allowed"),
        ("basic", "search:time_budget=-1", "time_budget=-1 is not allowed"),
        ("basic", "search:confidence=nan", "confidence=nan is not allowed (allowed: a finite"),
        ("basic", "basic-expert:danger_weight=x", "danger_weight='x' is not allowed"),
        ("gin", "gin-expert:take_margin=inf", "take_margin=inf is not allowed"),
        ("rummy500", "rummy500-expert:max_dig=1.5", "max_dig=1.5 is not allowed"),
        ("basic", "ppo:basic-2p:deterministic=maybe", "allowed: true, false"),
    ],
)
def test_agent_options_of_the_wrong_kind_are_refused_by_name(preset, spec, message):
    with pytest.raises(ValueError) as e:
        agents.make(spec, rummy_env.make_rules(preset, 2))
    assert message in str(e.value)


def test_neural_preset_plays_the_shipped_network_or_says_none_is():
    """``neural:<preset>`` is the preset's shipped network (numpy, no torch): Rummy 500's
    plays whole games from a fresh clone; a preset without one is refused with the list
    of those shipped."""
    from agents.neural import NEURAL_DIR

    rules = rummy_env.make_rules("rummy500", num_players=2)
    bot = agents.make("neural:rummy500", rules, 0)
    assert bot.path == NEURAL_DIR / "rummy500-2p.npz"
    assert bot.meta["preset"] == "rummy500" and bot.meta["num_players"] == 2
    assert agents.make("trained:rummy500", rules, 0).path == bot.path
    for seed in range(3):  # every game played to its end, the network moving in each
        seen: list[int] = []
        moves = play(
            "rummy500", 2, ["neural:rummy500", "greedy"], seed, lambda e, q, o, s=seen: s.append(q)
        )
        assert moves == len(seen) and seen.count(0) > 5 and seen.count(1) > 5
    with pytest.raises(ValueError, match=r"no shipped neural model for 'persian'.*rummy500-2p"):
        agents.make("neural:persian", rummy_env.make_rules("persian", num_players=2))


def test_neural_basic_is_the_shipped_network_and_trained_basic_plays_it():
    """Basic's shipped network (a warm start improved by duplicate PPO; the model card)
    names the network it started from, and ``trained:basic`` plays it."""
    from agents.neural import NEURAL_DIR

    rules = rummy_env.make_rules("basic", num_players=2)
    bot = agents.make("neural:basic", rules, 1)
    assert bot.path == NEURAL_DIR / "basic-2p.npz"
    assert bot.meta["init"] == "experiments/selfplay/basic-2p-teacher/net.npz"
    assert (Path(agents.__file__).parent.parent / bot.meta["init"]).exists()
    assert agents.make("trained:basic", rules, 0).path == bot.path
    seen: list[int] = []
    moves = play("basic", 2, ["variant", "neural:basic"], 0, lambda e, q, o, s=seen: s.append(q))
    assert moves == len(seen) and seen.count(1) > 5


def test_neural_rummy51_is_shipped_in_float16_and_trained_rummy51_plays_it():
    """Rummy 51's network (4,374 actions) ships with float16 weights, half the file; it
    names the network its run started from, and ``trained:rummy51`` plays it."""
    import numpy as np

    from agents.neural import NEURAL_DIR

    rules = rummy_env.make_rules("rummy51", num_players=2)
    bot = agents.make("neural:rummy51", rules, 0)
    assert bot.path == NEURAL_DIR / "rummy51-2p.npz"
    assert np.load(bot.path)["w_pi"].dtype == np.float16 and bot.w[4].dtype == np.float32
    assert bot.path.stat().st_size < 4_000_000
    assert bot.meta["init"].endswith("rummy51-teacher-net.npz")
    assert agents.make("trained:rummy51", rules, 0).path == bot.path
    seen: list[int] = []
    moves = play(
        "rummy51", 2, ["neural:rummy51", "variant"], 1, lambda e, q, o, s=seen: s.append(q)
    )
    assert moves == len(seen) and seen.count(0) > 5


def test_neural_canasta_plays_a_side_of_four_player_canasta():
    """``neural:canasta`` with 4 players is the shipped 4-player network; it plays whole
    games at seats 0 and 2 beside ``canasta-expert`` at 1 and 3; with 2 players none is
    shipped, and saying so names the one there is."""
    from agents.neural import NEURAL_DIR

    rules = rummy_env.make_rules("canasta", num_players=4)
    bot = agents.make("neural:canasta", rules, 0)
    assert bot.path == NEURAL_DIR / "canasta-4p.npz"
    assert bot.meta["preset"] == "canasta" and bot.meta["num_players"] == 4
    for seed in range(2):
        seen: list[int] = []
        moves = play(
            "canasta", 4, ["neural:canasta", "variant"], seed, lambda e, q, o, s=seen: s.append(q)
        )
        assert moves == len(seen) and min(seen.count(q) for q in range(4)) > 5
    with pytest.raises(
        ValueError, match=r"no shipped neural model for 'canasta' with 2.*canasta-4p"
    ):
        agents.make("neural:canasta", rummy_env.make_rules("canasta", num_players=2))
