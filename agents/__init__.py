"""Agents behind one small interface (:mod:`agents.base`), and their registry.

```python
import agents, rummy_env
rules = rummy_env.make_rules("basic", num_players=2)
bot = agents.make("greedy", rules, seat=0)
bot.reset(seed=0)
action = bot.act(obs["observation"], obs["action_mask"])
agents.available()        # ['basic-expert', 'gin-expert', 'gin-simple', 'greedy', 'ppo', ...]
agents.make("variant", rules)   # the rule-based agent written for rules.name
```

Registry names:

| name           | agent                                                          |
|----------------|----------------------------------------------------------------|
| `random`       | uniform over legal moves                                       |
| `greedy`       | melds and lays off all it can, takes the discard when it completes or extends a meld, discards to the lowest deadwood |
| `basic-expert` | rule-based agent for basic rummy that knows its scoring         |
| `gin-simple`   | OpenSpiel's simple gin rummy bot policy (`agents/gin_rummy.py`) |
| `gin-expert`   | rule-based gin agent: knock timing, undercut awareness (`gin`)  |
| `rummy500-expert` | rule-based Rummy 500 agent: digging, lay-offs (`rummy500`, `persian`) |
| `rummy51-expert` | rule-based Rummy 51 agent: plans the opening (`rummy51`)       |
| `indian-expert` | rule-based Indian rummy agent: counts its hand as a show would, drops bad hands (`indian`) |
| `contract-expert` | rule-based contract rummy agent: distance to the contract, buys, going down (`contract`) |
| `rummikub-expert` | Rummikub agent: plans the whole turn, weighs what the table gives away, and in the 2-player endgame plays out its choices in deals that fit what the opponent's play revealed (`rummikub`) |
| `canasta-expert` | rule-based Canasta agent: values the pile, freezes it, builds canastas with its partner, times going out, safe discards (`canasta`) |
| `search`       | determinized Monte Carlo search with fast rollouts             |
| `ppo:<model>`  | a trained MaskablePPO policy (`agents/trained/<model>.npz`, or a `.npz`/`.zip` path; loading runs no code) |
| `neural:<model>` | a network trained by self-play (`rummy-selfplay`), played in numpy (`agents/trained/neural/<model>.npz`, or a `.npz` path; `neural:<preset>`: the shipped model of the preset for the rules' player count) |
| `rllib:<path>` | a self-play PPO policy trained on RLlib (`experiments/train_rllib.py`), played in numpy |
| `es:<model>`   | a variant agent with constants learned by evolution strategies (`agents/trained/es/<model>.npz`, `agents/tuned.py`) |
| `variant`      | the rule-based agent of the preset (`VARIANT_AGENTS[rules.name]`) |
| `trained:<preset>` | the strongest shipped model of the preset for two players (`TRAINED_MODELS`); bare `trained`: the rules' preset |

A spec may carry options: ``"search:simulations=8:candidates=3"``; bare values
fill the agent's options in order (``"ppo:basic-2p"`` sets ``model``).

A variant's own agent lives in its own module and is added with one line to
``_AGENTS`` and one to ``VARIANT_AGENTS``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from agents.base import Agent, Policy, View, read_observation
from rummy_env.rules import RuleSet

#: name -> (module, class, one-line description)
_AGENTS: dict[str, tuple[str, str, str]] = {
    "random": ("agents.random_agent", "RandomAgent", "uniform over legal moves"),
    "greedy": ("agents.greedy", "GreedyAgent", "melds/lays off all, lowest-deadwood discard"),
    "basic-expert": ("agents.basic_rummy", "BasicExpertAgent", "rule-based basic rummy agent"),
    "gin-simple": ("agents.gin_rummy", "GinSimpleAgent", "OpenSpiel's simple gin rummy bot policy"),
    "gin-expert": ("agents.gin_rummy", "GinExpertAgent", "rule-based gin rummy agent"),
    "rummy500-expert": ("agents.rummy500", "Rummy500ExpertAgent", "rule-based Rummy 500 agent"),
    "rummy51-expert": ("agents.rummy51", "Rummy51ExpertAgent", "rule-based Rummy 51 agent"),
    "indian-expert": ("agents.indian", "IndianExpertAgent", "rule-based Indian rummy agent"),
    "contract-expert": (
        "agents.contract",
        "ContractExpertAgent",
        "rule-based contract rummy agent",
    ),
    "rummikub-expert": (
        "agents.rummikub",
        "RummikubExpertAgent",
        "Rummikub agent: planned turns, the endgame searched",
    ),
    "canasta-expert": ("agents.canasta", "CanastaExpertAgent", "rule-based Canasta agent"),
    "search": ("agents.search", "SearchAgent", "determinized Monte Carlo search"),
    "ppo": ("agents.ppo_agent", "PPOAgent", "a trained MaskablePPO policy (ppo:<model>)"),
    "rllib": ("agents.rllib_agent", "RLlibAgent", "a policy exported by rummy-train-rllib"),
    "neural": ("agents.neural", "NeuralAgent", "a self-play network (neural:<model>)"),
    "es": (
        "agents.tuned",
        "TunedAgent",
        "a variant agent with constants learned by ES (es:<model>)",
    ),
}

#: preset name -> registry name of the rule-based agent written for it
VARIANT_AGENTS: dict[str, str] = {
    "basic": "basic-expert",
    "deuces": "basic-expert",
    "gin": "gin-expert",
    "rummy500": "rummy500-expert",
    "persian": "rummy500-expert",
    "rummy51": "rummy51-expert",
    "indian": "indian-expert",
    "contract": "contract-expert",
    "rummikub": "rummikub-expert",
    "canasta": "canasta-expert",
}

VARIANT = "variant"

#: preset -> the agent spec of the shipped model that ``trained:<preset>`` plays: the strongest
#: shipped model of that preset for two players (the model cards: agents/trained/README.md)
TRAINED_MODELS: dict[str, str] = {
    "basic": "neural:basic-2p",
    "gin": "neural:gin-2p",
    "rummy500": "neural:rummy500-2p",
    "rummy51": "neural:rummy51-2p",
    "indian": "es:indian-2p",
}

TRAINED = "trained"


def shipped_models() -> list[str]:
    """The specs of the models shipped in ``agents/trained/`` (``ppo:basic-2p``, ``es:gin-2p``, ...)."""
    trained = Path(__file__).resolve().parent / "trained"  # as agents.ppo_agent and agents.tuned
    return (
        [f"ppo:{p.stem}" for p in sorted(trained.glob("*.npz"))]
        + [f"es:{p.stem}" for p in sorted((trained / "es").glob("*.npz"))]
        + [f"neural:{p.stem}" for p in sorted((trained / "neural").glob("*.npz"))]
    )


def available() -> list[str]:
    """Every name :func:`make` accepts: the registry, ``variant``, the ``trained:<preset>``
    aliases and each shipped model under its own name."""
    return sorted(
        [*_AGENTS, VARIANT, *(f"{TRAINED}:{p}" for p in TRAINED_MODELS), *shipped_models()]
    )


def _trained(spec: str, parts: list[str], rules: RuleSet | None) -> tuple[str, dict[str, Any]]:
    """``trained[:<preset>][:option=value...]`` -> ``("ppo", {"model": ..., ...})``."""
    bare = [p for p in parts if p and "=" not in p]
    if len(bare) > 1:
        raise ValueError(f"agent spec {spec!r}: trained takes one preset name (trained:<preset>)")
    preset = bare[0] if bare else (rules.name if rules is not None else None)
    if preset not in TRAINED_MODELS:
        raise ValueError(
            f"agent spec {spec!r}: no trained model for preset {preset!r} yet "
            f"(trained models: {', '.join(f'{TRAINED}:{p}' for p in TRAINED_MODELS)})"
        )
    if rules is not None and rules.name != preset:
        raise ValueError(f"agent spec {spec!r}: a {preset} model cannot play {rules.name!r}")
    opts = {
        k.strip(): parse_value(v.strip())
        for k, _, v in (p.partition("=") for p in parts if "=" in p)
    }
    if "model" in opts:
        raise ValueError(
            f"agent spec {spec!r}: trained picks the model; use ppo:<model> or es:<model> "
            "for another"
        )
    name, model_opts = parse_spec(TRAINED_MODELS[preset], rules)
    return name, {**model_opts, **opts}


def resolve(name: str, rules: RuleSet) -> str:
    """The concrete registry name (``"variant"`` becomes the preset's own agent).

    Raises:
        ValueError: an unknown name, or ``"variant"`` for a preset without one.
    """
    if name == VARIANT:
        if rules.name not in VARIANT_AGENTS:
            raise ValueError(
                f"no variant agent for preset {rules.name!r} yet "
                f"(variant agents exist for: {', '.join(sorted(VARIANT_AGENTS))}; "
                f"agents for any preset: {', '.join(sorted(_AGENTS))})"
            )
        return VARIANT_AGENTS[rules.name]
    if name not in _AGENTS:
        raise ValueError(f"unknown agent {name!r} (allowed: {', '.join(available())})")
    return name


def agent_class(name: str, rules: RuleSet | None = None) -> type[Agent]:
    """The class registered under ``name`` (``rules`` needed for ``"variant"``)."""
    if name == VARIANT and rules is None:
        raise ValueError("'variant' needs the rules to pick the preset's agent")
    module, cls, _ = _AGENTS[resolve(name, rules) if rules is not None else _check(name)]
    return getattr(importlib.import_module(module), cls)


def _check(name: str) -> str:
    if name not in _AGENTS:
        raise ValueError(f"unknown agent {name!r} (allowed: {', '.join(available())})")
    return name


def parse_value(text: str) -> Any:
    """``"3"`` -> 3, ``"0.5"`` -> 0.5, ``"true"`` -> True, ``"none"`` -> None, else the text."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str, rules: RuleSet | None = None) -> tuple[str, dict[str, Any]]:
    """Split an agent spec ``name[:value...][:option=value...]`` into the registry
    name and its options. Bare values fill the agent's options in order
    (``"ppo:basic-2p"`` is ``ppo`` with ``model="basic-2p"``); ``"variant"``
    resolves to the preset's agent when ``rules`` are given.

    Raises:
        ValueError: unknown name, malformed or unknown option.
    """
    name, *parts = [p.strip() for p in spec.split(":")]
    if name == TRAINED:
        return _trained(spec, parts, rules)
    name = resolve(name, rules) if rules is not None else _check(name)
    opts: dict[str, Any] = {}
    positional = []
    for p in parts:
        if "=" in p:
            k, v = p.split("=", 1)
            opts[k.strip()] = parse_value(v.strip())
        elif p:
            positional.append(p)
    if positional:
        names = agent_class(name).options()
        if len(positional) > len(names):
            raise ValueError(
                f"agent spec {spec!r}: too many values (options of {name!r}: "
                f"{', '.join(names) or 'none'})"
            )
        for k, v in zip(names, positional):
            if k in opts:
                raise ValueError(f"agent spec {spec!r}: {k!r} given twice")
            opts[k] = parse_value(v)
    if rules is not None:
        opts = agent_class(name).for_rules(opts, rules)
    return name, opts


def make(name: str, rules: RuleSet, seat: int = 0, **kwargs: Any) -> Agent:
    """Create the agent registered under ``name`` for ``rules`` and ``seat``.

    ``name`` may carry options (:func:`parse_spec`): ``"search:simulations=8"``,
    ``"ppo:basic-2p"``; keyword arguments add to them.

    Raises:
        ValueError: unknown name (the message lists the allowed names) or an
            option the agent does not take.
    """
    base, opts = parse_spec(name, rules)
    opts.update(kwargs)
    cls = agent_class(base, rules)
    unknown = sorted(set(opts) - set(cls.options()))
    if unknown:
        raise ValueError(
            f"agent {base!r} has no option(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(cls.options()) or 'none'})"
        )
    return cls(rules, seat, **opts)


__all__ = [
    "Agent",
    "Policy",
    "TRAINED_MODELS",
    "VARIANT_AGENTS",
    "View",
    "agent_class",
    "available",
    "make",
    "parse_spec",
    "parse_value",
    "read_observation",
    "resolve",
]
