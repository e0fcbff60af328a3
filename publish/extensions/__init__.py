"""The book build's own Sphinx extensions, loaded by module name from _config.yml
(``sphinx.local_extensions``, with the repository's root as their path): each module's
docstring says what it does and why."""
