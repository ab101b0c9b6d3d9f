"""Pictures of the card table (``render_mode="rgb_array"``), drawn by the project.

:func:`draw_table` paints one state as an RGB array: every hand (face up for the
viewer, or for everyone with ``omniscient=True``; the others as card backs with
the cards known to be held shown face up), the table melds with their owners
and slot numbers (a wild card marked with a gold corner), the discard pile (its
top card, or the whole pile spread where the rules let any depth be taken),
the stock, the scores, and whose turn it is; once the game is over every hand
is shown. Rummikub's table, one pool of tiles, is drawn as one valid split of it,
with the tiles played this turn and the pool. The card faces (ranks and suit
pips) are drawn with Pillow's shapes and its built-in font: nothing is
downloaded or read from disk. Pillow is imported when a picture is asked for.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from rummy_env import cover
from rummy_env.cards import JOKER, NUM_RANKS
from rummy_env.engine import GameState, Phase, acting_seat

CARD_W, CARD_H = 44, 62
GAP = 4
FELT = (21, 96, 52)
INK = (20, 20, 20)
RED = (200, 30, 40)
GOLD = (230, 180, 30)
WHITE = (250, 250, 245)
BACK = (40, 70, 160)
_RANKS = "A23456789TJQK"


@cache
def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _pip(d, suit: int, cx: float, cy: float, r: float, color) -> None:
    """A suit symbol centred at (cx, cy), radius r: 0 spade, 1 heart, 2 diamond, 3 club."""
    if suit == 2:  # diamond
        d.polygon(
            [(cx, cy - r), (cx + 0.75 * r, cy), (cx, cy + r), (cx - 0.75 * r, cy)], fill=color
        )
        return
    if suit == 1:  # heart: two lobes and a point
        d.ellipse([cx - r, cy - 0.8 * r, cx, cy + 0.2 * r], fill=color)
        d.ellipse([cx, cy - 0.8 * r, cx + r, cy + 0.2 * r], fill=color)
        d.polygon([(cx - r, cy - 0.25 * r), (cx + r, cy - 0.25 * r), (cx, cy + r)], fill=color)
        return
    if suit == 0:  # spade: an upside-down heart and a stem
        d.ellipse([cx - r, cy - 0.1 * r, cx, cy + 0.8 * r], fill=color)
        d.ellipse([cx, cy - 0.1 * r, cx + r, cy + 0.8 * r], fill=color)
        d.polygon([(cx - r, cy + 0.3 * r), (cx + r, cy + 0.3 * r), (cx, cy - r)], fill=color)
    else:  # club: three leaves and a stem
        q = 0.5 * r
        d.ellipse([cx - q, cy - r, cx + q, cy], fill=color)
        d.ellipse([cx - r, cy - 0.35 * r, cx, cy + 0.6 * r], fill=color)
        d.ellipse([cx, cy - 0.35 * r, cx + r, cy + 0.6 * r], fill=color)
    d.polygon([(cx, cy), (cx - 0.45 * r, cy + r), (cx + 0.45 * r, cy + r)], fill=color)


def draw_card(d, x: float, y: float, face: int | None, wild: bool = False) -> None:
    """One card with its top-left corner at (x, y): a face id, or ``None`` for a card back."""
    box = [x, y, x + CARD_W, y + CARD_H]
    if face is None:
        d.rounded_rectangle(box, 5, fill=BACK, outline=WHITE, width=2)
        d.rounded_rectangle(
            [x + 6, y + 6, x + CARD_W - 6, y + CARD_H - 6], 3, outline=(90, 120, 200)
        )
        return
    d.rounded_rectangle(box, 5, fill=WHITE, outline=INK, width=1)
    if face == JOKER:
        d.text((x + 5, y + 3), "JK", fill=INK, font=_font(14))
        cx, cy, r = x + CARD_W / 2, y + CARD_H / 2 + 6, 11
        star = [
            (
                cx + (r if k % 2 == 0 else r / 2.5) * np.sin(k * np.pi / 5),
                cy - (r if k % 2 == 0 else r / 2.5) * np.cos(k * np.pi / 5),
            )
            for k in range(10)
        ]
        d.polygon(star, fill=GOLD, outline=INK)
    else:
        suit, rank = divmod(face, NUM_RANKS)
        color = RED if suit in (1, 2) else INK
        label = "10" if rank == 9 else _RANKS[rank]
        d.text((x + 4, y + 2), label, fill=color, font=_font(15))
        _pip(d, suit, x + 9, y + 26, 5, color)
        _pip(d, suit, x + CARD_W / 2 + 4, y + CARD_H / 2 + 8, 11, color)
    if wild:  # a wild card standing in a meld: a gold corner, bottom left (seen when overlapped)
        d.polygon(
            [(x + 1, y + CARD_H - 14), (x + 1, y + CARD_H - 1), (x + 14, y + CARD_H - 1)], fill=GOLD
        )


def _row(
    d,
    x: float,
    y: float,
    faces: list[Any],
    step: float = CARD_W + GAP,
    wild: set[int] = frozenset(),
) -> float:
    for i, f in enumerate(faces):
        draw_card(d, x + i * step, y, f, i in wild)
    return x + (len(faces) - 1) * step + CARD_W if faces else x


def _table_melds(state: GameState) -> list[tuple[list[Any], set[int], str]]:
    """The melds to draw: their cards, which of them stand as wild cards, and a label."""
    if not state.game.melds_owned:  # (Rummikub: one pool of tiles)
        return [(m, set(), "") for m in cover.split(state.tiles) or []]
    out = []
    for i, m in enumerate(state.table):
        if m.is_run:
            wild = {k for k, pos in enumerate(range(m.lo, m.hi + 1)) if m.wild >> pos & 1}
        else:
            wild = set(range(len(m.cards) - m.n_wild, len(m.cards)))
        out.append((list(m.cards), wild, f"[{i}] player_{m.owner}"))
    return out


def draw_table(
    state: GameState, viewer: int | None = None, omniscient: bool = False, width: int = 1024
) -> np.ndarray:
    """The table as an ``(H, width, 3)`` uint8 RGB array, seen by ``viewer`` (default: the
    seat to act); ``omniscient`` shows every hand face up (replays)."""
    from PIL import Image, ImageDraw

    P = state.rules.num_players
    over = state.phase == Phase.GAME_OVER
    omniscient = omniscient or over  # the hands are shown when the round is scored
    actor = acting_seat(state) if not over else -1
    viewer = actor if viewer is None else viewer
    if viewer < 0:
        viewer = 0
    step_hand = min(CARD_W + GAP, (width - 260) / max(1, max(state.nhand) - 1 + 1e-9))
    melds = _table_melds(state)
    per_row = max(1, (width - 40) // (5 * (CARD_W // 2) + 30))
    meld_rows = -(-len(melds) // per_row) if melds else 0
    notes = [line for lines in state.game.render_lines for line in lines(state)]
    height = 40 + P * (CARD_H + 34) + 40 + max(1, meld_rows) * (CARD_H + 30) + CARD_H + 60
    img = Image.new("RGB", (width, int(height + 18 * len(notes))), FELT)
    d = ImageDraw.Draw(img)
    title = f"{state.rules.name} · {P} players · round {state.round + 1}"
    d.text((16, 10), title, fill=WHITE, font=_font(15))
    for i, line in enumerate(notes):  # the game's own facts (the opening, Canasta's sides)
        d.text((16, 32 + 18 * i), line, fill=WHITE, font=_font(13))
    y = _draw_hands(d, state, viewer, actor, omniscient, width, step_hand, 18 * len(notes))
    y = _draw_melds(d, state, melds, width, y)
    _draw_piles(d, state, width, y)
    return np.asarray(img, dtype=np.uint8)


def _draw_hands(
    d,
    state: GameState,
    viewer: int,
    actor: int,
    omniscient: bool,
    width: int,
    step: float,
    top: float = 0,
) -> float:
    """Every seat's row: its label and facts, and its hand (face up where shown, else card
    backs with the cards known to be held face up first); the height below them."""
    f13, f15 = _font(13), _font(15)
    tiles = not state.game.melds_owned  # (Rummikub's tiles)
    y = 40 + top
    for p in range(state.rules.num_players):
        hand = state.hand_cards(p)
        show = omniscient or p == viewer
        if show:
            faces: list[Any] = hand
        else:  # a back for each card, the cards known to be held face up first
            known = [f for f, c in enumerate(state.known[p]) for _ in range(c)]
            faces = known + [None] * (len(hand) - len(known))
        turn = p == actor
        label = f"player_{p}{' (you)' if p == viewer and not omniscient else ''}"
        info = f"{len(hand)} {'tiles' if tiles else 'cards'} · total {state.totals[p]}"
        if tiles:
            info += " · opened" if state.opened[p] else " · not opened"
        if turn:
            d.rounded_rectangle([8, y - 4, width - 8, y + CARD_H + 24], 8, outline=GOLD, width=3)
            info += f" · to {state.phase.name.lower()}"
        if not state.active[p]:
            info += " · out of the match"
        d.text((16, y), label, fill=GOLD if turn else WHITE, font=f15)
        d.text((16, y + 20), info, fill=WHITE, font=f13)
        _row(d, 220, y + 2, faces, step)
        y += CARD_H + 34
    return y


def _draw_melds(
    d, state: GameState, melds: list[tuple[list[Any], set[int], str]], width: int, y: float
) -> float:
    """The table melds from height ``y`` (Rummikub: one pool of tiles, drawn as one valid
    split of it), in rows; the height below them."""
    if not state.game.melds_owned:  # (Rummikub: one pool of tiles)
        head = "table (one way to split it)" if melds else "table: no tiles"
    else:
        head = "table" + ("" if melds else ": no melds")
    d.text((16, y), head, fill=WHITE, font=_font(15))
    y += 22
    x0, x = 16, 16
    for cards, wild, label in melds:
        half = CARD_W // 2 + 2
        w = (len(cards) - 1) * half + CARD_W
        if x + w > width - 16 and x > x0:
            x, y = x0, y + CARD_H + 30
        _row(d, x, y, cards, half, wild)
        d.text((x, y + CARD_H + 3), label, fill=WHITE, font=_font(13))
        x += w + 30
    return y + max(CARD_H, 0) + 30


def _draw_piles(d, state: GameState, width: int, y: float) -> None:
    """The bottom line from height ``y``: the stock and the discard pile (Rummikub: the
    pool, and the tiles played this turn), the card that may not be discarded, and the
    round's result once the game is over."""
    f13, f15 = _font(13), _font(15)
    tiles = not state.game.discard_pile  # (Rummikub: a pool, tiles played this turn)
    d.text((16, y), f"{'pool' if tiles else 'stock'} {len(state.stock)}", fill=WHITE, font=f15)
    if state.stock:
        draw_card(d, 16, y + 20, None)
    played = [f for f, c in enumerate(state.played_tiles) for _ in range(c)] if tiles else []
    if played:
        d.text((120, y), "played this turn", fill=WHITE, font=f15)
        _row(d, 120, y + 20, played, CARD_W // 2 + 2)
    pile = state.discard
    if not tiles:
        d.text((120, y), f"discard pile {len(pile)}", fill=WHITE, font=f15)
    if pile:
        if state.rules.discard_pickup == "any":  # spread: every card may be taken
            step = min(CARD_W // 2, (width - 140 - CARD_W) / max(1, len(pile) - 1))
            _row(d, 120, y + 20, list(pile), step)
        else:
            draw_card(d, 120, y + 20, pile[-1])
    if state.forbidden >= 0 and state.phase == Phase.PLAY:
        d.text((320, y), "may not discard: ", fill=WHITE, font=f13)
        draw_card(d, 320, y + 20, state.forbidden)
    if state.phase == Phase.GAME_OVER and state.last_result is not None:
        res = state.last_result
        d.text(
            (420, y + 20),
            f"round over: player_{res['winner']} {res['reason'].replace('_', ' ')}"
            f" · round scores {list(res['round_scores'])}",
            fill=GOLD,
            font=f15,
        )
