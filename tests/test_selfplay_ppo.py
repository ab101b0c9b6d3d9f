"""The self-play PPO trainer (experiments/selfplay_ppo.py): per-seat advantages, a run
that trains, checkpoints and resumes, refuses checkpoints it did not write, and whose
checkpoints play as agents."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from experiments import selfplay_ppo as sp  # noqa: E402
from rummy_env import PRESETS  # noqa: E402


def _brute(values, actors, rewards, terminated, bootstrap, gamma, lam):
    """GAE per (game, seat) built from explicit trajectories."""
    T, N = values.shape
    P = rewards.shape[2]
    adv = np.zeros((T, N))
    for i in range(N):
        for q in range(P):
            # this seat's decisions, the rewards after each until its next, and game ends
            steps = [t for t in range(T) if actors[t, i] == q]
            for k, t in enumerate(steps):
                nxt = steps[k + 1] if k + 1 < len(steps) else T
                r, ended = 0.0, False
                for u in range(t, nxt):
                    if not ended:
                        r += rewards[u, i, q]
                    ended = ended or terminated[u, i]
                if ended:
                    nv = 0.0
                elif nxt < T:
                    nv = values[nxt, i]
                else:
                    nv = bootstrap[i, q]
                adv[t, i] = r + gamma * nv - values[t, i]
            for k in range(len(steps) - 2, -1, -1):
                t, n = steps[k], steps[k + 1]
                if not terminated[t:n, i].any():
                    adv[t, i] += gamma * lam * adv[n, i]
    return adv


def test_seat_advantages_follow_each_seats_trajectory():
    rng = np.random.default_rng(0)
    T, N, P = 30, 4, 3
    values = rng.normal(size=(T, N)).astype(np.float32)
    actors = rng.integers(0, P, (T, N))
    rewards = np.where(rng.random((T, N, P)) < 0.15, rng.normal(size=(T, N, P)), 0.0)
    terminated = rng.random((T, N)) < 0.08
    boot = rng.normal(size=(N, P))
    got = sp.seat_advantages(values, actors, rewards, terminated, boot, 0.97, 0.9)
    np.testing.assert_allclose(
        got, _brute(values, actors, rewards, terminated, boot, 0.97, 0.9), atol=1e-5
    )


def _cfg(**kw):
    base = dict(
        num_envs=4, num_steps=8, total_steps=64, minibatch_size=16, hidden=16, checkpoint_every=1
    )
    base.update(kw)
    return sp.Config(**base)


def test_a_run_trains_checkpoints_and_resumes(tmp_path):
    out = tmp_path / "run"
    res = sp.train(_cfg(), out)
    assert res["steps"] == 64 and (out / "model.pt").exists()
    assert len(list((out / "checkpoints").glob("step_*.pt"))) == 2
    first = torch.load(out / "model.pt", weights_only=True)
    with (out / "progress.csv").open(
        "a"
    ) as fh:  # a row a run stopped between checkpoints had logged
        fh.write("96,3,999,1,1,0,0,0,0,0\n")
    res = sp.train(_cfg(total_steps=128), out)  # continues from model.pt
    assert (
        res["steps"] == 128
        and json.loads(torch.load(out / "model.pt", weights_only=True)["counters"])["updates"] == 4
    )
    after = torch.load(out / "model.pt", weights_only=True)
    assert any(not torch.equal(first["model"][k], after["model"][k]) for k in first["model"])
    lines = (out / "progress.csv").read_text().splitlines()
    assert lines[0].startswith("steps,") and len(lines) == 5
    assert [r.split(",")[1] for r in lines[1:]] == ["1", "2", "3", "4"] and "999" not in lines[3]
    with pytest.raises(ValueError, match="another game or network"):
        sp.train(_cfg(preset="basic", total_steps=256), out)


def test_foreign_checkpoints_are_refused(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    torch.save({"model": {}, "extra": 1}, out / "model.pt")
    with pytest.raises(ValueError, match="not a checkpoint"):
        sp.train(_cfg(), out)
    (out / "model.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a checkpoint"):
        sp.train(_cfg(), out)


def test_checkpoints_play_as_agents(tmp_path):
    pytest.importorskip("agents")
    out = tmp_path / "run"
    sp.train(_cfg(), out)
    ck = sorted((out / "checkpoints").glob("*.pt"))[-1]
    r = sp.duplicate_margin(ck, "random", deals=2, first_deal=900_000)
    assert (
        np.isfinite(r["margin"])
        and 0.0 <= r["win_rate"] <= 1.0
        and r["lo"] <= r["margin"] <= r["hi"]
    )


@pytest.mark.parametrize(
    "args, error",
    [
        (["--num-envs", "0"], "--num-envs=0 is not allowed"),
        (["--preset", "nosuch"], "nosuch"),
        (["--value-warmup", "-1"], "--value-warmup=-1 is not allowed"),
        (["--init", "/nonexistent/net.npz"], "/nonexistent/net.npz"),
        (["--teacher-updates", "-1"], "--teacher-updates=-1 is not allowed"),
        (["--teacher-updates", "3"], "--teacher-updates needs --teacher"),
        (["--teacher", "nosuch", "--teacher-updates", "3"], "nosuch"),
    ],
)
def test_bad_command_lines_exit_2(args, error, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        sp.main(["train", "--out", str(tmp_path / "run"), *args])
    assert e.value.code == 2 and error in capsys.readouterr().err


def test_a_run_stops_after_max_seconds_with_a_checkpoint(tmp_path):
    out = tmp_path / "run"
    res = sp.train(_cfg(total_steps=10**9, checkpoint_every=10**6), out, max_seconds=0.05)
    assert 32 <= res["steps"] < 10**6 and res["steps"] % 32 == 0  # whole updates, stopped early
    saved = json.loads(torch.load(out / "model.pt", weights_only=True)["counters"])
    assert saved["steps"] == res["steps"]  # the checkpoint written when time ran out


@pytest.mark.parametrize(
    "preset,players,features,face_head,face_context,kind_head",
    [
        ("basic", 2, "", False, False, False),
        ("basic", 2, "melds", False, False, False),
        ("basic", 2, "melds", True, False, False),
        ("basic", 2, "melds", True, True, True),
        ("basic", 2, "melds+table", True, True, True),
        ("canasta", 4, "", False, False, True),  # a team game with its own observation
    ],
)
def test_exported_networks_play_as_in_training(
    tmp_path, preset, players, features, face_head, face_context, kind_head
):
    """neural:<file> (numpy) picks the move the trained torch network picks, with the
    meld features and the face head computed alike."""
    agents = pytest.importorskip("agents")
    import rummy_env

    out = tmp_path / "run"
    cfg = _cfg(
        preset=preset,
        num_players=players,
        features=features,
        face_head=face_head,
        face_context=face_context,
        kind_head=kind_head,
    )
    sp.train(cfg, out)
    ck = sorted((out / "checkpoints").glob("*.pt"))[-1]
    path = sp.export(ck, tmp_path / "net.npz")
    torch_agent, _ = sp.load_agent(ck)
    env = rummy_env.raw_env(preset, players)
    bots = [agents.make(f"neural:{path}", env.rules, q) for q in range(players)]
    env.reset(seed=3)
    moves = 0
    for name in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        q = env.agent_name_mapping[name]
        a = bots[q].act(obs["observation"], obs["action_mask"])
        assert a == torch_agent.act(obs["observation"], obs["action_mask"])
        x = torch.from_numpy(torch_agent.comp(obs["observation"][None]))
        with torch.no_grad():
            every = torch.ones(1, len(obs["action_mask"]), dtype=torch.bool)
            want = torch_agent.net(x, every)[0][0]
        np.testing.assert_allclose(bots[q].logits(obs["observation"]), want.numpy(), atol=1e-5)
        legal = rummy_env.legal_moves(obs["action_mask"])  # act computes only these
        got = bots[q].legal_logits(obs["observation"], legal)
        np.testing.assert_allclose(got, want.numpy()[legal], atol=1e-5)
        env.step(a)
        moves += 1
    assert moves > 10
    with pytest.raises(ValueError, match=f"plays {preset} with {players} players, not gin"):
        agents.make(f"neural:{path}", rummy_env.make_rules("gin", 2))


def test_count_fields_reach_the_network_scaled_in_every_layout():
    """The network's input divides each count field by its layout's scale: Canasta's
    totals (thousands) by 1,000, the shared layout's by 100."""
    import rummy_env
    from agents.neural import Compress
    from rummy_env.observation import ObsLayout

    for preset, players, scale in (("basic", 2, 100.0), ("canasta", 4, 1000.0)):
        rules = rummy_env.make_rules(preset, num_players=players)
        L = ObsLayout(rules)
        comp = Compress(rules, pile_rows=3)
        obs = np.zeros((1, L.size), np.float32)
        obs[0, L.slices["totals"].start] = 3000.0
        x = comp(obs)[0]
        assert x.max() == pytest.approx(3000.0 / scale)


