"""Parses durations such as "90s", "5m", "1h30m" into seconds."""

import re

_PART = re.compile(r"(\d+)([hms])")
_UNIT = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    return sum(int(n) * _UNIT[u] for n, u in _PART.findall(text))
