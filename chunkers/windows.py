"""Line-bounded windows: the last resort for text without structure, and the
splitter every structural chunker uses for an oversized unit's remainder.

A window never cuts a line unless that one line alone exceeds the cap; then
the line is sliced into pieces that all keep its line number, so nothing is
ever truncated.
"""

from __future__ import annotations

from dataclasses import dataclass

PLAIN_MAX_CHARS = 3000
PLAIN_OVERLAP_CHARS = 200


@dataclass(frozen=True)
class Window:
    start_line: int
    end_line: int
    text: str


def line_windows(
    lines: list[str],
    start_line: int = 1,
    end_line: int | None = None,
    max_chars: int = PLAIN_MAX_CHARS,
    overlap_chars: int = PLAIN_OVERLAP_CHARS,
) -> list[Window]:
    """Windows of at most `max_chars` over lines start_line..end_line (1-based).

    Consecutive windows overlap by whole lines worth up to `overlap_chars`.
    """
    if end_line is None:
        end_line = len(lines)
    if end_line < start_line:
        return []
    max_chars = max(1, max_chars)
    overlap_chars = min(max(0, overlap_chars), max_chars // 2)
    out: list[Window] = []
    i = start_line
    while i <= end_line:
        line = lines[i - 1]
        if len(line) > max_chars:
            for k in range(0, len(line), max_chars):
                out.append(Window(i, i, line[k:k + max_chars]))
            i += 1
            continue
        size = len(line)
        j = i
        while j < end_line and size + 1 + len(lines[j]) <= max_chars:
            size += 1 + len(lines[j])
            j += 1
        out.append(Window(i, j, "\n".join(lines[i - 1:j])))
        if j >= end_line:
            break
        # Step back over whole lines (k+1..j) for the overlap, but always advance.
        back, k = 0, j
        while k > i + 1 and back + len(lines[k - 1]) + 1 <= overlap_chars:
            back += len(lines[k - 1]) + 1
            k -= 1
        i = k + 1 if back else j + 1
    return out
