"""``python -m publish COMMAND [ARGS]``: the book's publishing commands, from the repository's
root (each is also ``python -m publish.<module>``)."""

from __future__ import annotations

import importlib
import sys

#: command -> (module of publish/, what it does)
COMMANDS = {
    "editions": ("editions", "every edition from the sources: plain, JupyterLab, student"),
    "plain": ("plain_edition", "the plain edition, book/plain/ (committed)"),
    "jupyterlab": ("jupyterlab", "the JupyterLab reading, into a copy (--out DIR | --in-place)"),
    "execute": ("execute_chapter", "run chapters, store their outputs and prose values"),
    "student": ("student_edition", "the student edition, _build/student/"),
    "assignments": ("assignments", "otter-grader assignments, _build/assignments/"),
    "course": ("course_folder", "a course folder, _build/course/"),
    "pdf": ("book_pdf", "the built book as one PDF, _build/pdf/book.pdf (make book first)"),
    "wheel": ("wheel", "the package's wheel"),
    "answer-key": ("answer_key", "the exercises' hashed answer key"),
    "exercise-table": ("exercise_table", "the instructors' page's table of exercises"),
    "reading-time": ("reading_time", "each chapter's words and reading time"),
    "repository-url": ("repository_url", "the repository's address in every copy"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        width = max(map(len, COMMANDS))
        print("usage: python -m publish COMMAND [ARGS]   (COMMAND --help for its own)\n")
        for name, (_, what) in COMMANDS.items():
            print(f"  {name:{width}}  {what}")
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    module = importlib.import_module(f"publish.{COMMANDS[argv[0]][0]}")
    return module.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
