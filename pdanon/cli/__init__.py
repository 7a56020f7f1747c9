"""The command line: ``pdanon anonymize`` and the reference's ``depersonalize``.

``anonymize`` is ``pdanon anonymize`` (named columns, every algorithm and privacy model, a
policy, the report, a config file; it writes through :func:`pdanon.release.publish_files`),
``config`` reads and writes its TOML config and policy, ``household`` and the other small
modules hold groups of its flags, ``common`` what both commands share (exit codes, reading a
table, one-line errors). ``depersonalize`` is the reference library's command line
(``python -m pdanon.cli`` runs it).

May import: everything below the faces. Nothing imports it but ``pdanon.__main__``,
``pdanon.compat`` and the console scripts.
"""


def main(argv=None):
    """The ``depersonalize`` command (:func:`pdanon.cli.depersonalize.main`)."""
    from pdanon.cli.depersonalize import main as run

    return run(argv)
