"""`random`: uniform over the legal moves (the mask), for every preset."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, split_obs
from rummy_env.env import legal_moves


class RandomAgent(Agent):
    """Picks uniformly among the actions the mask marks."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        _, action_mask = split_obs(observation, action_mask)
        legal = legal_moves(action_mask)
        if not len(legal):
            raise ValueError("act() called with an empty action mask (this seat is not to act)")
        return int(legal[self.rng.randrange(len(legal))])

    def action_probs(
        self, observation: np.ndarray, action_mask: np.ndarray | None = None
    ) -> np.ndarray:
        _, action_mask = split_obs(observation, action_mask)
        m = np.asarray(action_mask, dtype=np.float64)
        return m / m.sum()
