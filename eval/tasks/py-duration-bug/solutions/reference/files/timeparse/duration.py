"""Parses durations such as "90s", "5m", "1h30m" into seconds."""

import re

_PART = re.compile(r"(\d+)([hms])")
_WHOLE = re.compile(r"(?:\d+[hms])+")
_UNIT = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    if not _WHOLE.fullmatch(text):
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * _UNIT[unit] for n, unit in _PART.findall(text))
