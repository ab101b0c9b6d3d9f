"""Rummikub (RULES.md 4 rummikub): tiles, one shared table re-split every turn."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import compress
from operator import add
from typing import Any

from rummy_env import cover
from rummy_env.cards import (
    NUM_FACES,
    card_str,
    counts_str,
    face_counts,
    plural,
)
from rummy_env.engine.fields import FACES, INT, Field
from rummy_env.engine.flow import _end_stuck_round, _end_turn
from rummy_env.engine.game import Game, PhaseRules
from rummy_env.engine.saved import _MELD_KEYS, _Saved
from rummy_env.engine.scoring import _end_round
from rummy_env.engine.state import _PLAY, GameState, Phase, _next_active
from rummy_env.rules import RuleSet
from rummy_env.variants.basic import own_scoring

#: Rummikub's fields: the table's tiles (saved as the table), the tiles played this turn,
#: passes in a row since the last commit (the pool empty), the tile played last this turn
#: (a hint for the search)
FIELDS = (
    Field("tiles", FACES, lambda r: [0] * NUM_FACES, saved=False),
    Field("played_tiles", FACES, lambda r: [0] * NUM_FACES),
    Field("passes", INT, 0, lo=0, hi=lambda r: r.num_players - 1),
    Field("last_tile", INT, -1, saved=False),
)


#: what Rummikub's rules fix: 106 tiles, two jokers, 1 low, no discard pile
_FIXED = {
    "decks": 2,
    "jokers": 1,
    "ace": "low",
    "upcard": False,
    "meld_during_play": False,
    "wild_deuces": False,
}


def check_rules(r: RuleSet) -> None:
    """Rummikub's scoring belongs to its preset, whose table is one pool of tiles."""
    own_scoring(
        r,
        "rummikub",
        _FIXED,
        "106 tiles, two jokers, 1 low, no discard pile",
        ", whose table is one pool of tiles",
    )


def configure(rules: RuleSet, g: Game) -> None:
    """A turn is draw or pass, or tiles played and committed; one round per player."""
    if rules.scoring != "rummikub":
        return
    g.draw = g.play = PhaseRules(_legal_tiles, _apply_tiles)
    g.dump_table, g.read_table = _dump_tiles, _read_tiles
    g.discard_pile = False
    g.blocks = {**g.blocks, "PASS": 1, "PLAY_TILE": NUM_FACES, "COMMIT": 1}
    g.one_card_turns = g.melds_owned = False  # (a turn draws or plays; the table is one pool)
    g.checks += (_check_tiles,)
    g.check_standing = _check_rounds
    g.face_value = _tile_value
    g.pending = _tiles_played
    g.obs_slices = {**g.obs_slices, "table_tiles": NUM_FACES, "played_tiles": NUM_FACES}
    g.obs_slices["passes"] = 1
    g.obs_writers += (_write_obs,)
    g.obs_view += (_read_obs,)
    g.render_lines = ()  # (the opening shows with the table)
    g.table_lines = _tile_lines
    g.score = _score_rummikub
    g.match_over = _match_by_rounds


def _legal_tiles(s: GameState) -> list[int]:
    """Rummikub's turn: before any tile is played, draw (or pass, the pool empty); a tile
    of the rack is playable when some commit can hold it with the tiles played (D-18: the
    exact-cover search of :mod:`rummy_env.cover`); commit when the tiles played can lie
    down: with the table's (D-17), or alone and worth ``open_points`` (the initial meld,
    D-19)."""
    L = s.layout
    p = s.current
    played = s.played_tiles
    started = any(played)
    opened = s.opened[p]
    down = list(map(add, s.tiles, played)) if opened else played
    t = s.last_tile
    commit, ok = tile_choices(
        down, s.hands[p], opened, s.rules.open_points, started, t if t >= 0 and played[t] else None
    )
    acts = [] if started else [L.DRAW_STOCK if s.stock else L.PASS]
    acts += [L.PLAY_TILE + f for f in sorted(ok)]
    if commit:
        acts.append(L.COMMIT)
    return acts  # (ascending: draw or pass, the tiles, commit)


