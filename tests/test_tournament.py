"""Tournaments (``experiments.tournament``) and their statistics (``experiments.stats``).

* statistics against small cases worked out by hand;
* seatings of the duplicate format;
* an interrupted tournament (stopped in-process, and a subprocess killed with
  SIGKILL) resumes to exactly the results of an uninterrupted run, with no
  game played twice; a process pool gives the same results as one worker;
* bad command lines exit with status 2 and say what is wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

# the `tournament` extra: a tournament's progress bar, ratings and plots
for _extra in ("tqdm", "openskill", "matplotlib"):
    pytest.importorskip(
        _extra, reason="needs the tournament extra (pip install -e '.[tournament]')"
    )

import rummy_env  # noqa: E402
from experiments import tournament as T  # noqa: E402
from experiments.stats import (  # noqa: E402
    ELO_SCALE,
    GameResult,
    bradley_terry,
    openskill_ratings,
    ratio_ci,
    summarize,
    wilson,
)
from rummy_env.variants import canasta  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ statistics
def test_ratio_ci_is_the_mean_and_its_normal_interval_for_one_value_per_cluster():
    # values 1 2 3 4: mean 2.5, s = sqrt(5/3), se = s/2 = 0.6455
    m, lo, hi = ratio_ci([1, 2, 3, 4], [1, 1, 1, 1])
    assert m == 2.5
    assert hi - m == pytest.approx(1.959964 * math.sqrt(5 / 3) / 2, rel=1e-6)
    assert m - lo == pytest.approx(hi - m)
    assert math.isnan(ratio_ci([3], [1])[1]) and math.isnan(ratio_ci([], [])[0])


def test_ratio_ci_weights_clusters_by_their_rounds():
    # clusters (sum, rounds): (6, 2) (3, 1) (0, 1): mean 9/4; residuals S - m R: 1.5, 0.75, -2.25
    m, lo, hi = ratio_ci([6, 3, 0], [2, 1, 1])
    assert m == 2.25
    var = 3 / 2 * (1.5**2 + 0.75**2 + 2.25**2) / 16
    assert hi - m == pytest.approx(1.959964 * math.sqrt(var), rel=1e-6)


def test_wilson_interval():
    # 8 of 10: the textbook Wilson interval (0.490, 0.943)
    p, lo, hi = wilson(8, 10)
    assert (
        p == 0.8 and lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    )
    p, lo, hi = wilson(0, 20)
    assert p == 0 and lo == 0 and hi == pytest.approx(0.1611, abs=1e-4)


def test_bradley_terry_two_players():
    # A beat B 3 times out of 4: strengths 3:1, gap 400 log10(3) = 190.85 Elo;
    # Fisher information of the gap = n p (1 - p) = 4 * 3/4 * 1/4 = 3/4
    elo, se = bradley_terry(np.array([[0, 3], [1, 0]]))
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3), rel=1e-9)
    assert elo.mean() == pytest.approx(1500)
    assert se[0] == pytest.approx(
        ELO_SCALE * math.sqrt(1 / 0.75) / 2, rel=1e-6
    )  # half the gap's se


def test_bradley_terry_three_players_transitive():
    # strengths 4:2:1 give expected wins exactly proportional; the MLE recovers them
    p = np.array([4.0, 2.0, 1.0])
    n = 30
    W = np.array([[0 if i == j else n * p[i] / (p[i] + p[j]) for j in range(3)] for i in range(3)])
    elo, _ = bradley_terry(W)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(2), rel=1e-7)
    assert elo[1] - elo[2] == pytest.approx(400 * math.log10(2), rel=1e-7)
    # a prior keeps an unbeaten player finite
    elo, se = bradley_terry(np.array([[0, 5], [0, 0]]), prior=1.0)
    assert np.all(np.isfinite(elo)) and elo[0] - elo[1] == pytest.approx(
        400 * math.log10(5.5 / 0.5)
    )


def test_openskill_matches_the_model_and_is_order_fixed():
    from openskill.models import PlackettLuce

    m = PlackettLuce()
    a, b = m.rating(), m.rating()
    [[a2], [b2]] = m.rate([[a], [b]], ranks=[0, 1])
    r = openskill_ratings([(("x", "y"), [0, 1])], ["x", "y"])
    assert r["x"] == pytest.approx((a2.mu, a2.sigma)) and r["y"] == pytest.approx((b2.mu, b2.sigma))
    assert r["x"][0] > 25 > r["y"][0]


def test_summarize_hand_computed():
    # two deals, A and B, each deal in both seatings, one round per game
    games = [
        GameResult(0, ("A", "B"), (0, -10), 1, 0),  # A wins by 10
        GameResult(0, ("B", "A"), (-4, 0), 1, 1),  # A wins by 4
        GameResult(1, ("A", "B"), (-6, 0), 1, 1),  # B wins by 6
        GameResult(1, ("B", "A"), (-2, 0), 1, 1),  # A wins by 2
    ]
    s = summarize(games, ["A", "B"], 2)
    # A: deal 0 sums 0 over 2 rounds, deal 1 sums -6 over 2 rounds: mean -1.5 per round
    assert s.score["A"][0] == -1.5 and s.score["B"][0] == (-10 - 4 + 0 - 2) / 4
    assert s.games == {"A": 4, "B": 4} and s.wins == {"A": 3, "B": 1}
    assert s.win["A"] == wilson(3, 4)
    # crosstable per round: deal 0 (10 + 4) / 2 = 7, deal 1 (-6 + 2) / 2 = -2: mean 2.5
    m, lo, hi = s.cross["A", "B"]
    assert m == 2.5 and s.cross["B", "A"][0] == -2.5 and s.cross_games["A", "B"] == 2
    # residuals S - m R: 14 - 5 = 9 and -4 - 5 = -9; var = 2/1 * (81 + 81) / 4**2
    assert hi - m == pytest.approx(1.959964 * math.sqrt(2 * (81 + 81) / 16), rel=1e-6)
    assert s.elo["A"][0] > s.elo["B"][0] and s.openskill["A"][0] > s.openskill["B"][0]


def test_ranks_winner_first_ties_shared():
    g = GameResult(0, ("A", "B", "C", "D"), (12, -5, -5, -2), 1, 0)
    assert g.ranks() == [0, 2, 2, 1]
    assert GameResult(0, ("A", "B"), (0, 0), 1, None).ranks() == [0, 0]


# ------------------------------------------------------------------ seatings
def test_seatings_duplicate_format():
    rules = rummy_env.make_rules("basic", 2)
    specs = T.parse_agents("random,greedy,variant", rules)
    s2 = T.seatings(specs, 2)
    assert len(s2) == 6 and len({tuple(x) for x in s2}) == 6  # every ordered pair
    assert [x.label for x in specs] == ["random", "greedy", "basic-expert"]
    s3 = T.seatings(
        T.parse_agents(
            "random,greedy,basic-expert,search:simulations=2", rummy_env.make_rules("basic", 3)
        ),
        3,
    )
    assert len(s3) == 4 * 3
    two = T.seatings(specs[:2], 4)  # fewer agents than seats: repeated in turn, both rotations
    assert [[a.name for a in x] for x in two] == [
        ["random", "greedy"] * 2,
        ["greedy", "random"] * 2,
    ]
    # partnerships: each pair of agents as the two sides (0 and 2 against 1 and 3), swapped
    canasta = rummy_env.make_rules("canasta", 4)
    three = T.parse_agents("random,greedy,variant", canasta)
    sides = T.seatings(three, 4, canasta.partnerships)
    assert [[a.name for a in x] for x in sides] == [
        ["random", "greedy"] * 2,
        ["greedy", "random"] * 2,
        ["random", "canasta-expert"] * 2,
        ["canasta-expert", "random"] * 2,
        ["greedy", "canasta-expert"] * 2,
        ["canasta-expert", "greedy"] * 2,
    ]


def test_config_key_ignores_later_rule_fields_at_their_default():
    # results stored before a rule field existed stay resumable: the key of rules with the
    # new field at its default is the key of the same rules without it
    basic = rummy_env.make_rules("basic", 2)
    d = dataclasses.asdict(basic)
    later = (
        "joker_natural_first",
        "min_run",
        "wild_deuces",
        "wild_rank",
        "drop_penalties",
        "penalty_cap",
        "set_suits_distinct",
        "max_set",
        "contract_deal",
        "buy_limit",
        "low_card_penalty",
        *canasta.CANASTA_ONLY,
    )
    for field in later:  # the fields added since the first stores, each at its default
        del d[field]
    old = json.dumps(d, sort_keys=True)
    assert T.config_of(basic) == (hashlib.sha1(old.encode()).hexdigest()[:16], old)
    # set away from its default, the field changes the key
    persian = rummy_env.make_rules("persian", 2)
    assert T.config_of(persian) != T.config_of(persian.replace(joker_natural_first=False))
    assert T.config_of(basic) != T.config_of(basic.replace(min_run=4))
    assert T.config_of(basic) != T.config_of(rummy_env.make_rules("deuces", 2))
    assert T.config_of(basic) != T.config_of(basic.replace(set_suits_distinct=False))
    assert T.config_of(basic) != T.config_of(basic.replace(max_set=0))


# ------------------------------------------------------------------ resuming
AGENTS = "random,greedy,basic-expert"


def _args(tmp: Path, name: str, deals: int = 4, workers: int = 1, plots: bool = False) -> T.Args:
    return T.Args(
        agents=AGENTS,
        deals=deals,
        workers=workers,
        db=str(tmp / f"{name}.sqlite"),
        out=str(tmp / name),
        quiet=True,
        plots=plots,
    )


def _rows(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT seed, seating, rewards, winner, round_scores FROM games ORDER BY seed, seating"
    ).fetchall()
    con.close()
    return rows


def test_resume_after_interruption_gives_identical_results(tmp_path, capsys):
    full = T.run(_args(tmp_path, "full"))
    assert T.run(_args(tmp_path, "part"), stop_after=7) is None
    assert len(_rows(tmp_path / "part.sqlite")) == 7
    T.run(_args(tmp_path, "part"), stop_after=5)
    assert len(_rows(tmp_path / "part.sqlite")) == 12
    part = T.run(_args(tmp_path, "part"))
    assert _rows(tmp_path / "part.sqlite") == _rows(tmp_path / "full.sqlite")
    assert len(_rows(tmp_path / "full.sqlite")) == 4 * 6
    for f in ("basic_2p_summary.csv", "basic_2p_crosstable.csv", "basic_2p.md"):
        assert (tmp_path / "part" / f).read_text() == (tmp_path / "full" / f).read_text()
    assert full.score == part.score and full.openskill == part.openskill and full.elo == part.elo
    # rerunning a finished tournament plays nothing and changes nothing
    T.run(_args(tmp_path, "part"))
    assert len(_rows(tmp_path / "part.sqlite")) == 24
    out = capsys.readouterr().out
    assert "| basic-expert |" in out and "Head to head" in out


def test_first_deal_plays_and_counts_the_offset_seeds_only(tmp_path, capsys):
    args = dataclasses.replace(_args(tmp_path, "off", deals=2), first_deal=3)
    off = T.run(args)
    assert sorted({r[0] for r in _rows(tmp_path / "off.sqlite")}) == [3, 4]
    assert off.games == {"random": 8, "greedy": 8, "basic-expert": 8}
    assert "2 duplicate deals (seeds 3-4)" in (tmp_path / "off" / "basic_2p.md").read_text()
    # a run from seed 0 in the same store plays only the seeds missing, and the same games
    T.run(_args(tmp_path, "off", deals=5))
    T.run(_args(tmp_path, "zero", deals=5))
    assert _rows(tmp_path / "off.sqlite") == _rows(tmp_path / "zero.sqlite")
    # the offset run still counts its own two deals, not the five stored
    again = T.run(args)
    assert again.games == off.games and again.score == off.score and again.cross == off.cross
    with pytest.raises(T.UsageError, match="first-deal"):
        T.run(dataclasses.replace(args, first_deal=-1))
    capsys.readouterr()


def test_a_new_agent_version_is_played_again(tmp_path, monkeypatch):
    # games stored under an agent's older behaviour are not reused once its version rises
    from agents.random_agent import RandomAgent

    T.run(_args(tmp_path, "v", deals=2))
    assert len(_rows(tmp_path / "v.sqlite")) == 2 * 6
    monkeypatch.setattr(RandomAgent, "version", 2)
    summary = T.run(_args(tmp_path, "v", deals=2))
    rows = _rows(tmp_path / "v.sqlite")
    assert len(rows) == 2 * 6 + 2 * 4  # the 4 seatings with random, for both deals
    assert sum("random@v2" in seating for _, seating, *_ in rows) == 2 * 4
    # the current games only, under the agents' plain names
    assert summary is not None and summary.games == {"random": 8, "greedy": 8, "basic-expert": 8}


def test_process_pool_matches_one_worker(tmp_path):
    one = T.run(_args(tmp_path, "one", deals=3, workers=1))
    two = T.run(_args(tmp_path, "two", deals=3, workers=2, plots=True))
    assert _rows(tmp_path / "one.sqlite") == _rows(tmp_path / "two.sqlite")
    assert one.score == two.score and one.cross == two.cross
    for f in ("basic_2p_ratings.png", "basic_2p_crosstable.png"):
        assert (tmp_path / "two" / f).stat().st_size > 1000


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "experiments.tournament", *argv]


def test_killed_subprocess_resumes_to_identical_results(tmp_path):
    common = [
        "--agents",
        "random,greedy",
        "--deals",
        "30",
        "--workers",
        "1",
        "--quiet",
        "--no-plots",
    ]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(
        _cli(*common, "--db", str(db), "--out", str(tmp_path / "killed")),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 60
        n = 0
        while time.time() < deadline:
            if db.exists():
                try:
                    con = sqlite3.connect(db)
                    n = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                    con.close()
                except sqlite3.OperationalError:
                    n = 0
            if n >= 16 or proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert 0 < n < 60, "the run should be killed part-way"
    subprocess.run(
        _cli(*common, "--db", str(db), "--out", str(tmp_path / "killed")),
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        _cli(*common, "--db", str(tmp_path / "clean.sqlite"), "--out", str(tmp_path / "clean")),
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    assert _rows(db) == _rows(tmp_path / "clean.sqlite") and len(_rows(db)) == 60
    for f in ("basic_2p_summary.csv", "basic_2p_crosstable.csv", "basic_2p.md"):
        assert (tmp_path / "killed" / f).read_text() == (tmp_path / "clean" / f).read_text()


# ------------------------------------------------------------------ CLI errors
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "random,nope"], "unknown agent 'nope'"),
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--players", "9"], "num_players=9 is not allowed"),
        (["--preset", "gin", "--players", "3"], "num_players=3 is not allowed"),
        (["--agents", "random"], "at least two agents"),
        (["--agents", "greedy,greedy"], "same agent twice"),
        (["--agents", "random,search:bogus=1"], "no option"),
        (["--set", "jokers"], "field=value"),
        (["--set", "colour=red"], "unknown rule option"),
        (["--deals", "0"], "--deals"),
        (["--db-timeout", "-5"], "--db-timeout must be 0 or more seconds, got -5"),
        (["--set", "num_players=3"], "num_players is set by --players"),
        (["--set", "name=gin"], "name is set by --preset"),
        (["--set", "jokers=1", "jokers=2"], "'jokers' given twice"),
        (["--set", "jokers=two"], "jokers='two': expected an integer"),
        (["--set", "match=yes"], "match='yes': expected true or false"),
        (["--match", "--set", "match=false"], "--match contradicts --set match=False"),
        (["--first-deal", str(2**63)], "goes past the last seed the store holds"),
        (["--first-deal", str(2**63 - 2), "--deals", "3"], "goes past the last seed"),
        (["--deals", "200000000"], "more than the 2000000 one run plays"),
        (
            ["--agents", "random,greedy,variant", "--deals", "700000"],
            "4200000 games (700000 deals x 6 seatings)",
        ),
        (["--name", "../../x"], "--name '../../x' must be a plain file name"),
        (["--name", "a/b"], "must be a plain file name"),
        (["--name", ".."], "must be a plain file name"),
        (["--agents", "random,es:/no/such.npz"], "model file '/no/such.npz' does not exist"),
        (["--agents", "random,rllib:/no/such.npz"], "'/no/such.npz' does not exist"),
        (["--agents", "random,ppo:/no/such.npz"], "model file '/no/such.npz' does not exist"),
        (["--agents", "random,ppo:basic-2p:deterministic=maybe"], "allowed: true, false"),
    ],
)
def test_bad_cli_exits_2_with_a_message(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        T.main([*argv, "--db", str(tmp_path / "x.sqlite"), "--out", str(tmp_path), "--quiet"])
    assert e.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.sqlite").exists() or not _rows(tmp_path / "x.sqlite")


def test_bad_model_files_exit_2_without_a_traceback(tmp_path):
    """es:/rllib: files that are missing, a FIFO or a .npy: one line and status 2."""
    npy = tmp_path / "a.npz"
    with open(npy, "wb") as fh:
        np.save(fh, np.zeros(3))
    os.mkfifo(tmp_path / "fifo.npz")
    for spec in (
        f"es:{tmp_path / 'none.npz'}",
        f"rllib:{tmp_path / 'none.npz'}",
        f"es:{npy}",
        f"rllib:{npy}",
        f"ppo:{tmp_path / 'fifo.npz'}",
    ):
        r = subprocess.run(
            _cli("--agents", f"random,{spec}", "--db", str(tmp_path / "x.sqlite")),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 2 and "Traceback" not in r.stderr, (spec, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_bad_cli_in_a_subprocess(tmp_path):
    r = subprocess.run(
        _cli("--agents", "random,nope", "--db", str(tmp_path / "x.sqlite")),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "unknown agent 'nope'" in r.stderr
    r = subprocess.run(_cli("--deals", "many"), cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2


def _bad_db_cases(tmp: Path) -> list[tuple[Path, str]]:
    text = tmp / "notes.txt"
    text.write_text("these are not the games you are looking for\n" * 50)
    foreign = tmp / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    con.commit()
    con.close()
    corrupt = tmp / "corrupt.sqlite"
    T.open_db(corrupt).close()
    raw = bytearray(corrupt.read_bytes())
    raw[16:100] = b"\xff" * 84  # a valid header start, then garbage
    corrupt.write_bytes(bytes(raw))
    return [
        (tmp, "is a directory"),
        (text, "is not an SQLite database"),
        (foreign, "holds a table 'games' that is not a tournament's"),
        (corrupt, "--db"),
        (text / "x.sqlite", "cannot create its folder"),
    ]


def _cli_error(capsys, db: Path, out: Path, *extra: str) -> str:
    """Run the CLI on one deal of random against greedy; it must exit 2: its message."""
    argv = ["--agents", "random,greedy", "--deals", "1", "--db", str(db), "--out", str(out)]
    with pytest.raises(SystemExit) as e:
        T.main([*argv, "--quiet", "--no-plots", *extra])
    assert e.value.code == 2, (db, out)
    return capsys.readouterr().err


def test_bad_db_files_exit_2_before_any_game(tmp_path, capsys):
    for db, message in _bad_db_cases(tmp_path):
        assert message in _cli_error(capsys, db, tmp_path / "out"), db
        assert not (tmp_path / "out" / "basic_2p.md").exists()


def test_a_locked_db_is_a_clear_error(tmp_path, capsys):
    db = tmp_path / "t.sqlite"
    T.open_db(db).close()
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        err = _cli_error(capsys, db, tmp_path / "out", "--db-timeout", "0.2")
    finally:
        holder.rollback()
        holder.close()
    assert "locked by another program" in err


def test_bad_out_is_refused_before_any_game(tmp_path, capsys):
    afile = tmp_path / "results.txt"
    afile.write_text("x")
    for out, message in ((afile, "is a file"), (afile / "sub", "is not writable")):
        db = tmp_path / "t.sqlite"
        assert message in _cli_error(capsys, db, out)
        assert not db.exists() or not _rows(db)


def test_outputs_say_where_they_went(tmp_path, capsys):
    T.run(_args(tmp_path, "w", deals=1, plots=True))
    out = capsys.readouterr().out
    wrote = out.split("Wrote: ", 1)[1].strip().split(", ")
    assert {Path(p).name for p in wrote} == {
        "basic_2p.md",
        "basic_2p_summary.csv",
        "basic_2p_crosstable.csv",
        "basic_2p_ratings.png",
        "basic_2p_crosstable.png",
        "w.sqlite",
    }
    assert all(Path(p).exists() for p in wrote)
    assert T.ORDER_RULE in out and "row minus column" in out


def test_a_replaced_model_file_is_played_again(tmp_path, capsys):
    """Games are keyed by the model file's content: new weights at the same path are new games."""
    model = tmp_path / "m.npz"
    shipped = ROOT / "agents" / "trained" / "basic-2p.npz"
    model.write_bytes(shipped.read_bytes())
    model.with_suffix(".json").write_text((shipped.with_suffix(".json")).read_text())
    args = T.Args(
        agents=f"random,ppo:{model}",
        deals=2,
        workers=1,
        db=str(tmp_path / "m.sqlite"),
        out=str(tmp_path / "out"),
        quiet=True,
        plots=False,
    )
    first = T.run(args)
    assert len(_rows(tmp_path / "m.sqlite")) == 4
    assert "sha256:" in capsys.readouterr().out
    with np.load(model, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["b0"] = arrays["b0"] + np.random.default_rng(0).normal(0, 5, arrays["b0"].shape).astype(
        np.float32
    )
    np.savez(model, **arrays)
    second = T.run(args)
    rows = _rows(tmp_path / "m.sqlite")
    assert len(rows) == 8  # both seatings of both deals played again; the old games are kept apart
    assert len({seating for _, seating, *_ in rows}) == 4
    assert second.games == first.games  # the summary counts only the current file's games


@pytest.mark.parametrize("workers", [1, 2])
def test_a_model_replaced_after_it_was_read_is_not_played(tmp_path, monkeypatch, workers):
    """The tournament reads a model file once: the games are those of the bytes it hashed, even
    if the file is replaced before (or while) the games are played."""
    from agents.tuned import read_model, write_model

    values, meta = read_model(ROOT / "agents" / "trained" / "es" / "basic-2p.npz")
    model = tmp_path / "m.npz"

    def args(name: str) -> T.Args:
        return T.Args(
            agents=f"random,es:{model}",
            deals=3,
            workers=workers,
            db=str(tmp_path / f"{name}.sqlite"),
            out=str(tmp_path / name),
            quiet=True,
            plots=False,
        )

    write_model(model, values, meta)
    T.run(args("clean"))
    clean = _rows(tmp_path / "clean.sqlite")
    digest = "sha256:" + hashlib.sha256(model.read_bytes()).hexdigest()[:16]
    assert all(digest in seating for _, seating, *_ in clean)

    play_all = T._play_all

    def replaced_then_played(*a, **k):  # the file changes after it was hashed
        write_model(model, {**values, "take_margin": -50.0}, meta)
        return play_all(*a, **k)

    write_model(model, values, meta)
    monkeypatch.setattr(T, "_play_all", replaced_then_played)
    T.run(args("raced"))
    assert _rows(tmp_path / "raced.sqlite") == clean
    con = sqlite3.connect(tmp_path / "raced.sqlite")
    moves = con.execute("SELECT moves FROM games ORDER BY seed, seating").fetchall()
    con.close()
    con = sqlite3.connect(tmp_path / "clean.sqlite")
    assert moves == con.execute("SELECT moves FROM games ORDER BY seed, seating").fetchall()
    con.close()


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_workers_exit_when_the_parent_is_killed(tmp_path):
    proc = subprocess.Popen(
        _cli(
            "--agents",
            "greedy,basic-expert",
            "--deals",
            "2000",
            "--workers",
            "2",
            "--quiet",
            "--db",
            str(tmp_path / "o.sqlite"),
            "--out",
            str(tmp_path / "o"),
        ),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 60
        workers: list[int] = []
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.2)
            # spawn: the pool's workers (and its resource tracker) are the parent's children
            workers = [
                c
                for c in _children(proc.pid)
                if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()
                and b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()
            ]
        assert len(workers) >= 2, "the pool did not start"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 15
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), "workers outlived their parent"
    finally:
        if proc.poll() is None:
            proc.kill()


