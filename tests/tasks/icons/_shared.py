"""Helpers shared by the oracles of several icons grammars (moved from the old tests/oracles_*.py modules)."""
from __future__ import annotations


PANEL_KEYS = ("icon", "color", "size", "count", "angle")
