"""The store's JSON text: orjson where it is installed, `json.dumps`'s values and refusals."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fifteentwo.store import sql
from fifteentwo.store.base import StoreError

pytest.importorskip("orjson")

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers(-9, 9)), inner, max_size=4),
    ),
    max_leaves=12,
)


def _stdlib(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_the_text_holds_what_json_dumps_would_or_is_refused_as_it_would(data: Any) -> None:
    try:
        expected = json.loads(_stdlib(data))
    except ValueError:  # a NaN or an infinity: refused, not written as null
        with pytest.raises(StoreError):
            sql.dumps(data)
        return
    assert json.loads(sql.dumps(data)) == expected


def test_a_full_saves_nulls_keep_the_quick_path_and_a_nan_beside_them_is_refused() -> None:
    save = {"deals": [{"cut_depth": None, "starter": "5h"}], "record": {"final": None}}
    assert sql._orjson_dumps(save) == _stdlib(save)  # (no float: the same text)
    with pytest.raises(StoreError):
        sql.dumps({**save, "think": math.nan})
    with pytest.raises(StoreError):
        sql.dumps({**save, "think": [math.inf]})
