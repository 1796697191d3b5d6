"""Scoring the blocks: features, text-to-tag ratios (CETR, TextSweeper), the model (JSON, numpy), the decoder."""
