"""Живые виджеты — только из того, что умеет любой менеджер виджетов: ни одного двоичного трейта.

Менеджер Colab не передаёт двоичные буферы (а виджет Image шлёт кадр именно так), поэтому кадр
уходит текстом — data: URL в виджете HTML. Здесь обходится дерево каждого живого виджета курса:
ни у одного виджета нет трейта Bytes, и состояние, которое уходит в браузер, не содержит буферов.
"""

import base64
import io
import re

import ipywidgets as widgets
import numpy as np
import pytest
import traitlets
from ipywidgets.widgets.widget import _remove_buffers
from PIL import Image

from course_lib import widgets as W
from course_lib.props.embeddings import load_corpus, train_static_embeddings
from test_widgets_painters import _history

LIVE = {
    "temperature_heatmap": W.temperature_heatmap,
    "embeddings_explorer": lambda: W.embeddings_explorer(train_static_embeddings(load_corpus("ru"))),
    "softmax_explorer": lambda: W.softmax_explorer([1.0, 0.0, -1.0], ["а", "б", "в"]),
    "soft_search_explorer": W.soft_search_explorer,
    "scaling_explorer": W.scaling_explorer,
    "attention_explorer": W.attention_explorer,
    "permutation_explorer": W.permutation_explorer,
    "causal_explorer": W.causal_explorer,
    "heads_explorer": W.heads_explorer,
    "training_explorer": lambda: W.training_explorer(*_history(5, 0)),
    "online_softmax_explorer": W.online_softmax_explorer,
    "local_window_explorer": W.local_window_explorer,
}


def tree(widget):
    """Виджет и все его потомки (children у контейнеров)."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from tree(child)


@pytest.mark.parametrize("name", LIVE)
def test_no_live_widget_holds_a_bytes_trait(name):
    explorer = LIVE[name]()
    for part in tree(explorer):
        for trait_name, trait in part.traits(sync=True).items():
            assert not isinstance(trait, traitlets.Bytes), f"{name}: {type(part).__name__}.{trait_name} — трейт Bytes"
            assert not isinstance(getattr(part, trait_name), (bytes, bytearray, memoryview)), \
                f"{name}: {type(part).__name__}.{trait_name} держит байты"
        _, _, buffers = _remove_buffers(part.get_state())
        assert buffers == [], f"{name}: {type(part).__name__} шлёт в браузер двоичные буферы"
    assert not any(isinstance(part, widgets.Image) for part in tree(explorer))


def decode(html):
    src = re.search(r'src="data:image/jpeg;base64,([^"]+)"', html).group(1)
    return Image.open(io.BytesIO(base64.b64decode(src)))


def test_the_frame_travels_as_a_data_url_of_the_drawn_picture():
    explorer = W.causal_explorer(T=6)
    html = explorer.image.value
    picture = decode(html)
    height, width = explorer.live.frame.shape[:2]
    assert picture.format == "JPEG" and picture.size == (width, height)
    assert f'width="{width}" height="{height}"' in html and 'class="widget-image"' in html   # 1:1, как раньше
    drawn = np.asarray(explorer.live.frame)[..., :3].astype(int)
    assert np.abs(np.asarray(picture.convert("RGB")).astype(int) - drawn).mean() < 3      # JPEG — почти без потерь
    explorer.controls["query"].value = 1
    assert explorer.image.value != html and decode(explorer.image.value).size == (width, height)


def test_saved_notebook_keeps_a_static_png():
    bundle = W.causal_explorer()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    png = Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))
    assert png.format == "PNG" and png.size[0] > 300