# ------------------------------------------------------------------ plots
_LONG = "ppo:model=runs/basic-2p__basic-2p__1__1796004042/final_model.zip"


def _fake_summary(strength: dict[str, float]) -> T.Summary:
    """A two-player summary in which agent a beats b by strength[a] - strength[b] a round."""
    s = T.Summary(list(strength))
    for n, v in strength.items():
        s.games[n] = s.rounds[n] = 100
        s.wins[n] = 50
        s.score[n], s.win[n] = (v, v - 1, v + 1), (0.5, 0.4, 0.6)
        s.openskill[n], s.elo[n] = (25 + v / 4, 0.8), (1500 + 10 * v, 20.0)
    for a in strength:
        for b in strength:
            if a != b:
                d = strength[a] - strength[b]
                s.cross[a, b], s.cross_games[a, b] = (d, d - 0.5, d + 0.5), 100
    return s


def test_colour_limit_is_set_by_the_pairs_without_the_outlier():
    s = _fake_summary({"greedy": 0.0, "random": -40.0, "basic-expert": 1.7, "search": 2.2})
    names = list(s.names)
    M = np.array([[s.cross.get((a, b), (np.nan,))[0] for b in names] for a in names])
    lim, outliers = T._colour_limit(M)
    assert lim == pytest.approx(2.2) and outliers == [names.index("random")]
    # no outlier: the largest difference; two agents: nothing to set aside
    close = np.array([[np.nan, 1.0, 3.0], [-1.0, np.nan, 2.0], [-3.0, -2.0, np.nan]])
    assert T._colour_limit(close) == (3.0, [])
    assert T._colour_limit(np.array([[np.nan, 40.0], [-40.0, np.nan]])) == (40.0, [])
    assert T._colour_limit(np.full((2, 2), np.nan)) == (1.0, [])


