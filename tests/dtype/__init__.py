"""Tests of pdanon.dtype."""
