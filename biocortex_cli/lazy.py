"""``contextlib.contextmanager``, with ``contextlib`` imported when a context is first entered.

``contextlib`` costs ~3 M instructions to import (docs/performance.md, "Seventh round"), and
``fact verify`` and ``recall`` import the modules that define the vault's write lock, its
transaction and the index's write transaction without entering any of them while the index is
fresh. mypy sees ``contextlib.contextmanager`` itself.
"""

TYPE_CHECKING = False  # mypy takes it as True
if TYPE_CHECKING:
    from contextlib import contextmanager as contextmanager
else:
    from functools import update_wrapper

    def contextmanager(func):
        made = None

        def start(*args, **kwargs):
            nonlocal made
            if made is None:
                from contextlib import contextmanager as made_by

                made = made_by(func)
            return made(*args, **kwargs)

        return update_wrapper(start, func)
