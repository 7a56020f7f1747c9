"""``cp2025.algorithms``: one module per classic class, re-exporting :mod:`pdanon.algorithms`."""
