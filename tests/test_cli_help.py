"""Every console script's ``--help`` is complete: a description that ends, help text on
every option, no reStructuredText markup.

The scripts are read from pyproject.toml's ``[project.scripts]`` (or, installed from a
wheel, from the distribution's entry points), so a new script is checked without being
listed here. Each one's ``main()`` is run with ``--help`` in a fresh interpreter, and
each of its subcommands' (``script sub --help``) where it has some (argparse and tyro
format alike: the option lines are parsed from the text, with tyro's box drawing taken
off).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# the extra a script's module needs beyond the core and `dev`
NEEDS = {
    "rummy-train": "stable_baselines3",
    "rummy-ship": "torch",
    "rummy-web": "flask",
    "rummy-train-rllib": "ray",
    "rummy-selfplay": "torch",
}


def _console_scripts() -> dict[str, str]:
    pyproject = ROOT / "pyproject.toml"
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = None
    if tomllib is not None and pyproject.exists():
        return dict(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["scripts"])
    try:
        eps = importlib.metadata.distribution("rummy-env").entry_points
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return {}
    return {ep.name: ep.value for ep in eps if ep.group == "console_scripts"}


SCRIPTS = _console_scripts()

# help pages known to fall short, with what is missing: expected to fail until fixed
# (then the entry goes)
KNOWN_GAPS: dict[str, str] = {}


def help_text(name: str, target: str, *args: str) -> str:
    """What ``name [args] --help`` prints."""
    module, func = target.split(":")
    code = f"import sys; sys.argv[0] = {name!r}; from {module} import {func}; {func}()"
    env = {**os.environ, "COLUMNS": "160", "NO_COLOR": "1", "TERM": "dumb"}
    out = subprocess.run(
        [sys.executable, "-c", code, *args, "--help"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert out.returncode == 0, f"{name} --help exited {out.returncode}:\n{out.stderr[-2000:]}"
    return out.stdout


_BOX = "│╭╮╰╯─"


def parse_help(text: str) -> tuple[str, dict[str, str]]:
    """``(description, {option: its help text})`` of an argparse or tyro help page."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    # tyro: "│ --opt TYPE   help │" -> "--opt TYPE   help"; box rules become blank
    clean = []
    for ln in lines:
        s = ln.strip()
        if s and set(s) <= set(_BOX + " ") or s.startswith(("╭", "╰")):
            clean.append("")
            continue
        if s.startswith("│"):
            s = s.strip("│").rstrip()
            clean.append(s[1:] if s.startswith(" ") else s)
        else:
            clean.append(ln)
    # the description: after the usage block (up to the first blank line), up to the options
    i = 0
    while i < len(clean) and clean[i].strip():
        i += 1
    desc: list[str] = []
    for ln in clean[i:]:
        if re.match(r"^(options|optional arguments|positional arguments):?\s*$", ln.strip()):
            break
        if ln.lstrip().startswith("-"):
            break
        desc.append(ln.strip())
    options: dict[str, str] = {}
    current = None
    for ln in clean:
        s = ln.strip()
        if re.match(r"^-{1,2}\w", s) and (ln.startswith(" ") or ln.startswith("-")):
            m = re.match(r"^(\S.*?)(?:\s{2,}(.*))?$", s)
            head, rest = m.group(1), m.group(2) or ""
            flags = re.findall(r"--[\w-]+", head)
            current = flags[0] if flags else head.split()[0]
            options[current] = rest.strip()
        elif current and s and ln.startswith("   "):
            options[current] = (options[current] + " " + s).strip()
        elif not s:
            current = None
    return " ".join(x for x in desc if x).strip(), options


def _bare(help_: str) -> str:
    """A help text less tyro's own "(default: ...)" and "(required)"."""
    return re.sub(r"\((default:? [^)]*|required|fixed to: [^)]*)\)", "", help_).strip()


def subcommands(text: str) -> list[str]:
    """The subcommands a help page's usage line offers (``{train,eval}``), if any."""
    m = re.search(r"\{([\w,-]+)\}", text.split("\n\n", 1)[0])
    return m.group(1).split(",") if m else []


def test_parse_help_reads_argparse_and_tyro():
    argparse_page = (
        "usage: x [-h] [--a A]\n\nDoes a thing.\n\noptions:\n"
        "  -h, --help  show this help message and exit\n  --a A       the a\n"
        "  --long-name LONG_NAME\n              continues here\n  --bare B\n"
    )
    desc, opts = parse_help(argparse_page)
    assert desc == "Does a thing."
    assert opts == {
        "--help": "show this help message and exit",
        "--a": "the a",
        "--long-name": "continues here",
        "--bare": "",
    }
    tyro_page = (
        "usage: x [-h] [OPTIONS]\n\nShips it.\n\n╭─ options ──╮\n"
        "│ -h, --help     show this help message and exit │\n"
        "│ --run STR      run directory (required)        │\n"
        "│ --flag, --no-flag                              │\n"
        "│                turn it on (default: False)     │\n"
        "│ --n INT        (default: 3)                    │\n╰────╯\n"
    )
    desc, opts = parse_help(tyro_page)
    assert desc == "Ships it."
    assert {k: _bare(v) for k, v in opts.items()} == {
        "--help": "show this help message and exit",
        "--run": "run directory",
        "--flag": "turn it on",
        "--n": "",
    }


def _scripts() -> list:
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_GAPS[n])) if n in KNOWN_GAPS else n
        for n in sorted(SCRIPTS)
    ]


@pytest.mark.skipif(not SCRIPTS, reason="rummy-env is not installed (pip install -e .)")
@pytest.mark.parametrize("name", _scripts())
def test_console_script_help_is_complete(name):
    needs = NEEDS.get(name)
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{name} needs {needs} (an optional extra), not installed")
    text = help_text(name, SCRIPTS[name])
    desc, options = parse_help(text)
    assert desc, f"{name} --help has no description:\n{text}"
    assert desc.endswith((".", ")")), f"{name}'s description does not end: {desc!r}"
    pages = {name: text}
    for sub in subcommands(text):
        pages[f"{name} {sub}"] = help_text(name, SCRIPTS[name], sub)
    for title, page in pages.items():
        assert "``" not in page and ":class:" not in page and ":func:" not in page, (
            f"{title} --help shows reStructuredText markup:\n{page}"
        )
        _, options = parse_help(page)
        has_subs = title == name and len(pages) > 1  # (a page of subcommands: their own pages)
        assert len(options) > 1 or title != name or has_subs, (
            f"{title} --help lists no options:\n{page}"
        )
        bare = sorted(opt for opt, h in options.items() if not _bare(h))
        assert not bare, f"{title} --help: options without help text: {bare}\n{page}"


def test_train_features_help_lists_every_kind():
    pytest.importorskip("stable_baselines3")
    from agents.features import KINDS

    _, options = parse_help(help_text("rummy-train", SCRIPTS["rummy-train"]))
    missing = [k for k in KINDS if k not in options["--features"]]
    assert not missing, f"rummy-train --features does not name {missing}: {options['--features']!r}"
