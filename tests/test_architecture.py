"""The package's layering: a layer table that no import may climb, no import cycles, one
z-score helper, one spelling of "standardise", and real sources added by one registration."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mmlu_audit
from mmlu_audit.core.errors import ParameterError

PACKAGE = Path(mmlu_audit.__file__).resolve().parent
#: The package's layers, lowest first. A module may import from a lower layer, or from its own
#: folder (the first name below ``mmlu_audit``); the three engines of one layer are independent.
LAYERS = (
    ("core",),                          # errors, seeds, scaling, paths, taxonomy, paper
    ("data",),                          # the real sources, each checked against its sha256
    ("irt", "features", "inference"),   # the engines
    ("worlds",),                        # simulated worlds and the real-or-simulated switch
    ("analyses",),                      # one module per paper section or appendix
    ("book",),                          # building, rendering and checking the book
    ("audit",),                         # the `audit` command for other benchmarks
    ("__main__", ""),                   # the command line and the package's public API
)
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}


def _module_name(path: Path) -> str:
    parts = ("mmlu_audit",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str) -> set[str]:
    """The ``mmlu_audit`` modules ``module`` imports anywhere in its body (lazy imports included)."""
    tree = ast.parse(MODULES[module].read_text(), filename=str(MODULES[module]))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imports_of(module) for module in MODULES}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(root):
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    out.append(component)
            elif child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_import_graph_is_parsed():
    # guards the two tests below against passing on an empty or mis-resolved graph
    assert "mmlu_audit.data.registry" in GRAPH["mmlu_audit.worlds.sources"]
    assert "mmlu_audit.irt.transforms" in GRAPH["mmlu_audit.irt.engine"]
    assert "mmlu_audit.data.leaderboard" in GRAPH["mmlu_audit.data.registry"]  # a lazy import
    contrasts = GRAPH["mmlu_audit.analyses.regression.contrasts"]
    assert {"mmlu_audit.inference", "mmlu_audit.features"} <= contrasts


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [sorted(c) for c in strongly_connected(graph) if len(c) > 1] == [["a", "b", "c"]]


def test_no_import_cycles_among_package_modules():
    cycles = [sorted(c) for c in strongly_connected(GRAPH) if len(c) > 1]
    assert cycles == []


def folder_of(module: str) -> str:
    """The layer folder of a module: ``mmlu_audit.irt.engine`` → ``irt``; the package → ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_violations(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each module's imports of a module in a higher layer or in a sibling folder of its layer."""
    found = {}
    for module, imported in graph.items():
        mine = folder_of(module)
        bad = sorted(name for name in imported if folder_of(name) != mine
                     and RANK[folder_of(name)] >= RANK[mine])
        if bad:
            found[module] = bad
    return found


def test_every_module_has_a_layer():
    assert {folder_of(module) for module in MODULES} <= set(RANK), "a folder missing from LAYERS"


def test_the_layer_check_catches_an_upward_and_a_sideways_import():
    graph = {"mmlu_audit.irt.engine": {"mmlu_audit.book.device", "mmlu_audit.core.errors"},
             "mmlu_audit.features.table": {"mmlu_audit.inference.ols", "mmlu_audit.features.parse"},
             "mmlu_audit.analyses.pro": {"mmlu_audit.analyses.consensus", "mmlu_audit.worlds.sources"}}
    assert layer_violations(graph) == {"mmlu_audit.irt.engine": ["mmlu_audit.book.device"],
                                       "mmlu_audit.features.table": ["mmlu_audit.inference.ols"]}


def test_no_import_climbs_a_layer():
    assert layer_violations(GRAPH) == {}


def _divides_by_a_std(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Div):
            right = node.right if isinstance(node, ast.BinOp) else node.value
            if (isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute)
                    and right.func.attr in ("std", "nanstd")):
                lines.append(node.lineno)
    return lines


def test_one_z_score_helper():
    # residual /= residual.std() in the simulator rescales an already centred vector: not a z-score
    allowed = {"mmlu_audit.worlds.simulated": 1}
    offenders = {}
    for module, path in MODULES.items():
        lines = _divides_by_a_std(ast.parse(path.read_text()))
        if len(lines) > allowed.get(module, 0):
            offenders[module] = lines
    assert offenders == {}


def test_public_names_spell_standardise_the_british_way():
    american = {}
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and "standardiz" in node.name.lower():
                american.setdefault(module, []).append(node.name)
    assert american == {}


def test_standardise_matches_scipy_and_keeps_the_input_type():
    from mmlu_audit.core.scaling import standardise

    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 3.0, (50, 3))
    for ddof in (0, 1):
        np.testing.assert_allclose(standardise(x, ddof=ddof), stats.zscore(x, ddof=ddof), atol=1e-12)
    frame = pd.DataFrame(x, columns=list("abc"), index=np.arange(50) + 100)
    frame.iloc[4, 1] = np.nan
    frame["const"] = 7.0
    z = standardise(frame)
    assert isinstance(z, pd.DataFrame) and list(z.index) == list(frame.index)
    expected = (frame["b"] - frame["b"].mean()) / frame["b"].std(ddof=0)  # pandas skips NaN too
    np.testing.assert_allclose(z["b"], expected, atol=1e-12)
    assert np.isnan(z.iloc[4, 1]) and (z["const"] == 0).all()
    series_z, mean, sd = standardise(frame["a"], return_moments=True)
    assert isinstance(series_z, pd.Series) and mean == pytest.approx(frame["a"].mean())
    assert sd == pytest.approx(frame["a"].std(ddof=0))


def test_a_real_source_is_one_registration(monkeypatch, tmp_path):
    from mmlu_audit.worlds import sources
    from mmlu_audit.data import REAL_SOURCES, ResponseMatrix, register_source

    items = pd.DataFrame({"item_id": ["s/0", "s/1", "s/2"]})
    fake = ResponseMatrix(np.array([[1, 0, -1]], np.int8), pd.DataFrame({"model_id": ["m"]}),
                          np.array(["s/2", "s/0", "s/1"]), "tiny", False, "A tiny real source.")
    monkeypatch.setattr("mmlu_audit.data.registry.REAL_SOURCES", dict(REAL_SOURCES))
    from mmlu_audit.data import registry

    register_source("tiny", "one model, three items", lambda root: fake)
    assert "tiny" in registry.REAL_SOURCES and "tiny" not in REAL_SOURCES
    matrix = sources.load_responses("tiny", items=items)
    assert list(matrix.item_ids) == ["s/0", "s/1", "s/2"]
    np.testing.assert_array_equal(matrix.responses, [[0, -1, 1]])
    with pytest.raises(ParameterError, match="already taken"):
        register_source("tiny", "again", lambda root: fake)
    with pytest.raises(ParameterError, match="already taken"):
        register_source("simulated-x", "not real", lambda root: fake)


CHAPTERS = sorted((PACKAGE.parents[1] / "chapters").glob("[0-9][0-9]_*.py"))


def test_chapters_are_found():
    assert len(CHAPTERS) >= 17


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapters_define_no_functions_or_classes(chapter):
    """Analysis lives in tested library functions; a chapter only calls them (a lambda is a function too)."""
    tree = ast.parse(chapter.read_text(), filename=str(chapter))
    defined = [node.name for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    defined += [f"lambda (line {node.lineno})" for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    assert not defined, f"{chapter.name} defines {defined}: move them into lib/mmlu_audit"
