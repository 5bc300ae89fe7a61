import os
import subprocess
import sys
import tempfile
import unittest


def run(*args):
    return subprocess.run([sys.executable, "-m", "wordcount", *args], capture_output=True, text=True, cwd=os.getcwd())


class HiddenTest(unittest.TestCase):
    def setUp(self):
        fd, self.file = tempfile.mkstemp(suffix=".txt")
        with os.fdopen(fd, "w") as f:
            f.write("the cat and the hat and the bat")

    def test_limit(self):
        out = run("--limit", "2", self.file)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "3 the\n2 and\n")

    def test_no_limit_prints_all(self):
        self.assertEqual(len(run(self.file).stdout.splitlines()), 5)

    def test_bad_limit_is_refused(self):
        for bad in ["0", "-1", "x"]:
            out = run("--limit", bad, self.file)
            self.assertNotEqual(out.returncode, 0, bad)
            self.assertIn("limit", out.stderr)


if __name__ == "__main__":
    unittest.main()
