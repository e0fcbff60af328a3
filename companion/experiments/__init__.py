"""The experiments of the book (SPEC section 4, E1 to E10), one module per chapter.

Each function takes the problem size, seeds and parameters, and returns tidy results
(dicts of numpy arrays or lists of records) that a chapter plots and a test checks at small
size. Chapters call these; nothing here draws a figure.
"""
