"""One model pass, several vectors (the `joint` embedding profile): a chunk's code and its symbols' heads are
read in one input, and each gets the mean of its own output tokens.

    [CLS] code [SEP] head_1 [SEP] head_2 [SEP] ...   ->  one vector per segment

The code attends to itself alone, at the positions it has alone: the code vector is the one the code text gets
alone. A head is a symbol's sentence without its code (gloss, kind, name, parent, doc); it sits at the positions
it would have alone and attends to itself, [CLS] and its symbol's declaration and first body lines in the code
(all of the code where they cannot be found), which a `full` symbol sentence repeats in its own tokens instead;
its vector is the mean of its own tokens and of those lines' tokens, as a sentence's mean covers what it
quotes. Heads do not see each other. So a chunk costs its code's tokens and its heads' (each cut at LEAD_TOKENS), in
one pass. Heads past HEADS_TOKENS in all are encoded alone by the caller.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np

# Part of every joint cache key: a change of the assembly or the pooling must not reuse old vectors.
JOINT_VERSION = "4"
LEAD_TOKENS = 48
HEADS_TOKENS = 128


@dataclass(frozen=True)
class Group:
    segments: tuple[str, ...]  # heads first, the code last
    sees: tuple[tuple[int, int] | None, ...] = ()  # per head: the code's characters it reads; None: all


@dataclass(frozen=True)
class JointInput:
    ids: list[int]
    positions: list[int]
    segment: list[int]  # per token: 0 the code (and [CLS]), i the i-th head
    spans: list[tuple[int, int] | None]  # per segment as given (heads first, the code last): [start, end) in ids
    sees: dict[int, tuple[int, int]]  # head n -> the code tokens [start, end) in ids it reads (absent: all)


def joint_key(segments: Sequence[str]) -> str:
    """The cache key of one joint input; segment i's vector is stored under f"{key}:{i}"."""
    return hashlib.sha256("\x1e".join((JOINT_VERSION, *segments)).encode("utf-8")).hexdigest()


def assemble(tokens: Sequence[Sequence[int]], cls_id: int, sep_id: int, max_tokens: int,
             sees: Sequence[tuple[int, int] | None] = ()) -> JointInput:
    """The model input for segments tokenized without special tokens: heads first, the code last (as the
    caller lists them); in the input the code comes first. A head that does not fit gets no span.
    `sees`: per head, the code tokens [start, end) (in the code's own tokens) it reads."""
    code = list(tokens[-1][:max_tokens - 2]) if tokens else []
    reads = {}
    for n, rng in enumerate(sees, start=1):
        if rng is not None and rng[0] < len(code):
            reads[n] = (rng[0] + 1, min(rng[1], len(code)) + 1)
    ids = [cls_id, *code, sep_id]
    positions = list(range(len(ids)))
    segment = [0] * len(ids)
    spans: list[tuple[int, int] | None] = []
    used = 0
    for n, head in enumerate(tokens[:-1], start=1):
        part = list(head[:LEAD_TOKENS])
        if not part or used + len(part) + 1 > HEADS_TOKENS:
            spans.append(None)
            continue
        start = len(ids)
        ids += [*part, sep_id]
        positions += range(1, len(part) + 2)  # where it would sit alone, after a [CLS]
        segment += [n] * (len(part) + 1)
        spans.append((start, len(ids)))
        used += len(part) + 1
    spans.append((0, len(code) + 2))
    return JointInput(ids, positions, segment, spans, reads)


def attention(segment: Sequence[int], width: int, sees: dict[int, tuple[int, int]] | None = None) -> np.ndarray:
    """(width, width) bool: may token q attend to token k. The code (segment 0) sees itself; a head sees
    itself and the code (with `sees`, [CLS] and its own lines of it); padding past len(segment) sees and is
    seen by nothing but itself."""
    seg = np.full(width, -1)
    seg[:len(segment)] = segment
    q, k = seg[:, None], seg[None, :]
    allowed = (k == 0) | (q == k)
    for n, (a, b) in (sees or {}).items():
        rows = seg == n
        allowed[rows, 1:] &= ~(seg[1:] == 0)
        allowed[np.ix_(rows, np.arange(a, b))] = True
    allowed &= (q >= 0) & (k >= 0)
    allowed[np.arange(width), np.arange(width)] = True  # a padded row must not be all masked
    return allowed


