"""axe-core, run inside the browser tests: no serious or critical violation on a page, and none
of the rules a page's structure must keep whatever their impact (`region`: all content in
landmarks; `heading-order`: no heading level skipped).

The axe-core is a current one (4.x): the `axe.min.js` that PyPI's axe-playwright-python ships
(installed without its Playwright dependency: only the file is used, injected through
Selenium). axe-selenium-python bundles axe-core 3.1.1, too old to know today's rules."""

import importlib.util
import pathlib

SERIOUS = {"serious", "critical"}
# Rules held whatever impact axe gives them.
STRUCTURE = {"region", "heading-order"}


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("axe-core is missing: pip install --no-deps axe-playwright-python (scripts/test does)")
    return (pathlib.Path(spec.submodule_search_locations[0]) / "axe.min.js").read_text()


AXE = None


def axe_version(page):
    inject(page)
    return page.driver.execute_script("return axe.version;")


def inject(page):
    global AXE
    if AXE is None:
        AXE = axe_source()
    if not page.driver.execute_script("return typeof window.axe === 'object';"):
        page.driver.execute_script(AXE)


def violations(page):
    """The serious and critical axe-core violations on the page as it is now, and any of the
    structure rules."""
    inject(page)
    results = page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then((results) => done(results), (error) => done({error: String(error)}));")
    if "error" in results:
        raise AssertionError(f"axe-core failed: {results['error']}")
    return [violation for violation in results["violations"]
            if violation.get("impact") in SERIOUS or violation["id"] in STRUCTURE]


def describe(found):
    lines = []
    for violation in found:
        lines.append(f"{violation['impact']}: {violation['id']} ({violation['help']})")
        for node in violation["nodes"][:5]:
            lines.append(f"    {node['target']}: {node.get('failureSummary', '').splitlines()[-1] if node.get('failureSummary') else ''}")
    return "\n".join(lines)


def assert_accessible(test, page, what):
    found = violations(page)
    test.assertEqual(found, [], f"axe-core {axe_version(page)} on {what}:\n{describe(found)}")
