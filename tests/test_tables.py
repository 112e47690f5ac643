"""The loaders' shared shape checks: one error naming what is missing or repeated."""

import pandas as pd
import pytest

from mmlu_audit.data.tables import require_columns, require_unique
from mmlu_audit.core.errors import DataError


def test_require_columns_names_every_missing_column_and_the_expected_set():
    table = pd.DataFrame({"a": [1], "c": [2]})
    require_columns(table, ("a", "c"), "t.parquet")
    expected = r"t.parquet: missing column\(s\) \['b', 'd'\]; expected \['a', 'b', 'c', 'd'\]"
    with pytest.raises(DataError, match=expected):
        require_columns(table, ("a", "b", "c", "d"), "t.parquet")


def test_require_unique_counts_repeats_and_shows_one():
    require_unique(pd.DataFrame({"id": ["x", "y"]}), "id", "t")
    with pytest.raises(DataError, match=r"2 duplicate id\(s\), e.g. 'x'"):
        require_unique(pd.DataFrame({"id": ["x", "x", "y", "x"]}), "id", "t")
