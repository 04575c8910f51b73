"""Run every test: python3 -m tests, in clients/python (see common.py for
the environment). One line per test, then a summary; exit status 1 when a
test failed."""

import sys
import unittest


class Result(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)


def main():
    suite = unittest.defaultTestLoader.discover("tests", top_level_dir=".")
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=Result)
    result = runner.run(suite)
    print()
    for test in result.passed:
        print("ok: %s" % test.id())
    for test, reason in result.skipped:
        print("skipped: %s: %s" % (test.id(), reason))
    for test, _ in result.failures + result.errors + [(t, None) for t in result.unexpectedSuccesses]:
        print("FAILED: %s" % test.id())
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print("%d passed, %d failed, %d skipped" % (len(result.passed), failed, len(result.skipped)))
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
