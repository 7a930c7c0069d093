"""Where a full ingest of one repository spends its time and memory, stage by stage (issue 19).

    python benchmarks/ingest_scale.py REPO_PATH [--home DIR] [--id ID] [--device auto|cpu|cuda]
                                      [--batch N] [--backend torch|...]

REPO_PATH (a git work tree or a plain folder) is ingested in place into a fresh
LEDGER_HOME (--home: an empty or missing folder, kept afterwards; default a
temporary folder, removed) by the core stages, in the order the Dagster assets
run them, in this process (no Dagster run, as benchmarks/_direct.py does):
snapshot, chunks (with its three blocking checks), intents (the keyless analyser
unless GROQ_API_KEY is set), model load, embeddings, chunk_quality,
git_history, code_graph, qdrant_points (with its in-sync check). Every other
setting comes from the environment (LEDGER_EMBED_BATCH, LEDGER_EMBED_DEVICE, ...).

One row per stage: seconds, chunks/s (the repo's chunks over the stage's
seconds), and the stage's peak RSS: the kernel's high-water mark (VmHWM) is
reset before each stage (`/proc/self/clear_refs`, Linux) and read after it;
where that is not possible the column is the process peak so far. The
embeddings row also gives the texts embedded per chunk (code, design and
symbol-sentence texts, distinct) and the tokens per chunk the model read
(each text's wordpieces, cut at the model's max_seq_length, as encode does;
counted after the stage, outside its timing). The device and thread count are
printed so the same script can run on a GPU machine.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from ledger_assets.encode.embedder import Embedder, resolve_device  # noqa: E402
from ledger_assets.enrich import stages as enrich  # noqa: E402
from ledger_assets.ingest import pipeline, points  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

LOG = logging.getLogger("ingest_scale")


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Reset the process's RSS high-water mark (Linux >= 4.0); False where it cannot be."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_mb() -> float:
    kb = _status_kb("VmHWM")
    if kb is None:  # not Linux: the process peak (ru_maxrss is KiB on Linux, bytes on macOS)
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1024 if sys.platform == "darwin" else 1)
    return kb / 1024


class CountingEmbedder(Embedder):
    """The stage's embedder, keeping the texts it was asked to encode (for the token count)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return super().encode(texts)


@dataclass
class Row:
    stage: str
    seconds: float
    peak_mb: float
    note: str = ""


