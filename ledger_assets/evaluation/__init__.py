"""Yardsticks: golden sets built from a repo, and recall/MRR per lane against baselines."""
