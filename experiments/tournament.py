"""Round-robin self-play tournaments in the duplicate format, with ratings.

    rummy-tournament --preset basic --players 2 --agents random,greedy,variant --deals 500
    rummy-tournament --agents greedy,search:simulations=16 --deals 200 --workers 2 --set jokers=2
    rummy-tournament --preset basic --players 4 --agents random,greedy,basic-expert,search --match

* **Tables and seatings.** With ``P`` players, every combination of ``P``
  distinct agents of ``--agents`` makes a table (fewer agents than seats:
  one table, the agents repeated in turn). Each table is played in every
  rotation of its seats. Partnerships (Canasta with 4 players): each pair of agents
  plays as the two sides, one at seats 0 and 2, the other at 1 and 3, then swapped.
* **Duplicate deals.** Deal ``i`` is fixed by seed ``i`` (``env.reset(seed=i)``); the
  deals are seeds ``--first-deal`` (0) up to ``--first-deal + --deals - 1``,
  and replayed in every seating of every table, so every agent plays the same
  cards from every seat; this removes most of the luck of the deal. Agents are
  ``reset`` with a seed derived from (deal, seat).
* **Games.** One round per game, or a whole match with ``--match``.
  ``--set field=value`` overrides any ``RuleSet`` field (``--set jokers=2
  scoring=winner_takes_all``).
* **Runs on all cores.** Games are independent jobs mapped over a
  ``ProcessPoolExecutor`` (``--workers``, default: every core); the main
  process is the only writer of the results. A progress bar shows the ETA.
* **Resumable store.** Every game is a row of the SQLite file ``--db``
  (preset, rules JSON, seed, seating, agents, per-round scores and rewards,
  winner, decisions, seconds), keyed on (config, seed, seating): rerunning the
  same command (or a larger one: more deals, more agents) plays only the games
  missing, and none is counted twice. The seating names each agent by spec and,
  once an agent's behaviour changed, its ``version``, so old games are not reused. Games are committed as they finish, so
  an interrupted run loses at most the games in flight. A trained model's file is
  read once, at the start: its games are keyed by the digest of those bytes, and
  every worker plays those same bytes, whatever happens to the file meanwhile.
* **Results.** Per agent: mean score per round with a 95% interval (score =
  the round's reward, higher is better; intervals over deals), win rate with
  a Wilson interval, OpenSkill (Plackett-Luce) ``mu`` +- 1.96 sigma, and for
  two players Bradley-Terry/Elo +- 1.96 SE; a crosstable of head-to-head mean
  score differences per round (row minus column). The agents are ranked by
  :data:`ORDER_RULE` (mean score per round first; the ratings stand beside it)
  and named as ``--agents`` gives them. Printed, and written to ``--out`` as
  ``<name>.md``, ``<name>_summary.csv``, ``<name>_crosstable.csv`` (a row per
  ordered pair, with the number of deals they shared), ``<name>_ratings.png``
  and ``<name>_crosstable.png``.
* **Result files per configuration.** ``<name>`` is made of the configuration:
  ``<preset>_<players>p``, then ``_match`` and every rule that differs from the
  preset's (``basic_2p_jokers=2``), so tournaments under other rules write other
  files. A ``--name`` whose files hold the results of another configuration is
  refused unless ``--force`` is given. A rerun of a finished tournament plays
  nothing, says so, and writes the results again.

Agent specs are registry names (``agents.available()``), optionally with
options: ``search:simulations=16:candidates=3``. ``variant`` names the preset's
own rule-based agent. Bad input (unknown agent, preset, option, player count, a
model file that is missing or not a model, seeds past the store's 64-bit range,
more than 2,000,000 games in one run, a ``--name`` with a folder in it) prints
one line and exits with status 2.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import dataclasses
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import agents
import rummy_env
from agents.model_io import ModelFile, open_model
from experiments.stats import GameResult, Summary, summarize
from rummy_env.rules import RuleSet, make_rules
from rummy_env.rules import parse_overrides as parse_rule_overrides
from rummy_env.variants import canasta


@dataclass
class Args:
    """Round-robin duplicate tournament among agents (see the module docs)."""

    preset: str = "basic"
    """Rule set (rummy_env.PRESETS)."""
    players: int = 2
    """Seats at the table."""
    agents: str = "random,greedy,variant"
    """Comma-separated agent specs: name[:option=value...]; 'variant' = the preset's own agent."""
    deals: int = 500
    """Deals (seeds first_deal..first_deal+deals-1), each played in every seating."""
    first_deal: int = 0
    """Seed of the first deal (e.g. a range no one has played, for a held-out measure)."""
    match: bool = False
    """Play whole matches instead of single rounds."""
    workers: int = 0
    """Worker processes (0 = every core)."""
    db: str = "results/tournament.sqlite"
    """SQLite file holding every game (resumable)."""
    db_timeout: float = 60.0
    """Seconds to wait for a database another program holds locked before giving up."""
    out: str = "results"
    """Folder for the markdown, CSV and PNG results."""
    set: tuple[str, ...] = ()
    """RuleSet overrides, field=value (e.g. jokers=2 scoring=winner_takes_all)."""
    name: str = ""
    """Prefix of the output files (default: named after the configuration,
    <preset>_<players>p[_match][_<field>=<value>...] with the rules that differ from the preset's)."""
    force: bool = False
    """Overwrite result files of the same --name that hold another configuration's results
    (without it such a run is refused before any game)."""
    plots: bool = True
    """Write the PNG plots."""
    quiet: bool = False
    """No progress bar."""
    backend: str = "process"
    """Where the games run: 'process' (a process pool on this machine) or 'ray' (Ray tasks:
    local Ray, or a cluster with --ray-address; experiments/ray_backend.py)."""
    ray_address: str | None = None
    """--backend ray: the cluster to join ('auto', or the head's host:port); none = local Ray."""


