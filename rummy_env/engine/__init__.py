"""Game state and transitions: pure game logic, no RL API.

The engine works on integer actions laid out by :class:`Layout` (the
``Move`` classes of :mod:`rummy_env.moves` are a readable view of the same
ints). Its functions:

* :func:`new_game` deals a round (seeded) or sets up a crafted deal;
* :func:`legal_actions` lists the legal action ids of the player to act;
* :func:`apply_action` checks an action and applies it (:func:`apply_legal_action`
  without the check, :func:`discard_only`, a quick answer for the usual play
  phase, and :func:`legal_play_to_first_meld` serve the search agent's rollouts);
* :func:`is_terminal`, :func:`returns` and ``GameState.to_dict`` /
  :func:`from_dict` for saving and restoring.

A turn is several actions: draw (``Phase.DRAW``), then any number of melds,
lay-offs and joker swaps and finally a discard (``Phase.PLAY``). The round ends
the moment a player has no cards, or when the stock runs out for good (D-8).
Every shuffle derives from the state's ``seed``, so a game replays exactly
from (seed, actions) and a restored state continues identically.

Rule decisions taken here (documented in the README too):

* No dead ends (DESIGN.md invariant 2). A meld or lay-off that would leave
  only cards that may not be discarded this turn is not legal; taking the top
  discard is not legal when every card in hand is a copy of it (two decks).
* A natural ace laid off on a run 2..K is placed high.
* Stock rebuilds happen when a player is to draw and the stock is empty. When
  the stock cannot be rebuilt (limit reached, or too few discards) the round
  ends and the lowest hand wins it (D-8).
* A player who goes out wins the round; hand sizes stay those of the rule set
  when players are eliminated from a match.
"""

import rummy_env.variants  # noqa: F401 (the games: their modules register here)
from rummy_env.engine.deal import DEAL_KEYS, OPTION_KEYS, new_game
from rummy_env.engine.flow import (
    apply_action,
    apply_legal_action,
    is_terminal,
    phase_table,
    returns,
)
from rummy_env.engine.game import PhaseRules
from rummy_env.engine.legal import (
    acting_seat,
    discard_only,
    legal_actions,
    legal_play_to_first_meld,
)
from rummy_env.engine.saved import from_dict, state_keys
from rummy_env.engine.state import (
    GameState,
    IllegalActionError,
    Phase,
    TableMeld,
    card_values,
    deal_number,
    round_hand_size,
)

#: every key of ``GameState.to_dict()`` data (the core's, then each declared field's)
STATE_KEYS = state_keys()

__all__ = [
    "DEAL_KEYS",
    "OPTION_KEYS",
    "STATE_KEYS",
    "GameState",
    "IllegalActionError",
    "Phase",
    "PhaseRules",
    "TableMeld",
    "acting_seat",
    "apply_action",
    "apply_legal_action",
    "card_values",
    "deal_number",
    "discard_only",
    "from_dict",
    "is_terminal",
    "legal_actions",
    "legal_play_to_first_meld",
    "new_game",
    "phase_table",
    "returns",
    "round_hand_size",
]