def test_broken_network_files_are_refused(tmp_path):
    agents = pytest.importorskip("agents")
    import rummy_env

    out = tmp_path / "run"
    sp.train(_cfg(), out)
    path = sp.export(sorted((out / "checkpoints").glob("*.pt"))[-1], tmp_path / "net.npz")
    rules = rummy_env.make_rules("gin", 2)
    z = dict(np.load(path))
    z["w1"][0, 0] = np.nan
    np.savez(tmp_path / "nan.npz", **z)
    with pytest.raises(ValueError, match="NaN"):
        agents.make(f"neural:{tmp_path / 'nan.npz'}", rules)
    z = dict(np.load(path))
    z["w1"] = z["w1"][:, :3]
    np.savez(tmp_path / "shape.npz", **z)
    with pytest.raises(ValueError, match="layer 1"):
        agents.make(f"neural:{tmp_path / 'shape.npz'}", rules)
    with pytest.raises(ValueError, match="does not exist"):
        agents.make("neural:no-such-model", rules)


def test_a_run_reports_progress_with_an_eta(tmp_path, capsys):
    sp.train(_cfg(), tmp_path / "run", progress=1e-9)
    lines = capsys.readouterr().err.splitlines()
    assert (
        len(lines) == 2 and lines[-1].startswith("64/64 decisions") and "ETA 00:00:00" in lines[-1]
    )


