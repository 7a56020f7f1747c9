"""Tests of pdanon.dask."""
