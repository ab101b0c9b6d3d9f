"""The web app (console script ``rummy-web``): a tournament's leaderboard, a browser of its
stored games that replays them move by move, and a page to play a round against any agent.

```bash
rummy-web --db results/tournament.sqlite --port 8000      # then open http://127.0.0.1:8000/
```

* ``/``: the leaderboard. Per rule configuration in the store (named by its preset, players
  and rule overrides): each agent's mean score per round, win rate, OpenSkill and (two
  players) Elo, with 95% intervals ("-" where one is not known), the head-to-head
  crosstable and the tournament's plots, computed as ``rummy-tournament`` computes them
  (:func:`experiments.tournament.summary_of`), with the report and CSV files to download.
  Rows are in :data:`ORDER_RULE`'s order (mean score first).
* ``/games``: the stored games with their player count and winner, filtered by tournament,
  preset, player count, agent, winner and deal seed (:data:`GAME_FILTERS`); ``/games/<id>``
  replays one game in the page, every hand visible (:func:`experiments.replay.replay`):
  play/pause, speed, a move back or forward (buttons, the arrow keys, the slider, the move
  list), a jump to any round, and at each decision the move chosen among how many legal
  ones, with the agent's most likely moves and their probabilities where the agent gives
  them (its own ``action_probs``: the random agent, the trained networks). The page's
  script fetches the frames as JSON (``/games/<id>/frames.json?start=&count=``,
  :func:`_frame`); without scripts, links step a page per move with the table's picture.
* ``/play``: pick a preset, the number of players, your seat and an agent for every other
  seat, then play one round (or a match) at a card table drawn in the page from your seat
  (:func:`table_view`: your hand; of the others only their counts and the cards known to
  be held). Your hand sorts by suit or by rank (remembered by the browser); select cards
  and the legal moves they make are offered as buttons in words (:func:`legal_view`, from
  the env's mask); draw by clicking the stock or the discard pile, lay off by clicking a
  meld. The agents answer in turn; at the end of a round a summary says why it ended,
  each seat's score and what each laid, and a match goes on to the next round. Nothing
  the seat's observation does not hold reaches the browser before the game is over: the
  deal seed and the other hands stay on the server. Games in play live in the server's
  memory, each under a random token. Canasta (:func:`canasta_view`): the melds grouped by
  side, each side's red 3s and opening, the pile frozen or not, the cards pending for an
  opening; with 4 players the person plays with the agent across as partner and sees
  only his own hand. The table's scripts and styles are in
  ``experiments/web_static/`` (cards as HTML, laid out with flex-wrap: a 60-tile rack or
  six melds wrap on a narrow window).

The server listens on 127.0.0.1 unless ``--host`` says otherwise. Pages, styles and scripts
are served by the app itself (nothing is fetched from elsewhere); the pictures are drawn by
the project. Bad input (an unknown preset or agent, a player count the preset does not
allow, an illegal move id, an unknown game or play token) is answered with a 4xx page that
says what was wrong, and the server keeps serving. Tests create the app with
:func:`create_app`.

It trusts no client:

* agents by registry name only (:func:`client_agent`): the play form offers, per preset and
  player count, the agents that play it and the shipped models trained for it
  (:func:`offered`); a model file is read only from a folder given with
  ``--allow-model DIR`` (resolved, inside it), and any other path gets one answer whether
  or not it exists; agent options beyond :data:`OPTION_CAPS` are refused (400), not clamped;
* a request body over :data:`MAX_BODY` is 413; a new game beyond :data:`MAX_CLIENT_GAMES`
  from one address or :data:`MAX_PLAY_GAMES` on the server is 429 (only finished games and
  games untouched for :data:`IDLE_SECONDS` are dropped to make room);
* the store is opened read only (:func:`open_store`): ``--db`` may name any database, and
  nothing is written to it (nor is its journal mode changed); a store on read-only media
  is read;
* every response carries a Content-Security-Policy (the page's own scripts and styles by a
  per-request nonce), ``X-Frame-Options: DENY``, ``nosniff`` and a same-origin referrer
  policy; error pages show no traceback and no file system path (:func:`scrub`).
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import logging
import math
import os
import re
import secrets
import sqlite3
import sys
import sysconfig
import tempfile
import threading
import time
import urllib.parse
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    g,
    jsonify,
    redirect,
    request,
    url_for,
)
from flask import render_template as _render
from jinja2 import DictLoader
from werkzeug.exceptions import HTTPException, TooManyRequests

import agents
import rummy_env
from experiments.replay import (
    ReplayMismatch,
    Step,
    StoredGame,
    _overrides,
    _rules,
    load_game,
    replay_states,
)
from experiments.stats import Summary
from experiments.tournament import (
    _COLUMNS,
    Args,
    UsageError,
    report,
    summary_of,
    summary_rows,
    write_outputs,
)
from rummy_env import cover, engine
from rummy_env import moves as M
from rummy_env.cards import card_str, counts_str
from rummy_env.engine import GameState, Phase, acting_seat, deal_number
from rummy_env.env import legal_moves
from rummy_env.observation import _layout as obs_layout
from rummy_env.observation import encode
from rummy_env.picture import draw_table
from rummy_env.render import REASONS, SCORE_MEANING, describe_result, plural, round_outcome
from rummy_env.rules import CONTRACTS
from rummy_env.variants import canasta as canasta_rules

#: games listed per page of the game browser
PAGE_SIZE = 50
#: games in play on the server at once: a new game beyond is refused (429), none is evicted
MAX_PLAY_GAMES = 256
#: games in play at once from one client address (beyond: 429)
MAX_CLIENT_GAMES = 8
#: seconds after which a game nobody touched counts as abandoned (dropped when room is needed)
IDLE_SECONDS = 30 * 60
#: the most bytes of a request body (a play form is a few hundred); beyond: 413
MAX_BODY = 16 * 1024
#: the most characters of an agent spec from a client
MAX_SPEC = 200
#: the caps on agent options a client may set, per registry name: option -> (least, most);
#: a value outside is refused (400), never clamped
OPTION_CAPS: dict[str, dict[str, tuple[float, float]]] = {
    "search": {
        "simulations": (1, 64),
        "time_budget": (0.0, 2.0),
        "candidates": (1, 8),
        "max_rollout_steps": (1, 600),
        "confidence": (0.0, 10.0),
    },
    "rummikub-expert": {"search_h": (0, 14), "simulations": (1, 32)},
}
#: any other number a client gives an agent: at most this large in magnitude, and finite
MAX_OPTION = 1000.0
#: registry names that take a model file (``model``): clients name a shipped model only
MODEL_AGENTS = ("ppo", "es", "rllib", "neural")
#: the presets each agent written for particular presets plays (beyond ``VARIANT_AGENTS``)
WRITTEN_FOR = {"gin-simple": ("gin",)}
#: the largest id or seed SQLite stores
MAX_SQL_INT = 2**63 - 1
#: what reading a stored row may raise where it was written by another version, or crafted:
#: rules with unknown fields, fields that are not JSON, moves that are not zlib
UNREADABLE = (TypeError, ValueError, KeyError, IndexError, zlib.error, sqlite3.Error)
#: replays kept in memory
MAX_REPLAYS = 32
#: the most seats the play form offers
MAX_SEATS = 8
#: the card table's scripts and styles (served as /static/...)
STATIC = Path(__file__).resolve().parent / "web_static"
#: the replay's speeds offered (moves per second at 1x: :data:`REPLAY_RATE`)
SPEEDS = (0.5, 1, 2, 4, 8)
#: moves per second of a replay at 1x
REPLAY_RATE = 2.0
#: frames one request for a replay's frames may ask for
MAX_FRAMES = 200
#: the agent's alternatives shown at each decision of a replay
TOP_ALTERNATIVES = 5
#: moves the agents may make in a row before the server gives up on a game (a safety net)
MAX_AGENT_MOVES = 100_000


# ------------------------------------------------------------------ pictures
def png(rgb: np.ndarray) -> bytes:
    """An RGB array as PNG bytes."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def _png_response(data: bytes, cache: bool) -> Response:
    r = Response(data, mimetype="image/png")
    r.headers["Cache-Control"] = "private, max-age=3600" if cache else "no-store"
    return r


# ------------------------------------------------------------------ the table as data
#: the moves' kinds in words (the play page's buttons and groups)
_KIND_WORDS = {
    "DrawStock": "draw",
    "DrawDiscard": "draw",
    "TakePile": "take the pile",
    "Meld": "meld",
    "LayOff": "lay off",
    "SwapJoker": "swap a joker",
    "Discard": "discard",
    "Knock": "knock",
    "Pass": "pass",
    "EndRound": "end the round",
    "Declare": "declare",
    "Drop": "drop",
    "Buy": "buy",
    "PlayTile": "play a tile",
    "Commit": "end the turn",
}


def move_words(move: Any) -> str:
    """A move in words, as its button reads: ``"discard 9D"``, ``"play tile 7H"``."""
    if isinstance(move, M.PlayTile):
        return f"play tile {move.tile}"
    if isinstance(move, M.Commit):
        return "end the turn (commit the tiles played)"
    if isinstance(move, M.DrawStock):
        return "draw from the stock"
    if isinstance(move, M.DrawDiscard):
        return (
            "take the discard"
            if move.depth == 0
            else f"take the discard pile {move.depth + 1} deep"
        )
    if isinstance(move, M.TakePile):
        return (
            "take the discard pile (its top card onto your side's meld)"
            if not move.cards
            else f"take the discard pile, melding its top card with {' '.join(move.cards)}"
        )
    if isinstance(move, M.Buy):
        return "buy the discard"
    if isinstance(move, M.Pass):
        return "pass"
    return str(move)


def move_cards(move: Any) -> list[str]:
    """The cards of the mover's hand a move uses (``JK``: a wild card), none for a draw."""
    if isinstance(move, (M.Meld, M.TakePile)):
        return list(move.cards)
    if isinstance(move, M.PlayTile):
        return [move.tile]
    card = getattr(move, "card", None)
    return [card] if card else []


def legal_view(env: Any) -> list[dict[str, Any]]:
    """The legal moves of the seat to act, from the env's mask: each with its action id,
    kind, words, the hand cards it uses, and its target (a table meld, a discard depth)."""
    s = env.state
    mask = env.observe(env.agent_selection)["action_mask"]
    out = []
    for a in legal_moves(mask):
        move = env.codec.decode(int(a), s)
        kind = type(move).__name__
        out.append(
            {
                "id": int(a),
                "kind": kind,
                "group": _KIND_WORDS.get(kind, kind.lower()),
                "words": move_words(move),
                "cards": move_cards(move),
                "meld": getattr(move, "meld", None),
                "depth": getattr(move, "depth", None),
                "end": getattr(move, "end", None),
            }
        )
    return out


def contract_words(state: GameState) -> str | None:
    """The round's contract in words (Contract rummy), else None."""
    rules = state.rules
    if not rules.contract:
        return None
    deal = deal_number(state)
    sets, runs = CONTRACTS[deal]
    need = [plural(sets, "set") + " of 3+"] if sets else []
    need += [plural(runs, "run") + f" of {rules.min_run}+"] if runs else []
    return f"deal {deal} of 7: {' and '.join(need)}"


def _cards(faces: Any) -> list[str]:
    return [card_str(int(f)) for f in faces]


