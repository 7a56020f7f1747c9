"""``python -m pdanon.cli``: the reference's ``depersonalize`` command."""

import sys

from pdanon.cli.depersonalize import main

sys.exit(main())
