"""Виджет без Jupyter (widgets/frames.py): кадр `frame()`, перебор без перерисовки `quiet()`, запись показов
`recording_shown()`. Ими пользуется сборщик сайта: кадр на странице должен быть тем, что виджет показал бы
после настоящего сдвига ползунка, а перебор — не оставлять на показанном виджете следов."""

import base64
import threading

import numpy as np
import pytest

from course_lib import widgets as W

SENTENCE = "кот сел на тёплый коврик и смотрел в окно"      # 9 слов: T от 1 до 9


def shown_picture(explorer):
    """Что видит ученик: HTML картинки, подпись, сообщение и PNG для тех, у кого виджеты не работают."""
    png = explorer._repr_mimebundle_()["image/png"]
    return explorer.image.value, explorer.caption.value, explorer.message.value, png


def png_pixels(encoded):
    import io

    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(encoded))).convert("RGB"))


# ---------------------------------------------------------------- frame()

MOVES = [
    # (виджет, сдвиги по порядку): T и «голов» меняют раскладку, «запрос №» — только данные, T тянет за собой query.max
    (lambda: W.attention_explorer(sentence=SENTENCE, heads=2), [("T", 6), ("heads", 3), ("query", 4), ("head", 2)]),
    (lambda: W.causal_explorer(T=6), [("T", 4), ("causal", False), ("query", 2)]),
    (lambda: W.attention_explorer(sentence=SENTENCE), [("sentence", "кот сел"), ("query", 1)]),
]


@pytest.mark.parametrize("make, moves", MOVES, ids=["attention", "causal", "sentence"])
def test_frame_is_what_the_live_widget_shows_after_really_moving_the_sliders(make, moves):
    drawn_quietly, moved = make(), make()
    start = drawn_quietly.frame().image
    with drawn_quietly.quiet():
        for name, value in moves:
            drawn_quietly.controls[name].value = value
        frame = drawn_quietly.frame()
    for name, value in moves:                                # тот же путь — настоящими сдвигами, с перерисовкой
        moved.controls[name].value = value
    shown = moved.live.render(moved.state).copy()
    assert not np.array_equal(frame.image, start), "кадр после сдвигов тот же, что в начале: сдвиги не дошли до кадра"
    assert frame.image.shape == shown.shape, f"размер кадра {frame.image.shape}, а виджет показывает {shown.shape}"
    differ = int((frame.image != shown).any(axis=-1).sum())
    assert differ == 0, f"frame() после сдвигов {moves} отличается от живого виджета в {differ} пикселях"
    assert frame.caption == moved.caption.value, "подпись кадра не та, что под живым виджетом"
    assert frame.view.message == moved.state.message


def test_frame_is_a_copy_that_the_next_frame_does_not_overwrite():
    explorer = W.causal_explorer(T=6)
    first = explorer.frame()
    kept = first.image.copy()
    with explorer.quiet():
        explorer.controls["query"].value = 1
        second = explorer.frame()
    assert not np.array_equal(second.image, kept), "запрос №1 и №5 нарисованы одинаково: тест ничего не проверяет"
    assert np.array_equal(first.image, kept), "следующий кадр переписал пиксели прежнего Frame"


# ---------------------------------------------------------------- quiet()

def test_quiet_leaves_positions_and_the_shown_picture_unchanged():
    explorer = W.attention_explorer(sentence=SENTENCE, heads=2)
    values, picture, state = explorer.values(), shown_picture(explorer), explorer.state
    limits = (explorer.controls["T"].max, explorer.controls["query"].max)
    with explorer.quiet():
        explorer.controls["sentence"].value = "кот сел на коврик"
        assert explorer.controls["T"].value == 4, "внутри quiet() sync не сработал: T не пошёл за предложением"
        explorer.controls["heads"].value = 4
        explorer.frame()
        assert explorer.image.value == picture[0], "внутри quiet() виджет перерисовался"
    assert explorer.values() == values, f"после quiet() положения {explorer.values()}, а были {values}"
    assert (explorer.controls["T"].max, explorer.controls["query"].max) == limits, "пределы ползунков не вернулись"
    assert explorer.state is state
    after = shown_picture(explorer)
    assert after[:3] == picture[:3], "после quiet() картинка, подпись или сообщение виджета другие"
    assert np.array_equal(png_pixels(after[3]), png_pixels(picture[3])), "PNG показа — кадр из quiet(), а не виджет"


