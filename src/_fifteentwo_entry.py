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
        _listen()
        with contextlib.suppress(RuntimeError):  # (no new thread at the interpreter's exit)
            _thread.start_new_thread(_press_again, ())
        return
    sys.__unraisablehook__(unraisable)


_heard: list[bool] = []
"""Set once the Ctrl-C pressed again reached the program (`_listen`)."""


def _listen() -> None:
    """Until the Ctrl-C pressed again reaches the program, a SIGINT handler (in front of the
    one in place) notes that it did: a press can be lost (one that lands while the main thread
    is still in this hook, or just before it starts a read that then waits), and
    `_press_again` presses until one is heard. Only the main thread may set handlers; from
    another, one press is all there is."""
    import signal
    from types import FrameType

    _heard.clear()
    before = signal.getsignal(signal.SIGINT)

    def heard(signum: int, frame: FrameType | None) -> None:
        if _in_hook(frame):
            return  # raised here it would be dropped again: the next press comes
        _heard.append(True)
        signal.signal(signal.SIGINT, before)
        if callable(before):
            before(signum, frame)
        elif before != signal.SIG_IGN:
            raise KeyboardInterrupt

    with contextlib.suppress(ValueError, TypeError):
        signal.signal(signal.SIGINT, heard)
        return
    _heard.append(True)  # (not the main thread: one press, unchecked)


def _in_hook(frame: object) -> bool:
    """Whether ``frame`` is `_interrupt_again`'s or called from it."""
    while frame is not None:
        if getattr(frame, "f_code", None) is _interrupt_again.__code__:
            return True
        frame = getattr(frame, "f_back", None)
    return False


def _press_again() -> None:
    """Ctrl-C once more, to the main thread (a read it waits in ends, as for a real one), every
    tenth of a second until the program has heard it (`_listen`), for at most a minute; one
    press where that cannot be known. (`signal` is imported here, not at the start: the less
    this module loads before `main`'s ``try``, the less of the start a Ctrl-C can land in
    unguarded.)"""
    import signal
    import time

    for _ in range(600):
        if hasattr(signal, "pthread_kill"):
            signal.pthread_kill(_main_thread[0], signal.SIGINT)
        else:  # (Windows)
            _thread.interrupt_main()
        time.sleep(0.1)
        if _heard:
            return


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
