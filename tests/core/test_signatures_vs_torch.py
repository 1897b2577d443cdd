"""Every call form PyTorch's signatures allow, for every callable nnref shares with PyTorch
(``torch``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special``, ``Tensor`` methods, ``nn``
module constructors): each parameter by position and by keyword as PyTorch allows, on small valid
inputs, gives PyTorch's result (values, dtype, shape) or PyTorch's exception type.

The signatures and the argument makers are in ``signature_oracle.py``; run it as a script for the
coverage figures.
"""
import pytest

torch = pytest.importorskip("torch")

import signature_oracle as oracle  # noqa: E402

CASES = oracle.survey()
CALLED = [case for case in CASES if not case.skip]


@pytest.mark.parametrize("case", CALLED, ids=[case.qualname for case in CALLED])
def test_every_call_form_agrees_with_torch(case):
    disagreements, stale = [], []
    for form in case.forms:
        expected, got, agrees = oracle.compare(case.qualname, form)
        known = oracle.known_difference(case.qualname, form)
        if known and agrees:
            stale.append(f"{form.label} now agrees with PyTorch: remove it from KNOWN ({known})")
        elif not agrees and not known:
            disagreements.append(f"{form.label}: PyTorch {expected[0]} "
                                 f"{expected[1] if expected[0] == 'raises' else ''}, nnref {got[0]} "
                                 f"{got[1] if got[0] == 'raises' else '(different result)'}")
    assert not disagreements + stale, "\n".join(disagreements + stale)


def test_every_shared_callable_is_called_or_skipped_for_a_stated_reason():
    shared = {qualname for qualname, _, _ in oracle.shared_callables()}
    assert shared == {case.qualname for case in CASES}
    for case in CASES:
        assert case.forms or case.skip, case.qualname
    # The survey must reach nearly all of them: skipping is the exception.
    assert len(CALLED) >= 0.95 * len(CASES), f"{len(CALLED)} of {len(CASES)} called"


def test_the_oracle_reads_keyword_forms_from_torch():
    """randint(high, size=) is PyTorch's (its ATen schema ``randint(SymInt high, SymInt[] size, ...)``);
    the oracle must produce it, and the form must run on nnref."""
    case = next(case for case in CASES if case.qualname == "torch.randint")
    labels = {form.label for form in case.forms}
    assert {"randint(high, size=)", "randint(low, high, size)", "randint(high=, size=)"} <= labels
    form = next(form for form in case.forms if form.label == "randint(high, size=)")
    assert oracle.compare(case.qualname, form)[2]


def test_every_known_difference_names_a_form_the_oracle_makes():
    forms = {(case.qualname, form.label) for case in CASES for form in case.forms}
    assert set(oracle.KNOWN) <= forms, set(oracle.KNOWN) - forms


def test_the_oracle_makes_the_forms_pytorch_refuses():
    """Keyword-only parameters given by position (and keyword names only nnref's signature has):
    PyTorch raises TypeError for them, so nnref must refuse them too (the test above runs them all)."""
    by_position = {(case.qualname, form.label): form for case in CALLED for form in case.forms
                   if form.label.endswith("[keyword-only by position]")}
    assert len(by_position) > 100
    for key in [("torch.nn.functional.gelu", "gelu(input, approximate) [keyword-only by position]"),
                ("torch.normal", "normal(mean, std, generator) [keyword-only by position]"),
                ("torch.Tensor.uniform_", "uniform_(from, to, generator) [keyword-only by position]")]:
        assert key in by_position, key
        expected, got, agrees = oracle.compare(key[0], by_position[key])
        assert expected == ("raises", "TypeError") and agrees
