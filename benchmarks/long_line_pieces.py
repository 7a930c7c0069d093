"""Secrets in a line longer than a piece: what the stored pieces keep of them.

A minified bundle or a generated file puts thousands of statements on one line; a chunker slices
such a line into pieces of a few thousand characters and repeats its start in a part's header or
skeleton. This plants generated secrets of six forms (a quoted password, a GitHub token, an AWS key
id, a URL's password, a Slack token, a JWT) every few hundred characters of one line, for each of
eight file kinds, chunks the file as an ingest does (`chunk_file`) and counts what survives in any
field of any piece (text, header, analysis text, skeleton, symbols, meta):

- `line`: planted values the whole line's own redaction (`redact_text`) leaves, the read path's view;
- `whole`: planted values found whole in the pieces; `cut`: 8-character pieces of the planted
  values (none occurs elsewhere in the file) found in the pieces: a secret cut by a piece's edge.

    python benchmarks/long_line_pieces.py [--units 600] [--seed 7] [--shapes]

Figures: benchmarks/secrets_recall.md, "Lines longer than a piece".
"""

from __future__ import annotations

import argparse
import json
import random
import string
import time

from chunkers import chunk_file
from chunkers.redact import redact_text

ALNUM = string.ascii_letters + string.digits


def _values(rng: random.Random) -> dict[str, str]:
    def rnd(n: int, alphabet: str = ALNUM) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))
    return {"password": "Zq" + rnd(14), "github": "ghp_" + rnd(36), "aws": "AKIA" + rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
            "url": "u" + rnd(17), "slack": "xoxb-" + rnd(11, string.digits) + "-" + rnd(12, string.digits) + "-" + rnd(24),
            "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI" + rnd(20) + "In0." + rnd(43)}


def _unit(kind: str, i: int, v: dict[str, str]) -> str:
    url = f"postgres://admin:{v['url']}@db.example.com/app"
    if kind in ("js", "ts"):
        return (f'function f{i}(){{var password="{v["password"]}";var t="{v["github"]}",k="{v["aws"]}",'
                f's="{v["slack"]}",j="{v["jwt"]}";return connect("{url}")}}')
    if kind == "py":
        return f'c{i} = dict(password="{v["password"]}", token="{v["github"]}", key="{v["aws"]}", slack="{v["slack"]}", jwt="{v["jwt"]}", url="{url}");'
    if kind == "cs":
        return (f'var c{i} = new C {{ Password = "{v["password"]}", Token = "{v["github"]}", Key = "{v["aws"]}", '
                f'Slack = "{v["slack"]}", Jwt = "{v["jwt"]}", Url = "{url}" }};')
    if kind == "json":
        return (f'"c{i}": {{"password": "{v["password"]}", "token": "{v["github"]}", "key": "{v["aws"]}", '
                f'"slack": "{v["slack"]}", "jwt": "{v["jwt"]}", "url": "{url}"}}')
    return f'password: {v["password"]} token {v["github"]} key {v["aws"]} slack {v["slack"]} jwt {v["jwt"]} url {url}'


FILES = {"bundle.min.js": "js", "bundle.min.ts": "ts", "generated.py": "py", "Generated.cs": "cs",
         "data.json": "json", "notes.md": "text", "server.log": "text", "dump.sql": "text"}


def _line(kind: str, units: int, rng: random.Random) -> tuple[str, list[str]]:
    parts, planted = [], []
    for i in range(units):
        v = _values(rng)
        planted += v.values()
        parts.append(_unit(kind, i, v))
    line = (";" if kind in ("js", "ts") else ", " if kind == "json" else " ").join(parts)
    if kind == "json":
        line = "{" + line + "}"
    elif kind == "cs":
        line = "class K { void M() { " + line + " } }"
    return line, planted


def _shapes(rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """Long lines inside structure (`--shapes`): a class member of 150 statements (two blanks between words, then
    one), the same in C# and Python, a heading of 300 pairs, a procedure of 300 login calls, a YAML flow mapping."""
    def rnd(n: int) -> str:
        return "".join(rng.choice(ALNUM) for _ in range(n))
    out = []
    for name, sep in (("member.ts", "  "), ("member1.ts", " ")):
        planted, stmts = [], []
        for _ in range(150):
            pw, tok = "Zq" + rnd(16), "ghp_" + rnd(36)
            planted += [pw, tok]
            stmts.append(f'var{sep}password{sep}={sep}"{pw}";{sep}var{sep}t{sep}={sep}"{tok}";')
        line = " ".join(stmts)
        out.append((name, "export class K {\n  m(): void { " + line + " }\n  n(): number { return 1; }\n}\n", planted))
    planted = ["Zq" + rnd(6) + "7" + rnd(9) for _ in range(300)]
    stmts = " ".join(f'var password = "{v}"; var t = "x";' for v in planted[:150])
    out.append(("Member.cs", "namespace N {\npublic class K {\n    public void M() { " + stmts
                + " }\n    public int N() { return 1; }\n}\n}\n", planted[:150]))
    line = "; ".join(f'password = "{v}"' for v in planted[:200])
    out.append(("member.py", "class K:\n    def m(self):\n        " + line + "\n\n    def n(self):\n        return 1\n",
                planted[:200]))
    line = " ".join(f"password: {v} and" for v in planted)
    out.append(("heading.md", "# Title " + line[:400] + "\n\n" + line + "\n\n## Next\n\ntext\n", planted))
    line = " ".join(f"EXEC sp_addlogin 'u{i}', '{v}';" for i, v in enumerate(planted))
    out.append(("proc.sql", "CREATE PROCEDURE dbo.P AS BEGIN " + line + " END\nGO\n", planted))
    line = ", ".join(f"password{i}: {v}" for i, v in enumerate(planted))
    out.append(("flow.yaml", "cfg: {" + line + "}\n", planted))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--units", type=int, default=600, help="statements on the line (six secrets each)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shapes", action="store_true", help="long lines inside structure instead (a class member, a "
                    "heading, a procedure, a flow mapping): what the pieces keep")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    if args.shapes:
        print("| file | pieces | planted | whole | 10-char windows |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for name, source, planted in _shapes(rng):
            pieces = chunk_file(name, source.encode())
            blob = "\n".join(json.dumps(p.to_dict(), ensure_ascii=False) for p in pieces)
            cut = sum(v[k:k + 10] in blob for v in planted for k in range(len(v) - 9))
            print(f"| {name} | {len(pieces)} | {len(planted)} | {sum(v in blob for v in planted)} | {cut} |")
        return 0
    print("| file | characters | pieces | planted | line | whole | cut | chunk CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    totals = [0, 0, 0, 0]
    for name, kind in FILES.items():
        line, planted = _line(kind, args.units, rng)
        t0 = time.process_time()
        pieces = chunk_file(name, (line + "\n").encode())
        cpu = time.process_time() - t0
        blob = "\n".join(json.dumps(p.to_dict(), ensure_ascii=False) for p in pieces)
        red = redact_text(line)
        in_line = sum(v in red for v in planted)
        whole = sum(v in blob for v in planted)
        cut = sum(v[k:k + 8] in blob for v in planted for k in range(len(v) - 7))
        for i, n in enumerate((len(planted), in_line, whole, cut)):
            totals[i] += n
        print(f"| {name} | {len(line):,} | {len(pieces)} | {len(planted):,} | {in_line} | {whole} | {cut} | {cpu:.2f} |")
    print(f"| all | | | {totals[0]:,} | {totals[1]} | {totals[2]} | {totals[3]} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
