"""The companion's core: what every chapter stands on.

The model and its data (``validation``, ``gaussian``, ``activations``, ``targets``), the
network and its two gradient steps (``network``), spectra and the top singular triplets
(``spectra``, ``lanczos``), alignments (``alignment``), a ridge readout on the learned
features (``readout``), the companion's theory and its finite-N prediction (``spikes``,
``expansion``, ``theory``, ``finite_n``), results and the stored runs (``runs``, ``store``,
``experiment``, ``sweep``, ``cache``), and what every chapter uses to show them (``book``:
numbers for prose; ``plotting`` and ``figures``: the figures' style and shared pieces;
``answers``: how an exercise's answer is compared).
Core imports no chapter (an import-linter contract in pyproject.toml)."""
