"""Summary statistics of timing samples (milliseconds): mean, population standard deviation,
min, max, quartiles linearly interpolated between order statistics (numpy's default, R's type 7;
`statistics.quantiles(method="inclusive")`) and outliers outside the 1.5·IQR fences."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Summary:
    mean: float
    std: float
    min: float
    max: float
    q1: float
    median: float
    q3: float
    outliers: int
    samples: int

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1


def summarize(samples: Sequence[float]) -> Summary:
    if not samples:
        raise ValueError("no timing samples (iterations must be at least 1)")
    values = [float(v) for v in samples]
    if len(values) == 1:
        q1 = median = q3 = values[0]
    else:
        q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    return Summary(
        mean=statistics.fmean(values),
        std=statistics.pstdev(values),
        min=min(values),
        max=max(values),
        q1=q1,
        median=median,
        q3=q3,
        outliers=sum(1 for v in values if v < low or v > high),
        samples=len(values),
    )