def _melds(state: GameState) -> list[dict[str, Any]]:
    if state.rules.scoring == "rummikub":  # one pool of tiles: one valid split of it
        return [
            {"index": None, "owner": None, "kind": "", "cards": _cards(m), "wild": []}
            for m in cover.split(state.tiles) or []
        ]
    canasta = state.rules.scoring == "canasta"
    out = []
    for i, m in enumerate(state.table):
        if m.is_run:
            wild = [k for k, pos in enumerate(range(m.lo, m.hi + 1)) if m.wild >> pos & 1]
        else:
            wild = list(range(len(m.cards) - m.n_wild, len(m.cards)))
        meld = {
            "index": i,
            "owner": int(m.owner),
            "kind": "run" if m.is_run else "set",
            "cards": _cards(m.cards),
            "wild": wild,
        }
        if canasta:  # Canasta's melds: the side's, and a canasta (7+ cards) natural or mixed
            meld["side"] = int(m.side)
            meld["canasta"] = ("mixed" if m.wild else "natural") if m.size >= 7 else None
        out.append(meld)
    return out


def side_of(rules: rummy_env.RuleSet, seat: int) -> int:
    """The side of ``seat``: with partnerships (Canasta, 4 players) seats 0&2 and 1&3,
    else every seat its own."""
    return seat % 2 if getattr(rules, "partnerships", False) else seat


def partner_of(rules: rummy_env.RuleSet, seat: int) -> int | None:
    """The partner of ``seat`` (the seat across), or None without partnerships."""
    if not getattr(rules, "partnerships", False):
        return None
    return (seat + 2) % rules.num_players


def canasta_view(state: GameState, viewer: int | None = None) -> dict[str, Any]:
    """Canasta's public facts for the table: each side (its seats, opened or its initial
    meld minimum, red 3s, canastas), the pile's top and whether it is frozen, the cards
    taken with the pile waiting for an opening (face up when taken), the final turn."""
    rules = state.rules
    n = rules.num_players
    sides = []
    for sd in range(canasta_rules.num_sides(rules)):
        sides.append(
            {
                "side": sd,
                "seats": [p for p in range(n) if side_of(rules, p) == sd],
                "yours": viewer is not None and side_of(rules, viewer) == sd,
                "opened": bool(state.opened[sd]),
                "minimum": int(canasta_rules.minimum(state, sd)),
                "red_threes": _cards(state.red_threes[sd]),
                "canastas": int(canasta_rules.canastas(state, sd)),
            }
        )
    pile = state.discard
    return {
        "sides": sides,
        "partner": partner_of(rules, viewer) if viewer is not None else None,
        "partnerships": bool(rules.partnerships),
        "to_go_out": int(rules.canastas_to_go_out),
        "top": card_str(pile[-1]) if pile else None,
        "frozen": bool(state.frozen),
        "pending": counts_str(state.pending),
        "opening_count": int(state.opening_count),
        "final_turn": bool(state.final_turn),
    }


def table_view(
    state: GameState, names: list[str], viewer: int | None = None, omniscient: bool = False
) -> dict[str, Any]:
    """The table as data for the page's card table, holding what ``viewer``'s seat sees and
    nothing more (the others' hands as counts and the cards known to be held), as
    :func:`rummy_env.picture.draw_table` draws it; ``omniscient`` (replays) and a game
    over show every hand."""
    rules = state.rules
    over = state.phase == Phase.GAME_OVER
    every = omniscient or over
    actor = -1 if over else acting_seat(state)
    tiles = rules.scoring == "rummikub"
    seats = []
    for p in range(rules.num_players):
        seen = every or p == viewer
        seats.append(
            {
                "seat": p,
                "name": names[p] if p < len(names) else f"player_{p}",
                "you": p == viewer and not omniscient,
                "count": int(state.nhand[p]),
                "hand": _cards(state.hand_cards(p)) if seen else None,
                "known": [] if seen else counts_str(state.known[p]),
                "total": int(state.totals[p]),
                "opened": bool(state.opened[p]),
                "active": bool(state.active[p]),
                "turn": p == actor,
                "side": side_of(rules, p),
                "partner": viewer is not None and p == partner_of(rules, viewer),
            }
        )
    pile = list(state.discard)
    shown = pile if rules.discard_pickup == "any" else pile[-1:]
    canasta = rules.scoring == "canasta"
    return {
        "preset": rules.name,
        "players": rules.num_players,
        "round": state.round + 1,
        "phase": "over" if over else state.phase.name.lower(),
        "actor": actor,
        "tiles": tiles,
        "contract": contract_words(state),
        "seats": seats,
        "melds": _melds(state),
        "played": counts_str(state.played_tiles) if tiles else [],
        "stock": len(state.stock),
        "discard": {"count": len(pile), "cards": _cards(shown), "spread": len(shown) > 1},
        "forbidden": card_str(state.forbidden)
        if state.forbidden >= 0 and state.phase == Phase.PLAY
        else None,
        # the cards a move's JK may stand for (Canasta: a JK is a joker, a 2 reads as itself)
        "wild": ["JK"] if canasta else ["JK", *_cards(state.wild_faces)] if rules.wilds else [],
        "canasta": canasta_view(state, None if omniscient else viewer) if canasta else None,
    }


def round_summary(
    result: dict[str, Any], rules: rummy_env.RuleSet, laid: list[tuple[int, list[str]]]
) -> dict[str, Any]:
    """One finished round for the end-of-round summary: why it ended, each seat's score,
    reward and total, and the melds each seat laid."""
    n = len(result["round_scores"])
    rewards = result.get("rewards")
    name = SCORE_MEANING.get(rules.scoring, ("scores",))[0]
    return {
        "round": result["round"] + 1,
        "outcome": round_outcome(result),
        "reason": REASONS.get(result["reason"], result["reason"]),
        "score_name": name,
        "winner": result["winner"],
        "scores": list(map(int, result["round_scores"])),
        "rewards": [int(r) for r in rewards] if rewards is not None else None,
        "totals": list(map(int, result["totals"])),
        "laid": [[cards for owner, cards in laid if owner == p] for p in range(n)],
        "match_over": bool(result.get("match_over", True)),
        "text": describe_result(result, rules),
        "sides": _side_scores(result, rules, laid) if rules.scoring == "canasta" else None,
        "concealed": bool(result.get("info", {}).get("concealed", False)),
    }


#: a Canasta side's score, part by part, as the round's summary lists it
SCORE_PARTS = (
    ("melds", "cards melded"),
    ("canastas", "canastas"),
    ("red_threes", "red 3s"),
    ("going_out", "going out"),
    ("hands", "cards left in hand"),
)


def _side_scores(
    result: dict[str, Any], rules: rummy_env.RuleSet, laid: list[tuple[int, list[str]]]
) -> list[dict[str, Any]]:
    """Canasta: each side's seats, round score with its breakdown (env ``info``), match
    total and the melds it laid."""
    info = result.get("info", {})
    scores = info.get("side_scores", [])
    breakdown = info.get("breakdown", [])
    out = []
    for sd in range(len(scores)):
        seats = [p for p in range(rules.num_players) if side_of(rules, p) == sd]
        parts = breakdown[sd] if sd < len(breakdown) else {}
        out.append(
            {
                "side": sd,
                "seats": seats,
                "score": int(scores[sd]),
                "parts": [(words, int(parts.get(k, 0))) for k, words in SCORE_PARTS],
                "total": int(result["totals"][seats[0]]),
                "laid": [cards for owner, cards in laid if side_of(rules, owner) == sd],
                "went_out": result["winner"] in seats,
            }
        )
    return out


