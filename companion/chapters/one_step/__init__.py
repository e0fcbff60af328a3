"""The chapter book/one_step.ipynb, "One step: a rank-one spike"."""
