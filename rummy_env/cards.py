"""Card ids, text notation and point values.

A card *face* is an int:

* ``0..51``: natural cards, ``suit * 13 + rank`` with rank ``0 = A, 1 = 2, ...,
  9 = T, 10 = J, 11 = Q, 12 = K`` and suit ``0 = S, 1 = H, 2 = D, 3 = C``;
* ``52``: the joker (``JK``).

With two decks, copies of a card share the face id (RULES.md D-1): hands are
count vectors indexed by face, so copies are interchangeable by construction.

Text notation: rank ``A 2-9 T J Q K`` (``10`` accepted on input) followed by a
suit ``S H D C`` (``♠ ♥ ♦ ♣`` accepted on input); ``JK`` is the joker. Parsing
is case-insensitive.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "SHDC"
NUM_RANKS = 13
NUM_SUITS = 4
NUM_NATURAL = 52
JOKER = 52
NUM_FACES = 53  # 52 naturals + the joker

_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def make_card(rank: int, suit: int) -> int:
    """The face id of ``rank`` (0 = ace .. 12 = king) in ``suit`` (0..3)."""
    return suit * NUM_RANKS + rank


def rank_of(card: int) -> int:
    """Rank index of a natural card (0 = ace .. 12 = king)."""
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    """Suit index of a natural card (0 = S, 1 = H, 2 = D, 3 = C)."""
    return card // NUM_RANKS


def card_str(card: int) -> str:
    """Text notation of a face id, e.g. ``card_str(22) == "TH"``."""
    if card == JOKER:
        return "JK"
    if not isinstance(card, int) or not 0 <= card < NUM_NATURAL:
        raise ValueError(f"not a card id: {card!r} (allowed: 0..52)")
    return RANKS[card % NUM_RANKS] + SUITS[card // NUM_RANKS]


def parse_card(text: str | int) -> int:
    """Parse one card (``"TD"``, ``"10d"``, ``"A♠"``, ``"JK"``) to its face id.

    An int in ``0..52`` is returned unchanged, so callers may mix ids and text.
    """
    if isinstance(text, bool):
        raise ValueError(f"not a card: {text!r}")
    if isinstance(text, int):
        if 0 <= text < NUM_FACES:
            return text
        raise ValueError(f"not a card id: {text!r} (allowed: 0..52)")
    if not isinstance(text, str):
        raise ValueError(f"not a card: {text!r} (expected text like 'TD' or an id 0..52)")
    s = text.strip().upper()
    if s in ("JK", "JOKER", "*"):
        return JOKER
    if s and s[-1] in _SUIT_SYMBOLS:
        s = s[:-1] + _SUIT_SYMBOLS[s[-1]]
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
        raise ValueError(f"not a card: {text!r} (rank A 2-9 T/10 J Q K then suit S H D C, or JK)")
    return make_card(RANKS.index(s[0]), SUITS.index(s[1]))


def parse_cards(text: str | Iterable[str | int]) -> list[int]:
    """Parse several cards: ``"AS 2S 3S"`` or an iterable of strings/ids."""
    if isinstance(text, str):
        items: Iterable[str | int] = text.replace(",", " ").split()
    else:
        items = text
    return [parse_card(c) for c in items]


def cards_str(cards: Iterable[int]) -> str:
    """Space-separated text of several face ids."""
    return " ".join(card_str(c) for c in cards)


def face_counts(faces: Iterable[int]) -> list[int]:
    """The count of each face (53 entries) among ``faces``."""
    counts = [0] * NUM_FACES
    for f in faces:
        counts[f] += 1
    return counts


def counts_str(counts: Sequence[int]) -> list[str]:
    """The cards of a count vector as text, in face order, copies repeated."""
    return [card_str(f) for f, c in enumerate(counts) for _ in range(c)]


def deck_faces(decks: int, jokers_per_deck: int) -> list[int]:
    """Every physical card of the pack as face ids (copies repeated)."""
    faces: list[int] = []
    for _ in range(decks):
        faces.extend(range(NUM_NATURAL))
        faces.extend([JOKER] * jokers_per_deck)
    return faces


# bits of getrandbits per index of :func:`shuffle`: (i + 1).bit_length()
_SHUFFLE_BITS = [0] + [(i + 1).bit_length() for i in range(1, 512)]


def shuffle(items: list, seed: int) -> None:
    """Shuffle ``items`` in place exactly as ``random.Random(seed).shuffle(items)`` does
    (the same Fisher-Yates draws from ``getrandbits``, so every seeded deal stays the same),
    in less than half the time: the draw is written out instead of a call per card."""
    getrandbits = random.Random(seed).getrandbits
    bits = _SHUFFLE_BITS
    for i in range(len(items) - 1, 0, -1):
        k = bits[i]
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def plural(n: int, word: str) -> str:
    """``"1 card"``, ``"2 cards"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
