"""Fusion of the ranked lanes into one list: the lane weights (`parse_weights`), reciprocal rank
fusion with the `plain` prior (`fuse`), and the order of fused hits (`order_hits`).

Beside it: the name lane (retrieval/names.py), the rules applied after fusion (retrieval/rules.py),
the test and docs priors (retrieval/priors.py), `--group file` (retrieval/groups.py). Pure functions
over payloads; why each default was chosen: docs/decisions.md.
"""

from __future__ import annotations

from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.names import NAME_LANE
from ledger_assets.store.settings import DEFAULT_LANE_WEIGHTS, LANES, PLAIN_PRIOR, RRF_K

FUSED_LANES = (*LANES, NAME_LANE)
HEURISTIC_SOURCE = "heuristic"


class QueryError(ValueError):
    """Bad query input (empty text, bad lane, k out of range, bad filter)."""


def parse_weights(spec: str | dict | None, base: dict[str, float] = DEFAULT_LANE_WEIGHTS) -> dict[str, float]:
    """Lane weights from "code=1,sparse=0.5" (or a dict); a lane not named keeps its weight in `base`."""
    if not spec:
        return dict(base)
    if isinstance(spec, dict):
        items = spec.items()
    else:
        items = []
        for part in spec.split(","):
            name, sep, value = part.partition("=")
            if not sep:
                raise QueryError(f"lane weights {spec!r}: write lane=weight pairs, e.g. code=1,design=0.5,sparse=1")
            items.append((name.strip(), value.strip()))
    out = dict(base)
    for name, value in items:
        if name not in FUSED_LANES:
            raise QueryError(f"lane weights: unknown lane {name!r} (lanes: {', '.join(FUSED_LANES)})")
        try:
            out[name] = float(value)
        except ValueError as exc:
            raise QueryError(f"lane weights: {name}={value!r} is not a number") from exc
        if out[name] < 0:
            raise QueryError(f"lane weights: {name} must be >= 0")
    return out


def fuse(lane_results: dict[str, list], weights: dict[str, float], rrf_k: int = RRF_K,
         plain_prior: float = PLAIN_PRIOR) -> list[Hit]:
    """RRF over ranked lane lists of Qdrant points (or anything with .id and .payload)."""
    fused: dict[str, Hit] = {}
    fusing = bool(lane_results.get("symbol")) and sum(1 for points in lane_results.values() if points) > 1
    for name, points in lane_results.items():
        rank = seen = 0
        last = None
        for point in points:
            payload = point.payload or {}
            if name == "design" and (not payload.get("intent") or (
                    fusing and payload.get("intent_source") == HEURISTIC_SOURCE)):
                # No intent: the design vector says nothing about this chunk. A heuristic intent is
                # made of the names and declaration the symbol lane already embeds: counting it
                # again beside that lane counts one piece of evidence twice (measured: see the docstring).
                continue
            seen += 1
            # Equal scores share a rank (two shapes of a unit often carry the same text), so the
            # fused order never depends on how a store happens to order ties.
            score = getattr(point, "score", None)
            if score is None or last is None or abs(score - last) > 1e-6:
                rank = seen
            last = score
            hit = fused.setdefault(str(point.id), Hit(0, 0.0, payload))
            hit.lane_ranks[name] = rank
            hit.score += weights.get(name, 1.0) / (rrf_k + rank)
    for hit in fused.values():
        if hit.payload.get("chunk_type") == "plain":
            hit.score *= plain_prior
    return sorted(fused.values(), key=order_hits)


def order_hits(h: Hit) -> tuple:
    return (-h.score, h.payload.get("repo_id", ""), h.payload.get("file_path", ""), h.payload.get("chunk_index", 0))

