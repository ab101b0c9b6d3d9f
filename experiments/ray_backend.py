"""The tournament's Ray backend: ``rummy-tournament ... --backend ray [--ray-address ADDRESS]``.

The games of a tournament are independent jobs (deal, seating). This backend runs
them as Ray tasks, each a batch of games (``chunk``), on local Ray (no address:
Ray starts on this machine with ``--workers`` CPUs, every core by default) or on
a cluster (``--ray-address auto`` joins the cluster this machine belongs to, or
give the head's ``host:port``). The driver stays the only writer of the SQLite
store: it writes each batch as it arrives, so a killed run resumes with nothing
lost or counted twice (as with ``--backend process``). A task that raises, or
whose worker process dies, is retried (``max_retries``); a batch that still
fails is reported game by game (:class:`GamesFailed`), never dropped silently:
the games it held stay unplayed, and rerunning the command plays them.

Workers import this project (``pip install -e .`` on every node of a cluster)
and build the env and the agents once per process (the process backend's
``_worker_init``), then play whole batches.

Local Ray leaves nothing behind when its driver dies, even by SIGKILL: Ray ties
its GCS server and raylet to the driver, but the agents the raylet starts
(``ray::DashboardAgent``, ``ray::RuntimeEnvAgent``) outlive them. So
:func:`init` starts a reaper beside local Ray (:func:`reap`, a small process
of its own session): it keeps the list of the driver's Ray descendants and,
the moment the driver is gone (its end of a pipe closes), kills those still
running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

_REMOTE: dict[str, Any] = {}
#: the reaper of the local Ray this process started (:func:`reap`)
_REAPER: dict[str, subprocess.Popen] = {}


class GamesFailed(RuntimeError):
    """Batches of games that failed after their retries: ``games`` lists (seed, seating)."""

    def __init__(self, games: list[tuple[int, str]], errors: list[str]):
        self.games = games
        self.errors = errors
        shown = ", ".join(f"deal {s} seating {k}" for s, k in games[:8])
        more = f" and {len(games) - 8} more" if len(games) > 8 else ""
        super().__init__(
            f"{len(games)} game(s) failed on Ray after retries ({shown}{more}); first error: "
            f"{errors[0] if errors else '?'}. The games played are stored; rerun to retry the rest."
        )


def _play_batch(
    preset: str, players: int, overrides: dict[str, Any], tasks: list, models: Any = None
) -> list:
    """Ray task body: play a batch of (seed, seating) in this worker process; ``models``
    (digest -> :class:`agents.model_io.ModelFile`) are the model files the driver read."""
    from experiments import tournament as T

    key = (preset, players, tuple(sorted(overrides.items())), tuple(sorted(models or {})))
    if T._WORKER.get("key") != key:
        T._worker_init(preset, players, overrides, models=models)
        T._WORKER["key"] = key
    marker = os.environ.get("RUMMY_RAY_KILL_ONCE")
    if marker and not os.path.exists(marker):  # a test's way to kill a worker mid-batch, once
        open(marker, "w").close()
        os._exit(1)
    if os.environ.get("RUMMY_RAY_FAIL_SEED") and any(
        str(seed) == os.environ["RUMMY_RAY_FAIL_SEED"] for seed, _ in tasks
    ):  # a test's way to make a batch fail on the worker
        raise RuntimeError(
            f"injected failure (RUMMY_RAY_FAIL_SEED={os.environ['RUMMY_RAY_FAIL_SEED']})"
        )
    return T._play_chunk(tasks)


def init(address: str | None, num_cpus: int | None) -> None:
    """Start local Ray (``address`` None) or join a cluster; a clear error without Ray."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "--backend ray needs Ray: pip install 'rummy-env[distributed]' (or pip install ray)"
        ) from None
    if ray.is_initialized():
        return
    kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address:
        kw["address"] = address
    else:
        kw["num_cpus"] = num_cpus
    # the env of the driver (a test's injected failure) reaches the workers
    env = {k: v for k, v in os.environ.items() if k.startswith("RUMMY_")}
    if env:
        kw["runtime_env"] = {"env_vars": env}
    ray.init(**kw)
    if not address and os.path.isdir("/proc"):
        _start_reaper()


def _start_reaper() -> None:
    _stop_reaper()
    _REAPER["proc"] = subprocess.Popen(
        [sys.executable, "-c", f"from experiments.ray_backend import reap; reap({os.getpid()})"],
        stdin=subprocess.PIPE,
        start_new_session=True,  # a Ctrl-C of the driver's terminal does not stop it first
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )


def _stop_reaper() -> None:
    proc = _REAPER.pop("proc", None)
    if proc is not None:
        proc.stdin.close()  # the reaper kills what is left of this Ray, then exits
        proc.wait(30)


def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, start time, command line) of every process (Linux /proc)."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{d}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if fields[0] != "Z":
            out[int(d)] = (int(fields[1]), fields[19], cmd)
    return out


def _ray_descendants(roots: set[int]) -> dict[int, str]:
    """pid -> start time of the Ray processes below ``roots`` (by command line: Ray's
    binaries and ``ray::`` process titles)."""
    table = _proc_table()
    below: set[int] = set()
    frontier = set(roots)
    while frontier:
        frontier = {p for p, (pp, _, _) in table.items() if pp in frontier} - below
        below |= frontier
    return {
        p: table[p][1]
        for p in below
        if p in table and (table[p][2].startswith("ray::") or "/ray/" in table[p][2])
    }


