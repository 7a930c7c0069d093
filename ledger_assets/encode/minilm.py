"""The bundled all-MiniLM-L6-v2 as a plain torch module: tokenizer, six BERT layers, mean pooling.

sentence-transformers computes the same vectors (BERT, the mean of the token states under the attention
mask, unit length) but importing it pulls in transformers and scikit-learn, seconds before the first text
paid by every ingest that embeds and every `ledger query` process (figures: docs/decisions.md). This module needs torch, the Rust
tokenizer and safetensors only (`benchmarks/model_load.py` measures both; tests/ledger_assets/encode/
test_minilm.py holds it to sentence-transformers' vectors). Texts are batched by their token count, so a
batch pads to the longest text of similar ones. The `joint` profile and the `onnx` build still use
sentence-transformers and transformers (they need the Hugging Face model object).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np


class MiniLM:
    """`encode(texts, batch_size)` -> (n, 384) float32 unit vectors. `dtype`: torch.float32, bfloat16 (CPUs
    with bfloat16 units) or float16 (CUDA); pooling and the norm are computed in float32 whatever the dtype."""

    def __init__(self, model_dir: Path, device: str = "cpu", dtype=None):
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.model_dir = model_dir
        self.device = device
        self.dtype = dtype or torch.float32
        cfg = json.loads((model_dir / "config.json").read_text())
        if cfg.get("hidden_act", "gelu") != "gelu" or cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{model_dir}: not a BERT this encoder reads (hidden_act {cfg.get('hidden_act')!r}, "
                             f"position_embedding_type {cfg.get('position_embedding_type')!r})")
        # what the model reads: sentence-transformers' max_seq_length, beside the weights
        reads = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        self.max_seq_length = min(int(reads), int(cfg["max_position_embeddings"]))
        self.heads = int(cfg["num_attention_heads"])
        self.eps = float(cfg["layer_norm_eps"])
        w = load_file(str(model_dir / "model.safetensors"))
        w = {k.removeprefix("bert."): v for k, v in w.items()}

        # bf16 (a CPU's bfloat16 units) runs the matrix products in bfloat16 and keeps the residual stream, the
        # embeddings and LayerNorm in float32: nearer fp32's vectors than bfloat16 throughout, at the same speed
        # (docs/decisions.md). fp32 and fp16 (CUDA) run in their dtype throughout.
        self.stream = torch.float32 if self.dtype == torch.bfloat16 else self.dtype

        def t(name: str, dtype=None):
            return w[name].to(device=device, dtype=dtype or self.stream)

        def mm(name: str):
            return t(name, self.dtype)

        # One input row's embedding: word + position + token type 0 (BERT's segment A), then LayerNorm.
        self.word = t("embeddings.word_embeddings.weight")
        self.position = t("embeddings.position_embeddings.weight")
        self.type0 = t("embeddings.token_type_embeddings.weight")[0]
        self.emb_norm = (t("embeddings.LayerNorm.weight"), t("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            qkv_w = torch.cat([mm(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")])
            qkv_b = torch.cat([mm(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
            self.layers.append((
                qkv_w, qkv_b,
                mm(p + "attention.output.dense.weight"), mm(p + "attention.output.dense.bias"),
                t(p + "attention.output.LayerNorm.weight"), t(p + "attention.output.LayerNorm.bias"),
                mm(p + "intermediate.dense.weight"), mm(p + "intermediate.dense.bias"),
                mm(p + "output.dense.weight"), mm(p + "output.dense.bias"),
                t(p + "output.LayerNorm.weight"), t(p + "output.LayerNorm.bias"),
            ))
        self.dim = self.word.shape[1]
        self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tok.enable_truncation(self.max_seq_length)
        self._tok.no_padding()

    @property
    def tokenizer(self):
        """transformers' tokenizer of the same files, imported on first use (benchmarks count word-pieces with
        its call interface); encoding never uses it."""
        if getattr(self, "_hf_tok", None) is None:
            from transformers import AutoTokenizer

            self._hf_tok = AutoTokenizer.from_pretrained(str(self.model_dir))
        return self._hf_tok

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-pieces with [CLS] and [SEP], cut at max_seq_length; texts are stripped first, as
        sentence-transformers does."""
        return [e.ids for e in self._tok.encode_batch([str(x).strip() for x in texts])]

    def encode(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        step = max(1, batch_size)
        for at in range(0, len(order), step):
            part = order[at:at + step]
            out[part] = self._batch([ids[i] for i in part])
        return out

    def _batch(self, rows: list[list[int]]) -> np.ndarray:
        import torch
        import torch.nn.functional as F

        width = max(len(r) for r in rows)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        keep = torch.zeros((len(rows), width), dtype=torch.bool)
        for n, r in enumerate(rows):
            ids[n, :len(r)] = torch.tensor(r, dtype=torch.long)
            keep[n, :len(r)] = True
        ids, keep = ids.to(self.device), keep.to(self.device)
        b, h = len(rows), self.heads
        with torch.inference_mode():
            x = self.word[ids] + self.position[:width] + self.type0
            x = F.layer_norm(x, (self.dim,), *self.emb_norm, self.eps)
            mask = keep[:, None, None, :]  # a token attends to the batch row's real tokens only
            low, high = self.dtype, self.stream
            for (qkv_w, qkv_b, ao_w, ao_b, an_w, an_b, in_w, in_b, out_w, out_b, on_w, on_b) in self.layers:
                q, k, v = F.linear(x.to(low), qkv_w, qkv_b).view(b, width, 3, h, -1).permute(2, 0, 3, 1, 4)
                a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
                a = a.transpose(1, 2).reshape(b, width, self.dim)
                x = F.layer_norm(F.linear(a, ao_w, ao_b).to(high) + x, (self.dim,), an_w, an_b, self.eps)
                y = F.linear(F.gelu(F.linear(x.to(low), in_w, in_b)), out_w, out_b).to(high)
                x = F.layer_norm(y + x, (self.dim,), on_w, on_b, self.eps)
            weights = keep.to(torch.float32)[..., None]
            pooled = (x.float() * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            pooled = F.normalize(pooled, p=2, dim=1)
        return pooled.cpu().numpy()
