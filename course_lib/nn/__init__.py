"""Слои с обучаемыми параметрами: Module, Linear, Embedding, MultiHeadAttention."""

from course_lib.nn.attention import MultiHeadAttention
from course_lib.nn.layers import Embedding, Linear
from course_lib.nn.module import Module

__all__ = ["Module", "Linear", "Embedding", "MultiHeadAttention"]
