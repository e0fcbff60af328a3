"""The chapter book/intro.ipynb, "Introduction: two steps versus one"."""
