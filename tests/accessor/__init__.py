"""Tests of the DataFrame accessor (df.anon): the anonymizers and their generic behaviour."""
