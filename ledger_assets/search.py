"""The read side: hybrid search over the code, design and lexical lanes.

Each lane is a Qdrant query over the latest points; the lanes are fused by
reciprocal rank fusion: score = Σ_lane weight / (RRF_K + rank).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from qdrant_client import models

from . import lexical
from .core import Ledger
from .embedder import Embedder
from .qdrant_store import CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR

RRF_K = 60
LANES = ("code", "design", "sparse")
DEFAULT_WEIGHTS = {"code": 1.0, "design": 1.0, "sparse": 1.0}
SNIPPET_CHARS = 600


class QueryError(ValueError):
    """Bad query input (empty text, bad lane, k out of range)."""


@dataclass
class Hit:
    rank: int
    score: float
    payload: dict[str, Any]
    lane_ranks: dict[str, int] = field(default_factory=dict)

    def to_dict(self, detail: str = "snippet") -> dict[str, Any]:
        p = self.payload
        return {
            "rank": self.rank,
            "score": round(self.score, 6),
            "repo_id": p.get("repo_id"),
            "file_path": p.get("file_path"),
            "start_line": p.get("start_line"),
            "end_line": p.get("end_line"),
            "chunk_type": p.get("chunk_type"),
            "symbols": [s[0] for s in json.loads(p.get("chunk_symbols") or "[]")],
            "snippet": render_body(p, detail),
            "intent": p.get("intent", ""),
            "intent_source": p.get("intent_source", ""),
            "stale": bool(p.get("_stale", False)),
            "lane_ranks": self.lane_ranks,
            "payload": {k: v for k, v in p.items() if not k.startswith("_")},
        }


def render_body(payload: dict, detail: str = "snippet") -> str:
    if detail == "skeleton" and payload.get("skeleton"):
        return payload["skeleton"]
    content = payload.get("content", "")
    if detail == "full":
        return content
    return content if len(content) <= SNIPPET_CHARS else content[:SNIPPET_CHARS] + "…"


def _filter(repo: str | None) -> models.Filter:
    must: list = [models.FieldCondition(key="is_latest", match=models.MatchValue(value=True))]
    if repo:
        must.append(models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo)))
    return models.Filter(must=must)


def search(ledger: Ledger, embedder: Embedder, text: str, repo: str | None = None, k: int = 10,
           lane: str = "hybrid", weights: dict[str, float] | None = None) -> list[Hit]:
    if not text.strip():
        raise QueryError("query text is empty")
    if lane not in ("hybrid", *LANES):
        raise QueryError(f"unknown lane {lane!r}: use hybrid, code, design or sparse")
    if not 1 <= k <= 200:
        raise QueryError(f"--k must be between 1 and 200, got {k}")
    lanes = LANES if lane == "hybrid" else (lane,)
    weights = {**DEFAULT_WEIGHTS, **(weights or {})}
    dense = embedder.encode([text])[0].tolist() if {"code", "design"} & set(lanes) else None
    depth = max(k * 5, 50)
    flt = _filter(repo)
    results: dict[str, list] = {}
    with ledger.qdrant.open() as client:
        if not client.collection_exists(ledger.qdrant.collection):
            return []
        for name in lanes:
            if name == "sparse":
                vec = lexical.query_vector(text)
                if not vec.indices:
                    results[name] = []
                    continue
                query, using = vec, SPARSE_VECTOR
            else:
                query, using = dense, CODE_VECTOR if name == "code" else DESIGN_VECTOR
            results[name] = client.query_points(ledger.qdrant.collection, query=query, using=using,
                                                query_filter=flt, limit=depth, with_payload=True).points
    fused: dict[str, Hit] = {}
    for name, points in results.items():
        for rank, point in enumerate(points, 1):
            hit = fused.setdefault(str(point.id), Hit(0, 0.0, point.payload or {}))
            hit.lane_ranks[name] = rank
            hit.score += weights[name] / (RRF_K + rank)
    ordered = sorted(fused.values(), key=lambda h: (-h.score, h.payload.get("file_path", ""),
                                                     h.payload.get("chunk_index", 0)))[:k]
    for i, hit in enumerate(ordered, 1):
        hit.rank = i
    return ordered


def format_hits(hits: list[Hit], fmt: str = "text", detail: str = "snippet") -> str:
    if fmt == "json":
        return json.dumps([h.to_dict(detail) for h in hits], indent=2)
    if fmt == "toon":
        rows = ["repo|layer|pattern|path|Lstart-Lend⟫snippet"]
        for h in hits:
            p = h.payload
            body = render_body(p, detail).replace("\n", "⏎")
            if detail == "snippet":
                body = body[:SNIPPET_CHARS]
            rows.append(f"{p.get('repo_id')}|{p.get('layer', '')}|{p.get('pattern', '')}|{p.get('file_path')}|"
                        f"L{p.get('start_line')}-L{p.get('end_line')}⟫{body}")
        return "\n".join(rows)
    out = []
    for h in hits:
        d = h.to_dict(detail)
        syms = ", ".join(d["symbols"][:5])
        out.append(f"{d['rank']:>2}. {d['repo_id']}:{d['file_path']}:{d['start_line']}-{d['end_line']} "
                   f"[{d['chunk_type']}] score={d['score']:.4f}" + (f"  {syms}" if syms else "")
                   + ("  (STALE)" if d["stale"] else ""))
        if d["intent"]:
            out.append(f"    intent: {d['intent']}")
        out.extend("    " + line for line in d["snippet"].splitlines()[:12])
    return "\n".join(out) if out else "no hits"
