"""Tests of pdanon.partition."""
