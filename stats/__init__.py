"""stats: execute exactly the locked analysis plan over run records (no torch needed)."""
