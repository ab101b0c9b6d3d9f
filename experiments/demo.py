"""One rendered game of random legal moves, its result explained, then the speed benchmark.

rummy-demo                       # basic, 2 players
rummy-demo --preset basic --players 4 --seed 3 --seconds 2
"""

from __future__ import annotations

import argparse
import random

import rummy_env
from experiments import benchmark
from rummy_env.render import describe_result


def play_rendered(preset: str, players: int, seed: int) -> None:
    """Play one random game, printing the table before every draw and the moves."""
    env = rummy_env.env(preset, num_players=players, render_mode="ansi")
    env.reset(seed=seed)
    rng = random.Random(seed)
    last_round = -1
    explained = -1
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.state
        if state.phase == rummy_env.engine.Phase.DRAW:
            if state.round != last_round:
                print(f"=== round {state.round + 1} ===")
                last_round = state.round
            print(env.render())
        legal = rummy_env.legal_moves(obs["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        print(f"  {agent}: {env.unwrapped.decode(action)}")
        env.step(action)
        result = env.unwrapped.state.last_result
        if result is not None and result["round"] != explained:
            explained = result["round"]
            print("\n" + describe_result(result, env.unwrapped.rules) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rummy-demo", description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="basic", help="rule preset (rummy_env.PRESETS)")
    ap.add_argument("--players", type=int, default=2, help="players at the table (default: 2)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the game's deal (default: 0)")
    ap.add_argument("--seconds", type=float, default=3.0, help="benchmark seconds per mode")
    args = ap.parse_args(argv)
    play_rendered(args.preset, args.players, args.seed)
    print("\n=== benchmark: random masked play, one core ===")
    benchmark.main(
        [
            "--preset",
            args.preset,
            "--players",
            str(args.players),
            "--seconds",
            str(args.seconds),
            "--repeats",
            "1",
        ]
    )


if __name__ == "__main__":
    main()
