"""Storage faults and signals, with real processes: a lock held by another process, a read-only
data dir (a read-only bind mount), a full disk (a file-size limit), two sessions on one data
dir, and SIGINT/SIGTERM/end of input at a prompt. Every process is bounded by a timeout."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fifteentwo.app.session import Session
from fifteentwo.store import GameMeta, new_owner, open_store
from fifteentwo.store.sqlite import SQLiteStore
from plain_driver import Answerer, drive_subprocess

FAST = ["--plain", "--level", "greedy", "--no-instructions"]
META = GameMeta("short", 61, ("You", "Computer"), ("human", "greedy"), (3, 4))
TIMEOUT = 60


def python(code: str, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


class Locker:
    """Another process holding ``BEGIN EXCLUSIVE`` on the database until told to stop."""

    def __init__(self, path: Path) -> None:
        code = (
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None);"
            "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.read();"
            "c.execute('ROLLBACK')"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        assert sel.select(TIMEOUT), "the locking process did not start"
        assert self.proc.stdout.readline().strip() == "locked"

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(TIMEOUT)


# --- a lock held by another process -------------------------------------------------------------


def test_a_lock_held_by_another_process_goes_to_the_journal_then_is_stored(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.2, retries=3, backoff=0.1)
    me = new_owner()
    game = store.create_game({"step": 1}, META, owner=me)
    locker = Locker(path)
    try:
        started = time.monotonic()
        store.save_game(game, {"step": 2}, META, owner=me)  # retried, then journalled
        first = time.monotonic() - started
        started = time.monotonic()
        store.save_game(game, {"step": 3}, META, owner=me)  # tried once: the lock stays
        second = time.monotonic() - started
        assert 0.7 < first < 10 and second < first / 2
        (notice,) = store.take_notices()
        assert "is unavailable (database is locked)" in notice and ".journal" in notice
        assert store.load_game(game).data == {"step": 1}  # readers are not blocked (WAL)
    finally:
        locker.stop()
    store.release(game, owner=me)
    store.close()
    again = SQLiteStore(path)
    assert again.load_game(game).data == {"step": 3}
    assert again.take_notices()[0].startswith("note: stored 2 change(s)")


def test_a_short_lock_is_waited_out_without_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.05, retries=6, backoff=0.05)
    me = new_owner()
    game = store.create_game({"step": 1}, META, owner=me)
    locker = Locker(path)
    try:
        import threading

        threading.Timer(0.2, locker.stop).start()
        store.save_game(game, {"step": 2}, META, owner=me)
    finally:
        if locker.proc.poll() is None:
            locker.proc.wait(TIMEOUT)
    assert store.take_notices() == [] and not store.journal_path.exists()
    assert store.load_game(game).data == {"step": 2}


def test_a_game_that_ends_under_a_lock_is_stored_at_the_next_start(tmp_path: Path) -> None:
    """The old failure: the save deleted, then the history locked, and the game gone."""
    from fifteentwo.app.options import PlayOptions, SessionFactory

    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.05, retries=1, backoff=0.01)
    options = PlayOptions(variant="short", seed=2**63, players=("greedy", "greedy"))
    session = SessionFactory(options, store=store, on_notice=lambda line: None)(
        options.preset_rules()
    )
    locker = Locker(path)
    try:
        session.run()  # the whole game, ending while the store is locked
    finally:
        locker.stop()
    assert session.is_over and store.finished_games() == []
    again = SQLiteStore(path)
    (row,) = again.finished_games()
    assert row["seed"] == 2**63 and row["record"] == session.record()


# --- a full disk (a file-size limit in the writing process) -------------------------------------


def test_a_full_disk_keeps_the_game_in_the_journal(tmp_path: Path) -> None:
    """RLIMIT_FSIZE stops the database from growing (SIGXFSZ ignored, so writes fail with
    EFBIG, as on a full disk); the small journal still fits and the next start stores it."""
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path)
    me = new_owner()
    game = store.create_game({"step": 1}, META, owner=me)
    store.release(game, owner=me)
    store.close()
    result = python(
        """
        import resource, signal, sys
        from fifteentwo.store import GameMeta
        from fifteentwo.store.sqlite import SQLiteStore
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        store = SQLiteStore(sys.argv[1], busy_timeout=0.05, retries=1, backoff=0.01)
        limit = 12288  # three WAL frames do not fit; the journal line does
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        meta = GameMeta("short", 61, ("You", "Computer"), ("human", "greedy"), (9, 9))
        store.save_game(sys.argv[2], {"step": 2, "pad": "x" * 6000}, meta, owner="full")
        print("\\n".join(store.take_notices()))
        """,
        str(path),
        game,
    )
    assert result.returncode == 0, result.stderr
    assert "is unavailable" in result.stdout and ".journal" in result.stdout
    assert result.stdout.count("\n") == 1
    again = SQLiteStore(path)
    loaded = again.load_game(game)
    assert loaded.data["step"] == 2 and loaded.meta.scores == (9, 9)


# --- a read-only data dir (a read-only bind mount) ----------------------------------------------


def _unshare() -> list[str] | None:
    """A command prefix that runs a shell in a private mount namespace, or None."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return None
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=TIMEOUT, check=False)
    return prefix if probe.returncode == 0 else None


