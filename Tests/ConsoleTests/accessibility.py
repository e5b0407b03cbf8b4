"""axe-core, run inside the browser tests: no serious or critical violation on a page."""

from axe_selenium_python import Axe

SERIOUS = {"serious", "critical"}


def violations(page):
    """The serious and critical axe-core violations on the page as it is now."""
    axe = Axe(page.driver)
    axe.inject()
    results = axe.run()
    return [violation for violation in results["violations"] if violation.get("impact") in SERIOUS]


def describe(found):
    lines = []
    for violation in found:
        lines.append(f"{violation['impact']}: {violation['id']} ({violation['help']})")
        for node in violation["nodes"][:5]:
            lines.append(f"    {node['target']}: {node.get('failureSummary', '').splitlines()[-1] if node.get('failureSummary') else ''}")
    return "\n".join(lines)


def assert_accessible(test, page, what):
    found = violations(page)
    test.assertEqual(found, [], f"axe-core on {what}:\n{describe(found)}")
