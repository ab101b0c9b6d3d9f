"""The torch side of the PPO agents: the features extractor of the shipped policies.

Imported only by the training script and when a model file is loaded with
torch (:mod:`agents.ppo_agent` imports it lazily); nothing in ``rummy_env``
imports torch.

:class:`RummyFeatures` compresses the observation before the shared first layer.
The largest slice of the observation (:mod:`rummy_env.observation`) is the
discard pile, one one-hot row per position (``D x 53`` values, 2756 of 3961 in
basic 2p). Only its top card can be drawn (basic) and the rest matters as the
set of cards gone by, so the extractor keeps the top row and the column sums
(the cards in the pile) and drops the order below the top. Counts that are not
0/1 (hand sizes, stock size, totals, ...) are divided by fixed scales. Then one
shared ``Linear + ReLU`` layer (``features_dim`` units) feeds the policy and
value heads. Digging presets (rummy500, persian: ``discard_pickup="any"``)
keep the whole pile (``keep_pile=True``), since any depth may be taken there.

:func:`feature_kwargs` builds the extractor's keyword arguments (plain ints,
so they pickle into the model file) from a rule set.

**Residual policies** (``features="variant"`` or ``"hand+variant"``): the last
``prior_actions`` values of the input are the move the preset's rule-based
agent would play, one-hot (:class:`agents.features.VariantFeatures`); they
bypass the first layer.
:class:`ResidualPolicy` adds them to the action logits, scaled by a learned
``alpha`` (:class:`PriorHead`): ``logits = action_net(latent) + alpha * onehot``.
With the action head's small initial weights the most probable move is the
expert's from the first step, and training learns where to leave it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch as th
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from rummy_env.moves import Layout
from rummy_env.observation import ObsLayout
from rummy_env.rules import RuleSet


def feature_kwargs(
    rules: RuleSet,
    features_dim: int = 256,
    hand_features: str | None = None,
    prior_scale: float = 3.0,
) -> dict[str, Any]:
    """``features_extractor_kwargs`` for :class:`RummyFeatures` under ``rules``.

    ``hand_features``: the :mod:`agents.features` map appended to the
    observation (``"hand"``) or ``None``; recorded in the model so that
    :class:`agents.ppo_agent.PPOAgent` computes the same input at play time.
    """
    L = ObsLayout(rules)
    d = L.slices["discard"]
    return {
        "discard": (d.start, L.D),
        "scales": [(sl.start, sl.stop, v) for sl, v in L.count_scales],
        "keep_pile": rules.discard_pickup == "any",
        "features_dim": features_dim,
        "hand_features": hand_features,
        **(
            {"prior_actions": Layout(rules).size, "prior_scale": float(prior_scale)}
            if hand_features and "variant" in hand_features
            else {}
        ),
    }


class RummyFeatures(BaseFeaturesExtractor):
    """Observation -> compressed input -> ``Linear(features_dim) + ReLU`` (module docs)."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        discard: tuple[int, int],
        scales: list[tuple[int, int, float]],
        keep_pile: bool = False,
        features_dim: int = 256,
        hand_features: str | None = None,
        prior_actions: int = 0,
        prior_scale: float = 3.0,
    ):
        super().__init__(observation_space, features_dim)
        self.hand_features = hand_features  # appended after the observation (scale 1, kept whole)
        self.prior_actions = int(
            prior_actions
        )  # the expert's move one-hot: the input's last values
        self.prior_scale = float(prior_scale)
        self.prior: th.Tensor | None = None  # of the last forward pass, for PriorHead
        n = int(observation_space.shape[0])
        self.d0, self.rows = int(discard[0]), int(discard[1])
        self.d1 = self.d0 + self.rows * 53
        self.keep_pile = bool(keep_pile)
        n -= (
            self.prior_actions
        )  # the expert's move reaches the logits only (PriorHead), not the layer
        scale = th.ones(n)
        for a, b, v in scales:
            scale[a:b] = 1.0 / v
        self.register_buffer("scale", scale)
        n_in = n if self.keep_pile else n - self.rows * 53 + 2 * 53
        self.n_in = n_in
        self.linear = nn.Linear(n_in, features_dim)

    def compress(self, obs: th.Tensor) -> th.Tensor:
        if self.prior_actions:
            obs = obs[:, : -self.prior_actions]
        x = obs * self.scale
        if self.keep_pile:
            return x
        pile = x[:, self.d0 : self.d1]
        top = pile[:, :53]
        seen = pile.reshape(-1, self.rows, 53).sum(dim=1)
        return th.cat([x[:, : self.d0], x[:, self.d1 :], top, seen], dim=1)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        if self.prior_actions:
            self.prior = observations[:, -self.prior_actions :]
        return th.relu(self.linear(self.compress(observations)))


class PriorHead(nn.Module):
    """``linear(latent) + alpha * prior``: the action head of :class:`ResidualPolicy`, where
    ``prior`` is the expert-move one-hot the extractor saw in the same forward pass."""

    def __init__(self, linear: nn.Linear, extractor: RummyFeatures, alpha: float):
        super().__init__()
        self.linear = linear
        self._extractor = [
            extractor
        ]  # a reference, not a submodule (its weights live in the policy)
        self.alpha = nn.Parameter(th.tensor(float(alpha)))

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.linear(latent) + self.alpha * self._extractor[0].prior


def _maskable_policy():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy


class ResidualPolicy(_maskable_policy()):
    """The maskable actor-critic policy whose action head adds the expert's move (module docs)."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        fe = self.pi_features_extractor
        if isinstance(fe, RummyFeatures) and fe.prior_actions:
            self.action_net = PriorHead(self.action_net, fe, fe.prior_scale)
            self.optimizer = self.optimizer_class(
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
            )