def test_plots_with_long_names_and_an_outlier(tmp_path, monkeypatch):
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    s = _fake_summary(
        {
            "random": -40.0,
            "greedy": 0.0,
            "basic-expert": 1.7,
            "search:simulations=48": 2.2,
            _LONG: 1.0,
            _LONG.replace("__1__", "__2__"): 0.6,
        }
    )
    colour_range, texts = [], {}
    imshow, savefig = Axes.imshow, Figure.savefig

    def spy_imshow(self, *a, **kw):
        colour_range.append((kw["vmin"], kw["vmax"]))
        return imshow(self, *a, **kw)

    def spy_savefig(self, path, *a, **kw):
        texts[Path(path).name] = [t.get_text() for t in self.findobj(Text)]
        return savefig(self, path, *a, **kw)

    monkeypatch.setattr(Axes, "imshow", spy_imshow)
    monkeypatch.setattr(Figure, "savefig", spy_savefig)
    T._plots(s, T.summary_rows(s), tmp_path, "a_long_tournament_name")
    assert {p.name for p in tmp_path.iterdir()} == {
        "a_long_tournament_name_ratings.png",
        "a_long_tournament_name_crosstable.png",
    }
    assert colour_range == [
        (pytest.approx(-2.2), pytest.approx(2.2))
    ]  # not +-42.2: random is set aside
    cross = texts["a_long_tournament_name_crosstable.png"]
    assert "42.2" in cross and "-40.0" in cross  # the true numbers, in the clipped cells too
    for name, found in texts.items():
        joined = "\n".join(found).replace("\n    ", "")  # footnotes wrap long paths
        assert _LONG in joined and _LONG.replace("__1__", "__2__") in joined, name  # the footnote
        assert "ppo [1]" in found and "ppo [2]" in found, name  # short tick labels
        assert not any(
            t.startswith("ppo:") for t in found if "\n" not in t and len(t) > T._LABEL_MAX
        )


