"""Ship a trained model: write a run's policy as ``agents/trained/<name>.npz`` with its card.

```bash
rummy-ship --run runs/basic-2p-residual__s1 --name basic-2p-residual              # the run's best_model.zip
rummy-ship --run runs/basic-2p-residual__s1 --name basic-2p-residual --checkpoint step_400000
```

Training never writes into the package (``rummy-train`` writes under
``runs/<run>/``); this is the explicit step that does. The model is read with
:func:`agents.model_io.load_ppo` (nothing unpickled) and written as a ``.npz``
policy (weights and JSON metadata, :func:`agents.ppo_agent.save_numpy_policy`),
with a ``.json`` card beside it: preset, players, rules, the run, the checkpoint,
its step, the run's arguments and the command. It refuses to overwrite an
existing model unless ``--overwrite`` is given.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from agents.ppo_agent import TRAINED_DIR


@dataclass
class Args:
    run: str
    """run directory (runs/<run>, as written by rummy-train)"""
    name: str
    """model name: writes agents/trained/<name>.npz and <name>.json"""
    checkpoint: str = "best"
    """best (best_model.zip: the trainer's evaluation picked it), final, or step_N (checkpoints/step_N.zip)"""
    out_dir: str = str(TRAINED_DIR)
    """where the model goes (the package's agents/trained)"""
    overwrite: bool = False
    """replace an existing model of that name"""


def checkpoint_file(run: Path, which: str) -> Path:
    """The model file of ``which`` in ``run`` (see :class:`Args`).

    Raises:
        ValueError: no such file.
    """
    path = {"best": run / "best_model.zip", "final": run / "final_model.zip"}.get(
        which, run / "checkpoints" / f"{which}.zip"
    )
    if not path.is_file():
        raise ValueError(f"no checkpoint {which!r} in {str(run)!r} ({path} does not exist)")
    return path


def ship(args: Args) -> Path:
    """Write the model and its card (module docs); the model's path."""
    from agents.model_io import load_ppo
    from agents.ppo_agent import save_numpy_policy

    run = Path(args.run)
    if not (run / "args.json").is_file():
        raise ValueError(f"{str(run)!r} is not a run directory (no args.json)")
    if not args.name or "/" in args.name or args.name.startswith("."):
        raise ValueError(f"--name {args.name!r}: give a plain model name such as basic-2p-residual")
    out = Path(args.out_dir) / f"{args.name}.npz"
    if out.exists() and not args.overwrite:
        raise ValueError(f"{out} exists; pass --overwrite to replace it")
    src = checkpoint_file(run, args.checkpoint)
    model = load_ppo(src)
    run_args = json.loads((run / "args.json").read_text())
    save_numpy_policy(model.policy, out)
    card = {
        "preset": run_args["preset"],
        "num_players": run_args["num_players"],
        "rules": run_args.get("rules", []),
        "timesteps": int(model.num_timesteps),
        "run": run.name,
        "checkpoint": str(src.relative_to(run)),
        "config": run_args.get("config"),
        "features": run_args.get("features"),
        "imitate": run_args.get("imitate"),
        "command": " ".join(["rummy-ship", *sys.argv[1:]]),
    }
    out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> None:
    import tyro

    args = tyro.cli(
        Args,
        args=argv,
        prog="rummy-ship",
        description=__doc__.splitlines()[0].replace("``", ""),
    )
    try:
        out = ship(args)
    except ValueError as e:
        print(f"rummy-ship: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    print(f"Wrote: {out}, {out.with_suffix('.json')} ({out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