class UsageError(Exception):
    """Bad command-line input (exit status 2)."""


class GamesNotPlayed(Exception):
    """Games that failed on the workers after retries, listed by game (exit status 1; the
    games played are stored, a rerun retries the rest)."""


# ------------------------------------------------------------------ specs
@dataclass(frozen=True)
class AgentSpec:
    name: str  # concrete registry name
    options: tuple[tuple[str, Any], ...] = ()
    content: str = ""  # hash of the agent's file (a trained model), "" for agents without one
    text: str = dataclasses.field(default="", compare=False)  # the spec as the user wrote it

    @property
    def label(self) -> str:
        """The canonical spec: registry name and every option by name (the store's name)."""
        return ":".join([self.name] + [f"{k}={v}" for k, v in self.options])

    @property
    def shown(self) -> str:
        """The name printed in the results: the spec as written, else the label."""
        return self.text or self.label

    @property
    def key(self) -> str:
        """What identifies its games in the store: the label, and the agent's behaviour
        version when above 1 (games of an older behaviour are played again)."""
        v = agents.agent_class(self.name).version
        key = self.label if v == 1 else f"{self.label}@v{v}"
        return f"{key}#{self.content}" if self.content else key

    def make(self, rules: RuleSet, seat: int) -> agents.Agent:
        options = dict(self.options)
        if self.content:  # the model's bytes as read (and hashed) once by the parent
            options["model"] = MODELS[self.content]
        return agents.make(self.name, rules, seat, **options)


#: digest -> the model file read once (:func:`parse_agent`); workers get the same bytes
MODELS: dict[str, ModelFile] = {}


def parse_agent(item: str, rules: RuleSet) -> AgentSpec:
    """One agent spec (``name[:option=value...]``, or a stored label), checked by making the
    agent once (options validated, models loaded).

    An agent that plays from a file (a trained model) has it read once, here: its games
    are keyed by the digest of those bytes (``content``), and every worker plays those
    same bytes (:data:`MODELS`), whatever happens to the file afterwards.

    Raises:
        UsageError: an unknown agent or option, or one the rules do not allow.
    """
    try:
        name, options = agents.parse_spec(item, rules)
        path = agents.agent_class(name).model_file(**options)
        content = ""
        if path is not None:
            model = open_model(path)
            content = model.digest
            MODELS[content] = model
        spec = AgentSpec(name, tuple(sorted(options.items())), content, item.strip())
        spec.make(rules, 0)  # validates the options (and loads models) now, not in a worker
        return spec
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None


def parse_agents(text: str, rules: RuleSet) -> list[AgentSpec]:
    specs = [parse_agent(item, rules) for item in [t.strip() for t in text.split(",") if t.strip()]]
    labels = [s.label for s in specs]
    if len(specs) < 2:
        raise UsageError(
            f"--agents needs at least two agents, got {text!r} (allowed names: "
            f"{', '.join(agents.available())})"
        )
    if len(set(labels)) != len(labels):
        raise UsageError(f"--agents names the same agent twice: {', '.join(labels)}")
    return specs


#: RuleSet fields that have their own flags
_OWN_FLAGS = {"name": "--preset", "num_players": "--players"}


def parse_overrides(items: tuple[str, ...] | list[str]) -> dict[str, Any]:
    for it in items:
        k = it.split("=", 1)[0].strip()
        if k in _OWN_FLAGS:
            raise UsageError(f"--set {it!r}: {k} is set by {_OWN_FLAGS[k]}, not --set")
    try:
        return parse_rule_overrides(items)
    except ValueError as e:
        raise UsageError(f"--set: {e}") from None


def seatings(
    specs: list[AgentSpec], players: int, partnerships: bool = False
) -> list[tuple[AgentSpec, ...]]:
    """Every rotation of every table (see the module docs), in a fixed order. With
    ``partnerships`` (Canasta, 4 players) each pair of agents plays as the two sides, one
    agent at seats 0 and 2, the other at 1 and 3, then swapped."""
    if partnerships:
        pairs = list(itertools.combinations(specs, 2)) or [(specs[0], specs[0])]
        return [s for a, b in pairs for s in ((a, b, a, b), (b, a, b, a))]
    if len(specs) >= players:
        tables = list(itertools.combinations(specs, players))
    else:
        tables = [tuple(specs[i % len(specs)] for i in range(players))]
    out: list[tuple[AgentSpec, ...]] = []
    for t in tables:
        for r in range(players):
            s = t[r:] + t[:r]
            if s not in out:
                out.append(s)
    return out


def seating_key(seating: tuple[AgentSpec, ...]) -> str:
    return " | ".join(s.key for s in seating)


# rule fields added after results stores existed: left out of the key while at their
# default, so that earlier results under the same rules stay resumable
_LATER_FIELDS = {
    "joker_natural_first": False,
    "min_run": 3,
    "wild_deuces": False,
    "wild_rank": "none",
    "drop_penalties": (0, 0),
    "penalty_cap": 0,
    "set_suits_distinct": True,
    "max_set": 4,
    "contract_deal": 0,
    "buy_limit": 0,
    "low_card_penalty": 0,
    **canasta.CANASTA_ONLY,
}


