"""The README's configuration table, rendered from the settings' declaration (store/settings.py), so the
docs cannot drift from the code; tests/ledger_assets/store/test_settings_declared.py checks the README.

    python -m ledger_assets.store.settings_table                    # print the table
    python -m ledger_assets.store.settings_table --write README.md  # replace the block between the markers
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ledger_assets.store.settings import LedgerSettings, ProcessSettings, declared, env_name

BEGIN, END = "<!-- settings:begin -->", "<!-- settings:end -->"
# Read beside the settings, but Dagster's own variable: a row of the table, not a setting.
EXTRA_ROWS = ("| `DAGSTER_HOME` | `$LEDGER_HOME/dagster` | — | the Dagster instance |",)


class TableError(ValueError):
    """The file to write has no settings block (bad input: exit 2)."""


def _default(value, spec) -> str:
    if value == "":
        return spec.unset or "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"


def _number(x) -> str:
    return f"{x:,}".replace(",", " ") if isinstance(x, int) and x >= 10_000 else f"{x:g}"


def _meaning(spec) -> str:
    text = spec.doc
    if spec.bounds is not None:
        text += f"; {_number(spec.bounds[0])}–{_number(spec.bounds[1])}"
    if spec.secret:
        text += "; a secret: read from the environment only, never stored in Dagster config"
    return text


def _launchpad(name: str, spec) -> str:
    if spec.secret or not spec.resource:
        return "—"
    owner, _, attr = spec.resource.partition(".")
    return f"`{owner}.{attr or name}`"


def markdown_table() -> str:
    """One row per declared setting: variable, default, the resource field a run overrides, meaning."""
    rows = ["| variable | default | launchpad | meaning |", "| --- | --- | --- | --- |"]
    for cls in (LedgerSettings, ProcessSettings):
        for f, spec, _ in declared(cls):
            rows.append(f"| `{env_name(f.name, cls)}` | {_default(f.default, spec)} | {_launchpad(f.name, spec)} "
                        f"| {_meaning(spec)} |")
    return "\n".join([*rows, *EXTRA_ROWS])


def replace_block(text: str, table: str) -> str:
    """`text` with the lines between the BEGIN and END markers replaced by `table`."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise TableError(f"no {BEGIN} ... {END} block")
    return text[:start + len(BEGIN)] + "\n" + table + "\n" + text[end:]


def block(text: str) -> str | None:
    """The table between the markers of `text`, or None without them."""
    start, end = text.find(BEGIN), text.find(END)
    return text[start + len(BEGIN):end].strip("\n") if 0 <= start < end else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledger_assets.store.settings_table", description=__doc__)
    parser.add_argument("--write", metavar="FILE", help="replace the settings block of FILE (README.md)")
    args = parser.parse_args(argv)
    table = markdown_table()
    if not args.write:
        print(table)
        return 0
    path = Path(args.write)
    try:
        text = path.read_text(encoding="utf-8")
        new = replace_block(text, table)
    except (OSError, UnicodeDecodeError, TableError) as exc:
        print(f"settings_table: {path}: {exc}", file=sys.stderr)
        return 2
    if new != text:
        path.write_text(new, encoding="utf-8")
    print(f"{path}: settings table {'written' if new != text else 'already current'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
