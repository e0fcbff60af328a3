"""The chapter book/two_steps.ipynb, "Two steps: a spiked spectrum"."""
