"""Anomaly detection against PyTorch: the switches and their restoring, the warning that it is on,
the NaN check after each node (which node, which output, the error text), and the forward stack
shown in the report."""
import warnings

import pytest

import nnref

torch = pytest.importorskip("torch")


def _run(lib, body):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = body(lib)
        except Exception as exc:  # the type and the message are the behaviour compared
            result = (type(exc).__name__, str(exc))
    return result, [str(w.message).split("\n")[0].split(" (Triggered")[0] for w in caught]


def _nan_from_sqrt(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with lib.autograd.set_detect_anomaly(True):
        (x.sqrt() * 0).sum().backward()


def _nan_from_division(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with lib.autograd.detect_anomaly():
        (x / x).sum().backward()


def _nan_without_the_check(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with lib.autograd.detect_anomaly(check_nan=False):
        (x / x).sum().backward()
    return str(x.grad)


def _switches(lib):
    seen = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with lib.autograd.detect_anomaly():
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.autograd.set_detect_anomaly(True)
    seen.append(lib.is_anomaly_enabled())
    lib.set_anomaly_enabled(False)
    seen.append(lib.is_anomaly_enabled())
    return seen


def _clean_backward(lib):
    x = lib.tensor([1.0, 4.0], requires_grad=True)
    with lib.autograd.detect_anomaly():
        (x.sqrt() * x).sum().backward()
    return x.grad.tolist()


@pytest.mark.parametrize("body", [_nan_from_sqrt, _nan_from_division, _nan_without_the_check, _switches,
                                  _clean_backward])
def test_matches_torch(body):
    assert _run(nnref, body) == _run(torch, body)


def test_the_report_shows_where_the_forward_made_the_node():
    def make_the_nan(x):
        return (x / x).sum()

    x = nnref.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with nnref.autograd.detect_anomaly():
            loss = make_the_nan(x)
            with pytest.raises(RuntimeError, match="Function 'DivBackward0' returned nan values in its 1th output"):
                loss.backward()
    report = [str(w.message) for w in caught if "Error detected in DivBackward0" in str(w.message)]
    assert report and "make_the_nan" in report[0]