def config_of(rules: RuleSet) -> tuple[str, str]:
    d = dataclasses.asdict(rules)
    for k, default in _LATER_FIELDS.items():
        if d[k] == default:
            del d[k]
    rj = json.dumps(d, sort_keys=True)
    return hashlib.sha1(rj.encode()).hexdigest()[:16], rj


def rule_overrides(rules: RuleSet) -> dict[str, Any]:
    """The fields of ``rules`` that differ from its preset's at its player count."""
    base = make_rules(rules.name, rules.num_players)
    return {
        k: getattr(rules, k)
        for k in rules.__dataclass_fields__
        if k not in ("name", "num_players") and getattr(rules, k) != getattr(base, k)
    }


def _file_part(value: Any) -> str:
    """``value`` as a piece of a file name: letters, digits and ``._-`` kept, runs of
    anything else one ``-``."""
    text = str(value)
    out = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else " " for c in text)
    return "-".join(out.split()) or "-"


def result_name(rules: RuleSet) -> str:
    """The result files' name for ``rules``: ``<preset>_<players>p``, ``_match`` for whole
    matches, then ``_<field>=<value>`` for every other rule that differs from the preset's."""
    extra = {k: v for k, v in rule_overrides(rules).items() if k != "match"}
    return (
        f"{rules.name}_{rules.num_players}p"
        + ("_match" if rules.match else "")
        + "".join(f"_{k}={_file_part(v)}" for k, v in sorted(extra.items()))
    )


#: the configuration line of a report (``<name>.md``): whose results its files hold
_CONFIG_LINE = "Configuration (store key): "


def check_overwrite(out: Path, name: str, config: str, force: bool) -> None:
    """Refuse to write over result files that hold another configuration's results.

    Raises:
        UsageError: ``<out>/<name>.md`` names another configuration, and not ``force``.
    """
    report_file = out / f"{name}.md"
    if force or not report_file.is_file():
        return
    try:
        lines = report_file.read_text(errors="replace").splitlines()
    except OSError:
        return
    found = [ln[len(_CONFIG_LINE) :].strip(" `.") for ln in lines if ln.startswith(_CONFIG_LINE)]
    if found and found[0] != config:
        raise UsageError(
            f"{report_file} holds the results of another configuration ({found[0]}, this one "
            f"is {config}): give another --name, or --force to overwrite them"
        )


# ------------------------------------------------------------------ games
_WORKER: dict[str, Any] = {}


def _exit_with_parent(parent: int, every: float = 1.0) -> None:
    """Daemon thread of a worker: exit as soon as the parent process is gone (killed, even by
    SIGKILL, which runs no clean-up), rather than live on as an orphan."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _worker_init(
    preset: str,
    players: int,
    overrides: dict[str, Any],
    parent: int | None = None,
    models: dict[str, ModelFile] | None = None,
) -> None:
    if parent is not None:
        _exit_with_parent(parent)
    MODELS.update(models or {})
    _WORKER.clear()
    _WORKER["env"] = rummy_env.raw_env(preset, num_players=players, **overrides)
    _WORKER["agents"] = {}


def play_out(
    env: Any, seed: int, choose: Callable[[int, Any, Any], int]
) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """Play deal ``seed`` of the AEC ``env`` to the end, ``choose(seat, observation, mask)``
    picking each move (the agents are reset by the caller): ``(rounds, moves, decisions)``,
    the referee's result of each round, every action id in order (the game replays from
    ``(seed, moves)``) and the decisions of each seat."""
    env.reset(seed=seed)
    decisions = [0] * env.rules.num_players
    moves: list[int] = []
    rounds: list[dict[str, Any]] = []
    seen = None
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        a = choose(seat, obs["observation"], obs["action_mask"])
        decisions[seat] += 1
        moves.append(int(a))
        env.step(a)
        res = env.unwrapped.state.last_result  # the referee's view: round results
        if res is not None and res is not seen:
            seen = res
            rounds.append(res)
    return rounds, moves, decisions


def play_game(seed: int, seating: tuple[AgentSpec, ...]) -> dict[str, Any]:
    """Play deal ``seed`` with ``seating`` (worker side); the game's record."""
    env = _WORKER["env"]
    rules = env.rules
    cache = _WORKER["agents"]
    bots = []
    for seat, spec in enumerate(seating):
        key = (spec, seat)
        if key not in cache:
            cache[key] = spec.make(rules, seat)
        bots.append(cache[key])
    for seat, b in enumerate(bots):
        b.reset(seed=seed * 1009 + seat)
    t0 = time.perf_counter()
    rounds, moves, decisions = play_out(env, seed, lambda k, o, m: bots[k].act(o, m))
    last = rounds[-1]
    winner = last["match_winner"] if rules.match else last["winner"]
    rewards = [sum(r["rewards"][p] for r in rounds) for p in range(rules.num_players)]
    return {
        "seed": seed,
        "seating": seating_key(seating),
        "agents": [s.label for s in seating],
        "round_scores": [list(r["round_scores"]) for r in rounds],
        "round_rewards": [list(r["rewards"]) for r in rounds],
        "rewards": rewards,
        "rounds": len(rounds),
        "winner": winner,
        "reasons": [r["reason"] for r in rounds],
        "decisions": decisions,
        "seconds": time.perf_counter() - t0,
        "moves": moves,
    }


def _play_chunk(tasks: list[tuple[int, tuple[AgentSpec, ...]]]) -> list[dict[str, Any]]:
    return [play_game(seed, seating) for seed, seating in tasks]