# ------------------------------------------------------------------ leaderboard
def _finite(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def fmt(x: Any, nd: int = 2) -> str:
    """A number for a page with ``nd`` decimals; "-" where there is none (nan: an interval
    over one deal, a rating of no games)."""
    v = _finite(x)
    return "-" if v is None else f"{v:.{nd}f}"


def interval(m: Any, lo: Any, hi: Any, nd: int = 2) -> str:
    """``m [lo, hi]``; ``m [-]`` where the interval is not known; "-" without ``m``."""
    if _finite(m) is None:
        return "-"
    if _finite(lo) is None or _finite(hi) is None:
        return f"{fmt(m, nd)} [-]"
    return f"{fmt(m, nd)} [{fmt(lo, nd)}, {fmt(hi, nd)}]"


def plus_minus(v: Any, sd: Any, nd: int = 2) -> str:
    """``v ± 1.96 sd``; ``v`` alone where ``sd`` is not known; "-" without ``v``."""
    if _finite(v) is None:
        return "-"
    if _finite(sd) is None:
        return fmt(v, nd)
    return f"{fmt(v, nd)} ± {fmt(1.96 * float(sd), nd)}"


#: the leaderboard's order, as its page states it
ORDER_RULE = (
    "sorted by mean score per round, highest first; ties by the higher lower end of its "
    "95% interval, then the higher win rate, then the agent's name (A to Z); an agent "
    "without a number sorts after those with one"
)


def board_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The leaderboard's rows in :data:`ORDER_RULE`'s order (the same on every run)."""

    def down(x: Any) -> float:
        v = _finite(x)
        return math.inf if v is None else -v

    return sorted(
        rows,
        key=lambda r: (
            down(r["score_mean"]),
            down(r["score_lo"]),
            down(r["win_rate"]),
            str(r["agent"]),
        ),
    )


@dataclass
class Board:
    """One configuration of the leaderboard: its summary and where its files are written."""

    config: str
    rules: rummy_env.RuleSet
    games: int
    deals: int
    rows: list[dict[str, Any]]
    cross: list[tuple[str, list[tuple[str, str, float]]]]  # row agent, [(text, colour, value)]
    summary: Summary
    out: Path
    name: str
    overrides: dict[str, Any]
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def title(self) -> str:
        return self.title_of(self.rules)

    @staticmethod
    def title_of(r: rummy_env.RuleSet) -> str:
        """The configuration's name: preset, players, rounds or matches, and the rule
        overrides (tournaments under different overrides read apart)."""
        extra = "".join(f", {k}={v}" for k, v in _overrides(r).items())
        return f"{r.name}, {r.num_players} players, {'matches' if r.match else 'rounds'}{extra}"

    def files(self) -> Path:
        """Write the report, CSV and PNG files (once); their folder."""
        with self.lock:
            if not (self.out / f"{self.name}_crosstable.png").exists():
                args = Args(self.rules.name, self.rules.num_players, deals=self.deals)
                text = report(self.summary, self.rules, args, self.games, self.overrides)
                write_outputs(self.summary, self.out, self.name, text, plots=True)
        return self.out


def _cross_cells(
    summary: Summary, order: list[str]
) -> list[tuple[str, list[tuple[str, str, float]]]]:
    """The crosstable as rows of (text, heat class, value) cells, row minus column: the
    class shades the cell blue (row ahead) or red, by the size of the difference."""
    vals = [abs(v[0]) for v in summary.cross.values() if np.isfinite(v[0])]
    lim = max(vals, default=0.0) or 1.0
    out = []
    for a in order:
        cells = []
        for b in order:
            if a == b or (a, b) not in summary.cross:
                cells.append(("-", "", 0.0))
                continue
            m, lo, hi = summary.cross[a, b]
            level = round(min(1.0, abs(m) / lim) * HEAT_LEVELS) if np.isfinite(m) else 0
            heat = f"heat-{'p' if m > 0 else 'n'}{level}" if level else ""
            cells.append((interval(m, lo, hi), heat, m))
        out.append((a, cells))
    return out


#: shades of the crosstable's cells, each way
HEAT_LEVELS = 11
_HEAT_CSS = "".join(
    f"td.heat-{k}{i} {{ background: rgba({rgb}, {0.05 * i:.2f}); }}\n"
    for k, rgb in (("p", "33, 102, 172"), ("n", "178, 24, 43"))
    for i in range(1, HEAT_LEVELS + 1)
)


# ------------------------------------------------------------------ play
@dataclass
class PlayGame:
    """A round a person plays in the browser against agents: kept on the server only."""

    token: str
    env: Any  # rummy_env.raw_env
    seat: int
    bots: dict[int, agents.Agent]
    names: list[str]  # per seat: the agent's spec, "you" for the person
    seed: int
    form: dict[str, str]  # the settings, to play again
    log: list[tuple[int, str]] = field(default_factory=list)  # (seat, move), public moves only
    results: list[str] = field(default_factory=list)  # every finished round, in words
    summaries: list[dict[str, Any]] = field(default_factory=list)  # every finished round
    shown: int = 0  # the rounds whose summary the person has seen
    lock: threading.Lock = field(default_factory=threading.Lock)
    client: str = ""  # the address of the client that started it
    touched: float = 0.0  # when a request last asked for it (PlayGames.clock)

    @property
    def state(self) -> GameState:
        return self.env.state

    @property
    def over(self) -> bool:
        return self.state.phase == Phase.GAME_OVER

    @property
    def my_turn(self) -> bool:
        env = self.env
        return not self.over and env.agent_selection == env.possible_agents[self.seat]

    def legal(self) -> list[tuple[int, str]]:
        """The person's legal moves now, (action id, text); none when it is not his turn."""
        if not self.my_turn:
            return []
        mask = self.env.observe(self.env.agent_selection)["action_mask"]
        return [(int(a), str(self.env.codec.decode(int(a), self.state))) for a in legal_moves(mask)]

    def _step(self, seat: int, a: int) -> None:
        move = self.env.codec.decode(a, self.state)
        before = self.state.last_result
        laid = [(int(m.owner), _cards(m.cards)) for m in self.state.table]
        self.env.step(a)
        self.log.append((seat, str(move)))
        res = self.state.last_result
        if res is not None and res is not before:
            self.results.append(describe_result(res, self.env.rules))
            if self.over:  # the final table
                laid = [(int(m.owner), _cards(m.cards)) for m in self.state.table]
            elif isinstance(move, M.Meld):  # the next round is dealt: the table as it was
                laid.append((seat, list(move.cards)))
            elif isinstance(move, M.LayOff) and move.meld < len(laid):
                laid[move.meld][1].append(move.card)
            self.summaries.append(round_summary(res, self.env.rules, laid))

    def advance(self) -> None:
        """Let the agents play until it is the person's turn or the game is over."""
        env = self.env
        for _ in range(MAX_AGENT_MOVES):
            if self.over:
                return
            agent = env.agent_selection
            if env.terminations.get(agent) or env.truncations.get(agent):
                env.step(None)  # a player out of the match
                continue
            seat = env.agent_name_mapping[agent]
            if seat == self.seat:
                return
            obs = env.observe(agent)
            self._step(seat, int(self.bots[seat].act(obs["observation"], obs["action_mask"])))
        raise RuntimeError(f"the agents made {MAX_AGENT_MOVES} moves in a row without an end")

    def play(self, action: int) -> None:
        """The person's move (checked legal by the caller), then the agents' answers."""
        self._step(self.seat, action)
        self.advance()


class TooManyGames(Exception):
    """No room for another game in play (the caller answers 429)."""


class PlayGames:
    """The games in play, by token. A new game beyond ``limit`` games on the server, or
    beyond ``per_client`` games from one client address, is refused (:class:`TooManyGames`);
    to make room, only finished games and games untouched for ``idle`` seconds are dropped
    (the least recently used first), never a game in progress."""

    def __init__(
        self,
        limit: int = MAX_PLAY_GAMES,
        per_client: int = MAX_CLIENT_GAMES,
        idle: float = IDLE_SECONDS,
        clock: Any = time.monotonic,
    ):
        self.limit = limit
        self.per_client = per_client
        self.idle = idle
        self.clock = clock
        self._games: OrderedDict[str, PlayGame] = OrderedDict()
        self._lock = threading.Lock()

    def _active(self, game: PlayGame, now: float) -> bool:
        return game.env is not None and not game.over and now - game.touched < self.idle

    def _room(self, client: str) -> None:
        """Raise :class:`TooManyGames` unless ``client`` may start a game now (lock held);
        drops what may be dropped to make room."""
        now = self.clock()
        mine = [t for t, x in self._games.items() if x.client == client]
        if sum(self._active(self._games[t], now) for t in mine) >= self.per_client:
            raise TooManyGames(
                f"you have {self.per_client} games in play on this server, the most one client "
                "may have: finish one (or leave one untouched for "
                f"{self.idle / 60:g} minutes) before starting another"
            )
        for token in mine:  # the client's own finished or abandoned games make room first
            if len(self._games) < self.limit:
                break
            if not self._active(self._games[token], now):
                del self._games[token]
        for token in list(self._games):
            if len(self._games) < self.limit:
                break
            if not self._active(self._games[token], now):
                del self._games[token]
        if len(self._games) >= self.limit:
            raise TooManyGames(
                f"the server has {self.limit} games in play, the most it holds: try again "
                "in a few minutes"
            )

    def check(self, client: str) -> None:
        """Raise :class:`TooManyGames` unless ``client`` may start a game now."""
        with self._lock:
            self._room(client)

    def add(self, game: PlayGame) -> None:
        """Keep ``game`` (its ``client`` set), or raise :class:`TooManyGames`."""
        with self._lock:
            self._room(game.client)
            game.touched = self.clock()
            self._games[game.token] = game

    def get(self, token: str) -> PlayGame | None:
        with self._lock:
            game = self._games.get(token)
            if game is not None:
                self._games.move_to_end(token)
                game.touched = self.clock()
            return game

    def __len__(self) -> int:
        return len(self._games)


def _int(text: str | None, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """``text`` as an int in ``lo..hi``, else a 400 naming ``what``."""
    t = str(text).strip()
    if not re.fullmatch(r"[+-]?\d{1,30}", t):
        abort(400, description=f"{what} must be a whole number, got {str(text)[:40]!r}")
    v = int(t)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        abort(400, description=f"{what} must be in {lo}..{hi}, got {v}")
    return v


# ---- agents from clients
def player_counts(preset: str) -> list[int]:
    """The player counts ``preset`` allows (up to :data:`MAX_SEATS`)."""
    out = []
    for k in range(2, MAX_SEATS + 1):
        try:
            rummy_env.make_rules(preset, num_players=k)
        except ValueError:
            continue
        out.append(k)
    return out


def _written_for(name: str) -> tuple[str, ...]:
    """The presets an agent written for particular presets plays; () for any preset."""
    return WRITTEN_FOR.get(name) or tuple(p for p, a in agents.VARIANT_AGENTS.items() if a == name)


@functools.cache
def offered(preset: str, players: int) -> tuple[str, ...]:
    """The agent specs the play form offers for ``preset`` with ``players`` players: the
    registry's agents that play it (an agent written for other presets is left out), the
    shipped models trained for it and ``variant``; never a bare model kind (``ppo``, ``es``,
    ``rllib``: they need a model file)."""
    rules = rummy_env.make_rules(preset, num_players=players)
    out = []
    for spec in agents.available():
        name = spec.split(":", 1)[0]
        if spec in MODEL_AGENTS:
            continue
        if _written_for(name) and preset not in _written_for(name):
            continue
        try:
            agents.make(spec, rules, 1)
        except Exception:  # noqa: BLE001 - any agent that cannot be made is not offered
            continue
        out.append(spec)
    return tuple(out)


def _inside(text: str, dirs: tuple[Path, ...]) -> Path | None:
    """The file ``text`` names (relative to a folder of ``dirs``, or absolute), resolved, when
    it lies inside one of ``dirs``; else None. A path outside is refused by its text alone,
    before the file system is asked anything about it."""
    if "\x00" in text:
        return None
    for d in dirs:
        lexical = os.path.normpath(os.path.join(d, text))
        if not lexical.startswith(str(d) + os.sep):
            continue
        real = Path(os.path.realpath(lexical))
        if real.is_relative_to(d) and real != d:
            return real
    return None


def _client_option(name: str, key: str, value: Any) -> Any:
    """One option of agent ``name`` from a client, checked against :data:`OPTION_CAPS`
    (400 beyond)."""
    if isinstance(value, str):
        if len(value) > 40:
            abort(400, description=f"{name}'s {key} is too long ({len(value)} characters)")
        return value
    if value is None or isinstance(value, bool):
        return value
    lo, hi = OPTION_CAPS.get(name, {}).get(key, (-MAX_OPTION, MAX_OPTION))
    if (isinstance(value, float) and not math.isfinite(value)) or not lo <= value <= hi:
        abort(400, description=f"{name}'s {key} must be in {lo:g}..{hi:g} here, got {value!r}")
    return value


def client_agent(
    spec: str, rules: rummy_env.RuleSet, seat: int, model_dirs: tuple[Path, ...] = ()
) -> tuple[agents.Agent, str]:
    """The agent a client asked for at ``seat``, and its spec, or a 400 that says why.

    A client names agents by registry name (:func:`offered`); a model is a shipped model's
    name, or a file inside a folder the server was started with (``--allow-model``): any
    other model is refused with one answer, whether or not such a file exists, and is never
    read. Options are refused beyond :data:`OPTION_CAPS` and :data:`MAX_OPTION` (not
    clamped: the message gives the allowed range)."""
    where = f"the agent at seat {seat}"
    if len(spec) > MAX_SPEC:
        abort(400, description=f"{where}: the spec is too long ({len(spec)} characters)")
    try:
        name, opts = agents.parse_spec(spec, rules)
    except ValueError as e:
        abort(400, description=f"{where}: {e}")
    offer = offered(rules.name, rules.num_players)
    cls = agents.agent_class(name, rules)
    unknown = sorted(set(opts) - set(cls.options()))
    if unknown:
        abort(
            400,
            description=f"{where}: agent {name!r} has no option(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(cls.options()) or 'none'})",
        )
    if name in MODEL_AGENTS:
        model = opts.get("model")
        if f"{name}:{model}" in offer:
            pass
        elif isinstance(model, str) and (path := _inside(model, model_dirs)) is not None:
            opts["model"] = str(path)
        else:
            shipped = [s for s in offer if s.split(":", 1)[0] in (name, agents.TRAINED)]
            abort(
                400,
                description=f"{where}: {name} takes a shipped model by name here, not "
                f"{str(model)!r} (for {rules.name} with {rules.num_players} players: "
                f"{', '.join(shipped) or 'none'}); model files only from folders the server "
                "was started with (--allow-model)",
            )
    elif name not in {agents.parse_spec(s, rules)[0] for s in offer}:
        abort(
            400,
            description=f"{where}: {name!r} does not play {rules.name} with "
            f"{rules.num_players} players (agents for it: {', '.join(offer)})",
        )
    if "guide" in opts and opts["guide"] is not None:
        guide = str(opts["guide"])
        if guide not in offer or ":" in guide or guide == name:
            abort(
                400,
                description=f"{where}: the guide must be one of {', '.join(g for g in offer if ':' not in g and g != name)}",
            )
    for key in list(opts):
        if key not in ("model", "guide"):
            opts[key] = _client_option(name, key, opts[key])
    try:
        return agents.make(name, rules, seat, **opts), spec
    except ImportError as e:
        abort(400, description=f"{where} needs a package not installed: {e.name or e}")
    except Exception as e:  # noqa: BLE001 - the agent's own checks of its options
        abort(400, description=f"{where}: {e}")


def new_play_game(form: dict[str, str], model_dirs: tuple[Path, ...] = ()) -> PlayGame:
    """A game from the play form's fields: ``preset``, ``players``, ``seat``, ``match``
    (``"1"``: a whole match) and ``opp<k>``, the agent spec at seat ``k`` (default
    ``variant``, the preset's own agent; checked by :func:`client_agent`). Bad input is a
    400 with the reason."""
    preset = form.get("preset", "basic")
    if preset not in rummy_env.PRESETS:
        abort(
            400,
            description=f"unknown preset {preset[:40]!r} (allowed: {', '.join(rummy_env.PRESETS)})",
        )
    players = _int(form.get("players", "2"), "the number of players")
    match = form.get("match", "") in ("1", "on", "true")
    try:
        env = rummy_env.raw_env(preset, num_players=players, **({"match": True} if match else {}))
    except ValueError as e:
        abort(400, description=str(e))
    seat = _int(form.get("seat", "0"), "your seat", 0, players - 1)
    bots: dict[int, agents.Agent] = {}
    names = []
    for k in range(players):
        if k == seat:
            names.append("you")
            continue
        spec = (form.get(f"opp{k}") or agents.VARIANT).strip()
        bots[k], spec = client_agent(spec, env.rules, k, model_dirs)
        names.append(spec)
    seed = secrets.randbits(31)  # never sent before the game is over: it would reveal the deal
    for k, bot in bots.items():
        bot.reset(seed=seed * 1009 + k)
    env.reset(seed=seed)
    kept = {k: form[k] for k in ("preset", "players", "seat", "match") if k in form}
    kept.update({f"opp{k}": names[k] for k in bots})
    game = PlayGame(secrets.token_urlsafe(16), env, seat, bots, names, seed, kept)
    game.advance()
    return game


# ------------------------------------------------------------------ the store, read only
def _tables(con: sqlite3.Connection) -> dict[str, list[str]]:
    names = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        n: [r[1] for r in con.execute(f"PRAGMA table_info({n})")] for n in _COLUMNS if n in names
    }


def open_store(path: str | Path, timeout: float = 10.0) -> sqlite3.Connection | None:
    """The tournament store at ``path``, opened read only: nothing is ever written to it (its
    schema, its journal mode), so any database may be pointed at. On read-only media a store
    that SQLite cannot open read only in the usual way (a WAL store whose shared-memory file
    cannot be made) is opened as immutable. None for a database with no tables yet (an
    empty store); a store from before move lists reads as one whose games have no moves.

    Raises:
        UsageError: a directory, a missing file, a file that is not SQLite, or a database
            that holds other tables than a tournament's.
    """
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"--db {p.name!r} is a directory; give a tournament store (a file)")
    if not p.is_file():
        raise UsageError(f"--db {p.name!r} does not exist")
    uri = "file:" + urllib.parse.quote(str(p.resolve())) + "?mode=ro"
    con = None
    try:
        try:
            con = sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False)
            have = _tables(con)
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise
            if con is not None:
                con.close()
            con = sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False)
            have = _tables(con)
        all_tables = con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error as e:
        if con is not None:
            con.close()
        why = str(e)
        if "not a database" in why or "malformed" in why:
            raise UsageError(f"--db {p.name!r} is not an SQLite database ({why})") from None
        raise UsageError(f"--db {p.name!r} cannot be read ({why})") from None
    if not have and not all_tables:
        con.close()
        return None
    games = _COLUMNS["games"]
    if have.get("configs") != _COLUMNS["configs"] or have.get("games") not in (games, games[:-1]):
        con.close()
        raise UsageError(
            f"--db {p.name!r} is not a tournament store (its tables: "
            f"{', '.join(have) or 'none of a tournament'}); give the store rummy-tournament wrote"
        )
    if have["games"] == games[:-1]:  # before move lists: a view with no moves, in memory only
        con.execute("CREATE TEMP VIEW games AS SELECT *, NULL AS moves FROM main.games")
    return con


