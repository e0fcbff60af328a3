"""Numbers as a reader writes them (companion/presentation/book.py): powers of ten typeset,
never a program's notation; intervals at the estimate's precision; percentages."""

import re

import numpy as np
import pytest

from companion.presentation.book import fmt, fmt_estimate, fmt_percent, power

PROGRAM_NOTATION = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize("value,digits,text", [
    (1e5, 3, "10⁵"), (1.23e5, 2, "1.2 × 10⁵"), (-3.2e7, 2, "-3.2 × 10⁷"),
    (6.81e-6, 2, "6.8 × 10⁻⁶"), (2e-6, 3, "2 × 10⁻⁶"), (0.00098, 2, "0.00098"),
    (2600.0, 2, "2600"), (12345.6, 3, "12300"), (0.6057, 3, "0.606"), (-1e-17, 3, "0"),
    (8192, 3, "8192"), (float("nan"), 3, "n/a"),
])
def test_fmt_writes_numbers_as_a_reader_does(value, digits, text):
    assert fmt(value, digits) == text


def test_no_magnitude_prints_in_program_notation():
    for x in np.logspace(-12, 12, 97):
        for sign in (1, -1):
            for digits in (1, 2, 3, 4):
                assert not PROGRAM_NOTATION.search(fmt(sign * x, digits)), (x, digits)


def test_powers_percentages_and_intervals():
    assert power(2, 14) == "2¹⁴" and power(10, -3) == "10⁻³"
    assert fmt_percent(0.4382) == "44%" and fmt_percent(0.0031) == "0.31%"
    assert fmt_estimate(0.39, 0.38, 0.40) == "0.39 [0.38, 0.40]"
    assert fmt_estimate(0.0512, 0.030, 0.066) == "0.051 [0.030, 0.066]"
    assert fmt_estimate(0.22, 0.181, 0.262, signed=True) == "+0.22 [+0.18, +0.26]"
    # the ends are told apart: one more decimal where the estimate's precision merges them
    assert fmt_estimate(0.5, 0.501, 0.504) == "0.500 [0.501, 0.504]"