def test_bench_runs_every_trainer_it_reports():
    pytest.importorskip("sb3_contrib")
    rows = list(sp.bench("basic", 0.2, 1))
    assert [r["trainer"].split(",")[0].split(" on ")[0] for r in rows] == [
        "rummy-selfplay",
        "rummy-selfplay",
        "MaskablePPO",
        "MaskablePPO",
    ]
    assert all(r["steps"] > 0 and r["steps_per_s"] > 0 for r in rows)


def test_league_opponents_play_their_seat_and_are_not_learned_from(tmp_path, monkeypatch):
    agents = pytest.importorskip("agents")
    import rummy_env

    cfg = _cfg(preset="gin", opponents="greedy", opponent_share=1.0)
    venv = rummy_env.vector_env("gin", 6, 2, seed=3)
    comp = sp.Compress(venv.rules, cfg.pile_rows, cfg.features)
    league = sp.League(cfg, venv, comp, tmp_path, seed=0)
    assert (league.seat >= 0).all()  # a share of 1: every game has an opponent
    obs, mask, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    margin = games = 0.0
    for _ in range(60):
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        want = a.copy()
        for i, q in enumerate(info["actor"]):
            if q == league.seat[i]:
                want[i] = agents.make("greedy", venv.rules, int(q)).act(obs[i], mask[i])
        own = league.act(a, obs, comp(obs), mask.astype(bool), info["actor"])
        np.testing.assert_array_equal(a, want)
        np.testing.assert_array_equal(own, info["actor"] != league.seat)
        obs, mask, r, term, info = venv.step(a)
        for i, q in enumerate(league.seat):  # the learner's points less the opponent's
            margin += r[i, 1 - q] - r[i, q]
            games += term[i]
        league.record(r, term)
        league.new_games(term)
    assert games > 0
    assert league.margins() == f"vs greedy {margin / games:+.1f} ({int(games)} games)"

    # in training, the update sees the learner's decisions only
    seen, theirs = [], []
    update, act = sp._update, sp.League.act
    monkeypatch.setattr(
        sp, "_update", lambda c, n, o, *b, **k: seen.append(len(b[2])) or update(c, n, o, *b, **k)
    )
    monkeypatch.setattr(
        sp.League, "act", lambda self, *a: theirs.append((~(own := act(self, *a))).sum()) or own
    )
    sp.train(_cfg(opponents="random", opponent_share=1.0, total_steps=32), tmp_path / "run")
    assert seen == [32 - sum(theirs)] and 0 < sum(theirs) < 32


