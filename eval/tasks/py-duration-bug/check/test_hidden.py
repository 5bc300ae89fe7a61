import os
import sys
import unittest

sys.path.insert(0, os.getcwd())
from timeparse.duration import parse_duration  # noqa: E402


class HiddenTest(unittest.TestCase):
    def test_all_parts_count(self):
        self.assertEqual(parse_duration("2h5m10s"), 7510)
        self.assertEqual(parse_duration(" 1M "), 60)

    def test_garbage_is_refused(self):
        for bad in ["", "abc", "5x", "1h30", "h1"]:
            with self.assertRaises(ValueError, msg=bad):
                parse_duration(bad)


if __name__ == "__main__":
    unittest.main()
