"""Plain line mode: whole scripted games, input forms, commands, counting, quitting."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from fifteentwo.app.counting import parse_count
from fifteentwo.app.describe import choice_range
from fifteentwo.app.options import PlayOptions, SessionFactory, carry_over
from fifteentwo.app.plain import (
    GamePegs,
    PlainGame,
    peg_positions,
    pegboard,
    read_cards,
    resume_hint,
)
from fifteentwo.app.saves import open_game_store
from fifteentwo.app.session import Session
from fifteentwo.cards import parse_cards
from fifteentwo.errors import CardError
from fifteentwo.records import replay
from plain_driver import Answerer, ScriptedStdin, honest_count, play_in_process

GREEDY = {"level": "greedy", "instructions": False}


def final_line(transcript: str) -> re.Match[str]:
    match = re.search(r"wins? the game (\d+(?:-\d+)+)", transcript)
    assert match, transcript[-2000:]
    return match


# --- reading cards -------------------------------------------------------------------------------

HAND = parse_cards("2c 5h 5s 9d jc kh")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5h 9d", "5H 9D"),
        ("5H,9D", "5H 9D"),
        ("king of hearts, 9d", "KH 9D"),
        ("k 9", "KH 9D"),  # ranks held once; 9 is past the hand's six positions
        ("#1 #4", "2C 9D"),
        ("1 4", "2C 9D"),  # no ace or four held: positions
        ("5 5", "5H 5S"),  # a rank as often as it is held
        ("jack 10d", None),  # no ten
    ],
)
def test_read_cards(text: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(CardError):
            read_cards(text, HAND)
    else:
        assert read_cards(text, HAND) == parse_cards(expected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2", "could be your 2C or card number 2 \\(5H\\)"),  # rank 2, position 2 differ
        ("5", "could be your 5H, your 5S or card number 5 \\(JC\\)"),  # two fives
        ("five", "could be your 5H or your 5S; type the card"),
        ("5h 5h", "twice"),
        ("#9", "no position 9"),
        ("", "type the cards"),
        ("zz", "not a card"),
    ],
)
def test_read_cards_refuses(text: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        read_cards(text, HAND)


def test_read_cards_names_cards_as_the_screen_shows_them() -> None:
    """Plain mode shows 10H, the practice drill 10♥: a refusal never says TH."""
    hand = parse_cards("th tc 2d 3d 4d 5d")
    with pytest.raises(CardError, match="your 10H or your 10C"):
        read_cards("10", hand)
    with pytest.raises(CardError, match="your 10♥ or your 10♣"):
        read_cards("10", hand, ascii_only=False)
    with pytest.raises(CardError, match="you named 10♥ twice"):
        read_cards("10h th", hand, ascii_only=False)


def test_rank_and_position_agreeing_is_fine() -> None:
    hand = parse_cards("ac 5h 9d")
    assert read_cards("1", hand) == [hand[0]]  # the ace is also card number 1


# --- the pegboard --------------------------------------------------------------------------------


def test_pegboard_121_has_two_rows_per_side_and_marks_pegs() -> None:
    text = pegboard(121, ["You", "Computer"], [75, 121], [70, 119])
    lines = text.splitlines()
    assert len(lines) == 1 + 2 * 3
    assert "You: 75, back peg 70" in text
    assert "Computer: 121, in the game hole" in text
    row = lines[3]  # You, holes 61-120
    assert row.strip().startswith("61-120")
    holes = row.split(None, 1)[1].replace(" ", "")
    assert holes[70 - 61] == "o" and holes[75 - 61] == "*" and len(holes) == 60


def played_match() -> Session:
    """A three-game match of the short game between two greedy computers, played out."""
    options = PlayOptions(variant="short", players=("greedy", "greedy"), seed=3, match_games=3)
    session = SessionFactory(options)(options.preset_rules())
    session.run()
    return session


def test_peg_positions_follow_scored_events_and_restart_each_game() -> None:
    session = played_match()
    fronts, _ = peg_positions(session.game.events, 2)
    assert max(fronts) <= 61 and min(fronts) < 61  # the last game's pegs, not the match's


def test_game_pegs_read_on_and_start_again_for_another_game_or_a_shorter_log() -> None:
    game = played_match().game
    events = list(game.events)
    pegs = GamePegs()
    for length in [*range(0, len(events) + 1, 7), len(events), 5, len(events)]:
        game.events = events[:length]  # the same object, its log grown (or shrunk: read again)
        assert pegs.read(game, 2) == peg_positions(events[:length], 2)
    game.events = events[:10]
    pegs.read(game, 2)
    other = game.clone()
    other.events = events[40:52]  # another object, with a longer log: not read on from 10
    assert pegs.read(other, 2) == peg_positions(other.events, 2)


# --- whole games --------------------------------------------------------------------------------


def test_seeded_game_to_the_end_matches_engine_and_history(fifteentwo_data_dir: Path) -> None:
    options = PlayOptions(variant="standard", seed=5, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir)
    assert played.code == 0
    text = played.transcript
    assert text.rstrip().endswith("Thanks for the game.")
    assert "New game: standard to 121" in text and "Seed 5." in text
    assert "Your hand:" in text and "Scores: You" in text
    (row,) = played.history.games()
    game = replay(row["record"])
    assert game.is_over and list(game.scores) == row["scores"]
    shown = final_line(text).group(1)
    assert shown == "-".join(map(str, sorted(row["scores"], reverse=True)))
    assert row["won"] == (row["winner"] == 0) and row["human_seat"] == 0
    assert row["variant"] == "standard" and row["levels"] == "greedy" and row["seed"] == 5
    assert played.store.list_games() == []  # a finished game leaves no game in progress


def test_same_seed_same_game(fifteentwo_data_dir: Path, tmp_path: Path) -> None:
    options = PlayOptions(variant="short", seed=11, **GREEDY)
    a = play_in_process(options, fifteentwo_data_dir)
    b = play_in_process(options, tmp_path)
    assert a.transcript == b.transcript


@pytest.mark.parametrize(
    ("variant", "seats"),
    [
        ("standard", 2),
        ("short", 2),
        ("five-card", 2),
        ("three-player", 3),
        ("four-player", 4),
    ],
)
def test_every_variant_starts_and_finishes(
    variant: str, seats: int, fifteentwo_data_dir: Path
) -> None:
    options = PlayOptions(variant=variant, seed=21, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir)
    assert played.code == 0, played.transcript[-1500:]
    final_line(played.transcript)
    (row,) = played.history.games()
    assert row["variant"] == variant and len(row["seats"]) == seats
    assert list(replay(row["record"]).scores) == row["scores"]


def test_short_or_long_is_asked_until_answered(fifteentwo_data_dir: Path) -> None:
    answers = iter(["x", "l"])
    answerer = Answerer({"Short game": lambda p, k: next(answers), "Play a card": None})
    played = play_in_process(PlayOptions(seed=1, **GREEDY), fifteentwo_data_dir, answerer)
    assert "Please answer s (to 61) or l (to 121)." in played.transcript
    assert "New game: standard to 121" in played.transcript


def test_instructions_show_our_rules(fifteentwo_data_dir: Path) -> None:
    answerer = Answerer({"Do you need instructions": "y", "Short game": None})
    played = play_in_process(PlayOptions(level="greedy"), fifteentwo_data_dir, answerer)
    assert "his heels" in played.transcript and "muggins" in played.transcript.lower()
    assert "**" not in played.transcript


def test_another_game_continues_the_sitting(fifteentwo_data_dir: Path) -> None:
    games = iter(["y", "n"])
    answerer = Answerer({"Another game": lambda p, k: next(games)})
    options = PlayOptions(variant="short", seed=8, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    assert played.transcript.count("New game: short to 61") == 2
    assert "Seed 8." in played.transcript and "Seed 9." in played.transcript
    assert re.search(r"Games won this sitting: You \d, Computer \d\.", played.transcript)
    assert len(played.history.games()) == 2
    # the loser of the first game deals the second (no cut for deal)
    first = min(played.history.games(), key=lambda r: r["seed"])
    said = re.search(
        r"(You|Computer) lost the last game, so (you deal|Computer deals) first\.",
        played.transcript,
    )
    assert said is not None and (said.group(1) == "You") == (not first["won"])
    second_game = played.transcript.split("lost the last game")[1].split("\n", 1)[1]
    assert "deals first." not in second_game and "deal first." not in second_game  # no cut


def test_match_reports_game_points(fifteentwo_data_dir: Path) -> None:
    options = PlayOptions(variant="short", seed=3, match_games=3, **GREEDY)  # goes to 3 games
    played = play_in_process(options, fifteentwo_data_dir)
    assert "best of 3" in played.transcript
    assert "Match (game points, 2 to win):" in played.transcript
    assert "wins the match" in played.transcript or "win the match" in played.transcript
    rows = played.history.games()
    assert sorted(r["game_number"] for r in rows) == [1, 2, 3]
    assert len({r["seed"] for r in rows}) == 1  # one session, one record per game


# --- counting by hand ----------------------------------------------------------------------------


def test_manual_count_claims_are_final_and_explained_with_muggins(
    fifteentwo_data_dir: Path,
) -> None:
    claims: list[str] = []

    def count(prompt: str, refusals: int) -> str:
        # Over-claim (29), then claim nothing, then the honest count, in turn: each claim is
        # final, so the prompt never comes back for the same hand.
        claims.append(prompt)
        return ("29", "0", str(honest_count(prompt)))[len(claims) % 3]

    answerer = Answerer({"Count your": count})
    options = PlayOptions(
        variant="short", seed=5, muggins=True, auto_count=False, explain=True, **GREEDY
    )
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    text = played.transcript
    assert "(muggins, you count your own hands)" in text
    assert "Count again" not in text
    asked = [prompt for prompt, _ in answerer.log if prompt.startswith("Count your")]
    assert asked == claims and len(asked) == len(set(asked))  # never asked twice for one hand
    assert re.search(r"You should have taken (\d+) for your (hand|crib), not 0\.", text)
    assert re.search(r"You claimed 29, but your (hand|crib) is worth \d+", text)
    assert "Explanation:" in text and re.search(r"  total \d+", text)
    assert re.search(r"Computer pegs \d+ by muggins\.", text)
    (row,) = played.history.games()
    counts = [c for d in row["record"]["deals"] for c in d["counts"] if c["seat"] == 0]
    over = [c for c in counts if c["claimed"] > c["total"]]
    assert over and all(c["claimed"] == 29 for c in over)
    muggins = [p for d in row["record"]["deals"] for p in d["points"] if p["reason"] == "muggins"]
    assert muggins and all(p["seat"] == 1 for p in muggins)
    # Over-claims peg the true total (corrected), and the computer takes each excess.
    mugged = sum(p["points"] for p in muggins)
    expected = sum(abs(c["total"] - c["claimed"]) for c in counts)
    assert mugged == expected
    assert list(replay(row["record"]).scores) == row["scores"]


def test_plain_muggins_asks_before_telling_the_missed_count(fifteentwo_data_dir: Path) -> None:
    """The computer's miscount is shown by its claim only; the true count and what was missed
    are said only after the player answers (they must spot the miss, as at a table)."""
    answers: list[tuple[str, str]] = []

    def call(prompt: str, refusals: int) -> str:
        answer = "y" if len(answers) % 2 == 0 else "n"
        answers.append((prompt, answer))
        return answer

    answerer = Answerer({"Call muggins": call})
    found = None
    for seed in range(1, 40):
        options = PlayOptions(
            variant="short", seed=seed, level="novice", muggins=True, auto_count=False,
            instructions=False,
        )  # fmt: skip
        answers.clear()
        (fifteentwo_data_dir / str(seed)).mkdir()
        played = play_in_process(options, fifteentwo_data_dir / str(seed), answerer)
        played.store.close()
        if answers:
            found = played
            break
    assert found is not None, "no computer miscount in 39 games of novice (miscount 25%)"
    text = found.transcript
    lines = text.split("\n")
    ask = next(i for i, line in enumerate(lines) if line.startswith("Call muggins"))
    shown = lines[ask - 1]
    claim = re.search(r"Computer claims (\d+)\.$", shown)
    assert claim is not None, shown
    assert "(" + claim.group(1) + ")" not in shown and "worth" not in shown
    verdict = re.search(r"Computer missed (\d+): their (hand|crib) was worth (\d+)", lines[ask + 1])
    assert verdict is not None, lines[ask + 1]
    assert int(verdict.group(3)) - int(verdict.group(1)) == int(claim.group(1))
    assert "missed" not in answers[0][0] and not re.search(r"\d", answers[0][0])


def test_manual_count_without_muggins_just_loses_the_points(fifteentwo_data_dir: Path) -> None:
    answerer = Answerer({"Count your": "nineteen"})  # "nineteen" means nothing
    options = PlayOptions(variant="short", seed=6, auto_count=False, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    assert "by muggins" not in played.transcript
    assert "Explanation:" not in played.transcript  # explain is off
    (row,) = played.history.games()
    mine = [c for d in row["record"]["deals"] for c in d["counts"] if c["seat"] == 0]
    assert mine and all(c["claimed"] == 0 for c in mine)


# --- prompts, commands and bad input ------------------------------------------------------------


def test_commands_at_a_prompt_and_bad_input(fifteentwo_data_dir: Path) -> None:
    script = iter(["?", "hand", "board", "score", "rules", "zz", "#1 #2 #3", "#1 #2"])
    answerer = Answerer({"Lay away": lambda p, k: next(script), "Play a card": None})
    options = PlayOptions(variant="standard", seed=2, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    text = played.transcript
    assert "Name 2 cards for the crib" in text and "'q' or 'quit' saves" in text
    assert "The crib is " in text
    assert text.count("Pegboard, 121 to win") == 2
    assert "HOW TO PLAY CRIBBAGE" in text
    assert "Not a card: 'zz'." in text
    assert "Lay away exactly 2 cards, not 3." in text
    assert "You lay away" in text


def test_play_refusals_keep_the_same_prompt(fifteentwo_data_dir: Path) -> None:
    attempts = ["go", "#9", "#1", "#2", "#3", "#4"]
    answerer = Answerer({"Play a card": lambda p, k: attempts[k]}, stop_after=12)
    options = PlayOptions(variant="standard", seed=2, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    text = played.transcript
    assert "You have a card that will come in, so you cannot say go." in text
    assert "No position 9 in a hand of 4." in text
    assert played.code == 0 and len(played.store.list_games()) == 1


def test_every_prompt_is_one_flushed_line(fifteentwo_data_dir: Path) -> None:
    class CountingStdout(io.StringIO):
        flushed_at: list[int]

        def flush(self) -> None:
            self.flushed_at.append(len(self.getvalue()))

    out = CountingStdout()
    out.flushed_at = []
    answerer = Answerer()
    options = PlayOptions(variant="short", seed=3, **GREEDY)
    factory = SessionFactory(options, store=open_game_store())
    stdin = ScriptedStdin(out, answerer)
    flushed_at_read: list[bool] = []
    original = stdin.readline

    def readline(size: int | None = -1) -> str:
        flushed_at_read.append(out.flushed_at[-1] == len(out.getvalue()))
        return original(size)

    stdin.readline = readline  # type: ignore[method-assign]
    assert PlainGame(options, factory, stdin=stdin, stdout=out).run() == 0
    assert flushed_at_read and all(flushed_at_read)
    assert all(p.endswith((": ", "? ")) for p, _ in answerer.log)


# --- quitting, end of input, Ctrl-C, resuming ------------------------------------------------


def test_quit_saves_and_resume_finishes_the_same_game(
    fifteentwo_data_dir: Path, tmp_path: Path
) -> None:
    options = PlayOptions(variant="short", seed=13, random_cut=False, **GREEDY)
    straight = play_in_process(options, tmp_path)

    quitter = Answerer(stop_after=9)  # ends input mid-game
    first = play_in_process(options, fifteentwo_data_dir, quitter)
    assert first.code == 0
    (saved,) = first.store.list_games()
    assert first.transcript.rstrip().endswith(resume_hint(saved.game_id))
    assert first.history.games() == []

    session = Session.resume(first.store, saved.game_id)
    second = play_in_process(options, fifteentwo_data_dir, resume=session)
    assert second.code == 0 and "Resuming your game: short to 61" in second.transcript
    assert second.store.list_games() == []
    (row,) = second.history.games()
    (expected,) = straight.history.games()
    assert row["record"] == expected["record"]  # resumed exactly, RNG state included


def test_q_at_a_prompt_quits(fifteentwo_data_dir: Path) -> None:
    answerer = Answerer({"Play a card": "q"})
    played = play_in_process(
        PlayOptions(variant="short", seed=1, **GREEDY), fifteentwo_data_dir, answerer
    )
    assert played.code == 0 and len(played.store.list_games()) == 1
    assert "Your game is saved" in played.transcript


def test_saved_game_is_offered_and_can_be_declined(fifteentwo_data_dir: Path) -> None:
    options = PlayOptions(variant="short", seed=1, **GREEDY)
    first = play_in_process(options, fifteentwo_data_dir, Answerer(stop_after=3))
    (old,) = first.store.list_games()
    saved = Session.resume(first.store, old.game_id)
    answerer = Answerer({"Resume it": "n", "Play a card": None})
    played = play_in_process(
        PlayOptions(variant="standard", seed=2, **GREEDY),
        fifteentwo_data_dir,
        answerer,
        offer=saved,
    )
    assert re.search(
        r"You have a saved game: short to 61, You \d+, Computer \d+, against greedy, "
        rf"last played today \d\d:\d\d \(id {old.game_id}\)\.",
        played.transcript,
    )
    assert "New game: standard to 121" in played.transcript
    newer, older = played.store.list_games()  # declining keeps the old game
    assert older.game_id == old.game_id and older.data == old.data
    assert newer.meta.variant == "standard"


def test_ctrl_c_exits_130_with_the_last_step_saved(fifteentwo_data_dir: Path) -> None:
    calls = 0

    def interrupt(prompt: str, refusals: int) -> str:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return f"#{refusals + 1}"

    answerer = Answerer({"Play a card": interrupt})
    played = play_in_process(
        PlayOptions(variant="short", seed=1, **GREEDY), fifteentwo_data_dir, answerer
    )
    assert played.code == 130
    assert "Traceback" not in played.transcript
    (saved,) = played.store.list_games()
    resumed = Session.resume(played.store, saved.game_id)  # the lease was released
    assert resumed.waiting_for == 0 and not resumed.is_over


def test_quiet_mode_says_less(fifteentwo_data_dir: Path, tmp_path: Path) -> None:
    options = PlayOptions(variant="short", seed=5, **GREEDY)
    loud = play_in_process(options, fifteentwo_data_dir).transcript
    quiet = play_in_process(replace(options, quiet=True), tmp_path).transcript
    assert "Computer lays away two cards." in loud and "lays away" not in quiet
    assert "fifteen two" in loud and re.search(r"Computer's hand \([^)]*\): \d+\.", quiet)
    assert final_line(loud).group(1) == final_line(quiet).group(1)  # the same game


def test_another_game_after_a_resumed_one_keeps_the_saved_rules(fifteentwo_data_dir: Path) -> None:
    saved_options = PlayOptions(variant="five-card", seed=1, **GREEDY)
    first = play_in_process(saved_options, fifteentwo_data_dir, Answerer(stop_after=3))
    (saved,) = first.store.list_games()
    session = Session.resume(first.store, saved.game_id)
    games = iter(["y", "n"])
    answerer = Answerer({"Another game": lambda p, k: next(games)})
    played = play_in_process(
        PlayOptions(seed=30, **GREEDY), fifteentwo_data_dir, answerer, resume=session
    )
    assert "Resuming your game: five-card to 61" in played.transcript
    assert "New game: five-card to 61" in played.transcript  # no short-or-long question
    assert "Short game" not in played.transcript


# --- hints and the coach --------------------------------------------------------------------------


def test_hint_lists_the_experts_choices_and_coach_flags_costly_plays(
    fifteentwo_data_dir: Path,
) -> None:
    script = iter(["hint", "hints", "#1 #2"])
    answerer = Answerer(
        {"Lay away": lambda p, k: next(script, "#1 #2"), "Play a card": None},
    )
    options = PlayOptions(variant="standard", seed=2, coach=True, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    text = played.transcript
    best = re.search(r"^Best: throw (\S+ \S+) \(([+-]\d+\.\d\d) points\): keep ", text, re.M)
    hints = re.findall(r"^(\d)\. throw (\S+ \S+) \(([+-]\d+\.\d\d) points\): keep ", text, re.M)
    assert [h[0] for h in hints] == ["1", "2", "3"]  # 'hints': the three best
    assert best is not None and best.group(1) == hints[0][1]  # 'hint': the best, short
    values = [float(h[2]) for h in hints]
    assert values == sorted(values, reverse=True)
    thrown = re.search(r"You lay away (\S+ \S+)\.", text)
    assert thrown is not None
    if thrown.group(1) != hints[0][1]:  # the first two cards were not the best throw
        coach = re.search(r"Coach: throw (\S+ \S+) was better; yours cost (\d+\.\d\d) points", text)
        assert coach is None or coach.group(1) == hints[0][1]


def test_another_game_keeps_every_setting_and_numbers_games(fifteentwo_data_dir: Path) -> None:
    """A resumed game counted by hand with muggins and cut by hand: "another game" keeps all of
    it (the command line this time said none of it), and the log numbers the games."""
    saved_options = PlayOptions(
        variant="short", seed=3, muggins=True, auto_count=False, random_cut=False,
        level="novice", instructions=False,
    )  # fmt: skip
    first = play_in_process(saved_options, fifteentwo_data_dir, Answerer(stop_after=3))
    (saved,) = first.store.list_games()
    session = Session.resume(first.store, saved.game_id)
    games = iter(["y", "y", "n"])
    answerer = Answerer({"Another game": lambda p, k: next(games)})
    played = play_in_process(
        PlayOptions(seed=30, **GREEDY), fifteentwo_data_dir, answerer, resume=session
    )
    text = played.transcript
    headers = [line for line in text.split("\n") if line.startswith("New game:")]
    assert len(headers) == 2
    for number, header in enumerate(headers, 2):
        assert "(muggins, you count your own hands)" in header
        assert "Computer (novice)" in header and header.endswith(f"Game {number} of this sitting.")
    resumed = next(line for line in text.split("\n") if line.startswith("Resuming your game"))
    assert resumed.endswith("Game 1 of this sitting.")
    # Every game's record says so too: counted by hand (seat 0), cut by hand, muggins.
    rows = played.history.games()
    assert len(rows) == 3
    for row in rows:
        assert row["record"]["rules"]["muggins"] is True
        assert 0 in row["record"]["manual_count"] and 0 in row["record"]["cut_seats"]
    prompts = [prompt for prompt, _ in answerer.log]
    after_first = prompts[prompts.index(next(p for p in prompts if p.startswith("Another"))) :]
    assert any(p.startswith("Count your") for p in after_first)
    assert any(p.startswith("Cut the pack") for p in after_first)


def test_carry_over_keeps_the_last_games_settings() -> None:
    options = PlayOptions(variant="short", seed=1, **GREEDY)
    manual = replace(options, muggins=True, auto_count=False, random_cut=True, level="novice")
    last = SessionFactory(manual)(manual.preset_rules())
    carried = carry_over(options, last)
    assert carried.muggins is True and carried.auto_count is False and carried.random_cut
    assert carried.players == ("human", "novice")
    factory = SessionFactory(options)
    nxt = factory.another_game(last)
    assert nxt.rules == last.rules and not nxt.auto_count and nxt.random_cut
    assert [s.level for s in nxt.seats] == [s.level for s in last.seats]
    assert factory.games_started == 1


def test_count_words_are_read_by_one_parser() -> None:
    cases = {
        "14": 14, "fourteen": 14, "FOURTEEN": 14, "Twenty-Nine": 29, "twenty nine": 29,
        "zero": 0, "0": 0, "nineteen": 0, "19": 0, "nothing": 0, "none": 0, "one": 1,
        "twenty": 20, "twenty-one": 21, "eleven": 11, " 5 ": 5,
    }  # fmt: skip
    for text, value in cases.items():
        assert parse_count(text) == value, text
    for bad in ("thirty", "30", "-1", "fourteen points", "", "1.5", "٣", "twentynine x"):
        with pytest.raises(ValueError):
            parse_count(bad)


def test_plain_accepts_number_words_for_a_count(fifteentwo_data_dir: Path) -> None:
    from fifteentwo.scoring import number_word

    answerer = Answerer({"Count your": lambda p, k: number_word(honest_count(p)).upper()})
    options = PlayOptions(variant="short", seed=6, auto_count=False, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    assert played.code == 0 and "should have taken" not in played.transcript
    (row,) = played.history.games()
    mine = [c for d in row["record"]["deals"] for c in d["counts"] if c["seat"] == 0]
    assert mine and all(c["claimed"] == c["total"] for c in mine)


@pytest.mark.parametrize(("lo", "hi", "said"), [(1, 6, "1-6"), (1, 1, "1"), (4, 4, "4")])
def test_choice_ranges_never_say_1_1(lo: int, hi: int, said: str) -> None:
    assert choice_range(lo, hi) == said


def test_last_repeats_the_last_show(fifteentwo_data_dir: Path) -> None:
    """The show is said once and scrolls away; 'last' says it again (the full-screen game
    keeps a log). Before any show there is nothing to repeat."""
    calls: list[str] = []

    def lay_away(prompt: str, refusals: int) -> str:
        calls.append(prompt)
        return "last" if len(calls) in (1, 3) else "#1 #2"

    answerer = Answerer({"Lay away": lay_away}, stop_after=40)
    options = PlayOptions(variant="standard", seed=4, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    text = played.transcript
    assert "No hand has been counted yet in this game." in text
    blocks = text.split("Lay away 2 cards")
    first_deal, asked_again = blocks[2], blocks[3]  # (the deal's show, then 'last' at deal 2)
    shown = [line for line in first_deal.splitlines() if "(" in line and ")" in line]
    counted = [line for line in shown if re.search(r"\b(hand|crib) \(", line)]
    repeated = [line for line in asked_again.splitlines() if line.strip()][1:]
    assert counted and repeated[: len(counted)] == counted, (counted, repeated)
