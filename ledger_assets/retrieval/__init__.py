"""Answering questions: the fused search over the lanes, the in-process index, staleness, and the span/symbol/drift tools."""
