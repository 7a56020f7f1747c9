"""Tests of pdanon.metrics."""
