import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.getcwd())
from shop import tax  # noqa: E402
from shop.receipt import receipt_line  # noqa: E402


class HiddenTest(unittest.TestCase):
    def test_renamed(self):
        self.assertEqual(tax.vat_amount(1000, 19), 190)
        self.assertFalse(hasattr(tax, "calc_vat"))
        self.assertEqual(receipt_line(1000, 19), "VAT: 1.90")

    def test_no_old_name_left(self):
        found = subprocess.run(["grep", "-rn", "--include=*.py", "calc_vat", "shop", "tests"], capture_output=True, text=True)
        self.assertEqual(found.stdout, "")


if __name__ == "__main__":
    unittest.main()
