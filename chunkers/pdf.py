"""PDF: text per page (pypdf), pages grouped into `pdf_pages` chunks.

Pages are packed in order up to about `options.pdf_group_chars`; each chunk's
text starts with `<!-- Path: spec.pdf, pages 3-5 -->` (then a `<!-- page N -->`
marker before each page) and carries meta start_page/end_page, so an answer
cites the exact pages. A page alone over the cap is split on paragraphs (blank
lines, else lines) into parts.

Coordinates: a PDF has no source lines, so `start_line`/`end_line` hold the
page numbers (the same as start_page/end_page). Pages are the only honest
location inside a PDF, and with them the coverage invariant still means
something: every page lies inside some chunk, empty pages included.

Bad input never raises and never hangs. The work a file may cost is counted,
not timed: the bytes of content pypdf parses, at most PDF_WORK_PER_KB a KB of
the file (at least PDF_WORK_MIN); past it the pages left are one placeholder
with a note, so a file chunks the same way on a loaded machine (the idempotent
check re-chunks and compares). A deadline (`options.pdf_timeout_s`) stays as
the last resort for work the count does not see. A page whose text pypdf
cannot extract keeps its place with the reason; an image-only (scanned) PDF
gives one placeholder chunk saying so; an encrypted, truncated or corrupt PDF
gives a skip reason.
"""

from __future__ import annotations

import io
import logging
import re
import threading
import time
from dataclasses import dataclass, field

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult
from .windows import line_windows

# pypdf reports every recoverable flaw of a damaged file as a warning; the
# outcome is what the chunk result records, so keep them out of the logs.
logging.getLogger("pypdf").setLevel(logging.ERROR)


@dataclass
class _Extraction:
    pages: list[str] = field(default_factory=list)  # text of pages 1..len(pages)
    images: list[bool] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)  # page -> why its text was not extracted
    page_count: int = 0
    skip_reason: str = ""
    stopped_at: int = 0  # first page not read (past the work budget or the deadline), else 0
    over_budget: bool = False
    done: bool = False


def _normalize(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def _has_image(page) -> bool:
    try:
        resources = page.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        xobjects = resources.get("/XObject") if resources else None
        if xobjects is None:
            return False
        xobjects = xobjects.get_object()
        return any(xobjects[name].get_object().get("/Subtype") == "/Image" for name in xobjects)
    except Exception:  # a damaged resource dictionary just means "unknown"
        return False


# pypdf parses a content stream again each time a page draws it (a form drawn 400 times by a 1 KB file: 26 CPU s
# and 4 MB of text), and its extraction grows faster than the stream (4 MB of text operators: 10 CPU s; 1 MB:
# 1.0 s); either way about a microsecond a byte parsed. Real files parse 86-1,902 bytes of content a KB of file
# (py-pdf's 31 sample files and two manuals: benchmarks/hostile_files.md), a bomb 100,000 and more. Past
# PDF_WORK_PER_KB a KB (at least PDF_WORK_MIN, about 4 CPU s) the pages left are not read.
PDF_WORK_PER_KB, PDF_WORK_MIN = 10_000, 4_000_000
# pypdf's own cap on the tokens of one content stream (its default 2,000,000: 75 MB of text operators, minutes of
# extraction); the largest real pages measured (three of GeoTopo's, 483 KB the largest) hold 50,000-100,000.
PDF_STREAM_TOKENS = 500_000


class PdfWorkExceeded(Exception):
    """The file's content passed its work budget."""


class _Meter(threading.local):
    left: int | None = None  # bytes this thread's PDF may still parse; None: not metering


_meter = _Meter()
_install_lock = threading.Lock()


def _install_meter() -> None:
    """Count each content stream pypdf parses (a page's, and a form's each time it is drawn), which no public hook
    of pypdf sees. The count raises PdfWorkExceeded in the thread extracting a PDF, nowhere else."""
    from pypdf.generic import ContentStream

    with _install_lock:
        parse = ContentStream._parse_content_stream
        if not getattr(parse, "metered", False):
            ContentStream._parse_content_stream = _metered(parse)


def _metered(parse):
    """`parse`, first charging its stream's bytes to this thread's meter."""
    def metered(self, stream):
        if _meter.left is not None:
            _meter.left -= len(stream.getbuffer())
            if _meter.left < 0:
                raise PdfWorkExceeded
        return parse(self, stream)

    metered.metered = True
    return metered


def _extract(data: bytes, deadline: float, out: _Extraction) -> None:
    from pypdf import PdfReader, apply_configuration
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception as exc:
                out.skip_reason = f"encrypted PDF: cannot decrypt ({type(exc).__name__}: {exc})"
                return
            if not opened:
                out.skip_reason = "encrypted PDF: a password is required"
                return
        out.page_count = len(reader.pages)
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            RecursionError, OSError, AssertionError) as exc:
        out.skip_reason = f"unreadable PDF ({type(exc).__name__}: {str(exc)[:200]})"
        return
    _install_meter()
    _meter.left = PDF_WORK_MIN + PDF_WORK_PER_KB * len(data) // 1024
    try:
        with apply_configuration(stream_parsing_work_maximum_count=PDF_STREAM_TOKENS):
            for number in range(1, out.page_count + 1):
                if time.monotonic() > deadline:
                    out.stopped_at = number
                    return
                try:
                    page = reader.pages[number - 1]
                    text = _normalize(page.extract_text() or "")
                    image = _has_image(page)
                except PdfWorkExceeded:
                    text, image = "", False
                except Exception as exc:  # one damaged page must not lose the others
                    text, image = "", False
                    out.failed[number] = f"{type(exc).__name__}: {str(exc)[:120]}"
                if _meter.left < 0:  # pypdf may have caught the count's exception inside a form: the page is cut
                    out.stopped_at, out.over_budget = number, True
                    return
                out.images.append(image)
                out.pages.append(text)
    finally:
        _meter.left = None
    out.done = True


