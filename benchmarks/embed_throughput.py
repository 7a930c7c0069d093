"""Embedding throughput: the stage against raw `model.encode`, and embedding backends against each other.

    python benchmarks/embed_throughput.py [--count 512] [--chars 1500] [--batch 64] [--device auto]
    python benchmarks/embed_throughput.py --texts-from REPO [REPO ...] --count 2000 --batch 16 \\
        --backend torch,bf16,onnx,onnx-int8,torch-qint8 [--threads N] [--repeat 2]

Without --backend (the stage check): raw `model.encode` (sentence-transformers, normalised) against `embed_with_cache`
into a fresh DuckDB file (hashing, cache lookup, encoding in slices, the Arrow bulk insert);
prints chunks/s of both and the ratio (target: stage >= 90% of raw).

With --backend A,B,...: each backend encodes the same texts in one run, timed in slices of 160
texts with the backends in rotating order (so load from other work slows all alike), best of
--repeat rounds; the table gives texts/s, the speed-up over the first backend and the cosine of
each backend's vectors to the first's. --threads 2,1 adds a row per torch thread count.
Backends: the embedder's own (`encode.embedder.BACKENDS`: `torch`, `bf16`, `onnx`, the default: int8
MatMul weights on onnxruntime) and candidates measured here only: `onnx-int8` (a torch.onnx export of
the wheel's own files with onnxruntime's dynamic int8 weights) and `torch-qint8` (torch's dynamic int8
Linear layers). sentence-transformers' own onnx/openvino backends need optimum packages pip cannot
install beside transformers 5.x, hence the direct exports.

Texts: --texts-from REPO ... chunks each repo's HEAD and takes the code lane's text of each chunk,
distinct, shuffled (seed 7); else synthetic code-like texts of about --chars characters.
Figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from ledger_assets.encode.embedder import (BACKENDS, Embedder, embed_with_cache, normalize_text,  # noqa: E402
                                           resolve_device, text_hash)
from ledger_assets.store import git  # noqa: E402
from ledger_assets.store.db import LedgerDB  # noqa: E402
from ledger_assets.store.settings import EMBED_DIM  # noqa: E402

WORDS = ("invoice", "order", "customer", "total", "price", "ledger", "stock", "quantity", "warehouse", "tax",
         "amount", "line", "payment", "refund", "discount", "currency", "account", "balance", "period")
CANDIDATES = ("onnx", "onnx-int8", "torch-qint8")


def synthetic_texts(count: int, chars: int, seed: int = 7) -> list[str]:
    """Distinct code-like texts of about `chars` characters (C#-ish methods)."""
    rng = random.Random(seed)
    texts = []
    for i in range(count):
        name = "".join(w.title() for w in rng.sample(WORDS, 3))
        lines = [f"// chunk {i}", f"public decimal {name}{i}(decimal {rng.choice(WORDS)}, int {rng.choice(WORDS)})",
                 "{"]
        while sum(len(ln) + 1 for ln in lines) < chars - 2:
            a, b, c = rng.sample(WORDS, 3)
            lines.append(f"    var {a}{rng.randint(0, 99)} = {b}.{c.title()}({rng.randint(1, 500)}) * {a};")
        lines.append("}")
        texts.append("\n".join(lines)[:chars])
    return texts


def repo_texts(repos: list[str], count: int, seed: int = 7) -> list[str]:
    """The code lane's texts of the chunks of each repo's HEAD, distinct, shuffled, `count` in all."""
    from chunkers import chunk_file_result
    from ledger_assets.ingest.pipeline import code_text

    texts: set[str] = set()
    for repo in repos:
        files = git.run(repo, "ls-files", "-z", timeout=git.NO_TIMEOUT).stdout
        for path in filter(None, files.decode("utf-8", "replace").split("\0")):
            data = git.run(repo, "show", f"HEAD:{path}", check=False, timeout=git.NO_TIMEOUT).stdout
            try:
                pieces = chunk_file_result(path, data).pieces
            except Exception:  # a chunker bug must not stop a benchmark
                continue
            for p in pieces:
                t = normalize_text(code_text(p.text, [s.to_dict() for s in p.symbols]))
                if t:
                    texts.add(t)
    out = sorted(texts)
    random.Random(seed).shuffle(out)
    return out[:count]


# ------------------------------------------------------------ candidate backends (measured here only) ---
def _onnx_encoder(model, batch: int, int8: bool, threads: int, workdir: str) -> Callable[[list[str]], np.ndarray]:
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise SystemExit(f"error: backend onnx needs onnxruntime and onnx (pip install onnxruntime onnx): {exc}")
    import torch

    tok = model.tokenizer
    path = os.path.join(workdir, "model.onnx")
    if not os.path.exists(path):
        bert = model[0].auto_model.eval()

        class Hidden(torch.nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, input_ids, attention_mask, token_type_ids):
                return self.m(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

        sample = tok(["an example", "another example text"], padding=True, return_tensors="pt")
        names = ["input_ids", "attention_mask", "token_type_ids"]
        torch.onnx.export(Hidden(bert), tuple(sample[n] for n in names), path, dynamo=False, opset_version=17,
                          input_names=names, output_names=["hidden"],
                          dynamic_axes={n: {0: "batch", 1: "seq"} for n in names + ["hidden"]})
    if int8:
        qpath = os.path.join(workdir, "model.int8.onnx")
        if not os.path.exists(qpath):
            from onnxruntime.quantization import QuantType, quantize_dynamic

            quantize_dynamic(path, qpath, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
        path = qpath
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    inputs = [i.name for i in sess.get_inputs()]
    limit = model.max_seq_length

    def encode(texts: list[str]) -> np.ndarray:
        order = np.argsort([-len(t) for t in texts], kind="stable")  # as sentence-transformers: less padding
        out = np.zeros((len(texts), EMBED_DIM), np.float32)
        for i in range(0, len(texts), batch):
            idx = order[i:i + batch]
            enc = tok([texts[j] for j in idx], padding=True, truncation=True, max_length=limit, return_tensors="np")
            hidden = sess.run(None, {n: enc[n].astype(np.int64) for n in inputs})[0]
            mask = enc["attention_mask"][..., None].astype(np.float32)
            mean = (hidden * mask).sum(1) / np.clip(mask.sum(1), 1e-9, None)
            out[idx] = mean / np.linalg.norm(mean, axis=1, keepdims=True)
        return out

    return encode


def _torch_qint8_encoder(model, batch: int) -> Callable[[list[str]], np.ndarray]:
    import copy
    import warnings

    import torch

    clone = copy.deepcopy(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clone[0].model = torch.ao.quantization.quantize_dynamic(clone[0].model, {torch.nn.Linear}, dtype=torch.qint8)
    return lambda texts: np.asarray(clone.encode(texts, batch_size=batch, normalize_embeddings=True,
                                                 convert_to_numpy=True, show_progress_bar=False), np.float32)


def encoder_for(name: str, device: str, batch: int, threads: int, workdir: str) -> Callable[[list[str]], np.ndarray]:
    if name in BACKENDS:
        return Embedder(device, batch, backend=name).encode
    if device != "cpu":
        raise SystemExit(f"error: backend {name} is measured on CPU only")
    model = Embedder("cpu", batch, backend="torch").hf_model
    if name in ("onnx", "onnx-int8"):
        return _onnx_encoder(model, batch, name == "onnx-int8", threads, workdir)
    return _torch_qint8_encoder(model, batch)


def compare_backends(names: list[str], thread_counts: list[int], texts: list[str], device: str, batch: int,
                     repeat: int, slice_size: int = 160) -> int:
    """Every (backend, threads) pair encodes every text; timed slice by slice, the pairs in a rotating order
    within each slice, so a machine that others load slows every pair alike."""
    import torch

    default_threads = torch.get_num_threads()
    thread_counts = thread_counts or [default_threads]
    pairs = [(n, t) for n in names for t in thread_counts]
    with tempfile.TemporaryDirectory(prefix="embed-backends-") as workdir:
        encoders = {n: encoder_for(n, device, batch, thread_counts[0], workdir) for n in names}
        for fn in encoders.values():
            fn(texts[:batch * 2])  # warm-up: kernels, caches, lazy loading
        best = dict.fromkeys(pairs, float("inf"))
        vectors: dict[str, list[np.ndarray]] = {}
        for _ in range(repeat):
            spent = dict.fromkeys(pairs, 0.0)
            vectors = {n: [] for n in names}
            for k, i in enumerate(range(0, len(texts), slice_size)):
                part = texts[i:i + slice_size]
                for j in range(len(pairs)):
                    name, threads = pairs[(j + k) % len(pairs)]
                    owner = getattr(encoders[name], "__self__", None)
                    if isinstance(owner, Embedder):
                        owner.threads = threads  # the embedder sets torch's count before each encode
                    torch.set_num_threads(threads)
                    t0 = time.perf_counter()
                    v = np.asarray(encoders[name](part), dtype=np.float32)
                    spent[(name, threads)] += time.perf_counter() - t0
                    if threads == thread_counts[0]:
                        vectors[name].append(v)
            best = {p: min(best[p], spent[p]) for p in pairs}
    torch.set_num_threads(default_threads)
    ref = pairs[0]
    full = {n: np.concatenate(v) for n, v in vectors.items()}
    mean_chars = sum(map(len, texts)) / len(texts)
    print(f"device={device} texts={len(texts)} (mean {mean_chars:.0f} chars) batch={batch} "
          f"cpus={os.cpu_count()} repeat={repeat} (best of), timed in slices of {slice_size}, pairs interleaved")
    print(f"| backend | threads | texts/s | seconds | speed-up vs {ref[0]}@{ref[1]} "
          f"| cosine vs {ref[0]}: min | mean |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, threads in pairs:
        v, r = full[name], full[ref[0]]
        cos = (v * r).sum(1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(r, axis=1))
        sec = best[(name, threads)]
        print(f"| {name} | {threads} | {len(texts) / sec:.1f} | {sec:.1f} | {best[ref] / sec:.2f}x "
              f"| {cos.min():.6f} | {cos.mean():.6f} |")
    return 0


def stage_vs_raw(args, device: str, texts: list[str]) -> int:
    embedder = Embedder(device, args.batch)
    model = embedder.hf_model  # the raw reference: sentence-transformers' encode of the same weights
    model.encode(texts[: min(len(texts), args.batch)], batch_size=args.batch, normalize_embeddings=True,
                 show_progress_bar=False)

    def sync() -> None:
        if device.startswith("cuda"):
            import torch

            torch.cuda.synchronize()

    raw_best = stage_best = float("inf")
    computed = 0
    for _ in range(args.repeat):
        sync()
        t0 = time.perf_counter()
        model.encode(texts, batch_size=args.batch, normalize_embeddings=True, convert_to_numpy=True,
                     show_progress_bar=False)
        sync()
        raw_best = min(raw_best, time.perf_counter() - t0)

        with tempfile.TemporaryDirectory(prefix="embed-bench-") as tmp:
            db = LedgerDB(os.path.join(tmp, "ledger.duckdb"))
            with db.connect():
                pass  # schema creation is a one-off, not per-chunk work
            sync()
            t0 = time.perf_counter()
            computed = embed_with_cache(embedder, db, {text_hash(t): t for t in texts})
            sync()
            stage_best = min(stage_best, time.perf_counter() - t0)
    if computed != len(set(texts)):
        print(f"error: the stage computed {computed} vectors for {len(set(texts))} texts", file=sys.stderr)
        return 1
    # Tokenizing alone, batch by batch as encode does: what a tokenizer thread overlapping the
    # model (issue 19, "overlap the stages") could hide at most.
    prepare = getattr(model, "preprocess", None) or model.tokenize
    t0 = time.perf_counter()
    for i in range(0, len(texts), args.batch):
        prepare(texts[i:i + args.batch])
    tokenize_s = time.perf_counter() - t0
    raw_rate, stage_rate = len(texts) / raw_best, len(texts) / stage_best
    print(f"device={device} backend={embedder.backend} count={len(texts)} chars={args.chars} batch={args.batch}")
    print(f"raw model.encode     : {raw_rate:9.1f} chunks/s ({raw_best:.2f} s)")
    print(f"stage embed_with_cache: {stage_rate:9.1f} chunks/s ({stage_best:.2f} s)")
    print(f"ratio stage/raw      : {stage_rate / raw_rate:9.1%} (target >= 90%)")
    print(f"tokenizing alone     : {tokenize_s:9.2f} s = {tokenize_s / raw_best:.1%} of model.encode "
          "(the most overlapping it with the model could save)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=512, help="number of texts (default 512)")
    ap.add_argument("--chars", type=int, default=1500, help="characters per synthetic text (default 1500)")
    ap.add_argument("--batch", type=int, default=64, help="model batch size (default 64; the ingest uses 16)")
    ap.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda, cuda:1, ...")
    ap.add_argument("--repeat", type=int, default=1, help="time each side this many times, keep the best")
    ap.add_argument("--backend", default="", help="compare these backends, comma-separated; the first is the "
                    f"reference ({', '.join(BACKENDS + CANDIDATES)})")
    ap.add_argument("--threads", default="", help="torch threads, or a comma list to compare (e.g. 2,1; "
                    "default: torch's own, every core); onnxruntime uses the first")
    ap.add_argument("--texts-from", nargs="+", metavar="REPO", help="real chunk texts from these git repos")
    args = ap.parse_args(argv)
    try:
        thread_counts = [int(t) for t in args.threads.split(",") if t.strip()]
    except ValueError:
        thread_counts = [0]
    if args.count < 1 or args.chars < 16 or args.batch < 1 or args.repeat < 1 or min(thread_counts, default=1) < 1:
        print("error: --count, --batch, --repeat and --threads must be >= 1, --chars >= 16", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.backend.split(",") if n.strip()]
    unknown = [n for n in names if n not in BACKENDS + CANDIDATES]
    if unknown:
        print(f"error: --backend {','.join(unknown)}: unknown (choose from {', '.join(BACKENDS + CANDIDATES)})",
              file=sys.stderr)
        return 2
    device = resolve_device("" if args.device == "auto" else args.device)
    if thread_counts:
        import torch

        torch.set_num_threads(thread_counts[0])
    if args.texts_from:
        texts = repo_texts(args.texts_from, args.count)
    else:
        texts = [normalize_text(t) for t in synthetic_texts(args.count, args.chars)]
    if names:
        return compare_backends(names, thread_counts, texts, device, args.batch, args.repeat)
    return stage_vs_raw(args, device, texts)


if __name__ == "__main__":
    raise SystemExit(main())
