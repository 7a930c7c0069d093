"""The ingest stages: snapshot -> chunks -> intents -> embeddings -> points, and the checks that gate them."""