# ------------------------------------------------------------------ store
_SCHEMA = """
CREATE TABLE IF NOT EXISTS configs (
    config TEXT PRIMARY KEY, preset TEXT NOT NULL, players INTEGER NOT NULL, rules TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    config TEXT NOT NULL, seed INTEGER NOT NULL, seating TEXT NOT NULL,
    preset TEXT NOT NULL, rules TEXT NOT NULL, agents TEXT NOT NULL,
    round_scores TEXT NOT NULL, round_rewards TEXT NOT NULL, rewards TEXT NOT NULL,
    rounds INTEGER NOT NULL, winner INTEGER, reasons TEXT NOT NULL,
    decisions INTEGER NOT NULL, decisions_per_seat TEXT NOT NULL, seconds REAL NOT NULL,
    finished TEXT NOT NULL, moves BLOB,
    PRIMARY KEY (config, seed, seating));
"""


_COLUMNS = {
    "configs": ["config", "preset", "players", "rules"],
    "games": [
        "config",
        "seed",
        "seating",
        "preset",
        "rules",
        "agents",
        "round_scores",
        "round_rewards",
        "rewards",
        "rounds",
        "winner",
        "reasons",
        "decisions",
        "decisions_per_seat",
        "seconds",
        "finished",
        "moves",
    ],
}


def _db_error(path: Path, e: sqlite3.Error, timeout: float) -> UsageError:
    msg = str(e)
    if "locked" in msg or "busy" in msg:
        return UsageError(
            f"--db {str(path)!r}: the database is locked by another program (waited {timeout:g} s; "
            f"games already played are saved: rerun to resume, or use another --db)"
        )
    if "not a database" in msg or "malformed" in msg:
        return UsageError(
            f"--db {str(path)!r} is not an SQLite database ({msg}): give a new file or a "
            f"tournament database"
        )
    return UsageError(f"--db {str(path)!r}: {msg}")


def open_db(path: str | Path, timeout: float = 60.0) -> sqlite3.Connection:
    """Open (or create) the store, checking that it is one.

    Raises:
        UsageError: a directory, a file that is not SQLite or holds other tables of the same
            names, a path that cannot be created, or a database locked past ``timeout``.
    """
    p = Path(path)
    if p.is_dir():
        raise UsageError(
            f"--db {str(p)!r} is a directory; give a file (e.g. results/tournament.sqlite)"
        )
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--db {str(p)!r}: cannot create its folder ({e.strerror})") from None
    try:
        con = sqlite3.connect(str(p), timeout=timeout)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.executescript(_SCHEMA)
        for table, cols in _COLUMNS.items():
            have = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            if table == "games" and have == cols[:-1]:  # a store from before move lists
                con.execute("ALTER TABLE games ADD COLUMN moves BLOB")
                have = cols
            if have != cols:
                con.close()
                raise UsageError(
                    f"--db {str(p)!r} holds a table {table!r} that is not a tournament's "
                    f"(columns {', '.join(have)}); give another --db"
                )
    except sqlite3.Error as e:
        raise _db_error(p, e, timeout) from None
    return con


def check_out(out: str | Path) -> Path:
    """The output folder, created and written to once before any game is played.

    Raises:
        UsageError: a file, or a folder that cannot be created or written.
    """
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise UsageError(f"--out {str(p)!r} is a file; give a folder for the results")
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise UsageError(f"--out {str(p)!r} is not writable ({e.strerror})") from None
    return p


def pack_moves(moves: list[int]) -> bytes:
    """A game's action ids, compactly: little-endian uint16, zlib-compressed (a few hundred
    bytes a game)."""
    return zlib.compress(np.asarray(moves, dtype="<u2").tobytes(), 9)


def unpack_moves(blob: bytes) -> list[int]:
    return np.frombuffer(zlib.decompress(blob), dtype="<u2").astype(int).tolist()


def write_games(
    con: sqlite3.Connection,
    config: str,
    preset: str,
    rules_json: str,
    records: list[dict[str, Any]],
) -> None:
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    con.executemany(
        "INSERT OR IGNORE INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                config,
                r["seed"],
                r["seating"],
                preset,
                rules_json,
                json.dumps(r["agents"]),
                json.dumps(r["round_scores"]),
                json.dumps(r["round_rewards"]),
                json.dumps(r["rewards"]),
                r["rounds"],
                r["winner"],
                json.dumps(r["reasons"]),
                sum(r["decisions"]),
                json.dumps(r["decisions"]),
                r["seconds"],
                now,
                pack_moves(r["moves"]),
            )
            for r in records
        ],
    )
    con.commit()


def done_keys(con: sqlite3.Connection, config: str) -> set[tuple[int, str]]:
    return set(
        con.execute("SELECT seed, seating FROM games WHERE config = ?", (config,)).fetchall()
    )


def load_results(
    con: sqlite3.Connection, config: str, keys: set[str], deals: int, first: int = 0
) -> list[GameResult]:
    """The stored games of ``config`` on seeds ``first .. first + deals - 1`` whose seating
    key is in ``keys``."""
    rows = con.execute(
        "SELECT seed, seating, agents, rewards, rounds, winner FROM games "
        "WHERE config = ? AND seed >= ? AND seed < ? ORDER BY seed, seating",
        (config, first, first + deals),
    ).fetchall()
    return [
        GameResult(seed, tuple(json.loads(ag)), tuple(json.loads(rw)), rounds, winner)
        for seed, seating, ag, rw, rounds, winner in rows
        if seating in keys
    ]


