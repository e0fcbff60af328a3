"""What a course needs beside the chapters: the exercises' hashed answers (``answers``),
which :mod:`companion.exercises` checks a student's answer against. The core never imports
it (import-linter contract "layers")."""
