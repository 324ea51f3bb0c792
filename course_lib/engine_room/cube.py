"""x³ для GELU (урок 09) двумя умножениями, со своим backward."""


def fast_cube(x):
    """То же, что `x ** 3`, только быстрее: NumPy считает x**3 общим pow, в ~50 раз дольше, чем x·x·x.

    На входе FFN урока 09 это 7.5 мс против 0.15 мс. Квадрат NumPy и так считает быстро, а он
    нужен и здесь, и в производной 3x², поэтому его посчитаем один раз.
    """
    square = x.data * x.data
    out = x._child(square * x.data)
    out._backward = lambda g: (g * 3 * square,)       # d(x³)/dx = 3x²
    return out
