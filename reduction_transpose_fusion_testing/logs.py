"""Capture the package's decision log in tests."""

from __future__ import annotations

import contextlib
import logging
from typing import Iterator


@contextlib.contextmanager
def decision_log() -> Iterator[list[str]]:
    """The messages of logger ``reduction_transpose_fusion`` (INFO and up) emitted inside the block."""
    records: list[str] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: records.append(record.getMessage())
    logger = logging.getLogger("reduction_transpose_fusion")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