def tokens_read(embedder: Embedder, texts: list[str]) -> tuple[int, int]:
    """(wordpieces the model read, wordpieces before truncation), special tokens included."""
    model = embedder.model
    limit = model.max_seq_length
    tok = model.tokenizer
    read = full = 0
    for i in range(0, len(texts), 512):
        for ids in tok(texts[i:i + 512], add_special_tokens=True, truncation=False)["input_ids"]:
            full += len(ids)
            read += min(len(ids), limit)
    return read, full


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", help="the repository (git work tree or folder) to ingest")
    ap.add_argument("--home", help="a fresh LEDGER_HOME (empty or missing; kept). Default: a temp folder, removed")
    ap.add_argument("--id", default="scale", help="repo id (default: scale)")
    ap.add_argument("--device", default="", help="cpu, cuda, ... (default: LEDGER_EMBED_DEVICE, else auto)")
    ap.add_argument("--batch", type=int, default=0, help="embedding batch (default: LEDGER_EMBED_BATCH)")
    ap.add_argument("--backend", default="", help="embedding backend (default: LEDGER_EMBED_BACKEND, else torch)")
    args = ap.parse_args(argv)
    repo = Path(args.repo).expanduser()
    if not repo.is_dir():
        print(f"error: {args.repo}: not a directory", file=sys.stderr)
        return 2
    if args.home and Path(args.home).exists() and any(Path(args.home).iterdir()):
        print(f"error: --home {args.home}: not empty (the benchmark needs a fresh ledger home)", file=sys.stderr)
        return 2
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="ledger-scale-"))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")

    settings = LedgerSettings.from_env(home=str(home))
    device = resolve_device(args.device or settings.embed_device)
    batch = args.batch or settings.embed_batch
    kwargs = {"backend": args.backend} if args.backend else {}
    embedder = CountingEmbedder(device, batch, **kwargs)
    ledger = Ledger(settings)
    ledger.registry.add(repo, args.id)
    run_id = "scale"
    can_reset = reset_peak()
    rows: list[Row] = []

    def timed(name: str, fn):
        reset_peak()
        t0 = time.perf_counter()
        out = fn()
        rows.append(Row(name, time.perf_counter() - t0, peak_mb()))
        return out

    rid = args.id
    wall0 = time.perf_counter()
    snap = timed("snapshot", lambda: pipeline.snapshot_stage(ledger, rid, run_id, LOG))
    chunked = timed("chunks (+3 checks)", lambda: pipeline.chunk_stage(ledger, rid, run_id, LOG))
    intents = timed("intents", lambda: pipeline.intent_stage(ledger, rid, run_id, LOG))
    timed("model load", lambda: embedder.model)
    emb = timed("embeddings", lambda: pipeline.embedding_stage(ledger, rid, run_id, LOG, embedder))
    timed("chunk_quality", lambda: enrich.quality_stage(ledger, rid, run_id, LOG))
    timed("git_history", lambda: enrich.git_stage(ledger, rid, run_id, LOG))
    timed("code_graph", lambda: enrich.graph_stage(ledger, rid, run_id, LOG))
    pts = timed("qdrant_points (+check)", lambda: points.points_stage(ledger, rid, run_id, LOG))
    wall = time.perf_counter() - wall0
    # Resetting VmHWM resets ru_maxrss too: the process peak is the largest stage peak.
    process_peak = max(r.peak_mb for r in rows)

    failed = [c for c in chunked.checks + pts.checks if not c.passed]
    read, full = tokens_read(embedder, embedder.seen)
    n = max(1, chunked.total_chunks)
    import torch

    threads = torch.get_num_threads()
    print(f"repo {repo.resolve()} @ {snap.head_sha[:12]} ({snap.source}): {snap.files_total} files, "
          f"{snap.files_indexable} indexable, {chunked.total_chunks} chunks")
    print(f"device={device} backend={getattr(embedder, 'backend', 'torch')} batch={batch} torch_threads={threads} "
          f"cpus={len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} "
          f"intents={intents.by_source} home={home}")
    peak_label = "peak RSS MB (stage)" if can_reset else "peak RSS MB (process so far)"
    print()
    print(f"| stage | seconds | chunks/s | {peak_label} | notes |")
    print("| --- | ---: | ---: | ---: | --- |")
    for r in rows:
        note = ""
        if r.stage == "embeddings":
            note = (f"{emb.texts} distinct texts ({emb.texts / n:.2f}/chunk), {emb.embeddings_computed} embedded "
                    f"({emb.embeddings_computed / r.seconds:.1f} texts/s), {read / n:.0f} tokens/chunk read "
                    f"({full / n:.0f} before the {embedder.model.max_seq_length}-token cut)")
        elif r.stage.startswith("qdrant_points"):
            note = f"{pts.written} points written of {pts.points_total}"
        elif r.stage.startswith("chunks"):
            note = f"{chunked.files_changed} files chunked"
        rate = chunked.total_chunks / r.seconds
        rate = "" if r.stage == "model load" else f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"
        print(f"| {r.stage} | {r.seconds:.2f} | {rate} | {r.peak_mb:,.0f} | {note} |")
    print(f"| **total** | {wall:.2f} | {chunked.total_chunks / wall:,.1f} | {process_peak:,.0f} (process) | |")
    if failed:
        print("failed checks: " + ", ".join(c.name for c in failed), file=sys.stderr)
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
