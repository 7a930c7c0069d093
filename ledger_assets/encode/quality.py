"""The quality vector: a small dense vector for `find_similar(mode="quality")`.

"Code of the same quality" is a different question from "code that looks
like this" (code_vector) or "code that does the same job" (design_vector), so
it gets its own 8-d named vector (cosine), built from numbers rather than text:

| dim | what | scale |
| --- | --- | --- |
| 0 | bias, always 1.0 | keeps a chunk with all-zero metrics a valid cosine vector |
| 1 | size: non-blank lines | log(1+loc) / log(501), capped at 1 |
| 2 | max nesting depth (indent levels over the chunk's base) | / 8, capped at 1 |
| 3 | comment density (comment lines / lines) | 0..1 |
| 4 | cyclomatic complexity, when an enrichment stage supplies it | log(1+cc) / log(51), capped at 1 |
| 5 | mean of the LLM rubric (readability, testability, error_handling, single_responsibility, naming) | (mean-1)/4 |
| 6 | rubric testability | (x-1)/4 |
| 7 | rubric error_handling | (x-1)/4 |

Why this shape: every dimension is scaled to about 0..1 so none dominates the
cosine; size and nesting are log/capped because quality differences matter at
10 vs 100 lines, not 1,000 vs 1,100. The rubric's mean carries the overall
judgement, and testability and error_handling are kept apart because they are
the two rubric scores that most often diverge from the rest (well-named code
that swallows exceptions). Chunks without an LLM rubric (keyless, budget,
error) get the neutral 3 everywhere, so they match on structure alone and sit
in the middle of the rubric axes instead of looking like poor code. The
rubric comes from `analyses.rubric` (joined by chunks.analysis_key); the
structural metrics are computed from the chunk's own text at points time.
"""

from __future__ import annotations

import math

from ledger_assets.store.settings import QUALITY_DIM

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