def test_league_past_selves_come_from_the_runs_later_checkpoints(tmp_path):
    out = tmp_path / "run"
    sp.train(_cfg(total_steps=128), out)  # 4 checkpoints
    cfg = _cfg(opponents="past", opponent_share=0.5, total_steps=160)
    import rummy_env

    venv = rummy_env.vector_env("gin", 4, 2, seed=3)
    league = sp.League(cfg, venv, sp.Compress(venv.rules, 3, ""), out, seed=0)
    drawn = set()
    for _ in range(20):
        league.refresh(None)
        drawn.add(league.past_name)
    names = sorted(p.stem for p in (out / "checkpoints").glob("*.pt"))
    assert drawn == set(names[2:])
    assert sp.train(cfg, out)["steps"] == 160  # and a run against them resumes and trains


@pytest.mark.parametrize(
    "opponents,share,error",
    [
        ("nosuch", 0.5, "nosuch"),
        ("", 0.5, "needs --opponents"),
        ("random", 1.5, "opponent_share=1.5 is not allowed"),
    ],
)
def test_bad_leagues_are_refused_before_training(tmp_path, opponents, share, error):
    with pytest.raises(ValueError, match=error):
        sp.train(_cfg(opponents=opponents, opponent_share=share), tmp_path / "run")
    assert not (tmp_path / "run" / "model.pt").exists()


def test_an_update_with_a_minibatch_of_one_decision_keeps_the_network_finite():
    # with opponents' decisions left out, a rollout's size is any number: here one more
    # than a minibatch, whose last minibatch (one decision) has no advantage spread
    cfg = _cfg(minibatch_size=16, update_epochs=1)
    venv, comp, net = sp._build(cfg)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs, mask, _ = venv.reset(seed=1)
    n = 17
    x = np.repeat(comp(obs)[:1], n, 0)
    m = np.repeat(mask.astype(bool)[:1], n, 0)
    a = np.full(n, np.flatnonzero(m[0])[0])
    adv = np.linspace(-1, 1, n)
    sp._update(cfg, net, opt, True, x, m, a, np.zeros(n, np.float32), adv, adv)
    assert all(torch.isfinite(p).all() for p in net.parameters())


def test_a_recipe_runs_its_phases_in_order_and_resumes(tmp_path, monkeypatch):
    tiny = {"num_envs": 4, "num_steps": 8, "minibatch_size": 16, "hidden": 16}
    phases = (
        {"total_steps": 64, **tiny},
        {"total_steps": 128, "lr": 1e-4, "opponents": "random", "opponent_share": 0.5, **tiny},
    )
    monkeypatch.setitem(sp.RECIPES, "gin", phases)
    out = tmp_path / "run"
    assert sp.run_recipe("gin", out)["steps"] == 128
    cfg = json.loads(torch.load(out / "model.pt", weights_only=True)["config"])
    assert cfg["lr"] == 1e-4 and cfg["opponents"] == "random" and cfg["features"] == "melds"
    rows = (out / "progress.csv").read_text().splitlines()
    assert len(rows) == 1 + 4
    sp.run_recipe("gin", out)  # done: nothing more is trained
    assert (out / "progress.csv").read_text().splitlines() == rows