def test_plots_leave_the_callers_matplotlib_backend_alone(tmp_path):
    """A notebook that runs a tournament keeps showing its own figures inline."""
    import matplotlib

    before = matplotlib.get_backend()
    matplotlib.use("pdf")
    try:
        s = _fake_summary({"random": -40.0, "greedy": 0.0})
        T._plots(s, T.summary_rows(s), tmp_path, "t")
        assert matplotlib.get_backend() == "pdf"
    finally:
        matplotlib.use(before)


# ------------------------------------------------------------------ what the outputs say
def _table(text: str) -> list[list[str]]:
    """The cells of the report's ranked table (the first Markdown table)."""
    rows = []
    for line in text.split("| rank |", 1)[1].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_agents_rank_by_mean_score_with_the_ratings_beside_and_the_rule_under_the_table():
    # greedy wins more often (higher Elo and OpenSkill) but loses more points a round
    s = _fake_summary({"greedy": -1.70, "basic-expert": -1.08, "random": -40.0})
    s.elo["greedy"], s.openskill["greedy"] = (1600.0, 20.0), (30.0, 0.8)
    rules = rummy_env.make_rules("basic", 2)
    text = T.report(s, rules, T.Args(), 300, {})
    rows = _table(text)
    assert [r[:3] for r in rows] == [
        ["1", "basic-expert", "-1.08 [-2.08, -0.08]"],
        ["2", "greedy", "-1.70 [-2.70, -0.70]"],
        ["3", "random", "-40.00 [-41.00, -39.00]"],
    ]
    assert rows[1][-1] == "1600 +- 39" and rows[1][-2] == "30.00 +- 1.57"  # ratings beside it
    after = text.split(rows[-1][1], 1)[1].split("Head to head", 1)[0]
    assert T.ORDER_RULE in after  # the order's rule is stated under the table
    assert "Sorted by Elo" not in text


