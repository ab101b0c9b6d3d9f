"""`es:<model>`: a rule-based agent whose weights were learned by self-play.

```python
import agents, rummy_env

rules = rummy_env.make_rules("gin", num_players=2)
bot = agents.make("es:gin-2p", rules, seat=0)   # agents/trained/es/gin-2p.npz
```

Every variant agent (`basic-expert`, `gin-expert`, ...) decides from an
evaluation with hand-picked constants: how much the near-meld potential counts,
how dangerous each kind of discard is, by how much the up-card must improve the
hand to be taken, when to knock... Its class lists them in ``TUNABLE``. A model
of this kind is a set of values for those constants, learned by evolution
strategies against the variant agent on training deals
(``experiments/train_es.py``); the agent is the variant's class with those
values, so it decides as fast as the variant does.

The model file is a ``.npz`` of plain arrays read with ``allow_pickle=False``
(loading runs no code): ``names`` (the constants), ``values`` (float64) and
``meta`` (JSON: preset, players, base agent, how it was trained). Every name
must be one of the base class's ``TUNABLE`` and every value finite, or loading
fails with a message naming what was wrong.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.model_io import ModelFile, open_model, read_npz
from rummy_env.rules import RuleSet

ES_DIR = Path(__file__).resolve().parent / "trained" / "es"


def model_path(model: str | Path) -> Path:
    """The file of a model name (``"gin-2p"`` -> ``agents/trained/es/gin-2p.npz``) or a path."""
    p = Path(model)
    if p.suffix == ".npz" or p.parent != Path("."):
        return p
    return ES_DIR / f"{model}.npz"


def shipped_models() -> list[str]:
    """Names of the shipped models of this kind (``agents/trained/es/*.npz``)."""
    return sorted(p.stem for p in ES_DIR.glob("*.npz"))


def read_model(path: str | Path | ModelFile) -> tuple[dict[str, float], dict[str, Any]]:
    """``(values by name, meta)`` of a model file (see the module docs), a path or the
    :class:`~agents.model_io.ModelFile` of one.

    Raises:
        ValueError: no such file (the message lists the shipped models), not a model of
            this kind, or a name or value that is not allowed.
    """
    if not isinstance(path, ModelFile) and not Path(path).exists():
        raise ValueError(
            f"no model file {str(path)!r} (shipped es models: {', '.join(shipped_models()) or 'none'})"
        )
    model = open_model(path)
    try:
        z = read_npz(model)
        names = [str(n) for n in np.asarray(z["names"]).reshape(-1)]
        values = np.asarray(z["values"], dtype=np.float64)
        meta = json.loads(str(z["meta"]))
    except (KeyError, ValueError, TypeError) as e:
        raise ValueError(
            f"{model}: not an es model file (a .npz with names, values and meta; {e})"
        ) from None
    if values.shape != (len(names),):
        raise ValueError(f"{model}: {len(names)} names but values of shape {values.shape}")
    if not all(math.isfinite(x) for x in values):
        raise ValueError(f"{model}: values must be finite numbers")
    if not isinstance(meta, dict) or not isinstance(meta.get("base"), str):
        raise ValueError(f"{model}: meta must name the base agent ('base')")
    return dict(zip(names, map(float, values))), meta


def write_model(path: str | Path, values: dict[str, float], meta: dict[str, Any]) -> Path:
    """Write a model file (atomically: a killed writer leaves the old file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(
        tmp,
        names=np.array(list(values), dtype=str),
        values=np.array(list(values.values()), dtype=np.float64),
        meta=np.array(json.dumps(meta)),
    )
    tmp.replace(path)
    return path


def build(base_cls: type[Agent], rules: RuleSet, seat: int, values: dict[str, float]) -> Agent:
    """An instance of ``base_cls`` with the constants in ``values``.

    Raises:
        ValueError: a name that is not one of the class's ``TUNABLE``.
    """
    allowed = getattr(base_cls, "TUNABLE", {})
    unknown = sorted(set(values) - set(allowed))
    if unknown:
        raise ValueError(
            f"{base_cls.name} has no tunable constant(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(allowed) or 'none'})"
        )
    agent = base_cls(rules, seat)
    for k, x in values.items():
        setattr(agent, k, float(x))
    return agent


class TunedAgent(Agent):
    """A variant agent with learned constants (see the module docs).

    Args:
        rules: the rule set; its preset must be the model's.
        seat: the seat it plays.
        model: a shipped model name (``agents/trained/es/<model>.npz``), a ``.npz`` path, or
            the :class:`~agents.model_io.ModelFile` of one.
    """

    name = "es"

    def __init__(self, rules: RuleSet, seat: int = 0, model: str | Path | ModelFile = ""):
        super().__init__(rules, seat)
        if not model:
            raise ValueError(
                f"es needs a model (es:<model>; shipped: {', '.join(shipped_models()) or 'none'})"
            )
        import agents

        self.path = model.path if isinstance(model, ModelFile) else model_path(model)
        values, self.meta = read_model(model if isinstance(model, ModelFile) else self.path)
        preset = self.meta.get("preset")
        if preset is not None and preset != rules.name:
            raise ValueError(f"model {model!r} plays {preset!r}, not {rules.name!r}")
        base = self.meta["base"]
        if base not in agents.VARIANT_AGENTS.values():
            raise ValueError(
                f"model {model!r}: base agent {base!r} is not allowed "
                f"(allowed: {', '.join(sorted(set(agents.VARIANT_AGENTS.values())))})"
            )
        self.inner = build(agents.agent_class(base), rules, seat, values)
        self.values_used = values

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("model",)

    @classmethod
    def model_file(cls, **options: Any) -> Path | None:
        return model_path(options["model"]) if options.get("model") else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.inner.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        return self.inner.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"TunedAgent({self.path.stem}, base={self.meta['base']}, seat={self.seat})"
