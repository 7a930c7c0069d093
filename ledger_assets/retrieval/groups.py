"""`ledger query --group file`: fused chunk hits grouped into files, each scored by the evidence of
its chunks, with the test and docs priors on the file (retrieval/priors.py)."""

from __future__ import annotations

from dataclasses import dataclass

from chunkers.paths import is_docs_path, is_test_path
from ledger_assets.retrieval.fusion import order_hits
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.priors import asks_about_docs, asks_about_tests, is_test_chunk
from ledger_assets.store.settings import FILE_CHUNKS


@dataclass
class FileHit:
    """`ledger query --group file`: one file, scored by the evidence of its chunks."""
    rank: int
    score: float
    repo_id: str
    file_path: str
    chunks: list[Hit]
    test: bool = False

    def to_dict(self, detail: str = "snippet", chunks: int = FILE_CHUNKS) -> dict:
        return {"rank": self.rank, "score": round(self.score, 6), "repo_id": self.repo_id,
                "file_path": self.file_path, "test": self.test, "matched_chunks": len(self.chunks),
                "lines": [[h.payload.get("start_line"), h.payload.get("end_line")] for h in self.chunks[:chunks]],
                "chunks": [h.to_dict(detail) for h in self.chunks[:chunks]]}


def group_files(hits: list[Hit], decay: float, text: str = "", test_prior: float = 1.0,
                docs_prior: float = 1.0) -> list[FileHit]:
    """Chunk hits (fused, ranked) -> files: score = Σ_i decay^i · s_i over the file's chunk scores
    s_0 ≥ s_1 ≥ … (decay 0 = its best chunk, 1 = the sum), times `test_prior` for a test file
    unless the query is about tests, and `docs_prior` for a documentation file (`is_docs_path`)
    unless it is about docs. A file is a test by path, or when most of its matched chunks are
    tests by content."""
    by_file: dict[tuple, list[Hit]] = {}
    for h in hits:
        by_file.setdefault((h.payload.get("repo_id") or "", h.payload.get("file_path") or ""), []).append(h)
    about_tests = asks_about_tests(text)
    docs_prior = 1.0 if asks_about_docs(text) else docs_prior
    out: list[FileHit] = []
    for (repo_id, path), chunks in by_file.items():
        chunks.sort(key=order_hits)
        score = sum(h.score * decay ** i for i, h in enumerate(chunks)) if decay > 0 else chunks[0].score
        test = is_test_path(path) or sum(1 for h in chunks if is_test_chunk(h.payload)) * 2 > len(chunks)
        if test and not about_tests:
            score *= test_prior
        if docs_prior != 1.0 and is_docs_path(path):
            score *= docs_prior
        out.append(FileHit(0, score, repo_id, path, chunks, test))
    out.sort(key=lambda f: (-f.score, f.repo_id, f.file_path))
    for i, f in enumerate(out, 1):
        f.rank = i
    return out