@pytest.mark.parametrize("preset", sorted(sp.RECIPES))
def test_every_recipes_printed_commands_are_its_phases(preset, monkeypatch, capsys):
    """``recipe --print`` gives train commands that run exactly the recipe's phases (for
    Canasta: 4 players, the plain network, rules the phases' own)."""
    sp.main(["recipe", "--preset", preset, "--out", "runs/x", "--print"])
    lines = capsys.readouterr().out.splitlines()
    got = []
    monkeypatch.setattr(sp, "train", lambda cfg, out, **kw: got.append(cfg) or {})
    for line in lines:
        assert line.startswith("rummy-selfplay train ")
        sp.main(line.split()[1:])
    assert got == sp.recipe_phases(preset) and len(got) == len(sp.RECIPES[preset])
    for cfg in got:  # each phase can build its network and input
        sp._build(dataclasses.replace(cfg, num_envs=2))


def test_export_averages_the_last_checkpoints_weights(tmp_path):
    out = tmp_path / "run"
    sp.train(_cfg(total_steps=96), out)  # 3 checkpoints
    cks = sorted((out / "checkpoints").glob("step_*.pt"))
    one = [np.load(sp.export(c, tmp_path / f"{c.stem}.npz")) for c in cks[1:]]
    avg = np.load(sp.export(cks[2], tmp_path / "avg.npz", average=2))
    for k in ("w0", "b0", "w_pi", "b_pi"):
        np.testing.assert_allclose(avg[k], (one[0][k] + one[1][k]) / 2, atol=1e-6)
    assert json.loads(str(avg["meta"]))["averaged"] == [c.name for c in cks[1:]]
    with pytest.raises(ValueError, match="only 0 checkpoints before it"):
        sp.export(cks[0], tmp_path / "x.npz", average=2)
    with pytest.raises(ValueError, match="numbered checkpoint"):
        sp.export(out / "model.pt", tmp_path / "x.npz", average=2)


def test_a_run_starts_from_an_exported_network_and_warms_its_value_head_first(tmp_path):
    # --init: a new run's policy is the file's; --value-warmup: its first updates change the
    # value head alone; after them the policy learns
    heads = dict(features="melds", face_head=True, face_context=True, kind_head=True)
    first = tmp_path / "first"
    sp.train(_cfg(**heads), first)
    net_file = sp.export(first / "model.pt", tmp_path / "net.npz")
    start = dict(np.load(net_file))
    run = tmp_path / "run"
    sp.train(_cfg(**heads, init=str(net_file), value_warmup=2, total_steps=64), run)
    warm = dict(np.load(sp.export(run / "model.pt", tmp_path / "warm.npz")))
    for k in start:
        if k != "meta":
            np.testing.assert_array_equal(warm[k], start[k], err_msg=k)
    cfg = _cfg(**heads)
    torch.manual_seed(cfg.seed)  # the fresh value head the run started with
    fresh = sp._build(cfg)[2].v.weight.detach()
    trained_first = torch.load(first / "model.pt", weights_only=True)["model"]["v.weight"]
    v1 = torch.load(run / "model.pt", weights_only=True)["model"]["v.weight"]
    assert not torch.equal(v1, fresh)  # the warm-up trained it
    assert not torch.equal(v1, trained_first)  # not the first run's value head
    sp.train(_cfg(**heads, init=str(net_file), value_warmup=2, total_steps=128), run)
    after = dict(np.load(sp.export(run / "model.pt", tmp_path / "after.npz")))
    assert any(not np.array_equal(after[k], start[k]) for k in start if k != "meta")
    # a file of another network is refused, naming what differs
    with pytest.raises(ValueError, match="kind_head=True \\(this run: False\\)"):
        sp.train(
            _cfg(features="melds", face_head=True, face_context=True, init=str(net_file)),
            tmp_path / "other",
        )
    with pytest.raises(ValueError, match="shape"):
        sp.train(_cfg(**heads, hidden=32, init=str(net_file)), tmp_path / "wide")


