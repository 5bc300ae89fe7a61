import unittest

from shop.invoice import invoice_total


class InvoiceTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(invoice_total(1000, 19), 1190)


if __name__ == "__main__":
    unittest.main()
