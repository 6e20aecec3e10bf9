"""The ``cribbage`` console script: Ctrl-C while the program is still loading exits 130 quietly.

Importing fifteentwo loads numpy, rich and the engine; a KeyboardInterrupt raised during that
import happens before `fifteentwo.cli.main` can catch anything, so this module (outside the
package, importing nothing of ours at load time) does the import inside a ``try``.

A Ctrl-C that lands in a callback the interpreter runs for itself (the weak reference behind
each of importlib's module locks, an object's ``__del__``) cannot propagate from there: the
interpreter prints "Exception ignored in ..." with a traceback and drops it, and the program
goes on as if no key had been pressed. `_interrupt_again` raises it once more in the program
itself, where `main` (or the command) ends quietly with 130.
"""

from __future__ import annotations

import _thread
import contextlib
import sys


def _interrupt_again(unraisable: sys.UnraisableHookArgs) -> None:
    """`sys.unraisablehook`: a KeyboardInterrupt dropped in a callback is raised again in the
    main thread, once this hook has returned (asked for from here, the main thread would raise
    it in the hook, where it is dropped again: a thread of its own asks); anything else is
    reported as the interpreter reports it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        with contextlib.suppress(RuntimeError):  # (no new thread at the interpreter's exit)
            _thread.start_new_thread(_press_again, ())
        return
    sys.__unraisablehook__(unraisable)


def _press_again() -> None:
    """Ctrl-C once more, to the main thread (a read it waits in ends, as for a real one).
    (`signal` is imported here, not at the start: the less this module loads before `main`'s
    ``try``, the less of the start a Ctrl-C can land in unguarded.)"""
    import signal

    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(_main_thread[0], signal.SIGINT)
    else:  # (Windows)
        _thread.interrupt_main()


_main_thread = [_thread.get_ident()]
"""The thread `main` runs in (the program's own)."""


def main() -> int:
    """Import the command and run it; exit 130 on Ctrl-C at any moment of the start."""
    _main_thread[0] = _thread.get_ident()
    sys.unraisablehook = _interrupt_again
    try:
        from fifteentwo.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            print(file=sys.stderr, flush=True)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
