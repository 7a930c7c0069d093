"""A repository of many tiny files: the first ingest's time and memory, then a one-file change's (issue 33).

    python benchmarks/many_files.py [--files 10000] [--home DIR] [--device cpu|cuda] [--profile DIR] [--stub-embed]

Generates N tiny files (a mix of .py, .md and .json, 100 to a folder) in a temp git repo,
ingests it into a fresh LEDGER_HOME through the core stages in the order the Dagster
assets run them, in this process (no Dagster run, as benchmarks/_direct.py does):
snapshot, chunks (+ its three blocking checks), intents (the keyless analyser unless
GROQ_API_KEY is set), model load, embeddings, chunk_quality, git_history, code_graph,
qdrant_points (+ qdrant_in_sync on the staged view) and promotion (the served rows and,
in local mode, the served index copy). Then it commits a change to one .py file and
ingests again, and prints one table per run: seconds and peak RSS per stage (VmHWM is
reset before each stage through /proc/self/clear_refs, Linux; elsewhere the column is
the process peak so far), plus the process's RSS after each run. `--profile DIR` writes
a cProfile of each run there (first.prof, change.prof). `--stub-embed` replaces the model
with a hash of each text (a unit vector; no model load, no torch compute): what the other stages
cost, on a machine where embedding N files would take most of the hour. Its vectors are
cached under the model's name in the benchmark's own ledger home, nowhere else.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402

from benchmarks.ingest_scale import _status_kb, peak_mb, reset_peak  # noqa: E402
from ledger_assets.encode.embedder import EMBED_DIM, Embedder, resolve_device  # noqa: E402
from ledger_assets.enrich import stages as enrich  # noqa: E402
from ledger_assets.ingest import pipeline, points, promotion  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

LOG = logging.getLogger("many_files")
PER_FOLDER = 100


class StubEmbedder(Embedder):
    """A deterministic unit vector per text (from its sha256), in place of the model (--stub-embed)."""

    @property
    def model(self):
        return None

    def encode(self, texts):
        out = np.empty((len(texts), EMBED_DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "little")
            out[i] = np.random.default_rng(seed).standard_normal(EMBED_DIM)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def tiny_file(i: int) -> tuple[str, str]:
    """The i-th file: a path and a few lines of text, distinct per file (no shared content)."""
    folder = f"pkg{i // PER_FOLDER:03d}"
    kind = i % 3
    if kind == 0:
        return (f"{folder}/mod_{i}.py",
                f'"""Module {i}."""\n\n\ndef handler_{i}(value):\n    """Scale value by {i}."""\n'
                f"    return value * {i}\n")
    if kind == 1:
        return f"{folder}/note_{i}.md", f"# Note {i}\n\nThis note describes item number {i} of the set.\n"
    return f"{folder}/conf_{i}.json", json.dumps({"id": i, "name": f"item-{i}", "enabled": i % 2 == 0}, indent=2) + "\n"


def make_repo(dest: Path, n: int) -> str:
    """N tiny files, committed; returns the path of the file the second run changes."""
    for i in range(n):
        rel, text = tiny_file(i)
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", f"{n} tiny files")
    return tiny_file(0)[0]


def run_once(ledger: Ledger, embedder: Embedder, rid: str, run_id: str, profile: Path | None) -> list[tuple]:
    """One ingest, stage by stage: [(stage, seconds, peak MB, note)]."""
    rows: list[tuple] = []
    prof = cProfile.Profile() if profile else None

    def timed(name: str, fn, note=lambda out: ""):
        reset_peak()
        t0 = time.perf_counter()
        if prof:
            prof.enable()
        out = fn()
        if prof:
            prof.disable()
        rows.append((name, time.perf_counter() - t0, peak_mb(), note(out)))
        return out

    timed("snapshot", lambda: pipeline.snapshot_stage(ledger, rid, run_id, LOG),
          lambda r: f"{r.files_total} files")
    timed("chunks (+3 checks)", lambda: pipeline.chunk_stage(ledger, rid, run_id, LOG),
          lambda r: f"{r.files_changed} files chunked, {r.chunk_rows_written} rows written, {r.total_chunks} chunks")
    timed("intents", lambda: pipeline.intent_stage(ledger, rid, run_id, LOG))
    timed("model load", lambda: embedder.model)
    timed("embeddings", lambda: pipeline.embedding_stage(ledger, rid, run_id, LOG, embedder),
          lambda r: f"{r.texts} texts, {r.embeddings_computed} embedded")
    timed("chunk_quality", lambda: enrich.quality_stage(ledger, rid, run_id, LOG))
    timed("git_history", lambda: enrich.git_stage(ledger, rid, run_id, LOG))
    timed("code_graph", lambda: enrich.graph_stage(ledger, rid, run_id, LOG))
    pts = timed("qdrant_points (+check)", lambda: points.points_stage(ledger, rid, run_id, LOG, promote=False),
                lambda r: f"{r.written} written of {r.points_total}")
    timed("promotion", lambda: promotion.promote(ledger, rid, run_id, LOG),
          lambda r: f"{r.made_live} made live, {r.payloads_updated} payloads, {r.retired} retired")
    failed = [c.name for c in pts.checks if not c.passed]
    if failed:
        raise SystemExit(f"failed checks: {failed}")
    if prof:
        prof.dump_stats(str(profile))
    return rows


def print_table(title: str, rows: list[tuple], can_reset: bool) -> None:
    label = "peak RSS MB (stage)" if can_reset else "peak RSS MB (process so far)"
    print(f"\n{title}\n")
    print(f"| stage | seconds | {label} | notes |")
    print("| --- | ---: | ---: | --- |")
    for name, sec, peak, note in rows:
        print(f"| {name} | {sec:.2f} | {peak:,.0f} | {note} |")
    work = sum(r[1] for r in rows if r[0] != "model load")
    print(f"| **total** | {sum(r[1] for r in rows):.2f} | {max(r[2] for r in rows):,.0f} | "
          f"{work:.2f} s without the model load; RSS after the run {(_status_kb('VmRSS') or 0) / 1024:,.0f} MB |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10000, help="how many tiny files (default 10000)")
    ap.add_argument("--home", help="a fresh LEDGER_HOME (empty or missing; kept). Default: a temp folder, removed")
    ap.add_argument("--device", default="", help="cpu, cuda, ... (default: LEDGER_EMBED_DEVICE, else auto)")
    ap.add_argument("--stub-embed", action="store_true",
                    help="a hash of each text in place of the model (measures every other stage)")
    ap.add_argument("--profile", help="a folder for cProfile output of both runs (first.prof, change.prof)")
    args = ap.parse_args(argv)
    if args.files < 1:
        print("error: --files must be at least 1", file=sys.stderr)
        return 2
    if args.home and Path(args.home).exists() and any(Path(args.home).iterdir()):
        print(f"error: --home {args.home}: not empty (the benchmark needs a fresh ledger home)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    work = Path(tempfile.mkdtemp(prefix="ledger-many-"))
    home = Path(args.home) if args.home else work / "home"
    repo = work / "repo"
    repo.mkdir()
    profile = Path(args.profile) if args.profile else None
    if profile:
        profile.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        changed = make_repo(repo, args.files)
        print(f"{args.files} files generated and committed in {time.perf_counter() - t0:.1f} s ({repo})")
        settings = LedgerSettings.from_env(home=str(home))
        device = resolve_device(args.device or settings.embed_device)
        embedder = (StubEmbedder if args.stub_embed else Embedder)(device, settings.embed_batch)
        ledger = Ledger(settings)
        ledger.registry.add(repo, "many")
        can_reset = reset_peak()
        print(f"device={device}{' (stub embedder)' if args.stub_embed else ''} cpus={len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} "
              f"RSS before {(_status_kb('VmRSS') or 0) / 1024:,.0f} MB")
        t0 = time.perf_counter()
        first = run_once(ledger, embedder, "many", "first", profile / "first.prof" if profile else None)
        print_table(f"first ingest: {time.perf_counter() - t0:.1f} s wall", first, can_reset)
        with open(repo / changed, "a", encoding="utf-8") as fh:
            fh.write("\n\ndef added_later(x):\n    return x + 1\n")
        git(repo, "commit", "-qam", "one file changed")
        t0 = time.perf_counter()
        again = run_once(ledger, embedder, "many", "change", profile / "change.prof" if profile else None)
        print_table(f"one-file change ({changed}): {time.perf_counter() - t0:.1f} s wall", again, can_reset)
    finally:
        shutil.rmtree(work if not args.home else repo, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