def _header(path: str, first: int, last: int, part: tuple[int, int] | None = None) -> str:
    where = f"page {first}" if first == last else f"pages {first}-{last}"
    suffix = f" (part {part[0]}/{part[1]})" if part else ""
    return f"<!-- Path: {path}, {where}{suffix} -->\n"


def _piece(path: str, first: int, last: int, body: str, meta: dict | None = None,
           part: tuple[int, int] | None = None) -> ChunkPiece:
    header = _header(path, first, last, part)
    extra = {"part": part[0], "parts": part[1]} if part else {}
    return ChunkPiece(text=header + body, chunk_type="pdf_pages", start_line=first, end_line=last,
                      header=header, meta={"start_page": first, "end_page": last, **extra, **(meta or {})})


def _split_page(text: str, budget: int) -> list[str]:
    """An oversized page's text in parts of at most `budget` chars, cut between
    paragraphs where it has them, else between lines."""
    paragraphs = text.split("\n\n")
    parts: list[str] = []
    for para in paragraphs:
        if len(para) > budget:
            lines = para.split("\n")
            parts.extend(w.text for w in line_windows(lines, 1, len(lines), budget, 0))
        elif parts and len(parts[-1]) + 2 + len(para) <= budget:
            parts[-1] += "\n\n" + para
        else:
            parts.append(para)
    return parts


def _group(path: str, pages: list[str], images: list[bool], failed: dict[int, str],
           options: ChunkOptions) -> list[ChunkPiece]:
    pieces: list[ChunkPiece] = []
    group: list[int] = []  # page numbers
    size = 0

    def shown(n: int) -> str:
        if pages[n - 1]:
            return pages[n - 1]
        if n in failed:
            return f"(no text extracted from this page: {failed[n]})"
        return "(no text on this page: images only)" if images[n - 1] else "(empty page)"

    def flush() -> None:
        if not group:
            return
        first, last = group[0], group[-1]
        if first == last:
            body = shown(first)
        else:
            body = "\n\n".join(f"<!-- page {n} -->\n{shown(n)}" for n in group)
        pieces.append(_piece(path, first, last, body))
        group.clear()

    for number, text in enumerate(pages, 1):
        if len(text) > options.pdf_group_chars:
            flush()
            size = 0
            parts = _split_page(text, max(500, options.pdf_group_chars))
            for k, part in enumerate(parts, 1):
                pieces.append(_piece(path, number, number, part, part=(k, len(parts))))
            continue
        if group and size + len(text) > options.pdf_group_chars:
            flush()
            size = 0
        group.append(number)
        size += len(text) + 16
    flush()
    return pieces


def chunk_pdf(path: str, data: bytes, options: ChunkOptions = DEFAULT_OPTIONS) -> ChunkResult:
    if b"%PDF" not in data[:1024]:
        return ChunkResult([], skip_reason="not a PDF (no %PDF header)")
    out = _Extraction()
    deadline = time.monotonic() + options.pdf_timeout_s
    worker = threading.Thread(target=_extract, args=(data, deadline, out), name=f"pdf:{path}", daemon=True)
    worker.start()
    worker.join(options.pdf_timeout_s + 0.5)
    if out.skip_reason:
        return ChunkResult([], skip_reason=out.skip_reason)
    # Read what the worker finished; a worker still stuck in one page keeps
    # running in the background but its later results are not looked at.
    pages = list(out.pages)
    images = list(out.images[:len(pages)])
    page_count = out.page_count
    if not page_count:
        if worker.is_alive():
            return ChunkResult([], skip_reason=f"PDF parse timed out after {options.pdf_timeout_s:g}s")
        return ChunkResult([], skip_reason="PDF has no pages")
    failed = dict(out.failed)
    notes = [f"pdf page {n}: no text extracted ({why})" for n, why in sorted(failed.items())[:5]]
    if len(failed) > 5:
        notes.append(f"pdf: {len(failed) - 5} more pages with no text extracted")
    if not any(pages) and not failed and len(pages) == page_count:
        with_images = sum(images)
        body = (f"(no extractable text: {page_count} page{'s' if page_count != 1 else ''}, "
                f"{with_images} with images; a scanned or image-only PDF, OCR it to index its content)")
        return ChunkResult([_piece(path, 1, page_count, body, {"placeholder": "no_text"})])
    pieces = _group(path, pages, images, failed, options)
    if len(pages) < page_count:
        first = len(pages) + 1
        if out.over_budget:
            budget = (PDF_WORK_MIN + PDF_WORK_PER_KB * len(data) // 1024) / 1e6
            body = (f"(pages {first}-{page_count} not read: the file's content passed its work budget, "
                    f"{budget:.1f} MB parsed for a file of {len(data) / 1024:.0f} KB)")
            pieces.append(_piece(path, first, page_count, body, {"placeholder": "work_budget"}))
            notes.append(f"pdf content passed its work budget ({budget:.1f} MB parsed) at page {first} of {page_count}")
        else:
            body = (f"(pages {first}-{page_count} not read: text extraction exceeded "
                    f"{options.pdf_timeout_s:g}s)")
            pieces.append(_piece(path, first, page_count, body, {"placeholder": "timeout"}))
            notes.append(f"pdf timed out after {options.pdf_timeout_s:g}s at page {first} of {page_count}")
    return ChunkResult(pieces, notes=tuple(notes))
