"""``tm.nn``: neural-network functions (being written)."""
