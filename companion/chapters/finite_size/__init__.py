"""The chapter book/finite_size.ipynb, "Finite size, honestly"."""
