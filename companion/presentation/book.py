"""What a chapter page needs besides the science: one formatter for every printed or quoted
number, the prose's numbers as values both renderers show, and figures that show wherever
the notebook runs.

* :func:`fmt` and :func:`fmt_signed` round a number for prose and tables. Every number a
  chapter prints or quotes goes through them, so that nbval, which compares the stored
  outputs with a fresh run, sees the same text on any CPU and BLAS: a few significant
  digits, and never a negative zero (a zero moment of tanh prints as ``0``, whatever the
  sign of its last bit).
* :class:`Numbers` holds the numbers a section quotes, for ``{eval}`` roles in the prose
  (book/CONVENTIONS.md, "Numbers"); :class:`Shown` makes each show without quotes in the
  book (MyST-NB) and in JupyterLab (jupyterlab-myst).
* :func:`show` displays a figure and closes it; the book numbers and captions it from the
  drawing cell's metadata (book/CONVENTIONS.md, "Figures").
"""

from __future__ import annotations

import math
import numbers

import numpy as np

#: below this absolute value a number prints as zero (rounding noise of a sum)
ZERO = 1e-12


def _clean(x: float, digits: int) -> float:
    """Round to ``digits`` significant digits; a result that rounds to zero is +0.0."""
    x = float(x)
    if not math.isfinite(x):
        return x
    if abs(x) < ZERO:
        return 0.0
    r = float(f"{x:.{digits}g}")
    return 0.0 if r == 0 else r


_SUPERSCRIPT = str.maketrans("-0123456789",
                             "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")

#: from this magnitude on (and below SMALL), a number is written with a power of ten
LARGE, SMALL = 1e5, 1e-4


def power(base: int, exponent: int) -> str:
    """``base`` to an integer power as a reader writes it: ``power(2, 14) -> "2¹⁴"``."""
    return f"{int(base)}{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _scientific(v: float, digits: int) -> str:
    """``v`` as mantissa times a power of ten, ``1.2 × 10⁵`` (``10⁵`` for a mantissa of 1)."""
    mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    ten = power(10, int(exponent))
    if mantissa in ("1", "-1"):
        return ("-" if mantissa == "-1" else "") + ten
    return f"{mantissa} \u00d7 {ten}"


def fmt(x, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits for prose (``0.6057 -> "0.606"``, integers as
    integers, ``-1e-17 -> "0"``, NaN -> ``"n/a"``); an array becomes a comma-separated list.
    Below 10⁻⁴ and from 10⁵ on a power of ten is written as a reader writes it
    (``1.2e5 -> "1.2 × 10⁵"``, ``1e-6 -> "10⁻⁶"``), never in a program's notation."""
    if isinstance(x, (list, tuple, np.ndarray)):
        return ", ".join(fmt(v, digits) for v in np.ravel(x))
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, numbers.Integral):
        return str(int(x))
    if x is None or (isinstance(x, numbers.Real) and math.isnan(float(x))):
        return "n/a"
    v = _clean(x, digits)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v != 0 and not SMALL <= abs(v) < LARGE:
        return _scientific(v, digits)
    text = f"{v:.{digits}g}"
    if "e" in text:                              # 12345 at 3 digits: 1.23e4, written out
        return f"{v:.0f}"
    return text


def fmt_percent(x, digits: int = 2) -> str:
    """A fraction as a percentage with ``digits`` significant digits (``0.4382 -> "44%"``,
    ``0.0031 -> "0.31%"``, ``4.382 -> "440%"`` as ``"4.4 times"`` reads better: use
    :func:`fmt` for ratios above one)."""
    return f"{fmt(100 * float(x), digits)}%"


def fmt_estimate(estimate, low, high, digits: int = 2, signed: bool = False) -> str:
    """An estimate and its interval at the estimate's precision, ``"0.39 [0.38, 0.40]"``:
    the decimals of ``digits`` significant digits of the estimate (at least those that
    tell the interval's ends apart), for all three numbers."""
    est = float(estimate)
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(est))))) if est else digits
    while decimals < 8 and fmt_fixed(low, decimals) == fmt_fixed(high, decimals) \
            and float(low) != float(high):
        decimals += 1
    return f"{fmt_fixed(est, decimals, signed)} {fmt_interval(low, high, decimals, signed)}"


def fmt_fixed(x, decimals: int = 2, signed: bool = False) -> str:
    """``x`` with a fixed number of decimals (``signed``: always a sign, except for zero:
    a slope of ``-0.001`` prints as ``0.00``, not ``-0.00``)."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    text = f"{x:+.{decimals}f}" if signed else f"{x:.{decimals}f}"
    if float(text) == 0:
        return f"{0:.{decimals}f}"
    return text


def fmt_ratio(x) -> str:
    """A ratio for prose: a whole number from 10 on (``192``), else two digits (``3.4``)."""
    x = float(x)
    return fmt(int(round(x))) if math.isfinite(x) and x >= 10 else fmt(x, 2)


def fmt_signed(x, decimals: int = 2) -> str:
    """A signed number with fixed decimals (a growth exponent: ``+0.15``, ``-0.40``, ``0.00``)."""
    return fmt_fixed(x, decimals, signed=True)


def fmt_span(values, decimals: int = 2, signed: bool = False, unit: str = "") -> str:
    """``"low to high"`` of ``values`` with :func:`fmt_fixed` (one value if they print
    alike)."""
    low, high = (fmt_fixed(v, decimals, signed) + unit for v in (min(values), max(values)))
    return low if low == high else f"{low} to {high}"


def fmt_interval(low, high, decimals: int = 2, signed: bool = False) -> str:
    """``[low, high]`` with :func:`fmt_fixed`."""
    return f"[{fmt_fixed(low, decimals, signed)}, {fmt_fixed(high, decimals, signed)}]"


def show(fig) -> None:
    """Display a figure in the notebook and close it, so that it is not drawn a second time
    at the end of the cell. The book numbers and captions it from the cell's metadata
    (``mystnb.figure``: name and caption; ``mystnb.image``: alt text), which JupyterLab and
    Colab ignore without an error."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    display(fig)
    plt.close(fig)


class Shown(str):
    """A number formatted for the prose. Its ``repr`` is its text, so an ``{eval}`` role
    shows it as it is, in the book (MyST-NB) and in JupyterLab (jupyterlab-myst) alike: no
    quotes, no escaped backslashes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


class Numbers:
    """The numbers a section of a chapter quotes, formatted for prose, as attributes:
    ``ts = Numbers(count=3, slope="+0.15")`` and, in the chapter's markdown,
    {eval}`ts.count`. Strings are kept as they are, anything else goes through :func:`fmt`.
    The functions of each chapter's ``summaries`` module return them (one per reported table or group
    of numbers); a missing name raises an AttributeError that lists the names there are."""

    def __init__(self, **values) -> None:
        shown = {k: Shown(v if isinstance(v, str) else fmt(v)) for k, v in values.items()}
        object.__setattr__(self, "_values", shown)

    def __getattr__(self, name: str) -> Shown:
        values = object.__getattribute__(self, "_values")
        try:
            return values[name]
        except KeyError:
            raise AttributeError(f"no number called {name!r}; there are: "
                                 f"{', '.join(values)}") from None

    def __setattr__(self, name, value):
        raise AttributeError("Numbers are read-only")

    def __dir__(self):
        return list(object.__getattribute__(self, "_values"))

    def as_dict(self) -> dict[str, str]:
        return {k: str(v) for k, v in object.__getattribute__(self, "_values").items()}

    def __repr__(self) -> str:
        values = object.__getattribute__(self, "_values")
        width = max((len(k) for k in values), default=0)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in values.items())
