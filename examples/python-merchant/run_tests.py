"""Runs the test classes of test_shop.py in parallel against one sandbox, one worker per class,
as pytest-xdist or a CI matrix would; each class has its own merchant, so none sees another's.

    python3 run_tests.py            # TAP: "ok N - Class.test" or "not ok N - ..." with "# why" lines
    python3 run_tests.py --list     # the test names only

Exits 1 when a test fails. SANDBOX_CLI names the sandbox command (default "npx sandbox").
"""

import sys
import unittest
from concurrent.futures import ThreadPoolExecutor

import test_shop
from sandbox import shared_sandbox


def test_classes():
    """The TestCase classes of test_shop that hold tests, in file order."""
    loader = unittest.TestLoader()
    return [cls for cls in vars(test_shop).values()
            if isinstance(cls, type) and issubclass(cls, unittest.TestCase) and loader.getTestCaseNames(cls)]


def run_class(cls):
    """Runs one class (its setUpClass creates its merchant) and returns [(name, error text or None)]."""
    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(cls).run(result)
    failed = {test.id(): text for test, text in result.failures + result.errors}
    outcomes = [(f"{cls.__name__}.{name}", failed.pop(f"{test_shop.__name__}.{cls.__name__}.{name}", None))
                for name in unittest.TestLoader().getTestCaseNames(cls)]
    # A failure outside a test (setUpClass, tearDownClass) fails the class's tests with its reason.
    for text in failed.values():
        outcomes = [(name, error or text) for name, error in outcomes]
    return outcomes


def main():
    classes = test_classes()
    if "--list" in sys.argv:
        for cls in classes:
            for name in unittest.TestLoader().getTestCaseNames(cls):
                print(f"{cls.__name__}.{name}")
        return 0
    sandbox = shared_sandbox()
    print(f"# sandbox at {sandbox.url}; {len(classes)} classes in parallel, each with its own merchant", flush=True)
    with ThreadPoolExecutor(max_workers=len(classes)) as pool:
        outcomes = [outcome for outcomes in pool.map(run_class, classes) for outcome in outcomes]
    print(f"1..{len(outcomes)}")
    for number, (name, error) in enumerate(outcomes, 1):
        print(f"{'not ok' if error else 'ok'} {number} - {name}")
        for line in (error or "").rstrip().splitlines():
            print(f"# {line}")
    return 1 if any(error for _, error in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
