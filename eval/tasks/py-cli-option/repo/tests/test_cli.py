import unittest

from wordcount.cli import count_words


class CountTest(unittest.TestCase):
    def test_counts(self):
        self.assertEqual(count_words("a b a")["a"], 2)


if __name__ == "__main__":
    unittest.main()
