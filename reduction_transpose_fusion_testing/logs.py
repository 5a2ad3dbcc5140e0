"""Capture the package's decision log in tests."""

from __future__ import annotations

import contextlib
import logging
from typing import Iterator


@contextlib.contextmanager
def log_messages(*names: str, level: int = logging.INFO) -> Iterator[list[str]]:
    """The messages of the loggers ``names`` (``level`` and up) emitted inside the block; each logger's level is
    restored after it."""
    records: list[str] = []
    handler = logging.Handler(level)
    handler.emit = lambda record: records.append(record.getMessage())
    loggers = [logging.getLogger(name) for name in names]
    old = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(level)
    try:
        yield records
    finally:
        for logger, level_before in zip(loggers, old):
            logger.removeHandler(handler)
            logger.setLevel(level_before)


def decision_log() -> contextlib.AbstractContextManager[list[str]]:
    """The messages of logger ``reduction_transpose_fusion`` (INFO and up) emitted inside the block."""
    return log_messages("reduction_transpose_fusion")