def test_league_opponents_memos_are_emptied_between_games(tmp_path, monkeypatch):
    # an expert's memos of hands grow without end over the games of a long run (one bot a
    # game and seat: hundreds of bots): each game starts with them emptied when large
    pytest.importorskip("agents")
    import rummy_env

    monkeypatch.setattr(sp, "BOT_MEMO", 50)
    cfg = _cfg(preset="gin", opponents="variant", opponent_share=1.0)
    venv = rummy_env.vector_env("gin", 4, 2, seed=3)
    comp = sp.Compress(venv.rules, cfg.pile_rows, cfg.features)
    league = sp.League(cfg, venv, comp, tmp_path, seed=0)
    obs, mask, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        league.act(a, obs, comp(obs), mask.astype(bool), info["actor"])
        obs, mask, r, term, info = venv.step(a)
        league.new_games(term)
    sizes = lambda bot: [len(v) for k, v in vars(bot).items() if k.endswith("cache")]  # noqa: E731
    assert max(max(sizes(b)) for b in league.bots.bots.values()) > 50  # (they do grow in a game)
    league.new_games(np.ones(4, bool))
    for i in range(4):
        bot = league.bots.bots[(i, int(league.seat[i]), int(league.who[i]))]
        assert max(sizes(bot)) <= 50


def test_knock_explore_lowers_the_knock_logits_once_when_taken_up(tmp_path):
    """Resuming a gin run with knock_explore lowers every knock action's policy bias by
    the value (lr 0: the update moves nothing else), and only once: resuming again with
    the same value leaves it; a game without knocks is refused before any training."""
    from agents.base import KNOCK
    from agents.neural import action_kinds

    out = tmp_path / "run"
    sp.train(_cfg(), out)
    before = torch.load(out / "model.pt", weights_only=True)["model"]
    kinds = action_kinds(sp._build(_cfg())[0].rules)
    knocks = torch.from_numpy(np.flatnonzero(kinds == KNOCK))
    assert len(knocks) == 53  # a knock with each discard, and without one (big gin)
    for total, expect in ((128, 5.0), (192, 5.0)):
        sp.train(_cfg(total_steps=total, lr=0.0, knock_explore=5.0), out)
        after = torch.load(out / "model.pt", weights_only=True)["model"]
        shifted = before["pi.bias"].clone()
        shifted[knocks] -= expect
        torch.testing.assert_close(after["pi.bias"], shifted, rtol=0, atol=1e-6)
        for k in before:
            if k != "pi.bias":
                assert torch.equal(before[k], after[k]), k
    with pytest.raises(ValueError, match="no knock actions"):
        sp.train(_cfg(preset="basic", knock_explore=5.0), tmp_path / "basic")
    assert not (tmp_path / "basic" / "model.pt").exists()


