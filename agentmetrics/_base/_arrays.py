"""The numpy array types signatures name, one spelling for the package. Only
modules that use numpy import this (it imports numpy)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "FloatArray", "IdArray", "IntArray"]

#: Pass flags, masks.
BoolArray = npt.NDArray[np.bool_]
#: Scores, values.
FloatArray = npt.NDArray[np.float64]
#: Tool ids (a vocabulary's indices).
IdArray = npt.NDArray[np.int32]
#: Offsets, lengths, counts.
IntArray = npt.NDArray[np.int64]