def _scrub_roots() -> list[str]:
    roots = {
        str(Path(__file__).resolve().parents[1]),
        sys.prefix,
        sys.base_prefix,
        tempfile.gettempdir(),
        str(Path.home()),
        *sysconfig.get_paths().values(),
    }
    return sorted((r for r in roots if r and r != os.sep), key=len, reverse=True)


_ABS_PATH = re.compile(r"(?<![\w.:/])(?:/[\w.+@-]+){2,}/")


def scrub(text: str, extra: tuple[str, ...] = ()) -> str:
    """``text`` without file system paths: the folders of an absolute path are cut, so only
    its last part (a file's name) is left."""
    for root in [*sorted(extra, key=len, reverse=True), *_scrub_roots()]:
        text = text.replace(root + os.sep, "").replace(root, "")
    return _ABS_PATH.sub("", text)


# ------------------------------------------------------------------ the app
class Web:
    """What the app holds: the store's path, caches of leaderboards and replays, the games in
    play, and the folders model files may be read from."""

    def __init__(
        self,
        db_path: str | Path,
        cache_dir: str | Path | None = None,
        model_dirs: tuple[str | Path, ...] = (),
        play: PlayGames | None = None,
    ):
        self.db_path = Path(db_path)
        if cache_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="rummy-web-")
            cache_dir = self._tmp.name
        self.cache_dir = Path(cache_dir)
        self.model_dirs = tuple(Path(d).resolve() for d in model_dirs)
        self.boards: dict[str, tuple[tuple[int, int], Board | None]] = {}
        self.replays: OrderedDict[tuple, tuple[list[GameState], list[Step]]] = OrderedDict()
        self.play = play if play is not None else PlayGames()
        self._computing: set[str | None] = set()  # leaderboards being computed in the background
        self._computing_lock: dict[str, threading.Lock] = {}  # one computation of each at a time
        self._labels: tuple[tuple[int, int], list[str]] | None = None
        self._deciders: dict[tuple[str, str, int], tuple[agents.Agent, Any] | None] = {}
        self._lock = threading.Lock()

    def private(self) -> tuple[str, ...]:
        """Paths no response may show."""
        return (
            str(self.cache_dir),
            str(self.cache_dir.resolve()),
            str(self.db_path.resolve().parent),
            *map(str, self.model_dirs),
        )

    def store(self, required: bool = True) -> sqlite3.Connection | None:
        """The store, open read only for the request (closed when it ends); where it does
        not exist or holds no tables yet, a 404, or None when not ``required``."""
        if "rummy_con" not in g:
            con = None
            if self.db_path.is_file():
                try:
                    con = open_store(self.db_path)
                except UsageError as e:
                    abort(503, description=str(e))
            if con is None:
                if not required:
                    return None
                abort(
                    404,
                    description=f"no tournament store with games at {self.db_path.name!r} yet: run "
                    f"rummy-tournament --db {self.db_path.name} first",
                )
            g.rummy_con = con
        return g.rummy_con

    @staticmethod
    def _board_key(con: sqlite3.Connection, config: str) -> tuple[int, int]:
        return con.execute(
            "SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM games WHERE config = ?", (config,)
        ).fetchone()

    def board(self, con: sqlite3.Connection, config: str) -> Board | None:
        """The leaderboard of ``config``. Once its games changed, the last one computed is
        served while a fresh one is computed in the background (on a store of 100,000 games
        that takes seconds); only the first is computed in the request."""
        key = self._board_key(con, config)
        with self._lock:
            cached = self.boards.get(config)
            if cached is not None and (cached[0] == key or cached[1] is not None):
                if cached[0] != key and config not in self._computing:
                    self._computing.add(config)
                    threading.Thread(
                        target=self.refresh, args=(config,), name="rummy-web-board", daemon=True
                    ).start()
                return cached[1]
            computing = self._computing_lock.setdefault(config, threading.Lock())
        with computing:  # one computation at a time: a second request waits for the first's
            with self._lock:
                cached = self.boards.get(config)
            if cached is not None and cached[0] == key:
                return cached[1]
            return self._compute(con, config, key)

    def refresh(self, config: str | None = None) -> None:
        """Compute the leaderboard of ``config`` (None: of every configuration) on a
        connection of its own; a failure is logged and the last board stays."""
        con = None
        try:
            con = open_store(self.db_path) if self.db_path.is_file() else None
            names = [config] if config else []
            if con is not None and not config:
                names = [c for (c,) in con.execute("SELECT config FROM configs")]
            for c in names if con is not None else []:
                try:
                    with self._lock:
                        computing = self._computing_lock.setdefault(c, threading.Lock())
                    with computing:
                        self._compute(con, c, self._board_key(con, c))
                except Exception:  # noqa: BLE001 - in the background: the next request tries again
                    logging.getLogger(__name__).exception("the leaderboard of %s", c)
        except (UsageError, sqlite3.Error):
            logging.getLogger(__name__).exception("the leaderboards of %s", self.db_path.name)
        finally:
            if con is not None:
                con.close()
            with self._lock:
                self._computing.discard(config)

    def _compute(self, con: sqlite3.Connection, config: str, key: tuple[int, int]) -> Board | None:
        n, last = key
        got = summary_of(con, config) if n else None
        board = None
        if got is not None:
            summary, rules, games = got
            rows = board_order(summary_rows(summary))
            (deals,) = con.execute(
                "SELECT COUNT(DISTINCT seed) FROM games WHERE config = ?", (config,)
            ).fetchone()
            board = Board(
                config=config,
                rules=rules,
                games=games,
                deals=deals,
                rows=rows,
                cross=_cross_cells(summary, [r["agent"] for r in rows]),
                summary=summary,
                out=self.cache_dir / f"{config}-{n}-{last}",
                name=f"{rules.name}_{rules.num_players}p" + ("_match" if rules.match else ""),
                overrides=_overrides(rules),
            )
        with self._lock:
            self.boards[config] = (key, board)
        return board

    def labels(self, con: sqlite3.Connection) -> list[str]:
        """Every agent label in the store's games (cached until the games change)."""
        key = con.execute("SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM games").fetchone()
        with self._lock:
            if self._labels is not None and self._labels[0] == key:
                return self._labels[1]
        got = _agent_labels(con)
        with self._lock:
            self._labels = (key, got)
        return got

    def decider(self, game: StoredGame, seat: int) -> tuple[agents.Agent, Any] | None:
        """The agent behind a stored game's decisions at ``seat``, with its rules' action
        codec, where it gives its move probabilities (its own ``action_probs``: the random
        agent, the networks); None for any other, and for any label the play form would not
        offer for these rules (a store names no file to read)."""
        label = game.agents[seat] if 0 <= seat < len(game.agents) else ""
        key = (label, repr(game.rules), seat)
        with self._lock:
            if key in self._deciders:
                return self._deciders[key]
        got = None
        try:
            if label in offered(game.rules.name, game.rules.num_players):
                agent = agents.make(label, game.rules, seat)
                if type(agent).action_probs is not agents.Agent.action_probs:
                    got = (agent, M.ActionCodec(game.rules))
        except Exception:  # noqa: BLE001 - rules or an agent this version cannot make
            got = None
        with self._lock:
            self._deciders[key] = got
        return got

    def replay(self, game: StoredGame) -> tuple[list[GameState], list[Step]]:
        """The states of a stored game (the deal, then after every move) and its steps.

        Raises:
            ValueError: stored without moves, or under rules this engine no longer takes.
            ReplayMismatch: the moves do not replay to the stored scores.
        """
        key = (str(self.db_path), game.id, game.seed, tuple(game.moves or ()))
        with self._lock:
            if key in self.replays:
                self.replays.move_to_end(key)
                return self.replays[key]
        states, steps = replay_states(game)
        with self._lock:
            self.replays[key] = (states, steps)
            while len(self.replays) > MAX_REPLAYS:
                self.replays.popitem(last=False)
        return states, steps


