"""`rllib:<path>`: a policy trained with RLlib (``experiments/train_rllib.py``), in numpy.

```python
bot = agents.make("rllib:runs/rllib__s1/policy.npz", rules, seat=0)
```

The file is what ``train_rllib`` exports: the actor network's layers as plain
arrays ``w0, b0, w1, b1, ...`` (tanh between them, the last one the logits)
and a JSON ``meta`` entry, read with ``allow_pickle=False``: loading runs no
code and needs neither Ray nor torch. The agent plays the most probable legal
move (``deterministic=False``: samples the masked distribution).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, split_obs
from rummy_env.rules import RuleSet


class RLlibAgent(Agent):
    """A policy exported by ``experiments/train_rllib.py`` (see the module docs).

    Args:
        rules: the rule set; its preset and players must be the model's.
        seat: the seat it plays.
        model: path of the exported ``.npz``.
        deterministic: play the most probable legal move (else sample).
    """

    name = "rllib"

    def __init__(self, rules: RuleSet, seat: int = 0, model: str = "", deterministic: bool = True):
        super().__init__(rules, seat)
        self.path = Path(model)
        if not model or not self.path.is_file():
            raise FileNotFoundError(
                f"rllib needs an exported policy file (rllib:<path>.npz), not {model!r}"
            )
        try:
            with np.load(self.path, allow_pickle=False) as z:
                self.meta = json.loads(str(z["meta"]))
                n = int(self.meta["layers"])
                self.layers = [
                    (np.asarray(z[f"w{i}"], np.float32), np.asarray(z[f"b{i}"], np.float32))
                    for i in range(n)
                ]
        except (KeyError, ValueError, OSError) as e:
            raise ValueError(f"{self.path}: not an exported RLlib policy ({e})") from None
        if (
            self.meta.get("preset") not in (None, rules.name)
            or self.meta.get("num_players", rules.num_players) != rules.num_players
        ):
            raise ValueError(
                f"{self.path} plays {self.meta.get('preset')} with {self.meta.get('num_players')} "
                f"players, not {rules.name} with {rules.num_players}"
            )
        self.deterministic = bool(deterministic)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("model", "deterministic")

    @classmethod
    def content_id(cls, **options: Any) -> str:
        from agents.model_io import file_digest

        return file_digest(Path(options.get("model", "")))

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, np.float32)
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < len(self.layers) - 1:
                x = np.tanh(x)
        return x

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, action_mask = split_obs(observation, action_mask)
        legal = np.flatnonzero(action_mask)
        if not len(legal):
            raise ValueError("act() called with an empty action mask (this seat is not to act)")
        z = self.logits(observation)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        return int(self.rng.choices(list(legal), weights=list(p / p.sum()))[0])
