"""The book's figures, one module per chapter and one function per figure.

A figure function takes :class:`companion.runs.Runs` (a chapter's own runs, or the stored
paper-scale runs of :func:`companion.store.load`, or both: the chapter's runs drawn with the
stored ones overlaid) and returns a matplotlib Figure in the book's style
(:mod:`companion.plotting`). The chapters call them, and so does ``python -m companion
reproduce`` for its report figures: every figure is drawn by exactly one function.
"""