bp = Blueprint("rummy", __name__)


def _web() -> Web:
    return current_app.extensions["rummy_web"]


def render(template: str, status: int = 200, **ctx: Any) -> tuple[str, int]:
    return _render(template, **ctx), status


@bp.teardown_app_request
def _close_store(exc: BaseException | None) -> None:
    con = g.pop("rummy_con", None)
    if con is not None:
        con.close()


@bp.app_errorhandler(HTTPException)
def _error(e: HTTPException) -> Response:
    """A page that says what was wrong: never a traceback, and no file system path."""
    message = scrub(str(e.description or ""), _web().private())
    page, code = render("error.html", e.code or 500, code=e.code, name=e.name, message=message)
    resp = Response(page, code, mimetype="text/html")
    if getattr(e, "retry_after", None) is not None:
        resp.headers["Retry-After"] = str(e.retry_after)
    return resp


@bp.before_app_request
def _nonce() -> None:
    g.csp_nonce = secrets.token_urlsafe(16)


def csp_nonce() -> str:
    """The request's nonce, the one mark of the page's own scripts and styles."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    return g.csp_nonce


@bp.after_app_request
def _security_headers(resp: Response) -> Response:
    """Every response: only the page's own scripts and styles run (a nonce), images from
    the app, no framing, no type sniffing, no referrer beyond the app."""
    n = csp_nonce()
    resp.headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'nonce-{n}'; style-src 'nonce-{n}'; "
        "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )
    resp.headers["X-Frame-Options"] = "DENY"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "same-origin"
    resp.headers["Cross-Origin-Opener-Policy"] = "same-origin"
    return resp


# ---- leaderboard
@bp.get("/")
def leaderboard() -> tuple[str, int]:
    web = _web()
    boards: list[Board] = []
    unread: list[tuple[str, str]] = []  # configurations this engine cannot read, and why
    con = web.store(required=False)
    if con is not None:
        configs = con.execute("SELECT config FROM configs ORDER BY preset, players, config")
        for (config,) in configs.fetchall():
            try:
                board = web.board(con, config)
            except UNREADABLE as e:  # rules or rows of another version, or crafted ones
                unread.append((config, scrub(str(e), web.private())))
                continue
            if board is not None:
                boards.append(board)
    return render(
        "leaderboard.html",
        boards=boards,
        unread=unread,
        order_rule=ORDER_RULE,
        db=web.db_path.name,
        store=con is not None,
    )


_FILES = ("_ratings.png", "_crosstable.png", "_summary.csv", "_crosstable.csv", ".md")


@bp.get("/results/<config>/<path:filename>")
def result_file(config: str, filename: str) -> Response:
    """A file of the tournament's results (plots, CSV, report), written on first request."""
    web = _web()
    con = web.store()
    exists = con.execute("SELECT 1 FROM configs WHERE config = ?", (config,)).fetchone()
    if exists is None:
        abort(404, description=f"no configuration {config!r} in the store")
    try:
        board = web.board(con, config)
    except UNREADABLE as e:
        abort(422, description=f"configuration {config!r} cannot be read by this version: {e}")
    if board is None:
        abort(404, description=f"configuration {config!r} has no games yet")
    if filename not in [board.name + s for s in _FILES]:
        abort(
            404,
            description=f"no file {filename!r} (files: {', '.join(board.name + s for s in _FILES)})",
        )
    data = (board.files() / filename).read_bytes()
    kind = {"png": "image/png", "csv": "text/csv", "md": "text/markdown"}[
        filename.rsplit(".", 1)[1]
    ]
    return Response(data, mimetype=kind)


# ---- game browser
def _agent_labels(con: sqlite3.Connection) -> list[str]:
    labels: set[str] = set()
    for (a,) in con.execute("SELECT DISTINCT agents FROM games WHERE json_valid(agents)"):
        got = json.loads(a)
        if isinstance(got, list):
            labels.update(x for x in got if isinstance(x, str))
    return sorted(labels)


