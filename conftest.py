"""Root conftest: makes the test harness's fixtures available to every test folder."""

pytest_plugins = ["tests.harness.fixtures", "tests.harness.browser"]
