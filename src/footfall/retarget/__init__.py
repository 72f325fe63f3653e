"""Retargeting motion capture onto any humanoid avatar (seed 001)."""