def test_ties_in_mean_score_are_broken_by_the_stated_rule():
    s = _fake_summary({"d": 1.0, "c": 1.0, "b": 1.0, "a": 1.0, "e": 1.0, "none": 0.0})
    s.score["e"] = (1.0, 0.5, 1.5)  # the higher lower end first
    s.win["d"] = (0.6, 0.5, 0.7)  # then the higher win rate
    s.score["none"] = (math.nan, math.nan, math.nan)  # no number: last
    assert [r["agent"] for r in T.summary_rows(s)] == ["e", "d", "a", "b", "c", "none"]
    assert "lower end" in T.ORDER_RULE and "win rate" in T.ORDER_RULE and "name" in T.ORDER_RULE


def test_agents_are_printed_as_the_user_wrote_them(tmp_path, capsys):
    args = dataclasses.replace(_args(tmp_path, "as", deals=1), agents="random,es:basic-2p,variant")
    summary = T.run(args)
    out = capsys.readouterr().out
    assert sorted(summary.names) == ["es:basic-2p", "random", "variant"]
    assert sorted(r[1] for r in _table(out)) == ["es:basic-2p", "random", "variant"]
    assert "| es:basic-2p | - |" in out  # the crosstable too
    # the store keeps the full specs, and the report says which is which
    assert "es:basic-2p = es:model=basic-2p; variant = basic-expert" in out
    seatings = {seating for _, seating, *_ in _rows(tmp_path / "as.sqlite")}
    assert any("es:model=basic-2p" in k and "basic-expert" in k for k in seatings)
    csv_agents = (tmp_path / "as" / "basic_2p_summary.csv").read_text().splitlines()[1:]
    assert sorted(ln.split(",")[0] for ln in csv_agents) == ["es:basic-2p", "random", "variant"]
    # the spec in full names the same agent: its games are not played again
    full = dataclasses.replace(args, agents="random,es:model=basic-2p,basic-expert")
    assert T.run(full).games == {"random": 4, "es:model=basic-2p": 4, "basic-expert": 4}
    assert len(_rows(tmp_path / "as.sqlite")) == 6


