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

from agents.base import LogitsAgent, obs_size
from agents.model_io import ModelFile, check_weights, open_model, read_npz
from rummy_env.rules import RuleSet


class RLlibAgent(LogitsAgent):
    """A policy exported by ``experiments/train_rllib.py`` (see the module docs).

    Args:
        rules: the rule set; its preset and players must be the model's.
        seat: the seat it plays.
        model: path of the exported ``.npz``.
        deterministic: play the most probable legal move (else sample).
    """

    name = "rllib"

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        model: str | Path | ModelFile = "",
        deterministic: bool = True,
    ):
        super().__init__(rules, seat, model, deterministic)
        self.path = model.path if isinstance(model, ModelFile) else Path(model)
        data = open_model(model, "exported policy file")
        try:
            z = read_npz(data)
            self.meta = json.loads(str(z["meta"]))
            n = int(self.meta["layers"])
            self.layers = [
                (np.asarray(z[f"w{i}"], np.float32), np.asarray(z[f"b{i}"], np.float32))
                for i in range(n)
            ]
        except (KeyError, ValueError, TypeError) as e:
            raise ValueError(f"{self.path}: not an exported RLlib policy ({e})") from None
        if (
            self.meta.get("preset") not in (None, rules.name)
            or self.meta.get("num_players", rules.num_players) != rules.num_players
        ):
            raise ValueError(
                f"{self.path} plays {self.meta.get('preset')} with {self.meta.get('num_players')} "
                f"players, not {rules.name} with {rules.num_players}"
            )
        n_in, n_out = obs_size(rules), self.moves.num_actions
        for i, (w, b) in enumerate(self.layers):
            if w.ndim != 2 or w.shape[1] != n_in or b.shape != (w.shape[0],):
                raise ValueError(
                    f"{self.path}: layer {i} has weights {w.shape} and bias {b.shape}, which do "
                    f"not take an input of {n_in} (the observation of {rules.name!r} with "
                    f"{rules.num_players} players, then the layer before)"
                )
            n_in = w.shape[0]
        if not self.layers or n_in != n_out:
            raise ValueError(
                f"{self.path}: the policy gives {n_in if self.layers else 0} outputs, but "
                f"{rules.name!r} with {rules.num_players} players has {n_out} actions"
            )
        check_weights({f"w{i}": w for i, (w, _) in enumerate(self.layers)}, self.path)
        check_weights({f"b{i}": b for i, (_, b) in enumerate(self.layers)}, self.path)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("model", "deterministic")

    @classmethod
    def model_file(cls, **options: Any) -> Path | None:
        return Path(options["model"]) if options.get("model") else None

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, np.float32)
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < len(self.layers) - 1:
                x = np.tanh(x)
        return x