def _json(text: Any) -> Any:
    """A stored JSON field, or None where it is not JSON."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


@dataclass
class GameRow:
    """One line of the games list, read from the store's small columns only (the moves are
    neither read nor unpacked); a field that cannot be read shows as ``?``."""

    id: int
    seed: Any
    preset: str
    agents: list[str]
    round_scores: str
    rewards: str
    winner: str
    moves: int | None

    @property
    def players(self) -> int | str:
        return len(self.agents) or "?"


#: the games list's filters: query field -> SQL condition on a games row
GAME_FILTERS = {
    "config": "config = ?",
    "preset": "preset = ?",
    "seed": "seed = ?",
    "players": "json_valid(agents) AND json_array_length(agents) = ?",
    "agent": "json_valid(agents) AND ? IN (SELECT value FROM json_each(games.agents))",
    "winner": "json_valid(agents) AND winner >= 0 AND json_extract(agents, '$[' || winner || ']') = ?",
}


def list_rows(
    con: sqlite3.Connection, limit: int, offset: int, **where: str | int | None
) -> list[GameRow]:
    """Stored games by id, a page at a time, filtered by the fields of :data:`GAME_FILTERS`
    (a configuration, a preset, a deal seed, a player count, an agent taking part, the
    winner's agent); SQL does the filtering and the paging."""
    filters = [(GAME_FILTERS[k], v) for k, v in where.items() if v not in (None, "")]
    where = [sql for sql, _ in filters]
    params: list[Any] = [value for _, value in filters]
    sql = (
        "SELECT rowid, seed, preset, agents, round_scores, rewards, winner, decisions, "
        "moves IS NOT NULL FROM games"
        + (" WHERE " + " AND ".join(where) if where else "")
        + " ORDER BY rowid LIMIT ? OFFSET ?"
    )
    out = []
    for gid, seed_, preset_, names, scores, rewards, winner, moves, stored in con.execute(
        sql, [*params, limit, offset]
    ):
        names = _json(names)
        names = [str(x) for x in names] if isinstance(names, list) else []
        scores = _json(scores)
        rounds = " ".join(map(str, scores)) if isinstance(scores, list) else "?"
        rewards = _json(rewards)
        if isinstance(winner, int) and 0 <= winner < len(names):
            won = f"player_{winner} ({names[winner]})"
        else:
            won = "-" if winner is None else "?"
        out.append(
            GameRow(
                id=gid,
                seed=seed_,
                preset=str(preset_),
                agents=names,
                round_scores=rounds,
                rewards=str(rewards) if isinstance(rewards, list) else "?",
                winner=won,
                moves=moves if stored else None,
            )
        )
    return out


@bp.get("/games")
def games() -> tuple[str, int]:
    web = _web()
    con = web.store()
    form = {k: request.args.get(k, "").strip()[:200] for k in GAME_FILTERS}
    where: dict[str, str | int | None] = {k: v or None for k, v in form.items()}
    if form["seed"]:
        where["seed"] = _int(form["seed"], "the deal seed", 0, MAX_SQL_INT)
    if form["players"]:
        where["players"] = _int(form["players"], "the number of players", 1, 64)
    page = _int(request.args.get("page", "1"), "the page", 1, 10**9)
    found = list_rows(con, PAGE_SIZE + 1, (page - 1) * PAGE_SIZE, **where)
    presets = [p for (p,) in con.execute("SELECT DISTINCT preset FROM configs ORDER BY preset")]
    counts = [n for (n,) in con.execute("SELECT DISTINCT players FROM configs ORDER BY players")]
    configs = {}
    for c, rules in con.execute("SELECT config, rules FROM configs ORDER BY preset, players"):
        try:
            configs[c] = Board.title_of(_rules(rules))
        except (TypeError, ValueError):
            configs[c] = f"{c} (rules of another version)"
    return render(
        "games.html",
        games=found[:PAGE_SIZE],
        more=len(found) > PAGE_SIZE,
        page=page,
        args={k: v for k, v in where.items() if v is not None},
        form=form,
        presets=presets,
        counts=counts,
        configs=configs,
        labels=web.labels(con),
    )


def _stored(con: sqlite3.Connection, game_id: int) -> StoredGame:
    """The stored game ``game_id``: 404 where there is none, 422 where its row cannot be read
    (rules this engine does not know, fields that are not JSON, moves that are not packed)."""
    try:
        if game_id > MAX_SQL_INT:
            raise KeyError(game_id)
        return load_game(con, game_id)
    except KeyError:
        abort(404, description=f"no game {game_id} in the store (the games page lists them)")
    except UNREADABLE as e:
        abort(
            422,
            description=f"game {game_id} cannot be read by this version ({type(e).__name__}: "
            f"{e}); the store holds it as it is",
        )


def _rounds(states: list[GameState]) -> list[tuple[int, int]]:
    """Each round of a replay (numbered from 1) and the step its deal is shown at."""
    out: list[tuple[int, int]] = []
    for k, st in enumerate(states[:-1]):
        if not out or st.round + 1 != out[-1][0]:
            out.append((st.round + 1, k))
    return out


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> tuple[str, int]:
    web = _web()
    stored = _stored(web.store(), game_id)
    try:
        states, steps = web.replay(stored)
    except (ValueError, ReplayMismatch) as e:
        problem = scrub(str(e), web.private())
        return render("game.html", game=stored, problem=problem, steps=[], step=0)
    n = len(steps)
    step = _int(request.args.get("step", "0"), "the step", 0, n)
    final = states[-1].last_result
    return render(
        "game.html",
        game=stored,
        problem=None,
        steps=steps,
        step=step,
        n=n,
        current=steps[step - 1] if step else None,
        scoring=describe_result(final, stored.rules) if final is not None and step == n else None,
        speeds=SPEEDS,
        rounds=_rounds(states),
        replay={
            "frames": url_for("rummy.game_frames", game_id=game_id),
            "n": n,
            "step": step,
            "chunk": 50,
            "rate": REPLAY_RATE,
        },
    )


def _frame(web: Web, stored: StoredGame, states: list[GameState], steps: list[Step], k: int):
    """Frame ``k`` of a replay as data: the table after move ``k`` with every hand shown (as
    the replay's pictures show it), the move, and the decision behind it: the legal moves'
    number and, where the agent gives them, its most likely moves with their probabilities."""
    st = states[k]
    frame: dict[str, Any] = {
        "k": k,
        "view": table_view(st, stored.agents, omniscient=True),
        "round": st.round + 1,
        "result": None,
        "decision": None,
    }
    if k == 0:
        return frame
    step, before = steps[k - 1], states[k - 1]
    frame["round"] = before.round + 1
    if st.last_result is not None and st.last_result != before.last_result:
        frame["result"] = describe_result(st.last_result, stored.rules)
    legal = engine.legal_actions(before)
    decision: dict[str, Any] = {
        "seat": step.seat,
        "agent": step.agent,
        "move": step.move,
        "legal": len(legal),
        "probs": None,
    }
    got = web.decider(stored, step.seat)
    if got is not None and len(legal) > 1:
        agent, codec = got
        mask = np.zeros(codec.num_actions, dtype=np.int8)
        mask[legal] = 1
        try:
            p = agent.action_probs(encode(before, step.seat, obs_layout(stored.rules)), mask)
        except Exception:  # noqa: BLE001 - an agent that cannot say: the move alone is shown
            p = None
        if p is not None:
            top = sorted(legal, key=lambda a: (-p[a], a))[:TOP_ALTERNATIVES]
            if step.action not in top:
                top.append(step.action)
            decision["probs"] = [
                {
                    "words": move_words(codec.decode(a, before)),
                    "p": round(float(p[a]), 4),
                    "chosen": a == step.action,
                }
                for a in top
            ]
    frame["decision"] = decision
    return frame


@bp.get("/games/<int:game_id>/frames.json")
def game_frames(game_id: int) -> Response:
    """Frames ``start`` .. ``start + count - 1`` of a stored game's replay as JSON
    (:func:`_frame`; at most :data:`MAX_FRAMES`), for the replay page's player."""
    web = _web()
    stored = _stored(web.store(), game_id)
    try:
        states, steps = web.replay(stored)
    except (ValueError, ReplayMismatch) as e:
        abort(404, description=scrub(str(e), web.private()))
    n = len(steps)
    start = _int(request.args.get("start", "0"), "start", 0, n)
    count = _int(request.args.get("count", "50"), "count", 1, MAX_FRAMES)
    frames = [
        _frame(web, stored, states, steps, k) for k in range(start, min(n, start + count - 1) + 1)
    ]
    r = jsonify({"game": game_id, "n": n, "frames": frames})
    r.headers["Cache-Control"] = "private, max-age=3600"
    return r


@bp.get("/games/<int:game_id>/frame/<int:k>.png")
def game_frame(game_id: int, k: int) -> Response:
    web = _web()
    stored = _stored(web.store(), game_id)
    try:
        states, _ = web.replay(stored)
    except (ValueError, ReplayMismatch) as e:
        abort(404, description=str(e))
    if not 0 <= k < len(states):
        abort(404, description=f"game {game_id} has frames 0..{len(states) - 1}, not {k}")
    return _png_response(png(draw_table(states[k], omniscient=True)), cache=True)


# ---- play
@bp.get("/play")
def play_form() -> tuple[str, int]:
    """The play form for the preset in the query (default basic): only the player counts it
    allows and, per count, the agents that play it (:func:`offered`) are offered; choosing
    another preset reloads the form for it."""
    form = request.args
    preset = form.get("preset", "basic")
    if preset not in rummy_env.PRESETS:
        preset = "basic"
    counts = player_counts(preset)
    players = form.get("players", "")
    players = int(players) if players.isdigit() and int(players) in counts else counts[0]
    choices = {k: list(offered(preset, k)) for k in counts}
    partners = [k for k in counts if rummy_env.make_rules(preset, num_players=k).partnerships]
    seat = form.get("seat", "0")
    opps = {}
    for k in range(MAX_SEATS):
        spec = form.get(f"opp{k}", agents.VARIANT)
        opps[k] = spec if spec in choices[players] else agents.VARIANT
    return render(
        "play_form.html",
        presets=rummy_env.PRESETS,
        agents=choices[players],
        choices=choices,
        partners=partners,
        counts=counts,
        max_seats=max(counts),
        preset=preset,
        players=players,
        seat=seat if seat.isdigit() and int(seat) < players else "0",
        match=form.get("match", ""),
        opps=opps,
    )


@bp.post("/play")
def play_new() -> Response:
    """A new game (:func:`new_play_game`), or 429 when the client or the server already has
    as many games in play as it may (:class:`PlayGames`): no game in progress is dropped."""
    web = _web()
    client = request.remote_addr or ""
    try:
        web.play.check(client)
        game = new_play_game(request.form.to_dict(), web.model_dirs)
        game.client = client
        web.play.add(game)
    except TooManyGames as e:
        raise TooManyRequests(description=str(e), retry_after=60) from None
    return redirect(url_for("rummy.play_game", token=game.token), 303)


def _play(token: str) -> PlayGame:
    game = _web().play.get(token)
    if game is None:
        abort(
            404,
            description=f"no game {token!r} in play on this server (games in play are kept in "
            "memory: a restart forgets them); start one on the play page",
        )
    return game


def play_hint(legal: list[dict[str, Any]], tiles: bool = False) -> str:
    """What the person may do now, in words, from the legal moves' kinds (``tiles``:
    Rummikub's rack and pool)."""
    kinds = {m["kind"] for m in legal}
    if tiles and kinds == {"DrawStock"}:
        return "no tile can be played now: draw from the pool by clicking it"
    if kinds & {"PlayTile", "Commit"}:
        return (
            "select a tile of your rack to play it, end the turn with the tiles played, or "
            "draw from the pool by clicking it"
        )
    if "Buy" in kinds:
        return "buy the discard (a penalty card from the stock comes with it), or pass"
    if kinds & {"TakePile", "EndRound"} and kinds <= {"DrawStock", "TakePile", "EndRound"}:
        ways = {
            "DrawStock": "draw by clicking the stock",
            "TakePile": "take the whole discard pile: click it, or select the cards of your "
            "hand to meld its top card with",
            "EndRound": "end the round",
        }
        return ", or ".join(w for k, w in ways.items() if k in kinds)
    if kinds and kinds <= {"DrawStock", "DrawDiscard", "Pass", "Drop"}:
        extra = [w for k, w in (("Pass", "pass"), ("Drop", "drop out")) if k in kinds]
        return "draw by clicking the stock or the discard pile" + (
            f" (or {' or '.join(extra)})" if extra else ""
        )
    return "select cards of your hand, then pick one of the moves they make (only legal moves are offered)"


@bp.get("/play/<token>")
def play_game(token: str) -> tuple[str, int]:
    game = _play(token)
    with game.lock:
        legal = legal_view(game.env) if game.my_turn else []
        groups: OrderedDict[str, list[tuple[int, str]]] = OrderedDict()
        for m in legal:
            groups.setdefault(m["group"], []).append((m["id"], m["words"]))
        summary = None
        if game.summaries and (game.over or game.shown < len(game.summaries)):
            summary = game.summaries[-1]  # a round that ended since the person last looked
        game.shown = len(game.summaries)
        phase = game.state.phase.name.lower()
        rules = game.env.rules
        partner = partner_of(rules, game.seat)
        roles = [
            "you" if p == game.seat else "partner" if p == partner else "opponent"
            for p in range(rules.num_players)
        ]
        return render(
            "play.html",
            roles=roles if partner is not None else None,
            sides=[side_of(rules, p) for p in range(rules.num_players)]
            if rules.scoring == "canasta"
            else None,
            game=game,
            groups=groups,
            legal=legal,
            view=table_view(game.state, game.names, viewer=game.seat),
            summary=summary,
            frame=len(game.log),
            phase=phase,
            hint=play_hint(legal, game.env.rules.scoring == "rummikub"),
        )


@bp.post("/play/<token>/move")
def play_move(token: str) -> Response:
    game = _play(token)
    text = request.form.get("action", request.args.get("action"))
    if text is None:
        abort(400, description="no move: post the action id as the form field 'action'")
    action = _int(text, "the move (an action id)")
    with game.lock:
        if game.over:
            abort(400, description="the game is over: no more moves (start a new one)")
        legal = dict(game.legal())
        if action not in legal:
            abort(
                400,
                description=f"move {action} is not legal now (legal ids: "
                f"{', '.join(map(str, legal))}); the game is unchanged",
            )
        game.play(action)
    return redirect(url_for("rummy.play_game", token=token), 303)


@bp.get("/play/<token>/table.png")
def play_frame(token: str) -> Response:
    game = _play(token)
    with game.lock:
        rgb = draw_table(game.state, viewer=game.seat)  # every hand once the game is over
    return _png_response(png(rgb), cache=False)


# ------------------------------------------------------------------ templates
_BASE = (
    """<!doctype html>
<html lang="en" class="no-js"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{% block title %}rummy-env{% endblock %} · rummy-web</title>
<link rel="icon" href="data:,">
<style nonce="{{ csp_nonce() }}">
body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #f4f4f0; }
header { background: #15603a; color: #fff; padding: .6rem 1.2rem; display: flex; gap: 1.4rem;
  align-items: baseline; }
header a { color: #fff; text-decoration: none; font-weight: 600; }
header a.here { text-decoration: underline; }
header .brand { font-size: 1.15rem; margin-right: 1rem; }
main { padding: 1rem 1.2rem; max-width: 1100px; }
table { border-collapse: collapse; margin: .5rem 0 1rem; background: #fff; }
th, td { border: 1px solid #ccc; padding: .3rem .55rem; text-align: left; font-size: .92rem; }
th { background: #e6ece8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
img.table { max-width: 100%; border-radius: 6px; display: block; }
.muted { color: #666; }
.error { background: #fde8e8; border: 1px solid #e0a0a0; padding: .8rem 1rem; border-radius: 6px; }
.note { background: #fff7dd; border: 1px solid #e8d48a; padding: .6rem 1rem; border-radius: 6px; }
form.inline { display: inline; }
button, .button { font: inherit; padding: .35rem .75rem; border-radius: 5px; border: 1px solid #15603a;
  background: #fff; color: #15603a; cursor: pointer; text-decoration: none; display: inline-block; }
button:hover, .button:hover { background: #15603a; color: #fff; }
.button.disabled { border-color: #bbb; color: #bbb; pointer-events: none; }
.moves button { margin: .15rem; }
.log { max-height: 16rem; overflow-y: auto; background: #fff; border: 1px solid #ccc;
  padding: .4rem .8rem .4rem 3.2rem; font-size: .9rem; margin: .5rem 0; position: relative; }
.log li.here { background: #fff0b3; }
pre.scoring { background: #fff; border: 1px solid #ccc; padding: .8rem 1rem; white-space: pre-wrap; }
.cols { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; }
.plots img { max-width: 100%; background: #fff; border: 1px solid #ddd; margin: .3rem 0; }
label { margin-right: .8rem; }
#opponents tr.partner td { background: #e8f1fc; font-weight: 700; }
"""
    + _HEAT_CSS
    + """</style>{% block head %}{% endblock %}</head>
<body>
<header><span class="brand">rummy-web</span>
<a href="{{ url_for('rummy.leaderboard') }}" {% if nav == 'board' %}class="here"{% endif %}>Leaderboard</a>
<a href="{{ url_for('rummy.games') }}" {% if nav == 'games' %}class="here"{% endif %}>Games</a>
<a href="{{ url_for('rummy.play_form') }}" {% if nav == 'play' %}class="here"{% endif %}>Play</a>
</header>
<main>{% block main %}{% endblock %}</main>
{% block script %}{% endblock %}
</body></html>
"""
)

_ERROR = """{% extends "base.html" %}
{% block title %}{{ code }} {{ name }}{% endblock %}
{% block main %}
<h1>{{ code }} {{ name }}</h1>
<p class="error" id="error">{{ message }}</p>
<p><a href="{{ url_for('rummy.leaderboard') }}">Leaderboard</a> ·
<a href="{{ url_for('rummy.games') }}">Games</a> · <a href="{{ url_for('rummy.play_form') }}">Play</a></p>
{% endblock %}
"""

_LEADERBOARD = """{% extends "base.html" %}{% set nav = 'board' %}
{% block title %}Leaderboard{% endblock %}
{% block main %}
<h1>Leaderboard</h1>
{% if not store %}
<p class="note">No tournament store at <code>{{ db }}</code> yet. Run a tournament first, e.g.
<code>rummy-tournament --preset basic --agents random,greedy,variant --deals 100 --db {{ db }}</code>,
then reload. The <a href="{{ url_for('rummy.play_form') }}">play page</a> works without one.</p>
{% elif not boards and not unread %}
<p class="note">The store <code>{{ db }}</code> holds no games yet.</p>
{% endif %}
{% for config, why in unread %}
<p class="error">Configuration <code>{{ config }}</code> cannot be read by this version: {{ why }}</p>
{% endfor %}
{% for b in boards %}
<section class="board" id="config-{{ b.config }}">
<h2>{{ b.title }}</h2>
<p class="muted">{{ b.games }} games over {{ b.deals }} duplicate deals ·
scoring {{ b.rules.scoring }} · rule overrides:
{% if b.overrides %}{% for k, v in b.overrides.items() %}<code>{{ k }}={{ v }}</code> {% endfor %}{% else %}none{% endif %}
· configuration <code>{{ b.config }}</code> ·
<a href="{{ url_for('rummy.games', config=b.config) }}">browse these games</a></p>
<p id="order">Score = the agent's reward per round (higher is better), with 95% intervals over
deals ("-": not known, e.g. over a single deal); {{ order_rule }}.</p>
<table class="ratings">
<tr><th>#</th><th>agent</th><th>games</th><th>score/round [95% CI]</th><th>win rate [95% CI]</th>
<th>OpenSkill mu ± 1.96 sd</th>{% if b.summary.elo %}<th>Elo (BT) ± 1.96 se</th>{% endif %}</tr>
{% for r in b.rows %}
<tr><td class="num">{{ loop.index }}</td>
<td><a href="{{ url_for('rummy.games', agent=r.agent, config=b.config) }}">{{ r.agent }}</a></td>
<td class="num">{{ r.games }}</td>
<td class="num">{{ interval(r.score_mean, r.score_lo, r.score_hi) }}</td>
<td class="num">{{ interval(r.win_rate, r.win_lo, r.win_hi, 3) }}</td>
<td class="num">{{ plus_minus(r.openskill_mu, r.openskill_sigma) }}</td>
{% if b.summary.elo %}<td class="num">{{ plus_minus(r.elo, r.elo_se, 0) }}</td>{% endif %}
</tr>{% endfor %}
</table>
<p>Head to head: mean score difference per round, row minus column [95% CI]:</p>
<table class="crosstable">
<tr><th></th>{% for a, _ in b.cross %}<th>{{ a }}</th>{% endfor %}</tr>
{% for a, cells in b.cross %}<tr><th>{{ a }}</th>
{% for text, heat, _ in cells %}<td class="num {{ heat }}">{{ text }}</td>{% endfor %}
</tr>{% endfor %}
</table>
<div class="plots">
<img loading="lazy" alt="ratings of {{ b.title }}" src="{{ url_for('rummy.result_file', config=b.config, filename=b.name ~ '_ratings.png') }}">
<img loading="lazy" alt="crosstable of {{ b.title }}" src="{{ url_for('rummy.result_file', config=b.config, filename=b.name ~ '_crosstable.png') }}">
</div>
<p class="muted">Download: {% for s in ['.md', '_summary.csv', '_crosstable.csv'] %}
<a href="{{ url_for('rummy.result_file', config=b.config, filename=b.name ~ s) }}">{{ b.name ~ s }}</a>{{ ' · ' if not loop.last }}{% endfor %}</p>
</section>
{% endfor %}
{% endblock %}
"""

_GAMES = """{% extends "base.html" %}{% set nav = 'games' %}
{% block title %}Games{% endblock %}
{% block main %}
<h1>Stored games</h1>
<form method="get" action="{{ url_for('rummy.games') }}" id="filters">
<label>tournament <select name="config"><option value="">any</option>
{% for c, title in configs.items() %}<option value="{{ c }}" {% if c == form.config %}selected{% endif %}>{{ title }}</option>{% endfor %}</select></label>
<label>preset <select name="preset"><option value="">any</option>
{% for p in presets %}<option {% if p == form.preset %}selected{% endif %}>{{ p }}</option>{% endfor %}</select></label>
<label>players <select name="players"><option value="">any</option>
{% for n in counts %}<option {% if n|string == form.players %}selected{% endif %}>{{ n }}</option>{% endfor %}</select></label>
<label>agent <select name="agent"><option value="">any</option>
{% for a in labels %}<option {% if a == form.agent %}selected{% endif %}>{{ a }}</option>{% endfor %}</select></label>
<label>winner <select name="winner"><option value="">any</option>
{% for a in labels %}<option {% if a == form.winner %}selected{% endif %}>{{ a }}</option>{% endfor %}</select></label>
<label>deal seed <input name="seed" size="6" value="{{ form.seed }}" inputmode="numeric"></label>
<button type="submit">Filter</button> <a href="{{ url_for('rummy.games') }}">clear</a>
</form>
{% if games %}
<table id="games">
<tr><th>game</th><th>preset</th><th>players</th><th>deal</th><th>seats</th><th>winner</th>
<th>round scores</th><th>rewards</th><th>moves</th></tr>
{% for g in games %}
<tr><td><a href="{{ url_for('rummy.game', game_id=g.id) }}">{{ g.id }}</a></td>
<td>{{ g.preset }}</td><td class="num">{{ g.players }}</td><td class="num">{{ g.seed }}</td>
<td>{% for a in g.agents %}{{ loop.index0 }}: {{ a }}{{ '; ' if not loop.last }}{% endfor %}</td>
<td class="winner">{{ g.winner }}</td>
<td>{{ g.round_scores }}</td><td>{{ g.rewards }}</td>
<td class="num">{{ g.moves if g.moves is not none else 'not stored' }}</td></tr>
{% endfor %}
</table>
{% else %}
<p class="note" id="none">No stored game matches.</p>
{% endif %}
<p>{% if page > 1 %}<a class="button" href="{{ url_for('rummy.games', page=page - 1, **args) }}">&larr; previous</a>{% endif %}
{% if more %}<a class="button" href="{{ url_for('rummy.games', page=page + 1, **args) }}">next &rarr;</a>{% endif %}</p>
{% endblock %}
"""

_GAME = """{% extends "base.html" %}{% set nav = 'games' %}
{% block title %}Game {{ game.id }}{% endblock %}
{% block head %}<link rel="stylesheet" nonce="{{ csp_nonce() }}" href="{{ url_for('static', filename='table.css') }}">{% endblock %}
{% block main %}
<h1>Game {{ game.id }}: {{ game.preset }}, {{ game.agents|length }} players, deal {{ game.seed }}</h1>
<p>{% for a in game.agents %}player_{{ loop.index0 }}: <b>{{ a }}</b>{{ ' · ' if not loop.last }}{% endfor %}
· stored round scores {{ game.round_scores|join(' ') }}, rewards {{ game.rewards }}</p>
{% if problem %}
<p class="error" id="problem">This game cannot be replayed: {{ problem }}</p>
{% else %}
<div class="controls" id="controls">
<a class="button {{ 'disabled' if step == 0 }}" id="first" href="?step=0" title="the deal (Home)">&laquo; deal</a>
<a class="button {{ 'disabled' if step == 0 }}" id="prev" href="?step={{ [step - 1, 0]|max }}" title="one move back (left arrow)">&larr; back</a>
<button type="button" id="play" class="js-only" title="play or pause (space)">&#9654; play</button>
<a class="button {{ 'disabled' if step == n }}" id="next" href="?step={{ [step + 1, n]|min }}" title="one move forward (right arrow)">forward &rarr;</a>
<a class="button {{ 'disabled' if step == n }}" id="last" href="?step={{ n }}" title="the end (End)">end &raquo;</a>
<label class="js-only">speed <select id="speed">{% for s in speeds %}<option value="{{ s }}" {% if s == 1 %}selected{% endif %}>{{ s }}&times;</option>{% endfor %}</select></label>
<label class="js-only">jump to <select id="round"><option value="">a round&hellip;</option>{% for r, k in rounds %}<option value="{{ k }}">round {{ r }} (move {{ k + 1 }})</option>{% endfor %}</select></label>
<input type="range" id="slider" class="js-only" min="0" max="{{ n }}" value="{{ step }}" aria-label="move">
</div>
<p id="where">{% if step == 0 %}the deal (before move 1 of {{ n }}){% else %}move {{ step }} of {{ n }}:
player_{{ current.seat }} ({{ current.agent }}) <b id="move">{{ current.move }}</b>{% endif %}</p>
<div class="replay">
<div class="felt" id="board" aria-live="polite"></div>
<aside class="alts" id="alts"><h3>The decision</h3><p class="muted" id="alts-body">the deal: no decision yet</p></aside>
</div>
<noscript><img class="table" id="frame" alt="the table after move {{ step }}, every hand shown"
 src="{{ url_for('rummy.game_frame', game_id=game.id, k=step) }}"></noscript>
<pre class="scoring" id="scoring" {% if step != n %}hidden{% endif %}>{{ scoring or '' }}</pre>
<h3>Moves</h3>
<ol class="log" id="log" start="0">
<li class="{{ 'here' if step == 0 }}"><a href="?step=0">the deal</a></li>
{% for s in steps %}<li class="{{ 'here' if step == loop.index }}" value="{{ loop.index }}"><a href="?step={{ loop.index }}">player_{{ s.seat }} ({{ s.agent }}): {{ s.move }}</a></li>
{% endfor %}</ol>
<script type="application/json" id="replay">{{ replay|tojson }}</script>
{% endif %}
{% endblock %}
{% block script %}{% if not problem %}
<script nonce="{{ csp_nonce() }}" src="{{ url_for('static', filename='table.js') }}"></script>
<script nonce="{{ csp_nonce() }}" src="{{ url_for('static', filename='replay.js') }}"></script>
{% endif %}{% endblock %}
"""

_PLAY_FORM = """{% extends "base.html" %}{% set nav = 'play' %}
{% block title %}Play{% endblock %}
{% block main %}
<h1>Play a round</h1>
<p>Pick the rules, the number of players, your seat and an agent for every other seat. You see
the table from your seat only; the agents answer in turn; at the end the round's scoring and
every hand are shown.</p>
<form method="post" action="{{ url_for('rummy.play_new') }}" id="new-game">
<p><label>preset <select name="preset" id="preset">
{% for p in presets %}<option {% if p == preset %}selected{% endif %}>{{ p }}</option>{% endfor %}</select></label>
<label>players <select name="players" id="players">
{% for k in counts %}<option {% if k == players %}selected{% endif %}>{{ k }}</option>{% endfor %}</select></label>
<label>your seat <select name="seat" id="seat">
{% for k in range(max_seats) %}<option value="{{ k }}" {% if k|string == seat %}selected{% endif %}>player_{{ k }}{{ ' (plays first)' if k == 0 }}</option>{% endfor %}</select></label>
<label><input type="checkbox" name="match" value="1" {% if match %}checked{% endif %}> a whole match</label></p>
<table id="opponents"><tr><th>seat</th><th>agent</th></tr>
{% for k in range(max_seats) %}
<tr class="opp" data-seat="{{ k }}"><td>player_{{ k }} <span class="role"></span></td><td><select name="opp{{ k }}" id="opp{{ k }}">
{% for a in agents %}<option {% if a == opps[k] %}selected{% endif %}>{{ a }}</option>{% endfor %}</select></td></tr>
{% endfor %}</table>
<p class="muted">The agents offered are those that play {{ preset }} with that many players;
"variant" is the preset's own rule-based agent.{% if partners %} With {{ partners|join(', ') }}
players you play with the agent across the table as your partner (seats 0 &amp; 2 against 1 &amp; 3):
you share melds, red 3s and score, but neither sees the other's hand.{% endif %} Agent options may be added in a URL
(<code>opp1=search:simulations=8</code>), within the server's limits.</p>
<button type="submit" id="start">Start</button>
</form>
<script type="application/json" id="choices">{{ choices|tojson }}</script>
<script type="application/json" id="partners">{{ partners|tojson }}</script>
{% endblock %}
{% block script %}<script nonce="{{ csp_nonce() }}">
var choices = JSON.parse(document.getElementById("choices").textContent);
var partners = JSON.parse(document.getElementById("partners").textContent);
function seats() {
  var n = +document.getElementById("players").value, me = +document.getElementById("seat").value;
  document.querySelectorAll("#seat option").forEach(function (o) { o.hidden = +o.value >= n; });
  if (me >= n) { document.getElementById("seat").value = 0; me = 0; }
  var offer = choices[n] || [];
  document.querySelectorAll("tr.opp").forEach(function (tr) {
    var k = +tr.dataset.seat, sel = tr.querySelector("select"), was = sel.value;
    tr.style.display = (k < n && k !== me) ? "" : "none";
    var duo = partners.indexOf(n) >= 0;
    tr.classList.toggle("partner", duo && k === (me + 2) % n);
    tr.querySelector(".role").textContent = !duo ? "" : k === (me + 2) % n ? "(your partner)" : "(opponent)";
    sel.replaceChildren.apply(sel, offer.map(function (a) { return new Option(a, a); }));
    sel.value = offer.indexOf(was) >= 0 ? was : "variant";
  });
}
["players", "seat"].forEach(function (id) { document.getElementById(id).addEventListener("change", seats); });
document.getElementById("preset").addEventListener("change", function () {
  // the agents and player counts depend on the preset: the form is drawn again for it
  var f = new FormData(document.getElementById("new-game"));
  window.location.search = new URLSearchParams(f).toString();
});
seats();
</script>{% endblock %}
"""

_PLAY = """{% extends "base.html" %}{% set nav = 'play' %}
{% block title %}Play {{ game.env.rules.name }}{% endblock %}
{% block head %}<link rel="stylesheet" nonce="{{ csp_nonce() }}" href="{{ url_for('static', filename='table.css') }}">{% endblock %}
{% block main %}
<h1>{{ game.env.rules.name }}, {{ game.names|length }} players</h1>
<p id="players">{% for a in game.names %}<span{% if sides %} class="side-{{ sides[loop.index0] }}"{% endif %}>player_{{ loop.index0 }}: <b>{{ a }}</b>{% if roles and roles[loop.index0] != 'you' %} <span class="role">({{ roles[loop.index0] }})</span>{% endif %}</span>{{ ' · ' if not loop.last }}{% endfor %}</p>
{% if roles %}<p class="muted" id="partnership">You and your partner player_{{ roles.index('partner') }} ({{ game.names[roles.index('partner')] }}) are side {{ sides[game.seat] }}
against side {{ 1 - sides[game.seat] }}: you share melds, red 3s and score; neither sees the other's hand.</p>{% endif %}
{% if game.over %}
<p class="note" id="over"><b>The game is over.</b> Every hand is shown; the deal was seed {{ game.seed }}.</p>
{% elif game.my_turn %}
<p id="status"><b>Your turn</b> ({{ phase }}): {{ hint }}</p>
{% else %}
<p id="status">Waiting for the agents.</p>
{% endif %}
{% if summary %}
<section class="summary" id="summary" aria-label="the end of round {{ summary.round }}">
<h2>Round {{ summary.round }} is over: {{ summary.outcome }}</h2>
{% if summary.sides %}
<table class="summary-table" id="side-scores"><tr><th>side</th><th>laid</th>{% for words, _ in summary.sides[0].parts %}<th>{{ words }}</th>{% endfor %}<th>score</th><th>total</th></tr>
{% for sd in summary.sides %}
<tr class="side-{{ sd.side }}{{ ' winner' if sd.went_out }}"><td>side {{ sd.side }}: {% for p in sd.seats %}player_{{ p }} ({{ game.names[p] }}){{ ' & ' if not loop.last }}{% endfor %}{{ ' · went out' if sd.went_out }}{{ ' concealed' if sd.went_out and summary.concealed }}</td>
<td><span class="laid">{% for m in sd.laid %}<span class="meld-text">{{ m|join(' ') }}</span>{% else %}<span class="muted">nothing</span>{% endfor %}</span></td>
{% for _, v in sd.parts %}<td class="num">{{ '%+d'|format(v) }}</td>{% endfor %}
<td class="num"><b>{{ sd.score }}</b></td><td class="num">{{ sd.total }}</td></tr>{% endfor %}
</table>
{% else %}
<table class="summary-table"><tr><th>seat</th><th>laid</th><th>{{ summary.score_name }}</th>
{% if summary.rewards is not none %}<th>reward</th>{% endif %}<th>total</th></tr>
{% for p in range(summary.scores|length) %}
<tr class="{{ 'winner' if p == summary.winner }}"><td>player_{{ p }} ({{ game.names[p] }}){{ ' · winner' if p == summary.winner }}</td>
<td><span class="laid">{% for m in summary.laid[p] %}<span class="meld-text">{{ m|join(' ') }}</span>{% else %}<span class="muted">nothing</span>{% endfor %}</span></td>
<td class="num">{{ summary.scores[p] }}</td>{% if summary.rewards is not none %}<td class="num">{{ '%+d'|format(summary.rewards[p]) }}</td>{% endif %}
<td class="num">{{ summary.totals[p] }}</td></tr>{% endfor %}
</table>
{% endif %}
{% if not game.over %}<p><button type="button" id="next-round">Next round &rarr;</button>
<span class="muted">round {{ summary.round + 1 }} is dealt</span></p>{% endif %}
</section>
{% endif %}
{% if not game.over %}
<div class="hand-tools" id="tools">
<span class="muted">sort your hand</span>
<button type="button" id="sort-suit" class="toggle">by suit</button>
<button type="button" id="sort-rank" class="toggle">by rank</button>
<span id="selected" class="muted"></span>
</div>
{% endif %}
<div class="felt" id="table" aria-live="polite"></div>
<div class="actions" id="actions" aria-label="your moves with the cards selected"></div>
<noscript><img class="table" alt="the table seen from player_{{ game.seat }}"
 src="{{ url_for('rummy.play_frame', token=game.token, n=frame) }}"></noscript>
{% if groups %}
<form method="post" action="{{ url_for('rummy.play_move', token=game.token) }}" id="move-form">
<input type="hidden" name="action" id="move-action" value=""></form>
<details class="all-moves" id="all-moves"><summary>every legal move as a list</summary>
<form method="post" action="{{ url_for('rummy.play_move', token=game.token) }}" class="moves" id="moves">
{% for kind, moves in groups.items() %}<div class="group"><span class="muted">{{ kind }}:</span>
{% for a, text in moves %}<button type="submit" name="action" value="{{ a }}">{{ text }}</button>{% endfor %}</div>
{% endfor %}</form></details>
{% endif %}
{% for r in game.results %}<pre class="scoring" {% if loop.last and game.over %}id="scoring"{% endif %}>{{ r }}</pre>{% endfor %}
{% if game.over %}
<form method="post" action="{{ url_for('rummy.play_new') }}" class="inline" id="again">
{% for k, v in game.form.items() %}<input type="hidden" name="{{ k }}" value="{{ v }}">{% endfor %}
<button type="submit">Play again (a new deal)</button></form>
<a class="button" href="{{ url_for('rummy.play_form', **game.form) }}">Other settings</a>
{% endif %}
<h3>Moves so far</h3>
<ol class="log" id="log">{% for seat, text in game.log %}<li>player_{{ seat }}{{ ' (you)' if seat == game.seat }}: {{ text }}</li>{% endfor %}</ol>
<script type="application/json" id="view">{{ view|tojson }}</script>
<script type="application/json" id="legal">{{ legal|tojson }}</script>
{% endblock %}
{% block script %}
<script nonce="{{ csp_nonce() }}" src="{{ url_for('static', filename='table.js') }}"></script>
<script nonce="{{ csp_nonce() }}" src="{{ url_for('static', filename='play.js') }}"></script>
{% endblock %}
"""

TEMPLATES = {
    "base.html": _BASE,
    "error.html": _ERROR,
    "leaderboard.html": _LEADERBOARD,
    "games.html": _GAMES,
    "game.html": _GAME,
    "play_form.html": _PLAY_FORM,
    "play.html": _PLAY,
}


def create_app(
    db_path: str | Path = "results/tournament.sqlite",
    cache_dir: str | Path | None = None,
    *,
    model_dirs: tuple[str | Path, ...] = (),
    max_games: int = MAX_PLAY_GAMES,
    max_client_games: int = MAX_CLIENT_GAMES,
) -> Flask:
    """The app serving the store ``db_path``, read only (a missing file is an empty store, not
    created); the leaderboard's files are written under ``cache_dir`` (default: a temporary
    folder). Clients may pick model files inside ``model_dirs`` only; at most ``max_games``
    games are in play at once, ``max_client_games`` from one client address."""
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,  # a larger body: 413
        MAX_FORM_MEMORY_SIZE=MAX_BODY,
        MAX_FORM_PARTS=64,
    )
    app.jinja_loader = DictLoader(TEMPLATES)
    app.jinja_env.globals.update(
        fmt=fmt, interval=interval, plus_minus=plus_minus, csp_nonce=csp_nonce
    )
    play = PlayGames(limit=max_games, per_client=max_client_games)
    app.extensions["rummy_web"] = Web(db_path, cache_dir, model_dirs, play)
    app.register_blueprint(bp)
    return app


