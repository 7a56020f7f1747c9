"""Tests of pdanon.parties."""
