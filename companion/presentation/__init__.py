"""How the book shows the science: numbers as the prose writes them (``book``), the figures'
style and shared drawing helpers (``plotting``, ``figures``). It reads the core and never
decides a number; the core never imports it (import-linter contract "layers")."""
