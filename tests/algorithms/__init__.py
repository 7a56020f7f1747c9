"""Tests of the classic API (pdanon.algorithms) and the reference documentation's examples."""
