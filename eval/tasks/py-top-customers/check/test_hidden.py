import os
import sys
import unittest

sys.path.insert(0, os.getcwd())
from reports.orders import top_customers  # noqa: E402


class HiddenTest(unittest.TestCase):
    def test_order_ties_and_missing(self):
        rows = [
            {"customer": "cy", "cents": 200},
            {"customer": "bo", "cents": 200},
            {"customer": None, "cents": 999},
            {"cents": 999},
            {"customer": "al", "cents": 50},
        ]
        self.assertEqual(top_customers(rows, 2), [("bo", 200), ("cy", 200)])
        self.assertEqual(top_customers(rows, 10), [("bo", 200), ("cy", 200), ("al", 50)])
        self.assertEqual(top_customers([], 3), [])


if __name__ == "__main__":
    unittest.main()
