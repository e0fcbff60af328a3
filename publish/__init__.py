"""The book's publishing: every edition generated from the sources, the tools that keep the
chapters and the course material, and the book build's Sphinx extensions.

The sources are the chapters (``book/*.ipynb``, with their stored outputs and prose values),
the pages (``book/*.md``), ``_toc.yml`` and ``_config.yml``; a person writes them, no tool
writes into their Markdown. From them:

* the book: ``jupyter-book build .`` (``make book``), with the extensions of
  ``publish/extensions/`` (_config.yml loads them by module name);
* the editions, by one command, ``python -m publish editions`` (``make editions``): the plain
  edition (``book/plain/``, committed, for Colab and any Jupyter without MyST:
  publish/plain_edition.py), the JupyterLab reading (Binder: publish/jupyterlab.py; into
  ``_build/editions/jupyterlab/``, or in place in Binder's copy) and the student notebooks
  (``_build/student/notebooks/``: publish/student_edition.py);
* the course material: the student edition's book (``make student``), the autograded
  assignments (``make assignments``), a course folder (``make course``).

publish/sources.py reads the table of contents and holds the one grammar of the MyST the
chapters use; publish/book.py names every label as the book does. The package lives in the
repository and is not installed: ``python -m publish ...`` from the repository's root, the
tests through pytest's ``pythonpath``, the build through ``local_extensions``. ``python -m
publish`` lists the commands.
"""