def test_result_files_are_named_after_the_configuration(tmp_path, capsys):
    T.run(_args(tmp_path, "cfg", deals=1))
    first = (tmp_path / "cfg" / "basic_2p.md").read_text()
    jokers = dataclasses.replace(_args(tmp_path, "cfg", deals=1), set=("jokers=2",))
    T.run(jokers)
    T.run(dataclasses.replace(jokers, set=("jokers=2", "scoring=winner_takes_all")))
    assert (tmp_path / "cfg" / "basic_2p.md").read_text() == first  # not overwritten
    names = sorted(p.name for p in (tmp_path / "cfg").iterdir())
    assert names == sorted(
        f"{n}{suffix}"
        for n in ("basic_2p", "basic_2p_jokers=2", "basic_2p_jokers=2_scoring=winner_takes_all")
        for suffix in (".md", "_summary.csv", "_crosstable.csv")
    )
    assert '"jokers": 2' in (tmp_path / "cfg" / "basic_2p_jokers=2.md").read_text()
    # an override at the preset's own value is the preset's configuration
    assert T.result_name(rummy_env.make_rules("basic", 2, jokers=0)) == "basic_2p"
    assert T.result_name(rummy_env.make_rules("basic", 3, match=True)) == "basic_3p_match"
    indian = rummy_env.make_rules("indian", 2, drop_penalties=(10, 20))
    assert T.result_name(indian) == "indian_2p_drop_penalties=10-20"
    # one --name for two configurations: refused before any game, unless --force
    named = dataclasses.replace(_args(tmp_path, "cfg", deals=2), name="mine")
    T.run(named)
    games = len(_rows(tmp_path / "cfg.sqlite"))
    other = dataclasses.replace(named, set=("jokers=2",))
    with pytest.raises(T.UsageError, match="another configuration .* --force"):
        T.run(other)
    assert len(_rows(tmp_path / "cfg.sqlite")) == games
    T.run(dataclasses.replace(other, force=True))
    assert '"jokers": 2' in (tmp_path / "cfg" / "mine.md").read_text()
    # the same configuration with other agents or deals writes over its own files
    T.run(dataclasses.replace(other, deals=1, agents="random,greedy"))
    capsys.readouterr()


