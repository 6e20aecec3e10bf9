"""The expert level (and ``expert-1`` and ``expert-2``, its frozen references): exact discards,
searched pegging, and the score in mind.

Discards come from the analysis engine (`analyze_discard`): the hand over every starter and the
crib over every starter and every throw of the modelled opponent (``sensible`` in two-player
games). Near the end of a game covered by an equity table, discards are ranked by the
probability of winning instead (`fifteentwo.players.position`).

Pegging, two players: for each card, the rest of the play is searched exactly
(`fifteentwo.players.pegging.ModelSearch`, the opponent replying as a sensible player who cannot
see our hand) against weighted guesses at the opponent's unseen cards:
drawn from the cards we cannot see, restricted by the goes they have said, and weighted by how
good a hand a sensible player would have kept (what their discard reveals) and by how well they
explain the plays made (the opening lead read both as a player who leads by the lead table, as
the expert does, and as one who does not would choose it). Far from the end the
value is the expected pegging difference; near it, the probability of winning, so that pegging
out beats counting and the show order is respected. Three- and four-player games peg by the
standard heuristic, taking a card that pegs out whenever there is one.

Sample sizes are fixed per decision shape, never timed, so a decision depends only on the seed
and the observation (`Player.decision_rng`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from fifteentwo.actions import GO, PLAY_ACTIONS, Discard, Phase
from fifteentwo.cards import Card
from fifteentwo.game import Observation
from fifteentwo.players.base import Hint, Player
from fifteentwo.players.knowledge import (
    PIPS,
    RANK_OF,
    our_crib,
    pips_floor,
    played_by,
    their_plays,
    unseen_indices,
)
from fifteentwo.players.pegging import (
    Guess,
    ModelSearch,
    PlayModel,
    guess_hands,
    play_likelihood,
    sensible_keep,
)
from fifteentwo.players.pegtable import keep_likelihood, opening_leads, peg_value
from fifteentwo.players.position import ENDGAME, covered, equity_function, near_end
from fifteentwo.scoring import hand_total, peg_points_ranks

__all__ = ["ExpertPlayer", "FrozenExpert2Player", "FrozenExpertPlayer"]

Choice = tuple[float, Card | None, str, str]
"""(value, card or None for go, why, unit): unit "points" or "win" (see `Hint`)."""


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(c.short for c in cards)


class ExpertPlayer(Player):
    """Exact discard values, determinized pegging search, and score awareness."""

    name = "expert"
    beta = 0.37
    """Weight of a guessed hand's show value in its likelihood (a sensible keep)."""
    draws: tuple[int, ...] = (256, 256, 256, 224, 192, 160, 128, 96, 96)
    """Guesses at the opponent's hand by the number of cards both players still hold (four
    times expert-1's, twice expert-2's: with expert-1's, the choice differed from a 512-guess
    search's in 10-20% of real choices with 5 to 7 cards out)."""
    proposals = 1600
    """Candidate hands drawn before weighting (the prior keeps the likeliest for the rest)."""
    temperature = 0.3
    """Softmax temperature (points) of the model that weighs guesses by how well they explain
    the opponent's plays so far; 0 turns that inference off."""
    peg_weight = 1.0
    """Weight of the kept ranks' pegging value (`pegtable`) in a discard's value."""
    use_tables = True
    """Use the pegging table in discards and the lead table for the opening lead."""
    endgame_discard = 60
    """Points from the target within which discards are ranked by the probability of winning
    (expert-2: 35, `ENDGAME`; from 60 out the refined discard also weighs when to keep a hand
    that pegs and when to throw the crib points)."""
    endgame_play = ENDGAME
    """Points from the target within which the play's search values the probability of winning."""
    lead_temperature = 0.15
    """Softmax temperature (points) at which the opponent's opening lead is read as a player who
    leads by the lead table (as the expert does) would choose it; 0 reads it through the
    standard heuristic like their other plays."""
    lead_share = 0.5
    """The chance, in that reading, that the opponent leads by the lead table; the rest of the
    time its lead is read through the heuristic (a player who leads otherwise)."""
    reply_temperature = 0.5
    """Softmax temperature (points) of the opponent's replies in the play's search, over the
    standard heuristic's values (0 has it reply with the heuristic's best card): an opponent
    who plays otherwise than the heuristic is expected less exactly."""
    refined_endgame = True
    """Near the end, value a discard's chance of winning with the kept ranks' pegging value
    (`pegtable`) moving both sides' pegging, and the crib as a distribution of points rather
    than its mean rounded to whole points (`discard_win`'s ``peg_shift`` and
    ``crib_distribution``): +0.033 wins per pair over the expert without it, on the same
    20,000 games against expert-1 (docs/players.md)."""

    # --- discards -----------------------------------------------------------------------------

    def discard_options(self, obs: Observation) -> list[tuple[float, tuple[Card, ...], str, str]]:
        """(value, throw, why, unit) for each discard, best first."""
        from fifteentwo.analysis import analyze_discard
        from fifteentwo.analysis.discard import crib_rank_distributions
        from fifteentwo.analysis.equity import discard_win

        rules = obs.rules
        ours = our_crib(obs)
        two = rules.players == 2
        score: tuple[int, int] | None = None
        if two and covered(rules) and near_end(rules, obs.scores, self.endgame_discard):
            score = (obs.scores[obs.side], obs.scores[1 - obs.side])
        pegs = two and rules.hand_size == 6 and self.use_tables
        refined = score is not None and pegs and self.refined_endgame
        analysis = analyze_discard(
            obs.hand,
            dealer=ours,
            players=rules.players,
            opponent="sensible" if two else "uniform",
            score=None if refined else score,
            target=rules.target,
        )
        cribs = crib_rank_distributions(obs.hand, dealer=ours) if refined else {}
        out = []
        sign = "+" if ours else "-"
        for o in analysis:
            why = f"keep {o.keep_text}: hand {o.hand.mean:.2f} {sign} crib {o.crib.mean:.2f}"
            if refined and score is not None:
                peg = self.peg_weight * self._peg_value([RANK_OF[c.index] for c in o.keep], ours)
                win = discard_win(
                    *score,
                    dealer=ours,
                    hand_distribution=dict(o.hand.distribution),
                    crib_mean=o.crib.mean,
                    target=rules.target,
                    peg_shift=peg,
                    crib_distribution=cribs[o.throw],
                )
                out.append((win, o.throw, f"wins {win:.1%}; {why}, pegging {peg:+.2f}", "win"))
                continue
            if o.win is not None:
                out.append((o.win, o.throw, f"wins {o.win:.1%}; {why}", "win"))
                continue
            value = o.total
            if pegs:
                peg = self.peg_weight * self._peg_value([RANK_OF[c.index] for c in o.keep], ours)
                value += peg
                why += f", pegging {peg:+.2f}"
            out.append((value, o.throw, why, "points"))
        # To 9 decimals, so that equal options keep the analysis's machine-independent order.
        out.sort(key=lambda x: -round(x[0], 9))
        return out

    def _peg_value(self, ranks: Sequence[int], ours: bool) -> float:
        """The pegging value of keeping these ranks (`pegtable`)."""
        return peg_value(ranks, ours)

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        return self.discard_options(obs)[0][1]

    # --- the play -----------------------------------------------------------------------------

    def play_options(self, obs: Observation) -> list[Choice]:
        """(value, card or None for go, why, unit) for each choice, best first."""
        limit = 31 - obs.count
        playable = [c for c in obs.hand if c.pips <= limit]
        if not playable:
            return [(0.0, None, "no card comes in", "points")]
        if obs.rules.players != 2:
            return self._heuristic_options(obs)
        ranks = {RANK_OF[c.index] for c in playable}
        go_legal = GO in obs.legal
        if len(ranks) == 1 and not go_legal:
            return [(0.0, playable[0], "the only card that comes in", "points")]
        return self._searched_options(obs, playable)

    def _heuristic_options(self, obs: Observation) -> list[Choice]:
        from fifteentwo.players.standard import play_values

        out = []
        pile = [RANK_OF[c.index] for c in obs.pile]
        need = obs.rules.target - obs.scores[obs.side]
        for value, card, why in play_values(obs):
            if card is not None:
                pts = peg_points_ranks([*pile, RANK_OF[card.index]], obs.count + card.pips)
                if pts >= need:
                    value, why = value + 1000.0, "pegs out"
            out.append((value, card, why, "points"))
        out.sort(key=lambda x: -x[0])
        return out

    def _opening_leads(self, ranks: tuple[int, ...]) -> dict[int, float] | None:
        """The pone's opening lead values from the lead table (`pegtable`)."""
        return opening_leads(ranks)

    def _prior(self, obs: Observation) -> Callable[[Sequence[int]], float]:
        """What the opponent's discard tells us about the hand they kept."""
        rules = obs.rules
        if rules.hand_size == 6 and self.use_tables:
            they_deal = obs.dealer != obs.seat

            def table(kept: Sequence[int]) -> float:
                return keep_likelihood([RANK_OF[c] for c in kept], they_deal)

            return table
        return sensible_keep(self.beta)

    def _draws(self, cards_left: int) -> int:
        return self.draws[min(cards_left, len(self.draws) - 1)]

    def _searched_options(self, obs: Observation, playable: list[Card]) -> list[Choice]:
        rules = obs.rules
        me, opp = obs.seat, 1 - obs.seat
        h0 = tuple(sorted(RANK_OF[c.index] for c in obs.hand))
        pile = tuple(RANK_OF[c.index] for c in obs.pile)
        endgame = near_end(rules, obs.scores, self.endgame_play)
        if not obs.played and not endgame and rules.hand_size == 6 and self.use_tables:
            leads = self._opening_leads(h0)
            if leads is not None:
                why = "opening lead: {:+.2f} expected net pegging (lead table)"
                return self._choices(playable, dict(leads), why)
        passed = (1 if obs.passed[me] else 0) | (2 if obs.passed[opp] else 0)
        last = -1
        if obs.pile and obs.played:
            last = 0 if obs.played[-1][0] == me else 1
        guesses = self.guesses(obs, endgame=endgame)
        n = len(guesses)
        state = _Root(h0, pile, obs.count, passed, last)
        if endgame:
            wins = self._values(obs, guesses, state, wins=True)
            best = max(wins.values())
            if sum(1 for v in wins.values() if v >= best - 1e-9) == 1:
                return self._choices(
                    playable, wins, f"wins {{:.1%}} ({n} guesses at their hand)", unit="win"
                )
            # Several choices win equally often (often all or none): the points decide.
            points = self._values(obs, guesses, state, wins=False)
            return self._choices(
                playable,
                wins,
                f"wins {{:.1%}} ({n} guesses at their hand)",
                tie=points,
                unit="win",
            )
        points = self._values(obs, guesses, state, wins=False)
        return self._choices(
            playable, points, f"{{:+.2f}} expected net pegging ({n} guesses at their hand)"
        )

    def guesses(self, obs: Observation, *, endgame: bool = False) -> list[Guess]:
        """Weighted guesses at the opponent's unplayed cards (two-player play): drawn from the
        cards we cannot see, none below what their goes allow, weighted by what their discard
        reveals (`_prior`) and by how well they explain the cards they have played."""
        rules = obs.rules
        opp = 1 - obs.seat
        k = obs.hand_sizes[opp]
        unseen = unseen_indices(obs)
        floor = pips_floor(obs, opp) if not rules.optional_play_after_go else 1
        pool = [c for c in unseen if PIPS[RANK_OF[c]] >= floor]
        if len(pool) < k:
            pool = unseen
        draws = self._draws(len(obs.hand) + k)
        if endgame:
            draws = max(8, draws * 2 // 3)
        likelihood = None
        if self.temperature and obs.starter is not None:
            leads = None
            if self.lead_temperature and rules.hand_size == 6 and self.use_tables and not endgame:
                leads = self._opening_leads
            likelihood = play_likelihood(
                their_plays(obs, opp),
                RANK_OF[obs.starter.index],
                self.temperature,
                leads=leads,
                lead_temperature=self.lead_temperature,
                lead_share=self.lead_share,
                model=self.play_model(),
            )
        return guess_hands(
            self.decision_rng(obs),
            pool,
            k,
            known=[c.index for c in played_by(obs, opp)],
            draws=draws,
            prior=self._prior(obs),
            likelihood=likelihood,
            proposals=self.proposals,
        )

    def play_model(self) -> PlayModel | None:
        """How the opponent's plays are read (None: the standard heuristic at
        ``temperature``); a variant may read them otherwise (bench/expert_variants.py). The
        frozen experts inherit this hook: their pinned games fail if it ever moves them."""
        return None

    def reply_model(self) -> PlayModel | None:
        """How the play's search expects the opponent to reply (None: the standard heuristic,
        at ``reply_temperature``); a variant may model it otherwise, as `play_model`."""
        return None

    def _values(
        self, obs: Observation, guesses: list[Guess], root: _Root, *, wins: bool
    ) -> dict[int, float]:
        """Each choice's value averaged over the guesses: expected net pegging, or with
        ``wins`` the probability of winning (the play, then the show in order)."""
        rules = obs.rules
        starter = obs.starter
        assert starter is not None
        me = obs.seat
        # What the opponent cannot see, apart from its own hand: all but the played cards and
        # the starter (our hand and both discards among them).
        counts = [4] * 14
        for _, c in obs.played:
            counts[RANK_OF[c.index]] -= 1
        counts[RANK_OF[starter.index]] -= 1
        seen = len(obs.played) + 1
        scores = (obs.scores[me], obs.scores[1 - me])
        leaves = _Leaves(obs) if wins else None
        totals: dict[int, float] = {}
        for g in guesses:
            theirs = list(counts)
            for r in g.ranks:
                theirs[r] -= 1
            search = ModelSearch(
                counts=theirs,
                unseen=52 - seen - len(g.ranks),
                target=rules.target if leaves else None,
                leaf=leaves.leaf(g) if leaves else None,
                second_series=rules.second_series,
                optional_go=rules.optional_play_after_go,
                reply_temperature=self.reply_temperature,
                reply_model=self.reply_model(),
            )
            values = search.root(
                root.hand, g.ranks, root.pile, root.count, root.passed, root.last, scores
            )
            for r, v in values.items():
                totals[r] = totals.get(r, 0.0) + g.weight * v
        return totals

    def _choices(
        self,
        playable: list[Card],
        values: dict[int, float],
        template: str,
        tie: dict[int, float] | None = None,
        unit: str = "points",
    ) -> list[Choice]:
        """Choices (rank -> value; 0 for go) as cards with reasons, best first; ``tie``
        breaks exact ties."""
        out: list[tuple[float, float, Card | None, str]] = []
        for r, v in values.items():
            card = None if r == 0 else next(c for c in playable if RANK_OF[c.index] == r)
            why = ("say go: " if card is None else f"play {card.short}: ") + template.format(v)
            if tie is not None:
                why += f"; then {tie[r]:+.2f} expected net pegging"
            out.append((round(v, 9), 0.0 if tie is None else tie[r], card, why))
        out.sort(key=lambda x: (-x[0], -x[1], 99 if x[2] is None else x[2].index))
        return [(v, card, why, unit) for v, _, card, why in out]

    def choose_play(self, obs: Observation) -> Card | None:
        return self.play_options(obs)[0][1]

    # --- hints -----------------------------------------------------------------------------

    def rank(self, obs: Observation) -> list[Hint]:
        if obs.phase is Phase.DISCARD:
            return [
                Hint(Discard(tuple(sorted(throw))), value, why, unit)
                for value, throw, why, unit in self.discard_options(obs)
            ]
        if obs.phase is Phase.PLAY:
            return [
                Hint(GO if card is None else PLAY_ACTIONS[card.index], value, why, unit)
                for value, card, why, unit in self.play_options(obs)
            ]
        return super().rank(obs)


@dataclass(frozen=True, slots=True)
class _Root:
    """The play as the search starts it: our ranks, the pile, the count, goes, last player."""

    hand: tuple[int, ...]
    pile: tuple[int, ...]
    count: int
    passed: int
    last: int


class _Leaves:
    """The end of the play in the win-probability search: the show in its order (the pone's
    hand, the dealer's hand, the crib), then the position's equity with the deal passing."""

    def __init__(self, obs: Observation) -> None:
        starter = obs.starter
        assert starter is not None
        self.starter = starter.index
        self.dealer = obs.dealer == obs.seat
        self.target = obs.rules.target
        self.equity = equity_function(obs.rules)
        self.mine = hand_total([c.index for c in obs.kept], starter.index)
        self.crib = _crib_distribution(obs)
        self.known = [c.index for c in played_by(obs, 1 - obs.seat)]

    def leaf(self, guess: Guess) -> Callable[[int, int], float]:
        """The leaf value for one guess at the opponent's cards (their show depends on it)."""
        theirs = hand_total([*self.known, *guess.cards], self.starter)
        mine, crib, target, equity = self.mine, self.crib, self.target, self.equity
        if self.dealer:

            def as_dealer(s0: int, s1: int) -> float:
                s1 += theirs
                if s1 >= target:
                    return 0.0
                s0 += mine
                if s0 >= target:
                    return 1.0
                return sum(
                    p * (1.0 if s0 + x >= target else equity(s0 + x, s1, False)) for x, p in crib
                )

            return as_dealer

        def as_pone(s0: int, s1: int) -> float:
            s0 += mine
            if s0 >= target:
                return 1.0
            s1 += theirs
            if s1 >= target:
                return 0.0
            return sum(p * (0.0 if s1 + x >= target else equity(s0, s1 + x, True)) for x, p in crib)

        return as_pone


def _crib_distribution(obs: Observation) -> list[tuple[int, float]]:
    """(points, probability) of the crib given the starter: our throw plus two unseen cards,
    every pair equally likely (two-player)."""
    starter = obs.starter
    assert starter is not None
    ours = [c.index for c in obs.discards]
    unseen = unseen_indices(obs)
    counts: dict[int, int] = {}
    for a, b in combinations(unseen, 2):
        total = hand_total([*ours, a, b], starter.index, True)
        counts[total] = counts.get(total, 0) + 1
    n = sum(counts.values())
    return [(x, c / n) for x, c in sorted(counts.items())]


class FrozenExpertPlayer(ExpertPlayer):
    """``expert-1``: the expert as it stood on 2026-11-25, kept unchanged as the yardstick every
    later expert is measured against (docs/players.md, "Strength and speed").

    Every setting is written out here rather than inherited, so tuning `ExpertPlayer` leaves
    it alone; a test pins its decisions in whole games on fixed seeds, so a change to the code
    it shares (the analysis, the search, the tables) that would move it fails loudly.
    """

    name = "expert-1"
    beta = 0.37
    draws = (64, 64, 64, 56, 48, 40, 32, 24, 24)
    proposals = 400
    temperature = 0.3
    peg_weight = 1.0
    use_tables = True
    endgame_discard = 35
    endgame_play = 35
    lead_temperature = 0.0
    lead_share = 1.0
    reply_temperature = 0.0
    refined_endgame = False


class FrozenExpert2Player(ExpertPlayer):
    """``expert-2``: the expert as it stood on 2026-11-26 (the lead reading, soft replies, twice
    expert-1's guesses and the refined endgame discard: +0.083 wins per pair over expert-1 in
    20,000 games), kept unchanged as the second yardstick (docs/players.md, "expert-2").

    Like `FrozenExpertPlayer`, every setting is written out rather than inherited, so tuning
    `ExpertPlayer` leaves it alone, and a test pins its decisions in whole games on fixed seeds.
    """

    name = "expert-2"
    beta = 0.37
    draws = (128, 128, 128, 112, 96, 80, 64, 48, 48)
    proposals = 800
    temperature = 0.3
    peg_weight = 1.0
    use_tables = True
    endgame_discard = 35
    endgame_play = 35
    lead_temperature = 0.15
    lead_share = 0.5
    reply_temperature = 0.5
    refined_endgame = True