def test_a_resumed_run_trains_at_the_learning_rate_asked_for(tmp_path):
    """The optimizer's saved state holds the learning rate it ran at; resuming with
    another --lr must use the new one (a run's second phase at a lower rate)."""
    out = tmp_path / "run"
    sp.train(_cfg(lr=3e-4), out)
    sp.train(_cfg(total_steps=128, lr=1e-4), out)
    ck = torch.load(out / "model.pt", weights_only=True)
    assert [g["lr"] for g in ck["optimizer"]["param_groups"]] == [1e-4]
    before = ck["model"]
    sp.train(_cfg(total_steps=192, lr=0.0), out)  # a rate of 0 moves nothing
    after = torch.load(out / "model.pt", weights_only=True)["model"]
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_a_team_game_is_evaluated_side_against_side(tmp_path, monkeypatch):
    """With partnerships (Canasta, 4 players) the network plays both seats of one side, the
    opponent both of the other, each side in turn; the margin is side against side."""
    import agents
    from experiments import tournament

    out = tmp_path / "run"
    sp.train(_cfg(preset="canasta", num_players=4, total_steps=32), out)
    ck = sorted((out / "checkpoints").glob("*.pt"))[-1]
    played: list[set[int]] = []
    real_make = agents.make

    def recording_make(name, rules, seat=0):
        bot = real_make(name, rules, seat)
        act = bot.act

        def recorded(obs, mask):
            played[-1].add(seat)
            return act(obs, mask)

        bot.act = recorded
        return bot

    monkeypatch.setattr(sp.agents, "make", recording_make)
    real_play_out = tournament.play_out
    points = []  # each game's points by seat

    def play_out(env, seed, choose):
        played.append(set())
        rounds, moves, decisions = real_play_out(env, seed, choose)
        points.append(np.sum([x["rewards"] for x in rounds], axis=0))
        return rounds, moves, decisions

    monkeypatch.setattr(tournament, "play_out", play_out)
    r = sp.duplicate_margin(ck, "random", deals=2, first_deal=900_000)
    assert played == [{1, 3}, {0, 2}, {1, 3}, {0, 2}]  # the opponent's seats, game by game
    # the network's side first (seats 0, 2, then 1, 3): its points less the other side's
    own = [pts[g % 2] - pts[1 - g % 2] for g, pts in enumerate(points)]
    assert all(pts[0] == pts[2] and pts[1] == pts[3] for pts in points)  # partners alike
    assert r["margin"] == pytest.approx((own[0] + own[1] + own[2] + own[3]) / 2)
    assert r["win_rate"] == np.mean([1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in own])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_trains(tmp_path, preset):
    """A few updates of every preset (Canasta with 4 players: two partnerships) run and
    checkpoint."""
    players = 4 if preset == "canasta" else 2
    res = sp.train(_cfg(preset=preset, num_players=players), tmp_path / "run")
    assert res["steps"] == 64 and (tmp_path / "run" / "model.pt").exists()


def test_with_partnerships_a_league_opponent_holds_a_whole_side(tmp_path):
    """Canasta with 4 players: the opponent plays both seats of its side, never the
    learner's partner, and the margin is side against side."""
    import rummy_env

    cfg = _cfg(preset="canasta", num_players=4, opponents="random", opponent_share=1.0)
    venv = rummy_env.vector_env("canasta", 6, 4, seed=3)
    comp = sp.Compress(venv.rules, cfg.pile_rows, cfg.features)
    league = sp.League(cfg, venv, comp, tmp_path, seed=0)
    obs, mask, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    margin = games = 0.0
    for _ in range(400):
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        own = league.act(a, obs, comp(obs), mask.astype(bool), info["actor"])
        np.testing.assert_array_equal(own, info["actor"] % 2 != league.seat % 2)
        obs, mask, r, term, info = venv.step(a)
        for i, q in enumerate(league.seat):
            margin += r[i, (q + 1) % 4] - r[i, q]  # the next seat is on the other side
            games += term[i]
        league.record(r, term)
        league.new_games(term)
    assert games > 0
    assert league.margins() == f"vs random {margin / games:+.1f} ({int(games)} games)"


def _agreement(path, teacher, deals=6):
    """How often a checkpoint's most probable move is ``teacher``'s, over the network's own
    decisions with a choice in ``deals`` games it plays against itself."""
    import agents
    import rummy_env
    from experiments.tournament import play_out

    bot, cfg = sp.load_agent(path)
    env = rummy_env.raw_env(cfg.preset, num_players=cfg.num_players)
    ref = [agents.make(teacher, env.rules, q) for q in range(cfg.num_players)]
    hits = []

    def choose(seat, obs, mask):
        a = bot.act(obs, mask)
        if int(mask.sum()) > 1:
            hits.append(a == ref[seat].act(obs, mask))
        return a

    for d in range(deals):
        for q, r in enumerate(ref):
            r.reset(seed=q)
        play_out(env, d, choose)
    return float(np.mean(hits))