def test_quiet_restores_positions_after_an_exception_and_redraws_resume():
    explorer = W.causal_explorer(T=6)
    values, image = explorer.values(), explorer.image.value
    with pytest.raises(RuntimeError, match="посреди перебора"):
        with explorer.quiet():
            explorer.controls["T"].value = 3
            raise RuntimeError("посреди перебора")
    assert explorer.values() == values and explorer.image.value == image
    explorer.controls["query"].value = 1                       # после выхода сдвиг снова перерисовывает виджет
    assert explorer.image.value != image and explorer.state.query == 1


def test_nested_quiet_restores_each_level_and_stays_quiet_until_the_outer_exit():
    explorer = W.causal_explorer(T=6)
    values, image = explorer.values(), explorer.image.value
    with explorer.quiet():
        explorer.controls["T"].value = 5
        with explorer.quiet():
            explorer.controls["T"].value = 3
        assert explorer.controls["T"].value == 5, "внутренний quiet() вернул не свои положения"
        assert explorer.image.value == image, "выход из внутреннего quiet() перерисовал виджет"
    assert explorer.values() == values and explorer.image.value == image


# ---------------------------------------------------------------- recording_shown()

def test_recording_collects_exactly_the_shown_explorers_with_positions_at_showing():
    shown_one, hidden, shown_twice = W.causal_explorer(T=6), W.causal_explorer(T=5), W.causal_explorer(T=4)
    with W.recording_shown() as shown:
        shown_one._repr_mimebundle_()
        shown_twice._repr_mimebundle_()
        shown_twice.controls["T"].value = 2                  # сдвиг после показа — не то, что показано
        shown_twice._repr_mimebundle_()
    assert [s.explorer for s in shown] == [shown_one, shown_twice, shown_twice]
    assert all(s.explorer is not hidden for s in shown)
    assert [s.values["T"] for s in shown] == [6, 4, 2], "положения записаны не в момент показа"


def test_recording_stops_after_exit_even_after_an_exception():
    explorer = W.causal_explorer(T=6)
    with pytest.raises(ValueError):
        with W.recording_shown() as shown:
            explorer._repr_mimebundle_()
            raise ValueError("ячейка упала")
    explorer._repr_mimebundle_()
    with W.recording_shown() as later:
        pass
    explorer._repr_mimebundle_()
    assert len(shown) == 1 and later == [], f"после выхода записи пополнялись: {len(shown)} и {len(later)}"


def test_nested_recordings_each_keep_their_own_list():
    """Внутренний блок закрывается — внешний пишет дальше (два пустых списка равны, удалить надо именно свой)."""
    first, second = W.causal_explorer(T=6), W.causal_explorer(T=5)
    with W.recording_shown() as outer:
        with W.recording_shown() as inner:
            first._repr_mimebundle_()
        with W.recording_shown() as empty:
            pass
        second._repr_mimebundle_()
    assert [s.explorer for s in outer] == [first, second]
    assert [s.explorer for s in inner] == [first] and empty == []


def test_recording_sees_only_its_own_thread():
    here, there = W.causal_explorer(T=6), W.causal_explorer(T=5)
    collected = {}

    def other_thread():
        with W.recording_shown() as theirs:
            there._repr_mimebundle_()
        collected["there"] = theirs

    with W.recording_shown() as ours:
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        here._repr_mimebundle_()
    assert [s.explorer for s in ours] == [here], "в запись попал виджет, показанный в другом потоке"
    assert [s.explorer for s in collected["there"]] == [there]


def test_recording_sees_what_ipython_displays():
    """Так исполняет урок сборщик сайта: ячейка в IPython, виджет — последнее выражение или display()."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    first, second = W.causal_explorer(T=6), W.causal_explorer(T=5)
    shell.user_ns.update(first=first, second=second)
    with W.recording_shown() as shown:
        shell.run_cell("from IPython.display import display\ndisplay(first)\nfirst.controls['T'].value = 3\nsecond",
                       store_history=False)
    assert [(s.explorer, s.values["T"]) for s in shown] == [(first, 6), (second, 5)]
