"""End-to-end tests: the real `ledger` CLI, `dagster dev` and a headless browser."""
