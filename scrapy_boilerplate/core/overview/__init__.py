"""Overview pages: page evidence (evidence.py) and OverviewDetector -> OverviewVerdict (detector.py)."""
