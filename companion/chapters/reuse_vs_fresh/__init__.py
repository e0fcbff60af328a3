"""The chapter book/reuse_vs_fresh.ipynb, "Reused versus fresh batches"."""
