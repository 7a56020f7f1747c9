"""pdanon's tests, laid out like the package (see CONTRIBUTING.md)."""
