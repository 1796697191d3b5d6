"""Near-duplicate texts across a crawl: word shingles, MinHash, banded LSH, and the stores of
what was seen (memory ring, Redis)."""
