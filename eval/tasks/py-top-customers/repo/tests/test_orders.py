import unittest

from reports.orders import top_customers


class TopCustomersTest(unittest.TestCase):
    def test_totals_per_customer(self):
        rows = [{"customer": "ada", "cents": 500}, {"customer": "bob", "cents": 300}, {"customer": "ada", "cents": 100}]
        self.assertEqual(top_customers(rows, 1), [("ada", 600)])


if __name__ == "__main__":
    unittest.main()
