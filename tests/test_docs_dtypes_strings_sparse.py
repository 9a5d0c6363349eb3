"""The Python examples in docs/dtypes.md and docs/strings_and_sparse.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["dtypes.md", "strings_and_sparse.md"]


def _blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / name).read_text(), re.S)


@pytest.mark.parametrize("name", DOCS)
def test_doc_examples_run(name):
    blocks = _blocks(name)
    assert blocks, name
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/{name}[{i}]", "exec"), {})
