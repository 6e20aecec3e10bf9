"""The one exception family of fifteentwo, so callers can catch everything with one name."""

from __future__ import annotations


class FifteenTwoError(Exception):
    """Base class of every error fifteentwo raises on purpose."""


class CardError(FifteenTwoError, ValueError):
    """A card string, a hand or a pile that cannot be used: bad token, duplicate, wrong count."""


class RulesError(FifteenTwoError, ValueError):
    """A `Rules` value that does not describe a playable game, or an unknown preset name."""


class IllegalActionError(FifteenTwoError, ValueError):
    """An action that is not legal in the current game state; the message says why."""


class RecordError(FifteenTwoError, ValueError):
    """A game record that cannot be read or replayed; the message names the deal and action."""
