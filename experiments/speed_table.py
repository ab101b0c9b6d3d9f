"""The speed table of the README and docs/speed.md, made from ``rummy-benchmark --json``.

```bash
rummy-benchmark --preset all --modes engine,raw,env,vector --seconds 3 --repeats 5 --json docs/speed.json
python -m experiments.speed_table docs/speed.json                                   # print the table
python -m experiments.speed_table docs/speed.json --write README.md docs/speed.md   # put it there
```

One row per preset (and player count, when the file holds several), one column per mode
in the order the benchmark ran them: the median decisions per second of random masked
play on one core, rounded to three significant figures. ``--write`` replaces the table
between the lines ``<!-- speed-table -->`` and ``<!-- /speed-table -->`` of each file
(and nothing else); ``tests/test_readme.py`` checks that the README's table is the one
this script makes from ``docs/speed.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

#: column titles of the benchmark's modes
MODE_TITLES = {
    "engine": "engine alone",
    "raw": "raw AEC env",
    "env": "`env()`",
    "vector": "`vector_env`",
}
BEGIN, END = "<!-- speed-table -->", "<!-- /speed-table -->"


def three_figures(x: float) -> str:
    """``x`` rounded to three significant figures, with thousands separators."""
    if x <= 0:
        return "0"
    digits = len(str(int(x)))
    return f"{round(x, 3 - digits):,.0f}" if digits >= 3 else f"{x:.3g}"


def table(results: list[dict]) -> str:
    """The Markdown table of a ``rummy-benchmark --json`` result list."""
    runs = [r for r in results if "mode" in r and "decisions_per_s" in r]
    if not runs:
        raise ValueError("no benchmark runs in the file (rummy-benchmark --json FILE writes them)")
    modes: list[str] = []
    rows: dict[tuple[str, int], dict[str, float]] = {}
    for r in runs:
        if r["mode"] not in modes:
            modes.append(r["mode"])
        rows.setdefault((r["preset"], r["players"]), {})[r["mode"]] = r["decisions_per_s"]
    players = {p for _, p in rows}
    head = ["preset"] + (["players"] if len(players) > 1 else [])
    head += [MODE_TITLES.get(m, m) for m in modes]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (preset, n), cells in rows.items():
        row = [f"`{preset}`"] + ([str(n)] if len(players) > 1 else [])
        row += [three_figures(cells[m]) if m in cells else "" for m in modes]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def write_into(path: Path, text: str) -> None:
    """Replace the table between the markers of ``path`` by ``text``."""
    doc = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + r"\n.*?" + re.escape(END), re.S)
    if not pattern.search(doc):
        raise ValueError(f"{path} has no {BEGIN} ... {END} lines to put the table between")
    path.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", doc), encoding="utf-8")


def marked_table(path: Path) -> str:
    """The table between the markers of ``path``."""
    doc = path.read_text(encoding="utf-8")
    m = re.search(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), doc, re.S)
    if m is None:
        raise ValueError(f"{path} has no {BEGIN} ... {END} lines")
    return m.group(1)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.speed_table",
        description="Turn the JSON of rummy-benchmark --json into the Markdown speed table "
        "(decisions per second, one row per preset, one column per mode).",
    )
    ap.add_argument("json", type=Path, help="the file rummy-benchmark --json wrote")
    ap.add_argument(
        "--write",
        nargs="+",
        type=Path,
        default=[],
        metavar="FILE",
        help="replace the table between <!-- speed-table --> and <!-- /speed-table --> "
        "in these Markdown files instead of printing it",
    )
    args = ap.parse_args(argv)
    try:
        text = table(json.loads(args.json.read_text(encoding="utf-8")))
        for path in args.write:
            write_into(path, text)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"speed_table: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    if args.write:
        print(f"Wrote the table into {', '.join(map(str, args.write))}")
    else:
        print(text)


if __name__ == "__main__":
    main()
