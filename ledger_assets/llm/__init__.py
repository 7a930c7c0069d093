"""The LLM client: one Groq chat completion with retries, a price table and a spend cap (intents and rerank)."""
