"""Что нарисовано на кадре виджета: данные артистов и где кадр поменялся (общее для tests/test_widgets*.py)."""

import numpy as np


def shown(image):
    """Данные картинки (imshow) как массив; спрятанные маской клетки — nan."""
    data = image.get_array()
    return np.ma.filled(np.ma.asarray(data, dtype=float), np.nan)


def assert_shows(image, weights, mask=None):
    """Картинка показывает ровно эти веса (и прячет ровно клетки вне маски)."""
    expected = np.asarray(weights, dtype=float)
    if mask is not None:
        expected = np.where(mask, expected, np.nan)
    assert np.array_equal(shown(image), expected, equal_nan=True), "на картинке не те веса, что в виде"


def heights(bars):
    return np.array([bar.get_height() for bar in bars])


def changed_pixels(before, after):
    """Булева маска (H, W) пикселей, которые отличаются."""
    return (np.asarray(before) != np.asarray(after)).any(axis=-1)


def pixels_of(fig, artists, pad=2):
    """Маска (H, W) пикселей, которые занимают артисты (их рамки на холсте), с запасом pad."""
    renderer = fig.canvas.get_renderer()
    height, width = int(fig.bbox.height), int(fig.bbox.width)
    inside = np.zeros((height, width), dtype=bool)
    for artist in artists:
        box = artist.get_window_extent(renderer)
        x0, x1 = int(np.floor(box.x0)) - pad, int(np.ceil(box.x1)) + pad
        top, bottom = height - int(np.ceil(box.y1)) - pad, height - int(np.floor(box.y0)) + pad
        inside[max(top, 0):max(bottom, 0), max(x0, 0):max(x1, 0)] = True
    return inside


def assert_changes_only_inside(before, after, allowed):
    """Кадр поменялся, и только в пикселях `allowed` (маска (H, W): где артисты стояли до и после)."""
    changed = changed_pixels(before, after)
    assert changed.any(), "кадр не поменялся"
    outside = changed & ~allowed
    assert not outside.any(), f"{int(outside.sum())} пикселей поменялись вне ожидаемых мест"
