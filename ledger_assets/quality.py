"""The quality vector: a small dense vector for `find_similar(mode="quality")`.

Eight dimensions, each scaled to about 0..1, so that cosine similarity
compares the *shape* of code quality (size, nesting, comments, LLM rubric)
rather than its topic. A constant bias dimension keeps the vector non-zero.
"""

from __future__ import annotations

import math

from .settings import QUALITY_DIM

RUBRIC_FIELDS = ("readability", "testability", "error_handling", "single_responsibility", "naming")


def _indent_depth(line: str) -> int:
    expanded = line.expandtabs(4)
    return (len(expanded) - len(expanded.lstrip(" "))) // 4


def structural_metrics(text: str) -> dict[str, float]:
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines:
        return {"loc": 0, "max_nesting": 0, "comment_density": 0.0}
    comments = sum(1 for ln in lines if ln.lstrip().startswith(("//", "#", "--", "/*", "*", "<!--", '"""')))
    base = min(_indent_depth(ln) for ln in lines)
    return {
        "loc": len(lines),
        "max_nesting": max(_indent_depth(ln) for ln in lines) - base,
        "comment_density": comments / len(lines),
    }


def quality_vector(text: str, rubric: dict | None = None, metrics: dict | None = None) -> list[float]:
    m = dict(structural_metrics(text))
    m.update({k: v for k, v in (metrics or {}).items() if v is not None})
    rubric = rubric or {}
    vec = [
        1.0,
        min(math.log1p(float(m.get("loc", 0))) / math.log1p(500), 1.0),
        min(float(m.get("max_nesting", 0)) / 8.0, 1.0),
        min(float(m.get("comment_density", 0.0)), 1.0),
        min(math.log1p(float(m.get("cyclomatic", 0) or 0)) / math.log1p(50), 1.0),
    ]
    scores = [float(rubric[f]) for f in RUBRIC_FIELDS if isinstance(rubric.get(f), (int, float))]
    mean = sum(scores) / len(scores) if scores else 3.0
    vec += [
        (mean - 1) / 4,
        (float(rubric.get("testability", mean)) - 1) / 4,
        (float(rubric.get("error_handling", mean)) - 1) / 4,
    ]
    assert len(vec) == QUALITY_DIM
    return [round(v, 4) for v in vec]
