"""Parses durations such as "90s", "5m", "1h30m" into seconds."""

import re

_PART = re.compile(r"(\d+)([hms])")
_UNIT = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    match = _PART.match(text)
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    return int(match.group(1)) * _UNIT[match.group(2)]
