"""Tests of pdanon.compat.cp2025 against the reference library cp2025."""