def pool(hidden: np.ndarray, spans: Sequence[tuple[int, int] | None],
         sees: dict[int, tuple[int, int]] | None = None) -> list[np.ndarray | None]:
    """Each span's mean output token, L2-normalised (float32); None where a segment has no span. A head with
    lines of its own in the code (`sees`, keyed by head number from 1) pools them with its own tokens, as a
    `full` symbol sentence's mean covers its quoted declaration and body."""
    out: list[np.ndarray | None] = []
    for n, span in enumerate(spans, start=1):
        if span is None:
            out.append(None)
            continue
        rows = hidden[span[0]:span[1]]
        if sees and n in sees:
            rows = np.concatenate([rows, hidden[sees[n][0]:sees[n][1]]])
        v = rows.astype(np.float32).mean(axis=0)
        out.append(v / max(float(np.linalg.norm(v)), 1e-12))
    return out


def encode_joint(model, groups: Sequence[Sequence[str]], batch_size: int, hidden_fn,
                 alone_fn) -> tuple[list[np.ndarray], int]:
    """For each group of segments, a (len(group), dim) float32 array of unit vectors; and how many leads did
    not fit and were encoded alone (each one more model input).

    `hidden_fn(batch of JointInputs) -> list of (tokens, dim) arrays` runs the transformer; `alone_fn(texts)`
    encodes the leads that did not fit, each alone. Inputs are batched by length, so padding stays small."""
    tok = model.tokenizer
    inputs = []
    for group in groups:
        enc = tok(list(group.segments), add_special_tokens=False, return_offsets_mapping=True)
        offsets = enc["offset_mapping"][-1]
        sees = [None if rng is None else _token_range(offsets, rng) for rng in group.sees]
        inputs.append(assemble(enc["input_ids"], tok.cls_token_id, tok.sep_token_id, model.max_seq_length, sees))
    pooled: list[list[np.ndarray | None]] = [[] for _ in inputs]
    order = sorted(range(len(inputs)), key=lambda i: len(inputs[i].ids))
    for at in range(0, len(order), max(batch_size, 1)):
        part = order[at:at + max(batch_size, 1)]
        for i, hidden in zip(part, hidden_fn([inputs[i] for i in part])):
            pooled[i] = pool(hidden, inputs[i].spans, inputs[i].sees)
    left = [(g, s) for g, vecs in enumerate(pooled) for s, v in enumerate(vecs) if v is None]
    if left:
        for (g, s), v in zip(left, alone_fn([groups[g].segments[s] for g, s in left])):
            pooled[g][s] = v
    return [np.stack(vecs).astype(np.float32) for vecs in pooled], len(left)


def _token_range(offsets, chars: tuple[int, int]) -> tuple[int, int] | None:
    inside = [i for i, (a, b) in enumerate(offsets) if a < chars[1] and b > chars[0]]
    return (inside[0], inside[-1] + 1) if inside else None


def torch_hidden(transformer, device: str):
    """hidden_fn for a Hugging Face BERT (sentence-transformers' module 0): one padded forward per batch, with
    each input's positions and its attention as a 4-d additive mask."""
    import torch

    dtype = next(transformer.parameters()).dtype

    def run(batch: list[JointInput]) -> list[np.ndarray]:
        width = max(len(x.ids) for x in batch)
        ids = torch.zeros((len(batch), width), dtype=torch.long)
        pos = torch.zeros((len(batch), width), dtype=torch.long)
        allowed = np.stack([attention(x.segment, width, x.sees) for x in batch])
        for row, x in enumerate(batch):
            ids[row, :len(x.ids)] = torch.tensor(x.ids, dtype=torch.long)
            pos[row, :len(x.ids)] = torch.tensor(x.positions, dtype=torch.long)
        mask = torch.zeros(allowed.shape, dtype=dtype)
        mask[~torch.from_numpy(allowed)] = torch.finfo(dtype).min
        with torch.inference_mode():
            out = transformer(input_ids=ids.to(device), position_ids=pos.to(device),
                              attention_mask=mask[:, None].to(device)).last_hidden_state
        out = out.float().cpu().numpy()
        return [out[row, :len(x.ids)] for row, x in enumerate(batch)]

    return run
