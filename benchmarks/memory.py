"""Memory and stored bytes of chunking pathological single files (issue 16, part 1).

    python benchmarks/memory.py [--cs 5000,10000,20000,50000] [--js 0.25,0.5,1,2]
                                [--py N,...] [--ts N,...] [--rb N,...]
                                [--ingest] [--timeout S] [--keep DIR]

Inputs are generated here, deterministic: `--cs N` one C# class of about N lines (documented
methods, auto-properties, fields; `--cs-shape mixed`: three members in four one line); `--js MB`
one minified JavaScript line of that many megabytes (under the ingest's 2,000,000-byte limit,
named `bundleN.js` since `.min.js` is skipped as vendored); `--py` / `--ts` / `--rb N` a Python /
TypeScript / Ruby class of about N lines (the generator of tests/chunkers/test_memory_bounds.py).

For each input, `ledger chunk FILE --format jsonl` runs in a subprocess of its own; its peak RSS
comes from `os.wait4` (the child's own rusage), and its output is streamed and summed, never held:
stored bytes = UTF-8 bytes of `text` + `analysis_text` as DuckDB stores it (`store.db.pack_analysis`)
+ `skeleton` + the JSON of `symbols`, per chunk, given per input byte with the chunk count and the
largest chunk. `--ingest` also runs a real `ledger add-repo` + `ledger ingest` of a temporary repo
holding only that file (no LLM key) and reports its peak RSS and wall time.

Targets: every file under 2 MB chunks with peak RSS < 1 GB and stored text <= 4x input bytes, both
growing linearly with the input. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
sys.path.insert(0, ROOT)

from ledger_assets.store.db import pack_analysis  # noqa: E402


# --------------------------------------------------------------------------- inputs

def csharp_class(lines: int, shape: str = "mixed") -> str:
    """One class of about `lines` lines (a namespace, usings, one type).

    shape "mixed": a documented method, an auto-property, a field and an
    expression-bodied method, in turn (three members in four are one line:
    the worst case for the per-member overhead); "methods": documented
    methods of 14 lines each, closer to hand-written service classes."""
    out = [
        "using System;",
        "using System.Collections.Generic;",
        "",
        "namespace Generated.Memory",
        "{",
        "    /// <summary>A generated class, large on purpose.</summary>",
        "    public class Big",
        "    {",
        "        private readonly int _seed;",
        "",
    ]
    i = 0
    while len(out) < lines - 2:
        k = i % 4 if shape == "mixed" else -1
        if k == -1:
            out += [
                "        /// <summary>",
                f"        /// Applies rule {i} to the order and returns the adjusted total.",
                "        /// </summary>",
                "        /// <param name=\"order\">The order to price.</param>",
                f"        public decimal ApplyRule{i}(Order order)",
                "        {",
                "            if (order is null) throw new ArgumentNullException(nameof(order));",
                f"            var total = order.Lines.Sum(l => l.Quantity * l.UnitPrice) + {i}m;",
                f"            if (total > Threshold{i % 7}) total -= Discount(order, {i});",
                "            _log.Add($\"rule {order.Id}: {total}\");",
                "            return total;",
                "        }",
                "",
            ]
        elif k == 0:
            out += [
                f"        /// <summary>Computes value {i}.</summary>",
                f"        public int Compute{i}(int x)",
                "        {",
                f"            // scale the input by {i}, then add the seed",
                f"            var y = x * {i} + _seed;",
                f"            return y > {i} ? y : -y;",
                "        }",
                "",
            ]
        elif k == 1:
            out += [f"        public string Name{i} {{ get; set; }} = \"n{i}\";", ""]
        elif k == 2:
            out += [f"        private int _count{i};", ""]
        else:
            out += [f"        public int Twice{i}(int v) => v * 2 + {i};", ""]
        i += 1
    out += ["    }", "}"]
    return "\n".join(out) + "\n"


def minified_js(size: int) -> str:
    """One line of minified JavaScript of at most `size` bytes (no newline)."""
    parts: list[str] = []
    total = 0
    i = 0
    while True:
        k = i % 4
        if k == 0:
            s = f"function f{i}(a,b){{var c=a+b*{i};return c>{i}?c:b}}"
        elif k == 1:
            s = f"var v{i}={{k:{i},g:function(x){{return x+{i}}}}};"
        elif k == 2:
            s = (f"class C{i}{{constructor(a){{this.a=a}}get v(){{return this.a+{i}}}"
                 f"m{i}(b){{return b*this.a}}static s(){{return new C{i}({i})}}}}")
        else:
            s = f"const h{i}=(p,q)=>p.map(z=>z*{i}+q);"
        if total + len(s) > size:
            break
        parts.append(s)
        total += len(s)
        i += 1
    return "".join(parts)


# --------------------------------------------------------------------------- measuring

@dataclass
class Row:
    name: str
    input_bytes: int
    peak_rss: int = 0  # bytes
    seconds: float = 0.0
    chunks: int = 0
    stored: int = 0
    max_chunk: int = 0
    max_symbols: int = 0
    max_skeleton: int = 0
    rc: int = 0
    error: str = ""
    ingest_rss: int = 0
    ingest_s: float = 0.0
    ingest_rc: int | None = None

    @property
    def ratio(self) -> float:
        return self.stored / self.input_bytes if self.input_bytes else 0.0


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.update(extra or {})
    return env


def _wait(proc: subprocess.Popen) -> tuple[int, int]:
    """(exit status, peak RSS in bytes) of the child, from its own rusage."""
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024  # Linux: kilobytes


def measure_chunk(path: str, row: Row, timeout: float) -> None:
    t0 = time.monotonic()
    proc = subprocess.Popen([os.path.join(BIN, "ledger"), "chunk", path, "--format", "jsonl"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
    deadline = t0 + timeout
    assert proc.stdout is not None
    for raw in proc.stdout:
        if time.monotonic() > deadline:
            proc.kill()
            row.error = f"over {timeout:.0f} s"
            break
        d = json.loads(raw)
        analysis, _ = pack_analysis(d.get("text", ""), d.get("analysis_text", ""))  # as the ledger stores it
        stored = sum(len(v.encode("utf-8")) for v in (d.get("text", ""), analysis, d.get("skeleton", "")))
        stored += len(json.dumps(d.get("symbols", []), ensure_ascii=False).encode("utf-8"))
        row.chunks += 1
        row.stored += stored
        row.max_chunk = max(row.max_chunk, stored)
        row.max_symbols = max(row.max_symbols, len(d.get("symbols", [])))
        row.max_skeleton = max(row.max_skeleton, len(d.get("skeleton", "")))
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    row.rc, row.peak_rss = _wait(proc)
    row.seconds = time.monotonic() - t0
    if row.rc and not row.error:
        row.error = f"exit {row.rc}: {err.strip().splitlines()[-1] if err.strip() else ''}"


def measure_ingest(path: str, row: Row, timeout: float) -> None:
    """`ledger ingest` of a one-file git repository; peak RSS over it and its children."""
    with tempfile.TemporaryDirectory(prefix="ledger-mem-") as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        shutil.copy(path, repo)
        git = ["git", "-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "one file"], check=True)
        env = _env({"LEDGER_HOME": os.path.join(tmp, "home")})
        env.pop("GROQ_API_KEY", None)
        ledger = os.path.join(BIN, "ledger")
        subprocess.run([ledger, "add-repo", repo, "--id", "mem"], check=True, env=env, cwd=tmp,
                       stdout=subprocess.DEVNULL)
        t0 = time.monotonic()
        # `timeout` ends it from the outside; wait4 on the timeout process gives
        # the peak over the whole tree it reaped (ingest and its step processes).
        proc = subprocess.Popen(["timeout", "-s", "KILL", str(int(timeout)), ledger, "ingest", "mem",
                                 "--format", "json"], env=env, cwd=tmp,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        row.ingest_rc, row.ingest_rss = _wait(proc)
        row.ingest_s = time.monotonic() - t0
        if row.ingest_rc:
            killed = row.ingest_rc in (-9, 124, 137)
            row.error = (row.error + "; " if row.error else "") + (
                f"ingest killed after {timeout:.0f} s (its RSS is not known)" if killed
                else f"ingest exit {row.ingest_rc}")


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f}"


def table_head(ingest: bool) -> str:
    head = (f"{'input':<16} {'in MB':>7} {'chunks':>7} {'peak RSS MB':>11} {'chunk s':>8} "
            f"{'stored MB':>10} {'stored/in':>9} {'max chunk KB':>12} {'max syms':>8} {'max skel':>8}")
    if ingest:
        head += f" {'ingest RSS MB':>13} {'ingest s':>8} {'rc':>3}"
    return head + "\n" + "-" * len(head)


def table_row(r: Row, ingest: bool) -> str:
    line = (f"{r.name:<16} {r.input_bytes / 1e6:>7.3f} {r.chunks:>7} {_mb(r.peak_rss):>11} "
            f"{r.seconds:>8.1f} {_mb(r.stored):>10} {r.ratio:>9.2f} {r.max_chunk / 1e3:>12.1f} "
            f"{r.max_symbols:>8} {r.max_skeleton:>8}")
    if ingest:
        line += f" {_mb(r.ingest_rss):>13} {r.ingest_s:>8.1f} {r.ingest_rc!s:>3}"
    if r.error:
        line += f"  [{r.error}]"
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cs", default="5000,10000,20000,50000", help="C# class sizes in lines ('' for none)")
    ap.add_argument("--cs-shape", choices=("mixed", "methods"), default="mixed",
                    help="members of the generated class (see csharp_class)")
    ap.add_argument("--js", default="0.25,0.5,1,2", help="minified JS sizes in MB of 10^6 bytes ('' for none)")
    for lang, what in (("py", "Python"), ("ts", "TypeScript"), ("rb", "Ruby")):
        ap.add_argument(f"--{lang}", default="", help=f"{what} class sizes in lines (default none)")
    ap.add_argument("--ingest", action="store_true", help="also run a real ledger ingest of each file")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command")
    ap.add_argument("--keep", help="write the generated inputs to this folder and keep them")
    args = ap.parse_args(argv)
    inputs: list[tuple[str, str, str]] = []  # (name, file name, text)
    for n in filter(None, args.cs.split(",")):
        lines = int(float(n))
        inputs.append((f"cs {lines} {args.cs_shape}", f"Big{lines}.cs", csharp_class(lines, args.cs_shape)))
    for mb in filter(None, args.js.split(",")):
        size = min(int(float(mb) * 1e6), 1_999_000)
        inputs.append((f"js {float(mb):g} MB", f"bundle{mb.replace('.', '_')}.js", minified_js(size)))
    from tests.chunkers.test_memory_bounds import other_class  # the tests' generator: same inputs

    for lang in ("py", "ts", "rb"):
        for n in filter(None, getattr(args, lang).split(",")):
            fname, text = other_class(lang, int(float(n)), args.cs_shape)
            inputs.append((f"{lang} {int(float(n))} {args.cs_shape}", f"{n}{fname}", text))
    folder = args.keep or tempfile.mkdtemp(prefix="ledger-mem-in-")
    os.makedirs(folder, exist_ok=True)
    rows: list[Row] = []
    print(table_head(args.ingest), flush=True)
    try:
        for name, fname, text in inputs:
            path = os.path.join(folder, fname)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            row = Row(name, len(text.encode("utf-8")))
            measure_chunk(path, row, args.timeout)
            if args.ingest:
                measure_ingest(path, row, args.timeout)
            rows.append(row)
            print(table_row(row, args.ingest), flush=True)  # as it comes: a long run can be cut short
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    bad = [r for r in rows if r.error or r.peak_rss >= 1 << 30 or r.ratio > 4.0]
    if bad:
        print(f"\nover target (peak RSS >= 1 GiB, stored > 4x input, or failed): {', '.join(r.name for r in bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