def reap(driver: int, every: float = 0.5) -> None:
    """The reaper's body (module docs): track ``driver``'s Ray descendants until stdin closes
    (the driver exited or was killed), then SIGKILL those still running."""
    me = os.getpid()
    gone = threading.Event()

    def wait_eof() -> None:
        sys.stdin.buffer.read()
        gone.set()

    threading.Thread(target=wait_eof, daemon=True).start()
    tracked: dict[int, str] = {}
    while True:
        tracked.update(_ray_descendants({driver}))
        if gone.wait(every):
            break
    tracked.update(_ray_descendants(set(tracked)))  # children of the tracked, still attached
    tracked.pop(me, None)
    for _ in range(3):
        table = _proc_table()
        alive = [p for p, start in tracked.items() if p in table and table[p][1] == start]
        if not alive:
            return
        for p in alive:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)


def play_all(
    todo: list[tuple[int, Any]],
    preset: str,
    players: int,
    overrides: dict[str, Any],
    write: Callable[[list[dict[str, Any]]], None],
    progress: Callable[[int], None],
    address: str | None = None,
    workers: int = 0,
    chunk: int = 0,
    max_retries: int = 2,
    models: dict[str, Any] | None = None,
) -> dict[str, float]:
    """Play ``todo`` as Ray tasks, ``write`` each batch's records as it arrives and call
    ``progress(n)``; ``models`` (the model files the agents play, read once by the driver)
    go to every worker once. Returns timings (``init`` seconds to start Ray, ``play`` seconds of
    the rest).

    Raises:
        GamesFailed: batches that failed after ``max_retries`` retries (the rest is written).
    """
    import ray

    t0 = time.perf_counter()
    init(address, workers or None)
    t1 = time.perf_counter()
    remote = _REMOTE.get("play")
    if remote is None:
        remote = _REMOTE["play"] = ray.remote(max_retries=max_retries, retry_exceptions=True)(
            _play_batch
        )
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = chunk or max(1, min(64, len(todo) // (cpus * 4) or 1))
    batches = [todo[i : i + size] for i in range(0, len(todo), size)]
    from experiments.tournament import seating_key

    models_ref = ray.put(dict(models or {}))
    pending: dict[Any, list] = {}
    it = iter(batches)
    failed: list[tuple[int, str]] = []
    errors: list[str] = []

    def submit() -> None:
        b = next(it, None)
        if b is not None:
            pending[remote.remote(preset, players, overrides, b, models_ref)] = b

    for _ in range(cpus * 2):
        submit()
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            batch = pending.pop(ref)
            try:
                recs = ray.get(ref)
            except Exception as e:  # the task raised, or its worker died, after the retries
                failed += [(seed, seating_key(s)) for seed, s in batch]
                errors.append(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            else:
                write(recs)
                progress(len(recs))
            submit()
    if failed:
        raise GamesFailed(failed, errors)
    return {"init": t1 - t0, "play": time.perf_counter() - t1}


def shutdown() -> None:
    """Stop local Ray (tests; the CLI exits anyway)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()
    _stop_reaper()
    _REMOTE.clear()


def measure_overhead(
    deals: int = 1000, workers: int = 2, agents: str = "random,greedy", repeats: int = 2
) -> dict[str, list[float]]:
    """Wall seconds of the same tournament (basic, 2 players) on both backends, interleaved
    (process, ray, process, ray, ...), each on a fresh store; Ray's start-up apart."""
    import tempfile
    from pathlib import Path

    from experiments import tournament as T

    out: dict[str, list[float]] = {"process": [], "ray": [], "ray_init": []}
    for _ in range(repeats):
        for backend in ("process", "ray"):
            shutdown()
            if backend == "ray":
                t = time.perf_counter()
                init(None, workers)
                out["ray_init"].append(time.perf_counter() - t)
            with tempfile.TemporaryDirectory() as tmp:
                args = T.Args(
                    agents=agents,
                    deals=deals,
                    workers=workers,
                    db=str(Path(tmp) / "t.sqlite"),
                    out=tmp,
                    quiet=True,
                    plots=False,
                    backend=backend,
                )
                t = time.perf_counter()
                T.run(args, stop_after=10**9)  # play every game, skip the report
                out[backend].append(time.perf_counter() - t)
    shutdown()
    return out


def main(argv: list[str] | None = None) -> None:
    import argparse
    import statistics

    p = argparse.ArgumentParser(
        prog="python -m experiments.ray_backend",
        description="Ray's overhead on a tournament: both backends, same games, interleaved.",
    )
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--agents", default="random,greedy")
    p.add_argument("--repeats", type=int, default=2)
    a = p.parse_args(argv)
    r = measure_overhead(a.deals, a.workers, a.agents, a.repeats)
    proc, ray_ = statistics.median(r["process"]), statistics.median(r["ray"])
    print(
        f"{a.agents}, basic 2p, {a.deals} deals ({2 * a.deals} games), {a.workers} workers, "
        f"median of {a.repeats}: process {proc:.1f} s, ray {ray_:.1f} s (+ Ray start-up "
        f"{statistics.median(r['ray_init']):.1f} s): Ray's overhead {100 * (ray_ / proc - 1):+.1f}%"
    )


if __name__ == "__main__":
    main()