def tile_choices(
    down: list[int],
    rack: list[int],
    opened: bool,
    need: int,
    started: bool,
    last: int | None = None,
    previous: Iterable[int] | None = None,
) -> tuple[bool, set[int]]:
    """Rummikub's mask as count vectors: ``(Commit legal, the playable faces)`` for a
    player holding ``rack`` with ``down`` on the table: the table's tiles and those played
    this turn once he has ``opened``, before it the tiles played alone (the initial meld:
    worth ``need``). ``started``: a tile is played this turn; ``last``: the tile played
    just now and ``previous`` the playable faces before it, if known (the answer narrows:
    :func:`rummy_env.cover.playable_after`). Agents planning a turn ask it too."""
    if not opened:
        values = cover.playable_values(down, rack, check=False)  # (a rack's tiles only)
        ok = {f for f, v in values.items() if v >= need}
        return started and (cover.best_cover(down) or 0) >= need, ok
    if not started:  # the table as it stands: no commit before a tile is played
        return False, cover.playable(down, rack)
    # the one search also says whether the table may be left as it stands (Commit)
    return cover.cover_and_playable(down, rack, last, previous)


def _apply_tiles(s: GameState, p: int, a: int) -> bool:
    L = s.layout
    if a == L.DRAW_STOCK:
        s._add(p, s.stock.pop())
        s.passes = 0
        return _end_turn(s, p)
    if a == L.PASS:  # the pool is empty: the round ends when everyone passed in a row
        s.passes += 1
        if s.passes >= sum(s.active):  # ties go to the nearest to the player to play next
            s.current = _next_active(s, p)
            return _end_stuck_round(s, "all_passed")
        return _end_turn(s, p)
    if a < L.COMMIT:  # PlayTile
        f = a - L.PLAY_TILE
        s._remove(p, f)
        s.played_tiles[f] += 1
        s.last_tile = f
        s.phase = _PLAY
        return False
    for f, c in enumerate(s.played_tiles):  # Commit
        s.tiles[f] += c
    s.played_tiles = [0] * NUM_FACES
    s.last_tile = -1
    s.opened[p] = True
    s.turn_played = True
    s.passes = 0
    if s.nhand[p] == 0:
        return _end_round(s, p, "went_out")
    return _end_turn(s, p)


