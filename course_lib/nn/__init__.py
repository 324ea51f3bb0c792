"""Слои с обучаемыми параметрами: Module, Linear, Embedding, MultiHeadAttention, LayerNorm, FeedForward, TransformerBlock, KVCache, GPT."""

from course_lib.nn.attention import MultiHeadAttention
from course_lib.nn.block import TransformerBlock
from course_lib.nn.feedforward import FeedForward
from course_lib.nn.gpt import GPT
from course_lib.nn.kv_cache import KVCache
from course_lib.nn.layers import Embedding, Linear
from course_lib.nn.module import Module
from course_lib.nn.norm import LayerNorm

__all__ = ["Module", "Linear", "Embedding", "MultiHeadAttention", "LayerNorm", "FeedForward", "TransformerBlock", "KVCache", "GPT"]
