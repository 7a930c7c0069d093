"""Payload enrichment: code metrics, git history and the code graph, computed per repo between chunks and points."""