# ------------------------------------------------------------------ CLI
def _warm(app: Flask) -> None:
    """Compute, before anyone asks, what the first requests would wait for: the leaderboards
    and the play form's offers."""
    app.extensions["rummy_web"].refresh()
    for preset in rummy_env.PRESETS:
        for k in player_counts(preset):
            offered(preset, k)


def _port(text: str) -> int | None:
    """``--port``'s value: a whole number in 0..65535 (0: any free port), else None."""
    return int(text) if re.fullmatch(r"\d{1,5}", text.strip()) and int(text) <= 65535 else None


def main(argv: list[str] | None = None) -> None:
    from werkzeug.serving import make_server

    p = argparse.ArgumentParser(
        prog="rummy-web", description=" ".join(__doc__.split("\n\n")[0].replace("``", "").split())
    )
    p.add_argument("--db", default="results/tournament.sqlite", help="the tournament store")
    p.add_argument("--port", default="8000", help="port to listen on, 1-65535 (0: any free one)")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)"
    )
    p.add_argument(
        "--allow-model",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose model files (.npz) players may pick by path "
        "(ppo:<file>, es:<file>, rllib:<file>); repeatable; otherwise only shipped models",
    )
    a = p.parse_args(argv)
    port = _port(a.port)
    if port is None:
        p.exit(
            2,
            f"rummy-web: --port must be a whole number in 1..65535 (0: any free one), "
            f"got {a.port!r}\n",
        )
    for d in a.allow_model:
        if not Path(d).is_dir():
            p.exit(2, f"rummy-web: --allow-model {d!r} is not a folder\n")
    db = Path(a.db)
    if db.exists():
        try:
            con = open_store(db)
        except UsageError as e:
            p.exit(2, f"rummy-web: {e}\n")
        if con is not None:
            con.close()
    else:
        print(
            f"rummy-web: no store at {str(db)!r} yet: the leaderboard and games stay empty "
            "until a tournament writes it",
            file=sys.stderr,
        )
    app = create_app(db, model_dirs=tuple(a.allow_model))
    threading.Thread(target=_warm, args=(app,), name="rummy-web-warm", daemon=True).start()
    try:
        server = make_server(a.host, port, app, threaded=True)
    except (OSError, SystemExit, OverflowError) as e:  # werkzeug prints why, then exits
        why = f" ({e.strerror or e})" if isinstance(e, OSError) else ""
        p.exit(
            2,
            f"rummy-web: cannot listen on {a.host}:{port}{why}: give another --port or --host\n",
        )
    print(f"rummy-web: serving {db} at http://{a.host}:{server.server_port}/ (Ctrl+C stops)")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
