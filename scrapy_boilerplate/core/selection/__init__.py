"""What is kept after the decoder: the decoder's mask, then one ordered list of small named steps (steps.py)."""