def test_a_teacher_warm_start_learns_its_moves_then_ppo_goes_on(tmp_path, monkeypatch):
    # --teacher/--teacher-updates: the first updates learn the teacher's moves on the states
    # the network reaches (its argmax agrees with the teacher far more than PPO's after as
    # many updates), a checkpoint marks the warm start's end, and the run goes on with PPO:
    # the teacher is consulted at every decision of its updates and at none after, in the
    # run and resumed past it
    kw = dict(preset="basic", num_envs=16, num_steps=16, minibatch_size=128, hidden=32, lr=3e-3)
    kw.update(checkpoint_every=100, update_epochs=4, seed=1)
    taught, plain = tmp_path / "taught", tmp_path / "plain"
    calls, moves = [], sp.Teacher.moves
    monkeypatch.setattr(sp.Teacher, "moves", lambda self, *a: calls.append(1) or moves(self, *a))
    sp.train(_cfg(**kw, teacher="greedy", teacher_updates=12, total_steps=14 * 256), taught)
    assert len(calls) == 12 * 16  # every step of the 12 updates, none of the 2 after
    # checkpoints: the warm start's end (not a multiple of checkpoint_every) and the run's end
    assert sorted(c.name for c in (taught / "checkpoints").glob("*.pt")) == [
        f"step_{12 * 256:010d}.pt",
        f"step_{14 * 256:010d}.pt",
    ]
    end = taught / "checkpoints" / f"step_{12 * 256:010d}.pt"
    sp.train(_cfg(**kw, total_steps=12 * 256), plain)
    learned, ppo = _agreement(end, "greedy"), _agreement(plain / "model.pt", "greedy")
    assert learned > 0.8 and learned > ppo + 0.2, (learned, ppo)
    meta = json.loads(str(np.load(sp.export(end, tmp_path / "taught.npz"))["meta"]))
    assert meta["teacher"] == "greedy" and meta["teacher_updates"] == 12  # the file says so
    assert "teacher" not in json.loads(
        str(np.load(sp.export(plain / "model.pt", tmp_path / "p.npz"))["meta"])
    )
    sp.train(_cfg(**kw, teacher="greedy", teacher_updates=12, total_steps=16 * 256), taught)
    assert len(calls) == 12 * 16  # resumed past the warm start: no teacher
    counters = json.loads(torch.load(taught / "model.pt", weights_only=True)["counters"])
    assert counters["updates"] == 16


def test_export_in_float16_halves_the_file_and_plays_its_rounded_weights(tmp_path):
    """``--dtype float16`` writes half the bytes; ``neural:`` reads the rounded weights and
    its logits stay within float16's rounding of the float32 file's."""
    agents = pytest.importorskip("agents")
    import rummy_env

    out = tmp_path / "run"
    sp.train(_cfg(), out)
    ck = sorted((out / "checkpoints").glob("*.pt"))[-1]
    full = sp.export(ck, tmp_path / "full.npz")
    half = sp.export(ck, tmp_path / "half.npz", dtype="float16")
    assert half.stat().st_size < 0.6 * full.stat().st_size
    z = np.load(half)
    assert z["w0"].dtype == np.float16 and z["w_pi"].dtype == np.float16
    rules = rummy_env.make_rules("gin", 2)
    a, b = (agents.make(f"neural:{p}", rules) for p in (full, half))
    np.testing.assert_array_equal(b.w[2], z["w1"].astype(np.float32))
    env = rummy_env.raw_env("gin", 2)
    env.reset(seed=5)
    obs = env.last()[0]["observation"]
    np.testing.assert_allclose(b.logits(obs), a.logits(obs), atol=0.05)
    with pytest.raises(ValueError, match="dtype='int8' is not allowed"):
        sp.export(ck, tmp_path / "x.npz", dtype="int8")
    ckd = sp._load(ck)
    ckd["model"]["pi.weight"][0, 0] = 1e6  # beyond float16's 65504
    torch.save(ckd, tmp_path / "big.pt")
    with pytest.raises(ValueError, match="beyond float16's range"):
        sp.export(tmp_path / "big.pt", tmp_path / "x.npz", dtype="float16")
