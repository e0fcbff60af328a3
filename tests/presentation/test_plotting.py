"""The book's figure style (companion/core/plotting.py): seaborn's theme written as data, so
that a chapter need not import seaborn, must stay what seaborn itself sets."""

import matplotlib as mpl
import matplotlib.colors as mcolors
import pytest

from companion.presentation import plotting


def _normalized(value):
    """A setting as comparable data: colours as RGBA tuples, a colour cycle as its colours."""
    if hasattr(value, "by_key"):
        return [mcolors.to_rgba(c) for c in value.by_key()["color"]]
    if isinstance(value, str) and mcolors.is_color_like(value) and not value.isalpha():
        return mcolors.to_rgba(value)
    return value


@pytest.fixture
def color_codes():
    """matplotlib's colour codes ("b", "k", ...), restored after the test."""
    saved = dict(mcolors.colorConverter.colors)
    yield mcolors.colorConverter.colors
    mcolors.colorConverter.colors.clear()
    mcolors.colorConverter.colors.update(saved)


def test_seaborn_whitegrid_is_what_seaborn_sets(color_codes):
    sns = pytest.importorskip("seaborn")
    with mpl.rc_context():
        mpl.rcdefaults()
        before = dict(mpl.rcParams)
        sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
        theirs = {k: v for k, v in mpl.rcParams.items() if v != before[k]}
        their_codes = {c: color_codes[c] for c in "bgrmyck"}
    theirs.pop("image.cmap")        # seaborn's "rocket": left out on purpose (docstring)
    assert set(theirs) == set(plotting.SEABORN_WHITEGRID)
    for key, value in theirs.items():
        assert _normalized(plotting.SEABORN_WHITEGRID[key]) == _normalized(value), key
    ours = {c: mcolors.to_rgb(v) for c, v in plotting.COLOR_CODES.items()}
    assert ours == {c: tuple(v) for c, v in their_codes.items()}


def test_set_book_style_sets_the_theme_and_the_book_sizes(color_codes):
    with mpl.rc_context():
        mpl.rcdefaults()
        plotting.set_book_style()
        assert mpl.rcParams["axes.grid"] and mpl.rcParams["axes.edgecolor"] == ".8"
        assert mpl.rcParams["axes.prop_cycle"].by_key()["color"][:2] == ["#0173B2", "#DE8F05"]
        assert mpl.rcParams["figure.figsize"] == list(plotting.FIGSIZE)
        assert mpl.rcParams["font.size"] == 11 and mpl.rcParams["legend.title_fontsize"] == 12
        assert mcolors.to_rgb("k") == (0.1, 0.1, 0.1)
        once = dict(mpl.rcParams)
        plotting.set_book_style()       # idempotent
        assert dict(mpl.rcParams) == once
