"""One package per chapter of the book: its experiments, the numbers its prose quotes, its
figures and its exercises. A chapter imports the core (:mod:`companion.core`), never another
chapter (an import-linter contract in pyproject.toml)."""
