"""A player for plain mode in tests: reads up to each prompt and answers it.

`Answerer` decides answers from the prompt alone (plus whether the last answer was refused), so
the same answers drive an in-process game (`play_in_process`, with `ScriptedStdin`) and a real
subprocess (`drive_subprocess`, through pipes). Refusals are recognised by plain mode's shape:
a refused answer gets exactly one line and then the same kind of prompt again.
"""

from __future__ import annotations

import io
import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fifteentwo.app.history import History
from fifteentwo.app.options import PlayOptions, SessionFactory
from fifteentwo.app.plain import run_plain
from fifteentwo.app.saves import open_game_store
from fifteentwo.app.session import Session
from fifteentwo.cards import Card, parse_cards
from fifteentwo.scoring import score_hand
from fifteentwo.store import Store

PROMPT_ENDINGS = (": ", "? ")
STUCK_SECONDS = 120
"""Give up on a subprocess that shows no prompt for this long (a hang, not a slow test)."""


class Stop(Exception):
    """Raised by an override to end input (EOF) at that prompt."""


@dataclass
class Answerer:
    """Answers every plain-mode prompt; ``overrides`` map a prompt start to an answer or a
    callable ``(prompt, refusals) -> answer``; an answer of None means end of input."""

    overrides: dict[str, str | Callable[[str, int], str | None] | None] = field(
        default_factory=dict
    )
    stop_after: int | None = None
    """End input (EOF) once this many answers were given."""
    log: list[tuple[str, str]] = field(default_factory=list)
    refusals: int = 0

    def answer(self, prompt: str, since: str) -> str | None:
        """The answer to ``prompt``; ``since`` is the output after the previous answer."""
        assert prompt.endswith(PROMPT_ENDINGS), f"not a prompt: {prompt!r}"
        assert "\n" not in prompt
        lines = since.split("\n")
        refused = len(lines) == 2 and bool(self.log) and self.log[-1][0] == prompt
        self.refusals = self.refusals + 1 if refused else 0
        if self.stop_after is not None and len(self.log) >= self.stop_after:
            return None
        for start, given in self.overrides.items():
            if prompt.startswith(start):
                result = given(prompt, self.refusals) if callable(given) else given
                break
        else:
            result = self.default(prompt)
        if result is not None:
            self.log.append((prompt, result))
        return result

    def default(self, prompt: str) -> str:
        """Plain answers that finish any game: first cards by position, honest counts."""
        k = self.refusals
        if prompt.startswith("Play a card"):
            return f"#{k + 1}"
        if prompt.startswith("Lay away"):
            n = int(prompt.split()[2])
            return " ".join(f"#{i + 1}" for i in range(n))
        if prompt.startswith("Cut"):
            return "10"
        if prompt.startswith("Count your"):
            return str(honest_count(prompt))  # a claim is final: the true count
        if prompt.startswith(("Take the", "Call muggins")):
            return "y"
        if prompt.startswith("Short game"):
            return "s"
        if prompt.startswith(("Do you need instructions", "Another game", "Resume it")):
            return "n"
        raise AssertionError(f"unexpected prompt {prompt!r}")


def honest_count(prompt: str) -> int:
    """The true count of the hand or crib a "Count your hand (5S 6D 6S 10H, starter 4D): "
    prompt shows (the standard rules' count)."""
    inside = prompt[prompt.index("(") + 1 : prompt.rindex(")")]
    cards, starter = inside.split(", starter ")
    crib = prompt.startswith("Count your crib")
    return score_hand(parse_cards(cards.replace(",", " ")), Card.parse(starter), crib=crib).total


class ScriptedStdin(io.TextIOBase):
    """stdin for an in-process game: each readline asks the `Answerer` about the last prompt."""

    def __init__(self, out: io.StringIO, answerer: Answerer) -> None:
        self.out = out
        self.answerer = answerer
        self.mark = 0
        self.prompts = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        text = self.out.getvalue()
        prompt = text[text.rfind("\n") + 1 :]
        answer = self.answerer.answer(prompt, text[self.mark :])
        self.prompts += 1
        if answer is None:
            return ""
        self.mark = len(text) + len(answer) + 1  # plain mode echoes piped answers
        return answer + "\n"


@dataclass
class Played:
    """What an in-process sitting left behind."""

    code: int
    transcript: str
    answerer: Answerer
    history: History
    store: Store


def play_in_process(
    options: PlayOptions,
    data_dir: Path,
    answerer: Answerer | None = None,
    *,
    resume: Session | None = None,
    offer: Session | None = None,
) -> Played:
    """Run plain mode on string streams with the session wiring the CLI uses."""
    answerer = answerer or Answerer()
    out = io.StringIO()
    store = open_game_store(data_dir / "fifteentwo.sqlite3")
    history = History(store=store)
    factory = SessionFactory(options, store=store)
    code = run_plain(
        options,
        factory,
        resume=resume,
        offer=offer,
        stdin=ScriptedStdin(out, answerer),
        stdout=out,
    )
    return Played(code, out.getvalue(), answerer, history, store)


def drive_subprocess(
    args: Sequence[str],
    answerer: Answerer,
    env: dict[str, str],
    *,
    interrupt_at: str | None = None,
) -> tuple[int, str, str]:
    """Run ``python -m fifteentwo ARGS`` and answer its prompts through pipes.

    With ``interrupt_at``, the first prompt starting so gets Ctrl-C (SIGINT) instead of an
    answer. Returns the exit code, all of stdout and all of stderr.
    """
    proc = subprocess.Popen(
        [sys.executable, "-m", "fifteentwo", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    fd = proc.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    out = b""
    mark = 0
    try:
        while True:
            if not sel.select(STUCK_SECONDS):
                raise AssertionError(f"no output for {STUCK_SECONDS}s after:\n{out.decode()}")
            chunk = os.read(fd, 65536)
            if not chunk:
                break  # the program ended
            out += chunk
            text = out.decode()
            if not text.endswith(PROMPT_ENDINGS):
                continue
            prompt = text[text.rfind("\n") + 1 :]
            if interrupt_at is not None and prompt.startswith(interrupt_at):
                proc.send_signal(signal.SIGINT)  # it is blocked reading the answer
                interrupt_at = None
                continue
            answer = answerer.answer(prompt, text[mark:])
            if answer is None:
                proc.stdin.close()
                continue
            data = (answer + "\n").encode()
            proc.stdin.write(data)
            proc.stdin.flush()
            mark = len(text) + len(data)
    finally:
        sel.close()
        if not proc.stdin.closed:
            proc.stdin.close()
    err = proc.stderr.read().decode()
    code = proc.wait()
    return code, out.decode(), err
