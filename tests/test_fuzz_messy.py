"""Fuzz: every anonymizer on messy frames returns a verified table or raises a pdanon error,
within a time limit, and never mutates its input (see tests/_helpers/messy.py for what a messy
frame holds). ``benchmarks/fuzz_messy.py`` runs the same cases for longer."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._helpers.messy import call_cases, check_call, messy_frames


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_anonymizer_on_messy_frames(data):
    df = data.draw(messy_frames())
    if df.shape[1] == 0:
        return
    case = data.draw(call_cases(df))
    check_call(df, case)
