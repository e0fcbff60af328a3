"""The numbers each chapter quotes in its prose, one function per reported group of numbers.

A chapter's markdown names its numbers with ``{eval}`` roles, for example
{eval}`headline.spikes_last`; the chapter computes ``headline`` in one visible line,
``headline = summaries.intro.headline(spikes, projection)``. Each function here returns a
:class:`companion.book.Numbers` (values formatted for prose, ``"n/a"`` where the stored runs
are absent), so that the book (MyST-NB) and JupyterLab (jupyterlab-myst) show the same text,
and each is tested. One module per chapter; a table that a chapter, a figure and the explorer
all report is computed here once.
"""

from . import finite_size, intro, one_step, reuse_vs_fresh, two_steps

__all__ = ["intro", "one_step", "two_steps", "reuse_vs_fresh", "finite_size"]
