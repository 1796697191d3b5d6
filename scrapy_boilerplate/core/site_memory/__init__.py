"""Site memory: per-site template evidence and its stores (memory LRU, Redis, a crawl process's server)."""
