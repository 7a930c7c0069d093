"""The baselines `ledger eval` measures the ledger against, in the same run: fixed windows of every
indexed file, embedded with the same model (cosine), and BM25 over the same windows (plain word
tokens, and the ledger's identifier-aware tokens); at file level also BM25 over whole files and the
RRF of the BM25 and MiniLM windows."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ledger_assets.encode.embedder import Embedder, embed_with_cache, fetch_vectors, text_hash
from ledger_assets.evaluation.scoring import EvalError
from ledger_assets.ingest.snapshot import ManifestEntry, read_blobs
from ledger_assets.store.ledger import Ledger

WINDOW_CHARS = 3000
BASELINE_RRF_K = 60
_WORD = re.compile(r"\w+")


@dataclass
class Windows:
    coords: list[tuple[str, int, int]]
    texts: list[str]


def fixed_windows(ledger: Ledger, repo_id: str, chars: int = WINDOW_CHARS) -> Windows:
    """Every indexed file of the repo's snapshot, cut into consecutive `chars`-character windows."""
    from chunkers.text import BinaryContent, decode

    with ledger.db.connect() as con:
        snap = con.execute("SELECT source, repo_path FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()
        entries = [ManifestEntry(*r) for r in con.execute(
            "SELECT m.file_path, m.blob_hash, m.size, m.language, m.skip_reason FROM manifest m "
            "JOIN files f USING (repo_id, file_path) WHERE m.repo_id = ? AND coalesce(m.skip_reason, '') = '' "
            "AND coalesce(f.skip_reason, '') = '' AND m.language <> 'pdf' ORDER BY m.file_path", [repo_id]).fetchall()]
    if snap is None:
        raise EvalError(f"repo {repo_id!r} has no snapshot: run `ledger ingest {repo_id}` first")
    coords, texts = [], []
    for entry, data in read_blobs(snap[1], snap[0], entries):
        try:
            text = decode(data)
        except BinaryContent:
            continue
        for start in range(0, len(text), chars):
            piece = text[start:start + chars]
            if not piece.strip():
                continue
            first = text.count("\n", 0, start) + 1
            last = first + piece.rstrip("\n").count("\n")
            coords.append((entry.file_path, first, last))
            texts.append(piece)
    return Windows(coords, texts)


class BM25:
    """Okapi BM25 over token lists. Each term's postings hold its documents and their
    saturated, length-normalised weights, so a query is a few numpy adds (3,078 queries
    over 5,000 windows took many minutes one posting at a time)."""

    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avg = float(lengths.mean()) if self.n else 1.0
        rows: dict[str, tuple[list[int], list[int]]] = {}
        for i, d in enumerate(docs):
            for t, f in Counter(d).items():
                ids, tfs = rows.setdefault(t, ([], []))
                ids.append(i)
                tfs.append(f)
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for t, (ids, tfs) in rows.items():
            idx = np.array(ids, dtype=np.int64)
            f = np.array(tfs, dtype=np.float64)
            idf = math.log(1 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
            self.postings[t] = (idx, idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths[idx] / avg)))

    def top(self, query: list[str], k: int) -> list[int]:
        scores = np.zeros(self.n)
        for t in sorted(set(query)):  # one summation order in every run: near-equal scores never swap
            posting = self.postings.get(t)
            if posting is not None:
                scores[posting[0]] += posting[1]
        order = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in order if scores[i] > 0]


def window_similarities(ledger: Ledger, embedder: Embedder, windows: Windows, dense: np.ndarray
                         ) -> tuple[np.ndarray, int]:
    """The MiniLM-windows baseline: each query's cosine to each window (embedded through the cache),
    and how many windows were embedded now."""
    by_hash = {text_hash(w): w for w in windows.texts}
    computed = embed_with_cache(embedder, ledger.db, by_hash)
    vectors = fetch_vectors(ledger.db, embedder.model_name, list(by_hash))
    if not windows.texts:
        return np.zeros((len(dense), 0)), computed
    return dense @ np.stack([vectors[text_hash(w)] for w in windows.texts]).T, computed


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def rrf_lists(lists: list[list[int]], k: int = BASELINE_RRF_K) -> list[int]:
    """Reciprocal rank fusion of ranked id lists (equal weights), ties by id."""
    score: dict[int, float] = {}
    for ranked in lists:
        for rank, i in enumerate(ranked, 1):
            score[i] = score.get(i, 0.0) + 1.0 / (k + rank)
    return sorted(score, key=lambda i: (-score[i], i))
