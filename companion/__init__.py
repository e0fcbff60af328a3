"""companion: the numerics of the executable companion to Moniri & Hassani,
"Feature Learning in Linear-Width Two-Layer Networks: Two vs. One Step of Gradient Descent"
(arXiv 2605.17767). Docstrings cite the book's labels as ``(book: dv-expansion)``: each is
a box or section of the book (most on its page "The derivations in one place",
book/derivations.md), and tests/test_labels.py checks that every cited label exists."""

from companion.core.activations import (
    Activation,
    get_activation,
    hermite_activation,
    shifted_tanh,
)
from companion.core.alignment import (
    a_power_basis,
    cos2_with_directions,
    left_overlaps,
    subspace_projection,
    term_sizes,
)
from companion.core.network import (
    TwoStepRun,
    correlation_loss,
    descent_direction,
    init_network,
    run_two_steps,
    step_size,
    two_step_update,
)
from companion.core.spectra import (
    count_outliers,
    count_outliers_against_null,
    mp_edges,
    mp_singular_value_density,
    singular_values,
    top_singular,
    top_singular_each,
    top_singular_values,
)
from companion.core.spikes import count_spikes, separate_strengths, spike_census
from companion.core.targets import Link, Target, make_link, make_target, target_moments
from companion.core.theory import (
    first_direction_alignment,
    is_learnable,
    lambda_boundary,
    lambda_count,
    n_spikes,
    nearest_line,
    one_step_prediction,
    one_step_theta,
    phase_line,
    phase_region,
    predicted_spike_cos2,
    present_terms,
    spike_exponent,
    spiked_rectangular,
    term_exists,
    u1_alignment,
)

__version__ = "0.1.0"
