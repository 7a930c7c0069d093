"""Install requirements into this interpreter's venv: with uv when it can, else with pip.

`make setup` runs it as `.venv/bin/python scripts/install_deps.py ARGS...`, ARGS as for `pip install`.
uv unpacks and byte-compiles in parallel (pip does both on one core), which is most of a fresh setup's
time. uv is itself installed from the package index into the venv. It is told what pip would use: the
indexes, find-links, constraints and certificate of `pip config list` (files and PIP_* variables), and
pip's choice of the best version across all indexes (`--index-strategy unsafe-best-match`). A pip setting
it cannot carry over, uv failing to install, or uv failing to resolve falls back to pip, with one line
saying why. `LEDGER_INSTALLER=pip` skips uv. Why: docs/decisions.md, "Setup: uv when it can, pip
otherwise".
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

UV_REQUIREMENT = "uv==0.13.9"

# pip settings uv takes as flags (value split on blanks, one flag each) or as environment.
_FLAGS = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraints",
    "trusted-host": "--allow-insecure-host",
}
_ENV = {"cert": "SSL_CERT_FILE", "default-timeout": "UV_HTTP_TIMEOUT", "timeout": "UV_HTTP_TIMEOUT",
        "proxy": "HTTPS_PROXY"}
# pip settings with no bearing on what gets installed.
_IGNORED = {"disable-pip-version-check", "no-cache-dir", "cache-dir", "progress-bar", "quiet", "verbose",
            "no-input", "root-user-action", "no-color", "no-python-version-warning", "retries",
            "no-warn-script-location", "config-file"}
# Later sections win, as in pip: [global], then [install], then PIP_* variables (`:env:`). pip has already
# merged its config files (global < user < site) within a section.
_SCOPES = ("global", "install", ":env:")


class Unsupported(Exception):
    """A pip setting uv is not told about: install with pip instead."""


def pip_settings(python: str) -> dict[str, str]:
    """pip's effective settings, `{name: value}`, from `pip config list`."""
    out = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True).stdout
    ranked: dict[str, tuple[int, str]] = {}
    for line in out.splitlines():
        key, sep, raw = line.partition("=")
        if not sep:
            continue
        scope, _, name = key.rpartition(".")
        if scope not in _SCOPES:
            continue
        rank = _SCOPES.index(scope)
        value = ast.literal_eval(raw)
        if rank >= ranked.get(name, (-1, ""))[0]:
            ranked[name] = (rank, value)
    return {name: value for name, (_, value) in ranked.items()}


def uv_command(uv: str, python: str, settings: dict[str, str], args: list[str]) -> tuple[list[str], dict[str, str]]:
    """The `uv pip install` command and environment that install `args` as pip would here."""
    cmd = [uv, "pip", "install", "--quiet", "--python", python, "--compile-bytecode",
           "--index-strategy", "unsafe-best-match"]
    env = dict(os.environ)
    for name, value in settings.items():
        if name in _FLAGS:
            for part in value.split():
                cmd += [_FLAGS[name], part]
        elif name in _ENV:
            env[_ENV[name]] = value
        elif name == "no-index":
            if value.lower() in ("1", "true", "yes", "on"):
                cmd.append("--no-index")
        elif name not in _IGNORED:
            raise Unsupported(f"pip setting {name!r}")
    return cmd + args, env


def install(args: list[str]) -> int:
    python = sys.executable
    pip = [python, "-m", "pip", "install", "--quiet", *args]
    if os.environ.get("LEDGER_INSTALLER", "uv") == "pip":
        return subprocess.call(pip)
    uv = str(Path(python).parent / "uv")
    try:
        settings = pip_settings(python)
        if not Path(uv).exists():
            # Quiet unless it fails: pip warns of each local index that does not hold uv.
            subprocess.run([python, "-m", "pip", "install", "--quiet", UV_REQUIREMENT], check=True,
                           capture_output=True, text=True)
        cmd, env = uv_command(uv, python, settings, args)
        subprocess.run(cmd, env=env, check=True)
        return 0
    except (Unsupported, subprocess.CalledProcessError, OSError, ValueError, SyntaxError) as exc:
        detail = (getattr(exc, "stderr", None) or "").strip().splitlines()[-1:]
        print(f"install_deps: installing with pip ({exc}{': ' + detail[0] if detail else ''})", file=sys.stderr)
        return subprocess.call(pip)


if __name__ == "__main__":
    sys.exit(install(sys.argv[1:]))