def summary_of(con: sqlite3.Connection, config: str) -> tuple[Summary, RuleSet, int] | None:
    """The results of every stored game of ``config`` (a key of the ``configs`` table): its
    summary, rules and number of games; None when no game counts.

    As :func:`run` counts them: a game counts when its seating key is the one its agents have
    now, so games of an agent whose behaviour ``version`` or model file changed since, or of
    an agent no longer registered, are left out; every deal stored counts.
    """
    row = con.execute("SELECT players, rules FROM configs WHERE config = ?", (config,)).fetchone()
    if row is None:
        return None
    players, rules_json = row
    rules = RuleSet(**json.loads(rules_json))
    specs: dict[str, AgentSpec | None] = {}
    keys = set()
    for (labels,) in con.execute("SELECT DISTINCT agents FROM games WHERE config = ?", (config,)):
        seating = []
        for label in json.loads(labels):
            if label not in specs:
                try:
                    specs[label] = parse_agent(label, rules)
                except UsageError:
                    specs[label] = None
            seating.append(specs[label])
        if all(seating):
            keys.add(seating_key(tuple(seating)))
    (deals,) = con.execute(
        "SELECT COALESCE(MAX(seed), -1) + 1 FROM games WHERE config = ?", (config,)
    ).fetchone()
    results = load_results(con, config, keys, deals)
    if not results:
        return None
    names = sorted({a for g in results for a in g.seats})
    return summarize(results, names, players), rules, len(results)


# ------------------------------------------------------------------ running
#: the largest seed: the store keeps seeds as SQLite integers (64-bit signed)
MAX_SEED = 2**63 - 1
#: the most games one run plays (deals x seatings): a run's list of games is held in memory
MAX_GAMES = 2_000_000


def _too_many(deals: int, seatings: int) -> str:
    return (
        f"--deals {deals} makes {deals * seatings} games ({deals} deals x {seatings} "
        f"seatings), more than the {MAX_GAMES} one run plays: play the deals in parts "
        f"with --first-deal (the store keeps every part)"
    )


def check_name(name: str) -> None:
    """``--name`` is a plain file name: the results go into ``--out`` and nowhere else.

    Raises:
        UsageError: a name with a folder in it (``../x``, ``a/b``), ``.`` or ``..``.
    """
    if name and (
        name in (".", "..") or "/" in name or "\\" in name or "\0" in name or os.sep in name
    ):
        raise UsageError(
            f"--name {name!r} must be a plain file name (no folder: the files go into --out)"
        )


def run(args: Args, stop_after: int | None = None) -> Summary | None:
    """Play the missing games of the tournament, then summarize and write results.

    Args:
        args: the parsed command line.
        stop_after: stop (as if interrupted) after this many new games; the
            summary is then not written and None is returned.

    Raises:
        UsageError: bad input.
    """
    overrides = parse_overrides(args.set)
    if args.match:
        if overrides.get("match", True) is not True:
            raise UsageError(
                f"--match contradicts --set match={overrides['match']}: give one of them"
            )
        overrides["match"] = True
    if args.deals < 1:
        raise UsageError(f"--deals must be 1 or more, got {args.deals}")
    if not args.db_timeout >= 0:  # (NaN too)
        raise UsageError(f"--db-timeout must be 0 or more seconds, got {args.db_timeout}")
    if args.first_deal < 0:
        raise UsageError(f"--first-deal must be 0 or more, got {args.first_deal}")
    if args.first_deal + args.deals - 1 > MAX_SEED:
        raise UsageError(
            f"--first-deal {args.first_deal} with --deals {args.deals} goes past the last "
            f"seed the store holds ({MAX_SEED})"
        )
    if args.deals > MAX_GAMES:
        raise UsageError(_too_many(args.deals, 1))
    check_name(args.name)
    if args.workers < 0:
        raise UsageError(f"--workers must be 0 (every core) or more, got {args.workers}")
    if args.backend not in ("process", "ray"):
        raise UsageError(f"--backend {args.backend!r} is not allowed (allowed: 'process', 'ray')")
    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address needs --backend ray")
    if args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise UsageError(
                "--backend ray needs Ray: pip install 'rummy-env[distributed]'"
            ) from None
    try:
        rules = make_rules(args.preset, args.players, **overrides)
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None
    specs = parse_agents(args.agents, rules)
    seats = seatings(specs, args.players, rules.partnerships)
    if args.deals * len(seats) > MAX_GAMES:
        raise UsageError(_too_many(args.deals, len(seats)))
    config, rules_json = config_of(rules)
    out = check_out(args.out)
    name = args.name or result_name(rules)
    check_overwrite(out, name, config, args.force)
    con = open_db(args.db, args.db_timeout)
    try:
        con.execute(
            "INSERT OR IGNORE INTO configs VALUES (?,?,?,?)",
            (config, rules.name, rules.num_players, rules_json),
        )
        con.commit()
    except sqlite3.Error as e:
        raise _db_error(Path(args.db), e, args.db_timeout) from None
    done = done_keys(con, config)
    seeds = range(args.first_deal, args.first_deal + args.deals)
    todo = [(seed, s) for seed in seeds for s in seats if (seed, seating_key(s)) not in done]
    total = args.deals * len(seats)
    workers = args.workers or os.cpu_count() or 1
    if stop_after is not None:
        todo = todo[:stop_after]
    if not todo and stop_after is None:
        print(
            f"All {total} games of this tournament ({args.deals} deals x {len(seats)} seatings) "
            f"are already in {args.db}: nothing to play. The results below are read from "
            f"the store and written again to {out / name}.*"
        )
    if todo:
        try:
            _play_all(todo, total, args, workers, con, config, rules_json, overrides, rules)
        except sqlite3.Error as e:
            raise _db_error(Path(args.db), e, args.db_timeout) from None
    if stop_after is not None:
        con.close()
        return None
    keys = {seating_key(s) for s in seats}
    results = load_results(con, config, keys, args.deals, args.first_deal)
    con.close()
    shown = {s.label: s.shown for s in specs}
    results = [dataclasses.replace(g, seats=tuple(shown[a] for a in g.seats)) for g in results]
    summary = summarize(results, [s.shown for s in specs], args.players)
    text = report(summary, rules, args, len(results), overrides, specs, config)
    print(text)
    written = write_outputs(summary, out, name, text, args.plots)
    print("\nWrote: " + ", ".join(str(p) for p in [*written, Path(args.db)]))
    return summary


