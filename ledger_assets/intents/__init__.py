"""Each chunk's intent, layer and pattern: the Groq analyser, the keyless one, and the stage that picks."""
