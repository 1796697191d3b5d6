"""Article metadata: title, authors, dates, language, site name, from JSON-LD, <meta>, bylines and URLs."""
