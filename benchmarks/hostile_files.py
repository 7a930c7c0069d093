"""Hostile files through the chunkers: each one chunked in a process of its own, under a time limit, printing CPU
seconds, peak memory, pieces and how many times the file's size the pieces' texts hold (issue 33's "no input takes
a repo down"). Run on demand:

    python benchmarks/hostile_files.py [--limit 60] [--only NAME ...] [--keep DIR] [--guarded]

Each file is about 1 MB or less (`max_file_bytes` is 2 MB). A row over the limit says TIMEOUT, one killed for
memory KILLED; "x file" above a few means the pieces repeat the file. `--guarded` chunks as the ingest does
(`chunk_file_guarded`: a file of 4 KB or more in a worker process under a CPU limit); its CPU s then add the
worker's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

M = 1_000_000


def _alias_bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n" + "".join(
        f"    {line}\n" for line in lines)


def _pdf(pages: list[bytes], form: bytes = b"") -> bytes:
    """A PDF of one content stream a page (compressed), Helvetica as /F1 and, given `form`, a form XObject /X1."""
    def stream(data: bytes) -> bytes:
        packed = zlib.compress(data, 9)
        return b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(packed) + packed + b"\nendstream"
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    if form:
        objs.append(b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                    + stream(form)[3:])
    kids = []
    for content in pages:
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font "
                    b"<< /F1 3 0 R >> %s>> >>" % (len(objs) + 2, b"/XObject << /X1 4 0 R >> " if form else b""))
        kids.append(b"%d 0 R" % len(objs))
        objs.append(stream(content))
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


_TEXT_OPS = b"BT /F1 12 Tf 72 700 Td (the same words again ) Tj ET\n"

FILES = {
    # structure nested as deep as the bytes allow
    "deep.xml": lambda: "<a>" * 140_000 + "</a>" * 140_000,
    "deep.json": lambda: '{"a":' * 100_000 + "1" + "}" * 100_000,
    "deep.toml": lambda: "a = " + "[" * 50_000 + "]" * 50_000 + "\n",
    "deep.yaml": lambda: "a: " + "{b: " * 20_000 + "1" + "}" * 20_000 + "\n",
    "deep.py": lambda: "x = " + "(" * 5_000 + "1" + ")" * 5_000 + "\n",
    "nested_fn.py": lambda: "".join(" " * i + "def f():\n" for i in range(1_200)) + " " * 1_200 + "pass\n",
    "generics.cs": lambda: "class A { List<" + "List<" * 50_000 + "int" + ">" * 50_000 + "> x; }\n",
    "namespaces.cs": lambda: "namespace A { " * 30_000 + "}" * 30_000 + "\n",
    "arrows.ts": lambda: "const f = " + "() => " * 100_000 + "1;\n",
    "begin_end.sql": lambda: "CREATE PROCEDURE p AS " + "BEGIN " * 50_000 + "END " * 50_000 + "\n",
    "divs.razor": lambda: "<div>" * 50_000 + "</div>" * 50_000 + "\n",
    "nested_list.md": lambda: "".join("  " * i + "- item\n" for i in range(700)),
    "subshells.sh": lambda: "echo $(" * 50_000 + ")" * 50_000 + "\n",
    # expansion: entities, aliases
    "billion_laughs.xml": lambda: ('<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10)) + "]>\n<r>&l9;</r>\n"),
    "alias_bomb.yaml": lambda: _alias_bomb(9),
    # one long line, or line breaks ledger does not count
    "one_line.txt": lambda: "x" * M,
    "long_ident.py": lambda: "a" * M + " = 1\n",
    "long_value.env": lambda: "A=" + "b" * M + "\n",
    "emphasis.md": lambda: "*a" * (M // 4) + "\n",
    "backticks.md": lambda: "`" * M + "\n",
    "lone_cr.md": lambda: "".join(f"# h{i}\rtext {i}\r" for i in range(60_000)),
    "lone_cr.ini": lambda: "".join(f"[s{i}]\rk=v{i}\r" for i in range(60_000)),
    "bidi.md": lambda: "\u202e" * 300_000 + "\n",
    "zero_width.py": lambda: "# " + "\u200d" * 300_000 + "\n",
    # many small units
    "headings.md": lambda: "".join(f"# h{i}\n" for i in range(100_000)),
    "methods.cs": lambda: "class A {\n" + "".join(f"void M{i}(){{}}\n" for i in range(50_000)) + "}\n",
    "functions.ts": lambda: "".join(f"export function f{i}() {{ return {i}; }}\n" for i in range(30_000)),
    "go_batches.sql": lambda: "GO\n" * 300_000,
    "sections.ini": lambda: "".join(f"[s{i}]\nk=v\n" for i in range(100_000)),
    "continued.properties": lambda: "a = " + "x \\\n" * 300_000 + "end\n",
    "continued.ini": lambda: "[testenv]\ndeps =\n" + "".join(f"    lib{i}=={i}.0.1\n" for i in range(60_000)),
    "unclosed_quote.env": lambda: 'A="' + "".join(f"line {i}\n" for i in range(100_000)),
    "documents.yaml": lambda: "---\na: 1\n" * 100_000,
    "attributes.xml": lambda: "<a " + " ".join(f'x{i}="1"' for i in range(100_000)) + "/>\n",
    "keys.json": lambda: "{" + ",".join(f'"k{i}": {i}' for i in range(60_000)) + "}\n",
    "table.md": lambda: "|" + "a|" * 50_000 + "\n|" + "-|" * 50_000 + "\n",
    # a tag, a comment or a string opened again and again and never closed
    "unclosed_scripts.vue": lambda: "x <script>" * 100_000,
    "unclosed_comments.vue": lambda: "x <!--" * 150_000,
    "unclosed_comments.json": lambda: "x /*" * 250_000,
    "escaped_quotes.json": lambda: '{"a": "' + '\\"' * 500_000,
    # a run of `<` after a word that nothing closes: C#'s and Java's grammars took its square
    "type_args.cs": lambda: "x is List<" * 200_000,
    "type_args.java": lambda: "a<b<" * 500_000,
    "type_args_78k.cs": lambda: "x is List<" * 8_000,
    "type_args_31k.cs": lambda: "<T" * 16_000,
    "type_args_62k.java": lambda: "a<b<" * 16_000,
    # lines each ending in a backslash glued to a name: Python's grammar took their square
    "continued.py": lambda: "x\\\n" * 600_000,
    "continued_23k.py": lambda: "x\\\n" * 8_000,
    # error recovery that takes more than the square of a construct with nothing to resync on, inside one step of
    # the parse neither budget sees (grammar_sweep.py): stopped by the worker's CPU limit only
    "arrows.java": lambda: "x => " * 8_000,
    "arrows_1m.java": lambda: "x => " * 200_000,
    "arrows.c": lambda: "x => " * 8_000,
    "annotations.kt": lambda: "@x " * 8_000,
    "annotations_1m.kt": lambda: "@x " * 330_000,
    "type_list.ts": lambda: "x<y," * 8_000,
    "type_list_1m.ts": lambda: "x<y," * 250_000,
    "safe_nav.cs": lambda: "x?." * 8_000,
    "safe_nav_1m.cs": lambda: "x?." * 250_000,
    # PDF: content that inflates, a form drawn again and again, a page pypdf cannot read, many pages
    "inflating.pdf": lambda: _pdf([_TEXT_OPS * 160_000]),
    "forms.pdf": lambda: _pdf([b"/X1 Do\n" * 400], form=_TEXT_OPS * 2_000),
    "nested.pdf": lambda: _pdf([b"BT /F1 12 Tf " + b"[" * 5_000 + b"]" * 5_000 + b" TJ ET"] * 50),
    "pages.pdf": lambda: _pdf([b"BT /F1 12 Tf 72 700 Td (page %d) Tj ET" % i for i in range(10_000)]),
}

_CHILD = """
import json, resource, sys, threading, time
from chunkers.registry import chunk_file_result
from chunkers.sandbox import chunk_file_guarded, stop_worker
path, guarded = sys.argv[1], sys.argv[2] == "1"
data = open(path, "rb").read()
t = time.process_time()
result = (chunk_file_guarded if guarded else chunk_file_result)(path.rsplit("/", 1)[-1], data)
stop_worker()  # the worker's CPU counts once it has ended
for worker in threading.enumerate():  # a PDF's reader left running past its deadline costs what it costs
    if worker.name.startswith("pdf:"):
        worker.join()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu_s": time.process_time() - t + children.ru_utime + children.ru_stime,
                  "peak_mb": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, children.ru_maxrss) / 1e3,
                  "pieces": len(result.pieces), "text": sum(len(p.text) for p in result.pieces),
                  "skip": result.skip_reason, "notes": list(result.notes)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60, help="seconds per file (default 60)")
    parser.add_argument("--only", nargs="*", help="these file names only")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--guarded", action="store_true", help="chunk as the ingest does, in the CPU-limited worker")
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]
    folder = args.keep or Path(tempfile.mkdtemp(prefix="hostile-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'file':<22} {'MB':>5} {'CPU s':>7} {'peak MB':>8} {'pieces':>7} {'x file':>7}  note")
    for name, make in FILES.items():
        if args.only and name not in args.only:
            continue
        path = folder / name
        made = make()
        path.write_bytes(made if isinstance(made, bytes) else made.encode("utf-8"))
        size = path.stat().st_size
        try:
            out = subprocess.run([sys.executable, "-c", _CHILD, str(path), "1" if args.guarded else "0"],
                                 capture_output=True, text=True, timeout=args.limit, cwd=root)
        except subprocess.TimeoutExpired:
            print(f"{name:<22} {size / M:5.2f} TIMEOUT (over {args.limit:g} s)")
            continue
        if out.returncode != 0:
            print(f"{name:<22} {size / M:5.2f} KILLED (exit {out.returncode}) {out.stderr.strip()[-120:]}")
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        note = row["skip"] or "; ".join(n[:70] for n in row["notes"])
        print(f"{name:<22} {size / M:5.2f} {row['cpu_s']:7.2f} {row['peak_mb']:8.0f} {row['pieces']:7d} "
              f"{row['text'] / max(size, 1):7.2f}  {note}")
    if not args.keep:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
