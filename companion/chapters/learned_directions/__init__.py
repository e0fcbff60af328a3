"""The chapter book/learned_directions.ipynb, "What each outlier learns"."""
