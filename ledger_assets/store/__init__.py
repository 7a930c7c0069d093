"""Where the ledger keeps things: settings, the DuckDB chunk tables, the Qdrant collection, the repo registry."""
