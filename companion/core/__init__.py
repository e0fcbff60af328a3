"""The companion's core: the science every chapter stands on.

The model and its data (``validation``, ``gaussian``, ``activations``, ``targets``), the
network and its two gradient steps (``network``), spectra and the top singular triplets
(``spectra``), alignments (``alignment``), a ridge readout on the learned features
(``readout``), the companion's theory and its finite-N prediction (``spikes``,
``expansion``, ``theory``, ``finite_n``), results and the stored runs (``runs``,
``intervals``, ``store``, ``experiment``, ``sweep``, ``cache``, ``blas``). How the book shows
them lives in :mod:`companion.presentation`, the course's answer key in
:mod:`companion.course`; the core imports neither, nor any chapter (import-linter contract
"layers" in pyproject.toml)."""
