"""memguard.kernel keeps the import path of what moved to memguard.operation (the kernel split):
adapters and users import ``Operation``, ``StampRequest`` and ``VerifiedFact`` from the kernel."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("name", ["Operation", "StampRequest", "VerifiedFact"])
def test_the_kernel_re_exports_the_operation_modules_classes(name: str) -> None:
    kernel = importlib.import_module("memguard.kernel")
    operation = importlib.import_module("memguard.operation")
    assert name in kernel.__all__ and name in operation.__all__
    # the same object, not a copy: isinstance checks and patches of the class see one class
    assert getattr(kernel, name) is getattr(operation, name)

