"""rummy-tournament --backend ray (issue 13): the same games as the process pool, one writer,
failures retried or reported by game."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from experiments import ray_backend  # noqa: E402
from experiments import tournament as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENTS = "random,greedy,basic-expert"


def _args(tmp: Path, name: str, backend: str, deals: int = 3, agents: str = AGENTS, **kw) -> T.Args:
    return T.Args(
        agents=agents,
        deals=deals,
        workers=2,
        db=str(tmp / f"{name}.sqlite"),
        out=str(tmp / name),
        quiet=True,
        plots=False,
        backend=backend,
        **kw,
    )


def _rows(db: str) -> list[tuple]:
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT seed, seating, agents, rewards, round_scores, winner, moves FROM games "
        "ORDER BY seed, seating"
    ).fetchall()
    con.close()
    return rows


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    yield
    ray_backend.shutdown()


def test_ray_and_process_backends_store_the_same_games(tmp_path):
    a = T.run(_args(tmp_path, "proc", "process"))
    b = T.run(_args(tmp_path, "ray", "ray"))
    rows = _rows(str(tmp_path / "ray.sqlite"))
    assert rows == _rows(str(tmp_path / "proc.sqlite"))
    assert len(rows) == 3 * 6  # 3 deals x 6 seatings of 3 agents, each once
    assert repr(a) == repr(b)  # the same tables and ratings


def test_model_files_reach_the_ray_workers_as_the_driver_read_them(tmp_path, monkeypatch):
    """The driver reads a model file once and sends its bytes: the workers play them even when
    the file is gone by the time they start."""
    model = tmp_path / "m.npz"
    model.write_bytes((ROOT / "agents" / "trained" / "es" / "basic-2p.npz").read_bytes())
    agents = f"random,es:{model}"
    T.run(_args(tmp_path, "proc", "process", deals=2, agents=agents))
    play_all = T._play_all

    def removed_then_played(*a, **k):
        model.unlink()
        return play_all(*a, **k)

    monkeypatch.setattr(T, "_play_all", removed_then_played)
    T.run(_args(tmp_path, "ray", "ray", deals=2, agents=agents))
    assert _rows(str(tmp_path / "ray.sqlite")) == _rows(str(tmp_path / "proc.sqlite"))


def test_a_failing_batch_is_reported_by_game_and_a_rerun_completes(tmp_path, monkeypatch):
    ray_backend.shutdown()  # the workers must see the injected failure
    monkeypatch.setenv("RUMMY_RAY_FAIL_SEED", "1")
    args = _args(tmp_path, "fail", "ray")
    with pytest.raises(T.GamesNotPlayed, match="deal 1") as err:
        T.run(args)
    assert "rerun" in str(err.value)
    stored = {r[0] for r in _rows(args.db)}
    assert 1 not in stored and stored  # the other deals are stored, deal 1 is not
    ray_backend.shutdown()
    monkeypatch.delenv("RUMMY_RAY_FAIL_SEED")
    T.run(args)  # resumes: only the missing games
    T.run(_args(tmp_path, "ref", "process"))
    assert _rows(args.db) == _rows(str(tmp_path / "ref.sqlite"))


def test_a_killed_worker_is_retried(tmp_path, monkeypatch):
    ray_backend.shutdown()
    monkeypatch.setenv("RUMMY_RAY_KILL_ONCE", str(tmp_path / "killed"))
    args = _args(tmp_path, "kill", "ray")
    T.run(args)  # the first batch's worker dies (os._exit); Ray retries it
    assert (tmp_path / "killed").exists()
    T.run(_args(tmp_path, "ref", "process"))
    assert _rows(args.db) == _rows(str(tmp_path / "ref.sqlite"))
    ray_backend.shutdown()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--backend", "dask"], ["'dask'", "'process'", "'ray'"]),
        (["--ray-address", "auto"], ["--backend ray"]),
    ],
)
def test_backend_errors_exit_2(tmp_path, extra, words):
    out = subprocess.run(
        [sys.executable, "-m", "experiments.tournament", "--agents", "random,greedy"]
        + ["--deals", "1", "--db", str(tmp_path / "x.sqlite"), "--out", str(tmp_path)]
        + extra,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    for w in words:
        assert w in out.stderr


def _group(pgid: int) -> dict[int, str]:
    """pid -> command line of the live processes of process group ``pgid``."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out[int(d.name)] = cmd
    return out


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_a_killed_driver_leaves_no_ray_process_behind(tmp_path):
    """SIGKILL of a ``--backend ray`` driver: its Ray processes (the raylet's agents included,
    ``ray::DashboardAgent`` and ``ray::RuntimeEnvAgent``) are all gone soon after."""
    db = tmp_path / "k.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.tournament", "--agents", "greedy,basic-expert"]
        + ["--deals", "5000", "--workers", "1", "--quiet", "--no-plots", "--backend", "ray"]
        + ["--db", str(db), "--out", str(tmp_path / "out")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: what it leaves is found there
    )
    try:
        deadline = time.time() + 240
        while time.time() < deadline:
            agents = [
                c for c in _group(proc.pid).values() if c.startswith("ray::") and "Agent" in c
            ]
            if len(agents) >= 2 and db.exists() and _rows(str(db)):
                break
            time.sleep(1)
        else:
            pytest.fail("the Ray tournament did not start playing")
        before = _group(proc.pid)
        assert any("DashboardAgent" in c for c in before.values()), before
        proc.kill()
        proc.wait()
        deadline = time.time() + 30
        while time.time() < deadline and _group(proc.pid):
            time.sleep(0.5)
        assert not _group(proc.pid), _group(proc.pid)
    finally:
        if _group(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
