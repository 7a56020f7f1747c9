"""Helpers shared by test modules: straightforward reference implementations that property
tests compare the fast code against, and cp2025 table helpers. Test modules import from here,
never from each other."""