def _score_rummikub(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    """Rummikub: each other player pays the winner his rack total less the winner's (the
    winner's is 0 when he went out; a joker 30); zero-sum, the winner positive."""
    n = s.rules.num_players
    scores = [0] * n
    for q in range(n):
        if q != winner and s.active[q]:
            scores[q] = vals[winner] - vals[q]
    scores[winner] = -sum(scores)
    return scores, list(scores)


def _match_by_rounds(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Rummikub: one round per player (each starts one); the highest total wins."""
    if s.round + 1 < s.rules.num_players:
        return False
    top = max(s.totals)
    s.match_winner = winner if s.totals[winner] == top else s.totals.index(top)
    return True


def _tile_lines(state: GameState) -> list[str]:
    """The table as one valid split of its tiles, the tiles played this turn, who has made
    the initial meld, the pool."""
    n = state.rules.num_players
    lines = []
    melds = cover.split(state.tiles) or []
    lines.append("table (one way to split it):" if melds else "table: no tiles")
    lines += [f"  {' '.join(card_str(f) for f in m)}" for m in melds]
    played = counts_str(state.played_tiles)
    if played:
        lines.append(f"played this turn: {' '.join(played)}")
    opened = ", ".join(f"player_{p}" for p in range(n) if state.opened[p]) or "nobody"
    lines.append(f"initial meld made: {opened} · pool: {plural(len(state.stock), 'tile')}")
    return lines


def _write_obs(o: Any, layout: Any, s: GameState, player: int) -> None:
    """The observation's table tiles, this turn's played tiles and the passes in a row."""
    for base, counts in ((layout.TABLE_TILES, s.tiles), (layout.PLAYED_TILES, s.played_tiles)):
        for f in compress(range(NUM_FACES), counts):
            o[base + f] = counts[f]
    o[layout.PASSES] = s.passes


def _read_obs(r: Any, P: int) -> dict[str, Any]:
    return {
        "table_tiles": r.counts("table_tiles", NUM_FACES),
        "played_tiles": r.counts("played_tiles", NUM_FACES),
        "passes": r.scalar("passes"),
    }


def _tiles_played(s: GameState) -> bool:
    return any(s.played_tiles)


def _tile_value(rules: RuleSet, rank: int) -> int:
    """A tile counts its number, 1-13."""
    return rank + 1


def _check_rounds(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """A Rummikub match is one round per player, whatever the totals."""
    n = s.rules.num_players
    if s.round >= n:
        fail("round", f"={s.round}", f"0..{n - 1}: a Rummikub match is one round per player")


def _dump_tiles(s: GameState) -> list[dict[str, Any]]:
    """The table's tiles as ``to_dict`` data: one entry without owner, none when empty."""
    return [{"owner": None, "kind": None, "cards": counts_str(s.tiles)}] if any(s.tiles) else []


def _read_tiles(f: _Saved, s: GameState) -> None:
    """The table's tiles from saved state data ([] or one entry without owner)."""
    table = f.d["table"]
    shape = "[] or [{'owner': None, 'kind': None, 'cards': [...]}] (the table's tiles)"
    if not isinstance(table, (list, tuple)) or len(table) > 1:
        raise f.error("table", table, shape)
    s.table = []
    if not table:
        return
    m = table[0]
    if not isinstance(m, dict) or set(m) - set(_MELD_KEYS) or "cards" not in m:
        raise f.error("table[0]", m, shape)
    if m.get("owner") is not None or m.get("kind") is not None:
        raise f.error("table[0]", m, "owner None and kind None: " + shape)
    tiles = face_counts(f.cards("table[0]['cards']", m["cards"]))
    if not cover.can_cover(tiles):
        raise f.error(
            "table[0]['cards']",
            m["cards"],
            "tiles that split into valid melds (groups of 3-4 of one number in different "
            "colours, runs of 3+ of one colour, 1 low only; D-3 for jokers)",
        )
    s.tiles = tiles


def _check_tiles(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Rummikub: no discard pile; tiles played only in phase 'play', by the player to act
    (phase 'draw' before his first); passes only with an empty pool."""
    if s.discard:
        fail(
            "discard", f"={counts_str(face_counts(s.discard))}", "[]: Rummikub has no discard pile"
        )
    if s.phase in (Phase.DRAW, Phase.PLAY) and (s.phase == Phase.PLAY) != any(s.played_tiles):
        fail(
            "played_tiles",
            f"={counts_str(s.played_tiles)} in phase {s.phase.name.lower()!r}",
            "tiles exactly in phase 'play' (phase 'draw' before the turn's first tile)",
        )
    if s.passes and s.stock:
        fail("passes", f"={s.passes} with a pool of {len(s.stock)}", "0 while the pool has tiles")
    rules = s.rules
    n = rules.num_players
    on_table = sum(s.tiles)
    # Racks grow only by draws from the pool. Between two draws of one seat every other seat
    # had a turn, while the pool held tiles: a draw or a commit (tiles that are on the table
    # now). So n * draws <= all draws + tiles on the table + n - 1. (A crafted state may
    # hold a pool larger than the deal leaves, with smaller racks: no draw made then.)
    dealt = rules.hand_size
    draws = max(0, rules.num_cards - n * dealt - len(s.stock))
    most = dealt + (draws + on_table + n - 1) // n
    for p in range(n):
        size = s.nhand[p] + (sum(s.played_tiles) if p == s.current else 0)
        if size > most:
            fail(
                f"hands[{p}]",
                f"holds {s.nhand[p]} tiles"
                + (f" (and {size - s.nhand[p]} played this turn)" if size > s.nhand[p] else ""),
                f"at most {most}: the {dealt} dealt plus {most - dealt} drawn at most, for "
                "between two draws of a seat each other seat drew or committed tiles "
                f"({draws} drawn in all, {on_table} on the table)",
            )
    if s.phase == Phase.PLAY and not _legal_tiles(s):
        p = s.current
        fail(
            "played_tiles",
            f"={counts_str(s.played_tiles)} with hands[{p}]={counts_str(s.hands[p])}, "
            f"opened[{p}]={s.opened[p]}",
            "tiles that some commit can hold with tiles of the rack"
            + (
                " and the table's"
                if s.opened[p]
                else f": the initial meld, alone and worth {rules.open_points}"
            )
            + " (each was legal when played)",
        )
