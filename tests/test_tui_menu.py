"""The app around the game: the start screen, the new-game form and its remembered choices,
continuing a saved game, the statistics screen and practice, driven through Textual's pilot."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Checkbox, Input, OptionList, Select, Static

from fifteentwo.app.options import Choices, PlayOptions, SessionFactory
from fifteentwo.app.session import SeatConfig, Session
from fifteentwo.app.statistics import plain_text
from fifteentwo.rules import find_rules
from fifteentwo.scoring import hand_total
from fifteentwo.store import Store, open_store
from fifteentwo.store.summary import finished_from_record
from fifteentwo.tui import make_app
from fifteentwo.tui.menu import NewGameScreen, StartScreen
from fifteentwo.tui.model import Mode
from fifteentwo.tui.practice import PracticeScreen
from fifteentwo.tui.statistics import StatisticsScreen
from fifteentwo.tui.widgets import EventLog
from test_tui import SIZE, play_until, press, settle, step

HUMAN_SEATS = [
    {"name": "You", "human": True, "level": ""},
    {"name": "Computer", "human": False, "level": "greedy"},
]


def played_games(store: Store, seeds: range, variant: str = "short") -> None:
    """Finish real games (greedy against greedy, filed as if seat 0 were you)."""
    for seed in seeds:
        session = Session(
            find_rules(variant),
            [SeatConfig("You", level="greedy"), SeatConfig("Computer", level="greedy")],
            seed=seed,
        )
        session.run()
        assert session.is_over
        store.add_finished(finished_from_record(session.record(), HUMAN_SEATS, seed))


def menu_app(store: Store, **kw: object) -> tuple[object, SessionFactory]:
    options = PlayOptions(seed=11, instructions=False, **kw)  # type: ignore[arg-type]
    factory = SessionFactory(options, store=store)
    return make_app(factory, options, menu=True, store=store), factory


async def test_start_screen_new_game_with_remembered_choices(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    app, factory = menu_app(store)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
        labels = [str(o.prompt) for o in app.screen.query_one(OptionList).options]  # type: ignore[attr-defined]
        assert [label.split()[0] for label in labels] == [
            "[b]n[/b]",
            "[b]s[/b]",
            "[b]p[/b]",
            "[b]r[/b]",
            "[b]q[/b]",
        ]
        await press(pilot, "n")
        form = app.screen  # type: ignore[attr-defined]
        assert isinstance(form, NewGameScreen)
        levels = [str(v) for _, v in form.query_one("#level", Select)._options]
        assert levels[:2] == ["random", "novice"] and "expert" in levels
        form.query_one("#level", Select).value = "standard"
        form.query_one("#variant", Select).value = "short"
        form.query_one("#coach", Checkbox).value = True
        form.query_one("#speed", Select).value = "instant"
        await press(pilot, "ctrl+s")
        assert app.mode in (Mode.CUT, Mode.DISCARD)  # type: ignore[attr-defined]
        session = app.session  # type: ignore[attr-defined]
        assert session.rules.target == 61 and session.seats[1].level == "standard"
        assert app.settings.coach and app.settings.speed == "instant"  # type: ignore[attr-defined]
        assert factory.options.level == "standard"
        await press(pilot, "q")
    remembered = store.get_setting("play.options")
    assert remembered is not None and '"level": "standard"' in remembered
    # the next run's form starts from the remembered choices
    app2, _ = menu_app(store)
    async with app2.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "n")
        form = app2.screen  # type: ignore[attr-defined]
        assert form.query_one("#level", Select).value == "standard"
        assert form.query_one("#variant", Select).value == "short"
        assert form.query_one("#coach", Checkbox).value is True
        await press(pilot, "escape")
        assert isinstance(app2.screen, StartScreen)  # type: ignore[attr-defined]
        await press(pilot, "q")
    store.close()


async def test_a_bad_target_is_refused_in_the_form(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "n")
        form = app.screen  # type: ignore[attr-defined]
        form.query_one("#target", Input).value = "5"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, NewGameScreen)  # type: ignore[attr-defined]
        error = str(form.query_one("#new-game-error", Static).render())
        assert "from 15 to 1000, not 5" in error
        form.query_one("#target", Input).value = "31"
        await press(pilot, "ctrl+s")
        assert app.session.rules.target == 31  # type: ignore[attr-defined]
        assert app.session.rules.name == "standard"  # type: ignore[attr-defined]
    store.close()


async def test_continue_a_saved_game_from_the_start_screen(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    options = PlayOptions(seed=3, variant="short", instructions=False, speed="instant")
    first = SessionFactory(options, store=store)(options.preset_rules())
    first.run()
    first.save()
    first.release()
    offer = Session.resume(store, first.game_id)  # type: ignore[arg-type]
    factory = SessionFactory(options, store=store)
    app = make_app(factory, options, menu=True, offer=offer, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        menu = app.screen.query_one(OptionList)
        assert menu.highlighted == 1  # the saved game is offered first
        await press(pilot, "enter")
        assert app.session is offer and app.mode in (Mode.CUT, Mode.DISCARD)
    store.close()


async def test_game_over_returns_to_the_start_screen(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store, target=15, speed="instant")
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "n")
        app.screen.query_one("#target", Input).value = "15"  # type: ignore[attr-defined]
        await press(pilot, "ctrl+s")
        await play_until(pilot, app, lambda: app.mode is Mode.OVER)  # type: ignore[arg-type]
        await press(pilot, "n")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
        await press(pilot, "s")
        assert isinstance(app.screen, StatisticsScreen)  # type: ignore[attr-defined]
        text = plain_text(app.screen.content)  # type: ignore[attr-defined]
        assert "1 games" in text
    store.close()


async def test_statistics_screen(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    played_games(store, range(1, 9))
    app, _ = menu_app(store)
    async with app.run_test(size=(100, 40)) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "s")
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(screen, StatisticsScreen)
        text = plain_text(screen.content)
        for words in (
            "8 games",
            "greedy",
            "short",
            "Points per deal",
            "dealer",
            "pone",
            "pegging",
            "Streak now",
            "best hand",
            "margin in the last 8 games",
        ):
            assert words in text, words
        await press(pilot, "escape")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
    store.close()


async def test_statistics_without_games_or_store(tmp_path: Path) -> None:
    options = PlayOptions(instructions=False)
    app = make_app(SessionFactory(options), options, menu=True, store=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        text = plain_text(app.screen.content)  # type: ignore[attr-defined]
        assert "games are not being saved" in text
    store = open_store(tmp_path / "s.sqlite3")
    app2, _ = menu_app(store)
    async with app2.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "s")
        text = plain_text(app2.screen.content)  # type: ignore[attr-defined]
        assert "No finished games yet" in text
    store.close()


async def test_practice_from_the_start_screen(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "p")
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(screen, PracticeScreen)
        task = screen.count_task
        assert task is not None
        wrong = (task.score.total + 1) % 29
        await pilot.press(*str(wrong), "enter")
        await pilot.pause()
        feedback = str(screen.query_one("#practice-feedback", Static).render())
        assert f"No: {task.score.total}" in feedback
        task = screen.count_task
        await pilot.press(*str(task.score.total), "enter")
        await pilot.pause()
        assert "Right" in str(screen.query_one("#practice-feedback", Static).render())
        assert "1 of 2 right" in str(screen.query_one("#practice-score", Static).render())
        await pilot.press("d")
        await pilot.pause()
        d = screen.discard_task
        assert d is not None
        await pilot.press("1", "2", "enter")
        await pilot.pause()
        feedback = str(screen.query_one("#practice-feedback", Static).render())
        assert "You laid away" in feedback and "throw" in feedback
        await press(pilot, "escape")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
    store.close()


async def test_q_in_practice_ends_it_with_a_summary_on_the_start_screen(tmp_path: Path) -> None:
    """q in practice (as the footer says) ends the practice, not the program: back to the
    start screen, which says how it went (as ``cribbage practice`` does at q)."""
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "p")
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(screen, PracticeScreen)
        q = screen.active_bindings["q"]
        assert q.binding.action == "close" and q.binding.show and q.enabled
        task = screen.count_task
        assert task is not None
        await pilot.press(*str(task.score.total), "enter")
        await pilot.pause()
        tally = screen.counting.tally
        assert tally.asked == 1
        await press(pilot, "q")
        assert app.is_running and app.return_code is None  # type: ignore[attr-defined]
        start = app.screen  # type: ignore[attr-defined]
        assert isinstance(start, StartScreen)
        assert start.note == f"Practice over: counting {tally.line()}."
        await press(pilot, "p", "q")  # nothing answered: nothing to sum up
        assert isinstance(app.screen, StartScreen) and app.screen.note is None  # type: ignore[attr-defined]
    store.close()


def test_choices_from_json_falls_back_on_anything_unreadable() -> None:
    default = Choices(level="expert", variant="standard")
    assert Choices.from_json("not json", default) == default
    assert Choices.from_json("[1, 2]", default) == default
    odd = Choices.from_json(
        '{"level": "gone", "variant": "short", "target": 5, "coach": "yes", "speed": "warp"}',
        default,
    )
    assert odd == Choices(level="expert", variant="short")
    good = Choices(
        level="novice",
        variant="five-card",
        target=31,
        manual_count=True,
        muggins=True,
        coach=True,
        speed="fast",
    )
    assert Choices.from_json(good.to_json(), default) == good


# --- issue 31: the form by keyboard alone, Continue after a game, another game's settings --------

FIELDS = ["level", "variant", "target", "speed", "manual", "muggins", "coach", "start-game", "back"]


async def test_the_new_game_form_by_keyboard_alone(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    app, factory = menu_app(store)
    for size in ((80, 24), (120, 40), (200, 60)):
        async with app.run_test(size=size) as pilot:  # type: ignore[attr-defined]
            await settle(pilot)
            await press(pilot, "n")
            form = app.screen  # type: ignore[attr-defined]
            assert isinstance(form, NewGameScreen)
            seen = []
            for _ in FIELDS:  # tab goes field by field, and round again
                seen.append(form.focused.id if form.focused is not None else None)
                await press(pilot, "tab")
            assert seen == FIELDS and form.focused.id == FIELDS[0]
            for expected in reversed(FIELDS):  # shift+tab goes back
                await press(pilot, "shift+tab")
                assert form.focused is not None and form.focused.id == expected
            await press(pilot, "escape")
            assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
            await press(pilot, "q")
            app, factory = menu_app(store)
    async with app.run_test(size=(80, 24)) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "n")
        form = app.screen  # type: ignore[attr-defined]
        level = form.query_one("#level", Select)
        assert form.focused is level
        before = level.value
        await press(pilot, "enter")  # enter opens the list: the game does not start
        assert isinstance(app.screen, NewGameScreen) and level.expanded  # type: ignore[attr-defined]
        await press(pilot, "up", "enter")  # choose in it
        assert not level.expanded and level.value != before
        assert isinstance(app.screen, NewGameScreen) and app.session is None  # type: ignore[attr-defined]
        chosen_level = level.value
        await press(pilot, "tab", "enter")  # the variant list: open, down, choose
        variant = form.query_one("#variant", Select)
        assert variant.expanded
        await press(pilot, "down", "enter")
        chosen_variant = variant.value
        await press(pilot, "tab", "5", "enter")  # the target; enter moves on, never starts
        assert form.focused.id == "speed" and app.session is None  # type: ignore[attr-defined]
        for box in ("manual", "muggins", "coach"):  # space ticks each box
            await press(pilot, "tab")
            assert form.focused.id == box
            ticked = form.query_one(f"#{box}", Checkbox).value
            await press(pilot, "space")
            assert form.query_one(f"#{box}", Checkbox).value is not ticked
        await press(pilot, "tab")
        assert form.focused.id == "start-game"
        await press(pilot, "enter")  # an invalid form says why and does not start
        assert isinstance(app.screen, NewGameScreen) and app.session is None  # type: ignore[attr-defined]
        assert "from 15 to 1000, not 5" in str(form.query_one("#new-game-error", Static).render())
        assert form.focused.id == "target"  # (where the mistake is)
        await press(pilot, "4")  # still wrong: the error names what the field says now
        typed = form.query_one("#target", Input).value
        assert typed.startswith(("4", "54"))  # (the field may select its text on focus)
        assert f"not {typed}." in str(form.query_one("#new-game-error", Static).render())
        for _ in typed:
            await press(pilot, "backspace")  # blank is right (the game's own): the error goes
        assert str(form.query_one("#new-game-error", Static).render()) == ""
        await press(pilot, "3")  # no error while typing (Start checks)
        assert str(form.query_one("#new-game-error", Static).render()) == ""
        await press(pilot, "1")
        for _ in range(5):
            await press(pilot, "tab")
        assert form.focused.id == "start-game"
        await press(pilot, "enter")  # enter on Start starts
        session = app.session  # type: ignore[attr-defined]
        assert session is not None
        assert session.rules.target == 31 and session.seats[1].level == chosen_level
        assert factory.options.variant == chosen_variant
        assert factory.options.muggins is True and factory.options.auto_count is False
        await press(pilot, "q")
    store.close()


async def test_continue_comes_back_after_a_game_while_saved_games_remain(tmp_path: Path) -> None:
    """After a game, the start screen offers the saved games still in the store (it re-reads
    the store); only when none is left does Continue go."""
    store = open_store(tmp_path / "s.sqlite3")
    options = PlayOptions(seed=3, variant="short", instructions=False, speed="instant")
    ids = []
    for _ in range(2):  # two saved games, left unfinished
        saved = SessionFactory(options, store=store)(options.preset_rules())
        saved.run()
        saved.save()
        saved.release()
        ids.append(saved.game_id)
    offer = Session.resume(store, ids[-1])
    app = make_app(
        SessionFactory(options, store=store), options, menu=True, offer=offer, store=store
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert [e.key for e in app.screen.entries][:2] == ["n", "c"]  # type: ignore[attr-defined]
        await press(pilot, "c")  # continue the newest, to its end
        assert app.session is offer
        await play_until(pilot, app, lambda: app.mode is Mode.OVER)
        await press(pilot, "n")  # no other game now: back to the start screen
        screen = app.screen
        assert isinstance(screen, StartScreen)
        assert [e.key for e in screen.entries][:2] == ["n", "c"]  # the other saved game
        assert app.offer is not None and app.offer.game_id == ids[0]
        await press(pilot, "c")
        assert app.session is not None and app.session.game_id == ids[0]
        await play_until(pilot, app, lambda: app.mode is Mode.OVER)
        await press(pilot, "n")
        screen = app.screen
        assert isinstance(screen, StartScreen)
        assert "c" not in [e.key for e in screen.entries]  # none left: no Continue
    store.close()


async def test_another_game_keeps_every_setting_of_a_resumed_game(tmp_path: Path) -> None:
    """A game resumed (its settings from another run: counting by hand, muggins, a level, a
    target) and finished; "another game?" plays the same again, numbered Game 2."""
    store = open_store(tmp_path / "s.sqlite3")
    chosen = PlayOptions(
        seed=5,
        variant="short",
        target=31,
        level="greedy",
        auto_count=False,
        muggins=True,
        instructions=False,
        speed="instant",
    )
    first = SessionFactory(chosen, store=store)(chosen.preset_rules())
    first.run()
    first.save()
    first.release()
    resumed = Session.resume(store, first.game_id)  # type: ignore[arg-type]
    plain = PlayOptions(seed=9, instructions=False, speed="instant")  # this run's own options
    factory = SessionFactory(plain, store=store)
    app = make_app(factory, plain, resume=resumed, store=store)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(400):
            if app.mode is Mode.OVER:
                break
            if app.mode is Mode.COUNT:
                obs = app.obs
                assert obs is not None and obs.starter is not None
                total = hand_total(
                    [c.index for c in obs.to_count], obs.starter.index, obs.counting_crib
                )
                await press(pilot, *str(total), "enter")
            else:
                await step(pilot, app)
        assert app.mode is Mode.OVER
        await press(pilot, "y")
        second = app.session
        assert second is not None and second is not resumed
        assert second.auto_count is False and second.rules.muggins is True
        assert second.rules.target == 31 and second.rules == resumed.rules
        assert [s.level for s in second.seats] == [s.level for s in resumed.seats]
        assert "Game 2: " in "\n".join(app.query_one(EventLog).plain)
        await press(pilot, "q")
    store.close()


def test_offer_saved_skips_a_store_it_cannot_read(tmp_path: Path) -> None:
    from fifteentwo.app.saves import offer_saved
    from fifteentwo.store import StoreError

    store = open_store(tmp_path / "s.sqlite3")
    assert offer_saved(store) is None  # nothing saved: nothing offered

    class Unreadable:
        def list_games(self) -> list[object]:
            raise StoreError("the store is locked")

    warned: list[str] = []
    assert offer_saved(Unreadable(), warned.append) is None  # type: ignore[arg-type]
    assert warned == ["the store is locked"]
    store.close()


async def test_a_ticked_box_looks_ticked_without_colour(tmp_path: Path) -> None:
    """The form's boxes once drew ``▐X▌`` ticked or not, only the colour differing: on a
    monochrome terminal (or to a colour-blind eye) the state was invisible. The characters
    drawn differ now."""
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "n")
        form = app.screen  # type: ignore[attr-defined]
        boxes = list(form.query(Checkbox))
        assert [box.id for box in boxes] == ["manual", "muggins", "coach"]
        for box in boxes:
            drawn = {}
            for value in (False, True):
                box.value = value
                await pilot.pause()
                drawn[value] = box.render().plain  # the characters, without any colour
            assert drawn[True] != drawn[False], drawn
            assert drawn[True].startswith("▐X▌") and drawn[False].startswith("▐ ▌")
    store.close()
