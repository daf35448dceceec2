"""CI gate: every example's kernel compiles for sm_90a with nvcc, with no errors and no warnings.

``viz NAME --show resources`` tabulates exactly this compile (the same source, the same flags), so
the view is checked here on the gate's own ptxas report rather than by a second nvcc run per example.
"""

import pytest

import examples
from codegen import nvcc, to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower
from tests.viz.test_cli import check_resources
from viz.cli import make_view
from viz.cuda_view import issues_wgmma
from viz.subject import Subject
from viz.view import render_text

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


@pytest.mark.parametrize("name", examples.names())
def test_example_compiles_for_sm90a(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = lower(examples.load(name).build())
    source = to_cuda(kernel)
    resources = compile_check(source, sass=issues_wgmma(kernel))
    assert resources.registers > 0

    compiled: list[str] = []

    def same_compile(view_source: str, **options: object) -> nvcc.PtxasResources:
        compiled.append(view_source)
        assert options == {"sass": issues_wgmma(kernel)}
        return resources

    monkeypatch.setattr(nvcc, "compile_check", same_compile)
    check_resources(render_text(make_view(Subject(name), "resources"), width=100), kernel)
    assert compiled == [source], "viz --show resources compiles something else than the example's kernel"
