"""The introduction's numbers (companion/chapters/intro/summaries.py): its step-size points."""

from __future__ import annotations

from companion.chapters.intro import summaries as intro_numbers
from companion.core.theory import lambda_count, n_spikes


def test_step_sizes_mark_the_knife_edge_of_the_spike_point():
    """(0.38, 0.45) is on no line, but its k = 4 term has exponent -0.03 (issue 19)."""
    out = intro_numbers.step_sizes()
    assert out.edge_k == "4" and out.edge_exponent == "-0.03" and out.knife_edge == "0.05"
    assert out.line_k == "3" and out.exponent_k3 == "+0.09"


def test_step_sizes_read_the_points_the_prose_names():
    """(0.20, 0.45) has one odd term (no new outlier with tanh, no He_3); (0.35, 0.45) lies
    on the line k = 3 with its k = 2 term well inside its region."""
    out = intro_numbers.step_sizes()
    assert out.lambda_low == "1" and n_spikes(0.20, 0.45, "tanh") == 1
    assert out.lambda_high == str(lambda_count(0.35, 0.45)) == "3"
    assert out.exponent_k2 == "+0.15"
