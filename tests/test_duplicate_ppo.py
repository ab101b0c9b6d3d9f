"""experiments.duplicate_ppo: PPO against a fixed opponent on deals played alike."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
import rummy_env  # noqa: E402
from agents.neural import Compress  # noqa: E402
from experiments import duplicate_ppo as dp  # noqa: E402
from experiments import selfplay_ppo as sp  # noqa: E402


@pytest.fixture(scope="module")
def net_file(tmp_path_factory):
    """A small basic network of rummy-selfplay (two updates of self-play)."""
    d = tmp_path_factory.mktemp("net")
    cfg = sp.Config(
        preset="basic",
        num_envs=4,
        num_steps=8,
        total_steps=64,
        minibatch_size=16,
        hidden=16,
        checkpoint_every=1,
    )
    sp.train(cfg, d / "run")
    return sp.export(d / "run" / "model.pt", d / "net.npz")


def _cfg(net_file, **kw):
    base = dict(
        init=str(net_file),
        opponent="random",
        deals=2,
        repeats=2,
        total_deals=4,
        minibatch_size=64,
        checkpoint_every=1,
    )
    base.update(kw)
    return dp.Config(**base)


def test_a_games_advantage_is_its_margin_less_its_copies_mean():
    m = np.array([1.0, 2.0, 3.0, 6.0, 5.0, 5.0, 5.0, 5.0])
    adv = dp.group_advantages(m, 4)
    np.testing.assert_allclose(adv[:4], [1 - 11 / 3, 2 - 10 / 3, 3 - 3, 6 - 2])
    np.testing.assert_array_equal(adv[4:], 0.0)  # copies that ended alike teach nothing
    np.testing.assert_allclose(adv.reshape(2, 4).sum(1), 0.0, atol=1e-12)


def _setup(net_file, deals, repeats, opponent="random"):
    cfg = _cfg(net_file, deals=deals, repeats=repeats, opponent=opponent)
    ncfg = dp.network_config(cfg)
    G = deals * 2 * repeats
    venv = rummy_env.vector_env("basic", G, 2)
    comp = Compress(venv.rules, ncfg.pile_rows, ncfg.features)
    net = sp._net(ncfg, venv.rules, comp, venv.num_actions)
    sp._init_from(net, ncfg, net_file)
    net_seat = np.repeat(np.tile(np.arange(2), deals), repeats)
    return venv, comp, net, dp.Opponents(opponent, venv.rules, G), net_seat


def _greedy(monkeypatch):
    """The network plays its most probable move instead of sampling its policy."""
    monkeypatch.setattr(sp, "_sample", lambda logp: logp.argmax(1))


def test_copies_of_a_deal_played_alike_end_alike(net_file, monkeypatch):
    # the network playing its most probable move: the copies of a deal and seat (dealt
    # alike, the random opponent seeded alike) are the same game
    venv, comp, net, opp, seat = _setup(net_file, deals=3, repeats=3)
    _greedy(monkeypatch)
    seeds = np.repeat([11, 12, 13], 6)
    x, m, a, lp, game, margin = dp.play(venv, comp, net, opp, seeds, seat)
    groups = margin.reshape(-1, 3)
    np.testing.assert_array_equal(groups, groups[:, :1].repeat(3, 1))
    per_game = np.bincount(game, minlength=len(seeds)).reshape(-1, 3)
    np.testing.assert_array_equal(per_game, per_game[:, :1].repeat(3, 1))
    assert len(set(groups[:, 0].tolist())) > 1  # other deals and seats: other games
    assert np.all(per_game > 0) and x.shape == (len(a), comp.size) and m[np.arange(len(a)), a].all()
    # the network's points less the opponent's: zero-sum over the two seats of a game
    assert np.all(np.abs(margin) > 0)


def test_margins_are_the_games_points_as_raw_env_plays_them(net_file, monkeypatch):
    # the network's most probable moves replayed in raw_env from the same engine seed, the
    # opponent seeded as in the batch: the same margin (own points less the other's)
    from rummy_env import engine

    venv, comp, net, opp, seat = _setup(net_file, deals=2, repeats=2)
    _greedy(monkeypatch)
    seeds = np.repeat([21, 22], 4)
    *_, margin = dp.play(venv, comp, net, opp, seeds, seat)
    me = sp.NetAgent(net, comp)
    for g in range(0, 8, 2):
        env = rummy_env.raw_env(venv.rules)
        env.reset(options={"state": engine.new_game(venv.rules, int(seeds[g])).to_dict()})
        mine = int(seat[g])
        bot = agents.make("random", venv.rules, 1 - mine)
        bot.reset(seed=int(seeds[g]) * 1009 + 1 - mine)
        points = np.zeros(2)
        for name in env.agent_iter():
            o, r, term, trunc, _ = env.last()
            s = int(name.split("_")[1])
            points[s] += r
            if term or trunc:
                env.step(None)
                continue
            act = me if s == mine else bot
            env.step(act.act(o["observation"], o["action_mask"]))
        assert margin[g] == pytest.approx(points[mine] - points[1 - mine])
    # the network as trained samples its policy: copies of a deal part
    monkeypatch.undo()
    venv, comp, net, opp, seat = _setup(net_file, deals=1, repeats=4)
    *_, margin = dp.play(venv, comp, net, opp, np.repeat([5], 8), seat)
    assert np.ptp(margin) > 0


def test_an_update_moves_probability_toward_the_better_copies_moves(net_file):
    venv, comp, net, opp, seat = _setup(net_file, deals=1, repeats=2)
    obs, mask, _ = venv.reset(deals=np.repeat([3], 4))
    x = comp(obs[:1]).repeat(64, 0)
    m = mask[:1].astype(bool).repeat(64, 0)
    legal = np.flatnonzero(m[0])
    good, bad = int(legal[0]), int(legal[1])
    a = np.array([good, bad] * 32)
    with torch.no_grad():
        logp = torch.log_softmax(net(torch.from_numpy(x[:1]), torch.from_numpy(m[:1]))[0], -1)[0]
    lp = logp[torch.from_numpy(a)].numpy()
    adv = np.array([1.0, -1.0] * 32)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    cfg = _cfg(net_file, update_epochs=2, minibatch_size=32)
    dp.update(cfg, net, opt, x, m, a, lp, adv)
    with torch.no_grad():
        after = torch.log_softmax(net(torch.from_numpy(x[:1]), torch.from_numpy(m[:1]))[0], -1)[0]
    assert after[good] - after[bad] > logp[good] - logp[bad] + 0.05


def test_a_run_checkpoints_resumes_and_exports_a_playing_network(net_file, tmp_path):
    out = tmp_path / "run"
    res = dp.train(_cfg(net_file), out)
    assert res["deals"] == 4 and res["updates"] == 2 and res["games"] == 16
    cks = sorted((out / "checkpoints").glob("step_*.pt"))
    assert len(cks) == 3 and cks[0].name == "step_0000000000.pt"  # the start, then each update
    start = sp.export(cks[0], tmp_path / "start.npz")
    np.testing.assert_array_equal(np.load(start)["w_pi"], np.load(net_file)["w_pi"])
    log = out / "progress.csv"
    with log.open("a") as fh:  # a row a run stopped between checkpoints had logged
        fh.write("6,999,3,1,0.0,0.0,0.0,0.0,0.0,0.0\n8,1234,")  # the last cut short
    res = dp.train(_cfg(net_file, total_deals=6), out)  # resumes from model.pt
    assert res["updates"] == 3 and res["deals"] == 6
    rows = [r.split(",") for r in log.read_text().splitlines()[1:]]
    assert [r[2] for r in rows] == ["1", "2", "3"] and rows[2][1] != "999"  # each update once
    ck = torch.load(out / "model.pt", weights_only=True)
    assert json.loads(ck["counters"])["updates"] == 3
    last = sp.export(out / "model.pt", tmp_path / "last.npz")
    assert any(not np.array_equal(np.load(last)[k], np.load(net_file)[k]) for k in ("w_pi", "w0"))
    assert json.loads(str(np.load(last)["meta"]))["init"] == str(net_file)
    bot = agents.make(f"neural:{last}", rummy_env.raw_env("basic", 2).rules, 0)
    env = rummy_env.raw_env("basic", 2)
    env.reset(seed=1)
    o = env.observe(env.agent_selection)
    assert o["action_mask"][bot.act(o["observation"], o["action_mask"])]
    with pytest.raises(ValueError, match="other settings: opponent='random'"):
        dp.train(_cfg(net_file, opponent="greedy", total_deals=8), out)


@pytest.mark.parametrize(
    "args,error",
    [
        (["--repeats", "1"], "repeats=1 is not allowed"),
        (["--opponent", "nobody"], "nobody"),
        (["--init", "missing.npz"], "missing.npz"),
        (["--deals", "0"], "at least 1"),
    ],
)
def test_bad_command_lines_exit_2(net_file, tmp_path, capsys, args, error):
    base = ["--init", str(net_file), "--out", str(tmp_path / "r"), "--total-deals", "2"]
    with pytest.raises(SystemExit) as e:
        dp.main(base + args)
    assert e.value.code == 2
    assert error in capsys.readouterr().err
    # a refused start leaves nothing that would refuse the corrected command
    dp.main(["--init", str(net_file), "--out", str(tmp_path / "r"), "--total-deals", "2"])
    assert (tmp_path / "r" / "model.pt").exists()
