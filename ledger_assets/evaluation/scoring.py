"""What `ledger eval` scores against: the golden lines (`load_golden`), when a ranking holds a target
(line overlap, or a target file among the distinct files), and the figures (recall@k or Acc@k, MRR@10,
lines read to the first hit)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ledger_assets.retrieval.hits import Hit

K_MAX = 10
FILE_POOL = 1000  # window/chunk candidates read per query to find the first 10 distinct files


class EvalError(ValueError):
    """Bad eval input (unreadable golden file, a malformed line, unknown repo): exit 2."""


@dataclass(frozen=True)
class Target:
    query: str
    file: str
    start_line: int
    end_line: int
    files: tuple[str, ...] = ()  # a file-level target (commit sets): any of these files


def load_golden(path: str | Path) -> list[Target]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalError(f"{path}: {exc.strerror or exc}") from exc
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and "files" in obj:
                files = obj["files"]
                if not isinstance(files, list) or not files or not all(isinstance(f, str) and f for f in files):
                    raise ValueError("files must be a non-empty list of paths")
                t = Target(str(obj["query"]), files[0], 0, 0, tuple(files))
            else:
                t = Target(str(obj["query"]), str(obj["file"]), int(obj["start_line"]), int(obj["end_line"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise EvalError(f"{path}:{n}: want {{\"query\", \"file\", \"start_line\", \"end_line\"}} "
                            f"or {{\"query\", \"files\"}}: {exc}") from exc
        if not t.query.strip() or (not t.files and (t.start_line < 1 or t.end_line < t.start_line)):
            raise EvalError(f"{path}:{n}: empty query or bad line range")
        if out and bool(out[0].files) != bool(t.files):
            raise EvalError(f"{path}:{n}: mixes file-level lines ({{\"files\"}}) with line-range lines")
        out.append(t)
    if not out:
        raise EvalError(f"{path}: no golden lines")
    return out


def distinct_files(paths) -> list[str]:
    """Rank order of files: a file counts once, where it first appears."""
    seen: dict[str, None] = {}
    for p in paths:
        if p not in seen:
            seen[p] = None
            if len(seen) >= K_MAX:
                break
    return list(seen)


def first_relevant_file(paths, t: Target) -> int | None:
    """1-based rank, among distinct files within K_MAX, of the first file that is a target."""
    for rank, file in enumerate(distinct_files(paths), 1):
        if file in t.files:
            return rank
    return None


def first_relevant(ranked: list[tuple[str, int, int]], t: Target) -> int | None:
    """1-based rank of the first (file, start, end) that overlaps the target, within K_MAX."""
    for rank, (file, start, end) in enumerate(ranked[:K_MAX], 1):
        if file == t.file and start <= t.end_line and t.start_line <= end:
            return rank
    return None


def lines_read(ranked: list[tuple[str, int, int]], rank: int | None) -> int:
    """Lines of the results read in order up to the first hit (`rank`), or of all K_MAX."""
    return sum(end - start + 1 for _file, start, end in ranked[:rank or K_MAX])


def metrics(ranks: list[int | None], name: str = "recall") -> dict:
    """recall@k (chunk level) or acc@k (file level: any target file in the first k files), MRR@10."""
    n = len(ranks) or 1
    return {
        f"{name}@1": round(sum(1 for r in ranks if r and r <= 1) / n, 4),
        f"{name}@5": round(sum(1 for r in ranks if r and r <= 5) / n, 4),
        f"{name}@10": round(sum(1 for r in ranks if r and r <= 10) / n, 4),
        "mrr@10": round(sum(1.0 / r for r in ranks if r) / n, 4),
        "queries": len(ranks),
    }


def hit_coords(hits: list[Hit]) -> list[tuple[str, int, int]]:
    return [(h.payload.get("file_path", ""), int(h.payload.get("start_line") or 0),
             int(h.payload.get("end_line") or 0)) for h in hits]


def hit_paths(hits: list[Hit]) -> list[str]:
    return [h.payload.get("file_path", "") for h in hits]
