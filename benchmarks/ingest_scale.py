"""Where a full ingest of one repository spends its time and memory, stage by stage (issue 19).

    python benchmarks/ingest_scale.py REPO_PATH [--home DIR] [--id ID] [--device auto|cpu|cuda]
                                      [--batch N] [--backend auto|torch|bf16|onnx]
                                      [--profile lean|pooled|standard|full|joint] [--bare N] [--bare-rounds N]

REPO_PATH (a git work tree or a plain folder) is ingested in place into a fresh
LEDGER_HOME (--home: an empty or missing folder, kept afterwards; default a
temporary folder, removed) by the core stages, in the order the Dagster assets
run them, in this process (no Dagster run, as benchmarks/_direct.py does):
snapshot, chunks (with its three blocking checks), intents (the keyless analyser
unless GROQ_API_KEY is set), model load, embeddings, chunk_quality,
git_history, code_graph, qdrant_points (with its in-sync check). Every other
setting comes from the environment (LEDGER_EMBED_BATCH, LEDGER_EMBED_DEVICE, ...).

One row per stage: seconds, CPU seconds (the process's, every thread), chunks/s
(the repo's chunks over the stage's seconds), and the stage's peak RSS: the kernel's high-water mark (VmHWM) is
reset before each stage (`/proc/self/clear_refs`, Linux) and read after it;
where that is not possible the column is the process peak so far. The
embeddings row also gives the texts embedded per chunk (code, design and
symbol-sentence texts, distinct) and the tokens per chunk the model read
(each text's wordpieces, cut at the model's max_seq_length, as encode does;
counted after the stage, outside its timing). The device and thread count are
printed so the same script can run on a GPU machine.

Then the yardstick (issue 30): the bare model (sentence-transformers' MiniLM, torch fp32, fp16 on CUDA)
embeds --bare of the repo's chunk texts in plain batched calls (--bare-rounds passes, their median), in the same
process right after the ingest, and the script prints the texts embedded per chunk and the ratio of the ingest's chunks/s (every
stage, model load included) to the bare model's texts/s. Figures: benchmarks/ingest_scale.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from ledger_assets.encode.embedder import Embedder, load_model, normalize_text, resolve_device  # noqa: E402
from ledger_assets.encode.joint import Group, assemble  # noqa: E402
from ledger_assets.ingest.pipeline import code_text  # noqa: E402
from ledger_assets.enrich.order import run_stages  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import EMBED_PROFILES, LedgerSettings  # noqa: E402

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
        self.seen_groups: list[Group] = []  # the joint profile's inputs (encode/joint.py)

    def encode(self, texts):
        self.seen.extend(texts)
        return super().encode(texts)

    def encode_joint(self, groups):
        self.seen_groups.extend(groups)
        return super().encode_joint(groups)


@dataclass
class Row:
    stage: str
    seconds: float
    peak_mb: float
    cpu_seconds: float = 0.0
    note: str = ""


def tokens_read(embedder: Embedder, texts: list[str], groups: list[Group] = ()) -> tuple[int, int]:
    """(wordpieces the model read, wordpieces before truncation), special tokens included; a joint input
    counts as encode/joint.py assembles it."""
    model = embedder.model
    limit = model.max_seq_length
    tok = model.tokenizer
    read = full = 0
    for i in range(0, len(texts), 512):
        for ids in tok(texts[i:i + 512], add_special_tokens=True, truncation=False)["input_ids"]:
            full += len(ids)
            read += min(len(ids), limit)
    for group in groups:
        tokens = tok(list(group.segments), add_special_tokens=False)["input_ids"]
        read += len(assemble(tokens, tok.cls_token_id, tok.sep_token_id, limit).ids)
        full += sum(len(t) + 1 for t in tokens) + 1
    return read, full


def chunk_texts(ledger: Ledger, repo_id: str, limit: int) -> list[str]:
    """Up to `limit` of the repo's code-lane texts (what a chunk's one embedding reads), spread over the repo."""
    with ledger.db.connect() as con:
        rows = con.execute("SELECT text, symbols FROM chunks WHERE repo_id = ? ORDER BY file_path, chunk_index",
                           [repo_id]).fetchall()
    step = max(1, len(rows) // max(limit, 1))
    return [normalize_text(code_text(text, json.loads(symbols or "[]"))) for text, symbols in rows[::step][:limit]]


def bare_rates(device: str, batch: int, texts: list[str], rounds: int) -> tuple[list[float], list[float]]:
    """Texts per wall second and per CPU second of the bare model in each of `rounds` passes over `texts`:
    sentence-transformers' MiniLM as it ships (fp32; fp16 on CUDA), plain encode calls in batches of `batch`, after
    a warm-up call. The yardstick of the ingest's chunks/s; medians are used, as one pass swung 2x between runs on a
    shared machine."""
    model = load_model(device, "torch", hf=True)
    model.encode(texts[:batch], batch_size=batch, show_progress_bar=False)
    wall, cpu = [], []
    for _ in range(rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        model.encode(texts, batch_size=batch, show_progress_bar=False)
        wall.append(len(texts) / (time.perf_counter() - t0))
        cpu.append(len(texts) / (time.process_time() - c0))
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", help="the repository (git work tree or folder) to ingest")
    ap.add_argument("--home", help="a fresh LEDGER_HOME (empty or missing; kept). Default: a temp folder, removed")
    ap.add_argument("--id", default="scale", help="repo id (default: scale)")
    ap.add_argument("--device", default="", help="cpu, cuda, ... (default: LEDGER_EMBED_DEVICE, else auto)")
    ap.add_argument("--batch", type=int, default=0, help="embedding batch (default: LEDGER_EMBED_BATCH)")
    ap.add_argument("--backend", default="", help="embedding backend (default: LEDGER_EMBED_BACKEND)")
    ap.add_argument("--profile", default="", choices=("", *EMBED_PROFILES),
                    help="embedding profile (default: LEDGER_EMBED_PROFILE)")
    ap.add_argument("--bare", type=int, default=256,
                    help="chunk texts the bare model embeds after the ingest, for the ratio (default 256; 0: skip)")
    ap.add_argument("--bare-rounds", type=int, default=3,
                    help="passes of the bare model over those texts; the ratio uses their median (default 3)")
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

    settings = LedgerSettings.from_env(home=str(home), embed_profile=args.profile or None)
    t0, c0 = time.perf_counter(), time.process_time()
    import torch  # noqa: F401 - timed here, counted in the model load row (resolve_device imports it first)

    torch_import, torch_import_cpu = time.perf_counter() - t0, time.process_time() - c0
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
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        rows.append(Row(name, time.perf_counter() - t0, peak_mb(), time.process_time() - c0))
        return out

    rid = args.id
    wall0 = time.perf_counter()
    labels = {"repo_snapshot": "snapshot", "chunks": "chunks (+3 checks)", "qdrant_points": "qdrant_points (+check)"}

    def stage(name: str, step):  # every stage in STAGES order, timed; the model loads (timed) before embeddings
        if name == "embeddings":
            timed("model load", lambda: embedder.model)
            rows[-1].seconds += torch_import  # what a run that embeds pays for torch, imported before the clock
            rows[-1].cpu_seconds += torch_import_cpu
        return timed(labels.get(name, name), step)

    ran = run_stages(ledger, rid, run_id, LOG, embedder, call=stage).reports
    snap, chunked, intents, emb, pts = (ran[n] for n in ("repo_snapshot", "chunks", "intents", "embeddings",
                                                         "qdrant_points"))
    wall = time.perf_counter() - wall0 + torch_import
    cpu = sum(r.cpu_seconds for r in rows)
    # Resetting VmHWM resets ru_maxrss too: the process peak is the largest stage peak.
    process_peak = max(r.peak_mb for r in rows)

    failed = [c for c in chunked.checks + pts.checks if not c.passed]
    sample = chunk_texts(ledger, rid, args.bare) if args.bare else []
    rates, cpu_rates = bare_rates(device, batch, sample, max(1, args.bare_rounds)) if sample else ([], [])
    bare = statistics.median(rates) if rates else 0.0
    read, full = tokens_read(embedder, embedder.seen, embedder.seen_groups)
    n = max(1, chunked.total_chunks)
    import torch

    threads = torch.get_num_threads()
    print(f"repo {repo.resolve()} @ {snap.head_sha[:12]} ({snap.source}): {snap.files_total} files, "
          f"{snap.files_indexable} indexable, {chunked.total_chunks} chunks")
    print(f"device={device} backend={getattr(embedder, 'backend', 'torch')} profile={settings.embed_profile} "
          f"batch={batch} torch_threads={threads} "
          f"cpus={len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} "
          f"intents={intents.by_source} home={home}")
    peak_label = "peak RSS MB (stage)" if can_reset else "peak RSS MB (process so far)"
    print()
    print(f"| stage | seconds | CPU seconds | chunks/s | {peak_label} | notes |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        note = ""
        if r.stage == "embeddings":
            note = (f"{emb.texts} distinct texts ({emb.texts / n:.2f}/chunk), {emb.embeddings_computed} embedded "
                    f"({emb.embeddings_computed / r.seconds:.1f} texts/s), {read / n:.0f} tokens/chunk read "
                    f"({full / n:.0f} before the {embedder.model.max_seq_length}-token cut)"
                    + (f", {emb.pooled} code vectors pooled from symbol vectors" if emb.pooled else ""))
        elif r.stage.startswith("qdrant_points"):
            note = f"{pts.written} points written of {pts.points_total}"
        elif r.stage.startswith("chunks"):
            note = f"{chunked.files_changed} files chunked"
        rate = chunked.total_chunks / r.seconds
        if r.stage == "model load":
            note = f"torch's import ({torch_import:.2f} s) included"
        rate = "" if r.stage == "model load" else f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"
        print(f"| {r.stage} | {r.seconds:.2f} | {r.cpu_seconds:.2f} | {rate} | {r.peak_mb:,.0f} | {note} |")
    print(f"| **total** | {wall:.2f} | {cpu:.2f} | {chunked.total_chunks / wall:,.1f} | {process_peak:,.0f} (process) | |")
    ingest_rate = chunked.total_chunks / wall
    print(f"\ntexts embedded per chunk: {emb.embeddings_computed / n:.2f} ({emb.embeddings_computed} for {n} chunks)")
    if bare:
        spread = f", passes {min(rates):.1f}-{max(rates):.1f}" if len(rates) > 1 else ""
        print(f"bare model: {bare:.1f} texts/s (median of {len(rates)} passes over {len(sample)} chunk texts, torch, "
              f"batch {batch}{spread}); ingest: {ingest_rate:.1f} chunks/s (every stage, model load included); "
              f"ratio {ingest_rate / bare:.2f}x")
        cpu_bare = statistics.median(cpu_rates)
        print(f"per CPU second of this process: bare model {cpu_bare:.1f} texts, ingest "
              f"{chunked.total_chunks / cpu:.1f} chunks; ratio {chunked.total_chunks / cpu / cpu_bare:.2f}x")
    if failed:
        print("failed checks: " + ", ".join(c.name for c in failed), file=sys.stderr)
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
