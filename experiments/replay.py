"""Replay a stored tournament game move by move (console script ``rummy-replay``).

```bash
rummy-replay --db results/tournament.sqlite --list            # the stored games, one line each
rummy-replay --db results/tournament.sqlite --game 12         # every move of game 12, then the scores
rummy-replay --db results/tournament.sqlite --game 12 --show  # and the table (all hands) after each move
rummy-replay --db results/tournament.sqlite --game 12 --gif game12.gif   # a picture per move
```

The tournament store keeps each game's action ids (``moves``, compact:
:func:`experiments.tournament.pack_moves`) beside its deal seed and rule set, so a
game replays exactly through the engine: :func:`replay` steps a fresh env from
``reset(seed)`` through the stored moves and checks that the round scores it
reaches are the stored ones (:class:`ReplayMismatch` otherwise: a store written
by another engine version). A game's id is its row id in the store.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rummy_env
from experiments.tournament import UsageError, open_db, rule_overrides, unpack_moves
from rummy_env.engine import GameState
from rummy_env.rules import RuleSet


class ReplayMismatch(RuntimeError):
    """The stored moves do not lead to the stored result under this engine."""


@dataclass
class StoredGame:
    """One row of the store."""

    id: int
    seed: int
    agents: list[str]
    rules: RuleSet
    moves: list[int] | None
    round_scores: list[list[int]]
    rewards: list[float]
    reasons: list[str]

    @property
    def preset(self) -> str:
        return self.rules.name

    @property
    def title(self) -> str:
        """The preset and the rules that differ from it: ``basic (jokers=2)``."""
        extra = ", ".join(f"{k}={v}" for k, v in _overrides(self.rules).items())
        return f"{self.preset} ({extra})" if extra else self.preset


@dataclass
class Step:
    """One move of a replay: who played it, its id and text, and the state after it."""

    index: int
    seat: int
    agent: str
    action: int
    move: str
    state: dict[str, Any] = field(repr=False)


def _rules(rules_json: str) -> RuleSet:
    d = json.loads(rules_json)
    return RuleSet(**d)


_COLS = "rowid, seed, agents, rules, moves, round_scores, rewards, reasons"


def _game(row: tuple) -> StoredGame:
    gid, seed, agents, rules, moves, scores, rewards, reasons = row
    return StoredGame(
        id=gid,
        seed=seed,
        agents=json.loads(agents),
        rules=_rules(rules),
        moves=unpack_moves(moves) if moves is not None else None,
        round_scores=json.loads(scores),
        rewards=json.loads(rewards),
        reasons=json.loads(reasons),
    )


def load_game(con: sqlite3.Connection, game_id: int) -> StoredGame:
    """The stored game ``game_id``.

    Raises:
        KeyError: no such game.
    """
    row = con.execute(f"SELECT {_COLS} FROM games WHERE rowid = ?", (int(game_id),)).fetchone()
    if row is None:
        raise KeyError(f"no game {game_id} in the store")
    return _game(row)


def list_games(
    con: sqlite3.Connection,
    preset: str | None = None,
    agent: str | None = None,
    seed: int | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[StoredGame]:
    """Stored games, by id, filtered by preset, an agent taking part, and deal seed."""
    where, params = [], []
    if preset:
        where.append("preset = ?")
        params.append(preset)
    if seed is not None:
        where.append("seed = ?")
        params.append(int(seed))
    sql = f"SELECT {_COLS} FROM games" + (" WHERE " + " AND ".join(where) if where else "")
    rows = con.execute(sql + " ORDER BY rowid", params).fetchall()
    games = [_game(r) for r in rows]
    if agent:
        games = [g for g in games if agent in g.agents]
    return games[offset : offset + limit]


def replay(game: StoredGame) -> list[Step]:
    """Step the stored moves through a fresh env; every step with the full state after it.

    Raises:
        ValueError: the game was stored without its moves (a store from before move lists).
        ReplayMismatch: a stored move is illegal, or the scores reached are not the stored ones.
    """
    return replay_states(game)[1]


def replay_states(game: StoredGame) -> tuple[list[GameState], list[Step]]:
    """:func:`replay`, with the live states too: the deal, then the state after every move
    (the last one holding the round's result, which ``to_dict`` leaves out)."""
    if game.moves is None:
        raise ValueError(
            f"game {game.id} was stored before tournaments kept move lists: it cannot be replayed"
        )
    env = rummy_env.raw_env(
        game.rules
    )  # raises (ValueError) where the rules are not valid any more
    env.reset(seed=game.seed)
    states = [env.state.copy()]
    steps: list[Step] = []
    scores: list[list[int]] = []
    seen = None
    moves = iter(game.moves)
    for name in env.agent_iter():
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        a = next(moves, None)
        if a is None:
            raise ReplayMismatch(f"game {game.id}: the stored moves end before the game does")
        seat = env.agent_name_mapping[name]
        # the move as its player saw it (a run shows JK where a wild card goes)
        text = str(env.codec.decode(a, env.state)) if 0 <= a < env.codec.num_actions else str(a)
        try:
            env.step(a)
        except rummy_env.IllegalActionError as e:
            raise ReplayMismatch(f"game {game.id}, move {len(steps)}: {e}") from None
        states.append(env.state.copy())
        steps.append(Step(len(steps), seat, game.agents[seat], a, text, env.state.to_dict()))
        res = env.state.last_result
        if res is not None and res is not seen:
            seen = res
            scores.append(list(res["round_scores"]))
    if next(moves, None) is not None:
        raise ReplayMismatch(f"game {game.id}: moves are left after the game ended")
    if scores != game.round_scores:
        raise ReplayMismatch(
            f"game {game.id}: the replay scores {scores}, the store holds {game.round_scores}"
        )
    return states, steps


def write_gif(game: StoredGame, path: str | Path, seconds_per_move: float = 0.8) -> Path:
    """An animated GIF of the replay: the table with every hand face up
    (:func:`rummy_env.picture.draw_table`), the deal then one frame per move."""
    from PIL import Image

    from rummy_env.picture import draw_table

    states, _ = replay_states(game)
    frames = [Image.fromarray(draw_table(st, omniscient=True)) for st in states]
    h = max(f.height for f in frames)
    frames = [f if f.height == h else _pad(f, h) for f in frames]
    path = Path(path)
    frames[0].save(
        path,
        save_all=True,
        append_images=frames[1:],
        duration=int(seconds_per_move * 1000),
        loop=0,
        optimize=True,
    )
    return path


def _pad(img, height: int):
    from PIL import Image

    from rummy_env.picture import FELT

    out = Image.new("RGB", (img.width, height), FELT)
    out.paste(img, (0, 0))
    return out


def _overrides(r: RuleSet) -> dict[str, Any]:
    """The fields of ``r`` that differ from its preset's defaults (for display)."""
    return rule_overrides(r)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="rummy-replay",
        description="Replay a stored tournament game move by move through the engine, "
        "checking that it reaches the stored scores; or list the stored games.",
    )
    p.add_argument(
        "--db",
        default="results/tournament.sqlite",
        help="the tournament store (default: results/tournament.sqlite)",
    )
    p.add_argument("--game", type=int, help="id of the game to replay")
    p.add_argument("--list", action="store_true", help="list the stored games")
    p.add_argument("--preset", help="--list: only this preset")
    p.add_argument("--agent", help="--list: only games this agent played")
    p.add_argument("--show", action="store_true", help="print the table after every move")
    p.add_argument("--gif", help="also write an animated GIF of the game to this file")
    a = p.parse_args(argv)
    if a.game is not None and not 1 <= a.game < 2**63:
        p.exit(2, f"rummy-replay: --game {a.game} is not a game id (allowed: 1..2**63-1)\n")
    if a.gif and not Path(a.gif).resolve().parent.is_dir():
        p.exit(2, f"rummy-replay: --gif {a.gif!r}: its folder does not exist\n")
    if not Path(a.db).exists():
        p.exit(2, f"rummy-replay: --db {a.db!r} does not exist\n")
    try:
        con = open_db(a.db)
    except UsageError as e:
        p.exit(2, f"rummy-replay: {e}\n")
    if a.list or a.game is None:
        for g in list_games(con, a.preset, a.agent, limit=10**9):
            print(
                f"{g.id:6d}  {g.title:9s} deal {g.seed:6d}  {' vs '.join(g.agents)}  "
                f"rewards {g.rewards}" + ("" if g.moves is not None else "  (no moves stored)")
            )
        return
    try:
        game = load_game(con, a.game)
        steps = replay(game)
    except KeyError as e:
        p.exit(2, f"rummy-replay: {e.args[0]}\n")
    except (ValueError, ReplayMismatch) as e:
        p.exit(1, f"rummy-replay: {e}\n")
    from rummy_env.engine import from_dict
    from rummy_env.render import render_text

    print(f"game {game.id}: {game.title}, deal {game.seed}, {' vs '.join(game.agents)}")
    for s in steps:
        print(f"{s.index:4d}  player_{s.seat} ({s.agent}): {s.move}")
        if a.show:  # the mover's view, then every hand (a replay hides nothing)
            print(render_text(from_dict(s.state, game.rules), viewer=s.seat))
            for seat, hand in enumerate(s.state["hands"]):
                print(f"      player_{seat} holds {' '.join(hand)}")
    print(f"round scores {game.round_scores} (as stored), rewards {game.rewards}")
    if a.gif:
        try:
            print(f"wrote {write_gif(game, a.gif)}")
        except OSError as e:
            p.exit(2, f"rummy-replay: --gif {a.gif!r} cannot be written ({e.strerror or e})\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
