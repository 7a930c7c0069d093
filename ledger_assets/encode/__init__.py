"""How a chunk becomes vectors: the MiniLM embedder, the identifier-aware sparse vector, the quality vector."""