def test_a_read_only_data_dir_plays_unsaved_and_loses_nothing(fifteentwo_data_dir: Path) -> None:
    """Root ignores file modes, so the data dir is made read-only with a read-only bind mount
    in a private mount namespace (skipped where namespaces are not allowed)."""
    prefix = _unshare()
    if prefix is None:
        pytest.skip("no mount namespaces here (unshare)")
    env = {**os.environ, "FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    code, _, _ = drive_subprocess(
        ["play", "--seed", "3", "--short", *FAST], Answerer(stop_after=3), env
    )
    assert code == 0
    before = open_store().most_recent()
    assert before is not None
    script = (
        f'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && '
        f'printf "n\\nq\\n" | {sys.executable} -m fifteentwo play --short --seed 9 {" ".join(FAST)}'
    )
    result = subprocess.run(
        [*prefix, "sh", "-c", script, "sh", str(fifteentwo_data_dir)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        env=env,
    )
    if "mount:" in result.stderr:
        pytest.skip(f"bind mounts refused here: {result.stderr.strip()}")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("warning: ")
    assert "unsaved" in result.stderr
    assert result.stdout.rstrip().endswith("Game not saved.")
    after = open_store().list_games()
    assert [g.game_id for g in after] == [before.game_id] and after[0].data == before.data


# --- two sessions on one data dir ---------------------------------------------------------------


class Held:
    """A ``cribbage play --plain`` process stopped at a prompt (it owns its game meanwhile)."""

    def __init__(self, args: list[str], env: dict[str, str], until: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fifteentwo", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env},
        )
        self.out = self.read_until(until)

    def read_until(self, prompt: str) -> str:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        out = b""
        deadline = time.monotonic() + TIMEOUT
        while not out.decode().rsplit("\n", 1)[-1].startswith(prompt):
            assert sel.select(max(deadline - time.monotonic(), 0)), out.decode()
            chunk = os.read(fd, 65536)
            assert chunk, f"ended before {prompt!r}: {out.decode()}"
            out += chunk
        sel.close()
        return out.decode()

    def answer(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def finish(self) -> tuple[int, str]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(TIMEOUT)
        return code, self.proc.stderr.read().decode()


def test_two_sessions_on_one_data_dir_never_clobber_each_other(fifteentwo_data_dir: Path) -> None:
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    first = Held(["play", "--seed", "3", "--short", "-r", *FAST], env, "Lay away")
    try:
        (held,) = open_store().list_games()
        # A second session asking for that game is refused in one line.
        code, out, err = drive_subprocess(["play", "--resume", *FAST], Answerer(), env)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.startswith(f"error: game {held.game_id} is being played in another session")
        # Without --resume it is not offered; a new game starts and is saved beside it.
        code, out, err = drive_subprocess(
            ["play", "--seed", "4", "--short", *FAST], Answerer(stop_after=2), env
        )
        assert code == 0 and err == "" and out.startswith("New game: short to 61")
        first.answer("#1 #2\n")
        first.read_until("Play a card")
    finally:
        code, err = first.finish()
    assert code == 0 and err == ""
    games = open_store().list_games()
    assert len(games) == 2 and held.game_id in {g.game_id for g in games}
    mine = next(g for g in games if g.game_id == held.game_id)
    assert len(mine.data["decisions"]) > len(held.data["decisions"])  # its own moves kept


# --- signals and end of input at a prompt -------------------------------------------------------


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "EOF"])
def test_a_signal_at_a_prompt_leaves_the_game_saved_and_resume_continues(
    fifteentwo_data_dir: Path, how: str
) -> None:
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    held = Held(["play", "--seed", "5", "--short", "-r", *FAST], env, "Lay away")
    held.answer("#1 #2\n")
    held.read_until("Play a card")
    if how == "EOF":
        code, err = held.finish()
        assert code == 0
    else:
        held.proc.send_signal(getattr(signal, how))
        code, err = held.finish()
        assert code in (130, -signal.SIGTERM, 128 + signal.SIGTERM)
    assert "Traceback" not in err
    (saved,) = open_store().list_games()
    # the lay-away was kept (in a step after the full save: rebuilt as a resume does)
    assert Session.from_json(saved.data).record()["deals"][0]["discards"][0]
    code, out, err = drive_subprocess(["play", "--resume", *FAST], Answerer(stop_after=1), env)
    assert code == 0 and err == "", err
    assert out.startswith("Resuming your game: short to 61") and "Play a card" in out


def test_json_in_the_store_is_plain_text(tmp_path: Path) -> None:
    """What a store keeps can be read by any SQLite tool: JSON text, the seed as digits."""
    import sqlite3

    store = SQLiteStore(tmp_path / "g.sqlite3")
    game = store.create_game({"seed": 2**70}, META, owner=new_owner())
    store.close()
    conn = sqlite3.connect(tmp_path / "g.sqlite3")
    (text,) = conn.execute("SELECT data FROM game_saves WHERE game_id = ?", (game,)).fetchone()
    conn.close()
    assert json.loads(text) == {"seed": 2**70}