def test_the_crosstable_csv_counts_deals_and_says_so(tmp_path):
    s = summarize(
        [
            GameResult(0, ("A", "B"), (0, -10), 1, 0),
            GameResult(0, ("B", "A"), (-4, 0), 1, 1),
            GameResult(1, ("A", "B"), (-6, 0), 1, 1),
            GameResult(1, ("B", "A"), (-2, 0), 1, 1),
        ],
        ["A", "B"],
        2,
    )
    T.write_outputs(s, tmp_path, "t", "report", plots=False)
    head, *rows = (tmp_path / "t_crosstable.csv").read_text().splitlines()
    assert head.split(",")[:3] == ["row", "column", "deals"]
    assert [r.split(",")[:3] for r in rows] == [["A", "B", "2"], ["B", "A", "2"]]  # 4 games


def test_a_finished_tournament_says_everything_was_already_played(tmp_path, capsys):
    T.run(_args(tmp_path, "done", deals=2))
    assert "already" not in capsys.readouterr().out
    T.run(_args(tmp_path, "done", deals=2))
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("All 12 games of this tournament (2 deals x 6 seatings) are already in")
    assert str(tmp_path / "done.sqlite") in first and str(tmp_path / "done" / "basic_2p") in first
    assert "| basic-expert |" in out


def test_a_presets_shipped_network_plays_under_neural_preset(tmp_path, capsys):
    """``--agents neural:rummy500`` plays the shipped Rummy 500 network (its games keyed by
    that file's content), as ``agents.make`` does; the tournament looked for a file named
    after the preset and refused the spec."""
    rules = rummy_env.make_rules("rummy500", 2)
    spec = T.parse_agent("neural:rummy500", rules)
    shipped = ROOT / "agents" / "trained" / "neural" / "rummy500-2p.npz"
    assert spec.content == T.parse_agent(f"neural:{shipped}", rules).content != ""
    out = T.run(
        T.Args(
            preset="rummy500",
            agents="neural:rummy500,greedy",
            deals=1,
            workers=1,
            db=str(tmp_path / "n.sqlite"),
            out=str(tmp_path / "out"),
            quiet=True,
            plots=False,
        )
    )
    assert out.games == {"neural:rummy500": 2, "greedy": 2}