def _play_all(todo, total, args, workers, con, config, rules_json, overrides, rules) -> None:
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        initial=total - len(todo),
        unit="game",
        disable=args.quiet,
        dynamic_ncols=True,
        desc=f"{rules.name} {args.players}p",
        file=sys.stderr,
    )
    try:
        if args.backend == "ray":
            from experiments import ray_backend

            def write(recs: list[dict[str, Any]]) -> None:
                write_games(con, config, rules.name, rules_json, recs)

            try:
                ray_backend.play_all(
                    todo,
                    args.preset,
                    args.players,
                    overrides,
                    write,
                    bar.update,
                    address=args.ray_address,
                    workers=args.workers,
                    models=dict(MODELS),
                )
            except ray_backend.GamesFailed as e:
                raise GamesNotPlayed(str(e)) from None
            return
        if workers == 1:
            _worker_init(args.preset, args.players, overrides)
            buf: list[dict[str, Any]] = []
            last = time.perf_counter()
            for seed, s in todo:
                buf.append(play_game(seed, s))
                bar.update(1)
                if len(buf) >= 16 or time.perf_counter() - last > 2.0:
                    write_games(con, config, rules.name, rules_json, buf)
                    buf, last = [], time.perf_counter()
            write_games(con, config, rules.name, rules_json, buf)
            return
        chunk = max(1, min(16, len(todo) // (workers * 8)))
        chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
        # spawn, not fork: a parent that loaded torch (PPO agents) deadlocks forked children
        with cf.ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init,
            initargs=(args.preset, args.players, overrides, os.getpid(), dict(MODELS)),
        ) as ex:
            pending = set()
            it = iter(chunks)
            for c in itertools.islice(it, workers * 4):
                pending.add(ex.submit(_play_chunk, c))
            while pending:
                finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for f in finished:
                    recs = f.result()
                    write_games(con, config, rules.name, rules_json, recs)
                    bar.update(len(recs))
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.add(ex.submit(_play_chunk, nxt))
    finally:
        bar.close()


# ------------------------------------------------------------------ output
def _fmt(x: float, nd: int = 2) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def summary_rows(s: Summary) -> list[dict[str, Any]]:
    rows = []
    for n in s.names:
        m, lo, hi = s.score[n]
        w, wlo, whi = s.win[n]
        mu, sig = s.openskill[n]
        row = {
            "agent": n,
            "games": s.games[n],
            "rounds": s.rounds[n],
            "score_mean": m,
            "score_lo": lo,
            "score_hi": hi,
            "win_rate": w,
            "win_lo": wlo,
            "win_hi": whi,
            "openskill_mu": mu,
            "openskill_sigma": sig,
        }
        if s.elo:
            row["elo"], row["elo_se"] = s.elo[n]
        rows.append(row)
    return rank_rows(rows)


#: the order of the results, as the report states it under the table
ORDER_RULE = (
    "Ranked by mean score per round, highest first; ties by the higher lower end of its "
    "95% interval, then the higher win rate, then the agent's name (A to Z); an agent "
    "without a number ranks after those with one. The ratings (OpenSkill, and Elo for two "
    "players) stand beside it: they count wins and places only, not by how much."
)


def rank_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (of :func:`summary_rows`) in :data:`ORDER_RULE`'s order."""

    def down(x: Any) -> float:
        return -x if isinstance(x, (int, float)) and math.isfinite(x) else math.inf

    return sorted(
        rows,
        key=lambda r: (down(r["score_mean"]), down(r["score_lo"]), down(r["win_rate"]), r["agent"]),
    )


def report(
    s: Summary,
    rules: RuleSet,
    args: Args,
    n_games: int,
    overrides: dict[str, Any],
    specs: list[AgentSpec] | tuple[AgentSpec, ...] = (),
    config: str = "",
) -> str:
    """The Markdown report: the ranked table (:data:`ORDER_RULE` under it), then the
    crosstable; ``config``, the store's key of the configuration, on a line of its own."""
    rows = summary_rows(s)
    head = [
        "rank",
        "agent",
        "score/round [95% CI]",
        "games",
        "win rate [95% CI]",
        "OpenSkill mu +- 1.96 sd",
    ]
    if s.elo:
        head.append("Elo (BT) +- 1.96 se")
    lines = [
        f"## Tournament: {rules.name}, {args.players} players, "
        f"{'matches' if rules.match else 'rounds'}, {args.deals} duplicate deals"
        + (
            f" (seeds {args.first_deal}-{args.first_deal + args.deals - 1})"
            if args.first_deal
            else ""
        )
        + f", {n_games} games",
        "",
        f"Rule overrides: {json.dumps(overrides) if overrides else 'none'}; scoring "
        f"{rules.scoring!r}. Score = the agent's reward per round (higher is better).",
        "",
    ]
    if config:
        lines += [f"{_CONFIG_LINE}`{config}`.", ""]
    files = [sp for sp in specs if sp.content]
    if files:
        lines += [
            "Agents read from files are keyed in the store by the file's content, so games of "
            "another file at the same path are not reused: "
            + "; ".join(f"{sp.shown} = {sp.content}" for sp in files)
            + ".",
            "",
        ]
    renamed = [sp for sp in specs if sp.shown != sp.label]
    if renamed:
        lines += [
            "Agents as the store (rummy-replay, rummy-web) names them: "
            + "; ".join(f"{sp.shown} = {sp.label}" for sp in renamed)
            + ".",
            "",
        ]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k, r in enumerate(rows, 1):
        cells = [
            str(k),
            r["agent"],
            f"{_fmt(r['score_mean'])} [{_fmt(r['score_lo'])}, {_fmt(r['score_hi'])}]",
            str(r["games"]),
            f"{_fmt(r['win_rate'], 3)} [{_fmt(r['win_lo'], 3)}, {_fmt(r['win_hi'], 3)}]",
            f"{_fmt(r['openskill_mu'])} +- {_fmt(1.96 * r['openskill_sigma'])}",
        ]
        if s.elo:
            cells.append(f"{_fmt(r['elo'], 0)} +- {_fmt(1.96 * r['elo_se'], 0)}")
        lines.append("| " + " | ".join(cells) + " |")
    order = [r["agent"] for r in rows]
    lines += [
        "",
        ORDER_RULE,
        "",
        "Head to head: mean score difference per round, row minus column [95% CI]:",
        "",
        "| | " + " | ".join(order) + " |",
        "|" + "---|" * (len(order) + 1),
    ]
    for a in order:
        cells = []
        for b in order:
            if a == b or (a, b) not in s.cross:
                cells.append("-")
            else:
                m, lo, hi = s.cross[a, b]
                cells.append(f"{_fmt(m)} [{_fmt(lo)}, {_fmt(hi)}]")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_outputs(s: Summary, out: Path, name: str, text: str, plots: bool = True) -> list[Path]:
    """Write the markdown, CSV and PNG results; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(text + "\n")
    rows = summary_rows(s)
    with open(out / f"{name}_summary.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(out / f"{name}_crosstable.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["row", "column", "deals", "mean_diff", "lo", "hi"])
        for (a, b), (m, lo, hi) in sorted(s.cross.items()):
            w.writerow([a, b, s.cross_games[a, b], f"{m:.6g}", f"{lo:.6g}", f"{hi:.6g}"])
    written = [out / f"{name}.md", out / f"{name}_summary.csv", out / f"{name}_crosstable.csv"]
    if plots:
        _plots(s, rows, out, name)
        written += [out / f"{name}_ratings.png", out / f"{name}_crosstable.png"]
    return written


#: labels longer than this are shown as ``<name> [k]`` in the plots, with a footnote ``[k] = label``
_LABEL_MAX = 22
#: inches per character of a 10-point label (DejaVu Sans averages about 0.6 em)
_CHAR_IN = 0.085


def _short_labels(names: list[str], width: int = _LABEL_MAX) -> tuple[dict[str, str], list[str]]:
    """Plot labels: names up to ``width`` characters as they are, longer ones as
    ``<agent name> [k]`` (k = 1, 2, ...); and the footnote lines ``[k] <full name>``."""
    short, notes = {}, []
    for n in names:
        if len(n) <= width:
            short[n] = n
        else:
            notes.append(n)
            short[n] = f"{n.split(':')[0][: width - 5]} [{len(notes)}]"
    return short, [f"[{k}] {n}" for k, n in enumerate(notes, 1)]


def _colour_limit(M: Any, k: float = 5.0) -> tuple[float, list[int]]:
    """The crosstable's colour limit, robust to outliers, and the outliers' indices.

    One very weak (or strong) agent makes every difference involving it large,
    and a colour scale up to those hides the differences among the others. An
    agent is an outlier when its mean difference to the others (its row's mean)
    is more than ``k`` times the median distance of the agents' row means from
    their median away from that median; the limit is then the largest
    |difference| among the pairs that involve no outlier (cells beyond it are
    drawn at full colour), else the largest |difference|.
    """
    import numpy as np

    M = np.asarray(M, dtype=float)
    A = np.abs(M)
    if not np.isfinite(A).any():
        return 1.0, []
    full = float(np.nanmax(A))
    with np.errstate(all="ignore"):
        row = np.array([np.nanmean(r) if np.isfinite(r).any() else np.nan for r in M])
    dev = np.abs(row - np.nanmedian(row))
    spread = float(np.nanmedian(dev))
    outliers = [i for i in range(len(M)) if np.isfinite(dev[i]) and dev[i] > k * spread]
    rest = [i for i in range(len(M)) if i not in outliers]
    sub = A[np.ix_(rest, rest)]
    lim = float(np.nanmax(sub)) if np.isfinite(sub).any() else 0.0
    if not outliers or not 0 < lim < full:
        return (full if full > 0 else 1.0), []
    return lim, outliers


def _wrap(text: str, width_in: float, fontsize: float = 9) -> str:
    """``text`` wrapped to ``width_in`` inches of ``fontsize``-point characters
    (long words, paths, are broken too)."""
    import textwrap

    chars = max(20, int(width_in / (_CHAR_IN * fontsize / 10)))
    return "\n".join(
        textwrap.fill(line, chars, subsequent_indent="    ", break_on_hyphens=False)
        for line in text.splitlines()
    )


def _plots(s: Summary, rows: list[dict[str, Any]], out: Path, name: str) -> None:
    """``<name>_ratings.png`` and ``<name>_crosstable.png``, sized from the labels:
    long agent names are shortened with a footnote giving them in full, and the
    crosstable's colours are clipped at a limit set by the pairs without outliers
    (see :func:`_colour_limit`), the exact numbers written in every cell."""
    # Figure, not pyplot: the caller's backend (a notebook's inline one) stays as it is
    import numpy as np
    from matplotlib.figure import Figure

    order = [r["agent"] for r in rows]  # strongest first
    short, notes = _short_labels(order)
    label_in = _CHAR_IN * max(len(short[n]) for n in order) + 0.3
    n = len(order)

    # ratings: one row per agent, strongest on top; the value written at each point
    labels = order[::-1]
    k = 2 if s.elo else 1
    panels = [
        (
            [s.openskill[a][0] for a in labels],
            [1.96 * s.openskill[a][1] for a in labels],
            "OpenSkill Plackett-Luce mu\n(+- 1.96 sigma)",
            "C0",
            "{:.1f}",
        )
    ]
    if s.elo:
        panels.append(
            (
                [s.elo[a][0] for a in labels],
                [1.96 * s.elo[a][1] for a in labels],
                "Bradley-Terry Elo\n(+- 1.96 se)",
                "C1",
                "{:.0f}",
            )
        )
    width = label_in + 3.6 * k + 0.6
    note = _wrap("\n".join(notes), width - 0.3, 8)
    note_in = 0.17 * (note.count("\n") + 1) if notes else 0.0
    title = _wrap(name, width - 0.3, 12)
    title_in = 0.25 * (title.count("\n") + 1)
    height = 0.45 * n + 1.2 + title_in + note_in
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, k, sharey=True, squeeze=False)
    for ax, (x, err, xlabel, colour, fmt) in zip(axes[0], panels):
        ax.errorbar(x, range(n), xerr=err, fmt="o", capsize=4, color=colour)
        for y, v in enumerate(x):
            ax.annotate(
                fmt.format(v),
                (v, y),
                xytext=(0, 6),
                textcoords="offset points",
                ha="center",
                fontsize=8,
            )
        ax.set_xlabel(xlabel)
        ax.set_ylim(-0.6, n - 0.4)
        ax.margins(x=0.15)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(range(n), [short[a] for a in labels])
    fig.suptitle(title)
    if notes:
        fig.text(0.01, 0.01, note, fontsize=8, va="bottom", ha="left")
    fig.tight_layout(rect=(0, note_in / height, 1, 1))
    fig.savefig(out / f"{name}_ratings.png", dpi=110, bbox_inches="tight")

    # crosstable: row minus column
    M = np.full((n, n), np.nan)
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if (a, b) in s.cross:
                M[i, j] = s.cross[a, b][0]
    lim, outliers = _colour_limit(M)
    clipped = bool(np.nanmax(np.abs(M), initial=0.0) > lim) if np.isfinite(M).any() else False
    cell = 0.85
    width = label_in + cell * n + 1.5
    lines = []
    if clipped:
        lines.append(
            f"Colours end at ±{lim:.2f}, the largest difference among the agents other "
            f"than {', '.join(short[order[i]] for i in outliers)}; larger differences "
            "have the full colour. The numbers are exact."
        )
    lines += notes
    note = _wrap("\n".join(lines), width - 0.3, 8)
    note_in = 0.17 * (note.count("\n") + 1) if lines else 0.0
    title = _wrap(f"{name}: mean score difference per round, row minus column", width - 0.3, 11)
    title_in = 0.22 * (title.count("\n") + 1)
    height = cell * n + 0.6 * label_in + 0.6 + title_in + note_in  # x labels are rotated 30 degrees
    fig = Figure(figsize=(width, height))
    ax = fig.subplots()
    im = ax.imshow(M, cmap="RdBu", vmin=-lim, vmax=lim)
    for i in range(n):
        for j in range(n):
            if np.isfinite(M[i, j]):
                ax.text(
                    j,
                    i,
                    f"{M[i, j]:.1f}",
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if abs(M[i, j]) > 0.6 * lim else "black",
                )
    ax.set_xticks(range(n), [short[a] for a in order], rotation=30, ha="right")
    ax.set_yticks(range(n), [short[a] for a in order])
    ax.set_title(title, fontsize=11)
    fig.colorbar(im, ax=ax, extend="both" if clipped else "neither", fraction=0.046, pad=0.04)
    if lines:
        fig.text(0.01, 0.01, note, fontsize=8, va="bottom", ha="left")
    fig.tight_layout(rect=(0, note_in / height, 1, 1))
    fig.savefig(out / f"{name}_crosstable.png", dpi=110, bbox_inches="tight")


# ------------------------------------------------------------------ CLI
def main(argv: list[str] | None = None) -> int:
    import tyro

    args = tyro.cli(Args, args=argv, description=__doc__.splitlines()[0])
    try:
        run(args)
    except UsageError as e:
        print(f"rummy-tournament: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except GamesNotPlayed as e:
        print(f"rummy-tournament: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    return 0


if __name__ == "__main__":
    main()
