"""Replays (issue 14): the tournament store keeps every game's moves, and each stored game
replays through the engine to its stored scores."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

# the stores replayed here are written by tournaments, which need the `tournament` extra
pytest.importorskip("tqdm", reason="needs the tournament extra (pip install -e '.[tournament]')")

from experiments import replay as R  # noqa: E402
from experiments import tournament as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _tournament(tmp: Path, preset: str, players: int, agents: str, deals: int, **kw) -> Path:
    db = tmp / f"{preset}.sqlite"
    args = T.Args(
        preset=preset,
        players=players,
        agents=agents,
        deals=deals,
        workers=1,
        db=str(db),
        out=str(tmp / preset),
        quiet=True,
        plots=False,
        **kw,
    )
    T.run(args)
    return db


@pytest.mark.parametrize(
    ("preset", "players", "agents", "extra"),
    [
        ("basic", 3, "random,greedy,basic-expert", {}),
        ("deuces", 2, "random,variant", {}),
        ("rummy500", 2, "greedy,variant", {}),
        ("gin", 2, "gin-simple,variant", {}),
        ("basic", 2, "random,greedy", {"match": True}),
    ],
    ids=["basic-3p", "deuces", "rummy500", "gin", "basic-match"],
)
def test_every_stored_game_replays_to_its_stored_scores(tmp_path, preset, players, agents, extra):
    db = _tournament(tmp_path, preset, players, agents, deals=2, **extra)
    con = T.open_db(db)
    games = R.list_games(con, limit=1000)
    assert games and all(g.moves for g in games)
    for g in games:
        steps = R.replay(g)  # raises ReplayMismatch unless the scores are the stored ones
        assert len(steps) == len(g.moves)
        last = steps[-1].state
        assert last["phase"] == "game_over"
        # each seat made as many moves in the replay as the tournament counted for it
        (stored,) = con.execute(
            "SELECT decisions_per_seat FROM games WHERE rowid = ?", (g.id,)
        ).fetchone()
        assert [sum(s.seat == p for s in steps) for p in range(players)] == json.loads(stored)
    assert R.load_game(con, games[0].id).moves == games[0].moves
    with pytest.raises(KeyError, match="no game 999"):
        R.load_game(con, 999)


def test_a_changed_move_list_is_a_mismatch_not_a_silent_replay(tmp_path):
    db = _tournament(tmp_path, "basic", 2, "random,greedy", deals=1)
    con = T.open_db(db)
    g = R.list_games(con)[0]
    g.moves = g.moves[:-1]
    with pytest.raises(R.ReplayMismatch, match="end before"):
        R.replay(g)
    g = R.list_games(con)[0]
    g.round_scores = [[1, 2]]
    with pytest.raises(R.ReplayMismatch, match="store holds"):
        R.replay(g)


def test_a_store_from_before_move_lists_opens_and_says_it_cannot_replay(tmp_path):
    db = _tournament(tmp_path, "basic", 2, "random,greedy", deals=1)
    con = sqlite3.connect(db)  # rebuild the games table without the moves column
    cols = ", ".join(T._COLUMNS["games"][:-1])
    con.executescript(
        f"CREATE TABLE old AS SELECT {cols} FROM games; DROP TABLE games; "
        "ALTER TABLE old RENAME TO games;"
    )
    con.commit()
    con.close()
    con = T.open_db(db)  # migrates: the column is added, the old games keep no moves
    old = R.list_games(con)
    assert len(old) == 2 and all(g.moves is None for g in old)
    with pytest.raises(ValueError, match="before tournaments kept move lists"):
        R.replay(old[0])
    # and the tournament resumes on it, storing moves for new games
    con.close()
    _tournament(tmp_path, "basic", 2, "random,greedy", deals=2)
    con = T.open_db(db)
    assert [g.moves is None for g in R.list_games(con)] == [True, True, False, False]


def test_replay_cli(tmp_path):
    db = _tournament(tmp_path, "basic", 2, "random,greedy", deals=1)
    run = [sys.executable, "-m", "experiments.replay", "--db", str(db)]
    out = subprocess.run(run + ["--list"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "random vs greedy" in out.stdout
    out = subprocess.run(run + ["--game", "1", "--show"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "player_0 holds" in out.stdout and "(as stored)" in out.stdout
    out = subprocess.run(run + ["--game", "42"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and "no game 42" in out.stderr
    out = subprocess.run(
        [*run[:3], "--db", str(tmp_path / "none.sqlite")], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 2 and "does not exist" in out.stderr


def test_bad_game_ids_and_gif_paths_exit_2_with_one_line(tmp_path, capsys):
    from tests.cli_errors import usage_error

    db = _tournament(tmp_path, "basic", 2, "random,greedy", deals=1)
    err = usage_error(R.main, ["--db", str(db), "--game", str(2**70)], capsys)
    assert "is not a game id" in err
    err = usage_error(
        R.main, ["--db", str(db), "--game", "1", "--gif", "/no/such/dir/g.gif"], capsys
    )
    assert "its folder does not exist" in err


def test_a_replay_writes_a_gif_with_a_frame_per_move(tmp_path):
    from PIL import Image

    db = _tournament(tmp_path, "deuces", 2, "random,greedy", deals=1)
    con = T.open_db(db)
    g = R.list_games(con)[0]
    path = R.write_gif(g, tmp_path / "g.gif", seconds_per_move=0.1)
    with Image.open(path) as im:
        assert im.n_frames == len(g.moves) + 1  # the deal, then one frame per move


def test_a_replay_names_the_rules_its_game_overrides(tmp_path, capsys):
    db = _tournament(tmp_path, "basic", 2, "random,greedy", deals=1, set=("jokers=2",))
    _tournament(tmp_path, "basic", 2, "random,greedy", deals=1)
    con = T.open_db(db)
    titles = [g.title for g in R.list_games(con)]
    assert titles == ["basic (jokers=2)"] * 2 + ["basic"] * 2
    capsys.readouterr()
    R.main(["--db", str(db), "--list"])
    listed = capsys.readouterr().out.splitlines()
    assert [" basic (jokers=2) " in ln for ln in listed] == [True, True, False, False]
    R.main(["--db", str(db), "--game", "1"])
    assert capsys.readouterr().out.startswith("game 1: basic (jokers=2), deal 0, random vs greedy")
